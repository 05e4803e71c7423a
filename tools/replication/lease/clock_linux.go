package lease

import (
	"time"

	"golang.org/x/sys/unix"
)

// bootNow reads CLOCK_BOOTTIME. It panics if the kernel has none (Linux
// before 2.6.39, which Go no longer runs on).
func bootNow() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		panic("lease: clock_gettime(CLOCK_BOOTTIME): " + err.Error())
	}
	return time.Unix(ts.Unix())
}
