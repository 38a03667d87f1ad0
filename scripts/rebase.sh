#!/usr/bin/env bash
# Carry the series onto a newer base (a new linux-source imported beside
# the old one): apply each patch of series.txt on the newest base/* tag
# (BASE= names another) in the kernel tree, one commit each, with a
# three-way merge where the context moved.
#   - A patch whose change the new base already has (upstream took it, or
#     Debian backported it) is reported and left out.
#   - A conflict stops the rebase with the patch, the file and the hunk,
#     and leaves the markers in the kernel tree, as git am -3 does: fix
#     them, 'git add' the files, then --continue.  --abort goes back.
#   - At the end $BRANCH points at the new commits and the series files
#     are exported from them (make export), so replay gives them back.
# $BRANCH and the old base are not touched until the end, and the results
# of both bases stay cached (results are kept per source tree).
# State: $WORK/state/rebase-$BRANCH/ (onto-tag, orig-head, next, upstream,
# skipped).
# usage: rebase.sh [--continue | --skip | --abort]
. "$(dirname "$0")/lib.sh"
require_series

state=$WORK/state/rebase-$BRANCH
mapfile -t names < <(series_names)
total=${#names[@]}

conflicted() { kgit diff --name-only --diff-filter=U; }

# Commit the applied patch I (1-based) with its message and the sign-off.
commit_patch() {
	local name=${names[$1 - 1]}
	msg_text "$SERIES_DIR/commit-msgs/$name" | git interpret-trailers --if-exists addIfDifferent --trailer "$SIGNOFF" |
		with_msg_author "$SERIES_DIR/commit-msgs/$name" kgit commit -q --no-verify -F -
}

# The hunks a plain git apply could not place ("patch failed: FILE:LINE"),
# as the @@ lines of patch DIFF, for the message.
failed_hunks() {
	local f l
	sed -n 's/^error: patch failed: \(.*\):\([0-9]*\)$/\1 \2/p' "$state/check.log" | while read -r f l; do
		awk -v f="$f" -v l="$l" '/^diff --git / { on = ($4 == "b/" f) }
			on && /^@@/ { split($2, a, ","); if (-a[1] == l) print "    " f ": " $0 }' "$1"
	done
}

# Apply patch I; 0 applied and committed, 2 upstream (left out), 1 conflict.
apply_one() {
	local i=$1 name=${names[$1 - 1]} diff
	diff=$SERIES_DIR/patches/$name.diff
	progress "$i" "$total" "apply $name"
	# A plain apply's errors name the hunks that no longer fit.
	if ! kgit apply --check "$diff" 2>"$state/check.log" && kgit apply --check --reverse "$diff" 2>/dev/null; then
		say "patch $i/$total '$name': its change is already in $(short HEAD) (upstream or backported); left out"
		echo "$name" >>"$state/upstream"
		return 2
	fi
	if kgit apply --index --3way --whitespace=nowarn "$diff" >"$state/apply.log" 2>&1; then
		commit_patch "$i"
		return 0
	fi
	echo "$i" >"$state/next"
	conflicted >"$state/conflicts"
	if [[ ! -s $state/conflicts ]]; then
		# Not even a three-way merge could start (a file the base lacks).
		sed 's/^/    /' "$state/apply.log" >&2
		kgit reset -q --hard
		die "patch $i/$total '$name' ($diff) does not apply to $(short HEAD), not even by a three-way merge; fix the patch file and run 'make rebase CONTINUE=1' (SKIP=1 leaves it out, ABORT=1 goes back)"
	fi
	say "patch $i/$total '$name' ($diff) conflicts with $(short HEAD) in $(conflicted | paste -sd' '):"
	failed_hunks "$diff" >&2
	say "resolve the conflict markers in those files in $KTREE, then 'make rebase CONTINUE=1'; SKIP=1 leaves the patch out, ABORT=1 goes back"
	return 1
}

# Apply patches FROM..total, then finish.
run_from() {
	local i rc
	for ((i = $1; i <= total; i++)); do
		set +e
		apply_one "$i"
		rc=$?
		set -e
		[[ $rc != 1 ]] || exit 1
	done
	finish
	exit 0
}

finish() {
	local tip up=''
	tip=$(kgit rev-parse HEAD)
	kgit update-ref "refs/heads/$BRANCH" "$tip"
	# Back on the branch if the rebase started there (HEAD is at its tip).
	[[ $(cat "$state/orig-head") != "$BRANCH" ]] || kgit checkout -q "$BRANCH"
	[[ ! -s $state/upstream ]] || up=$(paste -sd' ' "$state/upstream")
	[[ ! -s $state/skipped ]] || up="$up${up:+ }$(paste -sd' ' "$state/skipped") (skipped)"
	BASE=$(cat "$state/onto-tag")
	export BASE
	"$TOP/scripts/export.sh"
	rm -rf "$state"
	say "$BRANCH = $(short "$tip"): $(kgit rev-list --count "$BASE..$tip") patches on $BASE${up:+; left out: $up}"
	say "the series files are rewritten from it (git diff in $SERIES_DIR shows how); next: make check"
}

case ${1:-} in
--abort)
	[[ -d $state ]] || die "no rebase of $BRANCH in progress"
	kgit reset -q --hard
	kgit checkout -q "$(cat "$state/orig-head")"
	rm -rf "$state"
	say "rebase abandoned: $BRANCH and the kernel tree are as they were"
	exit 0 ;;
--continue)
	[[ -d $state ]] || die "no rebase of $BRANCH in progress"
	i=$(cat "$state/next")
	mapfile -t files <"$state/conflicts"
	if [[ ${#files[@]} -eq 0 ]]; then
		# No merge was attempted: the patch file itself was to be fixed.
		set +e
		apply_one "$i"
		[[ $? != 1 ]] || exit 1
		set -e
	else
		for f in "${files[@]}"; do
			! grep -qE '^(<<<<<<<|=======|>>>>>>>)( |$)' "$KTREE/$f" ||
				die "conflict markers are still in $KTREE/$f; resolve them first"
		done
		# The tarball's .gitignore files cover the tree: add by force.
		kgit add -f -- "${files[@]}"
		kgit add -u
		commit_patch "$i"
	fi
	run_from $((i + 1)) ;;
--skip)
	[[ -d $state ]] || die "no rebase of $BRANCH in progress"
	i=$(cat "$state/next")
	kgit reset -q --hard
	say "patch $i/$total '${names[$i - 1]}' left out"
	echo "${names[$i - 1]}" >>"$state/skipped"
	run_from $((i + 1)) ;;
'') ;;
*) die "usage: rebase.sh [--continue | --skip | --abort]" ;;
esac

[[ ! -d $state ]] || die "a rebase of $BRANCH is in progress: 'make rebase CONTINUE=1' or 'make rebase ABORT=1'"
[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
	die "$KTREE has uncommitted changes; commit them and run 'make export', or 'git -C $KTREE stash'"
onto_tag=$(base_tag)
onto=$(kgit rev-parse --verify -q "$onto_tag^{commit}") || die "$onto_tag: no such base in $KTREE"
old=''
if kgit rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null; then
	# The base the branch sits on now: the newest base/* tag it contains.
	old=$(kgit tag -l 'base/*' --merged "$BRANCH" --sort=-version:refname | head -n1)
	[[ $old != "$onto_tag" ]] || die "$BRANCH is already on $onto_tag; import a newer linux-source first (make import TARBALL=... SOURCE_VERSION=...)"
fi
mkdir -p "$state"
current_head >"$state/orig-head"
echo "$onto_tag" >"$state/onto-tag"
: >"$state/upstream"
say "rebasing $total patches of $BRANCH${old:+ from $old} onto $onto_tag"
kgit checkout -q --detach "$onto"
run_from 1
