package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const threeNodes = `# three nodes
a 127.0.0.1:7001 0-5460
b 127.0.0.1:7002 5461-10922

c 127.0.0.1:7003 10923-16383
`

func TestParse(t *testing.T) {
	m, err := Parse(strings.NewReader(threeNodes))
	require.NoError(t, err)
	require.Len(t, m.Nodes, 3)
	assert.Equal(t, Slots, m.Assigned())
	assert.Equal(t, "a", m.Owner(0).ID)
	assert.Equal(t, "a", m.Owner(5460).ID)
	assert.Equal(t, "b", m.Owner(5461).ID)
	assert.Equal(t, "c", m.Owner(16383).ID)
	b, err := m.Node("b")
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", b.Host)
	assert.Equal(t, 7002, b.Port)
	assert.Equal(t, []Range{{5461, 10922}}, m.Runs(b))
	_, err = m.Node("d")
	assert.ErrorIs(t, err, ErrUnknownNode)
}

func TestParseShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		err        error
		assigned   int
		runsOfA    []Range
	}{
		{"gaps", "a 127.0.0.1:1 0-99\nb 127.0.0.1:2 200-299\n", nil, 200, []Range{{0, 99}}},
		{"several ranges, runs merged", "a h:1 10-19,0-9,30\n", nil, 21, []Range{{0, 19}, {30, 30}}},
		{"no slots", "a h:1 -\nb h:2 0-16383\n", nil, Slots, nil},
		{"empty file", "", nil, 0, nil},
		{"ipv6", "a [::1]:7000 0-16383\n", nil, Slots, []Range{{0, 16383}}},
		{"overlap", "a h:1 0-100\nb h:2 100-200\n", ErrOverlap, 0, nil},
		{"overlap within a node", "a h:1 0-10,5-6\n", ErrOverlap, 0, nil},
		{"duplicate id", "a h:1 0\na h:2 1\n", ErrDuplicate, 0, nil},
		{"duplicate address", "a h:1 0\nb h:1 1\n", ErrDuplicate, 0, nil},
		{"slot too large", "a h:1 0-16384\n", ErrSyntax, 0, nil},
		{"reversed range", "a h:1 10-5\n", ErrSyntax, 0, nil},
		{"negative", "a h:1 -5-10\n", ErrSyntax, 0, nil},
		{"empty part", "a h:1 0-5,\n", ErrSyntax, 0, nil},
		{"plus sign", "a h:1 +5\n", ErrSyntax, 0, nil},
		{"two fields", "a h:1\n", ErrSyntax, 0, nil},
		{"four fields", "a h:1 0 x\n", ErrSyntax, 0, nil},
		{"no port", "a h 0\n", ErrSyntax, 0, nil},
		{"port 0", "a h:0 0\n", ErrSyntax, 0, nil},
		{"port too large", "a h:65536 0\n", ErrSyntax, 0, nil},
		{"empty host", "a :1 0\n", ErrSyntax, 0, nil},
		{"bad id", "a/b h:1 0\n", ErrSyntax, 0, nil},
		{"long id", strings.Repeat("a", 41) + " h:1 0\n", ErrSyntax, 0, nil},
		{"replica", "a h:1 0-16383\nr h:2 replica-of a\n", nil, Slots, []Range{{0, 16383}}},
		{"replica before its primary", "r h:2 replica-of a\na h:1 0-16383\n", nil, Slots, []Range{{0, 16383}}},
		{"replica of an unknown node", "a h:1 0\nr h:2 replica-of b\n", ErrUnknownNode, 0, nil},
		{"replica of itself", "r h:2 replica-of r\n", ErrReplicaChain, 0, nil},
		{"replica of a replica", "a h:1 0\nr h:2 replica-of a\ns h:3 replica-of r\n", ErrReplicaChain, 0, nil},
		{"replica with slots", "a h:1 0\nr h:2 replica-of a 1\n", ErrSyntax, 0, nil},
		{"replica, bad primary id", "a h:1 0\nr h:2 replica-of a/b\n", ErrSyntax, 0, nil},
		{"replica, duplicate address", "a h:1 0\nr h:1 replica-of a\n", ErrDuplicate, 0, nil},
		{"replica-of misspelt", "a h:1 0\nr h:2 replica a\n", ErrSyntax, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(tc.text))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), "line ")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.assigned, m.Assigned())
			if a, err := m.Node("a"); err == nil {
				assert.Equal(t, tc.runsOfA, m.Runs(a))
			}
		})
	}
}

// TestParseReplicas: a replica points at its primary's node, owns no
// slot, and an error names the replica's line.
func TestParseReplicas(t *testing.T) {
	m, err := Parse(strings.NewReader(threeNodes + "ra h:11 replica-of a\nra2 h:12 replica-of a\nrc h:13 replica-of c\n"))
	require.NoError(t, err)
	a, _ := m.Node("a")
	ra, _ := m.Node("ra")
	ra2, _ := m.Node("ra2")
	assert.Same(t, a, ra.Primary)
	assert.Nil(t, a.Primary)
	assert.Equal(t, []*Node{ra, ra2}, m.Replicas(a))
	assert.Empty(t, m.Runs(ra))
	assert.Equal(t, Slots, m.Assigned())
	_, err = Parse(strings.NewReader("a h:1 0\n\n# c\nr h:2 replica-of x\n"))
	require.ErrorIs(t, err, ErrUnknownNode)
	assert.Contains(t, err.Error(), "line 4: replica r")
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.conf")
	_, err := Load(path)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NoError(t, os.WriteFile(path, []byte("a h:1 0\nb h:2 0\n"), 0o644))
	_, err = Load(path)
	require.ErrorIs(t, err, ErrOverlap)
	assert.Contains(t, err.Error(), path+": line 2: ")
	require.NoError(t, os.WriteFile(path, []byte(threeNodes), 0o644))
	m, err := Load(path)
	require.NoError(t, err)
	assert.Len(t, m.Nodes, 3)
}

// FuzzParse: any input parses or fails with an error, never panics; a
// parsed map gives every slot at most one owner, listed in its runs.
func FuzzParse(f *testing.F) {
	f.Add(threeNodes)
	f.Add("a h:1 0-10,20,30-40\n# c\n\nb [::1]:2 -\n")
	f.Add("a h:1 0-16384\n")
	f.Add("a h:1 0-16383\nr h:2 replica-of a\ns h:3 replica-of r\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(strings.NewReader(text))
		if err != nil {
			return
		}
		total := 0
		for _, n := range m.Nodes {
			for _, r := range m.Runs(n) {
				require.True(t, m.Owns(n, r))
				total += r.End - r.Start + 1
			}
		}
		require.Equal(t, m.Assigned(), total)
		for _, n := range m.Nodes {
			if n.Primary != nil {
				require.Empty(t, m.Runs(n), "a replica owns no slot")
				require.Nil(t, n.Primary.Primary, "a replica follows a primary")
				require.Contains(t, m.Replicas(n.Primary), n)
			}
		}
	})
}

// A line may end with nats=HOST:PORT, the node's embedded NATS route
// address; a bad one is a syntax error.
func TestParseNATSField(t *testing.T) {
	m, err := Parse(strings.NewReader("a 127.0.0.1:7001 0-8191 nats=127.0.0.1:6222\nb 127.0.0.1:7002 8192-16383\nc 127.0.0.1:7003 replica-of a nats=[::1]:6224\n"))
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:6222", m.Nodes[0].NATS)
	assert.Equal(t, "", m.Nodes[1].NATS)
	assert.Equal(t, "[::1]:6224", m.Nodes[2].NATS)
	assert.Equal(t, m.Nodes[0], m.Nodes[2].Primary)
	_, err = Parse(strings.NewReader("a 127.0.0.1:7001 0-8191 nats=127.0.0.1\n"))
	assert.ErrorIs(t, err, ErrSyntax)
}
