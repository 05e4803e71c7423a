#!/bin/bash
# The peer of replication-bf-add.sh: Debian's redis-server with one replica
# (--replicaof), no persistence (--save '' --appendonly no), loaded by
# bench/cmd/replbench with -c 64 pipelines of 16 SADD each followed by WAIT 1 0;
# prints replbench's line, the two processes' CPU ticks (utime+stime, 10 ms)
# over the run and the load.
# usage: replication-redis.sh ROUND
#   W work directory [/tmp/i23b]; RB replbench [$W/replbench]:
#     (cd bench && go build -o $W/replbench ./cmd/replbench)
#   PORT base port [7100]: primary on PORT+ROUND*10+5, replica +6
set -u
round=$1
W=${W:-/tmp/i23b}; RB=${RB:-$W/replbench}; N=${N:-200000}
p=$((${PORT:-7100} + round*10 + 5)); r=$((p+1))
d=$W/redis-$round; rm -rf $d; mkdir -p $d/p $d/r
redis-server --port $p --bind 127.0.0.1 --dir $d/p --save '' --appendonly no --daemonize no >$d/p.log 2>&1 &
pp=$!
redis-server --port $r --bind 127.0.0.1 --dir $d/r --save '' --appendonly no --replicaof 127.0.0.1 $p --daemonize no >$d/r.log 2>&1 &
rp=$!
for t in $(seq 1 120); do
  if redis-cli -p $r INFO replication 2>/dev/null | grep -q 'master_link_status:up'; then break; fi; sleep 0.5
done
ticks() { for pid in $pp $rp; do awk '{print $14+$15}' /proc/$pid/stat; done | paste -sd' '; }
t0=($(ticks)); ld=$(cut -d' ' -f1 /proc/loadavg)
out=$($RB -addr 127.0.0.1:$p -c 64 -P 16 -n $N -cmd SADD -key seen:0 -wait -seed $round 2>&1)
t1=($(ticks))
echo "redis round=$round client=replbench $out cpu_ticks(primary replica)=[$((t1[0]-t0[0])) $((t1[1]-t0[1]))] load=$ld"
kill $pp $rp; wait $pp $rp 2>/dev/null
