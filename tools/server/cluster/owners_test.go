package cluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ownersConf = `
a  127.0.0.1:7001 0-8191
a1 127.0.0.1:7011 replica-of a
a2 127.0.0.1:7012 replica-of a
b  127.0.0.1:7002 8192-16383
b1 127.0.0.1:7021 replica-of b
`

func TestWithOwners(t *testing.T) {
	m, err := Parse(strings.NewReader(ownersConf))
	require.NoError(t, err)
	for _, owners := range []map[string]string{nil, {"a": "a"}, {"a": ""}, {"a": "zz"}, {"z": "a1"}} {
		require.Same(t, m, m.WithOwners(owners), "%v: no shard moved", owners)
	}

	w := m.WithOwners(map[string]string{"a": "a2", "b": "b"})
	require.NotSame(t, m, w)
	ids := func(ns []*Node) (out []string) {
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	node := func(id string) *Node { n, err := w.Node(id); require.NoError(t, err); return n }
	assert.Equal(t, "a2", w.Owner(0).ID)
	assert.Equal(t, "a2", w.Owner(8191).ID)
	assert.Equal(t, "b", w.Owner(8192).ID)
	assert.Equal(t, []Range{{0, 8191}}, w.Runs(node("a2")))
	assert.Empty(t, w.Runs(node("a")))
	assert.Equal(t, []string{"a", "a1"}, ids(w.Replicas(node("a2"))), "the old primary rejoins as a replica")
	assert.Equal(t, []string{"b1"}, ids(w.Replicas(node("b"))))
	assert.Equal(t, []string{"a2", "b"}, ids(w.Shards()))
	assert.Equal(t, Slots, w.Assigned())

	// m is untouched.
	assert.Equal(t, "a", m.Owner(0).ID)
	a2, _ := m.Node("a2")
	assert.Equal(t, "a", a2.Primary.ID)
	assert.Equal(t, []string{"a", "b"}, ids(m.Shards()))
}

// TestWithOwnersSuccessor: with a replication log, a primary that
// follows another's slots may take its shard: it then owns both ranges,
// and the old primary (and its replicas) are its replicas.
func TestWithOwnersSuccessor(t *testing.T) {
	m, err := Parse(strings.NewReader(ownersConf))
	require.NoError(t, err)
	a, _ := m.Node("a")
	b, _ := m.Node("b")
	assert.Equal(t, []*Node{b}, m.Successors(a, 2), "two shards: one successor")
	assert.Equal(t, []*Node{a}, m.Successors(b, 2), "a ring")
	a1, _ := m.Node("a1")
	assert.Empty(t, m.Successors(a1, 2), "a replica has none")

	w := m.WithOwners(map[string]string{"a": "b"})
	wb, _ := w.Node("b")
	assert.Equal(t, []Range{{0, 16383}}, w.Runs(wb))
	assert.Equal(t, []Range{{0, 8191}, {8192, 16383}}, wb.Slots)
	assert.Nil(t, wb.Primary)
	for _, id := range []string{"a", "a1", "a2", "b1"} {
		n, _ := w.Node(id)
		assert.Same(t, wb, n.Primary, "%s replicates the owner of both shards", id)
		assert.Empty(t, n.Slots, id)
	}
	assert.Equal(t, []string{"b"}, func() (ids []string) {
		for _, n := range w.Shards() {
			ids = append(ids, n.ID)
		}
		return ids
	}())

	three, err := Parse(strings.NewReader("n1 127.0.0.1:1 0-99\nn2 127.0.0.1:2 100-199\nn3 127.0.0.1:3 200-16383\n"))
	require.NoError(t, err)
	n1, _ := three.Node("n1")
	n2, _ := three.Node("n2")
	n3, _ := three.Node("n3")
	assert.Equal(t, []*Node{n2, n3}, three.Successors(n1, 2))
	assert.Equal(t, []*Node{n1, n2}, three.Successors(n3, 2))
	assert.Equal(t, []*Node{n3}, three.Successors(n2, 1))
}
