#!/usr/bin/env bash
# Rewrite the measured part of each patch's changelog, commit-msgs/NAME:
# from the line "Measured in QEMU" (or a line "@FIGURES@") up to the
# trailers, it becomes how the figures were taken, in words a maintainer
# can repeat, make bench's before/after table for that commit
# (changelog-figures.sh) on the bench kernels, its single-stepped
# order-0 counts (make step) and its text.  Measures what is not measured yet.
# Run 'make replay' afterwards to put the new messages on the branch.
# usage: figures.sh [NAME...]      (default: every patch)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
need_uint BENCH_K BENCH_JOBS BENCH_ZERO_K BENCH_PROFILE_K STEP_SKIP

ensure_series
mapfile -t names < <(series_names)
mapfile -t commits < <(kgit rev-list --reverse "$(base_tag)..$BRANCH")
[[ ${#names[@]} -eq ${#commits[@]} ]] ||
	die "$BRANCH has ${#commits[@]} commits for ${#names[@]} patches; run 'make replay'"

steps() { # COMMIT FUNCTION: the stepped instruction count
	"$TOP/scripts/step.sh" "$1" >/dev/null &&
		awk 'NR == 1 { print $2; exit }' "$(result_dir "$1")/steps-$2.txt"
}
text() { jq -r ".$2" "$(result_dir "$1")/build.json"; }

block() { # COMMIT
	local c=$1 p runs a0 a1 f0 f1 t0 t1 m0 m1 version
	p=$(kgit rev-parse "$c^")
	runs=$(jq .runs "$("$TOP/scripts/lib/measure.sh" "$c")") &&
		a0=$(steps "$p" alloc_pages) && a1=$(steps "$c" alloc_pages) &&
		f0=$(steps "$p" __free_pages) && f1=$(steps "$c" __free_pages) &&
		t0=$(text "$p" page_alloc_text) && t1=$(text "$c" page_alloc_text) &&
		m0=$(text "$p" mempolicy_text) && m1=$(text "$c" mempolicy_text) || return 1
	version=$(base_tag)
	version=$(debian_version "$version")
	# Say which kernel was measured: the changelog names Debian's config
	# only when the figures come from it.
	local config="Debian's $version amd64 config (debug info off)" short="Debian's config" ioa=''
	[[ ${BENCH_ZERO_K:-3} -eq 0 ]] ||
		ioa=" Rows ending in -ioa1 come from ${BENCH_ZERO_K:-3} more boots with Debian's default init_on_alloc=1."
	local prof=''
	[[ ${BENCH_PROFILE_K:-3} -eq 0 ]] ||
		prof=" From ${BENCH_PROFILE_K:-3} more boots of each kernel, the same workloads and a page-fault one (mmap 64 MB of anonymous memory, write one byte per page, munmap, 4 times; pagefault is guest ns per fault) were profiled: a TCG plugin counted every instruction the guest kernel executed, by function of System.map, and prof-W-allocator is the instructions per operation of workload W (per message, tbench operation or fault) in the page allocator's own functions: its alloc and free paths, the pcp and buddy lists, their zone counters, the memcg kmem charge and the policy lookup of alloc_pages() and vma_alloc_folio() (not clear_page(), nor the spinlock functions that all the kernel shares)."
	[[ $KFLAVOR == bench ]] ||
		config="allnoconfig plus Debian's memory-management options" short="minimal config"
	# In words a maintainer can repeat without this repository.
	fold -s -w 72 <<TEXT | sed 's/ *$//'
Measured in QEMU 7.2 under TCG with -icount shift=0, where a guest nanosecond is one guest instruction, so that every figure is an instruction count: one vCPU (-cpu max,-cx16), numa=fake=2, a kernel built from $config and booted with init_on_alloc=0, $runs boots per kernel, each with a different unused word on its command line.$ioa alloc-oN and free-oN are the median instructions of one alloc_pages() or __free_pages() call of order N, read from the clock around each call in a module's loop of alloc/free pairs or of batches of N blocks, less the cost of the clock reads; hackbench is 4 groups of 10 tasks passing 100 messages over pipes or sockets (guest seconds); tbench 2 clients for 2 s (MB/s; paced by guest time, it cannot see a change of this size).$prof '*' marks a change beyond the noise (Welch's t-test on each figure, with the false-discovery rate across all figures held at 5% by the Benjamini-Hochberg procedure):
TEXT
	echo
	"$TOP/scripts/lib/changelog-figures.sh" "$c" | sed 's/^/  /'
	[[ ${PIPESTATUS[0]} -eq 0 ]] || return 1
	cat <<TEXT

One order-0 alloc_pages() and one __free_pages() in the warm pair loop,
single-stepped through QEMU's gdb stub: $a0 -> $a1 and $f0 -> $f1
instructions.

Text, $short: mm/page_alloc.o $t0 -> $t1 bytes ($((t1 - t0))),
mm/mempolicy.o $m0 -> $m1 bytes ($((m1 - m0))).
TEXT
}

for want in "$@"; do
	[[ " ${names[*]} " == *" $want "* ]] || die "no patch named '$want' in series.txt"
done
for i in "${!names[@]}"; do
	name=${names[$i]}
	[[ $# -eq 0 || " $* " == *" $name "* ]] || continue
	msg=$SERIES_DIR/commit-msgs/$name
	grep -q -E "^Measured (with 'make bench'|in QEMU)|^@FIGURES@$" "$msg" ||
		die "commit-msgs/$name has no figures to refresh (add a line @FIGURES@ before the trailers)"
	progress "$((i + 1))" "${#names[@]}" "figures for $name"
	b=$(mktemp)
	block "${commits[$i]}" >"$b" || die "$name: could not measure $(short "${commits[$i]}")"
	PA_BLOCK=$b awk '
		!skip && (/^Measured (with .make bench.|in QEMU)/ || /^@FIGURES@$/) {
			while ((getline l < ENVIRON["PA_BLOCK"]) > 0) print l
			print ""; skip = 1; next
		}
		skip && /^(Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Link|Fixes|Cc): / { skip = 0 }
		!skip { print }' "$msg" >"$msg.new"
	rm -f "$b"
	# No blank line at the end where no trailers follow (git drops it,
	# and export would give back a different file).
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$msg.new" >"$msg"
	rm -f "$msg.new"
done
