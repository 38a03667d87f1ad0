#!/usr/bin/env bash
# Verdicts: what one boot did, from its console, results port and status.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# usage: boot_dir CONSOLE-TEXT RESULTS-TEXT
boot_dir() {
	mkdir -p b && printf '%b' "$1" >b/console.log && printf '%b' "$2" >b/results.txt
}
good_results='PA-BEGIN 6.1 cpus=2\nPA-KTAP-BEGIN pagealloc_seeds\n    KTAP version 1\n    # Subtest: pagealloc_seeds\n    1..3\n    ok 1 - a\n    ok 2 - b\n    ok 3 - c # SKIP one cpu\nok 1 - pagealloc_seeds\nPA-KTAP-END pagealloc_seeds\nPA-END verdict=0\n'

# A module source with three cases, one of them allowed to skip.
kunit_src() {
	mkdir -p mods/pa_kunit && printf "%s\n" "KUNIT_CASE(a)," "KUNIT_CASE(b)," "KUNIT_CASE_PARAM(c, gen)," >mods/pa_kunit/t.c &&
	echo "c needs two CPUs" >mods/allowed-skips.txt &&
	export KUNIT_MODULES_DIR=$PWD/mods
}
kunit_results=${good_results/PA-BEGIN 6.1 cpus=2/PA-BEGIN 6.1 cpus=2 run=[kunit] provoke=[]}

ok "a KUnit boot that ran every case of the module, skips allowed, passes" '
	kunit_src && boot_dir "ok\n" "$kunit_results" && test "$(verdict.sh b 1 2.5)" = pass
'

ok "a KUnit boot with no KTAP result at all fails" '
	kunit_src && boot_dir "ok\n" "PA-BEGIN 6.1 cpus=2 run=[kunit] provoke=[]\nPA-END verdict=0\n" &&
	test "$(verdict.sh b 1 2.5)" = failed && jq -r .reason b/verdict.json | must_say "no KTAP result" /dev/stdin
'

ok "a case of the module that did not run fails the boot and is named" '
	kunit_src && echo "KUNIT_CASE(d)," >>mods/pa_kunit/t.c && boot_dir "ok\n" "$kunit_results" &&
	test "$(verdict.sh b 1 2.5)" = failed && jq -r .reason b/verdict.json | must_say "did not run: d$" /dev/stdin
'

ok "a boot that asked for the stress suite needs its cases too; one that did not, does not" '
	kunit_src && mkdir -p mods/pa_kunit_stress && echo "KUNIT_CASE(s)," >mods/pa_kunit_stress/t.c &&
	boot_dir "ok\n" "$kunit_results" && test "$(verdict.sh b 1 2.5)" = pass &&
	boot_dir "ok\n" "${kunit_results/run=\[kunit\]/run=[kunit stress]}" &&
	test "$(verdict.sh b 1 2.5)" = failed && jq -r .reason b/verdict.json | must_say "did not run: s$" /dev/stdin
'

ok "a skip the allowed list does not name fails the boot, with its reason" '
	kunit_src && : >mods/allowed-skips.txt && boot_dir "ok\n" "$kunit_results" &&
	test "$(verdict.sh b 1 2.5)" = failed &&
	jq -r .reason b/verdict.json | must_say "skipped without an allowed reason: c # SKIP one cpu" /dev/stdin
'

ok "a clean console and a guest success are a pass, with case counts" '
	boot_dir "Linux version 6.1\nRun /init\n" "$good_results" &&
	test "$(verdict.sh b 1 2.5)" = pass &&
	test "$(jq -c .tests b/verdict.json)" = "{\"pass\":2,\"fail\":0,\"skip\":1,\"failed\":[]}"
'

ok "a failing KUnit case fails the boot and is named" '
	boot_dir "ok\n" "${good_results/ok 2 - b/not ok 2 - b}" &&
	test "$(verdict.sh b 3 2.5)" = failed &&
	test "$(jq -r ".tests.failed[0]" b/verdict.json)" = pagealloc_seeds.b &&
	jq -r .reason b/verdict.json | must_say "pagealloc_seeds.b" /dev/stdin
'

# The kernel's own tests: a list of two that run and one that does not.
intree_list() {
	printf "%s\n" "# the list" "module test_meminit" "program map_populate -x" "skip khugepaged too slow" >intree.txt &&
	export INTREE_LIST=$PWD/intree.txt
}
intree_results() { # RESULT-OF-map_populate
	printf "PA-BEGIN 6.1 cpus=2 run=[intree] provoke=[]\nPA-INTREE test_meminit pass all 10 tests passed!\n%sPA-INTREE khugepaged skip too slow\nPA-END verdict=0\n" "$1"
}

ok "in-tree tests that all report as listed pass, with their counts" '
	intree_list && boot_dir "ok\n" "$(intree_results "PA-INTREE map_populate pass exit 0: ok\n")" &&
	test "$(verdict.sh b 1 2.5)" = pass &&
	test "$(jq -c .intree b/verdict.json)" = "{\"pass\":2,\"fail\":0,\"skip\":1,\"failed\":[]}"
'

ok "a failing in-tree test fails the boot and is named with what it said" '
	intree_list && boot_dir "ok\n" "$(intree_results "PA-INTREE map_populate fail exit 1: bad page\n")" &&
	test "$(verdict.sh b 1 2.5)" = failed &&
	jq -r .reason b/verdict.json | must_say "in-tree tests failed: map_populate: fail exit 1: bad page" /dev/stdin
'

ok "a listed in-tree test that did not report fails the boot and is named" '
	intree_list && boot_dir "ok\n" "$(intree_results "")" &&
	test "$(verdict.sh b 1 2.5)" = failed &&
	jq -r .reason b/verdict.json | must_say "in-tree tests that did not report: map_populate$" /dev/stdin
'

ok "an in-tree test the list runs may not report a skip" '
	intree_list && boot_dir "ok\n" "$(intree_results "PA-INTREE map_populate skip no THP\n")" &&
	test "$(verdict.sh b 1 2.5)" = failed &&
	jq -r .reason b/verdict.json | must_say "map_populate: skip no THP" /dev/stdin
'

ok "an in-tree test may skip when the command line left it out, and only then" '
	intree_list && boot_dir "ok\n" "$(intree_results "PA-INTREE map_populate skip left out by pa.intree_skip\n")" &&
	echo "console=ttyS0 pa.run=intree pa.intree_skip=test_meminit+map_populate" >b/cmdline &&
	test "$(verdict.sh b 1 2.5)" = pass && test "$(jq -c .intree.skip b/verdict.json)" = 2 &&
	echo "console=ttyS0 pa.run=intree pa.intree_skip=test_meminit" >b/cmdline &&
	test "$(verdict.sh b 1 2.5)" = failed
'

# A KUNIT_CASE_PARAM case: its parameters are indented once more, and
# its own line sums them up.
param_results='PA-BEGIN 6.1 cpus=2\nPA-KTAP-BEGIN pagealloc_series\n    KTAP version 1\n    # Subtest: pagealloc_series\n    1..2\n    ok 1 a\n        ok 1 bind\n        not ok 2 interleave\n    not ok 2 modes\nnot ok 1 pagealloc_series\nPA-KTAP-END pagealloc_series\nPA-END verdict=1\n'

ok "a parameterised case counts once, and a failing parameter fails it by the case's name" '
	boot_dir "ok\n" "$param_results" && test "$(verdict.sh b 3 2.5)" = failed &&
	test "$(jq -c .tests b/verdict.json)" = "{\"pass\":1,\"fail\":1,\"skip\":0,\"failed\":[\"pagealloc_series.modes\"]}"
'

for pat in "Kernel panic - not syncing: sysrq triggered crash" "BUG: unable to handle page fault" \
	"WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:5634 __alloc_pages" "Oops: 0002 [#1] SMP" \
	"Call Trace:" "UBSAN: shift-out-of-bounds in mm/page_alloc.c" "BUG: KASAN: use-after-free"; do
	export PAT=$pat
	ok "a console line '${pat%%:*}' fails the boot and is quoted" '
		boot_dir "boot\n$PAT\nmore\n" "$good_results" &&
		test "$(verdict.sh b 1 2.5)" = failed &&
		test "$(jq -r ".matched[0]" b/verdict.json)" = "$PAT"
	'
done

ok "a harmless line from the allowed list does not fail the boot" '
	boot_dir "WARNING: workqueue cpumask: online intersect > possible intersect\n" "$good_results" &&
	test "$(verdict.sh b 1 2.5)" = pass
'

ok "ACPI text saying report a bug is not a kernel bug" '
	boot_dir "ACPI: please report a bug to the firmware vendor\n" "$good_results" &&
	test "$(verdict.sh b 1 2.5)" = pass
'

ok "a timeout is a hang, with the last console line" '
	boot_dir "Run /init\nstill here\n" "PA-BEGIN\n" &&
	test "$(verdict.sh b 124 600)" = hang &&
	jq -r .reason b/verdict.json | must_say "still here" /dev/stdin
'

ok "QEMU stopped from outside mid-run is an infrastructure failure, whatever the guest printed" '
	kunit_src && boot_dir "    not ok 2 - b\n" "PA-BEGIN 6.1 cpus=2 run=[kunit] provoke=[]\n" &&
	echo "qemu-system-x86_64: terminating on signal 15 from pid 42 (pkill)" >b/qemu.out &&
	test "$(verdict.sh b 0 10.3)" = infra && jq -r .reason b/verdict.json | must_say "stopped from outside: .*signal 15" /dev/stdin &&
	echo "qemu-system-x86_64: terminating on signal 15 from pid 42 (timeout)" >b/qemu.out &&
	test "$(verdict.sh b 124 40)" = hang
'

# timeout(1) exits 137 both when its own KILL ended QEMU at the limit and
# when a KILL from outside (the OOM killer) ended QEMU before it.
ok "QEMU killed by a signal before its time limit is infra; at the limit it is a hang, with the limit kept" '
	boot_dir "Run /init\n" "PA-BEGIN\n" &&
	test "$(verdict.sh b 137 13.5 600)" = infra &&
	jq -r .reason b/verdict.json | must_say "killed by signal 9 \(KILL\) after 13.5s, before its time limit of 600s" /dev/stdin &&
	test "$(verdict.sh b 139 2 600)" = infra &&
	test "$(verdict.sh b 137 605.2 600)" = hang && test "$(jq .limit b/verdict.json)" = 600 &&
	test "$(verdict.sh b 124 600 600)" = hang
'

ok "QEMU ending without a guest verdict is an infrastructure failure" '
	boot_dir "" "" && test "$(verdict.sh b 1 0.1)" = infra &&
	boot_dir "qemu: could not load kernel" "" && test "$(verdict.sh b 1 0.1)" = infra
'

ok "a step the guest reports as failed fails the boot" '
	boot_dir "ok\n" "PA-BEGIN\nPA-FAIL tbench\nPA-END verdict=1\n" &&
	test "$(verdict.sh b 3 9)" = failed && jq -r .reason b/verdict.json | must_say tbench /dev/stdin
'

ok "every allowed console pattern has a reason above it" '
	awk "/^#/ { c = 1; next } /^$/ { c = 0; next } !c { print; bad = 1 } { c = 0 } END { exit bad }" \
		"$T_TOP/qemu/allowed-console.txt"
'

done_testing
