#!/usr/bin/env bash
# The KUnit suite can fail: each mutation under tests/mutations/ breaks one
# behaviour of the allocator, on the base or on the commit of the series
# that brings the code it breaks.  NAME.expect says what must happen:
#   line 1         the KUnit case that must fail ([suite.]case)
#   on: TARGET     the base, or a patch name of series.txt (one line each;
#                  the mutation is applied to every one)
#   message: ERE   what the case's failure report must say, so that a case
#                  failing on a precondition does not count as a kill
#   also: CASE ERE another case the mutation must fail, and its message
#                  (one line each: a mutation of shared code breaks several)
# The same test shows that the case passes on the unmutated target, in the
# boot t0100 makes of every commit that runs it (plain, or debug for a
# stress case), so that its result is in the cache.
# Patch 1 (should_fail_alloc_page() compiled out) keeps every behaviour:
# its mutation makes the new stub answer "fail" where it must not, and the
# build matrix guards the configs that keep the real hook.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

ensure_series >/dev/null 2>&1 || skip_all "the series could not be replayed"
base=$(kgit rev-parse "$(base_tag)^{commit}")
mapfile -t names < <(series_names)
mapfile -t commits < <(kgit rev-list --reverse "$base..$BRANCH")
# The commit of TARGET: the base, or the commit of that patch.
target_commit() {
	local i
	[[ $1 != base ]] || { echo "$base"; return; }
	for i in "${!names[@]}"; do
		[[ ${names[$i]} != "$1" ]] || { echo "${commits[$i]}"; return; }
	done
	echo "no patch named $1 in series.txt" >&2
	return 1
}

# The lines KTAP prints for CASE between its first report and "not ok",
# from the debugfs results and from the kernel log: KUnit keeps only the
# last parameter's lines of a KUNIT_CASE_PARAM case in debugfs.
case_report() { # BOOT-DIR CASE
	local f
	for f in "$1/results.txt" "$1/console.log"; do
		awk -v c="$2" 'index($0, "# " c ": ") { p = 1 } p { print } $0 ~ "not ok [0-9]+ " c "$" { p = 0 }' "$f"
	done
}

# A mutated kernel's boot runs pa_kunit, and the stress suite's module
# only when the .expect names one of its cases: it takes two thirds of a
# KUnit boot.
mutant_run() { # EXPECT
	if grep -q 'pagealloc_stress_' "$1"; then echo kunit,stress; else echo kunit; fi
}

# The targets an .expect names, one a line: its "on:" lines, or the base.
targets_of() { # EXPECT
	grep -q '^on: ' "$1" || { echo base; return; }
	sed -n 's/^on: //p' "$1"
}

# Every mutation and the target it applies to, "INDEX TARGET MUTATION" a
# line, in the order of the targets in the series (the base is 0).
mutant_targets() {
	local m on i
	for m in "$T_TOP"/tests/mutations/*.diff; do
		while read -r on; do
			i=0
			[[ $on == base ]] || i=$(printf "%s\n" "${names[@]}" | grep -nxF "$on" | cut -d: -f1)
			echo "${i:-0} $on $m"
		done < <(targets_of "${m%.diff}.expect")
	done | sort -n -s -k1,1
}

# The mutated kernels, built in turn, each booted while the next one
# builds: a boot takes one core, a build both, and the tests below find
# every boot in the cache (boot.sh keys it).  They are built target by
# target: going from one target to another recompiles what the series
# changes between them (patch 1 changes a header), going from one
# mutation to the next of the same target page_alloc.c alone.  Whatever
# fails here fails again, and is reported, in its test.
prepare_mutants() {
	local i on m T c
	# The list comes on fd 3: nothing run in the loop may read it.
	while read -r i on m <&3; do
		T=$(target_commit "$on" 2>/dev/null) || continue
		c=$(plant_patch "$T" "mutation: $(basename "$m")" "$m" 2>/dev/null) || continue
		build.sh "$c" >/dev/null 2>&1 || continue
		wait
		boot.sh --run "$(mutant_run "${m%.diff}.expect")" "$c" >/dev/null 2>&1 &
	done 3< <(mutant_targets)
	wait
}
prepare_mutants

# The boot of the unmutated TARGET that t0100 made and that runs CASE: the
# plain one, or for a stress case the debug one (tests/lib/plain-boot.sh).
unmutated_boot() { # CASE TARGET
	if [[ $1 == *pagealloc_stress_* ]]; then
		boot.sh --run "$DEBUG_RUN" --append "$DEBUG_APPEND" "$2"
	else
		boot.sh --run "$PLAIN_RUN" --append "$PLAIN_APPEND" "$2"
	fi
}

# The kills a mutation's .expect asks for, one "CASE ERE" line each.
expected_kills() {
	printf '%s %s\n' "$(head -n1 "$1")" "$(sed -n 's/^message: //p' "$1")"
	sed -n 's/^also: //p' "$1"
}

for m in "$T_TOP"/tests/mutations/*.diff; do
	name=$(basename "$m" .diff)
	expect=${m%.diff}.expect
	RUN=$(mutant_run "$expect")
	export M=$m CASE MESSAGE RUN
	mapfile -t kills < <(expected_kills "$expect")
	mapfile -t ons < <(targets_of "$expect")
	for on in "${ons[@]}"; do
		T=$(target_commit "$on") || T=''
		export T
		for kill in "${kills[@]}"; do
			CASE=${kill%% *} MESSAGE=${kill#* }
			[[ $MESSAGE != "$kill" ]] || MESSAGE=''
			ok "mutation $name on $on makes ${CASE##*.} fail with /$MESSAGE/" '
				test -n "$T" && test -n "$MESSAGE" &&
				d0=$(unmutated_boot "$CASE" "$T") &&
				grep -qE "^ +ok [0-9]+ ${CASE##*.}$" "$d0/results.txt" &&
				c=$(plant_patch "$T" "mutation: $(basename "$M")" "$M") &&
				build.sh "$c" >/dev/null &&
				d=$(boot.sh --run "$RUN" "$c"); test $? -ne 0 &&
				jq -r ".tests.failed[]" "$d/verdict.json" >failed && cat failed &&
				grep -qx "pagealloc_seeds.$CASE\|pagealloc_stress.$CASE\|$CASE" failed &&
				case_report "$d" "${CASE##*.}" >report && cat report &&
				grep -qE -- "$MESSAGE" report
			'
		done
	done
done
done_testing
