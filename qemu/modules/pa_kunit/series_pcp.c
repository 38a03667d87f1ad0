// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: the pcp lists.  A refill takes exactly one batch,
 * served in list order (the guard of the dropped
 * check-pcp-refill-after-unlock), and account-pcp-drain-once keeps
 * NR_FREE_PAGES exact across trims and drains, drains into an isolated
 * pageblock included.  With the pcp lock held, an allocation and a free
 * go round the list and leave the preempt count as they found it.
 *
 * Where pcp->high tunes itself (6.7 on, PA_PCP_HIGH_TUNED), an order-0 refill
 * that follows a refill with no free between takes up to twice the batch, a
 * run of frees overflows the list only once pcp->high is pinned, and a
 * high-order free drains only after another high-order free: the cases
 * expect that kernel's behaviour there, 6.1's on 6.1.
 */

#include "pa_kunit.h"

/* ---- check-pcp-refill-after-unlock (dropped) -------------------------- */

struct pa_refill {
	unsigned int order;
	int mt;
	struct pa_pages *held;
	struct page **next;		/* the refilled list, head first */
	struct zone *zone;
	bool not_empty;			/* the list could not be emptied */
	bool failed;			/* an allocation returned NULL */
	int batch;
	long blocks;			/* blocks a refill must take */
	long free_drop, count_rise;	/* by the allocation that refills */
	long listed;			/* blocks left on the list after it */
	unsigned long mismatched;	/* next blocks not taken from that list in order */
	long free_drop_next;		/* NR_FREE_PAGES change while taking them */
	long count_left;		/* pcp count change over the whole refill */
	bool emptied;			/* the list was empty afterwards */
	long free_drop_again, count_rise_again;	/* the next refill */
	long blocks_again;		/* blocks it must take */
	unsigned long bad;		/* blocks misplaced, free or not cleared */
};

static bool pa_block_ok(struct page *page, unsigned int order, struct zone *zone, gfp_t gfp)
{
	return page_zone(page) == zone && IS_ALIGNED(page_to_pfn(page), 1UL << order) &&
	       pa_block_allocated(page, order, gfp);
}

static struct page *pa_refill_take(struct pa_refill *r)
{
	struct page *page = pa_alloc_atomic(r->zone, r->order, r->mt);

	if (!page) {
		r->failed = true;
		return NULL;
	}
	pa_pages_add(r->held, page, r->order);
	if (!pa_block_ok(page, r->order, r->zone, PA_GFP_ATOMIC))
		r->bad++;
	return page;
}

/*
 * Empty this CPU's list for the order and migratetype, then allocate:
 * one refill moves exactly the batch (scaled to the order) off the
 * buddy lists, hands out its first block and leaves the rest on the
 * list, from which the next requests are served in list order without
 * touching the buddy lists, until the list is empty and the next
 * request refills it again: with one batch again on 6.1, with two at
 * order 0 where refills scale (the first refill starts unscaled) and
 * pcp->high, pinned, leaves the room.
 */
static int pa_refill_fn(void *arg)
{
	struct pa_refill *r = arg;
	struct per_cpu_pages *pcp;
	struct list_head *list;
	struct page *page;
	long free, count, n;

	pcp = this_cpu_ptr(r->zone->per_cpu_pageset);
	list = &pcp->lists[pa_pindex(r->order, r->mt)];

	for (n = 0; n < PA_EMPTY_MAX && !list_empty(list); n++) {
		struct list_head *first = list->next;

		page = pa_refill_take(r);
		if (!page || &page->pcp_list != first)
			break;
	}
	r->not_empty = !list_empty(list);
	if (r->not_empty || r->failed)
		return 0;

	r->batch = pcp->batch;
	pa_pcp_unscale_refill(pcp);
	r->blocks = pa_pcp_refill_blocks(pcp, r->order, 0);
	if (r->blocks > PA_REFILL_MAX)
		return 0;

	free = pa_zone_free(r->zone);
	count = pcp->count;
	if (!pa_refill_take(r))
		return 0;
	r->free_drop = free - pa_zone_free(r->zone);
	r->count_rise = pcp->count - count;

	r->listed = 0;
	list_for_each_entry(page, list, pcp_list) {
		if (r->listed == PA_REFILL_MAX)
			break;
		r->next[r->listed++] = page;
	}

	free = pa_zone_free(r->zone);
	for (n = 0; n < r->listed; n++) {
		page = pa_refill_take(r);
		if (!page)
			return 0;
		if (page != r->next[n])
			r->mismatched++;
	}
	r->free_drop_next = free - pa_zone_free(r->zone);
	r->count_left = pcp->count - count;
	r->emptied = list_empty(list);

	free = pa_zone_free(r->zone);
	count = pcp->count;
	/* The first order-0 refill doubled the next one's batch. */
	r->blocks_again = pa_pcp_refill_blocks(pcp, r->order, PA_PCP_HIGH_TUNED && !r->order);
	if (!pa_refill_take(r))
		return 0;
	r->free_drop_again = free - pa_zone_free(r->zone);
	r->count_rise_again = pcp->count - count;
	return 0;
}

static void pa_check_refill(struct kunit *test, struct page **next, unsigned int order, int mt)
{
	struct pa_refill r = { .order = order, .mt = mt, .next = next };
	long pages;

	r.zone = pa_roomy_zone(0);
	if (!r.zone)
		kunit_skip(test, "no zone has free memory to spare");
	pa_pcp_pin_high(test, r.zone);
	r.held = pa_pages_new(test, false);
	KUNIT_ASSERT_EQ(test, stop_machine(pa_refill_fn, &r, NULL), 0);

	KUNIT_ASSERT_FALSE_MSG(test, r.not_empty, "order %u: pcp list not emptied", order);
	KUNIT_ASSERT_FALSE_MSG(test, r.failed, "order %u: allocation failed", order);
	KUNIT_ASSERT_GT_MSG(test, r.batch, 1, "%s: pcp batch", r.zone->name);
	KUNIT_ASSERT_LE(test, r.blocks, (long)PA_REFILL_MAX);
	pages = r.blocks << order;

	KUNIT_ASSERT_EQ_MSG(test, r.free_drop, pages, "order %u refill, batch %d: free pages",
			    order, r.batch);
	KUNIT_ASSERT_EQ_MSG(test, r.count_rise, pages - (1L << order),
			    "order %u refill, batch %d: pcp count", order, r.batch);
	KUNIT_ASSERT_EQ_MSG(test, r.listed, r.blocks - 1, "order %u: blocks left on the list",
			    order);
	KUNIT_ASSERT_EQ_MSG(test, r.mismatched, 0UL, "order %u: not served in list order",
			    order);
	KUNIT_ASSERT_EQ_MSG(test, r.free_drop_next, 0L, "order %u: list served by the buddy",
			    order);
	KUNIT_ASSERT_EQ_MSG(test, r.count_left, 0L, "order %u: pcp count", order);
	KUNIT_ASSERT_TRUE_MSG(test, r.emptied, "order %u: list not empty", order);
	KUNIT_ASSERT_EQ_MSG(test, r.free_drop_again, r.blocks_again << order,
			    "order %u second refill, %ld blocks", order, r.blocks_again);
	KUNIT_ASSERT_EQ_MSG(test, r.count_rise_again, (r.blocks_again - 1) << order,
			    "order %u second refill: pcp count", order);
	KUNIT_ASSERT_EQ_MSG(test, r.bad, 0UL, "order %u: blocks misplaced, free or dirty",
			    order);
}

/*
 * Every order the pcp lists keep below pageblock_order, and the movable
 * lists at order 0 and, with THP, at pageblock_order.
 */
static const struct pa_block_kind pa_refill_kinds[] = {
	{ 0, MIGRATE_UNMOVABLE }, { 1, MIGRATE_UNMOVABLE },
	{ 2, MIGRATE_UNMOVABLE }, { PAGE_ALLOC_COSTLY_ORDER, MIGRATE_UNMOVABLE },
	{ 0, MIGRATE_MOVABLE },
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	{ pageblock_order, MIGRATE_MOVABLE },
#endif
};

KUNIT_ARRAY_PARAM(pa_refill, pa_refill_kinds, pa_block_kind_desc);

void pagealloc_series_pcp_refill_takes_one_batch(struct kunit *test)
{
	const struct pa_block_kind *kind = test->param_value;
	struct page **next = kunit_kcalloc(test, PA_REFILL_MAX, sizeof(*next), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, next);
	pa_check_refill(test, next, kind->order, kind->mt);
}

/* The generator for the case above, for suites.c. */
const void *pa_refill_params(const void *prev, char *desc)
{
	return pa_refill_gen_params(prev, desc);
}

/* ---- account-pcp-drain-once ------------------------------------------- */

struct pa_drain {
	struct page **pages;		/* order-0 pages freed one by one */
	struct zone *zone;
	int high, batch, nr;
	bool too_many;			/* nr above PA_DRAIN_MAX */
	bool failed;			/* an allocation failed or missed the zone */
	long start, end;		/* free pages of the zone, buddy plus pcp */
	unsigned long drift;		/* frees that changed that by other than 1 */
	unsigned long trims, trimmed;	/* pcp trims while freeing, pages they moved */
	bool armed;			/* the order-1 free was to drain */
	long pcp_before, pcp_after;	/* this CPU's pcp count around it */
	long free_rise;			/* NR_FREE_PAGES change it caused */
	unsigned long not_buddy;	/* freed pages not free in the buddy lists */
};

/*
 * Hold an order-1 block and more order-0 pages than pcp->high, then free
 * the order-0 pages one at a time: the list overflows and
 * free_pcppages_bulk() trims it by a batch or more, several times.  At
 * every step the zone's free pages, buddy plus pcp, must have grown by
 * exactly the page freed.  The trims leave pcp->free_factor raised, so
 * freeing the order-1 block next drains every list of this CPU for the
 * zone in one free_pcppages_bulk() call, which must raise NR_FREE_PAGES
 * by exactly what the lists held and leave every page in the buddy.
 * Where pcp->high tunes itself, the case pins it (the frees would raise
 * it instead of trimming), and one more order-1 block freed after the
 * order-0 pages arms the drain: a high-order free drains only when the
 * free before it was of a high order too.
 */
static int pa_drain_fn(void *arg)
{
	struct pa_drain *d = arg;
	struct per_cpu_pages *pcp = this_cpu_ptr(d->zone->per_cpu_pageset);
	struct page *block, *arm = NULL;
	long total, free;
	int i, n;

	d->high = pcp->high;
	d->batch = pcp->batch;
	d->nr = pa_overflow_pages(pcp);
	d->too_many = d->nr > PA_DRAIN_MAX;
	if (d->too_many)
		return 0;

	d->start = pa_zone_free_total(d->zone);
	block = pa_alloc_atomic(d->zone, 1, MIGRATE_UNMOVABLE);
	if (PA_PCP_HIGH_TUNED)
		arm = pa_alloc_atomic(d->zone, 1, MIGRATE_UNMOVABLE);
	for (n = 0; n < d->nr; n++) {
		d->pages[n] = pa_alloc_atomic(d->zone, 0, MIGRATE_UNMOVABLE);
		if (!d->pages[n] || page_zone(d->pages[n]) != d->zone)
			break;
	}
	if (!block || page_zone(block) != d->zone || n < d->nr ||
	    (PA_PCP_HIGH_TUNED && (!arm || page_zone(arm) != d->zone))) {
		d->failed = true;
		if (n < d->nr && d->pages[n])
			n++;
		for (i = 0; i < n; i++)
			__free_pages(d->pages[i], 0);
		if (block)
			__free_pages(block, 1);
		if (arm)
			__free_pages(arm, 1);
		return 0;
	}

	total = pa_zone_free_total(d->zone);
	for (i = 0; i < d->nr; i++) {
		int count = pcp->count;

		__free_pages(d->pages[i], 0);
		if (pcp->count <= count) {
			d->trims++;
			d->trimmed += count + 1 - pcp->count;
		}
		if (pa_zone_free_total(d->zone) != ++total) {
			d->drift++;
			total = pa_zone_free_total(d->zone);
		}
	}

	if (arm)
		__free_pages(arm, 1);
	d->armed = pa_pcp_drain_armed(pcp);
	d->pcp_before = pcp->count;
	free = pa_zone_free(d->zone);
	__free_pages(block, 1);
	d->pcp_after = pcp->count;
	d->free_rise = pa_zone_free(d->zone) - free;

	for (i = 0; i < d->nr; i++)
		d->not_buddy += !is_free_buddy_page(d->pages[i]);
	d->not_buddy += !is_free_buddy_page(block);
	if (arm)
		d->not_buddy += !is_free_buddy_page(arm);
	d->end = pa_zone_free_total(d->zone);
	return 0;
}

static void pa_run_drain(struct kunit *test, struct pa_drain *d)
{
	d->pages = pa_kvzalloc(test, PA_DRAIN_MAX * sizeof(*d->pages));
	d->zone = pa_roomy_zone(1);
	if (!d->zone)
		kunit_skip(test, "no zone has free memory to spare");
	pa_pcp_pin_high(test, d->zone);
	KUNIT_ASSERT_EQ(test, stop_machine(pa_drain_fn, d, NULL), 0);
	if (d->too_many)
		kunit_skip(test, "pcp->high %d of %s is too large", d->high, d->zone->name);
	pr_info("pa_kunit: %s: %s high %d batch %d: %lu trims freed %lu pages, then %ld drained\n",
		test->name, d->zone->name, d->high, d->batch, d->trims, d->trimmed,
		d->free_rise);
	KUNIT_ASSERT_FALSE_MSG(test, d->failed, "allocations from %s failed", d->zone->name);
}

void pagealloc_series_pcp_trims_keep_free_count_exact(struct kunit *test)
{
	struct pa_drain d = { };

	pa_run_drain(test, &d);
	KUNIT_ASSERT_GT_MSG(test, d.trims, 0UL, "no trim freeing %d pages, high %d, batch %d",
			    d.nr, d.high, d.batch);
	KUNIT_ASSERT_EQ_MSG(test, d.drift, 0UL, "buddy plus pcp pages off by a free (%lu trims)",
			    d.trims);
	KUNIT_ASSERT_EQ_MSG(test, d.end, d.start, "free pages of %s", d.zone->name);
}

void pagealloc_series_pcp_drain_frees_exactly_the_list(struct kunit *test)
{
	struct pa_drain d = { };

	pa_run_drain(test, &d);
	KUNIT_ASSERT_TRUE_MSG(test, d.armed, "no drain due after %lu trims", d.trims);
	KUNIT_ASSERT_EQ_MSG(test, d.pcp_after, 0L, "pcp count after the drain (was %ld)",
			    d.pcp_before);
	KUNIT_ASSERT_EQ_MSG(test, d.free_rise, d.pcp_before + 2,
			    "NR_FREE_PAGES rise for %ld pcp pages plus an order-1 block",
			    d.pcp_before);
	KUNIT_ASSERT_EQ_MSG(test, d.not_buddy, 0UL, "freed pages not back in the buddy lists");
	KUNIT_ASSERT_EQ_MSG(test, d.end, d.start, "free pages of %s", d.zone->name);
}

/* ---- account-pcp-drain-once: isolated pageblocks ---------------------- */

struct pa_isolated {
	struct zone *zone;
	unsigned long pfn, nr;		/* the pageblock the case frees */
	long off;			/* NR_FREE_PAGES minus the free lists' pages */
	unsigned long parked;		/* pages of the pageblock on pcp lists */
};

static int pa_isolated_fn(void *arg)
{
	struct pa_isolated *c = arg;
	struct page *page;
	int cpu;

	c->off = pa_free_count_off(c->zone);
	c->parked = 0;
	for_each_online_cpu(cpu) {
		struct per_cpu_pages *pcp = per_cpu_ptr(c->zone->per_cpu_pageset, cpu);

		list_for_each_entry(page, &pcp->lists[pa_pindex(0, MIGRATE_MOVABLE)], pcp_list)
			c->parked += page_to_pfn(page) - c->pfn < c->nr;
	}
	return 0;
}

/* Free the pageblock a page at a time, then count what stayed parked. */
static int pa_isolated_free_fn(void *arg)
{
	struct pa_isolated *c = arg;
	unsigned long i;

	for (i = 0; i < c->nr; i++)
		__free_page(pfn_to_page(c->pfn + i));
	return pa_isolated_fn(c);
}

static void pa_isolated_read(struct kunit *test, struct pa_isolated *c)
{
	KUNIT_ASSERT_EQ(test, stop_machine(pa_isolated_fn, c, NULL), 0);
}

/*
 * Free a movable pageblock one page at a time, so that its last pages
 * stay on the pcp list, then take it back with alloc_contig_range(): it
 * isolates the pageblock, then drains every pcp list, and
 * free_pcppages_bulk() puts the parked pages on the isolated free list,
 * which NR_FREE_PAGES does not count.  A drain that counted them would
 * leave NR_FREE_PAGES above the free lists for good.
 */
void pagealloc_series_isolated_pageblock_drain_keeps_free_count_exact(struct kunit *test)
{
	struct pa_isolated c = { .nr = pageblock_nr_pages };
	/* stop_machine() runs its function there: the zone is that CPU's own */
	int nid = cpu_to_mem(cpumask_first(cpu_online_mask));
	struct page *page;
	unsigned long parked;
	long off_before, off_held;
	int mt, ret;

	page = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE |
				__GFP_NORETRY | __GFP_NOWARN, pageblock_order);
	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "no free pageblock on node %d", nid);
	mt = pa_pageblock_mt(page);
	c.zone = page_zone(page);
	c.pfn = page_to_pfn(page);
	split_page(page, pageblock_order);
	if (mt != MIGRATE_MOVABLE) {
		free_contig_range(c.pfn, c.nr);
		KUNIT_FAIL(test, "a movable pageblock-sized request got a %s pageblock",
			   pa_mt_name(mt));
		return;
	}

	/*
	 * Judge only what this case changes: a mutated drain may already
	 * have moved the count in an earlier case.
	 */
	pa_isolated_read(test, &c);
	off_before = c.off;
	/*
	 * With room on the lists, so that no free trims them, and nothing
	 * else running, so that no vmstat work (6.12 decays pcp->high and
	 * drains there) empties them before they are counted.
	 */
	pa_pcp_make_room(test, c.zone, c.nr);
	KUNIT_ASSERT_EQ(test, stop_machine(pa_isolated_free_fn, &c, NULL), 0);
	parked = c.parked;
	KUNIT_ASSERT_GT_MSG(test, parked, 0UL, "no page of the pageblock left on a pcp list");

	ret = alloc_contig_range(c.pfn, c.pfn + c.nr, MIGRATE_MOVABLE, GFP_KERNEL | __GFP_NOWARN);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "alloc_contig_range() of the pageblock just freed");
	pa_isolated_read(test, &c);
	off_held = c.off - off_before;
	free_contig_range(c.pfn, c.nr);
	pa_isolated_read(test, &c);

	pr_info("pa_kunit: %s: %s pfn %lu: %lu pages on pcp lists when it was isolated\n",
		test->name, c.zone->name, c.pfn, parked);
	KUNIT_ASSERT_EQ_MSG(test, off_held, 0L,
			    "NR_FREE_PAGES of %s off its free lists by %ld after %lu pcp pages drained into an isolated pageblock",
			    c.zone->name, off_held, parked);
	KUNIT_ASSERT_EQ_MSG(test, c.off - off_before, 0L,
			    "NR_FREE_PAGES of %s off its free lists by %ld at the end",
			    c.zone->name, c.off - off_before);
}

/* ---- the pcp trylock -------------------------------------------------- */

/*
 * An interrupt that allocates while the task it interrupted holds this
 * CPU's pcp lock must be served all the same: the trylock fails and the
 * request goes round the pcp list, to the buddy lists, as does a free.
 * Neither may touch the list, and each must leave the preempt count as
 * it found it, on that path and on the ordinary one (the pcp-lock
 * candidate takes the lock without spin_trylock()'s own preempt round
 * trip, so both paths must balance the pin by themselves).  The orders
 * the pcp lists keep all take the trylock; a larger one never does, and
 * must not start to.
 */
struct pa_locked {
	unsigned int order;
	struct zone *zone;
	bool got_plain;		/* the allocation with the lock free succeeded */
	bool got;		/* the allocation under the held lock succeeded */
	int count_moved;	/* pcp->count change across it and its free */
	int locked_moved;	/* preempt count change, lock held */
	int plain_moved;	/* preempt count change, lock free */
};

/*
 * Allocate and free one block of @order from @zone: the change of the
 * preempt count, which is then given back, so that the CPU runs on after
 * a path that broke it.
 */
static int pa_pair_preempt_moved(struct zone *zone, unsigned int order, bool *got)
{
	int depth = preempt_count();
	struct page *page = pa_alloc_atomic(zone, order, MIGRATE_UNMOVABLE);
	int moved, n;

	*got = page;
	if (page)
		__free_pages(page, order);
	moved = preempt_count() - depth;
	for (n = moved; n > 0; n--)
		preempt_enable();
	for (n = moved; n < 0; n++)
		preempt_disable();
	return moved;
}

static int pa_locked_fn(void *arg)
{
	struct pa_locked *l = arg;
	struct per_cpu_pages *pcp;
	int count;

	l->zone = pa_roomy_zone(0);
	if (!l->zone)
		return 0;
	pcp = this_cpu_ptr(l->zone->per_cpu_pageset);

	l->plain_moved = pa_pair_preempt_moved(l->zone, l->order, &l->got_plain);

	spin_lock(&pcp->lock);
	count = pcp->count;
	l->locked_moved = pa_pair_preempt_moved(l->zone, l->order, &l->got);
	l->count_moved = pcp->count - count;
	spin_unlock(&pcp->lock);
	return 0;
}

void pagealloc_series_pcp_locked_goes_round_the_list(struct kunit *test)
{
	struct pa_locked l = { .order = pa_param_order(test) };
	bool ok;

	/*
	 * A UP trylock always succeeds, and PREEMPT_RT's pcp lock sleeps,
	 * which stop_machine()'s callback may not.
	 */
	if (!IS_ENABLED(CONFIG_SMP) || IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "needs an SMP kernel without PREEMPT_RT");
	KUNIT_ASSERT_EQ(test, stop_machine(pa_locked_fn, &l, NULL), 0);
	if (!l.zone)
		kunit_skip(test, "no zone has free memory to spare");
	ok = l.got && l.got_plain && !l.count_moved && !l.locked_moved && !l.plain_moved;
	KUNIT_EXPECT_TRUE_MSG(test, ok,
			      "order %u: pcp locked: got %d, count %+d, preempt %+d; unlocked: got %d, preempt %+d",
			      l.order, l.got, l.count_moved, l.locked_moved, l.got_plain,
			      l.plain_moved);
}
