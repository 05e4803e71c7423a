package mmapbloom

import "errors"

// Growth of a scalable set. A handle counts the new adds it makes to the
// newest layer (adds that set at least one clear bit, as Filter.Count)
// and reads that layer's header count, publishing its own pending adds
// first (Filter.Count), every countBatch of them, and at every add once
// its last reading plus its adds since reach the layer's capacity. When
// the count has reached the capacity it adds the next layer under the
// set's LOCK, after checking in the MANIFEST read under the lock that no
// other handle did; a handle that finds LOCK taken goes on adding to the
// layer it has, and uses the new one from its next call.
//
// Overshoot: a handle publishes its adds to the header at least every
// countBatch (256) of them, and batch calls add at most setChunk keys
// between two checks, so with H handles adding, the newest layer holds at
// most n + H (256 + setChunk) keys when the count check fires, plus the
// adds of calls already past their generation check while the layer is
// added (at most setChunk per running call).

// noteAdds records added new adds to v's newest layer and grows the set
// when that layer is full.
func (s *Set) noteAdds(v *setView, added uint64) error {
	if added == 0 || v.m.windowed() {
		return nil
	}
	capacity := v.m.Layers[len(v.m.Layers)-1].N
	n := v.adds.Add(added)
	if n < countBatch && v.known.Load()+n < capacity {
		return nil
	}
	v.adds.Store(0)
	c, err := v.active().Count()
	if err != nil {
		return err
	}
	v.known.Store(c)
	if c < capacity {
		return nil
	}
	_, err = s.change(func(m *manifest) ([]string, bool, error) {
		if m.Layers[len(m.Layers)-1].File != v.m.Layers[len(v.m.Layers)-1].File {
			return nil, false, nil // another handle added the layer
		}
		return nil, true, addLayer(s.dir, m, 0)
	})
	return ignoreInUse(err)
}

// ignoreInUse drops ErrInUse: another handle holds LOCK and is making the
// change this call wanted.
func ignoreInUse(err error) error {
	if errors.Is(err, ErrInUse) {
		return nil
	}
	return err
}
