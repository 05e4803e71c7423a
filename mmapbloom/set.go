package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Set is a filter set: a directory NAME.bfset/ holding one ordinary v2
// filter file per layer, a MANIFEST listing them and a CONTROL page whose
// generation number tells every handle when the MANIFEST changed (see
// format/FORMAT.md, "Filter sets"). A set is either scalable (it adds a
// larger layer when the newest one is full; Almeida et al. 2007) or
// windowed (one layer per time window, the oldest dropped when a window
// ends). Keys are added to the newest layer only; a key tests present when
// any live layer holds it.
//
// A Set is safe for concurrent use by many goroutines, and many processes
// may open the same set at once. Every call loads the CONTROL generation
// once (one atomic load) and, when it changed, re-reads the MANIFEST and
// opens the new layers before it runs; a layer is added or dropped by the
// first handle that sees it is due, under an exclusive lock on the set's
// LOCK file; other writers that see it due meanwhile wait for that lock,
// and every handle uses the change from its next call. A handle
// that still maps a layer another process dropped (and unlinked) keeps
// answering from it until that next call.
type Set struct {
	// rw is held shared by every call and exclusively by Close, so that
	// no call reads CONTROL or a layer after Close unmapped them.
	rw       sync.RWMutex
	dir      string
	ctl      *manifest.Control
	opts     OpenOptions
	now      func() time.Time
	closed   atomic.Bool
	mu       sync.Mutex // serialises reloads
	view     atomic.Pointer[setView]
	readOnly bool
}

// SetOptions tunes CreateSet. A nil *SetOptions means a scalable set with
// RedisBloom's defaults.
type SetOptions struct {
	// Expansion is the growth factor s of a scalable set: each new layer
	// holds s times the keys of the previous one. Default 2 (RedisBloom);
	// bloomd uses 4; 1 adds layers of equal size (least memory, most
	// layers). On a windowed set it makes each window grow the same way
	// (see Window); default 0 there: windows do not grow.
	Expansion uint32

	// Tightening is the error tightening ratio r of a scalable set, in
	// (0, 1): layer i is sized at p (1-r) r^i, so the set's false-positive
	// rate stays below p (see set_sizing.go). Default 0.5 (RedisBloom:
	// p/2, p/4, ...); bloomd uses 0.9 (more bits in the first layers,
	// fewer later). On a windowed set with an Expansion it tightens each
	// window's layers the same way; without one it must be 0.
	Tightening float64

	// Window, when positive, makes a windowed set: time is cut into
	// windows of this length from the creation time, each window's keys go
	// to its own layer of n keys at p/Keep, and a key is forgotten between
	// (Keep-1) Window and Keep Window after it was last added. Without
	// an Expansion windows do not grow: a window that receives more than n
	// new keys answers above p/Keep (OverCapacity reports it). With one,
	// a window grows like a scalable set of n keys at p/Keep: its layer j
	// holds n s^j keys at (p/Keep)(1-r) r^j, so a burst of keys costs
	// more layers, not a higher false-positive rate, for about 1.44 more
	// bits per key in the first layer (p/Keep halved at r = 0.5).
	// Default 0: a scalable set.
	Window time.Duration

	// Keep is the number of windows W a windowed set keeps, at least 1
	// (ErrBadSet otherwise). Default 0 means 2 with a Window.
	Keep int

	// Refresh makes TestAndAdd of a windowed set add a key that it finds
	// only in an older window to the current one, so that keys are
	// forgotten after their last sighting ("last seen"). Default false:
	// a hit is not re-added, so a key is forgotten after it was first added
	// in the kept windows ("crawled within the window, then recrawl").
	// Add always adds to the current window.
	Refresh bool

	// Layout is the bit layout of the layers (format.LayoutBlocked512 or
	// format.LayoutClassic). Default 0: Create's default for each layer's
	// n and p. An explicit blocked layout gives way to Create's default
	// for layers below MinBlockedP, where blocked is refused.
	Layout format.Layout

	// Now is the clock deciding the windows of a windowed set, here and in
	// the returned Set (OpenSet takes OpenOptions.Now). Default nil:
	// time.Now.
	Now func() time.Time

	// BeforeLayer is OpenOptions.BeforeLayer for the first layer and for
	// the handle CreateSet returns. Default nil: no check.
	BeforeLayer func(layers int, size uint64) error
}

// setView is what a handle knows of the set at one generation: the
// manifest and its open layers. It never changes once published.
type setView struct {
	gen    uint64
	m      *manifest.Manifest
	layers []*Filter // as m.Layers: oldest first, the last takes the adds
	// activeEnd is the end of the newest layer's window (windowed sets).
	activeEnd time.Time
	// adds counts this handle's new adds to the newest layer since its
	// last count check (set_grow.go).
	adds atomic.Uint64
	// isFull records that the newest layer's count reached its capacity
	// when the view was built or at a count check (set_grow.go).
	isFull atomic.Bool
}

// active returns the layer that takes the adds.
func (v *setView) active() *Filter { return v.layers[len(v.layers)-1] }

// live returns the layers that answer at time now, oldest first: all
// of a scalable set's; a windowed set's whose window is among the Keep
// last at now, even before a rotation dropped the older ones (none when
// no one wrote for Keep windows).
func (v *setView) live(now func() time.Time) []*Filter {
	if !v.m.Windowed() {
		return v.layers
	}
	oldest := v.m.WindowAt(now()) - int64(v.m.Keep) + 1
	i := 0
	for i < len(v.layers) && v.m.Layers[i].Window < oldest {
		i++
	}
	return v.layers[i:]
}

// split returns the live layers older than the newest, and the newest,
// which takes the adds (writers have rotated first, so it is live unless
// the clock went back or another handle holds LOCK).
func (v *setView) split(now func() time.Time) (older []*Filter, active *Filter) {
	live, active := v.live(now), v.active()
	if len(live) > 0 && live[len(live)-1] == active {
		live = live[:len(live)-1]
	}
	return live, active
}

// CreateSet makes a new filter set in the directory dir (conventionally
// named NAME.bfset) and opens it read-write. A scalable set (opts.Window
// 0) starts with one layer of n keys at p (1-r); a windowed set starts
// with the layer of the current window, sized for n keys (the keys
// expected per window) at p/W. The directory is built under a temporary
// name beside dir and renamed into place, so it appears whole or not at
// all. Errors: ErrExists, ErrBadSet (bad options), those of Create.
func CreateSet(dir string, n uint64, p float64, opts *SetOptions) (*Set, error) {
	var o SetOptions
	if opts != nil {
		o = *opts
	}
	dir = filepath.Clean(dir)
	m, err := newManifest(n, p, o)
	if err != nil {
		return nil, wrapf(err, "create set %s", dir)
	}
	if err := buildDir("create set", dir, func(tmp string) error { return buildSet(tmp, m, o.BeforeLayer) }); err != nil {
		return nil, err
	}
	return OpenSet(dir, &OpenOptions{Now: o.Now, BeforeLayer: o.BeforeLayer})
}

// buildDir makes the set directory dir, which must not exist: build
// fills a new temporary directory beside it (.NAME.tmp*), which is then
// renamed to dir, so that dir appears whole or not at all; on failure the
// temporary directory is removed (a process killed meanwhile leaves it:
// remove it by hand). what names the operation in errors.
func buildDir(what, dir string, build func(tmp string) error) error {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("mmapbloom: %s %s: %w", what, dir, ErrExists)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp*")
	if err == nil {
		err = os.Chmod(tmp, setDirMode)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("mmapbloom: %s: %w", what, err)
	}
	if err := build(tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	if err := publishDir(what, tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return nil
}

// setDirMode is the mode of a set directory, readable by all as its
// layer files are (MkdirTemp makes 0700).
const setDirMode = 0o755

// newManifest validates the options of CreateSet and returns the
// manifest of the new set, without layers.
func newManifest(n uint64, p float64, o SetOptions) (*manifest.Manifest, error) {
	if n == 0 {
		return nil, ErrInvalidN
	}
	if !(p > 0 && p < 1) {
		return nil, fmt.Errorf("mmapbloom: p = %g: %w", p, ErrInvalidP)
	}
	seed, err := CreateOptions{}.seed()
	if err != nil {
		return nil, err
	}
	m := &manifest.Manifest{Version: manifest.Version, Generation: 1, N: n, P: p, Layout: o.Layout, Seed: seed}
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Window == 0 {
		m.Kind, m.Expansion, m.Tightening = manifest.KindScalable, o.Expansion, o.Tightening
		if m.Expansion == 0 {
			m.Expansion = 2
		}
		if m.Tightening == 0 {
			m.Tightening = 0.5
		}
		return m, checkNew(m)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	m.Kind, m.WindowNS, m.Keep, m.Refresh, m.T0 = manifest.KindWindowed, int64(o.Window), o.Keep, o.Refresh, now().UnixNano()
	if m.Keep == 0 {
		m.Keep = 2
	}
	if m.Expansion = o.Expansion; m.Expansion > 0 {
		if m.Tightening = o.Tightening; m.Tightening == 0 {
			m.Tightening = 0.5
		}
	}
	return m, checkNew(m)
}

// checkNew checks the options of a new manifest (checkOptions) and that
// its first layer can be sized (a p so small that the layer would need
// more than format.MaxK hash functions is refused here, before any file
// is made).
func checkNew(m *manifest.Manifest) error {
	if err := checkOptions(m); err != nil {
		return err
	}
	n, p, err := nextLayer(m, 0)
	if err != nil {
		return err
	}
	o, target := withDefaults(layerOptions(m, p), n, p)
	if _, _, err := o.size(n, target); err != nil {
		return fmt.Errorf("first layer: sizing for n = %d, p = %g: %w", n, p, err)
	}
	return nil
}

// Limits of SetOptions (ErrBadSet beyond them).
const (
	// MinWindow is the shortest window a windowed set may have.
	MinWindow = time.Second
	// MaxExpansion is the largest Expansion, RedisBloom's bound on
	// BF.RESERVE's EXPANSION.
	MaxExpansion = 32768
	// MaxKeep is the most windows a windowed set keeps (a layer file
	// each, at least).
	MaxKeep = 1024
)

// MaxWindow returns the longest Window of a set that keeps keep windows
// (0: the default, 2): Window times Keep must fit a time.Duration (about
// 292 years), so 146 years for 2 windows, 104 days for 1024.
func MaxWindow(keep int) time.Duration {
	return time.Duration(math.MaxInt64) / time.Duration(max(keep, 2))
}

// check refuses options that mix the two kinds of set or are out of
// range: a negative or sub-second window, a window times Keep beyond
// time.Duration, a Keep above MaxKeep, an Expansion above MaxExpansion, a
// tightening without expansion on a windowed set, window options on a
// scalable one, a negative Keep, a tightening
// outside [0, 1) (0 means the default).
func (o SetOptions) check() error {
	var bad string
	switch {
	case o.Window < 0 || (o.Window > 0 && o.Window < MinWindow):
		bad = fmt.Sprintf("window %v: at least %v", o.Window, MinWindow)
	case o.Keep > MaxKeep:
		bad = fmt.Sprintf("keep %d windows: at most %d", o.Keep, MaxKeep)
	case o.Window > MaxWindow(o.Keep):
		bad = fmt.Sprintf("window %v times keep %d: beyond %v", o.Window, max(o.Keep, 2), time.Duration(math.MaxInt64))
	case o.Expansion > MaxExpansion:
		bad = fmt.Sprintf("expansion %d: at most %d", o.Expansion, MaxExpansion)
	case o.Window > 0 && o.Expansion == 0 && o.Tightening != 0:
		bad = "tightening of a windowed set needs an expansion (windows that grow)"
	case o.Window == 0 && (o.Keep != 0 || o.Refresh):
		bad = "keep and refresh are for windowed sets: give a window"
	case o.Keep < 0:
		bad = fmt.Sprintf("keep %d windows", o.Keep)
	case o.Tightening < 0 || o.Tightening >= 1:
		bad = fmt.Sprintf("tightening %g not in (0, 1)", o.Tightening)
	default:
		return nil
	}
	return fmt.Errorf("mmapbloom: %s: %w", bad, ErrBadSet)
}

// checkOptions validates the set-wide fields of a new manifest.
func checkOptions(m *manifest.Manifest) error {
	if m.Windowed() && m.Keep < 1 {
		return fmt.Errorf("mmapbloom: keep %d windows: %w", m.Keep, ErrBadSet)
	}
	if m.Grows() && !(m.Tightening > 0 && m.Tightening < 1) {
		return fmt.Errorf("mmapbloom: tightening %g not in (0, 1): %w", m.Tightening, ErrBadSet)
	}
	return nil
}

// buildSet writes the first layer, the MANIFEST, CONTROL and LOCK of a
// new set into the empty directory dir; before checks the first layer
// (OpenOptions.BeforeLayer).
func buildSet(dir string, m *manifest.Manifest, before func(int, uint64) error) error {
	var window int64
	if m.Windowed() {
		window = m.WindowAt(time.Unix(0, m.T0))
	}
	if err := addLayer(dir, m, window, before); err != nil {
		return err
	}
	if err := manifest.Write(dir, m); err != nil {
		return err
	}
	if err := manifest.WriteControl(dir, m.Generation); err != nil {
		return err
	}
	return mapping.WriteSynced(filepath.Join(dir, lockName), nil)
}

// publishDir renames the finished directory tmp to dir, refusing to
// replace anything, and syncs the parent directory. what names the
// operation in errors.
func publishDir(what, tmp, dir string) error {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("mmapbloom: %s %s: %w", what, dir, ErrExists)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if errors.Is(err, fs.ErrExist) || strings.Contains(err.Error(), "not empty") {
			return fmt.Errorf("mmapbloom: %s %s: %w", what, dir, ErrExists)
		}
		return fmt.Errorf("mmapbloom: %s: %w", what, err)
	}
	return mapping.SyncDir(filepath.Dir(dir))
}

// OpenSet opens the filter set in dir: it maps CONTROL, reads MANIFEST
// and opens every layer with opts (ReadOnly, ExactCount; Now is the
// clock of a windowed set). A sealed set (SealSet) is opened read-only
// whatever opts say, and its writing calls fail with ErrSealed. A
// read-write open repairs a set whose last change crashed after renaming
// the MANIFEST but before raising the generation. Errors: ErrBadSet (no
// MANIFEST or CONTROL, or a bad one), those of Open for a layer.
func OpenSet(dir string, opts *OpenOptions) (*Set, error) {
	var o OpenOptions
	if opts != nil {
		o = *opts
	}
	s := &Set{dir: filepath.Clean(dir), now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	m, err := manifest.Read(s.dir)
	if err != nil {
		return nil, err
	}
	o.ReadOnly = o.ReadOnly || m.Sealed
	s.opts, s.readOnly = o, o.ReadOnly
	ctl, err := manifest.OpenControl(s.dir, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	s.ctl = ctl
	err = ctl.Guard(func() error {
		if !o.ReadOnly {
			ctl.Raise(m.Generation)
		}
		_, err := s.reload()
		return err
	})
	if err != nil {
		_ = ctl.Close()
		return nil, err
	}
	return s, nil
}

// Dir returns the set's directory.
func (s *Set) Dir() string { return s.dir }

// Close closes every layer and unmaps CONTROL. Adds reach the disk in
// the kernel's time; call Sync first to make them durable. Calls after
// Close return ErrClosed; Close itself may be called again.
func (s *Set) Close() error {
	s.rw.Lock()
	defer s.rw.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	var errs []error
	for _, f := range s.view.Load().layers {
		errs = append(errs, f.Close())
	}
	return errors.Join(append(errs, s.ctl.Close())...)
}

// Sync writes every live layer's bits and header to the disk and waits
// for it (see Filter.Sync). Errors: ErrClosed, those of Filter.Sync.
func (s *Set) Sync() error {
	return s.do(func(v *setView) error {
		for _, f := range v.live(s.now) {
			if err := f.Sync(); err != nil {
				return err
			}
		}
		return nil
	})
}
