package cluster

import "errors"

// Errors of Parse and Load, wrapped with the file, line and value.
var (
	// ErrSyntax is a line that is not `ID HOST:PORT SLOTS` nor `ID
	// HOST:PORT replica-of PRIMARY_ID`, or a bad
	// node id, address or slot range.
	ErrSyntax = errors.New("bad cluster config line")

	// ErrOverlap is a slot given to two nodes, or twice to one.
	ErrOverlap = errors.New("slot assigned twice")

	// ErrDuplicate is a node id or address listed twice.
	ErrDuplicate = errors.New("node listed twice")

	// ErrUnknownNode is a node id the map does not list (also a
	// replica's primary).
	ErrUnknownNode = errors.New("node id not in the cluster config")

	// ErrReplicaChain is a replica following itself or another replica:
	// a replica follows a primary.
	ErrReplicaChain = errors.New("a replica must follow a primary")
)
