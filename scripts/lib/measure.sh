#!/usr/bin/env bash
# Measure one commit over a family of K perturbed boots and gather every
# figure's samples into $RESULTS/<commit>/bench-<set>.json (printed).
#   deterministic (default): 1 CPU under QEMU -icount shift=0; guest "ns"
#     are guest instructions.  Pair figures repeat bit for bit, batch ones
#     depend on the pcp state boot leaves, which varies slightly.  Boot k
#     adds an unused command-line word of k letters (pa.pad=a, aa, ...), so
#     layout luck is sampled the same way for every kernel.
#   BENCH_MODE=functional: plain TCG (or KVM), wall clock; K repeats.
# Settings: BENCH_K (5), BENCH_JOBS (boots at once, deterministic mode
# only; default: one per core), BENCH_MODE, BENCH_STEPS (bench,hackbench,tbench),
# BENCH_APPEND (kernel arguments), BENCH_ARGS (pa_bench module parameters,
# joined with '+'), BENCH_PAD_CHAR (a), BENCH_PROFILE=1 (boot with the paprof
# plugin: the prof-* figures of profile-figures.sh too).  A set already
# measured is not measured again.
# REV is a commit, measured on its bench kernel (KFLAVOR=check: its check
# kernel), or "debian", Debian's own binary kernel.
# usage: measure.sh REV
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib.sh"
need_uint BENCH_K BENCH_JOBS

K=${BENCH_K:-5}
mode=${BENCH_MODE:-deterministic}
steps=${BENCH_STEPS:-bench,hackbench,tbench}
# tbench needs two seconds of guest time: in one, under icount, its clients
# are still connecting when the clock runs out and it reports 0 MB/s.
append=${BENCH_APPEND:-init_on_alloc=0 pa.tbench_secs=2}
args=${BENCH_ARGS:-}
# The letter the perturbation words are made of: another letter gives an
# independent family of boots of the same kernel.
pad_char=${BENCH_PAD_CHAR:-a}
profile=() profile_inputs=()
if [[ ${BENCH_PROFILE:-0} == 1 ]]; then
	profile=(--profile)
	# What turns a profile into figures is part of what was measured.
	profile_inputs=("$TOP/scripts/lib/profile-figures.sh" "$TOP/qemu/profile/buckets.tsv")
fi
rev=${1:?usage: measure.sh REV}
# Before any boot: the check kernel has no TCP/IP (qemu/config/guest.config).
[[ $KFLAVOR != check || $rev == debian || ,$steps, != *,tbench,* ]] ||
	die "BENCH_STEPS=$steps: tbench needs TCP/IP, which the check kernel leaves out; use KFLAVOR=bench, or steps without tbench"
resolve_kernel "$rev"
# The results directory belongs to the tree, which outlives a change of
# config or guest modules: the build's key keeps such a rebuild from being
# served the old kernel's figures.
# The machine (CPU model, guest init) is part of what was measured.
set_key=$( { echo "$K $mode $steps $append $args $pad_char $(guest_cpu "$mode") ${profile[*]}"; cat "$K_DIR/build.key" \
	"$TOP/scripts/boot.sh" "$TOP/qemu/guest/init" "${profile_inputs[@]}"; } |
	sha1sum | cut -c1-8)
out=$K_DIR/bench-$set_key.json
if [[ -f $out ]]; then
	echo "$out"
	exit 0
fi
# Deterministic boots count guest instructions, which the host's load
# cannot change, so they run side by side, one per core (BENCH_JOBS);
# wall-clock boots run one at a time.
jobs=1
[[ $mode != deterministic ]] || jobs=${BENCH_JOBS:-$(nproc)}
# Boots started side by side must not each build the initramfs or the
# plugin into the same scratch file.
"$TOP/qemu/mkinitramfs.sh" >/dev/null
[[ ${#profile[@]} -eq 0 ]] || "$TOP/scripts/lib/paprof-plugin.sh" >/dev/null
dirs=$(mktemp -d)
trap 'rm -rf "$dirs"' EXIT
one_boot() {
	local k=$1 pad=$2 d
	progress "$k" "$K" "measure $K_NAME ($mode, $append pa.pad=$pad)"
	d=$("$TOP/scripts/boot.sh" --mode "$mode" --run "$steps" "${profile[@]}" \
		--append "$append pa.pad=$pad${args:+ pa.bench=$args}" "$K_DIR") ||
		{ say "$K_NAME: benchmark boot $k (pa.pad=$pad): $(jq -r .reason "$d/verdict.json" 2>/dev/null)"; return 1; }
	"$TOP/scripts/lib/boot-figures.sh" "$d" >/dev/null ||
		{ say "$K_NAME: benchmark boot $k (pa.pad=$pad): no figures from $d"; return 1; }
	echo "$d" >"$dirs/$k"
}
# A boot's success is the file one_boot leaves, not wait's status: bash
# 5.2's "wait -n" now and then returns 127 for a child that exited 0 when
# two exit together (seen in CI; 1 in 400 pairs of jobs here).
pad=''
running=0
for ((k = 1; k <= K; k++)); do
	pad+=$pad_char
	if ((running == jobs)); then
		wait -n || true
		running=$((running - 1))
	fi
	one_boot "$k" "$pad" &
	running=$((running + 1))
done
wait
failed=()
for ((k = 1; k <= K; k++)); do [[ -s $dirs/$k ]] || failed+=("$k"); done
((${#failed[@]} == 0)) || die "$K_NAME: benchmark boot ${failed[*]} of $K failed (above)"
figs=()
for ((k = 1; k <= K; k++)); do figs+=("$(cat "$dirs/$k")/figures.json"); done
jq -s --arg mode "$mode" --arg append "$append" --arg args "$args" --arg commit "$K_NAME" \
	'{commit: $commit, mode: $mode, append: $append, bench_args: $args, runs: length,
	  units: .[0].units,
	  samples: (map(.figures | to_entries) | add | group_by(.key)
		| map({key: .[0].key, value: map(.value)}) | from_entries)}' \
	"${figs[@]}" >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
