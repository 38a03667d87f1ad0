#!/usr/bin/env bash
# Print, as a markdown table, what became of each patch of a series on
# another kernel line: carried (listed in the other series directory, its
# changed lines those of the first: only the context moved), ported
# (listed, its changes rewritten for the other line's code), upstream (its files in that directory's dropped/, with the commit its
# Upstream-commit trailer names), or not carried yet.
# usage: line-status.sh OTHER_SERIES_DIR   (SERIES_DIR is the first series)
. "$(dirname "$0")/lib.sh"

other=${1:?usage: line-status.sh OTHER_SERIES_DIR}
[[ -f $other/series.txt ]] || die "$other/series.txt: no such file"
first=$(series_base_line) && second=$(SERIES_DIR=$other series_base_line) || exit 1
listed() { grep -v '^#' "$1/series.txt" | grep -qxF -- "$2"; }
# The lines a patch adds and removes, in order, without the file names.
changes() { grep -E '^[-+]' "$1" | grep -vE '^(---|\+\+\+) '; }
rewritten() { # NAME: both series have its diff, and their changes differ
	local a=$SERIES_DIR/patches/$1.diff b=$other/patches/$1.diff
	[[ -f $a && -f $b ]] && ! cmp -s <(changes "$a") <(changes "$b")
}

echo "| # | patch | ${first#base/} | ${second#base/} |"
echo "|---|---|---|---|"
i=0
while read -r name; do
	i=$((i + 1))
	if listed "$other" "$name"; then
		s=carried
		! rewritten "$name" || s=ported
	elif [[ -f $other/dropped/$name.msg ]]; then
		up=$(upstream_commit "$other/dropped/$name.msg")
		s="upstream${up:+, ${up%% *}}"
	else
		s="not carried yet"
	fi
	echo "| $i | $name | carried | $s |"
done < <(series_names)
