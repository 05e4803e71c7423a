package server

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mmapbloom/mmapbloom/tools/server/glob"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// CONFIG GET and CONFIG SET: every parameter is declared once, in the
// table configParams, as every command is in commands.go, with how to
// read it and, when it can change at run time, how to check and apply a
// new value. The helpers building the parameters of other subsystems
// (the slow log, latency tracking, appendfsync) stay in their files.

// configParam is one parameter of CONFIG GET / CONFIG SET.
type configParam struct {
	name string // lower case, as Redis names it
	get  func(s *Server) string
	// set checks v and returns the change to apply, or Redis's reason
	// for refusing it (the text after " - " in its error). nil: the
	// parameter is immutable.
	set func(s *Server, v string) (apply func(), msg string)
}

// configParams is the table of the parameters, by name.
var configParams = indexConfig(
	constParam("databases", "1"), constParam("save", ""),
	constParam("maxmemory", "0"), constParam("maxmemory-policy", "noeviction"),
	&configParam{name: "dir", get: func(s *Server) string { return s.cfg.Dir }},
	&configParam{name: "port", get: func(s *Server) string { return s.port() }},
	&configParam{name: "proto-max-bulk-len", get: func(s *Server) string { return strconv.Itoa(s.protoMaxBulkLen()) }},
	&configParam{name: "cluster-enabled", get: func(s *Server) string { return yesNo(s.cluster.Load() != nil) }},
	&configParam{name: "cluster-config-file", get: func(s *Server) string { return s.cfg.ClusterConfig }},
	&configParam{name: "aclfile", get: func(s *Server) string { return s.cfg.ACLFile }},
	intParam("maxclients", 1, math.MaxUint32, func(s *Server) int64 { return s.conf.maxClients.Load() }, setMaxClients),
	intParam("timeout", 0, math.MaxInt32, getTimeout, setTimeout),
	bloomIntParam("bf-initial-size", 1, maxCapacity, func(s *Server) int64 { return int64(s.conf.initialSize.Load()) },
		func(s *Server, v int64) (func(), string) {
			return func() { s.conf.initialSize.Store(uint64(v)) }, ""
		}),
	bloomIntParam("bf-expansion-factor", 0, maxExpansion, func(s *Server) int64 { return int64(s.conf.expansion.Load()) }, setExpansion),
	errorRateParam(),
	boolParam("stop-writes-on-bgsave-error", func(s *Server) *atomic.Bool { return &s.conf.stopWritesOnSaveError }),

	// The observer's (obs_params.go), as redis-server 7.0 names and
	// bounds them: slowlog-log-slower-than (µs; 0 logs every command,
	// negative none; default 10000), slowlog-max-len (entries, default
	// 128), latency-monitor-threshold (ms; 0, the default, turns the
	// monitor off), latency-tracking (yes/no, default yes) and
	// latency-tracking-info-percentiles (50 99 99.9 only).
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

	// appendfsync's (save_appendfsync.go).
	appendfsyncParam(),
	&configParam{name: "appendonly", get: func(s *Server) string { return yesNo(s.fsync.get() != fsyncNo) }},
)

// indexConfig indexes params by name; it panics on a name given twice
// (when the package is initialized).
func indexConfig(params ...*configParam) map[string]*configParam {
	byName := make(map[string]*configParam, len(params))
	for _, p := range params {
		if byName[p.name] != nil {
			panic("server: config parameter declared twice: " + p.name)
		}
		byName[p.name] = p
	}
	return byName
}

// liveConfig holds the parameters CONFIG SET changes while clients run
// (read without a lock by the commands that use them).
type liveConfig struct {
	errorRate   atomic.Uint64 // bf-error-rate, float64 bits
	initialSize atomic.Uint64 // bf-initial-size
	expansion   atomic.Uint32 // bf-expansion-factor
	maxClients  atomic.Int64  // maxclients
	idle        atomic.Int64  // timeout, in ns; <= 0 never (Config.ClientIdle)
	// stopWritesOnSaveError is stop-writes-on-bgsave-error (save.go).
	stopWritesOnSaveError atomic.Bool
}

// init copies the startup values of cfg.
func (l *liveConfig) init(cfg *Config) {
	l.errorRate.Store(math.Float64bits(cfg.DefaultErrorRate))
	l.initialSize.Store(cfg.DefaultCapacity)
	l.expansion.Store(cfg.DefaultExpansion)
	l.maxClients.Store(int64(cfg.MaxClients))
	l.idle.Store(int64(cfg.ClientIdle))
	l.stopWritesOnSaveError.Store(true)
}

// createSpec is the filter BF.ADD and BF.MADD make for a missing key:
// bf-initial-size keys at bf-error-rate, growing by bf-expansion-factor.
func (l *liveConfig) createSpec() *store.Spec {
	return &store.Spec{N: l.initialSize.Load(), P: math.Float64frombits(l.errorRate.Load()), SetSpec: store.SetSpec{Expansion: l.expansion.Load()}}
}

// constParam is an immutable parameter with a fixed value.
func constParam(name, value string) *configParam {
	return &configParam{name: name, get: func(*Server) string { return value }}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// boolParam is a mutable yes/no parameter kept in the atomic at returns,
// with Redis's error for any other value.
func boolParam(name string, at func(*Server) *atomic.Bool) *configParam {
	return &configParam{
		name: name,
		get:  func(s *Server) string { return yesNo(at(s).Load()) },
		set: func(s *Server, v string) (func(), string) {
			switch strings.ToLower(v) {
			case "yes":
				return func() { at(s).Store(true) }, ""
			case "no":
				return func() { at(s).Store(false) }, ""
			}
			return nil, "argument must be 'yes' or 'no'"
		},
	}
}

// paramTexts are the reasons CONFIG SET gives for a value of a numeric
// parameter that is no number (notNumber) or out of range (outside):
// Redis's own parameters' (redisTexts) or RedisBloom's (bloomTexts).
type paramTexts struct {
	notNumber func(name string) string
	outside   func(name string, lo, hi int64) string
}

// redisTexts are Redis 7.0's texts for its numeric parameters (config.c).
var redisTexts = paramTexts{
	notNumber: func(string) string { return "argument couldn't be parsed into an integer" },
	outside: func(_ string, lo, hi int64) string {
		return fmt.Sprintf("argument must be between %d and %d inclusive", lo, hi)
	},
}

// bloomTexts are RedisBloom's texts for its bf-* parameters (its
// src/config.c, the module parameters of Redis 8): integers in
// [lo, hi]; bf-error-rate in (0, 1), printed with C's %f.
var bloomTexts = paramTexts{
	notNumber: func(name string) string { return "Invalid value for `" + name + "`" },
	outside: func(name string, lo, hi int64) string {
		return fmt.Sprintf("Value for `%s` must be in the range [%d, %d]", name, lo, hi)
	},
}

// intParam is a mutable integer parameter of Redis in [lo, hi], with
// Redis's errors for a value that is no integer or out of range; set may
// refuse a value in range with its own reason.
func intParam(name string, lo, hi int64, get func(*Server) int64, set func(*Server, int64) (func(), string)) *configParam {
	return rangedParam(name, redisTexts, lo, hi, get, set)
}

// bloomIntParam is intParam for a parameter of RedisBloom, with its
// errors.
func bloomIntParam(name string, lo, hi int64, get func(*Server) int64, set func(*Server, int64) (func(), string)) *configParam {
	return rangedParam(name, bloomTexts, lo, hi, get, set)
}

// rangedParam is intParam with the errors of texts.
func rangedParam(name string, texts paramTexts, lo, hi int64, get func(*Server) int64, set func(*Server, int64) (func(), string)) *configParam {
	return &configParam{
		name: name,
		get:  func(s *Server) string { return strconv.FormatInt(get(s), 10) },
		set: func(s *Server, v string) (func(), string) {
			n, ok := parseInt([]byte(v))
			if !ok {
				return nil, texts.notNumber(name)
			}
			if n < lo || n > hi {
				return nil, texts.outside(name, lo, hi)
			}
			return set(s, n)
		},
	}
}

// errorRateParam is bf-error-rate, RedisBloom's ERROR_RATE: the
// false-positive rate of the filters BF.ADD and BF.MADD create, in
// (0, 1), refused with RedisBloom's texts.
func errorRateParam() *configParam {
	const name = "bf-error-rate"
	return &configParam{
		name: name,
		get: func(s *Server) string {
			return strconv.FormatFloat(math.Float64frombits(s.conf.errorRate.Load()), 'g', 17, 64)
		},
		set: func(s *Server, v string) (func(), string) {
			p, ok := parseFloat([]byte(v))
			if !ok {
				return nil, bloomTexts.notNumber(name)
			}
			if !(p > 0 && p < 1) {
				return nil, fmt.Sprintf("Value for `%s` must be in the range (%f, %f)", name, 0.0, 1.0)
			}
			return func() { s.conf.errorRate.Store(math.Float64bits(p)) }, ""
		},
	}
}

// setMaxClients refuses more clients than the descriptors fitted at
// startup allow (Config.MaxClients), as Redis refuses what its file
// limit cannot hold.
func setMaxClients(s *Server, v int64) (func(), string) {
	if v > int64(s.cfg.MaxClients) {
		return nil, fmt.Sprintf("The operating system is not able to handle the specified number of clients, try with %d", s.cfg.MaxClients)
	}
	return func() { s.conf.maxClients.Store(v) }, ""
}

// setExpansion refuses 0 (fixed files) when keys are folded: a folded
// bucket is shared by many keys and must scale.
func setExpansion(s *Server, v int64) (func(), string) {
	if v == 0 && s.cfg.FoldHashtags {
		return nil, "argument must be at least 1 with fold-hashtags"
	}
	return func() { s.conf.expansion.Store(uint32(v)) }, ""
}

// getTimeout is Redis's timeout: idle seconds before a client is closed,
// 0 for never.
func getTimeout(s *Server) int64 {
	return max(s.conf.idle.Load(), 0) / int64(time.Second)
}

// setTimeout changes the idle time of every connection, those waiting
// for a request included (rearmIdle).
func setTimeout(s *Server, v int64) (func(), string) {
	return func() {
		if v == 0 {
			v = -1
		}
		s.conf.idle.Store(v * int64(time.Second))
		s.rearmIdle()
	}, ""
}

// configGet is CONFIG GET pattern...: the parameters matching any
// pattern (in any case), each once, as name-value pairs. A pattern
// without '*', '?' or '[' names one parameter and is answered under the
// name as given, as Redis 7.0 does.
func configGet(c *client, args [][]byte) {
	var out []string
	seen := map[string]bool{}
	for _, a := range args[2:] {
		pat := configPattern(a)
		if !strings.ContainsAny(pat, "*?[") {
			if p := configParams[strings.ToLower(pat)]; p != nil && !seen[p.name] {
				seen[p.name] = true
				out = append(out, pat, p.get(c.s))
			}
			continue
		}
		for _, name := range configNames() {
			if !seen[name] && glob.Match(pat, name, true) {
				seen[name] = true
				out = append(out, name, configParams[name].get(c.s))
			}
		}
	}
	c.writeMapLen(len(out) / 2) // a map in RESP3, as redis-server 7.0 answers
	for _, s := range out {
		c.w.WriteBulkString(s)
	}
}

// configPattern is a CONFIG GET pattern as Redis reads it, a C string:
// up to its first NUL byte.
func configPattern(a []byte) string {
	pat, _, _ := strings.Cut(string(a), "\x00")
	return pat
}

// configNames returns the names of configParams in order.
func configNames() []string {
	names := make([]string, 0, len(configParams))
	for n := range configParams {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// configSet is CONFIG SET parameter value [parameter value ...]: every
// value is checked before any is applied, as Redis 7.0 does.
func configSet(c *client, args [][]byte) {
	if len(args)%2 != 0 {
		c.w.WriteError(msgSyntax)
		return
	}
	var applies []func()
	seen := map[string]bool{}
	for i := 2; i < len(args); i += 2 {
		p := configParams[strings.ToLower(string(args[i]))]
		if p == nil {
			c.w.WriteError(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", clip(args[i])))
			return
		}
		msg := ""
		var apply func()
		if seen[p.name] {
			msg = "duplicate parameter"
		} else {
			apply, msg = p.check(c.s, string(args[i+1]))
		}
		if msg != "" {
			c.w.WriteError(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", clip(args[i]), msg))
			return
		}
		seen[p.name] = true
		applies = append(applies, apply)
	}
	for _, apply := range applies {
		apply()
	}
	c.w.WriteString("OK")
}

// check returns the change that sets p to v, or Redis's reason for
// refusing it (the text after " - " in CONFIG SET's error).
func (p *configParam) check(s *Server, v string) (func(), string) {
	if p.set == nil {
		return nil, "can't set immutable config"
	}
	return p.set(s, v)
}

// configHelp is CONFIG HELP, Redis 7.0's lines for the subcommands
// served here.
func configHelp(c *client, _ [][]byte) {
	writeHelp(c, "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
		"RESETSTAT", "    Reset statistics reported by the INFO command.",
		"HELP", "    Prints this help.")
}

// writeHelp writes a HELP reply: lines as simple strings.
func writeHelp(c *client, lines ...string) {
	c.w.WriteArray(len(lines))
	for _, l := range lines {
		c.w.WriteString(l)
	}
}

// port is the port of the first listener (INFO tcp_port, CONFIG GET
// port), or "" before Serve.
func (s *Server) port() string {
	a := s.Addr()
	if a == nil {
		return ""
	}
	return a.String()[strings.LastIndexByte(a.String(), ':')+1:]
}

// configResetStat is CONFIG RESETSTAT: INFO's counters back to 0.
func configResetStat(c *client, _ [][]byte) {
	for _, n := range []*atomic.Int64{&c.s.accepted, &c.s.commands, &c.s.rejected, &c.s.protoErrs} {
		n.Store(0)
	}
	c.s.ResetStats()
	c.w.WriteString("OK")
}
