// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: account-pcp-drain-once with every CPU refilling and
 * draining at once.
 */

#include "pa_kunit.h"

/* ---- account-pcp-drain-once: every CPU refills and drains ------------- */

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
void pagealloc_series_concurrent_refill_and_drain_balance(struct kunit *test)
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
