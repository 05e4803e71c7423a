package server

import (
	"bytes"
	"errors"
	"strings"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// RedisBloom's limits on BF.RESERVE arguments (rebloom.c).
const (
	maxCapacity  = 1 << 30
	maxExpansion = mmapbloom.MaxExpansion
	maxErrorRate = 0.25 // larger rates are silently capped to it
)

// use runs fn on key's filter, opening it (or creating it from create)
// first. A filter whose file changed under it is closed after fn, so the
// next command opens the file anew. A folded key's items go to its
// bucket's filter behind its tag (filterOf, fold.go).
func (c *client) use(key []byte, create *store.Spec, fn func(b store.Bloom) error) error {
	return c.useEntry(key, create, func(e *store.Entry, view func(store.Bloom) store.Bloom) error { return fn(view(e.Bloom())) })
}

// useEntry is use with the key's store entry and its view (a folded
// key's of its bucket's filter e.Bloom()), for what is cached on the entry.
func (c *client) useEntry(key []byte, create *store.Spec, fn func(e *store.Entry, view func(store.Bloom) store.Bloom) error) error {
	stem, view, err := c.filterOf(key, create)
	if err != nil {
		return err
	}
	e, err := c.s.store.Acquire(stem, create)
	if err != nil {
		return err
	}
	err = fn(e, view)
	c.s.store.Release(e, errors.Is(err, mmapbloom.ErrFileChanged) || errors.Is(err, mmapbloom.ErrClosed))
	return err
}

// stemOf returns keyname.Stem(key), reusing the client's last stem when
// key is the same: a pipeline of commands on one key escapes its name
// once, not once a command (an allocation each).
func (c *client) stemOf(key []byte) (string, error) {
	if len(key) > 0 && bytes.Equal(key, c.stemKey) {
		return c.stem, nil
	}
	stem, err := keyname.Stem(key)
	if err == nil {
		c.stemKey, c.stem = append(c.stemKey[:0], key...), stem
	}
	return stem, err
}

// autoCreate is the filter BF.ADD and BF.MADD make for a missing key.
func (s *Server) autoCreate() *store.Spec {
	return s.conf.createSpec()
}

// BF.RESERVE key error_rate capacity [EXPANSION e] [NONSCALING]
func bfReserve(c *client, args [][]byte) {
	if len(args) > 7 {
		c.w.WriteError(wrongArity("bf.reserve"))
		return
	}
	p, ok := parseFloat(args[2])
	if !ok {
		c.w.WriteError("ERR bad error rate")
		return
	}
	if p <= 0 || p >= 1 {
		c.w.WriteError("ERR error rate must be in the range (0.000000, 1.000000)")
		return
	}
	n, ok := parseInt(args[3])
	if !ok {
		c.w.WriteError("ERR bad capacity")
		return
	}
	if n < 1 || n > maxCapacity {
		c.w.WriteError("ERR capacity must be in the range [1, 1073741824]")
		return
	}
	exp, msg := reserveExpansion(args)
	if msg != "" {
		c.w.WriteError(msg)
		return
	}
	if err := c.s.reserve(args[1], store.Spec{N: uint64(n), P: min(p, maxErrorRate), SetSpec: store.SetSpec{Expansion: exp}}); err != nil {
		c.replyErr(err)
		return
	}
	c.w.WriteString("OK")
}

// reserveExpansion reads BF.RESERVE's EXPANSION and NONSCALING, found
// anywhere after the capacity as RedisBloom's RMUtil_ArgIndex does: the
// expansion (0 for a fixed filter: NONSCALING or EXPANSION 0) or an
// error reply, checked in RedisBloom's order (BFReserve_RedisCommand).
func reserveExpansion(args [][]byte) (uint32, string) {
	nonScaling, at := false, -1
	for i := 4; i < len(args); i++ {
		switch {
		case eq(args[i], "NONSCALING"):
			nonScaling = true
		case eq(args[i], "EXPANSION") && at < 0:
			at = i
		}
	}
	switch {
	case at < 0 && nonScaling:
		return 0, ""
	case at < 0:
		return 2, ""
	case at+1 == len(args):
		return 0, "ERR no expansion"
	}
	e, ok := parseInt(args[at+1])
	switch {
	case !ok:
		return 0, "ERR bad expansion"
	case e == 0:
		return 0, ""
	case nonScaling:
		return 0, "Nonscaling filters cannot expand"
	case e < 0 || e > maxExpansion:
		return 0, "ERR expansion must be in the range [0, 32768]"
	}
	return uint32(e), ""
}

// BF.ADD key item: :1 if the item was new (the add set a bit), else :0.
func bfAdd(c *client, args [][]byte) {
	present := c.scratch(1)
	err := c.use(args[1], c.s.autoCreate(), func(b store.Bloom) error {
		_, err := c.addBounded(b, args[2:3], present)
		return err
	})
	if errors.Is(err, errNonScalingFull) {
		c.w.WriteError(msgNonScalingFull)
		return
	}
	if err != nil {
		c.replyErr(err)
		return
	}
	c.writeBool(!present[0])
}

// BF.MADD key item...: an array of BF.ADD's answers.
func bfMAdd(c *client, args [][]byte) { c.addItems(args[1], args[2:], c.s.autoCreate()) }

// addItems adds items to key's filter in one batch and answers an array;
// a full NONSCALING filter ends it with RedisBloom's error in place of
// the first item it refused (addBounded).
func (c *client) addItems(key []byte, items [][]byte, create *store.Spec) {
	present := c.scratch(len(items))
	var done int
	err := c.use(key, create, func(b store.Bloom) (err error) {
		done, err = c.addBounded(b, items, present)
		return err
	})
	if errors.Is(err, errNonScalingFull) {
		c.w.WriteArray(done + 1)
		for _, p := range present[:done] {
			c.writeBool(!p)
		}
		c.w.WriteError(msgNonScalingFull)
		return
	}
	if err != nil {
		c.replyErr(err)
		return
	}
	c.writeBools(present, false)
}

// scratch returns c's reusable answer slice of length n.
func (c *client) scratch(n int) []bool {
	if cap(c.present) < n {
		c.present = make([]bool, n)
	}
	return c.present[:n]
}

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE]
// [NONSCALING] ITEMS item...: options matched by their first letters, as
// RedisBloom's parser does; a key it creates takes what the options omit
// from the module-level defaults, as RedisBloom's does (bf-initial-size,
// bf-error-rate, bf-expansion-factor: the filter BF.ADD would create).
func bfInsert(c *client, args [][]byte) {
	spec := c.s.conf.createSpec()
	nonScaling, items := false, -1
	for i := 2; i < len(args) && items < 0; {
		a := strings.ToLower(string(args[i]))
		if a == "" {
			c.w.WriteError("Unknown argument received")
			return
		}
		switch a[0] {
		case 'i':
			items = i + 1
		case 'e', 'c':
			if i+1 == len(args) {
				c.w.WriteError(wrongArity("bf.insert"))
				return
			}
			if msg := insertOption(spec, a, args[i+1]); msg != "" {
				c.w.WriteError(msg)
				return
			}
			i += 2
			continue
		case 'n':
			if len(a) > 2 && a[2] == 'c' {
				spec = nil
			} else {
				nonScaling = true
			}
		default:
			c.w.WriteError("Unknown argument received")
			return
		}
		i++
	}
	if items < 0 || items == len(args) {
		c.w.WriteError(wrongArity("bf.insert"))
		return
	}
	if spec != nil && nonScaling {
		spec.Expansion = 0
	}
	c.addItems(args[1], args[items:], spec)
}

// insertOption reads BF.INSERT's ERROR, EXPANSION or CAPACITY value into
// spec (nil after NOCREATE: checked, then dropped), or RedisBloom's error
// reply for a value it cannot parse or that is out of its range
// (BFInsert_RedisCommand): error rate in (0, 1), capped at 0.25;
// expansion in [0, 32768], 0 making a fixed filter; capacity in
// [1, 2^30].
func insertOption(spec *store.Spec, opt string, val []byte) string {
	var tmp store.Spec
	if spec == nil {
		spec = &tmp
	}
	switch {
	case opt[0] == 'e' && len(opt) > 1 && opt[1] == 'r':
		p, ok := parseFloat(val)
		if !ok || p <= 0 || p >= 1 {
			return "Bad error rate"
		}
		spec.P = min(p, maxErrorRate)
	case opt[0] == 'e':
		e, ok := parseInt(val)
		if !ok || e < 0 || e > maxExpansion {
			return "Bad expansion"
		}
		spec.Expansion = uint32(e)
	default:
		n, ok := parseInt(val)
		if !ok || n < 1 || n > maxCapacity {
			return "Bad capacity"
		}
		spec.N = uint64(n)
	}
	return ""
}

// BF.EXISTS key item: :1 or :0; a missing key answers 0.
func bfExists(c *client, args [][]byte) {
	var present bool
	err := c.use(args[1], nil, func(b store.Bloom) (err error) {
		present, err = b.Test(args[2])
		return err
	})
	if err != nil && !absent(err) {
		c.replyErr(err)
		return
	}
	c.writeBool(present)
}

// BF.MEXISTS key item...: an array of BF.EXISTS's answers.
func bfMExists(c *client, args [][]byte) {
	items := args[2:]
	present := c.scratch(len(items))
	clear(present)
	err := c.use(args[1], nil, func(b store.Bloom) error { return b.TestBatch(items, present) })
	if err != nil && !absent(err) {
		c.replyErr(err)
		return
	}
	if err != nil {
		clear(present)
	}
	c.writeBools(present, true)
}

// absent reports whether err means the key cannot hold anything.
func absent(err error) bool { return errors.Is(err, ErrNotFound) || errors.Is(err, ErrBadKey) }

// bfInfoFields are BF.INFO's fields: the selector of the single-field
// form and the name in the full reply (RedisBloom's BFInfo_RedisCommand).
var bfInfoFields = [5][2]string{
	{"CAPACITY", "Capacity"}, {"SIZE", "Size"}, {"FILTERS", "Number of filters"},
	{"ITEMS", "Number of items inserted"}, {"EXPANSION", "Expansion rate"},
}

// BF.INFO key [CAPACITY|SIZE|FILTERS|ITEMS|EXPANSION]: RedisBloom's
// map of five fields (in RESP2 a flat array), or, with a selector, a
// map of that one field (in RESP2 an array of its value). A fixed
// (NONSCALING) filter's Expansion rate is nil, as in RedisBloom.
func bfInfo(c *client, args [][]byte) {
	if len(args) > 3 {
		c.w.WriteError(wrongArity("bf.info"))
		return
	}
	var vals [5]uint64
	var nonScaling bool
	err := c.use(args[1], nil, func(b store.Bloom) error {
		n, err := b.Count()
		if err != nil {
			return err
		}
		size, err := b.SizeBytes()
		vals = [5]uint64{b.Capacity(), size, uint64(b.Layers()), n, uint64(b.Expansion())}
		_, nonScaling = b.(store.Fixed)
		return err
	})
	if err != nil {
		c.replyErr(err)
		return
	}
	if len(args) == 2 {
		c.writeMapLen(len(bfInfoFields))
		for i, f := range bfInfoFields {
			c.w.WriteString(f[1])
			c.writeInfoValue(vals[i], i == 4 && nonScaling)
		}
		return
	}
	for i, f := range bfInfoFields {
		if eq(args[2], f[0]) {
			c.writeInfoField(f[1], vals[i], i == 4 && nonScaling)
			return
		}
	}
	c.w.WriteError("Invalid information value")
}

// writeInfoField writes BF.INFO's single-field reply: RESP3's map of
// name to v, RESP2's array of v.
func (c *client) writeInfoField(name string, v uint64, null bool) {
	if c.resp3 {
		c.writeMapLen(1)
		c.w.WriteString(name)
	} else {
		c.w.WriteArray(1)
	}
	c.writeInfoValue(v, null)
}

// writeInfoValue writes one BF.INFO value, or nil.
func (c *client) writeInfoValue(v uint64, null bool) {
	if null {
		c.writeNull()
	} else {
		c.w.WriteUint64(v)
	}
}

// BF.CARD key: the number of items added (adds that set a bit); 0 for a
// missing key.
func bfCard(c *client, args [][]byte) {
	var n uint64
	err := c.use(args[1], nil, func(b store.Bloom) (err error) {
		n, err = b.Count()
		return err
	})
	if err != nil && !absent(err) {
		c.replyErr(err)
		return
	}
	c.w.WriteUint64(n)
}
