package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"

	"github.com/mmapbloom/mmapbloom/format"
)

// createTries bounds OpenOrCreate's open, create, open sequence: a file
// that vanishes again between each step (another process removing it as
// fast) is reported rather than chased forever.
const createTries = 3

// OpenOrCreate opens the filter file at path read-write, or creates it
// with Create(path, n, p, opts) when it does not exist. Many processes may
// call it at once on a missing file: one creates it (the file appears
// whole, by a link of a complete temporary file), and the others open what
// it made.
//
// When the file exists, the options given are checked against its header:
// n and p when not 0, opts' Format, Layout and Scheme when not 0, Seed when
// FixedSeed, and PrimeM (m must then be prime). A value that differs is an
// error naming both (ErrOptionDiffers); the values not given come from the
// file. Creating a missing file needs n and p (ErrInvalidN, ErrInvalidP
// otherwise). Errors: those of Open and Create, ErrOptionDiffers.
func OpenOrCreate(path string, n uint64, p float64, opts *CreateOptions) (*Filter, error) {
	var o CreateOptions
	if opts != nil {
		o = *opts
	}
	for try := 1; ; try++ {
		f, err := Open(path, nil)
		if err == nil {
			if err := o.matches(f.Header(), n, p); err != nil {
				return nil, errors.Join(fmt.Errorf("mmapbloom: open %s: %w", path, err), f.Close())
			}
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) || try == createTries {
			return nil, err
		}
		f, err = Create(path, n, p, &o)
		if !errors.Is(err, ErrExists) || try == createTries {
			return f, err
		}
	}
}

// matches checks the options given (not zero) and n and p against the
// header of an existing filter.
func (o CreateOptions) matches(h format.Header, n uint64, p float64) error {
	var d differences
	d.check(n != 0 && n != h.N, "n", n, h.N)
	d.check(p != 0 && !sameP(p, h.P), "p", p, h.P)
	d.check(o.Format != 0 && o.Format != h.Version, "format", o.Format, h.Version)
	d.check(o.Layout != 0 && o.Layout != h.Layout, "layout", o.Layout, h.Layout)
	d.check(o.Scheme != 0 && o.Scheme != h.Scheme, "scheme", o.Scheme, h.Scheme)
	d.check(o.FixedSeed && o.Seed != h.Seed, "seed", o.Seed, h.Seed)
	d.check(o.PrimeM && !new(big.Int).SetUint64(h.M).ProbablyPrime(20), "prime m", true, false)
	return d.err()
}

// sameP reports whether the p given and the p a header or MANIFEST
// records are the same probability: equal up to the rounding of a 32-bit
// float (document 000's sizing stores p so).
func sameP(given, recorded float64) bool {
	return math.Abs(given-recorded) <= 1e-6*recorded
}

// differences collects the options that differ from an existing filter
// or set, each as "NAME X given, the file has Y".
type differences struct{ list []string }

// check records option name when differ holds.
func (d *differences) check(differ bool, name string, given, has any) {
	if differ {
		d.list = append(d.list, fmt.Sprintf("%s %v given, the file has %v", name, given, has))
	}
}

// err returns nil when nothing differed, else ErrOptionDiffers wrapped
// with every difference.
func (d *differences) err() error {
	if len(d.list) == 0 {
		return nil
	}
	msg := d.list[0]
	for _, s := range d.list[1:] {
		msg += "; " + s
	}
	return fmt.Errorf("%s: %w", msg, ErrOptionDiffers)
}
