// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite pagealloc_hwpoison: a free page that memory_failure() is
 * poisoning must not be handed out before memory_failure() has taken it
 * off the free lists.
 *
 * memory_failure() sets PG_hwpoison on the page first, then takes the
 * page off the free lists (take_page_off_buddy()), and raises
 * num_poisoned_pages last, in action_result().  In that window only the
 * allocation checks (check_new_pages()) keep the page from being
 * allocated.  The case frees a MAX_ORDER - 1 block, poisons one of its
 * pages with memory_failure(), and allocates blocks of the same order
 * from an ftrace hook on take_page_off_buddy(), until it gets that block
 * or none is left (or 32 others came first: a block freed elsewhere may
 * head the list): the allocator must not return the block that holds
 * the poisoned page.
 *
 * It guards check-pages-only-when-asked, which turns those checks off
 * when no debugging option asks for them.  The block is free while
 * memory_failure() runs, so another CPU's allocation may split it first;
 * the allocation in the window then proves nothing, and the case tries
 * again with a fresh block.  Each attempt leaves a poisoned page behind,
 * so its guest runs it alone (guest step hwpoison).
 */

#include <kunit/test.h>
#include <linux/ftrace.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>

#if !defined(CONFIG_MEMORY_FAILURE) || !defined(CONFIG_DYNAMIC_FTRACE)
#error "pa_kunit_hwpoison needs CONFIG_MEMORY_FAILURE and CONFIG_DYNAMIC_FTRACE"
#endif

/* The largest buddy order: such a block is never merged with another. */
#define PA_HWP_ORDER	(MAX_ORDER - 1)
/* Attempts before a block that stays whole in the window is given up. */
#define PA_HWP_ATTEMPTS	5
/*
 * Blocks the window's allocation may take before the poisoned one: a
 * block freed elsewhere meanwhile may head the list (128 MiB of them).
 */
#define PA_HWP_TAKES	32

static struct page *pa_hwp_block;
static struct page *pa_hwp_taken;
/* The other blocks the window took, freed once memory_failure() is done. */
static struct page *pa_hwp_others[PA_HWP_TAKES];
static int pa_hwp_nr_others;
static bool pa_hwp_in_window;
/* Whether pa_hwp_block was still one free block when the window opened. */
static bool pa_hwp_whole;

/*
 * Runs on entry to take_page_off_buddy(), with PG_hwpoison set on a page
 * of pa_hwp_block and the block still free.  Preemption is disabled here:
 * the allocation does not sleep.
 */
static void pa_hwp_allocate_in_window(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	if (pa_hwp_in_window)
		return;
	pa_hwp_in_window = true;
	pa_hwp_whole = PageBuddy(pa_hwp_block) && page_private(pa_hwp_block) == PA_HWP_ORDER;
	/* Until the poisoned block, the list empty, or enough tried. */
	for (;;) {
		pa_hwp_taken = alloc_pages_node(page_to_nid(pa_hwp_block),
						GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN,
						PA_HWP_ORDER);
		if (!pa_hwp_taken || pa_hwp_taken == pa_hwp_block ||
		    pa_hwp_nr_others == PA_HWP_TAKES)
			break;
		pa_hwp_others[pa_hwp_nr_others++] = pa_hwp_taken;
	}
}

static struct ftrace_ops pa_hwp_ops = {
	.func = pa_hwp_allocate_in_window,
};

/*
 * One attempt: poison the second page of a freed block and allocate in the
 * window.  Returns the pfn poisoned.
 */
static unsigned long pa_hwp_attempt(struct kunit *test)
{
	static unsigned char fn[] = "take_page_off_buddy";
	unsigned long pfn;
	int ret;

	pa_hwp_in_window = false;
	pa_hwp_whole = false;
	pa_hwp_taken = NULL;
	pa_hwp_nr_others = 0;
	pa_hwp_block = alloc_pages(GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, PA_HWP_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, pa_hwp_block);
	pfn = page_to_pfn(pa_hwp_block) + 1;

	ret = ftrace_set_filter(&pa_hwp_ops, fn, strlen(fn), 1);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "ftrace cannot hook %s", fn);
	ret = register_ftrace_function(&pa_hwp_ops);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/*
	 * Freed, the block heads the free list of its order and migratetype,
	 * which the allocation in the window reads first.
	 */
	__free_pages(pa_hwp_block, PA_HWP_ORDER);
	ret = memory_failure(pfn, MF_SW_SIMULATED);

	unregister_ftrace_function(&pa_hwp_ops);
	ftrace_free_filter(&pa_hwp_ops);
	KUNIT_ASSERT_TRUE_MSG(test, pa_hwp_in_window,
			      "memory_failure(%#lx) returned %d without calling %s", pfn, ret, fn);
	/* A block that holds the poisoned page stays out of the allocator. */
	if (pa_hwp_taken && pa_hwp_taken != pa_hwp_block)
		__free_pages(pa_hwp_taken, PA_HWP_ORDER);
	while (pa_hwp_nr_others)
		__free_pages(pa_hwp_others[--pa_hwp_nr_others], PA_HWP_ORDER);
	return pfn;
}

static void pagealloc_hwpoison_free_page_not_allocated_while_poisoned(struct kunit *test)
{
	unsigned long pfn = 0;
	int i;

	pa_hwp_whole = false;
	for (i = 0; i < PA_HWP_ATTEMPTS && !pa_hwp_whole; i++)
		pfn = pa_hwp_attempt(test);
	KUNIT_ASSERT_TRUE_MSG(test, pa_hwp_whole,
			      "%d blocks were split before memory_failure() reached take_page_off_buddy(): the window was not tried",
			      PA_HWP_ATTEMPTS);
	KUNIT_EXPECT_PTR_NE_MSG(test, pa_hwp_taken, pa_hwp_block,
				"pfn %#lx was poisoned and its block allocated before memory_failure() took it off the free lists",
				pfn);
}

static struct kunit_case pagealloc_hwpoison_cases[] = {
	KUNIT_CASE(pagealloc_hwpoison_free_page_not_allocated_while_poisoned),
	{}
};

static struct kunit_suite pagealloc_hwpoison_suite = {
	.name = "pagealloc_hwpoison",
	.test_cases = pagealloc_hwpoison_cases,
};

kunit_test_suite(pagealloc_hwpoison_suite);

MODULE_DESCRIPTION("KUnit: a free page being poisoned is not allocated");
MODULE_LICENSE("GPL");
