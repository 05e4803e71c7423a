package mmapbloom

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// OpenOrCreateSet opens the filter set in dir read-write, or creates it
// with CreateSet(dir, n, p, opts) when it does not exist. Many processes
// may call it at once on a missing set: one creates it (the directory
// appears whole, by a rename of a complete temporary directory), and the
// others open what it made. opts.Now is the clock of the returned Set in
// both cases.
//
// When the set exists, the options given are checked against its
// MANIFEST: n and p when not 0, and opts' Window, Keep, Expansion,
// Tightening and Layout when not 0, Refresh when true. A value that
// differs is an error naming both (ErrOptionDiffers); the values not given
// come from the MANIFEST. Errors: those of OpenSet and CreateSet,
// ErrOptionDiffers.
func OpenOrCreateSet(dir string, n uint64, p float64, opts *SetOptions) (*Set, error) {
	var o SetOptions
	if opts != nil {
		o = *opts
	}
	dir = filepath.Clean(dir)
	for try := 1; ; try++ {
		s, err := OpenSet(dir, &OpenOptions{Now: o.Now})
		if err == nil {
			if err := o.matches(s.view.Load().m, n, p); err != nil {
				return nil, errors.Join(wrapf(err, "open set %s", dir), s.Close())
			}
			return s, nil
		}
		if !errors.Is(err, fs.ErrNotExist) || try == createTries {
			return nil, err
		}
		if !missing(dir) {
			continue // made meanwhile by another caller, or a layer is missing: never created again
		}
		s, err = CreateSet(dir, n, p, &o)
		if !errors.Is(err, ErrExists) || try == createTries {
			return s, err
		}
	}
}

// missing reports whether nothing is at path.
func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// matches checks the options given (not zero) and n and p against the
// MANIFEST m of an existing set.
func (o SetOptions) matches(m *manifest.Manifest, n uint64, p float64) error {
	var d differences
	d.check(n != 0 && n != m.N, "n", n, m.N)
	d.check(p != 0 && !sameP(p, m.P), "p", p, m.P)
	d.check(o.Window != 0 && o.Window != m.Window(), "window", o.Window, windowName(m.Window()))
	d.check(o.Keep != 0 && o.Keep != m.Keep, "keep", o.Keep, m.Keep)
	d.check(o.Expansion != 0 && o.Expansion != m.Expansion, "expansion", o.Expansion, m.Expansion)
	d.check(o.Tightening != 0 && o.Tightening != m.Tightening, "tightening", o.Tightening, m.Tightening)
	d.check(o.Refresh && !m.Refresh, "refresh", true, false)
	d.check(o.Layout != 0 && o.Layout != m.Layout, "layout", o.Layout, setLayoutName(m))
	return d.err()
}

// windowName names a set's window length in a difference: "none" for a
// scalable set.
func windowName(w time.Duration) any {
	if w == 0 {
		return "none (a scalable set)"
	}
	return w
}

// setLayoutName names a set's layout in a difference: "default" when the
// MANIFEST leaves it to Create.
func setLayoutName(m *manifest.Manifest) any {
	if m.Layout == 0 {
		return "default"
	}
	return m.Layout
}
