package mmapbloom_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// tempPath returns a file name in a fresh temporary directory.
func tempPath(name string) (string, func()) {
	dir, err := os.MkdirTemp("", "mmapbloom-example")
	if err != nil {
		log.Fatal(err)
	}
	return filepath.Join(dir, name), func() { os.RemoveAll(dir) }
}

// Create a filter file for a million keys at a 0.1% false-positive rate.
// The file is sized and reserved at once; opening it later is O(1).
func ExampleCreate() {
	path, cleanup := tempPath("seen.bloom")
	defer cleanup()

	f, err := mmapbloom.Create(path, 1_000_000, 0.001, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println(f.Header().Layout, f.K(), f.M()%512 == 0)
	// Output: blocked512 9 true
}

// Build a filter from a list of keys before anyone can open it: the bits
// are set in private memory and the file is written once, then
// published whole (Mode says BuildShared where the file would not fit in
// the memory available).
func ExampleNewBuilder() {
	path, cleanup := tempPath("blocklist.bloom")
	defer cleanup()

	b, err := mmapbloom.NewBuilder(path, 1_000_000, 0.001, nil)
	if err != nil {
		log.Fatal(err)
	}
	keys := [][]byte{[]byte("bad.example"), []byte("worse.example")}
	if err := b.AddBatch(keys); err != nil {
		_ = b.Abort() // nothing is published
		log.Fatal(err)
	}
	if err := b.Finish(); err != nil {
		log.Fatal(err)
	}
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	present, _ := f.TestString("worse.example")
	count, _ := f.Count()
	fmt.Println(present, count)
	// Output: true 2
}

// Add keys, then test them: a key added always tests present; a key never
// added tests absent except with probability about p.
func ExampleFilter_Test() {
	path, cleanup := tempPath("blocklist.bloom")
	defer cleanup()
	f, err := mmapbloom.Create(path, 10_000, 0.001, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, host := range []string{"bad.example", "worse.example"} {
		if err := f.AddString(host); err != nil {
			log.Fatal(err)
		}
	}
	f.Close()

	// Any process can now map the file read-only and answer at once.
	r, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for _, host := range []string{"bad.example", "good.example"} {
		present, err := r.TestString(host)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(host, present)
	}
	// Output:
	// bad.example true
	// good.example false
}

// Deduplicate a stream at most once: TestAndAdd reports false for a key
// this call added, and marks it seen in the same step. A process that
// dies after the call but before it hands the URL on loses that URL for
// good (the next run finds it seen); use it where a lost key costs less
// than a repeated one. A crawler wants the at-least-once order of
// ExampleOpenOrCreate instead.
func ExampleFilter_TestAndAddBatch() {
	path, cleanup := tempPath("seen.bloom")
	defer cleanup()
	f, err := mmapbloom.Create(path, 10_000, 0.001, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	urls := [][]byte{
		[]byte("https://a.example/"), []byte("https://b.example/"), []byte("https://a.example/"),
	}
	seen := make([]bool, len(urls))
	if err := f.TestAndAddBatch(urls, seen); err != nil {
		log.Fatal(err)
	}
	for i, u := range urls {
		if !seen[i] {
			fmt.Println(string(u))
		}
	}
	// Output:
	// https://a.example/
	// https://b.example/
}

// Merge shards built anywhere into one filter: the result holds every key
// of both. The shards must share m, k, layout, scheme and seed.
func ExampleFilter_Merge() {
	dst, cleanup := tempPath("all.bloom")
	defer cleanup()
	opts := &mmapbloom.CreateOptions{Seed: 1, FixedSeed: true}
	a, err := mmapbloom.Create(dst, 1000, 0.01, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := mmapbloom.Create(dst+".shard", 1000, 0.01, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()

	_ = a.AddString("from shard a")
	_ = b.AddString("from shard b")
	if err := a.Merge(b); err != nil {
		log.Fatal(err)
	}
	ok, _ := a.TestString("from shard b")
	n, _ := a.Count()
	fmt.Println(ok, n)
	// Output: true 2
}

// Ship a live set: export a sealed copy while the live set keeps taking
// adds, verify it on the receiving side, and open it read-only.
func ExampleSet_Export() {
	live, cleanup := tempPath("blocklist.bfset")
	defer cleanup()
	s, err := mmapbloom.CreateSet(live, 10_000, 0.001, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.AddString("https://phish.example/"); err != nil {
		log.Fatal(err)
	}

	ship := filepath.Join(filepath.Dir(live), "blocklist-ship.bfset")
	if err := s.Export(ship, &mmapbloom.ExportOptions{Seal: true}); err != nil {
		log.Fatal(err)
	}
	_ = s.AddString("https://later.example/") // the live set goes on

	checks, err := mmapbloom.VerifySet(ship) // after copying ship to the receiving host
	if err != nil {
		log.Fatal(err)
	}
	shipped, err := mmapbloom.OpenSet(ship, nil) // sealed: opened read-only
	if err != nil {
		log.Fatal(err)
	}
	defer shipped.Close()
	hit, _ := shipped.TestString("https://phish.example/")
	fmt.Println(len(checks), hit, errors.Is(shipped.AddString("x"), mmapbloom.ErrSealed))
	// Output: 1 true true
}

// Deduplicate at least once, the crawler's rule (and mmapbloom dedup's):
// test, hand the new keys on (print, enqueue, fetch), and add them only
// once that is done. A process that dies in between hands the same keys on
// again at its next run; it never marks a key seen that it did not hand
// on. Every worker of a fleet may run this at once on the same file: one
// creates it, the others open it.
func ExampleOpenOrCreate() {
	path, cleanup := tempPath("seen.bloom")
	defer cleanup()
	f, err := mmapbloom.OpenOrCreate(path, 10_000, 0.001, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()

	urls := [][]byte{[]byte("https://a.example/"), []byte("https://b.example/")}
	seen := make([]bool, len(urls))
	for round := 1; round <= 2; round++ {
		if err := f.TestBatch(urls, seen); err != nil {
			log.Fatal(err)
		}
		var handed [][]byte
		for i, u := range urls {
			if !seen[i] {
				fmt.Printf("round %d: %s\n", round, u) // the caller's work, done first
				handed = append(handed, u)
			}
		}
		if err := f.AddBatch(handed); err != nil { // then marked seen
			log.Fatal(err)
		}
	}
	// Output:
	// round 1: https://a.example/
	// round 1: https://b.example/
}
