/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest modules are written against Debian's 6.1.  On 6.12 their
 * builds include this header before anything else (compat.mk), and it
 * gives them the 6.1 names of what was renamed since, and flags (PA_*)
 * for what behaves otherwise there.
 */
#ifndef PA_COMPAT_H
#define PA_COMPAT_H

/* 6.1's MAX_ORDER is the number of orders: NR_PAGE_ORDERS in 6.12. */
#define MAX_ORDER NR_PAGE_ORDERS

#define KUNIT_ASSERT_FAILURE KUNIT_FAIL_AND_ABORT

/* The memcg and mlock state of a page are its folio's only. */
#define page_memcg(page) folio_memcg(page_folio(page))
#define SetPageMlocked(page) folio_set_mlocked(page_folio(page))

/*
 * free_area_empty() moved to mm/internal.h, which the modules built with
 * -I mm (pa_kunit) can include.
 */
#if __has_include("internal.h")
#include "internal.h"
#endif

/*
 * Since 6.7 pcp->high moves between pcp->high_min and pcp->high_max as
 * the lists are used, an order-0 refill scales the batch by
 * pcp->alloc_factor, and 6.1's pcp->free_factor is gone: a high-order
 * free drains up to batch << CONFIG_PCP_BATCH_SCALE_MAX pages once
 * pcp->free_count and PCPF_PREV_FREE_HIGH_ORDER say frees run in a row.
 * The pcp helpers of pa_kunit (lib_series.c) follow this flag.
 */
#define PA_PCP_HIGH_TUNED 1

/*
 * Since 6.12 __alloc_pages_slowpath() warns of a __GFP_NOFAIL request
 * that cannot reclaim directly.
 */
#define PA_NOFAIL_RECLAIMS 1

#endif /* PA_COMPAT_H */
