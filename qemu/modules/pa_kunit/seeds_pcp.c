// SPDX-License-Identifier: GPL-2.0
/*
 * The seeds suite, part two: migratetypes, hot pages on the pcp lists,
 * __GFP_THISNODE, and a node that runs out (2009 patches 06, 09, 14, 16,
 * 18 and 20).
 */

#include "pa_kunit.h"

/* ---- 14 and 18: migratetypes ----------------------------------------- */

/*
 * Fresh pages of each migratetype, from the buddy lists rather than
 * whatever the pcp lists held: the pcp lists are emptied first, so the
 * requests of an order they keep are served by a new batch, and those
 * of a larger order bypass them.
 */
void pagealloc_requests_served_from_matching_pageblocks(struct kunit *test)
{
	static const int mts[] = { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE };
	unsigned int order = pa_param_order(test);
	int i, k;

	for (i = 0; i < ARRAY_SIZE(mts); i++) {
		struct pa_pages *held = pa_pages_new(test, false);
		struct pa_pages *got = pa_pages_new(test, false);
		struct page *page;
		struct zone *zone;

		preempt_disable();
		zone = pa_local_zone();
		pa_pcp_empty(zone, held);
		for (k = 0; k < 16; k++) {
			page = pa_alloc_atomic(zone, order, mts[i]);
			if (page)
				pa_pages_add(got, page, order);
		}
		preempt_enable();

		KUNIT_ASSERT_EQ_MSG(test, got->nr_blocks, 16UL, "order %u %s blocks", order,
				    pa_mt_name(mts[i]));
		list_for_each_entry(page, &got->list, lru) {
			KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(page), zone, "order %u %s request",
						order, pa_mt_name(mts[i]));
			KUNIT_ASSERT_EQ_MSG(test, pa_pageblock_mt(page), mts[i],
					    "%s request of order %lu got pfn %#lx",
					    pa_mt_name(mts[i]), page_private(page),
					    page_to_pfn(page));
		}
	}
}

/*
 * Free a block and ask for one of another migratetype, then for one of
 * the pageblock's migratetype: the freed block must only come back for
 * the latter, since it went to the pcp list of its pageblock's type.
 * Only at the orders the pcp lists keep: past them the block goes to the
 * buddy lists, where it may merge with its buddy or go to the tail.
 */
static void pa_check_free_by_pageblock(struct kunit *test, unsigned int order, int mt)
{
	struct pa_pages *held = pa_pages_new(test, false);
	struct page *a, *x = NULL, *y = NULL;
	int blk = -1, other = -1;
	bool usable = false;
	struct zone *zone;

	preempt_disable();
	zone = pa_local_zone();
	pa_pcp_settle(zone, held);
	a = pa_alloc_atomic(zone, order, mt);
	if (a) {
		blk = pa_pageblock_mt(a);
		usable = page_zone(a) == zone && blk < MIGRATE_PCPTYPES &&
			 pa_pcp_keeps_freed(zone, order, blk);
	}
	if (usable) {
		other = blk == MIGRATE_MOVABLE ? MIGRATE_UNMOVABLE : MIGRATE_MOVABLE;
		__free_pages(a, order);
		x = pa_alloc_atomic(zone, order, other);
		y = pa_alloc_atomic(zone, order, blk);
	}
	preempt_enable();

	if (!usable && a)
		pa_pages_add(held, a, order);
	if (x)
		pa_pages_add(held, x, order);
	if (y && y != x)
		pa_pages_add(held, y, order);
	KUNIT_ASSERT_TRUE_MSG(test, usable, "no usable order-%u %s block (pageblock type %d) in %s",
			      order, pa_mt_name(mt), blk, zone->name);
	KUNIT_ASSERT_PTR_NE_MSG(test, x, a,
				"order %u: page of a %s pageblock went to a %s request", order,
				pa_mt_name(blk), pa_mt_name(other));
	KUNIT_ASSERT_PTR_EQ_MSG(test, y, a, "order %u: page of a %s pageblock not reused",
				order, pa_mt_name(blk));
}

void pagealloc_freed_page_returns_to_pageblock_migratetype(struct kunit *test)
{
	unsigned int order = pa_param_order(test);

	pa_check_free_by_pageblock(test, order, MIGRATE_MOVABLE);
	pa_check_free_by_pageblock(test, order, MIGRATE_UNMOVABLE);
}

/* ---- 20: hot pages on the pcp lists ---------------------------------- */

/*
 * Free a block and at once allocate the same order and type on the same
 * CPU: the block must come straight back (the pcp lists are LIFO).
 */
static void pa_check_hot_reuse(struct kunit *test, unsigned int order, int mt)
{
	struct pa_pages *held = pa_pages_new(test, false);
	int count = 0, high = 0, batch = 0;
	struct page *a = NULL, *b = NULL;
	struct per_cpu_pages *pcp;
	struct zone *zone = NULL;
	bool usable = false;
	int attempt;

	for (attempt = 0; attempt < 3 && !usable; attempt++) {
		preempt_disable();
		zone = pa_local_zone();
		pa_pcp_settle(zone, held);
		a = pa_alloc_atomic(zone, order, mt);
		pcp = this_cpu_ptr(zone->per_cpu_pageset);
		count = READ_ONCE(pcp->count);
		high = READ_ONCE(pcp->high);
		batch = READ_ONCE(pcp->batch);
		usable = a && page_zone(a) == zone && pa_pcp_keeps_freed(zone, order, mt);
		if (usable) {
			__free_pages(a, order);
			b = pa_alloc_atomic(zone, order, mt);
		}
		preempt_enable();
		if (!usable && a)
			pa_pages_add(held, a, order);
	}
	if (b)
		pa_pages_add(held, b, order);

	KUNIT_ASSERT_TRUE_MSG(test, usable, "order %u %s: no room on pcp list (%d/%d, batch %d)",
			      order, pa_mt_name(mt), count, high, batch);
	KUNIT_ASSERT_PTR_EQ_MSG(test, b, a, "order %u %s in %s: freed block not reused",
				order, pa_mt_name(mt), zone->name);
}

/* Every order the pcp lists keep below pageblock_order, both main types. */
static const struct pa_block_kind pa_hot_kinds[] = {
	{ 0, MIGRATE_UNMOVABLE }, { 0, MIGRATE_MOVABLE },
	{ 1, MIGRATE_UNMOVABLE }, { 1, MIGRATE_MOVABLE },
	{ 2, MIGRATE_UNMOVABLE }, { 2, MIGRATE_MOVABLE },
	{ PAGE_ALLOC_COSTLY_ORDER, MIGRATE_UNMOVABLE },
	{ PAGE_ALLOC_COSTLY_ORDER, MIGRATE_MOVABLE },
};

KUNIT_ARRAY_PARAM(pa_hot, pa_hot_kinds, pa_block_kind_desc);

void pagealloc_pcp_reuses_hot_page(struct kunit *test)
{
	const struct pa_block_kind *kind = test->param_value;

	pa_check_hot_reuse(test, kind->order, kind->mt);
}

/* The generator for the case above, for suites.c. */
const void *pa_hot_params(const void *prev, char *desc)
{
	return pa_hot_gen_params(prev, desc);
}

void pagealloc_pcp_reuses_hot_pageblock_order_page(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "pageblock-order pages use the pcp lists only with THP");
	pa_check_hot_reuse(test, pageblock_order, MIGRATE_MOVABLE);
	pa_check_hot_reuse(test, pageblock_order, MIGRATE_UNMOVABLE);
}

/* ---- 16: __GFP_THISNODE ---------------------------------------------- */

/*
 * __GFP_THISNODE on a node without any zone for the request fails, on
 * the pcp path and on the buddy path alike.
 */
void pagealloc_thisnode_fails_without_eligible_zone(struct kunit *test)
{
	unsigned int order = pa_param_order(test);
	struct pa_pages *pp = pa_pages_new(test, false);
	int nid, tested = 0;

	for_each_node_state(nid, N_MEMORY) {
		struct page *page;

		if (pa_top_zone(nid, ZONE_DMA))
			continue;
		tested++;
		page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE | __GFP_DMA, order);
		if (page)
			pa_pages_add(pp, page, order);
		KUNIT_ASSERT_NULL_MSG(test, page, "order %u __GFP_DMA|__GFP_THISNODE on node %d",
				      order, nid);

		/* Without __GFP_THISNODE the zonelist leads to another node's DMA zone. */
		page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_DMA, order);
		KUNIT_ASSERT_NOT_NULL_MSG(test, page, "order %u __GFP_DMA from node %d", order,
					  nid);
		pa_pages_add(pp, page, order);
		KUNIT_ASSERT_NE_MSG(test, page_to_nid(page), nid, "order %u", order);
		KUNIT_ASSERT_EQ_MSG(test, (int)page_zonenum(page), ZONE_DMA, "order %u", order);
	}
	if (!tested)
		kunit_skip(test, "every node with memory has a DMA zone");
}

/* ---- 06, 09 and 16: a node runs out ---------------------------------- */

/*
 * Whether the fast path, which checks the low watermark, must refuse a
 * request of @order and class @highidx on @nid: in every zone it may use,
 * the free pages left after the block would not stay above the low
 * watermark plus the reserve kept from that class.
 */
bool pa_fast_path_shut(int nid, int highidx, unsigned int order)
{
	int zid;

	for (zid = 0; zid <= highidx; zid++) {
		struct zone *zone = pa_node_zone(nid, zid);

		if (zone && zone_page_state(zone, NR_FREE_PAGES) >=
			    low_wmark_pages(zone) + zone->lowmem_reserve[highidx] + (1UL << order))
			return false;
	}
	return true;
}

/* One node filled with __GFP_THISNODE requests of one class. */
struct pa_exhaust {
	int nid;
	int highidx;
	gfp_t gfp;
	unsigned long deadline;
	struct pa_pages *pages;
	unsigned long stray;		/* pages from another node */
	unsigned long past_low;		/* blocks served with the fast path shut */
	bool timed_out;
};

/* Allocate one order until the allocator refuses; false to stop altogether. */
static bool pa_exhaust_order(struct pa_exhaust *ex, unsigned int order)
{
	for (;;) {
		bool shut = pa_fast_path_shut(ex->nid, ex->highidx, order);
		struct page *page;

		if (time_after(jiffies, ex->deadline)) {
			ex->timed_out = true;
			return false;
		}
		page = __alloc_pages_node(ex->nid, ex->gfp, order);
		if (!page)
			return true;
		pa_pages_add(ex->pages, page, order);
		if (page_to_nid(page) != ex->nid) {
			ex->stray++;
			return false;
		}
		if (shut)
			ex->past_low++;
		cond_resched();
	}
}

/* Largest blocks first, then every smaller order, until all are refused. */
static void pa_exhaust_node(struct pa_exhaust *ex)
{
	int order;

	for (order = MAX_ORDER - 1; order >= 0; order--)
		if (!pa_exhaust_order(ex, order))
			return;
}

struct pa_fallback_plan {
	int nid;		/* the node to exhaust */
	int highidx;		/* class of the requests */
	gfp_t gfp;
	struct zone *pref;	/* where the requests start */
	struct zone *next;	/* first zone of another node in the zonelist */
	unsigned long cost;	/* free pages to consume */
};

/* The first zone of another node that @nid's zonelist offers for @highidx. */
static struct zone *pa_first_remote_zone(int nid, int highidx)
{
	struct zonelist *zl = &NODE_DATA(nid)->node_zonelists[ZONELIST_FALLBACK];
	struct zoneref *z;

	for (z = zl->_zonerefs; z->zone; z++) {
		if (zonelist_zone_idx(z) > highidx)
			continue;
		if (zone_to_nid(z->zone) != nid)
			return z->zone;
	}
	return NULL;
}

/*
 * Pick the node and request class whose exhaustion costs least, among
 * those whose zonelist leads next to another node with room to spare.
 */
static bool pa_plan_fallback(struct pa_fallback_plan *plan)
{
	static const int classes[] = { ZONE_DMA32, ZONE_NORMAL };
	bool found = false;
	int nid, i;

	for_each_node_state(nid, N_MEMORY) {
		for (i = 0; i < ARRAY_SIZE(classes); i++) {
			int highidx = classes[i];
			struct zone *pref = pa_top_zone(nid, highidx);
			struct zone *next = pa_first_remote_zone(nid, highidx);
			unsigned long cost = pa_node_free(nid, highidx);

			if (!pref || !next || !pa_zone_roomy(next, highidx))
				continue;
			if (found && cost >= plan->cost)
				continue;
			found = true;
			plan->nid = nid;
			plan->highidx = highidx;
			plan->gfp = GFP_KERNEL | __GFP_MOVABLE | pa_zone_gfp(highidx);
			plan->pref = pref;
			plan->next = next;
			plan->cost = cost;
		}
	}
	return found;
}

/*
 * Exhaust the planned node with non-blocking __GFP_THISNODE requests
 * (movable, so that no pageblock changes type; no reclaim, so the run
 * is short).  Skips the case if that does not finish in time.
 */
static struct pa_exhaust *pa_exhaust_planned_node(struct kunit *test,
						  struct pa_fallback_plan *plan)
{
	struct pa_exhaust *ex;

	if (num_node_state(N_MEMORY) < 2)
		kunit_skip(test, "needs two nodes with memory");
	if (!pa_plan_fallback(plan))
		kunit_skip(test, "no node whose zonelist falls back to a node with room");

	ex = kunit_kzalloc(test, sizeof(*ex), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ex);
	ex->pages = pa_pages_new(test, false);
	ex->nid = plan->nid;
	ex->highidx = plan->highidx;
	ex->gfp = PA_GFP_ATOMIC | __GFP_THISNODE | (plan->gfp & ~GFP_KERNEL);
	ex->deadline = jiffies + exhaust_seconds * HZ;

	pr_info("pa_kunit: %s: exhausting node %d up to %s (%lu free pages), next node %d %s\n",
		test->name, plan->nid, plan->pref->name, plan->cost, zone_to_nid(plan->next),
		plan->next->name);
	pa_exhaust_node(ex);
	pr_info("pa_kunit: %s: held %lu pages, %lu blocks with the fast path shut\n",
		test->name, ex->pages->nr_pages, ex->past_low);
	if (ex->timed_out)
		kunit_skip(test, "node %d not exhausted within %u s", plan->nid, exhaust_seconds);
	return ex;
}

/*
 * The fast path only allocates while a zone stays above its low
 * watermark; the slow path recomputes alloc_flags and goes on down to
 * the min watermark.  Blocks handed out while every zone the request
 * may use was too low for the fast path were served by the slow path.
 */
void pagealloc_slow_path_serves_below_low_watermark(struct kunit *test)
{
	struct pa_fallback_plan plan;
	struct pa_exhaust *ex;
	long free_before;

	free_before = pa_free_total();
	ex = pa_exhaust_planned_node(test, &plan);

	KUNIT_ASSERT_EQ(test, ex->stray, 0UL);
	KUNIT_ASSERT_TRUE_MSG(test, pa_fast_path_shut(plan.nid, plan.highidx, 0),
			      "node %d still above its low watermarks", plan.nid);
	KUNIT_ASSERT_GT_MSG(test, ex->past_low, 0UL,
			    "nothing served below the low watermark of node %d", plan.nid);
	pa_pages_free(ex->pages);
	pa_assert_free_restored(test, free_before);
}

/*
 * Exhaust one node with __GFP_THISNODE (the exhaustion ends because
 * __GFP_THISNODE requests fail rather than fall back), then allocate
 * preferring that node: the pages must come from the next zone in its
 * zonelist, and be counted as numa_miss there and numa_foreign on the
 * preferred zone.
 */
void pagealloc_exhausted_node_falls_back_in_zonelist_order(struct kunit *test)
{
	struct pa_pages *spill = pa_pages_new(test, false);
	const unsigned long nr = 16;
	struct pa_fallback_plan plan;
	unsigned long miss, foreign, i;
	struct pa_exhaust *ex;
	struct page *page;
	long free_before;

	free_before = pa_free_total();
	ex = pa_exhaust_planned_node(test, &plan);

	KUNIT_ASSERT_EQ_MSG(test, ex->stray, 0UL,
			    "__GFP_THISNODE request on node %d served elsewhere", plan.nid);
	KUNIT_ASSERT_TRUE_MSG(test, pa_zone_roomy(plan.next, plan.highidx),
			      "%s of node %d ran out too", plan.next->name, zone_to_nid(plan.next));

	/* A request that may reclaim still stays on the node, or fails. */
	page = __alloc_pages_node(plan.nid, plan.gfp | __GFP_THISNODE | __GFP_NORETRY |
				  __GFP_NOWARN, 0);
	if (page) {
		pa_pages_add(ex->pages, page, 0);
		KUNIT_ASSERT_EQ(test, page_to_nid(page), plan.nid);
	}

	miss = pa_zone_numa(plan.next, NUMA_MISS);
	foreign = pa_zone_numa(plan.pref, NUMA_FOREIGN);
	for (i = 0; i < nr; i++) {
		page = __alloc_pages_node(plan.nid, plan.gfp | __GFP_NORETRY | __GFP_NOWARN, 0);
		if (page)
			pa_pages_add(spill, page, 0);
	}
	miss = pa_zone_numa(plan.next, NUMA_MISS) - miss;
	foreign = pa_zone_numa(plan.pref, NUMA_FOREIGN) - foreign;

	KUNIT_ASSERT_EQ(test, spill->nr_blocks, nr);
	list_for_each_entry(page, &spill->list, lru)
		KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(page), plan.next,
					"fallback skipped %s of node %d", plan.next->name,
					zone_to_nid(plan.next));
	KUNIT_ASSERT_GE_MSG(test, miss, nr, "numa_miss of node %d %s",
			    zone_to_nid(plan.next), plan.next->name);
	KUNIT_ASSERT_GE_MSG(test, foreign, nr, "numa_foreign of node %d %s",
			    plan.nid, plan.pref->name);

	pa_pages_free(spill);
	pa_pages_free(ex->pages);
	pa_assert_free_restored(test, free_before);
}
