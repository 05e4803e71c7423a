package server

import "strings"

// ACL SETUSER|GETUSER|DELUSER|LIST|USERS|WHOAMI|CAT|LOAD|SAVE, with
// Redis 7.0's replies and error texts.

func aclList(c *client, _ [][]byte)   { c.writeStrings(c.s.acl.list()) }
func aclUsers(c *client, _ [][]byte)  { c.writeStrings(c.s.acl.names()) }
func aclWhoAmI(c *client, _ [][]byte) { c.w.WriteBulkString(c.user.Load().name) }

func (c *client) writeStrings(list []string) {
	c.w.WriteArray(len(list))
	for _, s := range list {
		c.w.WriteBulkString(s)
	}
}

// ACL SETUSER name rule...: all the rules or none.
func aclSetUser(c *client, args [][]byte) {
	name := string(args[2])
	if !validUserName(name) {
		c.w.WriteError("ERR Usernames can't contain spaces or null characters")
		return
	}
	a := c.s.acl
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.users[name]
	p := newPerms()
	if u != nil {
		p = u.p.Load().clone()
	}
	for _, r := range args[3:] {
		if err := p.apply(string(r)); err != nil {
			c.w.WriteError("ERR Error in ACL SETUSER modifier '" + string(clip(r)) + "': " + err.Error())
			return
		}
	}
	if u == nil {
		a.users[name] = newUser(name, p)
	} else {
		u.publish(p)
	}
	c.w.WriteString("OK")
}

// ACL GETUSER name: Redis 7.0's flags, passwords, commands, keys,
// channels and selectors (none), or nil.
func aclGetUser(c *client, args [][]byte) {
	u := c.s.acl.get(string(args[2]))
	if u == nil {
		c.writeNull()
		return
	}
	p := u.p.Load()
	c.writeMapLen(6)
	c.w.WriteBulkString("flags")
	flags := p.flagNames()
	c.writeSetLen(len(flags))
	for _, f := range flags {
		c.w.WriteBulkString(f)
	}
	c.w.WriteBulkString("passwords")
	c.writeStrings(p.passwords)
	for _, kv := range [][2]string{{"commands", p.commandRules()}, {"keys", p.keyRules()}, {"channels", p.channelRules(false)}} {
		c.w.WriteBulkString(kv[0])
		c.w.WriteBulkString(kv[1])
	}
	c.w.WriteBulkString("selectors")
	c.w.WriteArray(0)
}

// ACL DELUSER name...: how many were removed; their connections close.
func aclDelUser(c *client, args [][]byte) {
	a := c.s.acl
	var gone []*user
	a.mu.Lock()
	for _, n := range args[2:] {
		if string(n) == "default" {
			a.mu.Unlock()
			c.w.WriteError("ERR The 'default' user cannot be removed")
			return
		}
	}
	for _, n := range args[2:] {
		if u := a.users[string(n)]; u != nil {
			gone = append(gone, u)
			delete(a.users, string(n))
		}
	}
	a.mu.Unlock()
	for _, u := range gone {
		c.s.dropUser(c, u)
	}
	c.w.WriteInt(len(gone))
}

// ACL CAT [category]: the categories, or the commands of one.
func aclCat(c *client, args [][]byte) {
	switch len(args) {
	case 2:
		c.writeStrings(aclCategories)
	case 3:
		bit, ok := categoryBit(string(args[2]))
		if !ok {
			c.w.WriteError("ERR Unknown category '" + string(clip(args[2])) + "'")
			return
		}
		var names []string
		for _, cmd := range commandList {
			if cmd.cats&bit != 0 {
				names = append(names, cmd.name)
			}
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
	if c.s.acl.file == "" {
		c.w.WriteError(msgNoACLFile)
		return
	}
	gone, err := c.s.acl.reload()
	if err != nil {
		c.w.WriteError("ERR " + strings.TrimPrefix(err.Error(), ErrACLFile.Error()+": "))
		return
	}
	for _, u := range gone {
		c.s.dropUser(c, u)
	}
	c.w.WriteString("OK")
}

func aclSave(c *client, _ [][]byte) {
	if c.s.acl.file == "" {
		c.w.WriteError(msgNoACLFile)
		return
	}
	if err := c.s.acl.save(); err != nil {
		c.s.cfg.Log.Printf("ACL SAVE: %v", err)
		c.w.WriteError("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.w.WriteString("OK")
}
