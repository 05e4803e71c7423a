package server

import (
	"errors"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
)

// ACL SETUSER|GETUSER|DELUSER|LIST|USERS|WHOAMI|CAT|LOAD|SAVE, with
// Redis 7.0's replies and error texts; the users and their rules are
// package acl's.

func aclList(c *client, _ [][]byte)   { c.writeStrings(c.s.acl.List()) }
func aclUsers(c *client, _ [][]byte)  { c.writeStrings(c.s.acl.Names()) }
func aclWhoAmI(c *client, _ [][]byte) { c.w.WriteBulkString(c.user.Load().Name()) }

func (c *client) writeStrings(list []string) {
	c.w.WriteArray(len(list))
	for _, s := range list {
		c.w.WriteBulkString(s)
	}
}

// ACL SETUSER name rule...: all the rules or none.
func aclSetUser(c *client, args [][]byte) {
	rules := make([]string, len(args)-3)
	for i, r := range args[3:] {
		rules[i] = string(r)
	}
	var bad *acl.RuleError
	switch err := c.s.acl.SetUser(string(args[2]), rules); {
	case errors.As(err, &bad):
		c.w.WriteError("ERR Error in ACL SETUSER modifier '" + string(clip([]byte(bad.Rule))) + "': " + bad.Err.Error())
	case err != nil:
		c.w.WriteError("ERR " + err.Error())
	default:
		c.w.WriteString("OK")
	}
}

// ACL GETUSER name: Redis 7.0's flags, passwords, commands, keys,
// channels and selectors (none), or nil.
func aclGetUser(c *client, args [][]byte) {
	u := c.s.acl.Get(string(args[2]))
	if u == nil {
		c.writeNull()
		return
	}
	d := u.Rules().Description()
	c.writeMapLen(6)
	c.w.WriteBulkString("flags")
	c.writeSetLen(len(d.Flags))
	for _, f := range d.Flags {
		c.w.WriteBulkString(f)
	}
	c.w.WriteBulkString("passwords")
	c.writeStrings(d.Passwords)
	for _, kv := range [][2]string{{"commands", d.Commands}, {"keys", d.Keys}, {"channels", d.Channels}} {
		c.w.WriteBulkString(kv[0])
		c.w.WriteBulkString(kv[1])
	}
	c.w.WriteBulkString("selectors")
	c.w.WriteArray(0)
}

// ACL DELUSER name...: how many were removed; their connections close.
func aclDelUser(c *client, args [][]byte) {
	names := make([]string, len(args)-2)
	for i, n := range args[2:] {
		names[i] = string(n)
	}
	gone, err := c.s.acl.DelUser(names)
	if err != nil {
		c.w.WriteError("ERR " + err.Error())
		return
	}
	for _, u := range gone {
		c.s.dropUser(c, u)
	}
	c.w.WriteInt(len(gone))
}

// ACL CAT [category]: the categories, or the commands of one.
func aclCat(c *client, args [][]byte) {
	switch len(args) {
	case 2:
		c.writeStrings(acl.Categories())
	case 3:
		names, ok := c.s.cmds.acl.CategoryCommands(string(args[2]))
		if !ok {
			c.w.WriteError("ERR Unknown category '" + string(clip(args[2])) + "'")
			return
		}
		c.writeStrings(names)
	default:
		c.w.WriteError(wrongArity("acl|cat"))
	}
}

// msgNoACLFile is Redis's reply to ACL LOAD and ACL SAVE without an ACL
// file.
const msgNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

func aclLoad(c *client, _ [][]byte) {
	if c.s.acl.File() == "" {
		c.w.WriteError(msgNoACLFile)
		return
	}
	gone, err := c.s.acl.Load()
	if err != nil {
		c.w.WriteError("ERR " + strings.TrimPrefix(err.Error(), acl.ErrFile.Error()+": "))
		return
	}
	for _, u := range gone {
		c.s.dropUser(c, u)
	}
	c.w.WriteString("OK")
}

func aclSave(c *client, _ [][]byte) {
	if c.s.acl.File() == "" {
		c.w.WriteError(msgNoACLFile)
		return
	}
	if err := c.s.acl.Save(); err != nil {
		c.s.cfg.Log.Printf("ACL SAVE: %v", err)
		c.w.WriteError("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.w.WriteString("OK")
}
