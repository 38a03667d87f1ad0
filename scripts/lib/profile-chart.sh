#!/usr/bin/env bash
# Draw where each workload spends its allocator instructions, per kernel:
# one panel per profiled workload, one stacked bar per kernel, one layer
# per bucket of qemu/profile/buckets.tsv (instructions per operation, the
# mean of the profiled boots).  Zeroing is left out by default: at 4100
# instructions a page under icount (rep stosb counts each byte) it would
# flatten every other bucket; PROFILE_CHART_SKIP names the buckets left out.
# gnuplot, PNG.
# usage: profile-chart.sh OUT.png NAME=BENCH.json...
. "$(dirname "$0")/lib.sh"

out=${1:?usage: profile-chart.sh OUT.png NAME=BENCH.json...}
shift
[[ $# -gt 0 ]] || die "no kernels to draw"
skip=" ${PROFILE_CHART_SKIP-zeroing} "
mapfile -t buckets < <(PA_SKIP=$skip awk -F'\t' '!/^#/ && NF == 2 && !index(ENVIRON["PA_SKIP"], " " $2 " ") && !seen[$2]++ { print $2 }' \
	"$TOP/qemu/profile/buckets.tsv")
mapfile -t workloads < <(jq -r '.samples | keys[] | select(test("^prof-.*-allocator$")) | sub("^prof-"; "") | sub("-allocator$"; "")' "${1#*=}")
[[ ${#workloads[@]} -gt 0 ]] || die "${1#*=} has no profiled figures (prof-*)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for w in "${workloads[@]}"; do
	{
		printf 'kernel'
		printf ' %s' "${buckets[@]}"
		echo
		for arg in "$@"; do
			printf '%s' "${arg%%=*}"
			for b in "${buckets[@]}"; do
				jq -r --arg f "prof-$w-$b" '(.samples[$f] // [0]) | " \(add / length)"' "${arg#*=}" | tr -d '\n'
			done
			echo
		done
	} >"$tmp/$w.dat"
done
{
	echo "set terminal pngcairo size 1200,$((300 * (${#workloads[@]} + 1) / 2))"
	echo "set output \"$out\""
	echo "set multiplot layout $(((${#workloads[@]} + 1) / 2)),2 title \"Page allocator instructions per operation, by bucket (exact counts, paprof; left out: ${PROFILE_CHART_SKIP-zeroing})\""
	echo "set style data histograms"
	echo "set style histogram rowstacked"
	echo "set style fill solid 0.8 border -1"
	echo "set boxwidth 0.7"
	echo "set key outside right font \",8\""
	echo "set xtics rotate by -30 font \",8\""
	echo "set grid ytics"
	for w in "${workloads[@]}"; do
		echo "set title \"$w\""
		echo "plot for [i=2:$((${#buckets[@]} + 1))] \"$tmp/$w.dat\" using i:xtic(1) title columnheader(i)"
	done
	echo "unset multiplot"
} | gnuplot
echo "$out"
