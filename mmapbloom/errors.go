package mmapbloom

import "github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"

// Errors returned by the mmapbloom package. Each is wrapped with context
// (the path, the offending value) using %w; test for them with errors.Is.
// Header validation errors come from package format (format.ErrBadMagic,
// format.ErrChecksum, format.ErrTruncated, ...) and are wrapped the same way.
var (
	// ErrInvalidP is returned when the false-positive probability p is not
	// a finite number in the open interval (0, 1).
	ErrInvalidP = errs.ErrInvalidP

	// ErrInvalidN is returned when the capacity n is 0.
	ErrInvalidN = errs.ErrInvalidN

	// ErrInvalidK is returned when the number of hash functions k is 0 or
	// above format.MaxK (a p too small for the capacity asks for that).
	ErrInvalidK = errs.ErrInvalidK

	// ErrInvalidM is returned when the number of bits m is 0 or does not
	// suit the format or layout (v1.1 needs a multiple of 64 below 2^32,
	// the blocked layout a multiple of 512).
	ErrInvalidM = errs.ErrInvalidM

	// ErrTooLarge is returned when a filter does not fit the chosen format
	// or this platform's address space.
	ErrTooLarge = errs.ErrTooLarge

	// ErrBadOptions is returned for a combination of options that cannot
	// work together (a hash scheme the format or layout does not have).
	ErrBadOptions = errs.ErrBadOptions

	// ErrExists is returned by Create when the path exists and
	// CreateOptions.Overwrite is false.
	ErrExists = errs.ErrExists

	// ErrInUse is returned when an operation that needs every other user
	// out (Clear, Merge into a filter, Create with Overwrite, Seal,
	// SealSet, UnsealSet) finds the file (a layer) open elsewhere, or when
	// Open finds such an operation running.
	ErrInUse = errs.ErrInUse

	// ErrReadOnly is returned by writing calls on a filter opened read-only.
	ErrReadOnly = errs.ErrReadOnly

	// ErrSealed is returned by writing calls on a sealed filter, or on a
	// sealed set (wrapped with the set's directory); Unseal and UnsealSet
	// make them writable again.
	ErrSealed = errs.ErrSealed

	// ErrClosed is returned by calls on a closed filter.
	ErrClosed = errs.ErrClosed

	// ErrMismatch is returned by Merge when the two filters differ in m, k,
	// layout, hash scheme or seed; the wrapping message names the field.
	ErrMismatch = errs.ErrMismatch

	// ErrFileChanged is returned when the file under a mapping was
	// truncated, shrunk or rewritten by someone else while mapped. The
	// Filter stays unusable; close it and open the file again.
	ErrFileChanged = errs.ErrFileChanged

	// ErrDataChecksum is returned by Verify when the bit array of a sealed
	// filter does not match the checksum recorded by Seal.
	ErrDataChecksum = errs.ErrDataChecksum

	// ErrNoSpace is returned when the file system has no room for a
	// filter's blocks: by Create, by Open for writing of a file with holes
	// (copied sparse), and by an add whose page fault found no space (a
	// file whose blocks were freed behind the library's back). It wraps
	// the os error (ENOSPC, EDQUOT) where there is one.
	ErrNoSpace = errs.ErrNoSpace

	// ErrNotSealed is returned by Verify on a filter that was never
	// sealed, and by VerifySet on a set (or a layer) that is not.
	ErrNotSealed = errs.ErrNotSealed

	// ErrBadSet is returned by OpenSet for a directory that is not a
	// valid filter set (MANIFEST or CONTROL missing, unreadable or of an
	// unknown version), by CreateSet for set options that cannot work
	// (Tightening outside (0, 1), Keep below 1 with a Window), and by
	// VerifySet for a layer that is not as the MANIFEST describes it.
	ErrBadSet = errs.ErrBadSet

	// ErrOptionDiffers is returned by OpenOrCreate and OpenOrCreateSet
	// when the file or set exists and an option given explicitly (not
	// zero) differs from its header or MANIFEST; the message names both
	// values.
	ErrOptionDiffers = errs.ErrOptionDiffers
)
