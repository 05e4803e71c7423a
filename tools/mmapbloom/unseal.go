package main

import "github.com/mmapbloom/mmapbloom/mmapbloom"

// unsealCmd makes a sealed filter writable again (Filter.Unseal).
type unsealCmd struct {
	File string `arg:"" help:"Filter file (needs no other process to have it open)."`
}

// Run opens FILE read-write and unseals it.
func (c *unsealCmd) Run(_ *env) error {
	return withFilter(c.File, (*mmapbloom.Filter).Unseal)
}
