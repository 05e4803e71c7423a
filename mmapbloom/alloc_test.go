package mmapbloom

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroAllocations checks that probes allocate nothing on the heap, for
// every layout: the batch buffers live on the stack.
func TestZeroAllocations(t *testing.T) {
	keys := keysOf(0, 1000)
	out := make([]bool, len(keys))
	for _, opts := range batchLayouts {
		f := newTestFilter(t, 10_000, 0.01, opts)
		for name, op := range map[string]func(){
			"Add":             func() { _ = f.Add(keys[0]) },
			"Test":            func() { _, _ = f.Test(keys[0]) },
			"TestAndAdd":      func() { _, _ = f.TestAndAdd(keys[0]) },
			"AddString":       func() { _ = f.AddString("key") },
			"AddBatch":        func() { _ = f.AddBatch(keys) },
			"TestBatch":       func() { _ = f.TestBatch(keys, out) },
			"TestAndAddBatch": func() { _ = f.TestAndAddBatch(keys, out) },
		} {
			allocs := testing.AllocsPerRun(20, op)
			require.Zero(t, allocs, fmt.Sprintf("%s on %v %v", name, f.Header().Layout, f.Header().Scheme))
		}
	}
}
