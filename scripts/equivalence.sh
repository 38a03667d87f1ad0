#!/usr/bin/env bash
# Does a kernel run the same order-0 fast paths as Debian's own binary?
# Steps one alloc_pages() and one __free_pages() in both (step-fastpath.sh)
# and prints, function by function, the instructions each executed and the
# function's size in bytes (from each kernel's System.map: the distance to
# the next symbol).  Exit status 0 when every count is identical, 1 when
# any differs; the differing functions are named.
# usage: equivalence.sh [REV [OTHER]]      (default: the base, and debian)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"

a=${1:-$(base_tag)} b=${2:-debian}
funcs=${STEP_FUNCS:-alloc_pages __free_pages}
dirs=()
for r in "$a" "$b"; do
	"$TOP/scripts/step-fastpath.sh" "$r" >/dev/null || die "$r: could not be stepped"
	resolve_kernel "$r"
	dirs+=("$K_DIR")
done

# NAME ADDRESS lines of one System.map, each with its size.
sizes() {
	awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' "$1" | LC_ALL=C sort |
		perl -ane 'printf "%s %d\n", $n, hex($F[0]) - hex($a) if defined $n; ($a, $n) = @F'
}
sizes "${dirs[0]}/System.map" >"${dirs[0]}/sizes.txt.tmp" && mv "${dirs[0]}/sizes.txt.tmp" "${dirs[0]}/sizes.txt"
sizes "${dirs[1]}/System.map" >"${dirs[1]}/sizes.txt.tmp" && mv "${dirs[1]}/sizes.txt.tmp" "${dirs[1]}/sizes.txt"

differ=0
for f in $funcs; do
	printf '%s\n' "$f"
	printf '  %-28s %8s %8s   %8s %8s\n' function "$a" "$b" "bytes $a" "bytes $b"
	# Counts: the lines between the header and the blank line of each file.
	out=$(LC_ALL=C join -a1 -a2 -e0 -o 0,1.2,2.2 \
		<(sed -n '2,/^$/{/^$/d;p}' "${dirs[0]}/steps-$f.txt" | awk '{ print $2, $1 }' | LC_ALL=C sort) \
		<(sed -n '2,/^$/{/^$/d;p}' "${dirs[1]}/steps-$f.txt" | awk '{ print $2, $1 }' | LC_ALL=C sort) |
		sort -k2,2nr -k1,1 | while read -r fn x y; do
			sx=$(awk -v n="$fn" '$1 == n { print $2; exit }' "${dirs[0]}/sizes.txt")
			sy=$(awk -v n="$fn" '$1 == n { print $2; exit }' "${dirs[1]}/sizes.txt")
			mark=''
			[[ $x == "$y" ]] || mark='  <- differs'
			printf '  %-28s %8s %8s   %8s %8s%s\n' "$fn" "$x" "$y" "${sx:--}" "${sy:--}" "$mark"
		done)
	printf '%s\n' "$out"
	ta=$(head -n1 "${dirs[0]}/steps-$f.txt" | awk '{ print $2 }')
	tb=$(head -n1 "${dirs[1]}/steps-$f.txt" | awk '{ print $2 }')
	printf '  %-28s %8s %8s\n\n' total "$ta" "$tb"
	grep -q 'differs' <<<"$out" && differ=1
done
if [[ $differ -eq 0 ]]; then
	say "$a and $b execute the same instructions per function on both fast paths"
else
	say "$a and $b differ on the functions marked"
fi
exit $differ
