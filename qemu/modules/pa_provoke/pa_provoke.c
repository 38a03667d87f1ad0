// SPDX-License-Identifier: GPL-2.0
/*
 * Misbehave on request, so that the host-side verdict for a WARNING in
 * the log is tested against a real kernel.
 */
#include <linux/module.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "print a WARNING with a backtrace at load");

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
