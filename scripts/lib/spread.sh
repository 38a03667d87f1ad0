#!/usr/bin/env bash
# How much each figure varies from boot to boot: its coefficient of
# variation (sample standard deviation over mean, in %) over the boots of
# each measured set, one row per set and figure matching REGEX.
# usage: spread.sh REGEX NAME=BENCH.json...
. "$(dirname "$0")/lib.sh"

figs=${1:?usage: spread.sh REGEX NAME=BENCH.json...}
shift
[[ $# -ge 1 ]] || die "usage: spread.sh REGEX NAME=BENCH.json..."
for a in "$@"; do
	jq -r --arg n "${a%%=*}" --arg f "$figs" '.samples | to_entries[] | select(.key | test($f)) |
		(.value | add / length) as $m |
		(.value | map(. - $m | . * .) | add / ((length - 1) | if . < 1 then 1 else . end) | sqrt) as $sd |
		"\($n)\t\(.key)\t\(.value | length) boots\tcv \(if $m == 0 then 0 else ($sd / $m * 1000 | round / 10) end)%"' \
		"${a#*=}" || die "${a#*=}: not a measured set"
done | column -t -s $'\t'
