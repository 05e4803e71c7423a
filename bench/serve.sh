#!/usr/bin/env bash
# Benchmarks `mmapbloom serve` against Debian's redis-server in one run,
# with redis-benchmark on loopback (-c 8 -P 16, random keys, bounded by
# -n), and prints a Markdown table for BENCHMARKS.md. Not part of CI.
#
#   SADD / SISMEMBER on redis-server (what scrapy-redis uses) against
#   BF.ADD / BF.EXISTS on one NONSCALING filter; BF.MEXISTS of 100 keys;
#   BF.ADD and BF.EXISTS again while another process (cmd/syncloop) calls
#   Sync on the same file without pause; then the server's memory with ten
#   1 GiB filters open and written to (RssAnon: its own memory; RssFile:
#   the page cache of the mappings it has touched).
#
# usage: bench/serve.sh      (needs redis-server, redis-cli, redis-benchmark)
#
# Environment (defaults in brackets):
#   N         requests per test [1000000]; BF.MEXISTS runs N/10
#   KEYSPACE  range of the random keys, redis-benchmark -r [100000000]
#   BIG_N     capacity of each of the ten big filters [850000000: 1 GiB]
#   OUT       working directory [bench/out/serve]; filters go to OUT/data
#             (about 11 GiB of disk for the big filters, removed at the end)
#   PORTS     redis-server's and mmapbloom's ports ["16379 16380"]
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-1000000}
KEYSPACE=${KEYSPACE:-100000000}
BIG_N=${BIG_N:-850000000}
OUT=${OUT:-$PWD/out/serve}
read -r RPORT BPORT <<<"${PORTS:-16379 16380}"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$OUT/bin"
rm -rf "$OUT/data" && mkdir -p "$OUT/data"
(cd .. && go build -o "$OUT/bin/mmapbloom" ./tools/mmapbloom)
go build -o "$OUT/bin/syncloop" ./cmd/syncloop

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no >"$OUT/redis.log" 2>&1 &
pids+=($!)
"$OUT/bin/mmapbloom" serve --dir "$OUT/data" --addr "127.0.0.1:$BPORT" 2>"$OUT/serve.log" &
BPID=$!
pids+=($BPID)
for port in "$RPORT" "$BPORT"; do
	for _ in $(seq 50); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done
done
redis-cli -p "$BPORT" BF.RESERVE seen 0.01 "$N" NONSCALING >/dev/null

rows=()
# bench SERVER PORT KEYS_PER_CMD REQUESTS COMMAND...: one table row.
bench() {
	local server=$1 port=$2 keys=$3 n=$4
	shift 4
	local csv
	csv=$(redis-benchmark -h 127.0.0.1 -p "$port" -n "$n" -c 8 -P 16 -r "$KEYSPACE" --csv "$@" | tail -1)
	# "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
	IFS=, read -r _ rps _ _ p50 _ p99 _ <<<"${csv//\"/}"
	local label="$1 $2"
	[ "$keys" -gt 1 ] && label="$1 $2 + $keys keys"
	rows+=("$(printf '| %s | %s | %.0f | %.0f | %s | %s |' "$label" "$server" "$rps" "$(awk -v r="$rps" -v k="$keys" 'BEGIN {print r * k}')" "$p50" "$p99")")
	echo "${rows[-1]}" >&2
}

mexists=(BF.MEXISTS seen)
for _ in $(seq 100); do mexists+=(__rand_int__); done

bench redis-server "$RPORT" 1 "$N" SADD seen __rand_int__
bench mmapbloom "$BPORT" 1 "$N" BF.ADD seen __rand_int__
bench redis-server "$RPORT" 1 "$N" SISMEMBER seen __rand_int__
bench mmapbloom "$BPORT" 1 "$N" BF.EXISTS seen __rand_int__
bench mmapbloom "$BPORT" 100 "$((N / 10))" "${mexists[@]}"

"$OUT/bin/syncloop" -file "$OUT/data/seen.bloom" -for 10m >"$OUT/syncloop.out" &
SPID=$!
pids+=($SPID)
bench "mmapbloom, Sync looping" "$BPORT" 1 "$N" BF.ADD seen __rand_int__
bench "mmapbloom, Sync looping" "$BPORT" 1 "$N" BF.EXISTS seen __rand_int__
kill "$SPID"; wait "$SPID" 2>/dev/null || true

redis_rss=$(awk '/^VmRSS/ {print $2}' "/proc/$(pgrep -f "redis-server 127.0.0.1:$RPORT" | head -1)/status" 2>/dev/null || echo "?")

for i in $(seq 0 9); do
	redis-cli -p "$BPORT" BF.RESERVE "big$i" 0.01 "$BIG_N" NONSCALING >/dev/null
	redis-benchmark -h 127.0.0.1 -p "$BPORT" -n 200000 -c 8 -P 16 -r "$KEYSPACE" -q BF.ADD "big$i" __rand_int__ >/dev/null
done
mem() { awk -v k="$1" '$1 == k":" {printf "%.1f", $2 / 1024}' "/proc/$BPID/status"; }
big_bytes=$(redis-cli -p "$BPORT" BF.INFO big0 SIZE | tail -1)

echo
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load average before: $LOAD_BEFORE"
echo "redis-benchmark -n $N -c 8 -P 16 -r $KEYSPACE, $(redis-server --version | cut -d' ' -f1-3)"
echo
echo "| command | server | requests/s | keys/s | p50 ms | p99 ms |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Syncs by the other process during the Sync-looping rows: $(cat "$OUT/syncloop.out" 2>/dev/null || echo "(killed before it printed)")."
echo "redis-server RSS after $N SADDs: $((redis_rss / 1024)) MiB."
echo "mmapbloom serve with ten filters of $big_bytes bytes open, 200,000 BF.ADD each (plus 'seen'): VmRSS $(mem VmRSS) MiB = RssAnon $(mem RssAnon) MiB (its own memory) + RssFile $(mem RssFile) MiB (page cache of the mapped pages it touched)."
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$OUT"/data/big*.bloom
