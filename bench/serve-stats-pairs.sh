#!/usr/bin/env bash
# Interleaved redis-benchmark runs of CMD (BF.EXISTS; or BF.ADD) with
# -c 8 -P P (16) against two
# serve builds, BASE (/tmp/mb-base: e.g. without the per-command
# statistics, the same commit with the calls that feed them removed, see
# BENCHMARKS.md "Server statistics") and NEW (/tmp/mb-obs: with them), on
# ports 7501 and 7502. Prints: pair, port, requests per second,
# server CPU ticks (1/100 s, utime+stime from /proc) of the run; then the
# medians of NEW/BASE throughput and of each one's CPU ns per request.
# N pairs (12), REQ requests a run.
set -euo pipefail
N=${N:-12}; REQ=${REQ:-400000}; P=${P:-16}
BASE=${BASE:-/tmp/mb-base}; NEW=${NEW:-/tmp/mb-obs}; CMD=${CMD:-BF.EXISTS}
rm -rf ${TMPDIR:-/tmp}/serve-stats-d1 ${TMPDIR:-/tmp}/serve-stats-d2; mkdir -p ${TMPDIR:-/tmp}/serve-stats-d1 ${TMPDIR:-/tmp}/serve-stats-d2
"$BASE" serve --dir ${TMPDIR:-/tmp}/serve-stats-d1 --addr 127.0.0.1:7501 2>/dev/null & P1=$!
"$NEW" serve --dir ${TMPDIR:-/tmp}/serve-stats-d2 --addr 127.0.0.1:7502 2>/dev/null & P2=$!
trap 'kill $P1 $P2' EXIT
for p in 7501 7502; do until redis-cli -p $p PING >/dev/null 2>&1; do sleep 0.1; done
  redis-cli -p $p BF.RESERVE seen 0.01 1000000 NONSCALING >/dev/null
  redis-benchmark -p $p -c 8 -P 16 -n 200000 -r 1000000 -q BF.ADD seen __rand_int__ >/dev/null; done
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
for i in $(seq 1 $N); do
  order="7501 7502"; [ $((i % 2)) = 0 ] && order="7502 7501"
  for p in $order; do
    pid=$P1; [ $p = 7502 ] && pid=$P2
    t0=$(ticks $pid)
    rps=$(redis-benchmark -p $p -c 8 -P $P -n $REQ -r 1000000 -q "$CMD" seen __rand_int__ | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
    t1=$(ticks $pid)
    echo "$i $p $rps $((t1 - t0))"
  done
done | tee ${TMPDIR:-/tmp}/serve-stats-runs
# median of the numbers on stdin
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
runs=${TMPDIR:-/tmp}/serve-stats-runs
echo "median NEW/BASE throughput: $(awk '{r[$1" "$2]=$3} END {for (i=1;;i++) {if (!((i" 7501") in r)) break; print r[i" 7502"]/r[i" 7501"]}}' $runs | median)"
for p in 7501 7502; do
  echo "median CPU ns per request, port $p: $(awk -v p=$p -v req=$REQ '$2==p {print $4*1e7/req}' $runs | median)"
done
