#!/usr/bin/env bash
# One bisection step, for `git bisect run`: build the checked-out commit (or
# REV), boot it, measure METRIC, and answer 0 good, 1 bad, 125 skip.
#   METRIC=boot          bad: panic, oops, BUG, WARNING or hang
#   METRIC=kunit:SUITE.CASE   bad: that case fails (or the boot fails)
#   METRIC=<figure>      bad: worse than GOOD_JSON's distribution beyond
#                        THRESHOLD % and the noise (figures: see make bench)
# A build failure or an infrastructure failure is 125: git skips the commit.
# usage: step.sh [REV]
. "$(dirname "$0")/../scripts/lib/lib.sh"

rev=${1:-HEAD}
metric=${METRIC:?METRIC is not set}
c=$(kgit rev-parse --verify -q "$rev^{commit}") || { say "$rev: no such commit"; exit 128; }
tag=$(short "$c")

if ! "$TOP/scripts/build.sh" "$c" >/dev/null 2>&1; then
	say "$tag: does not build ($(jq -r .status "$RESULTS/$c/build.json" 2>/dev/null)): skip"
	exit 125
fi

verdict_of() { jq -r .verdict "$1/verdict.json" 2>/dev/null || echo infra; }

case $metric in
boot | kunit:*)
	run=''
	[[ $metric == boot ]] || run=kunit
	# The stress suite's module only for one of its own cases.
	[[ $metric != kunit:pagealloc_stress.* ]] || run=kunit,stress
	d=$("$TOP/scripts/boot.sh" --timeout "${BISECT_TIMEOUT:-300}" --run "$run" "$c" 2>/dev/null) || true
	v=$(verdict_of "$d")
	case $v in
	infra) say "$tag: boot infrastructure failure: skip"; exit 125 ;;
	hang) say "$tag: hang: bad"; exit 1 ;;
	esac
	if [[ $metric == kunit:* ]]; then
		case=${metric#kunit:}
		if jq -e --arg c "$case" '.tests.failed | index($c)' "$d/verdict.json" >/dev/null; then
			say "$tag: $case fails: bad"
			exit 1
		fi
	fi
	if [[ $v != pass ]]; then
		say "$tag: $v: $(jq -r .reason "$d/verdict.json"): bad"
		exit 1
	fi
	say "$tag: $metric passes: good"
	exit 0 ;;
*)
	[[ -f ${GOOD_JSON:-} ]] || { say "GOOD_JSON (the good endpoint's measurements) is not set"; exit 128; }
	j=$("$TOP/scripts/lib/measure.sh" "$c") || { say "$tag: could not be measured: skip"; exit 125; }
	set +e
	line=$("$TOP/bisect/judge.sh" "$GOOD_JSON" "$j" "$metric")
	rc=$?
	set -e
	say "$tag: $line"
	case $rc in 0 | 1) exit $rc ;; *) exit 128 ;; esac ;;
esac
