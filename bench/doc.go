// Package bench compares this store with the peer Bloom filter libraries,
// github.com/bits-and-blooms/bloom/v3 and github.com/greatroar/blobloom, in
// one run on the same keys. It is a module of its own so that the peers
// stay out of the library's dependencies and the benchmarks out of CI.
//
// BenchmarkPeers uses BENCH_N generated URL-like keys (default 1M; 10M,
// 50M, ... accepted); BenchmarkPeersPhishing the real URLs of
// ../../shared/data (or BENCH_DATA). File-backed filters live under
// BENCH_DIR when set, else in the benchmark's temporary directory. run.sh
// runs everything and cmd/report turns its output into Markdown tables
// under out/, whose figures BENCHMARKS.md copies.
// BenchmarkLatency puts this store's single-key calls and batch Add beside
// the machine's random reads in one process; latency.sh runs it per
// kernel (MMAPBLOOM_KERNEL), alternated, and prints the median ratios.
package bench
