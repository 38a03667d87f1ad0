#!/usr/bin/env bash
# Boots on other hosts: BOOT_HOSTS names ssh destinations with QEMU, the
# kernel and initramfs travel, the results come back into the same place,
# and a host that cannot take the boot is an infrastructure failure that
# the next host retries.  The "hosts" are sshd on loopback addresses of
# their own (127.0.0.4, a dead one on 127.0.0.5) running the stand-in
# QEMU; nothing leaves this machine.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"

[[ -x /usr/sbin/sshd ]] || skip_all "sshd is not installed (make deps installs openssh-server)"
port=$((20000 + ($$ + 7) % 20000))

# A key and an ssh config of this test's own for the hosts host-a
# (127.0.0.4), host-b (127.0.0.6) and dead (127.0.0.5, where nothing
# listens).
make_keys() {
	mkdir -p /run/sshd && ssh-keygen -q -t ed25519 -N "" -f hostkey && ssh-keygen -q -t ed25519 -N "" -f key &&
	cp key.pub authorized_keys &&
	for h in host-a:127.0.0.4 dead:127.0.0.5 host-b:127.0.0.6; do
		printf "Host %s\n HostName %s\n Port %s\n User %s\n IdentityFile %s\n StrictHostKeyChecking no\n UserKnownHostsFile /dev/null\n LogLevel ERROR\n" \
			"${h%%:*}" "${h#*:}" "$port" "$(id -un)" "$PWD/key"
	done >ssh_config &&
	# The same key for destinations that name the address (ssh://USER@ADDR:PORT).
	printf "Host 127.0.0.*\n IdentityFile %s\n StrictHostKeyChecking no\n UserKnownHostsFile /dev/null\n LogLevel ERROR\n" \
		"$PWD/key" >>ssh_config && export BOOT_SSH_CONFIG=$PWD/ssh_config
}

# start_host NAME ADDRESS [VAR=VALUE...]: an sshd for host NAME whose
# sessions find the stand-in QEMU (logging to remote-qemu-NAME.log) with
# the given environment; stopped when the test's shell ends.  With
# NO_SFTP=1, an sshd without an sftp server (scp needs one).
start_host() {
	local name=$1 addr=$2 pid sftp="Subsystem sftp internal-sftp"
	[[ ${NO_SFTP:-0} != 1 ]] || sftp=''
	shift 2
	[[ -f key ]] || make_keys || return 1
	cat >"sshd_config-$name" <<-CONF
		ListenAddress $addr
		Port $port
		HostKey $PWD/hostkey
		AuthorizedKeysFile $PWD/authorized_keys
		PermitRootLogin prohibit-password
		StrictModes no
		UsePAM no
		PidFile $PWD/sshd-$name.pid
		$sftp
		SetEnv PATH=$T_TOP/tests/fake:/usr/bin:/bin FAKE_QEMU_LOG=$PWD/remote-qemu-$name.log $*
	CONF
	/usr/sbin/sshd -D -e -f "$PWD/sshd_config-$name" 2>"sshd-$name.log" &
	pid=$!
	sshds+=("$pid")
	trap 'kill "${sshds[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
	for _ in $(seq 50); do
		ssh -F ssh_config -o BatchMode=yes "$name" true 2>/dev/null && return 0
		sleep 0.1
	done
	echo "sshd for $name did not start: $(cat "sshd-$name.log")"
	return 1
}
sshds=()

# A host that goes away: its sshd and every session of it, by SIGKILL.
kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do kill_tree "$c"; done
	kill -KILL "$1" 2>/dev/null || true
}

ok "with BOOT_HOSTS the boot runs on the host, and judges as the same boot here" '
	fake_check_setup && start_host host-a 127.0.0.4 &&
	BOOT_HOSTS=host-a boot.sh --run kunit base/1.0-1 >out 2>err && must_say "booted on host-a" err &&
	test -s remote-qemu-host-a.log && test ! -s qemu.log && d=$(tail -n1 out) &&
	cp "$d/results.txt" remote.results && jq -c .tests "$d/verdict.json" >remote.tests &&
	boot.sh --force --run kunit base/1.0-1 >out 2>/dev/null && test -s qemu.log && d=$(tail -n1 out) &&
	cmp remote.results "$d/results.txt" && jq -c .tests "$d/verdict.json" | cmp - remote.tests
'

ok "a host that does not answer is skipped as an infrastructure failure, and the next host boots" '
	fake_check_setup && start_host host-a 127.0.0.4 &&
	BOOT_HOSTS="dead host-a" boot.sh --run kunit base/1.0-1 >out 2>err &&
	must_say "dead could not run the boot: an infrastructure failure" err && must_say "booted on host-a" err &&
	test -s remote-qemu-host-a.log
'

ok "a host that goes away during the boot is an infrastructure failure, and the next host boots" '
	fake_check_setup && start_host host-a 127.0.0.4 FAKE_QEMU_SECS=60 && start_host host-b 127.0.0.6 &&
	{ BOOT_HOSTS="host-a host-b" boot.sh --run kunit base/1.0-1 >out 2>err & } && b=$! &&
	for _ in $(seq 100); do grep -q qemu remote-qemu-host-a.log 2>/dev/null && break; sleep 0.1; done &&
	kill_tree "$(cat sshd-host-a.pid)" && wait "$b" &&
	must_say "host-a could not run the boot: an infrastructure failure" err && must_say "booted on host-b" err &&
	jq -e ".verdict == \"pass\"" "$(tail -n1 out)/verdict.json"
'

ok "boots that run at the same time go to hosts of their own" '
	fake_check_setup && start_host host-a 127.0.0.4 FAKE_QEMU_SECS=3 && start_host host-b 127.0.0.6 &&
	{ BOOT_HOSTS="host-a host-b" boot.sh --run kunit base/1.0-1 >out 2>err & } && b=$! &&
	for _ in $(seq 100); do grep -q qemu remote-qemu-host-a.log 2>/dev/null && break; sleep 0.1; done &&
	BOOT_HOSTS="host-a host-b" boot.sh --run stress base/1.0-1 >out2 2>err2 && wait "$b" &&
	must_say "booted on host-a" err && must_say "booted on host-b" err2 && test -s remote-qemu-host-b.log
'

ok "make check with two boot hosts boots two commits at once, one on each host" '
	fake_check_setup && start_host host-a 127.0.0.4 FAKE_QEMU_SECS=4 && start_host host-b 127.0.0.6 &&
	patch_from one "mm: one" "s/return 1/return 2/" &&
	BOOT_HOSTS="host-a host-b" check.sh >table 2>err &&
	test "$(grep -cE "^[0-9a-f]{12} .* pass" table)" = 2 &&
	must_say "booted on host-a" err && must_say "booted on host-b" err
'

ok "a host with two slots takes two boots at once; a boot's seconds start with its QEMU, not its wait" '
	fake_check_setup && start_host host-a 127.0.0.4 FAKE_QEMU_SECS=3 &&
	{ BOOT_HOSTS="host-a/2" boot.sh --run kunit base/1.0-1 >out 2>err & } && b=$! &&
	for _ in $(seq 100); do grep -q qemu remote-qemu-host-a.log 2>/dev/null && break; sleep 0.1; done &&
	BOOT_HOSTS="host-a/2" boot.sh --run stress base/1.0-1 >out2 2>err2 &&
	must_say "booted on host-a" err2 && test "$(grep -c "^qemu$" remote-qemu-host-a.log)" = 2 &&
	{ BOOT_HOSTS="host-a" boot.sh --force --run kunit base/1.0-1 >out3 2>err3 & } && b2=$! &&
	for _ in $(seq 100); do test "$(grep -c "^qemu$" remote-qemu-host-a.log)" = 3 && break; sleep 0.1; done &&
	s=$(date +%s) && BOOT_HOSTS="host-a" boot.sh --force --run stress base/1.0-1 >out4 2>err4 &&
	wall=$(($(date +%s) - s)) && wait "$b" "$b2" && must_say "booted on host-a" err4 &&
	jq -e --argjson w "$wall" ".seconds < \$w - 2" "$(tail -n1 out4)/verdict.json"
'

ok "an ssh:// destination, with and without slots, boots on a host without an sftp server" '
	fake_check_setup && NO_SFTP=1 start_host host-a 127.0.0.4 && dest="ssh://$(id -un)@127.0.0.4:$port" &&
	BOOT_HOSTS="$dest/2" boot.sh --run kunit base/1.0-1 >out 2>err && must_say "booted on $dest\$" err &&
	BOOT_HOSTS="$dest" boot.sh --run stress base/1.0-1 >out2 2>err2 && must_say "booted on $dest\$" err2 &&
	test "$(grep -c "^qemu$" remote-qemu-host-a.log)" = 2 && test ! -s qemu.log &&
	jq -e ".verdict == \"pass\"" "$(tail -n1 out2)/verdict.json" &&
	BOOT_HOSTS="host-a/x" must_fail boot.sh --force --run kunit base/1.0-1 &&
	must_say "BOOT_HOSTS: .host-a/x.: give DEST or DEST/N"
'

ok "a host without QEMU passes the boot on, as an infrastructure failure" '
	fake_check_setup && start_host host-a 127.0.0.4 FAKE_QEMU=absent && start_host host-b 127.0.0.6 &&
	BOOT_HOSTS="host-a host-b" boot.sh --run kunit base/1.0-1 >out 2>err &&
	must_say "host-a could not run the boot: an infrastructure failure" err && must_say "booted on host-b" err
'

ok "a kernel that fails on the host fails, and is cached as a kernel verdict" '
	fake_check_setup && start_host host-a 127.0.0.4 FAKE_QEMU=panic &&
	BOOT_HOSTS=host-a must_fail boot.sh --run kunit base/1.0-1 && must_say "booted on host-a" && must_say "Kernel panic" &&
	BOOT_HOSTS=host-a must_fail boot.sh --run kunit base/1.0-1 && must_say "boot cached: failed"
'

ok "when no host takes the boot, it runs here" '
	fake_check_setup && start_host host-a 127.0.0.4 &&
	BOOT_HOSTS=dead boot.sh --run kunit base/1.0-1 >out 2>err && must_say "running it here" err &&
	test -s qemu.log && test ! -s remote-qemu-host-a.log
'

done_testing
