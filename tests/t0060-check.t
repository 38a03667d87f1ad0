#!/usr/bin/env bash
# make check's logic on a fixture tree, with a stand-in make and QEMU:
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
# the table, the verdicts it carries, the results cache, and recovery.
# The build matrix doubles each check's time: only its own cases run it.
. "$(dirname "$0")/lib/tap.sh"

setup() { fake_check_setup; }

ok "check builds and boots the base and every commit and prints one row each" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	patch_from two "mm: two" "s/return 2/return 3/" &&
	check.sh >table 2>progress &&
	must_say "^commit +subject" table && test "$(grep -cE "^[0-9a-f]{12} .* pass" table)" = 3 &&
	must_say "^\[3/3\] boot [0-9a-f]{12} run=kunit" progress &&
	must_say "mm: two .* 2/0/0 +- +pass" table
'

ok "a rerun with nothing changed builds and boots nothing" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	check.sh >/dev/null 2>&1 && : >make.log && : >qemu.log &&
	check.sh >table 2>&1 && test ! -s make.log && test ! -s qemu.log &&
	test "$(grep -cE "^[0-9a-f]{12} .* pass" table)" = 2
'

ok "the guest modules are built once for commits that change no header, again for one that does" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && patch_from two "mm: two" "s/return 2/return 3/" &&
	check.sh >/dev/null 2>&1 && test "$(grep -c "^make modules M=" make.log)" = 1 &&
	c=$(git -C work/linux rev-parse series) && test -f "work/results/$c/modules/pa_kunit.ko" &&
	echo "#define GFP_NOFS 1" >>scratch/include/gfp.h && git -C scratch diff --full-index >hdr.diff &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qam "gfp: NOFS" && add_patch hdr "gfp: NOFS" hdr.diff &&
	check.sh >/dev/null 2>&1 && test "$(grep -c "^make modules M=" make.log)" = 2
'

# A boot takes one core, a build both: each commit's boots run while the
# next commit builds (make check's cold run, README).  With the build
# matrix, whose makes start after the commit's own build has begun, so
# that one of them starts while the boot runs even when the commit's
# own make is logged before the boot's QEMU.
ok "the boots of one commit run while the next one builds, and the rows keep their order" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && patch_from two "mm: two" "s/return 2/return 3/" &&
	FAKE_MAKE_LOG=$PWD/events.log FAKE_QEMU_LOG=$PWD/events.log BOOT_TIMEOUT=30 FAKE_QEMU_SECS=12 FAKE_QEMU_UNTIL="^make " \
		CHECK_MATRIX=1 check.sh >table 2>progress &&
	cat events.log && test "$(grep -cx "qemu done" events.log)" = 3 &&
	awk "/^qemu\$/ { in_boot = 1 } /^qemu done\$/ { in_boot = 0 } /^make / && in_boot { ok = 1 } END { exit !ok }" events.log &&
	grep -oE "\(base\)|mm: one|mm: two" table | paste -sd, - | grep -qx "(base),mm: one,mm: two"
'

ok "a build that waited for another job on the tree finds the commit built meanwhile and builds nothing" '
	setup && replay.sh >/dev/null 2>&1 && b=$(git -C work/linux rev-parse base/1.0-1) &&
	exec 8>work/build.lock && flock 8 && { build.sh "$b" >waiter.out 2>&1 & } &&
	for _ in $(seq 100); do grep -q "waiting for another job" waiter.out && break; sleep 0.2; done &&
	PAGEALLOC_LOCKED=1 build.sh "$b" >/dev/null 2>&1 && : >make.log && flock -u 8 && wait $! &&
	cat waiter.out && must_say "waiting for another job" waiter.out && must_say "build cached \(ok\)" waiter.out &&
	test ! -s make.log
'

# Configuring costs an incremental build a fifth of its time; a commit
# whose Kconfig files are those of the last one keeps its .config.
ok "a commit that changes no Kconfig file is not configured again, one that does is" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	check.sh >/dev/null 2>&1 && test "$(grep -c "^make allnoconfig" make.log)" = 1 &&
	echo "config PA_FIXTURE" >scratch/mm/Kconfig && git -C scratch add -f mm/Kconfig &&
	git -C scratch diff --cached --full-index >kc.diff &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qm "mm: Kconfig" && add_patch kc "mm: Kconfig" kc.diff &&
	check.sh >/dev/null 2>&1 && test "$(grep -c "^make allnoconfig" make.log)" = 2
'

ok "a commit that adds a compiler warning fails, naming the warning" '
	setup && patch_from warn "mm: warn" "1i #warning planted" &&
	must_fail check.sh && must_say "mm: warn .*failed.*new warning.*planted" &&
	must_say "1 of 2 commits failed"
'

ok "the build matrix compiles every commit in each config and counts those that pass" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	CHECK_MATRIX=1 check.sh >table 2>progress && cat table &&
	test "$(grep -cE "^[0-9a-f]{12} .* 2/2 .* pass" table)" = 2 &&
	must_say "^\[2/2\] build matrix [0-9a-f]{12}" progress &&
	must_say "^make mm/page_alloc.o" make.log &&
	c=$(git -C work/linux rev-parse series) && jq -e ".status == \"ok\"" work/results/$c/matrix/rt.json
'

ok "the matrix compiles MATRIX_JOBS configs at once, two by default" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	FAKE_MAKE_SLOW=1 CHECK_MATRIX=1 check.sh >table 2>&1 && test "$(grep -cE " 2/2 .* pass" table)" = 2 &&
	must_say "^at once 2$" make.log && : >make.log &&
	patch_from two "mm: two" "s/return 2/return 3/" &&
	FAKE_MAKE_SLOW=1 MATRIX_JOBS=1 CHECK_MATRIX=1 check.sh >table 2>&1 && test "$(grep -cE " 2/2 .* pass" table)" = 3 &&
	must_say "^at once 1$" make.log && ! grep "^at once 2" make.log
'

# The matrix's two scopes.  Patch "other" adds mm/other.c, which only
# the rt config builds (mm/Makefile); "two" changes page_alloc.c alone,
# "three" other.c alone; "hdr" changes a header.  The objects each
# commit compiled in the rt config, one line a commit.
matrix_objects() { # SUBJECT...
	local c s
	for s in "$@"; do
		c=$(git -C work/linux log --format=%H --grep="^$s\$" series) &&
		jq -r ".objects | join(\" \")" "work/results/$c/matrix/rt.json"
	done
}
commit_patch() { # NAME SUBJECT: what scratch has staged and changed, as a patch
	git -C scratch add -f -A && git -C scratch diff --cached --full-index >"$1.diff" &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qm "$2" && add_patch "$1" "$2" "$1.diff"
}
ok "the matrix compiles at a commit only the C files it changes, all of the series' after a header change; CHECK_FULL=1 all at each" '
	setup && printf "int other(void)\n{\n\treturn 0;\n}\n" >scratch/mm/other.c &&
	echo "obj-\$(CONFIG_PREEMPT_RT) += other.o" >scratch/mm/Makefile && commit_patch other "mm: other" &&
	patch_from two "mm: two" "s/return 1/return 2/" &&
	sed -i "s/return 0/return 3/" scratch/mm/other.c && commit_patch three "mm: three" &&
	echo "#define GFP_NOFS 1" >>scratch/include/gfp.h && commit_patch hdr "gfp: NOFS" &&
	CHECK_MATRIX=1 check.sh >table 2>progress && cat table &&
	matrix_objects "mm: other" "mm: two" "mm: three" "gfp: NOFS" >scoped && cat scoped &&
	printf "%s\n" "mm/other.o mm/page_alloc.o" mm/page_alloc.o mm/other.o "mm/other.o mm/page_alloc.o" | diff - scoped &&
	must_say "changes include/gfp.h, which any object may use" progress &&
	must_say "the debian config builds none of mm/other.o: nothing to compile" progress &&
	! grep -Ex "make ?" make.log &&
	CHECK_FULL=1 CHECK_MATRIX=1 check.sh >table 2>progress &&
	matrix_objects "mm: other" "mm: two" "mm: three" "gfp: NOFS" >full && cat full &&
	test "$(sort -u full)" = "mm/other.o mm/page_alloc.o"
'

ok "the default plain boot leaves test_free_pages out, CHECK_FULL=1 keeps it" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && unset CHECK_BOOTS &&
	check.sh >/dev/null 2>&1 && c=$(git -C work/linux rev-parse series) &&
	grep -l "pa.run=kunit,stress,intree" work/results/$c/boot-*/cmdline >plain && test "$(wc -l <plain)" = 1 &&
	must_say "pa.intree_skip=test_free_pages" "$(cat plain)" &&
	CHECK_FULL=1 check.sh >/dev/null 2>&1 &&
	grep -L "pa.intree_skip" $(grep -l "pa.run=kunit,stress,intree" work/results/$c/boot-*/cmdline) | grep -q . &&
	CHECK_FULL=yes must_fail check.sh && must_say "CHECK_FULL=yes: give CHECK_FULL=1 or CHECK_FULL=0"
'

# Which boots a commit gets: the run of each boot, one line a commit, in
# the order of the series (the base first).
runs_of() { # SUBJECT...
	local c s
	for s in "$@"; do
		c=$(git -C work/linux log --format=%H --grep="^$s\$" series) &&
		grep -ho "pa\.run=[^ ]*" "work/results/$c"/boot-*/cmdline | sort | paste -sd" " -
	done
}
ok "by default the middle commits boot KUnit with and without debug_pagealloc, the ends every suite; CHECK_FULL=1 every suite on each" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && patch_from two "mm: two" "s/return 2/return 3/" &&
	unset CHECK_BOOTS && check.sh >table 2>/dev/null && cat table &&
	ends="pa.run=hwpoison pa.run=kunit,stress pa.run=kunit,stress,intree pa.run=roots" &&
	test "$(runs_of "mm: one")" = "pa.run=kunit,stress pa.run=kunit,stress" &&
	test "$(runs_of "mm: two")" = "$ends" &&
	must_say "mm: one .* [0-9]+/0/0 +- +pass" table && must_say "mm: two .* [0-9]+/0/0 +0/0/0 +pass" table &&
	CHECK_FULL=1 check.sh >/dev/null 2>&1 &&
	test "$(runs_of "mm: one" | tr " " "\n" | sort -u | paste -sd" " -)" = "$ends"
'

ok "a warning in one config of the matrix fails the commit, naming the config and the warning" '
	setup && patch_from rt "mm: rt" "1i #ifdef CONFIG_PREEMPT_RT\n#warning planted for rt\n#endif" &&
	CHECK_MATRIX=1 must_fail check.sh && must_say "mm: rt .* 1/2 .*failed.*matrix: rt: new warning: mm/page_alloc.c: warning: #warning planted for rt"
'

ok "an error in one config of the matrix fails the commit, naming the config" '
	setup && patch_from rt "mm: rt" "1i #ifdef CONFIG_PREEMPT_RT\n#error planted for rt\n#endif" &&
	CHECK_MATRIX=1 must_fail check.sh && must_say "mm: rt .* 1/2 .*failed.*matrix: rt: error: .*planted for rt"
'

ok "a config without its Debian config stops the matrix before anything compiles, naming it" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh >/dev/null 2>&1 &&
	printf "# base-config: cloud_amd64\n" >matrix/cloud.config &&
	must_fail matrix.sh base/1.0-1 && must_say "cloud: .*cloud.config starts from .*config.amd64_cloud_amd64.xz, which does not exist" &&
	! grep "^make mm/" make.log
'

ok "a config whose compile dies beside the others stops the matrix, naming it" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh >/dev/null 2>&1 &&
	printf "CONFIG_PA_TWICE=y\n# CONFIG_PA_TWICE is not set\n" >matrix/twice.config &&
	must_fail matrix.sh base/1.0-1 && must_say "twice: the fragment .* does not apply" &&
	must_say "could not compile twice \(see above\)" && c=$(git -C work/linux rev-parse base/1.0-1) &&
	test -f work/results/$c/matrix/rt.key && test ! -f work/results/$c/matrix/twice.key
'

ok "Debian configs of another version than the source are refused, naming both" '
	setup && DEBIAN_CONFIG_VERSION=0.9-1 must_fail matrix.sh base/1.0-1 &&
	must_say "configs of 1.0-1.*linux-config-.* here is .0.9-1."
'

ok "a base tag written with _ for ~ takes the configs of the version with ~" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	git -C work/linux tag base/1.0-1_deb1u1 base/1.0-1 &&
	BASE=base/1.0-1_deb1u1 DEBIAN_CONFIG_VERSION=1.0-1~deb1u1 CHECK_MATRIX=1 check.sh >out 2>&1 &&
	must_say "mm: one .* 2/2 .*pass" out &&
	BASE=base/1.0-1_deb1u1 DEBIAN_CONFIG_VERSION=1.0-1_deb1u1 must_fail matrix.sh base/1.0-1_deb1u1 &&
	must_say "configs of 1.0-1~deb1u1.*here is .1.0-1_deb1u1."
'

ok "a commit that does not build fails, naming the file and first error" '
	setup && patch_from broken "mm: broken" "s/return 1;/return 1/" &&
	must_fail check.sh && must_say "mm: broken .*failed.*build: .*mm/page_alloc.c:[0-9]+:[0-9]+: error"
'

ok "a failing guest test fails the commit and names the case" '
	setup && export FAKE_QEMU=fail && must_fail check.sh && must_say "failed .*pagealloc_seeds.b"
'

ok "a panic fails the commit and quotes the console line" '
	setup && export FAKE_QEMU=panic && must_fail check.sh && must_say "failed .*Kernel panic - not syncing: fake"
'

ok "a WARNING in the console fails the commit" '
	setup && export FAKE_QEMU=warn && must_fail check.sh && must_say "failed .*WARNING: CPU: 0"
'

ok "a guest that never finishes is a hang, killed at the time limit" '
	setup && export FAKE_QEMU=hang BOOT_TIMEOUT=2 && must_fail check.sh && must_say " hang .*hanging"
'

ok "an interrupted build leaves no result, and the rerun builds again" '
	setup && : >make.log && FAKE_MAKE_HANG=1 interrupt_when make.log "^make" build.sh base/1.0-1 &&
	c=$(git -C work/linux rev-parse base/1.0-1^{commit}) && test ! -e work/results/$c/build.key &&
	check.sh >table 2>&1 && test "$(grep -cE "^[0-9a-f]{12} .* pass" table)" = 1
'

ok "an interrupted boot leaves no verdict, and the rerun boots again" '
	setup && build.sh base/1.0-1 >/dev/null 2>&1 &&
	: >qemu.log && FAKE_QEMU=hang interrupt_when qemu.log "^qemu" boot.sh base/1.0-1 &&
	test -z "$(find work/results -name verdict.json)" && test -z "$(find work/results -name "*.tmp.*")" &&
	boot.sh base/1.0-1 >/dev/null 2>&1
'

ok "build refuses to check out over uncommitted edits in the kernel tree" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh 2>/dev/null &&
	echo "/* local */" >>work/linux/mm/page_alloc.c &&
	must_fail build.sh series && must_say "uncommitted changes"
'

done_testing
