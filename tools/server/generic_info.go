package server

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Version is this server's version, reported by INFO as mmapbloom_version.
const Version = "0.1.0"

// INFO [section...]: the server, clients, memory, stats, cluster and
// keyspace sections, in Redis's "field:value" lines.
func info(c *client, args [][]byte) {
	want := func(name string) bool {
		if len(args) == 1 {
			return true
		}
		for _, a := range args[1:] {
			if eq(a, name) || eq(a, "ALL") || eq(a, "EVERYTHING") || eq(a, "DEFAULT") {
				return true
			}
		}
		return false
	}
	var sb strings.Builder
	for _, sec := range c.s.infoSections() {
		if !want(sec.name) {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\r\n")
		}
		fmt.Fprintf(&sb, "# %s\r\n", sec.title)
		for _, kv := range sec.fields {
			fmt.Fprintf(&sb, "%s:%s\r\n", kv[0], kv[1])
		}
	}
	c.writeVerbatim(sb.String())
}

// mode is Redis's redis_mode (INFO) and mode (HELLO): "cluster" with
// a cluster config, else "standalone".
func (s *Server) mode() string {
	if s.cluster.Load() != nil {
		return "cluster"
	}
	return "standalone"
}

type infoSection struct {
	name, title string
	fields      [][2]string
}

func (s *Server) infoSections() []infoSection {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.mu.Lock()
	clients := len(s.clients)
	s.mu.Unlock()
	port := ""
	if a := s.Addr(); a != nil {
		port = a.String()[strings.LastIndexByte(a.String(), ':')+1:]
	}
	keys, _ := s.store.keys()
	keyspace := [][2]string{}
	if len(keys) > 0 {
		keyspace = append(keyspace, [2]string{"db0", fmt.Sprintf("keys=%d,expires=0,avg_ttl=0", len(keys))})
	}
	itoa := func(v any) string { return fmt.Sprint(v) }
	return []infoSection{
		{"server", "Server", [][2]string{
			{"redis_version", compatVersion}, {"mmapbloom_version", Version}, {"redis_mode", s.mode()},
			{"os", runtime.GOOS + " " + runtime.GOARCH}, {"arch_bits", itoa(32 << (^uint(0) >> 63))},
			{"process_id", itoa(os.Getpid())}, {"tcp_port", port},
			{"uptime_in_seconds", itoa(int64(time.Since(s.start).Seconds()))},
			{"data_dir", s.cfg.Dir},
		}},
		{"clients", "Clients", [][2]string{
			{"connected_clients", itoa(clients)}, {"maxclients", itoa(s.cfg.MaxClients)},
		}},
		{"memory", "Memory", [][2]string{
			{"used_memory", itoa(ms.HeapAlloc)}, {"used_memory_rss_go", itoa(ms.Sys)},
			{"open_filters", itoa(s.store.openCount())},
		}},
		{"stats", "Stats", [][2]string{
			{"total_connections_received", itoa(s.accepted.Load())},
			{"total_commands_processed", itoa(s.commands.Load())},
			{"rejected_connections", itoa(s.rejected.Load())},
			{"total_error_replies_protocol", itoa(s.protoErrs.Load())},
		}},
		{"replication", "Replication", s.replicationInfo()},
		{"cluster", "Cluster", [][2]string{{"cluster_enabled", map[bool]string{false: "0", true: "1"}[s.cluster.Load() != nil]}}},
		{"keyspace", "Keyspace", keyspace},
	}
}

// COMMAND [COUNT|DOCS|INFO name...|LIST]
func commandCmd(c *client, args [][]byte) {
	switch {
	case len(args) == 1:
		names := commandNames()
		c.w.WriteArray(len(names))
		for _, n := range names {
			c.writeCommandInfo(commands[n])
		}
	case eq(args[1], "COUNT") && len(args) == 2:
		c.w.WriteInt(len(commands))
	case eq(args[1], "DOCS"):
		c.writeCommandDocs(args[2:])
	case eq(args[1], "LIST") && len(args) == 2:
		names := commandNames()
		c.w.WriteArray(len(names))
		for _, n := range names {
			c.w.WriteBulkString(n)
		}
	case eq(args[1], "INFO"):
		c.w.WriteArray(len(args) - 2)
		for _, a := range args[2:] {
			if cmd := lookupFull(string(a)); cmd != nil {
				c.writeCommandInfo(cmd)
			} else {
				c.writeNull()
			}
		}
	default:
		c.w.WriteError("ERR unknown subcommand or wrong number of arguments for '" + string(clip(args[1])) + "'. Try COMMAND HELP.")
	}
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeCommandInfo writes Redis 7's ten-field COMMAND entry: name, arity,
// flags, first key, last key, step, ACL categories, tips, key
// specifications and subcommands (the last three empty).
func (c *client) writeCommandInfo(cmd *command) {
	c.w.WriteArray(10)
	c.w.WriteBulkString(cmd.name)
	c.w.WriteInt(cmd.arity)
	c.writeSetLen(len(cmd.flags))
	for _, f := range cmd.flags {
		c.w.WriteString(f)
	}
	c.w.WriteInt(cmd.first)
	c.w.WriteInt(cmd.last)
	c.w.WriteInt(cmd.step)
	cats := cmd.cats.names()
	c.writeSetLen(len(cats))
	for _, cat := range cats {
		c.w.WriteString("@" + cat)
	}
	for range 3 { // tips, key specifications, subcommands
		c.writeSetLen(0)
	}
}
