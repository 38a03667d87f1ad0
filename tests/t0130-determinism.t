#!/usr/bin/env bash
# The deterministic mode is deterministic, and the comparison flags a real
# difference but not an identical kernel.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
export base
"$T_TOP/scripts/build.sh" "$base" >/dev/null 2>&1 || skip_all "the base does not build"
args="init_on_alloc=0 pa.bench=orders=0,2+batches=64+loops=1024"
export args

# The microbenchmark is repeatable bit for bit.  hackbench is not: two
# boots of one kernel have differed by up to 6% here (README), which is why
# every comparison is made over a family of boots.
ok "two deterministic boots of one kernel give identical microbenchmark figures" '
	d1=$(boot.sh --force --mode deterministic --run bench --append "$args" "$base") &&
	figures.sh "$d1" >/dev/null && cp "$d1/figures.json" one.json &&
	d2=$(boot.sh --force --mode deterministic --run bench --append "$args" "$base") &&
	figures.sh "$d2" >/dev/null && jq -e ".figures | length > 5" one.json &&
	diff one.json "$d2/figures.json"
'

# Two boots per set, the same perturbations for both sets.
sample() { # NAME EXTRA-BENCH-ARGS [PAD-LETTER]
	BENCH_PAD_CHAR=${3:-a} BENCH_K=2 BENCH_STEPS=bench BENCH_APPEND=init_on_alloc=0 \
		BENCH_ARGS="orders=0+batches=64+loops=1024$2" measure.sh "$base" >"$1.path" &&
		jq ".samples" "$(cat "$1.path")" >/dev/null && cp "$(cat "$1.path")" "$1.json"
}

ok "the comparison flags a planted cost of extra work per allocation" '
	sample plain "" && sample slow "+extra_work=50" &&
	compare.sh --tsv base=plain.json slow=slow.json >cmp && cat cmp &&
	awk -F"\t" "\$1 == \"alloc-o0-pair-z0\" && \$6 == 1 && \$5 > 5 { found = 1 } END { exit !found }" cmp &&
	awk -F"\t" "\$1 == \"free-o0-pair-z0\" && \$6 == 0 { found = 1 } END { exit !found }" cmp
'

ok "the comparison flags nothing between two families of boots of one kernel" '
	sample plain "" && sample again "" b &&
	compare.sh --tsv base=plain.json again=again.json >cmp && cat cmp &&
	test "$(awk -F"\t" "\$6 == 1" cmp | wc -l)" -eq 0 && test "$(wc -l <cmp)" -gt 3
'
done_testing
