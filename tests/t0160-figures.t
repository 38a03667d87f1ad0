#!/usr/bin/env bash
# make figures: the measured part of a changelog is rewritten from the
# measurements (make bench's cache, make step, the build's text size), the
# rest of the message is kept, a rerun changes nothing, and a message with
# nothing to refresh is refused by name.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

small_bench
ok "a small measurement of every commit, for the figures" "test $? -eq 0"
# A copy of the series files, so that the repository's are not touched.
export SERIES_DIR=$T_SCRATCH/series
mkdir -p "$SERIES_DIR"
cp -r "$T_TOP/series.txt" "$T_TOP/base" "$T_TOP/commit-msgs" "$T_TOP/patches" "$SERIES_DIR/"
pname=$(series_names | tail -n1)
msg=$SERIES_DIR/commit-msgs/$pname
export pname msg

ok "the last patch's figures are rewritten from what was measured, the rest kept" '
	sed -i -E "/^Measured (with .make bench.|in QEMU)/,\$d" "$msg" && echo @FIGURES@ >>"$msg" &&
	head -n3 "$msg" >head.before &&
	figures.sh "$pname" && cat "$msg" &&
	head -n3 "$msg" | cmp - head.before &&
	c=$(kgit rev-parse "$BRANCH") && rdir=$(result_dir "$c") && prdir=$(result_dir "$c^") &&
	grep -q "alloc-o0-pair-z0" "$msg" &&
	grep -qx "Text, minimal config: mm/page_alloc.o $(jq .page_alloc_text "$prdir/build.json") -> $(jq .page_alloc_text "$rdir/build.json") bytes (.*)," "$msg" &&
	grep -q "^Measured in QEMU 7.2 " "$msg" && ! grep -q "make bench" "$msg" &&
	a=$(awk "NR == 1 { print \$2 }" "$rdir/steps-alloc_pages.txt") &&
	grep -q -- "-> $a and" "$msg" &&
	tail -n1 "$msg" | grep -q "^mm/mempolicy.o " && ! grep -q @FIGURES@ "$msg"
'

ok "a second run gives the same message" '
	cp "$msg" once && figures.sh "$pname" && cmp once "$msg"
'

ok "a patch name not in the series is refused" '
	must_fail figures.sh no-such-patch && grep -q "no patch named .no-such-patch." fail.out
'

ok "a message with no figures to refresh is refused by name" '
	sed -i -E "/^Measured (with .make bench.|in QEMU)/,\$d" "$msg" &&
	must_fail figures.sh "$pname" && grep -q "commit-msgs/$pname has no figures" fail.out
'
# Give the kernel tree back the branch the repository's files make.
SERIES_DIR=$T_TOP "$T_TOP/scripts/replay.sh" >/dev/null 2>&1 || note "replay of the repository's series failed"
done_testing
