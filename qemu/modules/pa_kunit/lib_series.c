// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the series suite: exact zone counts under stop_machine(),
 * a zone with room to spare, and scratch memory KUnit frees.
 */

#include "pa_kunit.h"

/*
 * The series suite checks what each patch of series.txt (and each
 * dropped one, in dropped/) must keep: its cases pass on the base as well
 * as on every commit of the series.
 *
 * The pcp cases need exact counts, which a running system never holds
 * still, and the slow-path case needs a watermark state that nobody
 * changes under it, so they run under stop_machine(): every other CPU
 * spins with interrupts off, and the case itself runs with interrupts
 * off, so no one else allocates, frees or folds a vmstat delta
 * meanwhile, and zone_page_state_snapshot() is exact.  They only make
 * requests that neither sleep nor reclaim there, and the pcp cases take
 * them from a zone with plenty of free memory.  (The slow-path case's
 * __GFP_NOFAIL requests, which must be able to reclaim, come right after,
 * from ZONE_DMA, which nobody else asks for.)
 */

static int pa_kv_init(struct kunit_resource *res, void *context)
{
	res->data = kvzalloc(*(size_t *)context, GFP_KERNEL);
	return res->data ? 0 : -ENOMEM;
}

static void pa_kv_free(struct kunit_resource *res)
{
	kvfree(res->data);
}

/* Zeroed memory, possibly vmalloc'ed, that KUnit frees when the case ends. */
void *pa_kvzalloc(struct kunit *test, size_t bytes)
{
	void *p = kunit_alloc_resource(test, pa_kv_init, pa_kv_free, GFP_KERNEL, &bytes);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Order-0 pages that overflow a pcp list from empty: pcp->high plus slack. */
int pa_overflow_pages(struct per_cpu_pages *pcp)
{
	return READ_ONCE(pcp->high) + 2 * READ_ONCE(pcp->batch);
}

#if PA_PCP_HIGH_TUNED
/*
 * Every CPU's pcp of @zone back to the zone's own high_min and high_max,
 * as zone_pcp_update() would set them now (not as they were: an update
 * meanwhile would otherwise be undone).
 */
static void pa_pcp_unpin_high(void *arg)
{
	struct zone *zone = arg;
	int high_min = READ_ONCE(zone->pageset_high_min);
	int high_max = READ_ONCE(zone->pageset_high_max);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *pcp = per_cpu_ptr(zone->per_cpu_pageset, cpu);

		WRITE_ONCE(pcp->high_min, high_min);
		WRITE_ONCE(pcp->high_max, high_max);
	}
}

/* Every CPU's pcp->high of @zone at @high until the case ends. */
static void pa_pcp_pin_high_at(struct kunit *test, struct zone *zone, int high)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *pcp = per_cpu_ptr(zone->per_cpu_pageset, cpu);

		WRITE_ONCE(pcp->high_min, high);
		WRITE_ONCE(pcp->high_max, high);
		WRITE_ONCE(pcp->high, high);
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pa_pcp_unpin_high, zone), 0);
}

/*
 * Freeze every CPU's pcp->high of @zone until the case ends: pcp->high
 * grows by a batch whenever a free finds the list full, up to
 * pcp->high_max, so a run of frees may never overflow it.  With
 * high_min == high_max, nr_pcp_high() returns pcp->high as 6.1 did.  One
 * value for every CPU (a helper task may free on either), at least four
 * batches (a pcp never used has pcp->high 0) and at most
 * batch << (CONFIG_PCP_BATCH_SCALE_MAX - 1), so that a high-order free
 * that drains (at most batch << CONFIG_PCP_BATCH_SCALE_MAX pages)
 * empties a list that was full.
 */
void pa_pcp_pin_high(struct kunit *test, struct zone *zone)
{
	int batch = READ_ONCE(zone->pageset_batch);

	BUILD_BUG_ON(CONFIG_PCP_BATCH_SCALE_MAX < 3);
	pa_pcp_pin_high_at(test, zone, clamp(READ_ONCE(zone->pageset_high_min), batch << 2,
					     batch << (CONFIG_PCP_BATCH_SCALE_MAX - 1)));
}

/*
 * Room for @pages more on every CPU's pcp of @zone until the case ends:
 * pcp->high pinned above anything the lists hold now (at most high_max
 * and a batch) by @pages, so that no free trims and no vmstat work
 * decays pcp->high or drains.
 */
void pa_pcp_make_room(struct kunit *test, struct zone *zone, int pages)
{
	pa_pcp_pin_high_at(test, zone, READ_ONCE(zone->pageset_high_max) + pages +
			   2 * READ_ONCE(zone->pageset_batch));
}

/*
 * An order-0 refill takes pcp->batch << pcp->alloc_factor pages, and each
 * refill that no free follows doubles it: start from one batch.
 */
void pa_pcp_unscale_refill(struct per_cpu_pages *pcp)
{
	pcp->alloc_factor = 0;
}

/*
 * Blocks the next refill of an empty list takes, pcp->high pinned
 * (nr_pcp_alloc()): at order 0 the batch scaled by @factor (the
 * alloc_factor it must have) but leaving a batch of room below
 * pcp->high, above it one batch in blocks.
 */
int pa_pcp_refill_blocks(struct per_cpu_pages *pcp, unsigned int order, int factor)
{
	int batch = READ_ONCE(pcp->batch);
	int high = clamp(READ_ONCE(pcp->high), READ_ONCE(pcp->high_min), READ_ONCE(pcp->high_max));

	if (high < batch)
		return 1;
	if (!order)
		return min(batch << factor, max(high - pcp->count - batch, batch));
	return batch > 1 ? max(batch >> order, 2) : 1;
}

/*
 * The next high-order free drains: frees ran in a row, the last of a high
 * order, and the list keeps a batch if it must (free_unref_page_commit()).
 */
bool pa_pcp_drain_armed(struct per_cpu_pages *pcp)
{
	return pcp->free_count >= pcp->batch && (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) &&
	       (!(pcp->flags & PCPF_FREE_HIGH_BATCH) || pcp->count >= pcp->batch);
}
#else
/* 6.1's pcp->high stays where the zone's setup put it. */
void pa_pcp_pin_high(struct kunit *test, struct zone *zone)
{
}

/* 6.1's refill always takes one batch. */
void pa_pcp_unscale_refill(struct per_cpu_pages *pcp)
{
}

/* 6.1's pcp->high does not tune itself: no trim comes before it. */
void pa_pcp_make_room(struct kunit *test, struct zone *zone, int pages)
{
}

/* 6.1's refill takes one batch, in blocks of the order (rmqueue_pcplist()). */
int pa_pcp_refill_blocks(struct per_cpu_pages *pcp, unsigned int order, int factor)
{
	int batch = READ_ONCE(pcp->batch);

	return batch > 1 ? max(batch >> order, 2) : 1;
}

/* 6.1: a trim raises pcp->free_factor; a high-order free then drains all. */
bool pa_pcp_drain_armed(struct per_cpu_pages *pcp)
{
	return pcp->free_factor > 0;
}
#endif

/* NR_FREE_PAGES of @zone with every CPU's unfolded delta. */
long pa_zone_free(struct zone *zone)
{
	return zone_page_state_snapshot(zone, NR_FREE_PAGES);
}

/* All free pages of @zone: the buddy lists plus every CPU's pcp lists. */
long pa_zone_free_total(struct zone *zone)
{
	long sum = pa_zone_free(zone);
	int cpu;

	for_each_online_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, cpu)->count);
	return sum;
}

/*
 * Whether @zone has room to spare even after @overflows times the pages
 * that overflow this CPU's pcp list are taken from it.
 */
static bool pa_zone_spare(struct zone *zone, unsigned int overflows)
{
	unsigned long pages;

	if (!zone || !pa_zone_roomy(zone, zone_idx(zone)))
		return false;
	pages = overflows * pa_overflow_pages(raw_cpu_ptr(zone->per_cpu_pageset));
	return zone_page_state(zone, NR_FREE_PAGES) >
	       pages + 2 * high_wmark_pages(zone) + 4096;
}

/* This CPU's zone if it has room to spare, else any zone that has. */
struct zone *pa_roomy_zone(unsigned int overflows)
{
	struct zone *zone = pa_local_zone();
	int nid, zid;

	if (pa_zone_spare(zone, overflows))
		return zone;
	for_each_node_state(nid, N_MEMORY) {
		for (zid = ZONE_NORMAL; zid >= ZONE_DMA32; zid--) {
			zone = pa_node_zone(nid, zid);
			if (pa_zone_spare(zone, overflows))
				return zone;
		}
	}
	return NULL;
}

/*
 * Whether a request of @order and class @highidx that cannot block may
 * be served from @zone in the slow path: the min-watermark check of
 * __zone_watermark_ok(), counting the highatomic reserve as unusable
 * (the allocator may count it as usable, so this is the stricter test).
 */
bool pa_min_path_open(struct zone *zone, unsigned int order, int highidx)
{
	long free = zone_page_state(zone, NR_FREE_PAGES);
	unsigned int o;
	int mt;

	free -= (1L << order) - 1 + READ_ONCE(zone->nr_reserved_highatomic);
	if (free <= (long)(min_wmark_pages(zone) + zone->lowmem_reserve[highidx]))
		return false;
	if (!order)
		return true;
	for (o = order; o < MAX_ORDER; o++)
		for (mt = 0; mt < MIGRATE_PCPTYPES; mt++)
			if (!free_area_empty(&zone->free_area[o], mt))
				return true;
	return false;
}

/*
 * Whether a block is in the state an allocation hands out: off the free
 * lists, one reference, and zeroed when @gfp asks for it.
 */
bool pa_block_allocated(struct page *page, unsigned int order, gfp_t gfp)
{
	unsigned long i;

	if (is_free_buddy_page(page) || page_ref_count(page) != 1)
		return false;
	if (!want_init_on_alloc(gfp))
		return true;
	for (i = 0; i < (1UL << order); i++) {
		unsigned long *word = page_address(page + i);

		if (word[0] || word[PAGE_SIZE / sizeof(*word) - 1])
			return false;
	}
	return true;
}

/*
 * NR_FREE_PAGES of @zone minus the pages on its free lists, isolated
 * pageblocks' left out: with nothing in flight this must be 0, since
 * pages moved into an isolated pageblock are taken out of the count and
 * put back only when the isolation ends.
 */
long pa_free_count_off(struct zone *zone)
{
	long pages = 0;
	unsigned int order;

	for (order = 0; order < MAX_ORDER; order++) {
		struct free_area *area = &zone->free_area[order];
		long blocks = area->nr_free;
		struct page *page;

		list_for_each_entry(page, &area->free_list[MIGRATE_ISOLATE], buddy_list)
			blocks--;
		pages += blocks << order;
	}
	return pa_zone_free(zone) - pages;
}
