#!/usr/bin/env bash
# Turn Debian's linux-source tarball into a git tree under $WORK with one
# base commit holding every file, tagged base/<debian version>.
# The version is SOURCE_VERSION, or the installed package's version when
# TARBALL is that package's own file: another tarball needs SOURCE_VERSION,
# since a tarball does not carry its Debian revision.  Both are checked
# before anything is unpacked.
. "$(dirname "$0")/lib/lib.sh"

if [[ -n ${SOURCE_VERSION:-} ]]; then
	version=$SOURCE_VERSION what="SOURCE_VERSION=$SOURCE_VERSION"
else
	version=$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null || true)
	[[ -n $version ]] || die "package $SOURCE_PKG is not installed; run 'make deps' (or give TARBALL and SOURCE_VERSION)"
	what="$SOURCE_PKG's version $version"
	if [[ -f $TARBALL ]] && ! dpkg-query -L "$SOURCE_PKG" 2>/dev/null | grep -qxF -- "$(realpath -- "$TARBALL")"; then
		die "TARBALL=$TARBALL is not the file of the installed $SOURCE_PKG ($version): give its Debian version too, SOURCE_VERSION=<version>"
	fi
fi
[[ $version =~ ^([0-9]+:)?[0-9][A-Za-z0-9.+~-]*$ ]] ||
	die "$what: not a Debian version (digits first, then letters, digits and . + ~ -, e.g. 6.1.192-3)"
[[ -f $TARBALL ]] || die "$TARBALL: missing (is $SOURCE_PKG installed?)"
tag=base/$version
# git refuses '~' and ':' in tag names (Debian versions may carry both).
tag=${tag//\~/_}
tag=${tag//:/_}
git check-ref-format "refs/tags/$tag" || die "$what: $tag is not a tag name git accepts (no '..', no '.lock' or '.' at the end)"

# An import writes its tag last, after a complete, verified checkout; until
# then $KTREE/.git/pagealloc-import says one is under way, and a rerun
# does it again.  A tag on a tree whose HEAD was never checked out (what
# an import cut short left behind before the tag came last) is redone too.
marker=$KTREE/.git/pagealloc-import
# A worktree of the tree (a second kernel line's, git worktree add) has
# a file .git naming its own git directory: the marker goes there.
[[ ! -f $KTREE/.git ]] || marker=$(kgit rev-parse --absolute-git-dir)/pagealloc-import
half_done() { [[ -e $marker ]] || ! kgit rev-parse -q --verify HEAD >/dev/null; }
imported() { [[ -e $KTREE/.git ]] && kgit rev-parse -q --verify "refs/tags/$tag" >/dev/null && ! half_done; }
imported && { say "base $tag already imported in $KTREE"; exit 0; }
# Two imports at once would both tag and check out: the second waits, and
# finds the first one's work.
take_build_lock
imported && { say "base $tag imported in $KTREE meanwhile"; exit 0; }

# The tree is made here, never over someone's files: a directory that is
# there already must be empty or a tree an import made.
if [[ -e $KTREE && ! -e $KTREE/.git ]]; then
	[[ -d $KTREE ]] || die "$KTREE is there and is not a directory; move it away (or set KTREE or WORK elsewhere)"
	[[ -z $(ls -A "$KTREE") ]] ||
		die "$KTREE holds files and is not a git tree made by 'make import'; nothing was changed: move it away (or set KTREE or WORK elsewhere), then import again"
fi
if [[ -e $KTREE/.git ]] && ! half_done && [[ -n $(kgit status --porcelain --untracked-files=no) ]]; then
	die "$KTREE has uncommitted changes, which the checkout of $tag would throw away; commit them (and 'make export') or 'git -C $KTREE stash', then import again"
fi
[[ ! -e $KTREE/.git ]] || ! half_done || say "$KTREE holds an import that did not finish; doing it again"

mkdir -p "$KTREE"
# A second kernel line's tree beside the main one ($WORK/linux-6.12 beside
# $WORK/linux) is made a worktree of it: one object store, one set of base
# tags.  The marker goes in first, so that an import cut short from here
# on is redone.
if [[ ! -e $KTREE/.git && $KTREE != "$KTREE_MAIN" && -d $KTREE_MAIN/.git ]] &&
	git -C "$KTREE_MAIN" rev-parse -q --verify HEAD >/dev/null; then
	say "making $KTREE a worktree of $KTREE_MAIN"
	git -C "$KTREE_MAIN" worktree add -q --no-checkout --detach "$KTREE" HEAD
	marker=$(kgit rev-parse --absolute-git-dir)/pagealloc-import
	echo "$tag" >"$marker"
fi
[[ -e $KTREE/.git ]] || git init -q -b main "$KTREE"
kgit config core.autocrlf false
kgit config gc.auto 0
kgit config advice.detachedHead false

# Unpack into a scratch directory first so an interrupted import leaves
# nothing half-done in the tree.
stage=$KTREE.import.$$
tmpidx=$stage.index
trap 'rm -rf "$stage" "$tmpidx"' EXIT
mkdir -p "$stage"
# Where the disk fills up, tar and git print an error a file: the count and
# the last few lines say it as well.
# usage: CMD 2>&1 | errors_tail   (prints the count of lines, then the last 5)
errors_tail() { awk '{ n++; l[n] = $0; delete l[n - 5] } END { print n + 0; for (i = (n > 5 ? n - 4 : 1); i <= n; i++) print l[i] }'; }
# usage: fail_summary WHAT OUTPUT-OF-errors_tail   (dies)
fail_summary() {
	local n=${2%%$'\n'*}
	[[ $2 != *$'\n'* ]] || printf '%s\n' "${2#*$'\n'}" | sed 's/^/    /' >&2
	die "$1 failed ($n lines of errors, the last above; $(df -Ph "$WORK" | awk 'NR == 2 { print $4 }') free on the file system of $WORK); nothing was tagged: free some space if it is full, then run 'make import' again"
}
say "unpacking $TARBALL ($version)"
if ! out=$(tar -xf "$TARBALL" -C "$stage" --strip-components=1 2>&1 | errors_tail); then
	fail_summary "unpacking $TARBALL" "$out"
fi
[[ $out != *$'\n'* ]] || printf '%s\n' "${out#*$'\n'}" >&2
# Debian's tarball holds one directory, linux-source-6.1/, the kernel in it.
[[ -f $stage/Makefile ]] ||
	die "$TARBALL has no Makefile at the top of its tree, once its first directory is stripped ($(find "$stage" -type f | wc -l) files left): not a linux-source tarball with one top-level directory; nothing imported"

say "committing every file of the tarball"
# The tarball's .gitignore files would hide most of the tree from 'git add';
# a throwaway index with --force sees every file.
GIT_INDEX_FILE=$tmpidx GIT_WORK_TREE=$stage git -C "$KTREE" add -A --force .
tree=$(GIT_INDEX_FILE=$tmpidx git -C "$KTREE" write-tree)
rm -f "$tmpidx"
nfiles=$(kgit ls-tree -r "$tree" | wc -l)
want=$(find "$stage" -type f -o -type l | wc -l)
[[ $nfiles -eq $want ]] || die "imported $nfiles files but the tarball has $want"
commit=$(printf 'Import %s %s\n\nUnpacked from %s.\n' "$SOURCE_PKG" "$version" "$TARBALL" |
	kgit commit-tree "$tree")
rm -rf "$stage"
say "checking out $(short "$commit")"
echo "$tag" >"$marker"
if ! out=$(kgit checkout -q -f --detach "$commit" 2>&1 | errors_tail); then
	fail_summary "checking out the import into $KTREE" "$out"
fi
# Every file of the commit, as committed, before the tag says it is done.
kgit update-index -q --refresh >/dev/null 2>&1 || true
if ! { [[ $(kgit rev-parse HEAD) == "$commit" ]] && kgit diff-files --quiet && [[ $(kgit ls-files | wc -l) -eq $nfiles ]]; }; then
	die "the checkout of the import in $KTREE is not complete (git -C $KTREE status shows what differs); nothing was tagged: run 'make import' again"
fi
kgit tag -f "$tag" "$commit" >/dev/null
rm -f "$marker"
say "imported $nfiles files as $tag ($(short "$commit"))"
