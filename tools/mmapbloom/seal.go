package main

import "github.com/mmapbloom/mmapbloom/mmapbloom"

// sealCmd records the checksum of a filter's bit array and makes it
// read-only (Filter.Seal).
type sealCmd struct {
	File string `arg:"" help:"Filter file (v2; needs no other process to have it open)."`
}

// Run opens FILE read-write and seals it.
func (c *sealCmd) Run(_ *env) error {
	return withFilter(c.File, (*mmapbloom.Filter).Seal)
}

// withFilter opens path read-write, runs op on it and closes it, joining
// the errors of both.
func withFilter(path string, op func(*mmapbloom.Filter) error) error {
	f, err := mmapbloom.Open(path, nil)
	if err != nil {
		return err
	}
	return closeStore(f, op(f))
}
