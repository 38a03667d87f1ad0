#!/usr/bin/env bash
# scripts/bloat-o-meter of the kernel tree on each object the series
# changes, REV_A against REV_B (default: the base against the series
# tip), from the objects build.sh keeps with each commit's results: the
# figure a maintainer reads for text growth.  Each commit is built first
# if need be (the bench kernel, unless KFLAVOR says otherwise).
# usage: bloat.sh [REV_A [REV_B]]
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"

ensure_series >/dev/null
a=${1:-$(base_tag)} b=${2:-$BRANCH}
head_was=$(current_head)
trap 'restore_head "$head_was"' EXIT
dirs=()
for rev in "$a" "$b"; do
	"$TOP/scripts/build.sh" "$rev" >/dev/null ||
		die "$rev: its $KFLAVOR kernel did not build (see the error above)"
	dirs+=("$(result_dir "$rev")/objects")
done
mapfile -t objs < <(cd "${dirs[1]}" 2>/dev/null && find . -name '*.o' | sed 's|^\./||' | sort)
[[ ${#objs[@]} -gt 0 ]] ||
	die "$(short "$b"): no objects kept: $BRANCH changes no C file of $(base_tag) that the $KFLAVOR config builds"
for o in "${objs[@]}"; do
	echo "$o:"
	# A file the series adds has no object at REV_A: all of it is new
	# (nm reads no symbols from /dev/null).
	old=${dirs[0]}/$o
	[[ -f $old ]] || old=/dev/null
	python3 "$KTREE/scripts/bloat-o-meter" "$old" "${dirs[1]}/$o"
done
