//lint:file-ignore ST1005 the errors' texts are Redis's exact reply texts

package acl

import "errors"

// Errors of a rule (ACL SETUSER's modifiers, an ACL file's rules), with
// Redis 7.0's texts (ACLSetUserStringError); SetUser returns them in a
// *RuleError, ParseFile in its ErrFile.
var (
	// ErrSyntax is a rule that is none of Redis's.
	ErrSyntax = errors.New("Syntax error")

	// ErrUnknown is a +cmd, -cmd, +@category or -@category rule whose
	// command or category does not exist.
	ErrUnknown = errors.New("Unknown command or category name in ACL")

	// ErrFirstArgSub is a +container|sub|arg rule: Redis 7.0 grants
	// first arguments of commands, not of subcommands.
	ErrFirstArgSub = errors.New("Allowing first-arg of a subcommand is not supported")

	// ErrAllKeys is a ~pattern after ~* or allkeys.
	ErrAllKeys = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")

	// ErrAllChannels is an &pattern after &* or allchannels.
	ErrAllChannels = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")

	// ErrNoPassword is a <pass or !hash rule for a password the user
	// does not have.
	ErrNoPassword = errors.New("The password you are trying to remove from the user does not exist")

	// ErrHash is a #hash or !hash rule whose hash is not 64 lower-case
	// hexadecimal characters.
	ErrHash = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
)

// Errors of the users.
var (
	// ErrFile wraps every error of an ACL file (NewUsers, Users.Load,
	// ParseFile): Redis's texts, each ending ". ", after "Error loading
	// ACLs: "; or the file's read error.
	ErrFile = errors.New("Error loading ACLs")

	// ErrWrongPass is Authenticate's refusal, the same for an unknown
	// user, a disabled one and a wrong password (Redis's reply text).
	ErrWrongPass = errors.New("WRONGPASS invalid username-password pair or user is disabled.")

	// ErrUserName is SetUser's refusal of a name with white space or NUL.
	ErrUserName = errors.New("Usernames can't contain spaces or null characters")

	// ErrDefaultUser is DelUser's refusal to remove the default user.
	ErrDefaultUser = errors.New("The 'default' user cannot be removed")

	// ErrTable is NewTable's refusal of a command table: an unknown
	// category, a subcommand without its container, a name given twice,
	// key positions out of range.
	ErrTable = errors.New("acl: bad command table")
)

// RuleError is SetUser's error for the rule it refused: that rule, and
// why (ErrSyntax, ErrUnknown, ...).
type RuleError struct {
	Rule string // as given
	Err  error  // one of the rule errors above
}

func (e *RuleError) Error() string { return "rule '" + e.Rule + "': " + e.Err.Error() }

// Unwrap returns e.Err, for errors.Is.
func (e *RuleError) Unwrap() error { return e.Err }
