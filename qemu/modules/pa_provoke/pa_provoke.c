// SPDX-License-Identifier: GPL-2.0
/*
 * Misbehave on request, so that the host-side verdicts (WARNING in the
 * log, a failing KUnit case) are tested against a real kernel.
 */
#include <kunit/test.h>
#include <linux/module.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "print a WARNING with a backtrace at load");

static bool fail;
module_param(fail, bool, 0444);
MODULE_PARM_DESC(fail, "make the pagealloc_provoke KUnit case fail");

static void provoke_fails_when_asked(struct kunit *test)
{
	KUNIT_EXPECT_FALSE_MSG(test, fail, "failing on purpose (fail=1)");
}

static struct kunit_case provoke_cases[] = {
	KUNIT_CASE(provoke_fails_when_asked),
	{}
};

static struct kunit_suite provoke_suite = {
	.name = "pagealloc_provoke",
	.test_cases = provoke_cases,
};

kunit_test_suite(provoke_suite);

static int __init provoke_init(void)
{
	WARN(warn, "pa_provoke: warning on purpose (warn=1)\n");
	return 0;
}

static void __exit provoke_exit(void)
{
}

module_init(provoke_init);
module_exit(provoke_exit);
MODULE_DESCRIPTION("Provoke faults for the page allocator test harness");
MODULE_LICENSE("GPL");
