package main

// addCmd adds keys to a filter.
type addCmd struct {
	File string    `arg:"" help:"Filter file or set, created when missing with -n and -p (a set when FILE ends in .bfset or a set flag is given)."`
	N    *keyCount `short:"n" name:"capacity" placeholder:"N" help:"Capacity, when FILE is created (when it exists: must match it if given)."`
	P    *float64  `short:"p" name:"probability" placeholder:"P" help:"False-positive probability at n keys, when FILE is created (when it exists: must match it if given)."`
	shapeFlags
	setFlags
	keyArgs
}

// Run opens every key file, then opens or creates the filter, and adds
// the keys batch by batch.
func (c *addCmd) Run(e *env) error {
	in, err := c.open(e)
	if err != nil {
		return err
	}
	defer in.close()
	f, err := newStore{file: c.File, n: c.N, p: c.P, shape: c.shapeFlags, set: c.setFlags}.openOrCreate()
	if err != nil {
		return err
	}
	err = in.each(func(b *batch) error { return f.AddBatch(b.keys) })
	if err == nil {
		err = warnStore(f, e)
	}
	return closeStore(f, err)
}
