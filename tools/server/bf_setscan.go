package server

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// BF.SCANDUMP of a scaling or windowed set (format/FORMAT.md, "Dumps of
// filter sets"): iterator 0 answers the first chunk (the MANIFEST and
// the layers' headers, bf_setscan_chunk.go) with the iterator of its
// first layer's start; iterator number<<layerBits | (off+1) answers the
// piece of layer file L<number> at bit-array offset off, the next
// iterator the one past it, or that of the next layer's start, or 0
// after the last layer. Layers are read when asked for, as a fixed
// filter's pieces are.

const layerMask = 1<<layerBits - 1

// errSetChanged refuses an iterator whose layer the set no longer lists
// (a window dropped it during the dump) or never listed.
var errSetChanged = errors.New("the set no longer has the layer of this iterator (it changed during the dump): dump it again")

// errNoDump refuses BF.SCANDUMP of a key neither a fixed filter nor a set.
var errNoDump = errors.New("this kind of key cannot be dumped")

// setScanDump answers BF.SCANDUMP key it for the set st, in pieces of
// at most chunk bytes.
func setScanDump(st store.Set, it int64, chunk uint64) (piece []byte, next int64, err error) {
	raw, files, err := st.Manifest()
	if err != nil {
		return nil, 0, err
	}
	if it == 0 {
		return setHeadChunk(st, raw, files, chunk)
	}
	num, pos := uint64(it)>>layerBits, it&layerMask
	i := slices.IndexFunc(files, func(f string) bool { n, ok := layerNumber(f); return ok && n == num })
	if i < 0 || pos == 0 {
		return nil, 0, errSetChanged
	}
	for ; i < len(files); i, pos = i+1, 1 {
		piece, next, err = dumpFile(filepath.Join(st.Dir(), files[i]), pos, chunk)
		if err != nil || next != 0 {
			n, _ := layerNumber(files[i])
			return piece, int64(n)<<layerBits | next, err
		}
	}
	return nil, 0, nil
}

// setHeadChunk returns the first chunk of st's dump, whose MANIFEST is
// raw listing files, and the iterator of its first layer's start.
func setHeadChunk(st store.Set, raw []byte, files []string, chunk uint64) ([]byte, int64, error) {
	if _, err := st.Count(); err != nil { // publishes the layers' pending adds
		return nil, 0, err
	}
	hdrs := make([][]byte, len(files))
	for i, f := range files {
		hdrs[i] = make([]byte, format.HeaderSize)
		if err := readAt(filepath.Join(st.Dir(), f), hdrs[i], 0); err != nil {
			return nil, 0, err
		}
	}
	head, err := encodeSetHead(raw, files, hdrs)
	if err == nil && uint64(len(head)) > chunk {
		err = fmt.Errorf("the set's first dump chunk of %d bytes is over the %d-byte chunk limit (--max-request)", len(head), chunk)
	}
	if err != nil {
		return nil, 0, err
	}
	first, ok := layerNumber(files[0])
	if !ok {
		return nil, 0, fmt.Errorf("layer file name %q cannot be dumped", files[0])
	}
	return head, int64(first)<<layerBits | 1, nil
}

// layerNumber returns the number of a layer file name, L<digits>.bloom,
// if it is one and the number at most maxLayerNumber.
func layerNumber(name string) (uint64, bool) {
	var n uint64
	if !layerName(name) {
		return 0, false
	}
	_, err := fmt.Sscanf(name, "L%d.bloom", &n)
	return n, err == nil && n <= maxLayerNumber
}
