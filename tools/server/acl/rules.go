package acl

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// The rules of ACL SETUSER and of an ACL file line, as Redis 6 and 7
// define them (redis.io, "ACL"; Redis 7.0's acl.c for the exact texts):
// on, off, >pass, <pass, #hash, !hash, nopass, resetpass, ~pattern,
// allkeys, resetkeys, &pattern, allchannels, resetchannels, +cmd, -cmd,
// +@category, -@category, allcommands, nocommands, sanitize-payload,
// skip-sanitize-payload, reset. Channel rules and the payload flags are
// kept and shown (ACL files written for Redis load) but have no effect:
// the server has no pub/sub and no RESTORE. Selectors and %R~ key permissions
// are refused; +container|sub names one subcommand.

// Rules are what one user may do. A user's Rules are never changed once
// published (SetUser publishes a changed copy), so a connection reads
// them without a lock.
type Rules struct {
	t           *Table
	on, nopass  bool
	payload     payloadFlag // sanitize-payload or skip-sanitize-payload, shown only
	passwords   []string    // SHA-256 of each password, lower-case hex, in order
	allCommands bool        // every command allowed (the check's fast path)
	future      bool        // +@all: commands added later allowed too; -@all ends it
	cmds        cmdBits     // the commands allowed, by command id
	allKeys     bool
	keys        []keyPattern // key patterns, compiled (keys.go)
	allChannels bool
	channels    []string
	verdicts    []verdict // by command id, made by publish (check.go)
}

// payloadFlag is a user's payload flag, as Redis 7.0 keeps it: neither
// (a new user), or the last of sanitize-payload (which reset sets) and
// skip-sanitize-payload.
type payloadFlag uint8

const (
	payloadUnset payloadFlag = iota
	skipSanitizePayload
	sanitizePayload
)

// newRules is a user as ACL SETUSER creates it: off, no password, no
// command, no key (Redis's "reset" state).
func newRules(t *Table) *Rules { return &Rules{t: t, cmds: make(cmdBits, t.words())} }

// defaultRules is the default user Redis creates: every command and
// key, and nopass, or the password given.
func defaultRules(t *Table, password string) *Rules {
	r := newRules(t)
	for _, rule := range []string{"on", "+@all", "~*", "&*", "nopass"} {
		_ = r.apply(rule)
	}
	if password != "" {
		_ = r.apply(">" + password)
	}
	return r
}

// clone returns a copy of r that shares nothing with it but its table,
// and no verdicts.
func (r *Rules) clone() *Rules {
	q := *r
	q.passwords = slices.Clone(r.passwords)
	q.cmds = slices.Clone(r.cmds)
	q.keys = slices.Clone(r.keys)
	q.channels = slices.Clone(r.channels)
	q.verdicts = nil
	return &q
}

// hashPassword is Redis's stored form of a password: SHA-256, hex.
func hashPassword(pass []byte) string {
	sum := sha256.Sum256(pass)
	return hex.EncodeToString(sum[:])
}

// apply changes r by one rule, or returns the rule's error (r may then
// be partly changed: callers apply rules to a copy).
func (r *Rules) apply(rule string) error {
	if rule == "" {
		return nil
	}
	switch strings.ToLower(rule) {
	case "on":
		r.on = true
	case "off":
		r.on = false
	case "nopass":
		r.nopass, r.passwords = true, nil
	case "resetpass":
		r.nopass, r.passwords = false, nil
	case "reset":
		*r = *newRules(r.t)
		r.payload = sanitizePayload
	case "sanitize-payload":
		r.payload = sanitizePayload
	case "skip-sanitize-payload":
		r.payload = skipSanitizePayload
	case "allkeys", "~*":
		r.allKeys, r.keys = true, nil
	case "resetkeys":
		r.allKeys, r.keys = false, nil
	case "allchannels", "&*":
		r.allChannels, r.channels = true, nil
	case "resetchannels":
		r.allChannels, r.channels = false, nil
	case "allcommands", "+@all":
		r.allCommands, r.future = true, true
		r.cmds.setAll(r.t, true)
	case "nocommands", "-@all":
		r.allCommands, r.future = false, false
		r.cmds.setAll(r.t, false)
	default:
		return r.applyValued(rule)
	}
	return nil
}

// applyValued applies a rule that carries a value after its first byte.
func (r *Rules) applyValued(rule string) error {
	v := rule[1:]
	switch rule[0] {
	case '>', '#':
		h, err := ruleHash(rule[0], v)
		if err != nil {
			return err
		}
		if !slices.Contains(r.passwords, h) {
			r.passwords = append(r.passwords, h)
		}
		r.nopass = false
	case '<', '!':
		h, err := ruleHash(rule[0], v)
		if err != nil {
			return err
		}
		i := slices.Index(r.passwords, h)
		if i < 0 {
			return ErrNoPassword
		}
		r.passwords = slices.Delete(r.passwords, i, i+1)
	case '~':
		return r.addKeyPattern(v)
	case '&':
		return r.addPattern(&r.channels, r.allChannels, v, ErrAllChannels)
	case '+', '-':
		return r.applyCommands(rule[0] == '+', v)
	default:
		return ErrSyntax
	}
	return nil
}

// ruleHash returns the stored hash a password rule names: the hash of
// the password after > or <, the hash itself after # or !.
func ruleHash(op byte, v string) (string, error) {
	if op == '>' || op == '<' {
		return hashPassword([]byte(v)), nil
	}
	if len(v) != 64 || strings.Trim(v, "0123456789abcdef") != "" {
		return "", ErrHash
	}
	return v, nil
}

// addKeyPattern adds a key pattern once, compiled; refused after the
// all-keys rule, as Redis refuses it.
func (r *Rules) addKeyPattern(pat string) error {
	pats := r.keyPatterns()
	if err := r.addPattern(&pats, r.allKeys, pat, ErrAllKeys); err != nil {
		return err
	}
	if len(pats) > len(r.keys) {
		r.keys = append(r.keys, compileKeyPattern(pat))
	}
	return nil
}

// addPattern adds a key or channel pattern once; refused after the
// all-keys (all-channels) rule, as Redis refuses it.
func (r *Rules) addPattern(list *[]string, all bool, pat string, errAll error) error {
	if all {
		return errAll
	}
	if strings.ContainsAny(pat, " \t\r\n\x00") {
		return ErrSyntax
	}
	if !slices.Contains(*list, pat) {
		*list = append(*list, pat)
	}
	return nil
}

// applyCommands allows or denies one command (+cmd, -cmd; a container
// with its subcommands) or every command of a category (+@cat, -@cat).
// Denying anything ends the fast path allCommands, not future (Redis's
// reserved command bit).
func (r *Rules) applyCommands(allow bool, name string) error {
	if !allow {
		r.allCommands = false
	}
	if cat, ok := strings.CutPrefix(name, "@"); ok {
		bit, ok := categoryBit(cat)
		if !ok {
			return ErrUnknown
		}
		r.cmds.setCategory(r.t, bit, allow)
		return nil
	}
	id, ok := r.t.Lookup(name)
	if !ok {
		return r.t.unknownCommand(allow, name)
	}
	r.cmds.set(id, allow)
	for _, sub := range r.t.subs[id] {
		r.cmds.set(sub, allow)
	}
	return nil
}

// unknownCommand returns the error of a +name or -name rule (allow: +)
// whose name is no command of t, as Redis 7.0's ACLSetSelector tells
// them apart for +name|arg: a container or command before the last '|'
// that is itself a subcommand (+config|get|x: ErrFirstArgSub), or with
// nothing after it (+cluster|: ErrSyntax); ErrUnknown otherwise (Redis's
// first argument of a command that has no subcommands, +select|0, is not
// supported here either).
func (t *Table) unknownCommand(allow bool, name string) error {
	i := strings.LastIndexByte(name, '|')
	if !allow || i < 0 {
		return ErrUnknown
	}
	id, ok := t.Lookup(name[:i])
	switch {
	case !ok:
		return ErrUnknown
	case strings.Contains(t.cmds[id].Name, "|"):
		return ErrFirstArgSub
	case i == len(name)-1:
		return ErrSyntax
	}
	return ErrUnknown
}

// cmdBits is a set of commands, by command id.
type cmdBits []uint64

func (b cmdBits) has(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }

func (b cmdBits) set(id int, on bool) {
	if on {
		b[id/64] |= 1 << (id % 64)
	} else {
		b[id/64] &^= 1 << (id % 64)
	}
}

// setAll allows (or denies) every command of t.
func (b cmdBits) setAll(t *Table, on bool) {
	for i := range b {
		b[i] = 0
	}
	if on {
		for id := range t.cmds {
			b.set(id, true)
		}
	}
}

// setCategory allows (or denies) every command of t in the categories
// cat.
func (b cmdBits) setCategory(t *Table, cat catBits, allow bool) {
	for id, c := range t.cats {
		if c&cat != 0 {
			b.set(id, allow)
		}
	}
}

// count returns how many commands of t in the categories cat b allows
// (on) and denies (off).
func (b cmdBits) count(t *Table, cat catBits) (on, off int) {
	for id, c := range t.cats {
		if c&cat == 0 {
			continue
		}
		if b.has(id) {
			on++
		} else {
			off++
		}
	}
	return on, off
}
