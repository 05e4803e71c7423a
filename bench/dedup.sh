#!/usr/bin/env bash
# dedup of the shared data's 802,044 phishing URLs into a new filter
# (n 1M, p 0.001), two binaries alternated PAIRS times: wall seconds and
# peak RSS (KiB) of each run, then the medians. BENCHMARKS.md, "dedup at
# least once", has the figures.
#   bench/dedup.sh OLD_BINARY NEW_BINARY [PAIRS] [EXTRA_FLAGS]
set -euo pipefail
old=$1 new=$2 pairs=${3:-10} extra=${4:-}
urls=${MMAPBLOOM_SHARED:-$(dirname "$0")/../../shared}/data/phishing-urls.txt.gz
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # BINARY NAME
	rm -f "$dir/seen.bloom" "$dir/out"
	/usr/bin/time -f "$2 %e %M" -a -o "$dir/times" "$1" dedup "$dir/seen.bloom" -n 1000000 -p 0.001 --seed 1 $extra "$urls" >"$dir/out"
}
for _ in $(seq "$pairs"); do run "$old" old; run "$new" new; done
cat "$dir/times"
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%g", (v[int((NR+1)/2)] + v[int(NR/2)+1]) / 2 }'; }
for b in old new; do
	t=$(awk -v b=$b '$1 == b { print $2 }' "$dir/times" | median)
	r=$(awk -v b=$b '$1 == b { print $3 }' "$dir/times" | median)
	echo "$b: median $t s, peak RSS median $r KiB"
done
