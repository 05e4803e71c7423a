package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"

	"github.com/edsrzf/mmap-go"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// The CONTROL file of a filter set is one 4096-byte page that every handle
// maps shared (format/FORMAT.md, "Filter sets"):
//
//	offset 0   4 bytes  magic "BLS\x01"
//	offset 4   u32      control version (1), little-endian
//	offset 8   u64      generation, little-endian, read and written atomically
//	offset 16  4080     reserved, zero
//
// Every call on a set loads the generation once and reloads the MANIFEST
// when it differs from the one its view was built from.

// ControlName and ControlSize are the CONTROL file's name and size.
const (
	ControlName    = "CONTROL"
	ControlSize    = 4096
	controlMagic   = "BLS\x01"
	controlVersion = 1
)

// Control is a handle's mapping of CONTROL.
type Control struct {
	file *os.File
	data mmap.MMap
	gen  *uint64
}

// WriteControl creates dir's CONTROL page holding generation gen.
func WriteControl(dir string, gen uint64) error {
	var page [ControlSize]byte
	copy(page[:], controlMagic)
	binary.LittleEndian.PutUint32(page[4:], controlVersion)
	binary.LittleEndian.PutUint64(page[8:], gen)
	return mapping.WriteSynced(filepath.Join(dir, ControlName), page[:])
}

// OpenControl maps dir's CONTROL page. Errors: errs.ErrBadSet (missing,
// of the wrong size, magic or version), the os error.
func OpenControl(dir string, readOnly bool) (*Control, error) {
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	file, err := mapping.OpenFile(filepath.Join(dir, ControlName), flag, 0)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: %s: %w (%w)", dir, errs.ErrBadSet, err)
	}
	c, err := mapControl(file, readOnly)
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	return c, nil
}

// mapControl checks the size and magic of CONTROL and maps it.
func mapControl(file *os.File, readOnly bool) (*Control, error) {
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	if st.Size() != ControlSize {
		return nil, fmt.Errorf("mmapbloom: %s: %d bytes: %w", file.Name(), st.Size(), errs.ErrBadSet)
	}
	data, err := mapping.Map(file, ControlSize, readOnly, false)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(data[:4], []byte(controlMagic)) || binary.LittleEndian.Uint32(data[4:]) != controlVersion {
		_ = data.Unmap()
		return nil, fmt.Errorf("mmapbloom: %s: bad magic or version: %w", file.Name(), errs.ErrBadSet)
	}
	words, err := mapping.Words(data)
	if err != nil {
		_ = data.Unmap()
		return nil, err
	}
	return &Control{file: file, data: data, gen: &words[1]}, nil
}

// Generation returns the current generation: one atomic load.
func (c *Control) Generation() uint64 { return atomic.LoadUint64(c.gen) }

// Raise sets the generation to g unless it is already at least g, so that
// a repair racing a change never moves it back.
func (c *Control) Raise(g uint64) {
	for {
		old := atomic.LoadUint64(c.gen)
		if old >= g || atomic.CompareAndSwapUint64(c.gen, old, g) {
			return
		}
	}
}

// Guard runs op, which loads or raises the generation, so that a fault
// on the page (CONTROL truncated under the mapping, which would otherwise
// kill the process with SIGBUS) returns errs.ErrFileChanged. Faults elsewhere
// and other panics go on.
func (c *Control) Guard(op func() error) (err error) {
	defer c.RecoverFault(debug.SetPanicOnFault(true), &err)
	return op()
}

// RecoverFault restores the goroutine's panic-on-fault setting and turns
// a fault on c's page into errs.ErrFileChanged.
func (c *Control) RecoverFault(restore bool, err *error) {
	debug.SetPanicOnFault(restore)
	r := recover()
	if r == nil {
		return
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok || !mapping.Contains(c.data, fault.Addr()) {
		panic(r)
	}
	*err = fmt.Errorf("mmapbloom: %s: fault at %#x (file truncated or shrunk?): %w", c.file.Name(), fault.Addr(), errs.ErrFileChanged)
}

// Close unmaps and closes CONTROL.
func (c *Control) Close() error {
	return errors.Join(c.data.Unmap(), c.file.Close())
}
