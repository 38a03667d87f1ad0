#!/usr/bin/env bash
# End to end on the real kernel: import Debian's tarball, replay the
# series, build and boot every commit (make check), and show that each
# kind of guest failure gives its verdict on a real boot of the tip.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

[[ -z ${SKIP_KERNEL:-} ]] || skip_all "SKIP_KERNEL is set"
unset SERIES_DIR TARBALL SOURCE_VERSION
export WORK=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/pagealloc}
. "$T_TOP/scripts/lib/lib.sh"
# shellcheck source=tests/lib/plain-boot.sh
. "$T_TOP/tests/lib/plain-boot.sh"
PROG=t0100

# The whole build matrix (seven configs per commit) is make check's; here
# two of its configs, on the tip against the base, keep the cold suite
# within its time (README).  So does test_free_pages, the one slow
# in-tree test (92 s a boot under TCG): left out of every commit's boot
# here, it runs on the tip below.
ok "make check passes on the base and every commit of the series" '
	(cd "$T_TOP" && CHECK_MATRIX=0 CHECK_BOOTS="$PLAIN_RUN|$PLAIN_APPEND;$DEBUG_RUN|$DEBUG_APPEND;roots|;hwpoison|" \
		scripts/check.sh) >table 2>progress; rc=$?; cat table; test $rc -eq 0 &&
	n=$(( $(git -C "$KTREE" rev-list --count "$(base_tag)..$BRANCH") + 1 )) &&
	test "$(grep -cE "^[0-9a-f]{12} .* pass" table)" -eq "$n"
'

tip=$(kgit rev-parse "$BRANCH")
base=$(kgit rev-parse "$(base_tag)^{commit}")

boot_tip() { boot.sh --timeout "${T:-300}" "$@" "$tip"; }
# The tip's boots that the tests below judge, by name.
boot_tip_as() {
	case $1 in
	# test_free_pages' million order-3 pairs: 90 s alone under TCG, more
	# than 300 s beside the matrix's compiles and sparse.
	intree) T=900 boot_tip --run intree ;;
	hang) T=40 boot_tip --run "" --append pa.provoke=hang ;;
	badfree-*) boot_tip --run "" --append "pa.provoke=badfree init_on_alloc=0 ${1#badfree-}" ;;
	badpcp) boot_tip --run "" --append "pa.provoke=badfree-pcp init_on_alloc=0 debug_pagealloc=on" ;;
	*) boot_tip --run "" --append "pa.provoke=$1" ;;
	esac
}
# They start now, in two lanes beside the checkpatch and matrix tests
# (a boot takes one core, the matrix's builds both), and each test finds
# its boot in boot.sh's cache: the cold suite's time (README).  The
# initramfs is made first, not by two boots at once.
"$T_TOP/qemu/mkinitramfs.sh" >/dev/null 2>&1
{ for b in intree fail; do boot_tip_as $b; done; } >/dev/null 2>&1 &
{ for b in panic hang warn nofail oversized badfree-debug_pagealloc=on badfree-page_poison=1 badfree-check_pages=on badpcp; do
	boot_tip_as $b; done; } >/dev/null 2>&1 &

# The guest's C code (KUnit suites, benchmark modules, guest programs)
# is held to the kernel's own style, with the imported tree's checkpatch.
ok "the guest C code passes checkpatch --strict" '
	bad=0 &&
	for f in "$T_TOP"/qemu/modules/*/*.[ch] "$T_TOP"/qemu/guest/*.c; do
		perl "$KTREE/scripts/checkpatch.pl" --strict --no-tree -q --terse -f "$f" || bad=1
	done && test $bad -eq 0
'

ok "the build matrix compiles the tip in Debian's config and without NUMA, with no new warning" '
	mkdir m && cp "$T_TOP"/qemu/matrix/{debian,numa-off}.config m/ &&
	MATRIX=$PWD/m matrix.sh "$tip" >out && cat out && test "$(head -n1 out)" = 2/2 &&
	jq -e ".objects | index(\"mm/mempolicy.o\") | not" "$RESULTS/$tip/matrix/numa-off.json" &&
	jq -e ".objects | index(\"mm/mempolicy.o\")" "$RESULTS/$tip/matrix/debian.json" &&
	# compiled without the debug info of the Debian config, which costs compile time only
	o=$(jq -r .build "$RESULTS/$tip/matrix/debian.json")/mm/page_alloc.o &&
	readelf -S "$o" | grep -q " .text" && ! readelf -S "$o" | grep -q debug_info
'

# The lanes are done before their boots are judged.
wait
ok "the tip passes every in-tree test of the list, test_free_pages included" '
	n=$(grep -cE "^(module|program|stress) " "$INTREE_LIST") &&
	d=$(boot_tip_as intree) && jq -e ".intree.pass == $n and .intree.fail == 0" "$d/verdict.json" &&
	grep -q "^PA-INTREE test_free_pages pass" "$d/results.txt" &&
	# on a CPU whose clear_page() TCG runs fast (lib.sh, guest_cpu), when
	# the guest ran under TCG with the default model
	{ test -n "${GUEST_CPU:-}" || ! grep -q "^PA-CPU model=\[QEMU TCG" "$d/results.txt" ||
		grep "^PA-CPU model=\[QEMU TCG[^]]*\] clear_page=clear_page_rep\$" "$d/results.txt"; }
'

# Memory above 16 GiB lies under a second mem_section root, which the
# roots suite needs: make check gave every commit an 18 GiB guest that
# runs it alone (3-10 s a boot).  On the base and the tip, its one case
# must have passed, not skipped.
ok "the base and the tip free a page above the first mem_section root to its own pageblock's list" '
	for c in "$base" "$tip"; do
		d=$(boot.sh --run roots "$c") &&
		jq -e ".tests.pass == 1 and .tests.skip == 0" "$d/verdict.json" &&
		grep "^ *ok 1 pagealloc_roots_freed_page_finds_its_own_pageblock" "$d/results.txt" || exit 1
	done
'

# memory_failure() of a free page, with an allocation made while it runs
# (before the page is off the free lists): make check gave every commit
# a boot that runs it alone, the boot's first poisoning.  On the base and
# the tip its one case must have passed, not skipped.
ok "the base and the tip never hand out a free page that memory_failure() is poisoning" '
	for c in "$base" "$tip"; do
		d=$(boot.sh --run hwpoison "$c") &&
		jq -e ".tests.pass == 1 and .tests.skip == 0" "$d/verdict.json" &&
		grep "^ *ok 1 pagealloc_hwpoison_free_page_not_allocated_while_poisoned" "$d/results.txt" || exit 1
	done
'

ok "a kernel panic in the guest fails the boot and is quoted" '
	d=$(boot_tip_as panic); test $? -ne 0 &&
	jq -r .reason "$d/verdict.json" | must_say "Kernel panic - not syncing: sysrq triggered crash" /dev/stdin
'

ok "a guest that stops answering is a hang, stopped at the time limit" '
	d=$(boot_tip_as hang); test $? -ne 0 &&
	test "$(jq -r .verdict "$d/verdict.json")" = hang
'

ok "a WARNING in the guest log fails the boot" '
	d=$(boot_tip_as warn); test $? -ne 0 &&
	jq -r ".matched[0]" "$d/verdict.json" | must_say "^WARNING: .*pa_provoke" /dev/stdin
'

# The allocator's own warning: __GFP_NOFAIL is for orders 0 and 1.  The
# check kernel names the function, not the file (no DEBUG_BUGVERBOSE);
# rmqueue() is inlined into get_page_from_freelist().
ok "an order-4 __GFP_NOFAIL allocation warns from the allocator and fails the boot" '
	d=$(boot_tip_as nofail); test $? -ne 0 &&
	jq -r ".matched[0]" "$d/verdict.json" >w &&
	must_say "^WARNING: .* at (rmqueue|get_page_from_freelist|__alloc_pages)[+.]" w
'

# An oversized request (order >= MAX_ORDER) without __GFP_NOWARN warns,
# once a boot: a KUnit case cannot check it, since its WARNING fails the
# boot by design, so the host does.
ok "three requests of order MAX_ORDER warn once, from the allocator" '
	d=$(boot_tip_as oversized); test $? -ne 0 &&
	jq -r ".matched[]" "$d/verdict.json" | grep "^WARNING: " >w && cat w &&
	test "$(wc -l <w)" -eq 1 && must_say "^WARNING: .* at __alloc_pages[+.]" w &&
	! grep -q "pa_provoke: .* served" "$d/console.log"
'

# Patch 7 checks a page's state only when debugging asks for it.  Under
# each debugging option alone, and under check_pages=on, which asks for
# the checks alone (init_on_alloc, which this config turns on, set off),
# an order-4 block (past the pcp lists' orders, so checked as it is
# freed) freed with its first two pages still mapped must be reported
# twice: its tail page by the tail loop, its head by the head check.
# Without any of them the block would reach the free lists corrupt, and
# pa_provoke refuses to make it.
for opt in debug_pagealloc=on page_poison=1 check_pages=on; do
	export OPT=$opt
	ok "with $opt a block freed while still mapped is reported as a bad page state, head and tail" '
		d=$(boot_tip_as "badfree-$OPT"); test $? -ne 0 &&
		jq -r ".matched[0]" "$d/verdict.json" | must_say "^BUG: Bad page state in process insmod" /dev/stdin &&
		grep "page dumped because: " "$d/console.log" >why && cat why &&
		test "$(grep -c "nonzero mapcount" why)" -eq 2
	'
done

# An order-0 page goes to a pcp list.  Without DEBUG_VM, debug_pagealloc
# has it checked as it is freed (free_pcp_prepare()), so the report's
# backtrace runs through the module's own free, not through a later
# drain (free_pcppages_bulk) or an allocation that met the page.
ok "with debug_pagealloc=on an order-0 page freed while still mapped is reported by its own free" '
	d=$(boot_tip_as badpcp); test $? -ne 0 &&
	jq -r ".matched[0]" "$d/verdict.json" | must_say "^BUG: Bad page state in process insmod" /dev/stdin &&
	must_say "page dumped because: nonzero mapcount" "$d/console.log" &&
	sed -n "/BUG: Bad page state/,/<\/TASK>/p" "$d/console.log" >trace && cat trace &&
	must_say "provoke_(init|bad_pcp_free)\+" trace && ! grep -q "free_pcppages_bulk\|get_page_from_freelist" trace
'

ok "a failing KUnit case fails the boot and is named" '
	d=$(boot_tip_as fail); test $? -ne 0 &&
	jq -r ".tests.failed[]" "$d/verdict.json" | must_say "pagealloc_provoke.provoke_fails_when_asked" /dev/stdin
'

done_testing
