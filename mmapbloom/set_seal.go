package mmapbloom

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// Sealing a set freezes it for shipping, as Seal does a filter file:
// every layer is sealed (its header records the CRC-32C of its bit array)
// and the MANIFEST records "sealed": true, in that order, so that a
// MANIFEST that says sealed lists sealed layers only. OpenSet opens a
// sealed set read-only; its writing calls (and Rotate, GC) fail with
// ErrSealed. VerifySet checks it. A sealed windowed set still forgets:
// its readers skip the layers of windows no longer kept, by their clock.

// SealSet seals the filter set in dir: it takes the set's LOCK without
// waiting, opens every layer the MANIFEST lists and converts every
// layer's lock to exclusive before it seals any (so that it seals all of
// them or none), seals each layer that is not sealed yet (Filter.Seal:
// the bits synced, then the header), then writes the MANIFEST with
// "sealed" and the next generation. Like Filter.Seal it needs every other
// handle on the set closed: it fails at once with ErrInUse otherwise.
// Seal an exported copy (Set.Export) to ship a set that others keep
// writing.
//
// Errors: ErrSealed (already sealed), ErrInUse, ErrBadSet, those of
// opening and sealing a layer, of writing the MANIFEST.
func SealSet(dir string) error {
	return changeLayers(dir, "seal set", func(m *manifest.Manifest, layers []*Filter) (bool, error) {
		if m.Sealed {
			return false, fmt.Errorf("mmapbloom: seal set %s: %w", dir, ErrSealed)
		}
		for _, f := range layers {
			if !f.hdr.Sealed() { // sealed by a SealSet that crashed before its MANIFEST
				if err := f.seal(); err != nil {
					return false, err
				}
			}
		}
		m.Sealed = true
		return true, nil
	})
}

// UnsealSet makes a sealed filter set writable again: it unseals every
// layer (Filter.Unseal) and writes the MANIFEST without "sealed", with
// the next generation. It needs every other handle on the set closed,
// like SealSet. UnsealSet of a set that is not sealed unseals any layer
// left sealed and otherwise does nothing.
//
// Errors: ErrInUse, ErrBadSet, those of opening and unsealing a layer, of
// writing the MANIFEST.
func UnsealSet(dir string) error {
	return changeLayers(dir, "unseal set", func(m *manifest.Manifest, layers []*Filter) (bool, error) {
		for _, f := range layers {
			if f.hdr.Sealed() {
				if err := f.unseal(); err != nil {
					return false, err
				}
			}
		}
		changed := m.Sealed
		m.Sealed = false
		return changed, nil
	})
}

// changeLayers runs fn under the set's LOCK (without waiting) with every
// layer the MANIFEST lists open read-write and held alone (its in-process
// lock and its file's lock exclusive); fn changes the MANIFEST in memory
// and reports whether to write it.
func changeLayers(dir, what string, fn func(m *manifest.Manifest, layers []*Filter) (bool, error)) error {
	dir = filepath.Clean(dir)
	ctl, err := manifest.OpenControl(dir, false)
	if err != nil {
		return err
	}
	defer ctl.Close()
	_, err = changeDir(dir, ctl, false, func(m *manifest.Manifest) ([]string, bool, error) {
		layers, err := openLayers(dir, m)
		if err != nil {
			return nil, false, err
		}
		var changed bool
		err = allAlone(what, layers, func() error {
			changed, err = fn(m, layers)
			return err
		})
		return nil, changed, errors.Join(err, closeLayers(layers))
	})
	return err
}

// openLayers opens every layer m lists in dir, read-write.
func openLayers(dir string, m *manifest.Manifest) ([]*Filter, error) {
	layers := make([]*Filter, 0, len(m.Layers))
	for _, l := range m.Layers {
		f, err := openLayer(dir, m, l, nil)
		if err != nil {
			return nil, errors.Join(err, closeLayers(layers))
		}
		layers = append(layers, f)
	}
	return layers, nil
}

// closeLayers closes every layer, returning their errors joined.
func closeLayers(layers []*Filter) error {
	var errs []error
	for _, f := range layers {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// allAlone runs op with every filter of layers held alone: its
// in-process lock held exclusively and its file's lock converted to
// exclusive (ErrInUse, and nothing run, when another handle has any of
// them open), converted back afterwards.
func allAlone(what string, layers []*Filter, op func() error) error {
	if len(layers) == 0 {
		return op()
	}
	f := layers[0]
	return f.run(true, false, func() error {
		return f.alone(what, func() error { return allAlone(what, layers[1:], op) })
	})
}
