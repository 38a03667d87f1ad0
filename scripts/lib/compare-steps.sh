#!/usr/bin/env bash
# Compare two kernels' single-stepped fast paths (step.sh output):
# per function, the instructions each executed and the function's size in
# bytes (from each kernel's System.map: the distance to the next symbol).
# Exit status 0 when every count is identical, 1 when any differs; the
# differing functions are marked.
# usage: compare-steps.sh NAME_A=DIR_A NAME_B=DIR_B    (STEP_FUNCS as step.sh)
. "$(dirname "$0")/lib.sh"

[[ $# -eq 2 && $1 == *=* && $2 == *=* ]] || die "usage: compare-steps.sh NAME_A=DIR_A NAME_B=DIR_B"
na=${1%%=*} da=${1#*=} nb=${2%%=*} db=${2#*=}
funcs=${STEP_FUNCS:-alloc_pages __free_pages}
for d in "$da" "$db"; do
	[[ -f $d/System.map ]] || die "$d/System.map: no such file"
	for f in $funcs; do
		[[ -f $d/steps-$f.txt ]] || die "$d/steps-$f.txt: no such file (run step.sh)"
	done
done

# "name size" for every text symbol of a System.map.
sizes() {
	awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' "$1" | LC_ALL=C sort |
		perl -ane 'printf "%s %d\n", $n, hex($F[0]) - hex($a) if defined $n; ($a, $n) = @F' |
		LC_ALL=C sort -k1,1
}
# "function count" lines of one steps file: between its header and the blank line.
counts() { sed -n '2,/^$/{/^$/d;p}' "$1" | awk '{ print $2, $1 }' | LC_ALL=C sort -k1,1; }
total() { head -n1 "$1" | awk '{ print $2 }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes "$da/System.map" >"$tmp/sa"
sizes "$db/System.map" >"$tmp/sb"
differ=0
for f in $funcs; do
	echo "$f"
	printf '  %-28s %10s %10s   %10s %10s\n' function "$na" "$nb" "bytes $na" "bytes $nb"
	LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,2.2 <(counts "$da/steps-$f.txt") <(counts "$db/steps-$f.txt") |
		LC_ALL=C join -a1 -e- -o 0,1.2,1.3,2.2 - "$tmp/sa" |
		LC_ALL=C join -a1 -e- -o 0,1.2,1.3,1.4,2.2 - "$tmp/sb" |
		sort -k2,2nr -k1,1 >"$tmp/rows"
	while read -r fn x y sx sy; do
		mark=''
		[[ $x == "$y" ]] || { mark='  <- differs'; differ=1; }
		printf '  %-28s %10s %10s   %10s %10s%s\n' "$fn" "$x" "$y" "$sx" "$sy" "$mark"
	done <"$tmp/rows"
	printf '  %-28s %10s %10s\n\n' total "$(total "$da/steps-$f.txt")" "$(total "$db/steps-$f.txt")"
done
if [[ $differ -eq 0 ]]; then
	say "$na and $nb execute the same instructions per function on both fast paths"
else
	say "$na and $nb differ on the functions marked"
fi
exit $differ
