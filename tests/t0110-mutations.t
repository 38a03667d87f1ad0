#!/usr/bin/env bash
# The KUnit suite can fail: each mutation under tests/mutations/ (a series
# directory's own mutations/, TEST_SERIES_DIR=series-6.12) breaks one
# behaviour of the allocator, on the base or on the commit of the series
# that brings the code it breaks.  NAME.expect says what must happen:
#   line 1         the KUnit case that must fail ([suite.]case)
#   on: TARGET     the base, or a patch name of series.txt (one line each;
#                  the mutation is applied to every one)
#   message: ERE   what the case's failure report must say, so that a case
#                  failing on a precondition does not count as a kill
#   also: CASE ERE another case the mutation must fail, and its message
#                  (one line each: a mutation of shared code breaks several)
# A mutation written with PA_MUTANT(NAME) (the switch is
# tests/lib/pa-mutant-switch.diff; scripts/lib/try-mutation.sh commits both)
# is live only in a boot with pa_mutant=NAME, and shares its kernel with
# the other such mutations of its target; a plain diff gets a kernel of
# its own, live in every boot.
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
mutations=$T_TOP/tests/mutations
[[ ! -d $SERIES_DIR/mutations ]] || mutations=$SERIES_DIR/mutations
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
# KUnit boot.  A case of the roots suite runs alone, in its 18 GiB guest,
# and so does the hwpoison one, which must be its boot's first poisoning.
mutant_run() { # EXPECT
	if grep -q 'pagealloc_stress_' "$1"; then
		echo kunit,stress
	elif grep -q 'pagealloc_roots_' "$1"; then
		echo roots
	elif grep -q 'pagealloc_hwpoison_' "$1"; then
		echo hwpoison
	else
		echo kunit
	fi
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
	for m in "$mutations"/*.diff; do
		while read -r on; do
			i=0
			[[ $on == base ]] || i=$(printf "%s\n" "${names[@]}" | grep -nxF "$on" | cut -d: -f1)
			echo "${i:-0} $on $m"
		done < <(targets_of "${m%.diff}.expect")
	done | sort -n -s -k1,1
}

# The kernels, planned before any is built.  A mutation written with
# PA_MUTANT() rides in a kernel shared with the other such mutations of
# its target (mutant schemata: Untch, Offutt and Harrold, ISSTA 1993),
# live only in the boot that names it with pa_mutant=; two that touch
# the same lines cannot share, so each goes into the first kernel of its
# target it applies to.  A plain mutation gets a kernel of its own.
# A build costs 25 s of both cores, a boot 18 s of one: the 33 mutations
# take 10 kernels in place of 33 (two for the base, one per other target).
#   kernel[NAME@TARGET]  the group it is in (its kernel is tip[GROUP])
#   append[NAME@TARGET]  its boot's pa_mutant=, empty for a plain one
#   groups               the groups, in build order
declare -A kernel append tip
groups=()
plan_kernels() {
	local i on m name T c g k
	while read -r i on m; do
		name=$(basename "$m" .diff)
		T=$(target_commit "$on" 2>/dev/null) || continue
		# A mutation that applies nowhere has no kernel: its tests say why.
		if ! grep -q 'PA_MUTANT(' "$m"; then
			g="$name@$on" append[$name@$on]=''
			c=$(try-mutation.sh "$T" "$m" 2>/dev/null) || continue
		else
			k=0 append[$name@$on]="pa_mutant=$name"
			until c=$(try-mutation.sh "${tip[$on#$k]:-$T}" "$m" 2>/dev/null); do
				[[ -n ${tip[$on#$k]:-} ]] || continue 2
				k=$((k + 1))
			done
			g="$on#$k"
		fi
		[[ -n ${tip[$g]:-} ]] || groups+=("$g")
		tip[$g]=$c kernel[$name@$on]=$g
	done < <(mutant_targets)
}
plan_kernels

# The members of GROUP, "NAME@TARGET" a line.
members_of() {
	local key
	for key in "${!kernel[@]}"; do
		[[ ${kernel[$key]} != "$1" ]] || echo "$key"
	done | sort
}

# A kernel shared by two mutations or more gets boots with none switched
# on: were a switch on without its pa_mutant=, the boots of the others
# would run that mutation too.
shared() { [[ $(members_of "$1" | wc -l) -gt 1 ]]; }

# The boots with no mutation switched on that run every suite the RUNs
# of a shared kernel's members run: one of pa_kunit (with the stress
# suite if a member needs it), the roots one and the hwpoison one.
unswitched_runs() { # RUN...
	local runs=" $* "
	case $runs in
	*" kunit,stress "*) echo kunit,stress ;;
	*" kunit "*) echo kunit ;;
	esac
	[[ $runs != *" roots "* ]] || echo roots
	[[ $runs != *" hwpoison "* ]] || echo hwpoison
}

# The boots GROUP's kernel gets, "RUN|APPEND" a line: each member's, and
# the shared kernel's with no mutation switched on (APPEND empty), last.
boots_of() {
	local key runs=() r
	while read -r key; do
		r=$(mutant_run "$mutations/${key%@*}.expect")
		runs+=("$r")
		echo "$r|${append[$key]}"
	done < <(members_of "$1")
	! shared "$1" || unswitched_runs "${runs[@]}" | sed 's/$/|/'
}

# The kernels, built in turn, each one's boots run two at a time while the
# next one builds: a boot takes one core, a build both, and the tests
# below find every boot in the cache (boot.sh keys it).  They are built
# target by target: going from one target to another recompiles what the
# series changes between them (patch 1 changes a header).  Whatever fails
# here fails again, and is reported, in its test.
boot_lane() { # KERNEL, then "RUN|APPEND" lines on stdin
	local b
	while read -r b; do
		boot.sh --run "${b%%|*}" --append "${b#*|}" "$1" </dev/null >/dev/null 2>&1
	done
}
prepare_mutants() {
	local g
	"$T_TOP/qemu/mkinitramfs.sh" >/dev/null 2>&1
	for g in "${groups[@]}"; do
		build.sh "${tip[$g]}" >/dev/null 2>&1 || continue
		wait
		boots_of "$g" >"$T_SCRATCH/boots"
		sed -n 1~2p "$T_SCRATCH/boots" | boot_lane "${tip[$g]}" &
		sed -n 2~2p "$T_SCRATCH/boots" | boot_lane "${tip[$g]}" &
	done
	wait
}
prepare_mutants

# The boot of the unmutated TARGET that t0100 made and that runs CASE: the
# plain one, or for a stress case the debug one (tests/lib/plain-boot.sh).
unmutated_boot() { # CASE TARGET
	if [[ $1 == *pagealloc_stress_* ]]; then
		boot.sh --run "$DEBUG_RUN" --append "$DEBUG_APPEND" "$2"
	elif [[ $1 == *pagealloc_roots_* ]]; then
		boot.sh --run roots "$2"
	elif [[ $1 == *pagealloc_hwpoison_* ]]; then
		boot.sh --run hwpoison "$2"
	else
		boot.sh --run "$PLAIN_RUN" --append "$PLAIN_APPEND" "$2"
	fi
}

# The kills a mutation's .expect asks for, one "CASE ERE" line each.
expected_kills() {
	printf '%s %s\n' "$(head -n1 "$1")" "$(sed -n 's/^message: //p' "$1")"
	sed -n 's/^also: //p' "$1"
}

for g in "${groups[@]}"; do
	shared "$g" || continue
	G=${tip[$g]} RUNS=$(boots_of "$g" | sed -n 's/|$//p')
	export G RUNS
	ok "the shared kernel of ${g%#*} ($(members_of "$g" | sed 's/@.*//' | paste -sd' ')) passes with no mutation switched on" '
		build.sh "$G" >/dev/null && for r in $RUNS; do boot.sh --run "$r" "$G" >/dev/null || exit 1; done
	'
done

for m in "$mutations"/*.diff; do
	name=$(basename "$m" .diff)
	expect=${m%.diff}.expect
	RUN=$(mutant_run "$expect")
	export M=$m CASE MESSAGE RUN
	mapfile -t kills < <(expected_kills "$expect")
	mapfile -t ons < <(targets_of "$expect")
	for on in "${ons[@]}"; do
		T=$(target_commit "$on") || T=''
		# No kernel: the mutation does not apply, and try-mutation.sh says why.
		g=${kernel[$name@$on]:-} C=${tip[${g:-none}]:-} APPEND=${append[$name@$on]:-}
		export T C APPEND
		for kill in "${kills[@]}"; do
			CASE=${kill%% *} MESSAGE=${kill#* }
			[[ $MESSAGE != "$kill" ]] || MESSAGE=''
			ok "mutation $name on $on makes ${CASE##*.} fail with /$MESSAGE/" '
				test -n "$T" && test -n "$MESSAGE" &&
				d0=$(unmutated_boot "$CASE" "$T") &&
				grep -qE "^ +ok [0-9]+ ${CASE##*.}$" "$d0/results.txt" &&
				{ test -n "$C" || try-mutation.sh "$T" "$M"; } && test -n "$C" &&
				build.sh "$C" >/dev/null &&
				d=$(boot.sh --run "$RUN" --append "$APPEND" "$C"); test $? -ne 0 &&
				jq -r ".tests.failed[]" "$d/verdict.json" >failed && cat failed &&
				grep -qx "pagealloc_seeds.$CASE\|pagealloc_stress.$CASE\|$CASE" failed &&
				case_report "$d" "${CASE##*.}" >report && cat report &&
				grep -qE -- "$MESSAGE" report
			'
		done
	done
done
done_testing
