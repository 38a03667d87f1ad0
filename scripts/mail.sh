#!/usr/bin/env bash
# Prepare the series for the mailing list with b4, without sending it:
# enroll a copy of the replayed branch against the imported base, set the
# cover letter (mail/cover-letter.txt with the measured table filled in)
# without an editor, take To/Cc from the tree's get_maintainer.pl, and
# write the mails with `b4 send -o` under $WORK/mail/vN/.
# usage: mail.sh [REVISION]     (REVISION > 1 adds a range-diff against v(N-1))
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"

rev=${1:-1}
# A patch goes out under the sender's own Signed-off-by (the DCO).
[[ $GIT_AUTHOR_EMAIL != "$PLACEHOLDER_EMAIL" ]] ||
	die "the series carries the placeholder identity '$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>': set yours with 'git config --global user.name \"Your Name\"' and 'git config --global user.email you@example.com' (or SERIES_AUTHOR_NAME and SERIES_AUTHOR_EMAIL), then run make mail again"
[[ $rev =~ ^[1-9][0-9]*$ ]] || die "REROLL=$rev: a revision is a number from 1"
ensure_series >/dev/null
base=$(base_tag)
tip=$(kgit rev-parse "refs/heads/$BRANCH")
[[ $tip != "$(kgit rev-parse "$base^{commit}")" ]] || die "the series is empty: nothing to mail"
[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
	die "$KTREE has uncommitted changes; commit them and run 'make export' first"
# Another series (SERIES_DIR, BRANCH) brings its own cover letter and
# gets mail and b4 branches of its own.
letter=$SERIES_DIR/mail/cover-letter.txt
[[ -f $letter ]] || die "$letter: no cover letter for the series in $SERIES_DIR (mail/cover-letter.txt of this project shows the placeholders: @TABLE@, @BLOAT@, @DEBVER@, @UPSTREAM@, @DEBABI@)"
out=$WORK/mail/v$rev mb=b4/pagealloc tags=mail
if [[ $BRANCH != series ]]; then
	out=$WORK/mail/$BRANCH/v$rev mb=b4/$BRANCH tags=mail/$BRANCH
fi

# The cover letter: our text, the table measured by make bench, the
# maintainers of what the series touches, and for a reroll the range-diff.
cover=$(mktemp) table=$(mktemp) bloat=$(mktemp)
trap 'rm -f "$cover" "$table" "$bloat"' EXIT
# The table is computed again from the measurements make bench recorded,
# in plain text whatever format the last make bench printed: the headline
# rows of it, the marks decided over every figure.  The letter's own text
# says how the figures were taken; make bench's header is for us.
[[ -f $RESULTS/bench-latest.json ]] || die "no benchmark results in $RESULTS; run 'make bench' first"
mapfile -t inputs < <(jq -r '.inputs[]' "$RESULTS/bench-latest.json")
"$TOP/scripts/lib/compare.sh" --show "$HEADLINE" "${inputs[@]}" >"$table"
# Text growth as maintainers read it: bloat-o-meter on each object the
# series changes, base against tip, in the config of the bench results
# (it builds them if need be, and leaves HEAD where it was).
orig=$(current_head)
if grep -qx '@BLOAT@' "$letter"; then
	"$TOP/scripts/bloat.sh" "$base" "$tip" >"$bloat" || die "scripts/bloat.sh $base $tip failed"
	sed -i 's/^/  /' "$bloat"
fi
# Recipients a maintainer would choose: the MAINTAINERS entries of the
# files touched (no keyword matches, no git history), maintainers in To,
# lists in Cc; reviewers are left to the lists.  Files that several
# patches touch give the series' recipients (cover letter and every
# patch); a file that one patch alone touches adds its people to that
# patch only, as Cc: trailers of the mailed copy.
# usage: recipients FILE...   (prints "To: x" / "Cc: x" lines)
recipients() {
	(cd "$KTREE" && printf -- '-f\n%s\n' "$@" | xargs perl scripts/get_maintainer.pl \
		--nokeywords --no-git --no-git-fallback --no-tree 2>/dev/null) |
		sed -nE 's/^(.*) \((maintainer):.*$/To: \1/p; s/^([^ ]+@[^ ]+) \((open )?list.*$/Cc: \1/p' | awk '!seen[$0]++'
}
declare -A touched=()
for c in $(kgit rev-list --reverse "$base..$tip"); do
	for f in $(kgit diff-tree --no-commit-id --name-only -r "$c"); do touched[$f]=$((${touched[$f]:-0} + 1)); done
done
mapfile -t shared < <(for f in "${!touched[@]}"; do [[ ${touched[$f]} -lt 2 ]] || echo "$f"; done | sort)
[[ ${#shared[@]} -gt 0 ]] || mapfile -t shared < <(printf '%s\n' "${!touched[@]}" | sort)
mapfile -t people < <(recipients "${shared[@]}")
[[ ${#people[@]} -gt 0 ]] || die "get_maintainer.pl named nobody for: ${shared[*]}"

{
	version=$(debian_version "$base")
	image=$(debian_image_package "$version")
	# Values are data: fill-cover.sh substitutes them literally.
	"$TOP/scripts/lib/fill-cover.sh" --file TABLE="$table" --file BLOAT="$bloat" --text DEBVER="$version" \
		--text UPSTREAM="v${version%%-*}" --text DEBABI="${image#linux-image-} $version" "$letter" ||
		die "$letter: the cover letter could not be filled"
	if [[ $rev -gt 1 ]]; then
		prev=$(kgit rev-parse -q --verify "refs/tags/$tags/v$((rev - 1))") ||
			die "no $tags/v$((rev - 1)) tag in $KTREE: make v$((rev - 1)) first"
		printf '\nChanges since v%s (git range-diff):\n\n' "$((rev - 1))"
		kgit range-diff --no-color "$base..$prev" "$base..$tip" | sed 's/^/  /'
	fi
	echo
	echo "---"
	printf '%s\n' "${people[@]}"
} >"$cover"

# b4 works on a checked-out branch (it refuses a detached HEAD) and keeps
# the cover letter in the branch description, leaving the commits as they
# are.  Start from a fresh copy of the series every time.
# The checkouts below must not happen under a running build.
take_build_lock
restore() { kgit checkout -q "$orig" 2>/dev/null || true; rm -f "$cover" "$table" "$bloat"; }
trap restore EXIT
kgit config b4.prep-cover-strategy branch-description
kgit config user.name "$GIT_AUTHOR_NAME"
kgit config user.email "$GIT_AUTHOR_EMAIL"
# b4 0.12 wants the fork base on a branch of its own, and finds it with
# `git merge-base --fork-point`, which also consults that branch's reflog:
# the branch is made anew each time so that no old position is found.
# Mails are only written (-o); the SMTP setting just keeps b4 from
# insisting on a signing key for its web endpoint, and no key is needed.
kgit config sendemail.smtpserver localhost
kgit checkout -q --detach
kgit branch -D -q "$mb" 2>/dev/null || true
kgit branch -D -q pagealloc-base 2>/dev/null || true
kgit branch pagealloc-base "$base"
# The mailed copy: each patch gains Cc: trailers for the people of the
# files only it touches, beyond the series' recipients.
mtip=$(kgit rev-parse "$base^{commit}")
for c in $(kgit rev-list --reverse "$base..$tip"); do
	own=()
	for f in $(kgit diff-tree --no-commit-id --name-only -r "$c"); do
		[[ ${touched[$f]} -gt 1 ]] || own+=("$f")
	done
	trailers=()
	if [[ ${#own[@]} -gt 0 ]]; then
		while IFS= read -r r; do
			printf '%s\n' "${people[@]}" | grep -qxF -- "To: ${r#*: }" && continue
			printf '%s\n' "${people[@]}" | grep -qxF -- "Cc: ${r#*: }" && continue
			trailers+=(--trailer "Cc: ${r#*: }")
		done < <(recipients "${own[@]}")
	fi
	# Each patch keeps its author (commit-tree would take the sender's
	# from lib.sh): b4 then puts a From: line in the body of the mail.
	# An Upstream-commit: trailer is for make rebase, not for the list
	# (the changelog says in words where mainline made the change).
	mtip=$(kgit log -1 --format=%B "$c" | sed '/^Upstream-commit: /d' |
		git interpret-trailers --where start "${trailers[@]}" |
		GIT_AUTHOR_NAME=$(kgit log -1 --format=%an "$c") GIT_AUTHOR_EMAIL=$(kgit log -1 --format=%ae "$c") \
			GIT_AUTHOR_DATE=$(kgit log -1 --format=%aI "$c") kgit commit-tree "$c^{tree}" -p "$mtip")
done
kgit checkout -q -b "$mb" "$mtip"
(cd "$KTREE" && b4 prep -e pagealloc-base >/dev/null 2>&1) || die "b4 prep -e pagealloc-base failed"
# b4 splits EDITOR into words as a shell would (shlex) and runs no shell:
# the path goes in single quotes, any ' in it as '\''.
q=\'
(cd "$KTREE" && EDITOR="cp -- '${cover//"$q"/"$q\\$q$q"}'" b4 prep --edit-cover >/dev/null 2>&1) || die "b4 could not set the cover letter"
rm -rf "$out"
mkdir -p "$out"
(cd "$KTREE" && b4 prep --force-revision "$rev" >/dev/null 2>&1) || die "b4 could not set revision $rev"
(cd "$KTREE" && b4 send --no-sign -o "$out" >"$out.log" 2>&1) || die "b4 send -o failed: $(tail -n3 "$out.log")"
n=$(find "$out" -name '*.eml' | wc -l)
want=$(($(kgit rev-list --count "$base..$tip") + 1))
[[ $n -eq $want ]] || die "b4 wrote $n mails for a series of $((want - 1)) patches and a cover letter (see $out.log)"
# b4 0.12 names the parent of the base as base-commit, which does not
# exist for an imported tree (the base is a root commit) and would not be
# found by anyone else: the cover letter states the base in words instead.
{ grep -l '^base-commit: ' "$out"/*.eml || true; } | while read -r m; do
	b=$(sed -n 's/^base-commit: //p' "$m" | head -n1)
	kgit cat-file -e "$b^{commit}" 2>/dev/null || sed -i '/^base-commit: /d' "$m"
done
kgit tag -f "$tags/v$rev" "$tip" >/dev/null
say "v$rev: $n mails in $out (nothing was sent; to send: cd $KTREE && git checkout $mb && b4 send)"
