// Package natstest starts NATS clusters for tests: three (or n)
// nats-server instances embedded in the test process, or n processes of
// the nats-server program (Debian's 2.9), all on 127.0.0.1 with free
// ports, JetStream on, stores under a test's temporary directory.
package natstest
