package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// setSuffix marks a filter set's directory on the command line.
const setSuffix = ".bfset"

// store is what add, test and dedup need of a filter file or a filter
// set: *mmapbloom.Filter and *mmapbloom.Set both are.
type store interface {
	AddBatch(keys [][]byte) error
	TestBatch(keys [][]byte, present []bool) error
	TestAndAddBatch(keys [][]byte, present []bool) error
	Sync() error
	Close() error
}

// isSet reports whether path names a filter set: a directory, or a
// name ending in .bfset.
func isSet(path string) bool {
	if strings.HasSuffix(strings.TrimRight(path, "/"), setSuffix) {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// setName refuses, naming it, a new set directory whose name does not
// end in .bfset (the server and the other commands tell sets from filter
// files by that suffix), and says so when the name is an existing
// directory, which is then neither a filter file nor a set.
func setName(what, path string) error {
	if strings.HasSuffix(strings.TrimRight(path, "/"), setSuffix) {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s: an existing directory, not a filter file, and not a filter set (whose directory name ends in %s): %w", what, path, setSuffix, mmapbloom.ErrBadSet)
	}
	return fmt.Errorf("%s %s: a filter set's directory name ends in %s: %w", what, path, setSuffix, mmapbloom.ErrBadSet)
}

// fileOnly refuses, naming the path, a set directory (or any directory)
// given to command cmd, which takes filter files only.
func fileOnly(cmd string, paths ...string) error {
	for _, p := range paths {
		if isSet(p) {
			return fmt.Errorf("%s takes a filter file, not a filter set or directory: %s", cmd, p)
		}
	}
	return nil
}

// setOnly refuses a path that is not a filter set given to command cmd,
// which takes filter sets only.
func setOnly(cmd, path string) error {
	if isSet(path) {
		return nil
	}
	return fmt.Errorf("%s takes a filter set directory (NAME.bfset), not a filter file: %s", cmd, path)
}

// openStore opens the filter file or filter set at path.
func openStore(path string, readOnly bool) (store, error) {
	opts := &mmapbloom.OpenOptions{ReadOnly: readOnly, Now: clock}
	if isSet(path) {
		return mmapbloom.OpenSet(path, opts)
	}
	return mmapbloom.Open(path, opts)
}

// closeStore makes the writes to s durable, closes it, and returns err
// joined with any error of doing so.
func closeStore(s store, err error) error {
	if err == nil {
		err = s.Sync()
	}
	return errors.Join(err, s.Close())
}

// warnStore prints warnOverCapacity's warning for a filter file, and for
// a windowed set whose current window holds more keys than it was sized
// for (its windows do not grow); a set that grows adds a layer instead.
func warnStore(s store, e *env) error {
	switch s := s.(type) {
	case *mmapbloom.Filter:
		return warnOverCapacity(s, e.stderr)
	case *mmapbloom.Set:
		over, err := s.OverCapacity()
		if err != nil || !over || s.Expansion() != 0 {
			return err
		}
		_, err = fmt.Fprintf(e.stderr, "mmapbloom: warning: the current window of %s holds more keys than it was sized for: false-positive rate above p (create the set with --expansion to let windows grow)\n", s.Dir())
		return err
	}
	return nil
}
