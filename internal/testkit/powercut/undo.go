//go:build linux && (amd64 || arm64)

package powercut

import (
	"io"
	"os"
)

// undoLog is what a file's changes since its last fsync replaced, oldest
// first, and the file on the disk it restores.
type undoLog struct {
	disk *os.File
	undo []undo
}

// undo is one change's record: the file's size before it, and the bytes
// it replaced from off.
type undo struct {
	size int64
	off  int64
	old  []byte
}

// recordRange records the bytes of [off, off+n) the file holds now.
func (l *undoLog) recordRange(off, n int64) error {
	fi, err := l.disk.Stat()
	if err != nil {
		return err
	}
	u := undo{size: fi.Size(), off: off}
	if end := min(off+n, fi.Size()); end > off {
		u.old = make([]byte, end-off)
		if _, err := l.disk.ReadAt(u.old, off); err != nil && err != io.EOF {
			return err
		}
	}
	l.undo = append(l.undo, u)
	return nil
}

// recordSize records what a change of the size to size replaces.
func (l *undoLog) recordSize(size int64) error {
	fi, err := l.disk.Stat()
	if err != nil {
		return err
	}
	return l.recordRange(size, max(fi.Size()-size, 0))
}

// restore undoes every change, newest first, fsyncs the file and closes it.
func (l *undoLog) restore() error {
	defer l.disk.Close()
	for i := len(l.undo) - 1; i >= 0; i-- {
		u := l.undo[i]
		if len(u.old) > 0 {
			if _, err := l.disk.WriteAt(u.old, u.off); err != nil {
				return err
			}
		}
		if err := l.disk.Truncate(u.size); err != nil {
			return err
		}
	}
	return l.disk.Sync()
}
