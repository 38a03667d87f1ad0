#!/usr/bin/env bash
# The KUnit suite can fail: each mutation under tests/mutations/ breaks one
# behaviour of mm/page_alloc.c on top of the base, and the KUnit case named
# in its .expect file must fail on the mutated kernel (and only then pass
# on the base).
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
for m in "$T_TOP"/tests/mutations/*.diff; do
	name=$(basename "$m" .diff)
	export M=$m EXPECT
	EXPECT=$(head -n1 "${m%.diff}.expect")
	ok "mutation $name makes $EXPECT fail" '
		c=$(plant_patch "$base" "mutation: $(basename "$M")" "$M") &&
		build.sh "$c" >/dev/null &&
		d=$(boot.sh --run kunit "$c"); test $? -ne 0 &&
		jq -r ".tests.failed[]" "$d/verdict.json" >failed && cat failed &&
		grep -qx "pagealloc_seeds.$EXPECT\|pagealloc_stress.$EXPECT\|$EXPECT" failed
	'
done
done_testing
