package acl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ACL files in Redis's users.acl syntax (redis.io, "ACL", "Use an
// external ACL file"): one user a line, `user NAME rule...`, rules
// separated by single spaces, blank lines skipped; no comments (Redis
// refuses a line not starting with "user"). Loading is all or nothing:
// with any error the users stay as they were. A file without the
// default user gets Redis's (on, nopass, every command and key).

// ParseFile returns the users of an ACL file's text, by name, their
// rules naming t's commands; name names the file in errors. On any
// error it returns every error found, in Redis's words (Redis 7.0's
// ACLLoadFromFile), each ending ". ", wrapped in ErrFile. The Rules it
// returns are not published: only their descriptions are of use.
func ParseFile(t *Table, name string, text []byte) (map[string]*Rules, error) {
	users := map[string]*Rules{}
	var errs strings.Builder
	for i, line := range strings.Split(string(text), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		n := i + 1
		switch {
		case argv[0] != "user" || len(argv) < 2:
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, n)
		case !validUserName(argv[1]):
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, n, argv[1])
		case users[argv[1]] != nil:
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], n)
		default:
			r, msg := lineUser(t, name, n, argv[2:])
			errs.WriteString(msg)
			users[argv[1]] = r
		}
	}
	if errs.Len() > 0 {
		return nil, fmt.Errorf("%w: %s", ErrFile, errs.String())
	}
	return users, nil
}

// lineUser applies the rules of one line to a new user, returning it and
// the line's errors: each unknown command or category, and the first
// other error.
func lineUser(t *Table, name string, n int, rules []string) (*Rules, string) {
	r := newRules(t)
	var errs strings.Builder
	other := false
	for _, rule := range rules {
		err := r.apply(strings.Trim(rule, "\t\r\n"))
		switch {
		case err == nil:
		case errors.Is(err, ErrUnknown):
			fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, n, rule, err)
		case !other:
			fmt.Fprintf(&errs, "%s:%d: %s. ", name, n, err)
			other = true
		}
	}
	return r, errs.String()
}

// validUserName refuses Redis's forbidden user names: spaces (and other
// white space) and NUL.
func validUserName(name string) bool { return !strings.ContainsAny(name, " \t\r\n\v\f\x00") }

// Load is ACL LOAD: it reads the ACL file and replaces every user by
// its users, returning the users that are gone (the caller closes their
// connections). A user named before and after keeps its connections,
// which get the new rules. With any error (wrapping ErrFile) the users
// stay as they were.
func (us *Users) Load() ([]*User, error) {
	text, err := os.ReadFile(us.file)
	if err != nil {
		return nil, fmt.Errorf("%w, opening file '%s': %w", ErrFile, us.file, err)
	}
	loaded, err := ParseFile(us.t, us.file, text)
	if err != nil {
		return nil, err
	}
	if loaded["default"] == nil {
		loaded["default"] = defaultRules(us.t, "")
	}
	us.mu.Lock()
	defer us.mu.Unlock()
	var gone []*User
	for name, u := range us.users {
		if loaded[name] == nil {
			gone = append(gone, u)
			delete(us.users, name)
		}
	}
	for name, r := range loaded {
		if u := us.users[name]; u != nil {
			u.publish(r)
		} else {
			us.users[name] = newUser(name, r)
		}
	}
	return gone, nil
}

// Save is ACL SAVE: it writes every user to the ACL file as List shows
// them, through a temporary file beside it renamed over it.
func (us *Users) Save() error {
	var sb strings.Builder
	for _, line := range us.List() {
		sb.WriteString(line + "\n")
	}
	tmp := filepath.Join(filepath.Dir(us.file), "."+filepath.Base(us.file)+".tmp")
	if err := os.WriteFile(tmp, []byte(sb.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, us.file)
}
