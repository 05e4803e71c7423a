package main

// testCmd queries a filter, like grep.
type testCmd struct {
	File   string `arg:"" help:"Filter file or set (opened read-only)."`
	Invert bool   `short:"v" xor:"mode" help:"Print the lines that are definitely absent instead."`
	Bits   bool   `xor:"mode" help:"Print 1 (may be present) or 0 (absent) for every input line, in order."`
	keyArgs
}

// Run tests the keys batch by batch and prints the answers. It returns
// errNoMatch when no line was printed (with --bits: no key was present).
func (c *testCmd) Run(e *env) error {
	in, err := c.open(e)
	if err != nil {
		return err
	}
	defer in.close()
	f, err := openStore(c.File, true)
	if err != nil {
		return err
	}
	defer f.Close()
	present := make([]bool, batchSize)
	matched := false
	err = in.each(func(b *batch) error {
		if err := f.TestBatch(b.keys, present); err != nil {
			return err
		}
		for i := range b.keys {
			matched = matched || present[i] != c.Invert
			if err := c.print(e, b, i, present[i], in.sep); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && !matched {
		err = errNoMatch
	}
	return err
}

// print writes the answer for key i of b.
func (c *testCmd) print(e *env, b *batch, i int, present bool, sep byte) error {
	switch {
	case c.Bits && present:
		_, err := e.stdout.WriteString("1\n")
		return err
	case c.Bits:
		_, err := e.stdout.WriteString("0\n")
		return err
	case present != c.Invert:
		return b.writeLine(e.stdout, i, sep)
	}
	return nil
}
