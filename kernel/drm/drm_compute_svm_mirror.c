// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/hmm.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm.h>
#include <drm/drm_compute_svm_mirror.h>
#include <drm/drm_gpusvm.h>
#include <drm/drm_pagemap.h>
#include <drm/drm_print.h>

/**
 * DOC: SVM mirror
 *
 * The mirror is what a device keeps of an SVM VM: drm_gpusvm ranges over
 * the process's address space, their pages, and the device's entries for
 * them. Every driver has the same one, with the same semantics, because
 * the skeleton is here and the driver only writes entries
 * (&struct drm_compute_svm_mirror_ops: prepare the page tables, map a
 * range with DRM_COMPUTE_SVM_MAP_* bits, zap, flush, the hole between its
 * buffer mappings, its device memory).
 *
 * Faults. drm_compute_svm_mirror_fault() reads the attributes at the
 * address, asks the policy (drm_compute_svm_fault_decide()) what to do,
 * finds or makes the drm_gpusvm range around the address (at most 2 MiB,
 * inside one CPU mapping, one attribute piece and the hole between buffer
 * mappings), migrates it to the device's memory once if the plan says so
 * (drm_compute_svm_migrate_to_devmem(), in chunks of the range's
 * migration granularity), gets its pages with HMM, and has the driver
 * write the entries under the notifier lock with the pages checked valid,
 * so that an invalidation that raced with it is seen. The fault starts
 * over when drm_gpusvm_get_pages() answers -EBUSY or -EAGAIN (HMM's budget
 * spent, the range invalidated again and again), -EFAULT (unmapped under
 * it), or the pages were invalidated before they were mapped; after
 * &drm_compute_svm_mirror.retries attempts it raises
 * %DRM_COMPUTE_FAULT_SVM_BUSY instead of spinning. A CPU mapping without
 * write permission is learnt from drm_gpusvm and given to the policy.
 *
 * Invalidation. drm_gpusvm calls the mirror with its notifier lock held
 * for writing whenever the CPU mapping changes (munmap, mremap, madvise,
 * fork's write protection, migration, reclaim, exit): the entries of every
 * range touched are zapped and the TLBs flushed, then the DMA mappings
 * dropped. An unmap also queues the range for the garbage collector (a
 * work item, and the head of every fault and SVM operation), which
 * removes it under the SVM lock; any other invalidation of a range mapped
 * with %DRM_COMPUTE_SVM_MAP_ALWAYS queues it to be mapped again. Ranges
 * are a cache of the CPU mappings: a SET_ATTR and a buffer mapping remove
 * those they cover, and what is left refaults.
 *
 * Locking, outermost first: the SVM lock (&drm_compute_vm_svm.lock,
 * drm_gpusvm's driver lock), the mmap lock (inside drm_gpusvm and HMM),
 * the gpusvm notifier lock, &drm_compute_svm_mirror.gc_lock. The notifier
 * enters at the notifier lock and takes only what the driver's @zap and
 * @flush take and the gc_lock spinlock.
 */

static struct drm_compute_svm_range *to_range(struct drm_gpusvm_range *r)
{
	return container_of(r, struct drm_compute_svm_range, base);
}

static struct drm_compute_svm_mirror *to_mirror(struct drm_gpusvm *g)
{
	return container_of(g, struct drm_compute_svm_mirror, gpusvm);
}

static unsigned long range_npages(struct drm_gpusvm_range *r)
{
	return drm_gpusvm_range_size(r) >> PAGE_SHIFT;
}

static struct drm_gpusvm_range *mirror_range_alloc(struct drm_gpusvm *g)
{
	struct drm_compute_svm_range *sr = kzalloc_obj(*sr);

	if (!sr)
		return NULL;
	drm_gpusvm_init_pages(&sr->pages, to_mirror(g)->drm);
	INIT_LIST_HEAD(&sr->gc_link);
	INIT_LIST_HEAD(&sr->remap_link);
	return &sr->base;
}

static void mirror_range_free(struct drm_gpusvm_range *r)
{
	struct drm_compute_svm_range *sr = to_range(r);
	struct drm_compute_svm_mirror *m = to_mirror(r->gpusvm);

	/* Out of the tree already: no notifier can queue it again. */
	spin_lock(&m->gc_lock);
	list_del_init(&sr->gc_link);
	list_del_init(&sr->remap_link);
	spin_unlock(&m->gc_lock);
	drm_gpusvm_free_pages(r->gpusvm, &sr->pages, range_npages(r));
	kfree(sr);
}

/* Zap @sr's entries if it has any; notifier lock held. Returns whether it did. */
static bool range_zap(struct drm_compute_svm_mirror *m,
		      struct drm_compute_svm_range *sr)
{
	if (!sr->mapped)
		return false;
	m->ops->zap(m, drm_gpusvm_range_start(&sr->base),
		    drm_gpusvm_range_end(&sr->base));
	sr->mapped = false;
	return true;
}

static void mirror_invalidate(struct drm_gpusvm *g,
			      struct drm_gpusvm_notifier *notifier,
			      const struct mmu_notifier_range *mmu)
{
	struct drm_compute_svm_mirror *m = to_mirror(g);
	const struct drm_gpusvm_ctx ctx = { .in_notifier = true };
	unsigned long start = max(mmu->start, drm_gpusvm_notifier_start(notifier));
	unsigned long end = min(mmu->end, drm_gpusvm_notifier_end(notifier));
	struct drm_gpusvm_range *r = NULL;
	bool zapped = false, gc = false, remap = false;

	drm_gpusvm_for_each_range(r, notifier, start, end)
		zapped |= range_zap(m, to_range(r));
	if (zapped && m->ops->flush)
		m->ops->flush(m);

	r = NULL;
	drm_gpusvm_for_each_range(r, notifier, start, end) {
		struct drm_compute_svm_range *sr = to_range(r);

		drm_gpusvm_unmap_pages(g, &sr->pages, range_npages(r), &ctx);
		spin_lock(&m->gc_lock);
		if (mmu->event == MMU_NOTIFY_UNMAP) {
			drm_gpusvm_range_set_unmapped(r, &sr->pages, 1, mmu);
			list_del_init(&sr->remap_link);
			if (list_empty(&sr->gc_link))
				list_add_tail(&sr->gc_link, &m->gc_list);
			gc = true;
		} else if (sr->always_mapped) {
			if (list_empty(&sr->remap_link))
				list_add_tail(&sr->remap_link, &m->remap_list);
			remap = true;
		}
		spin_unlock(&m->gc_lock);
	}
	if (gc)
		queue_work(system_dfl_wq, &m->gc_work);
	if (remap)
		queue_work(system_dfl_wq, &m->remap_work);
}

static const struct drm_gpusvm_ops mirror_gpusvm_ops = {
	.range_alloc = mirror_range_alloc,
	.range_free = mirror_range_free,
	.invalidate = mirror_invalidate,
};

static const unsigned long mirror_chunks[] = { SZ_2M, SZ_64K, SZ_4K };

static void mirror_assert_held(struct drm_compute_svm_mirror *m)
{
	lockdep_assert_held(&m->vm->svm.lock);
}

/* Remove @r: entries, DMA mappings, the range. SVM lock held. */
static void range_remove(struct drm_compute_svm_mirror *m,
			 struct drm_gpusvm_range *r)
{
	struct drm_compute_svm_range *sr = to_range(r);
	const struct drm_gpusvm_ctx ctx = {};

	mirror_assert_held(m);
	drm_gpusvm_notifier_lock(&m->gpusvm);
	if (range_zap(m, sr) && m->ops->flush)
		m->ops->flush(m);
	drm_gpusvm_notifier_unlock(&m->gpusvm);
	drm_gpusvm_unmap_pages(&m->gpusvm, &sr->pages, range_npages(r), &ctx);
	drm_gpusvm_range_remove(&m->gpusvm, r);	/* frees it */
}

/* Remove every range overlapping [@start, @end). SVM lock held. */
static void ranges_remove(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	struct drm_gpusvm_notifier *n, *next_n;

	mirror_assert_held(m);
	drm_gpusvm_for_each_notifier_safe(n, next_n, &m->gpusvm, start, end) {
		struct drm_gpusvm_range *r, *next;

		drm_gpusvm_for_each_range_safe(r, next, n, start, end)
			range_remove(m, r);
	}
}

/*
 * Take the first range off @list (&drm_compute_svm_mirror.gc_list or
 * remap_list, which the notifier fills) under the gc_lock; NULL when empty.
 */
static struct list_head *mirror_pop(struct drm_compute_svm_mirror *m,
				    struct list_head *list)
{
	struct list_head *e = NULL;

	spin_lock(&m->gc_lock);
	if (!list_empty(list)) {
		e = list->next;
		list_del_init(e);
	}
	spin_unlock(&m->gc_lock);
	return e;
}

/*
 * The garbage collector: removes the ranges the notifier saw unmapped, and
 * has the helper drop the attributes of unmapped memory. SVM lock held.
 */
static void mirror_gc(struct drm_compute_svm_mirror *m)
{
	struct list_head *e;

	mirror_assert_held(m);
	/* In the tree until removed, and only removed under this lock. */
	while ((e = mirror_pop(m, &m->gc_list)))
		range_remove(m, &list_entry(e, struct drm_compute_svm_range, gc_link)->base);
	drm_compute_svm_collect(m->vm);
}

/* The device's memory, got on first use and kept. SVM lock held. */
static struct drm_pagemap *mirror_pagemap(struct drm_compute_svm_mirror *m)
{
	struct drm_pagemap *dp;

	mirror_assert_held(m);
	if (!m->dpagemap) {
		dp = m->ops->pagemap_get(m);
		if (IS_ERR(dp))
			return dp;
		m->dpagemap = dp;
	}
	return m->dpagemap;
}

/*
 * Migrate what is mapped of [@start, @end) to the device's memory, best
 * effort: what cannot move is counted in &drm_compute_svm_stats.migrate_failed.
 * SVM lock held.
 */
static void mirror_migrate(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	struct drm_pagemap *dp;
	unsigned long failed;

	if (!m->ops->pagemap_get)
		return;
	dp = mirror_pagemap(m);
	failed = IS_ERR(dp) ? 1 :
		 drm_compute_svm_migrate_to_devmem(m->vm, dp, start, end);
	if (m->stats)
		atomic64_add(failed, &m->stats->migrate_failed);
}

static u32 fault_from_errno(int err)
{
	switch (err) {
	case -EIO:
		return DRM_COMPUTE_FAULT_NOMIRROR;
	case -EPERM:
		return DRM_COMPUTE_FAULT_WRITE;
	default:
		return DRM_COMPUTE_FAULT_UNMAPPED;
	}
}

/*
 * Map the range around @addr for an access, or (@ahead) before any access.
 * *@end is set to where the range (or the hole it could not fill) ends.
 * SVM lock held; the garbage collector has run.
 *
 * Returns: 0 when the entries are written (or a buffer mapping covers
 * @addr), else the DRM_COMPUTE_FAULT_* to raise.
 */
static u32 mirror_map(struct drm_compute_svm_mirror *m, u64 addr, bool write,
		      bool ahead, u64 *end)
{
	struct drm_compute_vm *vm = m->vm;
	struct drm_compute_vm_svm *csvm = &vm->svm;
	struct drm_gpusvm *g = &m->gpusvm;
	struct drm_compute_svm_fault_facts facts = {
		.mode = DRM_COMPUTE_SVM_MODE_NO_ACCESS,
		.write = write,
		.ahead = ahead,
	};
	struct drm_gpusvm_ctx ctx = {
		/* The device's own pages stay where they are; others come back. */
		.device_private_page_owner = m->owner,
		/* Pages of a range may be in both memories (partial prefetch). */
		.allow_mixed = true,
	};
	const struct drm_compute_svm_attrs *attrs;
	struct drm_compute_svm_fault_plan plan;
	struct drm_compute_svm_range *sr;
	struct drm_gpusvm_range *r;
	u64 hs = 0, he = 0, as = 0, asz = 0, rs, re;
	unsigned int tries = 0;
	bool migrated = false;
	int err;

	mirror_assert_held(m);
	*end = ALIGN(addr + 1, SZ_2M);
	attrs = drm_compute_svm_attr_lookup(&csvm->attrs, addr, &as, &asz);
	if (attrs) {
		facts.mode = drm_compute_svm_attrs_access(&csvm->attrs, attrs,
							  vm->cdev->id);
		facts.flags = attrs->flags;
		facts.preferred_here = attrs->preferred_loc == vm->cdev->id;
	}
	plan = drm_compute_svm_fault_decide(&facts);
	if (plan.fault)
		return plan.fault;
	if (!m->ops->bind_hole(m, addr, &hs, &he))
		return 0;
	/* A range holds one set of attributes. */
	hs = max(hs, as);
	he = min(he, as + asz);
	*end = he;
	ctx.read_only = plan.read_only;

retry:
	if (tries++ > m->retries) {
		drm_dbg_driver(m->drm, "SVM fault at 0x%llx: retries spent\n", addr);
		return DRM_COMPUTE_FAULT_SVM_BUSY;
	}
	r = drm_gpusvm_range_find_or_insert(g, addr, hs, he, &ctx);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		/* A CPU mapping without write permission: ask the policy again. */
		if (err == -EPERM && !facts.cpu_read_only) {
			facts.cpu_read_only = true;
			plan = drm_compute_svm_fault_decide(&facts);
			if (plan.fault)
				return plan.fault;
			ctx.read_only = plan.read_only;
			goto retry;
		}
		return fault_from_errno(err);
	}
	sr = to_range(r);
	rs = drm_gpusvm_range_start(r);
	re = drm_gpusvm_range_end(r);
	*end = re;
	if (sr->read_only && !ctx.read_only) {
		/* Mapped read-only for an earlier read; writable wanted now. */
		range_remove(m, r);
		goto retry;
	}
	if (plan.migrate && !migrated) {
		migrated = true;
		mirror_migrate(m, rs, re);
	}

	err = drm_gpusvm_get_pages(g, &sr->pages, g->mm, &r->notifier->notifier,
				   rs, re, &ctx);
	if (err == -EFAULT || err == -EBUSY || err == -EAGAIN) {
		/* Unmapped under us, the mm going, or invalidated again and again. */
		if (err == -EFAULT && !mmget_not_zero(g->mm))
			return DRM_COMPUTE_FAULT_UNMAPPED;
		if (err == -EFAULT)
			mmput(g->mm);
		mirror_gc(m);
		goto retry;
	}
	if (err) {
		drm_dbg_driver(m->drm, "SVM fault at 0x%llx: get_pages %d\n", addr, err);
		return fault_from_errno(err == -EPERM ? -EPERM : -EFAULT);
	}
	if (m->ops->prepare) {
		err = m->ops->prepare(m, rs, re);
		if (err == -EAGAIN)
			goto retry;
		if (err)
			return DRM_COMPUTE_FAULT_UNMAPPED;
	}

	drm_gpusvm_notifier_lock(g);
	if (!drm_gpusvm_pages_valid(g, &sr->pages)) {
		/* Invalidated since get_pages: their DMA mappings are gone. */
		drm_gpusvm_notifier_unlock(g);
		goto retry;
	}
	err = m->ops->map(m, sr, plan.map);
	if (!err) {
		sr->mapped = true;
		sr->read_only = !(plan.map & DRM_COMPUTE_SVM_MAP_WRITE);
		sr->always_mapped = plan.map & DRM_COMPUTE_SVM_MAP_ALWAYS;
	}
	drm_gpusvm_notifier_unlock(g);
	if (err == -EAGAIN)
		goto retry;
	if (err)
		return DRM_COMPUTE_FAULT_UNMAPPED;
	if (m->stats)
		atomic64_inc(ahead ? &m->stats->mapped_ahead : &m->stats->faults);
	return 0;
}

/*
 * Map ahead what is mapped of [@start, @end) and holds
 * %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED, a range at a time. What cannot be
 * mapped (NO_ACCESS, a PFNMAP mapping, pages the CPU made inaccessible) is
 * left to fault. The mmap lock is taken per CPU mapping, not across the
 * walk (drm_gpusvm takes it too); a fatal signal ends the walk early, since
 * it faults in every page it maps. SVM lock held.
 */
static void mirror_map_ahead(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	struct drm_compute_vm_svm *csvm = &m->vm->svm;
	struct mm_struct *mm = m->gpusvm.mm;
	u64 addr = start, vs, ve, as, asz, next;

	mirror_assert_held(m);
	if (!mmget_not_zero(mm))
		return;
	while (addr < end && !fatal_signal_pending(current)) {
		const struct drm_compute_svm_attrs *a;
		struct vm_area_struct *vma;

		a = drm_compute_svm_attr_lookup(&csvm->attrs, addr, &as, &asz);
		if (!a || !(a->flags & DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED)) {
			addr = a ? as + asz : end;
			continue;
		}
		if (mmap_read_lock_killable(mm))
			break;
		vma = find_vma(mm, addr);
		vs = vma ? max_t(u64, vma->vm_start, addr) : end;
		ve = vma ? min3((u64)vma->vm_end, as + asz, end) : end;
		if (vma && (vma->vm_flags & (VM_IO | VM_PFNMAP)))
			vs = ve;
		mmap_read_unlock(mm);
		for (addr = vs; addr < ve && !fatal_signal_pending(current); addr = next) {
			mirror_map(m, addr, false, true, &next);
			next = clamp(next, addr + PAGE_SIZE, ve);
			cond_resched();
		}
		addr = max(addr, ve);
	}
	mmput(mm);
}

/* Map again the ALWAYS_MAPPED ranges an invalidation cleared. SVM lock held. */
static void mirror_remap(struct drm_compute_svm_mirror *m)
{
	struct drm_compute_svm_range *sr;
	struct list_head *e;
	u64 next;

	mirror_assert_held(m);
	while ((e = mirror_pop(m, &m->remap_list))) {
		sr = list_entry(e, struct drm_compute_svm_range, remap_link);
		/* In the tree: ranges are removed only under the SVM lock. */
		mirror_map(m, drm_gpusvm_range_start(&sr->base), false, true, &next);
		cond_resched();
	}
}

static void mirror_gc_work(struct work_struct *work)
{
	struct drm_compute_svm_mirror *m =
		container_of(work, struct drm_compute_svm_mirror, gc_work);

	mutex_lock(&m->vm->svm.lock);
	if (m->active)
		mirror_gc(m);
	mutex_unlock(&m->vm->svm.lock);
}

static void mirror_remap_work(struct work_struct *work)
{
	struct drm_compute_svm_mirror *m =
		container_of(work, struct drm_compute_svm_mirror, remap_work);

	mutex_lock(&m->vm->svm.lock);
	if (m->active) {
		mirror_gc(m);
		mirror_remap(m);
	}
	mutex_unlock(&m->vm->svm.lock);
}

/**
 * drm_compute_svm_mirror_init - set up a device's mirror of an SVM VM
 * @m: the mirror, embedded in the driver's VM
 * @vm: the compute VM (&drm_compute_vm_svm set up: its lock, store and mm)
 * @ops: the driver's callbacks
 * @name: drm_gpusvm's name for it
 * @drm: the device
 * @owner: the device-private page owner of the device's memory, or NULL
 * @stats: the device's counters, or NULL
 * @retries: how often one fault may start over
 *
 * Context: &drm_compute_ops.svm_vm_init or wherever the driver makes the
 * VM; the SVM lock not held.
 *
 * Returns: 0 or what drm_gpusvm_init() returned.
 */
int drm_compute_svm_mirror_init(struct drm_compute_svm_mirror *m,
				struct drm_compute_vm *vm,
				const struct drm_compute_svm_mirror_ops *ops,
				const char *name, struct drm_device *drm,
				void *owner, struct drm_compute_svm_stats *stats,
				unsigned int retries)
{
	const struct drm_compute_dev_info *info = &vm->cdev->info;
	int ret;

	if (WARN_ON(!ops->map || !ops->zap || !ops->bind_hole))
		return -EINVAL;
	m->vm = vm;
	m->drm = drm;
	m->ops = ops;
	m->owner = owner;
	m->stats = stats;
	m->retries = retries;
	m->dpagemap = NULL;
	spin_lock_init(&m->gc_lock);
	INIT_LIST_HEAD(&m->gc_list);
	INIT_LIST_HEAD(&m->remap_list);
	INIT_WORK(&m->gc_work, mirror_gc_work);
	INIT_WORK(&m->remap_work, mirror_remap_work);
	ret = drm_gpusvm_init(&m->gpusvm, name, vm->svm.mm, info->va_start,
			      info->va_end - info->va_start, SZ_512M,
			      &mirror_gpusvm_ops, mirror_chunks,
			      ARRAY_SIZE(mirror_chunks));
	if (ret)
		return ret;
	drm_gpusvm_driver_set_lock(&m->gpusvm, &vm->svm.lock);
	m->active = true;
	return 0;
}
EXPORT_SYMBOL(drm_compute_svm_mirror_init);

/**
 * drm_compute_svm_mirror_detach - tear a mirror down, keeping its memory
 * @m: the mirror
 *
 * Zaps and removes every range, stops drm_gpusvm (no notifier runs
 * afterwards) and drops the device memory's reference. Its work items
 * become no-ops; drm_compute_svm_mirror_fini() still has to run before
 * @m is freed. Does nothing the second time.
 *
 * Context: the SVM lock held.
 */
void drm_compute_svm_mirror_detach(struct drm_compute_svm_mirror *m)
{
	mirror_assert_held(m);
	if (!m->active)
		return;
	ranges_remove(m, 0, ULONG_MAX);
	drm_gpusvm_fini(&m->gpusvm);
	/* Migrated pages hold the pagemap themselves. */
	drm_pagemap_put(m->dpagemap);
	m->dpagemap = NULL;
	m->active = false;
}
EXPORT_SYMBOL(drm_compute_svm_mirror_detach);

/**
 * drm_compute_svm_mirror_fini - tear a mirror down before it is freed
 * @m: the mirror; no fault runs on it
 *
 * Waits for its work items and stops them for good, then detaches it
 * (drm_compute_svm_mirror_detach()) if that has not happened yet.
 *
 * Context: the SVM lock not held (the work items take it).
 */
void drm_compute_svm_mirror_fini(struct drm_compute_svm_mirror *m)
{
	/* The gpusvm notifiers may still queue them: make that a no-op. */
	disable_work_sync(&m->gc_work);
	disable_work_sync(&m->remap_work);
	mutex_lock(&m->vm->svm.lock);
	drm_compute_svm_mirror_detach(m);
	mutex_unlock(&m->vm->svm.lock);
}
EXPORT_SYMBOL(drm_compute_svm_mirror_fini);

/**
 * drm_compute_svm_mirror_fault - service a device access that found no entry
 * @m: the mirror
 * @addr: the address
 * @write: the access writes
 *
 * Runs the garbage collector, then carries out the policy's plan for the
 * access (DOC: SVM mirror).
 *
 * Context: the SVM lock held. Sleeps; takes the mmap lock inside
 * drm_gpusvm and HMM.
 *
 * Returns: 0 when the entries are written, or a buffer mapping covers
 * @addr (either way: retry the access); else the DRM_COMPUTE_FAULT_* to
 * raise; %DRM_COMPUTE_FAULT_UNMAPPED on a mirror torn down.
 */
int drm_compute_svm_mirror_fault(struct drm_compute_svm_mirror *m, u64 addr,
				 bool write)
{
	u64 start_ns = ktime_get_ns(), end;
	int fault;

	mirror_assert_held(m);
	if (!m->active)
		return DRM_COMPUTE_FAULT_UNMAPPED;
	mirror_gc(m);
	fault = mirror_map(m, addr, write, false, &end);
	if (m->stats)
		atomic64_add(ktime_get_ns() - start_ns, &m->stats->fault_ns);
	return fault;
}
EXPORT_SYMBOL(drm_compute_svm_mirror_fault);

/**
 * drm_compute_svm_mirror_attr_set - act on attributes userspace set
 * @m: the mirror
 * @start: first address
 * @size: bytes
 * @attrs: the attributes set (already in the store)
 * @nattr: entries in @attrs
 *
 * What &drm_compute_ops.svm_attr_set asks for: removes the ranges of
 * [@start, @start + @size), so that the next access follows the new
 * rules; carries out a prefetch, to the device's memory or back to system
 * memory (the helper accepts no other location; UNDEFINED asks for
 * nothing); then maps ahead what is %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED.
 *
 * Context: the SVM lock held, from the VM's own process.
 */
void drm_compute_svm_mirror_attr_set(struct drm_compute_svm_mirror *m,
				     u64 start, u64 size,
				     const struct drm_compute_svm_attr *attrs,
				     u32 nattr)
{
	u32 id = m->vm->cdev->id, i;

	mirror_assert_held(m);
	if (!m->active)
		return;
	ranges_remove(m, start, start + size);
	for (i = 0; i < nattr; i++) {
		if (attrs[i].type != DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC)
			continue;
		if (attrs[i].value == id)
			mirror_migrate(m, start, start + size);
		else if (attrs[i].value == DRM_COMPUTE_SVM_LOCATION_SYSMEM)
			drm_compute_svm_migrate_to_ram(m->vm, start, start + size,
						       m->retries);
	}
	mirror_map_ahead(m, start, start + size);
}
EXPORT_SYMBOL(drm_compute_svm_mirror_attr_set);

/**
 * drm_compute_svm_mirror_sync - catch up with the CPU mappings
 * @m: the mirror
 *
 * What &drm_compute_ops.svm_sync asks for: runs the garbage collector, so
 * that the ranges the CPU unmapped are gone, and maps again the
 * ALWAYS_MAPPED ranges an invalidation cleared (what the remap work item
 * would do), so that after any SVM operation they are mapped.
 *
 * Context: the SVM lock held.
 */
void drm_compute_svm_mirror_sync(struct drm_compute_svm_mirror *m)
{
	mirror_assert_held(m);
	if (!m->active)
		return;
	mirror_gc(m);
	mirror_remap(m);
}
EXPORT_SYMBOL(drm_compute_svm_mirror_sync);

/**
 * drm_compute_svm_mirror_bind_prepare - make room for a buffer mapping
 * @m: the mirror
 * @start: first address of the mapping
 * @size: its bytes
 *
 * Removes every range overlapping it: a buffer mapping and a range never
 * overlap, and buffer mappings win.
 *
 * Context: the SVM lock held, across the bind that follows (so that no
 * fault makes a range there meanwhile).
 */
void drm_compute_svm_mirror_bind_prepare(struct drm_compute_svm_mirror *m,
					 u64 start, u64 size)
{
	mirror_assert_held(m);
	if (!m->active)
		return;
	mirror_gc(m);
	ranges_remove(m, start, start + size);
}
EXPORT_SYMBOL(drm_compute_svm_mirror_bind_prepare);
