package main

import (
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// rotateCmd rotates a windowed filter set, for example from cron, so that
// expired windows free their disk space even when no one adds.
type rotateCmd struct {
	Set string `arg:"" help:"Windowed filter set directory (NAME.bfset)."`
}

// Run rotates the set and prints whether it changed. A scalable set has
// no windows: it is refused.
func (c *rotateCmd) Run(e *env) error {
	if err := setOnly("rotate", c.Set); err != nil {
		return err
	}
	s, err := mmapbloom.OpenSet(c.Set, &mmapbloom.OpenOptions{Now: clock})
	if err != nil {
		return err
	}
	if s.Window() == 0 {
		err = fmt.Errorf("rotate %s: a scalable set has no windows to rotate (it grows instead; rotate is for sets created with --window)", c.Set)
		return errors.Join(err, s.Close())
	}
	changed, err := s.Rotate()
	if err == nil {
		msg := "rotated"
		if !changed {
			msg = "current"
		}
		_, err = fmt.Fprintf(e.stdout, "%s: %s, live layers: %d\n", c.Set, msg, s.Layers())
	}
	return closeStore(s, err)
}
