#!/usr/bin/env bash
# Every setting the host code reads is documented once, in docs/settings.md,
# and docs/settings.md names no setting that nothing reads (after ktest's
# check of sample.conf against ktest.pl).
# usage: check-settings.sh [TOP]     (TOP: the repository, default this one)
#
# A setting is a name the code reads with a fallback or a test for being set:
#   scripts/{,lib/}*.sh, bisect/*, qemu/*.sh ${NAME:-…} ${NAME-…} ${NAME:=…}
#                                       ${NAME=…} ${NAME:+…} ${NAME+…}
#   scripts/lib/*.py                    os.environ.get("NAME"
#   Makefile                            $(NAME), as in $(or $(REV),…), and
#                                       $(call flag,NAME,…); not the names
#                                       it assigns itself (S := scripts)
# Only upper-case names count: lower-case ones are a script's locals.  A
# name read as a prefix (os.environ.get("STEP_COND_" + name)) is documented
# as `STEP_COND_<function>`.
# qemu/guest/init runs in the guest and reads the kernel command line, not
# the host's environment: it is left out.
# docs/settings.md documents NAME in a table row that starts | `NAME` |.
# Prints each name that is read but not documented (with the files that
# read it) and each that is documented but not read; exit status 1 if any.
set -euo pipefail

TOP=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
doc=$TOP/docs/settings.md

# Names the code reads that are not settings for a user: each is set by
# one script for another, and documenting it would invite setting it.
internal=(
	PROG              # lib.sh: the name in messages, set by scripts that share one
	DEFAULT_KFLAVOR   # lib.sh: set by the measuring scripts before sourcing it; KFLAVOR is the setting
	GOOD_JSON         # bisect/run.sh to bisect/step.sh: the good endpoint's measurements
	PAGEALLOC_LOCKED  # lib.sh: the build lock, passed on to the steps of the job that holds it
	MAKECMDGOALS      # Makefile: make's own, the targets asked for
)

[[ -f $doc ]] || { echo "check-settings: $doc: no such file" >&2; exit 1; }

files=()
for f in "$TOP"/scripts/*.sh "$TOP"/scripts/lib/*.sh "$TOP"/scripts/lib/*.py "$TOP"/bisect/* "$TOP"/qemu/*.sh "$TOP"/Makefile; do
	[[ -f $f ]] && files+=("$f")
done

# NAME FILE lines, one per name and file that reads it.  Whole-line
# comments are left out: they may show a setting as an example.
reads() {
	local f
	for f in "${files[@]}"; do
		grep -v '^[[:space:]]*#' "$f" >"$tmp" || true
		case $f in
		*/Makefile)
			grep -oE '\$\([A-Z][A-Z0-9_]*\)|\$\(call flag,[A-Z][A-Z0-9_]*,' "$tmp" |
				sed -E 's/^\$\((call flag,)?([A-Z0-9_]+).*/\2/' |
				grep -vxF -f <(sed -nE 's/^([A-Z][A-Z0-9_]*)[[:space:]]*[:?+]?=.*/\1/p' "$tmp") ;;
		*.py) grep -oE 'os\.environ\.get\("[A-Z][A-Z0-9_]*"' "$tmp" | sed -E 's/.*\("(.*)"$/\1/' ;;
		*) grep -oE '\$\{[A-Z][A-Z0-9_]*:?[-=+]' "$tmp" | sed -E 's/^\$\{([A-Z0-9_]+).*/\1/' ;;
		esac | sort -u | sed "s|\$| ${f#"$TOP"/}|" || true # a file that reads none
	done
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

mapfile -t read_lines < <(reads | grep -vxE "($(
	IFS='|'
	echo "${internal[*]}"
)) .*" | sort)
mapfile -t read_names < <(printf '%s\n' "${read_lines[@]}" | cut -d' ' -f1 | sort -u)
# shellcheck disable=SC2016 # the backquotes are markdown's, not the shell's
mapfile -t doc_names < <(sed -nE 's/^\| *`([A-Z][A-Z0-9_]*)(<[a-z]+>)?` *\|.*/\1/p' "$doc" | sort -u)

mapfile -t missing < <(comm -23 <(printf '%s\n' "${read_names[@]}") <(printf '%s\n' "${doc_names[@]}"))
mapfile -t unread < <(comm -13 <(printf '%s\n' "${read_names[@]}") <(printf '%s\n' "${doc_names[@]}"))

rc=0
for n in "${missing[@]}"; do
	[[ -n $n ]] || continue
	where=$(printf '%s\n' "${read_lines[@]}" | awk -v n="$n" '$1 == n { printf "%s%s", s, $2; s = ", " }')
	echo "check-settings: $n is read by $where but not documented in docs/settings.md"
	rc=1
done
for n in "${unread[@]}"; do
	[[ -n $n ]] || continue
	echo "check-settings: $n is documented in docs/settings.md but no script reads it"
	rc=1
done
[[ $rc -ne 0 ]] || echo "check-settings: ${#read_names[@]} settings, each documented in docs/settings.md"
exit "$rc"
