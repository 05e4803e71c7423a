package main

import (
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// exportCmd copies a live filter set, at one generation, to a new
// directory, sealed or not (Set.Export).
type exportCmd struct {
	Set  string `arg:"" help:"Filter set directory to copy (NAME.bfset); other processes may go on adding to it."`
	Dest string `arg:"" help:"Directory of the copy (NAME.bfset); must not exist. It appears whole, or not at all."`
	Seal bool   `help:"Seal the copy before it appears (ready to ship; check it with verify)."`
}

// Run opens the set read-only and exports it.
func (c *exportCmd) Run(_ *env) error {
	if err := setOnly("export", c.Set); err != nil {
		return fmt.Errorf("%w (copy a filter file with cp, then seal the copy)", err)
	}
	if err := setName("export", c.Dest); err != nil {
		return err
	}
	s, err := mmapbloom.OpenSet(c.Set, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	err = s.Export(c.Dest, &mmapbloom.ExportOptions{Seal: c.Seal})
	return errors.Join(err, s.Close())
}
