package server

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// ObsParam is one run-time parameter of what the server records, by
// Redis's CONFIG name: its value as CONFIG GET answers it, and a setter
// taking CONFIG SET's text (errors: ErrBadParam wrapped with why).
type ObsParam struct {
	Name string
	Get  func(s *Server) string
	Set  func(s *Server, v string) error
}

// ErrBadParam is returned by an ObsParam's Set for a value out of its
// range or not of its type.
var ErrBadParam = errors.New("invalid argument")

// ObsParams are slowlog-log-slower-than (µs; 0 logs every command,
// negative none; default 10000), slowlog-max-len (entries, default 128),
// latency-tracking (yes/no, default yes) and latency-monitor-threshold
// (ms; 0, the default, turns the monitor off), as redis-server 7.0
// names and bounds them.
var ObsParams = []ObsParam{
	intParam("slowlog-log-slower-than", -1<<62, 1<<62, func(s *Server) *int64Param { return &s.obs.slowerThan }),
	intParam("slowlog-max-len", 0, 1<<31-1, func(s *Server) *int64Param { return &s.obs.slowMax }),
	intParam("latency-monitor-threshold", 0, 1<<62, func(s *Server) *int64Param { return &s.obs.monitorMs }),
	{Name: "latency-tracking",
		Get: func(s *Server) string { return map[bool]string{true: "yes", false: "no"}[s.obs.tracking.Load()] },
		Set: func(s *Server, v string) error {
			switch strings.ToLower(v) {
			case "yes":
				s.obs.tracking.Store(true)
			case "no":
				s.obs.tracking.Store(false)
			default:
				return fmt.Errorf("%w: argument must be 'yes' or 'no'", ErrBadParam)
			}
			return nil
		}},
	{Name: "latency-tracking-info-percentiles",
		Get: func(*Server) string { return "50 99 99.9" },
		Set: func(_ *Server, v string) error {
			if v != "50 99 99.9" {
				return fmt.Errorf("%w: only 50 99 99.9 are reported", ErrBadParam)
			}
			return nil
		}},
}

type int64Param = atomic.Int64

// intParam is an integer parameter in [lo, hi] held in an atomic.
func intParam(name string, lo, hi int64, at func(*Server) *int64Param) ObsParam {
	return ObsParam{Name: name,
		Get: func(s *Server) string { return strconv.FormatInt(at(s).Load(), 10) },
		Set: func(s *Server, v string) error {
			n, ok := parseInt([]byte(v))
			if !ok {
				return fmt.Errorf("%w: argument couldn't be parsed into an integer", ErrBadParam)
			}
			if n < lo || n > hi {
				return fmt.Errorf("%w: argument must be between %d and %d inclusive", ErrBadParam, lo, hi)
			}
			at(s).Store(n)
			return nil
		}}
}

// SetObsParam sets the parameter named name (see ObsParams) to v, as
// CONFIG SET would. Errors: ErrBadParam, and for an unknown name
// ErrBadParam too.
func (s *Server) SetObsParam(name, v string) error {
	for _, p := range ObsParams {
		if strings.EqualFold(p.Name, name) {
			if err := p.Set(s, v); err != nil {
				return fmt.Errorf("%s: %w", p.Name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("%w: unknown parameter %q", ErrBadParam, name)
}

// obsParamValues returns every ObsParams name and value, for CONFIG GET.
func (s *Server) obsParamValues() [][2]string {
	out := make([][2]string, len(ObsParams))
	for i, p := range ObsParams {
		out[i] = [2]string{p.Name, p.Get(s)}
	}
	return out
}

// ResetStats clears what CONFIG RESETSTAT clears: the command, error
// and latency counts, the keys-added count and the slow log.
func (s *Server) ResetStats() {
	s.obs.resetStats()
	s.obs.slow.reset()
}
