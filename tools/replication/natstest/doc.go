// Package natstest starts clusters of the nats-server program (Debian's
// 2.9) for tests: n processes on 127.0.0.1 with free ports, JetStream
// on, stores under a test's temporary directory. Embedded clusters come
// from replication.StartLocalCluster.
package natstest
