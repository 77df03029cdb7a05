// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: Shared virtual memory
 *
 * A VM created with %DRM_COMPUTE_VM_CREATE_SVM mirrors its creator's
 * address space through drm_gpusvm: every address of the device's VA range
 * that no VM_BIND mapping covers is the process's memory at the same
 * address. The emulated page tables start empty there; the engine's first
 * access to such an address misses, drops &vcompute_vm.pt_lock and calls
 * vcompute_svm_fault(), which finds or makes the drm_gpusvm range around
 * the address (at most 2 MiB, inside one CPU mapping and inside the hole
 * between VM_BIND mappings), faults its pages in with HMM, DMA-maps them
 * (vcompute's device is dma-direct, so a DMA address is a physical one)
 * and writes the page-table entries under the notifier lock, so that an
 * invalidation that raced with it is seen. Pages already in this device's
 * memory are mapped where they are (HMM hands them over as device-private
 * pages of this owner), by their device-private page frame; the engine
 * reaches their data through the backing page (vcompute_pagemap.c).
 *
 * Migration. A prefetch to the device, or a fault on a range whose
 * preferred location is the device, migrates private anonymous memory to
 * device memory through drm_pagemap, in chunks of the range's migration
 * granularity (the DRM-common walk, drm_compute_svm_migrate_to_devmem());
 * a prefetch to system memory brings it back with hmm_range_fault() for
 * nobody's device (drm_compute_svm_migrate_to_ram()); a CPU access brings
 * back the chunk it touches (drm_pagemap's migrate_to_ram).
 *
 * Invalidation. drm_gpusvm calls vcompute_svm_invalidate() with its
 * notifier lock held for writing whenever the CPU mapping changes (munmap,
 * mremap, madvise, fork's write protection, reclaim, exit). It clears the
 * entries of every range touched, under &vcompute_vm.pt_lock for writing:
 * the engine holds pt_lock for reading across every access that uses an
 * entry, so once down_write() returns no access can use the old pages;
 * that is vcompute's TLB invalidation, done synchronously. It then drops
 * the DMA mappings. An unmap also marks the range and queues it for the
 * garbage collector (a work item, and the head of every fault and SVM
 * operation), which removes it under the SVM lock. A partial munmap thus
 * removes the whole range; what is left refaults as new ranges.
 *
 * Attributes belong to the memory: the helper drops those of unmapped
 * memory (its watcher, drm_compute_svm_collect()), and the garbage
 * collector has it do so before every fault.
 *
 * Binds and ranges never overlap. A fault only makes ranges inside the
 * hole around the address between VM_BIND mappings; a MAP first removes
 * every range overlapping its interval (ranges are a cache of the CPU
 * mappings, so this loses nothing), then maps; both run under the SVM
 * lock, so no fault interleaves. An UNMAP leaves a hole that the next
 * access mirrors.
 *
 * Attributes. NO_ACCESS for this device faults the queue
 * (%DRM_COMPUTE_FAULT_UNMAPPED); %DRM_COMPUTE_SVM_FLAG_GPU_RO maps without
 * write permission, and %DRM_COMPUTE_SVM_FLAG_GPU_EXEC with execute
 * permission (KFD's rules: without it, packets cannot be fetched from the
 * range). A SET_ATTR removes the ranges it covers, so that the next access
 * follows the new rules. A CPU mapping without write permission is
 * mirrored read-only; a GPU write there faults (%DRM_COMPUTE_FAULT_WRITE).
 * A VM_IO or VM_PFNMAP mapping (a buffer object's mmap) cannot be mirrored
 * and faults with %DRM_COMPUTE_FAULT_NOMIRROR; an address without CPU
 * mapping faults with %DRM_COMPUTE_FAULT_UNMAPPED.
 *
 * Flags honoured (%VCOMPUTE_SVM_FLAGS, reported by the DEVICE query): GPU_RO
 * and GPU_EXEC as above; HOST_ACCESS, COHERENT and EXT_COHERENT hold by
 * construction, since the engine reaches every page through the kernel's
 * cached mapping, as the CPU does, atomics included, and device memory is
 * device-private (one copy, which a CPU access brings back).
 * GPU_READ_MOSTLY: a read maps the pages where they are, read-only, and
 * never migrates them, even where the device is the preferred location;
 * the entries carry %VCOMPUTE_PTE_RO_COPY, so a write of the engine is a
 * miss (not a permission fault) that the fault service answers with a
 * writable mapping, migrating first where the preference asks. The engine
 * reads system memory at the CPU's speed, so its read-only copy is the
 * CPU's own pages: the data settles where both sides read it, with no
 * migration back and forth. GPU_ALWAYS_MAPPED: SET_ATTR maps what is
 * mapped of the range at once (svm_map_ahead(), no migration, counted in
 * ``mapped_ahead`` of debugfs ``vcompute_svm``, not as faults), and an
 * invalidation other than an unmap (migration, mprotect, fork's write
 * protection, reclaim, MADV_DONTNEED) queues the range to be mapped again
 * by &vcompute_svm.remap_work. HIVE_LOCAL is refused with -EOPNOTSUPP: the
 * device has no hive.
 *
 * Bounds. A fault is retried at most ``svm_fault_retries`` times when
 * drm_gpusvm_get_pages() reports -EBUSY (HMM's one-second budget spent:
 * the range kept being invalidated) or the pages were invalidated before
 * they were mapped; then the queue faults with
 * %DRM_COMPUTE_FAULT_SVM_BUSY rather than spin, since the engine thread
 * runs every queue of the device.
 *
 * Locking, outermost first:
 * &drm_compute_userq.ctl_lock, &vcompute_engine.lock,
 * &drm_compute_vm_svm.lock (the SVM lock: drm_gpusvm's driver lock, the
 * attribute store's lock, binds of an SVM VM), the mmap lock (taken inside
 * drm_gpusvm and HMM), &vcompute_vm.pt_alloc_lock, the gpusvm notifier
 * lock, &vcompute_vm.pt_lock. An MMU notifier enters at the notifier lock
 * (drm_gpusvm) and takes only pt_lock and &vcompute_svm.gc_lock (the
 * helper's watcher takes its own spinlock): never the engine lock, the
 * SVM lock or anything held across an allocation or the mmap lock, since
 * it runs under the mmap lock and from reclaim.
 */

#include <linux/dma-direct.h>
#include <linux/hmm.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
#include <drm/drm_gpusvm.h>
#include <drm/drm_pagemap.h>
#include <drm/drm_print.h>

#include "vcompute_drv.h"

static unsigned int svm_fault_retries = 4;
module_param(svm_fault_retries, uint, 0644);
MODULE_PARM_DESC(svm_fault_retries,
		 "Attempts to service one SVM fault before the queue faults with SVM_BUSY (default 4)");

/**
 * struct vcompute_range - a drm_gpusvm range of vcompute
 */
struct vcompute_range {
	/** @base: the range. */
	struct drm_gpusvm_range base;
	/** @pages: its pages and their DMA addresses. */
	struct drm_gpusvm_pages pages;
	/** @gc_link: in &vcompute_svm.gc_list, under &vcompute_svm.gc_lock. */
	struct list_head gc_link;
	/**
	 * @remap_link: in &vcompute_svm.remap_list, under
	 * &vcompute_svm.gc_lock.
	 */
	struct list_head remap_link;
	/** @mapped: page-table entries written; under &vcompute_vm.pt_lock. */
	bool mapped;
	/** @read_only: the entries have no write bit; under pt_lock. */
	bool read_only;
	/**
	 * @always_mapped: mapped under %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED:
	 * an invalidation other than an unmap queues it to be mapped again.
	 * Written under pt_lock and the notifier lock, read under either.
	 */
	bool always_mapped;
};

static struct vcompute_range *to_vrange(struct drm_gpusvm_range *r)
{
	return container_of(r, struct vcompute_range, base);
}

static struct vcompute_vm *gpusvm_to_vm(struct drm_gpusvm *g)
{
	return container_of(g, struct vcompute_vm, svm.gpusvm);
}

static unsigned long range_npages(struct drm_gpusvm_range *r)
{
	return drm_gpusvm_range_size(r) >> PAGE_SHIFT;
}

static struct drm_gpusvm_range *vcompute_range_alloc(struct drm_gpusvm *g)
{
	struct vcompute_range *vr = kzalloc_obj(*vr);

	if (!vr)
		return NULL;
	drm_gpusvm_init_pages(&vr->pages, gpusvm_to_vm(g)->gpuvm.drm);
	INIT_LIST_HEAD(&vr->gc_link);
	INIT_LIST_HEAD(&vr->remap_link);
	return &vr->base;
}

static void vcompute_range_free(struct drm_gpusvm_range *r)
{
	struct vcompute_range *vr = to_vrange(r);
	struct vcompute_svm *s = &gpusvm_to_vm(r->gpusvm)->svm;

	/* Out of the tree already: no notifier can queue it again. */
	spin_lock(&s->gc_lock);
	list_del_init(&vr->gc_link);
	list_del_init(&vr->remap_link);
	spin_unlock(&s->gc_lock);
	drm_gpusvm_free_pages(r->gpusvm, &vr->pages, range_npages(r));
	kfree(vr);
}

/* Clear the entries of @r if it has any; pt_lock held for writing. */
static void range_zap(struct vcompute_vm *vm, struct vcompute_range *vr)
{
	lockdep_assert_held_write(&vm->pt_lock);
	if (!vr->mapped)
		return;
	vcompute_vm_pt_zap(vm, drm_gpusvm_range_start(&vr->base),
			   drm_gpusvm_range_size(&vr->base));
	vr->mapped = false;
}

static void vcompute_svm_invalidate(struct drm_gpusvm *g,
				    struct drm_gpusvm_notifier *notifier,
				    const struct mmu_notifier_range *mmu)
{
	struct vcompute_vm *vm = gpusvm_to_vm(g);
	struct vcompute_svm *s = &vm->svm;
	const struct drm_gpusvm_ctx ctx = { .in_notifier = true };
	unsigned long start = max(mmu->start, drm_gpusvm_notifier_start(notifier));
	unsigned long end = min(mmu->end, drm_gpusvm_notifier_end(notifier));
	struct drm_gpusvm_range *r = NULL;
	bool queue = false, remap = false;

	/* The "TLB flush": no access of the engine uses the old entries. */
	down_write(&vm->pt_lock);
	drm_gpusvm_for_each_range(r, notifier, start, end)
		range_zap(vm, to_vrange(r));
	up_write(&vm->pt_lock);

	r = NULL;
	drm_gpusvm_for_each_range(r, notifier, start, end) {
		struct vcompute_range *vr = to_vrange(r);

		drm_gpusvm_unmap_pages(g, &vr->pages, range_npages(r), &ctx);
		if (mmu->event != MMU_NOTIFY_UNMAP) {
			/* ALWAYS_MAPPED: map it again once the change is done. */
			if (!vr->always_mapped)
				continue;
			spin_lock(&s->gc_lock);
			if (list_empty(&vr->remap_link))
				list_add_tail(&vr->remap_link, &s->remap_list);
			spin_unlock(&s->gc_lock);
			remap = true;
			continue;
		}
		drm_gpusvm_range_set_unmapped(r, &vr->pages, 1, mmu);
		spin_lock(&s->gc_lock);
		list_del_init(&vr->remap_link);
		if (list_empty(&vr->gc_link))
			list_add_tail(&vr->gc_link, &s->gc_list);
		spin_unlock(&s->gc_lock);
		queue = true;
	}
	if (queue)
		queue_work(system_dfl_wq, &s->gc_work);
	if (remap)
		queue_work(system_dfl_wq, &s->remap_work);
}

static const struct drm_gpusvm_ops vcompute_gpusvm_ops = {
	.range_alloc = vcompute_range_alloc,
	.range_free = vcompute_range_free,
	.invalidate = vcompute_svm_invalidate,
};

static const unsigned long vcompute_svm_chunks[] = { SZ_2M, SZ_64K, SZ_4K };

/* Remove @r: entries, DMA mappings, then the range. SVM lock held. */
static void range_remove(struct vcompute_vm *vm, struct drm_gpusvm_range *r)
{
	const struct drm_gpusvm_ctx ctx = {};

	down_write(&vm->pt_lock);
	range_zap(vm, to_vrange(r));
	up_write(&vm->pt_lock);
	drm_gpusvm_unmap_pages(&vm->svm.gpusvm, &to_vrange(r)->pages,
			       range_npages(r), &ctx);
	drm_gpusvm_range_remove(&vm->svm.gpusvm, r);	/* frees it */
}

/* Remove every range overlapping [@start, @end). SVM lock held. */
static void ranges_remove(struct vcompute_vm *vm, u64 start, u64 end)
{
	struct drm_gpusvm_notifier *n, *next_n;

	lockdep_assert_held(&vm->compute.svm.lock);
	drm_gpusvm_for_each_notifier_safe(n, next_n, &vm->svm.gpusvm, start, end) {
		struct drm_gpusvm_range *r, *next;

		drm_gpusvm_for_each_range_safe(r, next, n, start, end)
			range_remove(vm, r);
	}
}

/*
 * The garbage collector: removes the ranges the notifier saw unmapped, and
 * has the helper drop the attributes of unmapped memory. SVM lock held.
 */
static void svm_gc(struct vcompute_vm *vm)
{
	struct vcompute_svm *s = &vm->svm;
	struct vcompute_range *vr;

	lockdep_assert_held(&vm->compute.svm.lock);
	for (;;) {
		spin_lock(&s->gc_lock);
		vr = list_first_entry_or_null(&s->gc_list, struct vcompute_range,
					      gc_link);
		if (vr)
			list_del_init(&vr->gc_link);
		spin_unlock(&s->gc_lock);
		if (!vr)
			break;
		/* In the tree until removed, and only removed under this lock. */
		range_remove(vm, &vr->base);
	}
	drm_compute_svm_collect(&vm->compute);
}

static void svm_remap_work(struct work_struct *work);

static void svm_gc_work(struct work_struct *work)
{
	struct vcompute_vm *vm = container_of(work, struct vcompute_vm,
					      svm.gc_work);

	mutex_lock(&vm->compute.svm.lock);
	svm_gc(vm);
	mutex_unlock(&vm->compute.svm.lock);
}

/**
 * vcompute_svm_vm_init - &drm_compute_ops.svm_vm_init
 * @cvm: the VM being created with %DRM_COMPUTE_VM_CREATE_SVM
 *
 * Context: the creating process (current->mm is the VM's),
 * &drm_compute_file.lock held.
 *
 * Returns: 0 or a negative errno.
 */
int vcompute_svm_vm_init(struct drm_compute_vm *cvm)
{
	const struct drm_compute_dev_info *info = &cvm->cdev->info;
	struct vcompute_vm *vm = to_vcompute_vm(cvm);
	struct vcompute_svm *s = &vm->svm;
	struct mm_struct *mm = cvm->svm.mm;
	int ret;

	spin_lock_init(&s->gc_lock);
	INIT_LIST_HEAD(&s->gc_list);
	INIT_LIST_HEAD(&s->remap_list);
	INIT_WORK(&s->gc_work, svm_gc_work);
	INIT_WORK(&s->remap_work, svm_remap_work);
	s->dpagemap = NULL;

	ret = drm_gpusvm_init(&s->gpusvm, "vcompute", mm, info->va_start,
			      info->va_end - info->va_start, SZ_512M,
			      &vcompute_gpusvm_ops, vcompute_svm_chunks,
			      ARRAY_SIZE(vcompute_svm_chunks));
	if (ret)
		return ret;
	drm_gpusvm_driver_set_lock(&s->gpusvm, &cvm->svm.lock);
	vm->svm_enabled = true;
	return 0;
}

/**
 * vcompute_svm_vm_fini - &drm_compute_ops.svm_vm_fini
 * @cvm: the VM; its last reference is gone and no queue runs on it
 */
void vcompute_svm_vm_fini(struct drm_compute_vm *cvm)
{
	struct vcompute_vm *vm = to_vcompute_vm(cvm);
	struct vcompute_svm *s = &vm->svm;
	const struct drm_gpusvm_ctx ctx = {};
	struct drm_gpusvm_notifier *n, *next_n;

	/* The gpusvm notifiers may still queue them: make that a no-op. */
	disable_work_sync(&s->gc_work);
	disable_work_sync(&s->remap_work);

	mutex_lock(&cvm->svm.lock);
	down_write(&vm->pt_lock);
	drm_gpusvm_for_each_notifier(n, &s->gpusvm, 0, ULONG_MAX) {
		struct drm_gpusvm_range *r = NULL;

		drm_gpusvm_for_each_range(r, n, 0, ULONG_MAX)
			range_zap(vm, to_vrange(r));
	}
	up_write(&vm->pt_lock);
	drm_gpusvm_for_each_notifier_safe(n, next_n, &s->gpusvm, 0, ULONG_MAX) {
		struct drm_gpusvm_range *r, *next;

		drm_gpusvm_for_each_range_safe(r, next, n, 0, ULONG_MAX)
			drm_gpusvm_unmap_pages(&s->gpusvm, &to_vrange(r)->pages,
					       range_npages(r), &ctx);
	}
	drm_gpusvm_fini(&s->gpusvm);
	mutex_unlock(&cvm->svm.lock);
	/* Migrated pages hold the pagemap themselves. */
	drm_pagemap_put(s->dpagemap);
	s->dpagemap = NULL;
	vm->svm_enabled = false;
}

/* The device memory of @vm's device, made on first use. SVM lock held. */
static struct drm_pagemap *svm_dpagemap(struct vcompute_vm *vm)
{
	struct drm_pagemap *dp = vm->svm.dpagemap;

	lockdep_assert_held(&vm->compute.svm.lock);
	if (!dp) {
		dp = vcompute_pagemap_get(to_vcompute(vm->gpuvm.drm));
		if (IS_ERR(dp))
			return dp;
		vm->svm.dpagemap = dp;
	}
	return dp;
}

/*
 * Migrate what is mapped of [@start, @end) to device memory, in chunks of
 * the range's migration granularity (drm_compute_svm_migrate_to_devmem()).
 * Each chunk is one device-memory allocation, and drm_pagemap brings a
 * whole allocation back when the CPU touches any page of it. A chunk that
 * cannot move (device memory full, pages pinned or busy) stays in system
 * memory and is counted in svm_stats.migrate_failed. SVM lock held.
 */
static void svm_migrate_to_device(struct vcompute_vm *vm, u64 start, u64 end)
{
	struct vcompute_device *vdev = to_vcompute(vm->gpuvm.drm);
	struct drm_pagemap *dp = svm_dpagemap(vm);

	if (IS_ERR(dp)) {
		atomic64_inc(&vdev->svm_stats.migrate_failed);
		return;
	}
	atomic64_add(drm_compute_svm_migrate_to_devmem(&vm->compute, dp, start, end),
		     &vdev->svm_stats.migrate_failed);
}

/**
 * vcompute_svm_bind_prepare - make room for a bind in an SVM VM
 * @vm: the VM
 * @va: first address of a MAP
 * @range: its bytes
 *
 * Removes every SVM range overlapping the MAP: a VM_BIND mapping and an SVM
 * range never overlap (DOC: Shared virtual memory).
 *
 * Context: &drm_compute_vm_svm.lock held, across the bind that follows.
 */
void vcompute_svm_bind_prepare(struct vcompute_vm *vm, u64 va, u64 range)
{
	svm_gc(vm);
	ranges_remove(vm, va, va + range);
}

/*
 * The hole around @va between VM_BIND mappings, within the 2 MiB block of
 * @va: where a range for @va may lie. false if a mapping covers @va (a bind
 * that just completed: the access is to be retried). SVM lock held, which
 * binds of an SVM VM hold too, so the tree is stable.
 */
static bool bind_hole(struct vcompute_vm *vm, u64 va, u64 *start, u64 *end)
{
	u64 s = ALIGN_DOWN(va, SZ_2M), e = s + SZ_2M;
	struct drm_gpuva *gva;

	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, s, e) {
		u64 gs = gva->va.addr, ge = gs + gva->va.range;

		if (gs <= va && va < ge)
			return false;
		if (ge <= va)
			s = max(s, ge);
		else
			e = min(e, gs);
	}
	*start = s;
	*end = e;
	return true;
}

static int fault_from_errno(int err)
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
 * Write the entries of @vr from its DMA addresses; pt_lock held for writing,
 * and the notifier lock (for @vr->always_mapped).
 */
static void range_map(struct vcompute_vm *vm, struct vcompute_range *vr,
		      u64 bits, bool always_mapped)
{
	struct device *dev = vm->gpuvm.drm->dev;
	unsigned long i, j, k, npages = range_npages(&vr->base);
	u64 va = drm_gpusvm_range_start(&vr->base);

	lockdep_assert_held_write(&vm->pt_lock);
	for (i = 0, j = 0; i < npages; j++) {
		const struct drm_pagemap_addr *a = &vr->pages.dma_addr[j];
		unsigned long pfn;

		u64 mem = VCOMPUTE_PTE_SYSMEM;

		/* Device memory: its device-private page frame (vcompute_pagemap.c). */
		if (a->proto == DRM_INTERCONNECT_DRIVER) {
			pfn = PHYS_PFN(a->addr);
			mem = 0;
		} else {
			pfn = PHYS_PFN(dma_to_phys(dev, a->addr));
		}

		for (k = 0; k < (1UL << a->order) && i < npages; k++, i++)
			vcompute_vm_pt_set(vm, va + (i << PAGE_SHIFT), pfn + k,
					   bits | mem);
	}
	vr->mapped = true;
	vr->read_only = !(bits & VCOMPUTE_PTE_WRITE);
	vr->always_mapped = always_mapped;
}

/*
 * Map the range around @va for @access, or (@ahead) before any access, for
 * %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED: then nothing migrates and no
 * fault is counted. *@end is set to where the range (or the hole it could
 * not fill) ends. SVM lock held; the garbage collector has run.
 *
 * Returns: 0 when the entries are written (or a bind maps @va), else the
 * DRM_COMPUTE_FAULT_* to raise.
 */
static int svm_map(struct vcompute_vm *vm, u64 va, enum vcompute_access access,
		   bool ahead, u64 *end)
{
	struct vcompute_device *vdev = to_vcompute(vm->gpuvm.drm);
	struct drm_compute_vm_svm *csvm = &vm->compute.svm;
	struct drm_gpusvm *g = &vm->svm.gpusvm;
	const struct drm_compute_svm_attrs *attrs;
	struct drm_gpusvm_ctx ctx = {
		/* This device's pages stay in device memory; others come back. */
		.device_private_page_owner = vcompute_pagemap_owner(vdev),
		/* Pages of a range may be in both memories (partial prefetch). */
		.allow_mixed = true,
	};
	struct drm_gpusvm_range *r;
	struct vcompute_range *vr;
	unsigned int tries = 0;
	bool migrate, copy;
	u32 aflags;
	u64 hs = 0, he = 0, as = 0, asz = 0, bits;
	int err;

	lockdep_assert_held(&csvm->lock);
	*end = ALIGN(va + 1, SZ_2M);
	attrs = drm_compute_svm_attr_lookup(&csvm->attrs, va, &as, &asz);
	if (!attrs || drm_compute_svm_attrs_access(&csvm->attrs, attrs,
						   vdev->compute.id) ==
		      DRM_COMPUTE_SVM_MODE_NO_ACCESS)
		return DRM_COMPUTE_FAULT_UNMAPPED;
	if (!bind_hole(vm, va, &hs, &he))
		return 0;
	/* A range holds one set of attributes. */
	hs = max(hs, as);
	he = min(he, as + asz);
	*end = he;
	/* @attrs dies with the next store change (svm_gc() below): copy. */
	aflags = attrs->flags;
	/* Preferred here, and not to be used in place: move on fault. */
	migrate = !ahead && attrs->preferred_loc == vdev->compute.id &&
		  drm_compute_svm_attrs_access(&csvm->attrs, attrs, vdev->compute.id) !=
		  DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE;
	ctx.read_only = !!(aflags & DRM_COMPUTE_SVM_FLAG_GPU_RO);
	if (ctx.read_only && access == VCOMPUTE_WRITE)
		return DRM_COMPUTE_FAULT_WRITE;
	/*
	 * READ_MOSTLY: a read neither moves the data nor takes write access;
	 * the entries are a read-only copy, which a write of this device
	 * replaces by a writable mapping (moving the data where preferred).
	 */
	copy = (aflags & DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY) &&
	       access != VCOMPUTE_WRITE;
	if (copy) {
		migrate = false;
		ctx.read_only = true;
	}

retry:
	if (tries++ > svm_fault_retries) {
		drm_dbg_driver(&vdev->drm, "SVM fault at 0x%llx: retries spent\n", va);
		return DRM_COMPUTE_FAULT_SVM_BUSY;
	}
	r = drm_gpusvm_range_find_or_insert(g, va, hs, he, &ctx);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		/* A read-only CPU mapping: mirror it read-only for reads. */
		if (err == -EPERM && access != VCOMPUTE_WRITE && !ctx.read_only) {
			ctx.read_only = true;
			goto retry;
		}
		return fault_from_errno(err);
	}
	vr = to_vrange(r);
	*end = drm_gpusvm_range_end(r);
	if (vr->read_only && !ctx.read_only) {
		/* Got read-only for an earlier read; now writable is wanted. */
		range_remove(vm, r);
		goto retry;
	}
	if (migrate) {
		/* The data prefers this device: move it, once per fault. */
		migrate = false;
		svm_migrate_to_device(vm, drm_gpusvm_range_start(r),
				      drm_gpusvm_range_end(r));
	}

	err = drm_gpusvm_get_pages(g, &vr->pages, g->mm, &r->notifier->notifier,
				   drm_gpusvm_range_start(r),
				   drm_gpusvm_range_end(r), &ctx);
	if (err == -EFAULT || err == -EBUSY || err == -EAGAIN) {
		/* Unmapped under us, the mm going, or invalidated again and again. */
		if (err == -EFAULT && !mmget_not_zero(g->mm))
			return DRM_COMPUTE_FAULT_UNMAPPED;
		if (err == -EFAULT)
			mmput(g->mm);
		svm_gc(vm);
		goto retry;
	}
	if (err) {
		drm_dbg_driver(&vdev->drm, "SVM fault at 0x%llx: get_pages %d\n",
			       va, err);
		return err == -EPERM ? DRM_COMPUTE_FAULT_WRITE :
				       DRM_COMPUTE_FAULT_UNMAPPED;
	}

	err = vcompute_vm_pt_prepare(vm, drm_gpusvm_range_start(r),
				     drm_gpusvm_range_size(r));
	if (err)
		return DRM_COMPUTE_FAULT_UNMAPPED;

	bits = VCOMPUTE_PTE_VALID;
	if (!ctx.read_only)
		bits |= VCOMPUTE_PTE_WRITE;
	else if (copy)
		bits |= VCOMPUTE_PTE_RO_COPY;
	if (aflags & DRM_COMPUTE_SVM_FLAG_GPU_EXEC)
		bits |= VCOMPUTE_PTE_EXEC;

	drm_gpusvm_notifier_lock(g);
	if (!drm_gpusvm_pages_valid(g, &vr->pages)) {
		/* Invalidated since get_pages: their DMA mappings are gone. */
		drm_gpusvm_notifier_unlock(g);
		goto retry;
	}
	down_write(&vm->pt_lock);
	range_map(vm, vr, bits, aflags & DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED);
	up_write(&vm->pt_lock);
	drm_gpusvm_notifier_unlock(g);
	atomic64_inc(ahead ? &vdev->svm_stats.mapped_ahead : &vdev->svm_stats.faults);
	return 0;
}

/*
 * Map ahead what is mapped of [@start, @end) and holds
 * %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED, a range at a time. What cannot be
 * mapped (NO_ACCESS, a PFNMAP mapping, pages the CPU has made inaccessible)
 * is left to fault. The mmap lock is taken per CPU mapping, not across the
 * walk (drm_gpusvm takes it too); a fatal signal ends the walk early, since
 * it faults in every page it maps. SVM lock held.
 */
static void svm_map_ahead(struct vcompute_vm *vm, u64 start, u64 end)
{
	struct drm_compute_vm_svm *csvm = &vm->compute.svm;
	struct mm_struct *mm = vm->svm.gpusvm.mm;
	u64 addr = start, vs, ve, as, asz, next;

	lockdep_assert_held(&csvm->lock);
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
			svm_map(vm, addr, VCOMPUTE_READ, true, &next);
			next = clamp(next, addr + PAGE_SIZE, ve);
			cond_resched();
		}
		addr = max(addr, ve);
	}
	mmput(mm);
}

/*
 * Map again the ALWAYS_MAPPED ranges an invalidation cleared. SVM lock held;
 * the garbage collector has run.
 */
static void svm_remap(struct vcompute_vm *vm)
{
	struct vcompute_svm *s = &vm->svm;
	struct vcompute_range *vr;
	u64 next;

	lockdep_assert_held(&vm->compute.svm.lock);
	for (;;) {
		spin_lock(&s->gc_lock);
		vr = list_first_entry_or_null(&s->remap_list, struct vcompute_range,
					      remap_link);
		if (vr)
			list_del_init(&vr->remap_link);
		spin_unlock(&s->gc_lock);
		if (!vr)
			break;
		/* In the tree: ranges are removed only under the SVM lock. */
		svm_map(vm, drm_gpusvm_range_start(&vr->base), VCOMPUTE_READ,
			true, &next);
		cond_resched();
	}
}

static void svm_remap_work(struct work_struct *work)
{
	struct vcompute_vm *vm = container_of(work, struct vcompute_vm,
					      svm.remap_work);

	mutex_lock(&vm->compute.svm.lock);
	svm_gc(vm);
	svm_remap(vm);
	mutex_unlock(&vm->compute.svm.lock);
}

/**
 * vcompute_svm_fault - service an engine access that found no entry
 * @vm: an SVM VM
 * @va: the address
 * @access: what the engine means to do
 *
 * Context: the engine thread, &vcompute_engine.lock held,
 * &vcompute_vm.pt_lock not held (the caller dropped it). Sleeps; takes the
 * SVM lock and, inside drm_gpusvm, the mmap lock.
 *
 * Returns: 0 when the entries are written (or a bind mapped @va): retry the
 * translation; else the DRM_COMPUTE_FAULT_* to raise.
 */
int vcompute_svm_fault(struct vcompute_vm *vm, u64 va,
		       enum vcompute_access access)
{
	struct drm_compute_vm_svm *csvm = &vm->compute.svm;
	u64 end;
	int fault;

	mutex_lock(&csvm->lock);
	svm_gc(vm);
	fault = svm_map(vm, va, access, false, &end);
	mutex_unlock(&csvm->lock);
	return fault;
}

/**
 * vcompute_svm_attr_set - &drm_compute_ops.svm_attr_set
 * @cvm: the VM
 * @start: first address
 * @size: bytes
 * @attrs: the attributes set (already in the store)
 * @nattr: entries in @attrs
 *
 * Removes the ranges of [@start, @start + @size), so that the next access
 * maps them with the new access mode and permissions, then carries out a
 * prefetch: to this device's memory, or back to system memory (the helper
 * accepts no other device; UNDEFINED asks for nothing).
 *
 * Context: &drm_compute_vm_svm.lock held.
 */
void vcompute_svm_attr_set(struct drm_compute_vm *cvm, u64 start, u64 size,
			   const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	struct vcompute_vm *vm = to_vcompute_vm(cvm);
	u32 id = cvm->cdev->id, i;

	/* svm_sync() ran the garbage collector at the start of the operation. */
	ranges_remove(vm, start, start + size);
	for (i = 0; i < nattr; i++) {
		if (attrs[i].type != DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC)
			continue;
		if (attrs[i].value == id)
			svm_migrate_to_device(vm, start, start + size);
		else if (attrs[i].value == DRM_COMPUTE_SVM_LOCATION_SYSMEM)
			drm_compute_svm_migrate_to_ram(cvm, start, start + size,
						       svm_fault_retries);
	}
	svm_map_ahead(vm, start, start + size);
}

/**
 * vcompute_svm_sync - &drm_compute_ops.svm_sync
 * @cvm: the VM
 *
 * Runs the garbage collector, so that the ranges the CPU unmapped are gone
 * before the operation that follows, and maps again the ALWAYS_MAPPED
 * ranges an invalidation cleared (what &vcompute_svm.remap_work would do),
 * so that after any SVM operation they are mapped.
 *
 * Context: &drm_compute_vm_svm.lock held.
 */
void vcompute_svm_sync(struct drm_compute_vm *cvm)
{
	struct vcompute_vm *vm = to_vcompute_vm(cvm);

	svm_gc(vm);
	svm_remap(vm);
}
