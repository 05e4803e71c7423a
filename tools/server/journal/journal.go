// Package journal is the server's append-only file of acknowledged
// writes for appendfsync always: each write a client sent is kept as a
// record of the replication log's entry format (format/FORMAT.md,
// "Replication log entries"; package tools/replication), the records of
// one group commit written as one frame and made durable with one
// fsync, so an add costs a few dozen bytes of sequential write
// instead of the 4 KiB pages an msync of the filters writes. The filters
// themselves are synced rarely (a checkpoint): the server then removes
// the files the checkpoint covers. At start, the server applies the
// records of the files left by a crash, in order, then checkpoints.
//
// Files live in DirName under the data directory, named by a sequence
// number (FilePattern); a file is
//
//	frame*   where frame = length u32 (little-endian) | batch
//
// and a batch is replication.Batch's encoding (its own magic and CRC-32C).
// A frame cut short or failing its checksum ends the file's records: a
// crash during a write leaves such a tail, and that write was never
// acknowledged (its fsync had not returned).
package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mmapbloom/mmapbloom/tools/internal/durable"
	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// DirName is the journal's directory under the data directory (as Redis
// 7 keeps its append-only files in appendonlydir).
const DirName = "appendonlydir"

// FilePattern names the journal's files by sequence number.
const FilePattern = "journal.%09d.mbj"

// origin names the journal in its batches' origin field.
const origin = "journal"

// ErrJournal is returned (wrapped) for a journal file that cannot be
// read or written.
var ErrJournal = errors.New("journal")

// Journal is the open journal of a data directory. Append is safe for
// concurrent use; Commit, Checkpoint and Close are called by one
// goroutine at a time (the server's fsync goroutine).
type Journal struct {
	dir string

	mu      sync.Mutex
	pending []replication.Record // appended since the last Commit

	f      *os.File // the file Commit writes, nil until its first write
	seq    uint64   // f's sequence number, or the next file's while f is nil
	size   int64    // bytes in f
	frame  []byte   // Commit's buffer
	batch  uint64   // frames written
	closed []string // files no Checkpoint has removed yet, but the current one (an earlier run's, a failed Commit's)
}

// Open returns the journal of the data directory dir and the files of
// an earlier run found there, oldest first, for the caller to apply
// (Read) before its first Checkpoint, which removes them. New files are
// numbered after them. Errors: the directory cannot be read.
func Open(dir string) (*Journal, []string, error) {
	jdir := filepath.Join(dir, DirName) // made by the first Commit
	names, err := filepath.Glob(filepath.Join(jdir, "journal.*.mbj"))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	j := &Journal{dir: jdir, seq: 1}
	var old []string
	for _, name := range names {
		var seq uint64
		if _, err := fmt.Sscanf(filepath.Base(name), FilePattern, &seq); err != nil {
			continue // not one of ours
		}
		old = append(old, name)
		j.seq = max(j.seq, seq+1)
	}
	slices.Sort(old) // the fixed-width numbers sort as strings
	j.closed = slices.Clone(old)
	return j, old, nil
}

// Append adds r to the next Commit. r's fields must not change after
// the call (the caller copies a connection's buffers).
func (j *Journal) Append(r replication.Record) {
	j.mu.Lock()
	j.pending = append(j.pending, r)
	j.mu.Unlock()
}

// Commit writes the records appended since the last Commit as one frame
// and fsyncs the file: once it returns nil, every record appended
// before the call is durable. With nothing appended it does nothing.
// Errors: the write, the fsync or the file's creation failed; the
// records are then dropped (their writers are not acknowledged).
func (j *Journal) Commit() error {
	j.mu.Lock()
	recs := j.pending
	j.pending = nil
	j.mu.Unlock()
	if len(recs) == 0 {
		return nil
	}
	if j.f == nil {
		if err := j.create(); err != nil {
			return err
		}
	}
	j.batch++
	j.frame = binary.LittleEndian.AppendUint32(j.frame[:0], 0)
	j.frame = replication.Batch{Origin: origin, Seq: j.batch, Records: recs}.Append(j.frame)
	binary.LittleEndian.PutUint32(j.frame, uint32(len(j.frame)-4))
	if _, err := j.f.Write(j.frame); err != nil {
		return j.abandon(fmt.Errorf("%w: write %s: %w", ErrJournal, j.f.Name(), err))
	}
	j.size += int64(len(j.frame))
	if err := j.f.Sync(); err != nil { // the size changed, so fdatasync would write the inode too
		return j.abandon(fmt.Errorf("%w: fsync %s: %w", ErrJournal, j.f.Name(), err))
	}
	return nil
}

// abandon closes the current file after a failed Commit, so that no
// later frame follows the torn one (Read stops a file there), and
// returns err.
func (j *Journal) abandon(err error) error {
	j.closed = append(j.closed, j.f.Name())
	_ = j.f.Close()
	j.f = nil
	j.seq++
	return err
}

// create opens the next file (and the journal's directory) and makes
// their names durable.
func (j *Journal) create() error {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrJournal, err)
	}
	if err := syncDir(filepath.Dir(j.dir)); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(j.dir, fmt.Sprintf(FilePattern, j.seq)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrJournal, err)
	}
	if err := syncDir(j.dir); err != nil {
		return errors.Join(err, f.Close(), os.Remove(f.Name()))
	}
	j.f, j.size = f, 0
	return nil
}

// HasFiles reports whether the journal has a file no Checkpoint has
// removed yet.
func (j *Journal) HasFiles() bool { return j.f != nil || len(j.closed) > 0 }

// Size returns the bytes written to the current file.
func (j *Journal) Size() int64 { return j.size }

// Checkpoint makes the journal's records unneeded: it commits what was
// appended, closes the current file (the next Commit starts a new one),
// runs sync (the caller's Sync of every filter the records changed,
// which covers every record committed before it started) and, once sync
// returned nil, removes the closed files. Errors: Commit's, sync's, the
// removal's; the files then stay, for the next Checkpoint or the next
// Open.
func (j *Journal) Checkpoint(sync func() error) error {
	if err := j.Commit(); err != nil {
		return err
	}
	if j.f != nil {
		j.closed = append(j.closed, j.f.Name())
		err := j.f.Close()
		j.f = nil
		j.seq++
		if err != nil {
			return fmt.Errorf("%w: close: %w", ErrJournal, err)
		}
	}
	if err := sync(); err != nil || len(j.closed) == 0 {
		return err
	}
	if err := j.remove(j.closed); err != nil {
		return err
	}
	j.closed = nil
	return nil
}

// Close closes the current file, leaving it for the next Open.
func (j *Journal) Close() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// remove deletes files a checkpoint covers and makes the deletion
// durable (an fsync of the directory).
func (j *Journal) remove(paths []string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %w", ErrJournal, err)
		}
	}
	return syncDir(j.dir)
}

// Read calls fn with each record of the file at path, in order. It
// stops at the first frame cut short or failing its checksum (the tail
// a crash during a write leaves) and returns the number of records read
// and whether such a tail was found. Errors: the file cannot be read,
// or fn's error.
func Read(path string, fn func(replication.Record) error) (n int, torn bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	return readFrames(f, st.Size(), fn)
}

// readFrames reads the frames of r, which holds size bytes.
func readFrames(r io.Reader, size int64, fn func(replication.Record) error) (n int, torn bool, err error) {
	var head [4]byte
	for left := size; left > 0; {
		if left < int64(len(head)) {
			return n, true, nil
		}
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return n, false, fmt.Errorf("%w: %w", ErrJournal, err)
		}
		length := int64(binary.LittleEndian.Uint32(head[:]))
		left -= int64(len(head))
		if length > left {
			return n, true, nil // bounded by the file: a forged length allocates nothing
		}
		buf := make([]byte, length) // the records alias it
		if _, err := io.ReadFull(r, buf); err != nil {
			return n, false, fmt.Errorf("%w: %w", ErrJournal, err)
		}
		left -= length
		b, err := replication.Decode(buf)
		if err != nil {
			return n, true, nil
		}
		for _, rec := range b.Records {
			if err := fn(rec); err != nil {
				return n, false, err
			}
			n++
		}
	}
	return n, false, nil
}

// syncDir fsyncs directory dir (durable.SyncDir), the error marked
// ErrJournal too.
func syncDir(dir string) error {
	if err := durable.SyncDir(dir); err != nil {
		return fmt.Errorf("%w: %w", ErrJournal, err)
	}
	return nil
}
