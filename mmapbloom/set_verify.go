package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// LayerCheck is what VerifySet found of one layer of a sealed set.
type LayerCheck struct {
	File    string // the layer's file name in the set directory, as the MANIFEST lists it
	DataCRC uint32 // the CRC-32C its header records (Seal); 0 when the header could not be read
	// Err is nil when the layer is intact; else it is the cause wrapped
	// once with the set and the layer's names (errors.Unwrap gives the
	// cause), and the cause is or wraps ErrDataChecksum (bits changed since the seal), ErrNotSealed,
	// ErrBadSet (the layer is not the one the MANIFEST describes, or is
	// listed twice), fs.ErrNotExist (listed but missing), or Open's error
	// (format.ErrTruncated, ...).
	Err error
}

// VerifySet checks a sealed filter set, as Verify does a sealed filter,
// and the MANIFEST's consistency: the MANIFEST and CONTROL are valid, the
// MANIFEST says sealed, and every layer it lists is present once, opens
// (its header intact), is sealed, has the shape the MANIFEST gives it (v2,
// n, p, the set's seed) and a bit array that matches its sealed checksum
// (O(m) per layer). It reads every layer read-only, writes nothing and
// needs no other handle closed.
//
// It returns one LayerCheck per listed layer, oldest first, and their
// errors joined (nil when every layer is intact), so errors.Is(err,
// ErrDataChecksum) tells a changed bit array. A set it cannot check at
// all gives no LayerCheck and ErrBadSet (MANIFEST or CONTROL missing or
// bad) or ErrNotSealed (the MANIFEST does not say sealed).
func VerifySet(dir string) ([]LayerCheck, error) {
	dir = filepath.Clean(dir)
	m, err := manifest.Read(dir)
	if err != nil {
		return nil, err
	}
	ctl, err := manifest.OpenControl(dir, true)
	if err != nil {
		return nil, err
	}
	if err := ctl.Close(); err != nil {
		return nil, err
	}
	if !m.Sealed {
		return nil, fmt.Errorf("mmapbloom: verify set %s: %w", dir, ErrNotSealed)
	}
	checks := make([]LayerCheck, len(m.Layers))
	errs := make([]error, len(m.Layers))
	seen := make(map[string]bool, len(m.Layers))
	for i, l := range m.Layers {
		checks[i] = verifyLayer(dir, m, l, seen[l.File])
		seen[l.File], errs[i] = true, checks[i].Err
	}
	return checks, errors.Join(errs...)
}

// verifyLayer checks the layer l of the sealed set in dir described by
// m; twice says the MANIFEST listed it before.
func verifyLayer(dir string, m *manifest.Manifest, l manifest.Layer, twice bool) LayerCheck {
	c := LayerCheck{File: l.File}
	fail := func(err error) LayerCheck {
		c.Err = wrapf(err, "verify set %s: layer %s", dir, l.File)
		return c
	}
	if twice {
		return fail(fmt.Errorf("listed twice in %s: %w", manifest.Name, ErrBadSet))
	}
	f, err := Open(filepath.Join(dir, l.File), &OpenOptions{ReadOnly: true})
	if errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("listed in %s but missing: %w", manifest.Name, fs.ErrNotExist))
	}
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	h := f.Header()
	c.DataCRC = h.DataCRC
	if err := checkLayerHeader(m, l, h); err != nil {
		return fail(err)
	}
	if err := f.Verify(); err != nil {
		return fail(err)
	}
	return c
}
