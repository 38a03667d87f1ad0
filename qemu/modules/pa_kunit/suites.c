// SPDX-License-Identifier: GPL-2.0
/*
 * Which cases make up which suite, in the order they run.
 */

#include "pa_kunit.h"

/*
 * A case whose path takes an order runs at those of pa_order_params(),
 * or of pa_low_order_params() where it holds below the costly orders
 * only (lib.c): order 0, a pcp order above it, and one past the pcp
 * orders.
 */
static struct kunit_case pagealloc_seed_cases[] = {
	/*
	 * The __GFP_NOWARN case first: the oversized-order warning is
	 * WARN_ON_ONCE, so one that ignored __GFP_NOWARN would fire once, in
	 * whichever case asks first, and be silent from then on.
	 */
	KUNIT_CASE(pagealloc_order_too_large_nowarn_is_silent),
	KUNIT_CASE(pagealloc_order_too_large_returns_null),
	KUNIT_CASE_PARAM(pagealloc_thisnode_allocates_on_requested_node, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_preferred_node_is_used_when_it_has_room, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_no_node_allocates_on_local_node, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_zone_modifiers_pick_eligible_zone, pa_zone_params),
	KUNIT_CASE(pagealloc_dma_zones_respect_physical_limits),
	KUNIT_CASE_PARAM(pagealloc_fast_path_serves_without_reclaim, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_thisnode_charges_numa_hit, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_requests_served_from_matching_pageblocks, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_freed_page_returns_to_pageblock_migratetype,
			 pa_low_order_params),
	KUNIT_CASE_PARAM(pagealloc_pcp_reuses_hot_page, pa_hot_params),
	KUNIT_CASE(pagealloc_pcp_reuses_hot_pageblock_order_page),
	KUNIT_CASE(pagealloc_isolation_drains_pcp_lists_of_every_cpu),
	KUNIT_CASE_PARAM(pagealloc_thisnode_fails_without_eligible_zone, pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_slow_path_entered_under_pressure, pa_low_order_params),
	KUNIT_CASE(pagealloc_slow_path_serves_below_low_watermark),
	KUNIT_CASE(pagealloc_exhausted_node_falls_back_in_zonelist_order),
	{}
};

static struct kunit_suite pagealloc_seeds_suite = {
	.name = "pagealloc_seeds",
	.test_cases = pagealloc_seed_cases,
};

static struct kunit_case pagealloc_series_cases[] = {
	KUNIT_CASE(pagealloc_series_low_orders_never_fail),
	KUNIT_CASE(pagealloc_series_bulk_never_fails),
	KUNIT_CASE(pagealloc_series_nofail_low_orders_do_not_warn),
	KUNIT_CASE(pagealloc_series_nofail_order1_slow_path_does_not_warn),
	KUNIT_CASE_PARAM(pagealloc_series_pcp_refill_takes_one_batch, pa_refill_params),
	KUNIT_CASE(pagealloc_series_pcp_trims_keep_free_count_exact),
	KUNIT_CASE(pagealloc_series_pcp_drain_frees_exactly_the_list),
	KUNIT_CASE(pagealloc_series_isolated_pageblock_drain_keeps_free_count_exact),
	KUNIT_CASE(pagealloc_series_captured_drain_page_keeps_free_count_exact),
	KUNIT_CASE(pagealloc_series_page_list_free_returns_hot_pages),
	KUNIT_CASE(pagealloc_series_bulk_pages_are_allocated),
	KUNIT_CASE_PARAM(pagealloc_series_pcp_locked_goes_round_the_list, pa_order_params),
	KUNIT_CASE(pagealloc_series_concurrent_refill_and_drain_balance),
	KUNIT_CASE_PARAM(pagealloc_series_task_policy_still_steers_alloc_pages,
			 pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_series_task_policy_modes_steer_alloc_pages,
			 pa_policy_mode_params),
	KUNIT_CASE_PARAM(pagealloc_series_vma_policy_steers_vma_alloc_folio,
			 pa_vma_policy_params),
	KUNIT_CASE_PARAM(pagealloc_series_only_page_cache_writes_spread_dirty_pages,
			 pa_order_params),
	KUNIT_CASE_PARAM(pagealloc_series_free_returns_kmem_charge, pa_free_params),
	KUNIT_CASE_PARAM(pagealloc_series_free_clears_stray_mlock, pa_free_params),
	{}
};

static struct kunit_suite pagealloc_series_suite = {
	.name = "pagealloc_series",
	.test_cases = pagealloc_series_cases,
};

kunit_test_suites(&pagealloc_seeds_suite, &pagealloc_series_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the page allocator's fast paths, zones, nodes and pcp lists");
