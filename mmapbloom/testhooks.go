package mmapbloom

import (
	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

// init installs in internal/testhooks what the process-level tests
// (mmapbloom/tests/...) read of this package's internals; see that
// package for why each is needed. Only assignments: no call of the
// library runs them.
func init() {
	testhooks.ViewLayers = func(set any) (uint64, []any) {
		v := set.(*Set).view.Load()
		layers := make([]any, len(v.layers))
		for i, f := range v.layers {
			layers[i] = f
		}
		return v.gen, layers
	}
	testhooks.ControlGeneration = func(set any) uint64 { return set.(*Set).ctl.Generation() }
	testhooks.HoldExclusive = func(filter any, fn func() error) error { return filter.(*Filter).exclusive("hold", fn) }
	testhooks.LayerOptions = func(m *manifest.Manifest, p float64) any { return layerOptions(m, p) }
	testhooks.DefaultSizing = func(n uint64, p float64) (format.Layout, uint64, uint32, error) {
		o, sizeFor := withDefaults(nil, n, p)
		m, k, err := o.size(n, sizeFor)
		return o.Layout, m, k, err
	}
	testhooks.CountBatch = countBatch
	testhooks.RaceEnabled = raceEnabled
}
