//go:build race

package mmapbloom

// raceEnabled is true when the race detector is on: it slows every atomic
// load tenfold, so statistical tests measure fewer keys there (the plain
// and 32-bit runs in CI measure the full sizes).
const raceEnabled = true
