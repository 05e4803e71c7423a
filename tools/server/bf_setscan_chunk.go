package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/mmapbloom/mmapbloom/format"
)

// The first chunk of BF.SCANDUMP of a set (format/FORMAT.md, "Dumps of
// filter sets"): setChunkMagic, the MANIFEST's length (uint32, little
// endian) and bytes, the number of layers (uint16), then per layer, in
// the MANIFEST's order, its file name's length (uint8) and bytes and its
// 64-byte header.

// setChunkMagic starts the first chunk of a set's dump; a fixed filter's
// dump starts with its header's magic instead.
const setChunkMagic = "MBFSETD1"

// layerBits is the iterator's bits of the offset in a layer: a set's
// dump iterator is number<<layerBits | (offset+1), number the layer
// file's (L%06d.bloom).
const layerBits = 40

// maxLayerNumber keeps number<<layerBits a positive int64.
const maxLayerNumber = 1<<(63-layerBits) - 1

// setLayerHead is one layer as the first chunk lists it.
type setLayerHead struct {
	name string
	num  uint64
	raw  []byte // the 64-byte header
	hdr  format.Header
}

// setHead is a decoded first chunk of a set's dump.
type setHead struct {
	manifest []byte
	layers   []setLayerHead
}

// isSetChunk reports whether data is the first chunk of a set's dump.
func isSetChunk(data []byte) bool { return bytes.HasPrefix(data, []byte(setChunkMagic)) }

// encodeSetHead writes the first chunk of the set whose MANIFEST is raw,
// with the layer files names (the MANIFEST's) and their headers.
func encodeSetHead(raw []byte, names []string, hdrs [][]byte) ([]byte, error) {
	if uint64(len(raw)) > math.MaxUint32 || len(names) > math.MaxUint16 {
		return nil, fmt.Errorf("set of %d layers and a %d-byte MANIFEST: too large to dump", len(names), len(raw))
	}
	b := append([]byte(setChunkMagic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[len(setChunkMagic):], uint32(len(raw)))
	b = append(b, raw...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(names)))
	for i, n := range names {
		b = append(b, byte(len(n)))
		b = append(b, n...)
		b = append(b, hdrs[i]...)
	}
	return b, nil
}

// decodeSetHead checks and decodes a first chunk: errBadData unless
// every length fits in data, each layer is a filter header whose file
// name is a layer's (L<digits>.bloom, numbers increasing, at most
// maxLayerNumber), and the names are the MANIFEST's layers, in order.
// Nothing is allocated beyond data's size.
func decodeSetHead(data []byte) (*setHead, error) {
	r := &chunkReader{b: data}
	r.next(len(setChunkMagic))
	h := &setHead{manifest: r.next(int(r.u32()))}
	n := int(r.u16())
	if r.err != nil || n == 0 || n > len(r.b)/(2+format.HeaderSize) {
		return nil, fmt.Errorf("%w: set dump header of %d bytes for %d layers", errBadData, len(data), n)
	}
	h.layers = make([]setLayerHead, 0, n)
	for range n {
		l := setLayerHead{name: string(r.next(int(r.u8()))), raw: r.next(format.HeaderSize)}
		if r.err != nil {
			return nil, fmt.Errorf("%w: set dump header truncated", errBadData)
		}
		if err := l.check(h.layers); err != nil {
			return nil, err
		}
		h.layers = append(h.layers, l)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the set dump header", errBadData, len(r.b))
	}
	return h, h.checkManifest()
}

// check decodes l's header and number; before are the layers listed
// before it.
func (l *setLayerHead) check(before []setLayerHead) error {
	var err error
	if l.hdr, err = format.Decode(l.raw); err != nil {
		return fmt.Errorf("%w: layer %.40q: %w", errBadData, l.name, err)
	}
	var ok bool
	if l.num, ok = layerNumber(l.name); !ok || (len(before) > 0 && l.num <= before[len(before)-1].num) {
		return fmt.Errorf("%w: layer file name %.40q, or out of order", errBadData, l.name)
	}
	return nil
}

// checkManifest checks that the MANIFEST lists h's layers, in order.
func (h *setHead) checkManifest() error {
	var m struct {
		Layers []struct {
			File string `json:"file"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(h.manifest, &m); err != nil || len(m.Layers) != len(h.layers) {
		return fmt.Errorf("%w: the MANIFEST does not list the %d layers", errBadData, len(h.layers))
	}
	for i, l := range m.Layers {
		if l.File != h.layers[i].name {
			return fmt.Errorf("%w: the MANIFEST lists %.40q, the dump %.40q", errBadData, l.File, h.layers[i].name)
		}
	}
	return nil
}

// chunkReader reads a chunk's fields; past its end it sets err and
// returns zeros.
type chunkReader struct {
	b   []byte
	err error
}

func (r *chunkReader) next(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errBadData
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *chunkReader) u8() uint8 {
	if p := r.next(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *chunkReader) u16() uint16 {
	if p := r.next(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (r *chunkReader) u32() uint32 {
	if p := r.next(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}
