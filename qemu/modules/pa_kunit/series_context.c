// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: what __alloc_pages() reads from its allocation
 * context.  alloc-context-uninitialized stops zeroing the context on
 * entry, so every field must be written by prepare_alloc_pages() before
 * it is read; one that is not is read as whatever the stack held.
 */

#include "pa_kunit.h"

/* ---- alloc-context-uninitialized --------------------------------------- */

/* Far more dirty pages than any node of the guest may hold. */
#define PA_DIRTY_FLOOD	(64L * 1024 * 1024)

/*
 * Leave a kilobyte of the stack below the caller's frame set to ones,
 * where the frame of the allocation the caller makes next will be.
 */
static noinline void pa_soil_stack(void)
{
	u8 junk[1024];

	memset(junk, 0xff, sizeof(junk));
	barrier_data(junk);
}

static int pa_node_of(struct page *page)
{
	return page ? page_to_nid(page) : NUMA_NO_NODE;
}

/*
 * Only a __GFP_WRITE allocation may leave a node for being over its
 * dirty limit (spread_dirty_pages).  With the node's dirty count flooded,
 * a __GFP_WRITE allocation that prefers it goes elsewhere, which shows
 * the limit is exceeded; an allocation without __GFP_WRITE made on a
 * stack full of ones must still be served there.  The context is the
 * same at every order, but the zone loop that reads it serves the pcp
 * orders and larger ones by different paths.
 */
void pagealloc_series_only_page_cache_writes_spread_dirty_pages(struct kunit *test)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	unsigned int order = pa_param_order(test);
	struct pa_pages *held = pa_pages_new(test, false);
	struct page *write, *plain;
	int nid = numa_node_id();

	if (num_online_nodes() < 2 || !pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
		kunit_skip(test, "needs a second node and room on node %d", nid);

	mod_node_page_state(NODE_DATA(nid), NR_FILE_DIRTY, PA_DIRTY_FLOOD);
	write = alloc_pages_node(nid, gfp | __GFP_WRITE, order);
	pa_soil_stack();
	plain = alloc_pages_node(nid, gfp, order);
	mod_node_page_state(NODE_DATA(nid), NR_FILE_DIRTY, -PA_DIRTY_FLOOD);
	if (write)
		pa_pages_add(held, write, order);
	if (plain)
		pa_pages_add(held, plain, order);

	KUNIT_ASSERT_NOT_NULL_MSG(test, write, "no block for an order %u __GFP_WRITE request",
				  order);
	KUNIT_ASSERT_NE_MSG(test, pa_node_of(write), nid,
			    "order %u: a __GFP_WRITE request stayed on node %d over its dirty limit",
			    order, nid);
	KUNIT_ASSERT_EQ_MSG(test, pa_node_of(plain), nid,
			    "order %u: a request without __GFP_WRITE left node %d for its dirty pages",
			    order, nid);
}
