package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/format"
)

// BF.SCANDUMP and BF.LOADCHUNK move a fixed filter file as it is on disk:
// the first chunk (iterator 1) is the 64-byte header, the next ones the
// bit array in pieces of at most dumpChunk bytes. SCANDUMP key i (i >= 1)
// returns the piece at offset i-1 with the iterator i+len, so that
// LOADCHUNK key it data writes data at offset it-1-len(data). A load is
// built in a hidden file beside the key's and linked into place with its
// last piece, so the key appears whole or not at all.

const dumpChunk = 4 << 20

// errSetDump refuses BF.SCANDUMP of a set (a directory of layers).
var errSetDump = errors.New("BF.SCANDUMP of a scaling or windowed set is not supported: copy its KEY.bfset directory, or move it with MBF.MIGRATE")

// errBadData is the reason a LOADCHUNK piece was refused.
var errBadData = errors.New("received bad data")

// load is a BF.LOADCHUNK in progress.
type load struct {
	f    *os.File
	path string // the key's file, linked from f at the end
	size uint64 // bytes of the bit array
}

// dumpHeader returns the current 64-byte header of a fixed filter.
func dumpHeader(b Bloom) ([]byte, error) {
	f, ok := b.(fixed)
	if !ok {
		return nil, errSetDump
	}
	if _, err := f.Count(); err != nil { // publishes this handle's pending adds
		return nil, err
	}
	buf := make([]byte, format.HeaderSize)
	return buf, readAt(f.Path(), buf, 0)
}

// dumpPiece returns the bit-array piece at offset off (empty at the end).
func dumpPiece(b Bloom, off uint64) ([]byte, error) {
	f, ok := b.(fixed)
	if !ok {
		return nil, errSetDump
	}
	size := f.Header().ByteSize
	if off >= size {
		return nil, nil
	}
	buf := make([]byte, min(dumpChunk, size-off))
	return buf, readAt(f.Path(), buf, int64(format.HeaderSize+off))
}

// readAt reads len(buf) bytes of the file at path from offset off; the
// page cache makes it see the mapping's adds.
func readAt(path string, buf []byte, off int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.ReadAt(buf, off)
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: %w", path, format.ErrTruncated)
	}
	return err
}

// startLoad begins loading key from a dumped header: ErrKeyExists if the
// key has a file.
func (s *store) startLoad(key, header []byte) error {
	stem, err := Stem(key)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, err := s.existsLocked(stem)
	if err != nil {
		return err
	}
	if ok {
		return ErrKeyExists
	}
	hdr, err := format.Decode(header)
	if err != nil || len(header) != format.HeaderSize {
		return fmt.Errorf("%w: not a filter header (%v)", errBadData, err)
	}
	file, _ := s.stemPaths(stem)
	s.dropLoadLocked(key)
	f, err := os.CreateTemp(s.dir, "."+filepath.Base(file)+".load*")
	if err != nil {
		return err
	}
	l := &load{f: f, path: file, size: hdr.ByteSize}
	if _, err = f.WriteAt(header, 0); err == nil {
		err = f.Truncate(int64(format.HeaderSize + hdr.ByteSize))
	}
	if err != nil {
		l.abort()
		return err
	}
	s.loads[string(key)] = l
	return nil
}

// loadPiece writes a piece of key's load; the piece that ends the bit
// array publishes the file. ErrNotFound when no load of key is running.
func (s *store) loadPiece(key []byte, it int64, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.loads[string(key)]
	if l == nil {
		return ErrNotFound
	}
	off := it - 1 - int64(len(data))
	if off < 0 || uint64(off)+uint64(len(data)) > l.size {
		return fmt.Errorf("%w: piece at %d of %d bytes beyond the %d-byte bit array", errBadData, off, len(data), l.size)
	}
	if _, err := l.f.WriteAt(data, int64(format.HeaderSize)+off); err != nil {
		return err
	}
	if uint64(off)+uint64(len(data)) < l.size {
		return nil
	}
	delete(s.loads, string(key))
	return l.publish()
}

// publish makes a complete load durable and links it to the key's name.
func (l *load) publish() error {
	defer l.abort()
	if err := l.f.Sync(); err != nil {
		return err
	}
	if err := os.Link(l.f.Name(), l.path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return ErrKeyExists
		}
		return err
	}
	return nil
}

// abort closes and removes the load's temporary file.
func (l *load) abort() {
	_ = l.f.Close()
	_ = os.Remove(l.f.Name())
}

func (s *store) dropLoadLocked(key []byte) {
	if l := s.loads[string(key)]; l != nil {
		l.abort()
		delete(s.loads, string(key))
	}
}

// BF.SCANDUMP key iterator
func bfScanDump(c *client, args [][]byte) {
	var piece []byte
	var next int64
	err := c.use(args[1], nil, func(b Bloom) error {
		it, ok := parseInt(args[2])
		if !ok || it < 0 {
			return errNotNumeric
		}
		if it == 0 {
			h, err := dumpHeader(b)
			piece, next = h, 1
			return err
		}
		p, err := dumpPiece(b, uint64(it-1))
		piece, next = p, it+int64(len(p))
		if len(p) == 0 {
			next = 0
		}
		return err
	})
	switch {
	case errors.Is(err, errNotNumeric):
		c.w.WriteError("Second argument must be numeric")
	case err != nil:
		c.replyErr(err)
	default:
		c.w.WriteArray(2)
		c.w.WriteInt64(next)
		c.w.WriteBulk(piece)
	}
}

var errNotNumeric = errors.New("not numeric")

// BF.LOADCHUNK key iterator data
func bfLoadChunk(c *client, args [][]byte) {
	it, ok := parseInt(args[2])
	if !ok || it < 1 {
		c.w.WriteError("ERR Second argument must be numeric")
		return
	}
	var err error
	if it == 1 {
		err = c.s.store.startLoad(args[1], args[3])
	} else {
		err = c.s.store.loadPiece(args[1], it, args[3])
	}
	if errors.Is(err, errBadData) {
		c.w.WriteError(err.Error())
		return
	}
	if err != nil {
		c.replyErr(err)
		return
	}
	c.w.WriteString("OK")
}
