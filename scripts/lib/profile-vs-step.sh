#!/usr/bin/env bash
# Do the profile and make step agree?  Profile pa_bench's order-0 pair
# loop (boot.sh --profile) and compare, function by function, the
# instructions per alloc/free pair with what make step counted for one
# single-stepped alloc_pages() and __free_pages() of the same loop.
# Prints one line per function and the totals; exit 1 if the totals
# differ by more than PROFILE_TOLERANCE percent (default 1).  Functions
# that pa_bench's loop calls itself are left out of the totals
# (PROFILE_SHARED, default __cond_resched: once per sample, between pairs).
# usage: profile-vs-step.sh REV
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"
need_uint PROFILE_LOOPS STEP_SKIP

rev=${1:?usage: profile-vs-step.sh REV}
loops=${PROFILE_LOOPS:-20000}
"$TOP/scripts/step.sh" "$rev" >/dev/null || die "$rev: make step failed"
resolve_kernel "$rev"
steps=("$K_DIR/steps-alloc_pages.txt" "$K_DIR/steps-__free_pages.txt")
d=$("$TOP/scripts/boot.sh" --mode deterministic --profile --run bench \
	--append "init_on_alloc=0 pa.bench=orders=0+batches=0+loops=$loops" "$rev") ||
	die "$K_NAME: the profiled pa_bench boot failed ($d)"
# The pairs the loop made: its timed samples plus the warm-up ones.
pairs=$(awk '/^bench info params/ { for (i = 1; i <= NF; i++) if ($i ~ /^warmup=/) w = substr($i, 8) }
	/^bench figure=alloc order=0 pattern=pair/ { for (i = 1; i <= NF; i++) if ($i ~ /^samples=/) s = substr($i, 9) }
	END { print s + w }' "$d/results.txt")
[[ $pairs -gt 0 ]] || die "$d: pa_bench printed no order-0 pair figure"

tol=${PROFILE_TOLERANCE:-1}
[[ $tol =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "PROFILE_TOLERANCE=$tol: a tolerance is a number of percent, e.g. 1 or 0.5"
PA_SHARED=" ${PROFILE_SHARED-__cond_resched} " awk -v pairs="$pairs" -v tol="$tol" '
	FNR == 1 { file++ }
	file <= 2 && $1 ~ /^[0-9]+$/ && NF == 2 { stepped[$2] += $1; next }
	file == 3 && $1 == "window" { inw = 1; next }
	file == 3 && $1 == "end" { inw = 0; next }
	file == 3 && inw { counted[$2] += $1 }
	END {
		for (f in stepped) {
			p = counted[f] / pairs
			if (index(ENVIRON["PA_SHARED"], " " f " ")) {
				printf "%-32s stepped %6d  profiled %9.2f  (called by pa_bench too: left out)\n", f, stepped[f], p
				continue
			}
			printf "%-32s stepped %6d  profiled %9.2f\n", f, stepped[f], p
			ts += stepped[f]; tp += p
		}
		d = (tp - ts) / ts * 100
		printf "%-32s stepped %6d  profiled %9.2f  (%+.2f%%, %d pairs)\n", "total", ts, tp, d, pairs
		if (d > tol || d < -tol)
			printf "the profile and make step differ by more than %s%%\n", tol > "/dev/stderr"
		exit (d > tol || d < -tol)
	}' "${steps[@]}" "$d/profile.txt"
