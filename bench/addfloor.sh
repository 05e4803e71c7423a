#!/usr/bin/env bash
# Runs BenchmarkAddFloor (floor_test.go) ROUNDS times: batch Add beside
# its floor (independent read + locked ORs + hash) measured in the same
# process, for BENCH_N new keys into an empty filter of BENCH_N and into
# one already holding BENCH_N keys; one iteration per key, BENCH_N keys.
# Each line is prefixed with its round and the load average. Not part of
# CI; about 1.5 GB of memory at 10M.
#
# usage: bench/addfloor.sh
# Environment: BENCH_N [10M] (a number, or with a k, M or G suffix),
# ROUNDS [3], MMAPBLOOM_KERNEL (the library's kernel), BENCH_DIR (the
# filter files; default: the test's temporary directory).
set -euo pipefail
cd "$(dirname "$0")"
export BENCH_N=${BENCH_N:-10M}
ROUNDS=${ROUNDS:-3}
keys=$(awk -v n="$BENCH_N" 'BEGIN { m = 1; s = substr(n, length(n)); if (s == "k") m = 1e3; if (s == "M") m = 1e6; if (s == "G") m = 1e9; if (m > 1) n = substr(n, 1, length(n) - 1); printf "%d", n * m }')
mkdir -p out
go test -c -o out/addfloor.test .
for r in $(seq 1 "$ROUNDS"); do
	out/addfloor.test -test.run '^$' -test.bench '^BenchmarkAddFloor$' -test.benchtime "${keys}x" |
		grep '^BenchmarkAddFloor' | sed "s/^/run=$r load=$(cut -d' ' -f1 /proc/loadavg) /"
done
