// Package mmapbloom implements persistent Bloom filters that live in
// memory-mapped files. A filter of any size opens in O(1) (map the file,
// check its 64-byte header) and answers at once; many goroutines and many
// processes may add and test through one file concurrently with no lost
// bits; the file can be copied to other hosts and opened there.
//
// # Basics
//
// A [Filter] is one file: a header (format, layout, hash scheme, seed, m
// bits, k hashes, capacity n, false-positive probability p, count) and the
// bit array. [Create] sizes it from n and p, [CreateWithMK] from m and k,
// [Open] maps an existing one (read-write, or read-only with
// [OpenOptions]). Keys are any byte sequences, the empty one included:
// [Filter.Add], [Filter.Test] and [Filter.TestAndAdd] take one key, their
// Batch forms many keys per call (hashed, prefetched and probed by SIMD
// kernels where the CPU has them), their String forms a string without
// copying it; [Filter.TestBatchHashes] gives a batch's hashes to a later
// [Filter.TestAndAddBatchHashes] of its new keys, which then does not
// hash them again (dedup's test, then claim; a [Set] has both too). Test answers false when the key is definitely absent and
// true when it may be present (a false positive with probability about p
// while the filter holds at most n keys; [Filter.Stats] estimates it).
//
// A [Set] is a directory NAME.bfset of ordinary v2 filter files, its
// layers, described by a MANIFEST file and a one-page CONTROL file.
// [CreateSet] makes a scalable set, which adds a larger, tighter layer
// when the newest one is full, so that its false-positive rate stays
// about p however many keys it takes, or a windowed
// set ([SetOptions].Window and Keep), which forgets keys a number of
// windows after they were last added. [OpenSet] opens one; a Set has the
// single-key and batch calls of a Filter.
//
// Two file formats exist: v1.1, the BaseBloomFilter format of the
// reference code the project started from (double MurmurHash64A, 32-bit
// fields), kept for interoperability, and v2, this project's own, with a
// blocked (one cache line per key) or classic layout, a header checksum
// and an optional data checksum ([Filter.Seal], [Filter.Verify]).
// format/FORMAT.md in this repository specifies every byte; package
// [github.com/mmapbloom/mmapbloom/format] reads and writes the header.
//
// Errors are the sentinel values of errors.go ([ErrInUse], [ErrSealed],
// [ErrFileChanged], [ErrNoSpace], ...) and those of package format for a
// bad header, wrapped with the path or the offending value; test for them
// with errors.Is. Every message starts with "mmapbloom:". Bad input (a p
// outside (0, 1), n = 0, a truncated, foreign or corrupted file) is an
// error, never a panic or a wrong answer.
//
// # Caveats
//
// A *Filter and a *Set are safe for concurrent use by any number of
// goroutines. Any number of processes may open one file at once: bits are
// only ever set, with atomic 64-bit ORs on the shared mapping, and the
// count is updated atomically in groups of 256 adds per handle
// ([OpenOptions].ExactCount updates it on every add). Test and TestBatch
// take no lock. The one exception is a [Builder] made with
// [BuildOptions].SingleWriter: its AddBatch sets bits with plain ORs,
// for one goroutine adding at a time. Operations that are not monotone ([Filter.Clear],
// [Filter.Merge] into a filter, [Filter.Seal], [Filter.Unseal], Create
// with Overwrite, [SealSet], [UnsealSet]) need every other handle closed
// and fail at once with [ErrInUse] otherwise; they never wait. Locks and
// atomics work between processes on one host, not over a network file
// system.
//
// A file truncated or rewritten under a live mapping makes the next call
// return [ErrFileChanged] instead of crashing with SIGBUS; a page the file
// system cannot supply (a full disk) gives [ErrNoSpace]. A bit array
// changed behind the library's back with its header kept cannot be seen:
// while a filter is open, write it only through this package.
//
// Adds go into the page cache: a process killed with kill -9 loses no add
// that returned, but a power loss may lose adds made since the last
// [Filter.Sync] (msync and fsync), and may leave a classic-layout key
// half-written, the one way the store gives a false negative. Create
// publishes a file only when it is complete, its space reserved and
// synced.
//
// The repository's README.md ("Safety between goroutines and processes",
// "Durability", "Sets") says more; docs/ARCHITECTURE.md shows the packages
// behind this one.
package mmapbloom
