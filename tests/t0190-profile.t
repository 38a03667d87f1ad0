#!/usr/bin/env bash
# The workload profile (boot.sh --profile, the paprof plugin) counts what
# make step counts, sees a planted allocator regression in every workload,
# lets make bisect find it, and does not blame the allocator for a
# slowdown elsewhere.  On check kernels, with small workloads: hackbench
# and page faults (tbench needs TCP/IP, which the check kernel leaves out,
# and the guest says so), except the comparison with make step:
# single-stepping the check kernel's alloc_pages() can run into a context
# switch (its cond_resched() hands the CPU to the vmstat worker), so that
# one uses the base's bench kernel, which make bench builds (37 minutes
# cold, so not here).
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
# The regression bisect must find, after a harmless commit: order-0
# requests skip the per-cpu lists, so every allocation takes zone->lock.
# (A harmless commit after it too would cost three more boots and a
# build on a new machine; t0120 finds a culprit in the middle.)
c1=$(plant_commit "$base" "profile-test: a comment" 'echo "/* profile self-test */" >>"$1"')
slow=$(plant_commit "$c1" "profile-test: order-0 allocations bypass the pcp lists" \
	'sed -i "s/^\tif (likely(pcp_allowed_order(order))) {$/\tif (likely(pcp_allowed_order(order)) \&\& order) {/" "$1" &&
	 grep -q "pcp_allowed_order(order)) && order)" "$1"')
# A slowdown outside the allocator: every pipe write spins a little.
pipe=$(kgit show "$base:fs/pipe.c" | sed "/^pipe_write(struct kiocb \*iocb, struct iov_iter \*from)$/,/^{$/{/^{$/a\\
	for (int pa_i = 0; pa_i < 2000; pa_i++) barrier();
}" >"$T_SCRATCH/pipe.c" && commit_with_file "$base" fs/pipe.c "$T_SCRATCH/pipe.c" "profile-test: slow pipe writes")
export base c1 slow pipe
# Five boots a kernel: with three, hackbench-socket's +17% read
# p = 0.076 (its figure varies by 4-8% from boot to boot, with how the 80
# tasks interleave).
export BENCH_PROFILE=1 BENCH_K=5 BENCH_STEPS=hackbench,pagefault
export BENCH_APPEND="init_on_alloc=0 pa.hackbench_loops=20 pa.pagefault=16x2"
workloads="hackbench-pipe hackbench-socket pagefault"

if [[ $(jq -r .status "$WORK/results-bench/$base/build.json" 2>/dev/null) == ok ]]; then
	ok "the profile of pa_bench's order-0 pair loop agrees with make step within 1%" '
		KFLAVOR=bench profile-vs-step.sh "$base" >out && cat out && must_say "^total .*pairs" out
	'
else
	skip "the profile of pa_bench's order-0 pair loop agrees with make step within 1%" \
		"the base's bench kernel is not built (make bench builds it)"
fi

# The check kernel leaves TCP/IP out: a tbench boot fails and says why,
# rather than measure nothing.
ok "tbench on a check kernel fails, naming the missing TCP/IP" '
	! d=$(boot.sh --run tbench "$base") && test -n "$d" &&
	jq -r .reason "$d/verdict.json" >why && must_say "no TCP/IP" why
'

# Per page allocated: per hackbench message the base varies by up to 9%
# from boot to boot, and the bypass's +11% on sockets once read p = 0.0503.
ok "bypassing the pcp lists makes every workload dearer in allocator instructions per page" '
	test -n "$slow" && b=$(measure.sh "$base") && s=$(measure.sh "$slow") &&
	compare.sh --tsv --only "^prof-.*-allocator-page\$" base="$b" slow="$s" >cmp && cat cmp &&
	for w in $workloads; do
		awk -F"\t" -v f="prof-$w-allocator-page" "\$1 == f && \$6 == 1 && \$5 > 0 { ok = 1 } END { exit !ok }" cmp ||
			{ echo "prof-$w-allocator-page did not move"; exit 1; }
	done
'

# How many pages a hackbench message allocates moves with how its 80
# tasks interleave (2.7% and 9.1% from boot to boot, pipes and sockets,
# seen here); what each page costs the allocator repeats within 1% (0.5%
# and 0.5%).  The loops of make profile's runs: a run allocates pages by
# the thousand and refills the pcp lists only every 63, so a short run's
# figure moves with a few refills more or less (pipes 1.4% with 20
# loops, 1.1% with 100, seen here).
ok "hackbench's allocator instructions per page repeat within 1% over five boots, per message they do not" '
	f=$(BENCH_STEPS=hackbench BENCH_APPEND="init_on_alloc=0 pa.hackbench_loops=400" measure.sh "$base") &&
	spread.sh "^prof-hackbench-.*-allocator(-page)?\$" base="$f" >cv && cat cv &&
	awk "{ cv = \$NF; sub(/%/, \"\", cv) }
		\$2 ~ /-page\$/ && cv > 1 { print \$2 \" varies by \" cv \"%\"; bad = 1 }
		\$2 !~ /-page\$/ && cv > 1 { wide++ }
		END { exit bad || wide < 1 }" cv
'

# Deterministic boots repeat the page-fault figures almost exactly, so
# the test marks even a move of 0.3 instructions a fault (682.0 against
# 682.3, seen here): "where it was" is within 1%, where the pcp bypass
# moves it by 39%.
ok "a slowdown outside the allocator leaves the page-fault allocator figure where it was" '
	test -n "$pipe" && b=$(measure.sh "$base") && p=$(measure.sh "$pipe") &&
	compare.sh --tsv base="$b" pipe="$p" >cmp && grep -E "pagefault-allocator|hackbench-pipe-kernel" cmp &&
	awk -F"\t" "\$1 == \"prof-hackbench-pipe-kernel\" && \$5 > 10 { ok = 1 } END { exit !ok }" cmp &&
	awk -F"\t" "\$1 == \"prof-pagefault-allocator\" && \$5 < 1 && \$5 > -1 { ok = 1 } END { exit !ok }" cmp
'

# A bisection on the page-fault figure and one on hackbench's over pipes:
# they share the boots of the three kernels (same settings, same
# commits), so only the first one measures.  Threshold 1%.  (Not over
# sockets: a boot's figure varies by 4-8% there.)
# Per operation, not per page: at these 20-loop runs hackbench's per-page
# figure varies by 1.4%, and the harmless commit read +1.17% on it, beyond
# the noise and the threshold (seen here); per message it varies by 4.6%,
# which no 1% move clears, and the bypass moves it by 16%.
for w in pagefault hackbench-pipe; do
	ok "make bisect names the pcp bypass on the $w allocator figure" '
		test -n "$slow" && "$T_TOP/bisect/run.sh" "$base" "$slow" "prof-'"$w"'-allocator" 1 >out 2>&1; cat out;
		must_say "^culprit: [0-9a-f]+ profile-test: order-0 allocations bypass the pcp lists" out
	'
done
done_testing
