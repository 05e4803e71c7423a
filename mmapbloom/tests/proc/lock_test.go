//go:build linux

package proc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filecheck"
	"github.com/mmapbloom/mmapbloom/internal/testkit/filtertest"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

func init() {
	testkit.Role("hold", roleHold)
	testkit.Role("exclusive", roleExclusive)
	testkit.Role("contend", roleContend)
}

// lockKeys is the number of keys the lock tests add (writer 0's sequence).
const lockKeys = 2000

// roleHold opens the filter (read-only if asked), reports "ready", and
// answers each "check" with whether keys [0, Keys) of writer 0 all test
// present, until the parent closes stdin.
func roleHold(t *testing.T, h *testkit.Helper) {
	f, err := mmapbloom.Open(h.Args.Path, &mmapbloom.OpenOptions{ReadOnly: h.Args.ReadOnly})
	require.NoError(t, err)
	defer f.Close()
	h.Send(t, "ready")
	for {
		cmd, ok := h.Command()
		if !ok {
			return
		}
		require.Equal(t, "check", cmd)
		testkit.RequireAllPresent(t, f, 0, 0, h.Args.Keys)
		h.Send(t, true)
	}
}

// roleExclusive opens the filter and holds its exclusive lock, as Clear
// does while it runs, until the parent closes stdin.
func roleExclusive(t *testing.T, h *testkit.Helper) {
	f, err := mmapbloom.Open(h.Args.Path, nil)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, testhooks.HoldExclusive(f, func() error {
		h.Send(t, "ready")
		h.WaitStop()
		return nil
	}))
}

// newLockFilter creates a filter with a fixed seed holding keys [0,
// lockKeys) of writer 0, synced.
func newLockFilter(t *testing.T, dir, name string, opts *mmapbloom.CreateOptions) *mmapbloom.Filter {
	t.Helper()
	f, err := mmapbloom.Create(filepath.Join(dir, name), lockKeys, 0.01, filtertest.WithSeed(opts, 42))
	require.NoError(t, err)
	require.NoError(t, f.AddBatch(testkit.WriterKeys(0, 0, lockKeys)))
	require.NoError(t, f.Sync())
	return f
}

// holder is another handle on a filter file: a second Open in this
// process, or a helper process.
type holder struct {
	f *mmapbloom.Filter
	p *testkit.Proc
}

func openHolder(t *testing.T, path string, process, readOnly bool) *holder {
	t.Helper()
	if !process {
		f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: readOnly})
		require.NoError(t, err)
		return &holder{f: f}
	}
	p := testkit.StartHelper(t, "hold", testkit.HelperArgs{Path: path, ReadOnly: readOnly, Keys: lockKeys})
	var ready string
	p.Recv(t, &ready)
	require.Equal(t, "ready", ready)
	return &holder{p: p}
}

// check requires the holder's view to hold every key.
func (h *holder) check(t *testing.T) {
	t.Helper()
	if h.f != nil {
		testkit.RequireAllPresent(t, h.f, 0, 0, lockKeys)
		return
	}
	h.p.Send(t, "check")
	var ok bool
	h.p.Recv(t, &ok)
	require.True(t, ok)
}

func (h *holder) close(t *testing.T) {
	t.Helper()
	if h.f != nil {
		require.NoError(t, h.f.Close())
		return
	}
	h.p.Finish(t)
}

// TestExclusiveOpsRefusedWhileOpen checks that Clear, Merge into a
// filter, Seal, Unseal and Create with Overwrite fail at once with
// ErrInUse while another handle has the file open (a second Open in this
// process or another process, read-write or read-only), change nothing,
// leave no temporary file, and succeed once the other handle is closed.
func TestExclusiveOpsRefusedWhileOpen(t *testing.T) {
	holders := []struct {
		name              string
		process, readOnly bool
	}{
		{"same-process", false, false},
		{"same-process-read-only", false, true},
		{"other-process", true, false},
		{"other-process-read-only", true, true},
	}
	for _, opts := range filtertest.Layouts {
		for _, hc := range holders {
			t.Run(filtertest.LayoutName(opts)+"/"+hc.name, func(t *testing.T) {
				dir := t.TempDir()
				f := newLockFilter(t, dir, "f.bloom", opts)
				defer f.Close()
				src := newLockFilter(t, dir, "src.bloom", opts)
				defer src.Close()
				path := f.Path()
				overwrite := func() error {
					g, err := mmapbloom.Create(path, lockKeys, 0.01, &mmapbloom.CreateOptions{Overwrite: true})
					if g != nil {
						_ = g.Close()
					}
					return err
				}
				ops := []struct {
					name string
					op   func() error
				}{
					{"clear", f.Clear},
					{"merge", func() error { return f.Merge(src) }},
					{"seal", f.Seal},
					{"overwrite", overwrite},
				}
				before, err := os.ReadFile(path)
				require.NoError(t, err)
				names := testkit.DirNames(t, dir)

				h := openHolder(t, path, hc.process, hc.readOnly)
				for _, o := range ops {
					if o.name == "seal" && filtertest.IsV1(opts) {
						continue
					}
					filtertest.RequireInUse(t, o.op(), o.name)
					after, err := os.ReadFile(path)
					require.NoError(t, err)
					require.Equal(t, before, after, "%s changed the file", o.name)
					require.Equal(t, names, testkit.DirNames(t, dir), "%s left files behind", o.name)
					testkit.RequireAllPresent(t, f, 0, 0, lockKeys)
				}
				h.check(t)
				h.close(t)

				if !filtertest.IsV1(opts) {
					require.NoError(t, f.Seal())
					h = openHolder(t, path, hc.process, hc.readOnly)
					filtertest.RequireInUse(t, f.Unseal(), "unseal")
					h.check(t)
					h.close(t)
					require.NoError(t, f.Unseal())
				}
				require.NoError(t, f.Merge(src))
				require.NoError(t, f.Clear())
				ok, err := f.Test(testkit.WriterKey(make([]byte, 13), 0, 0))
				require.NoError(t, err)
				require.False(t, ok, "a key survived Clear")
				filtertest.RequireInUse(t, overwrite(), "overwrite of a file this process has open")
				require.NoError(t, f.Close())
				require.NoError(t, overwrite())
				require.Equal(t, names, testkit.DirNames(t, dir))
			})
		}
	}
}

// TestFailedExclusiveKeepsLock checks that a handle whose exclusive
// operation failed with ErrInUse still holds its shared lock: with two
// handles open, each one's Clear (and Seal) must fail, however often they
// try in turn. flock(2) drops a shared lock that fails to convert, which
// once let the second handle's Clear run while the first had the file
// mapped.
func TestFailedExclusiveKeepsLock(t *testing.T) {
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			dir := t.TempDir()
			a := newLockFilter(t, dir, "f.bloom", opts)
			b, err := mmapbloom.Open(a.Path(), nil)
			require.NoError(t, err)
			for i := range 3 {
				filtertest.RequireInUse(t, a.Clear(), "a.Clear")
				filtertest.RequireInUse(t, b.Clear(), "b.Clear")
				if !filtertest.IsV1(opts) {
					filtertest.RequireInUse(t, b.Seal(), "b.Seal")
					filtertest.RequireInUse(t, a.Seal(), "a.Seal")
				}
				testkit.RequireAllPresent(t, a, 0, 0, lockKeys)
				testkit.RequireAllPresent(t, b, 0, 0, lockKeys)
				_ = i
			}
			require.NoError(t, a.Close())
			require.NoError(t, b.Clear())
			require.NoError(t, b.Close())
		})
	}
}

// TestOpenRefusedDuringExclusive checks that while another process runs
// an exclusive operation (holds the exclusive lock as Clear does), Open,
// read-write or read-only, and Create with Overwrite fail at once with
// ErrInUse, and work once it is done.
func TestOpenRefusedDuringExclusive(t *testing.T) {
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			dir := t.TempDir()
			f := newLockFilter(t, dir, "f.bloom", opts)
			path := f.Path()
			require.NoError(t, f.Close())
			names := testkit.DirNames(t, dir)
			p := testkit.StartHelper(t, "exclusive", testkit.HelperArgs{Path: path})
			var ready string
			p.Recv(t, &ready)
			require.Equal(t, "ready", ready)
			_, err := mmapbloom.Open(path, nil)
			filtertest.RequireInUse(t, err, "open")
			_, err = mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
			filtertest.RequireInUse(t, err, "open read-only")
			_, err = mmapbloom.Create(path, 10, 0.01, &mmapbloom.CreateOptions{Overwrite: true})
			filtertest.RequireInUse(t, err, "overwrite")
			require.Equal(t, names, testkit.DirNames(t, dir), "temporary files left")
			p.Finish(t)
			f, err = mmapbloom.Open(path, nil)
			require.NoError(t, err)
			testkit.RequireAllPresent(t, f, 0, 0, lockKeys)
			require.NoError(t, f.Close())
		})
	}
}

// contendResult is a contender's report.
type contendResult struct{ Attempts, Succeeded uint64 }

// roleContend opens the filter, reports ready, waits for "go", then
// tries Clear, Seal (v2) and, one time in 16, Create with Overwrite,
// Keys times in all; every attempt must fail with ErrInUse, since the
// other contenders hold the file open, and the filter's keys must stay.
func roleContend(t *testing.T, h *testkit.Helper) {
	a := h.Args
	f, err := mmapbloom.Open(a.Path, nil)
	require.NoError(t, err)
	defer f.Close()
	h.Send(t, "ready")
	cmd, ok := h.Command()
	require.True(t, ok)
	require.Equal(t, "go", cmd)
	v2 := f.Header().Version == format.V2
	var res contendResult
	key := testkit.WriterKey(make([]byte, 13), 0, a.Seed%lockKeys)
	for i := range a.Keys {
		var err error
		op := "clear"
		switch {
		case i%16 == 15:
			op = "overwrite"
			var g *mmapbloom.Filter
			g, err = mmapbloom.Create(a.Path, lockKeys, 0.01, &mmapbloom.CreateOptions{Overwrite: true})
			if g != nil {
				_ = g.Close()
			}
		case i%2 == 1 && v2:
			op = "seal"
			err = f.Seal()
		default:
			err = f.Clear()
		}
		res.Attempts++
		if err == nil {
			res.Succeeded++
			t.Errorf("attempt %d: %s succeeded", i, op)
		} else {
			require.True(t, errors.Is(err, mmapbloom.ErrInUse), "attempt %d: %s: %v", i, op, err)
		}
		ok, err := f.Test(key)
		require.NoError(t, err)
		require.True(t, ok, "attempt %d: a key vanished", i)
	}
	h.Send(t, res)
	h.WaitStop() // keep the file open until every contender is done
}

// TestExclusiveContention runs 3 processes that hold the same file and
// all try exclusive operations at once, over and over: none may succeed,
// and no key may vanish. 400 attempts each by default, 10,000 with
// MMAPBLOOM_STRESS=1.
func TestExclusiveContention(t *testing.T) {
	const contenders = 3
	attempts := uint64(400)
	if testkit.Stress() {
		attempts = 10_000
	}
	for _, opts := range filtertest.Layouts {
		t.Run(filtertest.LayoutName(opts), func(t *testing.T) {
			dir := t.TempDir()
			f := newLockFilter(t, dir, "f.bloom", opts)
			path := f.Path()
			hdr := f.Header()
			require.NoError(t, f.Close())
			var ps []*testkit.Proc
			for i := range contenders {
				ps = append(ps, testkit.StartHelper(t, "contend", testkit.HelperArgs{Path: path, ID: uint32(i), Keys: attempts, Seed: uint64(i * 7)}))
			}
			ready := make([]string, contenders)
			testkit.RecvEach(t, ps, func(i int) any { return &ready[i] })
			for _, p := range ps {
				p.Send(t, "go")
			}
			results := make([]contendResult, contenders)
			testkit.RecvEach(t, ps, func(i int) any { return &results[i] })
			for i, p := range ps {
				p.Finish(t)
				require.Equal(t, "ready", ready[i])
				require.Equal(t, attempts, results[i].Attempts)
				require.Zero(t, results[i].Succeeded, "%s: an exclusive operation ran while others had the file open", p.Name)
			}
			f, err := mmapbloom.Open(path, nil)
			require.NoError(t, err)
			testkit.RequireAllPresent(t, f, 0, 0, lockKeys)
			require.NoError(t, f.Close())
			filecheck.Check(t, path, hdr)
		})
	}
}
