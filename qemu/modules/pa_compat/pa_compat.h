/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest modules are written against Debian's 6.1.  On 6.12 their
 * builds include this header before anything else (compat.mk), and it
 * gives them the 6.1 names of what was renamed since.
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
 * 6.1's pcp->free_factor (raised by trims, so that a high-order free
 * drains every list) is gone: 6.12 counts frees since the last
 * allocation in free_count and drains at most batch << 5 pages.  Named
 * here so that the modules build; the cases that read it expect 6.1's
 * drain and fail on 6.12 until they are given its own.
 */
#define free_factor free_count

#endif /* PA_COMPAT_H */
