#!/usr/bin/env bash
# make mail: the mails b4 writes apply to the pristine base and give the
# series tip, pass checkpatch, carry the measured figures and the
# maintainers of mm/page_alloc.c.
# shellcheck disable=SC2016,SC2034,SC2119 # bodies are strings run by eval, as in git's test-lib
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/kernel.sh"

small_bench
ok "a small measurement of every commit, for the cover letter" "test $? -eq 0"
ok "make mail writes the series" '"$T_TOP/scripts/mail.sh" 1'
out=$WORK/mail/v1
export out
mapfile -t mails < <(find "$out" -name '*.eml' | sort)
cover=${mails[0]}
export cover

ok "the mails apply with git am onto the base and give the tree of the series tip" '
	git clone -q -s "$KTREE" tree && cd tree && git checkout -q --detach "$(git -C "$KTREE" rev-parse "$(base_tag)")" &&
	for m in "${mails[@]:1}"; do git -c user.name=t -c user.email=t@t am -q "$m" || exit 1; done &&
	test "$(git rev-parse HEAD^{tree})" = "$(git -C "$KTREE" rev-parse "$BRANCH^{tree}")"
'

# The imported tree is a tarball without mainline history, where
# checkpatch cannot look up the upstream commits a changelog cites
# (UNKNOWN_COMMIT_ID); in a kernel tree with history it can, and the
# form "commit <12 hex> (\"subject\")" is still checked here.
# checkpatch asks of every patch that adds a file whether MAINTAINERS
# needs updating (FILE_PATH_CHANGES), whether or not an entry's pattern
# covers the file already: the test below answers it for each file.
ok "every patch passes checkpatch --strict" '
	for m in "${mails[@]:1}"; do
		(cd "$KTREE" && perl scripts/checkpatch.pl --strict -q --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$m") ||
			{ echo "in $m"; exit 1; }
	done
'

# (THE REST, Linus alone, is what get_maintainer.pl falls back to.)
ok "every file the series adds has a maintainer in MAINTAINERS" '
	base=$(git -C "$KTREE" rev-parse "$(base_tag)^{commit}") &&
	git -C "$KTREE" diff --name-only --diff-filter=A "$base" "$BRANCH" >added && cat added &&
	while IFS= read -r f; do
		(cd "$KTREE" && git diff "$base" "$BRANCH" -- "$f" |
			perl scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats --nol) >who 2>&1 &&
			cat who && grep -v "torvalds@" who | grep -q "@" ||
			{ echo "no maintainer for $f but THE REST"; exit 1; }
	done <added
'

ok "the cover letter carries the table make bench measured" '
	mapfile -t inputs < <(jq -r ".inputs[]" "$RESULTS/bench-latest.json") &&
	compare.sh --show "$HEADLINE" "${inputs[@]}" >table && grep -q "^alloc-o0-pair-z0 " table &&
	while IFS= read -r line; do grep -qF -- "$line" "$cover" || { echo "missing: $line"; exit 1; }; done <table
'

# Text growth as maintainers read it: bloat-o-meter's report (from
# "add/remove:" to "Total:") for each object build.sh kept of the
# series' C files at the tip, page_alloc.o and mempolicy.o among them.
tipobj=$(result_dir "$BRANCH")/objects
export tipobj
ok "the cover letter carries bloat-o-meter's report for each object the series changes" '
	(cd "$tipobj" && find . -name "*.o" | sed "s|^\./|  |; s|\$|:|" | sort) >want &&
	grep -E "^  [-a-z0-9_/]+\.o:$" "$cover" | sort >got &&
	grep -qx "  mm/page_alloc.o:" got && grep -qx "  mm/mempolicy.o:" got && diff want got &&
	test "$(grep -c "^  add/remove: " "$cover")" -eq "$(wc -l <got)" &&
	test "$(grep -c "^  Total: Before=" "$cover")" -eq "$(wc -l <got)"
'

# The mail headers of one file, continuation lines unfolded.
headers() { sed -n "1,/^\$/p" "$1" | sed -e ":a" -e "N" -e "\$!ba" -e "s/\n[ \t]\+/ /g" | grep -E "^(To|Cc):"; }
export -f headers

ok "every mail goes to the mm maintainer and linux-mm, and to nobody a keyword matched" '
	for m in "${mails[@]}"; do
		headers "$m" >h && grep -q "^To:.*akpm@linux-foundation.org" h && grep -q "^Cc:.*linux-mm@kvack.org" h || { echo "in $m:"; cat h; exit 1; }
		! grep -qiE "llvm|netdev|clang" h || { echo "keyword noise in $m:"; cat h; exit 1; }
	done
'

# b4 sends the cover letter to everyone who receives a patch, BPF included.
ok "only the patch that touches the BPF verifier goes to BPF, with its maintainers in Cc" '
	n=0 &&
	for m in "${mails[@]:1}"; do
		if grep -q "^diff --git a/kernel/bpf/verifier.c" "$m"; then
			n=$((n + 1)) && headers "$m" | grep -q "bpf@vger.kernel.org" && grep -q "^Cc: .*<ast@kernel.org>" "$m" || { cat "$m"; exit 1; }
		else
			! headers "$m" | grep -q "bpf@vger.kernel.org" || { echo "bpf on $m"; exit 1; }
		fi
	done && test $n -eq 1
'

ok "the cover letter has no template leftovers, names its base and cites the 2009 RFC" '
	! grep -nE "@[A-Z]+@|2026 edition" "$cover" &&
	grep -q "linux-source-6.1 $(base_tag | sed "s|^base/||")" "$cover" &&
	grep -q "<1235344649-18265-1-git-send-email-mel@csn.ul.ie>" "$cover" &&
	if b=$(sed -n "s/^base-commit: //p" "$cover") && [[ -n $b ]]; then git -C "$KTREE" cat-file -e "$b^{commit}"; fi
'

ok "a reroll carries a range-diff against the previous version" '
	"$T_TOP/scripts/mail.sh" 2 >/dev/null 2>&1 && c2=$(find "$WORK/mail/v2" -name "*.eml" | sort | head -n1) &&
	grep -q "Changes since v1" "$c2" && grep -q "PATCH v2" "$c2"
'
done_testing
