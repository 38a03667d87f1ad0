// SPDX-License-Identifier: GPL-2.0
/*
 * pa_contend - the page allocator's locks with every CPU allocating and
 * freeing at once, run from module init.
 *
 * One kthread per online CPU, bound to it, allocates a batch of order-0
 * pages from one zone and frees them again, rounds times; all start
 * together.  A batch larger than a per-cpu list holds (pcp->high: about
 * 14,000 pages for one CPU in a 4.5 GiB guest, half that for each of two)
 * makes each round refill the CPU's list from the buddy lists
 * (rmqueue_bulk()) and drain it back (free_pcppages_bulk()), both under
 * the zone's lock, so the CPUs meet there as often as the allocator's
 * batching lets them.  Every CPU takes
 * its pages from the node of CPU 0 (__GFP_THISNODE): one zone, one lock.
 *
 * On one CPU nothing contends; on two the time a CPU waits for zone->lock
 * shows up as instructions in the spinlock slow path (the host's profile
 * counts them) and as guest time per operation.  Neither repeats exactly
 * under multi-threaded TCG, so the host measures a family of boots.
 *
 * Prints one line, prefixed "pa_contend: ":
 *   cpus=<n> batch=<pages> rounds=<r> ops=<all CPUs' alloc+free pairs>
 *   ns_per_op=<mean over CPUs of one CPU's guest ns per pair>
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>

static unsigned int batch = 16384;
module_param(batch, uint, 0444);
MODULE_PARM_DESC(batch, "pages each CPU holds before freeing them (1..65536)");

static unsigned int rounds = 10;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "allocate-then-free rounds per CPU");

struct pa_worker {
	struct task_struct *task;
	struct page **pages;
	int nid;
	u64 ns;
	int err;
	struct completion done;
};

/* Workers not yet at the start line. */
static atomic_t pa_waiting;

static int pa_round(struct pa_worker *w)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN;
	unsigned int i, n;

	for (n = 0; n < batch; n++) {
		w->pages[n] = alloc_pages_node(w->nid, gfp, 0);
		if (!w->pages[n])
			break;
	}
	for (i = 0; i < n; i++)
		__free_page(w->pages[i]);
	return n == batch ? 0 : -ENOMEM;
}

static int pa_worker_fn(void *arg)
{
	struct pa_worker *w = arg;
	unsigned int r;
	u64 t0;

	/* The point is the overlap: nobody starts before all are running. */
	atomic_dec(&pa_waiting);
	while (atomic_read(&pa_waiting))
		cond_resched();

	t0 = ktime_get_ns();
	for (r = 0; r < rounds && !w->err; r++) {
		w->err = pa_round(w);
		cond_resched();
	}
	w->ns = ktime_get_ns() - t0;
	complete(&w->done);
	return 0;
}

/* Create every worker before waking any, so none waits on a creation. */
static int pa_start(struct pa_worker *workers, unsigned int nr)
{
	unsigned int cpu, i = 0;

	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_node(pa_worker_fn, &workers[i], cpu_to_node(cpu),
					   "pa_contend/%u", cpu);
		if (IS_ERR(t)) {
			/* Never woken: kthread_stop() ends them before they run. */
			while (i--)
				kthread_stop(workers[i].task);
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		workers[i++].task = t;
	}
	atomic_set(&pa_waiting, nr);
	for (i = 0; i < nr; i++)
		wake_up_process(workers[i].task);
	return 0;
}

static int pa_run(struct pa_worker *workers, unsigned int nr)
{
	u64 ops = (u64)nr * rounds * batch, ns = 0;
	unsigned int i;
	int err;

	err = pa_start(workers, nr);
	if (err)
		return err;
	for (i = 0; i < nr; i++) {
		wait_for_completion(&workers[i].done);
		err = err ?: workers[i].err;
		ns += workers[i].ns;
	}
	if (err)
		return err;
	pr_info("cpus=%u batch=%u rounds=%u ops=%llu ns_per_op=%llu\n",
		nr, batch, rounds, ops, div64_u64(ns, ops));
	return 0;
}

static int __init pa_contend_init(void)
{
	unsigned int nr = num_online_cpus(), i;
	struct pa_worker *workers;
	int err = -ENOMEM;

	if (!batch || batch > 65536 || !rounds)
		return -EINVAL;
	workers = kcalloc(nr, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		workers[i].pages = kvmalloc_array(batch, sizeof(struct page *), GFP_KERNEL);
		if (!workers[i].pages)
			goto out;
		workers[i].nid = cpu_to_node(0);
		init_completion(&workers[i].done);
	}
	/* CPUs do not come and go in the guest while this runs. */
	cpus_read_lock();
	err = pa_run(workers, nr);
	cpus_read_unlock();
	if (err)
		pr_err("failed: %d\n", err);
out:
	for (i = 0; i < nr; i++)
		kvfree(workers[i].pages);
	kfree(workers);
	return err;
}

static void __exit pa_contend_exit(void)
{
}

module_init(pa_contend_init);
module_exit(pa_contend_exit);
MODULE_DESCRIPTION("Page allocator lock contention with every CPU at once");
MODULE_LICENSE("GPL");
