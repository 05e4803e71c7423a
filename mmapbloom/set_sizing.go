package mmapbloom

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// Layer sizing of filter sets: the formulas are internal/sizing/layers.go.

// nextLayer returns the capacity and false-positive probability of the
// layer m adds next: a scalable set's layer len(m.Layers); for window
// window of a windowed set, the window's layer, or with an expansion its
// layer j, j the layers m already holds for that window.
func nextLayer(m *manifest.Manifest, window int64) (uint64, float64, error) {
	if !m.Windowed() {
		return sizing.ScalableLayer(m.N, m.P, m.Expansion, m.Tightening, len(m.Layers))
	}
	n, p := sizing.WindowLayer(m.N, m.P, m.Keep)
	if m.Expansion == 0 {
		return n, p, nil
	}
	j := 0
	for _, l := range m.Layers {
		if l.Window == window {
			j++
		}
	}
	return sizing.ScalableLayer(n, p, m.Expansion, m.Tightening, j)
}
