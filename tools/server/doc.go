// Package server is the network front of mmapbloom: a RESP2 server that
// speaks RedisBloom's BF.* commands, and the generic commands real clients
// send on connect, over a directory of ordinary filter files.
//
// Every key is a file in the data directory (package keyname gives its
// name), opened lazily and closed after an idle time, so that local
// processes keep opening the same files with the library while the
// server serves them. Replies are written with github.com/tidwall/redcon's
// Writer; requests are framed by the connection's guard (conn_guard.go),
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
//	dispatch.go  a command's lookup in the table, its checks (arity, ACL,
//	             cluster slot) and its run, batched or in a transaction
//	errors.go    the sentinel errors of the package
//	conn_        one connection: the read loop and its input guard, TLS,
//	             replies and error texts, descriptor fitting, a gone client
//	acl_         users and their rules (ACL commands, ACL files, categories)
//	generic_     Redis's generic commands: PING, HELLO, AUTH, KEYS, DEL...
//	             in generic.go; INFO and COMMAND, COMMAND DOCS, MULTI, SCAN
//	bf_          BF.* and MBF.* commands on filters and sets: batches of
//	             pipelined adds, dumps and loads, set dumps, windows, the
//	             NONSCALING full rule
//	store_       the store of open filters (the Bloom and Sets interfaces,
//	             opening without the lock, files replaced behind the server,
//	             limits on disk, layers and loads, temporary load files)
//	fold.go      hash-tag folding of commands (the names: package keyname)
//	cluster_     Redis Cluster: routing and redirections, CLUSTER commands,
//	             MBF.MIGRATE (slot computations: package cluster), failover
//	             with leases (package tools/replication/lease)
//	replica_     replicas: pulling a primary, absorbing the copies; the
//	             JetStream log: publishing, applying, WAIT and WAITAOF
//	             (the log itself: package tools/replication)
//	obs_         what the server observes of itself: per-command counts
//	             and latency histograms, INFO's sections, SLOWLOG,
//	             LATENCY, CLIENT LIST's per-client figures, memory and
//	             page-cache residency, the Syncs in INFO persistence, the
//	             Stats snapshot of a metrics exporter (package tools/metrics)
//
// # Packages
//
// tools/server/keyname is the key to file name rule (pure functions);
// tools/server/cluster the slot of a key and the static cluster config;
// tools/server/e2e the end-to-end tests of `mmapbloom serve`.
package server
