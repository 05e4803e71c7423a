package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// batchSize is the number of keys handed to each batch call of the
// library.
const batchSize = 4096

// errKeyFile is wrapped by the errors about a key file that cannot be
// read as keys.
var errKeyFile = errors.New("unusable key file")

// keyArgs are the key-input arguments of add, test and dedup.
type keyArgs struct {
	Null     bool     `short:"0" help:"Keys end with NUL, not LF (no CR is stripped)."`
	KeyFiles []string `arg:"" optional:"" name:"keyfile" help:"Files of keys, one per line; a name ending in .gz is decompressed; stdin when none or \"-\"."`
}

// keyReader splits a stream into keys: lines ending in LF, less one
// trailing CR, or records ending in NUL. A last record without its
// terminator is a key too.
type keyReader struct {
	r    *bufio.Reader
	sep  byte
	long []byte // a record longer than r's buffer
}

// newKeyReader returns a reader of the keys of r ending in sep.
func newKeyReader(r *bufio.Reader, sep byte) *keyReader {
	return &keyReader{r: r, sep: sep}
}

// next returns the next key and whether a CR was stripped from its end.
// The key is valid until the next call. It returns io.EOF at the end.
func (kr *keyReader) next() (key []byte, cr bool, err error) {
	key, err = kr.record()
	if err != nil {
		return nil, false, err
	}
	if n := len(key); n > 0 && key[n-1] == kr.sep {
		key = key[:n-1]
	}
	if n := len(key); kr.sep == '\n' && n > 0 && key[n-1] == '\r' {
		return key[:n-1], true, nil
	}
	return key, false, nil
}

// record returns the next record with its terminator, when it has one.
func (kr *keyReader) record() ([]byte, error) {
	rec, err := kr.r.ReadSlice(kr.sep)
	if errors.Is(err, bufio.ErrBufferFull) {
		kr.long = append(kr.long[:0], rec...)
		for errors.Is(err, bufio.ErrBufferFull) {
			rec, err = kr.r.ReadSlice(kr.sep)
			kr.long = append(kr.long, rec...)
		}
		rec = kr.long
	}
	if errors.Is(err, io.EOF) && len(rec) > 0 {
		return rec, nil
	}
	return rec, err
}

// batch holds up to batchSize keys, copied into one reused arena.
type batch struct {
	keys  [][]byte
	crs   []bool // crs[i]: a CR was stripped from keys[i]
	arena []byte
	ends  []int
}

// writeLine writes key i as it was read: with its CR, then sep. bufio
// errors are sticky, so the last write reports any of them.
func (b *batch) writeLine(w *bufio.Writer, i int, sep byte) error {
	_, _ = w.Write(b.keys[i])
	if b.crs[i] {
		_ = w.WriteByte('\r')
	}
	return w.WriteByte(sep)
}

// source is one opened key input.
type source struct {
	name string
	r    io.Reader
}

// keyInput reads the keys of several sources in turn.
type keyInput struct {
	sep     byte
	sources []source
	cur     *keyReader
	closers []io.Closer
	bar     *progressbar.ProgressBar
	// stop, when not nil, ends the input once closed: each source is then
	// read through a stopReader, and a key cut short is dropped.
	stop <-chan struct{}
	read int // keys returned so far
}

// open opens every key file before any key is read, so that a missing,
// unreadable, directory or corrupt gzip file fails the command before it
// changes a filter.
func (a keyArgs) open(e *env) (*keyInput, error) {
	in := &keyInput{sep: '\n'}
	if a.Null {
		in.sep = 0
	}
	names := a.KeyFiles
	if len(names) == 0 {
		names = []string{"-"}
	}
	total := int64(0)
	for _, name := range names {
		size, err := in.add(name, e.stdin)
		if err != nil {
			return nil, errors.Join(err, in.close())
		}
		total = addSize(total, size)
	}
	in.bar = newProgress(e.stderr, total)
	return in, nil
}

// addSize adds size to total, either being -1 for unknown.
func addSize(total, size int64) int64 {
	if total < 0 || size < 0 {
		return -1
	}
	return total + size
}

// add opens the key file name ("-" for stdin) and appends it to the
// sources. It returns the file's size, -1 when unknown.
func (in *keyInput) add(name string, stdin io.Reader) (int64, error) {
	if name == "-" {
		in.sources = append(in.sources, source{name: "stdin", r: &progressReader{r: stdin, in: in}})
		return -1, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return 0, fmt.Errorf("key file: %w", err)
	}
	in.closers = append(in.closers, f)
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("key file: %w", err)
	}
	if st.IsDir() {
		return 0, fmt.Errorf("key file %s is a directory: %w", name, errKeyFile)
	}
	src := source{name: name, r: &progressReader{r: f, in: in}}
	if strings.HasSuffix(name, ".gz") {
		if src.r, err = openGzip(f, src.r, st.Mode().IsRegular()); err != nil {
			return 0, fmt.Errorf("key file %s is not a whole gzip file (%w): %w", name, err, errKeyFile)
		}
	}
	in.sources = append(in.sources, src)
	if !st.Mode().IsRegular() {
		return -1, nil
	}
	return st.Size(), nil
}

// openGzip returns a decompressing reader of r. When the file f can be
// rewound, the whole stream is checked first (a truncated or corrupt
// file fails here, before any key is used).
func openGzip(f *os.File, r io.Reader, check bool) (io.Reader, error) {
	if check {
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err == nil {
			_, err = io.Copy(io.Discard, zr)
		}
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return gzip.NewReader(bufio.NewReader(r))
}

// next returns the next key of the sources, as keyReader.next.
func (in *keyInput) next() ([]byte, bool, error) {
	for {
		if in.cur == nil {
			if len(in.sources) == 0 || in.stopped() {
				return nil, false, io.EOF
			}
			in.cur = newKeyReader(bufio.NewReaderSize(in.reader(in.sources[0].r), 64<<10), in.sep)
		}
		key, cr, err := in.cur.next()
		if errors.Is(err, errStopped) {
			return nil, false, io.EOF
		}
		if !errors.Is(err, io.EOF) {
			if err != nil {
				err = fmt.Errorf("read %s: %w", in.sources[0].name, err)
			}
			return key, cr, err
		}
		in.cur, in.sources = nil, in.sources[1:]
	}
}

// fill replaces the keys of b with up to batchSize next keys. It returns
// io.EOF when no key was left.
func (in *keyInput) fill(b *batch) error {
	b.keys, b.crs, b.arena, b.ends = b.keys[:0], b.crs[:0], b.arena[:0], b.ends[:0]
	for len(b.ends) < batchSize {
		key, cr, err := in.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		in.read++
		b.arena = append(b.arena, key...)
		b.ends = append(b.ends, len(b.arena))
		b.crs = append(b.crs, cr)
	}
	start := 0
	for _, end := range b.ends {
		b.keys = append(b.keys, b.arena[start:end:end])
		start = end
	}
	if len(b.keys) == 0 {
		return io.EOF
	}
	return nil
}

// each calls fn on every batch of keys of the input, then closes it.
func (in *keyInput) each(fn func(*batch) error) error {
	var b batch
	for {
		if in.stopped() {
			return in.close()
		}
		err := in.fill(&b)
		if errors.Is(err, io.EOF) {
			return in.close()
		}
		if err == nil {
			err = fn(&b)
		}
		if err != nil {
			return errors.Join(err, in.close())
		}
	}
}

// close clears the progress bar and closes the key files. Calls after
// the first do nothing.
func (in *keyInput) close() error {
	var errs []error
	if in.bar != nil {
		errs = append(errs, in.bar.Finish())
	}
	for _, c := range in.closers {
		errs = append(errs, c.Close())
	}
	in.bar, in.closers = nil, nil
	return errors.Join(errs...)
}

// progressReader counts the bytes read from a key file on the input's
// progress bar, if it has one.
type progressReader struct {
	r  io.Reader
	in *keyInput
}

// Read reads from the key file and advances the bar by the bytes read.
func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.in.bar != nil {
		_ = p.in.bar.Add(n)
	}
	return n, err
}

// newProgress returns a progress bar of total bytes (-1: unknown) on
// stderr, or nil when stderr is not a terminal.
func newProgress(stderr io.Writer, total int64) *progressbar.ProgressBar {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("reading keys"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)
}
