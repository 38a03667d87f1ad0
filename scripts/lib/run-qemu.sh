#!/usr/bin/env bash
# Run one boot's QEMU, within LIMIT seconds: here, or with BOOT_HOSTS
# (ssh destinations with QEMU installed) on the first of them that takes
# it, a host that no other boot holds first.  There the kernel and initramfs travel, and the serial files and
# QEMU's output come back into DIR as a boot here leaves them.  The exit
# status is that of QEMU (or of timeout, at the limit).  A host that
# cannot be reached, or that goes away during the boot, says nothing
# about the kernel: the next host gets the boot, and this machine after
# all of them.  BOOT_SSH_CONFIG, an ssh config file, replaces the user's.
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
		ssh -n "${ssh_opts[@]}" "$h" "$cmd"; then
		ok=1
		for f in "${back[@]}"; do
			scp -q "${ssh_opts[@]}" "$h:$r/$f" "$dir/$f" 2>/dev/null || [[ $f == results.txt ]] || ok=0
		done
	fi
	ssh -n "${ssh_opts[@]}" "$h" "rm -rf $(printf '%q' "$r")" 2>/dev/null || true
	[[ $ok == 1 && -f $dir/status ]] || return 1
	status=$(cat "$dir/status")
	rm -f "$dir/status"
	[[ $status =~ ^[0-9]+$ ]]
}

# try HOST QEMU-COMMAND...: the boot on HOST while holding HOST's lock
# under $WORK, so that the boots make check runs beside each other go to
# hosts of their own.  Returns 2 when another boot holds the host, 1
# when the host could not run the boot.
try() {
	local h=$1 fd
	shift
	exec {fd}>>"$locks/${h////_}"
	flock -n "$fd" || { exec {fd}>&-; return 2; }
	if run_on "$h" "$@"; then
		say "booted on $h"
		exit "$status"
	fi
	exec {fd}>&-
	say "$h could not run the boot: an infrastructure failure, not the kernel's; trying the next host"
	return 1
}

# The hosts in order, each taken if no other boot holds it; while all
# that are left are busy, the first to come free; then this machine.
locks=$WORK/boot-hosts
[[ ${#hosts[@]} -eq 0 ]] || mkdir -p "$locks"
while [[ ${#hosts[@]} -gt 0 ]]; do
	busy=()
	for h in "${hosts[@]}"; do
		rc=0
		try "$h" "$@" || rc=$?
		[[ $rc != 2 ]] || busy+=("$h")
	done
	hosts=("${busy[@]}")
	[[ ${#hosts[@]} -eq 0 ]] || sleep 1
done
[[ $nhosts -eq 0 ]] || say "no host of BOOT_HOSTS ran the boot: running it here"
rm -f "${back[@]/#/$dir/}"
exec timeout -k 5 "$limit" "$@" -kernel "$kernel" -initrd "$dir/initrd" -append "$cmdline" \
	-serial "file:$dir/console.log" -serial "file:$dir/results.txt" </dev/null >"$dir/qemu.out" 2>&1
