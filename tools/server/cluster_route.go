package server

import (
	"fmt"
	"strconv"

	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
)

// clusterState is a node's view of the cluster: the map read from the
// config file, this node's entry, and the slot ranges paused by
// MBF.MIGRATE. It is never changed once published; a reload or a pause
// publishes a new one. With failover, m is the config file's map (config)
// with the lease holders as owners, blocked the slots this node owns
// but may not serve now, and leased those it serves while their lease
// is valid (cluster_failover.go, cluster_lease.go).
type clusterState struct {
	m       *cluster.Map
	me      *cluster.Node
	paused  []cluster.Range
	config  *cluster.Map
	blocked []blockedRange
	leased  []leasedRange
}

// loadCluster reads the config file and returns the state of node id
// in it, keeping from old the paused ranges this node still owns.
func loadCluster(path, id string, old *clusterState) (*clusterState, error) {
	m, err := cluster.Load(path)
	if err != nil {
		return nil, err
	}
	me, err := m.Node(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cs := &clusterState{m: m, me: me, config: m}
	if old != nil {
		for _, r := range old.paused {
			if m.Owns(me, r) {
				cs.paused = append(cs.paused, r)
			}
		}
	}
	return cs, nil
}

// Reload re-reads the cluster config file and applies it, closing the
// open filters of the slots this node gains or loses before it serves
// them again (dropMoved); on an error the node keeps its current config.
// It returns ErrNotCluster when the server was started without one.
func (s *Server) Reload() error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	old := s.cluster.Load()
	if old == nil {
		return ErrNotCluster
	}
	cs, err := loadCluster(s.cfg.ClusterConfig, s.cfg.NodeID, old)
	if err != nil {
		return err
	}
	cs = s.withLeases(cs)
	s.gate.Lock() // no keyed command runs while the moved slots' files close
	s.cluster.Store(cs)
	s.dropMoved(old, cs)
	s.gate.Unlock()
	s.cfg.Log.Printf("cluster config reloaded: %d nodes, %d slots assigned, %d owned here",
		len(cs.m.Nodes), cs.m.Assigned(), slotCount(cs.m.Runs(cs.me)))
	return nil
}

func slotCount(rs []cluster.Range) int {
	n := 0
	for _, r := range rs {
		n += r.End - r.Start + 1
	}
	return n
}

// enter decides whether this node serves a keyed command in cluster
// mode. It returns "" when the command may run, holding the read side
// of the migration gate (the caller must call s.leave), else the
// redirection or error to answer: MOVED, TRYAGAIN (the slot is paused
// by MBF.MIGRATE), CROSSSLOT or CLUSTERDOWN (also for a slot whose lease
// is no longer valid, cluster_lease.go). On a replica, c's READONLY
// decides whether a read runs (see route).
func (s *Server) enter(c *client, cmd *command, args [][]byte) string {
	if cmd.first == 0 || s.cluster.Load() == nil {
		return ""
	}
	slot, ok := keysSlot(cmd, args)
	if !ok {
		return msgCrossSlot
	}
	if msg := s.confirmRead(cmd, slot); msg != "" {
		return msg
	}
	s.gate.RLock()
	cs := s.cluster.Load()
	msg := cs.route(slot, cmd, c.readonly)
	if msg == "" {
		msg = s.rebuilding(cs, cmd, slot)
	}
	if msg == "" {
		msg = s.leaseLapsed(c, cs, slot)
	}
	if msg != "" {
		s.gate.RUnlock()
	}
	return msg
}

// msgCrossSlot is Redis Cluster's reply to a command, or a transaction,
// whose keys lie in more than one slot.
const msgCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot"

// keysSlot returns the slot of the keys of a call of cmd (-1: it has no
// key), and ok = false when they lie in more than one slot.
func keysSlot(cmd *command, args [][]byte) (slot int, ok bool) {
	slot = -1
	for i, last := cmd.first, cmd.lastKey(len(args)); cmd.first > 0 && i <= last; i += cmd.step {
		sl := cluster.KeySlot(args[i])
		if slot >= 0 && sl != slot {
			return slot, false
		}
		slot = sl
	}
	return slot, true
}

// leave ends what enter began for cmd.
func (s *Server) leave(cmd *command) {
	if cmd.first != 0 && s.cluster.Load() != nil {
		s.gate.RUnlock()
	}
}

// check returns the reply for a key in slot that this node does not
// serve now, or "".
func (cs *clusterState) check(slot int) string {
	if slot < 0 {
		return ""
	}
	owner := cs.m.Owner(slot)
	switch {
	case owner == nil:
		return "CLUSTERDOWN Hash slot not served"
	case owner != cs.me:
		return "MOVED " + strconv.Itoa(slot) + " " + owner.Endpoint()
	}
	for _, r := range cs.paused {
		if r.Start <= slot && slot <= r.End {
			return msgDraining
		}
	}
	for _, b := range cs.blocked {
		if b.r.Start <= slot && slot <= b.r.End {
			return b.msg
		}
	}
	return ""
}

// dropMoved closes the open filters of the keys (and folded buckets)
// with a slot that old or cs serves and the other does not.
func (s *Server) dropMoved(old, cs *clusterState) {
	width := cluster.Slots / max(s.cfg.FoldBuckets, 1)
	s.store.Drop(func(stem string) bool {
		lo, hi, ok := stemSlots(stem, width)
		for slot := lo; ok && slot <= hi; slot++ {
			if old.serves(slot) != cs.serves(slot) {
				return true
			}
		}
		return false
	})
}

// stemSlots returns the slots of the filter named stem: its key's slot,
// or its bucket's slots (width of them) for a folded bucket.
func stemSlots(stem string, width int) (lo, hi int, ok bool) {
	if key, _, ok := keyname.KeyOf(stem + keyname.FileSuffix); ok {
		slot := cluster.KeySlot([]byte(key))
		return slot, slot, true
	}
	if _, bucket, _, ok := keyname.FoldedOf(stem + keyname.SetSuffix); ok {
		return bucket * width, (bucket+1)*width - 1, true
	}
	return 0, 0, false
}

// serves reports whether this node answers keys of slot: it owns it,
// or, on a replica, its primary does.
func (cs *clusterState) serves(slot int) bool {
	o := cs.m.Owner(slot)
	return o != nil && (o == cs.me || o == cs.me.Primary)
}
