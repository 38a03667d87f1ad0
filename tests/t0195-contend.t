#!/usr/bin/env bash
# make contend sees what one CPU cannot: refilling the pcp lists one page
# at a time (tests/plants/pcp-refill-one-page.diff) takes zone->lock for
# every allocation.  On one CPU that reads cheaper in instructions; with
# two CPUs allocating at once they wait for each other, and the lock-wait
# figure must rise beyond the noise.  Check kernels, eight boots each.
# shellcheck disable=SC2016,SC2034 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
slow=$(plant_patch "$base" "contend-test: refill the pcp lists one page at a time" \
	"$T_TOP/tests/plants/pcp-refill-one-page.diff")
# Eight boots each (four seconds a boot here): on the check kernel, lock
# waiting varied by 28% from boot to boot, and three boots left a +56%
# move unmarked on a new machine.
export base slow BENCH_CONTEND_K=8

ok "refilling one page at a time makes two CPUs wait for zone->lock beyond the noise" '
	test -n "$slow" && contend.sh "$base" "$slow" >out; cat out;
	awk "\$1 == \"prof-contend-lockwait\" && /\\(\\+[0-9.]+%\\) \\*\$/ { ok = 1 } END { exit !ok }" out
'

ok "on one CPU nothing waits for a lock" '
	d=$(boot.sh --mode deterministic --run contend --profile --append "init_on_alloc=0 pa.contend=4096x2" "$base") &&
	profile-figures.sh "$d" >/dev/null && jq .figures "$d/profile.json" &&
	jq -e ".figures[\"prof-contend-allocator\"] > 0 and (.figures[\"prof-contend-lockwait\"] // 0) == 0" "$d/profile.json"
'
done_testing
