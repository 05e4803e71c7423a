package server

import "github.com/mmapbloom/mmapbloom/tools/server/acl"

// Users and what they may run, as Redis 6's ACLs (package acl): every
// connection runs as a user (the `default` user until AUTH names
// another); a command is run only when the user's rules allow it and
// every key it names matches one of the user's key patterns. The
// `default` user is what Config.Password sets (nopass without one);
// Config.ACLFile, in Redis's users.acl syntax, defines every user
// instead. The ACL commands are in acl_cmd.go.

// newACLTable returns the ACL table of cmds, a commandSet's list.
func newACLTable(cmds []*command) *acl.Table {
	specs := make([]acl.Command, len(cmds))
	for i, c := range cmds {
		specs[i] = acl.Command{Name: c.name, Flags: c.flags, Categories: c.acl,
			First: c.first, Last: c.last, Step: c.step, NoAuth: c.noAuth}
	}
	t, err := acl.NewTable(specs)
	if err != nil {
		panic("server: " + err.Error())
	}
	return t
}

// allowed returns "" when c's user may run cmd with args, else Redis's
// NOPERM error.
func (c *client) allowed(cmd *command, args [][]byte) string {
	return c.user.Load().Allowed(cmd.id, args)
}

// dropUser closes the connections running as u (after the reply to the
// command running now, on the connection c that sends it), as Redis
// does for a deleted user.
func (s *Server) dropUser(c *client, u *acl.User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for other := range s.clients {
		if other.user.Load() != u {
			continue
		}
		if other == c {
			c.quit = true
		} else {
			_ = other.nc.Close()
		}
	}
}

// masterAuth is the password of the pulls: MasterAuth, else Password
// (as the default user's, when MasterUser is not set either).
func (s *Server) masterAuth() string {
	if s.cfg.MasterAuth != "" {
		return s.cfg.MasterAuth
	}
	return s.cfg.Password
}
