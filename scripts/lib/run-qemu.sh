#!/usr/bin/env bash
# Run one boot's QEMU, within LIMIT seconds: here, or with BOOT_HOSTS
# (ssh destinations with QEMU installed, each DEST or DEST/N for N boots
# at once, default 1; DEST is what ssh takes: HOST, USER@HOST or
# ssh://USER@HOST:PORT) on a free slot of the first host that has one.
# There the kernel and initramfs travel, and the serial files and QEMU's
# output come back into DIR as a boot here leaves them, all through ssh
# itself (no scp, so the host needs no sftp server).  The exit status
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
# shellcheck disable=SC2029 # the remote paths are quoted here, by printf %q
run_on() {
	local h=$1 r rq cmd f rc ok=0
	shift
	rm -f "${back[@]/#/$dir/}"
	r=$(ssh -n "${ssh_opts[@]}" "$h" 'mktemp -d /tmp/pagealloc-boot.XXXXXX') || return 1
	rq=$(printf '%q' "$r")
	# The remote shell reads the command as one string: every word quoted.
	cmd="cd $rq && timeout -k 5 $(printf '%q' "$limit") $(printf '%q ' "$@")"
	cmd+="-kernel bzImage -initrd initrd -append $(printf '%q' "$cmdline")"
	cmd+=" -serial file:console.log -serial file:results.txt </dev/null >qemu.out 2>&1; echo \$? >status"
	if ssh "${ssh_opts[@]}" "$h" "cat >$rq/bzImage" <"$kernel" && ssh "${ssh_opts[@]}" "$h" "cat >$rq/initrd" <"$dir/initrd" &&
		date +%s.%N >"$dir/started" && ssh -n "${ssh_opts[@]}" "$h" "$cmd"; then
		ok=1
		# Status 7: the file is not there, which only results.txt may be
		# (a guest that died before writing any); any other failure is
		# the transfer's, the host's fault.
		for f in "${back[@]}"; do
			rc=0
			ssh -n "${ssh_opts[@]}" "$h" "test -e $rq/$f || exit 7; cat $rq/$f" >"$dir/$f" || rc=$?
			[[ $rc == 0 ]] && continue
			rm -f "$dir/$f"
			[[ $rc == 7 && $f == results.txt ]] || ok=0
		done
	fi
	ssh -n "${ssh_opts[@]}" "$h" "rm -rf $rq" 2>/dev/null || true
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
		# A last "/N" is the slots; ssh://HOST:PORT has a slash of its own.
		n=1 e=$h
		[[ ! $h =~ ^(.+)/([0-9]+)$ ]] || h=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
		[[ $n =~ ^[1-9][0-9]*$ && ${h#ssh://} != */* ]] || die "BOOT_HOSTS: '$e': give DEST or DEST/N, N boots at once"
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
