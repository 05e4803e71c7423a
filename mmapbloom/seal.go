package mmapbloom

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Sealing freezes a v2 filter that will only be read from now on (a file
// shipped to other hosts): the header records the CRC-32C (Castagnoli) of
// the whole bit array, padding included, in its data crc field and sets
// format.FlagSealed, and the header crc is rewritten to match. Verify
// recomputes the array's checksum, so any bit flipped in the array is
// detected; a flipped bit of the header's immutable bytes is detected at
// Open by the header crc. The count is covered by neither: it is
// informational and never changes a membership answer.
//
// A sealed filter refuses to change: Add, TestAndAdd, their batch and
// string forms, Clear and Merge into it fail with ErrSealed, and Test
// answers as before. Unseal makes it writable again, visibly: the flag and
// the data crc are cleared in the file. v1.1 files have neither field and
// cannot be sealed.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Seal computes the CRC-32C of the bit array, stores it in the header
// with the sealed flag, and syncs the file: the bits first, then the
// header, so that a sealed header on disk always describes bits on disk.
// It needs every other handle on the file closed, like Clear. Writing
// calls then fail with ErrSealed until Unseal.
//
// Errors: ErrInUse, ErrReadOnly, ErrSealed (already sealed), ErrClosed,
// ErrFileChanged, errors.ErrUnsupported for a v1.1 file, and the msync
// or fsync error (the header is left unsealed when syncing the bits
// fails).
func (f *Filter) Seal() error { return f.exclusive("seal", f.seal) }

// seal is Seal's work. The caller is inside run and holds the file's lock
// exclusively.
func (f *Filter) seal() error {
	if f.hdr.Version != format.V2 {
		return fmt.Errorf("mmapbloom: seal %s: format %v has no sealed flag or data checksum (only v2 files can be sealed): %w",
			f.path, f.hdr.Version, errors.ErrUnsupported)
	}
	if err := f.flush(); err != nil {
		return err
	}
	h := f.hdr
	h.Flags |= format.FlagSealed
	h.DataCRC = f.dataCRC()
	return f.writeHeader(h)
}

// Unseal makes a sealed filter writable again: it clears the sealed flag
// and the data crc, so that the header is again what it was before Seal
// (apart from the count), and syncs it. Unseal of a filter that is not
// sealed does nothing and returns nil. It needs every other handle on the
// file closed, like Clear.
//
// Errors: ErrInUse, ErrReadOnly, ErrClosed, ErrFileChanged, and the msync
// or fsync error.
func (f *Filter) Unseal() error {
	return f.run(true, false, func() error {
		if f.readOnly {
			return fmt.Errorf("%s: %w", f.path, ErrReadOnly)
		}
		if !f.hdr.Sealed() {
			return nil
		}
		return f.alone("unseal", f.unseal)
	})
}

// unseal is Unseal's work on a sealed filter. The caller is inside run and
// holds the file's lock exclusively.
func (f *Filter) unseal() error {
	h := f.hdr
	h.Flags &^= format.FlagSealed
	h.DataCRC = 0
	return f.writeHeader(h)
}

// Verify recomputes the CRC-32C of the bit array of a sealed filter and
// compares it with the checksum Seal recorded. It reads the whole array
// (O(m)) and writes nothing, so it works on a read-only handle, and it
// needs no other handle closed (no one can write a sealed filter).
//
// Errors: ErrNotSealed (the filter was never sealed, or is a v1.1 file),
// ErrDataChecksum (the array differs from the one sealed: some bit was
// flipped), ErrClosed, ErrFileChanged.
func (f *Filter) Verify() error {
	return f.run(false, false, func() error {
		if !f.hdr.Sealed() {
			return fmt.Errorf("mmapbloom: verify %s: %w", f.path, ErrNotSealed)
		}
		if got := f.dataCRC(); got != f.hdr.DataCRC {
			return fmt.Errorf("mmapbloom: verify %s: crc %#08x, sealed %#08x: %w", f.path, got, f.hdr.DataCRC, ErrDataChecksum)
		}
		return nil
	})
}

// dataCRC returns the CRC-32C of the bit array, padding included. The
// caller is inside run.
func (f *Filter) dataCRC() uint32 {
	defer mapping.Sequential(f.data)()
	return crc32.Checksum(f.data[format.HeaderSize:format.HeaderSize+f.hdr.ByteSize], castagnoli)
}

// writeHeader encodes h into the mapping, every word but the count, makes
// it the header checkHeader expects, and syncs the file. The caller holds
// mu and the file's lock exclusively, so no one else reads or writes the
// header meanwhile.
func (f *Filter) writeHeader(h format.Header) error {
	var buf [format.HeaderSize]byte
	if err := h.Encode(buf[:]); err != nil {
		return fmt.Errorf("mmapbloom: %s: %w", f.path, err)
	}
	for i := range f.head {
		if i != format.OffCount/8 {
			atomic.StoreUint64(&f.head[i], binary.LittleEndian.Uint64(buf[i*8:]))
		}
	}
	f.hdr.Flags, f.hdr.DataCRC = h.Flags, h.DataCRC
	f.want.Store(f.immutableWords())
	return f.flush()
}

// flush publishes this handle's pending count, writes the mapped pages to
// the file and the file to the disk, and waits (msync with MS_SYNC, then
// fsync). After a flush that failed, it first marks every page of the
// mapping dirty again (redirty): the kernel marks pages whose write-back
// failed clean, so a later msync that succeeds would not write them and
// their adds would be lost to a power cut (PostgreSQL's "fsyncgate",
// 2018). The caller is inside run.
func (f *Filter) flush() error {
	f.publishCount()
	if f.flushFailed.Load() {
		f.redirty()
	}
	if err := f.data.Flush(); err != nil {
		f.flushFailed.Store(true)
		return fmt.Errorf("mmapbloom: msync %s: %w", f.path, err)
	}
	if err := f.file.Sync(); err != nil {
		f.flushFailed.Store(true)
		return fmt.Errorf("mmapbloom: fsync %s: %w", f.path, err)
	}
	f.flushFailed.Store(false)
	return nil
}

// redirty dirties every page of the mapping with a locked OR of 0 into
// its first word: it changes no bit, so it cannot undo an add running in
// this or another process. A read-only handle has nothing it could have
// written.
func (f *Filter) redirty() {
	if f.readOnly {
		return
	}
	step := os.Getpagesize() / 8
	for i := 0; i < len(f.head); i += step {
		atomic.OrUint64(&f.head[i], 0)
	}
	for i := step - len(f.head); i < len(f.words); i += step {
		atomic.OrUint64(&f.words[i], 0)
	}
}
