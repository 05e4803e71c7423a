package natstest

import (
	"net"
	"testing"
)

// FreePorts returns n distinct TCP ports free on 127.0.0.1 now (each was
// bound then released; a port another process takes meanwhile makes a
// server fail to start, which the test reports).
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	var lns []net.Listener
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("natstest: free port: %v", err)
		}
		lns = append(lns, ln)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	for _, ln := range lns {
		_ = ln.Close()
	}
	return ports
}
