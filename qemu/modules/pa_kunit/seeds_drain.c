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

#include <linux/fs.h>

#include "pa_kunit.h"

#define PA_DRAIN_ORDER	(MAX_ORDER - 1)
#define PA_DRAIN_PAGES	BIT(PA_DRAIN_ORDER)

/*
 * The blocks, freed page by page: THERE on the other CPU, then FIRST on
 * this one, which the first drain takes back; then FIRST again, OLD and
 * LAST on this CPU, past one round of a drain, and the second drain
 * takes LAST back.
 */
enum { PA_THERE, PA_FIRST, PA_OLD, PA_LAST, PA_NR_BLOCKS };

/* When the lists are read: before and after each drain. */
enum { PA_BEFORE_1, PA_AFTER_1, PA_BEFORE_2, PA_AFTER_2, PA_NR_READS };

struct pa_parked {
	struct zone *zone;
	int cpu[2];				/* this CPU, the other one */
	unsigned long pfn[PA_NR_BLOCKS];
	bool taken;				/* the blocks were allocated */
	int ret[2];				/* each alloc_contig_range()'s */
	int stopped;				/* stop_machine()'s, nonzero if any failed */
	/* Read under stop_machine(): */
	int when;
	unsigned long parked[PA_NR_READS][2];	/* pages of the blocks on each CPU's lists */
	int count, batch;			/* this CPU's pcp list, before the 2nd drain */
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
	struct per_cpu_pages *pcp;
	struct page *page;
	int i, pindex;

	for (i = 0; i < 2; i++) {
		pcp = per_cpu_ptr(p->zone->per_cpu_pageset, p->cpu[i]);
		p->parked[p->when][i] = 0;
		for (pindex = 0; pindex < NR_PCP_LISTS; pindex++)
			list_for_each_entry(page, &pcp->lists[pindex], pcp_list)
				p->parked[p->when][i] += pa_parked_page(p, page);
	}
	pcp = per_cpu_ptr(p->zone->per_cpu_pageset, p->cpu[0]);
	if (p->when == PA_BEFORE_2) {
		p->count = pcp->count;
		p->batch = pcp->batch;
	}
	return 0;
}

static void pa_parked_read(struct pa_parked *p, int when)
{
	p->when = when;
	p->stopped |= stop_machine(pa_parked_fn, p, NULL);
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

/*
 * pcp->high, from the zone's low watermark by default, can be below the
 * pages the case parks: freeing past it flushes the oldest of them, the
 * more so the more other pages sit on the lists.  A fraction of 8, the
 * least the sysctl takes, lets one CPU's lists hold an eighth of the
 * zone.  Reads the old value into OLD (LEN bytes) and writes VAL.
 */
#define PA_HIGH_FRACTION	"/proc/sys/vm/percpu_pagelist_high_fraction"

static int pa_high_fraction_swap(const char *val, char *old, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(PA_HIGH_FRACTION, O_RDWR, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, old, len - 1, &pos);
	if (n >= 0) {
		old[n] = '\0';
		pos = 0;
		n = kernel_write(f, val, strlen(val), &pos);
	}
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

/* Take the blocks, each split into pages; false if one cannot be had. */
static bool pa_parked_take(struct pa_parked *p, int nid)
{
	const gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN;
	struct page *page;
	int b;

	for (b = 0; b < PA_NR_BLOCKS; b++) {
		page = alloc_pages_node(nid, gfp, PA_DRAIN_ORDER);
		if (!page) {
			while (b--)
				pa_free_block(p->pfn[b]);
			return false;
		}
		p->pfn[b] = page_to_pfn(page);
		split_page(page, PA_DRAIN_ORDER);
	}
	p->zone = page_zone(pfn_to_page(p->pfn[0]));
	return true;
}

/* Take a block back with alloc_contig_range(), which drains first. */
static void pa_take_back(struct pa_parked *p, int block, int drain)
{
	unsigned long pfn = p->pfn[block];

	pa_parked_read(p, drain ? PA_BEFORE_2 : PA_BEFORE_1);
	p->ret[drain] = alloc_contig_range(pfn, pfn + PA_DRAIN_PAGES, MIGRATE_MOVABLE,
					   GFP_KERNEL | __GFP_NOWARN);
	pa_parked_read(p, drain ? PA_AFTER_2 : PA_AFTER_1);
	if (!p->ret[drain])
		free_contig_range(pfn, PA_DRAIN_PAGES);
}

/*
 * The first drain must reach the other CPU's list and leaves this one's
 * short; FIRST, given back, then lies under OLD and LAST, so that the
 * second drain has more than one round of pages before LAST's.  No
 * assertion here: the caller may not move to another CPU until done.
 */
static void pa_park_and_take_back(struct pa_parked *p)
{
	work_on_cpu(p->cpu[1], pa_free_block_fn, &p->pfn[PA_THERE]);
	pa_free_block(p->pfn[PA_FIRST]);
	pa_take_back(p, PA_FIRST, 0);
	pa_free_block(p->pfn[PA_OLD]);
	pa_free_block(p->pfn[PA_LAST]);
	pa_take_back(p, PA_LAST, 1);
}

/*
 * Park blocks of pages on the pcp lists of one zone, on the other CPU,
 * then more than one round of a drain on this one, and take blocks back
 * with alloc_contig_range(): its drain must leave no page of them on any
 * CPU's list.  The case may sleep but stays on this CPU, so that the
 * pages freed here and the drains asked for here meet one list.  A drain
 * empties the order-0 movable list from its oldest page, so LAST, freed
 * last, is what a drain that stops after one round leaves behind.
 */
void pagealloc_isolation_drains_pcp_lists_of_every_cpu(struct kunit *test)
{
	struct pa_parked p = { };
	char fraction[16], scratch[16];
	int b, i, nid, swapped, restored = 0;

	swapped = pa_high_fraction_swap("8", fraction, sizeof(fraction));
	migrate_disable();
	p.cpu[0] = smp_processor_id();
	p.cpu[1] = cpumask_any_but(cpu_online_mask, p.cpu[0]);
	nid = cpu_to_mem(p.cpu[0]);
	if (p.cpu[1] < nr_cpu_ids && !swapped)
		p.taken = pa_parked_take(&p, nid);
	if (p.taken)
		pa_park_and_take_back(&p);
	migrate_enable();
	if (!swapped)
		restored = pa_high_fraction_swap(fraction, scratch, sizeof(scratch));

	KUNIT_ASSERT_EQ_MSG(test, swapped, 0, "writing 8 to %s", PA_HIGH_FRACTION);
	KUNIT_ASSERT_EQ_MSG(test, restored, 0, "restoring %s", PA_HIGH_FRACTION);
	KUNIT_ASSERT_LT_MSG(test, p.cpu[1], (int)nr_cpu_ids, "a second CPU online");
	KUNIT_ASSERT_TRUE_MSG(test, p.taken, "no %lu free pages in one block on node %d",
			      PA_DRAIN_PAGES, nid);
	KUNIT_ASSERT_EQ(test, p.stopped, 0);
	for (b = 0; b < PA_NR_BLOCKS; b++) {
		struct page *page = pfn_to_page(p.pfn[b]);

		KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(page), p.zone, "block %d's zone", b);
		KUNIT_ASSERT_EQ_MSG(test, pa_pageblock_mt(page), MIGRATE_MOVABLE,
				    "block %d's pageblock", b);
	}
	pr_info("pa_kunit: %s: %s: %lu pages parked on CPU %d; then %lu on CPU %d (pcp count %d)\n",
		test->name, p.zone->name, p.parked[PA_BEFORE_1][1], p.cpu[1],
		p.parked[PA_BEFORE_2][0], p.cpu[0], p.count);
	KUNIT_ASSERT_GT_MSG(test, p.parked[PA_BEFORE_1][1], 0UL, "no page parked on CPU %d",
			    p.cpu[1]);
#ifdef CONFIG_PCP_BATCH_SCALE_MAX
	KUNIT_ASSERT_GT_MSG(test, p.parked[PA_BEFORE_2][0],
			    (unsigned long)p.batch << CONFIG_PCP_BATCH_SCALE_MAX,
			    "CPU %d's parked pages within one round of a drain", p.cpu[0]);
#endif
	/* Assertions: a case's log keeps 512 bytes, the first failure's. */
	for (i = 0; i < 2; i++) {
		int after = i ? PA_AFTER_2 : PA_AFTER_1;

		KUNIT_ASSERT_EQ_MSG(test, p.ret[i], 0,
				    "alloc_contig_range() %d of a block freed on CPU %d", i + 1,
				    p.cpu[0]);
		KUNIT_ASSERT_EQ_MSG(test, p.parked[after][0], 0UL,
				    "pages still parked on CPU %d after drain %d", p.cpu[0], i + 1);
		KUNIT_ASSERT_EQ_MSG(test, p.parked[after][1], 0UL,
				    "pages still parked on CPU %d after drain %d", p.cpu[1], i + 1);
	}
}
