package mapping

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// Available returns the memory the kernel estimates it can give new
// allocations without swapping, in bytes: MemAvailable of /proc/meminfo
// (free memory plus the page cache and slab it can reclaim). ok is false
// when the file or the field cannot be read. It ignores a cgroup's memory
// limit.
func Available() (n uint64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return memAvailable(b)
}

// memAvailable parses the MemAvailable line of /proc/meminfo's text
// ("MemAvailable:   24055960 kB").
func memAvailable(meminfo []byte) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) != 3 || string(fields[0]) != "MemAvailable:" || string(fields[2]) != "kB" {
			continue
		}
		kb, err := strconv.ParseUint(string(fields[1]), 10, 64)
		if err != nil || kb > 1<<53 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}
