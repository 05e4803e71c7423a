package server

import "strings"

// COMMAND DOCS: what each entry of the command table (commands.go) says
// of itself, written as Redis 7.0 writes it, and the constructors the
// table's docs fields are written with.

// doc makes a command's docs: Redis's group (generic, connection,
// server, transactions, cluster; "module" for RedisBloom's commands,
// which Redis reports with a module field), the version it appeared in,
// its summary and its arguments.
func doc(group, since, summary string, args ...argSpec) *commandDocs {
	return &commandDocs{group: group, since: since, summary: summary, args: args}
}

// Argument specs by Redis's types.
func aKey(name string) argSpec { return argSpec{name: name, typ: "key"} }
func aStr(name string) argSpec { return argSpec{name: name, typ: "string"} }
func aInt(name string) argSpec { return argSpec{name: name, typ: "integer"} }
func aDbl(name string) argSpec { return argSpec{name: name, typ: "double"} }

// aTok is a pure token: the word itself, named in lower case.
func aTok(token string) argSpec {
	return argSpec{name: strings.ToLower(token), typ: "pure-token", token: token}
}

// tok is a introduced by token.
func tok(token string, a argSpec) argSpec { a.token = token; return a }

// opt and many flag a as optional or repeatable.
func opt(a argSpec) argSpec  { a.flags = append(a.flags, "optional"); return a }
func many(a argSpec) argSpec { a.flags = append(a.flags, "multiple"); return a }

// block and oneof group parts: all of them in order, or one of them.
func block(name string, parts ...argSpec) argSpec {
	return argSpec{name: name, typ: "block", parts: parts}
}
func oneof(name string, parts ...argSpec) argSpec {
	return argSpec{name: name, typ: "oneof", parts: parts}
}

// writeCommandDocs is COMMAND DOCS [name...]: a map of command names to
// their docs (in RESP2 a flat array of names and docs; every command
// when no name is given; unknown names left out).
func (c *client) writeCommandDocs(names [][]byte) {
	var cmds []*command
	if len(names) == 0 {
		for _, n := range c.s.cmds.names() {
			cmds = append(cmds, c.s.cmds.byName[n])
		}
	}
	for _, n := range names {
		if cmd := c.s.cmds.lookupFull(string(n)); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	c.writeMapLen(len(cmds))
	for _, cmd := range cmds {
		c.w.WriteBulkString(cmd.name)
		c.writeDocs(cmd)
	}
}

// writeDocs writes one command's docs as Redis 7.0 does: summary, since,
// group, module (RedisBloom's), arguments and subcommands when it has
// them.
func (c *client) writeDocs(cmd *command) {
	d := cmd.docs
	n := 6
	for _, has := range []bool{d.group == "module", len(d.args) > 0, len(cmd.subs) > 0} {
		if has {
			n += 2
		}
	}
	c.writeMapLen(n / 2)
	for _, kv := range [][2]string{{"summary", d.summary}, {"since", d.since}, {"group", d.group}} {
		c.w.WriteBulkString(kv[0])
		c.w.WriteBulkString(kv[1])
	}
	if d.group == "module" {
		c.w.WriteBulkString("module")
		c.w.WriteBulkString("bf")
	}
	if len(d.args) > 0 {
		c.w.WriteBulkString("arguments")
		c.writeArgSpecs(d.args)
	}
	if len(cmd.subs) > 0 {
		c.w.WriteBulkString("subcommands")
		c.writeMapLen(len(cmd.subs))
		for _, sub := range cmd.subs {
			c.w.WriteBulkString(sub.name)
			c.writeDocs(sub)
		}
	}
}

// writeArgSpecs writes COMMAND DOCS's argument specs, each a map of
// its fields in Redis 7.0's order; a key names its key specification
// (key_spec_index 0: a command has at most one, writeKeySpecs).
func (c *client) writeArgSpecs(specs []argSpec) {
	c.w.WriteArray(len(specs))
	for _, a := range specs {
		n := 4
		for _, has := range []bool{a.typ == "key", a.token != "", len(a.flags) > 0, len(a.parts) > 0} {
			if has {
				n += 2
			}
		}
		c.writeMapLen(n / 2)
		c.w.WriteBulkString("name")
		c.w.WriteBulkString(a.name)
		c.w.WriteBulkString("type")
		c.w.WriteBulkString(a.typ)
		if a.typ == "key" {
			c.w.WriteBulkString("key_spec_index")
			c.w.WriteInt(0)
		}
		if a.token != "" {
			c.w.WriteBulkString("token")
			c.w.WriteBulkString(a.token)
		}
		if len(a.flags) > 0 {
			c.w.WriteBulkString("flags")
			c.writeSetLen(len(a.flags))
			for _, f := range a.flags {
				c.w.WriteString(f)
			}
		}
		if len(a.parts) > 0 {
			c.w.WriteBulkString("arguments")
			c.writeArgSpecs(a.parts)
		}
	}
}
