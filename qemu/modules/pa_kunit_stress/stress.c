// SPDX-License-Identifier: GPL-2.0
/*
 * The stress suite: every node filled at every order until the
 * allocator refuses, and allocators on several CPUs at once.  A module
 * of its own, loaded after pa_kunit (whose helpers it uses) when a boot
 * asks for it: it takes two thirds of a KUnit boot's time, and a boot of
 * a mutated kernel that only has to fail one case of pa_kunit leaves it
 * out.
 */

#include "pa_kunit.h"

static unsigned int stress_seconds = 60;
module_param(stress_seconds, uint, 0444);
MODULE_PARM_DESC(stress_seconds,
		 "Time allowed for filling every node until failure in the stress suite");

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

kunit_test_suites(&pagealloc_stress_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit stress tests of the page allocator: every order until failure, several CPUs at once");
