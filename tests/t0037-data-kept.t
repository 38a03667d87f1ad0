#!/usr/bin/env bash
# What the user made stays theirs: the author of each patch survives
# export, replay, check, rebase and mail, and the local identity only
# signs off and commits.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# The fixture base, and branch "theirs" of two commits by Test User (not
# the local identity, Test Er), the second signed off by its author.
their_branch() {
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git -C work/linux checkout -q -b theirs base/1.0-1 &&
	sed -i "s/return 1/return 4/" work/linux/mm/page_alloc.c &&
	GIT_AUTHOR_NAME="Test User" GIT_AUTHOR_EMAIL=tu@example.com git -C work/linux commit -qam "mm: Return four" -m "Why four." &&
	echo "#define GFP_DMA 4" >>work/linux/include/gfp.h &&
	GIT_AUTHOR_NAME="Test User" GIT_AUTHOR_EMAIL=tu@example.com git -C work/linux commit -qam "gfp: Define GFP_DMA" \
		-m "Signed-off-by: Test User <tu@example.com>" &&
	git -C work/linux checkout -q --detach &&
	export SERIES_DIR=$PWD/theirs BRANCH=theirs
}

# "Name <email>" of author and committer, one line a commit, oldest first.
people() { git -C work/linux log --reverse --format="%an <%ae>|%cn <%ce>" "base/1.0-1..$1"; }

ok "an exported commit by another author carries a From: line, a commit by the local identity none" '
	their_branch &&
	git -C work/linux checkout -q theirs && echo "/* mine */" >>work/linux/include/gfp.h &&
	git -C work/linux commit -qam "gfp: Mine" && git -C work/linux checkout -q --detach &&
	export.sh 2>/dev/null &&
	test "$(head -n2 theirs/commit-msgs/mm-return-four)" = "From: Test User <tu@example.com>" &&
	test "$(sed -n 3p theirs/commit-msgs/mm-return-four)" = "mm: Return four" &&
	test "$(head -n1 theirs/commit-msgs/gfp-mine)" = "gfp: Mine"
'

ok "make check of an exported branch replays every commit with its own author, the local identity commits and signs off" '
	their_branch && export.sh 2>/dev/null &&
	export PATH=$T_TOP/tests/fake:$PATH FAKE_MAKE_LOG=$PWD/make.log FAKE_QEMU_LOG=$PWD/qemu.log \
		CHECK_BOOTS="kunit|" BOOT_TIMEOUT=5 &&
	check.sh >table 2>/dev/null; cat table &&
	must_say "gfp: Define GFP_DMA .* pass" table &&
	people theirs >got && cat got &&
	printf "%s\n" "Test User <tu@example.com>|Test Er <t@example.org>" "Test User <tu@example.com>|Test Er <t@example.org>" | diff - got &&
	git -C work/linux log -1 --format=%B theirs >msg &&
	test "$(grep -v "^$" msg | tail -n2 | paste -sd"|")" = "Signed-off-by: Test User <tu@example.com>|Signed-off-by: Test Er <t@example.org>" &&
	! grep -q "^From:" msg
'

ok "replay of the authored files is deterministic, and export gives the files back byte for byte" '
	their_branch && export.sh 2>/dev/null && cp -r theirs orig &&
	replay.sh 2>/dev/null && first=$(git -C work/linux rev-parse theirs) &&
	git -C work/linux branch -D -q theirs && replay.sh 2>/dev/null &&
	test "$(git -C work/linux rev-parse theirs)" = "$first" &&
	export.sh 2>/dev/null && diff -r orig theirs
'

ok "a From: line that is not \"Name <email>\" and a blank line is refused, naming the file" '
	their_branch && export.sh 2>/dev/null &&
	sed -i "1s/.*/From: nobody/" theirs/commit-msgs/mm-return-four &&
	must_fail replay.sh && must_say "commit-msgs/mm-return-four: .*From: Name <email>"
'

# Version 1.0-2 of the tarball: only the Makefile differs.
import_next() {
	local d
	d=$(mktemp -d) && tar -C "$d" -xf linux-source-6.1.tar.xz &&
	sed -i "s/1.0-1/1.0-2/" "$d/linux-source-6.1/Makefile" &&
	tar -C "$d" -cJf next.tar.xz linux-source-6.1 && rm -rf "$d" &&
	TARBALL=$PWD/next.tar.xz SOURCE_VERSION=1.0-2 import.sh 2>/dev/null
}

ok "rebase keeps every patch's author" '
	their_branch && export.sh 2>/dev/null && replay.sh 2>/dev/null && import_next &&
	rebase.sh 2>/dev/null && git -C work/linux merge-base --is-ancestor base/1.0-2 theirs &&
	git -C work/linux log --reverse --format="%an <%ae>|%cn <%ce>" base/1.0-2..theirs >got && cat got &&
	printf "%s\n" "Test User <tu@example.com>|Test Er <t@example.org>" "Test User <tu@example.com>|Test Er <t@example.org>" | diff - got &&
	test "$(head -n1 theirs/commit-msgs/mm-return-four)" = "From: Test User <tu@example.com>"
'

# What make mail needs beyond the series: a cover letter, a measurement
# for its table, and a get_maintainer.pl in the tree (untracked, as the
# tarball's .gitignore hides it).
mail_fixture() {
	mkdir -p theirs/mail "$WORK/results-bench" work/linux/scripts &&
	printf "mm: a test series\n\nThe figures:\n\n@TABLE@\n" >theirs/mail/cover-letter.txt &&
	echo "{\"samples\": {\"alloc-o0-pair-z0\": [10, 11, 12]}}" >a.json &&
	echo "{\"samples\": {\"alloc-o0-pair-z0\": [9, 10, 11]}}" >b.json &&
	printf "{\"inputs\": [\"base=%s\", \"tip=%s\"]}\n" "$PWD/a.json" "$PWD/b.json" >"$WORK/results-bench/bench-latest.json" &&
	printf "%s\n" "print \"Ann Maintainer <ann@example.org> (maintainer:MEMORY MANAGEMENT)\\n\";" \
		"print \"linux-mm\@kvack.org (open list:MEMORY MANAGEMENT)\\n\";" >work/linux/scripts/get_maintainer.pl
}

if command -v b4 >/dev/null; then
ok "make mail sends each patch with its author: a From: line in the body, the sender in the header" '
	their_branch && export.sh 2>/dev/null && mail_fixture && export APT_CACHE=$T_TOP/tests/fake/apt-cache &&
	mail.sh 1 2>out || { cat out; exit 1; }
	mapfile -t mails < <(find work/mail/theirs/v1 -name "*.eml" | sort) && test ${#mails[@]} -eq 3 &&
	for m in "${mails[@]:1}"; do
		sed -n "/^$/,\$p" "$m" | grep -v "^$" | head -n1 | must_say "^From: Test User <tu@example.com>$" /dev/stdin &&
		must_say "^From: Test Er <t@example.org>$" "$m" || exit 1
	done &&
	git -C work/linux log --format="%an <%ae>" base/1.0-1..b4/theirs | sort -u | must_say "^Test User <tu@example.com>$" /dev/stdin
'
else
skip "make mail sends each patch with its author" "b4 is not installed"
fi

done_testing
