#!/usr/bin/env bash
# scale-model.py: make check's jobs replayed on N machines, on small
# tables whose answers are worked out by hand, and on the rows a fixture
# make check leaves.
# shellcheck disable=SC2016,SC2034 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# The base and two commits, as check.sh leaves them in check-table.tsv:
# builds 100, 10 and 20 s; boots side by side.  The serial part of a
# build is the later builds' median, 15 s.
table() {
	printf '%s\t%s\t%s\t0\t-\t0\t%s\t2/0/0\t0/0/0\tpass\t\n' \
		aaaaaaaaaaaa "(base)  two spaces" 100 50/20 \
		bbbbbbbbbbbb one 10 40/30 \
		cccccccccccc two 20 60/10 >table
}

ok "one machine: each commit's boots wait for its build and for the commit before" '
	# built at 100, 110, 130 s; booted at 150, 190, 250 s
	table && scale-model.py table --matrix 0 --hosts 1 >out &&
	must_say "^\| 1 \| 4 min 10 s \| 1 min 45 s \|$" out
'

ok "more machines: the cold compiles spread, the commits boot on hosts of their own" '
	# 2: built at 57.5, 67.5, 87.5 s; one host: 107.5, 147.5, 207.5 s
	# 4: built at 36.25, 46.25, 66.25 s; three hosts: the last ends at 126.25 s
	table && scale-model.py table --matrix 0 --hosts 2,4 >out &&
	must_say "^\| 2 \| 3 min 27 s \|" out && must_say "^\| 4 \| 2 min 6 s \|" out
'

ok "the build matrix and a cold build given apart count in every commit's build" '
	# built at 15 + 185 + 10 = 210, 230, 260 s; booted at 260, 300, 360 s
	table && scale-model.py table --matrix 10 --cold 200 --hosts 1 >out &&
	must_say "^\| 1 \| 6 min 0 s \|" out
'

ok "one machine: a commit builds once the commit before has started booting" '
	# serial part 35 s; built at 100, 110 s; the third build starts at
	# 150 s, when the second commit boots: built at 210 s, booted at 270 s
	table && sed -i "3s/\t20\t/\t60\t/" table && scale-model.py table --matrix 0 --hosts 1 >out &&
	must_say "^\| 1 \| 4 min 30 s \|" out
'

ok "a row without times stops the model, naming the file and the line" '
	table && sed -i "2s|40/30|-|" table &&
	must_fail scale-model.py table && must_say "table:2: no build and boot times in: bbbbbbbbbbbb"
'

ok "the rows make check leaves are what the model reads" '
	fake_check_setup && patch_from one "mm: one" "s/return 1/return 2/" &&
	check.sh >/dev/null 2>&1 && test "$(wc -l <work/check-table.tsv)" = 2 &&
	scale-model.py work/check-table.tsv --hosts 1,2 >out && must_say "^2 commits;" out &&
	must_say "^\| 2 \| [0-9]+ min [0-9]+ s \|" out
'

done_testing
