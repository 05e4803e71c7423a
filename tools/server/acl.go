package server

import (
	"crypto/subtle"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
)

// Users and what they may run, as Redis 6's ACLs: every connection runs
// as a user (the `default` user until AUTH names another); a command is
// run only when the user's rules allow it and every key it names matches
// one of the user's key patterns. The `default` user is what
// Config.Password sets (nopass without one); Config.ACLFile, in Redis's
// users.acl syntax, defines every user instead (acl_file.go).

// user is one ACL user. Its rules are replaced as a whole by ACL SETUSER
// and ACL LOAD, so a connection reads them without a lock.
type user struct {
	name string
	p    atomic.Pointer[perms]
}

func newUser(name string, p *perms) *user {
	u := &user{name: name}
	u.publish(p)
	return u
}

// acl holds the users of a server.
type acl struct {
	mu    sync.RWMutex
	users map[string]*user
	file  string // Config.ACLFile: what ACL LOAD and ACL SAVE read and write
}

// defaultPerms is the default user Redis creates: every command and key,
// and nopass, or the password given.
func defaultPerms(password string) *perms {
	p := newPerms()
	for _, r := range []string{"on", "+@all", "~*", "&*", "nopass"} {
		_ = p.apply(r)
	}
	if password != "" {
		_ = p.apply(">" + password)
	}
	return p
}

// newACL returns the users of a server: those of file when it is set,
// else the default user with password.
func newACL(password, file string) (*acl, error) {
	a := &acl{users: map[string]*user{"default": newUser("default", defaultPerms(password))}, file: file}
	if file != "" {
		if _, err := a.reload(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// get returns the user named name, or nil.
func (a *acl) get(name string) *user {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.users[name]
}

// names returns the user names in order.
func (a *acl) names() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]string, 0, len(a.users))
	for n := range a.users {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// open reports whether a new connection runs as the default user
// without AUTH: the default user is on and nopass.
func (a *acl) open() bool {
	p := a.get("default").p.Load()
	return p.on && p.nopass
}

// errWrongPass is Redis's reply to a wrong user or password, the same
// whichever it was.
//
//lint:ignore ST1005 Redis's exact reply text
var errWrongPass = errors.New("WRONGPASS invalid username-password pair or user is disabled.")

// authenticate returns the user name if it exists, is on, and pass is
// one of its passwords (or it is nopass).
func (a *acl) authenticate(name, pass []byte) (*user, error) {
	u := a.get(string(name))
	if u == nil {
		return nil, errWrongPass
	}
	p := u.p.Load()
	if !p.on {
		return nil, errWrongPass
	}
	if p.nopass {
		return u, nil
	}
	h := hashPassword(pass)
	ok := 0
	for _, stored := range p.passwords {
		ok |= subtle.ConstantTimeCompare([]byte(h), []byte(stored))
	}
	if ok == 0 {
		return nil, errWrongPass
	}
	return u, nil
}

// dropUser closes the connections running as u (after the reply to the
// command running now, on the connection c that sends it), as Redis
// does for a deleted user.
func (s *Server) dropUser(c *client, u *user) {
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
