# shellcheck shell=bash
# Helpers for the tests that build and boot the real kernel: they share the
# user's $WORK (the imported tree, ccache and results cache), and make
# throwaway commits on the imported base without touching any branch.

[[ -z ${SKIP_KERNEL:-} ]] || skip_all "SKIP_KERNEL is set"
unset SERIES_DIR TARBALL SOURCE_VERSION RESULTS KTREE
export WORK=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/pagealloc}
# shellcheck source=scripts/lib.sh
. "$T_TOP/scripts/lib.sh"
set +e
"$T_TOP/scripts/import.sh" >/dev/null 2>&1 || skip_all "the kernel tarball could not be imported"

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
plant_patch() {
	local idx
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx kgit read-tree "$1" &&
		GIT_INDEX_FILE=$idx kgit apply --cached "$3" &&
		GIT_INDEX_FILE=$idx kgit write-tree | xargs -I{} git -C "$KTREE" commit-tree {} -p "$1" -m "$2"
	rm -f "$idx"
}
