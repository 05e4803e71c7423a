package server

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ReservedDescriptors is the number of file descriptors FitDescriptors
// keeps beyond the clients and the filters, for listening sockets, logs,
// pulls and temporary files: redis-server's CONFIG_MIN_RESERVED_FDS.
const ReservedDescriptors = 32

// FitDescriptors fits maxClients connections and filterFiles descriptors
// of open filters (Limits.FilterFiles) to the process's RLIMIT_NOFILE, as
// redis-server fits maxclients (adjustOpenFilesLimit in its server.c): it
// raises the soft limit towards maxClients + filterFiles +
// ReservedDescriptors (up to the hard limit), and when that is not
// reached, lowers both so that they fit the limit it got (the filters a
// quarter of what is left, at least 1). It returns the values to serve
// with and a line saying what was chosen, for the log. Errors: a limit
// below ReservedDescriptors + 2, or getrlimit's.
func FitDescriptors(maxClients, filterFiles int) (clients, files int, note string, err error) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, "", fmt.Errorf("server: getrlimit: %w", err)
	}
	want := uint64(maxClients) + uint64(filterFiles) + ReservedDescriptors
	if lim.Cur < want {
		raised := lim
		raised.Cur = min(want, lim.Max)
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	if lim.Cur >= want {
		return maxClients, filterFiles, fmt.Sprintf("descriptors: RLIMIT_NOFILE %d fits maxclients %d, %d for filter files and %d reserved",
			lim.Cur, maxClients, filterFiles, ReservedDescriptors), nil
	}
	if lim.Cur < ReservedDescriptors+2 {
		return 0, 0, "", fmt.Errorf("server: %w: RLIMIT_NOFILE %d is below the %d descriptors the server needs", ErrBadConfig, lim.Cur, ReservedDescriptors+2)
	}
	left := int(lim.Cur) - ReservedDescriptors
	files = min(filterFiles, max(1, left/4))
	clients = min(maxClients, left-files)
	return clients, files, fmt.Sprintf("descriptors: RLIMIT_NOFILE is %d (hard limit %d), below the %d wanted: maxclients reduced to %d and filter files to %d (%d reserved)",
		lim.Cur, lim.Max, want, clients, files, ReservedDescriptors), nil
}
