package bench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmapbloom/mmapbloom/bench/internal/peers"
	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// benchP is the false-positive probability every filter is sized for.
const benchP = 1e-4

// BenchmarkPeers runs every library on BENCH_N generated keys:
// BenchmarkPeers/lib=<name>/n=<N>/op=<op>.
func BenchmarkPeers(b *testing.B) {
	n, err := keys.EnvN("BENCH_N")
	if err != nil {
		b.Fatal(err)
	}
	present := keys.Generate(keys.Present, 0, uint64(n))
	absent := keys.Generate(keys.Absent, 0, uint64(n))
	runPeers(b, present, absent)
}

// BenchmarkPeersPhishing runs every library on the real phishing URLs:
// the first 90% present, the rest absent.
func BenchmarkPeersPhishing(b *testing.B) {
	present, absent, err := keys.Phishing(dataDir())
	if errors.Is(err, fs.ErrNotExist) {
		b.Skip("shared data not present:", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	runPeers(b, present, absent)
}

// dataDir returns BENCH_DATA, or the shared data folder beside the repo.
func dataDir() string {
	if d := os.Getenv("BENCH_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// fileDir returns the directory for file-backed filters: BENCH_DIR when
// set, else the benchmark's temporary directory.
func fileDir(b *testing.B) string {
	if d := os.Getenv("BENCH_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		return d
	}
	return b.TempDir()
}

// runPeers runs the operations of every library on one workload.
func runPeers(b *testing.B, present, absent *keys.Set) {
	for _, lib := range peers.Libs {
		b.Run("lib="+lib.Name, func(b *testing.B) {
			b.Run("n="+keys.FormatN(present.Len()), func(b *testing.B) {
				w := &workload{lib: lib, dir: fileDir(b), present: present, absent: absent}
				defer w.close(b)
				runOps(b, w)
			})
		})
	}
}
