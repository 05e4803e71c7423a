//go:build race

package server

// raceEnabled is true when the tests run with the race detector: the
// cases a dependency's own data race would fail (by timing) skip under
// it (TestReplicaClusterClient's RouteByLatency).
const raceEnabled = true
