#!/usr/bin/env bash
# Build the tools/testing/selftests/mm programs (selftests/vm in 6.1) that
# qemu/intree-tests.txt runs, from the kernel tree as checked out,
# statically linked for the guest, against the UAPI headers of BUILD_DIR
# (make headers).  The series touches neither the programs nor the
# headers, so one build serves every commit: it is cached under
# $WORK/selftests/ by the trees they come from.
# Called by build.sh, which holds the build lock with the commit checked out.
# usage: build-selftests.sh BUILD_DIR   (prints the directory of programs)
. "$(dirname "$0")/lib.sh"

build=${1:?usage: build-selftests.sh BUILD_DIR}
mapfile -t progs < <(awk '$1 == "program" || $1 == "stress" { print $2 }' "$INTREE_LIST")
src=tools/testing/selftests/mm
kgit cat-file -e "HEAD:$src" 2>/dev/null || src=tools/testing/selftests/vm
key=$( { kgit rev-parse "HEAD:$src" "HEAD:include/uapi" "HEAD:arch/x86/include/uapi" 2>/dev/null || true;
	printf '%s\n' "${progs[@]}"; cat "$0"; } | sha1sum | cut -c1-16)
out=$WORK/selftests/$key
if [[ -f $out/.done ]]; then
	echo "$out"
	exit 0
fi

[[ ${#progs[@]} -eq 0 ]] || make -s -C "$KTREE" O="$build" headers >/dev/null ||
	die "make headers failed in $build"
tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp"
for p in "${progs[@]}"; do
	c=$KTREE/$src/$p.c
	[[ -f $c ]] || die "$INTREE_LIST names $p, but $src/$p.c is not in the tree"
	# The selftests' Makefile links vm_util.c into the programs that use it.
	extra=()
	! grep -q '"vm_util.h"' "$c" || extra=("$KTREE/$src/vm_util.c")
	gcc -static -O2 -Wall -I "$KTREE" -isystem "$build/usr/include" \
		-o "$tmp/$p" "$c" "${extra[@]}" -lrt -lpthread >"$tmp/$p.log" 2>&1 ||
		die "$src/$p.c does not build: $(grep -m1 'error' "$tmp/$p.log")"
	rm -f "$tmp/$p.log"
done
touch "$tmp/.done"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "$out"
