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
package lease
