#!/usr/bin/env bash
# Where the instructions of one single-stepped call come from in the
# source: make step's trace of FUNCTION on REV's bench kernel
# (steps-FUNCTION.txt), each instruction attributed to the function the
# source has it in, inlined ones under their own name, with --lines to
# its file and line too.  The bench kernel has no debug info (Debian's
# config), so the objects the series changes (mm/page_alloc.o,
# mm/mempolicy.o) are compiled again from REV's source with the kernel's
# own command plus -g, which changes no instruction; every traced offset
# must fall on an instruction of the new object, or the script stops.
# Instructions of other objects count under their symbol.
# usage: step-lines.sh [--lines] REV [FUNCTION]   (FUNCTION: alloc_pages, the default, or __free_pages)
DEFAULT_KFLAVOR=bench
. "$(dirname "$0")/lib/lib.sh"
# join needs both sides sorted the same way.
export LC_ALL=C

lines=0
[[ ${1:-} != --lines ]] || { lines=1; shift; }
rev=${1:?usage: step-lines.sh [--lines] REV [FUNCTION]}
fn=${2:-alloc_pages}
objs=(mm/page_alloc mm/mempolicy)

commit=$(kgit rev-parse --verify -q "$rev^{commit}") || die "$rev: no such commit in $KTREE"
dir=$(result_dir "$commit")
# STEP_LINES_TRACE: another trace of the same kernel (the tests use it).
trace=${STEP_LINES_TRACE:-$dir/steps-$fn.txt}
if [[ ! -f $trace ]]; then
	"$TOP/scripts/step.sh" "$commit" >/dev/null || die "$(short "$commit"): make step failed"
	[[ -f $trace ]] || die "$(short "$commit"): make step records no $fn (steps-*.txt in $dir)"
fi
# The build directory the kernel was built in, as its log names it.
build=$(sed -n "s/^make\[[0-9]*\]: Entering directory '\(.*\)'$/\1/p" "$dir/build.log" | grep -vxF "$KTREE" | head -n1)
[[ -d $build ]] || die "$(short "$commit"): no build directory in $dir/build.log"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The objects compiled again belong to the kernel's build: kept beside it
# until it is rebuilt.
objdir=$dir/lines
key=$(cat "$dir/build.key" "$0" | sha1sum | cut -c1-16)
if [[ ! -f $objdir/key || $(cat "$objdir/key") != "$key" ]]; then
	# REV's version of every file that differs from what the tree has
	# checked out, in a directory searched first: the tree is not touched.
	mkdir -p "$tmp/src" "$tmp/obj"
	while read -r f; do
		mkdir -p "$tmp/src/$(dirname "$f")"
		kgit show "$commit:$f" >"$tmp/src/$f" 2>/dev/null || rm -f "$tmp/src/$f"
	done < <(kgit diff --name-only HEAD "$commit")
	take_build_lock
	for o in "${objs[@]}"; do
		cmdfile=$build/$(dirname "$o")/.$(basename "$o").o.cmd
		[[ -f $cmdfile ]] || die "no $cmdfile: build $(short "$commit") first"
		src=$KTREE/$o.c
		[[ ! -f $tmp/src/$o.c ]] || src=$tmp/src/$o.c
		# The compile command, without its dependency file and objtool
		# run, writing elsewhere, with -g (file names relative to the
		# tree, which addr2line prefixes with the build directory) and
		# the overlay first on the include path.
		cmd=$(sed -n "s/^cmd_$(sed 's/[/.]/\\&/g' <<<"$o").o := //p" "$cmdfile" | sed 's/ ; .*//; s/-Wp,-MMD,[^ ]* //')
		[[ -n $cmd ]] || die "$cmdfile: no compile command"
		# The command is kbuild's shell text, run by eval as kbuild runs
		# it; the paths put into it are quoted for the shell, and the text
		# they replace is matched literally.
		qtmp=$(printf %q "$tmp") qtree=$(printf %q "$KTREE") qsrc=$(printf %q "$src")
		cmd=${cmd/" -c -o $o.o $KTREE/$o.c"/" -g -fdebug-prefix-map=$qtmp/src/= -fdebug-prefix-map=$qtree/= -c -o $qtmp/obj/$(basename "$o").o $qsrc"}
		cmd=${cmd/" -nostdinc "/" -nostdinc -I$qtmp/src/include "}
		[[ $cmd == *" -o $qtmp/obj/"* ]] || die "$cmdfile: the command does not compile $o.c as expected"
		(cd "$build" && eval "$cmd") >"$tmp/cc.log" 2>&1 ||
			die "$o.c of $(short "$commit") does not compile: $(head -n3 "$tmp/cc.log")"
	done
	rm -rf "$objdir"
	mv "$tmp/obj" "$objdir"
	echo "$key" >"$objdir/key"
fi

# The traced instructions, "function offset", in order.
sed -n 's/^\([A-Za-z0-9_.]*\)+0x\([0-9a-f]*\): .*/\1 \2/p' "$trace" >"$tmp/insns"
[[ -s $tmp/insns ]] || die "$trace: no instructions"
# "function offset" -> "function-in-the-source file:line", for the
# instructions of the objects compiled again.
: >"$tmp/where"
for o in "${objs[@]}"; do
	obj=$objdir/$(basename "$o").o
	# Section and start of every function of the object.
	declare -A sec=() start=()
	while read -r f s a; do
		sec[$f]=$s start[$f]=$a
	done < <(objdump -t "$obj" | awk '$3 == "F" { print $NF, $4, $1 }')
	# "section address function offset" of each traced instruction of it.
	while read -r f off; do
		[[ -z ${sec[$f]:-} ]] || printf '%s %x %s %s\n' "${sec[$f]}" $((16#${start[$f]} + 16#$off)) "$f" "$off"
	done <"$tmp/insns" | sort -u >"$tmp/mine"
	while read -r section; do
		awk -v s="$section" '$1 == s { print $2, $3 "+0x" $4 }' "$tmp/mine" | sort -u >"$tmp/want"
		# Every traced offset must start an instruction of the new object.
		objdump -d -j "$section" --no-show-raw-insn "$obj" |
			sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/\1/p' | sort -u >"$tmp/starts"
		bad=$(join -v1 "$tmp/want" "$tmp/starts" | head -n1)
		[[ -z $bad ]] || die "$(basename "$obj") compiled again does not match the traced kernel at ${bad#* }"
		# addr2line -a -f -i: the address, then a function and a line for
		# every level of inlining, innermost first.
		cut -d' ' -f1 "$tmp/want" | addr2line -e "$obj" -j "$section" -a -f -i 2>"$tmp/a2l.err" |
			PA_DIR=$build/ awk '/^0x[0-9a-f]+$/ { a = $0; sub(/^0x0*/, "", a); if (a == "") a = "0"; level = 0; next }
				level == 0 { f = $1; level = 1; next }
				level == 1 { l = $1; dir = ENVIRON["PA_DIR"]; if (index(l, dir) == 1) l = substr(l, length(dir) + 1); print a, f, l; level = 2 }' |
			join - "$tmp/want" | awk '{ print $4, $2, $3 }' >>"$tmp/where" ||
			die "addr2line failed on $(basename "$obj"): $(head -n1 "$tmp/a2l.err")"
	done < <(cut -d' ' -f1 "$tmp/mine" | sort -u)
done

# Count every traced instruction, repeats included.
total=$(wc -l <"$tmp/insns")
echo "$fn at $(short "$commit"): $total instructions, by the function the source has them in"
awk 'NR == FNR { where[$1] = $2 " " $3; next }
	{ k = $1 "+0x" $2; w = (k in where) ? where[k] : $1 " -"; split(w, p, " ")
	  byfn[p[1]]++; byline[p[1] " " p[2]]++ }
	END { for (f in byfn) printf "F %5d  %s\n", byfn[f], f
	      for (l in byline) printf "L %5d  %s\n", byline[l], l }' "$tmp/where" "$tmp/insns" >"$tmp/counts"
grep '^F' "$tmp/counts" | cut -c3- | sort -k1,1nr -k2
if [[ $lines == 1 ]]; then
	echo
	echo "by line:"
	grep '^L' "$tmp/counts" | cut -c3- | sort -k1,1nr -k2
fi
