package acl

// testCommands is a command table in the server's shape (its flags,
// categories and key positions for these commands; a container before
// its subcommands), for this package's tests.
var testCommands = []Command{
	{Name: "acl"},
	{Name: "acl|cat", Flags: []string{"noscript", "loading", "stale"}},
	{Name: "acl|setuser", Flags: []string{"admin", "noscript", "loading", "stale"}},
	{Name: "acl|whoami", Flags: []string{"noscript", "loading", "stale"}},
	{Name: "auth", Flags: []string{"noscript", "loading", "stale", "fast", "no_auth"}, Categories: []string{"@connection"}, NoAuth: true},
	{Name: "bf.add", Flags: []string{"write", "denyoom"}, Categories: []string{"@bloom"}, First: 1, Last: 1, Step: 1},
	{Name: "bf.exists", Flags: []string{"readonly", "fast"}, Categories: []string{"@bloom"}, First: 1, Last: 1, Step: 1},
	{Name: "bf.loadchunk", Flags: []string{"write", "denyoom"}, Categories: []string{"@bloom", "@admin", "@dangerous"}, First: 1, Last: 1, Step: 1},
	{Name: "client"},
	{Name: "client|id", Flags: []string{"noscript", "loading", "stale"}, Categories: []string{"@connection"}},
	{Name: "client|kill", Flags: []string{"admin", "noscript", "loading", "stale"}, Categories: []string{"@connection"}},
	{Name: "config"},
	{Name: "config|get", Flags: []string{"admin", "noscript", "loading", "stale"}},
	{Name: "del", Flags: []string{"write"}, Categories: []string{"@keyspace", "@dangerous"}, First: 1, Last: -1, Step: 1},
	{Name: "exists", Flags: []string{"readonly", "fast"}, Categories: []string{"@keyspace"}, First: 1, Last: -1, Step: 1},
	{Name: "mbf.migrate", Flags: []string{"admin"}},
	{Name: "mset", Flags: []string{"write", "denyoom"}, Categories: []string{"@string"}, First: 1, Last: -1, Step: 2},
	{Name: "ping", Flags: []string{"fast"}, Categories: []string{"@connection"}},
}

// NewTestTable returns the table of testCommands.
func NewTestTable() *Table {
	t, err := NewTable(testCommands)
	if err != nil {
		panic(err)
	}
	return t
}
