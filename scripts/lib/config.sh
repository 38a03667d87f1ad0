#!/usr/bin/env bash
# Write the kernel .config of $KFLAVOR into a build directory, then check
# that every requested value survived Kconfig's dependency resolution.
#   check: allnoconfig plus the fragments under qemu/config/
#   bench: Debian's own config of the imported version (from the binary
#          package, fetch-debian.sh) with qemu/bench.config on top
# or, given BASE-CONFIG and FRAGMENT, that fragment over that config (the
# build matrix, matrix.sh).
# usage: config.sh BUILD_DIR [BASE-CONFIG FRAGMENT]
. "$(dirname "$0")/lib.sh"

build=${1:?usage: config.sh BUILD_DIR [BASE-CONFIG FRAGMENT]}
mkdir -p "$build"
frag=$build/fragments.config
# over BASE-CONFIG: Debian's lines for the symbols the fragment sets go;
# the fragment's come after, and olddefconfig resolves what follows.
over() {
	local syms
	syms=$(grep -oE 'CONFIG_[A-Za-z0-9_]+' "$frag" | sort -u | paste -sd'|' - || true)
	grep -vE "^(# )?(${syms:-CONFIG_NONE_})[= ]" "$1" >"$build/.config"
	cat "$frag" >>"$build/.config"
	make -s -C "$KTREE" O="$build" olddefconfig >/dev/null
}
if [[ $# -ge 3 ]]; then
	cp "$3" "$frag"
	over "$2"
else
	case $KFLAVOR in
	check)
		# The checked-out commit's fragments; a gone.txt among them names
		# options of the common ones that this kernel line does not have.
		mapfile -t inputs < <(check_fragments HEAD)
		gone=()
		for f in "${inputs[@]}"; do
			[[ $f == */gone.txt ]] || { cat "$f"; continue; }
			mapfile -t -O "${#gone[@]}" gone < <(awk '$1 ~ /^CONFIG_[A-Za-z0-9_]+$/ { print $1 }' "$f")
		done >"$frag"
		[[ ${#gone[@]} -eq 0 ]] ||
			sed -i -E "/^(# )?($(IFS='|'; echo "${gone[*]}"))[= ]/d" "$frag"
		make -s -C "$KTREE" O="$build" KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null ;;
	bench)
		cp "$TOP/qemu/bench.config" "$frag"
		deb=$("$TOP/scripts/lib/fetch-debian.sh") || die "Debian's config comes with its binary kernel, which could not be fetched"
		over "$deb/config" ;;
	esac
fi

lost=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) sym=${line%%=*} ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
	*) continue ;;
	esac
	got=$(grep -E "^($sym=|# $sym is not set)" "$build/.config" || echo "# $sym is not set")
	want=$line
	[[ $want == "$got" ]] && continue
	say "asked for '$want', Kconfig gave '$got'"
	lost=1
done <"$frag"
[[ $lost -eq 0 ]] || die "the ${3:-$KFLAVOR} config fragments ask for values Kconfig cannot give (see above)"
