package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// createCmd makes a new, empty filter file.
type createCmd struct {
	File    string    `arg:"" help:"Filter file to create."`
	N       *keyCount `short:"n" name:"capacity" placeholder:"N" xor:"n-like" help:"Capacity: the number of keys the filter is sized for, e.g. 1000000, 1_000_000 or 1e6 (required unless --like)."`
	P       *float64  `short:"p" name:"probability" placeholder:"P" xor:"p-like" help:"False-positive probability at n keys, in (0, 1) (required unless --like)."`
	Like    string    `placeholder:"OTHER" xor:"n-like,p-like" help:"Take the whole shape (format, layout, scheme, seed, m, k, n, p) from the filter file OTHER, so that the two can be merged."`
	Force   bool      `help:"Replace FILE if it exists (refused while another process has it open)."`
	ExistOk bool      `name:"exist-ok" help:"When FILE exists, open it instead (the flags given must match it): many processes may run it at once."`
	Keys    []string  `placeholder:"KEYFILE" sep:"none" help:"Build the filter from the keys of KEYFILE, one per line (repeatable; \"-\" for stdin; a name ending in .gz is decompressed) in private memory, then write FILE once: the disk takes about its size, where create then add write it several times. Without the memory for it, builds through FILE's mapping, and says so. SIGINT or SIGTERM ends it with no FILE."`
	Null    bool      `short:"0" help:"With --keys: keys end with NUL, not LF (no CR is stripped)."`
	Build   string    `name:"build-mode" enum:"auto,private,shared" default:"auto" help:"With --keys: where the bits are set: private (memory of this process, FILE written once), shared (FILE's mapping, as add), or auto: private when FILE fits in the memory available (MemAvailable less an eighth), else shared. Force shared in a container whose memory limit is below the machine's free memory."`
	shapeFlags
	setFlags
}

// setFlags choose a filter set instead of a filter file: any of them, or
// a FILE ending in .bfset, makes create build a set directory.
type setFlags struct {
	Expansion  *uint32       `help:"Scalable set: each new layer holds E times the keys of the previous one (default 2; bloomd uses 4). Windowed set: each window grows the same way when it receives more than n keys (default: windows do not grow)." placeholder:"E"`
	Tightening *float64      `help:"Scalable set (and windowed set with --expansion): layer i is sized at p(1-r)r^i, r in (0, 1) (default 0.5; bloomd uses 0.9)." placeholder:"R"`
	Window     *windowLength `help:"Windowed set: window length D, 1s or more (e.g. 24h, 90m, 1d, 7d); n is the keys expected per window." placeholder:"DURATION"`
	Keep       *int          `help:"Windowed set: windows kept W, 1 to 1024 (default 2); a key is forgotten (W-1)D to WD after it was last added." placeholder:"W"`
	Refresh    bool          `help:"Windowed set: a dedup hit re-adds the key to the current window (last seen)."`
}

// wanted reports whether the flags or the name ask for a set.
func (s setFlags) wanted(file string) bool {
	return s.Expansion != nil || s.Tightening != nil || s.Window != nil || s.Keep != nil || s.Refresh || isSet(file)
}

// given names the set flag that asks for a set, for messages.
func (s setFlags) given() string {
	switch {
	case s.Window != nil:
		return "--window"
	case s.Keep != nil:
		return "--keep"
	case s.Refresh:
		return "--refresh"
	case s.Expansion != nil:
		return "--expansion"
	}
	return "--tightening"
}

// options returns the library's set options for the flags, with the
// command's clock. A value the library would take for "the default" (0)
// is refused when given explicitly.
func (s setFlags) options(layout format.Layout) (*mmapbloom.SetOptions, error) {
	o := &mmapbloom.SetOptions{Refresh: s.Refresh, Layout: layout, Now: clock}
	if s.Window != nil {
		if *s.Window <= 0 {
			return nil, fmt.Errorf("%w --window %v: a window lasts 1s or more", errFlag, *s.Window)
		}
		o.Window = time.Duration(*s.Window)
	}
	if s.Keep != nil {
		if *s.Keep < 1 {
			return nil, fmt.Errorf("%w --keep %d: a windowed set keeps at least 1 window", errFlag, *s.Keep)
		}
		o.Keep = *s.Keep
	}
	if s.Expansion != nil {
		if *s.Expansion == 0 {
			return nil, fmt.Errorf("%w --expansion 0: each layer holds at least the keys of the one before (1 or more)", errFlag)
		}
		o.Expansion = *s.Expansion
	}
	if s.Tightening != nil {
		if !(*s.Tightening > 0 && *s.Tightening < 1) {
			return nil, fmt.Errorf("%w --tightening %g: want r in (0, 1)", errFlag, *s.Tightening)
		}
		o.Tightening = *s.Tightening
	}
	return o, nil
}

// shapeFlags choose the format, layout, hash scheme and seed of a new
// filter. "auto" leaves the choice to the library (v2, blocked512 with
// xxh3 when p >= 1e-6, classic with xxh3-remix below) and, on an existing
// filter, to its header.
type shapeFlags struct {
	Format string  `enum:"auto,v1,v2" default:"auto" help:"File format: v2 (the default for a new file), or v1 (the documents' BaseBloomFilter v1.1: m below 2^32, 32-bit seed and count)."`
	Layout string  `enum:"auto,blocked512,classic" default:"auto" help:"Bit layout (v2): blocked512 (one cache line per key) or classic (k bits over the whole array)."`
	Scheme string  `enum:"auto,xxh3-remix,murmur2-double,murmur2-seeds,xxh3-blocked" default:"auto" help:"Hash scheme, one of: auto; xxh3-remix (classic, the default there), murmur2-double (classic; its positions repeat when m has small factors), murmur2-seeds (classic, the documents' k seeded hashes); xxh3-blocked (blocked512)."`
	Seed   *uint64 `help:"Hash seed (default: random; the seeded scheme's documents use 314159265)."`
	Prime  bool    `help:"Round m up to a prime (murmur2-seeds only)."`
}

var (
	// errFlag starts the message of a flag whose value cannot work.
	errFlag     = errors.New("invalid flag")
	errSetShape = errors.New("a filter set takes --layout only: --format, --scheme, --seed, --prime, --like and --force are for filter files (a set draws one random seed for its layers)")
	layoutIDs   = map[string]format.Layout{"blocked512": format.LayoutBlocked512, "classic": format.LayoutClassic}
	schemeIDs   = map[string]format.Scheme{
		"xxh3-remix":     format.SchemeXXH3Remix,
		"murmur2-double": format.SchemeMurmurDouble,
		"murmur2-seeds":  format.SchemeMurmurSeeds,
		"xxh3-blocked":   format.SchemeXXH3Blocked,
	}
)

// options returns the library options the flags ask for; choices left at
// "auto" stay zero, for the library's defaults.
func (s shapeFlags) options() *mmapbloom.CreateOptions {
	o := &mmapbloom.CreateOptions{Layout: layoutIDs[s.Layout], Scheme: schemeIDs[s.Scheme], PrimeM: s.Prime}
	switch s.Format {
	case "v1":
		o.Format = format.V1
	case "v2":
		o.Format = format.V2
	}
	if s.Seed != nil {
		o.Seed, o.FixedSeed = *s.Seed, true
	}
	return o
}

// Run creates the file or set (with --exist-ok: opens it when it exists;
// with --keys: builds it from the keys).
func (c *createCmd) Run(e *env) error {
	if len(c.Keys) > 0 || c.Null || c.Build != "auto" {
		return c.build(e)
	}
	if c.ExistOk {
		return c.openOrCreate()
	}
	o := c.shapeFlags.options()
	o.Overwrite = c.Force
	if c.setFlags.wanted(c.File) {
		if err := setFlagName("create", c.File, c.setFlags); err != nil {
			return err
		}
		return c.createSet(o)
	}
	var f *mmapbloom.Filter
	var err error
	switch {
	case c.Like != "":
		f, err = c.createLike()
	case c.N == nil || c.P == nil:
		err = fmt.Errorf("create %s: %s, or --like: %w", c.File, missingSize(c.N, c.P), mmapbloom.ErrBadOptions)
	default:
		f, err = mmapbloom.Create(c.File, uint64(*c.N), *c.P, o)
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// forSet refuses the shape flags a new filter set cannot take: of them
// only --layout applies to its layers.
func (s shapeFlags) forSet() error {
	if s.Format == "v1" || s.Scheme != "auto" || s.Seed != nil || s.Prime {
		return errSetShape
	}
	return nil
}

// createSet creates a filter set; of the shape flags only --layout
// applies to its layers.
func (c *createCmd) createSet(o *mmapbloom.CreateOptions) error {
	if c.shapeFlags.forSet() != nil || c.Force || c.Like != "" {
		return errSetShape
	}
	if c.N == nil || c.P == nil {
		return fmt.Errorf("create %s: %s: %w", c.File, missingSize(c.N, c.P), mmapbloom.ErrBadOptions)
	}
	so, err := c.setFlags.options(o.Layout)
	if err != nil {
		return err
	}
	s, err := mmapbloom.CreateSet(c.File, uint64(*c.N), *c.P, so)
	if err != nil {
		return err
	}
	return s.Close()
}

// createLike creates the file with the shape of the filter --like names;
// shape flags other than their defaults are refused.
func (c *createCmd) createLike() (*mmapbloom.Filter, error) {
	if c.shapeFlags != (shapeFlags{Format: "auto", Layout: "auto", Scheme: "auto"}) {
		return nil, fmt.Errorf("create %s: --like takes the whole shape from %s; drop --format, --layout, --scheme, --seed and --prime: %w", c.File, c.Like, mmapbloom.ErrBadOptions)
	}
	if err := fileOnly("create --like", c.Like); err != nil {
		return nil, err
	}
	other, err := mmapbloom.Open(c.Like, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	hdr := other.Header()
	if err := other.Close(); err != nil {
		return nil, err
	}
	return mmapbloom.CreateLike(c.File, hdr, &mmapbloom.CreateOptions{Overwrite: c.Force})
}

// openOrCreate is create --exist-ok: the file or set is opened when it
// exists (the flags given must match it), else created; racing processes
// all succeed.
func (c *createCmd) openOrCreate() error {
	if c.Force || c.Like != "" {
		return fmt.Errorf("create %s: --exist-ok keeps an existing FILE: it goes with neither --force nor --like: %w", c.File, mmapbloom.ErrBadOptions)
	}
	s, err := newStore{file: c.File, n: c.N, p: c.P, shape: c.shapeFlags, set: c.setFlags}.openOrCreate()
	if err != nil {
		return err
	}
	return s.Close()
}

// missingSize names the size flags missing, for create's messages.
func missingSize(n *keyCount, p *float64) string {
	switch {
	case n == nil && p == nil:
		return "give -n and -p"
	case n == nil:
		return "-n is missing: give -n and -p"
	}
	return "-p is missing: give -n and -p"
}
