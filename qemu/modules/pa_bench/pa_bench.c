// SPDX-License-Identifier: GPL-2.0
/*
 * pa_bench - page allocator microbenchmark, run from module init.
 *
 * Two access patterns are timed for each requested order:
 *
 *  pair:    alloc_pages() then __free_pages() of the same block, repeated.
 *           Each call is bracketed by clock reads; three reads per
 *           iteration give one alloc interval and one free interval.
 *
 *  batch N: N alloc_pages() calls into an array, then N __free_pages().
 *           One interval covers the N allocations and one the N frees.
 *           N above the per-cpu list high mark makes the allocations
 *           refill the pcp lists from the buddy lists (rmqueue_bulk)
 *           and the frees drain them back (free_pcppages_bulk).
 *
 * The cost of the instrument (the clock reads plus the bare loop) is
 * measured with the same interval structure but no allocator call; its
 * median is subtracted from every alloc and free interval and is reported
 * as figure=loop_overhead.  Values are per alloc_pages()/__free_pages()
 * call (one block of 2^order pages), printed to a tenth of the clock's
 * unit: nanoseconds of ktime_get_ns(), or TSC cycles of get_cycles()
 * where ktime_get_ns() is too coarse (see the clock parameter).  Under
 * QEMU -icount shift=0 both count guest instructions.
 *
 * Everything runs from the init function, which always returns 0 so that
 * the module can be removed again; results go to the kernel log as lines
 * of space-separated key=value pairs prefixed "pa_bench: ":
 *
 *   info init_on_alloc=0|1
 *   info init_on_free=.. debug_pagealloc=.. page_poisoning=..
 *   info params orders=.. batches=.. pair=.. loops=.. ... gfp=0x..
 *   info clock=<ktime_get_ns|get_cycles> unit=<ns|cycles> resolution=..
 *        ktime_resolution=.. cycles_resolution=..
 *   info online_cpus=<n>
 *   info cpu=.. node=.. zone=.. pcp_high=.. pcp_batch=.. pcp_count=..
 *        free_pages=..
 *   figure=<loop_overhead|alloc|free> order=<o> pattern=<pair|batch>
 *        n=<N> zero=<0|1> value=<x.y> unit=<ns|cycles> samples=<s> min=<x.y>
 *        med=<x.y> max=<x.y>
 *   figure=error order=<o> pattern=.. n=<N> zero=.. value=<blocks held>
 *        unit=allocs sample=<index>
 *   skip order=<o> ... reason=<max_pages|bad_batch|bad_order> ...
 *   info elapsed_ns=<whole run, by ktime_get_ns()>
 *   done figures=<number of figure= lines>
 *
 * (each on one line).  For alloc and free, value is the mean per call and
 * min/med/max are per call within one sample; for loop_overhead, value
 * is the amount subtracted per call (the median) and min/med/max its
 * spread.  Values may come out negative when the clock is noisy.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>

#define PA_MAX_PARAMS	16
#define PA_MAX_BATCH	65536
#define PA_MAX_SAMPLES	65536
/* clock=0 picks cycles when ktime_get_ns() steps coarser than this */
#define PA_FINE_NS	1000

enum { PA_CLOCK_AUTO, PA_CLOCK_KTIME, PA_CLOCK_CYCLES };

static int orders[PA_MAX_PARAMS] = { 0, 1, 2, 3, 4, 9 };
static int nr_orders = 6;	/* the defaults above */
module_param_array(orders, int, &nr_orders, 0444);
MODULE_PARM_DESC(orders, "Allocation orders to measure (default 0,1,2,3,4,9)");

/*
 * The large sizes go past the pcp high mark of a guest with GiBs per CPU
 * (pcp_high was 14123 pages for one CPU and 4.5 GiB), so that the frees
 * drain to the buddy lists.
 */
static int batches[PA_MAX_PARAMS] = { 1, 8, 32, 64, 128, 256, 512, 1024,
				      4096, 16384, 32768 };
static int nr_batches = 11;	/* the defaults above */
module_param_array(batches, int, &nr_batches, 0444);
MODULE_PARM_DESC(batches,
		 "Batch sizes N for the batch pattern; 0 runs no batch (default 1,8,32,64,128,256,512,1024,4096,16384,32768)");

static bool pair = true;
module_param(pair, bool, 0444);
MODULE_PARM_DESC(pair, "Run the alloc/free pair pattern (default 1)");

static unsigned int loops = 4096;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops,
		 "Pages to allocate per figure; samples = max(min_samples, loops / (N << order)) (default 4096)");

static unsigned int min_samples = 4;
module_param(min_samples, uint, 0444);
MODULE_PARM_DESC(min_samples, "Fewest timed samples per figure (default 4)");

static unsigned int warmup = 2;
module_param(warmup, uint, 0444);
MODULE_PARM_DESC(warmup, "Samples run and thrown away before each figure (default 2)");

static bool zero;
module_param(zero, bool, 0444);
MODULE_PARM_DESC(zero, "Add __GFP_ZERO to the allocations (default 0)");

/* A systemd system charges pipe buffers, page tables and the like to a memcg. */
static bool account;
module_param(account, bool, 0444);
MODULE_PARM_DESC(account,
		 "Add __GFP_ACCOUNT: charge the pages to the loader's memcg (default 0)");

static unsigned int extra_work;
module_param(extra_work, uint, 0444);
MODULE_PARM_DESC(extra_work,
		 "Busy-loop iterations added after each timed allocation, to plant a regression (default 0)");

static unsigned int max_pages = 32768;
module_param(max_pages, uint, 0444);
MODULE_PARM_DESC(max_pages,
		 "Skip batches holding more than this many pages at once (default 32768)");

static unsigned int clock;
module_param(clock, uint, 0444);
MODULE_PARM_DESC(clock,
		 "0: ktime_get_ns() unless coarser than 1us, then get_cycles(); 1: ktime_get_ns(); 2: get_cycles() (default 0)");

/* Set once before any measurement: read get_cycles() for pa_now(). */
static bool pa_cycles;

struct pa_ctx {
	gfp_t gfp;
	struct page **pages;	/* the blocks of one batch */
	unsigned int max_batch;	/* entries in pages[] */
	u64 *alloc_ns;		/* one interval per sample */
	u64 *free_ns;
	u64 *ovh_ns;
	unsigned int max_samples;	/* entries in each of the above */
	unsigned int figures;	/* figure= lines printed */
};

/* Per-call statistics in tenths of a clock unit. */
struct pa_stats {
	s64 mean;
	s64 min;
	s64 med;
	s64 max;
};

static inline u64 pa_now(void)
{
	if (pa_cycles)
		return get_cycles();
	return ktime_get_ns();
}

static const char *pa_unit(void)
{
	return pa_cycles ? "cycles" : "ns";
}

/*
 * A busy loop of a known length: four instructions an iteration as gcc 12
 * compiles it for x86-64 (compare, branch, increment, jump), so under
 * -icount shift=0 extra_work=k adds about 4k ns to each allocation.  The
 * barrier keeps the compiler from removing or folding the loop.
 */
static noinline void pa_burn(unsigned int iterations)
{
	unsigned int i;

	for (i = 0; i < iterations; i++)
		barrier();
}

/* round(num * 10 / den), for a signed num and den > 0 */
static s64 pa_tenths(s64 num, u64 den)
{
	u64 mag = (num < 0 ? -(u64)num : (u64)num) * 10;
	u64 q = div64_u64(mag + den / 2, den);

	return num < 0 ? -(s64)q : (s64)q;
}

/* Format a tenths value as a fixed-point decimal ("123.4", "-0.5"). */
static const char *pa_fmt(char *buf, size_t len, s64 tenths)
{
	u64 mag = tenths < 0 ? -(u64)tenths : (u64)tenths;
	u32 frac;
	u64 whole = div_u64_rem(mag, 10, &frac);

	snprintf(buf, len, "%s%llu.%u", tenths < 0 ? "-" : "", whole, frac);
	return buf;
}

static int pa_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a;
	u64 y = *(const u64 *)b;

	if (x < y)
		return -1;
	return x > y;
}

/* Sorts v[] and returns its median, rounded to a whole unit. */
static u64 pa_median(u64 *v, unsigned int cnt)
{
	sort(v, cnt, sizeof(*v), pa_cmp_u64, NULL);
	if (cnt & 1)
		return v[cnt / 2];
	return (v[cnt / 2 - 1] + v[cnt / 2] + 1) / 2;
}

/*
 * Statistics of cnt intervals of n calls each, less ovh per interval,
 * expressed per call.
 */
static void pa_compute(u64 *v, unsigned int cnt, u64 ovh, unsigned int n,
		       struct pa_stats *st)
{
	u64 sum = 0;
	unsigned int i;
	s64 mid;

	for (i = 0; i < cnt; i++)
		sum += v[i];
	sort(v, cnt, sizeof(*v), pa_cmp_u64, NULL);

	st->mean = pa_tenths((s64)(sum - ovh * cnt), (u64)cnt * n);
	st->min = pa_tenths((s64)(v[0] - ovh), n);
	st->max = pa_tenths((s64)(v[cnt - 1] - ovh), n);
	if (cnt & 1) {
		st->med = pa_tenths((s64)(v[cnt / 2] - ovh), n);
	} else {
		mid = (s64)(v[cnt / 2 - 1] + v[cnt / 2] - 2 * ovh);
		st->med = pa_tenths(mid, 2ULL * n);
	}
}

static void pa_print(struct pa_ctx *c, const char *figure, int order,
		     const char *pattern, unsigned int n,
		     const struct pa_stats *st, unsigned int samples)
{
	char b[4][24];

	pr_info("figure=%s order=%d pattern=%s n=%u zero=%d value=%s unit=%s samples=%u min=%s med=%s max=%s\n",
		figure, order, pattern, n, zero ? 1 : 0,
		pa_fmt(b[0], sizeof(b[0]), st->mean), pa_unit(), samples,
		pa_fmt(b[1], sizeof(b[1]), st->min),
		pa_fmt(b[2], sizeof(b[2]), st->med),
		pa_fmt(b[3], sizeof(b[3]), st->max));
	c->figures++;
}

static void pa_print_error(struct pa_ctx *c, int order, const char *pattern,
			   unsigned int n, unsigned int got,
			   unsigned int sample)
{
	pr_info("figure=error order=%d pattern=%s n=%u zero=%d value=%u unit=allocs sample=%u\n",
		order, pattern, n, zero ? 1 : 0, got, sample);
	c->figures++;
}

/*
 * The instrument alone: the same interval as a timed alloc or free loop
 * with the allocator call taken out.  For the pair pattern that is two
 * back-to-back clock reads; for a batch it is the N-iteration loop that
 * stores into pages[].  Returns the median interval.
 */
static u64 pa_overhead(struct pa_ctx *c, bool batch, unsigned int n,
		       unsigned int samples)
{
	unsigned int s, i;
	u64 t0, t1;

	for (s = 0; s < warmup + samples; s++) {
		if (batch) {
			t0 = pa_now();
			for (i = 0; i < n; i++)
				WRITE_ONCE(c->pages[i], NULL);
			t1 = pa_now();
		} else {
			t0 = pa_now();
			t1 = pa_now();
		}
		if (s >= warmup)
			c->ovh_ns[s - warmup] = t1 - t0;
	}
	return pa_median(c->ovh_ns, samples);
}

/*
 * Pattern "pair": one block allocated and freed straight away.  Returns
 * false if an allocation failed.
 */
static bool pa_run_pair(struct pa_ctx *c, unsigned int order,
			unsigned int samples)
{
	unsigned int work = READ_ONCE(extra_work);
	unsigned int s;
	struct page *page;
	u64 t0, t1, t2;

	for (s = 0; s < warmup + samples; s++) {
		t0 = pa_now();
		page = alloc_pages(c->gfp, order);
		if (work)
			pa_burn(work);
		t1 = pa_now();
		if (unlikely(!page)) {
			pa_print_error(c, order, "pair", 1, 0, s);
			return false;
		}
		__free_pages(page, order);
		t2 = pa_now();
		if (s >= warmup) {
			c->alloc_ns[s - warmup] = t1 - t0;
			c->free_ns[s - warmup] = t2 - t1;
		}
		cond_resched();
	}
	return true;
}

/*
 * Pattern "batch": n blocks allocated into pages[], then all n freed.
 * On a failed allocation the blocks already held are freed and false
 * is returned.
 */
static bool pa_run_batch(struct pa_ctx *c, unsigned int order,
			 unsigned int n, unsigned int samples)
{
	unsigned int work = READ_ONCE(extra_work);
	struct page **pages = c->pages;
	unsigned int s, i, got;
	struct page *page;
	u64 t0, t1, t2;

	for (s = 0; s < warmup + samples; s++) {
		t0 = pa_now();
		for (i = 0; i < n; i++) {
			page = alloc_pages(c->gfp, order);
			if (work)
				pa_burn(work);
			if (unlikely(!page))
				break;
			pages[i] = page;
		}
		t1 = pa_now();
		got = i;
		for (i = 0; i < got; i++)
			__free_pages(pages[i], order);
		t2 = pa_now();
		if (unlikely(got < n)) {
			pa_print_error(c, order, "batch", n, got, s);
			return false;
		}
		if (s >= warmup) {
			c->alloc_ns[s - warmup] = t1 - t0;
			c->free_ns[s - warmup] = t2 - t1;
		}
		cond_resched();
	}
	return true;
}

static void pa_figure(struct pa_ctx *c, int order, bool batch, int n)
{
	const char *pattern = batch ? "batch" : "pair";
	unsigned long pages_held = (unsigned long)n << order;
	struct pa_stats st;
	unsigned int samples;
	u64 ovh;
	bool ok;

	if (pages_held > max_pages) {
		pr_info("skip order=%d pattern=%s n=%d zero=%d reason=max_pages pages=%lu max_pages=%u\n",
			order, pattern, n, zero ? 1 : 0, pages_held, max_pages);
		return;
	}

	samples = max(min_samples, loops / (unsigned int)pages_held);
	samples = clamp(samples, 1U, c->max_samples);

	migrate_disable();
	ovh = pa_overhead(c, batch, n, samples);
	if (batch)
		ok = pa_run_batch(c, order, n, samples);
	else
		ok = pa_run_pair(c, order, samples);
	migrate_enable();
	if (!ok)
		return;

	/* value is what was subtracted; min/med/max describe the spread. */
	pa_compute(c->ovh_ns, samples, 0, n, &st);
	st.mean = pa_tenths((s64)ovh, n);
	pa_print(c, "loop_overhead", order, pattern, n, &st, samples);
	pa_compute(c->alloc_ns, samples, ovh, n, &st);
	pa_print(c, "alloc", order, pattern, n, &st, samples);
	pa_compute(c->free_ns, samples, ovh, n, &st);
	pa_print(c, "free", order, pattern, n, &st, samples);
}

/*
 * The smallest step of the clock seen in a run of back-to-back reads,
 * or 0 if it never moved.
 */
static u64 pa_clock_resolution(void)
{
	u64 best = U64_MAX;
	u64 prev = pa_now();
	unsigned int steps = 0;
	unsigned int i;
	u64 now;

	for (i = 0; i < 100000 && steps < 100; i++) {
		now = pa_now();
		if (now != prev) {
			best = min(best, now - prev);
			steps++;
			prev = now;
		}
	}
	return steps ? best : 0;
}

/* "0,1,2" from an int array parameter */
static const char *pa_list(char *buf, size_t len, const int *v, int cnt)
{
	size_t pos = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < cnt; i++)
		pos += scnprintf(buf + pos, len - pos, "%s%d", i ? "," : "",
				 v[i]);
	return buf;
}

/*
 * Choose the clock.  Without a calibrated TSC (QEMU TCG without -icount
 * often fails to calibrate it) ktime_get_ns() advances in jiffies, which
 * is useless for timing single calls; the raw TSC still ticks finely.
 */
static void pa_pick_clock(void)
{
	u64 ktime_res, cycles_res = 0;

	pa_cycles = false;
	ktime_res = pa_clock_resolution();
	if (clock != PA_CLOCK_KTIME && get_cycles()) {
		pa_cycles = true;
		cycles_res = pa_clock_resolution();
	}
	if (clock == PA_CLOCK_AUTO)
		pa_cycles = cycles_res &&
			    (!ktime_res || ktime_res > PA_FINE_NS);
	pr_info("info clock=%s unit=%s resolution=%llu ktime_resolution=%llu cycles_resolution=%llu\n",
		pa_cycles ? "get_cycles" : "ktime_get_ns", pa_unit(),
		pa_cycles ? cycles_res : ktime_res, ktime_res, cycles_res);
}

static void pa_print_info(struct pa_ctx *c)
{
	struct per_cpu_pages *pcp;
	struct page *page;
	struct zone *zone;
	char olist[PA_MAX_PARAMS * 12];
	char blist[PA_MAX_PARAMS * 12];
	int cpu;

	pr_info("info init_on_alloc=%d\n", want_init_on_alloc(GFP_KERNEL) ? 1 : 0);
	pr_info("info init_on_free=%d debug_pagealloc=%d page_poisoning=%d\n",
		want_init_on_free() ? 1 : 0,
		debug_pagealloc_enabled_static() ? 1 : 0,
		page_poisoning_enabled_static() ? 1 : 0);
	pr_info("info params orders=%s batches=%s pair=%d loops=%u min_samples=%u warmup=%u zero=%d extra_work=%u max_pages=%u gfp=%#x\n",
		pa_list(olist, sizeof(olist), orders, nr_orders),
		pa_list(blist, sizeof(blist), batches, nr_batches),
		pair ? 1 : 0, loops, min_samples, warmup, zero ? 1 : 0,
		extra_work, max_pages, (__force unsigned int)c->gfp);

	pr_info("info online_cpus=%u\n", num_online_cpus());

	/* The zone an allocation from this CPU lands in, and its pcp. */
	migrate_disable();
	cpu = raw_smp_processor_id();
	page = alloc_pages(c->gfp, 0);
	if (page) {
		zone = page_zone(page);
		pcp = per_cpu_ptr(zone->per_cpu_pageset, cpu);
		pr_info("info cpu=%d node=%d zone=%s pcp_high=%d pcp_batch=%d pcp_count=%d free_pages=%lu\n",
			cpu, zone_to_nid(zone), zone->name, READ_ONCE(pcp->high),
			READ_ONCE(pcp->batch), READ_ONCE(pcp->count),
			global_zone_page_state(NR_FREE_PAGES));
		__free_pages(page, 0);
	}
	migrate_enable();
}

static int pa_setup(struct pa_ctx *c)
{
	unsigned int want;
	int i;

	c->gfp = GFP_KERNEL | __GFP_NOWARN | (zero ? __GFP_ZERO : 0) |
		 (account ? __GFP_ACCOUNT : 0);

	c->max_batch = 1;
	for (i = 0; i < nr_batches; i++)
		if (batches[i] > 0 && batches[i] <= PA_MAX_BATCH)
			c->max_batch = max_t(unsigned int, c->max_batch,
					     batches[i]);

	want = max3(min_samples, loops, 1U);
	c->max_samples = min_t(unsigned int, want, PA_MAX_SAMPLES);

	c->pages = kvcalloc(c->max_batch, sizeof(*c->pages), GFP_KERNEL);
	c->alloc_ns = kvcalloc(c->max_samples, sizeof(u64), GFP_KERNEL);
	c->free_ns = kvcalloc(c->max_samples, sizeof(u64), GFP_KERNEL);
	c->ovh_ns = kvcalloc(c->max_samples, sizeof(u64), GFP_KERNEL);
	if (!c->pages || !c->alloc_ns || !c->free_ns || !c->ovh_ns)
		return -ENOMEM;
	return 0;
}

static void pa_teardown(struct pa_ctx *c)
{
	kvfree(c->pages);
	kvfree(c->alloc_ns);
	kvfree(c->free_ns);
	kvfree(c->ovh_ns);
}

static int __init pa_bench_init(void)
{
	u64 start = ktime_get_ns();
	struct pa_ctx c = {};
	int i, j, order, n;

	if (pa_setup(&c)) {
		pr_info("error setup=nomem\n");
		goto out;
	}
	pa_pick_clock();
	pa_print_info(&c);

	for (i = 0; i < nr_orders; i++) {
		order = orders[i];
		if (order < 0 || order >= MAX_ORDER) {
			pr_info("skip order=%d reason=bad_order max_order=%d\n",
				order, MAX_ORDER - 1);
			continue;
		}
		if (pair)
			pa_figure(&c, order, false, 1);
		for (j = 0; j < nr_batches; j++) {
			n = batches[j];
			if (n <= 0)
				continue;
			if (n > PA_MAX_BATCH) {
				pr_info("skip order=%d pattern=batch n=%d zero=%d reason=bad_batch max_batch=%d\n",
					order, n, zero ? 1 : 0, PA_MAX_BATCH);
				continue;
			}
			pa_figure(&c, order, true, n);
		}
	}
out:
	pa_teardown(&c);
	pr_info("info elapsed_ns=%llu\n", ktime_get_ns() - start);
	pr_info("done figures=%u\n", c.figures);
	/* Always succeed: the caller removes the module after reading. */
	return 0;
}

static void __exit pa_bench_exit(void)
{
}

module_init(pa_bench_init);
module_exit(pa_bench_exit);

MODULE_DESCRIPTION("Page allocator microbenchmark (pair and batch patterns)");
MODULE_LICENSE("GPL");
