#!/usr/bin/env bash
# Measure the base and every commit (or the commits named) over a family of
# K perturbed boots each, and compare every commit against the base.
#   deterministic (default): 1 CPU under QEMU -icount shift=0; guest "ns"
#     are guest instructions, and a boot is repeatable bit for bit.  Each of
#     the K boots adds a different unused command-line word (pa.pad=a, aa,
#     ...) so that layout luck is sampled the same way for every kernel.
#   BENCH_MODE=functional: plain TCG (or KVM), wall clock; K repeats.
# usage: bench.sh [REV | A..B]...
. "$(dirname "$0")/lib.sh"

K=${BENCH_K:-5}
mode=${BENCH_MODE:-deterministic}
steps=${BENCH_STEPS:-bench,hackbench,tbench}
append=${BENCH_APPEND:-init_on_alloc=0}
args=${BENCH_ARGS:-}
commits=()
resolve_revs commits "$@"
base=$(kgit rev-parse "$(base_tag)^{commit}")
set_key=$(echo "$K $mode $steps $append $args" | sha1sum | cut -c1-8)

# Boot commit $1 K times and gather every figure's samples into one file.
measure() {
	local c=$1 k dirs=() d out=$RESULTS/$1/bench-$set_key.json pad=''
	if [[ -f $out ]]; then
		echo "$out"
		return
	fi
	"$TOP/scripts/build.sh" "$c" >/dev/null || return 1
	for ((k = 1; k <= K; k++)); do
		pad+=a
		progress "$k" "$K" "bench $(short "$c") ($mode, $append pa.pad=$pad)" 
		d=$("$TOP/scripts/boot.sh" --mode "$mode" --run "$steps" \
			--append "$append pa.pad=$pad${args:+ pa.bench=$args}" "$c") ||
			die "$(short "$c"): benchmark boot $k failed: $(jq -r .reason "$d/verdict.json" 2>/dev/null)"
		"$TOP/scripts/figures.sh" "$d" >/dev/null
		dirs+=("$d/figures.json")
	done
	jq -s --arg mode "$mode" --arg append "$append" --arg commit "$c" \
		'{commit: $commit, mode: $mode, append: $append, runs: length,
		  units: .[0].units,
		  samples: (map(.figures | to_entries) | add | group_by(.key)
			| map({key: .[0].key, value: map(.value)}) | from_entries)}' \
		"${dirs[@]}" >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "$out"
}

files=()
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	say "[$i/${#commits[@]}] $(short "$c") $(kgit log -1 --format=%s "$c")"
	f=$(measure "$c") || die "$(short "$c"): could not be measured"
	files+=("$(short "$c")=$f")
done
bf=$(measure "$base")

report=$RESULTS/bench-$(short "${commits[-1]}")-$set_key
{
	echo "# $mode mode, $K boots per kernel, kernel command line: $append"
	[[ $mode == deterministic ]] && echo "# unit ns = guest instructions under QEMU -icount shift=0 (not time)"
	echo "# '*': Welch's t-test, two-sided, 95%; change relative to the base"
	echo "# text: size of mm/page_alloc.o .text (bytes)"
	for c in "${commits[@]}"; do
		printf '#   %s text=%s %s\n' "$(short "$c")" "$(jq .page_alloc_text "$RESULTS/$c/build.json")" \
			"$(kgit log -1 --format=%s "$c")"
	done
	"$TOP/scripts/compare.sh" ${BENCH_MARKDOWN:+--markdown} "base=$bf" "${files[@]}"
} | tee "$report.txt"
"$TOP/scripts/chart.sh" "$report.png" "base=$bf" "${files[@]}" >/dev/null 2>&1 &&
	say "chart: $report.png"
say "table: $report.txt"
