package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// The MANIFEST of a filter set (format/FORMAT.md, "Filter sets") is a JSON
// object that is never changed in place: a change writes MANIFEST.tmp.<pid>,
// syncs it, renames it over MANIFEST and syncs the directory, so a reader
// finds the old manifest or the new one, whole.

// The MANIFEST's file name, the version this code writes and reads, and
// the two kinds of set.
const (
	Name         = "MANIFEST"
	Version      = 1
	KindScalable = "scalable" // layers added as the newest fills
	KindWindowed = "windowed" // one layer (or more) per time window
)

// Manifest is the decoded MANIFEST.
type Manifest struct {
	Version    int           `json:"version"`    // Version
	Generation uint64        `json:"generation"` // bumped by every change; CONTROL follows it
	Kind       string        `json:"kind"`       // KindScalable or KindWindowed
	N          uint64        `json:"n"`          // first layer's capacity (scalable), each window's (windowed)
	P          float64       `json:"p"`          // the set's target false-positive probability
	Layout     format.Layout `json:"layout"`     // layout of new layers; 0: Create's default
	Seed       uint64        `json:"seed"`       // hash seed of every layer (one xxh3 hash per key serves all blocked layers)
	Expansion  uint32        `json:"expansion,omitempty"`
	Tightening float64       `json:"tightening,omitempty"`
	WindowNS   int64         `json:"window_ns,omitempty"` // window length D
	Keep       int           `json:"keep,omitempty"`      // windows kept W
	T0         int64         `json:"t0_unix_ns,omitempty"`
	Refresh    bool          `json:"refresh,omitempty"`
	Sealed     bool          `json:"sealed,omitempty"` // every layer sealed (SealSet): the set opens read-only
	Next       uint64        `json:"next"`             // number of the next layer file
	Layers     []Layer       `json:"layers"`           // oldest first; the last takes the adds
}

// Layer is one layer of a manifest.
type Layer struct {
	File   string  `json:"file"` // name in the set directory
	N      uint64  `json:"n"`
	P      float64 `json:"p"`
	Window int64   `json:"window,omitempty"` // windowed: index of the window it holds
}

// Windowed reports whether m is a time-windowed set.
func (m *Manifest) Windowed() bool { return m.Kind == KindWindowed }

// Grows reports whether m adds layers when its newest is full: a
// scalable set, or a windowed set with an expansion (its windows grow).
func (m *Manifest) Grows() bool { return !m.Windowed() || m.Expansion > 0 }

// Window returns the length of a window.
func (m *Manifest) Window() time.Duration { return time.Duration(m.WindowNS) }

// WindowAt returns the index of the window holding t: windows i covers
// [t0 + i D, t0 + (i+1) D).
func (m *Manifest) WindowAt(t time.Time) int64 {
	d := t.UnixNano() - m.T0
	i := d / m.WindowNS
	if d < 0 && d%m.WindowNS != 0 {
		i--
	}
	return i
}

// WindowEnd returns the time window i ends.
func (m *Manifest) WindowEnd(i int64) time.Time {
	return time.Unix(0, m.T0+(i+1)*m.WindowNS)
}

// LayerName returns the file name of layer number i.
func LayerName(i uint64) string { return fmt.Sprintf("L%06d.bloom", i) }

// Lists reports whether name is one of m's layer files.
func (m *Manifest) Lists(name string) bool {
	for _, l := range m.Layers {
		if l.File == name {
			return true
		}
	}
	return false
}

// Check validates a decoded manifest: errs.ErrBadSet, with what is wrong.
func (m *Manifest) Check() error {
	switch {
	case m.Version != Version:
		return fmt.Errorf("manifest version %d (want %d): %w", m.Version, Version, errs.ErrBadSet)
	case m.Kind != KindScalable && m.Kind != KindWindowed:
		return fmt.Errorf("manifest kind %q: %w", m.Kind, errs.ErrBadSet)
	case len(m.Layers) == 0:
		return fmt.Errorf("manifest lists no layer: %w", errs.ErrBadSet)
	case m.Windowed() && (m.WindowNS <= 0 || m.Keep < 1):
		return fmt.Errorf("manifest window %d ns, keep %d: %w", m.WindowNS, m.Keep, errs.ErrBadSet)
	case m.Grows() && (m.Expansion < 1 || !(m.Tightening > 0 && m.Tightening < 1)):
		return fmt.Errorf("manifest expansion %d, tightening %g: %w", m.Expansion, m.Tightening, errs.ErrBadSet)
	}
	return m.checkLayers()
}

// checkLayers validates m's layer list: plain file names, each listed
// once and numbered below Next (the next layer is created at
// LayerName(Next), removing any file there as a crash's orphan: a listed
// layer at or after Next would be unlinked with its keys), and for a
// windowed set windows in order (rotation appends them so; a window out
// of order would keep an expired window's keys answering present).
func (m *Manifest) checkLayers() error {
	listed := make(map[string]bool, len(m.Layers))
	for i, l := range m.Layers {
		var bad string
		var num uint64
		switch {
		case l.File != filepath.Base(l.File) || l.File == "." || l.File == "..":
			bad = fmt.Sprintf("layer file %q", l.File)
		case listed[l.File]:
			bad = fmt.Sprintf("layer file %s listed twice", l.File)
		case layerNumber(l.File, &num) && num >= m.Next:
			bad = fmt.Sprintf("layer file %s at or after next %d", l.File, m.Next)
		case m.Windowed() && i > 0 && l.Window < m.Layers[i-1].Window:
			bad = fmt.Sprintf("layer file %s of window %d after window %d", l.File, l.Window, m.Layers[i-1].Window)
		}
		if bad != "" {
			return fmt.Errorf("manifest %s: %w", bad, errs.ErrBadSet)
		}
		listed[l.File] = true
	}
	return nil
}

// layerNumber sets *num to the number of a layer file named as
// LayerName names them, and reports whether name is one.
func layerNumber(name string, num *uint64) bool {
	_, err := fmt.Sscanf(name, "L%d.bloom", num)
	return err == nil
}

// Read reads and validates dir's MANIFEST. Errors: errs.ErrBadSet (no
// directory, no MANIFEST, and those of Decode), the os error.
func Read(dir string) (*Manifest, error) {
	b, err := readIn(dir)
	if err != nil {
		return nil, err
	}
	m, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: %s: %w", dir, err)
	}
	return m, nil
}

// Decode decodes and validates the bytes of a MANIFEST. Errors:
// errs.ErrBadSet (bad JSON, wrapped with the JSON error; a manifest
// Check refuses).
func Decode(b []byte) (*Manifest, error) {
	m := new(Manifest)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %w (%w)", Name, errs.ErrBadSet, err)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// readIn reads dir's MANIFEST through a handle on the directory itself,
// so that the error tells which is missing even while a set appears: a
// directory renamed into place between a read by path and a stat of dir
// was taken for a set without a MANIFEST (racing OpenOrCreateSet calls).
func readIn(dir string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("mmapbloom: %s: a file, not a filter set directory: %w", dir, errs.ErrBadSet)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("mmapbloom: %s: %w: %w", dir, errs.ErrBadSet, err)
		}
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	defer root.Close()
	b, err := root.ReadFile(Name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("mmapbloom: %s: no %s: %w", dir, Name, errs.ErrBadSet)
	case err != nil:
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	return b, nil
}

// Encode returns the bytes of m's MANIFEST: indented JSON and a final
// newline. The error is json's (a float field not finite).
func Encode(m *Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: encode manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// Write replaces dir's MANIFEST with m atomically and durably:
// write a temporary file, fsync it, rename it over MANIFEST, fsync dir.
func Write(dir string, m *Manifest) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, Name+".tmp."+strconv.Itoa(os.Getpid()))
	if err := mapping.WriteSynced(tmp, b); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, Name)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("mmapbloom: %w", err)
	}
	return mapping.SyncDir(dir)
}
