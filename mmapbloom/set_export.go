package mmapbloom

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// ExportOptions tunes Set.Export. A nil *ExportOptions means the defaults.
type ExportOptions struct {
	// Seal seals the copy (SealSet) before it appears under its name, so
	// that it is published sealed, ready to ship and verify. Default
	// false: the copy is an ordinary writable set. A copy of a sealed set
	// is sealed either way.
	Seal bool
}

// Export writes a consistent copy of the set, at one generation, to the
// new directory dst (conventionally NAME.bfset), while other handles and
// processes go on adding to the set. It publishes this handle's pending
// counts, takes the set's LOCK shared (waiting while a layer is being
// added or dropped, and holding off any other change until the copy is
// done; exports do not exclude each other), reads the MANIFEST and copies
// every layer it lists into a temporary directory beside dst, with that
// MANIFEST, a CONTROL page of its generation and a LOCK file; it fsyncs
// each file, seals the copy if opts.Seal, then renames the directory to
// dst and fsyncs dst's parent, so that dst appears whole or not at all.
//
// Every key added (by any handle) before Export was called is in the
// copy. A key added while a layer is being copied may or may not be, and
// may be there in part (some of its bits): such a key tests absent in the
// copy, never present wrongly beyond the copy's false-positive rate. The
// header counts in the copy are those published when each layer was
// copied: they may lack up to 255 adds per other handle (see
// Filter.Count). Export reads each layer file once (O(m)) and writes no
// byte of the set itself. A writer that finds the newest layer full (or
// its window over) during the copy waits for it to end before it adds
// the next layer, and the full layer takes the adds meanwhile.
//
// Errors: ErrClosed, ErrExists (dst exists), ErrBadSet, ErrInUse (when
// sealing the copy, should another process open it meanwhile), those of
// reading the layers and of writing and syncing the copy; on error no
// dst is created and the temporary directory is removed.
func (s *Set) Export(dst string, opts *ExportOptions) error {
	var o ExportOptions
	if opts != nil {
		o = *opts
	}
	return s.do(func(v *setView) error {
		for _, f := range v.layers {
			if _, err := f.Count(); err != nil { // publishes this handle's pending adds
				return err
			}
		}
		return buildDir("export set", filepath.Clean(dst), func(tmp string) error {
			sealed, err := copySet(s.dir, tmp)
			if err != nil || !o.Seal || sealed {
				return err
			}
			return SealSet(tmp)
		})
	})
}

// copySet copies the set in dir into the empty directory tmp under a
// shared LOCK: its MANIFEST's layer files, the MANIFEST, a CONTROL page
// of the MANIFEST's generation and LOCK, each synced. It reports whether
// the MANIFEST says the set is sealed.
func copySet(dir, tmp string) (sealed bool, err error) {
	m, unlock, err := lockedManifest(dir, shareSet)
	if err != nil {
		return false, err
	}
	defer unlock()
	for _, l := range m.Layers {
		if err := copySynced(filepath.Join(dir, l.File), filepath.Join(tmp, l.File)); err != nil {
			return false, fmt.Errorf("mmapbloom: export set %s: layer %s: %w", dir, l.File, err)
		}
	}
	if err := manifest.WriteControl(tmp, m.Generation); err != nil {
		return false, err
	}
	if err := mapping.WriteSynced(filepath.Join(tmp, lockName), nil); err != nil {
		return false, err
	}
	return m.Sealed, manifest.Write(tmp, m)
}

// copySynced copies the file src to the new file dst and fsyncs dst. On
// Linux io.Copy uses copy_file_range, which reads through the page cache
// (or shares the blocks after writing the dirty pages back), so it sees
// every bit set through a mapping before it was called.
func copySynced(src, dst string) error {
	in, err := mapping.OpenFile(src, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}
