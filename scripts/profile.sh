#!/usr/bin/env bash
# Where the workloads spend their allocator instructions: the profiled
# set of each kernel (measure_profile in lib.sh, the one make bench
# measures: BENCH_PROFILE_K deterministic boots with the paprof plugin,
# running hackbench, tbench and the page-fault workload), printed as one
# row per figure: the allocator's instructions per operation of each
# workload by bucket (qemu/profile/buckets.tsv), in all, and the kernel's,
# with each kernel's change against the first.  Means over the boots.
# usage: profile.sh [REV|debian ...]    (default: the base and every commit)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
need_uint BENCH_PROFILE_K BENCH_JOBS

ensure_series
revs=()
resolve_kernels revs "$@"

files=() names=()
for i in "${!revs[@]}"; do
	r=${revs[$i]}
	name=$r
	[[ $r == debian ]] || name=$(short "$r")
	progress "$((i + 1))" "${#revs[@]}" "profile $name"
	files+=("$(measure_profile "$r")") || die "$name: could not be profiled"
	names+=("$name")
done

jq -rn --args '$ARGS.positional as $n |
	[inputs | .samples | with_entries(select(.key | test("^prof-")) | .value |= (add / length * 10 | round / 10))] as $f |
	($f[0] | keys) as $keys |
	(["figure"] + $n | @tsv),
	($keys[] as $k | [$k, ($f[0][$k] | tostring)] +
		[$f[1:][] | .[$k] as $v | ($f[0][$k]) as $b |
		 if $v == null then "-"
		 elif $b == 0 then ($v | tostring)
		 else "\($v) (\((($v - $b) / $b * 1000 | round) / 10)%)" end] | @tsv)' \
	"${names[@]}" < <(cat "${files[@]}") | column -t -s $'\t'
