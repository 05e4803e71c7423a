#!/usr/bin/env bash
# Runs BenchmarkLatency ROUNDS times per kernel, the kernels alternated
# (one process per run: the library reads MMAPBLOOM_KERNEL at start-up),
# and prints, per kernel and operation, the median over the runs of each
# run's ratio to the read measured in the same run: single-key calls to
# the dependent read, batch-test and batch-add (ns/key) to the independent (overlapped)
# read, from the thread's CPU time (cpu-ns/op), then from the wall time. Not part of CI; 50M keys only when asked (about 8 GiB of memory).
#
# usage: bench/latency.sh [N...]          default N: 10M
# Environment: ROUNDS [10], KERNELS ["avx512 avx2 generic"], OPS [1000000]
# (iterations of each benchmark; keys, for batch-add; at most 1048576),
# BENCH_DIR (filter and reference files; default: the test's temp dir),
# OUT [out/latency].
set -euo pipefail
cd "$(dirname "$0")"
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10M)
ROUNDS=${ROUNDS:-10}
KERNELS=${KERNELS:-avx512 avx2 generic}
OPS=${OPS:-1000000}
OUT=${OUT:-out/latency}
mkdir -p "$OUT"
go test -c -o "$OUT/bench.test" .
for n in "${SIZES[@]}"; do
	raw="$OUT/raw-$n.txt"
	: >"$raw"
	for r in $(seq 1 "$ROUNDS"); do
		for k in $KERNELS; do
			MMAPBLOOM_KERNEL=$k BENCH_N=$n "$OUT/bench.test" -test.run '^$' \
				-test.bench '^BenchmarkLatency$' -test.benchtime "${OPS}x" |
				grep '^BenchmarkLatency' | sed "s/^/run=$r load=$(cut -d' ' -f1 /proc/loadavg) /" >>"$raw"
		done
	done
	echo "n=$n: median of $ROUNDS runs per kernel (load averages $(awk '{print $2}' "$raw" | sort -t= -k2 -n | sed -n '1p;$p' | tr '\n' ' '))"
	echo "thread CPU time (cpu-ns/op):"
	awk -f latency.awk "$raw"
	echo "wall time (ns/op):"
	awk -v metric=ns/op -f latency.awk "$raw"
done
