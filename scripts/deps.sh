#!/usr/bin/env bash
# Install the Debian packages the project needs; silent when all are there.
set -euo pipefail

pkgs=(linux-source-6.1 linux-config-6.1 gcc libc6-dev make ccache git jq bc flex bison
	libelf-dev libssl-dev dwarves cpio xz-utils gzip qemu-system-x86
	busybox-static dbench rt-tests b4 perl shellcheck gnuplot-nox bsdextrautils gdb sparse)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
# An old package list finds nothing on a new machine: refresh it once.
if ! "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; then
	"${sudo[@]}" apt-get update -q >/dev/null
	"${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null ||
		{ echo "deps: error: apt-get could not install: ${missing[*]}" >&2; exit 1; }
fi
