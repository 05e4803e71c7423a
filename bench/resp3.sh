#!/usr/bin/env bash
# BF.EXISTS on `mmapbloom serve` against SISMEMBER on Debian's
# redis-server, in RESP2 and in RESP3 (redis-benchmark -3), as
# interleaved pairs: each round runs SISMEMBER then BF.EXISTS in both
# protocols, one after the other, and the script prints every round and
# the medians of the ratios. Not part of CI.
#
# usage: bench/resp3.sh     (needs redis-server, redis-cli, redis-benchmark)
#
# Environment (defaults in brackets):
#   N         requests per run [300000]
#   ROUNDS    interleaved rounds [10]
#   KEYSPACE  range of the random keys, redis-benchmark -r [1000000]
#   OUT       working directory [bench/out/resp3]
#   PORTS     redis-server's and mmapbloom's ports ["16381 16382"]
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-300000}
ROUNDS=${ROUNDS:-10}
KEYSPACE=${KEYSPACE:-1000000}
OUT=${OUT:-$PWD/out/resp3}
read -r RPORT BPORT <<<"${PORTS:-16381 16382}"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$OUT/bin"
rm -rf "$OUT/data" && mkdir -p "$OUT/data"
(cd .. && go build -o "$OUT/bin/mmapbloom" ./tools/mmapbloom)

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no >"$OUT/redis.log" 2>&1 &
pids+=($!)
"$OUT/bin/mmapbloom" serve --dir "$OUT/data" --addr "127.0.0.1:$BPORT" 2>"$OUT/serve.log" &
pids+=($!)
for port in "$RPORT" "$BPORT"; do
	for _ in $(seq 50); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done
done

# Both hold the same keys: KEYSPACE/2 random ones, half the probes hit.
redis-cli -p "$BPORT" BF.RESERVE seen 0.01 "$KEYSPACE" NONSCALING >/dev/null
redis-benchmark -h 127.0.0.1 -p "$RPORT" -n "$((KEYSPACE / 2))" -c 8 -P 16 -r "$KEYSPACE" -q SADD seen __rand_int__ >/dev/null
redis-benchmark -h 127.0.0.1 -p "$BPORT" -n "$((KEYSPACE / 2))" -c 8 -P 16 -r "$KEYSPACE" -q BF.ADD seen __rand_int__ >/dev/null

# rps PORT PROTO COMMAND...: requests per second of one run in RESP
# PROTO (2 or 3).
rps() {
	local port=$1 proto=()
	[ "$2" = 3 ] && proto=(-3)
	shift 2
	redis-benchmark -h 127.0.0.1 -p "$port" -n "$N" -c 8 -P 16 -r "$KEYSPACE" "${proto[@]}" --csv "$@" |
		tail -1 | cut -d, -f2 | tr -d '"'
}

echo "| round | RESP2 SISMEMBER/s | RESP2 BF.EXISTS/s | ratio | RESP3 SISMEMBER/s | RESP3 BF.EXISTS/s | ratio |"
echo "|---|---|---|---|---|---|---|"
r2=() r3=()
for round in $(seq "$ROUNDS"); do
	s2=$(rps "$RPORT" 2 SISMEMBER seen __rand_int__)
	b2=$(rps "$BPORT" 2 BF.EXISTS seen __rand_int__)
	s3=$(rps "$RPORT" 3 SISMEMBER seen __rand_int__)
	b3=$(rps "$BPORT" 3 BF.EXISTS seen __rand_int__)
	q2=$(awk -v b="$b2" -v s="$s2" 'BEGIN {printf "%.2f", b / s}')
	q3=$(awk -v b="$b3" -v s="$s3" 'BEGIN {printf "%.2f", b / s}')
	r2+=("$q2") r3+=("$q3")
	echo "| $round | $s2 | $b2 | ${q2}x | $s3 | $b3 | ${q3}x |"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo
echo "median BF.EXISTS / SISMEMBER: RESP2 $(median "${r2[@]}")x, RESP3 $(median "${r3[@]}")x over $ROUNDS rounds"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(grep -m1 -o -w 'avx2\|avx512f' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "redis-benchmark -n $N -c 8 -P 16 -r $KEYSPACE, $(redis-server --version | cut -d' ' -f1-3); load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
