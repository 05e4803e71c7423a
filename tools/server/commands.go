package server

// The command table: every command the server answers, listed once, in
// groups, read top to bottom (tidwall/tile38's command() and redcon's
// mux are the models). Each entry says what Redis's COMMAND reports for
// it (arity, flags, key positions, ACL categories, COMMAND DOCS) and
// which function runs it; the functions live in the files of their
// subsystem (bf.go, generic.go, cluster_cmd.go, generic_multi.go, cluster_migrate.go,
// replica_pull.go, bf_setdump.go, bf_window.go). Nothing else registers a command.
//
// An entry's fields (see type command in dispatch.go):
//
//	name   lower case, as Redis reports it
//	arity  n exact (the name included), -n at least n
//	flags  Redis's COMMAND flags: write, readonly, denyoom, admin, fast...
//	keys   first, last, step key positions (0: no key; last -1: to the end)
//	acl    ACL categories beyond those Redis derives from the flags (write:
//	       @write, readonly: @read, admin: @admin @dangerous, fast: @fast,
//	       else @slow); Redis 7.0's for its own commands. What moves or
//	       dumps whole filters past the key patterns (BF.LOADCHUNK,
//	       MBF.SETDUMP, MBF.MIGRATE, MBF.PULL) and DEL, which removes
//	       files, are @dangerous.
//	docs   COMMAND DOCS: summary and argument specs (nil: none reported)
//	noAuth runs before AUTH

// Flag sets shared by many entries.
var (
	fWrite    = []string{"write", "denyoom"}
	fRead     = []string{"readonly", "fast"}
	fReadSlow = []string{"readonly"}
	fFast     = []string{"fast"}
	fConn     = []string{"noscript", "loading", "stale", "fast", "no_auth"}
	fTx       = []string{"noscript", "loading", "stale", "fast", "allow_busy"}
	fAdmin    = []string{"admin"}
	fACL      = []string{"admin", "noscript", "loading", "stale"}
	fACLRead  = []string{"noscript", "loading", "stale"}
)

// commandTable returns every command of the server.
func commandTable() []*command {
	key1 := func(cmd *command) *command { cmd.first, cmd.last, cmd.step = 1, 1, 1; return cmd }
	keysAll := func(cmd *command) *command { cmd.first, cmd.last, cmd.step = 1, -1, 1; return cmd }
	bloom, keyspace, connection := []string{"@bloom"}, []string{"@keyspace"}, []string{"@connection"}
	dangerous, tx := []string{"@admin", "@dangerous"}, []string{"@transaction"}
	return []*command{
		// RedisBloom's BF.* commands (bf.go, bf_debug.go, bf_dump.go).
		key1(&command{name: "bf.reserve", arity: -4, flags: fWrite, acl: bloom, run: bfReserve}),
		key1(&command{name: "bf.add", arity: 3, flags: fWrite, acl: bloom, run: bfAdd}),
		key1(&command{name: "bf.madd", arity: -3, flags: fWrite, acl: bloom, run: bfMAdd}),
		key1(&command{name: "bf.insert", arity: -4, flags: fWrite, acl: bloom, run: bfInsert}),
		key1(&command{name: "bf.exists", arity: 3, flags: fRead, acl: bloom, run: bfExists}),
		key1(&command{name: "bf.mexists", arity: -3, flags: fRead, acl: bloom, run: bfMExists}),
		key1(&command{name: "bf.info", arity: -2, flags: fRead, acl: bloom, run: bfInfo}),
		key1(&command{name: "bf.card", arity: 2, flags: fRead, acl: bloom, run: bfCard}),
		key1(&command{name: "bf.debug", arity: 2, flags: fRead, acl: bloom, run: bfDebug}),
		key1(&command{name: "bf.scandump", arity: 3, flags: fReadSlow, acl: bloom, run: bfScanDump}),
		key1(&command{name: "bf.loadchunk", arity: 4, flags: fWrite, acl: []string{"@bloom", "@admin", "@dangerous"}, run: bfLoadChunk}),

		// mmapbloom's own keyed commands: windows (bf_window.go), set dumps
		// (bf_setdump.go).
		key1(&command{name: "mbf.reservewindow", arity: -8, flags: fWrite, acl: bloom, run: mbfReserveWindow}),
		key1(&command{name: "mbf.setdump", arity: -2, flags: fReadSlow, acl: dangerous, run: mbfSetDump}),
		{name: "mbf.bucketdump", arity: -2, flags: fReadSlow, acl: dangerous, run: mbfBucketDump},
		{name: "mbf.buckets", arity: 1, flags: fReadSlow, acl: dangerous, run: mbfBuckets},

		// Moving and copying filters between nodes (cluster_migrate.go, replica_pull.go).
		{name: "mbf.migrate", arity: -2, flags: fAdmin, run: mbfMigrate},
		{name: "mbf.pull", arity: 1, flags: fAdmin, run: mbfPull},

		// Generic keyspace commands (generic.go).
		key1(&command{name: "type", arity: 2, flags: fRead, acl: keyspace, run: typeCmd}),
		keysAll(&command{name: "exists", arity: -2, flags: fRead, acl: keyspace, run: existsCmd}),
		keysAll(&command{name: "del", arity: -2, flags: []string{"write"}, acl: []string{"@keyspace", "@dangerous"}, run: del}),
		{name: "dbsize", arity: 1, flags: fRead, acl: keyspace, run: dbsize},
		{name: "scan", arity: -2, flags: fReadSlow, acl: keyspace, run: scan},
		{name: "keys", arity: 2, flags: fReadSlow, acl: []string{"@keyspace", "@dangerous"}, run: keysCmd},

		// Connection and server commands (generic.go, generic_info.go).
		{name: "ping", arity: -1, flags: fFast, acl: connection, run: ping},
		{name: "echo", arity: 2, flags: fFast, acl: connection, run: echo},
		{name: "quit", arity: -1, flags: fConn, acl: connection, noAuth: true, run: quit},
		{name: "hello", arity: -1, flags: fConn, acl: connection, noAuth: true, run: hello},
		{name: "auth", arity: -2, flags: fConn, acl: connection, noAuth: true, run: auth},
		{name: "client", arity: -2, flags: []string{"noscript", "loading", "stale"}, acl: connection, run: clientCmd},
		{name: "select", arity: 2, flags: fFast, acl: connection, run: selectDB},
		{name: "info", arity: -1, flags: []string{"loading", "stale"}, acl: []string{"@dangerous"}, run: info},
		{name: "command", arity: -1, flags: []string{"loading", "stale"}, acl: connection, run: commandCmd},
		{name: "config", arity: -2, flags: []string{"admin", "noscript", "loading", "stale"}, run: configCmd},

		// Users (acl_cmd.go).
		{name: "acl", arity: -2, subs: []*command{
			{name: "cat", arity: -2, flags: fACLRead, run: aclCat},
			{name: "deluser", arity: -3, flags: fACL, run: aclDelUser},
			{name: "getuser", arity: 3, flags: fACL, run: aclGetUser},
			{name: "list", arity: 2, flags: fACL, run: aclList},
			{name: "load", arity: 2, flags: fACL, run: aclLoad},
			{name: "save", arity: 2, flags: fACL, run: aclSave},
			{name: "setuser", arity: -3, flags: fACL, run: aclSetUser},
			{name: "users", arity: 2, flags: fACL, run: aclUsers},
			{name: "whoami", arity: 2, flags: fACLRead, run: aclWhoAmI},
		}},

		// Transactions (generic_multi.go).
		{name: "multi", arity: 1, flags: fTx, acl: tx, run: multi},
		{name: "exec", arity: 1, flags: []string{"noscript", "loading", "stale", "skip_slowlog"}, acl: tx, run: execTx},
		{name: "discard", arity: 1, flags: fTx, acl: tx, run: discard},

		// Cluster (cluster_cmd.go).
		{name: "cluster", arity: -2, flags: []string{"stale"}, run: clusterCmd},
		{name: "readonly", arity: 1, flags: []string{"loading", "stale", "fast"}, acl: connection, run: readMode},
		{name: "readwrite", arity: 1, flags: []string{"loading", "stale", "fast"}, acl: connection, run: readMode},
	}
}

func init() { register(commandTable()...) }
