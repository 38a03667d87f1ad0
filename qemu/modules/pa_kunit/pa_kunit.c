// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the page allocator behaviours that the 2009 series
 * "Cleanup and optimise the page allocator" relied on, checked on the
 * 6.1 allocator through what a module can see: exported allocation and
 * free calls, the zone and node counters, the per-cpu page lists and
 * the pageblock migratetype bits.
 *
 * Suite pagealloc_seeds has one case per behaviour; suite
 * pagealloc_stress fills each node at every order until the allocator
 * refuses, frees everything and checks that no page went missing, and
 * runs allocators on several CPUs at once.  Suite pagealloc_series
 * checks what the four patches of the series on top of the 6.1 base
 * must keep: allocations that never fail spuriously, no __GFP_NOFAIL
 * warning below order 2, pcp refills of exactly one batch served in
 * list order, and exact NR_FREE_PAGES accounting across pcp trims and
 * drains.  It passes on the base and on every commit of the series.
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

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
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
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#if !defined(CONFIG_NUMA) || !defined(CONFIG_ZONE_DMA) || !defined(CONFIG_ZONE_DMA32)
#error "pa_kunit needs CONFIG_NUMA, CONFIG_ZONE_DMA and CONFIG_ZONE_DMA32"
#endif
#if !defined(CONFIG_VM_EVENT_COUNTERS) || !defined(CONFIG_SPARSEMEM)
#error "pa_kunit needs CONFIG_VM_EVENT_COUNTERS and CONFIG_SPARSEMEM"
#endif

static bool warn_once;
module_param(warn_once, bool, 0444);
MODULE_PARM_DESC(warn_once,
		 "Also run the case that makes the allocator WARN for an order >= MAX_ORDER");

static unsigned int exhaust_seconds = 120;
module_param(exhaust_seconds, uint, 0444);
MODULE_PARM_DESC(exhaust_seconds,
		 "Time allowed to exhaust one node in the seeds suite before the case is skipped");

static unsigned int stress_seconds = 60;
module_param(stress_seconds, uint, 0444);
MODULE_PARM_DESC(stress_seconds,
		 "Time allowed for filling every node until failure in the stress suite");

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

static void pa_pages_add(struct pa_pages *pp, struct page *page, unsigned int order)
{
	set_page_private(page, order);
	list_add(&page->lru, &pp->list);
	pp->nr_blocks++;
	pp->nr_pages += 1UL << order;
}

static unsigned long pa_marker(unsigned long pfn)
{
	return pfn ^ PA_MAGIC;
}

/*
 * Write the marker into each page of a block; return how many pages
 * did not start zeroed although @zeroed says they must.
 */
static unsigned long pa_mark_block(struct page *page, unsigned int order, bool zeroed)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned long i, dirty = 0;

	for (i = 0; i < (1UL << order); i++) {
		unsigned long *word = page_address(page + i);

		if (zeroed && *word)
			dirty++;
		*word = pa_marker(pfn + i);
	}
	return dirty;
}

/* Count the pages of a block whose marker was overwritten. */
static unsigned long pa_check_block(struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned long i, bad = 0;

	for (i = 0; i < (1UL << order); i++) {
		unsigned long *word = page_address(page + i);

		if (*word != pa_marker(pfn + i))
			bad++;
	}
	return bad;
}

static void pa_release(struct page *page)
{
	unsigned int order = page_private(page);

	list_del_init(&page->lru);
	set_page_private(page, 0);
	__free_pages(page, order);
}

/* Free every block; return how many marked pages had been overwritten. */
static unsigned long pa_pages_free(struct pa_pages *pp)
{
	struct page *page, *next;
	unsigned long bad = 0;

	list_for_each_entry_safe(page, next, &pp->list, lru) {
		if (pp->marked)
			bad += pa_check_block(page, page_private(page));
		pa_release(page);
		cond_resched();
	}
	pp->nr_blocks = 0;
	pp->nr_pages = 0;
	return bad;
}

static int pa_pages_res_init(struct kunit_resource *res, void *context)
{
	struct pa_pages *pp = kzalloc(sizeof(*pp), GFP_KERNEL);

	if (!pp)
		return -ENOMEM;
	INIT_LIST_HEAD(&pp->list);
	pp->marked = *(bool *)context;
	res->data = pp;
	return 0;
}

static void pa_pages_res_free(struct kunit_resource *res)
{
	struct pa_pages *pp = res->data;

	pa_pages_free(pp);
	kfree(pp);
}

/* A list of held blocks that KUnit frees when the case ends. */
static struct pa_pages *pa_pages_new(struct kunit *test, bool marked)
{
	struct pa_pages *pp;

	pp = kunit_alloc_resource(test, pa_pages_res_init, pa_pages_res_free,
				  GFP_KERNEL, &marked);
	KUNIT_ASSERT_NOT_NULL(test, pp);
	return pp;
}

/* Zones, as the zonelists see them (populated zones only). */

static struct zone *pa_node_zone(int nid, int zid)
{
	struct zone *zone = &NODE_DATA(nid)->node_zones[zid];

	return populated_zone(zone) ? zone : NULL;
}

/* The zone a request of class @highidx starts from on @nid. */
static struct zone *pa_top_zone(int nid, int highidx)
{
	int zid;

	for (zid = highidx; zid >= 0; zid--) {
		struct zone *zone = pa_node_zone(nid, zid);

		if (zone)
			return zone;
	}
	return NULL;
}

/* Free memory well above what the fast path needs for class @highidx. */
static bool pa_zone_roomy(struct zone *zone, int highidx)
{
	unsigned long free, need;

	if (!zone)
		return false;
	free = zone_page_state(zone, NR_FREE_PAGES);
	need = 2 * high_wmark_pages(zone) + zone->lowmem_reserve[highidx] + 4096;
	return free > need;
}

static unsigned long pa_node_free(int nid, int highidx)
{
	unsigned long sum = 0;
	int zid;

	for (zid = 0; zid <= highidx; zid++) {
		struct zone *zone = pa_node_zone(nid, zid);

		if (zone)
			sum += zone_page_state(zone, NR_FREE_PAGES);
	}
	return sum;
}

static gfp_t pa_zone_gfp(int zid)
{
	if (zid == ZONE_DMA)
		return __GFP_DMA;
	if (zid == ZONE_DMA32)
		return __GFP_DMA32;
	return 0;
}

static gfp_t pa_mt_gfp(int mt)
{
	if (mt == MIGRATE_MOVABLE)
		return __GFP_MOVABLE;
	if (mt == MIGRATE_RECLAIMABLE)
		return __GFP_RECLAIMABLE;
	return 0;
}

static const char *pa_mt_name(int mt)
{
	switch (mt) {
	case MIGRATE_UNMOVABLE:
		return "unmovable";
	case MIGRATE_MOVABLE:
		return "movable";
	case MIGRATE_RECLAIMABLE:
		return "reclaimable";
	default:
		return "other";
	}
}

/*
 * Allocate @order pages of migratetype @mt from @zone without sleeping.
 * The result may come from another zone of the node if @zone is short;
 * callers check page_zone().
 */
static struct page *pa_alloc_atomic(struct zone *zone, unsigned int order, int mt)
{
	gfp_t gfp = PA_GFP_ATOMIC | __GFP_THISNODE |
		    pa_zone_gfp(zone_idx(zone)) | pa_mt_gfp(mt);

	return __alloc_pages_node(zone_to_nid(zone), gfp, order);
}

/* The zone an ordinary kernel allocation on this CPU starts from. */
static struct zone *pa_local_zone(void)
{
	return pa_top_zone(numa_mem_id(), ZONE_NORMAL);
}

static phys_addr_t pa_phys_end(struct page *page, unsigned int order)
{
	return page_to_phys(page) + (PAGE_SIZE << order);
}

/* A block of a ZONE_DMA or ZONE_DMA32 request must lie below 16 MiB or 4 GiB. */
static void pa_assert_below_limit(struct kunit *test, struct page *page, unsigned int order,
				  int highidx)
{
	phys_addr_t start = page_to_phys(page);

	if (highidx == ZONE_DMA)
		KUNIT_ASSERT_LE_MSG(test, pa_phys_end(page, order), (phys_addr_t)SZ_16M,
				    "DMA block of order %u at %pa", order, &start);
	if (highidx == ZONE_DMA32)
		KUNIT_ASSERT_LE_MSG(test, pa_phys_end(page, order), (phys_addr_t)SZ_4G,
				    "DMA32 block of order %u at %pa", order, &start);
}

/* Counters. */

static unsigned long pa_event(enum vm_event_item item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[item];
	return sum;
}

/* Direct reclaim entries (ALLOCSTALL_*), summed over zones. */
static unsigned long pa_alloc_stalls(void)
{
	unsigned long sum = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		sum += pa_event(ALLOCSTALL_NORMAL - ZONE_NORMAL + zid);
	return sum;
}

/* Events that only an allocation's slow path counts. */
static unsigned long pa_slow_path_events(void)
{
	unsigned long sum = pa_alloc_stalls() + pa_event(PGSCAN_DIRECT);

#ifdef CONFIG_COMPACTION
	sum += pa_event(COMPACTSTALL);
#endif
	return sum;
}

static unsigned long pa_zone_numa(struct zone *zone, enum numa_stat_item item)
{
	unsigned long sum = atomic_long_read(&zone->vm_numa_event[item]);
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu_ptr(zone->per_cpu_zonestats, cpu)->vm_numa_event[item];
	return sum;
}

static unsigned long pa_node_numa(int nid, enum numa_stat_item item)
{
	unsigned long sum = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++) {
		struct zone *zone = pa_node_zone(nid, zid);

		if (zone)
			sum += pa_zone_numa(zone, item);
	}
	return sum;
}

/* Free pages in the buddy lists plus those parked on every pcp list. */
static long pa_free_total(void)
{
	long sum = 0;
	int nid, zid, cpu;

	for_each_online_node(nid) {
		for (zid = 0; zid < MAX_NR_ZONES; zid++) {
			struct zone *zone = pa_node_zone(nid, zid);

			if (!zone)
				continue;
			sum += zone_page_state_snapshot(zone, NR_FREE_PAGES);
			for_each_online_cpu(cpu)
				sum += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, cpu)->count);
		}
	}
	return sum;
}

/*
 * After a case has freed what it allocated, the free pages must be back
 * where they were, give or take what the rest of the system is doing.
 * RCU-deferred frees and vmstat folding can lag, so look again briefly.
 */
static void pa_assert_free_restored(struct kunit *test, long before)
{
	long after = pa_free_total();
	int tries;

	for (tries = 0; tries < 20 && after + PA_FREE_SLACK < before; tries++) {
		msleep(50);
		after = pa_free_total();
	}
	KUNIT_ASSERT_GE_MSG(test, after + PA_FREE_SLACK, before, "%ld pages missing",
			    before - after);
}

/*
 * The migratetype of the pageblock holding @page, read from the
 * section's pageblock bitmap the way the allocator lays it out
 * (NR_PAGEBLOCK_BITS per pageblock, migratetype in the low bits).
 */
static int pa_pageblock_mt(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	struct mem_section *ms = __pfn_to_section(pfn);
	unsigned long *bitmap = section_to_usemap(ms);
	unsigned long bitidx, word;

	bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> pageblock_order) * NR_PAGEBLOCK_BITS;
	word = READ_ONCE(bitmap[bitidx / BITS_PER_LONG]);
	return (word >> (bitidx % BITS_PER_LONG)) & MIGRATETYPE_MASK;
}

/* The per-cpu page lists, as laid out in 6.1 (see order_to_pindex()). */

static int pa_pindex(unsigned int order, int mt)
{
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		return NR_LOWORDER_PCP_LISTS + (NR_PCP_THP > 1 && mt == MIGRATE_MOVABLE);
	return MIGRATE_PCPTYPES * order + mt;
}

static unsigned int pa_pindex_order(int pindex)
{
	if (pindex >= NR_LOWORDER_PCP_LISTS)
		return pageblock_order;
	return pindex / MIGRATE_PCPTYPES;
}

static int pa_pindex_mt(int pindex)
{
	if (pindex >= NR_LOWORDER_PCP_LISTS)
		return pindex > NR_LOWORDER_PCP_LISTS ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE;
	return pindex % MIGRATE_PCPTYPES;
}

/*
 * Take every page off this CPU's pcp lists of @zone by allocating it,
 * so that a following free/allocate pair starts from known lists.
 * Each allocation must return the head of the list it aimed at; if it
 * does not, that list is left alone.  Preemption must be disabled.
 */
static void pa_pcp_empty(struct zone *zone, struct pa_pages *held)
{
	struct per_cpu_pages *pcp = this_cpu_ptr(zone->per_cpu_pageset);
	int pindex;

	for (pindex = 0; pindex < NR_PCP_LISTS; pindex++) {
		struct list_head *list = &pcp->lists[pindex];
		unsigned int order = pa_pindex_order(pindex);
		int mt = pa_pindex_mt(pindex);
		int n;

		for (n = 0; n < PA_EMPTY_MAX; n++) {
			struct list_head *first = READ_ONCE(list->next);
			struct page *page;

			if (first == list)
				break;
			page = pa_alloc_atomic(zone, order, mt);
			if (!page)
				break;
			pa_pages_add(held, page, order);
			if (&page->lru != first)
				break;
		}
	}
}

/*
 * Empty the lists, then allocate a few order-0 pages: every pcp
 * allocation halves pcp->free_factor, which must be zero for a freed
 * page of order 1..PAGE_ALLOC_COSTLY_ORDER to stay on the list.
 */
static void pa_pcp_settle(struct zone *zone, struct pa_pages *held)
{
	int i;

	pa_pcp_empty(zone, held);
	for (i = 0; i < 4; i++) {
		struct page *page = pa_alloc_atomic(zone, 0, MIGRATE_UNMOVABLE);

		if (page)
			pa_pages_add(held, page, 0);
	}
}

/*
 * Whether freeing one more block of @order and @mt on this CPU leaves it
 * at the head of its pcp list: no free_high flush, and either room below
 * pcp->high or, for blocks of at least a batch, another block behind it
 * on the list for the batch trim (which starts at that list's tail).
 */
static bool pa_pcp_keeps_freed(struct zone *zone, unsigned int order, int mt)
{
	struct per_cpu_pages *pcp = this_cpu_ptr(zone->per_cpu_pageset);
	int high = READ_ONCE(pcp->high);
	int batch = READ_ONCE(pcp->batch);
	int count = READ_ONCE(pcp->count);
	int factor = READ_ONCE(pcp->free_factor);
	int nr = 1 << order;

	if (order && factor)
		return false;
	if (test_bit(ZONE_RECLAIM_ACTIVE, &zone->flags))
		high = min(batch << 2, high);
	if (high < batch || high <= 0)
		return false;
	if (count + nr < high)
		return true;
	return nr >= batch && !list_empty(&pcp->lists[pa_pindex(order, mt)]);
}

/* Allocator warnings in the kernel log. */

static bool pa_is_alloc_warning(const char *line)
{
	if (!strstr(line, "WARNING:"))
		return false;
	return strstr(line, "page_alloc.c") || strstr(line, "__alloc_pages");
}

static unsigned int pa_count_alloc_warnings(void)
{
	struct kmsg_dump_iter iter;
	unsigned int found = 0;
	size_t len;
	char *line;

	line = kmalloc(1024, GFP_KERNEL);
	if (!line)
		return 0;
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, 1023, &len)) {
		line[min_t(size_t, len, 1023)] = '\0';
		if (pa_is_alloc_warning(line))
			found++;
	}
	kfree(line);
	return found;
}

/* ---- 02: order >= MAX_ORDER ------------------------------------------ */

static void pagealloc_order_too_large_returns_null(struct kunit *test)
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

static void pagealloc_order_too_large_nowarn_is_silent(struct kunit *test)
{
	bool tainted = test_taint(TAINT_WARN);
	unsigned int before = pa_count_alloc_warnings();
	int i;

	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_NULL(test, alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER));
		KUNIT_ASSERT_NULL(test, __alloc_pages_node(numa_mem_id(),
							   GFP_NOWAIT | __GFP_NOWARN, MAX_ORDER));
	}
	KUNIT_ASSERT_EQ_MSG(test, pa_count_alloc_warnings(), before,
			    "allocator warning despite __GFP_NOWARN");
	if (!tainted)
		KUNIT_ASSERT_FALSE(test, test_taint(TAINT_WARN));
}

static void pagealloc_order_too_large_warns_once(struct kunit *test)
{
	unsigned int before, after;
	int i;

	if (!warn_once)
		kunit_skip(test, "prints a kernel WARNING; load with warn_once=1 to run");

	before = pa_count_alloc_warnings();
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_NULL(test, alloc_pages(GFP_KERNEL, MAX_ORDER));
		KUNIT_ASSERT_NULL(test, __alloc_pages_node(numa_mem_id(), GFP_KERNEL,
							   MAX_ORDER + 1));
	}
	after = pa_count_alloc_warnings();

	KUNIT_ASSERT_LE_MSG(test, after - before, 1U, "warnings for six oversized requests");
	KUNIT_ASSERT_GE_MSG(test, after, 1U, "no allocator warning in the log since boot");
	KUNIT_ASSERT_TRUE(test, test_taint(TAINT_WARN));
}

/* ---- 03: the node asked for ------------------------------------------ */

static void pagealloc_thisnode_allocates_on_requested_node(struct kunit *test)
{
	static const unsigned int orders[] = { 0, PAGE_ALLOC_COSTLY_ORDER,
					       PAGE_ALLOC_COSTLY_ORDER + 1 };
	struct pa_pages *pp = pa_pages_new(test, false);
	int nid, i, j;

	for_each_node_state(nid, N_MEMORY) {
		for (i = 0; i < ARRAY_SIZE(orders); i++) {
			for (j = 0; j < 8; j++) {
				struct page *page;

				page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE,
							  orders[i]);
				KUNIT_ASSERT_NOT_NULL_MSG(test, page, "node %d order %u",
							  nid, orders[i]);
				pa_pages_add(pp, page, orders[i]);
				KUNIT_ASSERT_EQ_MSG(test, page_to_nid(page), nid,
						    "order %u", orders[i]);
			}
		}
	}
}

static void pagealloc_preferred_node_is_used_when_it_has_room(struct kunit *test)
{
	struct pa_pages *pp = pa_pages_new(test, false);
	int nid, i, tested = 0;

	for_each_node_state(nid, N_MEMORY) {
		if (!pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
			continue;
		tested++;
		for (i = 0; i < 8; i++) {
			struct page *page = __alloc_pages_node(nid, PA_GFP_TRY, 0);

			KUNIT_ASSERT_NOT_NULL(test, page);
			pa_pages_add(pp, page, 0);
			KUNIT_ASSERT_EQ(test, page_to_nid(page), nid);
		}
	}
	if (!tested)
		kunit_skip(test, "no node has free memory to spare");
}

struct pa_local_result {
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

	page = alloc_pages_node(NUMA_NO_NODE, PA_GFP_TRY, 0);
	if (page) {
		res->node_nid = page_to_nid(page);
		__free_pages(page, 0);
	}
	page = alloc_pages(PA_GFP_TRY, 0);
	if (page) {
		res->policy_nid = page_to_nid(page);
		__free_pages(page, 0);
	}
	res->nid_after = numa_mem_id();
	return 0;
}

static void pagealloc_no_node_allocates_on_local_node(struct kunit *test)
{
	struct pa_local_result res;
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
				    "alloc_pages_node(NUMA_NO_NODE) on CPU %d", cpu);
		KUNIT_ASSERT_EQ_MSG(test, res.policy_nid, nid, "alloc_pages() on CPU %d", cpu);
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

static void pagealloc_zone_modifiers_pick_eligible_zone(struct kunit *test)
{
	struct pa_pages *pp = pa_pages_new(test, false);
	int i, nid;

	for (i = 0; i < ARRAY_SIZE(pa_zone_cases); i++) {
		const struct pa_zone_case *zc = &pa_zone_cases[i];
		struct page *page;

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
}

static void pagealloc_dma_zones_respect_physical_limits(struct kunit *test)
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
					KUNIT_ASSERT_LE(test, (int)page_zonenum(page), highidx);
					pa_assert_below_limit(test, page, orders[j], highidx);
				}
			}
		}
	}
}

/* ---- 06: fast path and slow path ------------------------------------- */

static void pagealloc_fast_path_serves_without_reclaim(struct kunit *test)
{
	struct pa_pages *pp = pa_pages_new(test, false);
	unsigned long before = 0, after = 0;
	struct page *pages[8] = { NULL };
	struct zone *zone;
	bool roomy;
	int i, nid;

	migrate_disable();
	nid = numa_mem_id();
	zone = pa_top_zone(nid, ZONE_NORMAL);
	roomy = pa_zone_roomy(zone, ZONE_NORMAL);
	if (roomy) {
		before = pa_slow_path_events();
		for (i = 0; i < ARRAY_SIZE(pages); i++)
			pages[i] = alloc_pages_node(NUMA_NO_NODE, PA_GFP_TRY,
						    i & 1 ? PAGE_ALLOC_COSTLY_ORDER : 0);
		after = pa_slow_path_events();
	}
	migrate_enable();
	if (!roomy)
		kunit_skip(test, "the local node %d has no free memory to spare", nid);

	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			pa_pages_add(pp, pages[i], i & 1 ? PAGE_ALLOC_COSTLY_ORDER : 0);
	KUNIT_ASSERT_EQ(test, pp->nr_blocks, (unsigned long)ARRAY_SIZE(pages));
	KUNIT_ASSERT_EQ_MSG(test, after, before, "reclaim or compaction with %s above watermarks",
			    zone->name);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		KUNIT_ASSERT_PTR_EQ(test, page_zone(pages[i]), zone);
}

/*
 * Fill ZONE_DMA (small, so cheap to fill) with order-0 requests that may
 * reclaim.  Once the zone is below its watermarks the fast path gives up
 * and the slow path runs; a request it cannot serve from the free lists
 * goes on to direct reclaim before failing, which counts an allocstall.
 */
static void pagealloc_slow_path_entered_under_pressure(struct kunit *test)
{
	const gfp_t gfp = PA_GFP_TRY | __GFP_DMA;
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
		struct page *page = __alloc_pages_node(zone_to_nid(dma), gfp, 0);

		if (!page) {
			refused = true;
			break;
		}
		pa_pages_add(pp, page, 0);
		KUNIT_ASSERT_PTR_EQ(test, page_zone(page), dma);
		pa_assert_below_limit(test, page, 0, ZONE_DMA);
		cond_resched();
	}
	stalls = pa_alloc_stalls() - stalls;
	pr_info("pa_kunit: %lu pages filled ZONE_DMA, then %lu reclaim stalls\n",
		pp->nr_pages, stalls);

	KUNIT_ASSERT_TRUE_MSG(test, refused, "ZONE_DMA never ran out");
	KUNIT_ASSERT_GT_MSG(test, stalls, 0UL, "the failing request never tried direct reclaim");
	pa_pages_free(pp);
	pa_assert_free_restored(test, free_before);
}

/* ---- 09: NUMA statistics --------------------------------------------- */

static void pagealloc_thisnode_charges_numa_hit(struct kunit *test)
{
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
			struct page *page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE, 0);

			if (page)
				pa_pages_add(pp, page, 0);
		}
		hit = pa_node_numa(nid, NUMA_HIT) - hit;
		where = pa_node_numa(nid, locality) - where;
		migrate_enable();

		KUNIT_ASSERT_EQ(test, pp->nr_blocks, nr);
		KUNIT_ASSERT_GE_MSG(test, hit, nr, "numa_hit of node %d", nid);
		KUNIT_ASSERT_GE_MSG(test, where, nr, "%s of node %d",
				    locality == NUMA_LOCAL ? "local_node" : "other_node", nid);
	}
}

/* ---- 14 and 18: migratetypes ----------------------------------------- */

/*
 * Fresh pages of each migratetype, from the buddy lists rather than
 * whatever the pcp lists held: the pcp lists are emptied first, so the
 * order-0 requests are served by a new batch, and the order
 * PAGE_ALLOC_COSTLY_ORDER + 1 requests bypass the pcp lists.
 */
static void pagealloc_requests_served_from_matching_pageblocks(struct kunit *test)
{
	static const int mts[] = { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE };
	static const unsigned int orders[] = { 0, PAGE_ALLOC_COSTLY_ORDER + 1 };
	int i, j, k;

	for (i = 0; i < ARRAY_SIZE(mts); i++) {
		struct pa_pages *held = pa_pages_new(test, false);
		struct pa_pages *got = pa_pages_new(test, false);
		struct page *page;
		struct zone *zone;

		preempt_disable();
		zone = pa_local_zone();
		pa_pcp_empty(zone, held);
		for (j = 0; j < ARRAY_SIZE(orders); j++) {
			for (k = 0; k < 16; k++) {
				page = pa_alloc_atomic(zone, orders[j], mts[i]);
				if (page)
					pa_pages_add(got, page, orders[j]);
			}
		}
		preempt_enable();

		KUNIT_ASSERT_EQ(test, got->nr_blocks, 16UL * ARRAY_SIZE(orders));
		list_for_each_entry(page, &got->list, lru) {
			KUNIT_ASSERT_PTR_EQ_MSG(test, page_zone(page), zone, "%s request",
						pa_mt_name(mts[i]));
			KUNIT_ASSERT_EQ_MSG(test, pa_pageblock_mt(page), mts[i],
					    "%s request of order %lu got pfn %#lx",
					    pa_mt_name(mts[i]), page_private(page),
					    page_to_pfn(page));
		}
	}
}

/*
 * Free a page and ask for one of another migratetype, then for one of
 * the pageblock's migratetype: the freed page must only come back for
 * the latter, since it went to the pcp list of its pageblock's type.
 */
static void pa_check_free_by_pageblock(struct kunit *test, int mt)
{
	struct pa_pages *held = pa_pages_new(test, false);
	struct page *a, *x = NULL, *y = NULL;
	int blk = -1, other = -1;
	bool usable = false;
	struct zone *zone;

	preempt_disable();
	zone = pa_local_zone();
	pa_pcp_settle(zone, held);
	a = pa_alloc_atomic(zone, 0, mt);
	if (a) {
		blk = pa_pageblock_mt(a);
		usable = page_zone(a) == zone && blk < MIGRATE_PCPTYPES &&
			 pa_pcp_keeps_freed(zone, 0, blk);
	}
	if (usable) {
		other = blk == MIGRATE_MOVABLE ? MIGRATE_UNMOVABLE : MIGRATE_MOVABLE;
		__free_pages(a, 0);
		x = pa_alloc_atomic(zone, 0, other);
		y = pa_alloc_atomic(zone, 0, blk);
	}
	preempt_enable();

	if (!usable && a)
		pa_pages_add(held, a, 0);
	if (x)
		pa_pages_add(held, x, 0);
	if (y && y != x)
		pa_pages_add(held, y, 0);
	KUNIT_ASSERT_TRUE_MSG(test, usable, "no usable %s page (pageblock type %d) in %s",
			      pa_mt_name(mt), blk, zone->name);
	KUNIT_ASSERT_PTR_NE_MSG(test, x, a, "page of a %s pageblock went to a %s request",
				pa_mt_name(blk), pa_mt_name(other));
	KUNIT_ASSERT_PTR_EQ_MSG(test, y, a, "page of a %s pageblock not reused",
				pa_mt_name(blk));
}

static void pagealloc_freed_page_returns_to_pageblock_migratetype(struct kunit *test)
{
	pa_check_free_by_pageblock(test, MIGRATE_MOVABLE);
	pa_check_free_by_pageblock(test, MIGRATE_UNMOVABLE);
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

static void pagealloc_pcp_reuses_hot_page(struct kunit *test)
{
	unsigned int order;

	for (order = 0; order <= PAGE_ALLOC_COSTLY_ORDER; order++) {
		pa_check_hot_reuse(test, order, MIGRATE_UNMOVABLE);
		pa_check_hot_reuse(test, order, MIGRATE_MOVABLE);
	}
}

static void pagealloc_pcp_reuses_hot_pageblock_order_page(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "pageblock-order pages use the pcp lists only with THP");
	pa_check_hot_reuse(test, pageblock_order, MIGRATE_MOVABLE);
	pa_check_hot_reuse(test, pageblock_order, MIGRATE_UNMOVABLE);
}

/* ---- 16: __GFP_THISNODE ---------------------------------------------- */

/* __GFP_THISNODE on a node without any zone for the request fails. */
static void pagealloc_thisnode_fails_without_eligible_zone(struct kunit *test)
{
	struct pa_pages *pp = pa_pages_new(test, false);
	int nid, tested = 0;

	for_each_node_state(nid, N_MEMORY) {
		struct page *page;

		if (pa_top_zone(nid, ZONE_DMA))
			continue;
		tested++;
		page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_THISNODE | __GFP_DMA, 0);
		if (page)
			pa_pages_add(pp, page, 0);
		KUNIT_ASSERT_NULL_MSG(test, page, "__GFP_DMA|__GFP_THISNODE on node %d", nid);

		/* Without __GFP_THISNODE the zonelist leads to another node's DMA zone. */
		page = __alloc_pages_node(nid, PA_GFP_TRY | __GFP_DMA, 0);
		KUNIT_ASSERT_NOT_NULL(test, page);
		pa_pages_add(pp, page, 0);
		KUNIT_ASSERT_NE(test, page_to_nid(page), nid);
		KUNIT_ASSERT_EQ(test, (int)page_zonenum(page), ZONE_DMA);
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
static bool pa_fast_path_shut(int nid, int highidx, unsigned int order)
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
static void pagealloc_slow_path_serves_below_low_watermark(struct kunit *test)
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
static void pagealloc_exhausted_node_falls_back_in_zonelist_order(struct kunit *test)
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

static struct kunit_case pagealloc_seed_cases[] = {
	KUNIT_CASE(pagealloc_order_too_large_returns_null),
	KUNIT_CASE(pagealloc_order_too_large_nowarn_is_silent),
	KUNIT_CASE(pagealloc_order_too_large_warns_once),
	KUNIT_CASE(pagealloc_thisnode_allocates_on_requested_node),
	KUNIT_CASE(pagealloc_preferred_node_is_used_when_it_has_room),
	KUNIT_CASE(pagealloc_no_node_allocates_on_local_node),
	KUNIT_CASE(pagealloc_zone_modifiers_pick_eligible_zone),
	KUNIT_CASE(pagealloc_dma_zones_respect_physical_limits),
	KUNIT_CASE(pagealloc_fast_path_serves_without_reclaim),
	KUNIT_CASE(pagealloc_thisnode_charges_numa_hit),
	KUNIT_CASE(pagealloc_requests_served_from_matching_pageblocks),
	KUNIT_CASE(pagealloc_freed_page_returns_to_pageblock_migratetype),
	KUNIT_CASE(pagealloc_pcp_reuses_hot_page),
	KUNIT_CASE(pagealloc_pcp_reuses_hot_pageblock_order_page),
	KUNIT_CASE(pagealloc_thisnode_fails_without_eligible_zone),
	KUNIT_CASE(pagealloc_slow_path_entered_under_pressure),
	KUNIT_CASE(pagealloc_slow_path_serves_below_low_watermark),
	KUNIT_CASE(pagealloc_exhausted_node_falls_back_in_zonelist_order),
	{}
};

static struct kunit_suite pagealloc_seeds_suite = {
	.name = "pagealloc_seeds",
	.test_cases = pagealloc_seed_cases,
};

/* ---- stress ----------------------------------------------------------- */

enum pa_stop {
	PA_STOP_REFUSED,	/* the allocator returned NULL */
	PA_STOP_CAP,		/* the per-order cap was reached */
	PA_STOP_TIME,		/* the deadline passed */
	PA_STOP_BAD,		/* a block failed its checks */
};

/* Blocks of one node, each checked and marked as it arrives. */
struct pa_fill {
	int nid;
	gfp_t gfp;
	unsigned long deadline;
	struct pa_pages *pages;
	unsigned long blocks[MAX_ORDER];
	unsigned long wrong_node, misaligned, wrong_zone, not_zeroed;
};

static struct pa_fill *pa_fill_new(struct kunit *test)
{
	struct pa_fill *fill = kunit_kzalloc(test, sizeof(*fill), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fill);
	fill->pages = pa_pages_new(test, true);
	return fill;
}

static void pa_fill_reset(struct pa_fill *fill, int nid, unsigned long deadline)
{
	struct pa_pages *pages = fill->pages;

	memset(fill, 0, sizeof(*fill));
	fill->pages = pages;
	fill->nid = nid;
	fill->gfp = PA_GFP_TRY | __GFP_THISNODE;
	fill->deadline = deadline;
}

/* Check a new block against its request and mark it; false if it is wrong. */
static bool pa_fill_check(struct pa_fill *fill, struct page *page, unsigned int order)
{
	bool good = true;

	if (page_to_nid(page) != fill->nid) {
		fill->wrong_node++;
		good = false;
	}
	if (!IS_ALIGNED(page_to_pfn(page), 1UL << order)) {
		fill->misaligned++;
		good = false;
	}
	if (page_zonenum(page) > gfp_zone(fill->gfp)) {
		fill->wrong_zone++;
		good = false;
	}
	fill->not_zeroed += pa_mark_block(page, order, want_init_on_alloc(fill->gfp));
	return good;
}

static enum pa_stop pa_fill_order(struct pa_fill *fill, unsigned int order,
				  unsigned long max_blocks)
{
	while (fill->blocks[order] < max_blocks) {
		struct page *page;

		if (time_after(jiffies, fill->deadline))
			return PA_STOP_TIME;
		page = __alloc_pages_node(fill->nid, fill->gfp, order);
		if (!page)
			return PA_STOP_REFUSED;
		pa_pages_add(fill->pages, page, order);
		fill->blocks[order]++;
		if (!pa_fill_check(fill, page, order))
			return PA_STOP_BAD;
		cond_resched();
	}
	return PA_STOP_CAP;
}

/* Free the blocks, checking every page's marker, then the block checks. */
static void pa_fill_release(struct kunit *test, struct pa_fill *fill)
{
	unsigned long overwritten = pa_pages_free(fill->pages);

	KUNIT_ASSERT_EQ_MSG(test, overwritten, 0UL, "node %d: pages overwritten while held",
			    fill->nid);
	KUNIT_ASSERT_EQ_MSG(test, fill->wrong_node, 0UL, "blocks not from node %d", fill->nid);
	KUNIT_ASSERT_EQ_MSG(test, fill->misaligned, 0UL, "node %d", fill->nid);
	KUNIT_ASSERT_EQ_MSG(test, fill->wrong_zone, 0UL, "node %d", fill->nid);
	KUNIT_ASSERT_EQ_MSG(test, fill->not_zeroed, 0UL, "node %d: init_on_alloc", fill->nid);
}

/* Every order on every node from a fresh start, 8 MiB of each at most. */
static void pagealloc_stress_each_order_capped(struct kunit *test)
{
	const unsigned long cap_pages = SZ_8M >> PAGE_SHIFT;
	struct pa_fill *fill = pa_fill_new(test);
	long free_before = pa_free_total();
	int nid, order;

	for_each_node_state(nid, N_MEMORY) {
		for (order = 0; order < MAX_ORDER; order++) {
			enum pa_stop stop;

			pa_fill_reset(fill, nid, jiffies + 30 * HZ);
			stop = pa_fill_order(fill, order, max(cap_pages >> order, 1UL));
			pa_fill_release(test, fill);
			KUNIT_ASSERT_EQ_MSG(test, stop, PA_STOP_CAP,
					    "node %d order %d stopped after %lu blocks",
					    nid, order, fill->blocks[order]);
		}
	}
	pa_assert_free_restored(test, free_before);
}

/*
 * Fill each node, one at a time, from the largest order down, every
 * order until the allocator refuses it; then free everything.
 */
static void pagealloc_stress_every_order_until_failure(struct kunit *test)
{
	unsigned long deadline = jiffies + stress_seconds * HZ;
	struct pa_fill *fill = pa_fill_new(test);
	long free_before = pa_free_total();
	int nid, order;

	for_each_node_state(nid, N_MEMORY) {
		enum pa_stop stop = PA_STOP_REFUSED;

		pa_fill_reset(fill, nid, deadline);
		for (order = MAX_ORDER - 1; order >= 0 && stop == PA_STOP_REFUSED; order--)
			stop = pa_fill_order(fill, order, (totalram_pages() >> order) + 1);
		pr_info("pa_kunit: %s: node %d: %lu pages in %lu blocks%s\n", test->name, nid,
			fill->pages->nr_pages, fill->pages->nr_blocks,
			stop == PA_STOP_TIME ? ", out of time before every order failed" : "");
		pa_fill_release(test, fill);
		KUNIT_ASSERT_NE_MSG(test, stop, PA_STOP_BAD, "node %d order %d", nid, order + 1);
		KUNIT_ASSERT_NE_MSG(test, stop, PA_STOP_CAP, "node %d order %d", nid, order + 1);
		KUNIT_ASSERT_GT_MSG(test, fill->blocks[MAX_ORDER - 1], 0UL,
				    "node %d gave no block of order %d", nid, MAX_ORDER - 1);
	}
	pa_assert_free_restored(test, free_before);
}

/* Allocate and free on several CPUs at once, freeing half on another CPU. */

#define PA_CONC_ITERS		20000
#define PA_CONC_KEEP		32
#define PA_CONC_INBOX_MAX	256

struct pa_inbox {
	spinlock_t lock;	/* protects pages and nr */
	struct list_head pages;
	unsigned long nr;
};

struct pa_conc {
	atomic_t running;
	struct completion done;
	unsigned long deadline;
};

struct pa_worker {
	struct pa_conc *conc;
	struct task_struct *task;
	struct pa_inbox inbox;		/* pages the previous worker allocated */
	struct pa_inbox *peer;		/* the next worker's inbox */
	unsigned int cpu;
	u32 rnd;
	unsigned long allocs, frees, fails, corrupt, moved;
};

static unsigned int pa_worker_order(struct pa_worker *w, unsigned long iter)
{
	static const unsigned char orders[] = { 0, 0, 0, 0, 1, 1, 2, 3 };

	w->rnd = w->rnd * 1103515245 + 12345;
	if (iter % 1024 == 1023)
		return pageblock_order;
	if (iter % 64 == 63)
		return PAGE_ALLOC_COSTLY_ORDER + 1;
	return orders[(w->rnd >> 16) % ARRAY_SIZE(orders)];
}

static bool pa_inbox_put(struct pa_inbox *box, struct page *page, unsigned int order)
{
	bool taken = false;

	spin_lock(&box->lock);
	if (box->nr < PA_CONC_INBOX_MAX) {
		set_page_private(page, order);
		list_add_tail(&page->lru, &box->pages);
		box->nr++;
		taken = true;
	}
	spin_unlock(&box->lock);
	return taken;
}

static struct page *pa_inbox_take(struct pa_inbox *box)
{
	struct page *page = NULL;

	spin_lock(&box->lock);
	if (box->nr) {
		page = list_first_entry(&box->pages, struct page, lru);
		list_del_init(&page->lru);
		box->nr--;
	}
	spin_unlock(&box->lock);
	return page;
}

static void pa_worker_free(struct pa_worker *w, struct page *page)
{
	w->corrupt += pa_check_block(page, page_private(page));
	pa_release(page);
	w->frees++;
}

static void pa_worker_step(struct pa_worker *w, struct list_head *mine,
			   unsigned long *nr_mine, unsigned long iter)
{
	unsigned int order = pa_worker_order(w, iter);
	struct page *page;

	page = alloc_pages(PA_GFP_TRY, order);
	if (raw_smp_processor_id() != w->cpu)
		w->moved++;
	if (!page) {
		w->fails++;
	} else {
		w->allocs++;
		pa_mark_block(page, order, false);
		if (!(iter & 1) || !pa_inbox_put(w->peer, page, order)) {
			set_page_private(page, order);
			list_add(&page->lru, mine);
			(*nr_mine)++;
		}
	}
	if (*nr_mine > PA_CONC_KEEP) {
		page = list_last_entry(mine, struct page, lru);
		(*nr_mine)--;
		pa_worker_free(w, page);
	}
	page = pa_inbox_take(&w->inbox);
	if (page)
		pa_worker_free(w, page);
}

static int pa_worker_fn(void *arg)
{
	struct pa_worker *w = arg;
	struct pa_conc *conc = w->conc;
	unsigned long iter, nr_mine = 0;
	LIST_HEAD(mine);

	for (iter = 0; iter < PA_CONC_ITERS && time_before(jiffies, conc->deadline); iter++) {
		pa_worker_step(w, &mine, &nr_mine, iter);
		cond_resched();
	}
	while (!list_empty(&mine))
		pa_worker_free(w, list_first_entry(&mine, struct page, lru));
	if (atomic_dec_and_test(&conc->running))
		complete(&conc->done);

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Start one worker per online CPU, bound to it; false if one failed to start. */
static bool pa_workers_start(struct pa_worker *workers, unsigned int nr, struct pa_conc *conc)
{
	unsigned int i = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		struct pa_worker *w = &workers[i];

		if (i == nr)
			break;
		w->conc = conc;
		w->cpu = cpu;
		w->rnd = 0x9e3779b9 * (cpu + 1);
		spin_lock_init(&w->inbox.lock);
		INIT_LIST_HEAD(&w->inbox.pages);
		w->peer = &workers[(i + 1) % nr].inbox;
		i++;
	}
	for (i = 0; i < nr; i++) {
		struct task_struct *task;

		task = kthread_create(pa_worker_fn, &workers[i], "pa_kunit/%u", workers[i].cpu);
		if (IS_ERR(task)) {
			while (i--)
				kthread_stop(workers[i].task);
			return false;
		}
		kthread_bind(task, workers[i].cpu);
		workers[i].task = task;
	}
	for (i = 0; i < nr; i++)
		wake_up_process(workers[i].task);
	return true;
}

static void pagealloc_stress_concurrent_alloc_free(struct kunit *test)
{
	unsigned long allocs = 0, frees = 0, corrupt = 0, moved = 0, idle = 0;
	unsigned int i, nr = num_online_cpus();
	long free_before = pa_free_total();
	struct pa_worker *workers;
	struct pa_conc conc;
	struct page *page;
	bool finished;

	if (nr < 2)
		kunit_skip(test, "needs two online CPUs");

	workers = kunit_kcalloc(test, nr, sizeof(*workers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, workers);
	atomic_set(&conc.running, nr);
	init_completion(&conc.done);
	conc.deadline = jiffies + 5 * HZ;
	KUNIT_ASSERT_TRUE(test, pa_workers_start(workers, nr, &conc));

	finished = wait_for_completion_timeout(&conc.done, 120 * HZ);
	for (i = 0; i < nr; i++)
		kthread_stop(workers[i].task);
	for (i = 0; i < nr; i++) {
		struct pa_worker *w = &workers[i];

		while ((page = pa_inbox_take(&w->inbox)))
			pa_worker_free(w, page);
		pr_info("pa_kunit: %s: CPU %u: %lu allocations, %lu frees, %lu refused\n",
			test->name, w->cpu, w->allocs, w->frees, w->fails);
		allocs += w->allocs;
		frees += w->frees;
		corrupt += w->corrupt;
		moved += w->moved;
		idle += !w->allocs;
	}

	KUNIT_ASSERT_TRUE(test, finished);
	KUNIT_ASSERT_EQ_MSG(test, idle, 0UL, "workers that allocated nothing");
	KUNIT_ASSERT_EQ_MSG(test, moved, 0UL, "allocations made off the worker's CPU");
	KUNIT_ASSERT_EQ_MSG(test, corrupt, 0UL, "pages overwritten while held");
	KUNIT_ASSERT_EQ(test, frees, allocs);
	pa_assert_free_restored(test, free_before);
}

static struct kunit_case pagealloc_stress_cases[] = {
	KUNIT_CASE(pagealloc_stress_each_order_capped),
	KUNIT_CASE(pagealloc_stress_every_order_until_failure),
	KUNIT_CASE(pagealloc_stress_concurrent_alloc_free),
	{}
};

static struct kunit_suite pagealloc_stress_suite = {
	.name = "pagealloc_stress",
	.test_cases = pagealloc_stress_cases,
};

/* ---- series ----------------------------------------------------------- */

/*
 * Cases for the four patches on top of the base, each checking what its
 * patch must keep: they pass on the base as well as on every commit of
 * the series.
 *
 * The pcp cases need exact counts, which a running system never holds
 * still, and the slow-path case needs a watermark state that nobody
 * changes under it, so they run under stop_machine(): every other CPU
 * spins with interrupts off, and the case itself runs with interrupts
 * off, so no one else allocates, frees or folds a vmstat delta
 * meanwhile, and zone_page_state_snapshot() is exact.  They only make
 * requests that neither sleep nor reclaim, and the pcp cases take them
 * from a zone with plenty of free memory.
 */

/* Orders the pcp lists keep below pageblock_order. */
#define PA_SERIES_ORDERS	(PAGE_ALLOC_COSTLY_ORDER + 1)
/* Bound on the blocks one pcp refill takes: a batch, scaled to the order. */
#define PA_REFILL_MAX		1024
/* Bound on the order-0 pages freed in a row to overflow pcp->high. */
#define PA_DRAIN_MAX		65536
/*
 * Rounds of the concurrent case.  Its work has to be bounded by count:
 * the guest's sched_clock() runs on jiffies, which stand still while
 * stop_machine() has interrupts off everywhere.
 */
#define PA_STORM_ROUNDS		8

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
static void *pa_kvzalloc(struct kunit *test, size_t bytes)
{
	void *p = kunit_alloc_resource(test, pa_kv_init, pa_kv_free, GFP_KERNEL, &bytes);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Order-0 pages that overflow a pcp list from empty: pcp->high plus slack. */
static int pa_overflow_pages(struct per_cpu_pages *pcp)
{
	return READ_ONCE(pcp->high) + 2 * READ_ONCE(pcp->batch);
}

/* NR_FREE_PAGES of @zone with every CPU's unfolded delta. */
static long pa_zone_free(struct zone *zone)
{
	return zone_page_state_snapshot(zone, NR_FREE_PAGES);
}

/* All free pages of @zone: the buddy lists plus every CPU's pcp lists. */
static long pa_zone_free_total(struct zone *zone)
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
static struct zone *pa_roomy_zone(unsigned int overflows)
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
static bool pa_min_path_open(struct zone *zone, unsigned int order, int highidx)
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

/* ---- patch 1: should_fail_alloc_page() compiled out ------------------- */

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
static void pagealloc_series_low_orders_never_fail(struct kunit *test)
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
static void pagealloc_series_bulk_never_fails(struct kunit *test)
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

/* ---- patch 2: high-order __GFP_NOFAIL warning in the slow path -------- */

/*
 * The warning is for __GFP_NOFAIL above order 1 only: __GFP_NOFAIL
 * requests of order 0 and 1 succeed without a WARNING, and requests of
 * any order without __GFP_NOFAIL never trigger it.
 */
static void pagealloc_series_nofail_low_orders_do_not_warn(struct kunit *test)
{
	static const gfp_t gfps[] = { GFP_KERNEL, GFP_NOFS, GFP_NOIO };
	static const unsigned int big[] = { 2, PAGE_ALLOC_COSTLY_ORDER, pageblock_order };
	struct pa_pages *pp = pa_pages_new(test, false);
	bool tainted = test_taint(TAINT_WARN);
	unsigned int before, order;
	struct page *page;
	int i, n, nid;

	if (!pa_zone_roomy(pa_local_zone(), ZONE_NORMAL))
		kunit_skip(test, "the local node has no free memory to spare");
	before = pa_count_alloc_warnings();

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

	KUNIT_ASSERT_EQ_MSG(test, pa_count_alloc_warnings(), before,
			    "allocator WARNING for __GFP_NOFAIL of order <= 1");
	if (!tainted)
		KUNIT_ASSERT_FALSE(test, test_taint(TAINT_WARN));
}

struct pa_nofail_slow {
	struct zone *dma;
	struct pa_pages *held;
	bool shut;			/* fast path refused order 1 */
	bool open;			/* min watermark allowed order 1 */
	bool order0_tried;
	struct page *page1, *page0;
};

/*
 * Lower ZONE_DMA with order-0 requests that neither reclaim nor wake
 * kswapd until the fast path's low-watermark check refuses order 1, then
 * make __GFP_NOFAIL requests of order 1 and 0.  They enter the slow path
 * and are served at the min watermark.  They do not block either, so
 * if the zone were short they would fail instead of looping (their
 * __GFP_NOWARN hides that report; the order warning ignores it).
 */
static int pa_nofail_slow_fn(void *arg)
{
	const gfp_t gfp = __GFP_NOWARN | __GFP_DMA | __GFP_THISNODE;
	struct pa_nofail_slow *s = arg;
	struct zone *dma = s->dma;
	int nid = zone_to_nid(dma);
	unsigned long n, limit = zone_managed_pages(dma);

	for (n = 0; n < limit && !pa_fast_path_shut(nid, ZONE_DMA, 1); n++) {
		struct page *page = __alloc_pages_node(nid, gfp, 0);

		if (!page)
			break;
		pa_pages_add(s->held, page, 0);
	}
	s->shut = pa_fast_path_shut(nid, ZONE_DMA, 1);
	s->open = pa_min_path_open(dma, 1, ZONE_DMA);
	if (!s->shut || !s->open)
		return 0;

	s->page1 = __alloc_pages_node(nid, gfp | __GFP_NOFAIL, 1);
	if (s->page1)
		pa_pages_add(s->held, s->page1, 1);
	if (pa_fast_path_shut(nid, ZONE_DMA, 0) && pa_min_path_open(dma, 0, ZONE_DMA)) {
		s->order0_tried = true;
		s->page0 = __alloc_pages_node(nid, gfp | __GFP_NOFAIL, 0);
		if (s->page0)
			pa_pages_add(s->held, s->page0, 0);
	}
	return 0;
}

/*
 * After the series the order check lives in the slow path: an order-1
 * __GFP_NOFAIL request that reaches it must still not warn.
 */
static void pagealloc_series_nofail_order1_slow_path_does_not_warn(struct kunit *test)
{
	struct pa_nofail_slow s = { };
	bool tainted = test_taint(TAINT_WARN);
	unsigned int before;
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
	before = pa_count_alloc_warnings();

	KUNIT_ASSERT_EQ(test, stop_machine(pa_nofail_slow_fn, &s, NULL), 0);
	pr_info("pa_kunit: %s: %lu pages taken from ZONE_DMA, order 0 %s\n", test->name,
		s.held->nr_pages, s.order0_tried ? "tried" : "not tried");

	KUNIT_ASSERT_TRUE_MSG(test, s.shut, "ZONE_DMA stayed above its low watermark");
	if (!s.open)
		kunit_skip(test, "ZONE_DMA has no order-1 block above its min watermark");
	KUNIT_ASSERT_NOT_NULL_MSG(test, s.page1, "order-1 __GFP_NOFAIL in the slow path");
	KUNIT_ASSERT_PTR_EQ(test, page_zone(s.page1), s.dma);
	if (s.order0_tried)
		KUNIT_ASSERT_NOT_NULL_MSG(test, s.page0, "order-0 __GFP_NOFAIL in the slow path");
	KUNIT_ASSERT_EQ_MSG(test, pa_count_alloc_warnings(), before,
			    "allocator WARNING for __GFP_NOFAIL of order <= 1");
	if (!tainted)
		KUNIT_ASSERT_FALSE(test, test_taint(TAINT_WARN));
	pa_pages_free(s.held);
	pa_assert_free_restored(test, free_before);
}

/* ---- patch 3: pcp refill checked after zone->lock --------------------- */

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
	unsigned long bad;		/* blocks misplaced, free or not cleared */
};

static bool pa_block_ok(struct page *page, unsigned int order, struct zone *zone, gfp_t gfp)
{
	unsigned long i;

	if (page_zone(page) != zone || !IS_ALIGNED(page_to_pfn(page), 1UL << order))
		return false;
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
 * request refills it again.
 */
static int pa_refill_fn(void *arg)
{
	struct pa_refill *r = arg;
	struct per_cpu_pages *pcp;
	struct list_head *list;
	struct page *page;
	long free, count, n;

	r->zone = pa_roomy_zone(0);
	if (!r->zone)
		return 0;
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
	r->blocks = r->batch > 1 ? max(r->batch >> r->order, 2) : 1;
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

	r.held = pa_pages_new(test, false);
	KUNIT_ASSERT_EQ(test, stop_machine(pa_refill_fn, &r, NULL), 0);
	if (!r.zone)
		kunit_skip(test, "no zone has free memory to spare");

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
	KUNIT_ASSERT_EQ_MSG(test, r.free_drop_again, pages, "order %u second refill", order);
	KUNIT_ASSERT_EQ_MSG(test, r.count_rise_again, pages - (1L << order),
			    "order %u second refill: pcp count", order);
	KUNIT_ASSERT_EQ_MSG(test, r.bad, 0UL, "order %u: blocks misplaced, free or dirty",
			    order);
}

static void pagealloc_series_pcp_refill_takes_one_batch(struct kunit *test)
{
	struct page **next = kunit_kcalloc(test, PA_REFILL_MAX, sizeof(*next), GFP_KERNEL);
	unsigned int order;

	KUNIT_ASSERT_NOT_NULL(test, next);
	for (order = 0; order < PA_SERIES_ORDERS; order++)
		pa_check_refill(test, next, order, MIGRATE_UNMOVABLE);
	pa_check_refill(test, next, 0, MIGRATE_MOVABLE);
	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		pa_check_refill(test, next, pageblock_order, MIGRATE_MOVABLE);
}

/* ---- patch 4: one NR_FREE_PAGES update per pcp drain ------------------ */

struct pa_drain {
	struct page **pages;		/* order-0 pages freed one by one */
	struct zone *zone;
	int high, batch, nr;
	bool too_many;			/* nr above PA_DRAIN_MAX */
	bool failed;			/* an allocation failed or missed the zone */
	long start, end;		/* free pages of the zone, buddy plus pcp */
	unsigned long drift;		/* frees that changed that by other than 1 */
	unsigned long trims, trimmed;	/* pcp trims while freeing, pages they moved */
	int factor;			/* pcp->free_factor before the order-1 free */
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
 */
static int pa_drain_fn(void *arg)
{
	struct pa_drain *d = arg;
	struct per_cpu_pages *pcp;
	struct page *block;
	long total, free;
	int i, n;

	d->zone = pa_roomy_zone(1);
	if (!d->zone)
		return 0;
	pcp = this_cpu_ptr(d->zone->per_cpu_pageset);
	d->high = pcp->high;
	d->batch = pcp->batch;
	d->nr = pa_overflow_pages(pcp);
	d->too_many = d->nr > PA_DRAIN_MAX;
	if (d->too_many)
		return 0;

	d->start = pa_zone_free_total(d->zone);
	block = pa_alloc_atomic(d->zone, 1, MIGRATE_UNMOVABLE);
	for (n = 0; n < d->nr; n++) {
		d->pages[n] = pa_alloc_atomic(d->zone, 0, MIGRATE_UNMOVABLE);
		if (!d->pages[n] || page_zone(d->pages[n]) != d->zone)
			break;
	}
	if (!block || page_zone(block) != d->zone || n < d->nr) {
		d->failed = true;
		if (n < d->nr && d->pages[n])
			n++;
		for (i = 0; i < n; i++)
			__free_pages(d->pages[i], 0);
		if (block)
			__free_pages(block, 1);
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

	d->factor = pcp->free_factor;
	d->pcp_before = pcp->count;
	free = pa_zone_free(d->zone);
	__free_pages(block, 1);
	d->pcp_after = pcp->count;
	d->free_rise = pa_zone_free(d->zone) - free;

	for (i = 0; i < d->nr; i++)
		d->not_buddy += !is_free_buddy_page(d->pages[i]);
	d->not_buddy += !is_free_buddy_page(block);
	d->end = pa_zone_free_total(d->zone);
	return 0;
}

static void pa_run_drain(struct kunit *test, struct pa_drain *d)
{
	d->pages = pa_kvzalloc(test, PA_DRAIN_MAX * sizeof(*d->pages));
	KUNIT_ASSERT_EQ(test, stop_machine(pa_drain_fn, d, NULL), 0);
	if (!d->zone)
		kunit_skip(test, "no zone has free memory to spare");
	if (d->too_many)
		kunit_skip(test, "pcp->high %d of %s is too large", d->high, d->zone->name);
	pr_info("pa_kunit: %s: %s high %d batch %d: %lu trims freed %lu pages, then %ld drained\n",
		test->name, d->zone->name, d->high, d->batch, d->trims, d->trimmed,
		d->free_rise);
	KUNIT_ASSERT_FALSE_MSG(test, d->failed, "allocations from %s failed", d->zone->name);
}

static void pagealloc_series_pcp_trims_keep_free_count_exact(struct kunit *test)
{
	struct pa_drain d = { };

	pa_run_drain(test, &d);
	KUNIT_ASSERT_GT_MSG(test, d.trims, 0UL, "no trim freeing %d pages, high %d, batch %d",
			    d.nr, d.high, d.batch);
	KUNIT_ASSERT_EQ_MSG(test, d.drift, 0UL, "buddy plus pcp pages off by a free (%lu trims)",
			    d.trims);
	KUNIT_ASSERT_EQ_MSG(test, d.end, d.start, "free pages of %s", d.zone->name);
}

static void pagealloc_series_pcp_drain_frees_exactly_the_list(struct kunit *test)
{
	struct pa_drain d = { };

	pa_run_drain(test, &d);
	KUNIT_ASSERT_GT_MSG(test, d.factor, 0, "pcp->free_factor after %lu trims", d.trims);
	KUNIT_ASSERT_EQ_MSG(test, d.pcp_after, 0L, "pcp count after the drain (was %ld)",
			    d.pcp_before);
	KUNIT_ASSERT_EQ_MSG(test, d.free_rise, d.pcp_before + 2,
			    "NR_FREE_PAGES rise for %ld pcp pages plus an order-1 block",
			    d.pcp_before);
	KUNIT_ASSERT_EQ_MSG(test, d.not_buddy, 0UL, "freed pages not back in the buddy lists");
	KUNIT_ASSERT_EQ_MSG(test, d.end, d.start, "free pages of %s", d.zone->name);
}

/* ---- patches 3 and 4 together: every CPU refills and drains ----------- */

struct pa_storm_cpu {
	struct page **pages;
	int max_pages;			/* room in pages[] */
	struct page *blocks[PA_SERIES_ORDERS];
	unsigned long rounds, allocs, failed, stray, corrupt;
	unsigned long trims;		/* frees after which this CPU's pcp count fell */
};

struct pa_storm {
	struct zone *zone;
	struct pa_storm_cpu *cpus;	/* indexed by CPU number */
	atomic_t arrived, left, go;
	long start, end;
};

static void pa_storm_mark(struct page *page, unsigned int order, void *owner)
{
	unsigned long pfn = page_to_pfn(page), i;

	for (i = 0; i < (1UL << order); i++) {
		unsigned long *word = page_address(page + i);

		word[0] = pa_marker(pfn + i);
		word[1] = (unsigned long)owner;
	}
}

static bool pa_storm_intact(struct page *page, unsigned int order, void *owner)
{
	unsigned long pfn = page_to_pfn(page), i;

	for (i = 0; i < (1UL << order); i++) {
		unsigned long *word = page_address(page + i);

		if (word[0] != pa_marker(pfn + i) || word[1] != (unsigned long)owner)
			return false;
	}
	return true;
}

static struct page *pa_storm_alloc(struct pa_storm *s, struct pa_storm_cpu *c,
				   unsigned int order, int mt)
{
	struct page *page = pa_alloc_atomic(s->zone, order, mt);

	if (!page) {
		c->failed++;
		return NULL;
	}
	c->allocs++;
	if (page_zone(page) != s->zone)
		c->stray++;
	pa_storm_mark(page, order, c);
	return page;
}

static void pa_storm_free(struct pa_storm_cpu *c, struct per_cpu_pages *pcp,
			  struct page *page, unsigned int order)
{
	int count = pcp->count;

	c->corrupt += !pa_storm_intact(page, order, c);
	__free_pages(page, order);
	if (pcp->count <= count)
		c->trims++;
}

/*
 * One round: take more order-0 pages than pcp->high (several refills),
 * a block of each order 1..3, check none was written by another CPU,
 * then free them all (trims, then a full drain by the first block).
 */
static void pa_storm_round(struct pa_storm *s, struct pa_storm_cpu *c,
			   struct per_cpu_pages *pcp, int nr, int mt)
{
	unsigned int order;
	int i, n;

	for (n = 0; n < nr; n++) {
		c->pages[n] = pa_storm_alloc(s, c, 0, mt);
		if (!c->pages[n])
			break;
	}
	for (order = 1; order < PA_SERIES_ORDERS; order++)
		c->blocks[order] = pa_storm_alloc(s, c, order, mt);

	for (i = 0; i < n; i++)
		pa_storm_free(c, pcp, c->pages[i], 0);
	for (order = 1; order < PA_SERIES_ORDERS; order++)
		if (c->blocks[order])
			pa_storm_free(c, pcp, c->blocks[order], order);
	c->rounds++;
}

/* Runs on every online CPU at once, interrupts off. */
static int pa_storm_fn(void *arg)
{
	struct pa_storm *s = arg;
	struct pa_storm_cpu *c = &s->cpus[smp_processor_id()];
	struct per_cpu_pages *pcp = this_cpu_ptr(s->zone->per_cpu_pageset);
	int nr = min(pa_overflow_pages(pcp), c->max_pages);
	unsigned int cpus = num_online_cpus();
	int round;

	/* The last CPU to arrive counts the free pages and lets all go. */
	if (atomic_inc_return(&s->arrived) == cpus) {
		s->start = pa_zone_free_total(s->zone);
		atomic_set_release(&s->go, 1);
	}
	while (!atomic_read_acquire(&s->go))
		cpu_relax();

	for (round = 0; round < PA_STORM_ROUNDS; round++)
		pa_storm_round(s, c, pcp, nr, round & 1 ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE);

	/* The last CPU to finish counts them again. */
	if (atomic_inc_return(&s->left) == cpus)
		s->end = pa_zone_free_total(s->zone);
	return 0;
}

/*
 * All CPUs refill and drain their pcp lists of one zone at the same
 * time, contending for zone->lock.  No page may be handed to two CPUs,
 * and once everything is freed the zone's free pages, buddy plus pcp,
 * must be exactly what they were.
 */
static void pagealloc_series_concurrent_refill_and_drain_balance(struct kunit *test)
{
	unsigned long rounds = 0, allocs = 0;
	struct pa_storm s = { };
	int cpu;

	s.zone = pa_roomy_zone(num_online_cpus());
	if (!s.zone)
		kunit_skip(test, "no zone has free memory to spare");
	s.cpus = kunit_kcalloc(test, nr_cpu_ids, sizeof(*s.cpus), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s.cpus);
	/* Room for each CPU's overflow, plus a batch should pcp->high grow meanwhile. */
	for_each_online_cpu(cpu) {
		struct pa_storm_cpu *c = &s.cpus[cpu];

		c->max_pages = pa_overflow_pages(per_cpu_ptr(s.zone->per_cpu_pageset, cpu)) + 64;
		c->max_pages = min(c->max_pages, PA_DRAIN_MAX);
		c->pages = pa_kvzalloc(test, c->max_pages * sizeof(*c->pages));
	}

	KUNIT_ASSERT_EQ(test, stop_machine(pa_storm_fn, &s, cpu_online_mask), 0);

	for_each_online_cpu(cpu) {
		struct pa_storm_cpu *c = &s.cpus[cpu];

		pr_info("pa_kunit: %s: CPU %d: %lu rounds, %lu allocations, %lu trims in %s\n",
			test->name, cpu, c->rounds, c->allocs, c->trims, s.zone->name);
		KUNIT_ASSERT_EQ_MSG(test, c->failed, 0UL, "CPU %d: allocations failed", cpu);
		KUNIT_ASSERT_EQ_MSG(test, c->stray, 0UL, "CPU %d: pages not from %s", cpu,
				    s.zone->name);
		KUNIT_ASSERT_EQ_MSG(test, c->corrupt, 0UL, "CPU %d: page held by two CPUs", cpu);
		KUNIT_ASSERT_GT_MSG(test, c->rounds, 0UL, "CPU %d", cpu);
		KUNIT_ASSERT_GT_MSG(test, c->trims, 0UL, "CPU %d: pcp never trimmed", cpu);
		rounds += c->rounds;
		allocs += c->allocs;
	}
	KUNIT_ASSERT_EQ_MSG(test, s.end, s.start, "free pages of %s after %lu rounds, %lu allocs",
			    s.zone->name, rounds, allocs);
}

/*
 * alloc_pages() goes straight to the local node when the task has no
 * policy of its own (series: alloc-pages-local-without-policy).  A task
 * policy must still steer it, and __GFP_THISNODE and interrupt context
 * (here: bottom halves disabled) must still ignore that policy.
 */
struct pa_policy_nids {
	int plain;	/* GFP_KERNEL */
	int thisnode;	/* GFP_KERNEL | __GFP_THISNODE */
	int bh;		/* GFP_ATOMIC with bottom halves disabled */
};

static int pa_alloc_nid(gfp_t gfp)
{
	struct page *page = alloc_pages(gfp, 0);
	int nid;

	if (!page)
		return NUMA_NO_NODE;
	nid = page_to_nid(page);
	__free_pages(page, 0);
	return nid;
}

static void pa_alloc_under_policy(struct mempolicy *pol, struct pa_policy_nids *r)
{
	struct mempolicy *old;

	task_lock(current);
	old = current->mempolicy;
	current->mempolicy = pol;
	task_unlock(current);

	r->plain = pa_alloc_nid(GFP_KERNEL);
	r->thisnode = pa_alloc_nid(GFP_KERNEL | __GFP_THISNODE);
	local_bh_disable();
	r->bh = pa_alloc_nid(GFP_ATOMIC);
	local_bh_enable();

	task_lock(current);
	current->mempolicy = old;
	task_unlock(current);
}

static void pagealloc_series_task_policy_still_steers_alloc_pages(struct kunit *test)
{
	struct mempolicy pol = {
		.refcnt = ATOMIC_INIT(1),
		.mode = MPOL_PREFERRED,
		.home_node = NUMA_NO_NODE,
	};
	struct pa_policy_nids r;
	int local, other = NUMA_NO_NODE, nid;

	migrate_disable();
	local = numa_node_id();
	for_each_node_state(nid, N_MEMORY)
		if (nid != local && pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
			other = nid;
	if (other == NUMA_NO_NODE ||
	    !pa_zone_roomy(pa_top_zone(local, ZONE_NORMAL), ZONE_NORMAL)) {
		migrate_enable();
		kunit_skip(test, "needs two nodes with free memory to spare");
	}
	node_set(other, pol.nodes);
	pa_alloc_under_policy(&pol, &r);
	migrate_enable();

	KUNIT_EXPECT_EQ_MSG(test, r.plain, other,
			    "alloc_pages() under a policy preferring node %d", other);
	KUNIT_EXPECT_EQ_MSG(test, r.thisnode, local,
			    "alloc_pages(__GFP_THISNODE) must ignore the task policy");
	KUNIT_EXPECT_EQ_MSG(test, r.bh, local,
			    "alloc_pages() in interrupt context must ignore the task policy");
}

static struct kunit_case pagealloc_series_cases[] = {
	KUNIT_CASE(pagealloc_series_low_orders_never_fail),
	KUNIT_CASE(pagealloc_series_bulk_never_fails),
	KUNIT_CASE(pagealloc_series_nofail_low_orders_do_not_warn),
	KUNIT_CASE(pagealloc_series_nofail_order1_slow_path_does_not_warn),
	KUNIT_CASE(pagealloc_series_pcp_refill_takes_one_batch),
	KUNIT_CASE(pagealloc_series_pcp_trims_keep_free_count_exact),
	KUNIT_CASE(pagealloc_series_pcp_drain_frees_exactly_the_list),
	KUNIT_CASE(pagealloc_series_concurrent_refill_and_drain_balance),
	KUNIT_CASE(pagealloc_series_task_policy_still_steers_alloc_pages),
	{}
};

static struct kunit_suite pagealloc_series_suite = {
	.name = "pagealloc_series",
	.test_cases = pagealloc_series_cases,
};

kunit_test_suites(&pagealloc_seeds_suite, &pagealloc_stress_suite,
		  &pagealloc_series_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the page allocator's fast paths, zones, nodes and pcp lists");
