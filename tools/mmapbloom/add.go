package main

// addCmd adds keys to a filter.
type addCmd struct {
	File string `arg:"" help:"Filter file or set."`
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
	f, err := openStore(c.File, false)
	if err != nil {
		return err
	}
	err = in.each(func(b *batch) error { return f.AddBatch(b.keys) })
	if err == nil {
		err = warnStore(f, e)
	}
	return closeStore(f, err)
}
