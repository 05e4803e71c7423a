// Package e2e holds the server's end-to-end tests, black-box: each test
// binary builds the `mmapbloom` command once (testkit.Binary) and runs
// `mmapbloom serve` as a subprocess on 127.0.0.1, with real clients
// (go-redis, redis-cli, redis-py, redis-server for comparison), signals
// (SIGTERM, SIGHUP, kill -9), TLS, ACL files, cluster nodes and
// replicas, and descriptor limits (prlimit). With CI=true a test that
// needs a missing client fails; elsewhere it is skipped with a message.
// testdata/serve holds the redis-cli transcripts (golden files, -update
// rewrites them) and the Python client scripts. The package has no code
// of its own.
package e2e
