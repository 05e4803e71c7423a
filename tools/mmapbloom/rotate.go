package main

import (
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// rotateCmd rotates a windowed filter set, for example from cron, so that
// expired windows free their disk space even when no one adds.
type rotateCmd struct {
	Set string `arg:"" help:"Windowed filter set directory (NAME.bfset)."`
}

// Run rotates the set and prints whether it changed.
func (c *rotateCmd) Run(e *env) error {
	s, err := mmapbloom.OpenSet(c.Set, nil)
	if err != nil {
		return err
	}
	changed, err := s.Rotate()
	if err == nil {
		msg := "rotated"
		if !changed {
			msg = "current"
		}
		_, err = fmt.Fprintf(e.stdout, "%s: %s, %d layers\n", c.Set, msg, s.Layers())
	}
	return closeStore(s, err)
}
