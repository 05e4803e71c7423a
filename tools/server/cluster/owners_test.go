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
	for _, owners := range []map[string]string{nil, {"a": "a"}, {"a": "b"}, {"a": "b1"}, {"a": ""}, {"z": "a1"}} {
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
