#!/usr/bin/env bash
# Find the commit that made METRIC worse between GOOD and BAD.
# Checks both endpoints first, runs `git bisect run bisect/step.sh`,
# confirms the culprit (bad, and its parent good), and always leaves the
# kernel tree out of bisect state.  Log: $WORK/bisect/<time>-<metric>.log
# Boot and KUnit metrics judge the check kernel, figures the bench kernel
# (KFLAVOR overrides).
# THRESHOLD (the fourth argument, or the variable; default 2) is a
# percentage, a plain non-negative number, "5" or "0.5", with or without a
# "%" after it: "5%" is 5 percent.  Anything else stops here, before the
# endpoints are built or measured.
# usage: run.sh GOOD BAD METRIC [THRESHOLD%]
case ${3:-} in
boot | kunit:*) DEFAULT_KFLAVOR=check ;;
*) DEFAULT_KFLAVOR=bench ;;
esac
. "$(dirname "$0")/../scripts/lib/lib.sh"
need_uint BENCH_K BENCH_JOBS JOBS

good=${1:?usage: run.sh GOOD BAD METRIC [THRESHOLD%]}
bad=${2:?usage: run.sh GOOD BAD METRIC [THRESHOLD%]}
export METRIC=${3:?usage: run.sh GOOD BAD METRIC [THRESHOLD%]}
# The profile's figures come from profiled boots of the workloads.
if [[ $METRIC == prof-* || $METRIC == pagefault ]]; then
	export BENCH_PROFILE=1 BENCH_STEPS=${BENCH_STEPS:-hackbench,tbench,pagefault} BENCH_K=${BENCH_K:-3}
fi
THRESHOLD=${4:-${THRESHOLD:-2}}
[[ $THRESHOLD =~ ^([0-9]+(\.[0-9]+)?|\.[0-9]+)%?$ ]] ||
	die "THRESHOLD=$THRESHOLD: a percentage is a non-negative number, e.g. THRESHOLD=2, 0.5 or 5%"
export THRESHOLD=${THRESHOLD%\%}
[[ ${BISECT_TIMEOUT:-300} =~ ^[1-9][0-9]*$ ]] || die "BISECT_TIMEOUT=$BISECT_TIMEOUT: a boot's limit is a whole number of seconds"
[[ $METRIC != kunit:* || $METRIC =~ ^kunit:[A-Za-z0-9_]+\.[A-Za-z0-9_]+$ ]] ||
	die "METRIC=$METRIC: a KUnit metric is kunit:SUITE.CASE"
step=$TOP/bisect/step.sh
g=$(kgit rev-parse --verify -q "$good^{commit}") || die "GOOD=$good: no such commit in $KTREE"
b=$(kgit rev-parse --verify -q "$bad^{commit}") || die "BAD=$bad: no such commit in $KTREE"
kgit merge-base --is-ancestor "$g" "$b" || die "GOOD=$good is not an ancestor of BAD=$bad"
[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
	die "$KTREE has uncommitted changes; commit or stash them first"

# git bisect checks out commits: no other job may use the tree meanwhile.
take_build_lock
mkdir -p "$WORK/bisect"
log=$WORK/bisect/$(date +%Y%m%d-%H%M%S)-${METRIC//[^A-Za-z0-9_.-]/_}.log
exec > >(tee -a "$log") 2>&1
start=$SECONDS
steps=0
say "bisecting $METRIC between GOOD=$(short "$g") and BAD=$(short "$b") (log: $log)"

# Always give the tree back: out of bisect state, at the commit it was on.
orig=$(kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD)
cleanup() {
	kgit bisect reset >/dev/null 2>&1 || true
	kgit checkout -q "$orig" 2>/dev/null || true
}
trap cleanup EXIT

# Run one step on REV; its answer is the return status.
judge() {
	steps=$((steps + 1))
	"$step" "$1"
}

if [[ $METRIC == boot || $METRIC == kunit:* ]]; then
	judge "$g" || die "GOOD=$good is not good for $METRIC (see above)"
else
	GOOD_JSON=$("$TOP/scripts/lib/measure.sh" "$g") || die "GOOD=$good could not be measured"
	export GOOD_JSON
fi
set +e
judge "$b"
rc=$?
set -e
case $rc in
0) say "no regression between GOOD=$good and BAD=$bad for $METRIC"; exit 0 ;;
1) ;;
*) die "BAD=$bad could not be judged (step answered $rc)" ;;
esac
[[ $g != "$b" ]] || { say "no regression between GOOD=$good and BAD=$bad (same commit)"; exit 0; }

kgit bisect start "$b" "$g" >/dev/null
set +e
# git prints "Bisecting: N revisions left to test after this (roughly M
# steps)" before each step: those are the progress lines.
kgit bisect run "$step" 2>&1 | tee "$log.run" | grep -E '^Bisecting:|^step: |is the first bad commit$|^There are only|skipped commits'
set -e
steps=$((steps + $(grep -c '^running ' "$log.run" || true)))
culprit=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$log.run")
if [[ -z $culprit ]]; then
	grep -A20 'only skipped commits' "$log.run" >&2 || true
	die "bisect did not name a single culprit (see $log.run)"
fi
kgit bisect reset >/dev/null 2>&1

# Confirm: the culprit is bad and its parent is good (measurements of both
# are in the results cache by now, so this is cheap).
parent=$(kgit rev-parse "$culprit^")
set +e
judge "$culprit"; cb=$?
judge "$parent"; pg=$?
set -e
[[ $cb == 1 && $pg == 0 ]] || die "culprit $(short "$culprit") not confirmed (culprit answered $cb, parent $pg)"

echo
echo "culprit: $(kgit log -1 --format='%h %s' "$culprit")"
if [[ -n ${GOOD_JSON:-} ]]; then
	for r in "$parent" "$culprit"; do
		printf '  %-8s %s %s: %s\n' "$([[ $r == "$parent" ]] && echo parent || echo culprit)" "$(short "$r")" "$METRIC" \
			"$(jq -c --arg m "$METRIC" '.samples[$m]' "$("$TOP/scripts/lib/measure.sh" "$r")")"
	done
else
	echo "  parent $(short "$parent") is good; culprit fails $METRIC"
fi
echo "steps: $steps build+boot steps, $((SECONDS - start)) s wall"
