package server

// RESET and ASKING: a connection's state as Redis 7.0 resets and flags
// it.

// reset is RESET: the connection as it was when it connected. It leaves
// a transaction, forgets its name and READONLY, speaks RESP2 and runs as
// the default user again (authenticated only if that user needs no
// password). Answers +RESET.
func reset(c *client, _ [][]byte) {
	c.tx = tx{}
	c.setName("")
	c.setResp3(false)
	c.readonly = false
	c.authed = c.s.acl.Open()
	c.user.Store(c.s.acl.Get("default"))
	c.w.WriteString("RESET")
}

// asking is ASKING: in cluster mode OK (this server sends no ASK
// redirection, so the flag changes nothing); else Redis's error for a
// server without cluster support.
func asking(c *client, _ [][]byte) {
	if c.s.cluster.Load() == nil {
		c.w.WriteError("ERR This instance has cluster support disabled")
		return
	}
	c.w.WriteString("OK")
}
