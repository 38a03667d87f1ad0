#!/usr/bin/env bash
# The measurements of one kernel (measure.sh), merged into one file of
# samples, whose path is printed: the main set (init_on_alloc=0, or
# BENCH_APPEND); BENCH_ZERO_K boots (default 3) of pa_bench with Debian's
# default init_on_alloc=1, whose figures get the suffix -ioa1; and
# BENCH_PROFILE_K profiled boots (default 3) of hackbench, tbench and the
# page-fault workload, of which the prof-* and pagefault figures are kept.
# BENCH_ZERO_K=0 BENCH_PROFILE_K=0 gives the main set alone.
# usage: measure-sets.sh REV
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"
# Checked before the main set is measured, not after.
need_uint BENCH_K BENCH_JOBS BENCH_ZERO_K BENCH_PROFILE_K

rev=${1:?usage: measure-sets.sh REV}
main=$("$TOP/scripts/lib/measure.sh" "$rev") || die "$rev could not be measured"
zk=${BENCH_ZERO_K:-3} pk=${BENCH_PROFILE_K:-3}
out=$main
# merge SET-JSON JQ-FILTER: the set's samples, filtered, added to $out.
merge() {
	local into
	into=${out%.json}+$(basename "$1" .json | sed 's/^bench-//').json
	[[ -f $into ]] || {
		jq -s ".[0] + {samples: (.[0].samples + (.[1].samples | $2))}" "$out" "$1" >"$into.tmp"
		mv "$into.tmp" "$into"
	}
	out=$into
}
if [[ $zk -gt 0 ]]; then
	zero=$(BENCH_K=$zk BENCH_STEPS=bench BENCH_APPEND="init_on_alloc=1" "$TOP/scripts/lib/measure.sh" "$rev") ||
		die "$rev could not be measured with init_on_alloc=1"
	merge "$zero" 'with_entries(.key += "-ioa1")'
fi
if [[ $pk -gt 0 ]]; then
	prof=$(measure_profile "$rev") || die "$rev could not be profiled"
	merge "$prof" 'with_entries(select(.key | test("^(prof-|pagefault)")))'
fi
echo "$out"
