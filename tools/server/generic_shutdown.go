package server

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT], parsed as redis-server
// 7.0 parses it (shutdownCommand): SAVE, or neither, Syncs the open
// filters first (syncFilters, what SAVE, appendfsync and WAITAOF run),
// and a failed Sync keeps the server running with Redis's error unless
// FORCE; NOSAVE skips that Sync (Shutdown's close still syncs every open
// filter, as at SIGTERM). The connection then closes without a reply, as
// Redis's does, and ShutdownRequested's channel closes: the serve
// command calls Shutdown, which finishes every connection's commands,
// releases the leases, stops the log and closes the filters, within the
// bound docs/server.md gives. NOW is accepted (there is no replica lag
// to wait for: the log holds every write); ABORT answers Redis's "no
// shutdown in progress", since none is ever pending here.
func shutdownCmd(c *client, args [][]byte) {
	var nosave, save, force, abort, other bool
	for _, a := range args[1:] {
		switch {
		case eq(a, "NOSAVE"):
			nosave = true
		case eq(a, "SAVE"):
			save = true
		case eq(a, "NOW"):
			other = true
		case eq(a, "FORCE"):
			force, other = true, true
		case eq(a, "ABORT"):
			abort = true
		default:
			c.w.WriteError(msgSyntax)
			return
		}
	}
	if abort && (nosave || save || other) || nosave && save {
		c.w.WriteError(msgSyntax)
		return
	}
	if abort {
		c.w.WriteError("ERR No shutdown in progress.")
		return
	}
	if !nosave {
		if err := c.s.syncFilters(); err != nil && !force {
			c.s.cfg.Log.Printf("SHUTDOWN: the Sync of the filters failed, not shutting down (FORCE or NOSAVE would): %v", err)
			c.w.WriteError("ERR Errors trying to SHUTDOWN. Check logs.")
			return
		}
	}
	c.s.cfg.Log.Printf("SHUTDOWN asked by client id=%d: shutting down", c.id)
	c.s.askShutdown()
	c.quit = true
}

// askShutdown closes the channel ShutdownRequested returns, once.
func (s *Server) askShutdown() { s.shutdownOnce.Do(func() { close(s.shutdownAsked) }) }

// ShutdownRequested returns a channel closed once a client's SHUTDOWN
// has synced the filters: the program serving s then calls Shutdown and
// exits (the serve command does).
func (s *Server) ShutdownRequested() <-chan struct{} { return s.shutdownAsked }
