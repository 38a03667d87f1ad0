# shellcheck shell=bash
# Helpers for the tests that build and boot the real kernel: they share the
# user's $WORK (the imported tree, ccache and results cache), and make
# throwaway commits on the imported base without touching any branch.

[[ -z ${SKIP_KERNEL:-} ]] || skip_all "SKIP_KERNEL is set"
# The repository's series, whatever the caller's environment says;
# TEST_SERIES_DIR runs them on another (SERIES_DIR=series-6.12's).
unset SERIES_DIR TARBALL SOURCE_VERSION RESULTS KTREE
[[ -z ${TEST_SERIES_DIR:-} ]] || export SERIES_DIR=$TEST_SERIES_DIR
export WORK=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/pagealloc}
# shellcheck source=scripts/lib/lib.sh
. "$T_TOP/scripts/lib/lib.sh"
set +e
"$T_TOP/scripts/import.sh" >/dev/null 2>&1 || skip_all "the kernel tarball could not be imported"

# shellcheck source=tests/lib/plain-boot.sh
. "$T_TOP/tests/lib/plain-boot.sh"

# usage: plant_commit PARENT SUBJECT SCRIPT   (prints the new commit id)
# SCRIPT is run in a scratch copy of mm/page_alloc.c as $1 and may edit it.
plant_commit() {
	local f c
	f=$(mktemp)
	kgit show "$1:mm/page_alloc.c" >"$f"
	bash -c "$3" _ "$f" && c=$(commit_with_file "$1" mm/page_alloc.c "$f" "$2")
	rm -f "$f"
	[[ -n ${c:-} ]] && echo "$c"
}

# usage: plant_patch PARENT SUBJECT DIFF   (prints the new commit id)
plant_patch() { "$T_TOP/scripts/lib/try-patch.sh" "$1" "$3" "$2"; }

# A measurement of the test's own, for the tests of what reads make
# bench's results (mail, figures), so that they run on a new machine too:
# one boot per kernel, order-0 pairs only, no profiled boots (t0190 tests
# those; three full profiled boots per kernel cost this set 8 minutes on
# a new machine).  The settings stay exported, so that every later
# measure.sh of the test finds this set in the cache.
small_bench() {
	export BENCH_K=1 BENCH_ZERO_K=0 BENCH_PROFILE_K=0 BENCH_DEBIAN=0 BENCH_STEPS=bench
	export BENCH_ARGS="orders=0+batches=0+loops=2000"
	"$T_TOP/scripts/bench.sh" >"$T_SCRATCH/bench.log" 2>&1 && return 0
	sed 's/^/# /' "$T_SCRATCH/bench.log"
	return 1
}
