#!/usr/bin/env bash
# The per-commit check: for the base and every commit of the series (or the
# commits named), build, boot with the KUnit suite, and print one table.
# usage: check.sh [REV | A..B]...      (default: base..$BRANCH, base included)
. "$(dirname "$0")/lib/lib.sh"

ensure_series
base=$(kgit rev-parse "$(base_tag)^{commit}")

commits=()
resolve_revs commits "$@"

# Two levels.  The default is what makes every commit good to bisect:
# it builds with no new warning, in the check config and in each config
# of the build matrix for the C files it changes (all of the series' when
# it changes a header), it boots, and it passes its KUnit and stress
# cases with and without debug_pagealloc.  The slower suites, the
# kernel's own tests, roots and hwpoison, run on the first and the last
# commit checked (the base and the tip): a regression that reaches the
# tip is seen there, and make bisect finds its commit with the same
# boot.  CHECK_FULL=1 runs every boot on every commit, test_free_pages
# (92 s a boot under TCG) included, and compiles every C file of the
# series at every commit in every config.
need_bool CHECK_FULL
CHECK_FULL=${CHECK_FULL:-0}
if [[ $CHECK_FULL == 1 ]]; then
	plain_append='' scope=series
else
	plain_append=pa.intree_skip=test_free_pages scope=commit
fi
export MATRIX_SCOPE=${MATRIX_SCOPE:-$scope}

# The boots: KUnit (the stress suite included) on the functional machine,
# KUnit again with page poisoning and debug_pagealloc to catch
# use-after-free; at the ends (every commit with CHECK_FULL=1) the
# kernel's own tests in the first boot, the roots suite in an 18 GiB
# guest (memory under a second mem_section root), and the hwpoison suite
# in a boot of its own (it leaves a poisoned page behind).
debug_boot="kunit,stress|debug_pagealloc=on page_poison=1"
boots=("kunit,stress|" "$debug_boot")
end_boots=("kunit,stress,intree|$plain_append" "$debug_boot" "roots|" "hwpoison|")
[[ $CHECK_FULL == 0 ]] || boots=("${end_boots[@]}")
if [[ -n ${CHECK_BOOTS:-} ]]; then
	mapfile -t boots < <(tr ';' '\n' <<<"$CHECK_BOOTS")
	end_boots=("${boots[@]}")
fi

# The build matrix (matrix.sh) compiles each commit in Debian's configs
# too; CHECK_MATRIX=0 leaves it out, for a quick look at boots alone.
need_bool CHECK_MATRIX
CHECK_MATRIX=${CHECK_MATRIX:-1}

# The base is built first: its warnings and text size are the reference.
# A build that failed for reasons outside the commit (killed, disk full)
# leaves a build.json that says "infra", or none: no verdict on it.
build_status() { jq -r .status "$RESULTS/$1/build.json" 2>/dev/null || echo infra; }
if ! "$TOP/scripts/build.sh" "$base" >/dev/null; then
	[[ $(build_status "$base") != failed ]] ||
		die "the base $(short "$base") does not build"
	die "the base $(short "$base") could not be built: an infrastructure failure (see above); run again"
fi
bj=$RESULTS/$base/build.json

# Boots side by side must not each make the initramfs into one scratch file.
"$TOP/qemu/mkinitramfs.sh" >/dev/null
rowdir=$(mktemp -d)
head_was=$(current_head)
trap 'rm -rf "$rowdir"; restore_head "$head_was"' EXIT
total=${#commits[@]}

# One row of the table, for the commit numbered $1, from the variables
# the build and the boots set.
write_row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(short "$c")" "${subj:0:50}" "$build_s" \
		"$newwarn" "$matrix" "$dtext" "$boot_s" "$tests" "$intree" "$verdict" "$why" >"$rowdir/$1"
}

# The boots of commit $c, then its row.  A boot takes about one core and
# a build both: the boots of one commit run side by side, while the next
# commit builds.
boot_and_write_row() {
	local b run append dir vj v k=0 p=0 f=0 s=0 ipass=0 ifail=0 iskip=0 dirs
	dirs=$(mktemp -d -p "$rowdir")
	local these=("${boots[@]}")
	[[ $1 != 1 && $1 != "$total" ]] || these=("${end_boots[@]}")
	for b in "${these[@]}"; do
		k=$((k + 1)) run=${b%%|*} append=${b#*|}
		progress "$1" "$total" "boot $(short "$c") run=$run${append:+ $append}"
		{ "$TOP/scripts/boot.sh" --run "$run" --append "$append" "$c" >"$dirs/$k" || true; } &
	done
	wait
	boot_s='' k=0 intree=-
	for b in "${these[@]}"; do
		k=$((k + 1)) append=${b#*|}
		dir=$(cat "$dirs/$k")
		vj=$dir/verdict.json
		if [[ ! -f $vj ]]; then
			verdict=infra why="boot.sh could not boot $(short "$c")"
			continue
		fi
		v=$(jq -r .verdict "$vj")
		boot_s+=${boot_s:+/}$(jq -r .seconds "$vj")
		p=$((p + $(jq .tests.pass "$vj"))) f=$((f + $(jq .tests.fail "$vj"))) s=$((s + $(jq .tests.skip "$vj")))
		ipass=$((ipass + $(jq '.intree.pass // 0' "$vj"))) ifail=$((ifail + $(jq '.intree.fail // 0' "$vj")))
		iskip=$((iskip + $(jq '.intree.skip // 0' "$vj")))
		[[ ,${b%%|*}, != *,intree,* ]] || intree=ran
		if [[ $v != pass && $verdict == pass ]]; then
			verdict=$v why="run=${b%%|*}${append:+ $append}: $(jq -r .reason "$vj")"
		fi
	done
	# A row whose boots ran none of the kernel's own tests says "-" there.
	[[ $intree == - ]] || intree="$ipass/$ifail/$iskip"
	tests="$p/$f/$s" boot_s=${boot_s:--}
	write_row "$1"
}

read -ra boot_hosts <<<"${BOOT_HOSTS:-}"
groups=${#boot_hosts[@]}
[[ $groups -gt 0 ]] || groups=1
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	subj=$(kgit log -1 --format=%s "$c")
	[[ $c == "$base" ]] && subj="(base) $subj"
	progress "$i" "$total" "build $(short "$c") $subj"
	verdict=pass why='' boot_s=- tests=- intree=- newwarn=- dtext=- build_s=- matrix=-
	result_dir "$c" >/dev/null
	if ! "$TOP/scripts/build.sh" "$c" >/dev/null; then
		verdict=failed
		[[ $(build_status "$c") == failed ]] || verdict=infra
		why="build: $(jq -r '.error // empty' "$RESULTS/$c/build.json" 2>/dev/null || echo "see $RESULTS/$c/build.log")"
		write_row "$i"
		continue
	fi
	cj=$RESULTS/$c/build.json
	build_s=$(jq -r .seconds "$cj")
	newwarn=$(comm -13 "$RESULTS/$base/warnings.txt" "$RESULTS/$c/warnings.txt" | wc -l)
	dtext=$(( $(jq -r .page_alloc_text "$cj") - $(jq -r .page_alloc_text "$bj") ))
	if [[ $newwarn -gt 0 ]]; then
		verdict=failed why="new warning: $(comm -13 "$RESULTS/$base/warnings.txt" "$RESULTS/$c/warnings.txt" | head -n1)"
	fi
	if [[ $CHECK_MATRIX == 1 ]]; then
		progress "$i" "$total" "build matrix $(short "$c")"
		if m=$("$TOP/scripts/lib/matrix.sh" "$c"); then
			matrix=$m
		else
			matrix=$(head -n1 <<<"$m")
			[[ $verdict != pass ]] || verdict=failed why="matrix: $(sed -n 2p <<<"$m")"
			[[ $why != "matrix: " ]] || why="matrix: matrix.sh failed (see its error above)"
		fi
		matrix=${matrix:--}
	fi
	# Here the boots of one commit at a time; with boot hosts, the boots
	# of as many commits as there are hosts.
	while [[ $(jobs -pr | wc -l) -ge $groups ]]; do
		wait -n || true
	done
	boot_and_write_row "$i" &
done
wait

# A boot job that died without its row (killed, or a tool failing
# under set -e) must not leave its commit out of the table.
for ((i = 1; i <= total; i++)); do
	[[ -f $rowdir/$i ]] && continue
	c=${commits[i - 1]} subj=$(kgit log -1 --format=%s "$c")
	build_s=- newwarn=- matrix=- dtext=- boot_s=- tests=- intree=-
	verdict=infra why="its boots ended without a result"
	write_row "$i"
done
rows=$(for ((i = 1; i <= total; i++)); do cat "$rowdir/$i"; done)
failed=$(awk -F'\t' '$10 != "pass"' <<<"$rows" | wc -l)
"$TOP/scripts/lib/table.sh" "${TABLE_FORMAT:-text}" <<<"$rows" | tee "$WORK/check-table.txt"
# The rows as they are, for tools (scripts/lib/scale-model.py); on a full
# disk none, rather than an earlier run's.
{ printf '%s\n' "$rows" >"$WORK/check-table.tsv"; } 2>/dev/null || rm -f "$WORK/check-table.tsv"
[[ $failed -eq 0 ]] || die "$failed of $total commits failed"
