#!/usr/bin/env bash
# Compare benchmark samples like mmtests' compare-kernels: one row per
# figure, the base and each kernel side by side with the change in percent,
# and '*' where the change is larger than the noise.  Amean where lower is
# better, Hmean where higher is better (throughput); the sample count is
# shown once per kernel.
# Beyond the noise: Welch's t-test gives each figure a two-sided p-value,
# and within each kernel's column the Benjamini-Hochberg procedure keeps
# the false-discovery rate at 5% (COMPARE_FDR): with a hundred figures a
# plain 95% test would mark about five of an unchanged kernel's figures.
# --only REGEX takes only the matching figures (the family tested is then
# those alone); --show REGEX prints only the matching rows of the whole.
# --narrow sets the text columns one space apart, not two: a changelog's
# lines must fit 75 columns, and the longest figure names take 36.
# usage: compare.sh [--markdown|--tsv|--narrow] [--only REGEX] [--show REGEX] NAME=BENCH.json...   (first is the base)
. "$(dirname "$0")/lib.sh"

fmt=text only=. show=. gap='  '
while [[ $# -gt 0 ]]; do
	case $1 in
	--markdown) fmt=markdown; shift ;;
	# Machine-readable: figure, kernel, base, value, change %, significant, p.
	--tsv) fmt=tsv; shift ;;
	--narrow) gap=' '; shift ;;
	--only) only=$2; shift 2 ;;
	--show) show=$2; shift 2 ;;
	*) break ;;
	esac
done
[[ $# -ge 1 ]] || die "usage: compare.sh [--markdown] [--only REGEX] NAME=BENCH.json..."
fdr=${COMPARE_FDR:-0.05}
[[ $fdr =~ ^(0?\.[0-9]+|0|1)$ ]] || die "COMPARE_FDR=$fdr: a false-discovery rate is a number from 0 to 1, e.g. 0.05"

# Flatten to "kernel-index name figure v1 v2 ..." lines for awk.
i=0
for arg in "$@"; do
	name=${arg%%=*} file=${arg#*=}
	[[ -f $file ]] || die "$file: no such file"
	jq -r --arg i "$i" --arg n "$name" --arg only "$only" \
		'.samples | to_entries[] | select(.key | test($only)) | "\($i) \($n) \(.key) \(.value | map(tostring) | join(" "))"' "$file"
	i=$((i + 1))
done | PA_SHOW=$show awk -v fmt="$fmt" -v nk="$#" -v fdr="$fdr" '
	# log Gamma (Lanczos, g = 7), for the incomplete beta function.
	function lgam(x,   c, i, a, t) {
		split("0.99999999999980993 676.5203681218851 -1259.1392167224028 771.32342877765313 -176.61502916214059 12.507343278686905 -0.13857109526572012 9.9843695780195716e-6 1.5056327351493116e-7", c, " ")
		x -= 1; a = c[1]; t = x + 7.5
		for (i = 1; i < 9; i++) a += c[i + 1] / (x + i)
		return 0.5 * log(2 * 3.141592653589793) + (x + 0.5) * log(t) - t + log(a)
	}
	# Continued fraction of the regularized incomplete beta I_x(a, b).
	function betacf(a, b, x,   m, m2, aa, c, d, del, h) {
		c = 1; d = 1 - (a + b) * x / (a + 1); if (d * d < 1e-300) d = 1e-300; d = 1 / d; h = d
		for (m = 1; m <= 300; m++) {
			m2 = 2 * m
			aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
			d = 1 + aa * d; if (d * d < 1e-300) d = 1e-300; c = 1 + aa / c; if (c * c < 1e-300) c = 1e-300
			d = 1 / d; h *= d * c
			aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
			d = 1 + aa * d; if (d * d < 1e-300) d = 1e-300; c = 1 + aa / c; if (c * c < 1e-300) c = 1e-300
			d = 1 / d; del = d * c; h *= del
			if ((del - 1) ^ 2 < 1e-20) break
		}
		return h
	}
	function ibeta(a, b, x,   f) {
		if (x <= 0) return 0
		if (x >= 1) return 1
		f = exp(lgam(a + b) - lgam(a) - lgam(b) + a * log(x) + b * log(1 - x))
		return x < (a + 1) / (a + b + 2) ? f * betacf(a, b, x) / a : 1 - f * betacf(b, a, 1 - x) / b
	}
	# Two-sided p-value of Student t with df degrees of freedom.
	function pvalue(t, df) { return ibeta(df / 2, 0.5, df / (df + t * t)) }
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
			b = show(0, fig)
			for (k = 1; k < nk; k++) {
				if (!((k, fig) in cnt)) continue
				v = show(k, fig)
				pct = b != 0 ? (v - b) / (b < 0 ? -b : b) * 100 : 0
				# Welch: t = (m1 - m0) / sqrt(v0/n0 + v1/n1), Welch-Satterthwaite df.
				a0 = var[0, fig] / cnt[0, fig]; a1 = var[k, fig] / cnt[k, fig]
				d = mean[k, fig] - mean[0, fig]
				if (a0 + a1 == 0) p = (d != 0) ? 0 : 1
				else {
					t = d / sqrt(a0 + a1)
					df = (a0 + a1) ^ 2 / ((cnt[0, fig] > 1 ? a0 ^ 2 / (cnt[0, fig] - 1) : 0) + (cnt[k, fig] > 1 ? a1 ^ 2 / (cnt[k, fig] - 1) : 0))
					p = pvalue(t, df)
				}
				pv[k, x] = p; val[k, x] = v; chg[k, x] = pct
			}
		}
		# Benjamini-Hochberg within each kernel: sort its p-values, find the
		# largest rank i with p(i) <= i/m * q, and mark every p up to it.
		for (k = 1; k < nk; k++) {
			m = 0
			for (x = 1; x <= nf; x++) if ((k, x) in pv) { m++; ps[m] = pv[k, x] }
			for (i = 2; i <= m; i++) { y = ps[i]; for (j = i - 1; j >= 1 && ps[j] > y; j--) ps[j + 1] = ps[j]; ps[j + 1] = y }
			cut = -1
			for (i = 1; i <= m; i++) if (ps[i] <= i / m * fdr) cut = ps[i]
			for (x = 1; x <= nf; x++) if ((k, x) in pv) sig[k, x] = pv[k, x] <= cut
		}
		for (x = 1; x <= nf; x++) {
			fig = order[x]
			if (fig !~ ENVIRON["PA_SHOW"]) continue
			line = fig "\t" (higher_better(fig) ? "Hmean" : "Amean") "\t" sprintf("%.5g", show(0, fig))
			for (k = 1; k < nk; k++) {
				if (!((k, x) in pv)) { line = line "\t-"; continue }
				line = line "\t" sprintf("%.5g (%+.2f%%)%s", val[k, x], chg[k, x], sig[k, x] ? " *" : "")
				if (fmt == "tsv") printf "%s\t%s\t%.4f\t%.4f\t%.4f\t%d\t%.3g\n", fig, kname[k], show(0, fig), val[k, x], chg[k, x], sig[k, x], pv[k, x]
			}
			if (fmt != "tsv") print line
		}
	}' | if [[ $fmt == tsv ]]; then
	cat
elif [[ $fmt == markdown ]]; then
	sed 's/|/\\|/g; s/\t/ | /g; s/^/| /; s/$/ |/'
elif [[ $gap == ' ' ]]; then
	# A changelog indents the table by two columns: a row that would pass
	# 75 there (a long name, a wide value and a mark) keeps its '*'
	# against the change.
	column -t -s $'\t' -o "$gap" | awk 'length($0) > 73 { sub(/ \*$/, "*") } 1'
else
	column -t -s $'\t' -o "$gap"
fi
