//go:build race

package mmapbloom

// raceEnabled is true in builds with the race detector. Its atomic loads
// run in the detector's runtime on the system stack, where a fault cannot
// be turned into an error: a Test racing Close would kill the process
// instead of returning ErrClosed, so read takes the lock in such builds.
// A file truncated by another process during a call can still kill a race
// build, in the moment between the detector's own probe of the address on
// the goroutine's stack and its load; builds without the detector get
// ErrFileChanged. The detector also slows every atomic load tenfold, so
// statistical tests measure fewer keys under it.
const raceEnabled = true
