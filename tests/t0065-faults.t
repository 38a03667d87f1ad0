#!/usr/bin/env bash
# Faults of the tool itself, on a fixture tree with a stand-in make and
# QEMU: a make or a QEMU killed from outside (the OOM killer), a cache
# file cut short, two writers at once, a full disk.  Each must end in a
# completed step or a clear infrastructure error that is never cached as
# a verdict on the commit, and the next run must complete.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

setup() {
	fake_check_setup &&
	base=$(git -C work/linux rev-parse "base/1.0-1^{commit}") && res=work/results/$base
}
# The boot directories of the base's result directory.
boot_dirs() { find "$res/" -maxdepth 1 -name "boot-*" ! -name "*.lock" | sort; }

# --- make killed -------------------------------------------------------

ok "make killed by SIGKILL is an infrastructure failure, not cached; the rerun builds" '
	setup && FAKE_MAKE_KILL=self must_fail build.sh base/1.0-1 &&
	must_say "infrastructure failure" && must_say "signal KILL" && ! grep -q "build failed" fail.out &&
	test ! -e $res/build.key && jq -e ".status == \"infra\"" $res/build.json &&
	: >make.log && build.sh base/1.0-1 2>out && must_say "built in" out && must_say "^make bzImage" make.log &&
	build.sh base/1.0-1 2>out && must_say "build cached \(ok\)" out
'

ok "a sub-make that make reports as Killed is an infrastructure failure, not cached" '
	setup && FAKE_MAKE_KILL=sub must_fail build.sh base/1.0-1 &&
	must_say "\] Killed; an infrastructure failure" && test ! -e $res/build.key &&
	build.sh base/1.0-1 2>out && must_say "built in" out
'

ok "check puts a killed build in its table as infra, not as a commit that does not build" '
	setup && build.sh base/1.0-1 2>/dev/null && patch_from one "mm: one" "s/return 1/return 2/" &&
	FAKE_MAKE_KILL=self must_fail check.sh && must_say "mm: one .* infra .*build: make was ended by signal KILL" &&
	check.sh >table 2>&1 && must_say "mm: one .* pass" table
'

ok "a genuine compile error is cached as a build that fails" '
	setup && patch_from broken "mm: broken" "s/return 1;/return 1/" && replay.sh >/dev/null 2>&1 &&
	must_fail build.sh series && must_say "build failed: .*error" &&
	: >make.log && must_fail build.sh series && must_say "build cached \(failed\)" && test ! -s make.log
'

# --- QEMU killed -------------------------------------------------------

ok "QEMU killed by SIGKILL before its time limit is infra, not a hang, and not cached" '
	setup && build.sh base/1.0-1 2>/dev/null &&
	FAKE_QEMU=kill FAKE_QEMU_KILL_SECS=1 BOOT_TIMEOUT=30 must_fail boot.sh base/1.0-1 &&
	must_say "infra in .*killed by signal 9 \(KILL\).*before its time limit of 30s" &&
	d=$(boot_dirs) && jq -e ".verdict == \"infra\" and .qemu_status == 137" "$d/verdict.json" &&
	: >qemu.log && BOOT_TIMEOUT=30 boot.sh base/1.0-1 >/dev/null 2>out && must_say "pass in" out &&
	test "$(grep -cx qemu qemu.log)" = 1
'

ok "QEMU that the time limit kills is a hang, cached as one" '
	setup && build.sh base/1.0-1 2>/dev/null &&
	FAKE_QEMU=hang BOOT_TIMEOUT=2 must_fail boot.sh base/1.0-1 && must_say "hang in" &&
	: >qemu.log && FAKE_QEMU=hang BOOT_TIMEOUT=2 must_fail boot.sh base/1.0-1 &&
	must_say "cached: hang" && test ! -s qemu.log
'

# --- the time limit ----------------------------------------------------

ok "a hang under a shorter time limit is not reused under a longer one" '
	setup && build.sh base/1.0-1 2>/dev/null &&
	FAKE_QEMU=hang BOOT_TIMEOUT=2 must_fail boot.sh base/1.0-1 && must_say "hang in" &&
	jq -e ".limit == 2" "$(boot_dirs)/verdict.json" &&
	: >qemu.log && BOOT_TIMEOUT=20 boot.sh base/1.0-1 >/dev/null 2>out && must_say "pass in" out &&
	test "$(grep -cx qemu qemu.log)" = 1 &&
	: >qemu.log && BOOT_TIMEOUT=2 boot.sh base/1.0-1 >/dev/null 2>out && must_say "cached: pass" out
'

# --- cache files cut short ---------------------------------------------

ok "a build.json cut short is no cached result: the commit is built again" '
	setup && build.sh base/1.0-1 2>/dev/null && head -c 20 $res/build.json >j && mv j $res/build.json &&
	: >make.log && build.sh base/1.0-1 2>out && must_say "built in" out && must_say "^make bzImage" make.log &&
	jq -e ".status == \"ok\"" $res/build.json
'

ok "a verdict.json cut short is no cached verdict: the commit is booted again" '
	setup && build.sh base/1.0-1 2>/dev/null && boot.sh base/1.0-1 >/dev/null 2>&1 &&
	d=$(boot_dirs) && head -c 15 "$d/verdict.json" >j && mv j "$d/verdict.json" &&
	: >qemu.log && boot.sh base/1.0-1 >/dev/null 2>out && must_say "pass in" out &&
	test "$(grep -cx qemu qemu.log)" = 1 && jq -e ".verdict == \"pass\"" "$d/verdict.json"
'

ok "check reruns a commit whose cache files were cut short, and passes it" '
	setup && check.sh >/dev/null 2>&1 && : >$res/build.json && d=$(boot_dirs) && : >"$d/verdict.json" &&
	check.sh >table 2>&1 && must_say "\(base\) .* pass" table
'

# --- what a build is keyed by ------------------------------------------

ok "a rebuild of the same commit gives the same bzImage, byte for byte" '
	setup && build.sh base/1.0-1 2>/dev/null && cp $res/bzImage first && rm $res/build.key &&
	: >make.log && build.sh base/1.0-1 2>/dev/null && must_say "^make bzImage" make.log && cmp first $res/bzImage
'

# A second series with another list of C files: its base is the same
# build and the same boots; the objects bloat-o-meter reads follow the
# series that asks.
ok "checking another series builds and boots only its own commit, not the base again; objects follow the series" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && check.sh >/dev/null 2>&1 &&
	test -f $res/objects/mm/page_alloc.o &&
	git -C scratch checkout -q base/1.0-1 && mkdir -p other && : >other/series.txt && SERIES_DIR=$PWD/other &&
	printf "int other(void)\n{\n\treturn 0;\n}\n" >scratch/mm/other.c && git -C scratch add -f mm/other.c &&
	patch_from two "mm: other" "s/return 1/return 5/" &&
	: >make.log && : >qemu.log && BRANCH=other check.sh >table 2>progress && cat table make.log &&
	test "$(grep -c "^make bzImage" make.log)" = 1 && test "$(grep -cx qemu qemu.log)" = 1 &&
	must_say "\(base\) .* pass" table && must_say "mm: other .* pass" table &&
	tip=$(git -C work/linux rev-parse other) && test -f work/results/$tip/objects/mm/page_alloc.o &&
	test -f $res/objects/mm/page_alloc.o && test ! -e $res/objects/mm/other.o
'

ok "a build done before is still used over uncommitted edits; only its objects wait" '
	setup && build.sh base/1.0-1 2>/dev/null && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh 2>/dev/null &&
	git -C work/linux checkout -q series && echo "/* local */" >>work/linux/mm/page_alloc.c &&
	build.sh base/1.0-1 2>out && must_say "build cached \(ok\)" out && must_say "objects not compiled: .*uncommitted" out &&
	test ! -e $res/objects.key
'

# --- two writers at once -----------------------------------------------

ok "two boots of one commit at once: one waits, and both give the one verdict" '
	setup && build.sh base/1.0-1 2>/dev/null &&
	{ FAKE_QEMU_SECS=3 boot.sh base/1.0-1 >a.out 2>a.err & } && pa=$! &&
	{ FAKE_QEMU_SECS=3 boot.sh base/1.0-1 >b.out 2>b.err & } && pb=$! &&
	wait $pa && wait $pb && cat a.err b.err &&
	test "$(grep -cx qemu qemu.log)" = 1 && test "$(cat a.out)" = "$(cat b.out)" &&
	test "$(boot_dirs | wc -l)" = 1 && jq -e ".verdict == \"pass\"" "$(cat a.out)/verdict.json" &&
	test -z "$(find work/results -name "*.tmp.*")" && test -z "$(find "$(cat a.out)" -mindepth 1 -type d -name "boot-*")"
'

ok "two builds of one commit at once: one builds, the other finds it built" '
	setup && { build.sh base/1.0-1 >/dev/null 2>a.err & } && pa=$! &&
	{ build.sh base/1.0-1 >/dev/null 2>b.err & } && pb=$! && wait $pa && wait $pb && cat a.err b.err &&
	test "$(grep -c "^make bzImage" make.log)" = 1 && jq -e ".status == \"ok\"" $res/build.json
'

# --- a full disk -------------------------------------------------------

# WORK on a small tmpfs, filled up; the kernel tree stays outside it.
# 16 MiB: the guest's initramfs alone is near 5.
if mkdir -p "$T_SCRATCH/mnt-probe" && mount -t tmpfs -o size=16m tmpfs "$T_SCRATCH/mnt-probe" 2>/dev/null; then
	umount "$T_SCRATCH/mnt-probe"
	full_setup() {
		setup && small=$PWD/small && mkdir -p "$small" && mount -t tmpfs -o size=16m tmpfs "$small" &&
		trap 'umount -l "$small"' EXIT && export KTREE=$PWD/work/linux WORK=$small &&
		res=$WORK/results/$base
	}
	fill() { head -c 32m /dev/zero >"$WORK/fill" 2>/dev/null; return 0; }
	ok "a build on a full disk is an infrastructure failure, not cached; with room again it builds" '
		full_setup && fill && must_fail build.sh base/1.0-1 && must_say "infrastructure failure|disk full" &&
		test ! -e $res/build.key && rm "$WORK/fill" &&
		build.sh base/1.0-1 2>out && must_say "built in" out && jq -e ".status == \"ok\"" $res/build.json
	'
	ok "a boot on a full disk is an infrastructure failure, not cached; with room again it boots" '
		full_setup && build.sh base/1.0-1 >/dev/null 2>&1 && fill && must_fail boot.sh base/1.0-1 &&
		must_say "infra|disk full" && ! must_say "(pass|failed|hang) in" >/dev/null &&
		test -z "$(find "$WORK" -name "*.tmp.*")" && rm "$WORK/fill" &&
		: >qemu.log && boot.sh base/1.0-1 >/dev/null 2>out && must_say "pass in" out
	'
	# Replay and export on a full disk may fail; either way the branch and
	# the record replay checks it against agree, and the rerun replays.
	# (tmpfs gives the page a truncation frees back to the write that
	# follows, so an in-place write would pass here too; t0030 tests a
	# record left empty.)
	ok "replay on a full disk leaves the branch and its record in step, and with room again replays" '
		full_setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh 2>/dev/null &&
		patch_from two "mm: two" "s/return 2/return 3/" && fill && { replay.sh >out 2>&1 || true; } && cat out &&
		test "$(cat "$WORK/state/replayed-series")" = "$(git -C work/linux rev-parse series)" &&
		test -z "$(find "$WORK/state" -name "*.tmp.*")" &&
		rm "$WORK/fill" && replay.sh 2>out && must_say "series = .*: 2 patches" out
	'
	ok "export on a full disk leaves the record of the branch whole" '
		full_setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh 2>/dev/null &&
		t=$(git -C work/linux rev-parse series) && fill && { export.sh >out 2>&1 || true; } && cat out &&
		test "$(cat "$WORK/state/replayed-series")" = "$t" && test -z "$(find "$WORK/state" -name "*.tmp.*")" &&
		rm "$WORK/fill" && export.sh 2>/dev/null && replay.sh 2>/dev/null
	'
	# (The series is replayed first: replay.sh is not under test here.)
	ok "check on a full disk ends in an infrastructure error, and with room again passes" '
		full_setup && replay.sh 2>/dev/null && fill && must_fail check.sh &&
		must_say "infrastructure failure" && ! must_say " pass " >/dev/null &&
		rm "$WORK/fill" && check.sh >table 2>&1 && must_say "\(base\) .* pass" table
	'
	ok "check whose boot finds the disk full puts infra in its table, and with room again passes" '
		full_setup && replay.sh 2>/dev/null && build.sh base/1.0-1 >/dev/null 2>&1 && fill && must_fail check.sh &&
		must_say "\(base\) .* infra +boot.sh could not boot" && rm "$WORK/fill" &&
		check.sh >table 2>&1 && must_say "\(base\) .* pass" table
	'
else
	skip "a build on a full disk" "cannot mount a tmpfs here (not root, or no mount namespace)"
	skip "replay on a full disk" "cannot mount a tmpfs here"
	skip "export on a full disk" "cannot mount a tmpfs here"
	skip "a boot on a full disk" "cannot mount a tmpfs here"
	skip "check on a full disk" "cannot mount a tmpfs here"
	skip "check whose boot finds the disk full" "cannot mount a tmpfs here"
fi

done_testing
