#!/bin/bash
# Leases under load: three serve nodes (--replication jetstream, failover on leases of
# --lease-ttl 5s), a pipelining redis-benchmark load on each node's range (4 clients,
# pipelines of 16 BF.ADD) for DUR seconds; prints the load average every 30 s, then per
# node its lease figures (INFO cluster), CLUSTER INFO's readiness, and the lease changes
# and step-downs its log has (3 "is held by" lines per node are the first takes: more
# are lease moves), and the leaders the lease bucket's Raft group had (KV_MBF_LEASES, read
# from each node's nats-server /jsz every 30 s: one line means it kept its leader).
# docs/cluster.md "Failover with leases" has the figures.
# usage: lease-steady.sh
#   W    work directory [/tmp/lease-steady]; B the binary [$W/mmapbloom]:
#        go build -o $W/mmapbloom ./tools/mmapbloom
#   PORT nodes on PORT+1..3 [4570], their NATS routes on PORT+11..13; DUR seconds [240]
#   READY the readiness check [mmapbloom_serving]; "log" waits for INFO's
#        mbf_log_status:open then 5 s (a binary without mmapbloom_serving)
set -u
W=${W:-/tmp/lease-steady}; B=${B:-$W/mmapbloom}; base=${PORT:-4570}; DUR=${DUR:-240}; READY=${READY:-mmapbloom_serving}
rm -rf $W/d; mkdir -p $W/d/{1,2,3}
cat > $W/nodes.conf <<CONF
node1 127.0.0.1:$((base+1)) 0-5460 nats=127.0.0.1:$((base+11))
node2 127.0.0.1:$((base+2)) 5461-10922 nats=127.0.0.1:$((base+12))
node3 127.0.0.1:$((base+3)) 10923-16383 nats=127.0.0.1:$((base+13))
CONF
pids=()
for i in 1 2 3; do
  timeout $((DUR+120)) $B serve --dir $W/d/$i --addr 127.0.0.1:$((base+i)) --cluster-config $W/nodes.conf \
    --node-id node$i --replication jetstream --nats-monitor-addr 127.0.0.1:$((base+20+i)) 2>$W/node$i.log &
  pids+=($!)
done
for i in 1 2 3; do
  for n in $(seq 1 240); do
    if [ "$READY" = log ]; then
      redis-cli -p $((base+i)) INFO replication 2>/dev/null | grep -q mbf_log_status:open && break
    else
      redis-cli -p $((base+i)) CLUSTER INFO 2>/dev/null | grep -q "$READY:1" && break
    fi
    sleep 0.5
  done
done
[ "$READY" = log ] && sleep 5
date +%T; uptime
# one hash tag per node's range: {b} slot 3300 (node1), {c} 7365 (node2), {a} 15495 (node3)
bpids=()
for x in "1 b" "2 c" "3 a"; do
  set -- $x
  timeout $DUR redis-benchmark -h 127.0.0.1 -p $((base+$1)) -c 4 -P 16 -n 2000000000 -r 100000000 -q \
    BF.ADD "seen:{$2}" __rand_int__ >$W/bench$1.txt 2>&1 &
  bpids+=($!)
done
# leaseLeader prints the KV_MBF_LEASES leader node $1's nats-server reports.
leaseLeader() {
  curl -s "http://127.0.0.1:$((base+20+$1))/jsz?accounts=true&streams=true" | python3 -c '
import json, sys
for a in json.load(sys.stdin).get("account_details", []):
    for s in a.get("stream_detail", []):
        if s["name"] == "KV_MBF_LEASES":
            print(s.get("cluster", {}).get("leader", "?"))'
}
: > $W/leaders.txt
for n in $(seq 1 $((DUR/30))); do
  sleep 30; uptime
  for i in 1 2 3; do leaseLeader $i; done | sort -u | tr '\n' ' ' >> $W/leaders.txt; echo >> $W/leaders.txt
done
wait "${bpids[@]}"
date +%T
for i in 1 2 3; do
  echo "== node$i"
  redis-cli -p $((base+i)) INFO cluster | grep mbf_
  redis-cli -p $((base+i)) CLUSTER INFO | grep -E "cluster_state|mmapbloom_serving"
  echo "holder changes: $(grep -c 'is held by' $W/node$i.log)"
  grep "stepped down\|is held by" $W/node$i.log
  tail -c 300 $W/bench$i.txt | tr '\r' '\n' | tail -1
done
echo "lease bucket leaders seen (one set every 30 s): $(sort -u $W/leaders.txt | tr '\n' '|')"
kill "${pids[@]}"; wait
