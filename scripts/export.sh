#!/usr/bin/env bash
# The way back from the kernel tree: rewrite series.txt, commit-msgs/ and
# patches/ from the commits on $BRANCH after a developer edited them there.
# A series directory without a file 'base' gets one: the base the branch
# is on, which it then keeps when another kernel line is imported.
. "$(dirname "$0")/lib/lib.sh"

tip=$(kgit rev-parse -q --verify "refs/heads/$BRANCH") || die "no branch $BRANCH in $KTREE; run 'make replay'"
if [[ -n ${BASE:-} || -f $SERIES_DIR/base ]]; then
	base=$(base_tag)
else
	# Not the newest import: that may be another kernel line.
	base=$(branch_base "$tip")
	[[ -n $base ]] || base=$(base_tag)
fi
kgit merge-base --is-ancestor "$base" "$tip" || die "$BRANCH is not based on $base"
mapfile -t commits < <(kgit rev-list --reverse "$base..$tip")
[[ -z $(kgit rev-list --merges "$base..$tip") ]] || die "$BRANCH contains merge commits; a series is linear"

# A commit keeps the name of the patch whose subject it carries, so that a
# reworded body or a changed diff does not rename files.  A name is a file
# name in commit-msgs/ and patches/: one that is not a plain one (a '/',
# a leading '.' or '-', spaces) is replaced by one made from the subject.
safe_name() { [[ $1 =~ ^[A-Za-z0-9_+][A-Za-z0-9._+-]*$ ]]; }
declare -A by_subject=()
if [[ -f $SERIES_DIR/series.txt ]]; then
	while IFS= read -r name; do
		[[ -f $SERIES_DIR/commit-msgs/$name ]] || continue
		subject=$(msg_text "$SERIES_DIR/commit-msgs/$name" 2>/dev/null | head -n1 | tr -d '\r') || continue
		by_subject[$subject]=$name
	done < <(series_names)
fi
slug() { tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9_]+/-/g; s/^-+//; s/-+$//' | cut -c1-60 | sed 's/-$//'; }

new=$(mktemp -d)
trap 'rm -rf "$new" "$WORK/state/replayed-$BRANCH.tmp.$$"' EXIT
mkdir -p "$new/commit-msgs" "$new/patches"
header=$(grep '^#' "$SERIES_DIR/series.txt" 2>/dev/null || true)
[[ -z $header ]] || printf '%s\n' "$header" >"$new/series.txt"
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	# The message without the CRs of a CRLF editor, without trailing blank
	# lines, and without the sign-off of the replaying identity (replay
	# adds it).
	kgit log -1 --format=%B "$c" | sed -e 's/\r$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
		PA_SIGNOFF=$SIGNOFF awk '{ l[NR] = $0 } END { s = ENVIRON["PA_SIGNOFF"]; n = NR; if (l[n] == s) n--; while (n > 0 && l[n] == "") n--; for (i = 1; i <= n; i++) print l[i] }' \
		>"$new/msg"
	subject=$(head -n1 "$new/msg")
	name=${by_subject[$subject]:-}
	if [[ -n $name ]] && ! safe_name "$name"; then
		say "patch '$name' of series.txt is not a plain file name; commit $n ($subject) is exported under a name made from its subject"
		name=''
	fi
	[[ -n $name ]] || name=$(printf '%s' "$subject" | slug)
	# A subject of punctuation alone gives no name: the commit's place does.
	[[ -n $name ]] || name=patch-$n
	[[ ! -e $new/patches/$name.diff ]] || die "two commits export to the same name '$name'; give one a different subject"
	# The author, where it is not the local identity (lib.sh: msg_author),
	# or where the subject itself starts with "From:".
	author=$(kgit log -1 --format='%an <%ae>' "$c")
	{
		[[ $author == "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" && $subject != From:* ]] || printf 'From: %s\n\n' "$author"
		cat "$new/msg"
	} >"$new/commit-msgs/$name"
	kgit diff --no-color --no-ext-diff --full-index "$c^" "$c" >"$new/patches/$name.diff"
	echo "$name" >>"$new/series.txt"
done
rm -f "$new/msg"
[[ -f $new/series.txt ]] || : >"$new/series.txt"

# A new series directory (someone else's series, first export) is made.
# Only the files of the exported patches are written; any other file in
# commit-msgs/ and patches/ (a patch the branch no longer has, a draft)
# is left where it is, and named.
mkdir -p "$SERIES_DIR/commit-msgs" "$SERIES_DIR/patches"
declare -A wrote=()
for f in "$new"/commit-msgs/* "$new"/patches/*; do
	[[ -e $f ]] || continue
	rel=${f#"$new"/}
	wrote[$rel]=1
	mv -f "$f" "$SERIES_DIR/$rel"
done
mv "$new/series.txt" "$SERIES_DIR/series.txt"
if [[ ! -f $SERIES_DIR/base ]]; then
	echo "$base" >"$SERIES_DIR/base"
	say "wrote $SERIES_DIR/base: the series is on $base"
fi
kept=()
while IFS= read -r -d '' f; do
	rel=${f#"$SERIES_DIR"/}
	[[ -n ${wrote[$rel]:-} ]] || kept+=("$rel")
done < <(find "$SERIES_DIR/commit-msgs" "$SERIES_DIR/patches" -mindepth 1 \( -type f -o -type l \) -print0 | sort -z)
# The record replay checks the branch against (replay.sh), whole or not at
# all: a write cut short must not leave it empty.
mkdir -p "$WORK/state"
stamp=$WORK/state/replayed-$BRANCH
printf '%s\n' "$tip" >"$stamp.tmp.$$" || die "could not write $stamp.tmp.$$ (is the disk full?); the series files are exported, run 'make export' again"
mv -f "$stamp.tmp.$$" "$stamp"
say "exported ${#commits[@]} commits of $BRANCH ($(short "$tip")) to $SERIES_DIR"
[[ ${#kept[@]} -eq 0 ]] ||
	say "left in place, not part of the exported series (series.txt does not list them; delete them if they are not wanted): ${kept[*]}"
