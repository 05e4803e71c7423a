package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// dedupCmd prints the input lines not seen before and adds them.
type dedupCmd struct {
	File string    `arg:"" help:"Filter file or set, created when missing (a set when FILE ends in .bfset or a set flag is given)."`
	N    *keyCount `short:"n" name:"capacity" placeholder:"N" help:"Capacity, when FILE is created (when it exists: must match it if given)."`
	P    *float64  `short:"p" name:"probability" placeholder:"P" help:"False-positive probability at n keys, when FILE is created (when it exists: must match it if given)."`
	Sync bool      `help:"When standard output is a regular file, fsync it before the keys printed are added (their lines then survive a power loss too)."`
	shapeFlags
	setFlags
	keyArgs
}

// Run opens every key file, then opens or creates the filter, and
// deduplicates the keys batch by batch, at least once: each batch's new
// lines are written before they are added. SIGINT and SIGTERM end it after
// the batch in flight.
func (c *dedupCmd) Run(e *env) error {
	sig := watchSignals() // before any change: a signal during the opens ends it before the first batch
	defer sig.release()
	in, err := c.open(e)
	if err != nil {
		return err
	}
	defer in.close()
	in.stop = sig.stop
	f, err := newStore{file: c.File, n: c.N, p: c.P, shape: c.shapeFlags, set: c.setFlags}.openOrCreate()
	if err != nil {
		return err
	}
	d, err := newDeduper(f, e, in.sep, c.Sync)
	if err == nil {
		err = in.each(d.batch)
	}
	if err == nil {
		err = warnStore(f, e)
	}
	err = closeStore(f, err)
	if s := sig.caught(); s != nil && err == nil {
		return &interrupted{sig: s, done: fmt.Sprintf("read %d lines, printed %d new ones; the lines printed were added, no line was added unprinted (run again to go on)", in.read, d.printed)}
	}
	return err
}

// deduper runs dedup's batches: test, write the new lines, then add them.
type deduper struct {
	f       store
	out     *output
	sep     byte
	refresh bool // a windowed set with --refresh: hits are re-added too
	seen    []bool
	unique  batchUnique
	fresh   []int    // indices of the batch's new keys, each once
	buf     []byte   // their lines
	ends    []int    // ends[j]: end of line fresh[j] in buf
	added   [][]byte // the keys to add
	printed int      // lines written (and added) so far
}

// newDeduper returns the batch runner of dedup into f, writing to e's
// standard output (fsynced before each add when sync is set).
func newDeduper(f store, e *env, sep byte, sync bool) (*deduper, error) {
	d := &deduper{f: f, out: newOutput(e, sync), sep: sep, seen: make([]bool, batchSize)}
	if s, ok := f.(*mmapbloom.Set); ok {
		info, err := s.Info()
		if err != nil {
			return nil, err
		}
		d.refresh = info.Refresh
	}
	return d, nil
}

// batch tests b's keys, writes the lines of the new ones (a key repeated
// in b once), and adds the keys whose lines were written: a key is never
// added before its line was, so an interruption can make a line print
// again at the next run, never vanish.
func (d *deduper) batch(b *batch) error {
	if err := d.f.TestBatch(b.keys, d.seen); err != nil {
		return err
	}
	d.fresh = d.unique.fresh(b.keys, d.seen, d.fresh[:0])
	d.buf, d.ends = d.buf[:0], d.ends[:0]
	for _, i := range d.fresh {
		d.buf = b.appendLine(d.buf, i, d.sep)
		d.ends = append(d.ends, len(d.buf))
	}
	written, werr := d.out.write(d.buf)
	lines := 0
	for lines < len(d.ends) && d.ends[lines] <= written {
		lines++
	}
	d.added = d.added[:0]
	for _, i := range d.fresh[:lines] {
		d.added = append(d.added, b.keys[i])
	}
	if d.refresh && werr == nil {
		d.added = b.keys // the hits too, into the current window
	}
	err := d.f.AddBatch(d.added)
	d.printed += lines
	if werr != nil {
		note := fmt.Sprintf("%d lines printed and added before it; the lines not written were not added (run again to print them)", d.printed)
		return errors.Join(&outputError{err: werr, note: note}, err)
	}
	return err
}

// output is dedup's standard output: written unbuffered, batch by batch,
// and fsynced after each batch with --sync when it is a regular file.
type output struct {
	w    interface{ Write([]byte) (int, error) }
	file *os.File // fsynced after each write; nil without --sync or when not a regular file
}

// newOutput returns e's standard output for dedup, unbuffered (dedup
// writes nothing through e.stdout).
func newOutput(e *env, sync bool) *output {
	o := &output{w: e.rawStdout}
	if f, ok := e.rawStdout.(*os.File); ok && sync {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			o.file = f
		}
	}
	return o
}

// write writes b whole and, with --sync, fsyncs the file; it returns the
// bytes written (all of b only when the write returned no error) and the
// error.
func (o *output) write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := o.w.Write(b)
	if err == nil && o.file != nil {
		if err = o.file.Sync(); err != nil {
			return 0, fmt.Errorf("fsync: %w", err)
		}
	}
	return n, err
}
