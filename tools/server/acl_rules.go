//lint:file-ignore ST1005 the rules' errors are Redis's exact reply texts

package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
)

// The rules of ACL SETUSER and of an ACL file line, as Redis 6 and 7
// define them (redis.io, "ACL"; Redis 7.0's acl.c for the exact texts):
// on, off, >pass, <pass, #hash, !hash, nopass, resetpass, ~pattern,
// allkeys, resetkeys, &pattern, allchannels, resetchannels, +cmd, -cmd,
// +@category, -@category, allcommands, nocommands, reset. Channel rules
// are kept and shown (ACL files written for Redis load) but have no
// effect: the server has no pub/sub. Selectors, %R~ key permissions and
// +cmd|sub are refused (the table has no subcommands).

// Errors of a rule, with Redis's texts (ACLSetUserStringError).
var (
	errRuleSyntax   = errors.New("Syntax error")
	errRuleUnknown  = errors.New("Unknown command or category name in ACL")
	errRuleAllKeys  = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	errRuleAllChans = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	errRuleNoPass   = errors.New("The password you are trying to remove from the user does not exist")
	errRuleHash     = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
)

// perms is what one user may do: a value never changed once published
// (SETUSER publishes a changed copy), so a connection reads it without
// a lock.
type perms struct {
	on, nopass  bool
	passwords   []string // SHA-256 of each password, lower-case hex, in order
	allCommands bool     // every command allowed (the check's fast path)
	future      bool     // +@all: commands added later allowed too; -@all ends it
	cmds        cmdBits  // the commands allowed, by command id
	allKeys     bool
	keys        []keyPattern // key patterns, compiled (acl_keys.go)
	allChannels bool
	channels    []string
	verdicts    []verdict // by command id, made by publish (acl_check.go)
}

// newPerms is a user as ACL SETUSER creates it: off, no password, no
// command, no key (Redis's "reset" state).
func newPerms() *perms { return &perms{cmds: make(cmdBits, cmdWords())} }

// clone returns a copy of p that shares nothing with it.
func (p *perms) clone() *perms {
	q := *p
	q.passwords = slices.Clone(p.passwords)
	q.cmds = slices.Clone(p.cmds)
	q.keys = slices.Clone(p.keys)
	q.channels = slices.Clone(p.channels)
	return &q
}

// hashPassword is Redis's stored form of a password: SHA-256, hex.
func hashPassword(pass []byte) string {
	sum := sha256.Sum256(pass)
	return hex.EncodeToString(sum[:])
}

// apply changes p by one rule, or returns the rule's error (p may then
// be partly changed: callers apply rules to a copy).
func (p *perms) apply(rule string) error {
	if rule == "" {
		return nil
	}
	switch strings.ToLower(rule) {
	case "on":
		p.on = true
	case "off":
		p.on = false
	case "nopass":
		p.nopass, p.passwords = true, nil
	case "resetpass":
		p.nopass, p.passwords = false, nil
	case "reset":
		*p = *newPerms()
	case "allkeys", "~*":
		p.allKeys, p.keys = true, nil
	case "resetkeys":
		p.allKeys, p.keys = false, nil
	case "allchannels", "&*":
		p.allChannels, p.channels = true, nil
	case "resetchannels":
		p.allChannels, p.channels = false, nil
	case "allcommands", "+@all":
		p.allCommands, p.future = true, true
		p.cmds.setAll(true)
	case "nocommands", "-@all":
		p.allCommands, p.future = false, false
		p.cmds.setAll(false)
	default:
		return p.applyValued(rule)
	}
	return nil
}

// applyValued applies a rule that carries a value after its first byte.
func (p *perms) applyValued(rule string) error {
	v := rule[1:]
	switch rule[0] {
	case '>', '#':
		h, err := ruleHash(rule[0], v)
		if err != nil {
			return err
		}
		if !slices.Contains(p.passwords, h) {
			p.passwords = append(p.passwords, h)
		}
		p.nopass = false
	case '<', '!':
		h, err := ruleHash(rule[0], v)
		if err != nil {
			return err
		}
		i := slices.Index(p.passwords, h)
		if i < 0 {
			return errRuleNoPass
		}
		p.passwords = slices.Delete(p.passwords, i, i+1)
	case '~':
		return p.addKeyPattern(v)
	case '&':
		return p.addPattern(&p.channels, p.allChannels, v, errRuleAllChans)
	case '+', '-':
		return p.applyCommands(rule[0] == '+', v)
	default:
		return errRuleSyntax
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
		return "", errRuleHash
	}
	return v, nil
}

// addKeyPattern adds a key pattern once, compiled; refused after the
// all-keys rule, as Redis refuses it.
func (p *perms) addKeyPattern(pat string) error {
	pats := p.keyPatterns()
	if err := p.addPattern(&pats, p.allKeys, pat, errRuleAllKeys); err != nil {
		return err
	}
	if len(pats) > len(p.keys) {
		p.keys = append(p.keys, compileKeyPattern(pat))
	}
	return nil
}

// addPattern adds a key or channel pattern once; refused after the
// all-keys (all-channels) rule, as Redis refuses it.
func (p *perms) addPattern(list *[]string, all bool, pat string, errAll error) error {
	if all {
		return errAll
	}
	if strings.ContainsAny(pat, " \t\r\n\x00") {
		return errRuleSyntax
	}
	if !slices.Contains(*list, pat) {
		*list = append(*list, pat)
	}
	return nil
}

// applyCommands allows or denies one command (+cmd, -cmd) or every
// command of a category (+@cat, -@cat). Denying anything ends the fast
// path allCommands, not future (Redis's reserved command bit).
func (p *perms) applyCommands(allow bool, name string) error {
	if !allow {
		p.allCommands = false
	}
	if cat, ok := strings.CutPrefix(name, "@"); ok {
		bit, ok := categoryBit(cat)
		if !ok {
			return errRuleUnknown
		}
		p.cmds.setCategory(bit, allow)
		return nil
	}
	cmd := lookupFull(name)
	if cmd == nil {
		return errRuleUnknown
	}
	p.cmds.set(cmd.id, allow)
	for _, sub := range cmd.subs {
		p.cmds.set(sub.id, allow)
	}
	return nil
}
