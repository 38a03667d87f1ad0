#!/usr/bin/env bash
# Measure the base and every commit (or the commits named) with
# measure.sh, compare every commit against the base (compare.sh) and draw
# the chart (chart.sh).  Settings are measure.sh's.
# usage: bench.sh [REV | A..B]...
. "$(dirname "$0")/lib.sh"

mode=${BENCH_MODE:-deterministic}
ensure_series
commits=()
resolve_revs commits "$@"
base=$(kgit rev-parse "$(base_tag)^{commit}")

head_was=$(current_head)
trap 'restore_head "$head_was"' EXIT
# The base first: every commit is compared against it.
bf=$("$TOP/scripts/measure.sh" "$base") || die "the base $(short "$base") could not be measured"
files=()
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	[[ $c != "$base" ]] || continue
	say "[$i/${#commits[@]}] $(short "$c") $(kgit log -1 --format=%s "$c")"
	f=$("$TOP/scripts/measure.sh" "$c") || die "$(short "$c"): could not be measured"
	files+=("$(short "$c")=$f")
done

report=$RESULTS/bench-$(short "${commits[-1]}")-$(basename "$bf" .json | sed "s/^bench-//")
{
	jq -r '"# \(.mode) mode, \(.runs) boots per kernel, kernel command line: \(.append) \(.bench_args)"' "$bf"
	[[ $mode == deterministic ]] && echo "# unit ns = guest instructions under QEMU -icount shift=0 (not time)"
	echo "# '*': Welch's t-test, two-sided, 95%; change relative to the base"
	echo "# text: size of mm/page_alloc.o .text (bytes)"
	for c in "${commits[@]}"; do
		printf '#   %s text=%s %s\n' "$(short "$c")" "$(jq .page_alloc_text "$RESULTS/$c/build.json")" \
			"$(kgit log -1 --format=%s "$c")"
	done
	"$TOP/scripts/compare.sh" ${BENCH_MARKDOWN:+--markdown} "base=$bf" "${files[@]}"
} | tee "$report.txt"
# The latest table, and the inputs it came from, for the cover letter and
# for checking that the letter's figures are the measured ones.
cp "$report.txt" "$RESULTS/bench-latest.txt"
printf '%s\n' "base=$bf" "${files[@]}" | jq -R -s 'split("\n") | map(select(. != "")) | {inputs: .}' \
	>"$RESULTS/bench-latest.json"
"$TOP/scripts/chart.sh" "$report.png" "base=$bf" "${files[@]}" >/dev/null 2>&1 &&
	say "chart: $report.png"
say "table: $report.txt"
