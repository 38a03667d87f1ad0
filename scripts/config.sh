#!/usr/bin/env bash
# Write the guest kernel .config into a build directory: allnoconfig plus
# the fragments under qemu/config/, then check that every requested value
# survived Kconfig's dependency resolution.
# usage: config.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

build=${1:?usage: config.sh BUILD_DIR}
mkdir -p "$build"
frag=$build/fragments.config
cat "$TOP"/qemu/config/*.config > "$frag"
make -s -C "$KTREE" O="$build" KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null

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
done < "$frag"
[[ $lost -eq 0 ]] || die "the fragments under qemu/config/ ask for values Kconfig cannot give (see above)"
