//go:build linux && (amd64 || arm64)

package powercut

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// ErrCut is returned by Cut and Unmount when restoring the directory
// underneath failed: the test's result would mean nothing.
var ErrCut = errors.New("powercut")

// state is what the filesystem does with a write.
type state int

const (
	live    state = iota // writes go through, with undo records
	failing              // every write and fsync answers EIO
	cut                  // the power is off: EIO, nothing reaches the disk
)

// FS is a mounted filesystem that can lose power.
type FS struct {
	// Dir is the mount point: the path the processes under test use.
	Dir string
	// Disk is the directory underneath, which holds after Cut what was
	// synced.
	Disk string

	server *fuse.Server
	abort  string // the connection's abort file in the fusectl filesystem

	mu    sync.Mutex
	state state
	files map[uint64]*undoLog // by the inode number of the mount
}

// Mount serves disk at a new temporary directory and returns it; the
// mount is removed when the test ends. Without /dev/fuse or the right to
// mount (root), the test is skipped with a message, and under CI=true it
// fails.
func Mount(t testing.TB, disk string) *FS {
	t.Helper()
	p := &FS{Dir: t.TempDir(), Disk: disk, files: map[uint64]*undoLog{}}
	root := &fs.LoopbackRoot{Path: disk}
	var st syscall.Stat_t
	if err := syscall.Stat(disk, &st); err != nil {
		t.Fatalf("powercut: %v", err)
	}
	root.Dev = st.Dev
	root.RootNode = &node{LoopbackNode: &fs.LoopbackNode{RootData: root}, fs: p}
	server, err := fs.Mount(p.Dir, root.RootNode, &fs.Options{MountOptions: fuse.MountOptions{
		DirectMount: true, DirectMountStrict: true, FsName: "powercut", Name: "powercut", AllowOther: true}})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: powercut: mount FUSE on %s: %v (CI runs as root with /dev/fuse)", p.Dir, err)
		}
		t.Skipf("powercut: mount FUSE: %v (needs root and /dev/fuse)", err)
	}
	p.server = server
	if p.abort, err = abortFile(p.Dir); err != nil {
		_ = p.Unmount()
		t.Fatalf("powercut: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Unmount(); err != nil {
			t.Errorf("powercut: %v", err)
		}
	})
	return p
}

// Fail makes every later write, truncation, allocation and fsync answer
// EIO until Heal, as a failed disk does; reads go on.
func (p *FS) Fail() { p.set(failing) }

// Heal ends Fail: writes go through again.
func (p *FS) Heal() { p.set(live) }

func (p *FS) set(s state) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != cut {
		p.state = s
	}
}

// Cut cuts the power: every later write and fsync answers EIO and
// reaches nothing, and every file of Disk goes back to what its last
// fsync made durable. It returns an error wrapping ErrCut when a file
// could not be restored.
func (p *FS) Cut() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state = cut
	var err error
	for ino, l := range p.files {
		if rerr := l.restore(); rerr != nil {
			err = errors.Join(err, fmt.Errorf("%w: restore inode %d: %w", ErrCut, ino, rerr))
		}
		delete(p.files, ino)
	}
	return err
}

// Unmount removes the mount and aborts its FUSE connection, so that
// what the kernel still holds for it (dirty pages, open files) is
// dropped, never written, and no process waits on it: call it after
// killing the processes that used Dir (their files then answer
// ENOTCONN). It is idempotent.
func (p *FS) Unmount() error {
	if p.server == nil {
		return nil
	}
	if err := unix.Unmount(p.Dir, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("%w: unmount %s: %w", ErrCut, p.Dir, err)
	}
	if err := os.WriteFile(p.abort, []byte("1"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: abort the FUSE connection: %w", ErrCut, err)
	}
	p.server.Wait()
	p.server = nil
	p.mu.Lock()
	defer p.mu.Unlock()
	for ino, l := range p.files {
		_ = l.disk.Close()
		delete(p.files, ino)
	}
	return nil
}

// fusectl is where the kernel's fusectl filesystem lists FUSE
// connections, one directory per connection named by the minor number
// of its mounts' device.
const fusectl = "/sys/fs/fuse/connections"

// abortFile returns the abort file of the FUSE connection mounted at
// dir, mounting fusectl first if it is not.
func abortFile(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", err
	}
	abort := filepath.Join(fusectl, fmt.Sprint(unix.Minor(st.Dev)), "abort")
	if _, err := os.Stat(abort); err == nil {
		return abort, nil
	}
	if err := unix.Mount("fusectl", fusectl, "fusectl", 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
		return "", fmt.Errorf("mount fusectl on %s: %w", fusectl, err)
	}
	if _, err := os.Stat(abort); err != nil {
		return "", err
	}
	return abort, nil
}

// before runs before a change of file ino (its path on Disk): it
// answers EIO unless the power is on and the disk healthy, and records
// with rec what the change will replace.
func (p *FS) before(ino uint64, path string, rec func(*undoLog) error) syscall.Errno {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != live {
		return syscall.EIO
	}
	l, ok := p.files[ino]
	if !ok {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return fs.ToErrno(err)
		}
		l = &undoLog{disk: f}
		p.files[ino] = l
	}
	return fs.ToErrno(rec(l))
}

// synced drops file ino's undo records after a successful fsync, or
// answers EIO when the power is off or the disk failing.
func (p *FS) synced(ino uint64, sync func() syscall.Errno) syscall.Errno {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != live {
		return syscall.EIO
	}
	if errno := sync(); errno != 0 {
		return errno
	}
	if l, ok := p.files[ino]; ok {
		l.undo = l.undo[:0]
	}
	return 0
}

// node is a loopback node whose files keep undo records.
type node struct {
	*fs.LoopbackNode
	fs *FS
}

var (
	_ fs.NodeWrapChilder = (*node)(nil)
	_ fs.NodeOpener      = (*node)(nil)
	_ fs.NodeCreater     = (*node)(nil)
	_ fs.NodeSetattrer   = (*node)(nil)
)

// WrapChild makes every node of the mount a *node.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), fs: n.fs}
}

// diskPath is n's path on Disk.
func (n *node) diskPath() string {
	return filepath.Join(n.RootData.Path, n.EmbeddedInode().Path(nil))
}

// Open opens n with a file handle that keeps undo records.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fl, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &file{LoopbackFile: fh.(*fs.LoopbackFile), n: n}, fl, 0
}

// Create creates a file (its entry survives a cut; its data does not
// until fsynced) with a file handle that keeps undo records.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if n.fs.frozen() {
		return nil, nil, 0, syscall.EIO
	}
	in, fh, fl, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return in, &file{LoopbackFile: fh.(*fs.LoopbackFile), n: in.Operations().(*node)}, fl, 0
}

// frozen reports whether the power is off or the disk failing.
func (p *FS) frozen() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state != live
}

// Setattr records a change of size (truncate, ftruncate) before making it.
func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		if errno := n.fs.before(n.StableAttr().Ino, n.diskPath(), func(l *undoLog) error {
			return l.recordSize(int64(size))
		}); errno != 0 {
			return errno
		}
	}
	if lf, ok := f.(*file); ok {
		f = lf.LoopbackFile
	}
	return n.LoopbackNode.Setattr(ctx, f, in, out)
}

// file is a loopback file handle whose writes keep undo records and
// whose fsyncs drop them.
type file struct {
	*fs.LoopbackFile
	n *node
}

var (
	_ fs.FileWriter    = (*file)(nil)
	_ fs.FileFsyncer   = (*file)(nil)
	_ fs.FileAllocater = (*file)(nil)
)

func (f *file) record(off, n int64) syscall.Errno {
	return f.n.fs.before(f.n.StableAttr().Ino, f.n.diskPath(), func(l *undoLog) error { return l.recordRange(off, n) })
}

// Write records the bytes it replaces, then writes.
func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if errno := f.record(off, int64(len(data))); errno != 0 {
		return 0, errno
	}
	return f.LoopbackFile.Write(ctx, data, off)
}

// Writev is Write of several buffers.
func (f *file) Writev(ctx context.Context, data [][]byte, off int64) (uint32, syscall.Errno) {
	n := 0
	for _, d := range data {
		n += len(d)
	}
	if errno := f.record(off, int64(n)); errno != 0 {
		return 0, errno
	}
	return f.LoopbackFile.Writev(ctx, data, off)
}

// Allocate records the range it may change (a hole punched, zeros), then
// allocates.
func (f *file) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	if errno := f.record(int64(off), int64(size)); errno != 0 {
		return errno
	}
	return f.LoopbackFile.Allocate(ctx, off, size, mode)
}

// Fsync syncs the file and makes what it holds durable: its undo records
// go.
func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return f.n.fs.synced(f.n.StableAttr().Ino, func() syscall.Errno { return f.LoopbackFile.Fsync(ctx, flags) })
}

// PassthroughFd refuses the kernel's passthrough, which would bypass the
// undo records.
func (f *file) PassthroughFd() (int, bool) { return -1, false }
