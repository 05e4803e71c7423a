package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// The temporary files of loads (BF.LOADCHUNK's .KEY.bloom.load*, a
// pull's .KEY.bloom.pull*, tools/server/bf_dump.go) are held with a
// shared flock by the server building them (shared, as the library's
// own handles hold filter files, so that checking and absorbing the
// load can open it). A server killed during a load leaves its file; the
// next start removes the ones whose exclusive flock it can take: no
// live process holds them. A set's load (.KEY.bfset.load*,
// tools/server/bf_setscan_load.go) is a directory, flocked the same
// way, as is a pull's new set (.KEY.bfset.pull*,
// tools/server/pull_copy.go).

// LockLoad takes the shared flock of a new load's file f, held until f
// is closed. Errors: flock's (EWOULDBLOCK when a process holds it
// exclusively).
func LockLoad(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) }

// staleLoad reports whether name is the name of a load's temporary file.
func staleLoad(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.Contains(name, keyname.FileSuffix+".load") || strings.Contains(name, keyname.FileSuffix+".pull"))
}

// staleSetLoad reports whether name is the name of a set load's or a
// set pull's temporary directory.
func staleSetLoad(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.Contains(name, keyname.SetSuffix+".load") || strings.Contains(name, keyname.SetSuffix+".pull"))
}

// LockedTempDir makes a hidden directory in dir named after the set at
// path and kind ("load" or "pull"), with the mode the library gives
// sets, and returns it with the open handle holding its shared flock
// (closing the handle releases it). On an error (the file system's) it
// removes what it made.
func LockedTempDir(dir, path, kind string) (string, *os.File, error) {
	tmp, err := os.MkdirTemp(dir, "."+filepath.Base(path)+"."+kind+"*")
	if err != nil {
		return "", nil, err
	}
	lock, err := os.Open(tmp)
	if err == nil {
		if err = os.Chmod(tmp, 0o755); err == nil { // as the library creates sets
			if err = LockLoad(lock); err == nil {
				return tmp, lock, nil
			}
		}
		lock.Close()
	}
	os.RemoveAll(tmp)
	return "", nil, err
}

// RemoveStaleLoads removes the loads' temporary files of dir that no
// process has locked (left by a server killed during a load), and
// returns how many it removed. Errors: the file system's.
func RemoveStaleLoads(dir string) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, de := range ents {
		if !(de.Type().IsRegular() && staleLoad(de.Name())) && !(de.IsDir() && staleSetLoad(de.Name())) {
			continue
		}
		removed, err := removeUnlocked(filepath.Join(dir, de.Name()))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, err
		}
		if removed {
			n++
		}
	}
	return n, nil
}

// removeUnlocked removes the file at path unless another process holds
// its flock.
func removeUnlocked(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false, nil // a live load
	}
	return true, os.RemoveAll(path)
}
