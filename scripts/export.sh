#!/usr/bin/env bash
# The way back from the kernel tree: rewrite series.txt, commit-msgs/ and
# patches/ from the commits on $BRANCH after a developer edited them there.
. "$(dirname "$0")/lib.sh"

base=$(base_tag)
tip=$(kgit rev-parse -q --verify "refs/heads/$BRANCH") || die "no branch $BRANCH in $KTREE; run 'make replay'"
kgit merge-base --is-ancestor "$base" "$tip" || die "$BRANCH is not based on $base"
mapfile -t commits < <(kgit rev-list --reverse "$base..$tip")
[[ -z $(kgit rev-list --merges "$base..$tip") ]] || die "$BRANCH contains merge commits; a series is linear"

# A commit keeps the name of the patch whose subject it carries, so that a
# reworded body or a changed diff does not rename files.
declare -A by_subject=()
if [[ -f $SERIES_DIR/series.txt ]]; then
	while IFS= read -r name; do
		[[ -f $SERIES_DIR/commit-msgs/$name ]] || continue
		by_subject[$(head -n1 "$SERIES_DIR/commit-msgs/$name")]=$name
	done < <(series_names)
fi
slug() { tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9_]+/-/g; s/^-+//; s/-+$//' | cut -c1-60 | sed 's/-$//'; }

new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
mkdir -p "$new/commit-msgs" "$new/patches"
header=$(grep '^#' "$SERIES_DIR/series.txt" 2>/dev/null || true)
[[ -z $header ]] || printf '%s\n' "$header" >"$new/series.txt"
for c in "${commits[@]}"; do
	subject=$(kgit log -1 --format=%s "$c")
	name=${by_subject[$subject]:-$(printf '%s' "$subject" | slug)}
	[[ ! -e $new/patches/$name.diff ]] || die "two commits export to the same name '$name'; give one a different subject"
	# The files keep no sign-off of the replaying identity: replay adds it.
	kgit log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
		awk -v s="$SIGNOFF" '{ l[NR] = $0 } END { n = NR; if (l[n] == s) n--; while (n > 0 && l[n] == "") n--; for (i = 1; i <= n; i++) print l[i] }' \
		>"$new/commit-msgs/$name"
	kgit diff --no-color --no-ext-diff --full-index "$c^" "$c" >"$new/patches/$name.diff"
	echo "$name" >>"$new/series.txt"
done
[[ -f $new/series.txt ]] || : >"$new/series.txt"

# A new series directory (someone else's series, first export) is made.
mkdir -p "$SERIES_DIR"
rm -rf "$SERIES_DIR/commit-msgs" "$SERIES_DIR/patches"
mv "$new/commit-msgs" "$new/patches" "$SERIES_DIR/"
mv "$new/series.txt" "$SERIES_DIR/series.txt"
mkdir -p "$WORK/state"
echo "$tip" >"$WORK/state/replayed-$BRANCH"
say "exported ${#commits[@]} commits of $BRANCH ($(short "$tip")) to $SERIES_DIR"
