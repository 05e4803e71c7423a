//go:build linux

package proc

import (
	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/testhooks"
)

// viewLayers is testhooks.ViewLayers with the library's types: the
// generation of s's current view and the filters of its layers, oldest
// first.
func viewLayers(s *mmapbloom.Set) (gen uint64, layers []*mmapbloom.Filter) {
	gen, all := testhooks.ViewLayers(s)
	for _, l := range all {
		layers = append(layers, l.(*mmapbloom.Filter))
	}
	return gen, layers
}
