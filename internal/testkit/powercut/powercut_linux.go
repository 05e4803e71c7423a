//go:build linux && (amd64 || arm64)

package powercut

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// ErrCut is returned by Cut, Fail, Heal and Unmount when the filesystem
// process did not do what was asked (restoring the directory underneath
// failed, or the process is gone): the test's result would mean nothing.
var ErrCut = errors.New("powercut")

// serveEnv, in a test binary's environment, makes it serve a mount
// instead of running tests (serve, called from init): the FUSE server
// runs in a process of its own, since a page fault on a mapped file of
// the mount that waits for a FUSE server in the same process can
// deadlock it (the faulting thread holds the process's mmap lock, which
// the server's own memory allocation then waits for).
const serveEnv = "MMAPBLOOM_POWERCUT_SERVE"

// mountEnv is the mount point of serveEnv's directory.
const mountEnv = "MMAPBLOOM_POWERCUT_MOUNT"

func init() {
	if spec := os.Getenv(serveEnv); spec != "" {
		os.Exit(serve(spec, os.Getenv(mountEnv), os.Stdin, os.Stdout))
	}
}

// state is what the filesystem does with a write.
type state int

const (
	live    state = iota // writes go through, with undo records
	failing              // every write and fsync answers EIO
	cut                  // the power is off: EIO, nothing reaches the disk
)

// FS is a mounted filesystem that can lose power, served by a child
// process (the test binary run again).
type FS struct {
	// Dir is the mount point: the path the processes under test use.
	Dir string
	// Disk is the directory underneath, which holds after Cut what was
	// synced.
	Disk string

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser // commands to the child, a line each
	out    *bufio.Reader  // its answers, a line each
	abort  string         // the connection's abort file in the fusectl filesystem
	closed bool
}

// Mount serves disk at a new temporary directory from a child process
// and returns it; the mount is removed when the test ends. Without
// /dev/fuse or the right to mount (root), the test is skipped with a
// message, and under CI=true it fails.
func Mount(t testing.TB, disk string) *FS {
	t.Helper()
	p := &FS{Dir: t.TempDir(), Disk: disk}
	p.cmd = testkit.Process(t, os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), serveEnv+"="+disk, mountEnv+"="+p.Dir)
	p.cmd.Stderr = os.Stderr
	in, err := p.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	p.in, p.out = in, bufio.NewReader(out)
	require.NoError(t, p.cmd.Start())
	line, err := p.out.ReadString('\n')
	verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch {
	case err == nil && verb == "ready":
		p.abort = arg
	case os.Getenv("CI") == "true":
		_ = p.Unmount()
		t.Fatalf("CI=true: powercut: mount FUSE on %s: %s %v (CI runs as root with /dev/fuse)", p.Dir, arg, err)
	default:
		_ = p.Unmount()
		t.Skipf("powercut: mount FUSE: %s %v (needs root and /dev/fuse)", arg, err)
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
func (p *FS) Fail() error { return p.ask("fail") }

// Heal ends Fail: writes go through again.
func (p *FS) Heal() error { return p.ask("heal") }

// Cut cuts the power: every later write and fsync answers EIO and
// reaches nothing, and every file of Disk goes back to what its last
// fsync made durable.
func (p *FS) Cut() error { return p.ask("cut") }

// ask sends the child a command and waits for its answer: nil for "ok",
// else an error wrapping ErrCut.
func (p *FS) ask(verb string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("%w: %s after Unmount", ErrCut, verb)
	}
	if _, err := io.WriteString(p.in, verb+"\n"); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCut, verb, err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCut, verb, err)
	}
	if line = strings.TrimSpace(line); line != "ok" {
		return fmt.Errorf("%w: %s: %s", ErrCut, verb, line)
	}
	return nil
}

// Unmount removes the mount and aborts its FUSE connection, so that
// what the kernel still holds for it (dirty pages, open files) is
// dropped, never written, and no process waits on it: call it after
// killing the processes that used Dir (their files then answer
// ENOTCONN). The child then exits. It is idempotent.
func (p *FS) Unmount() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var err error
	if p.abort != "" {
		if uerr := unix.Unmount(p.Dir, unix.MNT_DETACH); uerr != nil && !errors.Is(uerr, unix.EINVAL) {
			err = fmt.Errorf("%w: unmount %s: %w", ErrCut, p.Dir, uerr)
		}
		if aerr := os.WriteFile(p.abort, []byte("1"), 0); aerr != nil && !errors.Is(aerr, os.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("%w: abort the FUSE connection: %w", ErrCut, aerr))
		}
	}
	_ = p.in.Close()
	if werr := p.cmd.Wait(); werr != nil && err == nil && p.abort != "" {
		err = fmt.Errorf("%w: the filesystem process: %w", ErrCut, werr)
	}
	return err
}

// lossy is the child's filesystem state: what happens to writes, and the
// undo records of the files written since their last fsync.
type lossy struct {
	mu    sync.Mutex
	state state
	files map[uint64]*undoLog // by the inode number of the mount
}

// serve mounts disk at mnt, answers "ready ABORTFILE" (or "skip REASON")
// on out, then runs the commands of in (fail, heal, cut), answering "ok"
// or "err MESSAGE" to each, until in ends; it returns the exit code.
func serve(disk, mnt string, in io.Reader, out io.Writer) int {
	p := &lossy{files: map[uint64]*undoLog{}}
	server, err := mountLossy(p, disk, mnt)
	if err != nil {
		fmt.Fprintf(out, "skip %v\n", err)
		return 0
	}
	abort, err := abortFile(mnt)
	if err != nil {
		_ = unix.Unmount(mnt, unix.MNT_DETACH)
		fmt.Fprintf(out, "skip %v\n", err)
		return 0
	}
	fmt.Fprintf(out, "ready %s\n", abort)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		answer := "ok"
		if err := p.do(sc.Text()); err != nil {
			answer = "err " + err.Error()
		}
		fmt.Fprintln(out, answer)
	}
	_ = unix.Unmount(mnt, unix.MNT_DETACH)
	_ = os.WriteFile(abort, []byte("1"), 0)
	server.Wait()
	p.closeAll()
	return 0
}

// mountLossy serves disk at mnt through p.
func mountLossy(p *lossy, disk, mnt string) (*fuse.Server, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(disk, &st); err != nil {
		return nil, err
	}
	root := &fs.LoopbackRoot{Path: disk, Dev: st.Dev}
	root.RootNode = &node{LoopbackNode: &fs.LoopbackNode{RootData: root}, fs: p}
	return fs.Mount(mnt, root.RootNode, &fs.Options{MountOptions: fuse.MountOptions{
		DirectMount: true, DirectMountStrict: true, FsName: "powercut", Name: "powercut", AllowOther: true}})
}

// do runs one command of the parent.
func (p *lossy) do(verb string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.state == cut:
		return nil // the power stays off
	case verb == "fail":
		p.state = failing
	case verb == "heal":
		p.state = live
	case verb == "cut":
		return p.cut()
	default:
		return fmt.Errorf("unknown command %q", verb)
	}
	return nil
}

// cut turns the power off and restores every file to its last fsync.
// The caller holds p.mu.
func (p *lossy) cut() error {
	p.state = cut
	var err error
	for ino, l := range p.files {
		if rerr := l.restore(); rerr != nil {
			err = errors.Join(err, fmt.Errorf("restore inode %d: %w", ino, rerr))
		}
		delete(p.files, ino)
	}
	return err
}

// closeAll closes the files the undo records were read from.
func (p *lossy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ino, l := range p.files {
		_ = l.disk.Close()
		delete(p.files, ino)
	}
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
func (p *lossy) before(ino uint64, path string, rec func(*undoLog) error) syscall.Errno {
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
func (p *lossy) synced(ino uint64, sync func() syscall.Errno) syscall.Errno {
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
	fs *lossy
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
func (p *lossy) frozen() bool {
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
