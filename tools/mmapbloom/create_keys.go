package main

import (
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// buildModes are the values of --build-mode; auto is the library's
// default (0).
var buildModes = map[string]mmapbloom.BuildMode{"private": mmapbloom.BuildPrivate, "shared": mmapbloom.BuildShared}

// errBuildFlags refuses the create flags that do not go with --keys.
var errBuildFlags = errors.New("--keys builds a new filter file from -n, -p and the shape flags: it goes with neither --like, --exist-ok nor a set")

// build is create --keys: the keys are read as add reads them and added
// to a mmapbloom.Builder, which publishes FILE whole at the end. A
// signal, or an error, ends it with no FILE.
func (c *createCmd) build(e *env) error {
	switch {
	case len(c.Keys) == 0:
		return fmt.Errorf("create %s: -0 and --build-mode are for --keys: %w", c.File, mmapbloom.ErrBadOptions)
	case c.Like != "" || c.ExistOk || c.setFlags.wanted(c.File):
		return fmt.Errorf("create %s: %w: %w", c.File, errBuildFlags, mmapbloom.ErrBadOptions)
	case c.N == nil || c.P == nil:
		return fmt.Errorf("create %s: %s: %w", c.File, missingSize(c.N, c.P), mmapbloom.ErrBadOptions)
	}
	sig := watchSignals()
	defer sig.release()
	in, err := keyArgs{Null: c.Null, KeyFiles: c.Keys}.open(e)
	if err != nil {
		return err
	}
	defer in.close()
	in.stop = sig.stop
	o := c.shapeFlags.options()
	o.Overwrite = c.Force
	b, err := mmapbloom.NewBuilder(c.File, uint64(*c.N), *c.P, &mmapbloom.BuildOptions{CreateOptions: *o, Mode: buildModes[c.Build]})
	if err != nil {
		return err
	}
	if b.Mode() == mmapbloom.BuildShared && c.Build == "auto" {
		fmt.Fprintf(e.stderr, "mmapbloom: create %s: the filter does not fit in the memory available: building it through a shared mapping of the file, which the kernel writes to the disk several times over\n", c.File)
	}
	err = in.each(func(bt *batch) error { return b.AddBatch(bt.keys) })
	if s := sig.caught(); s != nil && err == nil {
		err = &interrupted{sig: s, done: fmt.Sprintf("read %d keys; %s was not created", in.read, c.File)}
	}
	if err != nil {
		return errors.Join(err, b.Abort())
	}
	if err := b.Finish(); err != nil {
		return err
	}
	return warnBuilt(c.File, e)
}

// warnBuilt warns when the filter built at path holds more keys than it
// was sized for.
func warnBuilt(path string, e *env) error {
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	return errors.Join(warnOverCapacity(f, e.stderr), f.Close())
}
