#!/usr/bin/env bash
# Draw the per-commit change against the base of the headline figures as a
# PNG (gnuplot): one line per figure, one point per commit.
# usage: chart.sh OUT.png NAME=BENCH.json...   (first is the base)
. "$(dirname "$0")/lib.sh"

out=${1:?usage: chart.sh OUT.png NAME=BENCH.json...}
shift
read -r -a figs <<<"${CHART_FIGURES:-alloc-o0-pair-z0 free-o0-pair-z0 alloc-o0-batch32768-z0 free-o0-batch32768-z0 hackbench-pipe hackbench-socket tbench-2}"
base=${1#*=}
data=$(mktemp)
trap 'rm -f "$data"' EXIT
{
	printf 'commit'
	printf ' %s' "${figs[@]}"
	echo
	for arg in "$@"; do
		printf '%s' "${arg%%=*}"
		for f in "${figs[@]}"; do
			jq -r --slurpfile b "$base" --arg f "$f" '
				def mean(a): if (a | length) == 0 then null else (a | add) / (a | length) end;
				(mean(.samples[$f] // [])) as $v | (mean($b[0].samples[$f] // [])) as $z
				| if $v == null or $z == null or $z == 0 then " ?" else " \(($v - $z) / $z * 100)" end' "${arg#*=}" | tr -d '\n'
		done
		echo
	done
} >"$data"
gnuplot <<GP
set terminal pngcairo size 1000,500
set output "$out"
set title "Change against the base, per commit (%)"
set ylabel "% (negative = cheaper / faster, except tbench)"
set xtics rotate by -30
set key outside right
set datafile missing "?"
set grid ytics
plot for [i=2:$((${#figs[@]} + 1))] "$data" using 0:i:xtic(1) with linespoints title columnheader(i)
GP
echo "$out"
