#!/usr/bin/env bash
# Is a measured kernel a regression against the good kernel's distribution?
# Bad when the figure moved in the worse direction by more than THRESHOLD
# percent and Welch's t-test says the move is larger than the noise.
# Prints "good" or "bad" with the figures; exit 0 good, 1 bad, 2 unknown.
# THRESHOLD is a non-negative number, "%" after it allowed (run.sh says
# more); a bad one, or any figure bc cannot compare, is exit 2: never a
# verdict.
# usage: judge.sh GOOD.json TESTED.json METRIC [THRESHOLD%]
. "$(dirname "$0")/../scripts/lib/lib.sh"

good=${1:?usage: judge.sh GOOD.json TESTED.json METRIC [THRESHOLD%]}
tested=${2:?}
metric=${3:?}
threshold=${4:-${THRESHOLD:-2}}
num='^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)$'
[[ $threshold =~ ^([0-9]+(\.[0-9]+)?|\.[0-9]+)%?$ ]] ||
	{ say "THRESHOLD=$threshold: a percentage is a non-negative number, e.g. THRESHOLD=2, 0.5 or 5%"; exit 2; }
threshold=${threshold%\%}
# bc's answer to EXPR, which must be a number: bc prints its syntax
# errors and exits 0, and an empty answer would read as false.
calc() {
	local r
	if r=$(bc -l <<<"$1" 2>&1) && [[ $r =~ $num ]]; then
		echo "$r"
	else
		say "bc could not compute '$1': ${r:-no answer}"
		return 1
	fi
}
jq -e --arg m "$metric" '.samples[$m]' "$good" >/dev/null ||
	{ say "no figure '$metric' in $good (figures: $(jq -r '.samples | keys | join(" ")' "$good"))"; exit 2; }

read -r _ _ b v pct sig _ < <("$TOP/scripts/lib/compare.sh" --tsv --only "^$metric\$" "good=$good" "tested=$tested")
[[ -n ${pct:-} ]] || { say "no figure '$metric' in $tested"; exit 2; }
[[ $pct =~ $num && $sig =~ ^[01]$ ]] || { say "compare.sh gave '$pct' '$sig' for $metric, not a change and a mark"; exit 2; }
# Throughput (tbench) is better when higher; every other figure is a cost.
worse=$pct
if [[ $metric == tbench* ]]; then worse=$(calc "-1 * $pct") || exit 2; fi
beyond=$(calc "$worse > $threshold") || exit 2
if [[ $sig == 1 && $beyond == 1 ]]; then
	printf 'bad: %s %s -> %s (%+.2f%%, beyond the noise and the %s%% threshold)\n' "$metric" "$b" "$v" "$pct" "$threshold"
	exit 1
fi
printf 'good: %s %s -> %s (%+.2f%%%s)\n' "$metric" "$b" "$v" "$pct" "$([[ $sig == 1 ]] && echo ", significant but within $threshold%" || echo ", within the noise")"
