package cluster

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// Range is the slots Start to End, both included.
type Range struct{ Start, End int }

// Node is one line of the cluster config: a node's id, the address
// clients reach it at, and the slots it owns (ordered, not overlapping),
// or, for a replica, the primary it follows (a replica owns no slots).
type Node struct {
	ID      string
	Addr    string // host:port
	Host    string
	Port    int
	Slots   []Range
	Primary *Node // the node this replica follows; nil for a primary
	// NATS is the address (HOST:PORT) of the node's embedded NATS
	// cluster routes, from an optional last field `nats=HOST:PORT`
	// (serve --replication jetstream); "" when not given.
	NATS string
	line int // line number in the file, for errors
}

// Endpoint is the node's address as Redis writes it in MOVED and
// CLUSTER NODES: HOST:PORT with no brackets around an IPv6 host
// (`::1:7001`; clients split at the last colon), where Addr keeps the
// file's form (`[::1]:7001`) for dialing.
func (n *Node) Endpoint() string { return n.Host + ":" + strconv.Itoa(n.Port) }

// replicaOf is the second field of a replica's line.
const replicaOf = "replica-of"

// Map is a parsed cluster config: the nodes in file order and the owner
// of every slot.
type Map struct {
	Nodes []*Node
	owner [Slots]*Node
}

// MaxIDBytes is the longest node id (Redis's ids are 40 hex digits).
const MaxIDBytes = 40

// Load reads and parses the cluster config file at path.
func Load(path string) (*Map, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster config: %w", err)
	}
	m, err := Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse reads a cluster config: one node a line, `ID HOST:PORT SLOTS`
// (each line may end with `nats=HOST:PORT`, the node's NATS route address),
// SLOTS as `START-END[,START-END...]` (a single slot may be written
// `N`; `-` means none) over 0-16383, or `ID HOST:PORT replica-of
// PRIMARY_ID` for a replica of the primary PRIMARY_ID, listed anywhere in
// the file. Blank lines and lines starting with '#' are skipped. Gaps
// (slots no node owns) are allowed; overlaps, duplicate ids or
// addresses, and a replica of a node not in the file, of itself or of a
// replica are errors (ErrSyntax, ErrOverlap, ErrDuplicate,
// ErrUnknownNode, ErrReplicaChain), wrapped with the line number.
func Parse(r io.Reader) (*Map, error) {
	m := &Map{}
	ids, addrs := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		n, err := parseNode(text)
		if err == nil && (ids[n.ID] || addrs[n.Addr]) {
			err = fmt.Errorf("%w: %s %s", ErrDuplicate, n.ID, n.Addr)
		}
		if err == nil {
			err = m.assign(n)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		ids[n.ID], addrs[n.Addr] = true, true
		n.line = line
		m.Nodes = append(m.Nodes, n)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cluster config: %w", err)
	}
	if err := m.linkReplicas(); err != nil {
		return nil, err
	}
	return m, nil
}

// linkReplicas points every replica at its primary, which must be a
// node of the file other than itself and not a replica.
func (m *Map) linkReplicas() error {
	for _, n := range m.Nodes {
		if n.Primary == nil {
			continue
		}
		p, err := m.Node(n.Primary.ID)
		switch {
		case err != nil:
			return fmt.Errorf("line %d: replica %s: primary: %w", n.line, n.ID, err)
		case p == n || p.Primary != nil:
			return fmt.Errorf("line %d: %w: %s follows %s, which is itself or a replica", n.line, ErrReplicaChain, n.ID, p.ID)
		}
		n.Primary = p
	}
	return nil
}

// parseNode parses one `ID HOST:PORT SLOTS` or `ID HOST:PORT replica-of
// PRIMARY_ID` line; a replica's Primary holds only the id until
// linkReplicas.
func parseNode(text string) (*Node, error) {
	f := strings.Fields(text)
	natsAddr, err := cutNATS(&f)
	if err != nil {
		return nil, err
	}
	n, err := parseFields(f)
	if n != nil {
		n.NATS = natsAddr
	}
	return n, err
}

// natsPrefix starts the optional last field giving a node's NATS route
// address.
const natsPrefix = "nats="

// cutNATS removes a last field `nats=HOST:PORT` from f and returns its
// address ("" when there is none).
func cutNATS(f *[]string) (string, error) {
	k := len(*f)
	if k == 0 {
		return "", nil
	}
	v, ok := strings.CutPrefix((*f)[k-1], natsPrefix)
	if !ok {
		return "", nil
	}
	host, ps, err := net.SplitHostPort(v)
	port, perr := strconv.Atoi(ps)
	if err != nil || perr != nil || host == "" || port < 1 || port > 65535 {
		return "", fmt.Errorf("%w: %s%s: want %sHOST:PORT", ErrSyntax, natsPrefix, v, natsPrefix)
	}
	*f = (*f)[:k-1]
	return v, nil
}

// parseFields parses a line's fields without its nats= field.
func parseFields(f []string) (*Node, error) {
	replica := len(f) == 4 && f[2] == replicaOf
	if len(f) != 3 && !replica {
		return nil, fmt.Errorf("%w: want `ID HOST:PORT SLOTS` or `ID HOST:PORT replica-of PRIMARY_ID`, got %d fields", ErrSyntax, len(f))
	}
	if !validID(f[0]) {
		return nil, fmt.Errorf("%w: node id %q: want 1 to %d of [A-Za-z0-9_-]", ErrSyntax, f[0], MaxIDBytes)
	}
	host, ps, err := net.SplitHostPort(f[1])
	port, perr := strconv.Atoi(ps)
	if err != nil || perr != nil || host == "" || port < 1 || port > 65535 {
		return nil, fmt.Errorf("%w: address %q: want HOST:PORT", ErrSyntax, f[1])
	}
	n := &Node{ID: f[0], Addr: f[1], Host: host, Port: port}
	if replica {
		if !validID(f[3]) {
			return nil, fmt.Errorf("%w: primary id %q: want 1 to %d of [A-Za-z0-9_-]", ErrSyntax, f[3], MaxIDBytes)
		}
		n.Primary = &Node{ID: f[3]}
		return n, nil
	}
	n.Slots, err = ParseRanges(f[2])
	if err != nil {
		return nil, err
	}
	return n, nil
}

func validID(id string) bool {
	if id == "" || len(id) > MaxIDBytes {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ParseRanges parses `START-END[,START-END...]` (or `N`, or `-` for
// none) over 0-16383, each START <= END. The ranges are returned in the
// order given; overlaps are left to the caller.
func ParseRanges(s string) ([]Range, error) {
	if s == "-" {
		return nil, nil
	}
	var out []Range
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		if !isRange {
			b = a
		}
		start, err1 := parseSlot(a)
		end, err2 := parseSlot(b)
		if err1 != nil || err2 != nil || start > end {
			return nil, fmt.Errorf("%w: slot range %q: want START-END within 0-%d, START <= END", ErrSyntax, part, Slots-1)
		}
		out = append(out, Range{start, end})
	}
	return out, nil
}

func parseSlot(s string) (int, error) {
	if s == "" || len(s) > 5 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, ErrSyntax
	}
	v, _ := strconv.Atoi(s)
	if v >= Slots {
		return 0, ErrSyntax
	}
	return v, nil
}

// assign records n as the owner of its slots.
func (m *Map) assign(n *Node) error {
	for _, r := range n.Slots {
		for s := r.Start; s <= r.End; s++ {
			if o := m.owner[s]; o != nil {
				return fmt.Errorf("%w: slot %d of node %s already belongs to node %s", ErrOverlap, s, n.ID, o.ID)
			}
			m.owner[s] = n
		}
	}
	return nil
}

// Owner returns the node owning slot, or nil when no node does.
func (m *Map) Owner(slot int) *Node { return m.owner[slot] }

// Node returns the node with id, or an error wrapping ErrUnknownNode.
func (m *Map) Node(id string) (*Node, error) {
	for _, n := range m.Nodes {
		if n.ID == id {
			return n, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownNode, id)
}

// Replicas returns the replicas of primary p, in file order.
func (m *Map) Replicas(p *Node) []*Node {
	var out []*Node
	for _, n := range m.Nodes {
		if n.Primary == p {
			out = append(out, n)
		}
	}
	return out
}

// Assigned returns how many slots some node owns (Slots: full coverage).
func (m *Map) Assigned() int {
	n := 0
	for _, o := range m.owner {
		if o != nil {
			n++
		}
	}
	return n
}

// Owns reports whether every slot of r belongs to n.
func (m *Map) Owns(n *Node, r Range) bool {
	for s := r.Start; s <= r.End; s++ {
		if m.owner[s] != n {
			return false
		}
	}
	return true
}

// Runs returns the slots n owns as maximal runs of consecutive slots,
// in slot order (how CLUSTER SLOTS and CLUSTER NODES list them).
func (m *Map) Runs(n *Node) []Range {
	var out []Range
	for s := 0; s < Slots; s++ {
		if m.owner[s] != n {
			continue
		}
		if k := len(out); k > 0 && out[k-1].End == s-1 {
			out[k-1].End = s
		} else {
			out = append(out, Range{s, s})
		}
	}
	return out
}
