package server

import (
	"errors"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// An error a record's command meets where a node applies it is one of
// two things. It is the record's result when every node meets it at
// that place in the log and the origin answers its client with it: the
// command's ordinary error reply (a missing or existing key, a key too
// long for a file name, a full NONSCALING filter, bad load data, a bad
// argument). The node records the record as applied, as it would a
// success. Or it is this node's own failure: its disk past
// --disk-reserve or full, an I/O error, no descriptors, a file changed
// or open in another process. Then the stream stops at the record on
// this node (applier.Apply returns the error) until it applies. A
// refusal by a limit of the flags (--max-filter-bytes, --max-layers,
// --max-client-loads) is the record's result where the origin runs with
// the same limits, and this node's failure where it does not
// (peerLimits).

// applyKind is what an error met applying a record is.
type applyKind int

const (
	// applyResult: the record's result on every node; recorded.
	applyResult applyKind = iota
	// applyLimit: a refusal by a limit of this node's flags; the
	// record's result where the origin's limits are the same.
	applyLimit
	// applyLocal: this node's failure; its stream stops at the record.
	applyLocal
)

// recordErrors are the errors a logged write meets alike on every node
// at its place in the log, whatever each node's disk and files: the
// state they depend on is the log's.
var recordErrors = []error{
	ErrNotFound, ErrKeyExists, ErrBadKey, errFoldFixed, errFoldReserve,
	errNonScalingFull, errMergeSet, errBadData, errChunkOffset, errChunkTooBig, errChunkLiveKey,
	mmapbloom.ErrInvalidP, mmapbloom.ErrInvalidN, mmapbloom.ErrInvalidK, mmapbloom.ErrInvalidM,
	mmapbloom.ErrTooLarge, mmapbloom.ErrBadOptions, mmapbloom.ErrOptionDiffers, mmapbloom.ErrMismatch,
}

// classify tells what err, met running a record's command, is: a
// limit's refusal by its kind, one of recordErrors the record's result,
// anything else this node's failure. An error left out of recordErrors
// stops a stream that could have gone on (unavailable); one wrongly in
// it would record as applied a record this node does not hold (wrong).
func classify(err error) applyKind {
	var lim *store.LimitError
	switch {
	case err == nil:
		return applyResult
	case errors.As(err, &lim) && lim.Local():
		return applyLocal
	case lim != nil:
		return applyLimit
	}
	for _, r := range recordErrors {
		if errors.Is(err, r) {
			return applyResult
		}
	}
	return applyLocal
}
