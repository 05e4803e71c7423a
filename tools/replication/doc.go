// Package replication is mmapbloom serve's replication log on NATS
// JetStream: every write a node acknowledges is first in a replicated
// stream, and every node serving the written slots applies it from
// there. All NATS imports of the project are confined to this package
// and its subpackages (lease; the tests' natstest and lease/leasetest):
// the server reaches NATS through them (TestLibraryHasNoNATS checks
// every package's imports).
//
// Only JetStream features of nats-server 2.9 are used (streams, durable
// pull consumers, Nats-Msg-Id deduplication), so an external Debian
// nats-server 2.9 cluster serves as well as the embedded one.
//
// # Streams and entries
//
// Layout splits the 16,384 slots into Layout.Streams streams MBF_LOG_NN
// (subject mbf.log.NN), each with Layout.Replicas replicas, kept by age
// and size. Layout.Prefix replaces MBF (PREFIX_LOG_NN, prefix.log.NN,
// the buckets PREFIX_LEASES and PREFIX_NODES) so that clusters share
// one NATS account. One message is one group-committed Batch of
// Records (entry.go; the bytes are specified in format/FORMAT.md).
//
// # Authentication and TLS
//
// The embedded servers (EmbeddedConfig) take a cluster name, a cluster
// secret that every route and client gives as the password of
// SecretUser, and mutual TLS on routes and the client port, all in
// nats-server's own options; a node connects to its own server with
// Embedded.Client. A node of an external cluster connects with
// Config.Auth (ClientAuth): a .creds file, an NKey seed file or a user
// and password, and TLS, in the NATS Go client's own options.
//
// # Writing
//
// Submit queues a record for its stream and returns an Ack future;
// records queued while a stream's earlier message awaits its PubAck go
// together in the next message (group commit), sent once no message of
// the stream is in flight, or, up to Config.MaxInFlight in flight, once
// it holds Config.FlushBytes: fewer, larger messages. A message holds
// less than two record bounds (Log.MaxRecordBytes: Config.MaxBatchBytes,
// or half of the connected server's max_payload less the envelope); a
// larger record fails at once with ErrTooLarge, which no retry fixes
// (the server splits its large writes into records that fit). Messages
// go to the connection in submission order, their PubAcks awaited
// apart. Publish waits for the PubAck; Execute
// also waits until this node's own follower has applied the record at
// its place in the log and returns the Applier's result: control
// operations take effect in log order on every node, the origin
// included.
//
// # Following
//
// Follow applies the given streams with an Applier. Each follower owns
// a durable pull consumer "mbf_NODE" (AckAll, one replica: the node
// rebuilds it from its recorded position), applies every message (its
// records in one Applier.Apply call), and every Config.Checkpoint calls
// Applier.Sync, records the position in Config.Dir/applied, then
// acknowledges up to it: the consumer's ack floor is the node's durable
// position. After a restart it replays from the recorded position.
// The log may lose entries it acknowledged (a power cut of every node
// before their stores synced them) and give their sequences to new
// records, and a consumer placed on a replica that kept a tail its
// leader lost delivers entries the log no longer has, and a stream
// leader that held such a tail may give way to one that lost it while
// a follower's session runs: so a checkpoint first checks that the
// stream's leader holds the message applied last and the newest mark's
// message at their sequences (their Nats-Msg-Id; ErrDiverged ends the
// session when it does not) and records the former as a mark beside
// the position (each mark recorded while the log held the one before
// it), and at Open and at each bind the position is checked against
// the log and lowered to the newest mark the log still holds with the
// mark before it (0 when none), logged and counted (Log.Rewinds): the
// entries after it are applied again. A consumer may also read a
// replica short of its leader that nats-server does not repair (one
// reset again and again after such a cut): when it delivers nothing
// for StallAfter while the stream's leader holds more, the follower
// checks that the leader holds the message at its position
// (ErrDiverged when not), applies the missing messages from the
// leader, one message get each, binds a new consumer after them and
// counts it (Log.Stalls). A
// gap (entries gone by retention, or a new node) calls Applier.Bootstrap, which copies the data from a peer and
// says which sequence the copy covers. ForgetPositions, before Open,
// has streams applied again from their start (or bootstrapped): a node
// that lost some keys' files rebuilds them so. An Apply error stops the
// follower at that message: nothing after it is applied, recorded or
// acknowledged, and the message is applied again after a pause growing
// from ApplyRetryFirst to ApplyRetryMax until Apply succeeds
// (Log.Stopped, Log.ApplyErrors, Log.FollowerError, Config.Logf). A
// gap Bootstrap cannot fill stops the follower so too; the records of
// this process a bootstrap covered, never applied here, fail with
// ErrSkipped. Layout.Check refuses a retention below MinMaxAge and
// MinMaxBytes.
//
// # Seam for failover and routing
//
//   - StartEmbedded (and StartLocalCluster for tests) run the embedded
//     nats-server; Log.Conn and Log.JetStream give the connection for KV
//     leases (lease.OpenConn, or lease.Deferred before the log exists).
//   - Log.Applied(stream) and Log.WaitApplied(ctx, stream, seq): has this
//     node applied stream up to seq; Log.Stopped(stream): is it stopped
//     on a message it cannot apply (then it must not own the slots).
//   - Log.DrainToLast(ctx, stream): wait until this node has applied
//     everything the stream held when called (before taking its slots).
//   - Log.NodeApplied(ctx, stream, node): another node's durable
//     position (WAIT, INFO replication, choosing the most caught-up
//     replica).
//   - Layout.StreamOf(slot) and Layout.SlotsOf(stream) map slots to
//     streams.
//   - OpenNodes: the bucket PREFIX_NODES, where each node publishes
//     what the others compare with their own (serve's limits).
package replication
