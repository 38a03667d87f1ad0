// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: what a free takes back besides the page.
 * free-pages-prepare-page-is-its-folio changes how free_pages_prepare()
 * finds the memcg kmem charge of the block it frees;
 * free-pages-prepare-rare-cases-out-of-line moves its clean-up of a page
 * freed still mlocked out of line.
 */

#include <linux/memcontrol.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>

#include "pa_kunit.h"

/* ---- free-pages-prepare-page-is-its-folio ------------------------------ */

/*
 * The memcg of the guest's init, with a reference.  Init enters a cgroup
 * of its own with the memory controller on before it loads this module,
 * as systemd puts every task in one on Debian; a case runs in a kthread,
 * which is never charged unless it names a memcg.
 */
static struct mem_cgroup *pa_init_memcg(void)
{
	struct mem_cgroup *memcg = NULL;
	struct task_struct *init;

	rcu_read_lock();
	init = pid_task(find_vpid(1), PIDTYPE_PID);
	if (init)
		memcg = mem_cgroup_from_task(init);
	if (memcg && !css_tryget(&memcg->css))
		memcg = NULL;
	rcu_read_unlock();
	return memcg;
}

struct pa_free_kind {
	unsigned int order;
	bool list;		/* freed through free_unref_page_list() */
};

/*
 * Each function that free_pages_prepare() is inlined into: the pcp free
 * of one page, of a block of the largest order the pcp lists keep below
 * pageblock_order, and of a list (which holds order-0 pages only), and
 * the buddy free of an order the pcp lists do not keep.
 */
static const struct pa_free_kind pa_free_kinds[] = {
	{ 0, false }, { PAGE_ALLOC_COSTLY_ORDER, false }, { 0, true },
	{ PAGE_ALLOC_COSTLY_ORDER + 1, false },
};

static void pa_free_kind_desc(const struct pa_free_kind *kind, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "order %u%s", kind->order,
		 kind->list ? " in a list" : "");
}

KUNIT_ARRAY_PARAM(pa_free, pa_free_kinds, pa_free_kind_desc);

/* The generator for the case below, for suites.c. */
const void *pa_free_params(const void *prev, char *desc)
{
	return pa_free_gen_params(prev, desc);
}

static void pa_free_as(const struct pa_free_kind *kind, struct page *page)
{
	LIST_HEAD(list);

	if (!kind->list) {
		__free_pages(page, kind->order);
		return;
	}
	list_add(&page->lru, &list);
	put_pages_list(&list);
}

/*
 * A __GFP_ACCOUNT block is charged to the memcg in charge of the
 * allocation and carries its objcg in memcg_data; the free must uncharge
 * it and clear memcg_data, or the memcg stays charged for memory it no
 * longer has and the next owner of the block inherits the charge.
 */
void pagealloc_series_free_returns_kmem_charge(struct kunit *test)
{
	const struct pa_free_kind *kind = test->param_value;
	struct mem_cgroup *memcg = pa_init_memcg(), *old;
	unsigned long data = 0;
	bool charged = false;
	struct page *page;

	KUNIT_ASSERT_NOT_NULL_MSG(test, memcg, "init has no memcg");
	if (!memcg->css.parent) {
		css_put(&memcg->css);
		KUNIT_ASSERT_FAILURE(test, "init is in the root memcg, which is never charged");
	}
	old = set_active_memcg(memcg);
	page = alloc_pages(PA_GFP_TRY | __GFP_ACCOUNT, kind->order);
	set_active_memcg(old);
	if (page) {
		rcu_read_lock();
		charged = PageMemcgKmem(page) && page_memcg(page) == memcg;
		rcu_read_unlock();
		pa_free_as(kind, page);
		data = READ_ONCE(page->memcg_data);
	}
	css_put(&memcg->css);

	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "no order-%u block", kind->order);
	KUNIT_ASSERT_TRUE_MSG(test, charged,
			      "order-%u __GFP_ACCOUNT block not charged to init's memcg",
			      kind->order);
	KUNIT_ASSERT_EQ_MSG(test, data, 0UL,
			    "order-%u block freed with its kmem charge (memcg_data %#lx)",
			    kind->order, data);
}

/* ---- free-pages-prepare-rare-cases-out-of-line ------------------------- */

/*
 * A block can reach the allocator still mlocked when truncation or hole
 * punching raced with munlock.  Its free must give its pages back to the
 * zone's NR_MLOCK and count them as UNEVICTABLE_PGCLEARED, or the zone
 * goes on counting as mlocked memory that is free.  The block is marked
 * and counted as mlock accounting would have left it, in each function
 * free_pages_prepare() is inlined into.
 */
void pagealloc_series_free_clears_stray_mlock(struct kunit *test)
{
	const struct pa_free_kind *kind = test->param_value;
	gfp_t gfp = PA_GFP_TRY | (kind->order ? __GFP_COMP : 0);
	long nr = 1L << kind->order, mlocked, given_back;
	unsigned long cleared;
	struct zone *zone;
	struct page *page;

	page = alloc_pages(gfp, kind->order);
	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "no order-%u block", kind->order);
	zone = page_zone(page);
	SetPageMlocked(page);
	mod_zone_page_state(zone, NR_MLOCK, nr);
	mlocked = zone_page_state_snapshot(zone, NR_MLOCK);
	cleared = pa_event(UNEVICTABLE_PGCLEARED);

	pa_free_as(kind, page);

	given_back = mlocked - zone_page_state_snapshot(zone, NR_MLOCK);
	cleared = pa_event(UNEVICTABLE_PGCLEARED) - cleared;
	/* One short report: a case's debugfs log holds 512 bytes. */
	KUNIT_ASSERT_TRUE_MSG(test, given_back == nr && cleared == nr,
			      "order-%u mlocked block freed: NR_MLOCK -%ld, unevictable_pgs_cleared +%lu, of %ld",
			      kind->order, given_back, cleared, nr);
}
