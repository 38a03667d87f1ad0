// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite pagealloc_roots: the pageblock bits of memory above the
 * first mem_section root.  Under SPARSEMEM_EXTREME mem_section is an
 * array of roots of SECTIONS_PER_ROOT sections each (128 sections of
 * 128 MiB, 16 GiB a root, with PAGE_EXTENSION as Debian builds; 32 GiB
 * without), and every free finds its pageblock's migratetype through
 * the section's root.  A lookup that lost the root would read the bits
 * of the block at the same offset under root 0, which on a smaller
 * guest is the block itself: this suite needs memory above the first
 * root (boot.sh gives the roots step 18 GiB).  It guards
 * pageblock-bitmap-without-section-checks, which indexes mem_section
 * itself instead of calling __nr_to_section().
 */

#include "pa_kunit.h"

/* The pages of one root: a pfn's offset under root 0 is pfn modulo this. */
#define PA_ROOT_PAGES	((unsigned long)SECTIONS_PER_ROOT * PAGES_PER_SECTION)

/* Pageblocks tried, from the top of a zone down, for one that is free. */
#define PA_ROOT_TRIES	256

/* Set the migratetype bits of @pfn's pageblock, as set_pfnblock_flags_mask() does. */
static void pa_set_pageblock_mt(unsigned long pfn, int mt)
{
	unsigned int shift;
	unsigned long *word = pa_pageblock_word(pfn, &shift);
	unsigned long old = READ_ONCE(*word), new;

	do {
		new = (old & ~((unsigned long)MIGRATETYPE_MASK << shift)) |
		      ((unsigned long)mt << shift);
	} while (!try_cmpxchg(word, &old, new));
}

/*
 * Take a whole pageblock of @zone above the first root off the buddy
 * lists, from the top down, and return its first pfn, or 0, and in
 * @mt the migratetype it had: alloc_contig_range() leaves it movable.
 * The pages come back one by one, each with a reference;
 * free_contig_range() gives them back.
 */
static unsigned long pa_take_block_above_root(struct zone *zone, int *mt)
{
	unsigned long pfn = ALIGN_DOWN(zone_end_pfn(zone), pageblock_nr_pages);
	unsigned long low = max(zone->zone_start_pfn, PA_ROOT_PAGES);
	int tries = 0;

	while (pfn >= low + pageblock_nr_pages && tries < PA_ROOT_TRIES) {
		pfn -= pageblock_nr_pages;
		/* A block with a page in use would only fail, noisily. */
		if (!pfn_valid(pfn) || !PageBuddy(pfn_to_page(pfn)))
			continue;
		tries++;
		*mt = pa_pageblock_mt(pfn_to_page(pfn));
		if (!alloc_contig_range(pfn, pfn + pageblock_nr_pages, MIGRATE_MOVABLE,
					GFP_KERNEL | __GFP_NOWARN))
			return pfn;
	}
	return 0;
}

/* The highest ZONE_NORMAL with memory above the first root, or NULL. */
static struct zone *pa_zone_above_root(void)
{
	struct zone *found = NULL;
	int nid;

	for_each_online_node(nid) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[ZONE_NORMAL];

		if (populated_zone(zone) && zone_end_pfn(zone) > PA_ROOT_PAGES)
			found = zone;
	}
	return found;
}

/*
 * Give a pageblock above the first root a migratetype that its twin at
 * the same offset under root 0 does not have, free one of its pages on
 * this CPU and take one back: the page must go to, and come back from,
 * the pcp list of its own block's migratetype.
 */
static void pagealloc_roots_freed_page_finds_its_own_pageblock(struct kunit *test)
{
	struct zone *zone = pa_zone_above_root();
	struct per_cpu_pages *pcp;
	struct page *page, *head, *back;
	unsigned long pfn, twin, i, flags;
	int twin_mt, mt, was_mt = MIGRATE_MOVABLE;
	gfp_t gfp;

	if (!zone)
		kunit_skip(test, "no memory above the first mem_section root, %lu GiB",
			   PA_ROOT_PAGES >> (30 - PAGE_SHIFT));
	pfn = pa_take_block_above_root(zone, &was_mt);
	KUNIT_ASSERT_NE_MSG(test, pfn, 0UL, "no free pageblock of %s above %lu GiB",
			    zone->name, PA_ROOT_PAGES >> (30 - PAGE_SHIFT));

	twin = pfn % PA_ROOT_PAGES;
	twin_mt = pfn_valid(twin) ? pa_pageblock_mt(pfn_to_page(twin)) : -1;
	mt = twin_mt == MIGRATE_UNMOVABLE ? MIGRATE_RECLAIMABLE : MIGRATE_UNMOVABLE;
	gfp = PA_GFP_ATOMIC | __GFP_THISNODE | (mt == MIGRATE_RECLAIMABLE ? __GFP_RECLAIMABLE : 0);
	/* The block is all ours: no free page of it sees the change. */
	pa_set_pageblock_mt(pfn, mt);
	page = pfn_to_page(pfn);

	/* No interrupt on this CPU may use the list between the two. */
	local_irq_save(flags);
	pcp = this_cpu_ptr(zone->per_cpu_pageset);
	__free_page(page);
	head = list_first_entry_or_null(&pcp->lists[pa_pindex(0, mt)], struct page, pcp_list);
	back = __alloc_pages_node(zone_to_nid(zone), gfp, 0);
	local_irq_restore(flags);

	/* Its pages go back to the free lists of the type it had. */
	pa_set_pageblock_mt(pfn, was_mt);
	if (back == page) {
		free_contig_range(pfn, pageblock_nr_pages);
	} else {
		if (back)
			__free_page(back);
		for (i = 1; i < pageblock_nr_pages; i++)
			__free_page(pfn_to_page(pfn + i));
	}
	KUNIT_ASSERT_TRUE_MSG(test, head == page && back == page,
			      "mt %d at pfn %#lx, root %lu, twin mt %d: freed page %s list head, %s back",
			      mt, pfn, pfn / PA_ROOT_PAGES, twin_mt, head == page ? "at" : "not at",
			      back == page ? "came" : "did not come");
}

static struct kunit_case pagealloc_roots_cases[] = {
	KUNIT_CASE(pagealloc_roots_freed_page_finds_its_own_pageblock),
	{}
};

static struct kunit_suite pagealloc_roots_suite = {
	.name = "pagealloc_roots",
	.test_cases = pagealloc_roots_cases,
};

kunit_test_suites(&pagealloc_roots_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit test of the pageblock bits of memory above the first mem_section root");
