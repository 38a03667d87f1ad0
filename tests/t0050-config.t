#!/usr/bin/env bash
# The guest config: Debian's memory-management choices, kept and readable.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

debian=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
frag=$T_TOP/qemu/config/mm-debian.config

if [[ -f $debian ]]; then
	ok "every value in mm-debian.config is the one Debian's amd64 config has" '
		bad=0
		xz -dc '"$debian"' >debian.config
		while IFS= read -r line; do
			case $line in CONFIG_*=*) ;; *) continue ;; esac
			grep -qxF -- "$line" debian.config || { echo "Debian differs: $line"; bad=1; }
		done <'"$frag"'
		test $bad -eq 0
	'
else
	skip "every value in mm-debian.config is the one Debian's amd64 config has" "no $debian"
fi

ok "every option in the fragments has a comment saying why" '
	for f in "$T_TOP"/qemu/config/*.config "$T_TOP"/qemu/config/*/*.config; do
		awk -v f="$f" "/^#/ { c = 1; next } /^$/ { c = 0; next } { if (!c) { print f \": \" \$0; bad = 1 } }
			END { exit bad }" "$f" || exit 1
	done
'

ok "Debian's allocator-relevant options are all in the fragment" '
	for o in NUMA MEMCG TRANSPARENT_HUGEPAGE COMPACTION ZONE_DMA ZONE_DMA32 SPARSEMEM_VMEMMAP \
		DEBUG_LIST PAGE_POISONING INIT_ON_ALLOC_DEFAULT_ON SHUFFLE_PAGE_ALLOCATOR PREEMPT_DYNAMIC; do
		grep -qx "CONFIG_$o=y" '"$frag"' || { echo "missing CONFIG_$o"; exit 1; }
	done
'

ok "the guest modules take pa_compat.h on kernels other than 6.1 only" '
	printf "include %s\nall:\n\t@echo \"[\$(ccflags-y)]\"\n" "$T_TOP/qemu/modules/pa_compat/compat.mk" >mk &&
	test "$(make -s -f mk src=m VERSION=6 PATCHLEVEL=1)" = "[]" &&
	test "$(make -s -f mk src=m VERSION=6 PATCHLEVEL=12)" = "[-include m/../pa_compat/pa_compat.h]" &&
	for d in "$T_TOP"/qemu/modules/pa_*/; do
		grep -q "MAX_ORDER" "$d"*.c 2>/dev/null || continue
		grep -qs "pa_compat/compat.mk" "$d"Kbuild "$d"Makefile || { echo "$d: no compat.mk"; exit 1; }
	done
'

# Kconfig's answer needs the imported tree: import it here (nothing to do
# when it is there) rather than skip on a new machine, where this file
# runs before anything else imports.
if [[ -z ${SKIP_KERNEL:-} ]]; then
	import.sh >"$T_SCRATCH/import.log" 2>&1
	ok "the kernel tarball imports, for Kconfig" "test $? -eq 0 || { cat '$T_SCRATCH/import.log'; false; }"
	ok "Kconfig gives every value the fragments ask for" '
		config.sh "$PWD/b" && grep -qx "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y" b/.config &&
		grep -qx "CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y" b/.config
	'
	ok "a value Kconfig cannot give is reported by name" '
		mkdir top && cp -r "$T_TOP/scripts" "$T_TOP/qemu" top/ &&
		echo "CONFIG_NO_SUCH_OPTION_X=y" >>top/qemu/config/test.config &&
		must_fail top/scripts/lib/config.sh "$PWD/b" && must_say "CONFIG_NO_SUCH_OPTION_X=y"
	'
	ok "an option a kernel line does not have is left out by that line's gone.txt, on that line only" '
		mkdir top && cp -r "$T_TOP/scripts" "$T_TOP/qemu" top/ &&
		printf "# not an option of any kernel\nCONFIG_NO_SUCH_OPTION_X=y\n" >>top/qemu/config/test.config &&
		k=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/pagealloc}/linux &&
		line=$(git -C "$k" tag -l "base/*" --merged HEAD | sed -nE "1s|^base/([0-9]+[.][0-9]+).*|\1|p") &&
		mkdir top/qemu/config/$line && echo "CONFIG_NO_SUCH_OPTION_X  gone" >top/qemu/config/$line/gone.txt &&
		top/scripts/lib/config.sh "$PWD/b" && ! grep -q NO_SUCH_OPTION b/.config &&
		mv top/qemu/config/$line top/qemu/config/0.$line &&
		must_fail top/scripts/lib/config.sh "$PWD/b" && must_say "CONFIG_NO_SUCH_OPTION_X=y"
	'
else
	skip "Kconfig gives every value the fragments ask for" "SKIP_KERNEL is set"
fi

done_testing
