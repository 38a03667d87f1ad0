#!/usr/bin/env bash
# Is a measured kernel a regression against the good kernel's distribution?
# Bad when the figure moved in the worse direction by more than THRESHOLD
# percent and Welch's t-test says the move is larger than the noise.
# Prints "good" or "bad" with the figures; exit 0 good, 1 bad, 2 unknown.
# usage: judge.sh GOOD.json TESTED.json METRIC [THRESHOLD%]
. "$(dirname "$0")/../scripts/lib.sh"

good=${1:?usage: judge.sh GOOD.json TESTED.json METRIC [THRESHOLD%]}
tested=${2:?}
metric=${3:?}
threshold=${4:-${THRESHOLD:-2}}
jq -e --arg m "$metric" '.samples[$m]' "$good" >/dev/null ||
	{ say "no figure '$metric' in $good (figures: $(jq -r '.samples | keys | join(" ")' "$good"))"; exit 2; }

read -r _ _ b v pct sig _ < <("$TOP/scripts/compare.sh" --tsv --only "^$metric\$" "good=$good" "tested=$tested")
[[ -n ${pct:-} ]] || { say "no figure '$metric' in $tested"; exit 2; }
# Throughput (tbench) is better when higher; every other figure is a cost.
worse=$pct
[[ $metric == tbench* ]] && worse=$(echo "-1 * $pct" | bc -l)
if [[ $sig == 1 ]] && (($(echo "$worse > $threshold" | bc -l))); then
	printf 'bad: %s %s -> %s (%+.2f%%, beyond the noise and the %s%% threshold)\n' "$metric" "$b" "$v" "$pct" "$threshold"
	exit 1
fi
printf 'good: %s %s -> %s (%+.2f%%%s)\n' "$metric" "$b" "$v" "$pct" "$([[ $sig == 1 ]] && echo ", significant but within $threshold%" || echo ", within the noise")"
