package server

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/cluster"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Redis's keyspace commands on whole keys beyond DEL: RENAME, RENAMENX,
// FLUSHDB, FLUSHALL and MEMORY USAGE, with redis-server 7.0's replies.
// A key's file is removed or renamed only when no other process has it
// open, as DEL does (store/keys.go).

// msgNoSuchKey is Redis's reply to RENAME of a missing key
// (shared.nokeyerr).
const msgNoSuchKey = "ERR no such key"

// RENAME key newkey: OK, replacing newkey.
func rename(c *client, args [][]byte) { renameKey(c, args, false) }

// RENAMENX key newkey: 1, or 0 when newkey exists.
func renameNX(c *client, args [][]byte) { renameKey(c, args, true) }

// renameKey is RENAME, or RENAMENX when nx, as Redis 7.0's
// renameGenericCommand answers: a missing key first, then the same name
// (OK, or 0), then newkey taken (RENAMENX: 0).
func renameKey(c *client, args [][]byte, nx bool) {
	src, dst := args[1], args[2]
	done, err := false, error(nil)
	if bytes.Equal(src, dst) {
		var ok bool
		if ok, err = c.s.store.Exists(src); err == nil && !ok {
			err = ErrNotFound
		}
	} else {
		done, err = c.s.store.Rename(src, dst, nx)
	}
	var ke *store.KeyError
	switch {
	case errors.Is(err, ErrNotFound):
		c.w.WriteError(msgNoSuchKey)
	case errors.Is(err, mmapbloom.ErrInUse) && errors.As(err, &ke):
		c.noteApplyErr(err)
		c.w.WriteError(fmt.Sprintf("ERR key '%s' is open in another process (or in a running command): not renamed", clip(ke.Key)))
	case err != nil:
		c.replyErr(err)
	case !nx:
		c.w.WriteString("OK")
	case done:
		c.w.WriteInt(1)
	default:
		c.w.WriteInt(0)
	}
}

// FLUSHDB [ASYNC|SYNC], FLUSHALL [ASYNC|SYNC]: removes every key DEL may
// remove (in cluster mode, those of the slots this node owns), as DELs
// of the keys: with the replication log, one DEL record per stream,
// applied by every node that follows it. Folded buckets are not keys
// (KEYS does not list them) and are kept. It stops at the first key
// another process holds open, answering DEL's error; the keys before it
// are removed. SYNC and ASYNC are accepted and alike: a removal unlinks
// the file.
func flush(c *client, args [][]byte) {
	if len(args) > 2 || len(args) == 2 && !eq(args[1], "SYNC") && !eq(args[1], "ASYNC") {
		c.w.WriteError(msgSyntax)
		return
	}
	keys, err := c.s.store.Keys()
	if err != nil {
		c.replyErr(err)
		return
	}
	w, del := c.w, c.s.cmds.byName["del"]
	defer func() { c.w = w }()
	for _, group := range c.s.flushGroups(keys) {
		reply := new(replyWriter)
		c.w = reply
		c.s.run(c, del, append([][]byte{[]byte("DEL")}, group...))
		if b := reply.Bytes(); len(b) > 0 && b[0] == '-' {
			w.WriteRaw(b)
			return
		}
	}
	w.WriteString("OK")
}

// flushGroups splits keys into the DELs FLUSHALL runs: the keys of the
// slots this node owns in cluster mode, one group per stream of the
// replication log when it has one.
func (s *Server) flushGroups(keys []string) [][][]byte {
	cs := s.cluster.Load()
	groups := map[int][][]byte{}
	var order []int
	for _, k := range keys {
		slot, g := cluster.KeySlot([]byte(k)), 0
		if cs != nil && cs.m.Owner(slot) != cs.me {
			continue
		}
		if s.repl != nil {
			g = s.repl.layout.StreamOf(slot)
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], []byte(k))
	}
	out := make([][][]byte, 0, len(order))
	for _, g := range order {
		out = append(out, groups[g])
	}
	return out
}

// MEMORY USAGE key [SAMPLES count]: the bytes of the key's file (of its
// set directory's files), nil for a missing key; SAMPLES is checked as
// Redis checks it and otherwise unused (nothing is sampled).
func memoryUsage(c *client, args [][]byte) {
	for i := 3; i < len(args); i++ {
		if !eq(args[i], "SAMPLES") || i+1 == len(args) {
			c.w.WriteError(msgSyntax)
			return
		}
		n, ok := parseInt(args[i+1])
		switch {
		case !ok:
			c.w.WriteError(msgNotInteger)
			return
		case n < 0:
			c.w.WriteError(msgSyntax)
			return
		}
		i++
	}
	n, ok, err := c.s.store.DiskBytes(args[2])
	switch {
	case err != nil:
		c.replyErr(err)
	case !ok:
		c.writeNull()
	default:
		c.w.WriteInt64(n)
	}
}
