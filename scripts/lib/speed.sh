#!/usr/bin/env bash
# Time the loop a developer waits on, and print one line per figure:
#   boot      boot of the base to its verdict, plain TCG, no guest steps
#   rebuild   build after a change to mm/page_alloc.c only (ccache warm)
#   recheck   `check.sh` again with nothing changed
#   cold      a build from an empty build directory without ccache
#             (only with --cold: it takes ten minutes on two cores)
# usage: speed.sh [--cold]
. "$(dirname "$0")/lib.sh"

base=$(kgit rev-parse "$(base_tag)^{commit}")
t() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc | xargs printf '%.1f'; }

"$TOP/scripts/build.sh" "$base" >/dev/null 2>&1 || die "the base does not build"
echo "boot $(t "$TOP/scripts/boot.sh" --force --run "" "$base") s"

# A page_alloc.c-only change: a throwaway commit with one more comment.
src=$(mktemp)
trap 'rm -f "$src"' EXIT
{ kgit show "$base:mm/page_alloc.c"; echo "/* speed.sh $(date +%s) */"; } >"$src"
c=$(commit_with_file "$base" mm/page_alloc.c "$src" "speed.sh: touch page_alloc.c")
echo "rebuild $(t "$TOP/scripts/build.sh" "$c") s"
"$TOP/scripts/build.sh" "$base" >/dev/null 2>&1

echo "recheck $(t "$TOP/scripts/check.sh") s"

if [[ ${1:-} == --cold ]]; then
	cold=$(mktemp -d "$WORK/build/cold.XXXXXX")
	echo "cold $(BUILD_DIR=$cold CCACHE_DISABLE=1 RESULTS=$cold/results t "$TOP/scripts/build.sh" "$base") s"
	rm -rf "$cold"
fi
