#!/usr/bin/env bash
# Install the Debian packages the project needs; silent when all are there.
set -euo pipefail

# The Debian source and configs of the series' kernel line (the first
# line of its base file, base/6.1 or base/6.12.118-1_deb12u1), 6.1 without
# one; read here with sed, as lib.sh needs the git this script installs.
base=${SERIES_DIR:-$(dirname "$0")/..}/base
line=$(sed -n '1s|^base/\([0-9]*[.][0-9]*\).*|\1|p' "$base" 2>/dev/null || true)
line=${line:-6.1}
pkgs=("linux-source-$line" "linux-config-$line" gcc libc6-dev make ccache git jq bc flex bison
	libelf-dev libssl-dev dwarves cpio xz-utils gzip qemu-system-x86
	busybox-static dbench rt-tests b4 perl shellcheck gnuplot-nox bsdextrautils gdb sparse
	redis-server distcc openssh-client openssh-server)

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
# The daemons are for the tests, which start their own on loopback
# addresses and stop them.  Where systemd started a package's own service
# at install (sshd on port 22, redis), it is stopped and disabled again;
# only for packages installed just now.
for p in "${missing[@]}"; do
	case $p in
	openssh-server) svc=ssh ;;
	redis-server | distcc) svc=$p ;;
	*) continue ;;
	esac
	! command -v systemctl >/dev/null || "${sudo[@]}" systemctl disable --now "$svc" >/dev/null 2>&1 || true
done
