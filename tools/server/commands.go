package server

// The command table: every command the server answers, listed once, in
// groups, read top to bottom (tidwall/tile38's command() and redcon's
// mux are the models). Each entry says what Redis's COMMAND reports for
// it (arity, flags, key positions, ACL categories, COMMAND DOCS) and
// which function runs it; the functions live in the files of their
// subsystem (bf.go, generic.go, generic_keys.go, generic_expire.go, generic_shutdown.go, bf_merge.go, bf_health.go, cluster_cmd.go, generic_multi.go, cluster_migrate.go,
// pull_fetch.go, bf_setdump.go, bf_window.go). Nothing else declares a command;
// New indexes the table (newCommandSet, dispatch.go) for its server.
//
// An entry's fields (see type command in dispatch.go):
//
//	name   lower case, as Redis reports it
//	arity  n exact (the name included), -n at least n
//	flags  Redis's COMMAND flags: write, readonly, denyoom, admin, fast...
//	keys   first, last, step key positions (0: no key; last -1: to the end),
//	       COMMAND INFO's key specification (keySpecFlags; keyFlags where
//	       Redis gives others; keyFlagsEach where it gives each key its
//	       own, RENAME's)
//	acl    ACL categories beyond those Redis derives from the flags (write:
//	       @write, readonly: @read, admin: @admin @dangerous, fast: @fast,
//	       else @slow); Redis 7.0's for its own commands. What moves or
//	       dumps whole filters past the key patterns (BF.LOADCHUNK,
//	       MBF.SETDUMP, MBF.MIGRATE, MBF.PULL) and DEL, which removes
//	       files, are @dangerous (as FLUSHDB, FLUSHALL and SHUTDOWN are
//	       in Redis).
//	tips   COMMAND INFO's tips, Redis 7.0's for its own commands
//	docs   COMMAND DOCS: group, since, summary and argument specs (doc,
//	       generic_commanddocs.go); every command and subcommand has them
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
	// COMMAND's and CLUSTER's subcommands, Redis 7.0's flags.
	fCommand = []string{"loading", "stale"}
	fStale   = []string{"stale"}
	// CLIENT's subcommands, Redis 7.0's flags.
	fClient      = fACLRead
	fClientAdmin = fACL
	// SLOWLOG's and LATENCY's subcommands, Redis 7.0's flags.
	fObs        = []string{"admin", "loading", "stale"}
	fObsHelp    = []string{"loading", "stale"}
	fObsLatency = []string{"admin", "noscript", "loading", "stale"}
)

// commandTable returns every command of the server.
func commandTable() []*command {
	key1 := func(cmd *command) *command { cmd.first, cmd.last, cmd.step = 1, 1, 1; return cmd }
	keysAll := func(cmd *command) *command { cmd.first, cmd.last, cmd.step = 1, -1, 1; return cmd }
	keys2 := func(cmd *command) *command { cmd.first, cmd.last, cmd.step = 1, 2, 1; return cmd }
	bloom, keyspace, connection := []string{"@bloom"}, []string{"@keyspace"}, []string{"@connection"}
	dangerous, tx := []string{"@admin", "@dangerous"}, []string{"@transaction"}
	multiShard := []string{"request_policy:multi_shard", "response_policy:agg_sum"}
	allSucceeded := []string{"request_policy:all_shards", "response_policy:all_succeeded"}
	flushType := opt(oneof("flush-type", aTok("ASYNC"), aTok("SYNC")))
	item, items := aStr("item"), many(aStr("item"))
	fWriteFast, update, readAccess := []string{"write", "fast"}, []string{"RW", "update"}, []string{"RO", "access"}
	nondet, unordered := []string{"nondeterministic_output"}, []string{"nondeterministic_output_order"}
	expireCond := opt(oneof("condition", aTok("NX"), aTok("XX"), aTok("GT"), aTok("LT")))
	aUnix := func(name string) argSpec { return argSpec{name: name, typ: "unix-time"} }
	dumpArgs := []argSpec{opt(block("layer", aStr("file"), aInt("iterator"), opt(tok("CHUNKSIZE", aInt("bytes")))))}
	const bfSince, own = "1.0.0", Version
	return []*command{
		// RedisBloom's BF.* commands (bf.go, bf_debug.go, bf_dump.go).
		key1(&command{name: "bf.reserve", arity: -4, flags: fWrite, acl: bloom, run: bfReserve,
			docs: doc("module", bfSince, "Creates a Bloom filter (a scaling set unless NONSCALING) for capacity items at error_rate.",
				aKey("key"), aDbl("error_rate"), aInt("capacity"), opt(tok("EXPANSION", aInt("expansion"))), opt(aTok("NONSCALING")))}),
		key1(&command{name: "bf.add", arity: 3, flags: fWrite, acl: bloom, run: bfAdd,
			docs: doc("module", bfSince, "Adds an item, creating the filter if missing; 1 if it was new.", aKey("key"), item)}),
		key1(&command{name: "bf.madd", arity: -3, flags: fWrite, acl: bloom, run: bfMAdd,
			docs: doc("module", bfSince, "Adds items, creating the filter if missing; 1 for each new one.", aKey("key"), items)}),
		key1(&command{name: "bf.insert", arity: -4, flags: fWrite, acl: bloom, run: bfInsert,
			docs: doc("module", bfSince, "Adds items, creating the filter as the options say unless NOCREATE.",
				aKey("key"), opt(tok("CAPACITY", aInt("capacity"))), opt(tok("ERROR", aDbl("error"))),
				opt(tok("EXPANSION", aInt("expansion"))), opt(aTok("NOCREATE")), opt(aTok("NONSCALING")), aTok("ITEMS"), items)}),
		key1(&command{name: "bf.exists", arity: 3, flags: fRead, acl: bloom, run: bfExists,
			docs: doc("module", bfSince, "1 if the item may have been added, 0 if it certainly was not.", aKey("key"), item)}),
		key1(&command{name: "bf.mexists", arity: -3, flags: fRead, acl: bloom, run: bfMExists,
			docs: doc("module", bfSince, "BF.EXISTS of each item.", aKey("key"), items)}),
		key1(&command{name: "bf.info", arity: -2, flags: fRead, acl: bloom, run: bfInfo,
			docs: doc("module", bfSince, "Capacity, size, layers, items and expansion of a filter, or one of them.", aKey("key"),
				opt(oneof("single_value", aTok("CAPACITY"), aTok("SIZE"), aTok("FILTERS"), aTok("ITEMS"), aTok("EXPANSION"))))}),
		key1(&command{name: "bf.card", arity: 2, flags: fRead, acl: bloom, run: bfCard,
			docs: doc("module", "2.4.4", "The number of items added (adds that set a bit).", aKey("key"))}),
		key1(&command{name: "bf.debug", arity: 2, flags: fRead, acl: bloom, run: bfDebug,
			docs: doc("module", bfSince, "The filter's layers: capacity, size, hash functions and bits of each.", aKey("key"))}),
		key1(&command{name: "bf.scandump", arity: -3, flags: fReadSlow, acl: bloom, run: bfScanDump,
			docs: doc("module", bfSince, "The next chunk of a filter's dump and the iterator after it (0: done); CHUNKSIZE caps the chunk.",
				aKey("key"), aInt("iterator"), opt(tok("CHUNKSIZE", aInt("bytes"))))}),
		key1(&command{name: "bf.loadchunk", arity: 4, flags: fWrite, acl: []string{"@bloom", "@admin", "@dangerous"}, run: bfLoadChunk,
			docs: doc("module", bfSince, "Loads a chunk BF.SCANDUMP gave.", aKey("key"), aInt("iterator"), aStr("data"))}),

		// mmapbloom's own keyed commands: windows (bf_window.go), set dumps
		// (bf_setdump.go).
		key1(&command{name: "mbf.reservewindow", arity: -8, flags: fWrite, acl: bloom, run: mbfReserveWindow,
			docs: doc("module", own, "Creates a windowed set: keys remembered for WINDOW seconds times KEEP windows.",
				aKey("key"), aDbl("error_rate"), aInt("capacity"), tok("WINDOW", aInt("seconds")), tok("KEEP", aInt("windows")),
				opt(aTok("REFRESH")), opt(tok("EXPANSION", aInt("expansion"))))}),
		key1(&command{name: "mbf.setdump", arity: -2, flags: fReadSlow, acl: dangerous, run: mbfSetDump,
			docs: doc("module", own, "A scaling or windowed set's manifest and layers, or the next chunk of one layer.",
				append([]argSpec{aKey("key")}, dumpArgs...)...)}),
		{name: "mbf.bucketdump", arity: -2, flags: fReadSlow, acl: dangerous, run: mbfBucketDump,
			docs: doc("module", own, "MBF.SETDUMP of a bucket of folded keys, named by its stem.",
				append([]argSpec{aStr("stem")}, dumpArgs...)...)},
		{name: "mbf.buckets", arity: 1, flags: fReadSlow, acl: dangerous, run: mbfBuckets,
			docs: doc("module", own, "The stems of the buckets of folded keys.")},

		// Moving and copying filters between nodes (cluster_migrate.go, pull_fetch.go).
		{name: "mbf.migrate", arity: -2, flags: fAdmin, run: mbfMigrate,
			docs: doc("module", own, "Pauses slots and copies their filters into a directory, or ends every pause.",
				oneof("operation", block("copy", aStr("ranges"), aStr("destdir")), aTok("CANCEL")))},
		{name: "mbf.pull", arity: 1, flags: fAdmin, run: mbfPull,
			docs: doc("module", own, "A replica pulls its primary's filters now.")},
		// A server-side merge (bf_merge.go).
		keysAll(&command{name: "mbf.merge", arity: -3, flags: fWrite, acl: bloom, run: mbfMerge,
			docs: doc("module", own, "ORs the source filters into dst (fixed filters of one shape, the library's Merge).",
				aKey("dst"), many(aKey("src")))}),

		// A key's health from a sample of its bits (bf_health.go).
		key1(&command{name: "mbf.health", arity: 2, flags: fReadSlow, acl: bloom, run: mbfHealth,
			docs: doc("module", own, "Fill ratio, estimated cardinality and false-positive rate of a filter and of each layer, from a cached sample.",
				aKey("key"))}),

		// Generic keyspace commands (generic.go).
		key1(&command{name: "type", arity: 2, flags: fRead, acl: keyspace, run: typeCmd,
			docs: doc("generic", "1.0.0", "The type of a key (MBbloom--), or none.", aKey("key"))}),
		keysAll(&command{name: "exists", arity: -2, flags: fRead, acl: keyspace, run: existsCmd, tips: multiShard,
			docs: doc("generic", "1.0.0", "How many of the keys exist.", many(aKey("key")))}),
		keysAll(&command{name: "del", arity: -2, flags: []string{"write"}, keyFlags: []string{"RM", "delete"}, acl: []string{"@keyspace", "@dangerous"}, run: del, tips: multiShard,
			docs: doc("generic", "1.0.0", "Removes keys (their files); how many were removed.", many(aKey("key")))}),
		keys2(&command{name: "rename", arity: 3, flags: []string{"write"}, keyFlagsEach: [][]string{{"RW", "access", "delete"}, {"OW", "update"}},
			acl: keyspace, run: rename, docs: doc("generic", "1.0.0", "Renames a key (its file), replacing newkey.", aKey("key"), aKey("newkey"))}),
		keys2(&command{name: "renamenx", arity: 3, flags: []string{"write", "fast"}, keyFlagsEach: [][]string{{"RW", "access", "delete"}, {"OW", "insert"}},
			acl: keyspace, run: renameNX, docs: doc("generic", "1.0.0", "Renames a key (its file) unless newkey exists; 1 if renamed.", aKey("key"), aKey("newkey"))}),
		// Expiries (generic_expire.go).
		key1(&command{name: "expire", arity: -3, flags: fWriteFast, keyFlags: update, acl: keyspace, run: expire,
			docs: doc("generic", "1.0.0", "Sets a key's time to live in seconds; 1 if set.", aKey("key"), aInt("seconds"), expireCond)}),
		key1(&command{name: "pexpire", arity: -3, flags: fWriteFast, keyFlags: update, acl: keyspace, run: pexpire,
			docs: doc("generic", "2.6.0", "Sets a key's time to live in milliseconds; 1 if set.", aKey("key"), aInt("milliseconds"), expireCond)}),
		key1(&command{name: "expireat", arity: -3, flags: fWriteFast, keyFlags: update, acl: keyspace, run: expireAt,
			docs: doc("generic", "1.2.0", "Sets a key's expiry as a Unix time in seconds; 1 if set.", aKey("key"), aUnix("unix-time-seconds"), expireCond)}),
		key1(&command{name: "pexpireat", arity: -3, flags: fWriteFast, keyFlags: update, acl: keyspace, run: pexpireAt,
			docs: doc("generic", "2.6.0", "Sets a key's expiry as a Unix time in milliseconds; 1 if set.", aKey("key"), aUnix("unix-time-milliseconds"), expireCond)}),
		key1(&command{name: "ttl", arity: 2, flags: fRead, keyFlags: readAccess, acl: keyspace, run: ttl, tips: nondet,
			docs: doc("generic", "1.0.0", "A key's time to live in seconds, -1 without expiry, -2 missing.", aKey("key"))}),
		key1(&command{name: "pttl", arity: 2, flags: fRead, keyFlags: readAccess, acl: keyspace, run: pttl, tips: nondet,
			docs: doc("generic", "2.6.0", "A key's time to live in milliseconds, -1 without expiry, -2 missing.", aKey("key"))}),
		key1(&command{name: "expiretime", arity: 2, flags: fRead, keyFlags: readAccess, acl: keyspace, run: expireTimeCmd,
			docs: doc("generic", "7.0.0", "A key's expiry as a Unix time in seconds, -1 without expiry, -2 missing.", aKey("key"))}),
		key1(&command{name: "pexpiretime", arity: 2, flags: fRead, keyFlags: readAccess, acl: keyspace, run: pexpireTime,
			docs: doc("generic", "7.0.0", "A key's expiry as a Unix time in milliseconds, -1 without expiry, -2 missing.", aKey("key"))}),
		key1(&command{name: "persist", arity: 2, flags: fWriteFast, keyFlags: update, acl: keyspace, run: persist,
			docs: doc("generic", "2.2.0", "Removes a key's expiry; 1 if it had one.", aKey("key"))}),
		{name: "flushdb", arity: -1, flags: []string{"write"}, acl: []string{"@keyspace", "@dangerous"}, run: flush, tips: allSucceeded,
			docs: doc("server", "1.0.0", "Removes every key DEL may remove (folded buckets are kept).", flushType)},
		{name: "flushall", arity: -1, flags: []string{"write"}, acl: []string{"@keyspace", "@dangerous"}, run: flush, tips: allSucceeded,
			docs: doc("server", "1.0.0", "Removes every key DEL may remove (folded buckets are kept).", flushType)},
		{name: "memory", arity: -2, docs: doc("server", "4.0.0", "Memory of keys."), subs: []*command{
			{name: "usage", arity: -3, flags: fReadSlow, first: 2, last: 2, step: 1, run: memoryUsage,
				docs: doc("server", "4.0.0", "The bytes of a key's file (its set directory's files), or nil.", aKey("key"), opt(tok("SAMPLES", aInt("count"))))},
		}},
		{name: "dbsize", arity: 1, flags: fRead, acl: keyspace, run: dbsize, tips: []string{"request_policy:all_shards", "response_policy:agg_sum"},
			docs: doc("server", "1.0.0", "The number of keys.")},
		{name: "scan", arity: -2, flags: fReadSlow, acl: keyspace, run: scan, tips: []string{"nondeterministic_output", "request_policy:special"},
			docs: doc("generic", "2.8.0", "Iterates over the keys from a cursor.", aInt("cursor"), opt(tok("MATCH", aStr("pattern"))),
				opt(tok("COUNT", aInt("count"))), opt(tok("TYPE", aStr("type"))))},
		{name: "keys", arity: 2, flags: fReadSlow, acl: []string{"@keyspace", "@dangerous"}, run: keysCmd,
			tips: []string{"request_policy:all_shards", "nondeterministic_output_order"},
			docs: doc("generic", "1.0.0", "The keys matching a glob pattern.", aStr("pattern"))},

		// Connection and server commands (generic.go, generic_info.go,
		// generic_config.go, generic_session.go).
		{name: "ping", arity: -1, flags: fFast, acl: connection, run: ping, tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"},
			docs: doc("connection", "1.0.0", "PONG, or the message.", opt(aStr("message")))},
		{name: "echo", arity: 2, flags: []string{"loading", "stale", "fast"}, acl: connection, run: echo,
			docs: doc("connection", "1.0.0", "The message.", aStr("message"))},
		{name: "quit", arity: -1, flags: fConn, acl: connection, noAuth: true, run: quit,
			docs: doc("connection", "1.0.0", "Closes the connection.")},
		{name: "hello", arity: -1, flags: fConn, acl: connection, noAuth: true, run: hello,
			docs: doc("connection", "6.0.0", "Handshake: protocol, authentication, client name.",
				opt(block("arguments", aInt("protover"), opt(tok("AUTH", block("username_password", aStr("username"), aStr("password")))),
					opt(tok("SETNAME", aStr("clientname"))))))},
		{name: "auth", arity: -2, flags: fConn, acl: connection, noAuth: true, run: auth,
			docs: doc("connection", "1.0.0", "Authenticates the connection.", opt(aStr("username")), aStr("password"))},
		{name: "client", arity: -2, docs: doc("connection", "2.4.0", "The connection's name, id and library, and the clients connected."), subs: []*command{
			{name: "getname", arity: 2, flags: fClient, acl: connection, run: clientGetName,
				docs: doc("connection", "2.6.9", "The connection's name, or null.")},
			{name: "id", arity: 2, flags: fClient, acl: connection, run: clientID, docs: doc("connection", "5.0.0", "The connection's id.")},
			{name: "info", arity: 2, flags: fClient, acl: connection, run: clientInfo, tips: []string{"nondeterministic_output"},
				docs: doc("connection", "6.2.0", "The connection's CLIENT LIST line.")},
			{name: "kill", arity: -3, flags: fClientAdmin, acl: connection, run: clientKill,
				docs: doc("connection", "2.4.0", "Closes the clients an address or the filters select.",
					oneof("filter", aStr("ip:port"), many(block("new-format", aStr("option"), aStr("value")))))},
			{name: "list", arity: -2, flags: fClientAdmin, acl: connection, run: clientList, tips: []string{"nondeterministic_output"},
				docs: doc("connection", "2.4.0", "One line per client: its address, age, last command, protocol...",
					opt(tok("TYPE", aStr("type"))), opt(tok("ID", many(aInt("client-id")))))},
			{name: "setinfo", arity: 4, flags: fClient, acl: connection, run: clientSetInfo,
				docs: doc("connection", "7.2.0", "Accepts the client library's name or version (and keeps neither).",
					oneof("attr", tok("LIB-NAME", aStr("libname")), tok("LIB-VER", aStr("libver"))))},
			{name: "setname", arity: 3, flags: fClient, acl: connection, run: clientSetName,
				docs: doc("connection", "2.6.9", "Names the connection.", aStr("connection-name"))},
		}},
		{name: "select", arity: 2, flags: []string{"loading", "stale", "fast"}, acl: connection, run: selectDB,
			docs: doc("connection", "1.0.0", "Selects database 0, the only one.", aInt("index"))},
		{name: "reset", arity: 1, flags: []string{"noscript", "loading", "stale", "fast", "no_auth", "allow_busy"}, acl: connection, noAuth: true, run: reset,
			docs: doc("connection", "6.2.0", "Resets the connection's state.")},
		{name: "shutdown", arity: -1, flags: []string{"admin", "noscript", "loading", "stale", "no_multi", "allow_busy"}, run: shutdownCmd,
			docs: doc("server", "1.0.0", "Syncs the filters and stops the server.", opt(oneof("save-selector", aTok("NOSAVE"), aTok("SAVE"))),
				opt(aTok("NOW")), opt(aTok("FORCE")), opt(aTok("ABORT")))},
		{name: "info", arity: -1, flags: []string{"loading", "stale"}, acl: []string{"@dangerous"}, run: info,
			tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
			docs: doc("server", "1.0.0", "The server's state and statistics, by section.", opt(many(aStr("section"))))},
		{name: "command", arity: -1, flags: fCommand, acl: connection, run: commandAllCmd, tips: unordered,
			docs: doc("server", "2.8.13", "Every command and what it takes (COMMAND INFO's entries)."), subs: []*command{
				{name: "count", arity: 2, flags: fCommand, acl: connection, run: commandCountCmd,
					docs: doc("server", "2.8.13", "The number of commands.")},
				{name: "docs", arity: -2, flags: fCommand, acl: connection, run: commandDocsCmd, tips: unordered,
					docs: doc("server", "7.0.0", "The docs of the commands named, or of every command.", opt(many(aStr("command-name"))))},
				{name: "info", arity: -2, flags: fCommand, acl: connection, run: commandInfoCmd, tips: unordered,
					docs: doc("server", "2.8.13", "What the commands named take, or every command.", opt(many(aStr("command-name"))))},
				{name: "list", arity: 2, flags: fCommand, acl: connection, run: commandListCmd, tips: unordered,
					docs: doc("server", "7.0.0", "The commands' names.")},
			}},
		{name: "config", arity: -2, docs: doc("server", "2.0.0", "Reads and changes parameters."), subs: []*command{
			{name: "get", arity: -3, flags: fACL, run: configGet,
				docs: doc("server", "2.0.0", "The parameters matching the patterns.", many(aStr("parameter")))},
			{name: "help", arity: 2, flags: []string{"loading", "stale"}, run: configHelp,
				docs: doc("server", "5.0.0", "The subcommands.")},
			{name: "resetstat", arity: 2, flags: fACL, run: configResetStat,
				docs: doc("server", "2.0.0", "Resets INFO's counters.")},
			{name: "set", arity: -4, flags: fACL, run: configSet, tips: []string{"request_policy:all_nodes", "response_policy:all_succeeded"},
				docs: doc("server", "2.0.0", "Changes parameters, all or none.", many(block("data", aStr("parameter"), aStr("value"))))},
		}},

		// Replication (log_wait.go).
		{name: "wait", arity: 3, flags: []string{"noscript"}, acl: connection, run: waitCmd,
			docs: doc("generic", "3.0.0", "Waits until this connection's writes are applied by numreplicas other nodes, or the timeout; how many.",
				aInt("numreplicas"), aInt("timeout"))},
		{name: "waitaof", arity: 4, flags: []string{"noscript"}, acl: connection, run: waitAOF,
			docs: doc("generic", "7.2.0", "Syncs this node's filters and waits for numreplicas other nodes; the local and replica counts.",
				aInt("numlocal"), aInt("numreplicas"), aInt("timeout"))},
		// Persistence (save.go): a Sync of the open filters.
		{name: "save", arity: 1, flags: []string{"admin", "noscript", "no_async_loading", "no_multi"}, run: saveCmd,
			docs: doc("server", "1.0.0", "Syncs the open filters to the disk now.")},
		{name: "bgsave", arity: -1, flags: []string{"admin", "noscript", "no_async_loading"}, run: bgsave,
			docs: doc("server", "1.0.0", "Starts a Sync of the open filters and answers at once.", opt(aTok("SCHEDULE")))},
		{name: "lastsave", arity: 1, flags: []string{"loading", "stale", "fast"}, acl: dangerous, run: lastsave,
			tips: []string{"nondeterministic_output"},
			docs: doc("server", "1.0.0", "The Unix time of the last successful Sync (the server's start before one).")},
		// Users (acl_cmd.go).
		{name: "acl", arity: -2, docs: doc("server", "6.0.0", "Users and their permissions."), subs: []*command{
			{name: "cat", arity: -2, flags: fACLRead, run: aclCat,
				docs: doc("server", "6.0.0", "The ACL categories, or the commands of one.", opt(aStr("category")))},
			{name: "deluser", arity: -3, flags: fACL, run: aclDelUser,
				docs: doc("server", "6.0.0", "Removes users.", many(aStr("username")))},
			{name: "getuser", arity: 3, flags: fACL, run: aclGetUser,
				docs: doc("server", "6.0.0", "A user's rules.", aStr("username"))},
			{name: "list", arity: 2, flags: fACL, run: aclList, docs: doc("server", "6.0.0", "Every user's rules, as ACL file lines.")},
			{name: "load", arity: 2, flags: fACL, run: aclLoad, docs: doc("server", "6.0.0", "Reloads the users from the ACL file.")},
			{name: "save", arity: 2, flags: fACL, run: aclSave, docs: doc("server", "6.0.0", "Writes the users to the ACL file.")},
			{name: "setuser", arity: -3, flags: fACL, run: aclSetUser,
				docs: doc("server", "6.0.0", "Creates or changes a user.", aStr("username"), opt(many(aStr("rule"))))},
			{name: "users", arity: 2, flags: fACL, run: aclUsers, docs: doc("server", "6.0.0", "The users' names.")},
			{name: "whoami", arity: 2, flags: fACLRead, run: aclWhoAmI, docs: doc("server", "6.0.0", "The connection's user.")},
		}},

		// What the server is doing (obs_slowlog.go, obs_latency.go).
		{name: "slowlog", arity: -2, docs: doc("server", "2.2.12", "The slow log: commands that took longer than slowlog-log-slower-than."), subs: []*command{
			{name: "get", arity: -2, flags: fObs, run: slowlogGet,
				docs: doc("server", "2.2.12", "The newest entries of the slow log.", opt(aInt("count")))},
			{name: "help", arity: 2, flags: fObsHelp, run: slowlogHelpCmd, docs: doc("server", "6.2.0", "The subcommands.")},
			{name: "len", arity: 2, flags: fObs, run: slowlogLen, docs: doc("server", "2.2.12", "The number of entries in the slow log.")},
			{name: "reset", arity: 2, flags: fObs, run: slowlogReset, docs: doc("server", "2.2.12", "Clears the slow log.")},
		}},
		{name: "latency", arity: -2, docs: doc("server", "2.8.13", "Latency of commands and events."), subs: []*command{
			{name: "help", arity: 2, flags: fObsHelp, run: latencyHelpCmd, docs: doc("server", "2.8.13", "The subcommands.")},
			{name: "histogram", arity: -2, flags: fObsLatency, run: latencyHistogram,
				docs: doc("server", "7.0.0", "Per-command latency histograms.", opt(many(aStr("command"))))},
			{name: "history", arity: 3, flags: fObsLatency, run: latencyHistory,
				docs: doc("server", "2.8.13", "The latency spikes of an event.", aStr("event"))},
			{name: "latest", arity: 2, flags: fObsLatency, run: latencyLatest, docs: doc("server", "2.8.13", "The latest latency spike of each event.")},
			{name: "reset", arity: -2, flags: fObsLatency, run: latencyReset,
				docs: doc("server", "2.8.13", "Clears the latency spikes of events.", opt(many(aStr("event"))))},
		}},

		// Transactions (generic_multi.go).
		{name: "multi", arity: 1, flags: fTx, acl: tx, run: multi, docs: doc("transactions", "1.2.0", "Starts a transaction.")},
		{name: "exec", arity: 1, flags: []string{"noscript", "loading", "stale", "skip_slowlog"}, acl: tx, run: execTx,
			docs: doc("transactions", "1.2.0", "Runs the queued commands.")},
		{name: "discard", arity: 1, flags: fTx, acl: tx, run: discard, docs: doc("transactions", "2.0.0", "Drops the queued commands.")},

		// Cluster (cluster_cmd.go, generic_session.go).
		{name: "cluster", arity: -2, docs: doc("cluster", "3.0.0", "The cluster's layout, and RELOAD of its config."), subs: []*command{
			{name: "countkeysinslot", arity: 3, flags: fStale, run: clusterKeysInSlot,
				docs: doc("cluster", "3.0.0", "The number of keys in a slot.", aInt("slot"))},
			{name: "getkeysinslot", arity: 4, flags: fStale, run: clusterKeysInSlot, tips: nondet,
				docs: doc("cluster", "3.0.0", "Up to count keys of a slot.", aInt("slot"), aInt("count"))},
			{name: "info", arity: 2, flags: fStale, run: clusterInfo, tips: nondet,
				docs: doc("cluster", "3.0.0", "The cluster's state and size.")},
			{name: "keyslot", arity: 3, flags: fStale, run: clusterKeySlot,
				docs: doc("cluster", "3.0.0", "The slot of a key.", aStr("key"))},
			{name: "myid", arity: 2, flags: fStale, run: clusterMyID, docs: doc("cluster", "3.0.0", "This node's id.")},
			{name: "nodes", arity: 2, flags: fStale, run: clusterNodes, tips: nondet,
				docs: doc("cluster", "3.0.0", "The nodes and their slots, one line each.")},
			{name: "reload", arity: 2, flags: []string{"admin", "stale"}, run: clusterReload,
				docs: doc("cluster", own, "Rereads the cluster config and applies it.")},
			{name: "shards", arity: 2, flags: fStale, run: clusterShards, tips: nondet,
				docs: doc("cluster", "7.0.0", "The shards: their slots and nodes.")},
			{name: "slots", arity: 2, flags: fStale, run: clusterSlots, tips: nondet,
				docs: doc("cluster", "3.0.0", "The slot ranges and the nodes serving them.")},
		}},
		{name: "readonly", arity: 1, flags: []string{"loading", "stale", "fast"}, acl: connection, run: readMode,
			docs: doc("cluster", "3.0.0", "Lets a replica serve this connection's reads.")},
		{name: "readwrite", arity: 1, flags: []string{"loading", "stale", "fast"}, acl: connection, run: readMode,
			docs: doc("cluster", "3.0.0", "Ends READONLY.")},
		{name: "asking", arity: 1, flags: fFast, acl: connection, run: asking,
			docs: doc("cluster", "3.0.0", "Marks the next command as sent after an ASK redirection.")},
	}
}
