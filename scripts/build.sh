#!/usr/bin/env bash
# Build one commit of the kernel tree with the $KFLAVOR config (lib.sh) and
# the guest modules, and record what the check table needs under
# $RESULTS/<commit>/:
#   build.log  bzImage  System.map  modules/*.ko  build.json  warnings.txt
#   build.key  selftests/ (check kernels: the in-tree selftests they run)
# usage: build.sh REV        (REV=HEAD builds what is checked out, for bisect)
. "$(dirname "$0")/lib/lib.sh"

rev=${1:?usage: build.sh REV}
commit=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit in $KTREE"
out=$(result_dir "$commit")
# The inputs of the config: the check kernel's fragments, or the bench
# kernel's fragment over Debian's config.
case $KFLAVOR in
check) mapfile -t config_inputs < <(check_fragments "$commit") ;;
bench)
	deb=$("$TOP/scripts/lib/fetch-debian.sh") ||
		die "the bench kernel's config comes from Debian's binary package, which could not be fetched"
	config_inputs=("$TOP/qemu/bench.config" "$deb/config") ;;
esac
# One build directory per config, so a config change does not throw away
# the incremental state of the previous one.
dirname=guest
[[ $KFLAVOR == check ]] || dirname=bench
build=${BUILD_DIR:-$WORK/build/$dirname-$(cat "${config_inputs[@]}" | sha1sum | cut -c1-8)}
# A fixed build identity keeps init/version.o (and ccache hits) stable:
# the same tree, config and toolchain give the same bzImage, byte for
# byte, and so the same boot keys.  Without KBUILD_BUILD_VERSION each
# link would number itself from the build directory's .version.
export KBUILD_BUILD_USER=pagealloc KBUILD_BUILD_HOST=qemu KBUILD_BUILD_VERSION=1
export KBUILD_BUILD_TIMESTAMP=$GIT_COMMITTER_DATE
need_uint JOBS
use_compiler

# The guest modules this flavour builds: the bench kernel has no KUnit,
# it runs the benchmark modules only.
mods=("$TOP"/qemu/modules/*/)
[[ $KFLAVOR == check ]] || mods=("$TOP/qemu/modules/pa_bench/" "$TOP/qemu/modules/pa_contend/" "$TOP/qemu/modules/pa_compat/")
# The check kernel also carries the kernel's own tests (qemu/intree-tests.txt).
intree=()
[[ $KFLAVOR != check ]] || intree=("$TOP/scripts/lib/build-selftests.sh" "$INTREE_LIST")
# A build is what it is made of: the tree, the config, the toolchain, the
# flavour, and what the result directory holds besides the kernel (the
# guest modules, the selftests, this script); a change to a module the
# flavour does not build does not count.  The series it is checked for
# does not: the base of two series is one build, one bzImage, one set of
# boots.
key=$( { echo "$KFLAVOR"; kgit rev-parse "$commit^{tree}"; cat "${config_inputs[@]}" "$TOP"/scripts/build.sh "${intree[@]}";
	gcc --version | head -n1; ld --version 2>/dev/null | head -n1
	find "${mods[@]}" -type f -print0 | sort -z | xargs -0 -r cat; } | sha1sum | cut -c1-16)
# A cached result is a key that matches and a build.json that is whole
# (both are written to a scratch name and renamed into place, but a
# result copied or cut short by hand must not pass for one; jq -e takes
# an empty file for a true one, -s does not): anything else is built
# again.
cached() {
	[[ -f $out/build.key && $(cat "$out/build.key") == "$key" ]] &&
		jq -se 'length == 1 and (.[0].status == "ok" or .[0].status == "failed")' "$out/build.json" >/dev/null 2>&1 &&
		{ [[ $(jq -r .status "$out/build.json") == failed ]] || [[ -s $out/bzImage ]]; }
}
report_cached() {
	local s
	s=$(jq -r .status "$out/build.json")
	say "$(short "$commit"): build cached ($s)"
	[[ $s == ok ]]
}
# write FILE: stdin into FILE through a scratch file and a rename, so that
# an interrupt or a full disk never leaves half a file under its name.
write() {
	if ! cat >"$1.tmp.$$" || ! mv -f "$1.tmp.$$" "$1"; then
		rm -f "$1.tmp.$$"
		die "$(short "$commit"): could not write $1 (disk full?); an infrastructure failure, nothing kept"
	fi
}

# Check out the commit and configure the build directory, under the lock.
checkout_commit() {
	local head
	head=$(kgit rev-parse HEAD)
	[[ $head != "$commit" ]] || return 0
	[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
		die "$KTREE has uncommitted changes; commit them (then 'make export') or 'git -C $KTREE stash'"
	kgit checkout -q --detach "$commit"
}
# Configuring takes 5-6 s, a fifth of an incremental build, and gives the
# same .config as long as its inputs are those of the last time: the
# fragments (the build directory's name), the Kconfig files and kconfig
# itself at this commit, the compiler and config.sh.  A mutation or a
# patch of the series changes none of them.
configure() {
	local config_key
	config_key=$( { kgit ls-tree -r "$commit" |
		awk '$4 ~ /(^|\/)Kconfig[^\/]*$/ || $4 ~ /^scripts\/kconfig\// || $4 == "Makefile" { print $3 }'
		gcc --version | head -n1; cat "$TOP/scripts/lib/config.sh"; } | sha1sum | cut -c1-16)
	if [[ -f $build/.config && $(cat "$build/.pa-config-key" 2>/dev/null) == "$config_key" ]]; then
		say "$(short "$commit"): config unchanged"
	else
		say "$(short "$commit"): configuring"
		rm -f "$build/.pa-config-key"
		"$TOP/scripts/lib/config.sh" "$build" || infra_or_die $? "configuring" "configuring failed (see above)"
		echo "$config_key" | write "$build/.pa-config-key"
	fi
}
kmake() { make -C "$KTREE" O="$build" CC="$KCC" -j"$JOBS" "$@"; }

# The C files the series changes: their objects are kept with each
# commit's results, for the cover letter's bloat-o-meter (bloat.sh).  A
# side product, keyed apart from the build: another series, with other
# files, finds the build done and only compiles its own objects.
mapfile -t series_c < <(kgit diff --name-only "$(base_tag 2>/dev/null)" "$BRANCH" -- '*.c' 2>/dev/null || true)
objects_key=$( { echo "$key"; printf '%s\n' "${series_c[@]}"; } | sha1sum | cut -c1-16)
# Copy the objects of those files that this commit has and this config
# builds: the build directory keeps one commit's objects only.
copy_objects() {
	local f
	rm -rf "$out/objects"
	for f in "${series_c[@]}"; do
		if [[ ! -f $build/${f%.c}.o ]] || ! kgit cat-file -e "$commit:$f" 2>/dev/null; then
			continue
		fi
		mkdir -p "$out/objects/${f%/*}"
		cp "$build/${f%.c}.o" "$out/objects/${f%.c}.o"
	done
	echo "$objects_key" | write "$out/objects.key"
}
# For a build done before, compile the objects again at this commit: the
# build directory may hold another commit's, or none.
ensure_objects() {
	local f objs=()
	[[ $(cat "$out/objects.key" 2>/dev/null) != "$objects_key" ]] || return 0
	take_build_lock
	[[ $(cat "$out/objects.key" 2>/dev/null) != "$objects_key" ]] || return 0
	rm -f "$out/objects.key"
	for f in "${series_c[@]}"; do
		! kgit cat-file -e "$commit:$f" 2>/dev/null || objs+=("${f%.c}.o")
	done
	if [[ ${#objs[@]} -gt 0 ]]; then
		# The build itself is done: edits in the tree put off the objects,
		# they do not stop the step.
		if [[ $(kgit rev-parse HEAD) != "$commit" && -n $(kgit status --porcelain --untracked-files=no) ]]; then
			say "$(short "$commit"): the series' objects not compiled: $KTREE has uncommitted changes"
			return 0
		fi
		checkout_commit
		configure
		say "$(short "$commit"): compiling the objects of the series' C files for bloat-o-meter: ${objs[*]}"
		(cd "$build" && rm -f "${objs[@]}")
		# One the config does not build is left out, as after a build.
		kmake "${objs[@]}" >"$out/objects.log" 2>&1 ||
			say "$(short "$commit"): not every object built (see $out/objects.log)"
	fi
	copy_objects
}

if cached; then report_cached || exit 1; ensure_objects; exit 0; fi

mkdir -p "$out"
take_build_lock
# The job we waited for may have built this very commit (make test's
# warm-base.sh builds the base while the fixture tests run).
if cached; then report_cached || exit 1; ensure_objects; exit 0; fi

checkout_commit
log=$out/build.log
rm -f "$out/build.key" "$out/build.json" "$out/objects.key" "$log"
first_error() {
	grep -m1 -E ': error:|: fatal error:|undefined reference|\*\*\* ' "$1" || tail -n1 "$1"
}
# The result: build.json, then build.key, which makes it a cached one.  A
# build that could not finish for reasons outside the commit ("infra")
# gets a build.json that says why, for check.sh's table, and no key.
record() { # status seconds
	jq -n --arg status "$1" --argjson secs "$2" --arg commit "$commit" \
		--argjson pa_text "${pa_text:-null}" --argjson vm_text "${vm_text:-null}" \
		--argjson mp_text "${mp_text:-null}" \
		--argjson warnings "${nwarn:-0}" --arg error "${first:-}" \
		'{commit:$commit,status:$status,seconds:$secs,page_alloc_text:$pa_text,mempolicy_text:$mp_text,vmlinux_text:$vm_text,warnings:$warnings,error:$error}' |
		write "$out/build.json"
	[[ $1 == infra ]] || echo "$key" | write "$out/build.key"
}
# Why a failed step failed for reasons outside the commit, if it did: a
# make ended by a signal (the OOM killer's SIGKILL of make alone, a
# TERM or INT from outside) exits 128 and more, or logs make's or gcc's
# report of a child killed; a full disk or exhausted memory says so in
# the log, or leaves no room to write one.
infra_cause() { # STATUS
	local d
	if (($1 >= 128)); then
		echo "make was ended by signal $(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128)))"
		return 0
	fi
	grep -m1 -E '\] (Killed|Terminated|Interrupt|Hangup)$|Killed signal terminated program|No space left on device|Cannot allocate memory|virtual memory exhausted|out of memory' "$log" 2>/dev/null && return 0
	for d in "$build" "$out"; do
		if ! head -c 65536 /dev/zero 2>/dev/null >"$d/.pa-space.$$"; then
			rm -f "$d/.pa-space.$$"
			echo "no space left to write in $d"
			return 0
		fi
		rm -f "$d/.pa-space.$$"
	done
	return 1
}
# A step that failed from outside: say so, and stop with nothing cached.
# usage: infra_or_die STATUS WHAT [MESSAGE-IF-NOT]
infra_or_die() {
	local cause
	if cause=$(infra_cause "$1"); then
		first=$cause
		record infra $((SECONDS - ${start:-$SECONDS})) 2>/dev/null || true
		die "$(short "$commit"): $2 did not finish: $cause; an infrastructure failure, not a verdict on the commit (nothing cached): run again"
	fi
	[[ -z ${3:-} ]] || die "$(short "$commit"): $3"
}
# A failed step: a verdict on the commit ("does not build", kept) only
# when nothing from outside stopped it.  usage: fail_build STATUS WHAT
fail_build() {
	infra_or_die "$@"
	first=$(first_error "$log")
	nwarn=$(grep -c ': warning:' "$log" || true)
	record failed $((SECONDS - start))
	die "$(short "$commit"): $2 failed: $first"
}

configure
say "$(short "$commit"): building in $build (log: $log)"
start=$SECONDS
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
status=0
kernel_build >"$log" 2>&1 || status=$?
[[ $status -eq 0 ]] || fail_build "$status" "the build"

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
# Symbols for step.sh, which has no vmlinux to read them from.
cp "$build/System.map" "$out/System.map"
copy_objects

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
		make -C "$build" M="$mb" CC="$KCC" -j"$JOBS" modules >>"$log" 2>&1 || status=$?
		[[ $status -eq 0 ]] || fail_build "$status" "a guest module's build"
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
	st=$("$TOP/scripts/lib/build-selftests.sh" "$build" 2>>"$log") || fail_build $? "the in-tree selftests' build"
	cp -r "$st" "$out/selftests"
fi
grep ': warning:' "$log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u >"$out/warnings.txt" || true
nwarn=$(wc -l <"$out/warnings.txt")
record ok $((SECONDS - start))
say "$(short "$commit"): built in $((SECONDS - start)) s, page_alloc.o text $pa_text, vmlinux text $vm_text"
