#!/usr/bin/env bash
# Print, as a markdown table, what became of each patch of a series on
# another kernel line: carried (listed in the other series directory),
# upstream (its files in that directory's dropped/, with the commit its
# Upstream-commit trailer names), or not carried yet.
# usage: line-status.sh OTHER_SERIES_DIR   (SERIES_DIR is the first series)
. "$(dirname "$0")/lib.sh"

other=${1:?usage: line-status.sh OTHER_SERIES_DIR}
[[ -f $other/series.txt ]] || die "$other/series.txt: no such file"
first=$(series_base_line) && second=$(SERIES_DIR=$other series_base_line) || exit 1
listed() { grep -v '^#' "$1/series.txt" | grep -qxF -- "$2"; }

echo "| # | patch | ${first#base/} | ${second#base/} |"
echo "|---|---|---|---|"
i=0
while read -r name; do
	i=$((i + 1))
	if listed "$other" "$name"; then
		s=carried
	elif [[ -f $other/dropped/$name.msg ]]; then
		up=$(upstream_commit "$other/dropped/$name.msg")
		s="upstream${up:+, ${up%% *}}"
	else
		s="not carried yet"
	fi
	echo "| $i | $name | carried | $s |"
done < <(series_names)
