#!/usr/bin/env bash
# Fill a cover-letter template: a line that is exactly @NAME@ of a --file
# becomes that file's lines, and every @NAME@ of a --text in a line becomes
# that text.  Substitution is literal and in one pass: no value is read as
# a pattern, a program or another placeholder, whatever characters it
# holds.  Placeholders given no value are left as they are.  The filled
# letter goes to stdout.
# usage: fill-cover.sh [--file NAME=PATH]... [--text NAME=VALUE]... TEMPLATE
#   e.g. fill-cover.sh --file TABLE=table.txt --text DEBVER=6.1.192-3 cover-letter.txt
. "$(dirname "$0")/lib.sh"

usage="usage: fill-cover.sh [--file NAME=PATH]... [--text NAME=VALUE]... TEMPLATE"
declare -A files=() texts=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--file | --text)
		[[ $# -ge 2 ]] || die "$1 needs NAME=VALUE; $usage"
		[[ $2 == *=* ]] || die "$1 '$2': not NAME=VALUE"
		name=${2%%=*} value=${2#*=}
		[[ $name =~ ^[A-Z][A-Z0-9_]*$ ]] || die "$1 '$2': a placeholder name is upper-case letters, digits and _"
		if [[ $1 == --file ]]; then
			[[ -f $value ]] || die "--file $name=$value: no such file"
			files[$name]=$value
		else
			texts[$name]=$value
		fi
		shift 2 ;;
	--) shift; break ;;
	-*) die "$1: unknown option; $usage" ;;
	*) break ;;
	esac
done
[[ $# -eq 1 ]] || die "$usage"
template=$1
[[ -f $template ]] || die "$template: no such file"

# One pass over a line: text before each @, then either a known @NAME@
# (replaced by its value, never looked at again) or the @ itself.
fill_line() {
	local rest=$1 out='' name
	while [[ $rest == *@* ]]; do
		out+=${rest%%@*}
		rest=${rest#*@}
		name=${rest%%@*}
		if [[ $rest == *@* && $name =~ ^[A-Z][A-Z0-9_]*$ && -n ${texts[$name]+set} ]]; then
			out+=${texts[$name]}
			rest=${rest#*@}
		else
			out+=@
		fi
	done
	printf '%s\n' "$out$rest"
}

while IFS= read -r line || [[ -n $line ]]; do
	if [[ $line =~ ^@([A-Z][A-Z0-9_]*)@$ && -n ${files[${BASH_REMATCH[1]}]+set} ]]; then
		cat -- "${files[${BASH_REMATCH[1]}]}"
	else
		fill_line "$line"
	fi
done <"$template"
