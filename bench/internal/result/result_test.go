package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `goos: linux
BenchmarkPeers/lib=blobloom/n=10M/op=add-2         	 5000000	       211.0 ns/op	 149000000 filter-bytes	       0 B/op	       0 allocs/op
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=batch-add-2   	    5000	     40960 ns/op	  2000064 filter-bytes	        40.00 ns/key	   40960 B/op	       1 allocs/op
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=test-absent
some log line
BenchmarkPeers/lib=mmapbloom-blocked/n=1M/op=test-absent-2  5000000	 60.5 ns/op	 2000064 filter-bytes	 0.000115 fpr	 0 B/op	 0 allocs/op
BenchmarkScale/mode=batch/procs=2	20000000	31000000 adds/s	1.85 speedup
PASS
`

func TestParse(t *testing.T) {
	rs, err := Parse(strings.NewReader(sample))
	require.NoError(t, err)
	require.Len(t, rs, 4)
	assert.Equal(t, "BenchmarkPeers", rs[0].Func)
	assert.Equal(t, map[string]string{"lib": "blobloom", "n": "10M", "op": "add"}, rs[0].Params)
	assert.Equal(t, 5000000, rs[0].Iterations)
	assert.Equal(t, 211.0, rs[0].Metrics["ns/op"])
	assert.Equal(t, 40.0, rs[1].Metrics["ns/key"])
	assert.Equal(t, "test-absent", rs[2].Params["op"])
	assert.Equal(t, 0.000115, rs[2].Metrics["fpr"])
	assert.Equal(t, "2", rs[3].Params["procs"], "procs=2 has no -N suffix to strip")
	assert.Equal(t, 1.85, rs[3].Metrics["speedup"])

	_, err = Parse(strings.NewReader("BenchmarkX-2 10 abc ns/op\n"))
	assert.Error(t, err)
}

func TestSet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.txt")
	require.NoError(t, os.WriteFile(path, []byte(sample+
		"BenchmarkPeers/lib=blobloom/n=10M/op=add-2 100 200.0 ns/op\n"+
		"BenchmarkPeers/lib=blobloom/n=721839/op=add-2 100 50.0 ns/op\n"+
		"BenchmarkPeers/lib=blobloom/n=2M/op=add-2 100 50.0 ns/op\n"), 0o644))
	s, err := ReadFiles([]string{path})
	require.NoError(t, err)
	v, ok := s.Metric("BenchmarkPeers", map[string]string{"lib": "blobloom", "n": "10M", "op": "add"}, "ns/op")
	require.True(t, ok)
	assert.Equal(t, 200.0, v, "the later line wins")
	_, ok = s.Metric("BenchmarkPeers", map[string]string{"lib": "nope"}, "ns/op")
	assert.False(t, ok)
	assert.Equal(t, []string{"721839", "1M", "2M", "10M"}, s.SizesOf("BenchmarkPeers"))
	assert.Equal(t, []string{"blobloom", "mmapbloom-blocked"}, s.Values("BenchmarkPeers", "lib"))

	_, err = ReadFiles([]string{filepath.Join(t.TempDir(), "missing")})
	assert.Error(t, err)
}
