#!/usr/bin/env bash
# Commit a diff on top of a commit of the kernel tree, without checking it
# out or moving a branch, and print the new commit's id: a way to build,
# boot and measure a patch that is not in the series (a dropped one, a
# planted regression) with every other script.  The same diff on the same
# commit gives the same id, so its results stay cached.
# usage: try-patch.sh REV DIFF [SUBJECT]
. "$(dirname "$0")/lib.sh"

rev=${1:?usage: try-patch.sh REV DIFF [SUBJECT]}
diff=${2:?usage: try-patch.sh REV DIFF [SUBJECT]}
subject=${3:-"try: $(basename "$diff" .diff)"}
parent=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit in $KTREE"
[[ -r $diff ]] || die "$diff: cannot read it"
# git runs in the kernel tree: a relative path would be read from there.
[[ $diff == /* ]] || diff=$PWD/$diff
idx=$(mktemp)
trap 'rm -f "$idx"' EXIT
GIT_INDEX_FILE=$idx kgit read-tree "$parent"
GIT_INDEX_FILE=$idx kgit apply --cached "$diff" 2>"$idx.err" ||
	die "$diff does not apply to $(short "$parent"): $(head -n1 "$idx.err")"
tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
# lib.sh fixes the identity and the date: the id depends on parent, tree
# and subject only.
kgit commit-tree "$tree" -p "$parent" -m "$subject"
