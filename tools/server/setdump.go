package server

import (
	"errors"
	"path/filepath"
	"slices"
)

// MBF.SETDUMP moves a scaling or windowed set (a KEY.bfset directory,
// which BF.SCANDUMP refuses) the way BF.SCANDUMP moves a fixed filter,
// layer by layer (an extension; replicas use it, pull.go):
//
//	MBF.SETDUMP key
//	    an array: the set's MANIFEST as JSON (format/FORMAT.md, "Filter
//	    sets"), then the layer files it lists, oldest first.
//	MBF.SETDUMP key file iterator
//	    BF.SCANDUMP's reply for the layer file of the set named file (one
//	    the MANIFEST lists now): [next iterator, piece], the header at
//	    iterator 0, then the bit array in pieces, next 0 at the end.

func init() {
	register(&command{name: "mbf.setdump", arity: -2, flags: []string{"readonly"}, first: 1, last: 1, step: 1, run: mbfSetDump})
}

// errNotSet refuses MBF.SETDUMP of a fixed filter.
var errNotSet = errors.New("not a scaling or windowed set: dump it with BF.SCANDUMP")

// errNoLayer refuses a layer file the set's MANIFEST does not list.
var errNoLayer = errors.New("no such layer in the set")

func mbfSetDump(c *client, args [][]byte) {
	if len(args) != 2 && len(args) != 4 {
		c.w.WriteError(wrongArity("mbf.setdump"))
		return
	}
	var raw []byte
	var files []string
	var piece []byte
	var next int64
	err := c.use(args[1], nil, func(b Bloom) (err error) {
		st, ok := b.(set)
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
		piece, next, err = dumpFile(filepath.Join(st.Dir(), string(args[2])), it)
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
