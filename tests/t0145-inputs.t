#!/usr/bin/env bash
# Inputs are data: what the user, the series files or the kernel tree
# give reaches commands as arguments, never as code, and every setting
# of a fixed form is checked before any work, the error naming it.
# Fixture trees and stand-ins only: nothing here builds or boots a kernel.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# A version that ran a shell command through mail.sh's sed program.
export HOSTILE=';touch${IFS}pwned5;#/e#'

# An imported fixture tree, a scratch clone to make patches in, an empty
# series, and the fake make and QEMU, which log every call.
setup() {
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	export PATH=$T_TOP/tests/fake:$PATH FAKE_MAKE_LOG=$PWD/make.log FAKE_QEMU_LOG=$PWD/qemu.log &&
	: >make.log && : >qemu.log &&
	git clone -q work/linux scratch && git -C scratch checkout -q base/1.0-1 &&
	mkdir -p series && : >series/series.txt
}
# usage: patch_from NAME SUBJECT SED-EXPR   (a patch of mm/page_alloc.c)
patch_from() {
	sed -i "$3" scratch/mm/page_alloc.c &&
	git -C scratch diff --full-index >"$1.diff" &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qam "$2" &&
	add_patch "$1" "$2" "$1.diff"
}
# Two measurement files and the record make bench leaves of them.
bench_results() {
	mkdir -p "$1" &&
	printf '{"samples": {"alloc-o0-pair-z0": [100, 101, 102]}}\n' >"$1/a.json" &&
	printf '{"samples": {"alloc-o0-pair-z0": [90, 91, 92]}}\n' >"$1/b.json" &&
	jq -n --arg a "base=$1/a.json" --arg b "tip=$1/b.json" '{inputs: [$a, $b]}' >"$1/bench-latest.json"
}
# A stand-in for b4: the cover letter goes where FAKE_B4_COVER says, by
# the EDITOR mail.sh gives (split as b4 splits it), and send -o writes one
# mail per patch and one for the cover letter.
fake_b4() {
	mkdir -p bin && cat >bin/b4 <<-\EOF
	#!/usr/bin/env bash
	case " $* " in
	*" --edit-cover "*)
		exec python3 -c 'import shlex, subprocess, sys; sys.exit(subprocess.call(shlex.split(sys.argv[1]) + [sys.argv[2]]))' \
			"$EDITOR" "$FAKE_B4_COVER" ;;
	*" send "*)
		while [[ $1 != -o ]]; do shift; done
		n=$(($(git rev-list --count pagealloc-base..HEAD) + 1))
		for ((i = 0; i < n; i++)); do echo "Subject: $i" >"$2/$i.eml"; done ;;
	esac
	EOF
	chmod +x bin/b4
}

ok "a hostile base version appears literally in the cover letter and runs nothing" '
	make_tarball && d=$(mktemp -d) && tar -xJf linux-source-6.1.tar.xz -C "$d" &&
	mkdir "$d/linux-source-6.1/scripts" &&
	printf "%s\n" "print \"Ann Maintainer <ann\@example.org> (maintainer:MM)\\n\";" \
		"print \"linux-mm\@kvack.org (open list:MM)\\n\";" >"$d/linux-source-6.1/scripts/get_maintainer.pl" &&
	tar -C "$d" -cJf linux-source-6.1.tar.xz linux-source-6.1 && rm -rf "$d" &&
	fixture_env && import.sh 2>/dev/null &&
	git -C work/linux tag "base/$HOSTILE" base/1.0-1 && export BASE=base/$HOSTILE &&
	git clone -q work/linux scratch && git -C scratch checkout -q base/1.0-1 &&
	mkdir -p series/mail && : >series/series.txt &&
	patch_from one "mm/page_alloc: Return two" "s/return 1/return 2/" &&
	printf "%s\n" "Based on linux-source-6.1 @DEBVER@, upstream @UPSTREAM@," "binary linux-image-@DEBABI@." \
		"" "@TABLE@" >series/mail/cover-letter.txt &&
	bench_results "$WORK/results-bench" && fake_b4 &&
	export PATH=$PWD/bin:$PATH FAKE_B4_COVER=$PWD/cover.txt APT_CACHE=false &&
	mail.sh 1 && cat cover.txt &&
	grep -qxF "Based on linux-source-6.1 $HOSTILE, upstream v$HOSTILE," cover.txt &&
	grep -qxF "binary linux-image- $HOSTILE." cover.txt &&
	must_say "^alloc-o0-pair-z0 " cover.txt &&
	test -z "$(find . "$WORK" -name "pwned*")"
'

ok "fill-cover.sh puts values in literally and once, and files in place of their lines" '
	printf "%s\n" "v @DEBVER@ @DEBVER@ @UPSTREAM@ a@b.c @OTHER@" "@TABLE@" "@TABLE@ not alone" >letter &&
	printf "row 1\nrow 2\n" >table &&
	fill-cover.sh --file TABLE=table --text "DEBVER=& \\1 @UPSTREAM@ $HOSTILE" --text UPSTREAM=v6 letter >out &&
	printf "%s\n" "v & \\1 @UPSTREAM@ $HOSTILE & \\1 @UPSTREAM@ $HOSTILE v6 a@b.c @OTHER@" "row 1" "row 2" \
		"@TABLE@ not alone" | diff - out && test ! -e pwned5
'

# judge.sh on two sets of samples: the tested one 50% slower, well beyond
# the noise.
judge_setup() {
	printf '{"samples": {"free-o0-pair-z0": [100, 101, 99, 100]}}\n' >good.json &&
	printf '{"samples": {"free-o0-pair-z0": [150, 151, 149, 150]}}\n' >tested.json
}

ok "THRESHOLD=5% is five percent: a +50% regression is judged bad" '
	judge_setup && WORK=$PWD/work &&
	{ THRESHOLD=5% "$T_TOP/bisect/judge.sh" good.json tested.json free-o0-pair-z0 >out 2>&1; test $? -eq 1; } &&
	must_say "^bad: .*5% threshold" out
'

ok "THRESHOLD=abc is never a verdict of the judge" '
	judge_setup && WORK=$PWD/work &&
	{ THRESHOLD=abc "$T_TOP/bisect/judge.sh" good.json tested.json free-o0-pair-z0 >out 2>&1; test $? -eq 2; } &&
	must_say "THRESHOLD=abc" out && ! must_say "^(good|bad):" out >/dev/null
'

ok "make bisect THRESHOLD=abc stops before anything is built or bisected" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh 2>/dev/null &&
	must_fail "$T_TOP/bisect/run.sh" base/1.0-1 series free-o0-pair-z0 abc &&
	must_say "THRESHOLD=abc: a percentage" && test ! -s make.log && test ! -d work/bisect
'

ok "BRANCH=feat/x is refused before replay makes a branch, and again on the rerun" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	{ BRANCH=feat/x must_fail replay.sh; } && must_say "BRANCH=feat/x: .*no .?/" &&
	{ BRANCH=feat/x must_fail replay.sh; } && must_say "BRANCH=feat/x: .*no .?/" &&
	test -z "$(git -C work/linux branch --list "feat/*")"
'

ok "BRANCH=HEAD is refused and no branch HEAD is made" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	{ BRANCH=HEAD must_fail replay.sh; } && must_say "BRANCH=HEAD" &&
	! git -C work/linux show-ref -q --verify refs/heads/HEAD
'

ok "a BRANCH that names a tag of the kernel tree is refused" '
	setup && git -C work/linux tag v1.0 base/1.0-1 &&
	{ BRANCH=v1.0 must_fail replay.sh; } && must_say "BRANCH=v1.0: .*tag"
'

ok "a plain BRANCH name still replays" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	BRANCH=feat-x.2 replay.sh 2>/dev/null && git -C work/linux show-ref -q --verify refs/heads/feat-x.2
'

# import.sh with a tar that logs its calls: the unpack is the long part.
logging_tar() {
	mkdir -p bin && printf "#!/bin/sh\necho tar >>\"%s/tar.log\"\nexec /bin/tar \"\$@\"\n" "$PWD" >bin/tar &&
	chmod +x bin/tar && export PATH=$PWD/bin:$PATH
}
# A dpkg-query that says linux-source-6.1 6.1.192-3 is installed, with the
# file given as its tarball.
fake_dpkg_query() {
	mkdir -p bin && cat >bin/dpkg-query <<-EOF && chmod +x bin/dpkg-query && export PATH=$PWD/bin:$PATH
	#!/bin/sh
	case "\$1" in
	-W) printf 6.1.192-3 ;;
	-L) echo /usr/src; echo "$1" ;;
	*) exit 1 ;;
	esac
	EOF
}

ok "an invalid SOURCE_VERSION is found before anything is unpacked" '
	make_tarball && fixture_env "1.0..2" && logging_tar &&
	must_fail import.sh && must_say "SOURCE_VERSION=1.0..2" && test ! -e tar.log &&
	{ SOURCE_VERSION="1.0 2" must_fail import.sh; } && must_say "SOURCE_VERSION=1.0 2: not a Debian version" &&
	test ! -e tar.log
'

ok "a TARBALL given without SOURCE_VERSION is not tagged with the installed package version" '
	make_tarball && fixture_env && unset SOURCE_VERSION && fake_dpkg_query /usr/src/linux-source-6.1.tar.xz &&
	logging_tar && must_fail import.sh && must_say "TARBALL=.*SOURCE_VERSION" &&
	test ! -e tar.log && ! git -C work/linux rev-parse -q --verify base/6.1.192-3 2>/dev/null
'

ok "the installed package's own tarball still imports with the package version" '
	make_tarball && fixture_env && unset SOURCE_VERSION && fake_dpkg_query "$PWD/linux-source-6.1.tar.xz" &&
	import.sh 2>/dev/null && git -C work/linux rev-parse -q --verify base/6.1.192-3
'

ok "a bad range among good revisions is an error naming it, before any build" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	must_fail check.sh base/1.0-1 nosuch..series && must_say "REVS: .nosuch\.\.series. is not a range" &&
	must_fail check.sh series..base/1.0-1 base/1.0-1 && must_say "REVS: .series\.\.base/1\.0-1. holds no commits" &&
	test ! -s make.log
'

ok "RUN=kunitt stops boot.sh before anything is built or booted" '
	setup && must_fail boot.sh --run kunitt base/1.0-1 && must_say "unknown step .kunitt." &&
	must_say "the steps are .*kunit.* roots" && test ! -s make.log && test ! -s qemu.log
'

ok "tbench on check kernels stops measure.sh before anything is built or booted" '
	setup && KFLAVOR=check BENCH_STEPS=hackbench,tbench must_fail measure.sh base/1.0-1 &&
	must_say "tbench needs TCP/IP, which the check kernel leaves out" && test ! -s make.log && test ! -s qemu.log
'

ok "MATRIX_JOBS=0 stops the matrix before anything is compiled" '
	setup && MATRIX_JOBS=0 must_fail matrix.sh base/1.0-1 && must_say "MATRIX_JOBS=0: give the number of configs" &&
	test ! -s make.log
'

ok "make rebase ABORT=0 does not abort, ABORT=1 does, ABORT=yes stops make" '
	make -s -n -C "$T_TOP" rebase ABORT=0 >out && grep -q "rebase.sh *$" out &&
	make -s -n -C "$T_TOP" rebase ABORT=1 >out && grep -q "rebase.sh --abort$" out &&
	must_fail make -s -n -C "$T_TOP" rebase ABORT=yes && must_say "ABORT=yes: give ABORT=1 or ABORT=0" &&
	! must_say "deps.sh" >/dev/null
'

ok "make step-lines LINES=0 asks for no lines, LINES=x stops make" '
	make -s -n -C "$T_TOP" step-lines REV=x LINES=0 >out && ! grep -q -- --lines out &&
	make -s -n -C "$T_TOP" step-lines REV=x LINES=1 >out && grep -q -- "step-lines.sh --lines x" out &&
	must_fail make -s -n -C "$T_TOP" step-lines REV=x LINES=x && must_say "LINES=x: give LINES=1 or LINES=0"
'

ok "NO_REPLAY=yes is refused, not read as 0" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	{ NO_REPLAY=yes must_fail check.sh; } && must_say "NO_REPLAY=yes" &&
	! git -C work/linux show-ref -q --verify refs/heads/series && test ! -s make.log
'

ok "REROLL=abc stops make mail before any work" '
	fixture_env && must_fail mail.sh abc && must_say "REROLL=abc" && test ! -d work/linux
'

ok "a relative SERIES_DIR is read from the caller directory" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	SERIES_DIR=series replay.sh 2>/dev/null && git -C work/linux show series:mm/page_alloc.c | grep -q "return 2"
'

# Bash arithmetic evaluates a value as an expression: the subscript runs
# the command in it (of a variable that is set, so that set -u does not
# stop it first).  Each setting that counts, and a script that reads it.
export HOSTILE_NUM='PATH[$(touch pwned)]'
ok "a setting that counts, given PATH[\$(touch pwned)], is refused by name before any work, and runs nothing" '
	setup && patch_from one "mm: one" "s/return 1/return 2/" && replay.sh 2>/dev/null && export KFLAVOR=check && n=0 &&
	for t in "BENCH_K measure.sh base/1.0-1" "BENCH_JOBS measure.sh base/1.0-1" \
		"BENCH_ZERO_K measure-sets.sh base/1.0-1" "BENCH_PROFILE_K measure-sets.sh base/1.0-1" \
		"BENCH_K bench.sh" "BENCH_ZERO_K bench.sh" "BENCH_PROFILE_K bench.sh" "BENCH_JOBS bench.sh" \
		"BENCH_PROFILE_K profile.sh base/1.0-1" "BENCH_CONTEND_K contend.sh base/1.0-1" \
		"BENCH_ZERO_K figures.sh" "BENCH_K changelog-figures.sh series" \
		"BENCH_K $T_TOP/bisect/run.sh base/1.0-1 series alloc-o0-pair-z0" \
		"BISECT_TIMEOUT $T_TOP/bisect/run.sh base/1.0-1 series boot" \
		"JOBS build.sh base/1.0-1" "JOBS matrix.sh base/1.0-1" "STEP_SKIP step.sh base/1.0-1" \
		"STEP_SKIP lock-held.sh base/1.0-1" "PROFILE_LOOPS profile-vs-step.sh base/1.0-1" \
		"BOOT_TIMEOUT boot.sh base/1.0-1"; do
		set -- $t && v=$1 && shift && n=$((n + 1)) &&
		if env "$v=$HOSTILE_NUM" "$@" >out.$n 2>&1; then echo "$v $*: it ran"; cat out.$n; exit 1; fi &&
		{ must_say "$v.*PATH\[\\\$\(touch pwned\)\]" out.$n || { echo "($v $*)"; exit 1; }; }
	done &&
	test ! -s make.log && test ! -s qemu.log && test -z "$(find . "$WORK" -name "pwned*")"
'

done_testing
