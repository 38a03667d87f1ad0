// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: compile-out-should-fail-alloc-page (allocations that
 * must never fail spuriously) and the guard of the dropped
 * nofail-warning-in-slow-path (no __GFP_NOFAIL warning below order 2).
 */

#include "pa_kunit.h"

/* ---- compile-out-should-fail-alloc-page ------------------------------- */

struct pa_gfp_case {
	const char *name;
	gfp_t gfp;
};

static const struct pa_gfp_case pa_plain_gfps[] = {
	{ "GFP_KERNEL", GFP_KERNEL },
	{ "GFP_ATOMIC", GFP_ATOMIC },
	{ "GFP_NOWAIT", GFP_NOWAIT },
	{ "GFP_NOIO", GFP_NOIO },
	{ "GFP_HIGHUSER_MOVABLE", GFP_HIGHUSER_MOVABLE },
};

/*
 * With memory plentiful and no fault injection configured (the guest
 * kernel has neither CONFIG_FAIL_PAGE_ALLOC nor function error
 * injection), no request of a cheap order may fail, however
 * should_fail_alloc_page() is built.
 */
void pagealloc_series_low_orders_never_fail(struct kunit *test)
{
	struct pa_pages *pp = pa_pages_new(test, false);
	unsigned int order;
	int i, n;

	if (!pa_zone_roomy(pa_local_zone(), ZONE_NORMAL))
		kunit_skip(test, "the local node has no free memory to spare");

	for (i = 0; i < ARRAY_SIZE(pa_plain_gfps); i++) {
		const struct pa_gfp_case *gc = &pa_plain_gfps[i];

		for (order = 0; order < PA_SERIES_ORDERS; order++) {
			for (n = 0; n < 256; n++) {
				struct page *page;

				page = alloc_pages(gc->gfp | __GFP_NOWARN, order);
				KUNIT_ASSERT_NOT_NULL_MSG(test, page, "%s order %u failed at %d",
							  gc->name, order, n);
				pa_pages_add(pp, page, order);
				if (pp->nr_blocks == 64)
					pa_pages_free(pp);
			}
			pa_pages_free(pp);
		}
	}
}

/* The bulk allocator goes through the same prepare_alloc_pages(). */
void pagealloc_series_bulk_never_fails(struct kunit *test)
{
	static const gfp_t gfps[] = { GFP_KERNEL, GFP_ATOMIC };
	const unsigned long nr = 64;
	unsigned long got, i;
	struct page **pages;
	int g, round;

	if (!pa_zone_roomy(pa_local_zone(), ZONE_NORMAL))
		kunit_skip(test, "the local node has no free memory to spare");
	pages = kunit_kcalloc(test, nr, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);

	for (g = 0; g < ARRAY_SIZE(gfps); g++) {
		for (round = 0; round < 32; round++) {
			got = alloc_pages_bulk_array(gfps[g] | __GFP_NOWARN, nr, pages);
			for (i = 0; i < nr; i++) {
				if (pages[i])
					__free_pages(pages[i], 0);
				pages[i] = NULL;
			}
			KUNIT_ASSERT_EQ_MSG(test, got, nr, "%s round %d",
					    g ? "GFP_ATOMIC" : "GFP_KERNEL", round);
		}
	}
}

/* ---- nofail-warning-in-slow-path (dropped) ---------------------------- */

/*
 * The warning is for __GFP_NOFAIL above order 1 only: __GFP_NOFAIL
 * requests of order 0 and 1 succeed without a WARNING, and requests of
 * any order without __GFP_NOFAIL never trigger it.
 */
void pagealloc_series_nofail_low_orders_do_not_warn(struct kunit *test)
{
	static const gfp_t gfps[] = { GFP_KERNEL, GFP_NOFS, GFP_NOIO };
	static const unsigned int big[] = { 2, PAGE_ALLOC_COSTLY_ORDER, pageblock_order };
	struct pa_pages *pp = pa_pages_new(test, false);
	bool tainted = test_taint(TAINT_WARN);
	unsigned int order;
	struct page *page;
	int i, n, nid;

	if (!pa_zone_roomy(pa_local_zone(), ZONE_NORMAL))
		kunit_skip(test, "the local node has no free memory to spare");
	pa_watch_warnings(test);

	for (order = 0; order <= 1; order++) {
		for (i = 0; i < ARRAY_SIZE(gfps); i++) {
			for (n = 0; n < 16; n++) {
				page = alloc_pages(gfps[i] | __GFP_NOFAIL, order);
				KUNIT_ASSERT_NOT_NULL(test, page);
				pa_pages_add(pp, page, order);
			}
		}
		for_each_node_state(nid, N_MEMORY) {
			if (!pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
				continue;
			page = __alloc_pages_node(nid, GFP_KERNEL | __GFP_NOFAIL, order);
			KUNIT_ASSERT_NOT_NULL(test, page);
			pa_pages_add(pp, page, order);
		}
	}
	for (i = 0; i < ARRAY_SIZE(big); i++) {
		page = alloc_pages(PA_GFP_TRY, big[i]);
		KUNIT_ASSERT_NOT_NULL_MSG(test, page, "order %u", big[i]);
		pa_pages_add(pp, page, big[i]);
	}

	KUNIT_ASSERT_EQ_MSG(test, pa_warnings_seen(), 0U,
			    "allocator WARNING for __GFP_NOFAIL of order <= 1");
	if (!tainted)
		KUNIT_ASSERT_FALSE(test, test_taint(TAINT_WARN));
}

struct pa_nofail_slow {
	struct zone *dma;
	struct pa_pages *held;
	bool shut;			/* fast path refused order 1 */
	bool open;			/* min watermark allowed order 1 */
	bool moved;			/* ...no longer, when the request came */
	bool order0_tried;
	struct page *page1, *page0;
};

/* ZONE_DMA only, on its node, and never a word on the console. */
#define PA_GFP_DMA_ONLY		(__GFP_NOWARN | __GFP_DMA | __GFP_THISNODE)

/*
 * The __GFP_NOFAIL requests of the slow-path case.  On 6.1 they neither
 * block nor reclaim, so they run with nothing else running and, should
 * the zone be short, fail instead of looping.  6.12 warns of a
 * __GFP_NOFAIL request that cannot reclaim (pa_compat.h), so there they
 * may, without waking kswapd, and run right after.
 */
#ifdef PA_NOFAIL_RECLAIMS
#define PA_GFP_NOFAIL_SLOW	((GFP_KERNEL & ~__GFP_KSWAPD_RECLAIM) | __GFP_NOFAIL)
#else
#define PA_GFP_NOFAIL_SLOW	__GFP_NOFAIL
#endif
#define PA_NOFAIL_SLEEPS	(!!(PA_GFP_NOFAIL_SLOW & __GFP_DIRECT_RECLAIM))

static void pa_nofail_request(struct pa_nofail_slow *s);

/*
 * Lower ZONE_DMA with order-0 requests that neither reclaim nor wake
 * kswapd until the fast path's low-watermark check refuses order 1, with
 * nothing else running (ZONE_DMA then stays there, for nobody else asks
 * for it), and make the requests that cannot sleep.
 */
static int pa_nofail_lower_fn(void *arg)
{
	struct pa_nofail_slow *s = arg;
	struct zone *dma = s->dma;
	int nid = zone_to_nid(dma);
	unsigned long n, limit = zone_managed_pages(dma);

	for (n = 0; n < limit && !pa_fast_path_shut(nid, ZONE_DMA, 1); n++) {
		struct page *page;

		/* A scaled refill could take the zone past min in one step. */
		pa_pcp_unscale_refill(this_cpu_ptr(dma->per_cpu_pageset));
		page = __alloc_pages_node(nid, PA_GFP_DMA_ONLY, 0);

		if (!page)
			break;
		pa_pages_add(s->held, page, 0);
	}
	s->shut = pa_fast_path_shut(nid, ZONE_DMA, 1);
	s->open = pa_min_path_open(dma, 1, ZONE_DMA);
	if (!PA_NOFAIL_SLEEPS && s->shut && s->open)
		pa_nofail_request(s);
	return 0;
}

/*
 * Then __GFP_NOFAIL requests of order 1 and 0: they enter the slow path
 * and are served at its min watermark, which the lowering left open.
 */
static void pa_nofail_request(struct pa_nofail_slow *s)
{
	const gfp_t gfp = PA_GFP_NOFAIL_SLOW | PA_GFP_DMA_ONLY;
	int nid = zone_to_nid(s->dma);

	/*
	 * A request that may sleep comes after stop_machine(): should
	 * anything have moved ZONE_DMA meanwhile, it could loop for good.
	 */
	s->moved = !pa_fast_path_shut(nid, ZONE_DMA, 1) || !pa_min_path_open(s->dma, 1, ZONE_DMA);
	if (s->moved)
		return;
	s->page1 = __alloc_pages_node(nid, gfp, 1);
	if (s->page1)
		pa_pages_add(s->held, s->page1, 1);
	if (pa_fast_path_shut(nid, ZONE_DMA, 0) && pa_min_path_open(s->dma, 0, ZONE_DMA)) {
		s->order0_tried = true;
		s->page0 = __alloc_pages_node(nid, gfp, 0);
		if (s->page0)
			pa_pages_add(s->held, s->page0, 0);
	}
}

/*
 * An order-1 __GFP_NOFAIL request that only the slow path's min
 * watermark can serve is served there, without a warning.  rmqueue()
 * checks the order on both paths today; the dropped patch moved the
 * check into the slow path, and this case is what it had to pass.
 */
void pagealloc_series_nofail_order1_slow_path_does_not_warn(struct kunit *test)
{
	struct pa_nofail_slow s = { };
	bool tainted = test_taint(TAINT_WARN);
	long free_before;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		s.dma = pa_node_zone(nid, ZONE_DMA);
		if (s.dma)
			break;
	}
	if (!s.dma)
		kunit_skip(test, "no populated ZONE_DMA");
	s.held = pa_pages_new(test, false);
	free_before = pa_free_total();
	pa_watch_warnings(test);

	KUNIT_ASSERT_EQ(test, stop_machine(pa_nofail_lower_fn, &s, NULL), 0);
	if (PA_NOFAIL_SLEEPS && s.shut && s.open)
		pa_nofail_request(&s);
	pr_info("pa_kunit: %s: %lu pages taken from ZONE_DMA, order 0 %s\n", test->name,
		s.held->nr_pages, s.order0_tried ? "tried" : "not tried");

	KUNIT_ASSERT_TRUE_MSG(test, s.shut, "ZONE_DMA stayed above its low watermark");
	if (!s.open)
		kunit_skip(test, "ZONE_DMA has no order-1 block above its min watermark");
	KUNIT_ASSERT_FALSE_MSG(test, s.moved, "ZONE_DMA moved before the request; not made");
	KUNIT_ASSERT_NOT_NULL_MSG(test, s.page1, "order-1 __GFP_NOFAIL in the slow path");
	KUNIT_ASSERT_PTR_EQ(test, page_zone(s.page1), s.dma);
	if (s.order0_tried)
		KUNIT_ASSERT_NOT_NULL_MSG(test, s.page0, "order-0 __GFP_NOFAIL in the slow path");
	KUNIT_ASSERT_EQ_MSG(test, pa_warnings_seen(), 0U,
			    "allocator WARNING for __GFP_NOFAIL of order <= 1");
	if (!tainted)
		KUNIT_ASSERT_FALSE(test, test_taint(TAINT_WARN));
	pa_pages_free(s.held);
	pa_assert_free_restored(test, free_before);
}
