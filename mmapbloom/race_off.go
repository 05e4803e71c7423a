//go:build !race

package mmapbloom

// raceEnabled is false in builds without the race detector (see
// race_on.go).
const raceEnabled = false
