package cluster

import "errors"

// Errors of Parse and Load, wrapped with the file, line and value.
var (
	// ErrSyntax is a line that is not `ID HOST:PORT SLOTS`, or a bad
	// node id, address or slot range.
	ErrSyntax = errors.New("bad cluster config line")

	// ErrOverlap is a slot given to two nodes, or twice to one.
	ErrOverlap = errors.New("slot assigned twice")

	// ErrDuplicate is a node id or address listed twice.
	ErrDuplicate = errors.New("node listed twice")

	// ErrUnknownNode is a node id the map does not list.
	ErrUnknownNode = errors.New("node id not in the cluster config")
)
