// SPDX-License-Identifier: GPL-2.0
/*
 * The seeds suite, part one: orders, nodes, zones, the fast and slow
 * paths and the NUMA counters (2009 patches 02, 03, 04, 06 and 09).
 */

#include "pa_kunit.h"

/* ---- 02: order >= MAX_ORDER ------------------------------------------ */

void pagealloc_order_too_large_returns_null(struct kunit *test)
{
	static const unsigned int orders[] = { MAX_ORDER, MAX_ORDER + 1, 2 * MAX_ORDER, 31 };
	const gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	struct pa_pages *pp = pa_pages_new(test, false);
	struct page *page;
	int i;

	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		unsigned int order = orders[i];

		KUNIT_ASSERT_NULL_MSG(test, alloc_pages(gfp, order), "order %u", order);
		KUNIT_ASSERT_NULL_MSG(test, __alloc_pages_node(numa_mem_id(), gfp, order),
				      "order %u", order);
		KUNIT_ASSERT_NULL_MSG(test, alloc_pages_node(NUMA_NO_NODE, gfp | __GFP_THISNODE,
							     order), "order %u", order);
		KUNIT_ASSERT_EQ_MSG(test, __get_free_pages(gfp, order), 0UL, "order %u", order);
		KUNIT_ASSERT_NULL_MSG(test, folio_alloc(gfp, order), "order %u", order);
	}
	KUNIT_ASSERT_NULL(test, alloc_pages_exact(PAGE_SIZE << MAX_ORDER, gfp));

	/* The largest valid order is still served. */
	page = alloc_pages(PA_GFP_TRY, MAX_ORDER - 1);
	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "order %d", MAX_ORDER - 1);
	pa_pages_add(pp, page, MAX_ORDER - 1);
}

void pagealloc_order_too_large_nowarn_is_silent(struct kunit *test)
{
	bool tainted = test_taint(TAINT_WARN);
	int i;

	pa_watch_warnings(test);
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_NULL(test, alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER));
		KUNIT_ASSERT_NULL(test, __alloc_pages_node(numa_mem_id(),
							   GFP_NOWAIT | __GFP_NOWARN, MAX_ORDER));
	}
	KUNIT_ASSERT_EQ_MSG(test, pa_warnings_seen(), 0U,
			    "allocator warning despite __GFP_NOWARN");
	if (!tainted)
		KUNIT_ASSERT_FALSE(test, test_taint(TAINT_WARN));
}

/* ---- 03: the node asked for ------------------------------------------ */

/*
 * The node is chosen before the order counts, but the block comes from
 * the pcp lists or, past the orders they keep, from the buddy lists:
 * the cases of the node asked for run at orders of both.
 */
void pagealloc_thisnode_allocates_on_requested_node(struct kunit *test)
{
	unsigned int order = pa_param_order(test);
	struct pa_pages *pp = pa_pages_new(test, false);
	int nid, j;

	for_each_node_state(nid, N_MEMORY) {
		for (j = 0; j < 8; j++) {
			struct page *page;

			page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE, order);
			KUNIT_ASSERT_NOT_NULL_MSG(test, page, "node %d order %u", nid, order);
			pa_pages_add(pp, page, order);
			KUNIT_ASSERT_EQ_MSG(test, page_to_nid(page), nid,
					    "order %u request for node %d", order, nid);
		}
	}
}

void pagealloc_preferred_node_is_used_when_it_has_room(struct kunit *test)
{
	unsigned int order = pa_param_order(test);
	struct pa_pages *pp = pa_pages_new(test, false);
	int nid, i, tested = 0;

	for_each_node_state(nid, N_MEMORY) {
		if (!pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
			continue;
		tested++;
		for (i = 0; i < 8; i++) {
			struct page *page = __alloc_pages_node(nid, PA_GFP_TRY, order);

			KUNIT_ASSERT_NOT_NULL_MSG(test, page, "order %u on node %d", order, nid);
			pa_pages_add(pp, page, order);
			KUNIT_ASSERT_EQ_MSG(test, page_to_nid(page), nid,
					    "order %u request preferring node %d, which has room",
					    order, nid);
		}
	}
	if (!tested)
		kunit_skip(test, "no node has free memory to spare");
}

struct pa_local_result {
	unsigned int order;
	int expected_nid;
	int node_nid;
	int policy_nid;
	int nid_after;
};

/* Runs on a kworker bound to the CPU under test. */
static long pa_alloc_on_local_node(void *arg)
{
	struct pa_local_result *res = arg;
	struct page *page;

	res->expected_nid = numa_mem_id();
	res->node_nid = NUMA_NO_NODE;
	res->policy_nid = NUMA_NO_NODE;

	page = alloc_pages_node(NUMA_NO_NODE, PA_GFP_TRY, res->order);
	if (page) {
		res->node_nid = page_to_nid(page);
		__free_pages(page, res->order);
	}
	page = alloc_pages(PA_GFP_TRY, res->order);
	if (page) {
		res->policy_nid = page_to_nid(page);
		__free_pages(page, res->order);
	}
	res->nid_after = numa_mem_id();
	return 0;
}

void pagealloc_no_node_allocates_on_local_node(struct kunit *test)
{
	struct pa_local_result res = { .order = pa_param_order(test) };
	int cpu, tested = 0;

	for_each_online_cpu(cpu) {
		int nid = cpu_to_mem(cpu);

		if (!pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
			continue;
		work_on_cpu(cpu, pa_alloc_on_local_node, &res);
		tested++;
		KUNIT_ASSERT_EQ(test, res.expected_nid, res.nid_after);
		KUNIT_ASSERT_EQ(test, res.expected_nid, nid);
		KUNIT_ASSERT_EQ_MSG(test, res.node_nid, nid,
				    "order %u alloc_pages_node(NUMA_NO_NODE) on CPU %d",
				    res.order, cpu);
		KUNIT_ASSERT_EQ_MSG(test, res.policy_nid, nid, "order %u alloc_pages() on CPU %d",
				    res.order, cpu);
	}
	if (!tested)
		kunit_skip(test, "no CPU whose node has free memory to spare");
}

/* ---- 04: zone modifiers ---------------------------------------------- */

struct pa_zone_case {
	const char *name;
	gfp_t gfp;
	int zone;	/* what gfp_zone() must say */
};

static const struct pa_zone_case pa_zone_cases[] = {
	{ "none", 0, ZONE_NORMAL },
	{ "DMA", __GFP_DMA, ZONE_DMA },
	{ "HIGHMEM", __GFP_HIGHMEM, ZONE_NORMAL },
	{ "DMA32", __GFP_DMA32, ZONE_DMA32 },
	{ "MOVABLE", __GFP_MOVABLE, ZONE_NORMAL },
	{ "MOVABLE|DMA", __GFP_MOVABLE | __GFP_DMA, ZONE_DMA },
	{ "MOVABLE|HIGHMEM", __GFP_MOVABLE | __GFP_HIGHMEM, ZONE_MOVABLE },
	{ "MOVABLE|DMA32", __GFP_MOVABLE | __GFP_DMA32, ZONE_DMA32 },
};

/* One request of class @zc on @nid with __GFP_THISNODE. */
static void pa_check_zone_case_on_node(struct kunit *test, struct pa_pages *pp,
				       const struct pa_zone_case *zc, int nid)
{
	int highidx = gfp_zone(zc->gfp);
	struct zone *top = pa_top_zone(nid, highidx);
	bool roomy = pa_zone_roomy(top, highidx);
	struct page *page;

	page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE | zc->gfp, 0);
	if (page)
		pa_pages_add(pp, page, 0);
	if (!top) {
		KUNIT_ASSERT_NULL_MSG(test, page, "%s on node %d, which has no zone for it",
				      zc->name, nid);
		return;
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "%s on node %d", zc->name, nid);
	KUNIT_ASSERT_EQ_MSG(test, page_to_nid(page), nid, "%s", zc->name);
	KUNIT_ASSERT_LE_MSG(test, (int)page_zonenum(page), highidx, "%s on node %d",
			    zc->name, nid);
	/* With room in it, the highest eligible zone of the node serves. */
	if (roomy)
		KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(page), top, "%s on node %d",
					zc->name, nid);
	pa_assert_below_limit(test, page, 0, highidx);
}

static void pa_zone_case_desc(const struct pa_zone_case *zc, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", zc->name);
}

KUNIT_ARRAY_PARAM(pa_zone, pa_zone_cases, pa_zone_case_desc);

void pagealloc_zone_modifiers_pick_eligible_zone(struct kunit *test)
{
	const struct pa_zone_case *zc = test->param_value;
	struct pa_pages *pp = pa_pages_new(test, false);
	struct page *page;
	int nid;

	KUNIT_ASSERT_EQ_MSG(test, (int)gfp_zone(zc->gfp), zc->zone, "%s", zc->name);

	for_each_node_state(nid, N_MEMORY)
		pa_check_zone_case_on_node(test, pp, zc, nid);

	/* Without __GFP_THISNODE: any node, but never a higher zone. */
	page = alloc_pages(PA_GFP_TRY | zc->gfp, 0);
	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "%s", zc->name);
	pa_pages_add(pp, page, 0);
	KUNIT_ASSERT_LE_MSG(test, (int)page_zonenum(page), zc->zone, "%s", zc->name);
	pa_assert_below_limit(test, page, 0, zc->zone);
}

/* The generator for the case above, for suites.c. */
const void *pa_zone_params(const void *prev, char *desc)
{
	return pa_zone_gen_params(prev, desc);
}

void pagealloc_dma_zones_respect_physical_limits(struct kunit *test)
{
	static const gfp_t mods[] = { __GFP_DMA, __GFP_DMA32 };
	static const unsigned int orders[] = { 0, PAGE_ALLOC_COSTLY_ORDER, MAX_ORDER - 1 };
	int nid, i, j, k;

	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		int highidx = gfp_zone(mods[i]);

		for (j = 0; j < ARRAY_SIZE(orders); j++) {
			/* ZONE_DMA is 16 MiB: no room for several blocks of 4 MiB. */
			if (highidx == ZONE_DMA && orders[j] == MAX_ORDER - 1)
				continue;
			for_each_node_state(nid, N_MEMORY) {
				for (k = 0; k < 4; k++) {
					struct page *page;

					page = __alloc_pages_node(nid, PA_GFP_TRY | mods[i],
								  orders[j]);
					if (!page)
						continue;
					__free_pages(page, orders[j]);
					KUNIT_ASSERT_LE_MSG(test, (int)page_zonenum(page), highidx,
							    "%s order %u from node %d",
							    i ? "__GFP_DMA32" : "__GFP_DMA",
							    orders[j], nid);
					pa_assert_below_limit(test, page, orders[j], highidx);
				}
			}
		}
	}
}

/* ---- 06: fast path and slow path ------------------------------------- */

/*
 * A request that enters the slow path and may wake kswapd raises the
 * order kswapd is asked to reclaim for, in every node of its zonelist
 * (wakeup_kswapd(), even when the node is balanced and kswapd sleeps
 * on).  The fast path raises it for no one: its own kswapd wake-up, for a
 * boosted watermark, asks for order 0.  kswapd resets the order to 0 when
 * it takes it; so does this case, whose requests above order 0 then show
 * whether they took the slow path.  At order 0 only the reclaim and
 * compaction counters can tell, and a zone with room gives the slow path
 * no cause to count them: that order checks where the pages come from.
 */
static void pa_kswapd_order_clear(pg_data_t *pgdat)
{
	WRITE_ONCE(pgdat->kswapd_order, 0);
}

static int pa_kswapd_order(pg_data_t *pgdat)
{
	return READ_ONCE(pgdat->kswapd_order);
}

void pagealloc_fast_path_serves_without_reclaim(struct kunit *test)
{
	unsigned int order = pa_param_order(test);
	struct pa_pages *pp = pa_pages_new(test, false);
	unsigned long before = 0, after = 0;
	struct page *pages[8] = { NULL };
	struct zone *zone;
	int i, nid, order_hint = 0;
	bool roomy;

	migrate_disable();
	nid = numa_mem_id();
	zone = pa_top_zone(nid, ZONE_NORMAL);
	roomy = pa_zone_roomy(zone, ZONE_NORMAL);
	if (roomy) {
		before = pa_slow_path_events();
		pa_kswapd_order_clear(zone->zone_pgdat);
		for (i = 0; i < ARRAY_SIZE(pages); i++)
			pages[i] = alloc_pages_node(NUMA_NO_NODE, PA_GFP_TRY, order);
		order_hint = pa_kswapd_order(zone->zone_pgdat);
		after = pa_slow_path_events();
	}
	migrate_enable();
	if (!roomy)
		kunit_skip(test, "the local node %d has no free memory to spare", nid);

	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			pa_pages_add(pp, pages[i], order);
	KUNIT_ASSERT_EQ_MSG(test, pp->nr_blocks, (unsigned long)ARRAY_SIZE(pages),
			    "order %u blocks", order);
	KUNIT_ASSERT_EQ_MSG(test, after, before,
			    "order %u: reclaim or compaction with %s above watermarks", order,
			    zone->name);
	KUNIT_ASSERT_EQ_MSG(test, order_hint, 0,
			    "order %u: slow path entered with %s above watermarks", order,
			    zone->name);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(pages[i]), zone,
					"order %u request %d not served from the local %s", order,
					i, zone->name);
}

/*
 * Fill ZONE_DMA (small, so cheap to fill) with requests of one order
 * that may reclaim.  Once the zone is below its watermarks the fast path
 * gives up and the slow path runs; a request it cannot serve from the
 * free lists goes on to direct reclaim before failing, which counts an
 * allocstall.  Only up to PAGE_ALLOC_COSTLY_ORDER: a costly
 * __GFP_NORETRY request may give up after compaction without reclaiming.
 */
void pagealloc_slow_path_entered_under_pressure(struct kunit *test)
{
	const gfp_t gfp = PA_GFP_TRY | __GFP_DMA;
	unsigned int order = pa_param_order(test);
	struct pa_pages *pp = pa_pages_new(test, false);
	unsigned long stalls, limit, n;
	struct zone *dma = NULL;
	bool refused = false;
	long free_before;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		dma = pa_node_zone(nid, ZONE_DMA);
		if (dma)
			break;
	}
	if (!dma)
		kunit_skip(test, "no populated ZONE_DMA");

	free_before = pa_free_total();
	stalls = pa_alloc_stalls();
	limit = zone_managed_pages(dma) + 4096;
	for (n = 0; n < limit; n++) {
		struct page *page = __alloc_pages_node(zone_to_nid(dma), gfp, order);

		if (!page) {
			refused = true;
			break;
		}
		pa_pages_add(pp, page, order);
		KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(page), dma, "order %u", order);
		pa_assert_below_limit(test, page, order, ZONE_DMA);
		cond_resched();
	}
	stalls = pa_alloc_stalls() - stalls;
	pr_info("pa_kunit: %lu pages in order-%u blocks filled ZONE_DMA, then %lu reclaim stalls\n",
		pp->nr_pages, order, stalls);

	KUNIT_ASSERT_TRUE_MSG(test, refused, "ZONE_DMA never ran out of order %u", order);
	KUNIT_ASSERT_GT_MSG(test, stalls, 0UL,
			    "order %u: the failing request never tried direct reclaim", order);
	pa_pages_free(pp);
	pa_assert_free_restored(test, free_before);
}

/* ---- 09: NUMA statistics --------------------------------------------- */

/* Counted once a request, whatever its order, on the pcp and buddy paths alike. */
void pagealloc_thisnode_charges_numa_hit(struct kunit *test)
{
	unsigned int order = pa_param_order(test);
	const unsigned long nr = 32;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		struct pa_pages *pp = pa_pages_new(test, false);
		enum numa_stat_item locality;
		unsigned long hit, where, i;

		migrate_disable();
		locality = nid == numa_node_id() ? NUMA_LOCAL : NUMA_OTHER;
		hit = pa_node_numa(nid, NUMA_HIT);
		where = pa_node_numa(nid, locality);
		for (i = 0; i < nr; i++) {
			struct page *page;

			page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE, order);
			if (page)
				pa_pages_add(pp, page, order);
		}
		hit = pa_node_numa(nid, NUMA_HIT) - hit;
		where = pa_node_numa(nid, locality) - where;
		migrate_enable();

		KUNIT_ASSERT_EQ_MSG(test, pp->nr_blocks, nr, "order %u blocks on node %d", order,
				    nid);
		KUNIT_ASSERT_GE_MSG(test, hit, nr, "order %u: numa_hit of node %d", order, nid);
		KUNIT_ASSERT_GE_MSG(test, where, nr, "order %u: %s of node %d", order,
				    locality == NUMA_LOCAL ? "local_node" : "other_node", nid);
	}
}
