package server

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// A write whose record is larger than the log's record bound
// (Log.MaxRecordBytes: half of NATS's max_payload, less a message's
// envelope) is published as several records that each fit, of the same
// command, applied one after another in the stream's order (a node's
// records reach the stream in the order it submits them), each on its
// own:
//
//   - BF.MADD and BF.INSERT: the items in parts, each part the same
//     command with the same options (they decide only a creation, which
//     the first part applied makes); adds commute, so the parts may be
//     applied again on replay as any add is. The reply joins the parts'
//     arrays (joinArrays).
//   - BF.LOADCHUNK key iterator data: the piece in sub-pieces, each the
//     BF.LOADCHUNK of its own bytes at its own offset (the iterator of a
//     piece is one past its end); a load takes pieces in order, so the
//     sub-pieces load as the piece would. The reply is the first error
//     of a sub-piece, else the last one's (joinLast).
//   - A run of a pipeline's BF.ADDs of one key (submitAdds): several
//     OpAdd records, each answering its own commands.
//
// A write that cannot be split so (one item, or a load's header, larger
// than the bound; another command) is refused at the origin before
// anything is published: ERR naming the limit (replication.ErrTooLarge),
// which no retry can fix.

// joinKind is how the replies of a split write's records make its reply.
type joinKind int

const (
	joinArrays joinKind = iota // BF.MADD, BF.INSERT: one array of every part's elements
	joinLast                   // BF.LOADCHUNK: the first error, else the last reply
)

// splitWrite returns the records of rec, the record of a logged write
// command name (recordOf), and how their replies join: rec when it fits
// most bytes or cannot be split, else its parts that each fit.
func splitWrite(rec replication.Record, name string, most int) ([]replication.Record, joinKind) {
	if rec.Op != replication.OpCommand || replication.RecordSize(rec) <= most {
		return []replication.Record{rec}, joinLast
	}
	fields := rec.Fields
	switch name {
	case "bf.madd":
		if parts := splitItems(fields, 2, most); parts != nil {
			return parts, joinArrays
		}
	case "bf.insert":
		if at := itemsAt(fields); at > 0 {
			if parts := splitItems(fields, at, most); parts != nil {
				return parts, joinArrays
			}
		}
	case "bf.loadchunk":
		if parts := splitChunk(fields, most); parts != nil {
			return parts, joinLast
		}
	}
	return []replication.Record{rec}, joinLast
}

// itemsAt is the index of BF.INSERT's first item (after ITEMS), 0 when
// there is none.
func itemsAt(fields [][]byte) int {
	for i := 2; i < len(fields)-1; i++ {
		if strings.EqualFold(string(fields[i]), "ITEMS") {
			return i + 1
		}
	}
	return 0
}

// splitItems returns OpCommand records of fields[:start] followed by
// fields[start:] in parts, each record at most most bytes, or nil when
// one item alone does not fit.
func splitItems(fields [][]byte, start, most int) []replication.Record {
	prefix := fields[:start]
	// the fields' count may take up to MaxVarintLen32 bytes
	base := replication.RecordSize(replication.Record{Fields: prefix}) + binary.MaxVarintLen32
	var parts []replication.Record
	for i := start; i < len(fields); {
		part, size := append([][]byte(nil), prefix...), base
		for ; i < len(fields) && size+replication.FieldSize(fields[i]) <= most; i++ {
			part, size = append(part, fields[i]), size+replication.FieldSize(fields[i])
		}
		if len(part) == len(prefix) {
			return nil
		}
		parts = append(parts, replication.Record{Op: replication.OpCommand, Fields: part})
	}
	return parts
}

// splitChunk returns the BF.LOADCHUNK records of fields' piece (a fixed
// filter's, or a set layer's: iterator layer<<layerBits | end+1) in
// sub-pieces, each record at most most bytes, or nil when the piece is
// not one of a bit array (a header, a set's first chunk, a bad
// iterator) or the command's other fields leave no room.
func splitChunk(fields [][]byte, most int) []replication.Record {
	it, ok := parseInt(fields[2])
	data := fields[3]
	if !ok || it < 0 || it&layerMask-int64(len(data)) < 1 {
		return nil
	}
	longest := []byte(strconv.FormatInt(math.MaxInt64, 10))
	room := most - replication.RecordSize(replication.Record{Fields: [][]byte{fields[0], fields[1], longest, nil}}) - binary.MaxVarintLen32
	if room < 1 {
		return nil
	}
	start := it - int64(len(data))
	var parts []replication.Record
	for a := 0; a < len(data); a += room {
		b := min(a+room, len(data))
		parts = append(parts, replication.Record{Op: replication.OpCommand,
			Fields: [][]byte{fields[0], fields[1], strconv.AppendInt(nil, start+int64(b), 10), data[a:b]}})
	}
	return parts
}

// joinReplies is the reply of a split write from its parts' RESP2
// replies, as join says.
func joinReplies(join joinKind, parts [][]byte) []byte {
	if join == joinArrays {
		return joinArrayReplies(parts)
	}
	for _, p := range parts {
		if isErrorReply(p) {
			return p
		}
	}
	return parts[len(parts)-1]
}

// joinArrayReplies joins the replies of BF.MADD or BF.INSERT parts: an
// error of the first part is the reply; else one array of the parts'
// elements, ended by the first error among them (a full NONSCALING
// filter ends a part's array so, and the items after it are not added),
// or by a later part's error reply.
func joinArrayReplies(parts [][]byte) []byte {
	if isErrorReply(parts[0]) {
		return parts[0]
	}
	var elems [][]byte
	for _, p := range parts {
		if isErrorReply(p) {
			elems = append(elems, p)
			break
		}
		_, body, _ := bytes.Cut(p, []byte("\r\n")) // after *N
		es := bytes.SplitAfter(body, []byte("\r\n"))
		es = es[:len(es)-1] // the empty rest after the last CRLF
		elems = append(elems, es...)
		if len(es) > 0 && isErrorReply(es[len(es)-1]) {
			break
		}
	}
	out := append(append([]byte{'*'}, strconv.Itoa(len(elems))...), '\r', '\n')
	return append(out, bytes.Join(elems, nil)...)
}

// isErrorReply reports whether a RESP reply is an error.
func isErrorReply(p []byte) bool { return len(p) > 0 && p[0] == '-' }

// protoMaxBulkLen is CONFIG GET proto-max-bulk-len: the largest bulk
// argument a command may carry, --max-request, or with the log the
// largest item a write takes (its record holds the item beside the
// command's other fields, within chunkRoom): the log's record bound
// (replication.DefaultMaxBatchBytes until the log opens) less
// chunkRoom. BF.LOADCHUNK's data is split and may be longer.
func (s *Server) protoMaxBulkLen() int {
	if s.repl == nil {
		return s.cfg.MaxRequest
	}
	most := replication.DefaultMaxBatchBytes
	if log := s.repl.log(); log != nil {
		most = log.MaxRecordBytes()
	}
	return max(0, min(s.cfg.MaxRequest, most-chunkRoom))
}
