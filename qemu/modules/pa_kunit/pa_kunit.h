/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the page allocator behaviours that the 2009 series
 * "Cleanup and optimise the page allocator" relied on, checked on the
 * 6.1 allocator through what a module can see: exported allocation and
 * free calls, the zone and node counters, the per-cpu page lists and
 * the pageblock migratetype bits.
 *
 * Suite pagealloc_seeds has one case per behaviour (seeds_alloc.c,
 * seeds_pcp.c, seeds_drain.c); suite pagealloc_stress, in module
 * pa_kunit_stress (../pa_kunit_stress/stress.c, which uses the helpers
 * of lib.c), fills each node at every order until the allocator refuses,
 * frees everything and checks that no page went missing, and runs
 * allocators on several CPUs at once.  Suite pagealloc_roots, in module
 * pa_kunit_roots (../pa_kunit_roots/roots.c, which uses only the inline
 * helpers below), frees a page above the first mem_section root to its
 * own pageblock's list, in a guest of its own with memory there.
 * Suite pagealloc_series (series_*.c, one section per patch of
 * series.txt, or of dropped/) checks what the patches must keep:
 * allocations that never fail spuriously, no __GFP_NOFAIL warning below
 * order 2, pcp refills of exactly one batch served in list order, exact
 * NR_FREE_PAGES accounting across pcp trims and drains (into isolated
 * pageblocks and compaction capture too), a task policy still in charge
 * of alloc_pages(), a VMA or task policy still in charge of
 * vma_alloc_folio(), dirty-page spreading for __GFP_WRITE requests
 * only, and a free that returns a block's memcg kmem charge.  It
 * passes on the base and on every commit of the series.
 * suites.c says which case belongs to which suite; lib.c and
 * lib_series.c hold the helpers declared below.
 *
 * The guest is expected to have two NUMA nodes (numa=fake=2), ZONE_DMA
 * and ZONE_DMA32.  A case whose precondition is missing is skipped with
 * the reason.
 *
 * Each case's log in debugfs holds KUNIT_LOG_SIZE (512) bytes, its
 * result line included, so checks are assertions (a case stops at its
 * first failure) and progress notes go to the kernel log only.  Pages a
 * case allocates sit on lists that KUnit frees however the case ends.
 */

#ifndef PA_KUNIT_H
#define PA_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/pageblock-flags.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <trace/events/printk.h>

#if !defined(CONFIG_NUMA) || !defined(CONFIG_ZONE_DMA) || !defined(CONFIG_ZONE_DMA32)
#error "pa_kunit needs CONFIG_NUMA, CONFIG_ZONE_DMA and CONFIG_ZONE_DMA32"
#endif
#if !defined(CONFIG_VM_EVENT_COUNTERS) || !defined(CONFIG_SPARSEMEM)
#error "pa_kunit needs CONFIG_VM_EVENT_COUNTERS and CONFIG_SPARSEMEM"
#endif
#if !defined(CONFIG_TRACEPOINTS)
#error "pa_kunit needs CONFIG_TRACEPOINTS (warnings are seen through the console tracepoint)"
#endif
#if !defined(CONFIG_CONTIG_ALLOC)
#error "pa_kunit needs CONFIG_CONTIG_ALLOC (alloc_contig_range() isolates pageblocks)"
#endif

extern unsigned int exhaust_seconds;

/* Requests that may fail quietly and never invoke the OOM killer. */
#define PA_GFP_TRY		(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN)

/* Requests made with preemption disabled: no reclaim, no sleeping. */
#define PA_GFP_ATOMIC		(GFP_NOWAIT | __GFP_NOWARN)

/* Mixed into the word written at the start of every page a test holds. */
#define PA_MAGIC		0x70615f6b756e6974UL

/* Free pages that may legitimately be in use elsewhere after a case. */
#define PA_FREE_SLACK		512L

/* Bound on the pages pulled off one pcp list to empty it. */
#define PA_EMPTY_MAX		8192

/* Orders the pcp lists keep below pageblock_order. */
#define PA_SERIES_ORDERS	(PAGE_ALLOC_COSTLY_ORDER + 1)

/* Bound on the blocks one pcp refill takes: a batch, scaled to the order. */
#define PA_REFILL_MAX		1024

/*
 * 1 where pcp->high tunes itself and refills scale (6.7 on, pa_compat.h),
 * 0 on 6.1: the pcp cases' expectations differ there.
 */
#ifndef PA_PCP_HIGH_TUNED
#define PA_PCP_HIGH_TUNED	0
#endif

/* Bound on the order-0 pages freed in a row to overflow pcp->high. */
#define PA_DRAIN_MAX		65536

/*
 * Rounds of the concurrent case.  Its work has to be bounded by count:
 * the guest's sched_clock() runs on jiffies, which stand still while
 * stop_machine() has interrupts off everywhere.
 */
#define PA_STORM_ROUNDS		8

/*
 * Blocks a test holds, linked through page->lru (the allocator leaves
 * lru and private to the owner of an allocated page) with the order in
 * page->private.  If @marked, every page carries pa_marker() of its pfn.
 */
struct pa_pages {
	struct list_head list;
	unsigned long nr_blocks;
	unsigned long nr_pages;
	bool marked;
};

/* A kind of block: an order and a migratetype, a case's parameter. */
struct pa_block_kind {
	unsigned int order;
	int mt;
};

/*
 * The pageblock bits of @pfn, read and written in the section's
 * pageblock bitmap the way the allocator lays them out
 * (NR_PAGEBLOCK_BITS per pageblock, migratetype in the low bits):
 * inline, as the roots suite's module has no other helper of lib.c.
 */
static inline unsigned long *pa_pageblock_word(unsigned long pfn, unsigned int *shift)
{
	unsigned long *bitmap = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bitidx;

	bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) * NR_PAGEBLOCK_BITS;
	*shift = bitidx % BITS_PER_LONG;
	return &bitmap[bitidx / BITS_PER_LONG];
}

static inline int pa_pageblock_mt(struct page *page)
{
	unsigned int shift;
	unsigned long *word = pa_pageblock_word(page_to_pfn(page), &shift);

	return (READ_ONCE(*word) >> shift) & MIGRATETYPE_MASK;
}

/* The order of a case run by pa_order_params() or pa_low_order_params(). */
static inline unsigned int pa_param_order(struct kunit *test)
{
	return *(const unsigned int *)test->param_value;
}

/* The per-cpu page list of an order and migratetype, as in order_to_pindex(). */
static inline int pa_pindex(unsigned int order, int mt)
{
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		return NR_LOWORDER_PCP_LISTS + (NR_PCP_THP > 1 && mt == MIGRATE_MOVABLE);
	return MIGRATE_PCPTYPES * order + mt;
}

/* lib.c */
void pa_pages_add(struct pa_pages *pp, struct page *page, unsigned int order);
unsigned long pa_marker(unsigned long pfn);
unsigned long pa_mark_block(struct page *page, unsigned int order, bool zeroed);
unsigned long pa_check_block(struct page *page, unsigned int order);
void pa_release(struct page *page);
unsigned long pa_pages_free(struct pa_pages *pp);
struct pa_pages *pa_pages_new(struct kunit *test, bool marked);
struct zone *pa_node_zone(int nid, int zid);
struct zone *pa_top_zone(int nid, int highidx);
bool pa_zone_roomy(struct zone *zone, int highidx);
unsigned long pa_node_free(int nid, int highidx);
gfp_t pa_zone_gfp(int zid);
const char *pa_mt_name(int mt);
void pa_block_kind_desc(const struct pa_block_kind *kind, char *desc);
const void *pa_order_params(const void *prev, char *desc);
const void *pa_low_order_params(const void *prev, char *desc);
struct page *pa_alloc_atomic(struct zone *zone, unsigned int order, int mt);
struct zone *pa_local_zone(void);
void pa_assert_below_limit(struct kunit *test, struct page *page, unsigned int order, int highidx);
unsigned long pa_event(enum vm_event_item item);
unsigned long pa_alloc_stalls(void);
unsigned long pa_slow_path_events(void);
unsigned long pa_pgalloc_events(void);
unsigned long pa_zone_numa(struct zone *zone, enum numa_stat_item item);
unsigned long pa_node_numa(int nid, enum numa_stat_item item);
long pa_free_total(void);
void pa_assert_free_restored(struct kunit *test, long before);
void pa_pcp_empty(struct zone *zone, struct pa_pages *held);
void pa_pcp_settle(struct zone *zone, struct pa_pages *held);
bool pa_pcp_keeps_freed(struct zone *zone, unsigned int order, int mt);
void pa_watch_warnings(struct kunit *test);
unsigned int pa_warnings_seen(void);

/* lib_series.c */
void *pa_kvzalloc(struct kunit *test, size_t bytes);
int pa_overflow_pages(struct per_cpu_pages *pcp);
void pa_pcp_pin_high(struct kunit *test, struct zone *zone);
void pa_pcp_unscale_refill(struct per_cpu_pages *pcp);
void pa_pcp_make_room(struct kunit *test, struct zone *zone, int pages);
int pa_pcp_refill_blocks(struct per_cpu_pages *pcp, unsigned int order, int factor);
bool pa_pcp_drain_armed(struct per_cpu_pages *pcp);
long pa_zone_free(struct zone *zone);
long pa_zone_free_total(struct zone *zone);
long pa_free_count_off(struct zone *zone);
struct zone *pa_roomy_zone(unsigned int overflows);
bool pa_min_path_open(struct zone *zone, unsigned int order, int highidx);
bool pa_block_allocated(struct page *page, unsigned int order, gfp_t gfp);

/* seeds_pcp.c */
bool pa_fast_path_shut(int nid, int highidx, unsigned int order);

/* seeds_alloc.c */
void pagealloc_order_too_large_returns_null(struct kunit *test);
void pagealloc_order_too_large_nowarn_is_silent(struct kunit *test);
void pagealloc_thisnode_allocates_on_requested_node(struct kunit *test);
void pagealloc_preferred_node_is_used_when_it_has_room(struct kunit *test);
void pagealloc_no_node_allocates_on_local_node(struct kunit *test);
void pagealloc_zone_modifiers_pick_eligible_zone(struct kunit *test);
const void *pa_zone_params(const void *prev, char *desc);
void pagealloc_dma_zones_respect_physical_limits(struct kunit *test);
void pagealloc_fast_path_serves_without_reclaim(struct kunit *test);
void pagealloc_slow_path_entered_under_pressure(struct kunit *test);
void pagealloc_thisnode_charges_numa_hit(struct kunit *test);

/* seeds_pcp.c */
void pagealloc_requests_served_from_matching_pageblocks(struct kunit *test);
void pagealloc_freed_page_returns_to_pageblock_migratetype(struct kunit *test);
void pagealloc_pcp_reuses_hot_page(struct kunit *test);
const void *pa_hot_params(const void *prev, char *desc);
void pagealloc_pcp_reuses_hot_pageblock_order_page(struct kunit *test);
void pagealloc_thisnode_fails_without_eligible_zone(struct kunit *test);
void pagealloc_slow_path_serves_below_low_watermark(struct kunit *test);
void pagealloc_exhausted_node_falls_back_in_zonelist_order(struct kunit *test);

/* seeds_drain.c */
void pagealloc_isolation_drains_pcp_lists_of_every_cpu(struct kunit *test);

/* series_fail_nofail.c */
void pagealloc_series_low_orders_never_fail(struct kunit *test);
void pagealloc_series_bulk_never_fails(struct kunit *test);
void pagealloc_series_nofail_low_orders_do_not_warn(struct kunit *test);
void pagealloc_series_nofail_order1_slow_path_does_not_warn(struct kunit *test);

/* series_pcp.c */
void pagealloc_series_pcp_refill_takes_one_batch(struct kunit *test);
const void *pa_refill_params(const void *prev, char *desc);
void pagealloc_series_pcp_trims_keep_free_count_exact(struct kunit *test);
void pagealloc_series_pcp_drain_frees_exactly_the_list(struct kunit *test);
void pagealloc_series_isolated_pageblock_drain_keeps_free_count_exact(struct kunit *test);
void pagealloc_series_pcp_locked_goes_round_the_list(struct kunit *test);

/* series_capture.c */
void pagealloc_series_captured_drain_page_keeps_free_count_exact(struct kunit *test);

/* series_lists.c */
void pagealloc_series_page_list_free_returns_hot_pages(struct kunit *test);
void pagealloc_series_bulk_pages_are_allocated(struct kunit *test);

/* series_storm.c */
void pagealloc_series_concurrent_refill_and_drain_balance(struct kunit *test);

/* series_policy.c */
void pagealloc_series_task_policy_still_steers_alloc_pages(struct kunit *test);
void pagealloc_series_task_policy_modes_steer_alloc_pages(struct kunit *test);
const void *pa_policy_mode_params(const void *prev, char *desc);
void pagealloc_series_vma_policy_steers_vma_alloc_folio(struct kunit *test);
const void *pa_vma_policy_params(const void *prev, char *desc);

/* series_context.c */
void pagealloc_series_only_page_cache_writes_spread_dirty_pages(struct kunit *test);

/* series_memcg.c */
void pagealloc_series_free_returns_kmem_charge(struct kunit *test);
void pagealloc_series_free_clears_stray_mlock(struct kunit *test);
const void *pa_free_params(const void *prev, char *desc);

#endif
