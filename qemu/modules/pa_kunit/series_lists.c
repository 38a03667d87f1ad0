// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: pages handed over in lists.  inline-pcp-free-commit
 * and inline-pcp-free-prepare change the code that free_unref_page_list()
 * shares with the single-page free; the bulk allocator shares the refill
 * and the preparation of pages with alloc_pages().
 */

#include "pa_kunit.h"

/* ---- inline-pcp-free-commit, inline-pcp-free-prepare ------------------ */

#define PA_LIST_PAGES	8

/*
 * Frees from interrupts on this CPU (an RCU callback freeing a slab, say)
 * can land on the pcp list between the two reads of its count: such an
 * attempt says nothing, and is made again.
 */
#define PA_LIST_ATTEMPTS	5

/*
 * One attempt: @pages allocated, handed to put_pages_list(), and @again
 * allocated after it; what the free added to pcp->count in @rise.  Every
 * page ends up in @held.  Returns whether the pcp list had room for them.
 */
static bool pa_list_free_once(struct pa_pages *held, struct page **pages,
			      struct page **again, int *rise)
{
	struct per_cpu_pages *pcp;
	bool usable = false;
	struct zone *zone;
	int i, count;
	LIST_HEAD(list);

	memset(pages, 0, PA_LIST_PAGES * sizeof(*pages));
	memset(again, 0, PA_LIST_PAGES * sizeof(*again));
	preempt_disable();
	zone = pa_local_zone();
	pa_pcp_settle(zone, held);
	for (i = 0; i < PA_LIST_PAGES; i++) {
		pages[i] = pa_alloc_atomic(zone, 0, MIGRATE_UNMOVABLE);
		if (!pages[i] || page_zone(pages[i]) != zone)
			break;
	}
	pcp = this_cpu_ptr(zone->per_cpu_pageset);
	if (i == PA_LIST_PAGES && READ_ONCE(pcp->count) + PA_LIST_PAGES < READ_ONCE(pcp->high)) {
		usable = true;
		for (i = 0; i < PA_LIST_PAGES; i++)
			list_add_tail(&pages[i]->lru, &list);
		count = READ_ONCE(pcp->count);
		put_pages_list(&list);
		*rise = READ_ONCE(pcp->count) - count;
		for (i = 0; i < PA_LIST_PAGES; i++)
			again[i] = pa_alloc_atomic(zone, 0, MIGRATE_UNMOVABLE);
	}
	preempt_enable();
	for (i = 0; i < PA_LIST_PAGES; i++) {
		struct page *page = usable ? again[i] : pages[i];

		if (page)
			pa_pages_add(held, page, 0);
	}
	return usable;
}

/*
 * put_pages_list() frees through free_unref_page_list().  On one CPU,
 * with room on its pcp list, every page must go onto that list in the
 * list's order, so that the next allocations of the same kind take them
 * back newest first.
 */
void pagealloc_series_page_list_free_returns_hot_pages(struct kunit *test)
{
	struct pa_pages *held = pa_pages_new(test, false);
	struct page *pages[PA_LIST_PAGES], *again[PA_LIST_PAGES];
	int i, attempt, rise = 0;
	bool usable = false;

	for (attempt = 0; attempt < PA_LIST_ATTEMPTS; attempt++) {
		usable = pa_list_free_once(held, pages, again, &rise);
		if (!usable || rise <= PA_LIST_PAGES)
			break;
	}

	KUNIT_ASSERT_TRUE_MSG(test, usable, "no %d pages with room for them on the pcp list",
			      PA_LIST_PAGES);
	KUNIT_ASSERT_EQ_MSG(test, rise, PA_LIST_PAGES,
			    "a list of %d pages freed raised pcp->count by %d",
			    PA_LIST_PAGES, rise);
	for (i = 0; i < PA_LIST_PAGES; i++)
		KUNIT_ASSERT_PTR_EQ_MSG(test, again[i], pages[PA_LIST_PAGES - 1 - i],
					"allocation %d after the list free: not the page freed %d from last",
					i, i);
}

/* ---- the bulk allocator ------------------------------------------------ */

#define PA_BULK_PAGES	64

/*
 * Pages from alloc_pages_bulk_array() are in the state alloc_pages()
 * hands out: each off the free lists with one reference and no private
 * data, zeroed if init_on_alloc is on, in a zone the request may use, no
 * page twice; and each is counted as allocated (pgalloc_*), which other
 * CPUs' allocations can only add to.
 */
void pagealloc_series_bulk_pages_are_allocated(struct kunit *test)
{
	struct pa_pages *held = pa_pages_new(test, false);
	struct page **pages;
	unsigned long got, bad, counted, i, j;

	if (!pa_zone_roomy(pa_local_zone(), ZONE_NORMAL))
		kunit_skip(test, "the local node has no free memory to spare");
	pages = kunit_kcalloc(test, PA_BULK_PAGES, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);

	counted = pa_pgalloc_events();
	got = alloc_pages_bulk_array(GFP_KERNEL | __GFP_NOWARN, PA_BULK_PAGES, pages);
	counted = pa_pgalloc_events() - counted;
	bad = got;
	for (i = 0; i < got; i++) {
		struct page *page = pages[i];
		bool dup = false, ok;

		for (j = 0; j < i; j++)
			dup = dup || pages[j] == page;
		ok = !dup && pa_block_allocated(page, 0, GFP_KERNEL) && !page_private(page) &&
		     zone_idx(page_zone(page)) <= ZONE_NORMAL;
		if (!ok && bad == got) {
			bad = i;
			pr_info("pa_kunit: bulk page %lu (pfn %lu): refcount %d, buddy %d, private %lu, zone %s, repeated %d\n",
				i, page_to_pfn(page), page_ref_count(page),
				is_free_buddy_page(page), page_private(page),
				page_zone(page)->name, dup);
		}
		/* Only a page with one reference can be held, and freed, safely. */
		if (!dup && page_ref_count(page) == 1 && !is_free_buddy_page(page))
			pa_pages_add(held, page, 0);
	}
	KUNIT_ASSERT_EQ_MSG(test, bad, got, "bulk page %lu of %lu is not in the allocated state",
			    bad, got);
	KUNIT_ASSERT_EQ_MSG(test, got, (unsigned long)PA_BULK_PAGES,
			    "%lu pages from a bulk request for %d", got, PA_BULK_PAGES);
	KUNIT_ASSERT_GE_MSG(test, counted, got, "pgalloc rose by %lu for %lu bulk pages",
			    counted, got);
}
