#!/usr/bin/env bash
# Server CPU per request: Debian's redis-server answering SISMEMBER and one
# or two `mmapbloom serve` builds answering BF.EXISTS, each filled with
# 500,000 random keys of 1,000,000 (SADD seen / BF.ADD seen on a 1M
# NONSCALING filter at 0.01), then N interleaved rounds of
# redis-benchmark -c 8 -P 16 -n REQ -r 1000000 on each. Prints per round
# and server: port, command, requests per second, CPU ns per request
# (utime+stime ticks of the server's process over the run, /proc). CPU
# per request depends less on the machine's load than throughput does.
# Not part of CI.
#
# Environment: NEW (/tmp/mb-new) and BASE (optional) serve builds,
# N rounds (6), REQ requests a run (1000000), ports 7611-7613.
set -euo pipefail
N=${N:-6}; REQ=${REQ:-1000000}; NEW=${NEW:-/tmp/mb-new}; BASE=${BASE:-}
dir=$(mktemp -d)
redis-server --port 7611 --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
pids=($!); specs=("7611 $! SISMEMBER")
"$NEW" serve --dir "$dir/new" --addr 127.0.0.1:7612 2>/dev/null &
pids+=($!); specs+=("7612 $! BF.EXISTS")
if [ -n "$BASE" ]; then
	"$BASE" serve --dir "$dir/base" --addr 127.0.0.1:7613 2>/dev/null &
	pids+=($!); specs+=("7613 $! BF.EXISTS")
fi
trap 'kill "${pids[@]}"; rm -rf "$dir"' EXIT
mkdir -p "$dir/new" "$dir/base"
for spec in "${specs[@]}"; do
	set -- $spec
	until redis-cli -p "$1" PING >/dev/null 2>&1; do sleep 0.1; done
	add=SADD
	if [ "$3" = BF.EXISTS ]; then
		redis-cli -p "$1" BF.RESERVE seen 0.01 1000000 NONSCALING >/dev/null
		add=BF.ADD
	fi
	redis-benchmark -p "$1" -n 500000 -c 8 -P 16 -r 1000000 -q $add seen __rand_int__ >/dev/null
done
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$N"); do
	for spec in "${specs[@]}"; do
		set -- $spec
		t0=$(ticks "$2")
		rps=$(redis-benchmark -p "$1" -c 8 -P 16 -n "$REQ" -r 1000000 -q "$3" seen __rand_int__ | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
		t1=$(ticks "$2")
		echo "$i $1 $3 $rps $(((t1 - t0) * 10000000 / REQ))"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
