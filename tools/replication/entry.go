package replication

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Entry format (format/FORMAT.md, "Replication log entries"): one
// JetStream message is one batch of records, group-committed by one node
// for one stream:
//
//	magic "MBFL" | version u8 = 1 | origin: uvarint len, bytes |
//	batch: uvarint | count: uvarint | count records | CRC-32C (Castagnoli,
//	little-endian u32) of everything before it
//
// and a record is
//
//	op u8 | uvarint n | n fields, each uvarint len, bytes
//
// where OpAdd's fields are the key then its items, and OpCommand's are a
// write command's arguments (name first), as a client sent them.
// Version 2 writes OpAdd records (BF.ADD); version 1 wrote OpCommand
// only, and its messages decode the same.

// Op is what a record does.
type Op byte

const (
	// OpAdd adds Fields[1:] (items) to the key Fields[0], creating it
	// with the node's defaults when missing, as BF.ADD does; its result
	// is one BF.ADD answer per item. Adds commute and are idempotent.
	OpAdd Op = 1
	// OpCommand runs the write command Fields (BF.RESERVE, BF.INSERT,
	// MBF.RESERVEWINDOW, DEL, ...) in log order on every node.
	OpCommand Op = 2
)

// Record is one operation of a batch.
type Record struct {
	Op     Op
	Fields [][]byte
}

// Batch is one log message: the records Origin group-committed as its
// Seq-th batch of a stream (its Nats-Msg-Id is Origin:stream:Seq).
type Batch struct {
	Origin  string
	Seq     uint64
	Records []Record
}

// Version is the entry format's version byte written; Decode also
// reads version 1.
const Version = 2

var magic = []byte("MBFL")

// MaxFields bounds the fields of one record (one command's arguments).
const MaxFields = 1 << 20

// ErrEntry is returned (wrapped) for a message that is not a valid
// entry: bad magic, version, lengths or checksum.
var ErrEntry = errors.New("replication: bad log entry")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Append appends b's encoding to dst and returns the extended slice.
func (b Batch) Append(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, magic...)
	dst = append(dst, Version)
	dst = appendField(dst, []byte(b.Origin))
	dst = binary.AppendUvarint(dst, b.Seq)
	dst = binary.AppendUvarint(dst, uint64(len(b.Records)))
	for _, r := range b.Records {
		dst = AppendRecord(dst, r)
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// AppendRecord appends one record's encoding to dst.
func AppendRecord(dst []byte, r Record) []byte {
	dst = append(dst, byte(r.Op))
	dst = binary.AppendUvarint(dst, uint64(len(r.Fields)))
	for _, f := range r.Fields {
		dst = appendField(dst, f)
	}
	return dst
}

// RecordSize is the encoded size of r in bytes.
func RecordSize(r Record) int {
	n := 1 + uvarintLen(uint64(len(r.Fields)))
	for _, f := range r.Fields {
		n += FieldSize(f)
	}
	return n
}

// FieldSize is the encoded size of one field of a record in bytes: its
// length and its bytes.
func FieldSize(f []byte) int { return uvarintLen(uint64(len(f))) + len(f) }

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func appendField(dst, f []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(f)))
	return append(dst, f...)
}

// Decode parses one message. The fields alias data. It fails with
// ErrEntry on any malformed input, never allocating more than a small
// multiple of len(data).
func Decode(data []byte) (Batch, error) {
	if len(data) < len(magic)+1+4 || string(data[:4]) != string(magic) {
		return Batch{}, fmt.Errorf("%w: no magic", ErrEntry)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return Batch{}, fmt.Errorf("%w: checksum", ErrEntry)
	}
	if body[4] != Version && body[4] != 1 {
		return Batch{}, fmt.Errorf("%w: version %d, want 1 or %d", ErrEntry, body[4], Version)
	}
	d := decoder{buf: body[5:]}
	var b Batch
	b.Origin = string(d.field())
	b.Seq = d.uvarint()
	n := d.count(2)
	b.Records = make([]Record, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		b.Records = append(b.Records, d.record())
	}
	if d.err == nil && len(d.buf) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrEntry, len(d.buf))
	}
	return b, d.err
}

// decoder reads a message body; the first error sticks.
type decoder struct {
	buf []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad varint", ErrEntry)
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// count reads a count of items of at least min bytes each, bounded by
// what remains.
func (d *decoder) count(min int) int {
	v := d.uvarint()
	if d.err == nil && v > uint64(len(d.buf)/min) {
		d.err = fmt.Errorf("%w: count %d beyond the message", ErrEntry, v)
		return 0
	}
	return int(v)
}

func (d *decoder) field() []byte {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.buf)) {
		d.err = fmt.Errorf("%w: field of %d bytes beyond the message", ErrEntry, n)
	}
	if d.err != nil {
		return nil
	}
	f := d.buf[:n:n]
	d.buf = d.buf[n:]
	return f
}

func (d *decoder) record() Record {
	if d.err != nil {
		return Record{}
	}
	if len(d.buf) == 0 {
		d.err = fmt.Errorf("%w: truncated record", ErrEntry)
		return Record{}
	}
	r := Record{Op: Op(d.buf[0])}
	d.buf = d.buf[1:]
	if r.Op != OpAdd && r.Op != OpCommand {
		d.err = fmt.Errorf("%w: op %d", ErrEntry, r.Op)
		return Record{}
	}
	n := d.count(1)
	if n == 0 || n > MaxFields {
		if d.err == nil {
			d.err = fmt.Errorf("%w: record of %d fields", ErrEntry, n)
		}
		return Record{}
	}
	r.Fields = make([][]byte, n)
	for i := range r.Fields {
		r.Fields[i] = d.field()
	}
	return r
}
