#!/usr/bin/env bash
# Commit mutations (tests/mutations/*.diff) on top of a commit of the
# kernel tree, one commit each as try-patch.sh makes them, and print the
# last one's id.  A mutation written with PA_MUTANT(name) is live only in
# a kernel booted with pa_mutant=NAME, so one kernel can carry several;
# it needs the switch, committed first when REV lacks it: the series
# directory's mutation-switch.diff (the 6.12 series has one: the switch's
# context differs there), else tests/lib/pa-mutant-switch.diff.  A plain
# mutation is live in every boot.
# usage: try-mutation.sh REV DIFF...
. "$(dirname "$0")/lib.sh"

[[ $# -ge 2 ]] || die "usage: try-mutation.sh REV DIFF..."
c=$(kgit rev-parse --verify -q "$1^{commit}") || die "$1: no such commit in $KTREE"
shift
switch=$TOP/tests/lib/pa-mutant-switch.diff
[[ ! -f $SERIES_DIR/mutation-switch.diff ]] || switch=$SERIES_DIR/mutation-switch.diff
for diff; do
	if grep -q 'PA_MUTANT(' "$diff" && ! kgit cat-file -e "$c:include/linux/pa_mutant.h" 2>/dev/null; then
		c=$("$TOP/scripts/lib/try-patch.sh" "$c" "$switch" "mutation switch: pa_mutant=") || exit 1
	fi
	c=$("$TOP/scripts/lib/try-patch.sh" "$c" "$diff" "mutation: $(basename "$diff")") || exit 1
done
echo "$c"
