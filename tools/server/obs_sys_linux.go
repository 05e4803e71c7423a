package server

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

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
