package server

import (
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// MBF.MERGE dst src [src ...]: ORs each source filter into dst with the
// library's Merge (mmapbloom.Filter.Merge: the same m, k, layout, hash
// scheme and seed, else ErrMismatch naming the field), so that dst
// answers present for every item a source held. Every key must exist
// and be a fixed (NONSCALING) filter: a set's layers have shapes of
// their own (errMergeSet). dst must be open in no other process
// (mmapbloom.ErrInUse); the sources may be. In cluster mode the keys
// share a slot (CROSSSLOT otherwise); with the log it is one record of
// dst's stream. The sources are merged in order; an error stops at the
// source it names, the ones before it merged.
func mbfMerge(c *client, args [][]byte) {
	err := c.use(args[1], nil, func(dst store.Bloom) error {
		into, ok := dst.(store.Fixed)
		if !ok {
			return fmt.Errorf("'%s': %w", clip(args[1]), errMergeSet)
		}
		for _, key := range args[2:] {
			err := c.use(key, nil, func(src store.Bloom) error {
				from, ok := src.(store.Fixed)
				if !ok {
					return fmt.Errorf("'%s': %w", clip(key), errMergeSet)
				}
				return into.Merge(from.Filter)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
		c.w.WriteString("OK")
	case errors.Is(err, mmapbloom.ErrInUse):
		c.noteApplyErr(err)
		c.w.WriteError(fmt.Sprintf("ERR key '%s' is open in another process (or in a running command): not merged into", clip(args[1])))
	default:
		c.replyErr(err)
	}
}
