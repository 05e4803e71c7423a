package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// clock decides the windows of windowed sets in every command; tests
// replace it so that no test depends on how fast a loaded machine runs.
var clock = time.Now

// newStore is what open-or-create needs of a command's flags: the path,
// -n and -p (nil when not given) and the shape and set flags.
type newStore struct {
	file  string
	n     *keyCount
	p     *float64
	shape shapeFlags
	set   setFlags
}

// openOrCreate opens the filter file or set, or creates it from the flags
// when it does not exist (a set when the name ends in .bfset or a set flag
// is given). Racing processes all open what the first created. On an
// existing file or set, a flag given that differs from its header or
// MANIFEST is an error naming both values; the flags not given come from
// it.
func (s newStore) openOrCreate() (store, error) {
	if err := s.needSize(); err != nil {
		return nil, err
	}
	var n uint64
	var p float64
	if s.n != nil {
		n = uint64(*s.n)
	}
	if s.p != nil {
		p = *s.p
	}
	if !s.set.wanted(s.file) {
		return mmapbloom.OpenOrCreate(s.file, n, p, s.shape.options())
	}
	if err := setFlagName("open", s.file, s.set); err != nil {
		return nil, err
	}
	if err := s.shape.forSet(); err != nil {
		return nil, err
	}
	o, err := s.set.options(s.shape.options().Layout)
	if err != nil {
		return nil, err
	}
	return mmapbloom.OpenOrCreateSet(s.file, n, p, o)
}

// errNeedSize is returned when FILE must be created and -n or -p is
// missing.
var errNeedSize = errors.New("needed to create it")

// needSize refuses, naming the flags missing, to create a missing file or
// set without -n or -p.
func (s newStore) needSize() error {
	if _, err := os.Stat(s.file); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var missing []string
	if s.n == nil {
		missing = append(missing, "-n")
	}
	if s.p == nil {
		missing = append(missing, "-p")
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s does not exist: %s is %w", s.file, missing[0], errNeedSize)
	}
	return fmt.Errorf("%s does not exist: -n and -p are %w", s.file, errNeedSize)
}

// setFlagName is setName for command what, whose set flags s ask for a
// set: when path is not a directory the message names the flag and the
// name to give instead.
func setFlagName(what, path string, s setFlags) error {
	if st, err := os.Stat(path); isSet(path) || (err == nil && st.IsDir()) {
		return setName(what, path)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + setSuffix
	return fmt.Errorf("%s makes a filter set: name it %s: %w", s.given(), filepath.Join(filepath.Dir(path), name), mmapbloom.ErrBadSet)
}
