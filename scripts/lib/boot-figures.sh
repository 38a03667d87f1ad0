#!/usr/bin/env bash
# Turn the figure lines of one boot's results.txt into DIR/figures.json:
#   {"figures": {NAME: value, ...}, "units": {NAME: unit, ...}}
# Microbenchmark lines (their per-call median) become NAME = <alloc|free>-o<order>-<pair|batchN>-z<0|1>;
# plain "figure NAME VALUE UNIT" lines (hackbench, tbench, pagefault) keep
# their name; a profiled boot adds the prof-* figures of profile-figures.sh.
# usage: boot-figures.sh DIR
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: boot-figures.sh DIR}
[[ -f $dir/results.txt ]] || die "$dir/results.txt: no such file"
awk '
	function kv(s,   n, i, a, p) {
		delete f
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) {
			p = index(a[i], "=")
			if (p) f[substr(a[i], 1, p - 1)] = substr(a[i], p + 1)
		}
	}
	/^bench figure=(alloc|free) / {
		kv($0)
		shape = f["pattern"] == "pair" ? "pair" : "batch" f["n"]
		print f["figure"] "-o" f["order"] "-" shape "-z" f["zero"], f["med"], f["unit"]
		next
	}
	/^figure [^ ]+ [-0-9.]+ / { print $2, $3, $4 }
' "$dir/results.txt" |
	jq -R -n '[inputs | split(" ")] |
		{figures: (map({key: .[0], value: (.[1] | tonumber)}) | from_entries),
		 units: (map({key: .[0], value: .[2]}) | from_entries)}' >"$dir/figures.json.tmp"
if [[ -f $dir/profile.txt ]]; then
	prof=$("$TOP/scripts/lib/profile-figures.sh" "$dir")
	jq -s '.[0] + {figures: (.[0].figures + .[1].figures),
		units: (.[0].units + (.[1].figures | with_entries(.value = (if (.key | test("-share$")) then "%" else "insns" end))))}' \
		"$dir/figures.json.tmp" "$prof" >"$dir/figures.json"
	rm -f "$dir/figures.json.tmp"
else
	mv "$dir/figures.json.tmp" "$dir/figures.json"
fi
jq '.figures | length' "$dir/figures.json"
