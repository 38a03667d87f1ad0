#!/usr/bin/env bash
# Both measurements of one kernel (measure.sh), merged into one file of
# samples, whose path is printed: the main set (init_on_alloc=0, or
# BENCH_APPEND) and BENCH_ZERO_K boots (default 3) of pa_bench with
# Debian's default init_on_alloc=1, whose figures get the suffix -ioa1.
# BENCH_ZERO_K=0 gives the main set alone.
# usage: measure-sets.sh REV
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"

rev=${1:?usage: measure-sets.sh REV}
main=$("$TOP/scripts/measure.sh" "$rev") || die "$rev could not be measured"
zk=${BENCH_ZERO_K:-3}
if [[ $zk -eq 0 ]]; then
	echo "$main"
	exit 0
fi
zero=$(BENCH_K=$zk BENCH_STEPS=bench BENCH_APPEND="init_on_alloc=1" "$TOP/scripts/measure.sh" "$rev") ||
	die "$rev could not be measured with init_on_alloc=1"
out=${main%.json}+$(basename "$zero" .json | sed 's/^bench-//').json
[[ -f $out ]] || {
	jq -s '.[0] + {samples: (.[0].samples + (.[1].samples | with_entries(.key += "-ioa1")))}' "$main" "$zero" >"$out.tmp"
	mv "$out.tmp" "$out"
}
echo "$out"
