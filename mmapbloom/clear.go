package mmapbloom

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Clear sets every bit to 0 and the count to 0 (the reset of the
// v1.1 reference code and of the usual C filters). It is not monotone,
// so it needs every other handle on the file closed: it fails at once with
// ErrInUse otherwise, and never runs beside another process's adds.
// Errors: ErrInUse, ErrReadOnly, ErrSealed, ErrClosed, ErrFileChanged.
func (f *Filter) Clear() error {
	return f.exclusive("clear", func() error {
		clear(f.words)
		f.storeCount(0)
		return nil
	})
}

// exclusive runs op with the in-process lock held exclusively and the
// file's advisory lock converted to exclusive, then converts it back.
func (f *Filter) exclusive(what string, op func() error) error {
	return f.run(true, true, func() error { return f.alone(what, op) })
}

// alone runs op with the file's advisory lock converted to exclusive (see
// internal/mapping/lock.go), then converts it back. On ErrInUse the handle keeps its shared
// lock. The caller holds mu exclusively.
func (f *Filter) alone(what string, op func() error) error {
	if err := mapping.Upgrade(f.file); err != nil {
		return wrapf(err, "%s", what)
	}
	defer func() { _ = mapping.Downgrade(f.file) }()
	return op()
}
