#!/bin/bash
# sets.sh ROUNDS [PATTERN]: runs mmapbloom's BenchmarkSet ROUNDS times (a
# scalable set of 4 layers against one filter of the same total capacity,
# MMAPBLOOM_BENCH_N keys, default 1M) and prints, per kernel and
# operation, the median ns/key of the set and of the filter and the median
# and range of the per-round ratio set / filter. The two are measured one
# after the other in each round, so that a shared machine's slow spells
# weigh on both sides of a ratio. Raw lines: $OUT (default
# /tmp/mmapbloom-sets.txt).
set -euo pipefail
rounds=${1:?usage: sets.sh ROUNDS [PATTERN]}
pattern=${2:-'BenchmarkSet/.*/.*/.*/op=batch'}
out=${OUT:-/tmp/mmapbloom-sets.txt}
cd "$(dirname "$0")/.."
bin=$(mktemp /tmp/mmapbloom-sets.XXXXXX)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./mmapbloom
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) load $(cut -d' ' -f1-3 /proc/loadavg) n=${MMAPBLOOM_BENCH_N:-1000000}" | tee "$out"
for r in $(seq "$rounds"); do
	"$bin" -test.run '^$' -test.bench "$pattern" -test.benchtime 3000x -test.count 1 |
		awk -v r="$r" '/ns\/key/ { n = $1; sub(/-[0-9]+$/, "", n); split(n, a, "/"); print r, a[2], a[3], a[5], $7 }' >>"$out"
done
# Lines: round impl kind op ns/key.
awk '
function median(s,   v, n, i, j, t) {
	n = split(substr(s, 2), v, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	lo = v[1]; hi = v[n]
	return v[int((n + 1) / 2)]
}
NF == 5 { ns[$1 " " $2 " " $4 " " $3] = $5; keys[$2 " " $4] = 1; rounds[$1] = 1 }
END {
	for (k in keys) {
		s = f = q = ""
		for (r in rounds) {
			a = ns[r " " k " kind=set-L4"]; b = ns[r " " k " kind=filter"]
			if (a != "" && b != "") { s = s " " a; f = f " " b; q = q " " a / b }
		}
		if (q == "") continue
		ms = median(s); mf = median(f); mq = median(q)
		printf "%s: set %.1f, filter %.1f ns/key; set/filter median %.2fx (range %.2f-%.2f)\n", k, ms, mf, mq, lo, hi
	}
}' "$out" | sort
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
