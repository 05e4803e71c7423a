package server

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
)

// The observer's parameters in the CONFIG registry (generic_config.go),
// as redis-server 7.0 names and bounds them: slowlog-log-slower-than
// (µs; 0 logs every command, negative none; default 10000),
// slowlog-max-len (entries, default 128), latency-monitor-threshold (ms;
// 0, the default, turns the monitor off), latency-tracking (yes/no,
// default yes) and latency-tracking-info-percentiles (50 99 99.9 only).
func init() {
	registerConfig(
		atomicIntParam("slowlog-log-slower-than", -1<<62, 1<<62, func(s *Server) *atomic.Int64 { return &s.obs.slowerThan }),
		atomicIntParam("slowlog-max-len", 0, 1<<31-1, func(s *Server) *atomic.Int64 { return &s.obs.slowMax }),
		atomicIntParam("latency-monitor-threshold", 0, 1<<62, func(s *Server) *atomic.Int64 { return &s.obs.monitorMs }),
		boolParam("latency-tracking", func(s *Server) *atomic.Bool { return &s.obs.tracking }),
		&configParam{name: "latency-tracking-info-percentiles",
			get: func(*Server) string { return "50 99 99.9" },
			set: func(_ *Server, v string) (func(), string) {
				if v != "50 99 99.9" {
					return nil, "only 50 99 99.9 are reported"
				}
				return func() {}, ""
			}},
	)
}

// atomicIntParam is a mutable integer parameter in [lo, hi] held in the
// atomic at returns.
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
