#!/usr/bin/env bash
# The before/after figures of one commit against its parent, for its
# changelog: the headline figures, plus every other figure that moved
# beyond the noise, as a table narrow enough for a commit message.
# usage: figures-for-commit.sh REV      (uses measurements already made)
. "$(dirname "$0")/lib.sh"

rev=${1:?usage: figures-for-commit.sh REV}
c=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit"
after=$("$TOP/scripts/measure.sh" "$c")
before=$("$TOP/scripts/measure.sh" "$c^")
headline='^(alloc|free)-o0-(pair|batch512|batch32768)-z0$|^hackbench|^tbench'
moved=$("$TOP/scripts/compare.sh" --tsv "before=$before" "after=$after" | awk -F'\t' '$6 == 1 { print $1 }' | paste -sd'|')
only="$headline${moved:+|^($moved)\$}"
"$TOP/scripts/compare.sh" --only "$only" "before=$before" "after=$after"
