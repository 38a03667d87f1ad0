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

done_testing
