package replication

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEntryRoundTrip(t *testing.T) {
	for _, b := range []Batch{
		{Origin: "n1/abc", Seq: 1, Records: []Record{addRec("seen:{a.com}", "https://a.com/", "")}},
		{Origin: "", Seq: 1 << 40, Records: []Record{{Op: OpCommand, Fields: [][]byte{[]byte("BF.RESERVE"), []byte("k"), []byte("0.01"), []byte("100")}}, addRec("k", "x")}},
		{Origin: "n2", Seq: 0, Records: []Record{}},
	} {
		enc := b.Append(nil)
		got, err := Decode(enc)
		require.NoError(t, err)
		assert.Equal(t, b.Origin, got.Origin)
		assert.Equal(t, b.Seq, got.Seq)
		require.Len(t, got.Records, len(b.Records))
		size := 0
		for i, r := range b.Records {
			assert.Equal(t, r.Op, got.Records[i].Op)
			assert.Equal(t, r.Fields, got.Records[i].Fields)
			size += RecordSize(r)
		}
		assert.Equal(t, size, sizeOfRecords(b.Records), "RecordSize agrees with AppendRecord")
	}
}

func sizeOfRecords(rs []Record) int {
	var buf []byte
	for _, r := range rs {
		buf = AppendRecord(buf, r)
	}
	return len(buf)
}

// The golden bytes of a small batch: the layout in format/FORMAT.md.
func TestEntryGolden(t *testing.T) {
	b := Batch{Origin: "n1", Seq: 7, Records: []Record{addRec("k", "ab")}}
	want := []byte{'M', 'B', 'F', 'L', 2, 2, 'n', '1', 7, 1, 1, 2, 1, 'k', 2, 'a', 'b'}
	enc := b.Append(nil)
	assert.Equal(t, want, enc[:len(enc)-4])
	enc[len(enc)-1] ^= 1
	_, err := Decode(enc)
	assert.ErrorIs(t, err, ErrEntry)
}

// A message of log version 1 (OpCommand records only) still decodes;
// another version does not.
func TestEntryVersions(t *testing.T) {
	for v, ok := range map[byte]bool{1: true, 2: true, 0: false, 3: false} {
		body := []byte{'M', 'B', 'F', 'L', v, 2, 'n', '1', 7, 1, 2, 1, 3, 'D', 'E', 'L'}
		enc := binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, castagnoli))
		b, err := Decode(enc)
		if !ok {
			assert.ErrorIs(t, err, ErrEntry, "version %d", v)
			continue
		}
		require.NoError(t, err, "version %d", v)
		assert.Equal(t, [][]byte{[]byte("DEL")}, b.Records[0].Fields)
	}
}

func TestEntryRejects(t *testing.T) {
	good := Batch{Origin: "n1", Seq: 7, Records: []Record{addRec("k", "ab")}}.Append(nil)
	for name, data := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XXXX"), good[4:]...),
		"truncated": good[:len(good)-5],
	} {
		_, err := Decode(data)
		assert.ErrorIs(t, err, ErrEntry, name)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Batch{Origin: "n1", Seq: 7, Records: []Record{addRec("k", "ab")}}.Append(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Decode(data)
		if err != nil {
			return
		}
		again, err := Decode(b.Append(nil))
		require.NoError(t, err)
		require.Equal(t, len(b.Records), len(again.Records))
	})
}
