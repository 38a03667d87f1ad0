#!/usr/bin/env bash
# Replay and export: series files <-> commits in the kernel tree.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# An imported fixture tree and a scratch clone to make patches in.
setup() {
	make_tarball && fixture_env && import.sh 2>/dev/null &&
	git clone -q work/linux scratch && git -C scratch -c advice.detachedHead=false checkout -q base/1.0-1
}

# usage: patch_from NAME SUBJECT FILE SED-EXPR [TRAILER-LINE]
patch_from() {
	sed -i "$4" "scratch/$3" &&
	git -C scratch diff --full-index >"$1.diff" &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qam "$2" &&
	add_patch "$1" "$2" "$1.diff" "${5:-}"
}

three_patches() {
	setup &&
	patch_from one "mm/page_alloc: Return two" mm/page_alloc.c "s/return 1/return 2/" &&
	patch_from two "mm/page_alloc: Add a comment" mm/page_alloc.c "1i /* two */" &&
	patch_from three "gfp: Define GFP_ATOMIC" include/gfp.h "\$a #define GFP_ATOMIC 1"
}

ok "replay makes one commit per patch, in series order, on the base" '
	three_patches && replay.sh &&
	git -C work/linux log --format=%s base/1.0-1..series >log &&
	printf "%s\n" "gfp: Define GFP_ATOMIC" "mm/page_alloc: Add a comment" "mm/page_alloc: Return two" | diff - log &&
	git -C work/linux show series:mm/page_alloc.c | must_say "return 2" /dev/stdin
'

ok "replaying the same files twice gives the same commit ids" '
	three_patches && replay.sh && git -C work/linux rev-parse series >first &&
	git -C work/linux branch -D -q series && replay.sh &&
	git -C work/linux rev-parse series | diff - first
'

ok "replay then export gives the series files back byte for byte, and the base they are on" '
	three_patches && cp -r series orig && replay.sh && export.sh &&
	test "$(cat series/base)" = base/1.0-1 && rm series/base && diff -r orig series
'

ok "export picks up a commit amended in the kernel tree" '
	three_patches && replay.sh &&
	git -C work/linux checkout -q series &&
	echo "/* more */" >>work/linux/include/gfp.h &&
	git -C work/linux commit -q --amend -a -m "gfp: Define GFP_ATOMIC and more" -m "Signed-off-by: A <a@b.c>" &&
	export.sh 2>out && must_say "more" series/patches/gfp-define-gfp_atomic-and-more.diff &&
	must_say "^gfp-define-gfp_atomic-and-more$" series/series.txt && ! must_say "^three$" series/series.txt &&
	must_say "left in place.*commit-msgs/three patches/three.diff" out &&
	test -f series/patches/three.diff && replay.sh
'

ok "a patch that does not apply is named, with its file, and the branch stays at the last good commit" '
	three_patches &&
	sed -i "s/return 1/return 7/" series/patches/two.diff series/patches/one.diff &&
	sed -i "s/^-\treturn 7;/-\treturn 5;/" series/patches/two.diff &&
	must_fail replay.sh && must_say "patch 1/3 .one." && must_say "mm/page_alloc.c" &&
	test "$(git -C work/linux rev-parse series)" = "$(git -C work/linux rev-parse base/1.0-1^{commit})"
'

ok "a failure in the middle leaves the commits before it" '
	three_patches && printf "garbage\n" >series/patches/three.diff &&
	must_fail replay.sh && must_say "patch 3/3 .three." &&
	git -C work/linux log --format=%s -1 series | must_say "Add a comment" /dev/stdin
'

ok "series.txt naming a missing patch is refused with its name" '
	three_patches && echo four >>series/series.txt &&
	must_fail replay.sh && must_say "four.*patches/four.diff is missing"
'

ok "series.txt naming a patch twice is refused" '
	three_patches && echo one >>series/series.txt &&
	must_fail replay.sh && must_say "one.* listed twice"
'

ok "replay signs every commit off with the user's identity, after the message's own trailers" '
	setup && patch_from one "mm: x" mm/page_alloc.c "s/1/2/" "Reported-by: R <r@example.net>" &&
	SERIES_AUTHOR_NAME="Ann Other" SERIES_AUTHOR_EMAIL=ann@example.net replay.sh &&
	git -C work/linux log -1 --format="%an <%ae>%n%B" series >msg && cat msg &&
	test "$(head -n1 msg)" = "Ann Other <ann@example.net>" &&
	test "$(grep -v "^$" msg | tail -n2 | paste -sd"|")" = "Reported-by: R <r@example.net>|Signed-off-by: Ann Other <ann@example.net>"
'

ok "without an identity from git or the settings, the placeholder signs off and replay still works" '
	setup && patch_from one "mm: x" mm/page_alloc.c "s/1/2/" &&
	(unset SERIES_AUTHOR_NAME SERIES_AUTHOR_EMAIL; HOME=$PWD GIT_CONFIG_NOSYSTEM=1 replay.sh) &&
	git -C work/linux log -1 --format=%B series | must_say "^Signed-off-by: Page Allocator Series <pagealloc@example.org>$" /dev/stdin
'

ok "make mail refuses the placeholder identity and says how to set one" '
	(unset SERIES_AUTHOR_NAME SERIES_AUTHOR_EMAIL; export HOME=$PWD GIT_CONFIG_NOSYSTEM=1; must_fail mail.sh 1) &&
	must_say "placeholder identity .Page Allocator Series <pagealloc@example.org>." &&
	must_say "git config --global user.email"
'

ok "a message signed off by the placeholder is refused before anything is applied" '
	setup && patch_from one "mm: x" mm/page_alloc.c "s/1/2/" "Signed-off-by: Page Allocator Series <pagealloc@example.org>" &&
	must_fail replay.sh && must_say "commit-msgs/one: signed off by the placeholder"
'

ok "a commit message without a subject is refused" '
	three_patches && sed -i "1s/.*//" series/commit-msgs/two &&
	must_fail replay.sh && must_say "commit-msgs/two: first line"
'

ok "lint takes a From: line only as \"From: Name <email>\", a blank line and a subject, and names each file that is not" '
	three_patches && m=series/commit-msgs &&
	{ printf "From: A U Thor <au@example.net>\n\n"; cat $m/one; } >msg && mv msg $m/one && lint-series.sh &&
	sed -i "1s/.*/From: A U Thor au@example.net/" $m/one &&
	printf "From: A U Thor <au@example.net>\n\n\nBody, no subject.\n" >$m/two &&
	printf "From: A U Thor <au@example.net>\n\n" >$m/three &&
	must_fail lint-series.sh && must_say "commit-msgs/one: .*From: Name <email>" &&
	must_say "commit-msgs/two: .*subject.* empty" && must_say "commit-msgs/three: .*subject.* empty" &&
	must_fail replay.sh && must_say "commit-msgs/one: .*From: Name <email>"
'

ok "replay refuses to overwrite uncommitted edits in the kernel tree" '
	three_patches && replay.sh && echo x >>work/linux/mm/page_alloc.c &&
	must_fail replay.sh && must_say "uncommitted changes"
'

ok "replay refuses to drop commits made in the kernel tree, and says to export" '
	three_patches && replay.sh && git -C work/linux checkout -q series &&
	git -C work/linux commit -q --allow-empty -m "local work" &&
	must_fail replay.sh && must_say "make export" &&
	git -C work/linux log -1 --format=%s series | must_say "local work" /dev/stdin
'

# The record of the last replay, as a write cut short (a full disk) left
# it: empty.  A tip the series files make is safe to move; another is not.
ok "an empty record of the last replay does not block a rerun on a branch the series files make" '
	three_patches && replay.sh && t=$(git -C work/linux rev-parse series) &&
	: >work/state/replayed-series && replay.sh && test "$(git -C work/linux rev-parse series)" = "$t" &&
	test "$(cat work/state/replayed-series)" = "$t" &&
	git -C work/linux branch -f series series~2 && : >work/state/replayed-series && replay.sh &&
	test "$(git -C work/linux rev-parse series)" = "$t" &&
	git -C work/linux branch -f series base/1.0-1 && echo garbage >work/state/replayed-series && replay.sh &&
	test "$(git -C work/linux rev-parse series)" = "$t"
'

ok "an empty record of the last replay still keeps commits made in the kernel tree, and says why" '
	three_patches && replay.sh && git -C work/linux checkout -q series &&
	git -C work/linux commit -q --allow-empty -m "local work" && : >work/state/replayed-series &&
	must_fail replay.sh && must_say "make export" && must_say "empty or not a commit id" &&
	git -C work/linux log -1 --format=%s series | must_say "local work" /dev/stdin &&
	git -C work/linux reset -q --hard series~1 && sed -i "s/return 2/return 9/" series/patches/one.diff &&
	: >work/state/replayed-series && must_fail replay.sh && must_say "not a commit the series files make"
'

ok "export leaves files series.txt does not list where they are, and names them" '
	three_patches && replay.sh && echo draft >series/patches/draft.diff && echo notes >series/commit-msgs/notes &&
	export.sh 2>out && cat out &&
	test "$(cat series/patches/draft.diff)" = draft && test "$(cat series/commit-msgs/notes)" = notes &&
	must_say "left in place.*commit-msgs/notes patches/draft.diff" out
'

ok "export names a commit whose subject is punctuation alone after its place in the series" '
	three_patches && replay.sh && git -C work/linux checkout -q series &&
	echo "/* ... */" >>work/linux/include/gfp.h && git -C work/linux commit -qam "..." &&
	export.sh && must_say "^patch-4$" series/series.txt && test "$(head -n1 series/commit-msgs/patch-4)" = "..." &&
	git -C work/linux checkout -q --detach && git -C work/linux branch -D -q series && replay.sh &&
	git -C work/linux log -1 --format=%s series | must_say "^\.\.\.$" /dev/stdin
'

ok "a patch name with a / is exported under a plain name made from its subject, and said so" '
	setup && mkdir -p series/commit-msgs/mm series/patches/mm &&
	patch_from one "mm/page_alloc: Return two" mm/page_alloc.c "s/return 1/return 2/" &&
	sed -i "s|^one$|mm/one|" series/series.txt && mv series/commit-msgs/one series/commit-msgs/mm/one &&
	mv series/patches/one.diff series/patches/mm/one.diff && replay.sh && t=$(git -C work/linux rev-parse "series^{tree}") &&
	export.sh 2>out && cat out && must_say "mm/one.* not a plain file name" out &&
	printf "mm-page_alloc-return-two\n" | diff - series/series.txt && test -f series/patches/mm/one.diff &&
	git -C work/linux branch -D -q series && replay.sh && test "$(git -C work/linux rev-parse "series^{tree}")" = "$t"
'

ok "export strips the CRs of a message written with CRLF line ends" '
	three_patches && replay.sh && git -C work/linux checkout -q series &&
	echo "/* crlf */" >>work/linux/include/gfp.h &&
	printf "gfp: CRLF\r\n\r\nWritten on Windows.\r\n" | git -C work/linux commit -q -a --cleanup=verbatim -F - &&
	export.sh && ! grep -q "$(printf "\r")" series/commit-msgs/gfp-crlf &&
	printf "gfp: CRLF\n\nWritten on Windows.\n" | diff - series/commit-msgs/gfp-crlf
'

ok "replay refuses to overwrite an untracked file the series adds, naming it, and keeps it" '
	three_patches && replay.sh && git -C work/linux checkout -q series &&
	printf "int mine;\n" >work/linux/mm/new.c && cp work/linux/mm/new.c mine.c &&
	git -C scratch checkout -q base/1.0-1 && printf "int theirs;\n" >scratch/mm/new.c &&
	git -C scratch add -f mm/new.c && git -C scratch diff --cached --full-index >new.diff && add_patch four "mm: Add new.c" new.diff &&
	before=$(git -C work/linux rev-parse series) &&
	must_fail replay.sh && must_say "adds .*/work/linux/mm/new.c" &&
	cmp mine.c work/linux/mm/new.c && test "$(git -C work/linux rev-parse series)" = "$before"
'

ok "an empty series replays to the base" '
	setup && mkdir -p series && : >series/series.txt && replay.sh &&
	test "$(git -C work/linux rev-parse series)" = "$(git -C work/linux rev-parse base/1.0-1^{commit})"
'

done_testing
