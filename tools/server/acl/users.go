package acl

import (
	"crypto/subtle"
	"sort"
	"sync"
	"sync/atomic"
)

// Users and what they may run, as Redis 6's ACLs: every connection runs
// as a user (the `default` user until AUTH names another); a command is
// run only when the user's rules allow it and every key it names matches
// one of the user's key patterns.

// User is one ACL user. Its rules are replaced as a whole by SetUser and
// Load, so a connection reads them without a lock.
type User struct {
	name  string
	rules atomic.Pointer[Rules]
}

func newUser(name string, r *Rules) *User {
	u := &User{name: name}
	u.publish(r)
	return u
}

// Name returns the user's name.
func (u *User) Name() string { return u.name }

// Rules returns the user's rules now.
func (u *User) Rules() *Rules { return u.rules.Load() }

// Users are the users of a server, and its ACL file. Their methods are
// safe for concurrent use.
type Users struct {
	t     *Table
	file  string // what Load and Save read and write
	mu    sync.RWMutex
	users map[string]*User
}

// NewUsers returns the users of a server whose commands are t: those of
// the ACL file when file is set (an error wraps ErrFile), else the
// default user, with every command and key, nopass, or password when
// it is set.
func NewUsers(t *Table, password, file string) (*Users, error) {
	us := &Users{t: t, file: file, users: map[string]*User{"default": newUser("default", defaultRules(t, password))}}
	if file != "" {
		if _, err := us.Load(); err != nil {
			return nil, err
		}
	}
	return us, nil
}

// File returns the ACL file's path, "" when there is none.
func (us *Users) File() string { return us.file }

// Get returns the user named name, or nil.
func (us *Users) Get(name string) *User {
	us.mu.RLock()
	defer us.mu.RUnlock()
	return us.users[name]
}

// Names returns the user names in order: ACL USERS.
func (us *Users) Names() []string {
	us.mu.RLock()
	defer us.mu.RUnlock()
	out := make([]string, 0, len(us.users))
	for n := range us.users {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// List returns ACL LIST's lines, in name order: "user NAME " and the
// user's Describe.
func (us *Users) List() []string {
	var out []string
	for _, n := range us.Names() {
		if u := us.Get(n); u != nil {
			out = append(out, "user "+n+" "+u.Rules().Describe())
		}
	}
	return out
}

// Open reports whether a new connection runs as the default user
// without AUTH: the default user is on and nopass.
func (us *Users) Open() bool {
	r := us.Get("default").Rules()
	return r.on && r.nopass
}

// Authenticate returns the user named name if it exists, is on, and
// pass is one of its passwords (or it is nopass), else ErrWrongPass.
// The passwords are compared in constant time.
func (us *Users) Authenticate(name, pass []byte) (*User, error) {
	u := us.Get(string(name))
	if u == nil {
		return nil, ErrWrongPass
	}
	r := u.Rules()
	if !r.on {
		return nil, ErrWrongPass
	}
	if r.nopass {
		return u, nil
	}
	h := hashPassword(pass)
	ok := 0
	for _, stored := range r.passwords {
		ok |= subtle.ConstantTimeCompare([]byte(h), []byte(stored))
	}
	if ok == 0 {
		return nil, ErrWrongPass
	}
	return u, nil
}

// SetUser is ACL SETUSER: it applies rules, in order, to the user named
// name, created in Redis's reset state (off, no password, command or
// key) when there is none; all of them, or none when one is refused
// (a *RuleError). It returns ErrUserName for a name with white space
// or NUL.
func (us *Users) SetUser(name string, rules []string) error {
	if !validUserName(name) {
		return ErrUserName
	}
	us.mu.Lock()
	defer us.mu.Unlock()
	u := us.users[name]
	r := newRules(us.t)
	if u != nil {
		r = u.Rules().clone()
	}
	for _, rule := range rules {
		if err := r.apply(rule); err != nil {
			return &RuleError{Rule: rule, Err: err}
		}
	}
	if u == nil {
		us.users[name] = newUser(name, r)
	} else {
		u.publish(r)
	}
	return nil
}

// DelUser is ACL DELUSER: it removes the users named, returning those
// that existed (the caller closes their connections), or, removing
// none, ErrDefaultUser when names holds "default".
func (us *Users) DelUser(names []string) ([]*User, error) {
	us.mu.Lock()
	defer us.mu.Unlock()
	for _, n := range names {
		if n == "default" {
			return nil, ErrDefaultUser
		}
	}
	var gone []*User
	for _, n := range names {
		if u := us.users[n]; u != nil {
			gone = append(gone, u)
			delete(us.users, n)
		}
	}
	return gone, nil
}
