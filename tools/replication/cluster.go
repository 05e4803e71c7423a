package replication

import (
	"fmt"
	"net"
	"path/filepath"
	"time"
)

// localReadyTimeout is StartLocalCluster's ReadyTimeout when its base
// sets none: its servers start one after another on a machine that
// tests share, where the 10 s of StartEmbedded were once exceeded
// (a -race run at load 30 on 2 cores).
const localReadyTimeout = 2 * time.Minute

// StartLocalCluster starts len(names) embedded servers clustered on
// 127.0.0.1 free ports, each storing under dir/NAME, for tests and
// single-machine trials. On error it stops those it started.
func StartLocalCluster(dir string, names []string) ([]*Embedded, error) {
	return StartLocalClusterWith(dir, names, EmbeddedConfig{})
}

// StartLocalClusterWith is StartLocalCluster whose servers take every
// field of base but Name, StoreDir, RouteAddr and Routes (a Secret,
// TLS); a ReadyTimeout of 0 is localReadyTimeout.
func StartLocalClusterWith(dir string, names []string, base EmbeddedConfig) ([]*Embedded, error) {
	routes := make([]string, len(names))
	for i := range names {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		routes[i] = fmt.Sprintf("127.0.0.1:%d", p)
	}
	if len(names) == 1 {
		routes = []string{""}
	}
	servers := make([]*Embedded, 0, len(names))
	for i, n := range names {
		cfg := base
		cfg.Name, cfg.StoreDir, cfg.RouteAddr, cfg.Routes = n, filepath.Join(dir, n), routes[i], routes
		if cfg.ReadyTimeout <= 0 {
			cfg.ReadyTimeout = localReadyTimeout
		}
		e, err := StartEmbedded(cfg)
		if err != nil {
			for _, s := range servers {
				s.Shutdown()
			}
			return nil, err
		}
		servers = append(servers, e)
	}
	return servers, nil
}

// FreePort returns a TCP port free on 127.0.0.1 at the time of the call.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("replication: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
