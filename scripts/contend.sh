#!/usr/bin/env bash
# Contention that one CPU cannot see: zone->lock with two CPUs allocating
# and freeing at once (the pa_contend module, measure_contend in lib.sh).
# Prints one row per figure, each kernel's mean with its change against
# the first kernel and '*' where Welch's test puts the change beyond the
# noise (compare.sh), then each kernel's spread (coefficient of variation
# over its boots):
#   contend                 guest ns per page allocated and freed, per CPU
#   prof-contend-lockwait   instructions spinning in the spinlock slow
#                           path per page (zone->lock is the one shared lock)
#   prof-contend-allocator  the allocator's own instructions per page
#   prof-contend-pcp, -buddy  refill and drain, and the buddy lists
# usage: contend.sh [REV ...]   (default: the base and every commit)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
need_uint BENCH_CONTEND_K BENCH_JOBS

ensure_series
revs=()
resolve_revs revs "$@"
args=()
for i in "${!revs[@]}"; do
	name=$(short "${revs[$i]}")
	progress "$((i + 1))" "${#revs[@]}" "contend $name"
	f=$(measure_contend "${revs[$i]}") || die "$name: the contention boots failed"
	args+=("$name=$f")
done
figs='^(contend|prof-contend-(lockwait|allocator|pcp|buddy))$'
"$TOP/scripts/lib/compare.sh" --only "$figs" "${args[@]}"
echo
echo "spread over the boots (coefficient of variation):"
"$TOP/scripts/lib/spread.sh" "$figs" "${args[@]}"
