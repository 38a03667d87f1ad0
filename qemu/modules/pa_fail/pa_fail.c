// SPDX-License-Identifier: GPL-2.0
/*
 * A KUnit case that always fails, loaded only when the guest is told
 * pa.provoke=fail, so that the host's handling of a failing case is tested
 * against a real kernel.  (KUnit runs a module's suites before the module's
 * parameters are parsed, so a parameter could not switch the failure on.)
 */
#include <kunit/test.h>
#include <linux/module.h>

static void provoke_fails_when_asked(struct kunit *test)
{
	KUNIT_FAIL(test, "failing on purpose (pa.provoke=fail)");
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

MODULE_DESCRIPTION("A KUnit case that fails on purpose");
MODULE_LICENSE("GPL");
