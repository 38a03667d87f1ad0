// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the suites: pages a case holds, zones and nodes,
 * counters, the pcp lists, and the module parameters.  Those that
 * pa_kunit_stress uses are exported to it.
 */

#include "pa_kunit.h"

unsigned int exhaust_seconds = 120;
module_param(exhaust_seconds, uint, 0444);
MODULE_PARM_DESC(exhaust_seconds,
		 "Time allowed to exhaust one node in the seeds suite before the case is skipped");

void pa_pages_add(struct pa_pages *pp, struct page *page, unsigned int order)
{
	set_page_private(page, order);
	list_add(&page->lru, &pp->list);
	pp->nr_blocks++;
	pp->nr_pages += 1UL << order;
}
EXPORT_SYMBOL_GPL(pa_pages_add);

unsigned long pa_marker(unsigned long pfn)
{
	return pfn ^ PA_MAGIC;
}

/*
 * Write the marker into each page of a block; return how many pages
 * did not start zeroed although @zeroed says they must.
 */
unsigned long pa_mark_block(struct page *page, unsigned int order, bool zeroed)
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
EXPORT_SYMBOL_GPL(pa_mark_block);

/* Count the pages of a block whose marker was overwritten. */
unsigned long pa_check_block(struct page *page, unsigned int order)
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
EXPORT_SYMBOL_GPL(pa_check_block);

void pa_release(struct page *page)
{
	unsigned int order = page_private(page);

	list_del_init(&page->lru);
	set_page_private(page, 0);
	__free_pages(page, order);
}
EXPORT_SYMBOL_GPL(pa_release);

/* Free every block; return how many marked pages had been overwritten. */
unsigned long pa_pages_free(struct pa_pages *pp)
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
EXPORT_SYMBOL_GPL(pa_pages_free);

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
struct pa_pages *pa_pages_new(struct kunit *test, bool marked)
{
	struct pa_pages *pp;

	pp = kunit_alloc_resource(test, pa_pages_res_init, pa_pages_res_free,
				  GFP_KERNEL, &marked);
	KUNIT_ASSERT_NOT_NULL(test, pp);
	return pp;
}
EXPORT_SYMBOL_GPL(pa_pages_new);

/* Zones, as the zonelists see them (populated zones only). */

struct zone *pa_node_zone(int nid, int zid)
{
	struct zone *zone = &NODE_DATA(nid)->node_zones[zid];

	return populated_zone(zone) ? zone : NULL;
}

/* The zone a request of class @highidx starts from on @nid. */
struct zone *pa_top_zone(int nid, int highidx)
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
bool pa_zone_roomy(struct zone *zone, int highidx)
{
	unsigned long free, need;

	if (!zone)
		return false;
	free = zone_page_state(zone, NR_FREE_PAGES);
	need = 2 * high_wmark_pages(zone) + zone->lowmem_reserve[highidx] + 4096;
	return free > need;
}

unsigned long pa_node_free(int nid, int highidx)
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

gfp_t pa_zone_gfp(int zid)
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

const char *pa_mt_name(int mt)
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

/* "order N type", the description of a parameter of a case. */
void pa_block_kind_desc(const struct pa_block_kind *kind, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "order %u %s", kind->order, pa_mt_name(kind->mt));
}

/*
 * The orders a case runs at when the path it checks takes one: order 0,
 * the largest order the pcp lists keep below pageblock_order, and the
 * smallest they do not, which goes to and comes from the buddy lists.
 * Ascending, so that the pcp orders come first.
 */
static const unsigned int pa_orders[] = {
	0, PAGE_ALLOC_COSTLY_ORDER, PAGE_ALLOC_COSTLY_ORDER + 1,
};

/* "order N", named in every failure report of the case as well. */
static void pa_order_desc(const unsigned int *order, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "order %u", *order);
}

KUNIT_ARRAY_PARAM(pa_order, pa_orders, pa_order_desc);

/* The generator of a case that holds at every order, for suites.c. */
const void *pa_order_params(const void *prev, char *desc)
{
	return pa_order_gen_params(prev, desc);
}

/*
 * The same orders up to PAGE_ALLOC_COSTLY_ORDER, for a case whose
 * assertion holds only there: the pcp lists keep these orders, and the
 * allocator reclaims and retries for them where a costly request gives
 * up.
 */
const void *pa_low_order_params(const void *prev, char *desc)
{
	const unsigned int *order = pa_order_gen_params(prev, desc);

	return order && *order <= PAGE_ALLOC_COSTLY_ORDER ? order : NULL;
}

/*
 * Allocate @order pages of migratetype @mt from @zone without sleeping.
 * The result may come from another zone of the node if @zone is short;
 * callers check page_zone().
 */
struct page *pa_alloc_atomic(struct zone *zone, unsigned int order, int mt)
{
	gfp_t gfp = PA_GFP_ATOMIC | __GFP_THISNODE |
		    pa_zone_gfp(zone_idx(zone)) | pa_mt_gfp(mt);

	return __alloc_pages_node(zone_to_nid(zone), gfp, order);
}

/* The zone an ordinary kernel allocation on this CPU starts from. */
struct zone *pa_local_zone(void)
{
	return pa_top_zone(numa_mem_id(), ZONE_NORMAL);
}

static phys_addr_t pa_phys_end(struct page *page, unsigned int order)
{
	return page_to_phys(page) + (PAGE_SIZE << order);
}

/* A block of a ZONE_DMA or ZONE_DMA32 request must lie below 16 MiB or 4 GiB. */
void pa_assert_below_limit(struct kunit *test, struct page *page, unsigned int order,
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

/* A VM event, summed over the CPUs. */
unsigned long pa_event(enum vm_event_item item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[item];
	return sum;
}

/* An event counted per zone, summed over the zones: @normal is ZONE_NORMAL's. */
static unsigned long pa_zone_events(enum vm_event_item normal)
{
	unsigned long sum = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		sum += pa_event(normal - ZONE_NORMAL + zid);
	return sum;
}

/* Direct reclaim entries (ALLOCSTALL_*). */
unsigned long pa_alloc_stalls(void)
{
	return pa_zone_events(ALLOCSTALL_NORMAL);
}

/* Pages allocated, as /proc/vmstat's pgalloc_* count them. */
unsigned long pa_pgalloc_events(void)
{
	return pa_zone_events(PGALLOC_NORMAL);
}

/* Events that only an allocation's slow path counts. */
unsigned long pa_slow_path_events(void)
{
	unsigned long sum = pa_alloc_stalls() + pa_event(PGSCAN_DIRECT);

#ifdef CONFIG_COMPACTION
	sum += pa_event(COMPACTSTALL);
#endif
	return sum;
}

unsigned long pa_zone_numa(struct zone *zone, enum numa_stat_item item)
{
	unsigned long sum = atomic_long_read(&zone->vm_numa_event[item]);
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu_ptr(zone->per_cpu_zonestats, cpu)->vm_numa_event[item];
	return sum;
}

unsigned long pa_node_numa(int nid, enum numa_stat_item item)
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
long pa_free_total(void)
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
EXPORT_SYMBOL_GPL(pa_free_total);

/*
 * After a case has freed what it allocated, the free pages must be back
 * where they were, give or take what the rest of the system is doing:
 * none missing, and none counted twice.  RCU-deferred frees and vmstat
 * folding can lag, so look again briefly.
 */
void pa_assert_free_restored(struct kunit *test, long before)
{
	long after = pa_free_total();
	int tries;

	for (tries = 0; tries < 20 && abs(after - before) > PA_FREE_SLACK; tries++) {
		msleep(50);
		after = pa_free_total();
	}
	KUNIT_ASSERT_GE_MSG(test, after + PA_FREE_SLACK, before, "%ld pages missing",
			    before - after);
	KUNIT_ASSERT_LE_MSG(test, after, before + PA_FREE_SLACK,
			    "%ld more pages free than before the case", after - before);
}
EXPORT_SYMBOL_GPL(pa_assert_free_restored);

/* The inverse of pa_pindex(). */
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
void pa_pcp_empty(struct zone *zone, struct pa_pages *held)
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
 * allocation halves pcp->free_factor (6.1) or pcp->free_count (6.7 on),
 * which must be low for a freed page of order 1..PAGE_ALLOC_COSTLY_ORDER
 * to stay on the list (pa_pcp_drain_armed()).
 */
void pa_pcp_settle(struct zone *zone, struct pa_pages *held)
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
bool pa_pcp_keeps_freed(struct zone *zone, unsigned int order, int mt)
{
	struct per_cpu_pages *pcp = this_cpu_ptr(zone->per_cpu_pageset);
	int high = READ_ONCE(pcp->high);
	int batch = READ_ONCE(pcp->batch);
	int count = READ_ONCE(pcp->count);
	int nr = 1 << order;

	if (order && pa_pcp_drain_armed(pcp))
		return false;
	if (test_bit(ZONE_RECLAIM_ACTIVE, &zone->flags))
		high = min(batch << 2, high);
	if (high < batch || high <= 0)
		return false;
	if (count + nr < high)
		return true;
	return nr >= batch && !list_empty(&pcp->lists[pa_pindex(order, mt)]);
}

/*
 * Kernel warnings, seen as they are printed: a probe on the console
 * tracepoint (as mm/kfence/kfence_test.c watches for its reports) counts
 * each "WARNING:" line from the moment a case asks until it ends.  Every
 * warning counts, not only those that name the allocator: without
 * DEBUG_BUGVERBOSE a warning names the function it was inlined into
 * (rmqueue()'s is "at get_page_from_freelist+0x..."), and the cases that
 * watch want no warning at all while they allocate.
 */

static atomic_t pa_warnings = ATOMIC_INIT(0);

static void pa_probe_console(void *ignore, const char *buf, size_t len)
{
	if (len >= 8 && !strncmp(buf, "WARNING:", 8))
		atomic_inc(&pa_warnings);
}

static void pa_find_console_tp(struct tracepoint *tp, void *found)
{
	if (!strcmp(tp->name, "console"))
		*(struct tracepoint **)found = tp;
}

static int pa_watch_init(struct kunit_resource *res, void *context)
{
	struct tracepoint *tp = NULL;
	int ret;

	check_trace_callback_type_console(pa_probe_console);
	for_each_kernel_tracepoint(pa_find_console_tp, &tp);
	if (!tp)
		return -ENOENT;
	atomic_set(&pa_warnings, 0);
	ret = tracepoint_probe_register(tp, pa_probe_console, NULL);
	if (ret)
		return ret;
	res->data = tp;
	return 0;
}

/* Runs however the case ends, so a failed assertion leaves no probe. */
static void pa_watch_free(struct kunit_resource *res)
{
	tracepoint_probe_unregister(res->data, pa_probe_console, NULL);
	tracepoint_synchronize_unregister();
}

void pa_watch_warnings(struct kunit *test)
{
	KUNIT_ASSERT_NOT_NULL_MSG(test, kunit_alloc_resource(test, pa_watch_init, pa_watch_free,
							     GFP_KERNEL, NULL),
				  "no probe on the console tracepoint");
}

unsigned int pa_warnings_seen(void)
{
	return atomic_read(&pa_warnings);
}
