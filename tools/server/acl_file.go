package server

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

// ErrACLFile wraps every error of an ACL file.
var ErrACLFile = errors.New("Error loading ACLs")

// parseACLFile reads the users of an ACL file's text, name naming it in
// errors, or returns every error found, in Redis's words (Redis 7.0's
// ACLLoadFromFile), each ending ". ".
func parseACLFile(name string, text []byte) (map[string]*perms, error) {
	users := map[string]*perms{}
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
			p, msg := lineUser(name, n, argv[2:])
			errs.WriteString(msg)
			users[argv[1]] = p
		}
	}
	if errs.Len() > 0 {
		return nil, fmt.Errorf("%w: %s", ErrACLFile, errs.String())
	}
	return users, nil
}

// lineUser applies the rules of one line to a new user, returning it and
// the line's errors: each unknown command or category, and the first
// other error.
func lineUser(name string, n int, rules []string) (*perms, string) {
	p := newPerms()
	var errs strings.Builder
	other := false
	for _, r := range rules {
		err := p.apply(strings.Trim(r, "\t\r\n"))
		switch {
		case err == nil:
		case errors.Is(err, errRuleUnknown):
			fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, n, r, err)
		case !other:
			fmt.Fprintf(&errs, "%s:%d: %s. ", name, n, err)
			other = true
		}
	}
	return p, errs.String()
}

// validUserName refuses Redis's forbidden user names: spaces (and other
// white space) and NUL.
func validUserName(name string) bool { return !strings.ContainsAny(name, " \t\r\n\v\f\x00") }

// reload reads a.file and replaces every user by its users, returning
// the users that are gone (the caller closes their connections). A user
// named before and after keeps its connections, which get the new rules.
func (a *acl) reload() ([]*user, error) {
	text, err := os.ReadFile(a.file)
	if err != nil {
		return nil, fmt.Errorf("%w, opening file '%s': %w", ErrACLFile, a.file, err)
	}
	loaded, err := parseACLFile(a.file, text)
	if err != nil {
		return nil, err
	}
	if loaded["default"] == nil {
		loaded["default"] = defaultPerms("")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var gone []*user
	for name, u := range a.users {
		if loaded[name] == nil {
			gone = append(gone, u)
			delete(a.users, name)
		}
	}
	for name, p := range loaded {
		if u := a.users[name]; u != nil {
			u.publish(p)
		} else {
			a.users[name] = newUser(name, p)
		}
	}
	return gone, nil
}

// save writes every user to a.file as ACL LIST shows them, through a
// temporary file renamed over it.
func (a *acl) save() error {
	var sb strings.Builder
	for _, line := range a.list() {
		sb.WriteString(line + "\n")
	}
	tmp := filepath.Join(filepath.Dir(a.file), "."+filepath.Base(a.file)+".tmp")
	if err := os.WriteFile(tmp, []byte(sb.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, a.file)
}

// list returns ACL LIST's lines.
func (a *acl) list() []string {
	var out []string
	for _, n := range a.names() {
		if u := a.get(n); u != nil {
			out = append(out, "user "+n+" "+u.p.Load().describe())
		}
	}
	return out
}
