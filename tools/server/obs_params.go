package server

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
)

// atomicIntParam is a mutable integer parameter in [lo, hi] held in the
// atomic at returns (the observer's parameters in the CONFIG table,
// generic_config.go).
func atomicIntParam(name string, lo, hi int64, at func(*Server) *atomic.Int64) *configParam {
	return intParam(name, lo, hi, func(s *Server) int64 { return at(s).Load() },
		func(s *Server, v int64) (func(), string) { return func() { at(s).Store(v) }, "" })
}

// ErrBadParam is returned by SetConfig for an unknown or immutable
// parameter, or a value CONFIG SET would refuse.
var ErrBadParam = errors.New("invalid argument")

// SetConfig sets the parameter named name (any case) to v, as CONFIG SET
// would (for the flags of serve). Errors: ErrBadParam wrapped with
// Redis's reason.
func (s *Server) SetConfig(name, v string) error {
	p := configParams[strings.ToLower(name)]
	if p == nil {
		return fmt.Errorf("%w: unknown parameter %q", ErrBadParam, name)
	}
	apply, msg := p.check(s, v)
	if msg != "" {
		return fmt.Errorf("%w: %s: %s", ErrBadParam, name, msg)
	}
	apply()
	return nil
}

// ResetStats clears what CONFIG RESETSTAT clears: the command, error
// and latency counts, the keys-added count and the slow log.
func (s *Server) ResetStats() {
	s.obs.resetStats()
	s.obs.slow.Reset()
}
