package server

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// MBF.SETDUMP moves a scaling or windowed set (a KEY.bfset directory)
// the way BF.SCANDUMP moves a fixed filter, layer by layer, each layer
// addressed by its file name so that a replica merges it into its own
// layer of that name (an extension; replicas use it, pull_fetch.go;
// BF.SCANDUMP of a set, bf_setscan.go, dumps the whole set for a load):
//
//	MBF.SETDUMP key
//	    an array: the set's MANIFEST as JSON (format/FORMAT.md, "Filter
//	    sets"), then the layer files it lists, oldest first.
//	MBF.SETDUMP key file iterator [CHUNKSIZE bytes]
//	    BF.SCANDUMP's reply for the layer file of the set named file (one
//	    the MANIFEST lists now): [next iterator, piece], the header at
//	    iterator 0, then the bit array in pieces (of at most CHUNKSIZE
//	    bytes when given), next 0 at the end.

// errNotSet refuses MBF.SETDUMP of a fixed filter.
var errNotSet = errors.New("not a scaling or windowed set: dump it with BF.SCANDUMP")

// errNoLayer refuses a layer file the set's MANIFEST does not list.
var errNoLayer = errors.New("no such layer in the set")

func mbfSetDump(c *client, args [][]byte) {
	writeSetDump(c, args, func(fn func(store.Bloom) error) error { return c.use(args[1], nil, fn) })
}

// MBF.BUCKETDUMP stem [file iterator [CHUNKSIZE bytes]]: MBF.SETDUMP of the set of a
// bucket of folded keys (fold.go), named by its stem as MBF.BUCKETS
// lists it; replicas of a folding node use it. Not routed: a bucket
// holds the keys of a range of slots, not of one key.
func mbfBucketDump(c *client, args [][]byte) {
	stem := string(args[1])
	if _, _, isSet, ok := keyname.FoldedOf(stem + keyname.SetSuffix); !ok || !isSet {
		c.w.WriteError("ERR not the stem of a bucket of folded keys")
		return
	}
	writeSetDump(c, args, func(fn func(store.Bloom) error) error {
		e, err := c.s.store.Acquire(stem, nil)
		if err != nil {
			return err
		}
		err = fn(e.Bloom())
		c.s.store.Release(e, errors.Is(err, mmapbloom.ErrFileChanged) || errors.Is(err, mmapbloom.ErrClosed))
		return err
	})
}

// MBF.BUCKETS: the stems of the sets of buckets of folded keys in this
// node's directory, sorted.
func mbfBuckets(c *client, _ [][]byte) {
	ents, err := os.ReadDir(c.s.cfg.Dir)
	if err != nil {
		c.replyErr(err)
		return
	}
	var stems []string
	for _, de := range ents {
		if _, _, isSet, ok := keyname.FoldedOf(de.Name()); ok && isSet && de.IsDir() {
			stems = append(stems, strings.TrimSuffix(de.Name(), keyname.SetSuffix))
		}
	}
	c.w.WriteArray(len(stems))
	for _, st := range stems {
		c.w.WriteBulkString(st)
	}
}

// writeSetDump answers MBF.SETDUMP or MBF.BUCKETDUMP (args: name, then
// optionally file, iterator and CHUNKSIZE bytes) on the set that use
// runs its function on.
func writeSetDump(c *client, args [][]byte, use func(fn func(store.Bloom) error) error) {
	if len(args) != 2 && len(args) != 4 && len(args) != 6 {
		c.w.WriteError(wrongArity(strings.ToLower(string(args[0]))))
		return
	}
	chunk, err := c.s.dumpChunkOf(args[min(4, len(args)):])
	if err != nil {
		c.w.WriteError(err.Error())
		return
	}
	var raw []byte
	var files []string
	var piece []byte
	var next int64
	err = use(func(b store.Bloom) (err error) {
		st, ok := b.(store.Set)
		if !ok {
			return errNotSet
		}
		if raw, files, err = st.Manifest(); err != nil || len(args) == 2 {
			return err
		}
		it, ok := parseInt(args[3])
		if !ok || it < 0 {
			return errNotNumeric
		}
		if !slices.Contains(files, string(args[2])) {
			return errNoLayer
		}
		if it == 0 {
			if _, err := st.Count(); err != nil { // publishes the layers' pending adds
				return err
			}
		}
		piece, next, err = dumpFile(filepath.Join(st.Dir(), string(args[2])), it, chunk)
		return err
	})
	switch {
	case errors.Is(err, errNotNumeric):
		c.w.WriteError("ERR iterator must be numeric")
	case err != nil:
		c.replyErr(err)
	case len(args) == 2:
		c.w.WriteArray(1 + len(files))
		c.w.WriteBulk(raw)
		for _, f := range files {
			c.w.WriteBulkString(f)
		}
	default:
		c.w.WriteArray(2)
		c.w.WriteInt64(next)
		c.w.WriteBulk(piece)
	}
}
