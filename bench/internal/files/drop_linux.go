package files

import (
	"os"

	"golang.org/x/sys/unix"
)

// Drop writes back the file at path and drops it from the page cache
// (posix_fadvise DONTNEED: no root needed; pages that a live mapping holds
// stay), so that the next reads come from storage.
func Drop(path string) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	if err := file.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(file.Fd()), 0, 0, unix.FADV_DONTNEED)
}
