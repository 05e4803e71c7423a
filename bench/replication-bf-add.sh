#!/bin/bash
# Three serve nodes (plain cluster, or --replication jetstream with embedded NATS),
# redis-benchmark -c C -P P BF.ADD on node1 (then, with RB=path of bench/cmd/replbench,
# the same load from replbench); prints one line per client: throughput, latency, log bytes
# and messages, each node's CPU ticks (utime+stime, 10 ms) over that client's run, the load.
# KEY must be a key of node1 (slots 0-5460), e.g. KEY=seen:0 N=100000 bench/replication-bf-add.sh repl 1
# usage: replication-bf-add.sh MODE(repl|plain) ROUND
#   W    work directory [/tmp/i23b]; B the binary [$W/mmapbloom]:
#        go build -o $W/mmapbloom ./tools/mmapbloom
#   PORT base port [7100]: nodes on PORT+ROUND*10+1..3, their NATS routes on PORT-800+ROUND*10+1..3
#   FSYNC the nodes' --appendfsync [serve's default]; C clients [64]; P commands per pipeline [16]
#   (the cost of always against everysec: FSYNC=always and FSYNC=everysec, P=1 and P=100, alternated)
set -u
mode=$1; round=$2
W=${W:-/tmp/i23b}; B=${B:-$W/mmapbloom}; N=${N:-200000}; RB=${RB:-}; C=${C:-64}; P=${P:-16}
fsync=""; if [ -n "${FSYNC:-}" ]; then fsync="--appendfsync $FSYNC"; fi
base=$((${PORT:-7100} + round*10)); nb=$((base - 800))
conf=$W/nodes-$mode-$round.conf
rm -rf $W/d-$mode-$round; mkdir -p $W/d-$mode-$round/{1,2,3}
extra=""; nf=("" "" "")
if [ $mode = repl ]; then extra="--replication jetstream"; nf=("nats=127.0.0.1:$((nb+1))" "nats=127.0.0.1:$((nb+2))" "nats=127.0.0.1:$((nb+3))"); fi
cat > $conf <<CONF
node1 127.0.0.1:$((base+1)) 0-5460 ${nf[0]}
node2 127.0.0.1:$((base+2)) 5461-10922 ${nf[1]}
node3 127.0.0.1:$((base+3)) 10923-16383 ${nf[2]}
CONF
pids=()
for i in 1 2 3; do
  $B serve --dir $W/d-$mode-$round/$i --addr 127.0.0.1:$((base+i)) --cluster-config $conf --node-id node$i \
    --default-capacity 10000000 $extra $fsync 2>$W/log-$mode-$round-$i &
  pids+=($!)
done
p=$((base+1)); key=${KEY}
for t in $(seq 1 240); do
  if redis-cli -p $p BF.ADD "$key" warm 2>/dev/null | grep -q '^[01]$'; then break; fi; sleep 0.5
done
ticks() { for pid in ${pids[@]}; do awk '{print $14+$15}' /proc/$pid/stat; done | paste -sd' '; }
info() { redis-cli -p $p INFO replication | tr -d '\r'; }
# log bytes and messages (the streams' last sequences) so far
logpos() {
  local b m
  b=$(info | grep mbf_log_bytes_published | cut -d: -f2)
  m=$(info | grep '^mbf_log_[0-9]*:' | sed 's/.*last=\([0-9]*\).*/\1/' | paste -sd+ | bc)
  echo "${b:-0} ${m:-0}"
}
# measure NAME COMMAND...: runs the client, prints its line
measure() {
  local name=$1; shift
  local t0 l0 ld out t1 l1
  t0=($(ticks)); l0=($(logpos)); ld=$(cut -d' ' -f1 /proc/loadavg)
  out=$("$@" 2>&1)
  t1=($(ticks)); l1=($(logpos))
  echo "$mode fsync=${FSYNC:-default} c=$C P=$P round=$round client=$name $(summary "$name" "$out") log_bytes=$((l1[0]-l0[0])) msgs=$((l1[1]-l0[1])) cpu_ticks(node1 node2 node3)=[$((t1[0]-t0[0])) $((t1[1]-t0[1])) $((t1[2]-t0[2]))] load=$ld"
}
summary() {
  if [ $1 = redis-benchmark ]; then
    echo "rps=$(echo "$2" | grep -m1 "throughput summary" | awk '{print $3}') lat(avg min p50 p95 p99 max)=[$(echo "$2" | grep -A2 "latency summary" | tail -1 | xargs)]"
  else
    echo "$2"
  fi
}
measure redis-benchmark redis-benchmark -p $p -c $C -P $P -n $N -r 100000000 BF.ADD "$key" __rand_int__
if [ -n "$RB" ]; then measure replbench $RB -addr 127.0.0.1:$p -c $C -P $P -n $N -cmd BF.ADD -key "$key" -seed $round; fi
kill ${pids[@]}; wait ${pids[@]} 2>/dev/null
