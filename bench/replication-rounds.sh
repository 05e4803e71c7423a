#!/bin/bash
# Interleaved rounds of the replication comparison: per round, the three
# serve nodes without the log, the same with --replication jetstream
# (replication-bf-add.sh; redis-benchmark, then replbench), and redis-server
# with one replica and WAIT 1 0 (replication-redis.sh); then the medians,
# the ratios of the medians, and CPU microseconds per add (ticks * 10 ms / adds).
# usage: replication-rounds.sh [ROUNDS]   (default 5; W, B, RB, N, KEY, PORT as in those scripts)
#   (cd bench && go build -o $W/replbench ./cmd/replbench); go build -o $W/mmapbloom ./tools/mmapbloom
set -u
cd "$(dirname "$0")"
R=${1:-5}
export W=${W:-/tmp/i23b} N=${N:-200000} KEY=${KEY:-seen:0} PORT=${PORT:-7100}
export B=${B:-$W/mmapbloom} RB=${RB:-$W/replbench}
out=$W/rounds.txt; : >$out
for r in $(seq 1 $R); do
  ./replication-bf-add.sh plain $r | tee -a $out
  ./replication-bf-add.sh repl $r | tee -a $out
  ./replication-redis.sh $r | tee -a $out
done
# field NAME: the value of NAME=... in each line of stdin
field() { sed -n "s/.*[ (]$1=\([0-9.]*\).*/\1/p"; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# us MODE CLIENT NODE: median CPU µs per add of node NODE (1-based)
us() { grep "^$1 .*client=$2 " $out | awk -v i=$3 -v n=$N '{if (match($0, / adds=[0-9]+/)) n = substr($0, RSTART+6, RLENGTH-6)
  match($0, /cpu_ticks[^=]*=\[[0-9 ]*\]/); s=substr($0, RSTART, RLENGTH); sub(/.*\[/, "", s); split(s, t, " "); print t[i]*10000/n}' | median; }
rate() { grep "^$1 .*client=$2 " $out | { if [ $2 = redis-benchmark ]; then field rps; else field adds_per_s; fi; } | median; }
plain=$(rate plain redis-benchmark); repl=$(rate repl redis-benchmark)
replrb=$(rate repl replbench); redis=$(rate redis replbench)
echo "medians of $R rounds (adds/s): plain $plain, replicated $repl (redis-benchmark); replicated $replrb, redis+replica+WAIT $redis (replbench)"
echo "replicated/plain $(echo "scale=3; $repl/$plain" | bc)x; replicated/redis $(echo "scale=3; $replrb/$redis" | bc)x"
echo "CPU us per add (medians), redis-benchmark: plain node1 $(us plain redis-benchmark 1); replicated node1/2/3 $(us repl redis-benchmark 1) / $(us repl redis-benchmark 2) / $(us repl redis-benchmark 3)"
echo "CPU us per add (medians), replbench: replicated node1/2/3 $(us repl replbench 1) / $(us repl replbench 2) / $(us repl replbench 3); redis primary/replica $(us redis replbench 1) / $(us redis replbench 2)"
