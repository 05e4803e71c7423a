package main

import (
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// gcCmd removes the files a crash left in a filter set directory.
type gcCmd struct {
	Set string `arg:"" help:"Filter set directory (NAME.bfset)."`
}

// Run collects the set's garbage and prints each file removed.
func (c *gcCmd) Run(e *env) error {
	if err := setOnly("gc", c.Set); err != nil {
		return err
	}
	s, err := mmapbloom.OpenSet(c.Set, nil)
	if err != nil {
		return err
	}
	removed, err := s.GC()
	for _, name := range removed {
		if _, werr := fmt.Fprintf(e.stdout, "removed %s\n", name); werr != nil && err == nil {
			err = werr
		}
	}
	return closeStore(s, err)
}
