#!/usr/bin/env bash
# Where the workloads spend their allocator instructions: boot each kernel
# once in the deterministic machine with the paprof plugin (boot.sh
# --profile), running hackbench (pipes, sockets), tbench and the page-fault
# workload, each in a window of its own; then print, per workload, the
# allocator's instructions per operation by bucket
# (qemu/profile/buckets.tsv), the kernel's, and the allocator's share,
# for each kernel against the first.  Instruction counts are exact: one
# vCPU under -icount, counted per executed instruction.
# PROFILE_K boots per kernel (default 1), each with another unused
# command-line word, print the mean; PROFILE_APPEND adds boot arguments.
# usage: profile.sh [REV|debian ...]    (default: the base and every commit)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"

ensure_series
revs=()
if [[ $# -eq 0 ]]; then
	resolve_revs revs
else
	for r in "$@"; do
		if [[ $r == debian ]]; then revs+=(debian); else resolve_revs more "$r"; revs+=("${more[@]}"); fi
	done
fi
K=${PROFILE_K:-1}
args="init_on_alloc=0 pa.tbench_secs=${PROFILE_TBENCH_SECS:-2} pa.pagefault=${PROFILE_PAGEFAULT:-64x4} ${PROFILE_APPEND:-}"

files=() names=()
n=0
for r in "${revs[@]}"; do
	n=$((n + 1))
	name=$r
	[[ $r == debian ]] || name=$(short "$r")
	runs=()
	for ((k = 1; k <= K; k++)); do
		pad=$(printf "%${k}s" | tr ' ' p)
		progress "$n" "${#revs[@]}" "profile $name (boot $k of $K)"
		d=$("$TOP/scripts/boot.sh" --mode deterministic --profile --run hackbench,tbench,pagefault \
			--append "$args pa.pad=$pad" "$r") || die "$name: the profiled boot failed ($d)"
		runs+=("$("$TOP/scripts/profile-figures.sh" "$d")")
	done
	# The mean of the boots' figures, kept beside the first boot's result.
	out=$(dirname "${runs[0]}")/../profile-$(printf '%s\n' "$args" "$K" | sha1sum | cut -c1-8).json
	jq -s '{runs: length, figures: (map(.figures) | . as $all |
		($all[0] | keys) | map({(.): ([$all[][.]] | add / length * 10 | round / 10)}) | add)}' \
		"${runs[@]}" >"$out"
	files+=("$(realpath "$out")")
	names+=("$name")
done

# One row per figure: the first kernel's value, then each other kernel's
# with its change in percent.
jq -rn --args '$ARGS.positional as $n | [inputs] as $f |
	($f[0].figures | keys) as $keys |
	(["figure"] + $n | @tsv),
	($keys[] as $k | [$k, ($f[0].figures[$k] | tostring)] +
		[$f[1:][] | .figures[$k] as $v | ($f[0].figures[$k]) as $b |
		 if $v == null then "-"
		 elif $b == 0 then ($v | tostring)
		 else "\($v) (\((($v - $b) / $b * 10000 | round) / 100)%)" end] | @tsv)' \
	"${names[@]}" < <(cat "${files[@]}") | column -t -s $'\t'
