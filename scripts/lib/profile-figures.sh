#!/usr/bin/env bash
# Turn one profiled boot (boot.sh --profile) into figures: for each
# workload window, the guest kernel's instructions per operation, the page
# allocator's share of them, and the allocator's instructions per
# operation by bucket (qemu/profile/buckets.tsv).  Writes DIR/profile.json:
#   {"workloads": {NAME: {"ops": N, "unit": U, "pages": P, "kernel": I, "user": I,
#                         "buckets": {BUCKET: I, ...}}},
#    "figures": {"prof-NAME-allocator": I/op (all buckets but zeroing
#                and lockwait),
#                "prof-NAME-BUCKET": I/op, "prof-NAME-kernel": I/op,
#                "prof-NAME-allocator-share": % of the kernel's,
#                "prof-NAME-allocator-page": I per page allocated}}
# Per page allocated (the guest's pgalloc counters over the window, the
# PA-PAGES line): how many pages an operation allocates moves with how
# the workload's tasks interleave (hackbench's pipe buffers), what each
# one costs the allocator does not.
# Zeroing stays out of the allocator's total: under icount each byte of
# clear_page()'s rep stosb counts as an instruction (4100 a page), and
# how many pages a workload zeroes moves with how its tasks fork and
# interleave, which would bury the allocator's own cost in that noise.
# Lock waiting (lockwait) is any lock's, not the allocator's own work.
# and prints its path.
# usage: profile-figures.sh BOOT-DIR
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: profile-figures.sh BOOT-DIR}
prof=$dir/profile.txt
[[ -s $prof ]] || die "$dir has no profile.txt: was it booted with --profile?"
buckets=${PROFILE_BUCKETS:-$TOP/qemu/profile/buckets.tsv}

# One line per window: NAME OPS UNIT PAGES KERNEL USER BUCKET=I...
rows=$(awk -F'\t' -v OFS='\t' '
	FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF == 2) bucket[$1] = $2; next }
	FILENAME == ARGV[2] {
		if ($0 ~ /^PA-WINDOW /) { split($0, w, " "); name[nw++] = w[2] }
		if ($0 ~ /^PA-OPS /) { split($0, o, " "); ops[o[2]] = o[3]; unit[o[2]] = o[4] }
		if ($0 ~ /^PA-PAGES /) { split($0, o, " "); pages[o[2]] = o[3] }
		next
	}
	{ split($0, f, " ") }
	f[1] == "window" { cur = f[2]; k = 0; u = 0; delete b; next }
	f[1] == "end" {
		n = name[cur]
		line = n OFS ops[n] + 0 OFS unit[n] OFS pages[n] + 0 OFS k OFS u
		for (x in b) line = line OFS x "=" b[x]
		print line
		next
	}
	f[2] == "[user]" { u += f[1]; next }
	{ k += f[1]; if (f[2] in bucket) b[bucket[f[2]]] += f[1] }
' "$buckets" "$dir/results.txt" "$prof")
[[ -n $rows ]] || die "$prof has no closed window"

while IFS=$'\t' read -r name ops unit pages kernel user rest; do
	[[ -n $name ]] || die "$dir: a profile window without a name (no PA-WINDOW line for it)"
	# A window that counts no operations (pa_bench's) has no per-op figures.
	[[ $ops -gt 0 ]] || continue
	jq -n --arg name "$name" --argjson ops "$ops" --arg unit "$unit" --argjson pages "$pages" \
		--argjson kernel "$kernel" --argjson user "$user" --arg b "$rest" '
		($b | split("\t") | map(select(length > 0) | split("=") | {(.[0]): (.[1] | tonumber)}) | add // {}) as $bk |
		{($name): {ops: $ops, unit: $unit, pages: $pages, kernel: $kernel, user: $user, buckets: $bk}}'
done <<<"$rows" | jq -s '
	# A tenth of an instruction, and three decimals below 10: lock waiting
	# in the contend workload is a few instructions per thousand pages.
	def r: if fabs < 10 then . * 1000 | round / 1000 else . * 10 | round / 10 end;
	(add // {}) as $w |
	{workloads: $w,
	 figures: ([$w | to_entries[] | .key as $n | .value as $v |
		($v.buckets | del(.zeroing, .lockwait) | add // 0) as $alloc |
		{("prof-\($n)-allocator"): ($alloc / $v.ops | r),
		 ("prof-\($n)-kernel"): ($v.kernel / $v.ops | r),
		 ("prof-\($n)-allocator-share"): ($alloc / $v.kernel * 100 | r)} +
		(if $v.pages > 0 then {("prof-\($n)-allocator-page"): ($alloc / $v.pages | r)} else {} end) +
		($v.buckets | with_entries({key: "prof-\($n)-\(.key)", value: (.value / $v.ops | r)}))
	 ] | add // {})}' >"$dir/profile.json.tmp"
mv "$dir/profile.json.tmp" "$dir/profile.json"
echo "$dir/profile.json"
