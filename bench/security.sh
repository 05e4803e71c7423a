#!/usr/bin/env bash
# TLS and ACL costs of `mmapbloom serve`, side by side with Debian's
# redis-server 7.0 in one run, and prints Markdown tables for
# BENCHMARKS.md ("Server security: TLS and ACL"). Not part of CI.
#
#   1. Through TLS (both servers: tls-port only, client certificates
#      required): SADD / SISMEMBER on redis-server against BF.ADD /
#      BF.EXISTS on one NONSCALING filter, redis-benchmark --tls -c 8 -P 16.
#   2. The ACL check, plain TCP, BF.EXISTS: the build before the ACLs
#      (BASE), this build as the default user (+@all ~*: the check's fast
#      path), and this build as a user with ~seen* +@bloom (a pattern
#      match per command).
#   Each test runs ROUNDS times, the servers interleaved in every round;
#   the tables give the medians. Certificates are made here with openssl.
#
# usage: bench/security.sh   (needs redis-server, redis-benchmark, openssl)
#
# Environment (defaults in brackets):
#   N       requests per run [200000]
#   ROUNDS  interleaved rounds [10]
#   BASE    commit of the build without ACLs [094077f]
#   OUT     working directory [bench/out/security]
#   PORTS   redis-server TLS, mmapbloom TLS, mmapbloom plain, base plain
#           ["26391 26392 26393 26394"]
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-200000}
ROUNDS=${ROUNDS:-10}
BASE=${BASE:-094077f}
OUT=${OUT:-$PWD/out/security}
read -r RTLS BTLS BPLAIN APLAIN <<<"${PORTS:-26391 26392 26393 26394}"

rm -rf "$OUT" && mkdir -p "$OUT/bin" "$OUT/data" "$OUT/base-data" "$OUT/base-src" "$OUT/tls"
(cd .. && go build -o "$OUT/bin/mmapbloom" ./tools/mmapbloom)
(cd .. && git archive "$BASE" | tar -x -C "$OUT/base-src")
# GOWORK=off: base-src sits under bench/, inside this repository's go.work.
(cd "$OUT/base-src" && GOWORK=off go build -o "$OUT/bin/mmapbloom-base" ./tools/mmapbloom)

T=$OUT/tls
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/ca.key" -out "$T/ca.pem" \
	-days 1 -subj /CN=bench-ca 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$T/server.key" -out "$T/server.csr" \
	-subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >"$T/ext"
openssl x509 -req -in "$T/server.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial -out "$T/server.pem" \
	-days 1 -extfile "$T/ext" 2>/dev/null
printf 'user default on nopass ~* &* +@all\nuser crawler on >crawlpw ~seen* resetchannels -@all +@bloom\n' >"$OUT/users.acl"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
TLSFILES=(--tls-cert-file "$T/server.pem" --tls-key-file "$T/server.key" --tls-ca-cert-file "$T/ca.pem")
redis-server --port 0 --tls-port "$RTLS" --bind 127.0.0.1 --save '' --appendonly no "${TLSFILES[@]}" \
	>"$OUT/redis.log" 2>&1 &
pids+=($!)
"$OUT/bin/mmapbloom" serve --dir "$OUT/data" --addr "127.0.0.1:$BPLAIN" --tls-port "$BTLS" "${TLSFILES[@]}" \
	--aclfile "$OUT/users.acl" 2>"$OUT/serve.log" &
pids+=($!)
"$OUT/bin/mmapbloom-base" serve --dir "$OUT/base-data" --addr "127.0.0.1:$APLAIN" 2>"$OUT/base.log" &
pids+=($!)
CLITLS=(--tls --cacert "$T/ca.pem" --cert "$T/server.pem" --key "$T/server.key")
for p in "$BPLAIN" "$APLAIN"; do
	for _ in $(seq 100); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.1; done
done
for _ in $(seq 100); do redis-cli "${CLITLS[@]}" -p "$RTLS" PING >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$BPLAIN" BF.RESERVE seen 0.01 "$((N * ROUNDS))" NONSCALING >/dev/null
redis-cli -p "$APLAIN" BF.RESERVE seen 0.01 "$((N * ROUNDS))" NONSCALING >/dev/null

# rps PORT ARGS...: requests/s of one redis-benchmark run.
rps() {
	local port=$1
	shift
	timeout 300 redis-benchmark -h 127.0.0.1 -p "$port" -n "$N" -c 8 -P 16 -r 100000000 --csv "$@" 2>/dev/null |
		tail -1 | cut -d, -f2 | tr -d '"'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# ticks PID: the process's user+system CPU time, in 1/100 s.
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
declare -A runs cpu pidof=([$RTLS]=${pids[0]} [$BTLS]=${pids[1]} [$BPLAIN]=${pids[1]} [$APLAIN]=${pids[2]})
tests=(
	"tls|SADD|$RTLS|${CLITLS[*]} SADD seen __rand_int__"
	"tls|BF.ADD|$BTLS|${CLITLS[*]} BF.ADD seen __rand_int__"
	"tls|SISMEMBER|$RTLS|${CLITLS[*]} SISMEMBER seen __rand_int__"
	"tls|BF.EXISTS|$BTLS|${CLITLS[*]} BF.EXISTS seen __rand_int__"
	"acl|base|$APLAIN|BF.EXISTS seen __rand_int__"
	"acl|default|$BPLAIN|BF.EXISTS seen __rand_int__"
	"acl|crawler|$BPLAIN|--user crawler -a crawlpw BF.EXISTS seen __rand_int__"
)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$ROUNDS"); do
	for t in "${tests[@]}"; do
		IFS='|' read -r group name port args <<<"$t"
		# shellcheck disable=SC2086
		pid=${pidof[$port]}
		t0=$(ticks "$pid")
		v=$(rps "$port" $args)
		runs[$group/$name]+="$v "
		cpu[$group/$name]+="$(( ($(ticks "$pid") - t0) * 10000000 / N )) "
	done
	echo "round $r done" >&2
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
med() { tr ' ' '\n' <<<"${runs[$1]}" | grep . | median; }
# cpuns TEST: the server's median CPU ns per request in TEST's runs.
cpuns() { tr ' ' '\n' <<<"${cpu[$1]}" | grep . | median; }

echo "commit $(git rev-parse --short HEAD), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load $LOAD_BEFORE before, $LOAD_AFTER after; N=$N, $ROUNDS rounds"
echo
echo "| through TLS | redis-server requests/s | mmapbloom requests/s | ratio | server CPU ns per request, redis-server / mmapbloom |"
echo "|---|---|---|---|---|"
for pair in "SADD BF.ADD" "SISMEMBER BF.EXISTS"; do
	read -r a b <<<"$pair"
	ra=$(med "tls/$a")
	rb=$(med "tls/$b")
	echo "| $a / $b | $ra | $rb | $(awk -v a="$ra" -v b="$rb" 'BEGIN{printf "%.2fx", b/a}') | $(cpuns "tls/$a") / $(cpuns "tls/$b") |"
done
echo
echo "| BF.EXISTS, plain TCP | median requests/s | vs build before ACLs | server CPU ns per request | all runs |"
echo "|---|---|---|---|---|"
base=$(med acl/base)
for name in base default crawler; do
	m=$(med "acl/$name")
	echo "| $name | $m | $(awk -v a="$base" -v b="$m" 'BEGIN{printf "%+.1f%%", 100*(b-a)/a}') | $(cpuns "acl/$name") | ${runs[acl/$name]}|"
done
