#!/usr/bin/env bash
# Rewrite the measured part of each patch's changelog, commit-msgs/NAME:
# from the line "Measured with 'make bench'" (or a line "@FIGURES@") up to
# the trailers, it becomes make bench's before/after table for that commit
# (figures-for-commit.sh), its single-stepped order-0 counts (make step)
# and its mm/page_alloc.o text.  Measures what is not measured yet.
# Run 'make replay' afterwards to put the new messages on the branch.
# usage: refresh-figures.sh [NAME...]      (default: every patch)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"

ensure_series
mapfile -t names < <(series_names)
mapfile -t commits < <(kgit rev-list --reverse "$(base_tag)..$BRANCH")
[[ ${#names[@]} -eq ${#commits[@]} ]] ||
	die "$BRANCH has ${#commits[@]} commits for ${#names[@]} patches; run 'make replay'"

steps() { # COMMIT FUNCTION: the stepped instruction count
	"$TOP/scripts/step-fastpath.sh" "$1" >/dev/null &&
		awk 'NR == 1 { print $2; exit }' "$(result_dir "$1")/steps-$2.txt"
}
text() { jq -r .page_alloc_text "$(result_dir "$1")/build.json"; }

block() { # COMMIT
	local c=$1 p runs a0 a1 f0 f1 t0 t1
	p=$(kgit rev-parse "$c^")
	runs=$(jq .runs "$("$TOP/scripts/measure.sh" "$c")") &&
		a0=$(steps "$p" alloc_pages) && a1=$(steps "$c" alloc_pages) &&
		f0=$(steps "$p" __free_pages) && f1=$(steps "$c" __free_pages) &&
		t0=$(text "$p") && t1=$(text "$c") || return 1
	cat <<TEXT
Measured with 'make bench' (scripts/figures-for-commit.sh on this
commit): pa_bench, hackbench and tbench in QEMU -icount shift=0 on one
CPU with init_on_alloc=0, $runs boots per kernel each with a different
unused command-line word; "ns" are guest instructions, alloc-oN and
free-oN the per-call median at order N, '*' a change beyond the noise
(Welch's t-test, 95%):

TEXT
	"$TOP/scripts/figures-for-commit.sh" "$c" | sed 's/^/  /'
	[[ ${PIPESTATUS[0]} -eq 0 ]] || return 1
	cat <<TEXT

One order-0 alloc_pages() and one __free_pages() single-stepped in QEMU
('make step'): $a0 -> $a1 and $f0 -> $f1 instructions.

mm/page_alloc.o text (guest config): $t0 -> $t1 bytes ($((t1 - t0))).
TEXT
}

for want in "$@"; do
	[[ " ${names[*]} " == *" $want "* ]] || die "no patch named '$want' in series.txt"
done
for i in "${!names[@]}"; do
	name=${names[$i]}
	[[ $# -eq 0 || " $* " == *" $name "* ]] || continue
	msg=$SERIES_DIR/commit-msgs/$name
	grep -q -e "^Measured with 'make bench'" -e '^@FIGURES@$' "$msg" ||
		die "commit-msgs/$name has no figures to refresh (add a line @FIGURES@ before the trailers)"
	progress "$((i + 1))" "${#names[@]}" "figures for $name"
	b=$(mktemp)
	block "${commits[$i]}" >"$b" || die "$name: could not measure $(short "${commits[$i]}")"
	awk -v blockfile="$b" '
		!skip && (/^Measured with .make bench./ || /^@FIGURES@$/) {
			while ((getline l < blockfile) > 0) print l
			print ""; skip = 1; next
		}
		skip && /^(Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Link|Fixes|Cc): / { skip = 0 }
		!skip { print }' "$msg" >"$msg.new"
	rm -f "$b"
	mv "$msg.new" "$msg"
done
