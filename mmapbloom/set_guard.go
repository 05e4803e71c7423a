package mmapbloom

// guardLayers runs op inside the guards of every layer of a set at once,
// as if op ran inside each layer's own read (or, for the newest layer
// with write, run): each layer's state, header and last word are checked
// first, and a memory fault while op touches any layer's mapping is
// blamed on that layer (ErrFileChanged or ErrNoSpace, see faultError),
// a layer closed under op gives ErrClosed. layers are oldest first;
// write guards the newest for writing.
func guardLayers(layers []*Filter, write bool, op func() error) error {
	blamed := func() (err error) {
		defer blameLayers(layers, &err)
		return op()
	}
	return nestGuards(layers, write, blamed)
}

// nestGuards runs op inside the guard of layers[0], inside that of
// layers[1], and so on.
func nestGuards(layers []*Filter, write bool, op func() error) error {
	switch {
	case len(layers) == 0:
		return op()
	case len(layers) == 1 && write:
		return layers[0].run(false, true, op)
	}
	return layers[0].read(func() error { return nestGuards(layers[1:], write, op) })
}

// blameLayers is deferred inside the innermost guard of guardLayers, and
// by asSource for the source of Merge and Union, read inside the
// destination's run: a panic becomes ErrClosed if a layer was closed
// meanwhile, or the fault error of the layer whose mapping holds the
// faulting address; any other panic goes on.
func blameLayers(layers []*Filter, err *error) {
	r := recover()
	if r == nil {
		return
	}
	for _, f := range layers {
		if f.closed.Load() {
			*err = ErrClosed
			return
		}
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	for _, f := range layers {
		if f.maps(fault.Addr()) {
			*err = f.faultError(fault.Addr())
			return
		}
	}
	panic(r)
}
