package main

import "github.com/mmapbloom/mmapbloom/mmapbloom"

// addCmd adds keys to a filter.
type addCmd struct {
	File string `arg:"" help:"Filter file."`
	keyArgs
}

// Run opens every key file, then the filter, and adds the keys batch by
// batch.
func (c *addCmd) Run(e *env) error {
	in, err := c.open(e)
	if err != nil {
		return err
	}
	defer in.close()
	f, err := mmapbloom.Open(c.File, nil)
	if err != nil {
		return err
	}
	err = in.each(func(b *batch) error { return f.AddBatch(b.keys) })
	if err == nil {
		err = warnOverCapacity(f, e.stderr)
	}
	return closeFilter(f, err)
}
