package server

import (
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Generic Redis commands: what clients send on connect, and what tools
// use to look around a server.

// compatVersion is the Redis version the server reports (HELLO, INFO
// redis_version): clients enable features by it; INFO's
// mmapbloom_version names this server.
const compatVersion = "7.0.0"

func ping(c *client, args [][]byte) {
	switch len(args) {
	case 1:
		c.w.WriteString("PONG")
	case 2:
		c.w.WriteBulk(args[1])
	default:
		c.w.WriteError(wrongArity("ping"))
	}
}

func echo(c *client, args [][]byte) { c.w.WriteBulk(args[1]) }

func quit(c *client, _ [][]byte) {
	c.w.WriteString("OK")
	c.quit = true
}

// HELLO [protover [AUTH user pass] [SETNAME name]]: switches the
// connection to RESP2 or RESP3 and answers the server's description
// (helloReply).
func hello(c *client, args [][]byte) {
	resp3 := c.resp3
	if len(args) > 1 {
		v, ok := parseInt(args[1])
		if !ok {
			c.w.WriteError("ERR Protocol version is not an integer or out of range")
			return
		}
		if v != 2 && v != 3 {
			c.w.WriteError("NOPROTO unsupported protocol version")
			return
		}
		resp3 = v == 3
	}
	var name []byte
	for i := 2; i < len(args); i++ {
		switch {
		case eq(args[i], "AUTH") && i+2 < len(args):
			if !c.login(args[i+1], args[i+2]) {
				return
			}
			i += 2
		case eq(args[i], "SETNAME") && i+1 < len(args):
			if msg := checkClientName(args[i+1]); msg != "" {
				c.w.WriteError(msg)
				return
			}
			name = args[i+1]
			i++
		default:
			c.w.WriteError("ERR Syntax error in HELLO option '" + string(clip(args[i])) + "'")
			return
		}
	}
	if !c.authed {
		c.w.WriteError("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if name != nil {
		c.setName(string(name))
	}
	c.setResp3(resp3)
	c.helloReply()
}

// helloReply is redis-server 7.0's HELLO reply, in the protocol just
// chosen: a map of server, version, proto, id, mode, role and modules,
// the module a map of its name and version.
func (c *client) helloReply() {
	c.writeMapLen(7)
	for _, kv := range [][2]string{{"server", "mmapbloom"}, {"version", compatVersion}} {
		c.w.WriteBulkString(kv[0])
		c.w.WriteBulkString(kv[1])
	}
	c.w.WriteBulkString("proto")
	if c.resp3 {
		c.w.WriteInt(3)
	} else {
		c.w.WriteInt(2)
	}
	c.w.WriteBulkString("id")
	c.w.WriteInt64(c.id)
	for _, kv := range [][2]string{{"mode", c.s.mode()}, {"role", "master"}} {
		c.w.WriteBulkString(kv[0])
		c.w.WriteBulkString(kv[1])
	}
	c.w.WriteBulkString("modules")
	c.w.WriteArray(1)
	c.writeMapLen(2)
	c.w.WriteBulkString("name")
	c.w.WriteBulkString("bf")
	c.w.WriteBulkString("ver")
	c.w.WriteInt(20800)
}

// AUTH [user] password
func auth(c *client, args [][]byte) {
	switch len(args) {
	case 2:
		if c.s.acl.Open() {
			c.w.WriteError("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
		if c.login([]byte("default"), args[1]) {
			c.w.WriteString("OK")
		}
	case 3:
		if c.login(args[1], args[2]) {
			c.w.WriteString("OK")
		}
	default:
		c.w.WriteError(msgSyntax)
	}
}

// login authenticates c as user with pass, answering the error and
// reporting false when that fails.
func (c *client) login(user, pass []byte) bool {
	u, err := c.s.acl.Authenticate(user, pass)
	if err != nil {
		c.w.WriteError(err.Error())
		return false
	}
	c.user.Store(u)
	c.authed = true
	return true
}

// CLIENT SETINFO LIB-NAME|LIB-VER value: OK (the value is not kept).
func clientSetInfo(c *client, args [][]byte) {
	if !eq(args[2], "LIB-NAME") && !eq(args[2], "LIB-VER") {
		c.w.WriteError("ERR Unrecognized option '" + string(clip(args[2])) + "'")
		return
	}
	c.w.WriteString("OK")
}

// CLIENT SETNAME name
func clientSetName(c *client, args [][]byte) {
	if msg := checkClientName(args[2]); msg != "" {
		c.w.WriteError(msg)
		return
	}
	c.setName(string(args[2]))
	c.w.WriteString("OK")
}

// CLIENT GETNAME: the name, or null.
func clientGetName(c *client, _ [][]byte) {
	if c.name == "" {
		c.writeNull()
	} else {
		c.w.WriteBulkString(c.name)
	}
}

// CLIENT ID
func clientID(c *client, _ [][]byte) { c.w.WriteInt64(c.id) }

// CLIENT INFO: c's own CLIENT LIST line (obs_client.go).
func clientInfo(c *client, _ [][]byte) { c.writeVerbatim(c.line(c)) }

// checkClientName returns Redis's error for a client name holding a
// byte outside '!'..'~' (CLIENT SETNAME, HELLO SETNAME), or "".
func checkClientName(name []byte) string {
	for _, b := range name {
		if b < '!' || b > '~' {
			return "ERR Client names cannot contain spaces, newlines or special characters."
		}
	}
	return ""
}

func selectDB(c *client, args [][]byte) {
	if v, ok := parseInt(args[1]); !ok {
		c.w.WriteError(msgNotInteger)
	} else if v != 0 {
		c.w.WriteError("ERR DB index is out of range")
	} else {
		c.w.WriteString("OK")
	}
}

// TYPE key: RedisBloom's type name, or none.
func typeCmd(c *client, args [][]byte) {
	ok, err := c.s.store.Exists(args[1])
	switch {
	case err != nil && !absent(err):
		c.replyErr(err)
	case ok:
		c.w.WriteString("MBbloom--")
	default:
		c.w.WriteString("none")
	}
}

// EXISTS key...: how many of the keys exist (a key counted per mention).
func existsCmd(c *client, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		ok, err := c.s.store.Exists(k)
		if err != nil && !absent(err) {
			c.replyErr(err)
			return
		}
		if ok {
			n++
		}
	}
	c.w.WriteInt(n)
}

// DEL key...: removes each key's file; refused (an error, no key after it
// removed) while another process has the file open.
// del removes the keys in order. It stops at the first key it may not
// remove (open in another process); that error then says which key and
// how many keys before it were removed, since a plain error would hide
// that some were.
func del(c *client, args [][]byte) {
	n := 0
	for _, k := range args[1:] {
		ok, err := c.s.store.Remove(k)
		if err != nil && !absent(err) {
			if errors.Is(err, mmapbloom.ErrInUse) {
				c.noteApplyErr(err)
				c.w.WriteError(fmt.Sprintf("ERR key '%s' is open in another process (or in a running command): not removed; %d key(s) before it were removed", clip(k), n))
				return
			}
			c.replyErr(err)
			return
		}
		if ok {
			n++
		}
	}
	c.w.WriteInt(n)
}

func dbsize(c *client, _ [][]byte) {
	keys, err := c.s.store.Keys()
	if err != nil {
		c.replyErr(err)
		return
	}
	c.w.WriteInt(len(keys))
}

// KEYS pattern
func keysCmd(c *client, args [][]byte) {
	keys, err := c.s.store.Keys()
	if err != nil {
		c.replyErr(err)
		return
	}
	out := keys[:0]
	for _, k := range keys {
		if keyMatch(string(args[1]), k) {
			out = append(out, k)
		}
	}
	c.w.WriteArray(len(out))
	for _, k := range out {
		c.w.WriteBulkString(k)
	}
}
