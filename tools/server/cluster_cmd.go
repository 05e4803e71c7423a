package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
)

// Redis Cluster's commands, answered from the static cluster config.

const clusterDisabled = "ERR This instance has cluster support disabled"

// READONLY / READWRITE: +OK in cluster mode; READONLY lets a replica
// serve this connection's reads (see route), READWRITE ends it. A
// primary serves its slots either way.
func readMode(c *client, args [][]byte) {
	if c.s.cluster.Load() == nil {
		c.w.WriteError(clusterDisabled)
		return
	}
	c.readonly = eq(args[0], "READONLY")
	c.w.WriteString("OK")
}

// CLUSTER SLOTS|SHARDS|NODES|MYID|INFO|KEYSLOT key|COUNTKEYSINSLOT slot|
// GETKEYSINSLOT slot count, and the extension CLUSTER RELOAD: CLUSTER's
// subcommands (commands.go), each named by ACL rules as Redis 7.0 names
// it (cluster|slots...).

// inCluster returns the subcommand run that calls fn with the cluster's
// state, or answers clusterDisabled outside cluster mode.
func inCluster(fn func(c *client, cs *clusterState, args [][]byte)) func(c *client, args [][]byte) {
	return func(c *client, args [][]byte) {
		cs := c.s.cluster.Load()
		if cs == nil {
			c.w.WriteError(clusterDisabled)
			return
		}
		fn(c, cs, args)
	}
}

var (
	clusterSlots  = inCluster(func(c *client, cs *clusterState, _ [][]byte) { writeSlots(c, cs) })
	clusterShards = inCluster(func(c *client, cs *clusterState, _ [][]byte) { writeShards(c, cs) })
	clusterNodes  = inCluster(func(c *client, cs *clusterState, _ [][]byte) { c.writeVerbatim(nodesText(cs)) })
	clusterMyID   = inCluster(func(c *client, cs *clusterState, _ [][]byte) { c.w.WriteBulkString(cs.me.ID) })
	clusterInfo   = inCluster(func(c *client, cs *clusterState, _ [][]byte) {
		c.writeVerbatim(infoText(cs, c.s.readiness(cs)))
	})
	clusterKeySlot = inCluster(func(c *client, _ *clusterState, args [][]byte) {
		c.w.WriteInt(cluster.KeySlot(args[2]))
	})
	clusterKeysInSlot = inCluster(func(c *client, _ *clusterState, args [][]byte) { keysInSlot(c, args) })
	clusterReload     = inCluster(func(c *client, _ *clusterState, _ [][]byte) {
		if err := c.s.Reload(); err != nil {
			c.w.WriteError("ERR " + err.Error())
			return
		}
		c.w.WriteString("OK")
	})
)

// writeSlots writes CLUSTER SLOTS: per run of slots, in slot order,
// [start, end, [host, port, id, []], replica...], the owner then its
// replicas in the same shape (Redis 7's).
func writeSlots(c *client, cs *clusterState) {
	type run struct {
		r cluster.Range
		n *cluster.Node
	}
	var runs []run
	for s := 0; s < cluster.Slots; s++ {
		o := cs.m.Owner(s)
		if o == nil {
			continue
		}
		if k := len(runs); k > 0 && runs[k-1].n == o && runs[k-1].r.End == s-1 {
			runs[k-1].r.End = s
		} else {
			runs = append(runs, run{cluster.Range{Start: s, End: s}, o})
		}
	}
	c.w.WriteArray(len(runs))
	for _, r := range runs {
		replicas := cs.m.Replicas(r.n)
		c.w.WriteArray(3 + len(replicas))
		c.w.WriteInt(r.r.Start)
		c.w.WriteInt(r.r.End)
		for _, n := range append([]*cluster.Node{r.n}, replicas...) {
			c.w.WriteArray(4)
			c.w.WriteBulkString(n.Host)
			c.w.WriteInt(n.Port)
			c.w.WriteBulkString(n.ID)
			c.w.WriteArray(0)
		}
	}
}

// writeShards writes CLUSTER SHARDS: per primary, "slots" (start and
// end of each run, flat) and "nodes" (the primary, then its replicas
// with role "replica"; Redis 7.0's fields).
func writeShards(c *client, cs *clusterState) {
	var primaries []*cluster.Node
	for _, n := range cs.m.Nodes {
		if n.Primary == nil {
			primaries = append(primaries, n)
		}
	}
	c.w.WriteArray(len(primaries))
	for _, n := range primaries {
		runs := cs.m.Runs(n)
		c.writeMapLen(2)
		c.w.WriteBulkString("slots")
		c.w.WriteArray(2 * len(runs))
		for _, r := range runs {
			c.w.WriteInt(r.Start)
			c.w.WriteInt(r.End)
		}
		c.w.WriteBulkString("nodes")
		replicas := cs.m.Replicas(n)
		c.w.WriteArray(1 + len(replicas))
		writeShardNode(c, n, "master")
		for _, r := range replicas {
			writeShardNode(c, r, "replica")
		}
	}
}

// writeShardNode writes one node of CLUSTER SHARDS.
func writeShardNode(c *client, n *cluster.Node, role string) {
	c.writeMapLen(7)
	c.w.WriteBulkString("id")
	c.w.WriteBulkString(n.ID)
	c.w.WriteBulkString("port")
	c.w.WriteInt(n.Port)
	for _, k := range []string{"ip", "endpoint"} {
		c.w.WriteBulkString(k)
		c.w.WriteBulkString(n.Host)
	}
	c.w.WriteBulkString("role")
	c.w.WriteBulkString(role)
	c.w.WriteBulkString("replication-offset")
	c.w.WriteInt(0)
	c.w.WriteBulkString("health")
	c.w.WriteBulkString("online")
}

// nodesText is CLUSTER NODES: one line per node, "id host:port@cport
// flags master ping-sent pong-recv config-epoch link-state slot...",
// the cluster bus port given as port+10000 as Redis does (there is no
// bus), the config epoch as the node's line number in the file. A
// replica's line has the flag slave, its primary's id for master, its
// primary's epoch, and no slots.
func nodesText(cs *clusterState) string {
	epoch := map[*cluster.Node]int{}
	for i, n := range cs.m.Nodes {
		epoch[n] = i + 1
	}
	var sb strings.Builder
	for _, n := range cs.m.Nodes {
		role, master, ep := "master", "-", epoch[n]
		if n.Primary != nil {
			role, master, ep = "slave", n.Primary.ID, epoch[n.Primary]
		}
		flags := role
		if n == cs.me {
			flags = "myself," + role
		}
		fmt.Fprintf(&sb, "%s %s@%d %s %s 0 0 %d connected", n.ID, n.Endpoint(), n.Port+10000, flags, master, ep)
		for _, r := range cs.m.Runs(n) {
			if r.Start == r.End {
				fmt.Fprintf(&sb, " %d", r.Start)
			} else {
				fmt.Fprintf(&sb, " %d-%d", r.Start, r.End)
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// infoText is CLUSTER INFO, with r the readiness of cs's slots
// (cluster_ready.go). cluster_state is "fail" while some slot is not
// served (no owner, or with failover an owner that does not hold its
// lease or has not drained: keys there get CLUSTERDOWN or TRYAGAIN),
// as Redis reports it with cluster-require-full-coverage;
// cluster_slots_ok counts the slots served, cluster_slots_fail the
// others assigned. mmapbloom_serving is 1 when this node serves every
// slot it owns now; mmapbloom_paused_slots counts the slots
// MBF.MIGRATE paused on this node.
func infoText(cs *clusterState, r readiness) string {
	state, assigned, size, my := "ok", cs.m.Assigned(), 0, 0
	if r.ok < cluster.Slots {
		state = "fail"
	}
	for i, n := range cs.m.Nodes {
		if len(n.Slots) > 0 {
			size++
		}
		if n == cs.me {
			my = i + 1
		}
	}
	var sb strings.Builder
	for _, kv := range [][2]any{
		{"cluster_state", state}, {"cluster_slots_assigned", assigned}, {"cluster_slots_ok", r.ok},
		{"cluster_slots_pfail", 0}, {"cluster_slots_fail", assigned - r.ok}, {"cluster_known_nodes", len(cs.m.Nodes)},
		{"cluster_size", size}, {"cluster_current_epoch", len(cs.m.Nodes)}, {"cluster_my_epoch", my},
		{"cluster_stats_messages_sent", 0}, {"cluster_stats_messages_received", 0},
		{"total_cluster_links_buffer_limit_exceeded", 0}, {"mmapbloom_serving", boolDigit(r.serving)},
		{"mmapbloom_paused_slots", slotCount(cs.paused)},
	} {
		fmt.Fprintf(&sb, "%s:%v\r\n", kv[0], kv[1])
	}
	return sb.String()
}

// keysInSlot answers CLUSTER COUNTKEYSINSLOT slot and CLUSTER
// GETKEYSINSLOT slot count from the keys in the data directory.
func keysInSlot(c *client, args [][]byte) {
	slot, err := strconv.Atoi(string(args[2]))
	if err != nil || slot < 0 || slot >= cluster.Slots {
		c.w.WriteError("ERR Invalid slot")
		return
	}
	limit := -1
	if len(args) == 4 {
		if limit, err = strconv.Atoi(string(args[3])); err != nil || limit < 0 {
			c.w.WriteError("ERR Invalid number of keys")
			return
		}
	}
	keys, err := c.s.store.Keys()
	if err != nil {
		c.replyErr(err)
		return
	}
	var in []string
	for _, k := range keys {
		if cluster.KeySlot([]byte(k)) == slot && (limit < 0 || len(in) < limit) {
			in = append(in, k)
		}
	}
	if limit < 0 {
		c.w.WriteInt(len(in))
		return
	}
	c.w.WriteArray(len(in))
	for _, k := range in {
		c.w.WriteBulkString(k)
	}
}
