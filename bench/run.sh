#!/usr/bin/env bash
# Runs every benchmark of the bench module, saves the raw output under
# bench/out/ (gitignored), and writes its tables into bench/out/report.md
# (whose figures BENCHMARKS.md's library section copies, with the run's
# date and CPU) and bench/plot.png. Not part of CI. Run it on a quiet machine: about
# 10-15 minutes with the default sizes (estimated from the 10M run, 55 s;
# most of the time goes to 30M and 50M keys), about 10 GiB of memory at
# 50M and 3 GiB of disk in BENCH_DIR.
#
# usage: bench/run.sh [SIZE...]        default sizes: 1M 3M 10M 30M 50M
#
# Environment (defaults in brackets):
#   BENCH_DIR   directory of the filter files [bench/out/files]; keep it
#               on a disk-backed file system, not tmpfs
#   SINGLE_OPS  iterations of each single-key benchmark [5000000]
#   BATCH_OPS   iterations of each batch benchmark, 1024 keys each [5000]
#   COLD_RUNS   fresh processes per cold-start file [20]
#   COLD_SIZE   bit array of the cold-start and cold-disk filters [1GiB]
#   DISK_RUNS   fresh processes per cold-disk measurement [3]
#   SCALE_N     keys added in the multi-process test [50M]
#   LABEL       a line shown above the generated tables
set -euo pipefail
cd "$(dirname "$0")"

SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1M 3M 10M 30M 50M)
BENCH_DIR=${BENCH_DIR:-$PWD/out/files}
SINGLE_OPS=${SINGLE_OPS:-5000000}
BATCH_OPS=${BATCH_OPS:-5000}
COLD_RUNS=${COLD_RUNS:-20}
COLD_SIZE=${COLD_SIZE:-1GiB}
DISK_RUNS=${DISK_RUNS:-3}
SCALE_N=${SCALE_N:-50M}
LABEL=${LABEL:-}
OUT=out
SINGLE='^op=(add|test-present|test-absent)$'
BATCH='^op=batch-'

mkdir -p "$OUT/bin" "$BENCH_DIR"
rm -f "$OUT"/*.bench
echo "# run from bench/ by run.sh" >"$OUT/commands.txt"

# quote ARGS...: prints the arguments as a shell command line, quoting
# those with characters the shell would read.
quote() {
	local a line=
	for a in "$@"; do
		if [[ $a =~ [^A-Za-z0-9_./=:,+-] ]]; then
			a="'${a//\'/\'\\\'\'}'"
		fi
		line+="${line:+ }$a"
	done
	printf '%s\n' "$line"
}

# step FILE CMD...: records CMD in commands.txt, runs it (from bench/),
# shows its output and saves it in out/FILE.
step() {
	local file=$1
	shift
	local start=$SECONDS
	quote "$@" >>"$OUT/commands.txt"
	echo "== $*" >&2
	"$@" | tee "$OUT/$file"
	echo "== $file: $((SECONDS - start)) s" >&2
}

machine() {
	echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "cpu:     $(lscpu | sed -n 's/^Model name: *//p') (family $(sed -n 's/^cpu family\t*: //p' /proc/cpuinfo | head -1), model $(sed -n 's/^model\t*: //p' /proc/cpuinfo | head -1)), $(nproc) cores"
	echo "vector:  $(grep -m1 -o -w 'avx2\|avx512f\|avx512bw\|avx512vl\|bmi2' /proc/cpuinfo | sort -u | tr '\n' ' ')(the batch calls use the first kernel of avx512, avx2, generic that these allow)"
	echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
	echo "kernel:  $(uname -sr)"
	echo "go:      $(go version)"
	echo "files:   $BENCH_DIR on $(df -T "$BENCH_DIR" | awk 'NR==2 {print $2 " (" $1 ")"}')"
	echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at start"
}
machine >"$OUT/machine.txt"
cat "$OUT/machine.txt" >&2

go build -o "$OUT/bin/" ./cmd/coldstart ./cmd/addproc ./cmd/procbench
(cd .. && go build -o "bench/$OUT/bin/" ./tools/mmapbloom)

for n in "${SIZES[@]}"; do
	step "peers-$n.bench" env BENCH_N="$n" BENCH_DIR="$BENCH_DIR" go test -run '^$' \
		-bench "^BenchmarkPeers\$/^lib=/^n=/$SINGLE" -benchtime="${SINGLE_OPS}x" -count 1 -timeout 0 .
	step "peers-$n-batch.bench" env BENCH_N="$n" BENCH_DIR="$BENCH_DIR" go test -run '^$' \
		-bench "^BenchmarkPeers\$/^lib=mmapbloom/^n=/$BATCH" -benchtime="${BATCH_OPS}x" -count 1 -timeout 0 .
done
step phishing.bench env BENCH_DIR="$BENCH_DIR" go test -run '^$' \
	-bench "^BenchmarkPeersPhishing\$/^lib=/^n=/$SINGLE" -benchtime="${SINGLE_OPS}x" -count 1 -timeout 0 .
step phishing-batch.bench env BENCH_DIR="$BENCH_DIR" go test -run '^$' \
	-bench "^BenchmarkPeersPhishing\$/^lib=mmapbloom/^n=/$BATCH" -benchtime="${BATCH_OPS}x" -count 1 -timeout 0 .
step cold.bench "$OUT/bin/procbench" cold -dir "$BENCH_DIR" -runs "$COLD_RUNS" -size "$COLD_SIZE" -bab-n 50M -keys 1M
step disk.bench "$OUT/bin/procbench" disk -dir "$BENCH_DIR" -runs "$DISK_RUNS" -size "$COLD_SIZE" -keys 1M
step scale.bench "$OUT/bin/procbench" scale -dir "$BENCH_DIR" -n "$SCALE_N"
step memlat.bench env BENCH_DIR="$BENCH_DIR" go test -run '^$' -bench '^BenchmarkMemoryLatency$' -count 1 .

printf '%s\n%s\n' '<!-- BEGIN GENERATED -->' '<!-- END GENERATED -->' >"$OUT/report.md"
go run ./cmd/report -md "$OUT/report.md" -machine "$OUT/machine.txt" -commands "$OUT/commands.txt" \
	-notes targets-notes.txt -label "$LABEL" "$OUT"/*.bench
go run ./cmd/plot -o plot.png "$OUT"/peers-*.bench
echo "wrote $OUT/report.md and plot.png; copy the figures into ../BENCHMARKS.md" >&2
