#!/usr/bin/env bash
# step.sh counts what make bench measures: the guest instructions
# it single-steps in one order-0 alloc_pages() and __free_pages() of a
# kernel agree with pa_bench's pair figures for that kernel, and its counts
# by function add up and name the allocator's own functions.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
export base bdir
"$T_TOP/scripts/build.sh" "$base" >/dev/null 2>&1 || skip_all "the base does not build"
bdir=$(result_dir "$base")

# total FILE: the count on the first line; summed FILE: the sum of the rest.
total() { awk 'NR == 1 { print $2; exit }' "$1"; }
summed() { awk 'NR > 1 && NF == 2 { s += $1 } NF == 0 { exit } END { print s }' "$1"; }
# within A B PERCENT: A and B differ by at most PERCENT of B.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'; }

ok "one stepped allocation and free count what pa_bench's pair figures say, within 3%" '
	step.sh "$base" &&
	d=$(boot.sh --mode deterministic --run bench \
		--append "init_on_alloc=0 pa.bench=orders=0+batches=0+loops=1024" "$base") &&
	boot-figures.sh "$d" >/dev/null &&
	a=$(jq ".figures[\"alloc-o0-pair-z0\"]" "$d/figures.json") &&
	f=$(jq ".figures[\"free-o0-pair-z0\"]" "$d/figures.json") &&
	sa=$(total "$bdir/steps-alloc_pages.txt") && sf=$(total "$bdir/steps-__free_pages.txt") &&
	note "alloc: stepped $sa, pa_bench $a; free: stepped $sf, pa_bench $f" &&
	within "$sa" "$a" 3 && within "$sf" "$f" 3
'

ok "the counts by function add up to the total and name the allocator" '
	for fn in alloc_pages __free_pages; do
		s=$bdir/steps-$fn.txt
		test "$(summed "$s")" -eq "$(total "$s")" || exit 1
	done &&
	grep -qw get_page_from_freelist "$bdir/steps-alloc_pages.txt" &&
	grep -qw free_unref_page "$bdir/steps-__free_pages.txt" &&
	must_fail within 300 400 3
'
# A machine with a cpuset and tasks in a memcg, as under systemd or docker:
# the allocation filters the zonelist by the task's mems_allowed and
# charges __GFP_ACCOUNT pages to the memcg, the free uncharges them.  The
# variant's counts go to a directory of their own, leaving the default's.
ok "with a cpuset and __GFP_ACCOUNT the stepped paths walk the nodemask and charge the memcg, kept apart" '
	plain=$bdir/steps-alloc_pages.txt && before=$(total "$plain") &&
	STEP_AS=live STEP_APPEND=pa.cpuset=on STEP_BENCH=orders=0+batches=0+loops=1000000+account=1 \
		step.sh "$base" >/dev/null &&
	a=$bdir/live/steps-alloc_pages.txt && f=$bdir/live/steps-__free_pages.txt &&
	note "alloc: $before plain, $(total "$a") with a cpuset and __GFP_ACCOUNT" &&
	grep -qw __next_zones_zonelist "$a" && grep -qw __memcg_kmem_charge_page "$a" &&
	grep -qw __memcg_kmem_uncharge_page "$f" &&
	! grep -qw -e __next_zones_zonelist -e __memcg_kmem_charge_page "$plain" &&
	test "$(total "$plain")" -eq "$before" &&
	{ compare-steps.sh plain="$bdir" live="$bdir/live" >cmp 2>&1; test $? -eq 1; } &&
	must_say "differ on the functions marked" cmp
'
# account-pcp-drain-once takes the NR_FREE_PAGES update of each page a
# drain returns out of the loop under zone->lock: one call of
# __mod_zone_page_state() a drain instead of one a page.  (How much buddy
# merging the stepped drain does depends on the free lists' state, so the
# held total itself is not compared.)  On the check kernels here.
mod_state() { awk '$2 == "__mod_zone_page_state" { print $1; exit }' "$1"; }
ok "step-lines puts every stepped instruction in a source function, inlined ones by their own name" '
	step-lines.sh --lines "$base" >out && cat out &&
	test "$(awk "NR > 1 && NF == 2 { s += \$1 } NF == 0 { exit } END { print s }" out)" -eq "$(total "$bdir/steps-alloc_pages.txt")" &&
	inlined=$(awk "NR > 1 && NF == 2 { print \$2 } NF == 0 { exit }" out |
		grep -cvxF -f <(awk "NR > 1 && NF == 2 { print \$2 } NF == 0 { exit }" "$bdir/steps-alloc_pages.txt")) &&
	test "$inlined" -gt 0 && must_say "^ +[0-9]+  get_page_from_freelist mm/page_alloc.c:[0-9]+$" out
'

# An offset inside an instruction: the object compiled again must be
# refused, as it would be if it did not match the traced kernel.
ok "step-lines refuses a trace the recompiled object does not match, naming the instruction" '
	sed "s/^get_page_from_freelist+0x0:/get_page_from_freelist+0x1:/" "$bdir/steps-alloc_pages.txt" >trace &&
	! STEP_LINES_TRACE=$PWD/trace step-lines.sh "$base" >out 2>err && cat err &&
	must_say "does not match the traced kernel at get_page_from_freelist\+0x1$" err
'

ok "make lock-held counts a drain's work under zone->lock; account-pcp-drain-once leaves one counter update in it" '
	i=$(series_names | grep -nx account-pcp-drain-once | cut -d: -f1) &&
	c2=$(kgit rev-list --reverse "$base..$BRANCH" | sed -n "${i}p") && test -n "$c2" &&
	lock-held.sh "$base" "$c2" >held && cat held &&
	awk "\$2 == \"free_pcppages_bulk\" && \$3 > 0 && \$5 >= \$4 * 0.95 { n++ } END { exit n != 2 }" held &&
	b=$(mod_state "$bdir/steps-free_pcppages_bulk.txt") &&
	a=$(mod_state "$(result_dir "$c2")/steps-free_pcppages_bulk.txt") &&
	note "__mod_zone_page_state in one drain: base $b instructions, account-pcp-drain-once $a" &&
	test "$a" -gt 0 && test $((a * 10)) -le "$b"
'
done_testing
