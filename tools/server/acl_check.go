package server

import (
	"fmt"
)

// The check of every command against its user's rules. A user's rules
// are compiled when they are published (ACL SETUSER, ACL LOAD, the
// aclfile, the default user): one verdict per command, so that the
// check of a command is a table load, and a key check only for the
// commands of a user limited to key patterns, compiled to byte
// comparisons (acl_keys.go). It allocates nothing unless it refuses.

// verdict is what a user's rules say of one command.
type verdict uint8

const (
	vDeny    verdict = iota // the command is not allowed
	vAllow                  // allowed, whatever its keys
	vKey                    // allowed if its one key (at cmd.first) matches a key pattern
	vKeyWord                // vKey, for a user whose one pattern is a prefix of 1 to 8 bytes
	vKeys                   // allowed if every key it names matches a key pattern
)

// publish compiles p's verdicts and makes p u's rules; p is not changed
// afterwards.
func (u *user) publish(p *perms) {
	p.verdicts = make([]verdict, len(commandList))
	for _, cmd := range commandList {
		p.verdicts[cmd.id] = p.verdictOf(cmd)
	}
	u.p.Store(p)
}

// verdictOf returns p's verdict on cmd. Commands that run before AUTH
// are always allowed.
func (p *perms) verdictOf(cmd *command) verdict {
	switch {
	case cmd.noAuth:
		return vAllow
	case !p.allCommands && !p.cmds.has(cmd.id):
		return vDeny
	case p.allKeys || cmd.first == 0:
		return vAllow
	case cmd.last == cmd.first && len(p.keys) == 1 && p.keys[0].mask != 0:
		return vKeyWord
	case cmd.last == cmd.first:
		return vKey
	}
	return vKeys
}

// allowed returns "" when c's user may run cmd with args, else Redis's
// NOPERM error. The common verdicts are decided here, the others by
// refusal.
func (c *client) allowed(cmd *command, args [][]byte) string {
	p := c.user.Load().p.Load()
	switch p.verdicts[cmd.id] {
	case vAllow:
		return ""
	case vKeyWord:
		if p.keys[0].wordMatches(args[cmd.first]) {
			return ""
		}
		fallthrough
	case vKey:
		if p.keyAllowed(args[cmd.first]) {
			return ""
		}
	}
	return p.refusal(cmd, args)
}

// refusal returns Redis's NOPERM error for cmd with args, or "" when
// every key it names matches one of p's key patterns.
func (p *perms) refusal(cmd *command, args [][]byte) string {
	if p.verdicts[cmd.id] == vDeny {
		return fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", cmd.name)
	}
	for i, last := cmd.first, cmd.lastKey(len(args)); i <= last; i += cmd.step {
		if !p.keyAllowed(args[i]) {
			return "NOPERM this user has no permissions to access one of the keys used as arguments"
		}
	}
	return ""
}
