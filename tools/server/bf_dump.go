package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// BF.SCANDUMP and BF.LOADCHUNK move a fixed filter file as it is on disk:
// the first chunk (iterator 1) is the 64-byte header, the next ones the
// bit array in pieces of at most chunkSize bytes, or of the CHUNKSIZE
// the caller gives after the iterator (an extension: a puller asks for
// pieces that fit its own request limit). SCANDUMP key i (i >= 1)
// returns the piece at offset i-1 with the iterator i+len, so that
// LOADCHUNK key it data writes data at offset it-1-len(data). A load is
// built in a hidden file beside the key's and linked into place with its
// last piece, so the key appears whole or not at all.

const dumpChunk = 4 << 20

// chunkRoom is what a BF.LOADCHUNK request takes beside its piece: the
// command, a key of keyname.MaxKeyBytes, the iterator and the RESP framing.
const chunkRoom = 256 + keyname.MaxKeyBytes

// chunkSize returns the largest piece a dump of this server sends:
// dumpChunk (4 MiB, RedisBloom's), or less so that the BF.LOADCHUNK
// request carrying it fits MaxRequest (a server started with a smaller
// --max-request can load what a server alike dumps).
func (s *Server) chunkSize() uint64 {
	return uint64(max(min(dumpChunk, s.cfg.MaxRequest-chunkRoom), 1))
}

// errChunkArg refuses a dump's CHUNKSIZE argument that is not a
// positive integer, or other arguments after the iterator.
var errChunkArg = errors.New("ERR syntax error: the dump's optional argument is CHUNKSIZE bytes (a positive integer)")

// dumpChunkOf returns the largest piece to answer a dump whose arguments
// after its iterator are rest: the server's chunkSize, or less when the
// puller asks for pieces of at most CHUNKSIZE bytes (so that each fits
// its own request limit). rest is empty (RedisBloom's BF.SCANDUMP key
// iterator) or CHUNKSIZE and a positive integer.
func (s *Server) dumpChunkOf(rest [][]byte) (uint64, error) {
	chunk := s.chunkSize()
	if len(rest) == 0 {
		return chunk, nil
	}
	if len(rest) != 2 || !strings.EqualFold(string(rest[0]), "CHUNKSIZE") {
		return 0, errChunkArg
	}
	n, ok := parseInt(rest[1])
	if !ok || n < 1 {
		return 0, errChunkArg
	}
	return min(chunk, uint64(n)), nil
}

// setDumpRefused starts the error of an older server's BF.SCANDUMP on a
// set; a replica pulling a key from one reads it as "use MBF.SETDUMP"
// (pull_copy.go), as it reads a set's first dump chunk.
const setDumpRefused = "BF.SCANDUMP of a scaling or windowed set is not supported"

// errBadData is the reason a LOADCHUNK piece was refused.
var errBadData = errors.New("received bad data")

// load is a BF.LOADCHUNK (or a pull's copy) in progress, admitted by
// the limiter (store.Limiter) at its full size. Its pieces must come in
// order, so that it is complete only once every byte has arrived.
type load struct {
	f         *os.File
	path      string // the key's file, linked from f at the end
	size      uint64 // bytes of the bit array
	got       uint64 // bytes of the bit array received, from offset 0
	hdr       format.Header
	lim       *store.Limiter
	owner     int64 // the client that started it
	loadState       // mu held while writing f; done once claimed by publish or Abort
}

// loadState is what a load in progress (a fixed filter's, or a set's,
// bf_setscan_load.go) keeps beside its data.
type loadState struct {
	mu   sync.Mutex // held while writing
	last time.Time  // of the last piece
	done bool       // claimed by its completion or Abort
}

// claim marks the load done and reports whether it was not yet: the
// caller then releases it.
func (st *loadState) claim() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	claimed := st.done
	st.done = true
	return !claimed
}

// Idle reports whether the load received nothing for loadIdle.
func (st *loadState) Idle() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return time.Since(st.last) > loadIdle
}

// dumpFile answers iterator it of a dump of the filter file at path: its
// current 64-byte header at 0 (next 1), else the bit-array piece at
// offset it-1 (next it+len), or no piece and next 0 past the end. Each
// piece is read when asked for, so a dump sees every bit set before it
// began (bits are only ever set), and maybe some set during it.
func dumpFile(path string, it int64, chunk uint64) (piece []byte, next int64, err error) {
	hdr := make([]byte, format.HeaderSize)
	if err := readAt(path, hdr, 0); err != nil {
		return nil, 0, err
	}
	if it == 0 {
		return hdr, 1, nil
	}
	h, err := format.Decode(hdr)
	if err != nil {
		return nil, 0, err
	}
	off := uint64(it - 1)
	if off >= h.ByteSize {
		return nil, 0, nil
	}
	buf := make([]byte, min(chunk, h.ByteSize-off))
	return buf, it + int64(len(buf)), readAt(path, buf, int64(format.HeaderSize+off))
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

// startLoad begins loading key of st for client owner from a dumped
// header: ErrKeyExists if the key has a file, a *store.LimitError past
// the limits.
func startLoad(st *store.Store, owner int64, key, header []byte) error {
	return st.StartLoad(key, func(file, _ string) (store.Load, error) {
		return newLoad(st.Limiter(), owner, st.Dir(), file, header, ".load*")
	})
}

// newLoad starts building, in a hidden temporary file of dir named
// after path and pattern, a filter file from its dumped header, once
// lim admitted its size for client owner. The file is locked while the
// load runs, so that store.RemoveStaleLoads removes only the files of loads
// that died with their server.
func newLoad(lim *store.Limiter, owner int64, dir, path string, header []byte, pattern string) (*load, error) {
	hdr, err := format.Decode(header)
	if err != nil || len(header) != format.HeaderSize {
		return nil, fmt.Errorf("%w: not a filter header (%v)", errBadData, err)
	}
	if err := lim.StartLoad(owner, format.HeaderSize+hdr.ByteSize); err != nil {
		return nil, err
	}
	l := &load{path: path, size: hdr.ByteSize, hdr: hdr, lim: lim, owner: owner, loadState: loadState{last: time.Now()}}
	if l.f, err = os.CreateTemp(dir, "."+filepath.Base(path)+pattern); err != nil {
		lim.EndLoad(owner, format.HeaderSize+hdr.ByteSize)
		return nil, err
	}
	err = store.LockLoad(l.f)
	if err == nil {
		err = l.f.Chmod(0o644) // as the library creates filter files
	}
	if err == nil {
		_, err = l.f.WriteAt(header, 0)
	}
	if err == nil {
		err = l.f.Truncate(int64(format.HeaderSize + hdr.ByteSize))
	}
	if err != nil {
		l.Abort()
		return nil, err
	}
	return l, nil
}

// write writes the bit-array piece data at offset off; errBadData if it
// does not follow the pieces received or does not fit in the array.
func (l *load) write(off int64, data []byte) error {
	if off < 0 || uint64(off)+uint64(len(data)) > l.size {
		return fmt.Errorf("%w: piece at %d of %d bytes beyond the %d-byte bit array", errBadData, off, len(data), l.size)
	}
	if uint64(off) != l.got {
		return fmt.Errorf("%w: piece at %d of %d bytes: the next piece starts at %d", errBadData, off, len(data), l.got)
	}
	if _, err := l.f.WriteAt(data, int64(format.HeaderSize)+off); err != nil {
		return err
	}
	l.got += uint64(len(data))
	l.last = time.Now()
	return nil
}

// loadPiece writes a piece of key's load in st; the piece that
// completes the bit array publishes the file. ErrNotFound when no load
// of a fixed filter of key is running. The store's lock is not held
// while the piece is written.
func loadPiece(st *store.Store, key []byte, it int64, data []byte) error {
	l, ok := st.Loading(key).(*load)
	if !ok {
		return ErrNotFound
	}
	complete, err := l.piece(it, data)
	if err != nil || !complete {
		return err
	}
	st.Loaded(key, l)
	return l.publish()
}

// piece writes the piece of iterator it and reports whether it completed
// the load, which the caller then publishes. ErrNotFound if the load was
// dropped meanwhile.
func (l *load) piece(it int64, data []byte) (complete bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return false, ErrNotFound
	}
	if err := l.write(it-1-int64(len(data)), data); err != nil {
		return false, err
	}
	l.done = l.got == l.size
	return l.done, nil
}

// publish checks a complete load, makes it durable and links it to the
// key's name.
func (l *load) publish() error {
	defer l.release()
	if err := l.check(); err != nil {
		return err
	}
	return l.link()
}

// check opens the complete load as the library would (header, sizes) and
// verifies a sealed one's data checksum: errBadData if it fails.
func (l *load) check() error { return checkLoaded(l.f.Name(), l.hdr) }

// checkLoaded opens the loaded filter file at path, whose header is hdr,
// as the library would and verifies a sealed one's data checksum:
// errBadData if it fails.
func checkLoaded(path string, hdr format.Header) error {
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err == nil && hdr.Sealed() {
		err = f.Verify()
	}
	if f != nil {
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errBadData, err)
	}
	return nil
}

// link makes a complete load durable and links it to l.path:
// ErrKeyExists if something is there.
func (l *load) link() error {
	if l.got != l.size {
		return fmt.Errorf("%w: %d of the %d bytes received", errBadData, l.got, l.size)
	}
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

// Abort drops a load not claimed by publish: its temporary file is
// closed and removed.
func (l *load) Abort() {
	if l.claim() {
		l.release()
	}
}

// release closes and removes the load's temporary file and returns its
// admission to the limiter; called once, by Abort or publish.
func (l *load) release() {
	_ = l.f.Close()
	_ = os.Remove(l.f.Name())
	l.lim.EndLoad(l.owner, format.HeaderSize+l.size)
}

// loadIdle is how long a load may wait for its next piece before a new
// load drops it (an abandoned load must not hold its admission forever;
// its pieces may come from new connections, as redis-cli sends them).
const loadIdle = 5 * time.Minute

// BF.SCANDUMP key iterator [CHUNKSIZE bytes]
func bfScanDump(c *client, args [][]byte) {
	chunk, err := c.s.dumpChunkOf(args[3:])
	if err != nil {
		c.w.WriteError(err.Error())
		return
	}
	var piece []byte
	var next int64
	err = c.use(args[1], nil, func(b store.Bloom) (err error) {
		it, ok := parseInt(args[2])
		if !ok || it < 0 {
			return errNotNumeric
		}
		if st, ok := b.(store.Set); ok {
			piece, next, err = setScanDump(st, it, chunk)
			return err
		}
		f, ok := b.(store.Fixed)
		if !ok {
			return errNoDump
		}
		if it == 0 {
			if _, err := f.Count(); err != nil { // publishes this handle's pending adds
				return err
			}
		}
		piece, next, err = dumpFile(f.Path(), it, chunk)
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

// BF.LOADCHUNK key iterator data: iterator 1 starts loading a missing
// key from a dumped header, the next ones add its pieces; into a key
// that exists, chunkIntoKey's errors.
func bfLoadChunk(c *client, args [][]byte) {
	it, ok := parseInt(args[2])
	if !ok {
		c.w.WriteError("ERR Second argument must be numeric")
		return
	}
	var err error
	switch {
	case isSetChunk(args[3]) && it&layerMask == 1:
		err = startSetLoad(c.s.store, c.id, args[1], args[3])
	case it == 1:
		err = startLoad(c.s.store, c.id, args[1], args[3])
	default:
		if err = loadPiece(c.s.store, args[1], it, args[3]); errors.Is(err, ErrNotFound) {
			err = loadSetPiece(c.s.store, args[1], it, args[3])
		}
	}
	if errors.Is(err, ErrKeyExists) || errors.Is(err, ErrNotFound) {
		err = c.chunkIntoKey(args[1], it, args[3])
	}
	switch {
	case errors.Is(err, errBadData):
		c.w.WriteError(msgBadData)
	case errors.Is(err, errChunkOffset) || errors.Is(err, errChunkTooBig) || errors.Is(err, errChunkLiveKey):
		c.w.WriteError(err.Error())
	case err != nil:
		c.replyErr(err)
	default:
		c.w.WriteString("OK")
	}
}
