#!/usr/bin/env bash
# Turn Debian's linux-source tarball into a git tree under $WORK with one
# base commit holding every file, tagged base/<debian version>.
# The version is SOURCE_VERSION, or the installed package's version when
# TARBALL is that package's own file: another tarball needs SOURCE_VERSION,
# since a tarball does not carry its Debian revision.  Both are checked
# before anything is unpacked.
. "$(dirname "$0")/lib.sh"

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

imported() { [[ -d $KTREE/.git ]] && kgit rev-parse -q --verify "refs/tags/$tag" >/dev/null; }
imported && { say "base $tag already imported in $KTREE"; exit 0; }
# Two imports at once would both tag and check out: the second waits, and
# finds the first one's work.
take_build_lock
imported && { say "base $tag imported in $KTREE meanwhile"; exit 0; }

mkdir -p "$KTREE"
[[ -d $KTREE/.git ]] || git init -q -b main "$KTREE"
kgit config core.autocrlf false
kgit config gc.auto 0
kgit config advice.detachedHead false

# Unpack into a scratch directory first so an interrupted import leaves
# nothing half-done in the tree.
stage=$KTREE.import.$$
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"
say "unpacking $TARBALL ($version)"
tar -xf "$TARBALL" -C "$stage" --strip-components=1

say "committing every file of the tarball"
tmpidx=$stage.index
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
kgit tag "$tag" "$commit"
say "checking out $tag"
kgit checkout -q -f --detach "$tag"
say "imported $nfiles files as $tag ($(short "$commit"))"
