#!/usr/bin/env bash
# Time what a new user waits for, from nothing, and print one line each:
#   check-cold          make check in a fresh clone of this repository's
#                       HEAD with an empty $WORK: import, every build cold
#                       (ccache empty), every boot; the packages are
#                       whatever this machine has (make deps installs the
#                       missing ones and is timed with the rest)
#   check-kernel-cold   the base's check-kernel build inside that run
#                       (build.json), compiler cache empty
#   check-after-edit    make check again, after a code edit of the last
#                       patch (amended in the kernel tree, then make export)
# Takes the machine for 40 minutes or more: nothing else should build
# beside it.  CHECK_FULL and the other settings pass through to make.
# usage: time-check.sh [DIR]    DIR: where the clone and its $WORK go
#                               (default: a new directory under /var/tmp)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d /var/tmp/time-check.XXXXXX)}
[[ ! -e $dir/repo ]] || { echo "time-check: $dir/repo exists; give an empty DIR" >&2; exit 1; }
mkdir -p "$dir"
# The run must start from nothing: none of the caller's caches or series.
unset CCACHE_DIR CCACHE_DEPEND SERIES_DIR BRANCH BASE TARBALL SOURCE_VERSION RESULTS KTREE BUILD_LOCK KFLAVOR
# Nor another machine's: a shared cache, a farm, boot hosts.
unset CCACHE_REMOTE_STORAGE CCACHE_PREFIX DISTCC_HOSTS BOOT_HOSTS BOOT_SSH_CONFIG
export WORK=$dir/work
git clone -q "$top" "$dir/repo"
echo "# $(date -u +%F) $(git -C "$dir/repo" rev-parse --short HEAD) $(nproc) cores; logs in $dir"

secs() { # LOG, then a command: its wall time in seconds; its output to LOG
	local s rc=0
	s=$(date +%s)
	"${@:2}" >"$1" 2>&1 || rc=$?
	echo $(($(date +%s) - s))
	return $rc
}
fail() { echo "time-check: $1 failed; see $2" >&2; exit 1; }

t=$(secs "$dir/check-cold.log" make -C "$dir/repo" check) || fail "the cold make check" "$dir/check-cold.log"
echo "check-cold $t s"
base=$(git -C "$WORK/linux" rev-parse "$(git -C "$WORK/linux" tag -l 'base/*' | tail -n1)^{commit}")
echo "check-kernel-cold $(jq -r .seconds "$WORK/results/$base/build.json") s"

# The edit: the last patch's line of get_pageblock_bitmap() split in two,
# new code for the compiler and ccache alike.
kt=$WORK/linux
git -C "$kt" checkout -q series
sed -i 's/^\treturn section_to_usemap(__nr_to_present_section(pfn_to_section_nr(pfn)));$/\tunsigned long nr = pfn_to_section_nr(pfn);\n\n\treturn section_to_usemap(__nr_to_present_section(nr));/' "$kt/mm/page_alloc.c"
git -C "$kt" diff --quiet && { echo "time-check: the edit no longer applies to mm/page_alloc.c" >&2; exit 1; }
git -C "$kt" -c user.name=time-check -c user.email=time-check@localhost commit -q -a --amend --no-edit
make -C "$dir/repo" export >"$dir/export.log" 2>&1 || fail "make export" "$dir/export.log"
t=$(secs "$dir/check-after-edit.log" make -C "$dir/repo" check) || fail "make check after the edit" "$dir/check-after-edit.log"
echo "check-after-edit $t s"
