#!/usr/bin/env bash
# Replay series.txt onto the imported base as branch $BRANCH: one commit
# per patch, message from commit-msgs/NAME, diff from patches/NAME.diff.
# Every commit is signed off and committed by the user's identity (lib.sh);
# a message that starts with "From: Name <email>" and a blank line has
# that author (msg_author in lib.sh), the others the user's.  With the
# date fixed, the same files and identity always give the same ids.
. "$(dirname "$0")/lib.sh"
require_series

[[ ! -d $WORK/state/rebase-$BRANCH ]] ||
	die "a rebase of $BRANCH is in progress ('make rebase CONTINUE=1', SKIP=1 or ABORT=1); replaying now would throw it away"
base=$(base_tag)
"$TOP/scripts/lint-series.sh"
mapfile -t names < <(series_names)
for name in "${names[@]}"; do
	msg_author "$SERIES_DIR/commit-msgs/$name" >/dev/null || exit 1
done

mkdir -p "$WORK/state"
# Refuse to throw away work done in the kernel tree: uncommitted edits, or
# commits on the branch that are not the ones replay made last time.
stamp=$WORK/state/replayed-$BRANCH
[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
	die "$KTREE has uncommitted changes; commit them and run 'make export', or 'git -C $KTREE stash'"
if cur=$(kgit rev-parse -q --verify "refs/heads/$BRANCH"); then
	if [[ ! -f $stamp || $(cat "$stamp") != "$cur" ]]; then
		die "branch $BRANCH in $KTREE has commits replay did not make ($(short "$cur")); run 'make export' to keep them, or 'git -C $KTREE branch -D $BRANCH' to drop them"
	fi
fi

# Point the branch at a replayed commit; a checked-out branch gets its files
# too (the tree was clean, so nothing is lost).  A file the new commits
# add that is already in the tree, untracked (the tarball's .gitignore
# hides every such file), would be overwritten: refuse, naming it.
set_branch() {
	local f in_way=()
	unset GIT_INDEX_FILE
	if [[ $(kgit symbolic-ref -q HEAD) == "refs/heads/$BRANCH" ]]; then
		while IFS= read -r -d '' f; do
			[[ ! -e $KTREE/$f && ! -L $KTREE/$f ]] || in_way+=("$KTREE/$f")
		done < <(kgit diff -z --name-only --no-renames --diff-filter=A HEAD "$1")
		[[ ${#in_way[@]} -eq 0 ]] ||
			die "$BRANCH is checked out and the series adds ${in_way[*]}, which git does not track but is there already; move it away (or 'git -C $KTREE checkout --detach'), then replay again; $BRANCH is left as it was"
	fi
	kgit update-ref "refs/heads/$BRANCH" "$1"
	echo "$1" >"$stamp"
	if [[ $(kgit symbolic-ref -q HEAD) == "refs/heads/$BRANCH" ]]; then
		kgit reset -q --hard
	fi
}

# Build the commits on a temporary index so that the checked-out tree is
# touched only once at the end (fewer files with new mtimes to rebuild).
idx=$(mktemp)
trap 'rm -f "$idx"' EXIT
export GIT_INDEX_FILE=$idx
kgit read-tree "$base"
parent=$(kgit rev-parse "$base^{commit}")
total=${#names[@]}
i=0
for name in "${names[@]}"; do
	i=$((i + 1))
	diff=$SERIES_DIR/patches/$name.diff
	msg=$SERIES_DIR/commit-msgs/$name
	progress "$i" "$total" "apply $name"
	if ! err=$(kgit apply --cached --whitespace=nowarn "$diff" 2>&1); then
		set_branch "$parent"
		printf '%s\n' "$err" | sed 's/^/    /' >&2
		die "patch $i/$total '$name' ($diff) does not apply on $(short "$parent"); $BRANCH left at the last good commit (on a newer base, 'make rebase' merges and lets you resolve)"
	fi
	tree=$(kgit write-tree)
	parent=$(msg_text "$msg" | git interpret-trailers --if-exists addIfDifferent --trailer "$SIGNOFF" |
		with_msg_author "$msg" kgit commit-tree "$tree" -p "$parent")
done
set_branch "$parent"
say "$BRANCH = $(short "$parent"): $total patches on $base"
