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
	Sync bool      `help:"Fsync the journal before each batch's claims and, when standard output is a regular file, the output before the journal is emptied (no line is then lost to a power loss either)."`
	shapeFlags
	setFlags
	keyArgs
}

// Run opens every key file, then opens or creates the filter, prints the
// lines pending in the journals of dead dedup processes on it, and
// deduplicates the keys batch by batch: each batch's new keys are
// journaled, claimed, then printed (dedup_journal.go). SIGINT and
// SIGTERM end it after the batch in flight.
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
		err = d.start(c.File)
	}
	if err == nil {
		err = in.each(d.batch)
	}
	if err == nil {
		err = warnStore(f, e)
	}
	err = closeStore(f, errors.Join(err, d.close()))
	if s := sig.caught(); s != nil && err == nil {
		return &interrupted{sig: s, done: fmt.Sprintf("read %d lines, printed %d new ones; every line claimed was printed (run again to go on)", in.read, d.printed)}
	}
	return err
}

// deduper runs dedup's batches: test, journal and claim the new keys,
// write the lines of those claimed.
type deduper struct {
	f       store
	out     *output
	j       *journal
	sep     byte
	sync    bool        // --sync: the journal is fsynced before the claims
	refresh bool        // a windowed set with --refresh: hits are re-added too
	hashed  hashedStore // f, when it passes hashes from a test to a claim (a filter or a set)
	seen    []bool
	sums    []uint64 // with hashed: the hash of each key of the batch
	unique  batchUnique
	fresh   []int         // indices of the batch's new keys, each once
	lines   []pendingLine // the batch's new lines, each once
	keys    [][]byte      // their keys
	hashes  []uint64      // with hashed: their hashes
	claims  []bool        // claims[i]: this process claimed lines[i]
	buf     []byte        // the lines to print
	ends    []int         // ends[j]: end of the j-th of them in buf
	printed int           // lines written so far
}

// newDeduper returns the batch runner of dedup into f, writing to e's
// standard output (fsynced, and the journal, when sync is set).
func newDeduper(f store, e *env, sep byte, sync bool) (*deduper, error) {
	d := &deduper{f: f, out: newOutput(e, sync), sync: sync, sep: sep, seen: make([]bool, batchSize)}
	if h, ok := f.(hashedStore); ok {
		d.hashed, d.sums = h, make([]uint64, batchSize)
	}
	if s, ok := f.(*mmapbloom.Set); ok {
		info, err := s.Info()
		if err != nil {
			return nil, err
		}
		d.refresh = info.Refresh
	}
	return d, nil
}

// start opens this process's journal of file and prints the lines
// pending in the journals of dead processes: journaled in this one
// first, then their journals removed, then claimed and printed, each
// whatever the claim says (the dead process may have claimed it).
func (d *deduper) start(file string) error {
	j, a, err := openJournal(file, d.sync)
	if err != nil {
		return err
	}
	d.j = j
	if len(a.lines) == 0 {
		return a.release(true)
	}
	if err := d.j.intent(a.lines); err != nil {
		return errors.Join(err, a.release(false))
	}
	if err := a.release(true); err != nil {
		return err
	}
	return d.claim(a.lines, nil, true)
}

// batch tests b's keys, then claims and prints the new ones (a key
// repeated in b once): a line is journaled before its key is claimed
// and stays in the journal until written, so an interruption can make a
// line print again at the next run, never vanish.
func (d *deduper) batch(b *batch) error {
	if err := d.test(b.keys); err != nil {
		return err
	}
	d.lines, d.hashes = d.lines[:0], d.hashes[:0]
	d.fresh = d.unique.fresh(b.keys, d.seen, d.fresh[:0])
	for _, i := range d.fresh {
		d.lines = append(d.lines, pendingLine{key: b.keys[i], cr: b.crs[i], sep: d.sep})
		if d.hashed != nil {
			d.hashes = append(d.hashes, d.sums[i])
		}
	}
	err := d.j.intent(d.lines)
	if err == nil {
		err = d.claim(d.lines, d.hashes, false)
	}
	if d.refresh && err == nil {
		err = d.f.AddBatch(b.keys) // the hits too, into the current window
	}
	return err
}

// hashedStore is a store whose test of a batch gives the keys' hashes
// and whose claim takes them (a *mmapbloom.Filter or *mmapbloom.Set), so
// that dedup hashes each new key once.
type hashedStore interface {
	TestBatchHashes(keys [][]byte, present []bool, hashes []uint64) error
	TestAndAddBatchHashes(keys [][]byte, hashes []uint64, present []bool) error
}

// test sets d.seen for keys, and d.sums to their hashes when the store
// gives them.
func (d *deduper) test(keys [][]byte) error {
	if d.hashed != nil {
		return d.hashed.TestBatchHashes(keys, d.seen, d.sums)
	}
	return d.f.TestBatch(keys, d.seen)
}

// testAndAdd claims d.keys into d.claims, from hashes (theirs, from
// test) when not nil and the store takes them.
func (d *deduper) testAndAdd(hashes []uint64) error {
	if d.hashed != nil && hashes != nil {
		return d.hashed.TestAndAddBatchHashes(d.keys, hashes, d.claims)
	}
	return d.f.TestAndAddBatch(d.keys, d.claims)
}

// claim claims the keys of lines, journaled already (from their hashes,
// when not nil: see test), records which this process claimed, and
// writes those lines (every line with all); it empties the journal when
// the output took them, else records how many it took.
func (d *deduper) claim(lines []pendingLine, hashes []uint64, all bool) error {
	if len(lines) == 0 {
		return nil
	}
	d.keys, d.claims = d.keys[:0], append(d.claims[:0], make([]bool, len(lines))...)
	for _, l := range lines {
		d.keys = append(d.keys, l.key)
	}
	if err := d.testAndAdd(hashes); err != nil {
		return err
	}
	var jerr error
	for i := range d.claims {
		d.claims[i] = all || !d.claims[i]
	}
	if !all {
		jerr = d.j.claimed(d.claims) // lost: the next run prints every line of the intent
	}
	d.buf, d.ends = d.buf[:0], d.ends[:0]
	for i, l := range lines {
		if d.claims[i] {
			d.buf = l.appendTo(d.buf)
			d.ends = append(d.ends, len(d.buf))
		}
	}
	written, werr := d.out.write(d.buf)
	n := 0
	for n < len(d.ends) && d.ends[n] <= written {
		n++
	}
	d.printed += n
	if werr != nil {
		note := fmt.Sprintf("%d lines printed before it; the %d claimed and not written are kept in %s (the next dedup on this file prints them)", d.printed, len(d.ends)-n, d.j.path)
		return errors.Join(&outputError{err: werr, note: note}, jerr, d.j.written(n))
	}
	return errors.Join(jerr, d.j.done())
}

// close closes the journal (removed when it holds nothing pending).
func (d *deduper) close() error {
	if d.j == nil {
		return nil
	}
	return d.j.close()
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
