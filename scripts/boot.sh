#!/usr/bin/env bash
# Boot one built commit in QEMU, run the guest steps and judge the boot.
# Results go to DIR (default $RESULTS/<commit>/boot-<mode>-<key>/):
#   console.log  results.txt  verdict.json  cmdline
# A boot whose inputs did not change is not run again.
. "$(dirname "$0")/lib/lib.sh"

usage() {
	cat <<USAGE
usage: boot.sh [options] REV
  REV: a commit (built first if need be), "debian" (Debian's own binary
  kernel of the imported version), or a directory holding a bzImage
  --mode functional|deterministic   2 CPUs, plain TCG (KVM if present), or
                                    1 CPU under -icount shift=0 (repeatable)
  --run STEPS        guest steps, comma separated (kunit, stress: the
                     stress suite, with kunit; roots: the pageblock suite
                     for memory above 16 GiB, in an 18 GiB guest; hwpoison:
                     memory_failure() of a free page, alone; intree,
                     bench, hackbench, tbench, pagefault, contend; default
                     kunit,stress)
  --append ARGS      more kernel command-line arguments
  --timeout SECS     hang limit (default 600)
  --out DIR          result directory
  --force            boot even if a cached result exists
  --gdb PORT         start halted, gdb stub on PORT; never cached
  --profile          count the guest kernel's instructions per function in
                     each workload's window (paprof plugin): profile.txt
Prints the result directory; its verdict.json holds the verdict (pass,
failed, hang, infra).  Exit status 0 only for pass.
USAGE
}

mode=functional run=kunit,stress append='' timeout=${BOOT_TIMEOUT:-600} out='' force=0 gdb='' profile=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--mode) mode=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--force) force=1; shift ;;
	--gdb) gdb=$2; force=1; shift 2 ;;
	--profile) profile=$("$TOP/scripts/lib/paprof-plugin.sh") || exit 1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
rev=${1:?$(usage)}
[[ $# -eq 1 ]] || die "one REV, not '$*' (steps go to --run, comma separated)"
# Every option is checked before anything is built or booted.  The steps
# are those the guest's init knows (its case over pa.run), but
# kunit-provoke, which init adds itself for pa.provoke=fail.
# shellcheck disable=SC2016 # init's own text, matched as it is
mapfile -t steps_known < <(sed -n '/^for s in \$run; do$/,/^done$/s/^\t\([a-z][a-z-]*\)) .*/\1/p' "$TOP/qemu/guest/init" |
	grep -vx kunit-provoke)
[[ ${#steps_known[@]} -gt 0 ]] || die "no guest steps found in $TOP/qemu/guest/init"
IFS=, read -ra steps_asked <<<"$run"
for s in "${steps_asked[@]}"; do
	[[ -z $s || " ${steps_known[*]} " == *" $s "* ]] ||
		die "--run (RUN=): unknown step '$s'; the steps are ${steps_known[*]} (comma separated)"
done
[[ ,$run, != *,roots,* || $run == roots ]] || die "--run roots runs alone, not with '$run'"
# The hwpoison case must be the boot's first poisoning.
[[ ,$run, != *,hwpoison,* || $run == hwpoison ]] || die "--run hwpoison runs alone, not with '$run'"
[[ $mode == functional || $mode == deterministic ]] || die "--mode (MODE=): '$mode' is neither functional nor deterministic"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout (BOOT_TIMEOUT): '$timeout' is not a whole number of seconds"
[[ -z $gdb || $gdb =~ ^[1-9][0-9]*$ ]] || die "--gdb: '$gdb' is not a port number"
resolve_kernel "$rev"
built=$K_DIR

# /dev/kvm can exist and still fail at the first vCPU run (nested or
# sandboxed hosts); a firmware-only probe that survives 3 s says it works.
# The answer is kept per machine in $WORK/state/kvm.
kvm_works() {
	local f=$WORK/state/kvm a
	[[ ${ACCEL:-auto} != tcg ]] || return 1
	[[ -w /dev/kvm ]] || return 1
	if [[ ! -f $f ]]; then
		mkdir -p "$WORK/state"
		timeout 3 qemu-system-x86_64 -enable-kvm -cpu host -machine pc -m 64 -nodefaults \
			-display none >/dev/null 2>&1
		# Boots side by side probe at once: each answer lands whole.
		if [[ $? -eq 124 ]]; then a=yes; else a=no; fi
		{ echo "$a" >"$f.$$" && mv -f "$f.$$" "$f"; } 2>/dev/null || rm -f "$f.$$"
		[[ $a == yes ]]
		return
	fi
	[[ $(cat "$f" 2>/dev/null) == yes ]]
}

# The roots step needs memory above the first mem_section root: 16 GiB
# of it with PAGE_EXTENSION, as Debian builds (a 32-byte struct
# mem_section, 128 sections a root).  18 GiB puts 16-19 GiB under the
# second root, whose offsets in the first fall on memory, not the hole
# below 4 GiB.
# It runs alone: the suites that fill whole nodes (kunit, stress) would
# make the host commit most of the 18 GiB.
default_mem=4608M
mem=$default_mem
if [[ ,$run, == *,roots,* ]]; then
	[[ $run == roots ]] || die "--run roots runs alone, not with '$run'"
	mem=18G
fi
mem=${GUEST_MEM:-$mem}
cmdline="console=ttyS0 panic=-1 numa=fake=2 pa.run=$run $append"
# shellcheck disable=SC2054 # commas separate QEMU sub-options, not elements
qemu=(qemu-system-x86_64 -machine pc -m "$mem" -nodefaults -display none -no-reboot
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)
# QEMU reserves all of -m up front and fails when that is more than the
# machine will commit; a RAM backend without the reservation gets only
# the pages the guest touches.  Guests of the default size keep the plain
# -m (and their cache keys).
kb() { numfmt --from=iec --to-unit=1024 "${1%B}"; }
mem_kb=$(kb "$mem") || die "GUEST_MEM: '$mem' is not a size"
if ((mem_kb > $(kb "$default_mem"))); then
	# shellcheck disable=SC2054
	qemu[2]=pc,memory-backend=pa-ram
	# shellcheck disable=SC2054
	qemu+=(-object "memory-backend-ram,id=pa-ram,size=$mem,reserve=off")
fi
case $mode in
functional)
	# SeaBIOS's MP table names one CPU per socket, and without ACPI it is
	# all the kernel sees: two sockets, or the guest boots with one CPU.
	# shellcheck disable=SC2054
	qemu+=(-smp 2,sockets=2,cores=1)
	# Under TCG, guest_cpu (lib.sh) says which model and why.
	if kvm_works; then qemu+=(-enable-kvm -cpu host); else qemu+=(-cpu "$(guest_cpu functional)"); fi ;;
deterministic)
	# shellcheck disable=SC2054
	qemu+=(-smp 1 -icount shift=0,sleep=off -rtc base=2020-01-01T00:00:00,clock=vm)
	# The CPU model: 'max' is every feature TCG has (ERMS, so the
	# clear_page() a current machine gets) and no CPU bug it would have to
	# mitigate but Spectre v1/v2, as on a current AMD or Intel machine;
	# the named models lack the ARCH_CAPABILITIES bits under TCG, so an
	# Icelake gets PTI and MDS buffer clearing that no real Icelake runs.
	# The guest records what the kernel chose (PA-CPU, PA-VULN lines).
	# QEMU 7.2 under icount can corrupt EFLAGS in its cmpxchg16b helper
	# (seen: a bogus single-step #DB right after SLUB's cmpxchg_double in
	# an unpatched kernel).  Without cx16 SLUB takes its locked path instead,
	# the same for every kernel compared.
	qemu+=(-cpu "$(guest_cpu deterministic)")
	# Calibrating the local APIC timer spins for 100 ms of guest time on
	# PIT ticks, which under icount costs ~35 s of host time; with one CPU
	# the PIT serves as the clock event device instead (boot: ~4 s).
	cmdline+=" noapictimer" ;;
*) die "--mode: '$mode' is neither functional nor deterministic" ;;
esac

# A debugger decides when the guest runs, so nothing of it is repeatable
# enough to cache; the stub is added after the cache key is made.
[[ -z $gdb ]] || [[ -n $out ]] || die "--gdb needs --out: a stepped boot is no result"

initrd_base=$("$TOP/qemu/mkinitramfs.sh")
# Only the modules the asked steps load go into the guest (and into the
# cache key), so a change to the test module does not void benchmark runs.
mods=()
want() { [[ -f $built/modules/$1.ko ]] && mods+=("$built/modules/$1.ko"); return 0; }
[[ ,$run, != *,kunit,* ]] || want pa_kunit
[[ ,$run, != *,stress,* ]] || want pa_kunit_stress
[[ ,$run, != *,roots,* ]] || want pa_kunit_roots
[[ ,$run, != *,hwpoison,* ]] || want pa_kunit_hwpoison
[[ ,$run, != *,bench,* ]] || want pa_bench
[[ ,$run, != *,contend,* ]] || want pa_contend
case $append in *pa.provoke=warn* | *pa.provoke=nofail* | *pa.provoke=oversized* | *pa.provoke=badfree*) want pa_provoke ;; esac
[[ $append != *pa.provoke=fail* ]] || want pa_fail
# The kernel's own tests: its test modules, the selftests and their list.
intree=()
if [[ ,$run, == *,intree,* ]]; then
	while read -r kind name _; do
		[[ $kind != module ]] || want "$name"
	done <"$INTREE_LIST"
	[[ -d $built/selftests ]] || die "$built/selftests is missing: build $K_NAME again"
	mapfile -t intree < <(find "$built/selftests" -maxdepth 1 -type f ! -name '.*' | sort)
	intree=("$INTREE_LIST" "${intree[@]}")
fi
if [[ -n $profile ]]; then
	[[ -f $built/System.map ]] || die "--profile needs $built/System.map"
	# The plugin reads addresses against System.map: no KASLR.
	cmdline+=" nokaslr"
fi
# The initramfs by its name, which carries the key of everything it is
# made of: gzip stamps each image it writes, so two images of the same
# files (each test script makes its own) differ, and would key two boots.
key=$( { echo "${qemu[*]} $cmdline ${profile:+profile} ${initrd_base##*/}"
	sha1sum "$built/bzImage" "${mods[@]}" "${intree[@]}" ${profile:+"$profile"} \
		"$TOP/qemu/allowed-console.txt" "$TOP/scripts/lib/verdict.sh" | cut -c1-40; } | sha1sum | cut -c1-12)
out=${out:-$built/boot-$mode-$key}
# The cached verdict of this boot, if there is one to reuse.  An
# infrastructure failure says nothing about the kernel, nor does a
# verdict.json that is not whole: boot again.  A hang is "no verdict
# within the limit", which a shorter limit than this boot's does not
# answer (BOOT_TIMEOUT=5 must not stand in for the default 600 s).
cached_verdict() {
	local v limit
	[[ $force -eq 0 && -f $out/verdict.json ]] || return 1
	# jq -e takes an empty file for a true one; -s does not.
	v=$(jq -ser 'if length == 1 then .[0].verdict | select(. == "pass" or . == "failed" or . == "hang") else empty end' \
		"$out/verdict.json" 2>/dev/null) || return 1
	if [[ $v == hang ]]; then
		limit=$(jq -r '.limit // 0' "$out/verdict.json")
		awk -v a="$limit" -v b="$timeout" 'BEGIN { exit !(a + 0 >= b + 0) }' || return 1
	fi
	echo "$v"
}
report_cached() {
	say "$K_NAME: $mode boot cached: $v ($out)"
	echo "$out"
	[[ $v == pass ]]
}
if v=$(cached_verdict); then report_cached; exit; fi
# One boot of a kernel and its steps at a time: a second one (two make
# checks, or a check and a bisect, over the same commit) waits, and
# then takes the first one's verdict.
mkdir -p "$(dirname "$out")"
exec 8>"$out.lock"
if ! flock -n 8; then
	say "$K_NAME: waiting for another boot of the same kernel and steps ($out)"
	flock 8
fi
if v=$(cached_verdict); then report_cached; exit; fi

# Boot into a scratch directory and move it into place only when judged,
# so an interrupted boot leaves nothing that looks like a result.
tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
# timeout passes a Ctrl-C on to QEMU and returns; without this trap the
# interrupted boot would be judged and cached as if it had run.
trap 'exit 130' INT TERM
# The guest's files (a full disk fails here, and is no verdict either).
prepare() {
	rm -rf "$tmp" && mkdir -p "$tmp/mods/lib/pa" || return 1
	[[ ${#mods[@]} -eq 0 ]] || cp "${mods[@]}" "$tmp/mods/lib/pa/" || return 1
	if [[ ${#intree[@]} -gt 0 ]]; then
		mkdir -p "$tmp/mods/usr/lib/pa-selftests" || return 1
		[[ ${#intree[@]} -eq 1 ]] || cp "${intree[@]:1}" "$tmp/mods/usr/lib/pa-selftests/" || return 1
		cp "${intree[0]}" "$tmp/mods/lib/pa/intree-tests.txt" || return 1
	fi
	(cd "$tmp/mods" && find . | cpio -o -H newc --quiet | gzip) | cat "$initrd_base" - >"$tmp/initrd" || return 1
	echo "$cmdline" >"$tmp/cmdline"
}
prepare || die "$K_NAME: could not prepare the boot in $tmp (disk full?): an infrastructure failure, nothing kept"

say "$K_NAME: booting ($mode, run=$run, limit ${timeout}s)"
start=$(date +%s.%N)
[[ -z $gdb ]] || qemu+=(-gdb "tcp:127.0.0.1:$gdb" -S)
[[ -z $profile ]] || qemu+=(-plugin "$profile,map=$built/System.map,out=$tmp/profile.txt")
set +e
# Here, or on other hosts (BOOT_HOSTS) unless a debugger or the
# profiler, which work on this machine's files and ports, take part.
hosts=${BOOT_HOSTS:-}
[[ -z $gdb && -z $profile ]] || hosts=''
BOOT_HOSTS=$hosts "$TOP/scripts/lib/run-qemu.sh" "$tmp" "$timeout" "$built/bzImage" "$cmdline" "${qemu[@]}" 8>&-
status=$?
set -e
# From QEMU's start: not the wait for a boot host, nor the copies to it.
[[ ! -s $tmp/started ]] || start=$(cat "$tmp/started")
rm -f "$tmp/started"
secs=$(echo "$(date +%s.%N) - $start" | bc | xargs printf '%.1f')
rm -rf "$tmp/mods" "$tmp/initrd"
# The guest's tty turns each newline into CR LF.
sed -i 's/\r$//' "$tmp/results.txt" "$tmp/console.log" 2>/dev/null || true
v=$("$TOP/scripts/lib/verdict.sh" "$tmp" "$status" "$secs" "$timeout") ||
	die "$K_NAME: the boot could not be judged (see above): an infrastructure failure, nothing kept"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
reason=$(jq -r .reason "$out/verdict.json")
say "$K_NAME: $v in ${secs}s${reason:+: $reason}"
echo "$out"
[[ $v == pass ]]
