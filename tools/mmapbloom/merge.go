package main

import (
	"fmt"
	"os"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// mergeCmd ORs source filters into a destination filter.
type mergeCmd struct {
	Dst  string   `arg:"" help:"Filter file to merge into (needs no other process to have it open)."`
	Srcs []string `arg:"" name:"src" help:"Filter files to merge from (opened read-only); same m, k, layout, scheme and seed as DST."`
}

// Run opens every source read-only and DST read-write, checks that all
// have DST's shape, and only then merges them in turn. DST's count
// becomes the cardinality estimate of the union; a warning says when
// that is above its capacity, as add's does.
func (c *mergeCmd) Run(e *env) error {
	if err := fileOnly("merge", append([]string{c.Dst}, c.Srcs...)...); err != nil {
		return err
	}
	var srcs []*mmapbloom.Filter
	defer func() {
		for _, s := range srcs {
			_ = s.Close()
		}
	}()
	for _, path := range c.Srcs {
		if sameFile(c.Dst, path) {
			return fmt.Errorf("merge %s into itself: %w", path, mmapbloom.ErrMismatch)
		}
		s, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		srcs = append(srcs, s)
	}
	dst, err := mmapbloom.Open(c.Dst, nil)
	if err != nil {
		return err
	}
	err = mergeAll(dst, srcs)
	if err == nil {
		err = warnOverCapacity(dst, e.stderr)
	}
	return closeStore(dst, err)
}

// mergeAll merges every source into dst, after checking them all, so that
// a mismatched source leaves dst unchanged.
func mergeAll(dst *mmapbloom.Filter, srcs []*mmapbloom.Filter) error {
	for _, s := range srcs {
		if err := dst.Compatible(s); err != nil {
			return err
		}
	}
	for _, s := range srcs {
		if err := dst.Merge(s); err != nil {
			return err
		}
	}
	return nil
}

// sameFile reports whether two paths name one existing file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
