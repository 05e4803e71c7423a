package main

import "github.com/mmapbloom/mmapbloom/mmapbloom"

// unsealCmd makes a sealed filter, or sealed filter set, writable again
// (Filter.Unseal, UnsealSet).
type unsealCmd struct {
	File string `arg:"" help:"Filter file or filter set directory (NAME.bfset); needs no other process to have it open."`
}

// Run unseals FILE, or the set at FILE.
func (c *unsealCmd) Run(_ *env) error {
	if isSet(c.File) {
		return mmapbloom.UnsealSet(c.File)
	}
	return withFilter(c.File, (*mmapbloom.Filter).Unseal)
}
