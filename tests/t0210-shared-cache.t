#!/usr/bin/env bash
# Past one machine: one compiler cache for a team, ccache's remote storage
# (its own CCACHE_REMOTE_STORAGE, here a redis server on a loopback
# address of its own), so that a second machine's first build hits what
# the first one compiled; and compiles on a distcc farm (DISTCC_HOSTS,
# here a distccd on another loopback address).  The fixture's make
# compiles for real through the CC it is given.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

for d in redis-server distccd; do
	command -v $d >/dev/null || skip_all "$d is not installed (make deps installs it)"
done

# A redis server on 127.0.0.2 that this test's shell stops when it ends.
# usage: start_redis PORT
start_redis() {
	redis-server --bind 127.0.0.2 --port "$1" --save '' --appendonly no --dir "$PWD" \
		--logfile "$PWD/redis.log" >/dev/null 2>&1 &
	redis=$!
	trap 'kill "$redis" 2>/dev/null; wait "$redis" 2>/dev/null' EXIT
	for _ in $(seq 50); do
		redis-cli -h 127.0.0.2 -p "$1" ping 2>/dev/null | grep -q PONG && return 0
		sleep 0.1
	done
	echo "redis did not start: $(cat redis.log)"
	return 1
}
# One of ccache's counters for the cache in CCACHE_DIR.
counter() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
port=$((20000 + $$ % 20000))

ok "a second machine's first build hits the shared cache, and builds the same kernel" '
	fake_check_setup && start_redis "$port" &&
	export CCACHE_REMOTE_STORAGE=redis://127.0.0.2:$port &&
	CCACHE_DIR=$PWD/ccache-a check.sh >/dev/null 2>&1 &&
	test "$(CCACHE_DIR=$PWD/ccache-a counter remote_storage_hit)" = 0 &&
	test "$(CCACHE_DIR=$PWD/ccache-a counter remote_storage_miss)" -gt 0 &&
	c=$(git -C work/linux rev-parse base/1.0-1) && cp work/results/$c/bzImage first &&
	rm -rf work/results work/build &&
	CCACHE_DIR=$PWD/ccache-b check.sh >/dev/null 2>&1 &&
	test "$(CCACHE_DIR=$PWD/ccache-b counter remote_storage_hit)" -gt 0 &&
	test "$(CCACHE_DIR=$PWD/ccache-b counter cache_miss)" = 0 &&
	cmp first work/results/$c/bzImage
'

# ccache hashes absolute paths: a $WORK on another path misses.  (Its
# CCACHE_BASEDIR would hit, but changes the objects: see docs/workflow.md.)
ok "a second machine whose \$WORK lies on another path misses the shared cache" '
	fake_check_setup && start_redis "$port" && export CCACHE_REMOTE_STORAGE=redis://127.0.0.2:$port &&
	CCACHE_DIR=$PWD/ccache-a check.sh >/dev/null 2>&1 &&
	rm -rf work/results work/build && mkdir other && mv work other/ &&
	export WORK=$PWD/other/work KTREE=$PWD/other/work/linux &&
	CCACHE_DIR=$PWD/ccache-b check.sh >/dev/null 2>&1 &&
	test "$(CCACHE_DIR=$PWD/ccache-b counter cache_miss)" -gt 0
'

ok "without the shared cache, the second machine compiles everything again" '
	fake_check_setup && unset CCACHE_REMOTE_STORAGE &&
	CCACHE_DIR=$PWD/ccache-a check.sh >/dev/null 2>&1 && rm -rf work/results work/build &&
	CCACHE_DIR=$PWD/ccache-b check.sh >/dev/null 2>&1 &&
	test "$(CCACHE_DIR=$PWD/ccache-b counter cache_miss)" -gt 0
'

ok "a shared cache that does not answer leaves the compiles local, and the check passes" '
	fake_check_setup && export CCACHE_REMOTE_STORAGE=redis://127.0.0.2:1 &&
	CCACHE_DIR=$PWD/ccache-a check.sh >table 2>&1 && must_say "pass" table &&
	test "$(CCACHE_DIR=$PWD/ccache-a counter remote_storage_error)" -gt 0
'

# A distcc server on 127.0.0.3 that this test's shell stops when it ends;
# its log says which compiles it ran.  usage: start_distccd PORT
start_distccd() {
	# Run as root, distccd drops to its own user: the log goes to stderr,
	# which this shell opens.
	distccd --no-detach --daemon --listen 127.0.0.3 --port "$1" --allow 127.0.0.0/8 \
		--log-stderr --log-level info 2>"$PWD/distccd.log" &
	distccd=$!
	trap 'kill "$distccd" 2>/dev/null; wait "$distccd" 2>/dev/null' EXIT
	for _ in $(seq 50); do
		(exec 3<>"/dev/tcp/127.0.0.3/$1") 2>/dev/null && return 0
		sleep 0.1
	done
	echo "distccd did not start: $(cat distccd.log)"
	return 1
}

ok "with DISTCC_HOSTS the compiles go to the farm, and build the same kernel as a local build" '
	fake_check_setup && unset CCACHE_REMOTE_STORAGE && CCACHE_DIR=$PWD/local check.sh >/dev/null 2>&1 &&
	c=$(git -C work/linux rev-parse base/1.0-1) && cp work/results/$c/bzImage local.bzImage &&
	rm -rf work/results work/build && start_distccd "$port" &&
	export DISTCC_HOSTS="127.0.0.3:$port/4" DISTCC_SKIP_LOCAL_RETRY=1 &&
	CCACHE_DIR=$PWD/farm check.sh >/dev/null 2>&1 &&
	must_say "COMPILE_OK .*page_alloc" distccd.log && cmp local.bzImage work/results/$c/bzImage
'

done_testing
