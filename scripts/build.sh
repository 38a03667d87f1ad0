#!/usr/bin/env bash
# Build one commit of the kernel tree with the $KFLAVOR config (lib.sh) and
# the guest modules, and record what the check table needs under
# $RESULTS/<commit>/:
#   build.log  bzImage  System.map  modules/*.ko  build.json  warnings.txt
#   build.key  selftests/ (check kernels: the in-tree selftests they run)
# usage: build.sh REV        (REV=HEAD builds what is checked out, for bisect)
. "$(dirname "$0")/lib.sh"

rev=${1:?usage: build.sh REV}
commit=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit in $KTREE"
out=$(result_dir "$commit")
# The inputs of the config: the check kernel's fragments, or the bench
# kernel's fragment over Debian's config.
case $KFLAVOR in
check) config_inputs=("$TOP"/qemu/config/*.config) ;;
bench)
	deb=$("$TOP/scripts/fetch-debian.sh") ||
		die "the bench kernel's config comes from Debian's binary package, which could not be fetched"
	config_inputs=("$TOP/qemu/bench.config" "$deb/config") ;;
esac
# One build directory per config, so a config change does not throw away
# the incremental state of the previous one.
dirname=guest
[[ $KFLAVOR == check ]] || dirname=bench
build=${BUILD_DIR:-$WORK/build/$dirname-$(cat "${config_inputs[@]}" | sha1sum | cut -c1-8)}
export CCACHE_DIR=${CCACHE_DIR:-$WORK/ccache}
# A fixed build identity keeps init/version.o (and ccache hits) stable.
export KBUILD_BUILD_USER=pagealloc KBUILD_BUILD_HOST=qemu
export KBUILD_BUILD_TIMESTAMP=$GIT_COMMITTER_DATE
JOBS=${JOBS:-$(($(nproc) + 1))}

# The guest modules this flavour builds: the bench kernel has no KUnit,
# it runs the benchmark modules only.
mods=("$TOP"/qemu/modules/*/)
[[ $KFLAVOR == check ]] || mods=("$TOP/qemu/modules/pa_bench/" "$TOP/qemu/modules/pa_contend/")
# The check kernel also carries the kernel's own tests (qemu/intree-tests.txt).
intree=()
[[ $KFLAVOR != check ]] || intree=("$TOP/scripts/build-selftests.sh" "$INTREE_LIST")
# The C files the series changes: their objects are kept with each
# commit's results, for the cover letter's bloat-o-meter (mail.sh).
mapfile -t series_c < <(kgit diff --name-only "$(base_tag 2>/dev/null)" "$BRANCH" -- '*.c' 2>/dev/null || true)
# Anything that changes the built artefacts invalidates the cached build;
# a change to a module the flavour does not build does not.
key=$( { kgit rev-parse "$commit^{tree}"; cat "${config_inputs[@]}" "$TOP"/scripts/build.sh "${intree[@]}";
	printf '%s\n' "${series_c[@]}";
	find "${mods[@]}" -type f -print0 | sort -z | xargs -0 -r cat; } | sha1sum | cut -c1-16)
cached() { [[ -f $out/build.key && $(cat "$out/build.key") == "$key" ]]; }
report_cached() {
	say "$(short "$commit"): build cached ($(jq -r .status "$out/build.json"))"
	[[ $(jq -r .status "$out/build.json") == ok ]]
}
cached && { report_cached; exit; }

mkdir -p "$out"
take_build_lock
# The job we waited for may have built this very commit (make test's
# warm-base.sh builds the base while the fixture tests run).
cached && { report_cached; exit; }

head=$(kgit rev-parse HEAD)
if [[ $head != "$commit" ]]; then
	[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
		die "$KTREE has uncommitted changes; commit them (then 'make export') or 'git -C $KTREE stash'"
	kgit checkout -q --detach "$commit"
fi

rm -f "$out/build.key" "$out/build.json"
log=$out/build.log
first_error() {
	grep -m1 -E ': error:|: fatal error:|undefined reference|\*\*\* ' "$1" || tail -n1 "$1"
}
record() { # status seconds
	jq -n --arg status "$1" --argjson secs "$2" --arg commit "$commit" \
		--argjson pa_text "${pa_text:-null}" --argjson vm_text "${vm_text:-null}" \
		--argjson mp_text "${mp_text:-null}" \
		--argjson warnings "${nwarn:-0}" --arg error "${first:-}" \
		'{commit:$commit,status:$status,seconds:$secs,page_alloc_text:$pa_text,mempolicy_text:$mp_text,vmlinux_text:$vm_text,warnings:$warnings,error:$error}' \
		>"$out/build.json"
	echo "$key" >"$out/build.key"
}

# Configuring takes 5-6 s, a fifth of an incremental build, and gives the
# same .config as long as its inputs are those of the last time: the
# fragments (the build directory's name), the Kconfig files and kconfig
# itself at this commit, the compiler and config.sh.  A mutation or a
# patch of the series changes none of them.
config_key=$( { kgit ls-tree -r "$commit" |
	awk '$4 ~ /(^|\/)Kconfig[^\/]*$/ || $4 ~ /^scripts\/kconfig\// || $4 == "Makefile" { print $3 }'
	gcc --version | head -n1; cat "$TOP/scripts/config.sh"; } | sha1sum | cut -c1-16)
if [[ -f $build/.config && $(cat "$build/.pa-config-key" 2>/dev/null) == "$config_key" ]]; then
	say "$(short "$commit"): config unchanged"
else
	say "$(short "$commit"): configuring"
	rm -f "$build/.pa-config-key"
	"$TOP/scripts/config.sh" "$build"
	echo "$config_key" >"$build/.pa-config-key"
fi
say "$(short "$commit"): building in $build (log: $log)"
start=$SECONDS
kmake() { make -C "$KTREE" O="$build" CC="ccache gcc" -j"$JOBS" "$@"; }
# The check kernel's 'modules' writes Module.symvers, without which modpost
# cannot check the symbols the guest modules use; one make for both
# targets walks the tree once (8 s less a build than a make each).
# Debian's config has thousands of modules and the bench kernel needs none
# of them: vmlinux's own export list stands in.
kernel_build() {
	case $KFLAVOR in
	check) kmake bzImage modules ;;
	bench) kmake bzImage modules_prepare && cp "$build/vmlinux.symvers" "$build/Module.symvers" ;;
	esac
}
if ! kernel_build >"$log" 2>&1; then
	first=$(first_error "$log")
	nwarn=$(grep -c ': warning:' "$log" || true)
	record failed $((SECONDS - start))
	die "$(short "$commit"): build failed: $first"
fi

# Warnings without line numbers, so that a line moved by the commit is
# not reported as a new warning.
grep ': warning:' "$log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u >"$out/warnings.txt" || true
nwarn=$(wc -l <"$out/warnings.txt")
pa_text=$(size "$build/mm/page_alloc.o" | awk 'NR == 2 {print $1}')
# The series changes mempolicy.o too (the fixture tree has none).
mp_text=null
[[ ! -f $build/mm/mempolicy.o ]] || mp_text=$(size "$build/mm/mempolicy.o" | awk 'NR == 2 {print $1}')
vm_text=$(size "$build/vmlinux" | awk 'NR == 2 {print $1}')
cp "$build/arch/x86/boot/bzImage" "$out/bzImage"
# Symbols for step-fastpath.sh, which has no vmlinux to read them from.
cp "$build/System.map" "$out/System.map"
# The objects of the series' C files that this commit has and this config
# builds: the build directory keeps one commit's objects only.
rm -rf "$out/objects"
for f in "${series_c[@]}"; do
	if [[ ! -f $build/${f%.c}.o ]] || ! kgit cat-file -e "$commit:$f" 2>/dev/null; then
		continue
	fi
	mkdir -p "$out/objects/${f%/*}"
	cp "$build/${f%.c}.o" "$out/objects/${f%.c}.o"
done

rm -rf "$out/modules"
mkdir -p "$out/modules"
# The guest modules, in one external-module build with a directory each:
# one walk of the kernel's build machinery and one modpost for all of
# them, compiled in parallel.  Modules built from the same sources against
# the same headers, config and kernel exports are the same modules, so a
# commit that changes only .c files of the kernel (every patch of the
# series, every mutation and plant) takes the last such build's, and
# saves its 13 s.
modkey=$( { kgit ls-tree "$commit" -- Makefile include arch scripts; kgit ls-tree "$commit" mm/ | grep '\.h$' || true
	cat "$build/.config" "$build/Module.symvers" "$build/include/config/kernel.release" 2>/dev/null || true
	gcc --version | head -n1; cat "$0"; find "${mods[@]}" -type f -print0 | sort -z | xargs -0 -r cat; } |
	sha1sum | cut -c1-16)
modcache=$WORK/modcache/$KFLAVOR-$modkey
mb=$WORK/modbuild/$KFLAVOR
if [[ -f $modcache/.done ]]; then
	cp "$modcache"/*.ko "$out/modules/"
else
	rm -rf "$mb"
	mkdir -p "$mb"
	for src in "${mods[@]}"; do
		[[ -d $src ]] || continue
		cp -r "$src" "$mb/$(basename "$src")"
		echo "obj-m += $(basename "$src")/" >>"$mb/Kbuild"
	done
	if [[ -f $mb/Kbuild ]]; then
		if ! make -C "$build" M="$mb" CC="ccache gcc" -j"$JOBS" modules >>"$log" 2>&1; then
			first=$(first_error "$log")
			record failed $((SECONDS - start))
			die "$(short "$commit"): a guest module failed to build: $first"
		fi
		cp "$mb"/*/*.ko "$out/modules/"
	fi
	rm -rf "$modcache.tmp"
	mkdir -p "$modcache.tmp"
	cp "$out"/modules/*.ko "$modcache.tmp/" 2>/dev/null || true
	touch "$modcache.tmp/.done"
	rm -rf "$modcache"
	mv "$modcache.tmp" "$modcache"
fi
# The in-tree test modules the check config builds, and the selftests.
if [[ $KFLAVOR == check ]]; then
	find "$build" -name '*.ko' -exec cp {} "$out/modules/" \;
	rm -rf "$out/selftests"
	st=$("$TOP/scripts/build-selftests.sh" "$build" 2>>"$log") || {
		first=$(tail -n1 "$log")
		record failed $((SECONDS - start))
		die "$(short "$commit"): the in-tree selftests failed to build: $first"
	}
	cp -r "$st" "$out/selftests"
fi
grep ': warning:' "$log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u >"$out/warnings.txt" || true
nwarn=$(wc -l <"$out/warnings.txt")
record ok $((SECONDS - start))
say "$(short "$commit"): built in $((SECONDS - start)) s, page_alloc.o text $pa_text, vmlinux text $vm_text"
