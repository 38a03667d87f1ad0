#!/usr/bin/env bash
# Fetch Debian's own binary kernel of the imported source version, and the
# headers to build guest modules against it, from the archive; unpack them
# under $WORK/debian/<version>/ (never into the host's /boot or /usr/src).
# Done once: a complete unpacked directory is reused.
#   root/       the packages' files (dpkg-deb -x)
#   vmlinuz     the kernel image      config   Debian's .config
#   headers     the headers tree to build modules with (M=...)
#   package.json  version, ABI name, package files
# usage: fetch-debian.sh [VERSION]     (a Debian version or base tag; default: the base's)
. "$(dirname "$0")/lib.sh"

APT_GET=${APT_GET:-apt-get}
APT_CACHE=${APT_CACHE:-apt-cache}
version=${1:-$(base_tag)}
# apt knows Debian's form, with '~', not the tag's '_'.
version=$(debian_version "$version")
line=$(kernel_line "$version")
dir=$WORK/debian/$version
if [[ -f $dir/package.json ]]; then
	echo "$dir"
	exit 0
fi

image=$(APT_CACHE=$APT_CACHE debian_image_package "$version")
if [[ -z $image ]]; then
	have=$(for p in linux-image-amd64 "linux-image-$line-amd64"; do "$APT_CACHE" madison "$p" 2>/dev/null; done |
		awk -F'|' '{gsub(/ /,"",$2); print $2}' | paste -sd' ' -)
	die "the archive has no linux-image-amd64 or linux-image-$line-amd64 of $version (it has: ${have:-nothing; run 'apt-get update'}); the binary kernel must be the one built from the imported source"
fi
abi=${image#linux-image-}
abi=${abi%-amd64}
# The headers' scripts (modpost, fixdep) come from linux-kbuild, named by
# the line in 6.1 (linux-kbuild-6.1) and by the ABI from 6.12 on
# (linux-kbuild-6.12.118+deb12).
kbuild=linux-kbuild-$abi
"$APT_CACHE" show "$kbuild=$version" >/dev/null 2>&1 || kbuild=linux-kbuild-$line
pkgs=("$image" "linux-headers-$abi-amd64" "linux-headers-$abi-common" "$kbuild")

# Everything happens in a scratch directory that becomes $dir only when
# complete, so a failed or interrupted fetch leaves nothing half-unpacked.
tmp=$dir.tmp.$$
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
rm -rf "$tmp"
mkdir -p "$tmp/debs" "$tmp/root"
say "downloading ${pkgs[*]} ($version)"
specs=()
for p in "${pkgs[@]}"; do specs+=("$p=$version"); done
(cd "$tmp/debs" && "$APT_GET" download -q "${specs[@]}" >"$tmp/download.log" 2>&1) ||
	die "apt-get download ${specs[*]} failed: $(grep -m1 -E '^E:' "$tmp/download.log" || tail -n1 "$tmp/download.log")"
for p in "${pkgs[@]}"; do
	deb=$(find "$tmp/debs" -name "${p}_*.deb" | head -n1)
	[[ -n $deb ]] || die "apt-get download gave no package file for $p"
	got=$(dpkg-deb -f "$deb" Version)
	[[ $got == "$version" ]] || die "$(basename "$deb"): version $got, expected $version"
	dpkg-deb -x "$deb" "$tmp/root" || die "$(basename "$deb"): dpkg-deb -x failed"
done

vmlinuz=$(find "$tmp/root/boot" -name "vmlinuz-$abi-amd64" | head -n1)
config=$(find "$tmp/root/boot" -name "config-$abi-amd64" | head -n1)
headers=$tmp/root/usr/src/linux-headers-$abi-amd64
[[ -n $vmlinuz && -n $config ]] || die "$image has no /boot/vmlinuz-$abi-amd64 or config"
[[ -f $headers/Makefile ]] || die "linux-headers-$abi-amd64 has no Makefile"
# The headers' Makefile includes the common tree by its installed path;
# point it at the unpacked one (everything else is relative).
# The path is data, not part of a sed program: perl reads it from the
# environment and puts it in as it is.
PA_SRC=$dir/root/usr/src/ perl -pi -e 's{/usr/src/}{$ENV{PA_SRC}}' "$headers/Makefile"
ln -s "root/boot/$(basename "$vmlinuz")" "$tmp/vmlinuz"
ln -s "root/boot/$(basename "$config")" "$tmp/config"
ln -s "root/usr/src/linux-headers-$abi-amd64" "$tmp/headers"
mapfile -t files < <(cd "$tmp/debs" && ls)
jq -n --arg v "$version" --arg abi "$abi-amd64" --arg image "$image" \
	'{version: $v, release: $abi, image: $image, packages: $ARGS.positional}' \
	--args "${files[@]}" >"$tmp/package.json"
rm -rf "$tmp/debs"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
say "unpacked Debian's $image $version in $dir"
echo "$dir"
