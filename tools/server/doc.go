// Package server is the network front of mmapbloom: a RESP2 server that
// speaks RedisBloom's BF.* commands, and the generic commands real clients
// send on connect, over a directory of ordinary filter files.
//
// Every key is a file in the data directory (package keyname gives its
// name), opened lazily and closed after an idle time, so that local
// processes keep opening the same files with the library while the
// server serves them. Replies are encoded by github.com/tidwall/redcon's
// Append functions into the connection's reply writer (conn_writer.go),
// which hands a command's reply bytes to the statistics without a copy;
// requests are framed by the connection's guard (conn_guard.go),
// which allocates nothing per command; the connection loop, the limits
// (request size, clients, idle time) and the dispatch are here. The differences from RedisBloom
// are listed in docs/server.md, each with its reason.
//
// # Files
//
// One file prefix per subsystem; a file without a suffix after the
// prefix (bf.go, conn.go) holds the subsystem's core. Tests follow the
// same names.
//
//	server.go    Config, New, Listen, Serve, Shutdown
//	commands.go  the command table: every command, listed once, with what
//	             COMMAND reports of it and the function that runs it
//	dispatch.go  the table indexed for each server by New (no init(): the
//	             handlers read their server's), a command's lookup in it,
//	             its checks (arity, ACL, cluster slot) and its run,
//	             batched or in a transaction
//	errors.go    the sentinel errors of the package
//	conn_        one connection: the read loop and its input guard, TLS,
//	             the reply writer, replies and error texts, RESP3 types,
//	             descriptor fitting, a gone client
//	acl_         the ACL commands and each connection's user; the users,
//	             their rules, categories and ACL files are package acl's
//	generic_     Redis's generic commands: PING, HELLO, AUTH, KEYS, DEL...
//	             in generic.go; INFO and COMMAND, COMMAND DOCS, MULTI, SCAN
//	             (glob matching: package glob), RENAME, FLUSHALL and
//	             MEMORY USAGE (generic_keys.go), EXPIRE, TTL and their
//	             family (generic_expire.go), SHUTDOWN; CONFIG and its
//	             parameters, every one declared in one table
//	             (generic_config.go), as the commands are
//	bf_          BF.* and MBF.* commands on filters and sets: batches of
//	             pipelined adds, dumps and loads, set dumps, windows, the
//	             NONSCALING full rule, MBF.MERGE, MBF.HEALTH (a key's
//	             fill and estimates from a cached sample, bf_health.go)
//	fold.go      hash-tag folding of commands (the names: package keyname)
//	cluster_     Redis Cluster: routing and redirections, CLUSTER commands,
//	             MBF.MIGRATE (slot computations: package cluster), failover
//	             on leases and the lease check of every keyed command,
//	             readiness (cluster_state, mmapbloom_serving) and the
//	             lease keeper's figures
//	pull_        pull replicas (replica-of in the cluster config): the
//	             replica role, pulling a primary's keys, absorbing the
//	             copies
//	log_         the replication log on JetStream: publishing, applying
//	             and which errors stop a stream, the nodes' limits, WAIT
//	             and INFO, damaged files moved aside at start and their
//	             streams applied again, the leases over the log's
//	             connection (log_failover.go)
//	obs_         what INFO, SLOWLOG, LATENCY, CLIENT LIST and Stats report,
//	             rendered in Redis's formats from package obs's counters;
//	             memory and residency (the library's Resident), persistence,
//	             the run-time parameters' helpers (slowlog-max-len...)
//	save_        Syncs as Redis's saves (SAVE, BGSAVE, LASTSAVE; writes
//	             refused, MISCONF, after a failed one), appendfsync's group
//	             commit, and the journal of appendfsync always (package
//	             journal) with its checkpoints and its replay at start
//
// # Packages
//
// tools/server/journal is the append-only file of appendfsync always;
// tools/server/keyname is the key to file name rule (pure functions);
// tools/server/cluster the slot of a key and the static cluster config;
// tools/server/obs, acl and glob the statistics' structures, the ACL
// rule engine and Redis's glob matching; tools/server/store the store
// of open filters (opening without the lock, the descriptor budget,
// files replaced behind the server, expired keys' removal, RENAME's
// moves, the BF.LOADCHUNKs in progress, the syncs on close, a key's
// health sample), what a key's filter is (Bloom, Fixed, Sets), the
// limits on what clients can make the server allocate, the keys'
// expiry table and the loads' temporary files. The command handlers
// over it (BF.LOADCHUNK's writes and checks, a replica's absorbed
// copies, MEMORY and INFO's figures) stay here.
//
// The server imports no NATS package: the replication log, the nodes'
// bucket of their limits (replication.Nodes) and the lease bucket
// (lease.Deferred over the log's connection, log_failover.go)
// are tools/replication's and its subpackages'.
package server
