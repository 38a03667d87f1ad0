// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: compaction capture during a pcp drain.
 *
 * A task in direct compaction points current->capture_control at what it
 * wants, and __free_one_page() hands it a page of that order instead of
 * putting the page on a free list, taking it back out of NR_FREE_PAGES.
 * compact_zone() drains the pcp lists of its zone, so pages drained by
 * free_pcppages_bulk() can be captured too.  account-pcp-drain-once adds
 * a drain's pages to NR_FREE_PAGES in one sum and leaves the capture's
 * subtraction where it was; the count must stay exact either way.
 *
 * struct capture_control and struct compact_control live in mm/internal.h
 * (Kbuild adds mm/ to the include path).  task_capc() ignores kernel
 * threads, and every KUnit case runs in one, so the frees that overflow
 * the pcp list run in a user-mode helper's task instead, before it would
 * exec anything: a task of its own, as a compacting allocation's is.
 */

#include <linux/cred.h>
#include <linux/umh.h>
#include "pa_kunit.h"
#include "internal.h"

struct pa_capture {
	struct zone *zone;
	struct page **pages;		/* order-0 pages the helper frees */
	int nr;
	bool ran;			/* the helper's task freed them */
	struct page *captured;		/* what compaction capture handed over */
	long off;			/* NR_FREE_PAGES minus the free lists' pages */
};

static int pa_capture_off_fn(void *arg)
{
	struct pa_capture *c = arg;

	c->off = pa_free_count_off(c->zone);
	return 0;
}

/* NR_FREE_PAGES against the free lists, with nothing else running. */
static long pa_capture_off(struct kunit *test, struct pa_capture *c)
{
	KUNIT_ASSERT_EQ(test, stop_machine(pa_capture_off_fn, c, NULL), 0);
	return c->off;
}

/*
 * In the helper's task, before its exec: ask for a page of the zone as
 * compaction does, then free more pages than pcp->high holds.  The trims
 * drain the list through free_pcppages_bulk(), and the first unmovable
 * page drained is captured (capture leaves movable pages below
 * pageblock_order alone).  Compaction asks for order 1 or more; capture
 * compares orders only, and order 0 makes sure a page is taken.  The
 * error return stops the exec.
 */
static int pa_capture_in_task(struct subprocess_info *info, struct cred *new)
{
	struct pa_capture *c = info->data;
	struct compact_control cc = { .zone = c->zone, .order = 0 };
	struct capture_control capc = { .cc = &cc };
	int i;

	current->capture_control = &capc;
	for (i = 0; i < c->nr; i++)
		__free_pages(c->pages[i], 0);
	current->capture_control = NULL;
	c->captured = capc.page;
	c->ran = true;
	return -ECANCELED;
}

static void pa_capture_run(struct kunit *test, struct pa_capture *c)
{
	/* UMH_WAIT_EXEC returns once the helper has run: locals will do. */
	char *argv[2] = { "/pa-capture-never-runs", NULL };
	char *envp[1] = { NULL };
	struct subprocess_info *info;
	int i;

	info = call_usermodehelper_setup(argv[0], argv, envp, GFP_KERNEL,
					 pa_capture_in_task, NULL, c);
	if (info)
		call_usermodehelper_exec(info, UMH_WAIT_EXEC);
	if (c->ran)
		return;
	for (i = 0; i < c->nr; i++)
		__free_pages(c->pages[i], 0);
	KUNIT_FAIL(test, "the user-mode helper's task never ran");
}

/* @c->nr unmovable order-0 pages of @c->zone, or none and false. */
static bool pa_capture_take_pages(struct pa_capture *c)
{
	gfp_t gfp = GFP_KERNEL | pa_zone_gfp(zone_idx(c->zone)) | __GFP_THISNODE | __GFP_NOWARN;
	int n;

	for (n = 0; n < c->nr; n++) {
		c->pages[n] = alloc_pages_node(zone_to_nid(c->zone), gfp, 0);
		if (!c->pages[n])
			break;
		if (page_zone(c->pages[n]) != c->zone) {
			__free_pages(c->pages[n], 0);
			break;
		}
	}
	if (n == c->nr)
		return true;
	while (n--)
		__free_pages(c->pages[n], 0);
	return false;
}

void pagealloc_series_captured_drain_page_keeps_free_count_exact(struct kunit *test)
{
	struct pa_capture c = { };
	unsigned long pfn;
	long off_before, off_held;

	/*
	 * debug_pagealloc unmaps every free page, the captured one too, and
	 * only post_alloc_hook(), which no module can call, maps it back.
	 */
	if (debug_pagealloc_enabled_static())
		kunit_skip(test, "with debug_pagealloc the captured page cannot be mapped back");
	c.zone = pa_roomy_zone(1);
	if (!c.zone)
		kunit_skip(test, "no zone has free memory to spare");
	/* The helper's frees must trim, not raise a self-tuning pcp->high. */
	pa_pcp_pin_high(test, c.zone);
	c.nr = pa_overflow_pages(raw_cpu_ptr(c.zone->per_cpu_pageset));
	KUNIT_ASSERT_LE_MSG(test, c.nr, PA_DRAIN_MAX, "pcp->high of %s", c.zone->name);
	c.pages = pa_kvzalloc(test, c.nr * sizeof(*c.pages));
	KUNIT_ASSERT_TRUE_MSG(test, pa_capture_take_pages(&c), "%d order-0 pages from %s",
			      c.nr, c.zone->name);

	/* Judge only what this case changes, as the isolation case does. */
	off_before = pa_capture_off(test, &c);
	pa_capture_run(test, &c);
	KUNIT_ASSERT_NOT_NULL_MSG(test, c.captured, "no page of %d drained from %s was captured",
				  c.nr, c.zone->name);
	off_held = pa_capture_off(test, &c) - off_before;

	/* The captured page is the case's, as it would be compaction's caller's. */
	pfn = page_to_pfn(c.captured);
	set_page_refcounted(c.captured);
	__free_pages(c.captured, 0);

	pr_info("pa_kunit: %s: %s: pfn %lu captured while %d pages were freed\n",
		test->name, c.zone->name, pfn, c.nr);
	KUNIT_ASSERT_EQ_MSG(test, off_held, 0L,
			    "NR_FREE_PAGES of %s off its free lists by %ld with a drained page captured",
			    c.zone->name, off_held);
	off_held = pa_capture_off(test, &c) - off_before;
	KUNIT_ASSERT_EQ_MSG(test, off_held, 0L,
			    "NR_FREE_PAGES of %s off its free lists by %ld at the end",
			    c.zone->name, off_held);
}
