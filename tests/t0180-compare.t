#!/usr/bin/env bash
# compare.sh: Welch's p-values, and the false-discovery-rate control that
# keeps a kernel which changes nothing from being marked as moving figures.
# shellcheck disable=SC2016,SC2034 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# FILE SEED SHIFT: 60 figures of 5 samples of the same noise (seeded), and
# a figure "moved" shifted by SHIFT.
noise() {
	awk -v seed="$2" -v shift="$3" 'BEGIN {
		srand(seed); printf "{\"samples\": {"
		for (f = 1; f <= 61; f++) {
			printf "%s\"%s\": [", (f > 1 ? "," : ""), (f <= 60 ? "fig" f : "moved")
			for (i = 1; i <= 5; i++) printf "%s%.3f", (i > 1 ? "," : ""), 100 + 10 * rand() + (f > 60 ? shift : 0)
			printf "]"
		}
		print "}}"
	}' >"$1"
}

ok "--narrow keeps every row of a changelog table within 75 columns once indented, the mark kept" '
	n=prof-hackbench-socket-allocator-page &&
	jq -n --arg n "$n" "{samples: {(\$n): [0.278,0.266,0.262,0.265,0.267], fig1: [1,1,1,1,1]}}" >b.json &&
	jq -n --arg n "$n" "{samples: {(\$n): [0.312,0.274,0.321,0.319,0.303], fig1: [1,1,1,1,1]}}" >k.json &&
	compare.sh --narrow before=b.json after=k.json | sed "s/^/  /" >out && cat out &&
	awk "length(\$0) > 75 { bad = 1 } END { exit bad }" out &&
	grep -E -- "^  $n .*\\(\\+14\\.28%\\) ?\\*$" out
'

ok "the p-value of Welch's test is the two-sided Student t tail" '
	jq -n "{samples: {a: [10,11,12,13,14]}}" >b.json && jq -n "{samples: {a: [12.776,13.776,14.776,15.776,16.776]}}" >k.json &&
	compare.sh --tsv base=b.json k=k.json >out && cat out &&
	test "$(cut -f7 out)" = 0.0241
'

ok "noise alone is not marked although single tests would mark some; a real move is" '
	noise b.json 1 0 && noise k.json 2 40 &&
	compare.sh --tsv base=b.json k=k.json >out &&
	awk -F"\t" "\$1 != \"moved\" && \$7 < 0.05" out >plain && test -s plain &&
	test "$(awk -F"\t" "\$6 == 1" out | cut -f1)" = moved
'

ok "a kernel identical to the base has no figure marked" '
	noise b.json 1 0 && compare.sh base=b.json same=b.json >out && ! grep -q "\*" out
'

done_testing
