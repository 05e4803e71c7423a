package server

import (
	"bytes"
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// errNoMincore: the system cannot report page-cache residency.
var errNoMincore = errors.New("mincore not available")

// residentChunk is how much of a file residentBytes maps at once (small
// enough for a 32-bit address space).
const residentChunk = 64 << 20

// residentBytes returns how many bytes of the file at path are in the
// page cache: mincore over a read-only mapping of it, chunk by chunk.
func residentBytes(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	page := int64(os.Getpagesize())
	var n int64
	for off := int64(0); off < fi.Size(); off += residentChunk {
		size := min(residentChunk, fi.Size()-off) // > 0: mincore's b is never empty
		b, err := unix.Mmap(int(f.Fd()), off, int(size), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return 0, err
		}
		vec := make([]byte, (size+page-1)/page)
		err = mincore(b, vec)
		_ = unix.Munmap(b)
		if err != nil {
			return 0, err
		}
		for i, v := range vec {
			if v&1 != 0 {
				n += min(page, size-int64(i)*page)
			}
		}
	}
	return n, nil
}

// residentSetBytes is the process's resident set (/proc/self/statm), -1
// when unreadable.
func residentSetBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// totalMemory is the machine's memory in bytes (sysinfo), 0 if unknown.
func totalMemory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// osName is Redis's INFO os: kernel name, release, machine.
func osName() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "Linux"
	}
	str := func(b []byte) string {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	return str(u.Sysname[:]) + " " + str(u.Release[:]) + " " + str(u.Machine[:])
}
