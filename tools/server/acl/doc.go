// Package acl is the server's ACL rule engine: Redis 6 and 7's users, their
// rules (`on >pw ~seen:* &* -@all +@bloom -bf.loadchunk +client|id`), the
// ACL categories, the users.acl file, and the check of a command and its
// keys against a user's rules, with Redis 7.0's reply texts. It knows
// commands only as the server's command table describes them to it
// (Command); it has no network and no command handlers: the server's ACL
// commands call it.
//
// # Basics
//
// NewTable takes every command and subcommand as ACL sees it (its name,
// flags, categories, key positions) and numbers them: a command's id is
// its index. NewUsers makes a server's users: the default user, or those
// of an ACL file. A connection holds its *User (Users.Get("default"),
// then Users.Authenticate) and asks it before running a command:
//
//	if msg := u.Allowed(id, args); msg != "" {
//		// reply msg, a NOPERM error
//	}
//
// Users.SetUser, DelUser, Load, Save, List and Names are ACL SETUSER,
// DELUSER, LOAD, SAVE, LIST and USERS; Rules.Description is ACL
// GETUSER's; Categories and Table.CategoryCommands are ACL CAT's.
//
// # Caveats
//
// A user's rules are compiled when published (a verdict per command, key
// patterns to byte comparisons): Allowed is a table load for most
// commands and allocates nothing unless it refuses; a change of rules
// replaces them whole, so connections read them without a lock.
// Allowed indexes args at the command's key positions: the caller
// checks the command's arity first (a call too short for its keys
// panics). Channel rules and the payload flags (sanitize-payload,
// skip-sanitize-payload) are kept and shown but check nothing (no
// pub/sub, no RESTORE); selectors are refused, and so is the first
// argument of a command without subcommands (+select|0).
// Names with a '|' are lowered as strings.ToLower does, others in ASCII
// only, as the server looks commands up. ParseFile's Rules serve for their
// descriptions: only a User, which Users hands out, checks commands.
package acl
