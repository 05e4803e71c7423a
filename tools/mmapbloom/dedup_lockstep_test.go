package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDedupLockstep: dedup processes started at once on a new filter
// (and set) reading the same URLs in the same order, so that they run in
// lockstep, the cases of issue 36: one on the first half of 1,000,000
// URLs beside one on all of them; three on the same 1,000,000; three on
// the same 200,000. Each URL is claimed by one process, so at most 0.1%
// of the URLs print more than once (0 expected: a URL prints twice only
// when its claim is lost to a concurrent add of another URL, or after a
// kill), and none is lost (requireComplete).
func TestDedupLockstep(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 URLs: skipped with -short")
	}
	bin := binary(t)
	u := newURLSet(t, 1_000_000)
	dir := t.TempDir()
	all := u.write(t, dir, "all.txt", u.all())
	half := u.write(t, dir, "half.txt", u.all()[:u.n/2])
	first := u.write(t, dir, "first200k.txt", u.all()[:200_000])
	for _, c := range []struct {
		name   string
		inputs []string
		urls   int
	}{
		{"half-beside-all", []string{half, all}, u.n},
		{"three-same", []string{all, all, all}, u.n},
		{"three-same-200k", []string{first, first, first}, 200_000},
	} {
		for _, name := range []string{"seen.bloom", "seen.bfset"} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				store := filepath.Join(t.TempDir(), name)
				p := u.readOutputs(t, runWorkers(t, bin, store, c.inputs)...)
				missing := u.requireComplete(t, store, u.all()[:c.urls], p)
				t.Logf("%s, %s: %d lines printed, %d URLs printed more than once (%.4f%% of the %d URLs), %d missing (false positives)",
					c.name, name, countPrinted(p), p.twice(), 100*float64(p.twice())/float64(c.urls), c.urls, missing)
				assert.LessOrEqual(t, p.twice(), c.urls/1000, "URLs printed more than once")
			})
		}
	}
}
