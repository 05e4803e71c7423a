#!/bin/bash
# Three serve nodes (plain cluster, or --replication jetstream with embedded NATS),
# redis-benchmark -c 64 -P 16 BF.ADD on node1; prints throughput, latency, log bytes, CPU ticks.
# KEY must be a key of node1 (slots 0-5460), e.g. KEY=seen:0 N=100000 bench/replication-bf-add.sh repl 1
# usage: run.sh MODE(repl|plain) ROUND -> prints one line of results
set -u
mode=$1; round=$2
B=${B:-/tmp/i23b/mmapbloom}  # go build -o /tmp/i23b/mmapbloom ./tools/mmapbloom; mkdir -p /tmp/i23b
base=$((7100 + round*10)); nb=$((6300 + round*10))
conf=/tmp/i23b/nodes-$mode-$round.conf
rm -rf /tmp/i23b/d-$mode-$round; mkdir -p /tmp/i23b/d-$mode-$round/{1,2,3}
extra=""; nf=("" "" "")
if [ $mode = repl ]; then extra="--replication jetstream"; nf=("nats=127.0.0.1:$((nb+1))" "nats=127.0.0.1:$((nb+2))" "nats=127.0.0.1:$((nb+3))"); fi
cat > $conf <<CONF
node1 127.0.0.1:$((base+1)) 0-5460 ${nf[0]}
node2 127.0.0.1:$((base+2)) 5461-10922 ${nf[1]}
node3 127.0.0.1:$((base+3)) 10923-16383 ${nf[2]}
CONF
pids=()
for i in 1 2 3; do
  $B serve --dir /tmp/i23b/d-$mode-$round/$i --addr 127.0.0.1:$((base+i)) --cluster-config $conf --node-id node$i \
    --default-capacity 10000000 $extra 2>/tmp/i23b/log-$mode-$round-$i &
  pids+=($!)
done
p=$((base+1))
for t in $(seq 1 240); do
  if redis-cli -p $p BF.ADD "$KEY" warm 2>/dev/null | grep -q '^[01]$'; then break; fi; sleep 0.5
done
# k{x}: slot of "x" is 16287 -> node3; use a key of node1: tag "a1"? computed by caller via KEY env
key=${KEY}
redis-cli -p $p BF.ADD "$key" warm >/dev/null
out=$(redis-benchmark -p $p -c 64 -P 16 -n ${N:-200000} -r 100000000 BF.ADD "$key" __rand_int__ 2>&1)
rps=$(echo "$out" | grep -m1 "throughput summary" | awk '{print $3}')
lat=$(echo "$out" | grep -A2 "latency summary" | tail -1)
bytes=$(redis-cli -p $p INFO replication | tr -d '\r' | grep mbf_log_bytes_published | cut -d: -f2)
cpu=$(for pid in ${pids[@]}; do awk '{print $14+$15}' /proc/$pid/stat; done | paste -sd' ')
echo "$mode round=$round rps=$rps lat(avg min p50 p95 p99 max)=[$lat] log_bytes=${bytes:-0} cpu_ticks(node1 node2 node3)=[$cpu]"
kill ${pids[@]}; wait ${pids[@]} 2>/dev/null
