#!/usr/bin/env bash
# make bisect on a throwaway series of cheap commits on the base (changes
# to mm/page_alloc.c only): a planted slowdown in the free path, a commit
# that does not build (and its fix), and a planted panic at boot.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
c1=$(plant_commit "$base" "bisect-test: add a comment" 'echo "/* bisect self-test */" >>"$1"')
c2=$(plant_commit "$c1" "bisect-test: slow down every free" \
	'sed -i "/^void free_unref_page(struct page \*page, unsigned int order)$/{n;a\\
	for (int pa_i = 0; pa_i < 400; pa_i++) barrier();
}" "$1"')
c3=$(plant_commit "$c2" "bisect-test: break the build" 'echo "int pa_bisect_broken = ;" >>"$1"')
c4=$(plant_commit "$c3" "bisect-test: fix the build" 'sed -i "/pa_bisect_broken/d" "$1"')
c5=$(plant_commit "$c4" "bisect-test: panic at boot" 'printf "%s\n" \
	"static int __init pa_bisect_panic(void)" "{" "	panic(\"planted by the bisect self-test\");" \
	"	return 0;" "}" "late_initcall(pa_bisect_panic);" >>"$1"')
c6=$(plant_commit "$c5" "bisect-test: another comment" 'echo "/* the end */" >>"$1"')
export c1 c2 c3 c4 c5 c6 base
# A small, quick measurement set: two perturbed boots, order-0 pairs only.
export BENCH_K=2 BENCH_STEPS=bench BENCH_ARGS="orders=0+batches=0+loops=1024"

# Run a bisection and report its step count and wall time.
timed() {
	local s=$SECONDS rc
	"$@"
	rc=$?
	note "$(grep -h "^steps: " out 2>/dev/null || echo "steps: -"); test wall $((SECONDS - s)) s"
	return $rc
}

ok "a planted slowdown of the free path is named by a performance bisect" '
	timed "$T_TOP/bisect/run.sh" "$base" "$c4" free-o0-pair-z0 5 >out 2>&1; cat out;
	must_say "^culprit: [0-9a-f]+ bisect-test: slow down every free" out &&
	must_say "^steps: " out && test -z "$(git -C "$KTREE" bisect log 2>/dev/null)"
'

ok "a planted panic is named by a boot bisect, skipping the commit that does not build" '
	timed "$T_TOP/bisect/run.sh" "$base" "$c6" boot >out 2>&1; cat out;
	must_say "^culprit: [0-9a-f]+ bisect-test: panic at boot" out &&
	must_say "does not build.*skip" out
'

ok "identical endpoints end with no regression" '
	timed "$T_TOP/bisect/run.sh" "$c1" "$c1" free-o0-pair-z0 5 >out 2>&1; cat out;
	must_say "no regression between GOOD=[0-9a-f]+ and BAD=[0-9a-f]+" out
'

ok "a GOOD endpoint that is not good is refused before bisecting" '
	must_fail "$T_TOP/bisect/run.sh" "$c5" "$c6" boot && must_say "GOOD=.* is not good"
'

ok "the kernel tree is left out of bisect state" '
	test -z "$(git -C "$KTREE" bisect log 2>/dev/null)" && test ! -f "$KTREE/.git/BISECT_START"
'
done_testing
