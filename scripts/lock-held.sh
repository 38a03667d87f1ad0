#!/usr/bin/env bash
# How long zone->lock is held: the guest instructions executed between
# taking and releasing it in one pcp refill (rmqueue_bulk) and one pcp
# drain (free_pcppages_bulk), each single-stepped (step.sh) in
# pa_bench's order-0 batches of 16384, which go past pcp->high both ways.
# Counted from the return of the lock's acquisition to the call that
# releases it; a call that takes the lock more than once adds its spans.
# Per kernel: pages moved (the call's count argument), instructions in
# all, held, and held per page.  Which pages the stepped call moves, and
# so how much buddy merging or splitting it does, depends on the free
# lists' state, which differs a little from kernel to kernel: kernels
# that do not change the code read up to 5% apart.
# REV is a commit (its bench kernel unless KFLAVOR=check) or "debian".
# usage: lock-held.sh [REV...]      (default: the base and every commit)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
need_uint STEP_SKIP BENCH_JOBS

# Instructions inside the lock in a steps file: its trace follows the
# first blank line, one "function+offset: instruction" per line.
held() {
	awk '!t { if ($0 == "") t = 1; next }
		{ f = $1; sub(/\+0x[0-9a-f]+:$/, "", f) }
		!in_lock && f ~ /^_raw_spin_lock/ && $2 == "ret" { in_lock = 1; spans++; next }
		in_lock && f ~ /^_raw_spin_unlock/ { in_lock = 0 }
		in_lock { n++ }
		END { if (!spans) exit 1; print n }' "$1"
}

[[ $# -gt 0 ]] || ensure_series
revs=()
resolve_kernels revs "$@"
# The count argument: rmqueue_bulk(zone, order, count, ...) in rdx,
# free_pcppages_bulk(zone, count, ...) in rsi.
declare -A count_reg=([rmqueue_bulk]=rdx [free_pcppages_bulk]=rsi)
{
printf '%s\t%s\t%s\t%s\t%s\t%s\n' kernel call pages instructions held held/page
for i in "${!revs[@]}"; do
	r=${revs[$i]}
	resolve_kernel "$r"
	progress "$((i + 1))" "${#revs[@]}" "lock-held $K_NAME"
	# Order-0 refills; the drains grow (pcp->free_factor) from pcp->batch
	# pages as a batch of frees goes on: step one of the first size.
	# shellcheck disable=SC2016 # gdb expands the registers
	STEP_COND_rmqueue_bulk='$rsi == 0' STEP_COND_free_pcppages_bulk='$rsi < 128' \
		STEP_FUNCS="rmqueue_bulk free_pcppages_bulk" STEP_SKIP=${STEP_SKIP:-2} \
		STEP_BENCH="orders=0+batches=16384+pair=0+loops=1000" \
		"$TOP/scripts/step.sh" "$r" >/dev/null || die "$K_NAME: the refill and drain could not be stepped"
	for f in rmqueue_bulk free_pcppages_bulk; do
		steps=$K_DIR/steps-$f.txt
		total=$(sed -n '1s/^[^:]*: \([0-9]*\) instructions.*/\1/p' "$steps")
		pages=$(tr ' ' '\n' <"$K_DIR/steps-$f.args" | sed -n "s/^${count_reg[$f]}=//p")
		h=$(held "$steps") || die "$K_NAME: $f never took a spinlock in $steps"
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$K_NAME" "$f" "$pages" "$total" "$h" \
			"$(echo "scale=1; $h / $pages" | bc)"
	done
done
} | column -t -s $'\t'
