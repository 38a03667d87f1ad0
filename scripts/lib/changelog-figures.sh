#!/usr/bin/env bash
# The before/after figures of one commit against its parent, for its
# changelog: the headline figures as a table narrow enough for a commit
# message, then one line summing up every other figure that moved beyond
# the noise.  Uses the measurements make bench made (measure.sh's cache).
# usage: changelog-figures.sh REV
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"

rev=${1:?usage: changelog-figures.sh REV}
c=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit"
after=$("$TOP/scripts/lib/measure-sets.sh" "$c")
before=$("$TOP/scripts/lib/measure-sets.sh" "$c^")
"$TOP/scripts/lib/compare.sh" --narrow --show "$HEADLINE" "before=$before" "after=$after"
"$TOP/scripts/lib/compare.sh" --tsv "before=$before" "after=$after" | PA_HEADLINE=$HEADLINE awk -F'\t' '
	$1 ~ ENVIRON["PA_HEADLINE"] { next }
	{ n++ }
	$6 == 1 && $5 < 0 { b++; if (!bmin || $5 < bmin) bmin = $5; if (!bmax || $5 > bmax) bmax = $5 }
	$6 == 1 && $5 > 0 { w++; if (!wmin || $5 < wmin) wmin = $5; if (!wmax || $5 > wmax) wmax = $5 }
	END {
		printf "Other figures: %d of %d", b + w, n
		printf " moved beyond the noise; %d cheaper", b
		if (b) printf " (%.2f%% to %.2f%%)", bmax, bmin
		printf ", %d dearer", w
		if (w) printf " (+%.2f%% to +%.2f%%)", wmin, wmax
		print "."
	}' | fold -s -w 70 | sed 's/ *$//'
