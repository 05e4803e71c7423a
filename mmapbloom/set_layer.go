package mmapbloom

import (
	"fmt"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// openLayer opens layer l of the set in dir whose MANIFEST is m, with
// opts, and checks its header against m (checkLayer): a layer file from
// another set, or any other filter, would answer for keys it never saw.
// Errors name the set and the layer; a mismatch is ErrBadSet.
func openLayer(dir string, m *manifest.Manifest, l manifest.Layer, opts *OpenOptions) (*Filter, error) {
	f, err := Open(filepath.Join(dir, l.File), opts)
	if err == nil {
		if err = checkLayerHeader(m, l, f.Header()); err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		return nil, wrapf(err, "set %s: layer %s", dir, l.File)
	}
	return f, nil
}

// checkLayerHeader reports how the header h of layer l differs from what m
// says of it.
func checkLayerHeader(m *manifest.Manifest, l manifest.Layer, h format.Header) error {
	var bad string
	switch {
	case h.Version != format.V2:
		bad = fmt.Sprintf("format %v, want v2", h.Version)
	case h.N != l.N || h.P != l.P:
		bad = fmt.Sprintf("n %d, p %g; %s says n %d, p %g", h.N, h.P, manifest.Name, l.N, l.P)
	case h.Seed != m.Seed:
		bad = fmt.Sprintf("seed %d; %s says %d", h.Seed, manifest.Name, m.Seed)
	default:
		return nil
	}
	return fmt.Errorf("%s: %w", bad, ErrBadSet)
}
