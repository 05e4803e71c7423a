package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// errNeedSize is returned by dedup when FILE must be created and -n or
// -p is missing.
var errNeedSize = errors.New("-n and -p are needed to create it")

// dedupCmd prints the input lines not seen before and adds them.
type dedupCmd struct {
	File string   `arg:"" help:"Filter file or set, created when missing (a set when FILE ends in .bfset)."`
	N    *uint64  `short:"n" name:"capacity" placeholder:"N" help:"Capacity, when FILE is created (ignored when it exists)."`
	P    *float64 `short:"p" name:"probability" placeholder:"P" help:"False-positive probability at n keys, when FILE is created (ignored when it exists)."`
	shapeFlags
	keyArgs
}

// Run opens every key file, then opens or creates the filter, and adds
// the keys batch by batch, printing those that were new.
func (c *dedupCmd) Run(e *env) error {
	in, err := c.open(e)
	if err != nil {
		return err
	}
	defer in.close()
	f, err := c.openOrCreate()
	if err != nil {
		return err
	}
	seen := make([]bool, batchSize)
	err = in.each(func(b *batch) error {
		if err := f.TestAndAddBatch(b.keys, seen); err != nil {
			return err
		}
		for i := range b.keys {
			if seen[i] {
				continue
			}
			if err := b.writeLine(e.stdout, i, in.sep); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = warnStore(f, e)
	}
	return closeStore(f, err)
}

// openOrCreate opens FILE read-write, or creates it from the flags when
// it does not exist: a scalable set with the default expansion when FILE
// ends in .bfset (refused with shape flags other than --layout, as create
// refuses them).
func (c *dedupCmd) openOrCreate() (store, error) {
	if _, err := os.Stat(c.File); !errors.Is(err, fs.ErrNotExist) {
		return openStore(c.File, false)
	}
	if c.N == nil || c.P == nil {
		return nil, fmt.Errorf("%s does not exist: %w", c.File, errNeedSize)
	}
	if isSet(c.File) {
		if err := c.forSet(); err != nil {
			return nil, err
		}
		return mmapbloom.CreateSet(c.File, *c.N, *c.P, &mmapbloom.SetOptions{Layout: c.options().Layout})
	}
	return mmapbloom.Create(c.File, *c.N, *c.P, c.options())
}
