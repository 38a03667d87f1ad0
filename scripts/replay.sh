#!/usr/bin/env bash
# Replay series.txt onto the imported base as branch $BRANCH: one commit
# per patch, message from commit-msgs/NAME, diff from patches/NAME.diff.
# Every commit is signed off and committed by the user's identity (lib.sh);
# a message that starts with "From: Name <email>" and a blank line has
# that author (msg_author in lib.sh), the others the user's.  With the
# date fixed, the same files and identity always give the same ids.
. "$(dirname "$0")/lib/lib.sh"
require_series

[[ ! -d $WORK/state/rebase-$BRANCH ]] ||
	die "a rebase of $BRANCH is in progress ('make rebase CONTINUE=1', SKIP=1 or ABORT=1); replaying now would throw it away"
base=$(base_tag)
"$TOP/scripts/lib/lint-series.sh"
mapfile -t names < <(series_names)
for name in "${names[@]}"; do
	msg_author "$SERIES_DIR/commit-msgs/$name" >/dev/null || exit 1
done

mkdir -p "$WORK/state"
# Refuse to throw away work done in the kernel tree: uncommitted edits, or
# commits on the branch that replay did not make.  The record of the last
# replay is $stamp; a branch tip that is one of the commits the series
# files make now (the base, or a replay of the first N patches) is safe
# to move whatever the record says: the files give it back, byte for byte.
# That covers a record a crash or a full disk left empty or stale.
stamp=$WORK/state/replayed-$BRANCH
[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
	die "$KTREE has uncommitted changes; commit them and run 'make export', or 'git -C $KTREE stash'"
cur=$(kgit rev-parse -q --verify "refs/heads/$BRANCH") || cur=''

# Point the branch at a replayed commit; a checked-out branch gets its files
# too (the tree was clean, so nothing is lost).  A file the new commits
# add that is already in the tree, untracked (the tarball's .gitignore
# hides every such file), would be overwritten: refuse, naming it.
# The record is written to a scratch file before the branch moves and
# renamed after: a full disk stops replay with the branch and the old
# record as they were, and the rename needs no room.  The caller has set
# cur and recorded (the branch and the record as replay found them).
set_branch() {
	local f in_way=()
	unset GIT_INDEX_FILE
	# Nothing to do writes nothing: make check replays first, on a disk
	# that may be full.
	! [[ $1 == "$cur" && $1 == "$recorded" ]] || return 0
	if [[ $(kgit symbolic-ref -q HEAD) == "refs/heads/$BRANCH" ]]; then
		while IFS= read -r -d '' f; do
			[[ ! -e $KTREE/$f && ! -L $KTREE/$f ]] || in_way+=("$KTREE/$f")
		done < <(kgit diff -z --name-only --no-renames --diff-filter=A HEAD "$1")
		[[ ${#in_way[@]} -eq 0 ]] ||
			die "$BRANCH is checked out and the series adds ${in_way[*]}, which git does not track but is there already; move it away (or 'git -C $KTREE checkout --detach'), then replay again; $BRANCH is left as it was"
	fi
	printf '%s\n' "$1" >"$stamp_new" ||
		die "could not write $stamp_new (is the disk full?); $BRANCH is left as it was"
	kgit update-ref "refs/heads/$BRANCH" "$1"
	mv -f "$stamp_new" "$stamp"
	if [[ $(kgit symbolic-ref -q HEAD) == "refs/heads/$BRANCH" ]]; then
		kgit reset -q --hard
	fi
}

# Build the commits on a temporary index so that the checked-out tree is
# touched only once at the end (fewer files with new mtimes to rebuild).
# Every commit is made before the branch is looked at: they are what it
# is checked against.
idx=$(mktemp)
stamp_new=$stamp.tmp.$$
trap 'rm -f "$idx" "$stamp_new"' EXIT
export GIT_INDEX_FILE=$idx
kgit read-tree "$base"
parent=$(kgit rev-parse "$base^{commit}")
made=("$parent")
total=${#names[@]}
i=0 failed=0 err=''
for name in "${names[@]}"; do
	i=$((i + 1))
	diff=$SERIES_DIR/patches/$name.diff
	msg=$SERIES_DIR/commit-msgs/$name
	progress "$i" "$total" "apply $name"
	if ! err=$(kgit apply --cached --whitespace=nowarn "$diff" 2>&1); then
		failed=$i
		break
	fi
	tree=$(kgit write-tree)
	parent=$(msg_text "$msg" | git interpret-trailers --if-exists addIfDifferent --trailer "$SIGNOFF" |
		with_msg_author "$msg" kgit commit-tree "$tree" -p "$parent")
	made+=("$parent")
done

recorded=$(cat "$stamp" 2>/dev/null) || recorded=''
if [[ -n $cur && $cur != "$recorded" && " ${made[*]} " != *" $cur "* ]]; then
	why=''
	[[ $recorded =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] ||
		why="; $stamp, the record of the last replay, is empty or not a commit id (a write cut short leaves it so), and the tip is not a commit the series files make now"
	die "branch $BRANCH in $KTREE has commits replay did not make ($(short "$cur"))$why; run 'make export' to keep them, or 'git -C $KTREE branch -D $BRANCH' to drop them"
fi

set_branch "$parent"
if ((failed)); then
	printf '%s\n' "$err" | sed 's/^/    /' >&2
	die "patch $failed/$total '${names[failed - 1]}' ($SERIES_DIR/patches/${names[failed - 1]}.diff) does not apply on $(short "$parent"); $BRANCH left at the last good commit (on a newer base, 'make rebase' merges and lets you resolve)"
fi
say "$BRANCH = $(short "$parent"): $total patches on $base"
