#!/usr/bin/env bash
# Run one boot's QEMU, within LIMIT seconds: here, or with BOOT_HOSTS
# (ssh destinations with QEMU installed, each HOST or HOST/N for N boots
# at once, default 1) on a free slot of the first host that has one.
# There the kernel and initramfs travel, and the serial files and QEMU's
# output come back into DIR as a boot here leaves them.  The exit status
# is that of QEMU (or of timeout, at the limit).  A host that cannot be
# reached, has no QEMU, or goes away during the boot says nothing about
# the kernel: the next host gets the boot, and this machine after all of
# them, a commit's boots at most at once (LOCAL_SLOTS) as without hosts.
# DIR/started gets the time QEMU started, after any wait for a slot.
# BOOT_SSH_CONFIG, an ssh config file, replaces the user's.
# usage: run-qemu.sh DIR LIMIT KERNEL CMDLINE QEMU-COMMAND...
#   DIR holds the initramfs (initrd); boot.sh judges what comes back.
. "$(dirname "$0")/lib.sh"

dir=$1 limit=$2 kernel=$3 cmdline=$4
shift 4
read -ra hosts <<<"${BOOT_HOSTS:-}"
nhosts=${#hosts[@]}
ssh_opts=(-o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=15 -o ServerAliveCountMax=4)
[[ -z ${BOOT_SSH_CONFIG:-} ]] || ssh_opts=(-F "$BOOT_SSH_CONFIG" "${ssh_opts[@]}")
back=(console.log results.txt qemu.out status)

# run_on HOST QEMU-COMMAND...: the boot on HOST; sets status.  Fails when
# the host could not run it or send the results back.
run_on() {
	local h=$1 r cmd f ok=0
	shift
	rm -f "${back[@]/#/$dir/}"
	r=$(ssh -n "${ssh_opts[@]}" "$h" 'mktemp -d /tmp/pagealloc-boot.XXXXXX') || return 1
	# The remote shell reads the command as one string: every word quoted.
	cmd="cd $(printf '%q' "$r") && timeout -k 5 $(printf '%q' "$limit") $(printf '%q ' "$@")"
	cmd+="-kernel bzImage -initrd initrd -append $(printf '%q' "$cmdline")"
	cmd+=" -serial file:console.log -serial file:results.txt </dev/null >qemu.out 2>&1; echo \$? >status"
	if scp -q "${ssh_opts[@]}" "$kernel" "$h:$r/bzImage" && scp -q "${ssh_opts[@]}" "$dir/initrd" "$h:$r/initrd" &&
		date +%s.%N >"$dir/started" && ssh -n "${ssh_opts[@]}" "$h" "$cmd"; then
		ok=1
		for f in "${back[@]}"; do
			scp -q "${ssh_opts[@]}" "$h:$r/$f" "$dir/$f" 2>/dev/null || [[ $f == results.txt ]] || ok=0
		done
	fi
	ssh -n "${ssh_opts[@]}" "$h" "rm -rf $(printf '%q' "$r")" 2>/dev/null || true
	[[ $ok == 1 && -f $dir/status ]] || return 1
	status=$(cat "$dir/status")
	rm -f "$dir/status"
	# 126 and 127: the host's shell found no QEMU to run.
	[[ $status =~ ^[0-9]+$ && $status != 126 && $status != 127 ]]
}

# slot NAME N: one of NAME's N slots under $WORK/boot-hosts, its lock
# held on fd $slot_fd until the boot ends.  Fails when all are taken.
slot() {
	local i rc
	for ((i = 0; i < $2; i++)); do
		exec {slot_fd}>>"$locks/${1////_}.$i"
		rc=0
		flock -n "$slot_fd" || rc=$?
		[[ $rc != 0 ]] || return 0
		exec {slot_fd}>&-
		[[ $rc == 1 ]] || die "$locks/${1////_}.$i: flock failed (status $rc)"
	done
	return 1
}

# The hosts in order, each taken where it has a free slot; while all that
# are left are busy, the first to come free.  A host that could not run
# the boot is left out.
locks=$WORK/boot-hosts
[[ $nhosts -eq 0 ]] || mkdir -p "$locks"
while [[ ${#hosts[@]} -gt 0 ]]; do
	busy=()
	for h in "${hosts[@]}"; do
		n=1
		[[ $h != */* ]] || n=${h##*/} h=${h%/*}
		[[ $n =~ ^[1-9][0-9]*$ ]] || die "BOOT_HOSTS: '$h/$n': give HOST or HOST/N, N boots at once"
		if ! slot "$h" "$n"; then
			busy+=("$h/$n")
		elif run_on "$h" "$@"; then
			say "booted on $h"
			exit "$status"
		else
			exec {slot_fd}>&-
			say "$h could not run the boot: an infrastructure failure, not the kernel's; trying the next host"
		fi
	done
	hosts=("${busy[@]}")
	[[ ${#hosts[@]} -eq 0 ]] || sleep 1
done
rm -f "${back[@]/#/$dir/}"
if [[ $nhosts -gt 0 ]]; then
	say "no host of BOOT_HOSTS ran the boot: running it here"
	# As many boots here as check.sh runs without hosts, however many
	# commits it boots at once for them (".here": no host name starts with a dot).
	until slot .here "${LOCAL_SLOTS:-4}"; do sleep 1; done
fi
date +%s.%N >"$dir/started"
exec timeout -k 5 "$limit" "$@" -kernel "$kernel" -initrd "$dir/initrd" -append "$cmdline" \
	-serial "file:$dir/console.log" -serial "file:$dir/results.txt" </dev/null >"$dir/qemu.out" 2>&1
