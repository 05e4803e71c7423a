package server

import (
	"fmt"
	"strconv"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// layered is a Bloom made of layers that can describe each of them
// (the library's sets; see store.Set).
type layered interface {
	Stats() ([]mmapbloom.Stats, error)
}

// BF.DEBUG key: RedisBloom's description of a filter
// (BFDebug_RedisCommand in rebloom.c): "size:N", N the items inserted,
// then per layer, oldest first, "bytes:B bits:M hashes:K hashwidth:64
// capacity:N size:C ratio:P" (B the bit array's bytes, C the layer's
// adds, P its false-positive rate as C's %g prints it). A fixed filter
// is described from its header; a set's layers from Set.Stats, a pass
// over their bits.
func bfDebug(c *client, args [][]byte) {
	var lines []string
	err := c.use(args[1], nil, func(b store.Bloom) (err error) {
		lines, err = debugLines(b)
		return err
	})
	if err != nil {
		c.replyErr(err)
		return
	}
	c.w.WriteArray(len(lines))
	for _, l := range lines {
		c.w.WriteBulkString(l)
	}
}

// debugLines returns BF.DEBUG's lines for b.
func debugLines(b store.Bloom) ([]string, error) {
	n, err := b.Count()
	if err != nil {
		return nil, err
	}
	lines := []string{"size:" + strconv.FormatUint(n, 10)}
	switch f := b.(type) {
	case store.Fixed:
		h := f.Header()
		lines = append(lines, layerLine(h.ByteSize, mmapbloom.Stats{M: h.M, K: h.K, N: h.N, P: h.P, Count: n}))
	case layered:
		layers, err := f.Stats()
		if err != nil {
			return nil, err
		}
		for _, l := range layers {
			lines = append(lines, layerLine(format.ByteSize(format.V2, l.M), l))
		}
	}
	return lines, nil
}

// layerLine is BF.DEBUG's line for a layer of the given bit-array bytes.
func layerLine(bytes uint64, l mmapbloom.Stats) string {
	return fmt.Sprintf("bytes:%d bits:%d hashes:%d hashwidth:64 capacity:%d size:%d ratio:%s",
		bytes, l.M, l.K, l.N, l.Count, strconv.FormatFloat(l.P, 'g', 6, 64))
}
