# shellcheck shell=bash
# The boots t0100 gives every commit, besides the roots one (an 18 GiB
# guest for the roots suite alone, 3-10 s).  The plain one: the KUnit
# suites and the kernel's own tests, less test_free_pages (92 s a boot
# under TCG; t0100 runs it on the tip).  The debug one: the KUnit suites
# with the stress suite, under page poisoning and debug_pagealloc; the
# stress suite runs there only, so that neither boot outlasts the next
# commit's build beside it.  t0110 judges an unmutated commit by the same
# boots, so that it finds them in the cache.
export PLAIN_RUN=kunit,intree PLAIN_APPEND=pa.intree_skip=test_free_pages
export DEBUG_RUN=kunit,stress DEBUG_APPEND="debug_pagealloc=on page_poison=1"
