# Reads latency.sh's raw lines and prints, per kernel and operation, the
# median ns and the median of the per-run ratios to the same run's read,
# of the metric given with -v metric= (default cpu-ns/op; or ns/op).
function median(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN { if (metric == "") metric = "cpu-ns/op" }
{
	run = $1; sub(/run=/, "", run)
	name = $3
	split(name, part, "/")
	kern = part[2]; sub(/kernel=/, "", kern)
	op = part[4]; sub(/-[0-9]+$/, "", op)
	for (i = 1; i <= NF; i++) if ($i == metric) v = $(i - 1)
	key = kern SUBSEP run
	if (op == "reads=independent") indep[key] = v
	else if (op == "reads=dependent") dep[key] = v
	else val[kern, op, run] = v
	kerns[kern] = 1; runs[run] = 1
	if (op ~ /^op=/) ops[op] = 1
}
END {
	printf "%-8s %-22s %10s %10s %12s\n", "kernel", "op", "median ns", "limit ns", "ratio"
	for (k in kerns) {
		dl = ""; il = ""
		for (r in runs) { dl = dl " " dep[k, r]; il = il " " indep[k, r] }
		printf "%-8s %-22s %10.1f\n", k, "reads=dependent", median(dl)
		printf "%-8s %-22s %10.2f\n", k, "reads=independent", median(il)
		for (o in ops) {
			vl = ""; rl = ""
			for (r in runs) {
				if (!((k, o, r) in val)) continue
				lim = (o == "op=batch-add") ? indep[k, r] : dep[k, r]
				vl = vl " " val[k, o, r]; rl = rl " " val[k, o, r] / lim
			}
			printf "%-8s %-22s %10.1f %10s %12.2f\n", k, o, median(vl), (o == "op=batch-add") ? "overlap" : "dependent", median(rl)
		}
	}
}
