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
	else if (op == "reads=independent-4k") indep4[key] = v
	else if (op == "reads=dependent-4k") dep4[key] = v
	else val[kern, op, run] = v
	kerns[kern] = 1; runs[run] = 1
	if (op ~ /^op=/) ops[op] = 1
}
END {
	printf "%-8s %-16s %9s %11s %11s %13s %13s\n", "kernel", "op", "median ns", "limit", "ratio", "limit 4k", "ratio 4k"
	for (k in kerns) {
		dl = ""; il = ""; dl4 = ""; il4 = ""
		for (r in runs) { dl = dl " " dep[k, r]; il = il " " indep[k, r]; dl4 = dl4 " " dep4[k, r]; il4 = il4 " " indep4[k, r] }
		printf "%-8s %-16s %9.1f %11s %11s %13.1f\n", k, "reads=dependent", median(dl), "", "", median(dl4)
		printf "%-8s %-16s %9.2f %11s %11s %13.2f\n", k, "reads=independent", median(il), "", "", median(il4)
		for (o in ops) {
			vl = ""; rl = ""; rl4 = ""
			for (r in runs) {
				if (!((k, o, r) in val)) continue
				batch = (o ~ /^op=batch-/)
				lim = batch ? indep[k, r] : dep[k, r]
				lim4 = batch ? indep4[k, r] : dep4[k, r]
				vl = vl " " val[k, o, r]; rl = rl " " val[k, o, r] / lim
				if (lim4 > 0) rl4 = rl4 " " val[k, o, r] / lim4
			}
			printf "%-8s %-16s %9.1f %11s %11.2f %13s %13.2f\n", k, o, median(vl), batch ? "overlapped" : "dependent", median(rl), "", (rl4 == "") ? 0 : median(rl4)
		}
	}
}
