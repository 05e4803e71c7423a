package mmapbloom

import (
	"errors"
	"fmt"
	"os"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// BuildMode is where a Builder sets the bits of the filter it builds.
type BuildMode uint8

const (
	// BuildPrivate sets the bits in anonymous memory private to the
	// process, as large as the file, and writes the file once, at Finish:
	// the disk takes the file's size.
	BuildPrivate BuildMode = iota + 1

	// BuildShared sets the bits through a shared mapping of the
	// unpublished file, as adds to a Filter do: once the file has been
	// dirty for vm.dirty_expire_centisecs (30 s by default) the kernel
	// writes its dirty pages back, and the adds that follow dirty them
	// again, so a build longer than that writes several times the file's
	// size (measured: 6.4x for 200M classic keys in 54 s; docs/safety.md,
	// "Disk writes").
	BuildShared
)

// String names the mode: "private" or "shared".
func (m BuildMode) String() string {
	switch m {
	case BuildPrivate:
		return "private"
	case BuildShared:
		return "shared"
	}
	return fmt.Sprintf("BuildMode(%d)", uint8(m))
}

// BuildOptions tunes NewBuilder. A nil *BuildOptions means the defaults.
type BuildOptions struct {
	// CreateOptions shape the file as for Create: format, layout,
	// scheme, seed, Overwrite.
	CreateOptions

	// Mode forces where the bits are set. Default 0: BuildPrivate when
	// the file fits in the memory available (see PrivateFits), else
	// BuildShared; BuildShared also where the available memory is unknown
	// (off Linux).
	Mode BuildMode

	// SingleWriter makes AddBatch set the bits of the blocked layout
	// (the default) with plain ORs, loads and stores, instead of atomic
	// ORs: faster (BENCHMARKS.md, "Batch Add against its floor"), for a
	// build whose Add and AddBatch calls come from one goroutine at a
	// time. It is only for a filter no other writer, goroutine or
	// process, adds to at the same time: the Builder's file is
	// unpublished until Finish, so only this process's calls can race.
	// Calls that overlap lose bits: a store writes back a word read
	// before another call's OR of the same word, whose bits are then
	// gone, so a key that call added may test absent (a false negative,
	// which a filter otherwise never gives), and the count, which is of
	// the keys that found a bit clear, may count keys that overlapped
	// twice. Add (one key) and the classic layout keep their atomic ORs.
	// Default false: every call safe for concurrent use.
	SingleWriter bool
}

// Builder builds a new filter file that no one can open until Finish
// publishes it: a bulk load, as of a key file into a new filter. Its
// bits are set in memory private to the process (BuildPrivate) when the
// file fits in the memory available, and the file is written once, so
// that the disk takes about the file's size, where adds through a shared
// mapping take several times it (see BuildShared). Add and AddBatch are
// safe for concurrent use unless BuildOptions.SingleWriter is set; Finish and Abort end the Builder, and calls
// after them fail with ErrClosed.
//
// Memory: BuildPrivate takes up to the file's size of anonymous memory
// (each page once an add first writes it, in 2 MiB huge pages where the
// kernel gives them), returned at Finish or Abort; Finish's write then
// passes the file through the page cache, which the kernel writes back
// and may reclaim. BuildShared takes only page cache.
//
// Until Finish, the file is a temporary one beside path (".NAME.tmp*",
// its disk space reserved as Create reserves it); Abort removes it. A
// process that dies before Finish leaves that temporary file and never a
// file at path.
type Builder struct {
	f         *Filter // over private memory or the temporary file's shared mapping
	path, tmp string
	mode      BuildMode
	overwrite bool
}

// NewBuilder starts building a filter file for path sized for n keys at
// false-positive probability p, as Create sizes it. Errors: those of
// Create (ErrInvalidN, ErrInvalidP, ErrBadOptions, ErrTooLarge, the os
// error of the temporary file, ErrNoSpace when the disk cannot hold the
// file), ErrBadOptions for an unknown Mode; ErrExists comes at Finish,
// which publishes the file.
func NewBuilder(path string, n uint64, p float64, opts *BuildOptions) (*Builder, error) {
	var bo BuildOptions
	if opts != nil {
		bo = *opts
	}
	if bo.Mode > BuildShared {
		return nil, fmt.Errorf("mmapbloom: create %s: build mode %v: %w", path, bo.Mode, ErrBadOptions)
	}
	o, m, k, err := shape(path, n, p, &bo.CreateOptions)
	if err != nil {
		return nil, err
	}
	tmp, hdr, err := newTemp(path, o, m, k, n, p)
	if err != nil {
		return nil, err
	}
	b := &Builder{path: path, tmp: tmp.Name(), mode: bo.Mode, overwrite: o.Overwrite}
	if b.mode == 0 {
		b.mode = BuildShared
		if avail, ok := mapping.Available(); ok && PrivateFits(format.HeaderSize+hdr.ByteSize, avail) {
			b.mode = BuildPrivate
		}
	}
	file, err := renamed(tmp, path)
	if err == nil {
		if b.f, err = b.open(file, hdr); err != nil {
			_ = file.Close()
		}
	}
	if err != nil {
		_ = os.Remove(b.tmp)
		return nil, err
	}
	b.f.single = bo.SingleWriter
	return b, nil
}

// PrivateFits reports whether a private build of a file of size bytes
// fits in avail bytes of available memory less a margin for the rest of
// the system and the page cache of Finish's write: an eighth of avail,
// at least 256 MiB. NewBuilder's avail is MemAvailable of /proc/meminfo
// (it does not see a cgroup's memory limit: force BuildShared in a
// container smaller than the machine's free memory).
func PrivateFits(size, avail uint64) bool {
	margin := max(avail/8, 256<<20)
	return avail > margin && size <= avail-margin
}

// open maps the bits of the temporary file where b.mode sets them.
func (b *Builder) open(file *os.File, hdr format.Header) (*Filter, error) {
	if b.mode == BuildShared {
		return openFile(file, OpenOptions{})
	}
	data, err := mapping.Private(format.HeaderSize + hdr.ByteSize)
	if err != nil {
		return nil, err
	}
	err = hdr.Encode(data[:format.HeaderSize])
	var f *Filter
	if err == nil {
		f, err = newFilter(file, data, hdr, OpenOptions{})
	}
	if err == nil {
		f.res.inMemory = true // no page of it is on a disk to read ahead
	}
	if err != nil {
		_ = data.Unmap()
		return nil, fmt.Errorf("mmapbloom: create %s: %w", b.path, err)
	}
	return f, nil
}

// Mode returns where the bits are set: BuildPrivate, or BuildShared when
// asked for or when the file did not fit in the memory available.
func (b *Builder) Mode() BuildMode { return b.mode }

// Add adds key, as Filter.Add. Errors: ErrClosed after Finish or Abort.
func (b *Builder) Add(key []byte) error { return b.f.Add(key) }

// AddBatch adds keys, as Filter.AddBatch. Errors: ErrClosed after Finish
// or Abort.
func (b *Builder) AddBatch(keys [][]byte) error { return b.f.AddBatch(keys) }

// Finish writes the bits and the count of the keys added to the file
// (private: one write; shared: msync), fsyncs it and publishes it at
// path as Create does (with Overwrite, replacing the file there unless
// another process has it open). Open it to use it. On an error the
// temporary file is removed and nothing is published. Errors: those of
// the write and fsync (ErrNoSpace), ErrExists, ErrInUse, ErrClosed after
// Finish or Abort.
func (b *Builder) Finish() error {
	if b.f.closed.Load() {
		return ErrClosed
	}
	err := b.f.run(true, false, b.write)
	err = errors.Join(err, b.f.Close())
	if err == nil {
		err = publish(b.tmp, b.path, b.overwrite)
	}
	if err != nil {
		_ = os.Remove(b.tmp)
	}
	return err
}

// write makes the temporary file hold the bits and the count, durably.
// The caller holds the Filter's lock exclusively.
func (b *Builder) write() error {
	if b.mode == BuildShared {
		return b.f.flush()
	}
	b.f.publishCount()
	return mapping.WriteFile(b.f.file, b.f.data)
}

// Abort ends the build without publishing anything: it frees the memory
// and removes the temporary file. After Finish or Abort it does nothing.
// Errors: those of unmapping, closing and removing the temporary file.
func (b *Builder) Abort() error {
	if b.f.closed.Load() {
		return nil
	}
	return errors.Join(b.f.Close(), os.Remove(b.tmp))
}
