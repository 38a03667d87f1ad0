# shellcheck shell=bash
# The plain boot t0100 gives every commit: the KUnit suites (stress
# included) and the kernel's own tests, less test_free_pages (92 s a boot
# under TCG; t0100 runs it on the tip).  t0110 judges an unmutated commit by the same boot,
# so that it finds it in the cache.
export PLAIN_RUN=kunit,stress,intree PLAIN_APPEND=pa.intree_skip=test_free_pages
