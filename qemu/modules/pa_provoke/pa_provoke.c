// SPDX-License-Identifier: GPL-2.0
/*
 * Misbehave on request, so that the host-side verdict for a WARNING in
 * the log is tested against a real kernel, and so that a warning the
 * allocator must give is seen to be given.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "print a WARNING with a backtrace at load");

static unsigned int nofail_order;
module_param(nofail_order, uint, 0444);
MODULE_PARM_DESC(nofail_order,
		 "allocate and free one __GFP_NOFAIL block of this order at load (0: none); above order 1 the allocator must warn");

static unsigned int oversized;
module_param(oversized, uint, 0444);
MODULE_PARM_DESC(oversized,
		 "make this many requests of order MAX_ORDER at load; the allocator must warn for the first one only");

static bool badfree;
module_param(badfree, bool, 0444);
MODULE_PARM_DESC(badfree,
		 "with page poisoning, debug_pagealloc or check_pages on, free an order-4 block whose first two pages are still mapped; the allocator must report both");

/* No exported test says whether check_pages=on was given: init tells. */
static bool checks_asked;
module_param(checks_asked, bool, 0444);
MODULE_PARM_DESC(checks_asked, "the boot asked for check_pages=on (badfree)");

static bool badfree_pcp;
module_param(badfree_pcp, bool, 0444);
MODULE_PARM_DESC(badfree_pcp,
		 "with debug_pagealloc on, free an order-0 page that is still mapped; the free itself must report it, before the page reaches a pcp list");

/*
 * Order 4 is past the pcp lists, so the block is checked as it is freed:
 * its tail pages first, then its head.  A page found bad is reported and
 * the block kept off the free lists.  Without a checking option the
 * block would reach the free lists corrupt, so it is not even made.
 */
static void provoke_bad_free(void)
{
	const unsigned int order = PAGE_ALLOC_COSTLY_ORDER + 1;
	struct page *page;

	if (!page_poisoning_enabled() && !debug_pagealloc_enabled() && !checks_asked) {
		pr_err("pa_provoke: badfree needs page_poison=1, debug_pagealloc=on or check_pages=on\n");
		return;
	}
	page = alloc_pages(GFP_KERNEL, order);
	if (!page) {
		pr_err("pa_provoke: no order-%u block to free\n", order);
		return;
	}
	/* As if one page table still mapped each. */
	atomic_inc(&page[0]._mapcount);
	atomic_inc(&page[1]._mapcount);
	__free_pages(page, order);
}

/*
 * An order-0 page goes to a pcp list.  Without DEBUG_VM, only
 * debug_pagealloc has it checked there, as it is freed: the report's
 * backtrace then runs through the free, not through a later drain or
 * allocation.
 */
static void provoke_bad_pcp_free(void)
{
	struct page *page;

	if (!debug_pagealloc_enabled()) {
		pr_err("pa_provoke: badfree_pcp needs debug_pagealloc=on\n");
		return;
	}
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		pr_err("pa_provoke: no page to free\n");
		return;
	}
	atomic_inc(&page->_mapcount);
	__free_page(page);
}

static int __init provoke_init(void)
{
	unsigned int i;

	WARN(warn, "pa_provoke: warning on purpose (warn=1)\n");
	for (i = 0; i < oversized; i++) {
		/* Not freed if served: a block that large cannot exist. */
		if (alloc_pages(GFP_KERNEL, MAX_ORDER))
			pr_err("pa_provoke: request %u of order %d served\n", i, MAX_ORDER);
	}
	if (badfree)
		provoke_bad_free();
	if (badfree_pcp)
		provoke_bad_pcp_free();
	if (nofail_order) {
		struct page *page = alloc_pages(GFP_KERNEL | __GFP_NOFAIL, nofail_order);

		__free_pages(page, nofail_order);
	}
	return 0;
}

static void __exit provoke_exit(void)
{
}

module_init(provoke_init);
module_exit(provoke_exit);
MODULE_DESCRIPTION("Provoke faults for the page allocator test harness");
MODULE_LICENSE("GPL");
