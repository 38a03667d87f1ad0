#!/usr/bin/env bash
# scale-model.py: make check's jobs replayed on N machines, on a small
# table whose answers are worked out by hand.
# shellcheck disable=SC2016,SC2034 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# The base and two commits; builds 100, 10 and 20 s; boots side by side.
# The serial part of a build is the later builds' median, 15 s.
table() {
	printf '%s\n' \
		'commit        subject  build s  new warn  boot s   verdict' \
		'aaaaaaaaaaaa  (base)   100      0         50/20    pass' \
		'bbbbbbbbbbbb  one      10       0         40/30    pass' \
		'cccccccccccc  two      20       0         60/10    pass' >table
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

ok "a row without times stops the model, naming the file and the row" '
	table && sed -i "3s|40/30|-|" table &&
	must_fail scale-model.py table && must_say "table: a row without build or boot times: bbbbbbbbbbbb"
'

done_testing
