#!/usr/bin/env bash
# The build matrix of one commit: compile the objects the series touches
# in every config of qemu/matrix/ (Debian's own configs of the imported
# version, from linux-config-<major.minor>, with a fragment on top), and
# compare the warnings of the compiler and objtool with the base's in the
# same config.  An error or a new warning fails the commit, naming the
# config.  A compile, not a boot: these kernels are not booted.  A config
# whose fragment says "# checker: sparse" runs sparse on the objects too
# (make C=2), and sparse's warnings count as the compiler's do.
# Kept per commit, reused while nothing that goes into them changes:
#   $RESULTS/<commit>/matrix/<config>.{log,warnings,json,key}
# usage: matrix.sh REV
#   prints "PASSED/CONFIGS" ("-" with no C file to compile), then one line
#   per failed config; exit 1 if any failed
. "$(dirname "$0")/lib.sh"
need_uint JOBS MATRIX_JOBS
MATRIX_JOBS=${MATRIX_JOBS:-2}
[[ $MATRIX_JOBS -ge 1 ]] || die "MATRIX_JOBS=0: give the number of configs to compile at once, 1 or more"

MATRIX=${MATRIX:-$TOP/qemu/matrix}
MATRIX_SCOPE=${MATRIX_SCOPE:-series}
[[ $MATRIX_SCOPE == series || $MATRIX_SCOPE == commit ]] || die "MATRIX_SCOPE=$MATRIX_SCOPE: give series or commit"
rev=${1:?usage: matrix.sh REV}
commit=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit in $KTREE"
base=$(kgit rev-parse "$(base_tag)^{commit}")
version=$(debian_version "$(base_tag)")
mm=$(kernel_line "$(base_tag)")
# Debian's configs of every flavour, for exactly the imported version.
CONFIG_DIR=${DEBIAN_CONFIG_DIR:-/usr/src/linux-config-$mm}
have=${DEBIAN_CONFIG_VERSION:-$(dpkg-query -W -f='${Version}' "linux-config-$mm" 2>/dev/null || true)}
[[ $have == "$version" ]] ||
	die "the matrix starts from Debian's configs of $version, the imported source; linux-config-$mm here is '${have:-not installed}' (apt-get install linux-config-$mm=$version)"

mapfile -t names < <(find "$MATRIX" -maxdepth 1 -name '*.config' -printf '%f\n' | sed 's/\.config$//' | sort)
[[ ${#names[@]} -gt 0 ]] || die "no configs in $MATRIX"
# The objects: every C file the series changes, and REV's own; the base
# is always compiled with all of them, its warnings the reference.
mapfile -t objects < <( {
	! kgit rev-parse -q --verify "$BRANCH^{commit}" >/dev/null || kgit diff --name-only "$base" "$BRANCH" -- '*.c'
	kgit diff --name-only "$base" "$commit" -- '*.c'; } | sort -u | sed 's/\.c$/.o/')
own=("${objects[@]}")
# MATRIX_SCOPE=commit compiles at REV only the C files REV changes against
# its parent: an object REV does not touch compiles as it did at the
# parent, which was checked.  A header, Makefile or Kconfig change can
# change any object, so then REV compiles all of them.
if [[ $MATRIX_SCOPE == commit && $commit != "$base" ]]; then
	mapfile -t changed < <(kgit diff --name-only "$commit^" "$commit" -- . ':!Documentation')
	other=$(printf '%s\n' "${changed[@]}" | grep -v '\.c$' | head -n1 || true)
	if [[ -n $other ]]; then
		say "$(short "$commit"): changes $other, which any object may use: all of the series' objects"
	else
		mapfile -t own < <(printf '%s\n' "${changed[@]}" | grep '\.c$' | sed 's/\.c$/.o/' || true)
	fi
fi
if [[ ${#own[@]} -eq 0 ]]; then
	say "$(short "$commit"): no C file to compile (MATRIX_SCOPE=$MATRIX_SCOPE), so the matrix has nothing to do"
	echo -
	exit 0
fi

use_compiler
# JOBS are shared by the configs compiling at once.
jobs_each=$(( (JOBS + MATRIX_JOBS - 1) / MATRIX_JOBS ))
head_was=$(current_head)
# The configs' compiles run as background jobs: stopped, make and all,
# before the tree goes back to where it was, so that none compiles from
# a tree checked out under it.
kill_tree() {
	local c
	for c in $(pgrep -P "$1" || true); do kill_tree "$c"; done
	kill "$1" 2>/dev/null || true
}
stop_jobs() {
	local j
	for j in $(jobs -pr); do kill_tree "$j"; done
	wait 2>/dev/null || true
}
trap 'stop_jobs; restore_head "$head_was"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Whether the config in BUILD_DIR builds OBJ: kbuild compiles any object
# it is asked for, and one the config leaves out need not compile (mempolicy.c
# without NUMA does not), so the condition is read from the obj-$(CONFIG_X)
# line of the object's Makefile.
builds() { # BUILD_DIR OBJ
	local mk o sym
	mk=$KTREE/$(dirname "$2")/Makefile o=$(basename "$2")
	[[ -f $mk ]] || return 0
	sym=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$mk" |
		grep -E "^obj-\\\$\(CONFIG_[A-Z0-9_]+\)[[:space:]]*[+:]?=(.*[[:space:]])?$o([[:space:]]|$)" |
		grep -m1 -oE 'CONFIG_[A-Z0-9_]+' || true)
	[[ -z $sym ]] || grep -qE "^$sym=[ym]" "$1/.config"
}

# base_config NAME: Debian's config that NAME's fragment starts from.
base_config() {
	local flavour
	flavour=$(sed -n 's/^# base-config: *//p' "$MATRIX/$1.config")
	echo "$CONFIG_DIR/config.amd64_${flavour:-none_amd64}.xz"
}
# checker_of NAME: the checker NAME's fragment asks for, if any.
checker_of() { sed -n 's/^# checker: *//p' "$MATRIX/$1.config"; }
# matrix_key COMMIT NAME OBJECT...: what a compile of those objects of
# COMMIT in config NAME is made of.
matrix_key() {
	local c=$1 name=$2
	shift 2
	{ kgit rev-parse "$c^{tree}"; cat "$MATRIX/$name.config" "$(base_config "$name")" "$TOP/scripts/lib/matrix.sh";
		printf '%s\n' "$@"; } | sha1sum | cut -c1-16
}
# done_before COMMIT NAME OBJECT...: that compile is kept from before.
done_before() {
	local f
	f=$(result_dir "$1")/matrix/$2.key
	[[ -f $f && $(cat "$f") == "$(matrix_key "$@")" ]]
}

# usable NAME: config NAME can be compiled here (its Debian config
# exists, its checker is installed); else stop, naming what is missing.
usable() {
	local frag=$MATRIX/$1.config basecfg checker
	basecfg=$(base_config "$1")
	[[ -f $basecfg ]] || die "$1: $frag starts from $basecfg, which does not exist"
	checker=$(checker_of "$1")
	[[ -z $checker ]] || command -v "$checker" >/dev/null || die "$1: the checker '$checker' is not installed (make deps)"
}

# compile COMMIT NAME OBJECT...: those objects of COMMIT in config NAME;
# COMMIT is checked out, under the build lock.  The key is written last:
# a compile that died has none.
compile() {
	local c=$1 name=$2 frag=$MATRIX/$2.config out basecfg key build log objs o status checker
	shift 2
	local objects=("$@")
	out=$(result_dir "$c")/matrix
	basecfg=$(base_config "$name")
	checker=$(checker_of "$name")
	key=$(matrix_key "$c" "$name" "${objects[@]}")

	build=$WORK/build/matrix-$name-$(cat "$frag" "$basecfg" | sha1sum | cut -c1-8)
	if [[ ! -f $build/.configured ]]; then
		mkdir -p "$build"
		xzcat "$basecfg" >"$build/debian.config"
		"$TOP/scripts/lib/config.sh" "$build" "$build/debian.config" "$frag" ||
			die "$name: the fragment $frag does not apply to Debian's $(basename "$basecfg" .xz)"
		touch "$build/.configured"
	fi
	objs=()
	# A file the series adds is not in the base; one it deletes is not
	# in the commits after.
	for o in "${objects[@]}"; do
		kgit cat-file -e "$c:${o%.o}.c" 2>/dev/null || continue
		! builds "$build" "$o" || objs+=("$o")
	done
	mkdir -p "$out"
	rm -f "$out/$name.key"
	log=$out/$name.log
	status=ok
	# No object for this config (mempolicy.o without NUMA): make with no
	# target would build the whole kernel.
	if [[ ${#objs[@]} -eq 0 ]]; then
		say "$(short "$c"): the $name config builds none of ${objects[*]}: nothing to compile"
		: >"$log"
	else
		say "$(short "$c"): compiling ${objs[*]} with the $name config"
		# Without debug info (-g0 after Debian's -g): it changes neither
		# the code nor a warning, and it is 40% of a compile here
		# (page_alloc.o in Debian's config: 19.1 s, 10.6 s with -g0).
		make -C "$KTREE" O="$build" CC="$KCC" KCFLAGS=-g0 ${checker:+C=2 CHECK="$checker"} -j"$jobs_each" "${objs[@]}" >"$log" 2>&1 || status=failed
	fi
	# Without the tree's path and line numbers, so that a line the commit
	# moves is not a new warning.
	# (The tree's path is data: perl takes it from the environment, quoted.)
	grep -E ': (warning|error):' "$log" | PA_TREE=$KTREE/ perl -pe 's/\Q$ENV{PA_TREE}\E//; s/:[0-9]+:[0-9]+:/:/' |
		sort -u >"$out/$name.warnings" || true
	jq -n --arg config "$name" --arg status "$status" --arg from "$(basename "$basecfg" .xz)" --arg build "$build" \
		--args '{config: $config, from: $from, build: $build, status: $status, objects: $ARGS.positional}' \
		"${objs[@]}" >"$out/$name.json"
	echo "$key" >"$out/$name.key"
}

# compile_all COMMIT OBJECT...: COMMIT in every config, MATRIX_JOBS
# configs at once: a config compiles one or two objects, one core's
# work, so one at a time would leave the other cores idle.  COMMIT is
# checked out once, under the build lock, and only if a config needs it.
compile_all() {
	local c=$1 name todo=() left=()
	shift
	for name in "${names[@]}"; do
		usable "$name"
		done_before "$c" "$name" "$@" || todo+=("$name")
	done
	[[ ${#todo[@]} -gt 0 ]] || return 0
	take_build_lock
	if [[ $(kgit rev-parse HEAD) != "$c" ]]; then
		[[ -z $(kgit status --porcelain --untracked-files=no) ]] ||
			die "$KTREE has uncommitted changes; commit them (then 'make export') or 'git -C $KTREE stash'"
		kgit checkout -q --detach "$c"
	fi
	for name in "${todo[@]}"; do
		while [[ $(jobs -pr | wc -l) -ge $MATRIX_JOBS ]]; do
			wait -n || true
		done
		compile "$c" "$name" "$@" &
	done
	wait
	# A compile that died (a fragment that does not apply, a disk full)
	# said why and left no key: no result of this commit in that config.
	for name in "${todo[@]}"; do
		done_before "$c" "$name" "$@" || left+=("$name")
	done
	[[ ${#left[@]} -eq 0 ]] || die "$(short "$c"): the build matrix could not compile ${left[*]} (see above)"
}

passed=0
failures=()
# The base's warnings are the reference; all of its configs first, so
# that the tree is checked out twice, not twice per config.
[[ $commit == "$base" ]] || compile_all "$base" "${objects[@]}"
compile_all "$commit" "${own[@]}"
for name in "${names[@]}"; do
	out=$(result_dir "$commit")/matrix
	why=''
	if [[ $(jq -r .status "$out/$name.json") != ok ]]; then
		why="error: $(grep -m1 -E ': error:|\*\*\* ' "$out/$name.log" || tail -n1 "$out/$name.log")"
	elif [[ $commit != "$base" ]]; then
		new=$(comm -13 "$(result_dir "$base")/matrix/$name.warnings" "$out/$name.warnings" | head -n1)
		[[ -z $new ]] || why="new warning: $new"
	fi
	if [[ -z $why ]]; then
		passed=$((passed + 1))
	else
		failures+=("$name: $why")
	fi
done
echo "$passed/${#names[@]}"
[[ ${#failures[@]} -eq 0 ]] || { printf '%s\n' "${failures[@]}"; exit 1; }
