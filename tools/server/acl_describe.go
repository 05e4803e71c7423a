package server

import "strings"

// Describing a user as Redis 7.0 does (ACLDescribeUser, and
// ACLDescribeSelectorCommandRules for the commands): what ACL LIST, ACL
// GETUSER and ACL SAVE write, rules that give the same user back.

// describe returns the rules of ACL LIST's line for p, after "user NAME".
func (p *perms) describe() string {
	parts := p.flagNames()
	for _, h := range p.passwords {
		parts = append(parts, "#"+h)
	}
	if k := p.keyRules(); k != "" {
		parts = append(parts, k)
	}
	parts = append(parts, p.channelRules(true), p.commandRules())
	return strings.Join(parts, " ")
}

// flagNames is GETUSER's flags: on or off, then nopass if set.
func (p *perms) flagNames() []string {
	f := []string{"off"}
	if p.on {
		f[0] = "on"
	}
	if p.nopass {
		f = append(f, "nopass")
	}
	return f
}

// keyRules is "~*" for all keys, else the patterns, each after "~".
func (p *perms) keyRules() string {
	if p.allKeys {
		return "~*"
	}
	return prefixEach("~", p.keyPatterns())
}

// channelRules is "&*" for all channels, else the patterns after "&",
// led by "resetchannels" in ACL LIST (withReset).
func (p *perms) channelRules(withReset bool) string {
	if p.allChannels {
		return "&*"
	}
	s := prefixEach("&", p.channels)
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

// commandRules returns the rules that rebuild p's commands: +@all or
// -@all, then the categories that fit best (each sharing more commands
// with p than it changes, the fewest changes first), then single
// commands, as Redis 7.0's ACLDescribeSelectorCommandRules.
func (p *perms) commandRules() string {
	additive := !p.future
	fake := newPerms()
	rules := []string{"+@all"}
	if additive {
		rules[0] = "-@all"
	} else {
		_ = fake.apply("+@all")
	}
	temp := p.cmds.clone()
	applied := make([]bool, len(aclCategories))
	for {
		best, bestDiff, bestSame := -1, int(^uint(0)>>1), 0
		for j := range aclCategories {
			if applied[j] {
				continue
			}
			on, off := temp.count(1 << j)
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
		_ = fake.apply(op + aclCategories[best])
		temp.setCategory(1<<best, inv == "+@")
		rules = append(rules, op+aclCategories[best])
		applied[best] = true
	}
	for _, cmd := range commandList {
		if want := p.cmds.has(cmd.id); want != fake.cmds.has(cmd.id) {
			rule := map[bool]string{true: "+", false: "-"}[want] + cmd.name
			_ = fake.apply(rule) // a container's rule sets its subcommands too
			rules = append(rules, rule)
		}
	}
	return strings.Join(rules, " ")
}

func (b cmdBits) clone() cmdBits { return append(cmdBits(nil), b...) }

// count returns how many commands of the categories cat b allows (on)
// and denies (off).
func (b cmdBits) count(cat catBits) (on, off int) {
	for _, cmd := range commandList {
		if cmd.cats&cat == 0 {
			continue
		}
		if b.has(cmd.id) {
			on++
		} else {
			off++
		}
	}
	return on, off
}

// setCategory allows (or denies) every command of the categories cat.
func (b cmdBits) setCategory(cat catBits, allow bool) {
	for _, cmd := range commandList {
		if cmd.cats&cat != 0 {
			b.set(cmd.id, allow)
		}
	}
}
