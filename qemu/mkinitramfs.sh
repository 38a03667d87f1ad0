#!/usr/bin/env bash
# Build the guest's common initramfs: busybox, the guest init, hackbench,
# tbench and the libraries they load, and our own guest programs
# (qemu/guest/*.c, linked statically).  Per-commit modules are appended as
# a second cpio archive by boot.sh.  Cached by the hash of its inputs.
# usage: mkinitramfs.sh   (prints the path of the archive)
. "$(dirname "$0")/../scripts/lib/lib.sh"

bins=(/bin/busybox /usr/bin/hackbench /usr/bin/tbench /usr/bin/tbench_srv)
progs=("$TOP"/qemu/guest/*.c)
key=$( { cat "$TOP/qemu/guest/init" "$0" "${progs[@]}"; sha1sum "${bins[@]}"; } | sha1sum | cut -c1-16)
img=${INITRAMFS_DIR:-$WORK/initramfs}/base-$key.cpio.gz
if [[ -f $img ]]; then
	echo "$img"
	exit 0
fi
for b in "${bins[@]}"; do
	[[ -x $b ]] || die "$b is missing; run 'make deps'"
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,etc,proc,sys,dev,tmp,lib/pa,usr/share/dbench}
cp /bin/busybox "$root/bin/"
for b in "${bins[@]:1}"; do
	cp "$b" "$root/usr/bin/"
	# Copy each shared library at the path the dynamic linker expects.
	ldd "$b" | grep -oE '/[^ ]+' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
for src in "${progs[@]}"; do
	gcc -static -O2 -Wall -Werror -o "$root/usr/bin/$(basename "$src" .c)" "$src" ||
		die "$src does not build (gcc -static needs libc6-dev)"
done
cp /usr/share/dbench/client.txt "$root/usr/share/dbench/"
install -m 0755 "$TOP/qemu/guest/init" "$root/init"
echo "127.0.0.1 localhost" >"$root/etc/hosts"
echo "hosts: files" >"$root/etc/nsswitch.conf"

mkdir -p "$(dirname "$img")"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip) >"$img.tmp"
mv "$img.tmp" "$img"
echo "$img"
