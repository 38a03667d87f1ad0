#!/usr/bin/env bash
# Debian's own binary kernel: fetched from the archive once, unpacked under
# $WORK only, refused when the archive has no binary of the imported
# version; and the single-step comparison that proves a kernel runs the
# same fast paths as that binary.
# shellcheck disable=SC2016,SC2034 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

# Fixture packages of version $1 (default 6.1.900-1) in ./archive; a
# second argument gives the image package another version than the rest.
# ABI (default 6.1.0-99) names the image and headers, KBUILD the kbuild
# package (6.1's is linux-kbuild-6.1; from 6.12 on Debian names it by the
# ABI), META the package apt-cache says depends on the image: 6.1's
# linux-image-amd64, or a line's own, linux-image-6.12-amd64.
make_archive() {
	local v=${1:-6.1.900-1} iv=${2:-${1:-6.1.900-1}} abi=${ABI:-6.1.0-99} p d
	mkdir -p archive
	for p in "linux-image-$abi-amd64" "linux-headers-$abi-amd64" "linux-headers-$abi-common" "${KBUILD:-linux-kbuild-6.1}"; do
		d=$(mktemp -d)
		mkdir -p "$d/DEBIAN"
		printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: fixture\n' \
			"$p" "$([[ $p == linux-image-* ]] && echo "$iv" || echo "$v")" >"$d/DEBIAN/control"
		case $p in
		linux-image-*) mkdir -p "$d/boot" && echo kernel >"$d/boot/vmlinuz-$abi-amd64" &&
			echo CONFIG_MMU=y >"$d/boot/config-$abi-amd64" ;;
		linux-headers-*-amd64) mkdir -p "$d/usr/src/$p" &&
			echo "include /usr/src/linux-headers-$abi-common/Makefile" >"$d/usr/src/$p/Makefile" ;;
		*) mkdir -p "$d/usr/src/$p" && echo "# $p" >"$d/usr/src/$p/Makefile" ;;
		esac
		dpkg-deb -b -Zgzip "$d" "archive/${p}_${v}_amd64.deb" >/dev/null
		rm -rf "$d"
	done
	export FAKE_APT_DIR=$PWD/archive FAKE_APT_VERSION=$v FAKE_APT_LOG=$PWD/apt.log
	export FAKE_APT_META=${META:-linux-image-amd64} FAKE_APT_ABI=$abi
	export APT_GET=$T_TOP/tests/fake/apt-get APT_CACHE=$T_TOP/tests/fake/apt-cache WORK=$PWD/work
}

ok "fetch unpacks Debian's image and headers under WORK and points the headers at their own tree" '
	make_archive && fetch-debian.sh 6.1.900-1 >dir &&
	d=$(cat dir) && test "$d" = "$PWD/work/debian/6.1.900-1" &&
	test "$(cat "$d/vmlinuz")" = kernel && grep -q CONFIG_MMU=y "$d/config" &&
	must_say "^include $d/root/usr/src/linux-headers-6.1.0-99-common/Makefile$" "$d/headers/Makefile" &&
	test "$(jq -r .release "$d/package.json")" = 6.1.0-99-amd64 &&
	test "$(jq ".packages | length" "$d/package.json")" = 4
'

ok "a second fetch reuses the unpacked packages and downloads nothing" '
	make_archive && fetch-debian.sh 6.1.900-1 >/dev/null && fetch-debian.sh 6.1.900-1 >/dev/null &&
	test "$(wc -l <apt.log)" -eq 1
'

ok "a version the archive has no binary of is refused, naming both versions" '
	make_archive 6.1.900-1 && must_fail fetch-debian.sh 6.1.901-1 &&
	must_say "no linux-image-amd64 or linux-image-6.1-amd64 of 6.1.901-1 \(it has: 6.1.900-1\)" &&
	test ! -e work/debian/6.1.901-1 && ! ls work/debian | grep -q tmp
'

# Debian 12's second line: linux-image-6.12-amd64 of 6.12.118-1~deb12u1
# depends on linux-image-6.12.118+deb12-amd64, and the kbuild package is
# linux-kbuild-6.12.118+deb12.  The base tag says _ where Debian says ~.
archive_612() {
	ABI=6.12.900+deb12 KBUILD=linux-kbuild-6.12.900+deb12 META=linux-image-6.12-amd64 make_archive "6.12.900-1~deb12u1"
}

ok "a base of the 6.12 line finds its image through linux-image-6.12-amd64, asked for by its Debian version" '
	archive_612 && fetch-debian.sh base/6.12.900-1_deb12u1 >dir 2>err && d=$(cat dir) &&
	test "$d" = "$PWD/work/debian/6.12.900-1~deb12u1" && test "$(cat "$d/vmlinuz")" = kernel &&
	test "$(jq -r .release "$d/package.json")" = 6.12.900+deb12-amd64 &&
	must_say "linux-image-6.12.900\+deb12-amd64=6.12.900-1~deb12u1 .*linux-kbuild-6.12.900\+deb12=6.12.900-1~deb12u1" apt.log &&
	must_say "6.12.900-1~deb12u1" err && ! grep -q _deb12u1 err
'

ok "a version of the 6.12 line the archive lacks is refused by its Debian version, not the tag form" '
	archive_612 && must_fail fetch-debian.sh base/6.12.901-1_deb12u1 &&
	must_say "no linux-image-amd64 or linux-image-6.12-amd64 of 6.12.901-1~deb12u1 \(it has: 6.12.900-1~deb12u1\)" &&
	! grep -q _deb12u1 fail.out
'

ok "a failed download is reported with apt's error and leaves no half-unpacked directory" '
	make_archive && export FAKE_APT_FAIL=1 &&
	must_fail fetch-debian.sh 6.1.900-1 && must_say "Failed to fetch" &&
	test -z "$(ls -A work/debian)"
'

ok "an image package of another version than the source is refused by name" '
	make_archive 6.1.900-1 6.1.899-1 && must_fail fetch-debian.sh 6.1.900-1 &&
	must_say "linux-image-6.1.0-99-amd64_6.1.900-1_amd64.deb: version 6.1.899-1, expected 6.1.900-1" &&
	test -z "$(ls -A work/debian)"
'

# Two stepped kernels: System.map and steps files as step.sh writes them.
make_stepped() { # DIR ALLOC_PAGES_COUNT
	mkdir -p "$1"
	printf '%s\n' "ffffffff81000000 T alloc_pages" "ffffffff81000100 T __alloc_pages" \
		"ffffffff81000400 t get_page_from_freelist" "ffffffff81001000 T __free_pages" \
		"ffffffff81001040 T zzz_end" >"$1/System.map"
	printf 'alloc_pages: %d instructions\n    100  get_page_from_freelist\n     50  __alloc_pages\n%7d  alloc_pages\n\ntrace\n' \
		$((150 + $2)) "$2" >"$1/steps-alloc_pages.txt"
	printf '__free_pages: 18 instructions\n     18  __free_pages\n\ntrace\n' >"$1/steps-__free_pages.txt"
}

ok "two kernels that step the same instructions per function compare equal, with sizes" '
	make_stepped a 53 && make_stepped b 53 &&
	compare-steps.sh base=a debian=b >out 2>err && must_say "execute the same instructions" err &&
	must_say "^  get_page_from_freelist +100 +100 +3072 +3072$" out &&
	must_say "^  total +203 +203$" out && ! grep -q differs out
'

ok "a difference of one instruction in one function fails and names that function" '
	make_stepped a 53 && make_stepped b 52 &&
	! compare-steps.sh base=a debian=b >out 2>err &&
	must_say "^  alloc_pages +53 +52 .*<- differs$" out && must_say "differ on the functions marked" err &&
	test "$(grep -c differs out)" -eq 1
'

ok "a function only one kernel executes counts as a difference" '
	make_stepped a 53 && make_stepped b 53 &&
	printf "alloc_pages: 206 instructions\n    100  get_page_from_freelist\n     50  __alloc_pages\n     53  alloc_pages\n      3  should_fail_alloc_page\n\n" >b/steps-alloc_pages.txt &&
	! compare-steps.sh base=a debian=b >out 2>/dev/null &&
	must_say "^  should_fail_alloc_page +0 +3 .*differs$" out
'

# make bench on a fixture tree with a stand-in make and QEMU: Debian's
# binary becomes a column of its own, built and booted from the fixture
# archive, beside the base and the series.
bench_setup() {
	make_tarball 6.1.900-1 && fixture_env 6.1.900-1 && import.sh 2>/dev/null &&
	make_archive 6.1.900-1 && export WORK=$PWD/work &&
	export PATH=$T_TOP/tests/fake:$PATH BOOT_TIMEOUT=5 BENCH_K=2 BENCH_ZERO_K=1 &&
	git clone -q work/linux scratch && git -C scratch checkout -q base/6.1.900-1 &&
	sed -i "s/return 1/return 2/" scratch/mm/page_alloc.c && git -C scratch diff --full-index >one.diff &&
	mkdir -p series && : >series/series.txt && add_patch one "mm: one" one.diff
}

ok "make bench measures Debian's binary as a column named debian, with and without init_on_alloc" '
	bench_setup && bench.sh >table 2>progress &&
	must_say "^figure +mean +base \(n=2\) +debian \(n=2\) +[0-9a-f]{12} \(n=2\)" table &&
	must_say "^alloc-o0-pair-z0 +Amean +[0-9.]+ +[0-9.]+ .* +[0-9.]+ " table &&
	must_say "^alloc-o0-pair-z0-ioa1 +Amean +[0-9.]+ +[0-9.]+ " table &&
	test -f work/results-bench/debian-6.1.900-1/modules/pa_bench.ko &&
	must_say "__alloc_pages" work/results-bench/debian-6.1.900-1/System.map &&
	jq -r ".inputs[]" work/results-bench/bench-latest.json | grep -q "^debian="
'

ok "BENCH_DEBIAN=0 leaves Debian's column out" '
	bench_setup && BENCH_DEBIAN=0 bench.sh >table 2>/dev/null &&
	! grep -q debian table && must_say "^alloc-o0-pair-z0 " table
'

# A failed boot's verdict is kept (boot.sh), so the family that passes
# after is another one.
ok "one failed boot of a family fails the measurement, names the boot, and keeps no figures" '
	bench_setup && base=$(git -C work/linux rev-parse base/6.1.900-1) &&
	! FAKE_QEMU_PANIC_IF=" pa.pad=aa " BENCH_K=3 measure.sh "$base" >path 2>err &&
	must_say "benchmark boot 2 \(pa.pad=aa\): .*panic" err &&
	must_say "boot 2 of 3 failed" err &&
	! ls work/results-bench/*/bench-*.json 2>/dev/null &&
	BENCH_PAD_CHAR=b BENCH_K=3 measure.sh "$base" >path 2>/dev/null &&
	test "$(jq ".runs" "$(cat path)")" -eq 3
'

done_testing
