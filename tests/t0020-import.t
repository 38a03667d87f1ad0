#!/usr/bin/env bash
# Import: a tarball becomes a git tree with one tagged base commit.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

ok "import commits every file, even those the tarball's .gitignore ignores" '
	make_tarball && fixture_env &&
	import.sh &&
	git -C work/linux ls-tree -r --name-only base/1.0-1 >files &&
	must_say "^mm/page_alloc.c$" files && must_say "^include/gfp.h$" files &&
	must_say "^\.gitignore$" files && test "$(wc -l <files)" -eq 4
'

ok "import tags the base with the package version and checks it out" '
	make_tarball && fixture_env 6.1.192-3 &&
	import.sh &&
	test "$(git -C work/linux describe --tags)" = base/6.1.192-3 &&
	test -f work/linux/mm/page_alloc.c
'

ok "a second import of the same version does nothing" '
	make_tarball && fixture_env &&
	import.sh && git -C work/linux rev-parse HEAD >before &&
	import.sh 2>out && must_say "already imported" out &&
	git -C work/linux rev-parse HEAD | cmp - before
'

ok "a new package version becomes a second base beside the first" '
	make_tarball 1.0-1 && fixture_env 1.0-1 && import.sh &&
	make_tarball 1.0-2 && fixture_env 1.0-2 && import.sh &&
	git -C work/linux tag -l "base/*" >tags &&
	must_say "^base/1.0-1$" tags && must_say "^base/1.0-2$" tags
'

ok "a missing tarball is named in the error" '
	fixture_env && export TARBALL=$PWD/nowhere.tar.xz &&
	must_fail import.sh && must_say "nowhere.tar.xz: missing" && test ! -d work/linux/.git
'

ok "an interrupted import leaves no base behind and the rerun completes" '
	make_tarball && fixture_env &&
	{ PATH=$PWD/bin:$PATH; mkdir bin; printf "#!/bin/sh\nkill -INT \$PPID; exit 1\n" >bin/tar; chmod +x bin/tar; } &&
	! (import.sh) 2>/dev/null; rm -rf bin &&
	! git -C work/linux rev-parse -q --verify base/1.0-1 &&
	import.sh && git -C work/linux rev-parse -q --verify base/1.0-1
'

ok "import over a directory that is not a git tree refuses, names it, and touches nothing" '
	make_tarball && fixture_env && mkdir -p work/linux/mm && echo precious >work/linux/notes.txt &&
	echo mine >work/linux/mm/page_alloc.c &&
	must_fail import.sh && must_say "work/linux holds files and is not a git tree" &&
	test ! -e work/linux/.git && test "$(cat work/linux/notes.txt)" = precious &&
	test "$(cat work/linux/mm/page_alloc.c)" = mine
'

# A git whose checkout runs out of disk half way: some files written, one
# not, and an error.
full_disk_git() {
	local real
	real=$(command -v git) && mkdir -p bin &&
	cat >bin/git <<-EOF &&
	#!/bin/sh
	case " \$* " in
	*" checkout "*" -f "*) "$real" "\$@" || exit; rm -f "\$2/mm/page_alloc.c"
		echo "error: unable to write file mm/page_alloc.c: No space left on device" >&2; exit 128 ;;
	esac
	exec "$real" "\$@"
	EOF
	chmod +x bin/git
}

ok "a checkout that fails (disk full) leaves no base tag, and the rerun completes the import" '
	make_tarball && fixture_env && full_disk_git &&
	(PATH=$PWD/bin:$PATH; must_fail import.sh) && must_say "No space left on device" && must_say "nothing was tagged" &&
	! git -C work/linux rev-parse -q --verify refs/tags/base/1.0-1 &&
	import.sh 2>out && cat out && ! must_say "already imported" out &&
	git -C work/linux rev-parse -q --verify refs/tags/base/1.0-1 && test -f work/linux/mm/page_alloc.c &&
	test -z "$(git -C work/linux status --porcelain)"
'

ok "a base tag whose checkout never happened is imported again, not taken as done" '
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git -C work/linux symbolic-ref HEAD refs/heads/main && rm work/linux/mm/page_alloc.c &&
	import.sh 2>out && cat out && must_say "did not finish" out &&
	test -f work/linux/mm/page_alloc.c && test "$(git -C work/linux describe --tags)" = base/1.0-1
'

ok "a tarball without a top-level directory is refused, and no base is tagged" '
	d=$(mktemp -d) && printf "VERSION = 1\n" >"$d/Makefile" && mkdir "$d/mm" && echo x >"$d/mm/page_alloc.c" &&
	tar -C "$d" -cJf flat.tar.xz Makefile mm && rm -rf "$d" && fixture_env && export TARBALL=$PWD/flat.tar.xz &&
	must_fail import.sh && must_say "no Makefile at the top of its tree" &&
	test -z "$(git -C work/linux tag -l 2>/dev/null)"
'

ok "a tar that floods errors (disk full) ends in a few lines and one summary" '
	make_tarball && fixture_env && mkdir bin &&
	{ echo "#!/bin/sh"; echo "seq 46859 | sed \"s/.*/tar: file&: Cannot write: No space left on device/\" >&2; exit 2"; } >bin/tar &&
	chmod +x bin/tar &&
	(PATH=$PWD/bin:$PATH; must_fail import.sh) &&
	test "$(wc -l <fail.out)" -le 8 && must_say "46859 lines of errors" &&
	test -z "$(git -C work/linux tag -l 2>/dev/null)"
'

ok "a second import refuses to throw away uncommitted edits in the tree" '
	make_tarball 1.0-1 && fixture_env 1.0-1 && import.sh 2>/dev/null && echo "/* mine */" >>work/linux/mm/page_alloc.c &&
	make_tarball 1.0-2 && fixture_env 1.0-2 && must_fail import.sh && must_say "uncommitted changes" &&
	grep -q mine work/linux/mm/page_alloc.c
'

ok "a series on another kernel line imports that line's source package" '
	mkdir -p series && echo base/6.12 >series/base && export WORK=$PWD/work SERIES_DIR=$PWD/series &&
	unset TARBALL SOURCE_VERSION SOURCE_PKG && export PATH=$PWD/bin:$PATH && mkdir bin &&
	printf "#!/bin/sh\nexit 1\n" >bin/dpkg-query && chmod +x bin/dpkg-query &&
	must_fail import.sh && must_say "package linux-source-6.12 is not installed" &&
	rm series/base && must_fail import.sh && must_say "package linux-source-6.1 is not installed"
'

ok "make deps installs the source and configs of the series' kernel line" '
	mkdir -p series bin && echo base/6.12.118-1_deb12u1 >series/base && export PATH=$PWD/bin:$PATH &&
	printf "#!/bin/sh\nexit 1\n" >bin/dpkg-query && printf "#!/bin/sh\necho \"\$*\" >>%s\n" "$PWD/apt.log" >bin/apt-get &&
	printf "#!/bin/sh\n\"\$@\"\n" >bin/sudo && printf "#!/bin/sh\n" >bin/systemctl && chmod +x bin/* &&
	SERIES_DIR=$PWD/series deps.sh 2>/dev/null && must_say " linux-source-6.12 linux-config-6.12 " apt.log &&
	: >apt.log && SERIES_DIR=$PWD/nowhere deps.sh 2>/dev/null && must_say " linux-source-6.1 linux-config-6.1 " apt.log
'

ok "make deps stops and disables the services of the daemon packages it installs, and no other" '
	mkdir -p bin && export PATH=$PWD/bin:$PATH &&
	printf "#!/bin/sh\nexit 1\n" >bin/dpkg-query && printf "#!/bin/sh\n" >bin/apt-get &&
	printf "#!/bin/sh\necho \"\$*\" >>%s\n" "$PWD/systemctl.log" >bin/systemctl &&
	printf "#!/bin/sh\n\"\$@\"\n" >bin/sudo && chmod +x bin/* &&
	deps.sh 2>/dev/null && sort systemctl.log >got &&
	printf "disable --now distcc\ndisable --now redis-server\ndisable --now ssh\n" | cmp - got &&
	printf "#!/bin/sh\necho \"install ok installed\"\n" >bin/dpkg-query && : >systemctl.log &&
	deps.sh && test ! -s systemctl.log
'

ok "a worktree of the kernel tree (a second line's) is a tree an import made, and imports there leave the main tree alone" '
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git -C work/linux worktree add -q --detach "$PWD/work/linux-2" base/1.0-1 &&
	KTREE=$PWD/work/linux-2 import.sh 2>out && must_say "already imported in .*linux-2" out &&
	h=$(git -C work/linux rev-parse HEAD) && make_tarball 1.0-2 && fixture_env 1.0-2 &&
	KTREE=$PWD/work/linux-2 import.sh 2>/dev/null &&
	test "$(git -C work/linux-2 describe --tags)" = base/1.0-2 && test "$(git -C work/linux rev-parse HEAD)" = "$h" &&
	git -C work/linux rev-parse -q --verify base/1.0-2
'

ok "a series on another kernel line gets a worktree of its own, made by its import, even one cut short" '
	make_tarball && fixture_env && import.sh 2>/dev/null && h=$(git -C work/linux rev-parse HEAD) &&
	mkdir -p other && echo base/2.0 >other/base && make_tarball 2.0-1 && fixture_env 2.0-1 && unset KTREE &&
	{ PATH=$PWD/bin:$PATH; mkdir bin; printf "#!/bin/sh\nkill -INT \$PPID; exit 1\n" >bin/tar; chmod +x bin/tar; } &&
	! (SERIES_DIR=$PWD/other import.sh) 2>/dev/null; rm -rf bin &&
	test -f work/linux-2.0/.git && ! git -C work/linux rev-parse -q --verify base/2.0-1 &&
	SERIES_DIR=$PWD/other import.sh 2>out && must_say "did not finish" out &&
	test "$(git -C work/linux-2.0 describe --tags)" = base/2.0-1 && test -f work/linux-2.0/mm/page_alloc.c &&
	test "$(git -C work/linux rev-parse HEAD)" = "$h" && git -C work/linux rev-parse -q --verify base/2.0-1 &&
	rm -rf work/linux work/linux-2.0 && SERIES_DIR=$PWD/other import.sh 2>/dev/null &&
	test -d work/linux-2.0/.git && test ! -e work/linux
'

ok "a series on the repository's own kernel line, or with no base file, works in the main tree" '
	fixture_env && unset KTREE && mkdir -p own && echo base/6.1 >own/base &&
	test "$(SERIES_DIR=$PWD/own bash -c ". $T_TOP/scripts/lib/lib.sh; echo \$KTREE")" = "$WORK/linux" &&
	test "$(SERIES_DIR=$PWD/none bash -c ". $T_TOP/scripts/lib/lib.sh; echo \$KTREE")" = "$WORK/linux" &&
	echo base/6.12 >own/base &&
	test "$(SERIES_DIR=$PWD/own bash -c ". $T_TOP/scripts/lib/lib.sh; echo \$KTREE")" = "$WORK/linux-6.12"
'

done_testing
