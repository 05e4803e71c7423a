package server

// COMMAND DOCS [name...]: Redis 7's reply, a map of command names to
// their docs, each a map of summary, since, group and arguments (in
// RESP2 flat arrays of keys and values). Commands whose
// table entry has no docs, and unknown names, are left out.
func (c *client) writeCommandDocs(names [][]byte) {
	var cmds []*command
	if len(names) == 0 {
		for _, n := range commandNames() {
			cmds = append(cmds, commands[n])
		}
	} else {
		for _, n := range names {
			if cmd := lookup(n); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	var out []*command
	for _, cmd := range cmds {
		if cmd.docs != nil {
			out = append(out, cmd)
		}
	}
	c.writeMapLen(len(out))
	for _, cmd := range out {
		c.w.WriteBulkString(cmd.name)
		d := cmd.docs
		c.writeMapLen(4)
		for _, kv := range [][2]string{{"summary", d.summary}, {"since", d.since}, {"group", d.group}} {
			c.w.WriteBulkString(kv[0])
			c.w.WriteBulkString(kv[1])
		}
		c.w.WriteBulkString("arguments")
		c.writeArgSpecs(d.args)
	}
}

// writeArgSpecs writes COMMAND DOCS's argument specs, each a flat array
// of its fields.
func (c *client) writeArgSpecs(specs []argSpec) {
	c.w.WriteArray(len(specs))
	for _, a := range specs {
		n := 4
		if a.token != "" {
			n += 2
		}
		if len(a.flags) > 0 {
			n += 2
		}
		if len(a.parts) > 0 {
			n += 2
		}
		c.writeMapLen(n / 2)
		c.w.WriteBulkString("name")
		c.w.WriteBulkString(a.name)
		c.w.WriteBulkString("type")
		c.w.WriteBulkString(a.typ)
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
