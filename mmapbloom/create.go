package mmapbloom

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// CreateOptions tunes Create and CreateWithMK. A nil *CreateOptions means
// the defaults.
type CreateOptions struct {
	// Format is the file format: format.V2 (default) or format.V1, the
	// v1.1 format of format/FORMAT.md (m below 2^32, 32-bit count, its
	// double MurmurHash64A only).
	Format format.Version

	// Layout is the bit layout of a v2 file. Default for Create:
	// format.LayoutBlocked512 (one cache line per key) when p >=
	// MinBlockedP, else format.LayoutClassic; for CreateWithMK and v1.1
	// files: format.LayoutClassic.
	Layout format.Layout

	// Scheme is the hash scheme. Default: format.SchemeMurmurDoubleV1 for
	// v1.1 files, format.SchemeXXH3Remix for classic v2 files,
	// format.SchemeXXH3Blocked for blocked ones.
	// format.SchemeMurmurSeeds is k seeded MurmurHash64A (murmur2-seeds);
	// format.SchemeMurmurDouble, double MurmurHash64A, is kept for the
	// files made with it (its positions repeat when m has small factors:
	// see FORMAT.md).
	Scheme format.Scheme

	// Seed is the hash seed, used as given when FixedSeed is set. By
	// default a random seed is drawn from crypto/rand, so that no one can
	// precompute keys that collide in every deployment. v1.1 seeds are
	// 32-bit. SchemeMurmurSeeds uses it as the first LCG seed (its C
	// reference filter's value is DocumentSeed).
	Seed      uint64
	FixedSeed bool

	// PrimeM rounds m up to the next prime, as the murmur2-seeds reference
	// filter's prime_length option. Only with format.SchemeMurmurSeeds. Default false.
	PrimeM bool

	// Overwrite lets Create replace an existing file at path, atomically,
	// when no other process has it open. Default false: ErrExists.
	Overwrite bool
}

// Create makes a new filter file at path sized for n keys at
// false-positive probability p, and opens it read-write.
//
// Sizing by format, layout and scheme: blocked, see OptimalBlocked; the
// default classic layout (p below MinBlockedP), OptimalClassic at 0.92 p;
// an explicit classic v2 layout, m = ceil(-n ln p / (ln 2)^2)
// and k = round(ln 2 m / n) (see OptimalClassic); v1.1, the v1.1 reference
// code's _CalcBloomFilterParam exactly (constants 0.480453 and 0.69314, m rounded
// to a multiple of 64); SchemeMurmurSeeds, its reference filter's init_bloomfilter
// (p as a 32-bit float, m floored, optionally a prime, k rounded up).
//
// The file appears whole or not at all: it is built under a temporary
// name in the same directory, its disk space is reserved (a full disk
// fails here, not in a later Add), and it is linked into place. Errors:
// ErrInvalidN, ErrInvalidP, ErrInvalidK, ErrTooLarge, ErrBadOptions,
// ErrExists, ErrInUse (Overwrite of a file in use), the os error
// (ENOSPC, EACCES) wrapped.
func Create(path string, n uint64, p float64, opts *CreateOptions) (*Filter, error) {
	o, m, k, err := shape(path, n, p, opts)
	if err != nil {
		return nil, err
	}
	return create(path, o, m, k, n, p)
}

// shape checks n and p and returns the options with their defaults, m
// and k of a new filter at path (for Create and NewBuilder).
func shape(path string, n uint64, p float64, opts *CreateOptions) (CreateOptions, uint64, uint32, error) {
	if err := sizing.CheckNP(n, p); err != nil {
		return CreateOptions{}, 0, 0, fmt.Errorf("mmapbloom: create %s: %w", path, err)
	}
	o, target := withDefaults(opts, n, p)
	m, k, err := o.size(n, target)
	if err != nil {
		return o, 0, 0, fmt.Errorf("mmapbloom: create %s: sizing for n = %d, p = %v: %w", path, n, p, err)
	}
	return o, m, k, nil
}

// MaxDefaultRatio is the most bits a filter of Create's default layout
// takes over the classic layout's for the same n and p (OptimalClassic).
const MaxDefaultRatio = 1.4

// blockedPays reports whether Create's default layout for n keys at p is
// blocked512: p is at least MinBlockedP and the blocked layout needs at
// most MaxDefaultRatio times the classic bits. Near MinBlockedP small
// filters need more (1.6 times at n = 1000, p = 1e-6: the luck of how few
// keys fall into few blocks costs more bits) and get the classic layout.
func blockedPays(n uint64, p float64) bool {
	if p < MinBlockedP {
		return false
	}
	bm, _, err := OptimalBlocked(n, p)
	if err != nil {
		return false
	}
	cm, _, err := OptimalClassic(n, p)
	return err == nil && float64(bm) <= MaxDefaultRatio*float64(cm)
}

// CreateWithMK makes a new filter file at path with exactly m bits and k
// hash functions (as the usual C filters' create(num_bits,
// num_hash_funcs)), and opens it read-write. The header records n = 0 and
// p = 0 (no capacity given). Errors as for Create, and ErrInvalidM.
func CreateWithMK(path string, m uint64, k uint32, opts *CreateOptions) (*Filter, error) {
	o, _ := withDefaults(opts, 0, 0)
	return create(path, o, m, k, 0, 0)
}

// withDefaults fills in the defaults of opts for a filter sized for n keys
// at p (0 and 0 when m and k are given), and returns the rate to size it
// for: p, or sizing.WithMargin(p) when it picked the classic layout (see
// blockedPays).
func withDefaults(opts *CreateOptions, n uint64, p float64) (o CreateOptions, sizeFor float64) {
	if opts != nil {
		o = *opts
	}
	sizeFor = p
	if o.Format == 0 {
		o.Format = format.V2
	}
	if o.Layout == 0 {
		o.Layout = format.LayoutClassic
		switch {
		case o.Format != format.V2 || o.Scheme != 0 || p == 0:
		case blockedPays(n, p):
			o.Layout = format.LayoutBlocked512
		default:
			sizeFor = sizing.WithMargin(p)
		}
	}
	if o.Scheme == 0 {
		switch {
		case o.Format == format.V1:
			o.Scheme = format.SchemeMurmurDoubleV1
		case o.Layout == format.LayoutBlocked512:
			o.Scheme = format.SchemeXXH3Blocked
		default:
			o.Scheme = format.SchemeXXH3Remix
		}
	}
	return o, sizeFor
}

// size returns m and k for n keys at p under the options' format and scheme.
func (o CreateOptions) size(n uint64, p float64) (uint64, uint32, error) {
	switch {
	case o.Format == format.V1:
		return sizing.V1(n, p)
	case o.Layout == format.LayoutBlocked512:
		return OptimalBlocked(n, p)
	case o.Scheme == format.SchemeMurmurSeeds:
		return sizing.Seeds(n, p, o.PrimeM)
	default:
		return OptimalClassic(n, p)
	}
}

// header checks the options against m and k and builds the new header.
func (o CreateOptions) header(m uint64, k uint32, n uint64, p float64) (format.Header, error) {
	if o.PrimeM && o.Scheme != format.SchemeMurmurSeeds {
		return format.Header{}, fmt.Errorf("PrimeM needs scheme %v: %w", format.SchemeMurmurSeeds, ErrBadOptions)
	}
	if o.Format == format.V1 && (o.Layout != format.LayoutClassic || o.Scheme != format.SchemeMurmurDoubleV1) {
		return format.Header{}, fmt.Errorf("format v1.1 has only the classic layout and scheme %v: %w", format.SchemeMurmurDoubleV1, ErrBadOptions)
	}
	if k == 0 || k > format.MaxK {
		return format.Header{}, fmt.Errorf("k = %d, want 1..%d: %w", k, format.MaxK, ErrInvalidK)
	}
	if m == 0 || (o.Format == format.V1 && (m%64 != 0 || m >= 1<<32)) {
		return format.Header{}, fmt.Errorf("m = %d (v1.1 needs a multiple of 64 below 2^32): %w", m, ErrInvalidM)
	}
	if m > format.MaxBitsV2 {
		return format.Header{}, fmt.Errorf("m = %d, above %d: %w", m, uint64(format.MaxBitsV2), ErrTooLarge)
	}
	if o.Layout == format.LayoutBlocked512 && m%hashing.BlockBits != 0 {
		return format.Header{}, fmt.Errorf("m = %d (the blocked layout needs a multiple of %d): %w", m, hashing.BlockBits, ErrInvalidM)
	}
	seed, err := o.seed()
	if err != nil {
		return format.Header{}, err
	}
	return format.Header{
		Version: o.Format, Layout: o.Layout, Scheme: o.Scheme, K: k,
		P: p, M: m, N: n, Seed: seed, ByteSize: format.ByteSize(o.Format, m),
	}, nil
}

func (o CreateOptions) seed() (uint64, error) {
	if o.FixedSeed {
		if o.Format == format.V1 && o.Seed > math.MaxUint32 {
			return 0, fmt.Errorf("seed %d does not fit format v1.1 (32-bit): %w", o.Seed, ErrBadOptions)
		}
		return o.Seed, nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("mmapbloom: random seed: %w", err)
	}
	s := binary.LittleEndian.Uint64(b[:])
	if o.Format == format.V1 {
		s = uint64(uint32(s))
	}
	return s, nil
}

// create builds, reserves and publishes the file, then maps it.
func create(path string, o CreateOptions, m uint64, k uint32, n uint64, p float64) (*Filter, error) {
	tmp, _, err := newTemp(path, o, m, k, n, p)
	if err != nil {
		return nil, err
	}
	tmpName := tmp.Name()
	file, err := renamed(tmp, path)
	var f *Filter
	if err == nil {
		if f, err = openFile(file, OpenOptions{}); err == nil {
			err = publish(tmpName, path, o.Overwrite)
		} else {
			_ = file.Close()
		}
	}
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		_ = os.Remove(tmpName)
		return nil, err
	}
	return f, nil
}

// newTemp checks the options against m and k and writes the new file,
// empty, under a temporary name beside path (see buildTemp). It returns
// the file and its header.
func newTemp(path string, o CreateOptions, m uint64, k uint32, n uint64, p float64) (*os.File, format.Header, error) {
	hdr, err := o.header(m, k, n, p)
	if err != nil {
		return nil, hdr, fmt.Errorf("mmapbloom: create %s: %w", path, err)
	}
	var buf [format.HeaderSize]byte
	if err := hdr.Encode(buf[:]); err != nil {
		return nil, hdr, fmt.Errorf("mmapbloom: create %s: %w", path, err)
	}
	size := format.HeaderSize + hdr.ByteSize
	if size > math.MaxInt {
		return nil, hdr, fmt.Errorf("mmapbloom: create %s: %d bytes do not fit this platform's address space: %w", path, size, ErrTooLarge)
	}
	tmp, err := buildTemp(path, buf[:], int64(size))
	return tmp, hdr, err
}

// renamed returns a handle on tmp's open file description (the same file
// and locks) whose Name is path, the name every later error gives, and
// closes tmp.
func renamed(tmp *os.File, path string) (*os.File, error) {
	defer tmp.Close()
	fd, err := unix.Dup(int(tmp.Fd()))
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: create %s: %w", path, err)
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), path), nil
}

// buildTemp writes a complete filter file under a temporary name beside
// path: disk space reserved, header written, synced.
func buildTemp(path string, header []byte, size int64) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: create %s: %w", path, err)
	}
	err = mapping.Reserve(tmp, size)
	if err != nil {
		err = fmt.Errorf("reserve %d bytes: %w", size, err)
	} else if _, err = tmp.WriteAt(header, 0); err == nil {
		if err = tmp.Chmod(0o644); err == nil {
			err = tmp.Sync()
		}
	}
	if err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return nil, fmt.Errorf("mmapbloom: create %s: %w", path, err)
	}
	return tmp, nil
}

// publish gives the complete temporary file its final name. Without
// overwrite it links (failing with ErrExists when path exists) and
// removes the temporary name; with overwrite it renames over path, after
// taking an exclusive lock on the file it replaces (ErrInUse if that
// fails). The directory is synced so the name survives a crash.
func publish(tmp, path string, overwrite bool) error {
	if overwrite {
		if err := replace(tmp, path); err != nil {
			return err
		}
	} else {
		if err := os.Link(tmp, path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("mmapbloom: create %s: %w", path, ErrExists)
			}
			return fmt.Errorf("mmapbloom: create %s: %w", path, err)
		}
		_ = os.Remove(tmp)
	}
	return mapping.SyncDir(filepath.Dir(path))
}

// replace renames tmp over path while holding an exclusive lock on the
// file being replaced, so that no process loses a filter it has open.
func replace(tmp, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("mmapbloom: overwrite %s: a directory: %w", path, ErrExists)
	}
	old, err := mapping.OpenFile(path, os.O_RDONLY, 0)
	if err == nil {
		defer old.Close()
		if err := mapping.LockExclusive(old); err != nil {
			return wrapf(err, "overwrite %s", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("mmapbloom: overwrite %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("mmapbloom: overwrite %s: %w", path, err)
	}
	return nil
}
