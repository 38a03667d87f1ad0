#!/usr/bin/env bash
# A new Debian version and someone else's series, on fixtures: make import
# of a newer tarball beside the old base, make rebase with a patch that
# conflicts and one that is already in the new base, resuming and
# abandoning it, and make check on another series directory and on a
# branch made by hand in the kernel tree.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# The fixture base, and a series of three patches made in a scratch clone.
setup() {
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git clone -q work/linux scratch && git -C scratch -c advice.detachedHead=false checkout -q base/1.0-1 &&
	patch_from one "mm/page_alloc: Return two" mm/page_alloc.c "s/return 1/return 2/" &&
	patch_from two "gfp: Add a comment" include/gfp.h "1i /* two */" &&
	patch_from three "gfp: Define GFP_ATOMIC" include/gfp.h "\$a #define GFP_ATOMIC 1" &&
	replay.sh 2>/dev/null
}
patch_from() { # NAME SUBJECT FILE SED-EXPR
	sed -i "$4" "scratch/$3" &&
	git -C scratch diff --full-index >"$1.diff" &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qam "$2" &&
	add_patch "$1" "$2" "$1.diff"
}

# Import another version of the fixture tarball: its Makefile says
# MAKE-VERSION, mm/page_alloc.c is edited by SED-EXPR (may be empty), and
# LINE, if given, is appended to include/gfp.h.
# usage: import_variant SOURCE_VERSION MAKE-VERSION SED-EXPR [LINE]
import_variant() {
	local d
	d=$(mktemp -d) && tar -C "$d" -xf linux-source-6.1.tar.xz &&
	sed -i "$3" "$d/linux-source-6.1/mm/page_alloc.c" &&
	{ [[ -z ${4:-} ]] || echo "$4" >>"$d/linux-source-6.1/include/gfp.h"; } &&
	sed -i "s/1.0-1/$2/" "$d/linux-source-6.1/Makefile" &&
	tar -C "$d" -cJf variant.tar.xz linux-source-6.1 && rm -rf "$d" &&
	TARBALL=$PWD/variant.tar.xz SOURCE_VERSION=$1 import.sh 2>/dev/null
}

# Version 1.0-2 of the tarball: alloc() returns 3 where patch one makes it
# return 2 (a conflict), and GFP_ATOMIC is defined already (patch three
# went upstream).
import_next() { import_variant 1.0-2 1.0-2 "s/return 1/return 3/" "#define GFP_ATOMIC 1"; }

# Resolve patch one's conflict in favour of the series: return 2.
resolve_one() {
	sed -i "/^<<<<<<< /,/^=======/d; /^>>>>>>> /d" work/linux/mm/page_alloc.c &&
	grep -q "return 2" work/linux/mm/page_alloc.c
}

ok "a newer tarball is imported beside the old base, and becomes the base" '
	setup && old=$(git -C work/linux rev-parse series) && import_next &&
	git -C work/linux tag -l "base/*" >tags && printf "base/1.0-1\nbase/1.0-2\n" | diff - tags &&
	(. "$T_TOP/scripts/lib/lib.sh" && test "$(base_tag)" = base/1.0-2) &&
	test "$(git -C work/linux rev-parse series)" = "$old"
'

ok "rebase stops at the conflicting patch, naming it, its file and its hunk, with the branch untouched" '
	setup && old=$(git -C work/linux rev-parse series) && import_next &&
	must_fail rebase.sh && cat fail.out &&
	must_say "patch 1/3 .one. .*conflicts .* in mm/page_alloc.c" &&
	must_say "mm/page_alloc.c: @@ -1,4 \+1,4 @@" && must_say "CONTINUE=1" &&
	grep -q "^<<<<<<< " work/linux/mm/page_alloc.c &&
	test "$(git -C work/linux rev-parse series)" = "$old"
'

# File names are data: a space, a backslash (which awk -v reads as an
# escape) and a double quote (git quotes such a name in its diff).
ok "a conflict in files whose names hold a space, a backslash or a quote names each file and hunk, and --continue takes them" '
	odd() { for n in "my file.c" "x\\ty.c" "q\"uote.c"; do sed -i "$1" "$2/mm/$n"; done; } &&
	make_tarball && d=$(mktemp -d) && tar -C "$d" -xf linux-source-6.1.tar.xz &&
	for n in "my file.c" "x\\ty.c" "q\"uote.c"; do printf "int v = 1;\n" >"$d/linux-source-6.1/mm/$n"; done &&
	tar -C "$d" -cJf linux-source-6.1.tar.xz linux-source-6.1 && fixture_env && import.sh 2>/dev/null &&
	git clone -q work/linux scratch && git -C scratch checkout -q base/1.0-1 && odd "s/v = 1/v = 2/" scratch &&
	git -C scratch diff --full-index >one.diff && add_patch one "mm: Two" one.diff && replay.sh 2>/dev/null &&
	odd "s/v = 1/v = 3/" "$d/linux-source-6.1" && sed -i "s/1.0-1/1.0-2/" "$d/linux-source-6.1/Makefile" &&
	tar -C "$d" -cJf next.tar.xz linux-source-6.1 && rm -rf "$d" &&
	TARBALL=$PWD/next.tar.xz SOURCE_VERSION=1.0-2 import.sh 2>/dev/null &&
	must_fail rebase.sh && grep -qxF "    mm/my file.c: @@ -1 +1 @@" fail.out &&
	grep -qxF "    mm/x\\ty.c: @@ -1 +1 @@" fail.out && grep -qxF "    mm/q\"uote.c: @@ -1 +1 @@" fail.out &&
	must_say "conflicts with .* in mm/my file.c mm/q\"uote.c mm/x\\\\ty.c:" &&
	odd "/^[<=>]\{7\}/d; /v = 3/d" work/linux && rebase.sh --continue 2>/dev/null &&
	git -C work/linux show "series:mm/x\\ty.c" | grep -qx "int v = 2;"
'

ok "resolved and continued: the series is on the new base, the upstream patch is named and left out" '
	setup && import_next && { rebase.sh >/dev/null 2>&1 || true; } && resolve_one &&
	rebase.sh --continue >out 2>&1; cat out &&
	must_say "patch 3/3 .three.: its change is already in" out &&
	git -C work/linux merge-base --is-ancestor base/1.0-2 series &&
	test "$(git -C work/linux rev-list --count base/1.0-2..series)" = 2 &&
	printf "one\ntwo\n" | diff - <(grep -v "^#" series/series.txt) &&
	must_say "^# three: left out by make rebase onto base/1.0-2 \(already upstream\), its files kept$" series/series.txt &&
	cmp three.diff series/patches/three.diff && test -f series/commit-msgs/three &&
	test ! -e work/state/rebase-series
'

ok "the rebased series replays from its files to the same tree" '
	setup && import_next && { rebase.sh >/dev/null 2>&1 || true; } && resolve_one &&
	rebase.sh --continue >/dev/null 2>&1 && t=$(git -C work/linux rev-parse "series^{tree}") &&
	git -C work/linux branch -D -q series && rm -f work/state/replayed-series && replay.sh 2>/dev/null &&
	test "$(git -C work/linux rev-parse "series^{tree}")" = "$t"
'

ok "continuing with the markers still in the file is refused" '
	setup && import_next && { rebase.sh >/dev/null 2>&1 || true; } &&
	must_fail rebase.sh --continue && must_say "conflict markers are still in .*/mm/page_alloc.c"
'

ok "an abandoned rebase leaves the branch, the tree and the series files as they were" '
	setup && cp -r series before && old=$(git -C work/linux rev-parse series) &&
	git -C work/linux checkout -q series && import_next && git -C work/linux checkout -q series &&
	{ rebase.sh >/dev/null 2>&1 || true; } && rebase.sh --abort 2>/dev/null &&
	test "$(git -C work/linux rev-parse series)" = "$old" &&
	test "$(git -C work/linux symbolic-ref --short HEAD)" = series &&
	test -z "$(git -C work/linux status --porcelain --untracked-files=no)" &&
	diff -r before series && test ! -e work/state/rebase-series
'

ok "replay and a second rebase refuse to run while a rebase is in progress" '
	setup && import_next && { rebase.sh >/dev/null 2>&1 || true; } &&
	must_fail replay.sh && must_say "rebase of series is in progress" &&
	must_fail rebase.sh && must_say "in progress"
'

ok "SKIP=1 leaves the conflicting patch out" '
	setup && import_next && { rebase.sh >/dev/null 2>&1 || true; } &&
	rebase.sh --skip >out 2>&1 && must_say "left out: three \(already upstream\) one \(skipped\)" out &&
	printf "two\n" | diff - <(grep -v "^#" series/series.txt) &&
	must_say "^# one: left out by make rebase onto base/1.0-2 \(skipped with SKIP=1\), its files kept$" series/series.txt &&
	cmp one.diff series/patches/one.diff && test -f series/commit-msgs/one
'

ok "an abort after the conflict is resolved keeps the resolution on a branch, and says which" '
	setup && old=$(git -C work/linux rev-parse series) && import_next &&
	{ rebase.sh >/dev/null 2>&1 || true; } && resolve_one &&
	rebase.sh --abort 2>out && cat out && must_say "kept on branch series-rebase-kept" out &&
	git -C work/linux show series-rebase-kept:mm/page_alloc.c | must_say "return 2" /dev/stdin &&
	test "$(git -C work/linux rev-parse series)" = "$old" && test ! -e work/state/rebase-series
'

ok "series.txt edited in the middle of a rebase stops --continue with a clear error, and nothing moves" '
	setup && old=$(git -C work/linux rev-parse series) && import_next &&
	{ rebase.sh >/dev/null 2>&1 || true; } && resolve_one && printf "one\nthree\n" >series/series.txt &&
	must_fail rebase.sh --continue && must_say "series.txt changed while the rebase of series is in progress" &&
	test "$(git -C work/linux rev-parse series)" = "$old" && test -d work/state/rebase-series
'

ok "a commit message lost in the middle of a rebase stops --continue and --skip, naming it" '
	setup && old=$(git -C work/linux rev-parse series) && import_next &&
	{ rebase.sh >/dev/null 2>&1 || true; } && resolve_one && rm series/commit-msgs/two &&
	must_fail rebase.sh --continue && must_say "commit-msgs/two is missing" &&
	must_fail rebase.sh --skip && must_say "commit-msgs/two is missing" &&
	test "$(git -C work/linux rev-parse series)" = "$old"
'

# Version 1.0-2 where patch one is upstream, and the first line of its
# context changed too: neither the patch nor its reverse applies, and the
# three-way merge comes out empty.
import_upstream_moved() {
	import_variant 1.0-2 1.0-2 "s/return 1/return 2/; s/^int alloc(void)$/int alloc(void) \/* moved *\//"
}

ok "a patch whose three-way merge comes out empty is named: left out (already upstream)" '
	setup && import_upstream_moved &&
	rebase.sh >out 2>&1; cat out &&
	must_say "patch 1/3 .one.: .*left out \(already upstream\)" out &&
	test "$(git -C work/linux rev-list --count base/1.0-2..series)" = 2 &&
	must_say "^# one: left out .*already upstream" series/series.txt && test -f series/patches/one.diff
'

# Version 1.0-2 with only the Makefile changed: every patch applies.
import_plain_next() { import_variant 1.0-2 1.0-2 ""; }

# A git that logs its calls and hangs at the Nth one matching a shell
# pattern (the arguments after "git"), once, for interrupt_when.
# usage: hanging_git PATTERN N
hanging_git() {
	local real
	real=$(command -v git) && mkdir -p bin &&
	cat >bin/git <<-EOF &&
	#!/bin/sh
	echo "git \$*" >>"$PWD/git.log"
	case "\$*" in
	${1// /\\ }) echo x >>"$PWD/matched"
		if [ "\$(wc -l <"$PWD/matched")" -eq $2 ]; then echo HANG >>"$PWD/git.log"; sleep 1000; fi ;;
	esac
	exec "$real" "\$@"
	EOF
	chmod +x bin/git
}

# Interrupt rebase.sh at the Nth git call matching PATTERN, then run
# rebase.sh with ARGS (--continue or --skip).  usage: cut_and_resume PATTERN N ARG
cut_and_resume() {
	setup && old=$(git -C work/linux diff base/1.0-1 series) && import_plain_next && hanging_git "$1" "$2" &&
	interrupt_when git.log "^HANG" env PATH="$PWD/bin:$PATH" rebase.sh &&
	grep -q "^HANG" git.log && rm -rf bin && test -d work/state/rebase-series &&
	rebase.sh "$3" >out 2>&1; rc=$?; cat out; test $rc -eq 0 && test ! -e work/state/rebase-series
}
# The rebased series: the same change on the new base, three commits.
rebased_as_before() {
	test "$(git -C work/linux diff base/1.0-2 series)" = "$old" &&
	test "$(git -C work/linux rev-list --count base/1.0-2..series)" = 3
}

ok "Ctrl-C as the rebase detaches HEAD: --continue completes it" '
	cut_and_resume "*checkout -q --detach*" 1 --continue &&
	rebased_as_before
'

ok "Ctrl-C while patch 2 is being applied: --continue completes the rebase" '
	cut_and_resume "*apply --index --3way*" 2 --continue &&
	rebased_as_before
'

ok "Ctrl-C just before patch 2 is committed: --continue completes the rebase" '
	cut_and_resume "*commit -q --no-verify*" 2 --continue &&
	rebased_as_before
'

ok "Ctrl-C while the series files are exported: --continue completes the rebase" '
	cut_and_resume "*diff --no-color --no-ext-diff*" 2 --continue &&
	test "$(git -C work/linux diff base/1.0-2 series)" = "$old" &&
	printf "one\ntwo\nthree\n" | diff - series/series.txt
'

ok "Ctrl-C just before patch 2 is committed: --skip leaves patch 2 out" '
	cut_and_resume "*commit -q --no-verify*" 2 --skip &&
	git -C work/linux log --format=%s base/1.0-2..series >log &&
	printf "%s\n" "gfp: Define GFP_ATOMIC" "mm/page_alloc: Return two" | diff - log &&
	test -f series/patches/two.diff
'

# Two kernel lines side by side, as Debian 12 ships 6.1 and 6.12: a
# tarball of line 2.0 (major.minor), version 2.0-1~deb1u1 (tag form
# base/2.0-1_deb1u1), whose alloc() returns 4: patch one conflicts there.
import_line() { import_variant "2.0-1~deb1u1" 2.0-1 "s/return 1/return 4/"; }
base_is() { (. "$T_TOP/scripts/lib/lib.sh" && test "$(base_tag)" = "$1"); }

ok "a series whose base file names its base stays on it when another kernel line is imported" '
	setup && echo base/1.0-1 >series/base && old=$(git -C work/linux rev-parse series) && import_line &&
	base_is base/1.0-1 && replay.sh 2>/dev/null && test "$(git -C work/linux rev-parse series)" = "$old" &&
	BASE=base/2.0-1_deb1u1 base_is base/2.0-1_deb1u1 &&
	rm series/base && base_is base/2.0-1_deb1u1
'

ok "a base file naming a kernel line follows that line's newest import, never another line's" '
	setup && echo base/1.0 >series/base && import_line && base_is base/1.0-1 &&
	import_plain_next && base_is base/1.0-2 &&
	echo base/3.0 >series/base && must_fail replay.sh && must_say "series/base: no base of kernel line base/3.0 is imported" &&
	echo base/1.0 >series/base && { rebase.sh >/dev/null 2>&1 || true; } && test "$(cat series/base)" = base/1.0
'

ok "a base file naming a base not imported stops, naming the file and the import to run" '
	setup && echo base/2.0-1_deb1u1 >series/base &&
	must_fail replay.sh && must_say "series/base: base/2.0-1_deb1u1 is not imported" &&
	must_say "make import TARBALL=/usr/src/linux-source-2.0.tar.xz SOURCE_VERSION=2.0-1~deb1u1" &&
	echo "base/1.0-1 and more" >series/base && must_fail replay.sh && must_say "series/base: .*one base tag"
'

ok "export into a directory without a base file writes the base the branch is on" '
	setup && import_line && git -C work/linux branch -q mine series &&
	SERIES_DIR=$PWD/mine BRANCH=mine export.sh 2>/dev/null && test "$(cat mine/base)" = base/1.0-1 &&
	echo base/1.0-1 >series/base && export.sh 2>/dev/null && test "$(cat series/base)" = base/1.0-1
'

ok "make rebase stays within the series line: the newest base of its major.minor, and the base file follows" '
	setup && echo base/1.0-1 >series/base && import_line && import_plain_next &&
	rebase.sh >out 2>&1; cat out && must_say "onto base/1.0-2" out &&
	git -C work/linux merge-base --is-ancestor base/1.0-2 series && test "$(cat series/base)" = base/1.0-2
'

ok "a rebase stopped at a conflict, or abandoned, leaves the base file as it was; completed, it moves" '
	setup && echo base/1.0-1 >series/base && import_next && { rebase.sh >/dev/null 2>&1 || true; } &&
	test -d work/state/rebase-series && test "$(cat series/base)" = base/1.0-1 &&
	rebase.sh --abort 2>/dev/null && test "$(cat series/base)" = base/1.0-1 &&
	{ rebase.sh >/dev/null 2>&1 || true; } && resolve_one && rebase.sh --continue 2>/dev/null &&
	test "$(cat series/base)" = base/1.0-2
'

ok "a rebase onto another kernel line without NEW_SERIES_DIR is refused, and nothing moves" '
	setup && old=$(git -C work/linux rev-parse series) && import_line && cp -r series before &&
	BASE=base/2.0-1_deb1u1 must_fail rebase.sh &&
	must_say "another kernel line .*NEW_SERIES_DIR" &&
	test "$(git -C work/linux rev-parse series)" = "$old" && test ! -e work/state/rebase-series && diff -r before series
'

ok "a rebase onto another kernel line writes the new series directory, with its own base file, and leaves the old one" '
	setup && echo base/1.0-1 >series/base && mkdir -p series/mail && echo cover >series/mail/cover-letter.txt &&
	import_line && cp -r series before && old=$(git -C work/linux rev-parse series) &&
	{ BASE=base/2.0-1_deb1u1 NEW_SERIES_DIR=next rebase.sh >/dev/null 2>&1 || true; } &&
	sed -i "/^<<<<<<< /,/^=======/d; /^>>>>>>> /d" work/linux/mm/page_alloc.c &&
	rebase.sh --continue >out 2>&1; cat out && diff -r before series &&
	test "$(cat next/base)" = base/2.0-1_deb1u1 && printf "one\ntwo\nthree\n" | diff - <(grep -v "^#" next/series.txt) &&
	cmp series/mail/cover-letter.txt next/mail/cover-letter.txt &&
	test "$(git -C work/linux rev-parse series)" = "$old" && test "$(cat next/branch)" = series-2.0 &&
	t=$(git -C work/linux rev-parse "series-2.0^{tree}") && git -C work/linux branch -D -q series-2.0 &&
	SERIES_DIR=$PWD/next replay.sh 2>/dev/null && test "$(git -C work/linux rev-parse "series-2.0^{tree}")" = "$t" &&
	mkdir -p full && echo x >full/x && BASE=base/1.0-1 NEW_SERIES_DIR=full must_fail rebase.sh &&
	must_say "NEW_SERIES_DIR=full: .*not empty"
'

ok "SKIP=1 in a rebase into NEW_SERIES_DIR keeps the skipped patch's files in both directories" '
	setup && import_line && { BASE=base/2.0-1_deb1u1 NEW_SERIES_DIR=next rebase.sh >/dev/null 2>&1 || true; } &&
	rebase.sh --skip 2>/dev/null && printf "two\nthree\n" | diff - <(grep -v "^#" next/series.txt) &&
	must_say "^# one: left out by make rebase onto base/2.0-1_deb1u1 \(skipped with SKIP=1\), its files kept$" next/series.txt &&
	cmp one.diff next/patches/one.diff && cmp series/commit-msgs/one next/commit-msgs/one &&
	cmp one.diff series/patches/one.diff && grep -qx one series/series.txt
'

ok "a patch with an Upstream-commit trailer that conflicts on the new base is left out as already upstream, its files kept" '
	setup && printf "\nUpstream-commit: 0123456789abcdef (\"mm/page_alloc: Return two\")\n" >>series/commit-msgs/one &&
	cp series/commit-msgs/one msg.one && import_next &&
	rebase.sh >out 2>&1; rc=$?; cat out; test $rc -eq 0 &&
	must_say "patch 1/3 .one.: already upstream as 0123456789abcdef \(\"mm/page_alloc: Return two\"\); left out" out &&
	must_say "^# one: left out by make rebase onto base/1.0-2 \(already upstream as 0123456789abcdef" series/series.txt &&
	printf "two\n" | diff - <(grep -v "^#" series/series.txt) &&
	cmp one.diff series/patches/one.diff && cmp msg.one series/commit-msgs/one &&
	test -z "$(git -C work/linux status --porcelain --untracked-files=no)"
'

ok "an Upstream: paragraph, as the series here writes them, is no trailer: the conflict still stops" '
	setup && printf "\nUpstream: mainline still returns one as of\nv6.12.\n" >>series/commit-msgs/one && import_next &&
	must_fail rebase.sh && must_say "patch 1/3 .one. .*conflicts"
'

# Someone else's series: a directory of its own, on a branch of its own.
other_series() {
	mkdir -p other && : >other/series.txt && SERIES_DIR=$PWD/other &&
	patch_from a "mm: return five" mm/page_alloc.c "s/return 1/return 5/" &&
	patch_from b "gfp: define GFP_NOFS" include/gfp.h "\$a #define GFP_NOFS 2"
}

ok "make check runs on another series directory, on a branch of its own" '
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git clone -q work/linux scratch && git -C scratch -c advice.detachedHead=false checkout -q base/1.0-1 &&
	other_series && export PATH=$T_TOP/tests/fake:$PATH FAKE_MAKE_LOG=$PWD/make.log FAKE_QEMU_LOG=$PWD/qemu.log \
		CHECK_BOOTS="kunit|" BOOT_TIMEOUT=5 BRANCH=other &&
	check.sh >table 2>/dev/null; cat table &&
	must_say "mm: return five .* pass" table && must_say "gfp: define GFP_NOFS .* pass" table &&
	git -C work/linux rev-parse -q --verify refs/heads/other && ! git -C work/linux rev-parse -q --verify refs/heads/series
'

ok "a series directory names its branch in its file branch: replay moves that one, not series" '
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git clone -q work/linux scratch && git -C scratch -c advice.detachedHead=false checkout -q base/1.0-1 &&
	other_series && echo other-line >other/branch && replay.sh 2>/dev/null &&
	git -C work/linux rev-parse -q --verify refs/heads/other-line && ! git -C work/linux rev-parse -q --verify refs/heads/series &&
	echo "bad/name" >other/branch && must_fail replay.sh && must_say "BRANCH=bad/name"
'

ok "line-status.sh tells each patch carried, ported, upstream with its commit, or not carried yet" '
	setup && echo base/1.0 >series/base && mkdir -p next/dropped next/patches && echo base/2.0 >next/base &&
	printf "# two is carried\ntwo\nfour\n# one: not carried yet\n" >next/series.txt &&
	printf "s\n\nUpstream-commit: 0123456789ab (\"x\")\n" >next/dropped/three.msg &&
	patch_from four "mm: four" mm/page_alloc.c "s/return 2/return 4/" &&
	sed "s/^@@ -\([0-9]*\)/@@ -9\1/; s/^index .*/index 1..2/" series/patches/two.diff >next/patches/two.diff &&
	! cmp -s series/patches/two.diff next/patches/two.diff &&
	sed "s/return 4/return 5/" series/patches/four.diff >next/patches/four.diff &&
	line-status.sh next >table && cat table &&
	must_say "^\\| 1 \\| one \\| carried \\| not carried yet \\|$" table && must_say "^\\| 2 \\| two \\| carried \\| carried \\|$" table &&
	must_say "^\\| 3 \\| three \\| carried \\| upstream, 0123456789ab \\|$" table && must_say "^\\| # \\| patch \\| 1.0 \\| 2.0 \\|$" table &&
	must_say "^\\| 4 \\| four \\| carried \\| ported \\|$" table
'

ok "a branch made by hand exports into a new series directory, which replays to the same tree" '
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git -C work/linux checkout -q -b mine base/1.0-1 &&
	sed -i "s/return 1/return 9/" work/linux/mm/page_alloc.c &&
	git -C work/linux -c user.name=x -c user.email=x@x commit -qam "mm: by hand" -m "Because." &&
	t=$(git -C work/linux rev-parse "mine^{tree}") && git -C work/linux checkout -q --detach &&
	SERIES_DIR=$PWD/mine BRANCH=mine export.sh 2>/dev/null && must_say "^mm-by-hand$" mine/series.txt &&
	git -C work/linux branch -D -q mine && SERIES_DIR=$PWD/mine BRANCH=mine replay.sh 2>/dev/null &&
	test "$(git -C work/linux rev-parse "mine^{tree}")" = "$t"
'

ok "make mail on another series asks for that series' own cover letter" '
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git clone -q work/linux scratch && git -C scratch -c advice.detachedHead=false checkout -q base/1.0-1 &&
	other_series && export BRANCH=other SERIES_AUTHOR_NAME="A U Thor" SERIES_AUTHOR_EMAIL=author@example.com &&
	must_fail mail.sh 1 && must_say "other/mail/cover-letter.txt: no cover letter for the series"
'

ok "make check runs on a branch made by hand in the kernel tree" '
	make_tarball && fixture_env && import.sh 2>/dev/null && mkdir -p series && : >series/series.txt &&
	export PATH=$T_TOP/tests/fake:$PATH FAKE_MAKE_LOG=$PWD/make.log FAKE_QEMU_LOG=$PWD/qemu.log \
		CHECK_BOOTS="kunit|" BOOT_TIMEOUT=5 &&
	git -C work/linux checkout -q -b mine base/1.0-1 &&
	sed -i "s/return 1/return 9/" work/linux/mm/page_alloc.c &&
	git -C work/linux -c user.name=x -c user.email=x@x commit -qam "mm: by hand" &&
	check.sh base/1.0-1..mine >table 2>/dev/null; cat table &&
	must_say "mm: by hand .* pass" table
'
done_testing
