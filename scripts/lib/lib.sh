# shellcheck shell=bash
# Common settings and helpers for the host-side scripts.  Sourced, not run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/pagealloc}
# Two kernels per commit, two jobs.  The check kernel (allnoconfig plus
# qemu/config/*.config) is small and carries the test options; the bench
# kernel (Debian's own config plus qemu/bench.config) runs the allocator
# code Debian ships.  Scripts that measure set DEFAULT_KFLAVOR=bench before
# sourcing this file; KFLAVOR overrides either, and reaches the scripts
# they call.
export KFLAVOR=${KFLAVOR:-${DEFAULT_KFLAVOR:-check}}
case $KFLAVOR in
check) RESULTS=${RESULTS:-$WORK/results} ;;
bench) RESULTS=${RESULTS:-$WORK/results-bench} ;;
*) printf '%s: error: KFLAVOR=%s: neither check nor bench\n' "$(basename "$0")" "$KFLAVOR" >&2; exit 1 ;;
esac
SERIES_DIR=${SERIES_DIR:-$TOP}
# The main kernel tree (KTREE's default is set below, from the series).
KTREE_MAIN=$WORK/linux
# The kernel's own tests the check kernels carry and run (the intree step).
INTREE_LIST=${INTREE_LIST:-$TOP/qemu/intree-tests.txt}
# Kernel builds are serialised machine-wide: two at once on two cores only
# makes both slower and can exhaust memory.
BUILD_LOCK=${BUILD_LOCK:-$WORK/build.lock}
# The series carries the user's identity: SERIES_AUTHOR_NAME and
# SERIES_AUTHOR_EMAIL, else git's user.name and user.email.  Where git
# knows nobody a placeholder stands in, so that checks and benchmarks
# still run; make mail refuses it.  With a fixed date, the same series
# files and identity always give the same commit ids.
# shellcheck disable=SC2034 # used by the scripts that source this file
PLACEHOLDER_EMAIL=pagealloc@example.org
export GIT_AUTHOR_NAME=${SERIES_AUTHOR_NAME:-$(git -C "$TOP" config user.name || echo "Page Allocator Series")}
export GIT_AUTHOR_EMAIL=${SERIES_AUTHOR_EMAIL:-$(git -C "$TOP" config user.email || echo "$PLACEHOLDER_EMAIL")}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE=${SERIES_DATE:-2009-02-22T17:17:00+0000}
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

PROG=${PROG:-$(basename "$0" .sh)}
# The figures a changelog or the cover letter shows (the rest are summed
# up in one line): order-0 pairs and the batches past the pcp high mark,
# orders 4 and 9, the workloads, order 0 with init_on_alloc=1, and the
# allocator's instructions per operation of each profiled workload.
HEADLINE=${HEADLINE:-'^(alloc|free)-o0-(pair|batch16384|batch32768)-z0$|^(alloc|free)-o[49]-pair-z0$|^hackbench|^tbench|^pagefault$|^(alloc|free)-o0-pair-z0-ioa1$|^prof-.*-allocator(-page)?$'}
# The trailer replay adds to every commit, and export takes off again.
# shellcheck disable=SC2034 # used by the scripts that source this file
SIGNOFF="Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

kgit() { git -C "$KTREE" "$@"; }

# The kernel line of a Debian version or base tag, major.minor: 6.1 for
# base/6.1.192-3, 6.12 for 6.12.118-1~deb12u1; empty for another form.
kernel_line() {
	[[ ${1#base/} =~ ^([0-9]+[.][0-9]+) ]] && echo "${BASH_REMATCH[1]}"
	return 0
}

# The Debian version of a base tag.  git refuses '~' in a tag name, so
# import.sh wrote '_' for it (base/6.12.118-1_deb12u1 is 6.12.118-1~deb12u1);
# the other character it replaces, an epoch's ':', no kernel version has.
# A version in Debian's form passes unchanged.
debian_version() {
	local v=${1#base/}
	echo "${v//_/\~}"
}

# The base tag or kernel line in the series directory's file 'base',
# checked; nothing for a series without the file.
series_base_line() {
	local f=$SERIES_DIR/base t
	[[ -f $f ]] || return 0
	t=$(sed -e 's/[[:space:]]*$//' -e '/^$/d' "$f")
	{ [[ $t =~ ^base/[0-9][A-Za-z0-9.+_-]*$ ]] && git check-ref-format "refs/tags/$t"; } ||
		die "$f: '$t' is not one base tag or kernel line (one line: base/<version> as make import tags it, e.g. base/6.1.192-3, or base/<major.minor>, e.g. base/6.1)"
	echo "$t"
}
# The newest import of kernel line LINE (6.1: base/6.1.192-3, never
# base/6.12.*); empty if there is none.
newest_of_line() { kgit tag -l "base/$1[.-]*" --sort=-version:refname | head -n1; }
# The base the file names: the tag itself, or for a kernel line alone
# (base/6.1) the newest import of that line, so that Debian's next 6.1
# upload, imported, is the series' base as before, and 6.12 never is.
series_base() {
	local t l
	t=$(series_base_line) || exit 1
	if [[ $t =~ ^base/[0-9]+[.][0-9]+$ ]]; then
		l=$(kernel_line "$t")
		t=$(newest_of_line "$l")
		[[ -n $t ]] || die "$SERIES_DIR/base: no base of kernel line base/$l is imported in $KTREE; run 'make import' (the file of package linux-source-$l)"
	fi
	echo "$t"
}

# The base a command works on: BASE; else the tag the series directory's
# file 'base' names, so that importing another kernel line never moves
# a series; else, for a series without the file, the newest import.
base_tag() {
	local v l
	if [[ -n ${BASE:-} ]]; then
		echo "$BASE"
		return
	fi
	# base_tag runs in $(...), where set -e does not stop a failure.
	v=$(series_base) || exit 1
	if [[ -n $v ]]; then
		l=$(kernel_line "$v")
		kgit rev-parse -q --verify "refs/tags/$v" >/dev/null 2>&1 ||
			die "$SERIES_DIR/base: $v is not imported in $KTREE; import it first: make import TARBALL=/usr/src/linux-source-$l.tar.xz SOURCE_VERSION=$(debian_version "$v") (the file of package linux-source-$l)"
		echo "$v"
		return
	fi
	# Every import has the same fixed commit date: the version orders them.
	v=$(kgit tag -l 'base/*' --sort=-version:refname | head -n1)
	[[ -n $v ]] || die "no imported base in $KTREE; run 'make import' first"
	echo "$v"
}

# The base a branch (or commit) is on.  Each import is a root commit of
# its own, so it holds one base tag.
branch_base() { kgit tag -l 'base/*' --merged "$1" --sort=-version:refname | head -n1; }

# The upstream commit a changelog FILE names in a trailer,
# 'Upstream-commit: <12 or more hex digits> ("subject")', as it is written
# (<id> ("subject")); nothing if none.  The series' 'Upstream:' paragraphs,
# which say where mainline stands, are prose, not this trailer.
upstream_commit() {
	{ git interpret-trailers --parse <"$1" 2>/dev/null || true; } |
		sed -nE 's/^Upstream-commit: ([0-9a-f]{12,40} \(".*"\))$/\1/p' | head -n1
}

# The check kernel's config fragments for COMMIT, one path a line:
# qemu/config/*.config, then those of the commit's kernel line in
# qemu/config/<major.minor>/, where a later kernel names the same options
# otherwise (its gone.txt lists the common ones it does not have).
check_fragments() {
	local line
	printf '%s\n' "$TOP"/qemu/config/*.config
	line=$(kernel_line "$(branch_base "$1")")
	[[ -z $line || ! -d $TOP/qemu/config/$line ]] ||
		find "$TOP/qemu/config/$line" -maxdepth 1 -name '*.config' -o -name gone.txt | sort
}

# The package of Debian's binary kernel of VERSION (a base tag is read as
# its Debian version), from the archive's index: the meta-package of that
# exact version depends on it.  6.1's is linux-image-amd64
# (linux-image-6.1.0-57-amd64 for 6.1.192-3); a second line's is its own,
# linux-image-<major.minor>-amd64 (linux-image-6.12.118+deb12-amd64 for
# 6.12.118-1~deb12u1).  Empty if there is none.
debian_image_package() {
	local v meta pkg
	v=$(debian_version "$1")
	for meta in linux-image-amd64 "linux-image-$(kernel_line "$v")-amd64"; do
		pkg=$("${APT_CACHE:-apt-cache}" show "$meta=$v" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 |
			grep -oE 'linux-image-[0-9][^ ,]*-amd64' | head -n1) || true
		[[ -z $pkg ]] || { echo "$pkg"; return 0; }
	done
}

# Die unless series.txt exists; call before reading names, since a die
# inside a process substitution would not stop the caller.
require_series() {
	[[ -f $SERIES_DIR/series.txt ]] || die "$SERIES_DIR/series.txt: no such file"
}

# Patch names from series.txt, in order, comments and blanks dropped.
series_names() {
	local f=$SERIES_DIR/series.txt
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$f"
}

# Results are kept per source tree, so a commit whose message alone changed
# (say, to add the figures measured for it) reuses every build and boot of
# its earlier self.  $RESULTS/<commit id> is a link to $RESULTS/tree-<id>.
# usage: result_dir COMMIT   (creates the link, prints the path)
result_dir() {
	local c t
	c=$(kgit rev-parse "$1^{commit}")
	t=$(kgit rev-parse "$c^{tree}")
	mkdir -p "$RESULTS/tree-$t"
	[[ -e $RESULTS/$c ]] || ln -sfn "tree-$t" "$RESULTS/$c"
	echo "$RESULTS/$c"
}

short() { git -C "$KTREE" rev-parse --short=12 "$1"; }

# A kernel to boot or measure, into K_DIR (its result directory: bzImage,
# modules/, build.json, build.key, System.map) and K_NAME (for messages):
# a commit of $KTREE, built with the $KFLAVOR config if need be; "debian",
# Debian's own binary of the imported version; or a directory that holds
# a bzImage already.
# shellcheck disable=SC2034 # K_DIR and K_NAME are for the caller
resolve_kernel() {
	local c
	if [[ $1 == debian ]]; then
		K_DIR=$("$TOP/scripts/lib/debian-kernel.sh") || die "Debian's kernel could not be prepared"
		K_NAME=debian
	elif [[ -f $1/bzImage ]]; then
		K_DIR=$(cd "$1" && pwd)
		K_NAME=$(basename "$K_DIR")
	else
		c=$(kgit rev-parse --verify -q "$1^{commit}") || die "$1: no such commit in $KTREE"
		"$TOP/scripts/build.sh" "$c" >/dev/null || die "$(short "$c") was not built (see the error above)"
		K_DIR=$(result_dir "$c")
		K_NAME=$(short "$c")
	fi
}

# The profiled set of one kernel (measure.sh with the paprof plugin):
# BENCH_PROFILE_K boots (default 3) of hackbench, tbench and the page-fault
# workload, letters p, pp, ... as perturbation.  Prints its samples file.
# Hackbench runs 400 loops: at the default 100 its allocator instructions
# per page vary by up to 1.1% over five boots (a handful of pcp refills
# more or less in a run that allocates ~4000 pages); at 400, by 0.2-0.6%.
measure_profile() {
	need_uint BENCH_PROFILE_K
	BENCH_K=${BENCH_PROFILE_K:-3} BENCH_PROFILE=1 BENCH_STEPS=hackbench,tbench,pagefault \
		BENCH_APPEND="init_on_alloc=0 pa.tbench_secs=2 pa.hackbench_loops=400" \
		BENCH_PAD_CHAR=p "$TOP/scripts/lib/measure.sh" "$1"
}

# The contention set of one kernel: BENCH_CONTEND_K boots (default 5) on
# two vCPUs under multi-threaded TCG, each running pa_contend
# (pa.contend=BATCHxROUNDS from CONTEND, default the guest's 16384x10)
# with the paprof plugin; letters c, cc, ... as perturbation.  Wall-clock
# and host scheduling make every boot different: a family, not a repeat.
measure_contend() {
	need_uint BENCH_CONTEND_K
	BENCH_K=${BENCH_CONTEND_K:-5} BENCH_MODE=functional BENCH_PROFILE=1 BENCH_STEPS=contend \
		BENCH_PAD_CHAR=c BENCH_APPEND="init_on_alloc=0${CONTEND:+ pa.contend=$CONTEND}" \
		"$TOP/scripts/lib/measure.sh" "$1"
}

# The QEMU CPU model of a TCG guest in MODE, unless GUEST_CPU names one.
# Deterministic: 'max' without cx16 (boot.sh says why); its instruction
# counts include the ERMS clear_page() a current machine runs.
# Functional: 'max' without ERMS.  TCG runs rep stosb one byte an
# iteration, so with ERMS the clear_page() of init_on_alloc (Debian's
# default) takes half of a KUnit and stress boot (40 s; 18 s with the
# rep stosq variant).  The string routines are arch code the allocator
# calls, not code the series changes.
guest_cpu() {
	case $1 in
	deterministic) echo "${GUEST_CPU:-max,-cx16}" ;;
	*) echo "${GUEST_CPU:-max,-erms}" ;;
	esac
}

# Print a progress line that says how far along a long loop is.
progress() { printf '[%s/%s] %s\n' "$1" "$2" "$3" >&2; }

# Commits named by revisions and ranges (A..B), in order, into the array
# named by $1.  No arguments: the base and every commit of $BRANCH.
resolve_revs() {
	local -n _out=$1
	local r base range empty_ok=''
	shift
	_out=()
	if [[ $# -eq 0 ]]; then
		base=$(kgit rev-parse "$(base_tag)^{commit}")
		# An empty series is the base alone.
		set -- "$base" "$base..$BRANCH"
		empty_ok=$2
	fi
	for r in "$@"; do
		[[ $r != -* ]] || die "REVS: '$r' is an option, not a revision or range"
		if [[ $r == *..* ]]; then
			# Checked here: a failure inside a process substitution is lost.
			range=$(kgit rev-list --reverse "$r" 2>/dev/null) || die "REVS: '$r' is not a range of commits in $KTREE (A..B, both commits)"
			[[ -n $range || $r == "$empty_ok" ]] || die "REVS: '$r' holds no commits (is the first an ancestor of the second?)"
			[[ -z $range ]] || mapfile -t -O "${#_out[@]}" _out <<<"$range"
		else
			_out+=("$(kgit rev-parse --verify -q "$r^{commit}")") || die "$r: no such commit in $KTREE"
		fi
	done
	[[ ${#_out[@]} -gt 0 ]] || die "no commits in: $*"
}

# Kernels to measure into the array named by $1: what resolve_revs makes
# of each argument (an empty one: the base and every commit), and
# "debian", Debian's own binary, kept as it is.  No arguments: the base
# and every commit.
resolve_kernels() {
	local -n _kernels=$1
	local -a _revs
	local r
	shift
	_kernels=()
	[[ $# -gt 0 ]] || set -- ""
	for r in "$@"; do
		if [[ $r == debian ]]; then
			_kernels+=(debian)
			continue
		fi
		if [[ -z $r ]]; then resolve_revs _revs; else resolve_revs _revs "$r"; fi
		_kernels+=("${_revs[@]}")
	done
}

# Import the tarball and replay the series, so that the commits to work on
# exist (both steps do nothing when already done).  NO_REPLAY=1 keeps the
# branch as it is, for a developer working on commits in the kernel tree.
ensure_series() {
	"$TOP/scripts/import.sh"
	[[ ${NO_REPLAY:-0} == 1 ]] || "$TOP/scripts/replay.sh"
}

# Building commit after commit detaches HEAD; give a developer back the
# branch they had checked out.  usage: restore_head REF   (from an EXIT trap)
current_head() { kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD; }
restore_head() {
	[[ -z $(kgit status --porcelain --untracked-files=no) ]] || return 0
	kgit checkout -q "$1" 2>/dev/null || true
}

# Take the machine-wide lock on the kernel tree and build directories.  A
# job that holds it (a bisection, say) passes it on to the steps it runs:
# they inherit the locked descriptor and do not wait for themselves.
take_build_lock() {
	[[ -z ${PAGEALLOC_LOCKED:-} ]] || return 0
	mkdir -p "$(dirname "$BUILD_LOCK")"
	exec 9>"$BUILD_LOCK"
	if ! flock -n 9; then
		say "waiting for another job on $KTREE to finish (lock: $BUILD_LOCK)"
		flock 9
	fi
	export PAGEALLOC_LOCKED=1
}

# A commit on PARENT whose only change is FILE's content, taken from SRC
# (made on a throwaway index, so no checkout is touched); prints its id.
# usage: commit_with_file PARENT FILE SRC SUBJECT
commit_with_file() {
	local idx blob tree
	idx=$(mktemp)
	blob=$(kgit hash-object -w "$3")
	GIT_INDEX_FILE=$idx kgit read-tree "$1"
	GIT_INDEX_FILE=$idx kgit update-index --cacheinfo "100644,$blob,$2"
	tree=$(GIT_INDEX_FILE=$idx kgit write-tree)
	rm -f "$idx"
	kgit commit-tree "$tree" -p "$1" -m "$4"
}

# A patch's author.  commit-msgs/NAME may start with an in-body header as
# git format-patch writes one and git am reads it, a line
# "From: Name <email>" and a blank line, then the subject and the body.
# Replay and rebase make that person the commit's author (the local
# identity still commits and signs off); without the line the local
# identity is the author, as before.  Export writes the line only where
# the author is not the local identity, so a series of one's own keeps no
# author lines, and the same files always give the same commit ids.
# usage: msg_author FILE   (prints "Name <email>", or nothing; dies on a
# malformed header)
msg_author() {
	local first second
	{ IFS= read -r first || true; IFS= read -r second || true; } <"$1"
	[[ $first == From:* ]] || return 0
	[[ $first =~ ^From:\ ([^<>]*[^<>[:space:]])\ \<([^<>[:space:]]+@[^<>[:space:]]+)\>$ && -z $second ]] ||
		die "${1#"$SERIES_DIR"/}: the first line starts with 'From:' but is not 'From: Name <email>' followed by a blank line (the author, as git am reads it)"
	printf '%s <%s>\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
}

# The commit message of FILE without the author header.
msg_text() {
	local a
	a=$(msg_author "$1") || return 1
	if [[ -n $a ]]; then tail -n +3 "$1"; else cat "$1"; fi
}

# Run a command with the author of commit-msgs FILE in GIT_AUTHOR_NAME and
# GIT_AUTHOR_EMAIL (when it names one).  usage: with_msg_author FILE CMD...
with_msg_author() {
	local a
	a=$(msg_author "$1") || exit 1
	shift
	if [[ -z $a ]]; then
		"$@"
	else
		a=${a%>}
		GIT_AUTHOR_NAME=${a% <*} GIT_AUTHOR_EMAIL=${a##* <} "$@"
	fi
}

# The compiler of every kernel build (check, bench, matrix): ccache, in
# its own directory under $WORK, in depend mode: it takes the headers
# from the compiler's own -MMD output instead of running the preprocessor
# a second time, so a cold compile costs what plain gcc does (60 kernel
# objects: 30.6 s against 42.2 s in the default mode, plain gcc 33.0 s),
# and it still hits what either mode cached.  ccache reads its remote
# storage (CCACHE_REMOTE_STORAGE, a cache a team shares) from the
# environment.  With DISTCC_HOSTS, ccache hands each miss to distcc
# (CCACHE_PREFIX), and JOBS defaults to the slots distcc counts there.
# Sets KCC and JOBS.
use_compiler() {
	export CCACHE_DIR=${CCACHE_DIR:-$WORK/ccache}
	export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
	# shellcheck disable=SC2034 # used by the scripts that call this
	KCC="ccache gcc"
	if [[ -n ${DISTCC_HOSTS:-} ]]; then
		command -v distcc >/dev/null || die "DISTCC_HOSTS=$DISTCC_HOSTS: distcc is not installed (make deps)"
		export CCACHE_PREFIX=${CCACHE_PREFIX:-distcc}
		JOBS=${JOBS:-$(distcc -j)}
	fi
	JOBS=${JOBS:-$(($(nproc) + 1))}
}

# SERIES_DIR as the user gave it, relative to the caller's directory: the
# scripts hand it to git -C $KTREE and to each other.
[[ $SERIES_DIR == /* ]] || SERIES_DIR=$PWD/$SERIES_DIR
# What make import reads by default: the Debian source package of the
# series' kernel line (its base file), 6.1 for a series without one, so
# that SERIES_DIR=series-6.12 make import imports linux-source-6.12.
series_line=$(series_base_line) || exit 1
series_line=$(kernel_line "$series_line")
SOURCE_PKG=${SOURCE_PKG:-linux-source-${series_line:-6.1}}
# The kernel tree: $WORK/linux for the kernel line of the repository's own
# series, $WORK/linux-<line> for a series on another line (series-6.12/),
# which make import makes a worktree of the first.  One tree per line, so
# that checking one line out never rewrites the other's files, whose
# mtimes its builds go by.
if [[ -z ${KTREE:-} ]]; then
	KTREE=$KTREE_MAIN
	own_line=$(SERIES_DIR=$TOP series_base_line) || exit 1
	own_line=$(kernel_line "$own_line")
	[[ -z $series_line || $series_line == "$own_line" ]] || KTREE=$WORK/linux-$series_line
fi
TARBALL=${TARBALL:-/usr/src/$SOURCE_PKG.tar.xz}
# The series' branch in the kernel tree: the one the series directory's
# file 'branch' names, else series.  The 6.12 series names series-6.12,
# so that the two live side by side and neither replay moves the other.
default_branch=series
[[ ! -f $SERIES_DIR/branch ]] || default_branch=$(sed -n '1s/[[:space:]]*$//p' "$SERIES_DIR/branch")
BRANCH=${BRANCH:-$default_branch}

# Inputs are data, and a value of the wrong form stops the script before
# any work, with the variable and the form it takes named.  The settings
# every script shares are checked here, as this file is sourced; a script
# checks its own (THRESHOLD, RUN, REROLL, SOURCE_VERSION) before it starts.
#
# BRANCH is a plain branch name: letters, digits and . _ + -, no '/' (it
# names files and directories under $WORK as well as the ref), and not a
# name the kernel tree reads as something else: HEAD and its kin, an
# abbreviated commit id, a tag, or the refs make mail keeps (b4/...,
# pagealloc-base, mail/vN).
check_branch() {
	local b=$1
	[[ $b != */* ]] ||
		die "BRANCH=$b: a branch name here has no '/' (it also names directories under \$WORK); try BRANCH=${b//\//-}"
	[[ ! $b =~ ^[A-Z_]*HEAD$ ]] || die "BRANCH=$b: that is git's $b, not a branch name"
	{ [[ $b =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] && git check-ref-format --branch "$b" >/dev/null 2>&1; } ||
		die "BRANCH='$b': a branch name is letters, digits and . _ + -, starting with a letter or digit (no '..', no '.lock' at the end)"
	[[ ! $b =~ ^[0-9a-fA-F]{4,40}$ ]] || die "BRANCH=$b: reads as an abbreviated commit id; give a name with a letter beyond f"
	[[ ! $b =~ ^(b4|pagealloc-base|v[0-9]+)$ ]] || die "BRANCH=$b: make mail uses that name for refs of its own"
	if [[ -e $KTREE/.git ]] && kgit show-ref -q --verify "refs/tags/$b"; then
		die "BRANCH=$b: $KTREE has a tag of that name; choose another"
	fi
	return 0
}
check_branch "$BRANCH"

# A setting that counts (boots, jobs, seconds) is digits only: bash
# arithmetic, $((...)) and [[ $x -gt 0 ]] alike, evaluates a value as an
# expression, and the subscript in BENCH_K='a[$(cmd)]' runs cmd.  A script
# calls this for each such setting it reads, before any work; unset or
# empty means the default.  usage: need_uint NAME...
need_uint() {
	local n
	for n in "$@"; do
		[[ -z ${!n:-} || ${!n} =~ ^(0|[1-9][0-9]*)$ ]] ||
			die "$n='${!n}': a whole number is needed here (digits only, e.g. $n=3)"
	done
}

# A yes/no setting is 1 or 0 (or unset): "yes" read as 0 would quietly do
# the other thing.  usage: need_bool NAME...
need_bool() {
	local n
	for n in "$@"; do
		[[ ${!n:-0} =~ ^[01]$ ]] || die "$n=${!n}: give $n=1 or $n=0"
	done
}
need_bool NO_REPLAY
