package cluster

import (
	"cmp"
	"slices"
)

// Shards and their current owners: the config file names each shard's
// initial owner (a primary's line) and the nodes that may take it over
// (its replica-of lines, and with a replication log the primaries that
// follow the log of its slots, Successors); with failover, leases name
// the current owner (package lease), and WithOwners derives the map
// clients see.

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

// Successors returns the at most n primaries after primary p in file
// order, wrapping around (a ring), never p itself: with a replication
// log they apply p's slots too, so they may take p's shard over.
func (m *Map) Successors(p *Node, n int) []*Node {
	shards := m.Shards()
	i := slices.Index(shards, p)
	if i < 0 {
		return nil
	}
	var out []*Node
	for d := 1; d <= n && d < len(shards); d++ {
		out = append(out, shards[(i+d)%len(shards)])
	}
	return out
}

// WithOwners returns the map with each shard owned by its current
// owner: owners maps a shard (its config primary's id) to the id of the
// node now owning it, any node of the map ("", an unknown id or a
// missing shard keep the config's owner). A node owning shards has all
// their slots and is a primary; a node owning none is a replica of the
// owner of its own shard (its config primary's, or its own for a
// primary whose shard was taken), as Redis shows a promoted replica's
// old primary. m itself is returned unchanged when no shard moved; the
// result shares nothing with m.
func (m *Map) WithOwners(owners map[string]string) *Map {
	moved := map[*Node]*Node{} // config primary -> its current owner
	for _, p := range m.Shards() {
		if o, err := m.Node(owners[p.ID]); err == nil && o != p {
			moved[p] = o
		}
	}
	if len(moved) == 0 {
		return m
	}
	copies := map[*Node]*Node{}
	out := &Map{}
	for _, n := range m.Nodes {
		c := *n
		c.Slots, c.Primary = nil, nil
		copies[n] = &c
		out.Nodes = append(out.Nodes, &c)
	}
	ownerOf := func(p *Node) *Node { return copies[cmp.Or(moved[p], p)] }
	for _, p := range m.Shards() {
		o := ownerOf(p)
		o.Slots = append(o.Slots, p.Slots...)
		for _, r := range p.Slots {
			for s := r.Start; s <= r.End; s++ {
				out.owner[s] = o
			}
		}
	}
	for _, n := range m.Nodes {
		c, p := copies[n], cmp.Or(n.Primary, n)
		if len(c.Slots) == 0 && ownerOf(p) != c {
			c.Primary = ownerOf(p)
		}
		slices.SortFunc(c.Slots, func(a, b Range) int { return a.Start - b.Start })
	}
	return out
}
