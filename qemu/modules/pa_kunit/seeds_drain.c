// SPDX-License-Identifier: GPL-2.0
/*
 * The seeds suite, part three: the drain that isolation runs.
 *
 * alloc_contig_range() isolates its pageblocks, then empties the zone's
 * pcp lists on every CPU that has pages there (drain_all_pages()), so
 * that pages parked on them reach the free lists before it takes them.
 * drain_pages_zone() frees one CPU's list in rounds of at most
 * batch << CONFIG_PCP_BATCH_SCALE_MAX pages, each under zone->lock, and
 * is done only when a round leaves the list empty.
 */

#include "pa_kunit.h"

#define PA_DRAIN_ORDER	(MAX_ORDER - 1)
#define PA_DRAIN_PAGES	BIT(PA_DRAIN_ORDER)

/* Blocks freed page by page: two on this CPU, then one on the other. */
enum { PA_HERE_OLD, PA_HERE_NEW, PA_THERE, PA_NR_BLOCKS };

struct pa_parked {
	struct zone *zone;
	int cpu[2];				/* this CPU, the other one */
	unsigned long pfn[PA_NR_BLOCKS];
	unsigned long parked[2];		/* pages of the blocks on each CPU's lists */
	int count;				/* this CPU's pcp count for the zone */
};

static bool pa_parked_page(struct pa_parked *p, struct page *page)
{
	int b;

	for (b = 0; b < PA_NR_BLOCKS; b++)
		if (page_to_pfn(page) - p->pfn[b] < PA_DRAIN_PAGES)
			return true;
	return false;
}

static int pa_parked_fn(void *arg)
{
	struct pa_parked *p = arg;
	struct page *page;
	int i, pindex;

	for (i = 0; i < 2; i++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(p->zone->per_cpu_pageset, p->cpu[i]);

		p->parked[i] = 0;
		for (pindex = 0; pindex < NR_PCP_LISTS; pindex++)
			list_for_each_entry(page, &pcp->lists[pindex], pcp_list)
				p->parked[i] += pa_parked_page(p, page);
	}
	p->count = per_cpu_ptr(p->zone->per_cpu_pageset, p->cpu[0])->count;
	return 0;
}

static void pa_parked_read(struct kunit *test, struct pa_parked *p)
{
	KUNIT_ASSERT_EQ(test, stop_machine(pa_parked_fn, p, NULL), 0);
}

static void pa_free_block(unsigned long pfn)
{
	unsigned long i;

	for (i = 0; i < PA_DRAIN_PAGES; i++)
		__free_page(pfn_to_page(pfn + i));
}

static long pa_free_block_fn(void *arg)
{
	pa_free_block(*(unsigned long *)arg);
	return 0;
}

/* Take the blocks, all movable and of one zone; false if there is none. */
static bool pa_parked_take(struct kunit *test, struct pa_parked *p, int nid)
{
	const gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN;
	struct page *page;
	int b;

	for (b = 0; b < PA_NR_BLOCKS; b++) {
		page = alloc_pages_node(nid, gfp, PA_DRAIN_ORDER);
		if (!page) {
			while (b--)
				__free_pages(pfn_to_page(p->pfn[b]), PA_DRAIN_ORDER);
			return false;
		}
		p->pfn[b] = page_to_pfn(page);
		split_page(page, PA_DRAIN_ORDER);
	}
	p->zone = page_zone(pfn_to_page(p->pfn[0]));
	for (b = 0; b < PA_NR_BLOCKS; b++) {
		page = pfn_to_page(p->pfn[b]);
		KUNIT_EXPECT_PTR_EQ_MSG(test, page_zone(page), p->zone, "block %d's zone", b);
		KUNIT_EXPECT_EQ_MSG(test, pa_pageblock_mt(page), MIGRATE_MOVABLE,
				    "block %d's pageblock", b);
	}
	return true;
}

/*
 * Park three blocks of pages on the pcp lists of one zone, more than one
 * round of a drain on this CPU and some on the other CPU, then take the
 * block freed last back with alloc_contig_range(): its drain must leave
 * no page of any of them on any CPU's list.
 */
void pagealloc_isolation_drains_pcp_lists_of_every_cpu(struct kunit *test)
{
	struct pa_parked p = { };
	int nid, ret;

	p.cpu[0] = get_cpu();
	put_cpu();
	p.cpu[1] = cpumask_any_but(cpu_online_mask, p.cpu[0]);
	if (p.cpu[1] >= nr_cpu_ids)
		kunit_skip(test, "one CPU online: no other CPU's lists to drain");
	nid = cpu_to_mem(p.cpu[0]);
	KUNIT_ASSERT_TRUE_MSG(test, pa_parked_take(test, &p, nid),
			      "no %lu free pages in one block on node %d", PA_DRAIN_PAGES, nid);

	work_on_cpu(p.cpu[1], pa_free_block_fn, &p.pfn[PA_THERE]);
	work_on_cpu(p.cpu[0], pa_free_block_fn, &p.pfn[PA_HERE_OLD]);
	work_on_cpu(p.cpu[0], pa_free_block_fn, &p.pfn[PA_HERE_NEW]);
	pa_parked_read(test, &p);
	pr_info("pa_kunit: %s: %s: %lu pages parked on CPU %d (pcp count %d), %lu on CPU %d\n",
		test->name, p.zone->name, p.parked[0], p.cpu[0], p.count, p.parked[1], p.cpu[1]);
	KUNIT_ASSERT_GT_MSG(test, p.parked[1], 0UL, "no page parked on CPU %d", p.cpu[1]);
#ifdef CONFIG_PCP_BATCH_SCALE_MAX
	KUNIT_ASSERT_GT_MSG(test, p.count,
			    READ_ONCE(per_cpu_ptr(p.zone->per_cpu_pageset, p.cpu[0])->batch)
				<< CONFIG_PCP_BATCH_SCALE_MAX,
			    "CPU %d's list within one round of a drain", p.cpu[0]);
#endif

	ret = alloc_contig_range(p.pfn[PA_HERE_NEW], p.pfn[PA_HERE_NEW] + PA_DRAIN_PAGES,
				 MIGRATE_MOVABLE, GFP_KERNEL | __GFP_NOWARN);
	pa_parked_read(test, &p);
	if (!ret)
		free_contig_range(p.pfn[PA_HERE_NEW], PA_DRAIN_PAGES);
	/* Assertions: a case's log keeps 512 bytes, the first failure's. */
	KUNIT_ASSERT_EQ_MSG(test, ret, 0,
			    "alloc_contig_range() of the block freed last on CPU %d", p.cpu[0]);
	KUNIT_ASSERT_EQ_MSG(test, p.parked[0], 0UL, "pages still parked on CPU %d after the drain",
			    p.cpu[0]);
	KUNIT_ASSERT_EQ_MSG(test, p.parked[1], 0UL, "pages still parked on CPU %d after the drain",
			    p.cpu[1]);
}
