#!/usr/bin/env bash
# Does a kernel run the same order-0 fast paths as Debian's own binary?
# Steps one alloc_pages() and one __free_pages() in both (step.sh)
# and compares them function by function (compare-steps.sh): exit status
# 0 when every count is identical.
# usage: equivalence.sh [REV [OTHER]]      (default: the base's bench kernel, and debian)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"

a=${1:-$(base_tag)} b=${2:-debian}
args=()
for r in "$a" "$b"; do
	"$TOP/scripts/step.sh" "$r" >/dev/null || die "$r: could not be stepped"
	resolve_kernel "$r"
	args+=("$r=$K_DIR")
done
"$TOP/scripts/lib/compare-steps.sh" "${args[@]}"
