package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// runWrites is the writes subcommand: the bytes a filter of -n keys
// costs the disk when built by create then add (adds through the file's
// shared mapping) and by create --keys (bits in private memory, the file
// written once), then those of long-running writers adding to the first
// file at a fixed rate, with and without a Sync cadence.
func runWrites(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("writes", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the filter files (on a disk, not tmpfs)")
	cli := fs.String("mmapbloom", besideSelf("mmapbloom"), "the mmapbloom command-line tool")
	self := fs.String("procbench", besideSelf("procbench"), "this program, to run procbench writer")
	nFlag := fs.String("n", "50M", "keys of the build (builds of 50M keys take minutes: never in CI)")
	p := fs.String("p", "1e-4", "false-positive probability")
	layout := fs.String("layout", "auto", "create --layout")
	dur := fs.Duration("for", 3*time.Minute, "how long each long-running writer adds")
	feed := fs.Float64("feed", 0, "keys per second the builds read, as from a slow source (0: as fast as they take them)")
	writers := fs.String("writers", "2000/0,2000/5s,200/0", "long-running writers, RATE/SYNC: keys per second and the interval of Sync (0: never); empty: none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := keys.ParseN(*nFlag)
	if err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("need -dir")
	}
	added, built := filepath.Join(*dir, "writes-add.bloom"), filepath.Join(*dir, "writes-build.bloom")
	defer func() { _ = os.Remove(added); _ = os.Remove(built) }()
	shape := []string{"-n", strconv.Itoa(n), "-p", *p, "--layout", *layout, "--seed", "1"}
	if err := buildWays(out, *cli, added, built, shape, keyStream{end: uint64(n), rate: *feed}, *nFlag); err != nil {
		return err
	}
	from := uint64(n) // each writer adds keys never added before: adding a present key writes nothing
	for _, w := range strings.FieldsFunc(*writers, func(r rune) bool { return r == ',' }) {
		rate, sync, _ := strings.Cut(w, "/")
		r, err := strconv.ParseUint(rate, 10, 32)
		if err != nil {
			return fmt.Errorf("writer %q: %w", w, err)
		}
		args := []string{"writer", "-file", added, "-rate", rate, "-sync", sync, "-for", dur.String(), "-from", strconv.FormatUint(from, 10)}
		from += 2 * r * uint64(dur.Seconds()+1)
		u, err := measureWrites(nil, *dir, *self, args...)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("BenchmarkDiskWrites/way=writer/rate=%s/sync=%s/n=%s", rate, sync, *nFlag)
		if err := writesLine(out, name, added, u, u.out.num("adds")); err != nil {
			return err
		}
	}
	return nil
}

// buildWays builds the filter of the keys of ks (nName in the lines'
// names) both ways, prints a line for each and checks that the two files are equal byte for byte.
func buildWays(out io.Writer, cli, added, built string, shape []string, ks keyStream, nName string) error {
	dir := filepath.Dir(added)
	create, err := measureWrites(nil, dir, cli, append([]string{"create", added}, shape...)...)
	if err != nil {
		return err
	}
	feedAdd := ks
	add, err := measureWrites(&feedAdd, dir, cli, "add", added, "-")
	if err != nil {
		return err
	}
	add.wall += create.wall
	add.written += create.written
	add.device += create.device
	if err := writesLine(out, "BenchmarkDiskWrites/way=create+add/n="+nName, added, add, float64(ks.end)); err != nil {
		return err
	}
	feedBuild := ks
	bulk, err := measureWrites(&feedBuild, dir, cli, append([]string{"create", built, "--keys", "-"}, shape...)...)
	if err != nil {
		return err
	}
	if err := writesLine(out, "BenchmarkDiskWrites/way=create-keys/n="+nName, built, bulk, float64(ks.end)); err != nil {
		return err
	}
	return sameFiles(added, built)
}

// writesLine prints one measurement: the bytes the process dirtied
// (write-bytes: /proc/PID/io write_bytes, from getrusage), per key and
// per byte of the file, the bytes the device wrote meanwhile (every
// process's, after a sync), the wall time and the peak RSS.
func writesLine(out io.Writer, name, file string, u usage, adds float64) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	size := float64(st.Size())
	return printLine(out, name, 1, metric{u.written, "write-bytes"}, metric{u.written / adds, "write-bytes/key"},
		metric{u.written / size, "write-bytes/file-byte"}, metric{u.device / size, "device-bytes/file-byte"},
		metric{size, "filter-bytes"}, metric{float64(u.wall.Nanoseconds()), "wall-ns"}, metric{u.rss, "peak-rss-bytes"})
}

// usage is what one measured process cost.
type usage struct {
	wall    time.Duration
	written float64 // bytes of pages the process dirtied (write_bytes)
	device  float64 // bytes the device of dir wrote from start to end, after a sync
	rss     float64
	out     kv // the process's output line
}

// measureWrites runs prog with args, stdin from in (nil: none), and
// returns its usage. A sync after it ends puts what it left dirty in the
// device's count.
func measureWrites(in io.Reader, dir, prog string, args ...string) (usage, error) {
	before, err := deviceWritten(dir)
	if err != nil {
		return usage{}, err
	}
	cmd := exec.Command(prog, args...)
	cmd.Stdin, cmd.Stderr = in, os.Stderr
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return usage{}, fmt.Errorf("%s %v: %w", prog, args, err)
	}
	wall := time.Since(start)
	syscall.Sync()
	after, err := deviceWritten(dir)
	if err != nil {
		return usage{}, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return usage{}, fmt.Errorf("%s: no rusage on this system", prog)
	}
	// ru_oublock is the process's write_bytes of /proc/PID/io in 512-byte units.
	return usage{wall: wall, written: float64(ru.Oublock) * 512, device: after - before,
		rss: float64(ru.Maxrss) * 1024, out: parseKV(stdout.String())}, nil
}

// deviceWritten returns the bytes the block device holding dir has
// written since boot (field 7 of /sys/dev/block/MAJ:MIN/stat, sectors).
func deviceWritten(dir string) (float64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return 0, err
	}
	dev := uint64(st.Dev)
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	b, err := os.ReadFile(fmt.Sprintf("/sys/dev/block/%d:%d/stat", major, minor))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 7 {
		return 0, fmt.Errorf("device %d:%d: short stat %q", major, minor, b)
	}
	sectors, err := strconv.ParseFloat(f[6], 64)
	return sectors * 512, err
}

// keyStream reads as the generated present keys [next, end), one per
// line, rate keys a second at most (0: no limit).
type keyStream struct {
	next, end uint64
	rate      float64
	start     time.Time
	buf       []byte
}

// Read fills p with whole lines when it can, waiting while it is ahead
// of its rate.
func (k *keyStream) Read(p []byte) (int, error) {
	if k.rate > 0 {
		if k.start.IsZero() {
			k.start = time.Now()
		}
		time.Sleep(time.Until(k.start.Add(time.Duration(float64(k.next) / k.rate * float64(time.Second)))))
	}
	for len(k.buf) < len(p) && k.next < k.end {
		k.buf = keys.AppendURL(k.buf, keys.Present, k.next)
		k.buf = append(k.buf, '\n')
		k.next++
	}
	if len(k.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, k.buf)
	k.buf = k.buf[:copy(k.buf, k.buf[n:])]
	return n, nil
}

// sameFiles fails unless files a and b hold the same bytes.
func sameFiles(a, b string) error {
	x, err := os.ReadFile(a)
	if err != nil {
		return err
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return err
	}
	if !bytes.Equal(x, y) {
		return fmt.Errorf("%s and %s differ: the build is not the adds' filter", a, b)
	}
	return nil
}
