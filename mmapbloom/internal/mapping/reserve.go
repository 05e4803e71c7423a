package mapping

import "os"

// writeZeros writes size zero bytes to f from offset 0, in 1 MiB writes:
// the blocks of a new file reserved where the file system has no
// fallocate.
func writeZeros(f *os.File, size int64) error {
	zeros := make([]byte, min(size, 1<<20))
	for off := int64(0); off < size; off += int64(len(zeros)) {
		n := min(int64(len(zeros)), size-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
	}
	return nil
}
