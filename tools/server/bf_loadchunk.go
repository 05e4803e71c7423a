//lint:file-ignore ST1005 the errors are RedisBloom's exact reply texts

package server

import (
	"errors"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// BF.LOADCHUNK into a key that exists: RedisBloom copies the piece into
// the live filter (SBChain_LoadEncodedChunk in sb.c); this server builds
// a load in a new file and links it whole (bf_dump.go), so it refuses the
// piece, with RedisBloom's error where RedisBloom refuses it too.
var (
	errChunkOffset  = errors.New("ERR invalid offset - no link found")
	errChunkTooBig  = errors.New("ERR invalid chunk - Too big for current filter")
	errChunkLiveKey = errors.New("ERR BF.LOADCHUNK into an existing key is not supported: load into a missing key")
)

// msgBadData is RedisBloom's reply to a chunk it cannot load.
const msgBadData = "ERR received bad data"

// chunkIntoKey answers a BF.LOADCHUNK of iterator it and data into key
// when no load of key is running: ErrNotFound if key is missing (and it
// is not 1), else the error RedisBloom gives a piece that does not fit
// key's filter (errBadData: it is not past the piece; errChunkOffset:
// it starts beyond the bit array; errChunkTooBig: it runs past it), or
// errChunkLiveKey for one that does.
func (c *client) chunkIntoKey(key []byte, it int64, data []byte) error {
	return c.use(key, nil, func(b store.Bloom) error {
		if it <= 0 || it < int64(len(data)) {
			return errBadData
		}
		size, err := b.SizeBytes()
		if err != nil {
			return err
		}
		bits := size - uint64(b.Layers())*format.HeaderSize
		off := uint64(it - int64(len(data)) - 1)
		switch {
		case it-int64(len(data)) < 1 || off >= bits:
			return errChunkOffset
		case uint64(len(data)) > bits-off:
			return errChunkTooBig
		}
		return errChunkLiveKey
	})
}
