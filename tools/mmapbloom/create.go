package main

import (
	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// createCmd makes a new, empty filter file.
type createCmd struct {
	File  string  `arg:"" help:"Filter file to create."`
	N     uint64  `short:"n" name:"capacity" placeholder:"N" required:"" help:"Capacity: the number of keys the filter is sized for."`
	P     float64 `short:"p" name:"probability" placeholder:"P" required:"" help:"False-positive probability at n keys, in (0, 1)."`
	Force bool    `help:"Replace FILE if it exists (refused while another process has it open)."`
	shapeFlags
}

// shapeFlags choose the format, layout, hash scheme and seed of a new
// filter. "auto" leaves the choice to the library: v2 blocked512 with
// xxh3 when p >= 1e-6, classic with double MurmurHash64A below.
type shapeFlags struct {
	Format string  `enum:"v1,v2" default:"v2" help:"File format: v2, or v1 (the documents' BaseBloomFilter v1.1: m below 2^32, 32-bit seed and count)."`
	Layout string  `enum:"auto,blocked512,classic" default:"auto" help:"Bit layout (v2): blocked512 (one cache line per key) or classic (k bits over the whole array)."`
	Scheme string  `enum:"auto,murmur2-double,murmur2-seeds,xxh3-blocked" default:"auto" help:"Hash scheme, one of ${enum}. auto: xxh3-blocked for blocked512, murmur2-double for classic; murmur2-double: double MurmurHash64A, murmur2-seeds: k seeded MurmurHash64A (classic); xxh3-blocked: xxh3 (blocked512)."`
	Seed   *uint64 `help:"Hash seed (default: random; the seeded scheme's documents use 314159265)."`
	Prime  bool    `help:"Round m up to a prime (murmur2-seeds only)."`
}

var (
	layoutIDs = map[string]format.Layout{"blocked512": format.LayoutBlocked512, "classic": format.LayoutClassic}
	schemeIDs = map[string]format.Scheme{
		"murmur2-double": format.SchemeMurmurDouble,
		"murmur2-seeds":  format.SchemeMurmurSeeds,
		"xxh3-blocked":   format.SchemeXXH3Blocked,
	}
)

// options returns the library options the flags ask for; choices left at
// "auto" stay zero, for the library's defaults.
func (s shapeFlags) options() *mmapbloom.CreateOptions {
	o := &mmapbloom.CreateOptions{Layout: layoutIDs[s.Layout], Scheme: schemeIDs[s.Scheme], PrimeM: s.Prime}
	if s.Format == "v1" {
		o.Format = format.V1
	}
	if s.Seed != nil {
		o.Seed, o.FixedSeed = *s.Seed, true
	}
	return o
}

// Run creates the file.
func (c *createCmd) Run(_ *env) error {
	o := c.options()
	o.Overwrite = c.Force
	f, err := mmapbloom.Create(c.File, c.N, c.P, o)
	if err != nil {
		return err
	}
	return f.Close()
}
