#!/usr/bin/env bash
# What each appendfsync mode costs: BF.ADD on `mmapbloom serve
# --appendfsync MODE` against SADD on Debian's redis-server 7.0
# `--appendonly yes --appendfsync MODE`, on the same disk (OUT), in the
# same run: 8 clients, unpipelined and in pipelines of 16. For each run
# it prints adds/s, p50 and p99 (ms, redis-benchmark's), the bytes the
# server process wrote per add (/proc/PID/io write_bytes before and
# after) and the load average at the end of the run: on a loaded machine
# the figures need a quiet re-run. Not part of CI.
#
# usage: bench/appendfsync.sh   (as root for /proc/PID/io of both servers,
#        needs redis-server, redis-cli, redis-benchmark)
#
# Environment (defaults in brackets):
#   N         adds per run [20000]
#   MODES     modes to run ["always everysec no"]
#   KEYSPACE  range of the random items, redis-benchmark -r [1000000]
#   OUT       working directory, on the disk to measure [bench/out/appendfsync]
#   PORTS     redis-server's and mmapbloom's ports ["16391 16392"]
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-20000}
MODES=${MODES:-always everysec no}
KEYSPACE=${KEYSPACE:-1000000}
OUT=${OUT:-$PWD/out/appendfsync}
read -r RPORT BPORT <<<"${PORTS:-16391 16392}"

mkdir -p "$OUT/bin"
(cd .. && go build -o "$OUT/bin/mmapbloom" ./tools/mmapbloom)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# start MODE: a fresh redis-server and mmapbloom serve with appendfsync
# MODE; sets RPID and BPID.
start() {
	rm -rf "$OUT/redis" "$OUT/data" && mkdir -p "$OUT/redis" "$OUT/data"
	redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync "$1" \
		--dir "$OUT/redis" >"$OUT/redis.log" 2>&1 &
	RPID=$!
	"$OUT/bin/mmapbloom" serve --dir "$OUT/data" --addr "127.0.0.1:$BPORT" --appendfsync "$1" 2>"$OUT/serve.log" &
	BPID=$!
	pids+=("$RPID" "$BPID")
	for port in "$RPORT" "$BPORT"; do
		for _ in $(seq 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done
	done
	redis-cli -p "$BPORT" BF.RESERVE seen 0.01 "$KEYSPACE" NONSCALING >/dev/null
}

# stop: ends both servers.
stop() {
	kill "$RPID" "$BPID" 2>/dev/null || true
	wait "$RPID" "$BPID" 2>/dev/null || true
	pids=()
}

writes() { awk '/^write_bytes/ {print $2}' "/proc/$1/io"; }

# run NAME PID PORT P COMMAND...: one redis-benchmark run of N commands,
# 8 clients, pipelines of P; prints a table row.
run() {
	local name=$1 pid=$2 port=$3 p=$4 before after csv
	shift 4
	before=$(writes "$pid")
	csv=$(redis-benchmark -h 127.0.0.1 -p "$port" -n "$N" -c 8 -P "$p" -r "$KEYSPACE" --csv "$@" | tail -1 | tr -d '"')
	after=$(writes "$pid")
	# rps, avg, min, p50, p95, p99, max
	IFS=, read -r _ rps _ _ p50 _ p99 _ <<<"$csv"
	echo "| $mode | $name | $p | $rps | $p50 | $p99 | $(((after - before) / N)) | $(cut -d' ' -f1-3 /proc/loadavg) |"
}

echo "| appendfsync | server | pipeline | adds/s | p50 ms | p99 ms | bytes written/add | load (1, 5, 15 min) |"
echo "|---|---|---|---|---|---|---|---|"
for mode in $MODES; do
	for p in 1 16; do
		start "$mode"
		run "redis-server SADD" "$RPID" "$RPORT" "$p" SADD seen __rand_int__
		run "mmapbloom BF.ADD" "$BPID" "$BPORT" "$p" BF.ADD seen __rand_int__
		stop
	done
done
echo
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $OUT on $(df --output=source,fstype "$OUT" | tail -1)"
echo "redis-benchmark -n $N -c 8 -P 1|16 -r $KEYSPACE, $(redis-server --version | cut -d' ' -f1-3)"
