package main

import "github.com/mmapbloom/mmapbloom/mmapbloom"

// sealCmd records the checksum of a filter's bit array and makes it
// read-only (Filter.Seal), or of every layer of a set (SealSet).
type sealCmd struct {
	File string `arg:"" help:"Filter file (v2) or filter set directory (NAME.bfset); needs no other process to have it open (seal an exported copy of a live set)."`
}

// Run seals FILE, or the set at FILE.
func (c *sealCmd) Run(_ *env) error {
	if isSet(c.File) {
		return mmapbloom.SealSet(c.File)
	}
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
