#!/usr/bin/env bash
# Measure Debian's own binary kernel, the base and every commit (or the
# commits named) with measure.sh on their bench kernels, compare every
# kernel against the base (compare.sh) and draw the chart (chart.sh).
# Each kernel is measured twice (measure-sets.sh): with init_on_alloc=0,
# so that figures exclude zeroing as in 2009, and with Debian's default
# init_on_alloc=1 (BENCH_ZERO_K boots of pa_bench; figures end in -ioa1).
# Settings are measure.sh's; BENCH_DEBIAN=0 leaves Debian's column out.
# usage: bench.sh [REV | A..B]...
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
need_uint BENCH_K BENCH_JOBS BENCH_ZERO_K BENCH_PROFILE_K

mode=${BENCH_MODE:-deterministic}
ensure_series
commits=()
resolve_revs commits "$@"
base=$(kgit rev-parse "$(base_tag)^{commit}")

head_was=$(current_head)
trap 'restore_head "$head_was"' EXIT

# The base first: every kernel is compared against it.
bf=$("$TOP/scripts/lib/measure-sets.sh" "$base") || die "the base $(short "$base") could not be measured"
files=() debian_note=''
if [[ ${BENCH_DEBIAN:-1} == 1 ]]; then
	say "debian: Debian's own binary kernel of the imported version"
	df=$("$TOP/scripts/lib/measure-sets.sh" debian) || die "Debian's binary kernel could not be measured"
	files+=("debian=$df")
	debian_note="; debian: Debian's own binary"
fi
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	[[ $c != "$base" ]] || continue
	say "[$i/${#commits[@]}] $(short "$c") $(kgit log -1 --format=%s "$c")"
	f=$("$TOP/scripts/lib/measure-sets.sh" "$c") || die "$(short "$c"): could not be measured"
	files+=("$(short "$c")=$f")
done

report=$RESULTS/bench-$(short "${commits[-1]}")-$(basename "$bf" .json | sed "s/^bench-//")
{
	jq -r '"# \(.mode) mode, \(.runs) boots per kernel, kernel command line: \(.append) \(.bench_args)"' "$bf"
	echo "# figures ending in -ioa1: pa_bench with init_on_alloc=1 (Debian's default), ${BENCH_ZERO_K:-3} boots per kernel"
	[[ $mode == deterministic ]] && echo "# unit ns = guest instructions under QEMU -icount shift=0 (not time)"
	echo "# '*': beyond the noise (Welch's t-test per figure, Benjamini-Hochberg at 5% FDR per kernel); change relative to the base"
	echo "# kernels: the bench kernel (Debian's config, qemu/bench.config) of each commit$debian_note"
	echo "# text: size of mm/page_alloc.o .text (bytes)"
	for c in "${commits[@]}"; do
		printf '#   %s text=%s %s\n' "$(short "$c")" "$(jq .page_alloc_text "$RESULTS/$c/build.json")" \
			"$(kgit log -1 --format=%s "$c")"
	done
	"$TOP/scripts/lib/compare.sh" ${BENCH_MARKDOWN:+--markdown} "base=$bf" "${files[@]}"
} | tee "$report.txt"
# The latest table, and the inputs it came from, for the cover letter and
# for checking that the letter's figures are the measured ones.
cp "$report.txt" "$RESULTS/bench-latest.txt"
printf '%s\n' "base=$bf" "${files[@]}" | jq -R -s 'split("\n") | map(select(. != "")) | {inputs: .}' \
	>"$RESULTS/bench-latest.json"
"$TOP/scripts/lib/chart.sh" "$report.png" "base=$bf" "${files[@]}" >/dev/null 2>&1 &&
	say "chart: $report.png"
# Where the profiled workloads spend allocator instructions, if profiled.
if jq -e '.samples | keys | any(startswith("prof-"))' "$bf" >/dev/null; then
	"$TOP/scripts/lib/profile-chart.sh" "$report-profile.png" "base=$bf" "${files[@]}" >/dev/null 2>&1 &&
		say "profile chart: $report-profile.png"
fi
say "table: $report.txt"
