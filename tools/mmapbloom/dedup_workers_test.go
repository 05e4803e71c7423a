package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
)

// dedupWorkers is the number of dedup processes of TestDedupWorkers.
const dedupWorkers = 8

// TestDedupWorkers: 8 dedup processes started at once on a filter file
// that does not exist yet, and on a set that does not exist yet, each
// given a part of 1,000,000 distinct URLs: disjoint parts, then parts 60%
// of whose URLs every other part holds too (in another order). Every
// worker exits 0 (the losers of the create open what the winner made),
// the union of their outputs holds every URL apart from false positives
// (requireComplete), and no URL of disjoint parts prints twice; the
// number of URLs two workers both printed (each tested it absent before
// the other added it) is reported.
func TestDedupWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 URLs: skipped with -short")
	}
	bin := binary(t)
	u := newURLSet(t, 1_000_000)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(20, 60))
	for _, kind := range []string{"disjoint", "overlap60"} {
		parts := disjointParts(u.n)
		if kind == "overlap60" {
			parts = overlappingParts(rng, u.n)
		}
		inputs := make([]string, len(parts))
		for i, ids := range parts {
			inputs[i] = u.write(t, dir, fmt.Sprintf("%s-%d.txt", kind, i), ids)
		}
		for _, name := range []string{"seen.bloom", "seen.bfset"} {
			t.Run(kind+"/"+name, func(t *testing.T) {
				store := filepath.Join(t.TempDir(), name)
				outs := runWorkers(t, bin, store, inputs)
				p := u.readOutputs(t, outs...)
				missing := u.requireComplete(t, store, u.all(), p)
				lines := countPrinted(p)
				t.Logf("%d workers, %s parts, %s: %d lines printed, %d URLs printed more than once (%.4f%% of the %d URLs), %d missing (false positives)",
					dedupWorkers, kind, name, lines, p.twice(), 100*float64(p.twice())/float64(u.n), u.n, missing)
				if kind == "disjoint" {
					assert.Zero(t, p.twice(), "URLs of disjoint parts printed twice")
				}
			})
		}
	}
}

// runWorkers starts one dedup of store per input at once, waits for all
// and requires each to succeed silently; it returns their output files.
func runWorkers(t *testing.T, bin, store string, inputs []string) []string {
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, len(inputs))
	outs := make([]string, len(inputs))
	stderrs := make([]bytes.Buffer, len(inputs))
	for i, in := range inputs {
		outs[i] = filepath.Join(dir, fmt.Sprintf("out%d", i))
		f, err := os.Create(outs[i])
		require.NoError(t, err)
		defer f.Close()
		cmds[i] = testkit.Command(t, bin, "dedup", store, "-n", "1000000", "-p", "0.001", in)
		cmds[i].Stdout, cmds[i].Stderr = f, &stderrs[i]
	}
	for _, c := range cmds {
		require.NoError(t, c.Start())
	}
	for i, c := range cmds {
		err := c.Wait()
		assert.Equal(t, exitOK, exitOf(t, err, c), "worker %d: %s", i, stderrs[i].String())
		assert.Empty(t, stderrs[i].String(), "worker %d", i)
	}
	return outs
}

// disjointParts cuts the URLs 0 to n-1 into dedupWorkers parts.
func disjointParts(n int) [][]int {
	parts := make([][]int, dedupWorkers)
	for j := range n {
		parts[j%dedupWorkers] = append(parts[j%dedupWorkers], j)
	}
	return parts
}

// overlappingParts gives each worker a part of which 60% are URLs every
// part holds (the pool) and 40% its own, each part in its own random
// order: the pool is 0.6 L and each own share 0.4 L for parts of L URLs,
// so that the pool and the own shares make the n URLs.
func overlappingParts(rng *rand.Rand, n int) [][]int {
	own := int(float64(n) * 0.4 / (0.6 + 0.4*dedupWorkers))
	pool := n - own*dedupWorkers
	parts := make([][]int, dedupWorkers)
	for i := range parts {
		ids := make([]int, 0, pool+own)
		for j := range pool {
			ids = append(ids, j)
		}
		for j := range own {
			ids = append(ids, pool+i*own+j)
		}
		parts[i] = shuffled(rng, ids)
	}
	return parts
}
