package mmapbloom

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/manifest"
)

// Growth of a scalable set, and of a windowed set's current window when
// the set has an expansion. As in RedisBloom (SBChain_Add), a layer is
// added by the first add of a new key after the newest layer's count
// reached its capacity, not by the add that filled it: a set filled to
// exactly its capacity keeps its layers (BF.INFO "Number of filters" and
// "Capacity" as RedisBloom's), and a key already present never grows it.
//
// After each call that added keys to the newest layer, a handle reads
// that layer's header count as published by every handle (one load from
// the header's cache line, which every call reads anyway) plus its own new
// adds since its last check. When that reaches the capacity, or after
// checkInterval new adds, it publishes its adds with Filter.Count. The
// interval is countBatch (256) while the layer is far from full and
// shrinks to 1/64 of the room left, so that near the capacity every handle
// publishes often and the count lags the truth by little. A writing call
// that finds the layer full (its count at the capacity) adds the next
// layer under the set's LOCK, after checking in the MANIFEST read under
// the lock that no other handle did, and adds its keys to the new layer;
// a handle that finds LOCK taken waits for it (the holder is adding the
// layer, which takes a few fsyncs) and uses the layer it finds added. A
// call grows only for a key no layer holds (a batch call, before a chunk
// of keys of which one is new), and a batch adds at most checkInterval
// keys between two checks. A handle learns that the layer is full when
// it builds its view (opening the set, or after a change) and at its
// count checks, which every add makes once the published count reached
// the capacity.
//
// Overshoot bound: each handle holds fewer than min(countBatch, room/64)
// adds it has not published (room: what the layer lacked at its last
// reading), so with H handles adding, the newest layer holds at most
// n + H countBatch keys when its count is seen full, plus at most one key
// or one batch step per handle that had not seen it full, or whose call
// passed its check before the new layer was published. Measured with 8
// processes racing through a layer of 4000 keys
// (TestSetGrowthManyProcesses, its log: 4031 and 4059 keys).

// checkInterval returns after how many new adds a handle publishes and
// checks the newest layer's count, given the published count c.
func (v *setView) checkInterval(c uint64) uint64 {
	if c >= v.capacity() {
		return 1
	}
	return min(countBatch, max(1, (v.capacity()-c)/64))
}

// capacity returns the capacity of the newest layer.
func (v *setView) capacity() uint64 { return v.m.Layers[len(v.m.Layers)-1].N }

// noteAdds records added new adds to v's newest layer and publishes
// them when due, so that every handle sees the layer fill (full).
func (s *Set) noteAdds(v *setView, added uint64) error {
	if added == 0 || !v.m.Grows() {
		return nil
	}
	shared := v.active().sharedCount()
	n := v.adds.Add(added)
	if shared+n < v.capacity() && n < v.checkInterval(shared) {
		return nil
	}
	v.adds.Store(0)
	c, err := v.active().Count()
	if err == nil && c >= v.capacity() {
		v.isFull.Store(true)
	}
	return err
}

// full reports whether v's newest layer must give way to a new one before
// it takes another new key: the set grows, and the layer's count reached
// its capacity when the view was built or at this handle's last count
// check (one atomic load: a layer another handle filled is seen at this
// handle's next check, after one more add at most).
func (v *setView) full() bool { return v.isFull.Load() }

// grow adds the next layer to the set whose newest layer v found full,
// unless another handle did (or the window of a windowed set is over: the
// next write rotates), and returns the view after it.
func (s *Set) grow(v *setView) (*setView, error) {
	_, err := s.change(true, func(m *manifest.Manifest) ([]string, bool, error) {
		last := m.Layers[len(m.Layers)-1]
		switch {
		case last.File != v.m.Layers[len(v.m.Layers)-1].File:
			return nil, false, nil // another handle added a layer
		case m.Windowed() && m.WindowAt(s.now()) > last.Window:
			return nil, false, nil // the window is over: the next write rotates
		}
		return nil, true, addLayer(s.dir, m, last.Window, s.opts.BeforeLayer)
	})
	if err != nil {
		return nil, err
	}
	return s.current()
}

// room returns how many keys a batch step may add to v's newest layer
// before the next check, at least 1.
func (v *setView) room() int {
	step := v.checkInterval(v.active().sharedCount())
	return int(step - min(v.adds.Load(), step-1))
}

// sharedCount returns f's header count as every handle published it,
// without publishing this handle's pending adds; 0 when f is closed or
// broken (the next call reports that).
func (f *Filter) sharedCount() uint64 {
	var c uint64
	_ = f.read(func() error {
		c = f.headerCount()
		return nil
	})
	return c
}
