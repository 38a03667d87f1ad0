#!/usr/bin/env bash
# Where do the fast paths' instructions go?  Boots REV in the deterministic
# machine with a gdb stub, lets pa_bench's order-0 pair loop warm up, then
# single-steps one alloc_pages() and one __free_pages() call and counts
# guest instructions by function (the same unit as make bench's figures).
# Writes $RESULTS/<commit>/steps-<function>.txt: counts, then the trace.
# REV is a commit (its bench kernel unless KFLAVOR=check) or "debian",
# Debian's own binary, with the symbols its booted kernel reports.
# STEP_FUNCS names other functions, STEP_SKIP how many calls to let pass
# first, STEP_BENCH the pa_bench parameters that make the calls (the pair
# loop by default), STEP_COND_<function> a gdb condition on the call's
# entry registers, STEP_APPEND more kernel command line (pa.cpuset=on:
# with a cpuset present); each set of functions keeps its own key.
# STEP_AS=NAME keeps a variant's files apart, in the kernel's results
# directory's NAME/ (compare-steps.sh takes directories).
# usage: step.sh REV
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
need_uint STEP_SKIP

rev=${1:?usage: step.sh REV}
resolve_kernel "$rev"
[[ ${STEP_AS:-} != */* ]] || die "STEP_AS=$STEP_AS: a name, not a path"
out=$K_DIR${STEP_AS:+/$STEP_AS}
mkdir -p "$out"
# compare-steps.sh sizes the functions from the directory's System.map.
[[ -z ${STEP_AS:-} ]] || ln -sf ../System.map "$out/System.map"
funcs=${STEP_FUNCS:-alloc_pages __free_pages}
show() { for f in $funcs; do sed -n '1,/^$/p' "$out/steps-$f.txt"; done; }
# The count belongs to one build and one request: keep it until either changes.
# Many loops, so that the pair loop is still running when the breakpoints hit.
bench=${STEP_BENCH:-orders=0+batches=0+loops=1000000}
# The guest's init is part of the request too: its image's name is its key.
initrd=$("$TOP/qemu/mkinitramfs.sh") || die "could not make the guest's initramfs"
key=$( { cat "$K_DIR/build.key" "$0" "$TOP/scripts/boot.sh" "$TOP/scripts/lib/step.py";
	echo "${initrd##*/} $funcs ${STEP_SKIP:-} $bench $(guest_cpu deterministic) ${STEP_APPEND:-}"; env | grep '^STEP_COND_' | sort || true; } | sha1sum | cut -c1-16)
keyfile=$out/steps.key
[[ -z ${STEP_FUNCS:-} ]] || keyfile=$out/steps-${funcs// /+}.key
if [[ -f $keyfile && $(cat "$keyfile") == "$key" ]]; then
	show
	exit 0
fi
command -v gdb >/dev/null || die "gdb is missing; run 'make deps'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + $$ % 20000))
say "$K_NAME: stepping $funcs (gdb on port $port)"
"$TOP/scripts/boot.sh" --mode deterministic --run bench --gdb "$port" --out "$tmp/boot" \
	--append "nokaslr init_on_alloc=0 pa.bench=$bench ${STEP_APPEND:-}" \
	"$K_DIR" >/dev/null 2>&1 &
boot=$!
STEP_FUNCS=$funcs STEP_SYSMAP=$K_DIR/System.map STEP_OUT=$tmp STEP_PORT=$port \
	timeout 600 gdb -q -batch -nx -x "$TOP/scripts/lib/step.py" >"$tmp/gdb.log" 2>&1
status=$?
# A guest step that failed before the calls (a cgroup controller the
# kernel lacks, say) leaves counts of another set-up than the one asked
# for.  Read while the boot still runs: killed, it takes its files along.
guest_fail=$(cat "$tmp"/boot.tmp.*/results.txt 2>/dev/null | tr -d '\r' | grep -m1 '^PA-FAIL' || true)
kill "$boot" 2>/dev/null || true
wait "$boot" 2>/dev/null || true
[[ -z $guest_fail ]] || die "$K_NAME: the guest failed before the stepped calls: ${guest_fail#PA-FAIL }"
for f in $funcs; do
	[[ $status -eq 0 && -f $tmp/steps-$f.txt ]] ||
		die "$K_NAME: stepping $f failed: $(grep -m1 -E 'step:|Error|error' "$tmp/gdb.log" || tail -n1 "$tmp/gdb.log")"
done
mv "$tmp"/steps-*.txt "$tmp"/steps-*.args "$out/"
echo "$key" >"$keyfile"
show
