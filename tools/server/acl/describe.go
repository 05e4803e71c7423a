package acl

import (
	"slices"
	"strings"
)

// Describing a user as Redis 7.0 does (ACLDescribeUser, and
// ACLDescribeSelectorCommandRules for the commands): what ACL LIST, ACL
// GETUSER and ACL SAVE write, rules that give the same user back.

// Description is what ACL GETUSER shows of a user's rules.
type Description struct {
	Flags     []string // "on" or "off", then "nopass" and "sanitize-payload" or "skip-sanitize-payload" if set
	Passwords []string // the SHA-256 of each password, lower-case hex
	Commands  string   // the rules that rebuild the commands: "+@all -del", "-@all +@bloom"
	Keys      string   // "~*" for every key, else each pattern after "~"
	Channels  string   // "&*" for every channel, else each pattern after "&"
}

// Description returns ACL GETUSER's description of r.
func (r *Rules) Description() Description {
	return Description{Flags: r.flagNames(), Passwords: slices.Clone(r.passwords), Commands: r.commandRules(),
		Keys: r.keyRules(), Channels: r.channelRules(false)}
}

// Describe returns the rules of r's ACL LIST line, after "user NAME":
// flags, password hashes, keys, channels (led by resetchannels unless
// every channel), commands.
func (r *Rules) Describe() string {
	parts := r.flagNames()
	for _, h := range r.passwords {
		parts = append(parts, "#"+h)
	}
	if k := r.keyRules(); k != "" {
		parts = append(parts, k)
	}
	parts = append(parts, r.channelRules(true), r.commandRules())
	return strings.Join(parts, " ")
}

// flagNames is GETUSER's flags: on or off, then nopass if set, then
// the payload flag if set (Redis's ACLUserFlags order).
func (r *Rules) flagNames() []string {
	f := []string{"off"}
	if r.on {
		f[0] = "on"
	}
	if r.nopass {
		f = append(f, "nopass")
	}
	switch r.payload {
	case skipSanitizePayload:
		f = append(f, "skip-sanitize-payload")
	case sanitizePayload:
		f = append(f, "sanitize-payload")
	}
	return f
}

// keyRules is "~*" for all keys, else the patterns, each after "~".
func (r *Rules) keyRules() string {
	if r.allKeys {
		return "~*"
	}
	return prefixEach("~", r.keyPatterns())
}

// channelRules is "&*" for all channels, else the patterns after "&",
// led by "resetchannels" in ACL LIST (withReset).
func (r *Rules) channelRules(withReset bool) string {
	if r.allChannels {
		return "&*"
	}
	s := prefixEach("&", r.channels)
	if withReset {
		s = strings.TrimSpace("resetchannels " + s)
	}
	return s
}

func prefixEach(prefix string, list []string) string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = prefix + v
	}
	return strings.Join(out, " ")
}

// commandRules returns the rules that rebuild r's commands: +@all or
// -@all, then the categories that fit best (each sharing more commands
// with r than it changes, the fewest changes first), then single
// commands, as Redis 7.0's ACLDescribeSelectorCommandRules.
func (r *Rules) commandRules() string {
	additive := !r.future
	fake := newRules(r.t)
	rules := []string{"+@all"}
	if additive {
		rules[0] = "-@all"
	} else {
		_ = fake.apply("+@all")
	}
	temp := slices.Clone(r.cmds)
	applied := make([]bool, len(categories))
	for {
		best, bestDiff, bestSame := -1, int(^uint(0)>>1), 0
		for j := range categories {
			if applied[j] {
				continue
			}
			on, off := temp.count(r.t, 1<<j)
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < bestDiff || diff == bestDiff && same > bestSame) {
				best, bestDiff, bestSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		op, inv := "+@", "-@"
		if !additive {
			op, inv = inv, op
		}
		_ = fake.apply(op + categories[best])
		temp.setCategory(r.t, 1<<best, inv == "+@")
		rules = append(rules, op+categories[best])
		applied[best] = true
	}
	for id, cmd := range r.t.cmds {
		if want := r.cmds.has(id); want != fake.cmds.has(id) {
			rule := map[bool]string{true: "+", false: "-"}[want] + cmd.Name
			_ = fake.apply(rule) // a container's rule sets its subcommands too
			rules = append(rules, rule)
		}
	}
	return strings.Join(rules, " ")
}
