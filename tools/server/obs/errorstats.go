package obs

import (
	"maps"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrorStats counts error replies by their first word (INFO
// errorstats): at most maxErrorCodes words, as Redis 7.0, while the
// total counts every error.
type ErrorStats struct {
	total atomic.Int64
	mu    sync.Mutex
	by    map[string]int64
}

// maxErrorCodes is Redis's bound on the error codes errorstats tracks.
const maxErrorCodes = 128

// Add counts n error replies whose text (or first word) is msg.
func (e *ErrorStats) Add(msg string, n int64) {
	e.total.Add(n)
	if i := strings.IndexAny(msg, " \r"); i >= 0 {
		msg = msg[:i]
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.by == nil {
		e.by = map[string]int64{}
	}
	if _, ok := e.by[msg]; ok || len(e.by) < maxErrorCodes {
		e.by[msg] += n
	}
}

// Total returns the count of every error reply.
func (e *ErrorStats) Total() int64 { return e.total.Load() }

// Counts returns a copy of the counts by first word.
func (e *ErrorStats) Counts() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int64, len(e.by))
	maps.Copy(out, e.by)
	return out
}

// Reset drops every count (CONFIG RESETSTAT).
func (e *ErrorStats) Reset() {
	e.mu.Lock()
	e.by = nil
	e.mu.Unlock()
	e.total.Store(0)
}
