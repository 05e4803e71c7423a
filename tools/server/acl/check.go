package acl

import "fmt"

// The check of every command against its user's rules. A user's rules
// are compiled when they are published (SetUser, Load, NewUsers): one
// verdict per command, so that the check of a command is a table load,
// and a key check only for the commands of a user limited to key
// patterns, compiled to byte comparisons (keys.go). It allocates
// nothing unless it refuses.

// verdictKind is what a user's rules say of one command.
type verdictKind uint8

const (
	vDeny    verdictKind = iota // the command is not allowed
	vAllow                      // allowed, whatever its keys
	vKey                        // allowed if its one key (at key) matches a key pattern
	vKeyWord                    // vKey, for a user whose one pattern is a prefix of 1 to 8 bytes
	vKeys                       // allowed if every key it names matches a key pattern
)

// verdict is the verdict on one command (its low byte) and, for vKey
// and vKeyWord, the position of its one key (Command.First, the bytes
// above): one load gives both.
type verdict uint32

func (v verdict) kind() verdictKind { return verdictKind(v) }
func (v verdict) key() int          { return int(v >> 8) }

// maxFirst is the largest key position a verdict holds.
const maxFirst = 1<<24 - 1

// publish compiles r's verdicts and makes r u's rules; r is not changed
// afterwards.
func (u *User) publish(r *Rules) {
	r.verdicts = make([]verdict, len(r.t.cmds))
	for id := range r.t.cmds {
		r.verdicts[id] = verdict(r.verdictOf(id)) | verdict(r.t.cmds[id].First)<<8
	}
	u.rules.Store(r)
}

// verdictOf returns r's verdict on the command id. Commands that run
// before AUTH are always allowed.
func (r *Rules) verdictOf(id int) verdictKind {
	cmd := &r.t.cmds[id]
	switch {
	case cmd.NoAuth:
		return vAllow
	case !r.allCommands && !r.cmds.has(id):
		return vDeny
	case r.allKeys || cmd.First == 0:
		return vAllow
	case cmd.Last == cmd.First && len(r.keys) == 1 && r.keys[0].mask != 0:
		return vKeyWord
	case cmd.Last == cmd.First:
		return vKey
	}
	return vKeys
}

// Allowed returns "" when u may run the command id with args (args[0]
// its name, then its arguments), else Redis's NOPERM error text: the
// user's rules do not allow the command, or a key it names matches none
// of the user's key patterns. args holds at least the arguments the
// command's key positions name (the server checks the arity first).
func (u *User) Allowed(id int, args [][]byte) string { return u.rules.Load().allowed(id, args) }

// Redis 7.0's NOPERM error for a queued command its user's rules no
// longer allow at EXEC (execCommand), before the reason.
const msgExecChanged = "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: "

// AllowedAtExec is Allowed for a command queued by MULTI and run by
// EXEC: "", or Redis 7.0's NOPERM error saying the rules changed since
// it was queued, and whether the command or one of its keys is refused.
func (u *User) AllowedAtExec(id int, args [][]byte) string {
	r := u.rules.Load()
	switch {
	case r.allowed(id, args) == "":
		return ""
	case r.verdicts[id].kind() == vDeny:
		return msgExecChanged + "no permission to execute the command or subcommand"
	}
	return msgExecChanged + "no permission to touch the specified keys"
}

// allowed is Allowed under the rules r. The common verdicts are
// decided here, the others by refusal.
func (r *Rules) allowed(id int, args [][]byte) string {
	switch v := r.verdicts[id]; v.kind() {
	case vAllow:
		return ""
	case vKeyWord:
		if r.keys[0].wordMatches(args[v.key()]) {
			return ""
		}
		fallthrough
	case vKey:
		if r.keyAllowed(args[v.key()]) {
			return ""
		}
	}
	return r.refusal(id, args)
}

// refusal returns Redis's NOPERM error for the command id with args, or
// "" when every key it names matches one of r's key patterns.
func (r *Rules) refusal(id int, args [][]byte) string {
	cmd := &r.t.cmds[id]
	if r.verdicts[id].kind() == vDeny {
		return fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", cmd.Name)
	}
	for i, last := cmd.First, LastKey(cmd.Last, len(args)); i <= last; i += cmd.Step {
		if !r.keyAllowed(args[i]) {
			return "NOPERM this user has no permissions to access one of the keys used as arguments"
		}
	}
	return ""
}
