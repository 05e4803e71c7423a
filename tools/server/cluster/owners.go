package cluster

// Shards and their current owners: the config file names each shard's
// initial owner (a primary's line) and the replicas that may take it
// over (its replica-of lines); with failover, leases name the current
// owner (package lease), and WithOwners derives the map clients see.

// Shards returns the config's primaries, in file order: each is one
// shard, its slots and its replicas, named by the primary's id.
func (m *Map) Shards() []*Node {
	var out []*Node
	for _, n := range m.Nodes {
		if n.Primary == nil {
			out = append(out, n)
		}
	}
	return out
}

// WithOwners returns the map with each shard owned by its current
// owner: owners maps a shard (its config primary's id) to the node now
// owning it, which must be that primary or one of its replicas (any
// other id, "" or a missing shard keep the config's owner). A shard
// taken by replica R gives R the primary's slots, and makes the config
// primary and the other replicas replicas of R, as Redis shows a
// promoted replica. m itself is returned unchanged when no shard moved;
// the result shares nothing with m.
func (m *Map) WithOwners(owners map[string]string) *Map {
	moved := map[*Node]*Node{} // config primary -> its current owner
	for _, p := range m.Shards() {
		for _, r := range m.Replicas(p) {
			if owners[p.ID] == r.ID {
				moved[p] = r
			}
		}
	}
	if len(moved) == 0 {
		return m
	}
	copies := map[*Node]*Node{}
	for _, n := range m.Nodes {
		c := *n
		copies[n] = &c
	}
	out := &Map{}
	for _, n := range m.Nodes {
		c := copies[n]
		out.Nodes = append(out.Nodes, c)
		p := n
		if n.Primary != nil {
			p = n.Primary
		}
		if owner, ok := moved[p]; ok {
			c.Slots, c.Primary = nil, copies[owner]
			if n == owner {
				c.Slots, c.Primary = p.Slots, nil
			}
		} else if n.Primary != nil {
			c.Primary = copies[n.Primary]
		}
		for _, r := range c.Slots {
			for s := r.Start; s <= r.End; s++ {
				out.owner[s] = c
			}
		}
	}
	return out
}
