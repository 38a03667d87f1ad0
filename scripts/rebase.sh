#!/usr/bin/env bash
# Carry the series onto a newer base (a new linux-source imported beside
# the old one): apply each patch of series.txt on the newest base/* tag
# of the series' own kernel line (major.minor: importing 6.12 does not
# move a 6.1 series; BASE= names another base) in the kernel tree, one
# commit each, with a three-way merge where the context moved.
#   - Another line is a new series: it needs NEW_SERIES_DIR, which gets
#     the result on branch $BRANCH-<line> (series-6.12), named in its
#     file 'branch'; the series directory and $BRANCH are left as they are.
#   - A patch whose change the new base already has (upstream took it, or
#     Debian backported it; a three-way merge that comes out empty too)
#     is reported "left out (already upstream)".  So is a patch whose
#     message names its upstream commit in a trailer,
#     'Upstream-commit: <id> ("subject")', when it conflicts.
#   - A conflict stops the rebase with the patch, the file and the hunk,
#     and leaves the markers in the kernel tree, as git am -3 does: fix
#     them, 'git add' the files, then --continue.  --skip leaves the
#     patch out; --abort goes back, and keeps the work done so far on a
#     branch of its own, which it names.
#   - At the end $BRANCH points at the new commits and the series files
#     are exported from them (make export), so replay gives them back, and
#     the file 'base' names the new base.  A patch left out keeps its
#     files; series.txt says, in a comment, why it is no longer listed.
# $BRANCH and the old base are not touched until the end, and the results
# of both bases stay cached (results are kept per source tree).
# State: $WORK/state/rebase-$BRANCH/, made whole by one rename: onto-tag,
# onto, orig-head, names (the series as it started) and orig/ (a copy of
# its files), next ("I HEAD": patch I is being applied on commit HEAD,
# replaced by a rename), stopped and conflicts (the rebase waits for the
# user at patch I), upstream and skipped, and new-dir (NEW_SERIES_DIR,
# when given).  Whatever point an interrupt hits, --continue and --skip
# find where they are: a patch that was being applied, not stopped for
# the user, is applied again from HEAD.
# The series files must not change under a rebase: series.txt, and the
# files of the patches already applied, are checked on --continue and
# --skip against the copy; the current patch and those after it may be
# edited (that is how a patch that does not apply is fixed), not removed.
# usage: rebase.sh [--continue | --skip | --abort]
. "$(dirname "$0")/lib/lib.sh"
require_series

state=$WORK/state/rebase-$BRANCH

# The files with conflicts, one a line, as they are named in the tree: git
# quotes a name with a backslash or a double quote unless -z, which
# --continue could then neither read nor add.
conflicted() { kgit diff --name-only -z --diff-filter=U | tr '\0' '\n'; }

# Write FILE in the state directory in one rename.  usage: put FILE TEXT
put() {
	printf '%s\n' "$2" >"$state/$1.tmp"
	mv -f "$state/$1.tmp" "$state/$1"
}

# The patch being applied, and the commit it goes on, into i and h.
read_next() {
	local line
	[[ -s $state/next ]] || die "$state/next is missing: the state of this rebase is not one this script wrote; 'make rebase ABORT=1' goes back"
	line=$(cat "$state/next")
	i=${line%% *} h=${line#* }
	[[ $i =~ ^[0-9]+$ && $h =~ ^[0-9a-f]{40}$ ]] || die "$state/next: '$line' is not 'PATCH COMMIT'; 'make rebase ABORT=1' goes back"
}

# Detach HEAD where it is (an interrupt may have come before the rebase
# detached it), so that a reset never moves a branch.
detach() { kgit symbolic-ref -q HEAD >/dev/null && kgit checkout -q --detach; return 0; }

# The series' names as the rebase started (older states: series.txt).
load_names() {
	if [[ -f $state/names ]]; then
		mapfile -t names <"$state/names"
	else
		mapfile -t names < <(series_names)
	fi
	total=${#names[@]}
}

# Stop if the series files changed under the rebase in progress, before
# anything is done.  usage: check_series I   (patches before I are applied)
check_series() {
	local n f now
	[[ -d $state/orig ]] || return 0
	now=$(series_names)
	[[ $now == "$(cat "$state/names")" ]] ||
		die "series.txt changed while the rebase of $BRANCH is in progress (it started with: $(paste -sd' ' "$state/names")); put it back as it was (a copy: $state/orig/series.txt), then run this again, or 'make rebase ABORT=1'"
	for ((n = 1; n <= total; n++)); do
		for f in "commit-msgs/${names[n - 1]}" "patches/${names[n - 1]}.diff"; do
			if [[ ! -f $SERIES_DIR/$f ]]; then
				die "$SERIES_DIR/$f is missing, while the rebase of $BRANCH is in progress; put it back (a copy: $state/orig/$f), then run this again, or 'make rebase ABORT=1'"
			fi
			if ((n < $1)) && ! cmp -s "$SERIES_DIR/$f" "$state/orig/$f"; then
				die "$SERIES_DIR/$f changed after patch $n was applied in this rebase (the change would be lost); put it back (a copy: $state/orig/$f) and make the change after the rebase, then run this again, or 'make rebase ABORT=1'"
			fi
		done
	done
}

# Commit the applied patch I (1-based) with its message, its author and
# the sign-off.
commit_patch() {
	local name=${names[$1 - 1]} msg
	msg=$SERIES_DIR/commit-msgs/$name
	[[ -f $msg ]] || die "$msg is missing; put it back (a copy: $state/orig/commit-msgs/$name), then 'make rebase CONTINUE=1'"
	msg_text "$msg" | git interpret-trailers --if-exists addIfDifferent --trailer "$SIGNOFF" |
		with_msg_author "$msg" kgit commit -q --no-verify -F - ||
		die "patch $1/$total '$name' could not be committed (see above); fix the cause, then 'make rebase CONTINUE=1'"
}

# The upstream commit patch NAME's message names (upstream_commit, lib.sh).
upstream_of() { upstream_commit "$SERIES_DIR/commit-msgs/$1"; }

# Patch I is left out: the new base has its change already.
left_out_upstream() {
	local name=${names[$1 - 1]} up
	up=$(upstream_of "$name")
	if [[ -n $up ]]; then
		say "patch $1/$total '$name': already upstream as $up; left out"
	else
		say "patch $1/$total '$name': its change is already in $(short HEAD) (upstream or backported); left out (already upstream)"
	fi
	grep -qxF -- "$name" "$state/upstream" || echo "$name" >>"$state/upstream"
}

# The hunks a plain git apply could not place ("patch failed: FILE:LINE"),
# as the @@ lines of patch DIFF, for the message.  FILE is data: it
# reaches awk through ENVIRON (-v would read its backslashes as escapes),
# may hold spaces (the line is split at its last ':'), and is matched
# against the end of the "diff --git" line both as it is and as git
# quotes a name with a backslash, a double quote, a tab or a newline.
failed_hunks() {
	local line f q
	sed -n 's/^error: patch failed: \(.*:[0-9][0-9]*\)$/\1/p' "$state/check.log" | while IFS= read -r line; do
		f=${line%:*}
		q=${f//\\/\\\\} q=${q//\"/\\\"} q=${q//$'\t'/\\t} q=${q//$'\n'/\\n}
		PA_FILE=$f PA_QFILE=$q PA_LINE=${line##*:} awk '
			function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
			BEGIN { f = ENVIRON["PA_FILE"]; l = ENVIRON["PA_LINE"] + 0 }
			/^diff --git / { on = ends($0, " b/" f) || ends($0, " \"b/" ENVIRON["PA_QFILE"] "\"") }
			on && /^@@/ { split($2, a, ","); if (-a[1] == l) print "    " f ": " $0 }' "$1"
	done
}

# Stop for the user at patch I: conflicts (the files, maybe none) first,
# then the mark.
stop_at() {
	put conflicts "$(conflicted)"
	put stopped "$1"
}

# Apply patch I on HEAD: committed or left out, or the script stops (exit
# 1) for the user.  Runs under set -e: a command that fails stops it.
apply_one() {
	local i=$1 name=${names[$1 - 1]} diff
	diff=$SERIES_DIR/patches/$name.diff
	put next "$i $(kgit rev-parse HEAD)"
	rm -f "$state/stopped"
	progress "$i" "$total" "apply $name"
	# A plain apply's errors name the hunks that no longer fit.
	if ! kgit apply --check "$diff" 2>"$state/check.log" && kgit apply --check --reverse "$diff" 2>/dev/null; then
		left_out_upstream "$i"
		return 0
	fi
	if kgit apply --index --3way --whitespace=nowarn "$diff" >"$state/apply.log" 2>&1; then
		if kgit diff --cached --quiet HEAD; then
			# The three-way merge found every change there already.
			left_out_upstream "$i"
			return 0
		fi
		commit_patch "$i"
		return 0
	fi
	if [[ -n $(upstream_of "$name") ]]; then
		# The message names the upstream commit: the new base has the
		# change in upstream's own form, which need not match the patch.
		kgit reset -q --hard
		left_out_upstream "$i"
		return 0
	fi
	if [[ -z $(conflicted) ]]; then
		# Not even a three-way merge could start (a file the base lacks).
		sed 's/^/    /' "$state/apply.log" >&2
		kgit reset -q --hard
		stop_at "$i"
		die "patch $i/$total '$name' ($diff) does not apply to $(short HEAD), not even by a three-way merge; fix the patch file and run 'make rebase CONTINUE=1' (SKIP=1 leaves it out, ABORT=1 goes back)"
	fi
	stop_at "$i"
	say "patch $i/$total '$name' ($diff) conflicts with $(short HEAD) in $(conflicted | paste -sd' '):"
	failed_hunks "$diff" >&2
	say "resolve the conflict markers in those files in $KTREE, then 'make rebase CONTINUE=1'; SKIP=1 leaves the patch out, ABORT=1 goes back"
	exit 1
}

# Apply patches FROM..total, then finish.
run_from() {
	local n
	for ((n = $1; n <= total; n++)); do
		apply_one "$n"
	done
	put next "$((total + 1)) $(kgit rev-parse HEAD)"
	finish
	exit 0
}

# Keep what the rebase made so far (its commits, and the files of the
# patch being resolved, conflict markers and all) on a branch of its own
# before a reset throws it away; say where.  usage: keep_work WHY
keep_work() {
	local head onto wip tree idx ref n=1 files=()
	head=$(kgit rev-parse HEAD)
	onto=$(kgit rev-parse "$(cat "$state/onto-tag")^{commit}")
	mapfile -t files < <({ kgit diff --name-only HEAD; kgit diff --cached --name-only HEAD; kgit ls-files -u | cut -f2; } | sort -u)
	[[ ${#files[@]} -gt 0 || $head != "$onto" ]] || return 0
	wip=$head
	if [[ ${#files[@]} -gt 0 ]]; then
		idx=$(mktemp)
		GIT_INDEX_FILE=$idx kgit read-tree "$head"
		GIT_INDEX_FILE=$idx kgit add -A -f -- "${files[@]}"
		tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
		rm -f "$idx"
		wip=$(printf 'rebase of %s, kept by %s\n\nThe files of the patch being resolved as they were: %s\n' \
			"$BRANCH" "$1" "${files[*]}" | kgit commit-tree "$tree" -p "$head")
	fi
	ref=$BRANCH-rebase-kept
	while kgit rev-parse -q --verify "refs/heads/$ref" >/dev/null; do
		n=$((n + 1))
		ref=$BRANCH-rebase-kept-$n
	done
	kgit update-ref "refs/heads/$ref" "$wip"
	say "the work of this rebase ($(kgit rev-list --count "$onto..$head") patches applied${files[*]:+, and ${files[*]} as being resolved}) is kept on branch $ref in $KTREE ('git -C $KTREE log -p $(cat "$state/onto-tag")..$ref' shows it; 'git -C $KTREE branch -D $ref' drops it)"
}

finish() {
	local tip base n name why label up dir=$SERIES_DIR branch=$BRANCH
	tip=$(kgit rev-parse HEAD)
	base=$(cat "$state/onto-tag")
	if [[ -s $state/new-dir ]]; then
		# A new series directory starts as the series did (its comments,
		# the files of every patch, left out or not) and its cover letter,
		# on a branch of its own, which its file 'branch' names: the old
		# series keeps its branch.
		dir=$(cat "$state/new-dir")
		branch=$BRANCH-$(kernel_line "$base")
		mkdir -p "$dir"
		cp -R "$state/orig/." "$dir/"
		[[ ! -d $SERIES_DIR/mail ]] || cp -R "$SERIES_DIR/mail" "$dir/"
		echo "$branch" >"$dir/branch"
		kgit update-ref "refs/heads/$branch" "$tip"
	else
		kgit update-ref "refs/heads/$BRANCH" "$tip"
		# Back on the branch if the rebase started there (HEAD is at its tip).
		[[ $(cat "$state/orig-head") != "$BRANCH" ]] || kgit checkout -q "$BRANCH"
	fi
	SERIES_DIR=$dir BASE=$base BRANCH=$branch "$TOP/scripts/export.sh"
	# A patch left out keeps its files (export leaves them); series.txt
	# says why it is no longer listed.
	for why in upstream skipped; do
		[[ -s $state/$why ]] || continue
		while IFS= read -r name; do
			label='skipped with SKIP=1'
			if [[ $why == upstream ]]; then
				up=$(upstream_of "$name")
				label="already upstream${up:+ as $up}"
			fi
			grep -qxF -- "# $name: left out by make rebase onto $base ($label), its files kept" "$dir/series.txt" ||
				echo "# $name: left out by make rebase onto $base ($label), its files kept" >>"$dir/series.txt"
		done <"$state/$why"
	done
	# Last: an interrupted rebase leaves the series on its old base.  A
	# file that names the kernel line only already follows its newest
	# import.
	if [[ $(SERIES_DIR=$dir series_base_line) != "base/$(kernel_line "$base")" ]]; then
		echo "$base" >"$dir/base.tmp"
		mv -f "$dir/base.tmp" "$dir/base"
	fi
	n=$(kgit rev-list --count "$base..$tip")
	local up=''
	[[ ! -s $state/upstream ]] || up="$(paste -sd' ' "$state/upstream") (already upstream)"
	[[ ! -s $state/skipped ]] || up="$up${up:+ }$(paste -sd' ' "$state/skipped") (skipped)"
	rm -rf "$state"
	say "$branch = $(short "$tip"): $n patches on $base${up:+; left out: $up}"
	if [[ $dir == "$SERIES_DIR" ]]; then
		say "the series files are rewritten from it (git diff in $SERIES_DIR shows how); next: make check"
	else
		say "the series on $base is in $dir, and $SERIES_DIR is as it was; next: SERIES_DIR=$dir make check"
	fi
}

case ${1:-} in
--abort)
	[[ -d $state ]] || die "no rebase of $BRANCH in progress"
	[[ -f $state/orig-head ]] || die "$state/orig-head is missing; check out the branch you want in $KTREE and remove $state"
	keep_work "make rebase ABORT=1"
	detach
	kgit reset -q --hard
	kgit checkout -q "$(cat "$state/orig-head")"
	rm -rf "$state"
	say "rebase abandoned: $BRANCH, the kernel tree and the series files are as they were"
	exit 0 ;;
--continue)
	[[ -d $state ]] || die "no rebase of $BRANCH in progress"
	load_names
	read_next
	((i > total)) && { finish; exit 0; }
	check_series "$i"
	if [[ $(cat "$state/stopped" 2>/dev/null) != "$i" ]]; then
		# Cut short while patch i was being applied: done if its commit
		# is there, else applied again from where it started.
		detach
		if [[ $(kgit rev-parse HEAD) != "$h" && $(kgit rev-parse -q --verify HEAD^) == "$h" ]]; then
			say "patch $i/$total '${names[i - 1]}' was committed before the interruption"
		else
			say "the rebase was interrupted at patch $i/$total '${names[i - 1]}': applying it again"
			kgit reset -q --hard "$h"
			apply_one "$i"
		fi
		run_from $((i + 1))
	fi
	mapfile -t files <"$state/conflicts"
	[[ -n ${files[*]} ]] || files=()
	if [[ ${#files[@]} -eq 0 ]]; then
		# No merge was attempted: the patch file itself was to be fixed.
		kgit reset -q --hard "$h"
		apply_one "$i"
	else
		for f in "${files[@]}"; do
			! grep -qE '^(<<<<<<<|=======|>>>>>>>)( |$)' "$KTREE/$f" ||
				die "conflict markers are still in $KTREE/$f; resolve them first"
		done
		# The tarball's .gitignore files cover the tree: add by force.
		kgit add -f -- "${files[@]}"
		kgit add -u
		if [[ $(kgit rev-parse HEAD) != "$h" ]] && kgit diff --cached --quiet HEAD; then
			say "patch $i/$total '${names[i - 1]}': committed by hand"
		elif kgit diff --cached --quiet HEAD; then
			say "patch $i/$total '${names[i - 1]}': the resolution changes nothing; left out (already upstream)"
			echo "${names[i - 1]}" >>"$state/upstream"
		else
			commit_patch "$i"
		fi
	fi
	run_from $((i + 1)) ;;
--skip)
	[[ -d $state ]] || die "no rebase of $BRANCH in progress"
	load_names
	read_next
	((i <= total)) || die "every patch is applied; 'make rebase CONTINUE=1' finishes the rebase"
	check_series "$i"
	[[ $(cat "$state/stopped" 2>/dev/null) != "$i" ]] || keep_work "make rebase SKIP=1"
	detach
	kgit reset -q --hard "$h"
	say "patch $i/$total '${names[i - 1]}' left out (skipped)"
	echo "${names[i - 1]}" >>"$state/skipped"
	run_from $((i + 1)) ;;
'') ;;
*) die "usage: rebase.sh [--continue | --skip | --abort]" ;;
esac

[[ ! -d $state ]] || die "a rebase of $BRANCH is in progress: 'make rebase CONTINUE=1' or 'make rebase ABORT=1'"
[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
	die "$KTREE has uncommitted changes; commit them and run 'make export', or 'git -C $KTREE stash'"
new_dir=${NEW_SERIES_DIR:-}
if [[ -n $new_dir ]]; then
	[[ $new_dir == /* ]] || new_dir=$PWD/$new_dir
	[[ ! -e $new_dir ]] || [[ -d $new_dir && -z $(ls -A "$new_dir") ]] ||
		die "NEW_SERIES_DIR=$NEW_SERIES_DIR: $new_dir is there and not empty; the rebased series goes into a new directory"
fi
# The base the series is on now: its file 'base', else the one its branch
# holds.
old=''
! kgit rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null || old=$(branch_base "$BRANCH")
cur=$(series_base)
cur=${cur:-$old}
if [[ -n ${BASE:-} ]]; then
	onto_tag=$BASE
elif [[ -n $cur ]]; then
	# The newest import of the same major.minor ('6.1.' or '6.1-', never 6.12).
	line=$(kernel_line "$cur")
	onto_tag=$(newest_of_line "$line")
	[[ -n $line && -n $onto_tag ]] ||
		die "the series is on $cur, and no base of its kernel line ${line:-?} is imported in $KTREE; import one (make import TARBALL=... SOURCE_VERSION=...), or name the base, BASE=base/<version>"
else
	onto_tag=$(base_tag)
fi
onto=$(kgit rev-parse --verify -q "$onto_tag^{commit}") || die "$onto_tag: no such base in $KTREE"
if [[ -n $cur && $(kernel_line "$onto_tag") != "$(kernel_line "$cur")" && -z $new_dir ]]; then
	die "$onto_tag is another kernel line ($(kernel_line "$onto_tag")) than the series' base $cur ($(kernel_line "$cur")): on it the series is a new one, and $SERIES_DIR stays as it is; give the directory for the new series, NEW_SERIES_DIR=<dir>"
fi
[[ $old != "$onto_tag" ]] ||
	die "$BRANCH is already on $onto_tag; import a newer linux-source of its line first (make import TARBALL=... SOURCE_VERSION=...)"
"$TOP/scripts/lib/lint-series.sh"
mapfile -t names < <(series_names)
total=${#names[@]}
for name in "${names[@]}"; do
	msg_author "$SERIES_DIR/commit-msgs/$name" >/dev/null || exit 1
done
# The state is made aside and renamed into place whole.
mkdir -p "$WORK/state"
new=$(mktemp -d "$state.new.XXXXXX")
trap 'rm -rf "$new"' EXIT
mkdir -p "$new/orig/commit-msgs" "$new/orig/patches"
cp "$SERIES_DIR/series.txt" "$new/orig/"
for name in "${names[@]}"; do
	for f in "commit-msgs/$name" "patches/$name.diff"; do
		mkdir -p "$(dirname "$new/orig/$f")"
		cp "$SERIES_DIR/$f" "$new/orig/$f"
	done
done
[[ $total -eq 0 ]] || printf '%s\n' "${names[@]}" >"$new/names"
[[ $total -gt 0 ]] || : >"$new/names"
current_head >"$new/orig-head"
echo "$onto_tag" >"$new/onto-tag"
echo "1 $onto" >"$new/next"
[[ -z $new_dir ]] || echo "$new_dir" >"$new/new-dir"
: >"$new/upstream"
: >"$new/skipped"
mv -T "$new" "$state"
trap - EXIT
say "rebasing $total patches of $BRANCH${cur:+ from $cur} onto $onto_tag${new_dir:+, into $new_dir}"
kgit checkout -q --detach "$onto"
run_from 1
