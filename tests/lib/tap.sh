# shellcheck shell=bash
# A small test library in the manner of git's t/test-lib.sh: every test runs
# in a subshell inside its own scratch directory, output is TAP for prove.
#   ok "sentence" 'commands'          passes when the commands exit 0
#   expect_fail ... / check_output     helpers used inside a test
set -uo pipefail

T_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/pagealloc-test.XXXXXX")
trap 'rm -rf "$T_SCRATCH"' EXIT
t_n=0
t_failed=0
export PATH="$T_TOP/scripts:$T_TOP/scripts/lib:$PATH"
# One guest initramfs for the whole test file, not one per test.
export INITRAMFS_DIR=$T_SCRATCH/initramfs
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=advice.detachedHead GIT_CONFIG_VALUE_0=false
# An identity of the tests' own, as git's test-lib sets one: a machine
# where git knows nobody must pass too.
export GIT_AUTHOR_NAME="Test Er" GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME="Test Er" GIT_COMMITTER_EMAIL=t@example.org
export SERIES_AUTHOR_NAME="Test Er" SERIES_AUTHOR_EMAIL=t@example.org

ok() {
	local name=$1 body=$2 dir out
	t_n=$((t_n + 1))
	dir=$T_SCRATCH/t$t_n
	mkdir -p "$dir"
	if out=$(cd "$dir" && eval "$body" 2>&1); then
		echo "ok $t_n - $name"
	else
		echo "not ok $t_n - $name"
		printf '%s\n' "$out" | sed 's/^/# /'
		t_failed=$((t_failed + 1))
	fi
}

# A diagnostic line that prove shows even when the test passes.
exec 3>&1
note() { echo "# $*" >&3; }

skip_all() { echo "1..0 # SKIP $*"; exit 0; }
skip() { t_n=$((t_n + 1)); echo "ok $t_n - $1 # SKIP $2"; }

done_testing() {
	echo "1..$t_n"
	[[ $t_failed -eq 0 ]]
}

# Run a command that must fail; show what it printed if it did not.
must_fail() {
	if "$@" >fail.out 2>&1; then
		echo "expected failure, but it succeeded: $*"
		cat fail.out
		return 1
	fi
	cat fail.out
}

# The named file (default fail.out) must contain the extended regex.
must_say() {
	local re=$1 f=${2:-fail.out}
	grep -qE -- "$re" "$f" && return 0
	echo "expected /$re/ in $f, got:"
	cat "$f"
	return 1
}

# A tiny "linux-source" tarball: a few files, and a top-level .gitignore
# that ignores everything, as Debian's has.
make_tarball() {
	local v=${1:-1.0-1} d
	d=$(mktemp -d)
	mkdir -p "$d/linux-source-6.1/mm" "$d/linux-source-6.1/include"
	printf '*\n!.gitignore\n' >"$d/linux-source-6.1/.gitignore"
	printf 'int alloc(void)\n{\n\treturn %s;\n}\n' 1 >"$d/linux-source-6.1/mm/page_alloc.c"
	printf '#define GFP_KERNEL 0\n' >"$d/linux-source-6.1/include/gfp.h"
	printf 'VERSION = %s\n' "$v" >"$d/linux-source-6.1/Makefile"
	tar -C "$d" -cJf "$PWD/linux-source-6.1.tar.xz" linux-source-6.1
	rm -rf "$d"
}

# Environment that points every script at this test's scratch directory.
fixture_env() {
	export WORK=$PWD/work TARBALL=$PWD/linux-source-6.1.tar.xz SOURCE_VERSION=${1:-1.0-1}
	export SERIES_DIR=$PWD/series
	unset RESULTS BASE
	# The fixture's lines (1.0, 2.0) are not the repository's (6.1), which
	# would give each its own tree (lib.sh): one tree for all of them, as a
	# user's KTREE would.  t0020 tests the tree of each line.
	export KTREE=$WORK/linux
	# The fixture tree has no selftests: the kernel's own tests are none.
	export INTREE_LIST=$PWD/intree-tests.txt
	printf '# none in the fixture tree\n' >"$INTREE_LIST"
	fixture_matrix
}

# A fixture tree for make check with the stand-in make and QEMU of
# tests/fake (logs in make.log and qemu.log), one KUnit boot a commit,
# no build matrix, an empty series and a scratch clone at the base.
fake_check_setup() {
	make_tarball 1.0-1 && fixture_env 1.0-1 && import.sh 2>/dev/null &&
	export PATH=$T_TOP/tests/fake:$PATH FAKE_MAKE_LOG=$PWD/make.log FAKE_QEMU_LOG=$PWD/qemu.log \
		CHECK_BOOTS="kunit|" BOOT_TIMEOUT=5 CHECK_MATRIX=0 &&
	git clone -q work/linux scratch && git -C scratch checkout -q base/1.0-1 &&
	mkdir -p series && : >series/series.txt
}

# Debian's configs of the fixture's version, and a build matrix of two
# configs over them: Debian's own, and the rt flavour (CONFIG_PREEMPT_RT).
fixture_matrix() {
	export DEBIAN_CONFIG_DIR=$PWD/debconf DEBIAN_CONFIG_VERSION=$SOURCE_VERSION MATRIX=$PWD/matrix
	mkdir -p "$DEBIAN_CONFIG_DIR" "$MATRIX"
	printf 'CONFIG_MMU=y\n' | xz >"$DEBIAN_CONFIG_DIR/config.amd64_none_amd64.xz"
	printf 'CONFIG_MMU=y\nCONFIG_PREEMPT_RT=y\n' | xz >"$DEBIAN_CONFIG_DIR/config.amd64_rt_amd64.xz"
	printf '# as shipped\n' >"$MATRIX/debian.config"
	printf '# base-config: rt_amd64\n' >"$MATRIX/rt.config"
}

# A commit on the fixture's scratch clone of FILE (default
# mm/page_alloc.c) edited by a sed expression, written into the series
# directory as patch NAME.
# usage: patch_from NAME SUBJECT SED-EXPR [FILE]
patch_from() {
	sed -i "$3" "scratch/${4:-mm/page_alloc.c}" &&
	git -C scratch add -f "${4:-mm/page_alloc.c}" && git -C scratch diff --cached --full-index >"$1.diff" &&
	git -C scratch -c user.name=x -c user.email=x@x commit -qm "$2" &&
	add_patch "$1" "$2" "$1.diff"
}

# Write patch NAME into the series directory: message and diff.
# usage: add_patch NAME "subject" DIFF-FILE [TRAILER-LINE]
add_patch() {
	mkdir -p "$SERIES_DIR/commit-msgs" "$SERIES_DIR/patches"
	printf '%s\n\nBody of %s.\n' "$2" "$1" >"$SERIES_DIR/commit-msgs/$1"
	[[ -z ${4:-} ]] || printf '\n%s\n' "$4" >>"$SERIES_DIR/commit-msgs/$1"
	cp "$3" "$SERIES_DIR/patches/$1.diff"
	echo "$1" >>"$SERIES_DIR/series.txt"
}

# Run a command in its own process group and interrupt the whole group,
# as a Ctrl-C at the terminal would, once FILE has a line matching
# PATTERN (the fakes log each call before they hang): a fixed delay lost
# the race on a loaded machine, before the command reached the step.
# usage: interrupt_when FILE PATTERN COMMAND...
interrupt_when() {
	local file=$1 pattern=$2 pid i
	shift 2
	# Job control gives the background job a process group of its own.  A
	# suite started in the background (nohup, CI runners) inherits SIGINT
	# ignored, which no shell can undo: perl restores it before the exec.
	set -m
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec $ARGV[0]: $!\n"' -- "$@" >/dev/null 2>&1 &
	pid=$!
	set +m
	for ((i = 0; i < 600; i++)); do
		grep -qE -- "$pattern" "$file" 2>/dev/null && break
		sleep 0.1
	done
	kill -INT -- "-$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}
