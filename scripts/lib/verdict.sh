#!/usr/bin/env bash
# Decide what one boot did, from its console log, its results port and
# QEMU's exit status, and write DIR/verdict.json.
#   pass    guest finished and reported success, console clean
#   failed  guest reported a failed test, or the console shows a panic,
#           oops, BUG, WARNING, call trace, KASAN or UBSAN report, or a
#           KUnit case of a loaded module did not run or was skipped
#           without an entry in qemu/modules/allowed-skips.txt, or one
#           of the kernel's own tests (qemu/intree-tests.txt) failed or
#           did not report
#   hang    QEMU was killed at the time limit
#   infra   QEMU could not run, was killed by a signal from outside before
#           the time limit (the OOM killer), or the guest ended without a
#           verdict
# LIMIT is the boot's time limit in seconds: a QEMU that a signal ended
# (status 128 and more) hung only if it ran that long.  timeout(1) exits
# 124 when its TERM ended QEMU, 137 when it took a KILL, but 137 too when
# a KILL from outside ended QEMU first.  Kept in verdict.json, so that a
# hang is not taken for one under a longer limit.
# usage: verdict.sh DIR QEMU_STATUS SECONDS [LIMIT]
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: verdict.sh DIR QEMU_STATUS SECONDS [LIMIT]}
status=${2:?}
secs=${3:?}
limit=${4:-}
[[ -z $limit || $limit =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "LIMIT: '$limit' is not a number of seconds"
console=$dir/console.log
results=$dir/results.txt
touch "$console" "$results"
allowed=${ALLOWED_CONSOLE:-$TOP/qemu/allowed-console.txt}
bad='Kernel panic|BUG:|Oops|WARNING:|Call Trace:|KASAN|UBSAN|general protection fault|kernel BUG'

matched=$(grep -E "$bad" "$console" | grep -v -E -f <(grep -v -e '^#' -e '^$' "$allowed") | head -n 20 || true)

# KUnit cases are the result lines indented once inside each KTAP block;
# the unindented line closes the suite and is not a case of its own, and
# those indented twice are the parameters of a KUNIT_CASE_PARAM case,
# whose own line sums them up.
read -r npass nfail nskip < <(awk '
	/^PA-KTAP-BEGIN/ { in_ktap = 1; next }
	/^PA-KTAP-END/ { in_ktap = 0; next }
	in_ktap && /^(    |\t)(not )?ok [0-9]+/ {
		if ($0 ~ /# SKIP/) s++; else if ($1 == "not") f++; else p++
	}
	END { print p + 0, f + 0, s + 0 }' "$results")
failed_cases=$(awk '/^PA-KTAP-BEGIN/ { suite = $2 }
	/^(    |\t)not ok [0-9]+/ { sub(/^(    |\t)not ok [0-9]+ (- )?/, ""); print suite "." $1 }' "$results")
guest_fail=$(sed -n 's/^PA-FAIL //p' "$results")

# The host knows what must run: every KUNIT_CASE of the modules the boot's
# steps load (PA-BEGIN names them), each once, and nothing skipped that
# the allowed-skip list does not name with its reason.
modsrc=${KUNIT_MODULES_DIR:-$TOP/qemu/modules}
allowed_skips=${ALLOWED_SKIPS:-$modsrc/allowed-skips.txt}
begin=$(grep -m1 '^PA-BEGIN ' "$results" || true)
expect_mods=()
[[ $begin != *"run=["*kunit* ]] || expect_mods+=(pa_kunit)
[[ $begin != *"run=["*stress* ]] || expect_mods+=(pa_kunit_stress)
[[ $begin != *"run=["*roots* ]] || expect_mods+=(pa_kunit_roots)
[[ $begin != *"run=["*hwpoison* ]] || expect_mods+=(pa_kunit_hwpoison)
[[ $begin != *"provoke=[fail]"* ]] || expect_mods+=(pa_fail)
ran=$(awk '/^PA-KTAP-BEGIN/ { in_ktap = 1; next } /^PA-KTAP-END/ { in_ktap = 0; next }
	in_ktap && /^(    |\t)(not )?ok [0-9]+/ { sub(/^(    |\t)(not )?ok [0-9]+ (- )?/, ""); sub(/ #.*/, ""); print $1 }' "$results")
skipped=$(awk '/^PA-KTAP-BEGIN/ { in_ktap = 1; next } /^PA-KTAP-END/ { in_ktap = 0; next }
	in_ktap && /^(    |\t)ok [0-9]+.*# SKIP/ { sub(/^(    |\t)ok [0-9]+ (- )?/, ""); print }' "$results")
missing='' unexpected_skip=''
for m in "${expect_mods[@]}"; do
	while read -r want; do
		grep -qx -- "$want" <<<"$ran" || missing+=${missing:+, }$want
	done < <(grep -ohE 'KUNIT_CASE(_PARAM)?\([A-Za-z0-9_]+' "$modsrc/$m"/*.c | sed 's/.*(//' | sort -u)
done
while IFS= read -r line; do
	[[ -n $line && ${#expect_mods[@]} -gt 0 ]] || continue
	name=${line%% *}
	grep -qE "^$name( |$)" "$allowed_skips" 2>/dev/null || unexpected_skip+=${unexpected_skip:+; }$line
done <<<"$skipped"
if [[ ${#expect_mods[@]} -gt 0 && -z $ran ]]; then
	missing="every case (no KTAP result at all)"
fi
# The kernel's own tests (the intree step): every line of the list must
# report, each one run must pass, and only the listed ones are skipped.
ipass=0 ifail=0 iskip=0 intree_failed='' intree_missing=''
# Tests the boot's command line left out (pa.intree_skip=A+B) may skip.
left_out=''
[[ ! -f $dir/cmdline ]] || left_out=" $(sed -n 's/.*pa\.intree_skip=\([^ ]*\).*/\1/p' "$dir/cmdline" | tr '+' ' ') "
if [[ $begin == *"run=["*intree* ]]; then
	while read -r kind name _; do
		[[ $kind =~ ^(module|program|stress|skip)$ ]] || continue
		line=$(grep -m1 "^PA-INTREE $name " "$results" || true)
		read -r _ _ r detail <<<"$line"
		if [[ -z $line ]]; then
			intree_missing+=${intree_missing:+, }$name
		elif [[ $r == pass && $kind != skip ]]; then
			ipass=$((ipass + 1))
		elif [[ $r == skip && ($kind == skip || $left_out == *" $name "*) ]]; then
			iskip=$((iskip + 1))
		else
			ifail=$((ifail + 1))
			intree_failed+=${intree_failed:+; }"$name: $r $detail"
		fi
	done <"$INTREE_LIST"
fi
finished=$(grep -c '^PA-END' "$results" || true)

# isa-debug-exit turns the guest's byte v into QEMU status 2v+1.
if [[ $status -eq 124 ]] || { [[ $status -ge 128 && -n $limit ]] && awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s >= l) }'; }; then
	verdict=hang reason="no verdict within the time limit; last console line: $(tail -n1 "$console")"
elif [[ $status -ge 128 ]]; then
	sig=$((status - 128))
	verdict=infra reason="QEMU was killed by signal $sig ($(kill -l "$sig" 2>/dev/null || echo unknown)) after ${secs}s${limit:+, before its time limit of ${limit}s}: nothing is known of the kernel"
elif stopped=$(grep -m1 'terminating on signal' "$dir/qemu.out" 2>/dev/null); then
	# Killed from outside, not by the time limit: QEMU exits 0 and the
	# guest's log ends wherever it was.  Nothing is known of the kernel.
	verdict=infra reason="QEMU was stopped from outside: $stopped"
elif [[ -n $matched ]]; then
	verdict=failed reason="console: $(head -n1 <<<"$matched")"
elif [[ $status -eq 3 || -n $guest_fail || $nfail -gt 0 ]]; then
	verdict=failed reason="guest tests failed: $(echo "$failed_cases" "$guest_fail" | tr '\n' ' ')"
elif [[ -n $intree_failed ]]; then
	verdict=failed reason="in-tree tests failed: $intree_failed"
elif [[ -n $missing ]]; then
	verdict=failed reason="KUnit cases that did not run: $missing"
elif [[ -n $intree_missing ]]; then
	verdict=failed reason="in-tree tests that did not report: $intree_missing"
elif [[ -n $unexpected_skip ]]; then
	verdict=failed reason="KUnit cases skipped without an allowed reason: $unexpected_skip"
elif [[ $status -eq 1 && $finished -gt 0 ]]; then
	verdict=pass reason=""
else
	verdict=infra reason="QEMU exited with status $status without a guest verdict; last line from QEMU: $(tail -n1 "$dir/qemu.out" 2>/dev/null); from the console: $(tail -n1 "$console")"
fi

# Written to a scratch name and renamed, so that no half file is ever
# read as a verdict.
if ! jq -n --arg verdict "$verdict" --arg reason "$reason" --argjson secs "$secs" \
	--argjson status "$status" --argjson limit "${limit:-null}" --arg matched "$matched" \
	--argjson pass "$npass" --argjson fail "$nfail" --argjson skip "$nskip" \
	--arg failed_cases "$failed_cases" \
	--argjson ipass "$ipass" --argjson ifail "$ifail" --argjson iskip "$iskip" \
	--arg intree_failed "$intree_failed" \
	'{verdict:$verdict, reason:$reason, seconds:$secs, qemu_status:$status, limit:$limit,
	  matched:($matched | split("\n") | map(select(. != ""))),
	  tests:{pass:$pass, fail:$fail, skip:$skip,
	         failed:($failed_cases | split("\n") | map(select(. != "")))},
	  intree:{pass:$ipass, fail:$ifail, skip:$iskip,
	          failed:($intree_failed | split("; ") | map(select(. != "")))}}' >"$dir/verdict.json.tmp.$$" ||
	! mv -f "$dir/verdict.json.tmp.$$" "$dir/verdict.json"; then
	rm -f "$dir/verdict.json.tmp.$$"
	die "could not write $dir/verdict.json (disk full?)"
fi
echo "$verdict"
