// Package errs holds the sentinel error values of package mmapbloom, so
// that its internal packages return the very values mmapbloom exports
// (mmapbloom/errors.go says when each is returned; errors.Is matches
// them whichever package wrapped them).
package errs

import "errors"

// The sentinels, re-exported under the same names by mmapbloom.
var (
	ErrInvalidP      = errors.New("p must be a finite number in (0, 1)")
	ErrInvalidN      = errors.New("n must be at least 1")
	ErrInvalidK      = errors.New("k out of range")
	ErrInvalidM      = errors.New("m out of range")
	ErrTooLarge      = errors.New("filter too large")
	ErrBadOptions    = errors.New("incompatible options")
	ErrExists        = errors.New("file exists")
	ErrInUse         = errors.New("filter file in use by another process")
	ErrReadOnly      = errors.New("filter opened read-only")
	ErrSealed        = errors.New("filter is sealed")
	ErrClosed        = errors.New("filter is closed")
	ErrMismatch      = errors.New("filters cannot be merged")
	ErrFileChanged   = errors.New("filter file changed while mapped")
	ErrDataChecksum  = errors.New("bit array does not match its sealed checksum")
	ErrNoSpace       = errors.New("no space left for the filter's blocks")
	ErrNotSealed     = errors.New("filter is not sealed")
	ErrBadSet        = errors.New("not a valid filter set")
	ErrOptionDiffers = errors.New("option differs from the existing filter")
)
