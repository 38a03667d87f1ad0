#!/usr/bin/env bash
# Check series.txt, commit-msgs/ and patches/ agree before anything is
# replayed: every name once, every file present, every message with a
# subject and no placeholder sign-off (replay adds the user's).  A message
# that starts with "From:" must start with the author as msg_author in
# lib.sh reads it, "From: Name <email>" and a blank line; its subject is
# the line after those two.
. "$(dirname "$0")/lib.sh"
require_series

declare -A seen=()
bad=0
n=0
while IFS= read -r name; do
	n=$((n + 1))
	if [[ -n ${seen[$name]:-} ]]; then
		say "series.txt: '$name' is listed twice (entries ${seen[$name]} and $n)"
		bad=1
	fi
	seen[$name]=$n
	msg=$SERIES_DIR/commit-msgs/$name
	if [[ ! -f $SERIES_DIR/patches/$name.diff ]]; then
		say "series.txt: '$name': patches/$name.diff is missing"
		bad=1
	fi
	if [[ ! -f $msg ]]; then
		say "series.txt: '$name': commit-msgs/$name is missing"
		bad=1
		continue
	fi
	# msg_author prints the author, or dies on a malformed header: its
	# message is then the complaint.
	if ! author=$(msg_author "$msg" 2>&1); then
		say "${author#"$PROG: error: "}"
		bad=1
	elif [[ -n $author ]]; then
		if ! [[ $(sed -n 3p "$msg") =~ [^[:space:]] ]]; then
			say "commit-msgs/$name: the subject, the line after 'From: $author' and a blank line, is empty or missing"
			bad=1
		fi
	elif ! head -n1 "$msg" | grep -q '[^[:space:]]'; then
		say "commit-msgs/$name: first line (the subject) is empty"
		bad=1
	fi
	if grep -qi '^Signed-off-by: .*'"$PLACEHOLDER_EMAIL" "$msg"; then
		say "commit-msgs/$name: signed off by the placeholder identity; replay signs off with yours"
		bad=1
	fi
done < <(series_names)
[[ $bad -eq 0 ]] || die "the series files are inconsistent (see above)"
