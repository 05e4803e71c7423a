// Package lease keeps leases (who owns a range of slots now) in a NATS
// JetStream key-value bucket whose entries expire: the bucket's MaxAge
// is the lease's time to live, so an owner that stops renewing loses
// its key after at most one TTL, and another node may then Create it.
// An owner renews with a compare-and-swap on the entry's revision
// (KeyValue.Update), so two nodes never both believe a renewal of the
// same revision succeeded. The election itself is NATS's: the bucket's
// stream is replicated on Raft and a Create or Update succeeds only
// once a quorum stored it. Only features of nats-server 2.9 are used
// (no per-key TTL).
//
// A Keeper follows each key on its own schedule: a round every TTL/4
// at a fixed rate, so one key's slow bucket operation delays no other
// key's renewal, and a failed renewal tried again every TTL/16 until
// one succeeds or the lease's validity ends. It reports each renewal
// try (Config.OnRenew, for a latency metric) and each lease it stops
// holding with the cause (Config.OnStepDown: ErrRenewFailed after N
// tries, ErrLost to another node, ErrNotEligible, ErrReleased).
//
// A holder acts on a lease only while it is valid (Validity): until
// TTL - TTL/4 after the start of its last successful write, on the
// keeper's Clock (RealClock: CLOCK_BOOTTIME, which counts a suspended
// system's time too), which ends before the entry can expire and
// another node take it. Confirm renews a lease on demand, for a reader
// that wants NATS's quorum to confirm the holder (etcd's ReadIndex).
//
// A Keeper's bucket is a KV: OpenBucket or OpenConn open it, and a
// Deferred opens it at its first use, for a node whose keeper starts
// before its NATS connection exists (mmapbloom serve's failover on its
// replication log). Package leasetest gives tests a bucket.
package lease
