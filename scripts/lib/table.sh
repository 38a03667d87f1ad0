#!/usr/bin/env bash
# Format the rows of check.sh (tab separated on stdin) as a text or a
# Markdown table.
# usage: table.sh text|markdown
set -euo pipefail

head=$'commit\tsubject\tbuild s\tnew warn\tmatrix\tΔtext page_alloc.o\tboot s\tKUnit p/f/s\tin-tree p/f/s\tverdict\tnote'
case ${1:-text} in
text) { echo "$head"; cat; } | column -t -s $'\t' ;;
markdown)
	rule=$(tr -c '\t' - <<<"$head" | sed 's/-\+/---/g')
	{ echo "$head"; echo "$rule"; cat; } |
		sed 's/|/\\|/g; s/\t/ | /g; s/^/| /; s/$/ |/' ;;
*) echo "table.sh: unknown format '$1'" >&2; exit 2 ;;
esac
