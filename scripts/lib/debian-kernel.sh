#!/usr/bin/env bash
# Make Debian's own binary kernel of the imported version bootable like a
# built commit: $RESULTS/debian-<version>/ with bzImage (Debian's vmlinuz),
# modules/pa_bench.ko built against Debian's headers, build.json, and a
# System.map read from the booted kernel's /proc/kallsyms (the image
# package ships a one-line stub; the real one is in the 858 MB -dbg package).
# Done once per version; prints the directory.
# usage: debian-kernel.sh
. "$(dirname "$0")/lib.sh"

deb=$("$TOP/scripts/lib/fetch-debian.sh") || die "Debian's binary kernel could not be fetched"
version=$(jq -r .version "$deb/package.json")
release=$(jq -r .release "$deb/package.json")
out=$RESULTS/debian-$version
key=$( { cat "$deb/package.json" "$0" "$TOP/qemu/guest/init"; find "$TOP/qemu/modules/pa_bench" "$TOP/qemu/modules/pa_compat" -type f -print0 |
	sort -z | xargs -0 cat; } | sha1sum | cut -c1-16)
if [[ -f $out/build.key && $(cat "$out/build.key") == "$key" ]]; then
	echo "$out"
	exit 0
fi

tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
rm -rf "$tmp"
mkdir -p "$tmp/modules"
start=$SECONDS
cp -L "$deb/vmlinuz" "$tmp/bzImage"
# pa_bench's Kbuild includes ../pa_compat/compat.mk: both, side by side.
mods=$WORK/modbuild/debian-$version
mb=$mods/pa_bench
rm -rf "$mods" "$WORK/modbuild/debian-pa_bench"
mkdir -p "$mods"
cp -r "$TOP/qemu/modules/pa_bench" "$TOP/qemu/modules/pa_compat" "$mods/"
say "building pa_bench against linux-headers-$release"
make -C "$deb/headers" M="$mb" modules >"$tmp/build.log" 2>&1 ||
	die "pa_bench does not build against Debian's headers: $(grep -m1 -E 'error' "$tmp/build.log" || tail -n1 "$tmp/build.log")"
cp "$mb/pa_bench.ko" "$tmp/modules/"
jq -n --arg c "debian-$version" --arg r "$release" --argjson secs $((SECONDS - start)) \
	'{commit: $c, release: $r, status: "ok", seconds: $secs, page_alloc_text: null, vmlinux_text: null, warnings: 0, error: ""}' \
	>"$tmp/build.json"
echo "$key" >"$tmp/build.key"

# Symbols: boot once without KASLR, as make step does, and keep the
# kernel's own text symbols in System.map form.
say "reading Debian's symbols from a booted guest (/proc/kallsyms, nokaslr)"
d=$("$TOP/scripts/boot.sh" --mode deterministic --run kallsyms --append nokaslr --out "$tmp/boot-kallsyms" "$tmp") ||
	die "Debian's kernel did not boot to read its symbols: $(jq -r .reason "$tmp/boot-kallsyms/verdict.json" 2>/dev/null)"
sed -n '/^PA-KALLSYMS-BEGIN/,/^PA-KALLSYMS-END/{/^PA-/d;p}' "$d/results.txt" | awk 'NF == 3' >"$tmp/System.map"
# (__alloc_pages_noprof since 6.10, for memory allocation profiling.)
grep -qE ' T __alloc_pages(_noprof)?$' "$tmp/System.map" || die "no __alloc_pages in the kallsyms of $d"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
say "Debian's $release ready in $out ($(wc -l <"$out/System.map") text symbols)"
echo "$out"
