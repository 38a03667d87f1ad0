// SPDX-License-Identifier: GPL-2.0
/*
 * The series suite: alloc-pages-local-without-policy must leave a task
 * policy in charge of alloc_pages(), and vma-alloc-folio-local-without-policy
 * a VMA or task policy in charge of vma_alloc_folio().
 */

#include "pa_kunit.h"

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

static int pa_alloc_nid(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);
	int nid;

	if (!page)
		return NUMA_NO_NODE;
	nid = page_to_nid(page);
	__free_pages(page, order);
	return nid;
}

/* Make POL the task's policy; returns the one it had. */
static struct mempolicy *pa_set_task_policy(struct mempolicy *pol)
{
	struct mempolicy *old;

	task_lock(current);
	old = current->mempolicy;
	current->mempolicy = pol;
	task_unlock(current);
	return old;
}

static void pa_alloc_under_policy(struct mempolicy *pol, unsigned int order,
				  struct pa_policy_nids *r)
{
	struct mempolicy *old = pa_set_task_policy(pol);

	r->plain = pa_alloc_nid(GFP_KERNEL, order);
	r->thisnode = pa_alloc_nid(GFP_KERNEL | __GFP_THISNODE, order);
	local_bh_disable();
	r->bh = pa_alloc_nid(GFP_ATOMIC, order);
	local_bh_enable();
	pa_set_task_policy(old);
}

/* A node other than the local one, both with memory to spare, or skip. */
static int pa_other_node(int local)
{
	int nid, other = NUMA_NO_NODE;

	for_each_node_state(nid, N_MEMORY)
		if (nid != local && pa_zone_roomy(pa_top_zone(nid, ZONE_NORMAL), ZONE_NORMAL))
			other = nid;
	if (other == NUMA_NO_NODE ||
	    !pa_zone_roomy(pa_top_zone(local, ZONE_NORMAL), ZONE_NORMAL))
		return NUMA_NO_NODE;
	return other;
}

/*
 * Allocate blocks of ORDER under a task policy of MODE over the other
 * node (none: local).
 */
static void pa_alloc_under_mode(struct kunit *test, unsigned short mode, unsigned int order,
				struct pa_policy_nids *r, int *local, int *other)
{
	struct mempolicy pol = {
		.refcnt = ATOMIC_INIT(1),
		.mode = mode,
		.home_node = NUMA_NO_NODE,
	};

	migrate_disable();
	*local = numa_node_id();
	*other = pa_other_node(*local);
	if (*other == NUMA_NO_NODE) {
		migrate_enable();
		kunit_skip(test, "needs two nodes with free memory to spare");
	}
	if (mode != MPOL_LOCAL)
		node_set(*other, pol.nodes);
	pa_alloc_under_policy(&pol, order, r);
	migrate_enable();
}

/*
 * alloc_pages() hands the order on to whichever allocation it picks: a
 * block the pcp lists keep and one they do not must each go where the
 * policy says.
 */
void pagealloc_series_task_policy_still_steers_alloc_pages(struct kunit *test)
{
	unsigned int order = pa_param_order(test);
	struct pa_policy_nids r;
	int local, other;

	pa_alloc_under_mode(test, MPOL_PREFERRED, order, &r, &local, &other);
	KUNIT_EXPECT_EQ_MSG(test, r.plain, other,
			    "order %u alloc_pages() under a policy preferring node %d", order,
			    other);
	KUNIT_EXPECT_EQ_MSG(test, r.thisnode, local,
			    "order %u alloc_pages(__GFP_THISNODE) must ignore the task policy",
			    order);
	KUNIT_EXPECT_EQ_MSG(test, r.bh, local,
			    "order %u alloc_pages() in interrupt context must ignore the task policy",
			    order);
}

/*
 * The other modes a task policy can have, each over the other node only
 * (MPOL_LOCAL over none): each sends alloc_pages() where it says, and
 * none reaches __GFP_THISNODE or interrupt context.  Order 0 only: KUnit
 * parameters have one dimension, and the mode only picks the node that
 * the order is handed on with, as the case above checks at every order.
 */
static const unsigned short pa_policy_modes[] = {
	MPOL_BIND, MPOL_INTERLEAVE, MPOL_PREFERRED_MANY, MPOL_LOCAL,
};

static void pa_policy_mode_desc(const unsigned short *mode, char *desc)
{
	static const char * const names[] = {
		[MPOL_BIND] = "bind", [MPOL_INTERLEAVE] = "interleave",
		[MPOL_PREFERRED_MANY] = "preferred_many", [MPOL_LOCAL] = "local",
	};

	strscpy(desc, names[*mode], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pa_policy_mode, pa_policy_modes, pa_policy_mode_desc);

void pagealloc_series_task_policy_modes_steer_alloc_pages(struct kunit *test)
{
	const unsigned short *mode = test->param_value;
	struct pa_policy_nids r;
	int local, other, want;

	pa_alloc_under_mode(test, *mode, 0, &r, &local, &other);
	want = *mode == MPOL_LOCAL ? local : other;
	KUNIT_EXPECT_EQ_MSG(test, r.plain, want, "alloc_pages() under policy mode %u", *mode);
	KUNIT_EXPECT_EQ_MSG(test, r.thisnode, local,
			    "alloc_pages(__GFP_THISNODE) must ignore the task policy");
	KUNIT_EXPECT_EQ_MSG(test, r.bh, local,
			    "alloc_pages() in interrupt context must ignore the task policy");
}

/* The generator for the case above, for suites.c. */
const void *pa_policy_mode_params(const void *prev, char *desc)
{
	return pa_policy_mode_gen_params(prev, desc);
}

/*
 * vma_alloc_folio(), which every page fault of anonymous memory calls,
 * goes straight to the local node when neither the VMA nor the task has a
 * policy (series: vma-alloc-folio-local-without-policy).  A VMA's policy
 * must still win over the task's, and the task's must still steer a VMA
 * without one.  MPOL_DEFAULT stands for "no policy"; the policies that
 * are set name the other node.
 */
struct pa_vma_policy_case {
	const char *name;
	unsigned short vma;
	unsigned short task;
	bool want_other;
};

static const struct pa_vma_policy_case pa_vma_policy_cases[] = {
	{ "none", MPOL_DEFAULT, MPOL_DEFAULT, false },
	{ "vma_preferred", MPOL_PREFERRED, MPOL_DEFAULT, true },
	{ "vma_bind", MPOL_BIND, MPOL_DEFAULT, true },
	{ "task_preferred", MPOL_DEFAULT, MPOL_PREFERRED, true },
	{ "vma_local_over_task", MPOL_LOCAL, MPOL_PREFERRED, false },
};

static void pa_vma_policy_desc(const struct pa_vma_policy_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pa_vma_policy, pa_vma_policy_cases, pa_vma_policy_desc);

/* The node of one order-0 folio vma_alloc_folio() gives for VMA. */
static int pa_vma_alloc_nid(struct vm_area_struct *vma)
{
	struct folio *folio;
	int nid;

	folio = vma_alloc_folio(GFP_HIGHUSER_MOVABLE, 0, vma, vma->vm_start, false);
	if (!folio)
		return NUMA_NO_NODE;
	nid = folio_nid(folio);
	folio_put(folio);
	return nid;
}

void pagealloc_series_vma_policy_steers_vma_alloc_folio(struct kunit *test)
{
	const struct pa_vma_policy_case *c = test->param_value;
	struct mempolicy vma_pol = {
		.refcnt = ATOMIC_INIT(1), .mode = c->vma, .home_node = NUMA_NO_NODE,
	};
	struct mempolicy task_pol = {
		.refcnt = ATOMIC_INIT(1), .mode = c->task, .home_node = NUMA_NO_NODE,
	};
	struct vm_area_struct vma = {
		.vm_start = PAGE_SIZE, .vm_end = 2 * PAGE_SIZE,
	};
	struct mempolicy *old;
	int local, other, nid;

	migrate_disable();
	local = numa_node_id();
	other = pa_other_node(local);
	if (other == NUMA_NO_NODE) {
		migrate_enable();
		kunit_skip(test, "needs two nodes with free memory to spare");
	}
	if (c->vma != MPOL_LOCAL)
		node_set(other, vma_pol.nodes);
	node_set(other, task_pol.nodes);
	if (c->vma != MPOL_DEFAULT)
		vma.vm_policy = &vma_pol;
	old = pa_set_task_policy(c->task != MPOL_DEFAULT ? &task_pol : NULL);
	nid = pa_vma_alloc_nid(&vma);
	pa_set_task_policy(old);
	migrate_enable();

	KUNIT_EXPECT_EQ_MSG(test, nid, c->want_other ? other : local,
			    "vma_alloc_folio() with VMA policy %u, task policy %u",
			    c->vma, c->task);
}

/* The generator for the case above, for suites.c. */
const void *pa_vma_policy_params(const void *prev, char *desc)
{
	return pa_vma_policy_gen_params(prev, desc);
}
