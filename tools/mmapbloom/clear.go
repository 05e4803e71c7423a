package main

import "github.com/mmapbloom/mmapbloom/mmapbloom"

// clearCmd sets every bit and the count of a filter to 0 (Filter.Clear).
type clearCmd struct {
	File string `arg:"" help:"Filter file (needs no other process to have it open; not sealed)."`
}

// Run opens FILE read-write and clears it.
func (c *clearCmd) Run(_ *env) error {
	if err := fileOnly("clear", c.File); err != nil {
		return err
	}
	return withFilter(c.File, (*mmapbloom.Filter).Clear)
}
