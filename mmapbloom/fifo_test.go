package mmapbloom

import (
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestFIFONeverBlocks gives the library a FIFO with no writer where a
// filter file is expected. Opening a FIFO for reading waits for a writer
// (for ever, here): every call must instead return at once, Open with an
// error wrapping fs.ErrInvalid ("not a regular file"), Create with
// Overwrite by replacing it, Remove and Rename by acting on it. A call
// still running after a minute is reported as hung.
func TestFIFONeverBlocks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		call    func(path string) error
		invalid bool // the error wraps fs.ErrInvalid; else no error
	}{
		{"Open read-only", func(path string) error { return openClose(path, &OpenOptions{ReadOnly: true}) }, true},
		{"Open read-write", func(path string) error { return openClose(path, nil) }, true},
		{"Create over it", func(path string) error {
			f, err := Create(path, 100, 0.01, &CreateOptions{Overwrite: true})
			if err == nil {
				err = f.Close()
			}
			return err
		}, false},
		{"Remove", Remove, false},
		{"Rename", func(path string) error { return Rename(path, path+".renamed") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fifo.bloom")
			require.NoError(t, unix.Mkfifo(path, 0o644))
			done := make(chan error, 1)
			go func() { done <- tc.call(path) }()
			select {
			case err := <-done:
				if tc.invalid {
					require.ErrorIs(t, err, fs.ErrInvalid)
					require.ErrorContains(t, err, "not a regular file")
				} else {
					require.NoError(t, err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s of a FIFO with no writer hung (a minute)", tc.name)
			}
		})
	}
}

// openClose opens the filter at path with opts and closes it.
func openClose(path string, opts *OpenOptions) error {
	f, err := Open(path, opts)
	if err != nil {
		return err
	}
	return f.Close()
}
