#!/usr/bin/env bash
# Compare benchmark samples like mmtests' compare-kernels: one row per
# figure, the base and each kernel side by side with the change in percent,
# and '*' where Welch's t-test (two-sided, 95%) says the change is larger
# than the noise.  Amean where lower is better, Hmean where higher is
# better (throughput); the sample count is shown once per kernel.
# usage: compare.sh [--markdown|--tsv] [--only REGEX] NAME=BENCH.json...   (first is the base)
. "$(dirname "$0")/lib.sh"

fmt=text only=.
while [[ $# -gt 0 ]]; do
	case $1 in
	--markdown) fmt=markdown; shift ;;
	# Machine-readable: figure, kernel, base, value, change %, significant.
	--tsv) fmt=tsv; shift ;;
	--only) only=$2; shift 2 ;;
	*) break ;;
	esac
done
[[ $# -ge 1 ]] || die "usage: compare.sh [--markdown] [--only REGEX] NAME=BENCH.json..."

# Flatten to "kernel-index name figure v1 v2 ..." lines for awk.
i=0
for arg in "$@"; do
	name=${arg%%=*} file=${arg#*=}
	[[ -f $file ]] || die "$file: no such file"
	jq -r --arg i "$i" --arg n "$name" --arg only "$only" \
		'.samples | to_entries[] | select(.key | test($only)) | "\($i) \($n) \(.key) \(.value | map(tostring) | join(" "))"' "$file"
	i=$((i + 1))
done | awk -v fmt="$fmt" -v nk="$#" '
	# Two-sided 95% critical values of Student t for 1..30 degrees of freedom.
	BEGIN {
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", tc, " ")
	}
	function tcrit(df) { df = int(df); if (df < 1) df = 1; return df <= 30 ? tc[df] : 1.960 }
	function higher_better(fig) { return fig ~ /^tbench/ }
	{
		k = $1; kname[k] = $2; fig = $3; n = NF - 3
		if (!(fig in seen)) { seen[fig] = 1; order[++nf] = fig }
		s = 0; h = 0; hz = 0
		for (j = 4; j <= NF; j++) { s += $j; if ($j > 0) h += 1 / $j; else hz = 1 }
		m = s / n
		ss = 0
		for (j = 4; j <= NF; j++) ss += ($j - m) ^ 2
		cnt[k, fig] = n; mean[k, fig] = m; var[k, fig] = n > 1 ? ss / (n - 1) : 0
		hmean[k, fig] = (hz || h == 0) ? m : n / h
		if (n > samples[k]) samples[k] = n
	}
	function show(k, fig) { return higher_better(fig) ? hmean[k, fig] : mean[k, fig] }
	END {
		hdr = "figure\tmean"
		for (k = 0; k < nk; k++) hdr = hdr "\t" kname[k] " (n=" samples[k] ")"
		if (fmt != "tsv") print hdr
		if (fmt == "markdown") { r = "---"; for (k = 0; k <= nk; k++) r = r "\t---"; print r }
		for (x = 1; x <= nf; x++) {
			fig = order[x]
			line = fig "\t" (higher_better(fig) ? "Hmean" : "Amean")
			b = show(0, fig)
			line = line "\t" sprintf("%.5g", b)
			for (k = 1; k < nk; k++) {
				if (!((k, fig) in cnt)) { line = line "\t-"; continue }
				v = show(k, fig)
				pct = b != 0 ? (v - b) / (b < 0 ? -b : b) * 100 : 0
				# Welch: t = (m1 - m0) / sqrt(v0/n0 + v1/n1), Welch-Satterthwaite df.
				a0 = var[0, fig] / cnt[0, fig]; a1 = var[k, fig] / cnt[k, fig]
				d = mean[k, fig] - mean[0, fig]
				if (a0 + a1 == 0) sig = (d != 0)
				else {
					t = d / sqrt(a0 + a1)
					df = (a0 + a1) ^ 2 / ((cnt[0, fig] > 1 ? a0 ^ 2 / (cnt[0, fig] - 1) : 0) + (cnt[k, fig] > 1 ? a1 ^ 2 / (cnt[k, fig] - 1) : 0))
					sig = (t < 0 ? -t : t) > tcrit(df)
				}
				line = line "\t" sprintf("%.5g (%+.2f%%)%s", v, pct, sig ? " *" : "")
				if (fmt == "tsv") printf "%s\t%s\t%.4f\t%.4f\t%.4f\t%d\n", fig, kname[k], b, v, pct, sig
			}
			if (fmt != "tsv") print line
		}
	}' | if [[ $fmt == tsv ]]; then
	cat
elif [[ $fmt == markdown ]]; then
	sed 's/|/\\|/g; s/\t/ | /g; s/^/| /; s/$/ |/'
else
	column -t -s $'\t'
fi
