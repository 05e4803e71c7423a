package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// infoSectionNames lists INFO's sections in Redis 7.0's order, with the
// group each belongs to: "default" (INFO, INFO default), "all" (INFO
// all adds commandstats and latencystats), "module" (INFO everything or
// INFO modules, as a module's sections: this server's bloom section;
// INFO modules also gives the module list, as INFO module_list does).
var infoSectionNames = []struct{ name, title, group string }{
	{"server", "Server", "default"}, {"clients", "Clients", "default"}, {"memory", "Memory", "default"},
	{"persistence", "Persistence", "default"}, {"stats", "Stats", "default"},
	{"replication", "Replication", "default"}, {"cpu", "CPU", "default"}, {"modules", "Modules", "default"},
	{"commandstats", "Commandstats", "all"}, {"errorstats", "Errorstats", "default"},
	{"latencystats", "Latencystats", "all"}, {"cluster", "Cluster", "default"},
	{"keyspace", "Keyspace", "default"}, {"bloom", "Bloom", "module"},
}

// infoWanted returns the sections INFO args asks for, by name: the
// default ones without arguments, as Redis 7.0 reads them.
func infoWanted(args [][]byte) map[string]bool {
	want := map[string]bool{}
	if len(args) == 0 {
		args = [][]byte{[]byte("default")}
	}
	for _, a := range args {
		arg := strings.ToLower(string(a))
		for _, sec := range infoSectionNames {
			switch {
			case arg == sec.name,
				arg == "default" && sec.group == "default",
				arg == "all" && sec.group != "module",
				arg == "everything",
				arg == "modules" && (sec.group == "module" || sec.name == "modules"),
				arg == "module_list" && sec.name == "modules":
				want[sec.name] = true
			}
		}
	}
	return want
}

// infoText renders the sections INFO args asks for.
func (s *Server) infoText(args [][]byte) string {
	want := infoWanted(args)
	var sb strings.Builder
	for _, sec := range infoSectionNames {
		if !want[sec.name] {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\r\n")
		}
		fmt.Fprintf(&sb, "# %s\r\n", sec.title)
		for _, kv := range s.infoFields(sec.name) {
			sb.WriteString(kv[0])
			sb.WriteByte(':')
			sb.WriteString(kv[1])
			sb.WriteString("\r\n")
		}
	}
	return sb.String()
}

// infoFields returns the lines of the section named name.
func (s *Server) infoFields(name string) [][2]string {
	switch name {
	case "server":
		return s.serverInfo()
	case "clients":
		return s.clientsInfo()
	case "memory":
		return s.memoryInfo()
	case "persistence":
		return s.persistenceInfo()
	case "stats":
		return s.statsInfo()
	case "replication":
		return s.replicationInfo()
	case "cpu":
		return cpuInfo()
	case "modules":
		return [][2]string{{"module", "name=bf,ver=20800,api=1,filters=0,usedby=[],using=[],options=[]"}}
	case "commandstats":
		return s.commandStatsInfo()
	case "errorstats":
		return s.errorStatsInfo()
	case "latencystats":
		return s.latencyStatsInfo()
	case "cluster":
		return s.clusterInfo()
	case "keyspace":
		return s.keyspaceInfo()
	case "bloom":
		return s.bloomInfo()
	}
	return nil
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// runID is Redis's run_id: 40 random hex digits, new at each start.
func runID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Server) serverInfo() [][2]string {
	port := ""
	if a := s.Addr(); a != nil {
		port = a.String()[strings.LastIndexByte(a.String(), ':')+1:]
	}
	exe, _ := os.Executable()
	up := time.Since(s.start)
	return [][2]string{
		{"redis_version", compatVersion}, {"redis_git_sha1", "00000000"}, {"redis_git_dirty", "0"},
		{"redis_mode", s.mode()}, {"os", osName()}, {"arch_bits", itoa(32 << (^uint(0) >> 63))},
		{"monotonic_clock", "POSIX clock_gettime"}, {"multiplexing_api", "go netpoller"},
		{"go_version", runtime.Version()}, {"process_id", itoa(int64(os.Getpid()))}, {"process_supervised", "no"},
		{"run_id", s.obs.runID}, {"tcp_port", port}, {"server_time_usec", itoa(time.Now().UnixMicro())},
		{"uptime_in_seconds", itoa(int64(up.Seconds()))}, {"uptime_in_days", itoa(int64(up.Hours() / 24))},
		{"executable", exe}, {"config_file", ""}, {"io_threads_active", "0"},
		{"mmapbloom_version", Version}, {"data_dir", s.cfg.Dir},
	}
}

func (s *Server) clientsInfo() [][2]string {
	s.mu.Lock()
	clients := len(s.clients)
	s.mu.Unlock()
	return [][2]string{
		{"connected_clients", itoa(int64(clients))}, {"cluster_connections", "0"},
		{"maxclients", itoa(s.conf.maxClients.Load())}, {"client_recent_max_input_buffer", "0"},
		{"client_recent_max_output_buffer", "0"}, {"blocked_clients", "0"}, {"tracking_clients", "0"},
		{"clients_in_timeout_table", "0"},
	}
}

func (s *Server) statsInfo() [][2]string {
	return [][2]string{
		{"total_connections_received", itoa(s.accepted.Load())},
		{"total_commands_processed", itoa(s.commands.Load())},
		{"rejected_connections", itoa(s.rejected.Load())},
		{"expired_keys", "0"}, {"evicted_keys", "0"}, {"evicted_clients", "0"},
		{"pubsub_channels", "0"}, {"pubsub_patterns", "0"},
		{"unexpected_error_replies", "0"},
		{"total_error_replies", itoa(s.obs.errs.Total())},
		{"total_error_replies_protocol", itoa(s.protoErrs.Load())},
	}
}

func (s *Server) commandStatsInfo() [][2]string {
	var out [][2]string
	for _, cmd := range s.cmds.list {
		st := &s.obs.cmds[cmd.id]
		calls, rej, failed := st.Calls.Load(), st.Rejected.Load(), st.Failed.Load()
		if calls == 0 && rej == 0 && failed == 0 {
			continue
		}
		usec := st.Nanos.Load() / 1000
		per := 0.0
		if calls > 0 {
			per = float64(usec) / float64(calls)
		}
		out = append(out, [2]string{"cmdstat_" + cmd.name, fmt.Sprintf("calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
			calls, usec, per, rej, failed)})
	}
	return out
}

func (s *Server) errorStatsInfo() [][2]string {
	counts := s.obs.errs.Counts()
	out := make([][2]string, 0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, [2]string{"errorstat_" + k, "count=" + itoa(counts[k])})
	}
	return out
}

// latencyStatsInfo: Redis's default latency-tracking-info-percentiles,
// 50 99 99.9, in µs.
func (s *Server) latencyStatsInfo() [][2]string {
	var out [][2]string
	for _, cmd := range s.cmds.list {
		snap := s.obs.cmds[cmd.id].Hist.Snapshot()
		if snap.Total == 0 {
			continue
		}
		out = append(out, [2]string{"latency_percentiles_usec_" + cmd.name, fmt.Sprintf("p50=%.3f,p99=%.3f,p99.9=%.3f",
			float64(snap.Percentile(0.50))/1000, float64(snap.Percentile(0.99))/1000, float64(snap.Percentile(0.999))/1000)})
	}
	return out
}

func (s *Server) keyspaceInfo() [][2]string {
	d := s.dataStats()
	if d.fixed+d.sets == 0 {
		return nil
	}
	return [][2]string{{"db0", fmt.Sprintf("keys=%d,expires=0,avg_ttl=0", d.fixed+d.sets)}}
}

func (s *Server) bloomInfo() [][2]string {
	d, m, h := s.dataStats(), s.memStats(), healthSummaryOf(s.store, time.Now())
	return [][2]string{
		{"bloom_filters", itoa(d.fixed + d.sets)}, {"bloom_fixed_filters", itoa(d.fixed)}, {"bloom_sets", itoa(d.sets)},
		{"bloom_open_filters", itoa(m.open)}, {"bloom_open_layers", itoa(m.layers)},
		{"bloom_open_items", itoa(m.items)}, {"bloom_keys_added", itoa(s.obs.added.Load())},
		{"bloom_mapped_bytes", itoa(m.mapped)}, {"bloom_resident_bytes", itoa(m.resident)},
		{"bloom_health_sampled_keys", itoa(h.sampled)}, {"bloom_keys_over_capacity", itoa(h.overCapacity)},
		{"bloom_fpr_ratio_histogram", h.histogram()},
	}
}
