// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: amdgpu compute SVM
 *
 * Shared virtual memory on amdgpu's render node, for the compute VMs of
 * the DRM compute uapi (%DRM_COMPUTE_VM_CREATE_SVM, %DRM_COMPUTE_OP_SVM),
 * on the DRM-common drm_gpusvm, where amdkfd has its own HMM code. The
 * helper owns the uapi, the attributes (drm_compute_svm.c) and the mirror
 * with its fault policy (drm_compute_svm_mirror.c, DOC: SVM mirror): the
 * same ranges, garbage collector, migration and rules as every other
 * driver. This file gives the mirror amdgpu's page tables, over the
 * file's &struct amdgpu_vm, which names it in &amdgpu_vm.compute_svm.
 *
 * GPU faults. A retry fault of the VM (amdgpu_vm_handle_fault(), from the
 * interrupt handler's worker) comes here instead of going to amdkfd:
 * amdgpu_compute_svm_fault() has the mirror service it. A fault the
 * policy refuses (NO_ACCESS, no CPU mapping, a write to read-only memory)
 * returns its DRM_COMPUTE_FAULT_* reason, and amdgpu_vm_handle_fault()
 * then writes no-retry entries so that the queue takes a VM fault; a fault
 * on an address a buffer mapping now covers is answered with success, and
 * the hardware's retry finds the buffer's entry.
 *
 * Page tables. Every update of the mirror's entries goes through the VM's
 * delayed entity, in order, and is waited for: svm_prepare() makes sure
 * the tables exist with a locked amdgpu_vm_update_range() of invalid
 * entries (it allocates); svm_map(), under drm_gpusvm's notifier lock with
 * the pages checked, writes the leaves with unlocked updates, one per run
 * of system pages or of contiguous VRAM (no page-table allocation, and
 * reclaim kept out with memalloc_noreclaim_save(), as amdkfd does under
 * its range lock). The plan's DRM_COMPUTE_SVM_MAP_* bits become page flags
 * by amdgpu_compute_svm_page_flags() (KUnit).
 *
 * Invalidation. svm_zap() clears the entries with an unlocked update and
 * waits for it; svm_flush() then flushes the TLBs of the VM's PASID (an
 * unlocked update only moves the VM's TLB sequence on). This is amdkfd's
 * XNACK-on model: queues keep running and refault.
 *
 * Device memory. A range's pages may be in this device's VRAM, as
 * device-private pages of its pagemap (amdgpu_compute_pagemap.c, DOC:
 * amdgpu compute SVM device memory): HMM hands them over as such (the
 * mirror's owner is the pagemap's), and the entries then hold VRAM
 * addresses.
 *
 * Binds. A VM_BIND MAP first removes the ranges it overlaps, under the
 * SVM lock, which faults hold too; buffer mappings win. amdgpu's own
 * DRM_AMDGPU_GEM_VA ioctl on the same VM does not take the SVM lock: a
 * mapping it makes inside a range's interval is not excluded.
 *
 * Lifetime. The mirror lives from &drm_compute_ops.svm_vm_init to
 * &drm_compute_ops.svm_vm_fini, and is detached from the file's VM when
 * the file goes (amdgpu_compute_svm_detach(), before amdgpu_vm_fini()),
 * whichever comes first; a fault holds a reference to the compute VM, and
 * one that raced with a detach finds the mirror detached.
 *
 * Locking, outermost first: the link's lock (binds), the SVM lock
 * (&drm_compute_vm_svm.lock: drm_gpusvm's driver lock), the mmap lock
 * (inside drm_gpusvm and HMM), the root page directory's reservation, the
 * gpusvm notifier lock. The root reservation is never held across
 * drm_gpusvm_get_pages(): the mmap lock comes first.
 *
 * What only hardware runs: all of it but the page-flag translation and
 * the walk over a range's device addresses (KUnit); the mirror and its
 * policy run on vcompute. It needs retry faults (amdgpu.noretry=0, GC
 * 9.4.2 and newer): without them the device reports no SVM.
 */

#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm_mirror.h>
#include <drm/drm_exec.h>
#include <drm/drm_gpusvm.h>
#include <drm/drm_pagemap.h>

#include "amdgpu.h"
#include "amdgpu_compute.h"
#include "amdgpu_compute_args.h"
#include "amdgpu_vm.h"

/* Services of one fault before it gives up (the range kept moving). */
#define AMDGPU_COMPUTE_SVM_TRIES	4

/**
 * struct amdgpu_compute_svm - the SVM mirror of an amdgpu compute VM
 */
struct amdgpu_compute_svm {
	/** @mirror: the helper's mirror, whose ops are this file's. */
	struct drm_compute_svm_mirror mirror;
	/**
	 * @cvm: the compute VM: its SVM lock and attribute store. The mirror
	 * lives as long as it: a fault holds a reference to it.
	 */
	struct drm_compute_vm *cvm;
	/** @adev: the device. */
	struct amdgpu_device *adev;
	/**
	 * @vm: the file's VM, NULL once detached. Written under the SVM lock
	 * with the root page directory reserved; the notifiers are gone
	 * before it is cleared.
	 */
	struct amdgpu_vm *vm;
	/**
	 * @addrs: one DMA address per CPU page of the range being mapped, as
	 * amdgpu_vm_update_range() reads them; under the SVM lock (one fault
	 * at a time), so that svm_map() needs no allocation.
	 */
	dma_addr_t addrs[SZ_2M / PAGE_SIZE];
};

static struct amdgpu_compute_svm *to_asvm(struct drm_compute_svm_mirror *m)
{
	return container_of(m, struct amdgpu_compute_svm, mirror);
}

/*
 * The TLBs of the VM's PASID: an unlocked update only moves the VM's TLB
 * sequence on, which the next command submission would act on; a mirror's
 * queues submit nothing, so flush now, as amdkfd does for its ranges
 * (amdgpu_vm_flush_compute_tlb() is for amdkfd's compute VMs only).
 */
static void svm_flush(struct drm_compute_svm_mirror *m)
{
	struct amdgpu_compute_svm *svm = to_asvm(m);
	struct amdgpu_device *adev = svm->adev;
	bool all_hub = adev->family == AMDGPU_FAMILY_AI ||
		       adev->family == AMDGPU_FAMILY_RV;
	int xcc;

	for_each_inst(xcc, adev->gfx.xcc_mask)
		if (amdgpu_gmc_flush_gpu_tlb_pasid(adev, svm->vm->pasid,
						   TLB_FLUSH_HEAVYWEIGHT, all_hub, xcc))
			break;
}

/*
 * Clear the entries of [@start, @end) with an unlocked update on the VM's
 * delayed entity (behind the updates that wrote them) and wait for it:
 * usable from the MMU notifier; svm_flush() follows.
 */
static void svm_zap(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	struct amdgpu_compute_svm *svm = to_asvm(m);
	struct dma_fence *fence = NULL;
	unsigned int noreclaim = memalloc_noreclaim_save();
	int r;

	r = amdgpu_vm_update_range(svm->adev, svm->vm, false, true, true, false,
				   NULL, start >> AMDGPU_GPU_PAGE_SHIFT,
				   (end >> AMDGPU_GPU_PAGE_SHIFT) - 1,
				   svm->adev->gmc.init_pte_flags, 0, 0,
				   NULL, NULL, &fence);
	memalloc_noreclaim_restore(noreclaim);
	if (fence) {
		dma_fence_wait(fence, false);
		dma_fence_put(fence);
	}
	if (r)
		drm_err_ratelimited(adev_to_drm(svm->adev),
				    "compute SVM: clearing 0x%llx-0x%llx failed (%d)\n",
				    start, end, r);
}

/* Lock @vm's root page directory; 0 or what amdgpu_vm_lock_pd() returned. */
static int lock_root(struct drm_exec *exec, struct amdgpu_vm *vm)
{
	int r = 0;

	drm_exec_init(exec, 0, 1);
	drm_exec_until_all_locked(exec) {
		r = amdgpu_vm_lock_pd(vm, exec, 0);
		drm_exec_retry_on_contention(exec);
		if (r)
			break;
	}
	return r;
}

/*
 * The page tables of [@start, @end): a locked update with invalid entries
 * allocates what is missing. -EAGAIN: the VM is evicted, its restore
 * comes first.
 */
static int svm_prepare(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	struct amdgpu_compute_svm *svm = to_asvm(m);
	struct amdgpu_vm *vm = svm->vm;
	struct drm_exec exec;
	int r;

	drm_exec_init(&exec, 0, 1);
	drm_exec_until_all_locked(&exec) {
		r = amdgpu_vm_lock_pd(vm, &exec, 1);
		drm_exec_retry_on_contention(&exec);
		if (r)
			break;
	}
	if (!r && !amdgpu_vm_ready(vm))
		r = -EAGAIN;
	if (!r)
		r = amdgpu_vm_update_range(svm->adev, vm, false, false, false, false,
					   NULL, start >> AMDGPU_GPU_PAGE_SHIFT,
					   (end >> AMDGPU_GPU_PAGE_SHIFT) - 1,
					   0, 0, 0, NULL, NULL, NULL);
	drm_exec_fini(&exec);
	return r;
}

/*
 * Write the leaves of @range, unlocked, one update per run of system pages
 * or of contiguous VRAM, on the VM's delayed entity, and wait for them.
 * The notifier lock held, the pages valid, the tables prepared.
 */
static int svm_map(struct drm_compute_svm_mirror *m,
		   struct drm_compute_svm_range *range, u32 map_flags)
{
	struct amdgpu_compute_svm *svm = to_asvm(m);
	struct amdgpu_device *adev = svm->adev;
	struct amdgpu_vm *vm = svm->vm;
	unsigned long npages = drm_gpusvm_range_size(&range->base) >> PAGE_SHIFT;
	unsigned long pos = 0, page = 0;
	u64 first = drm_gpusvm_range_start(&range->base) >> AMDGPU_GPU_PAGE_SHIFT;
	u64 pte_sys = AMDGPU_PTE_VALID | AMDGPU_PTE_SYSTEM | AMDGPU_PTE_SNOOPED;
	/* This device's own VRAM: neither system memory nor snooped. */
	u64 pte_vram = AMDGPU_PTE_VALID;
	u32 page_flags = amdgpu_compute_svm_page_flags(map_flags);
	struct amdgpu_compute_svm_run run;
	struct dma_fence *fence = NULL;
	unsigned int noreclaim;
	int r;

	if (WARN_ON(npages > ARRAY_SIZE(svm->addrs)))
		return -EINVAL;
	if (amdgpu_ip_version(adev, GC_HWIP, 0) >= IP_VERSION(12, 0, 0)) {
		pte_sys |= AMDGPU_PTE_IS_PTE;
		pte_vram |= AMDGPU_PTE_IS_PTE;
	}
	amdgpu_gmc_get_vm_pte(adev, vm, NULL, page_flags, &pte_sys);
	amdgpu_gmc_get_vm_pte(adev, vm, NULL, page_flags, &pte_vram);
	pte_sys |= AMDGPU_PTE_READABLE;
	pte_vram |= AMDGPU_PTE_READABLE;
	if (page_flags & AMDGPU_VM_PAGE_WRITEABLE) {
		pte_sys |= AMDGPU_PTE_WRITEABLE;
		pte_vram |= AMDGPU_PTE_WRITEABLE;
	}

	noreclaim = memalloc_noreclaim_save();
	while ((r = amdgpu_compute_svm_next_run(range->pages.dma_addr, npages, &pos,
						&page, &run, svm->addrs)) > 0) {
		u64 s = first + run.first * AMDGPU_GPU_PAGES_IN_CPU_PAGE;
		u64 l = s + run.npages * AMDGPU_GPU_PAGES_IN_CPU_PAGE - 1;
		struct dma_fence *f = NULL;

		if (run.vram)
			r = amdgpu_vm_update_range(adev, vm, false, true, true, false,
						   NULL, s, l, pte_vram, run.vram_offset,
						   adev->vm_manager.vram_base_offset,
						   NULL, NULL, &f);
		else
			r = amdgpu_vm_update_range(adev, vm, false, true, true, false,
						   NULL, s, l, pte_sys,
						   (u64)run.first << PAGE_SHIFT, 0,
						   NULL, svm->addrs, &f);
		if (f) {
			dma_fence_put(fence);
			fence = f;
		}
		if (r)
			break;
	}
	memalloc_noreclaim_restore(noreclaim);
	if (fence) {
		dma_fence_wait(fence, false);
		dma_fence_put(fence);
	}
	return r;
}

/*
 * The hole around @addr between buffer mappings, inside its 2 MiB block,
 * in bytes; false when a buffer mapping covers @addr.
 */
static bool svm_bind_hole(struct drm_compute_svm_mirror *m, u64 addr,
			  u64 *start, u64 *end)
{
	struct amdgpu_compute_svm *svm = to_asvm(m);
	u64 pfn = addr >> AMDGPU_GPU_PAGE_SHIFT, p;
	u64 first = ALIGN_DOWN(addr, SZ_2M) >> AMDGPU_GPU_PAGE_SHIFT;
	u64 last = first + (SZ_2M >> AMDGPU_GPU_PAGE_SHIFT) - 1;
	struct amdgpu_bo_va_mapping *bm;
	struct drm_exec exec;
	bool ok = false;

	if (lock_root(&exec, svm->vm))
		goto out;
	if (amdgpu_vm_bo_lookup_mapping(svm->vm, pfn))
		goto out;
	/* Walk out from the address; a mapping found skips its whole extent. */
	for (p = pfn; p > first; p--) {
		bm = amdgpu_vm_bo_lookup_mapping(svm->vm, p - 1);
		if (bm) {
			first = bm->last + 1;
			break;
		}
	}
	for (p = pfn; p < last; p++) {
		bm = amdgpu_vm_bo_lookup_mapping(svm->vm, p + 1);
		if (bm) {
			last = bm->start - 1;
			break;
		}
	}
	*start = first << AMDGPU_GPU_PAGE_SHIFT;
	*end = (last + 1) << AMDGPU_GPU_PAGE_SHIFT;
	ok = true;
out:
	drm_exec_fini(&exec);
	return ok;
}

/* The device's VRAM as a pagemap; the mirror keeps the reference. */
static struct drm_pagemap *svm_pagemap_get(struct drm_compute_svm_mirror *m)
{
	return amdgpu_compute_pagemap_get(to_asvm(m)->adev);
}

static const struct drm_compute_svm_mirror_ops amdgpu_mirror_ops = {
	.prepare = svm_prepare,
	.map = svm_map,
	.zap = svm_zap,
	.flush = svm_flush,
	.bind_hole = svm_bind_hole,
	.pagemap_get = svm_pagemap_get,
};

/* Tear the mirror down and forget the file's VM. SVM lock held. */
static void svm_detach(struct amdgpu_compute_svm *svm)
{
	struct amdgpu_vm *vm = svm->vm;
	struct drm_exec exec;

	lockdep_assert_held(&svm->cvm->svm.lock);
	if (!vm)
		return;
	drm_compute_svm_mirror_detach(&svm->mirror);	/* no notifier afterwards */
	/* Last: amdgpu_compute_svm_detach() waits for this. */
	lock_root(&exec, vm);
	WRITE_ONCE(vm->compute_svm, NULL);
	drm_exec_fini(&exec);
	svm->vm = NULL;
}

/**
 * amdgpu_compute_svm_init - set up the mirror of an SVM compute VM
 * @adev: the device
 * @cvm: the compute VM (its SVM lock and store are set up)
 * @vm: the file's amdgpu VM
 * @out: set to the mirror
 *
 * Returns: 0; -EBUSY when an earlier compute VM of the file still
 * mirrors into @vm (one at a time); what the mirror's init or the
 * reservation returned.
 */
int amdgpu_compute_svm_init(struct amdgpu_device *adev, struct drm_compute_vm *cvm,
			    struct amdgpu_vm *vm, struct amdgpu_compute_svm **out)
{
	struct amdgpu_compute_svm *svm;
	struct drm_exec exec;
	int r;

	svm = kzalloc_obj(*svm);
	if (!svm)
		return -ENOMEM;
	svm->cvm = cvm;
	svm->adev = adev;
	svm->vm = vm;
	r = drm_compute_svm_mirror_init(&svm->mirror, cvm, &amdgpu_mirror_ops,
					"amdgpu-compute", adev_to_drm(adev),
					amdgpu_compute_pagemap_owner(adev), NULL,
					AMDGPU_COMPUTE_SVM_TRIES);
	if (r)
		goto err_free;

	r = lock_root(&exec, vm);
	if (!r) {
		if (vm->compute_svm)
			r = -EBUSY;
		else
			WRITE_ONCE(vm->compute_svm, svm);
	}
	drm_exec_fini(&exec);
	if (r)
		goto err_mirror;
	*out = svm;
	return 0;

err_mirror:
	drm_compute_svm_mirror_fini(&svm->mirror);
err_free:
	kfree(svm);
	return r;
}

/**
 * amdgpu_compute_svm_fini - the SVM compute VM's last reference is gone
 * @svm: its mirror, freed here
 */
void amdgpu_compute_svm_fini(struct amdgpu_compute_svm *svm)
{
	struct drm_compute_vm *cvm = svm->cvm;

	mutex_lock(&cvm->svm.lock);
	svm_detach(svm);
	mutex_unlock(&cvm->svm.lock);
	drm_compute_svm_mirror_fini(&svm->mirror);
	kfree(svm);
}

/**
 * amdgpu_compute_svm_detach - the file's VM is going away
 * @vm: the file's VM, before amdgpu_vm_fini()
 *
 * Tears down the mirror of the compute VM that mirrors into @vm, if any
 * (that compute VM may outlive the file: a queue's reference), or waits
 * for the teardown of one whose last reference is being dropped. Once it
 * returns, nothing of the mirror touches @vm.
 */
void amdgpu_compute_svm_detach(struct amdgpu_vm *vm)
{
	struct amdgpu_compute_svm *svm;
	struct drm_compute_vm *cvm;
	struct drm_exec exec;
	bool got;

	for (;;) {
		lock_root(&exec, vm);
		svm = vm->compute_svm;
		got = svm && kref_get_unless_zero(&svm->cvm->ref);
		drm_exec_fini(&exec);
		if (!svm)
			return;
		if (got)
			break;
		/* Its svm_vm_fini is under way, and clears the pointer last. */
		usleep_range(1000, 2000);
	}
	cvm = svm->cvm;
	mutex_lock(&cvm->svm.lock);
	svm_detach(svm);
	mutex_unlock(&cvm->svm.lock);
	drm_compute_vm_put(cvm);
}

/**
 * amdgpu_compute_svm_get - the mirror of @vm, for its fault handler
 * @vm: the VM a fault names, its root page directory reserved
 *
 * Returns: the mirror, with a reference to its compute VM to drop with
 * amdgpu_compute_svm_put(); NULL when no compute VM mirrors into @vm (or
 * the one that does is being torn down).
 */
struct amdgpu_compute_svm *amdgpu_compute_svm_get(struct amdgpu_vm *vm)
{
	struct amdgpu_compute_svm *svm;

	dma_resv_assert_held(vm->root.bo->tbo.base.resv);
	svm = vm->compute_svm;
	if (svm && !kref_get_unless_zero(&svm->cvm->ref))
		svm = NULL;
	return svm;
}

/**
 * amdgpu_compute_svm_put - drop amdgpu_compute_svm_get()'s reference
 * @svm: the mirror; it may be gone afterwards
 */
void amdgpu_compute_svm_put(struct amdgpu_compute_svm *svm)
{
	drm_compute_vm_put(svm->cvm);
}

/**
 * amdgpu_compute_svm_fault - service a retry fault of an SVM compute VM
 * @svm: the mirror (amdgpu_compute_svm_get())
 * @addr: the faulting GPU address, bytes
 * @write: a write fault
 *
 * Context: process context (the interrupt handler's worker), no
 * reservation held. Takes the SVM lock, the mmap lock and the root page
 * directory's reservation.
 *
 * Returns: 0 when the entries are written or a buffer mapping covers
 * @addr (the hardware retries); the DRM_COMPUTE_FAULT_* the helper's
 * policy raised; -ENODEV once detached.
 */
int amdgpu_compute_svm_fault(struct amdgpu_compute_svm *svm, u64 addr, bool write)
{
	struct drm_compute_vm_svm *csvm = &svm->cvm->svm;
	int r = -ENODEV;

	mutex_lock(&csvm->lock);
	if (svm->vm)
		r = drm_compute_svm_mirror_fault(&svm->mirror, addr, write);
	mutex_unlock(&csvm->lock);
	return r;
}

/**
 * amdgpu_compute_svm_attr_set - act on attributes userspace set
 * @svm: the mirror
 * @start: first address
 * @size: bytes
 * @attrs: the attributes set (already in the store)
 * @nattr: entries in @attrs
 *
 * Context: the SVM lock held.
 */
void amdgpu_compute_svm_attr_set(struct amdgpu_compute_svm *svm, u64 start, u64 size,
				 const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	drm_compute_svm_mirror_attr_set(&svm->mirror, start, size, attrs, nattr);
}

/**
 * amdgpu_compute_svm_sync - catch up with the CPU mappings
 * @svm: the mirror
 *
 * Context: the SVM lock held, before an SVM operation.
 */
void amdgpu_compute_svm_sync(struct amdgpu_compute_svm *svm)
{
	drm_compute_svm_mirror_sync(&svm->mirror);
}

/**
 * amdgpu_compute_svm_bind_prepare - make room for a buffer mapping
 * @svm: the mirror
 * @va: first address of a MAP
 * @range: its bytes
 *
 * Context: the SVM lock held, across the bind that follows.
 */
void amdgpu_compute_svm_bind_prepare(struct amdgpu_compute_svm *svm, u64 va, u64 range)
{
	drm_compute_svm_mirror_bind_prepare(&svm->mirror, va, range);
}

/**
 * amdgpu_compute_svm_supported - whether the device can mirror
 * @adev: the device
 *
 * drm_gpusvm needs recoverable faults: retry faults enabled
 * (amdgpu.noretry=0) on a GMC that delivers them (GC 9.4.2 and newer, as
 * amdkfd's XNACK mode).
 *
 * Returns: true when it can.
 */
bool amdgpu_compute_svm_supported(struct amdgpu_device *adev)
{
	return !adev->gmc.noretry &&
	       amdgpu_ip_version(adev, GC_HWIP, 0) >= IP_VERSION(9, 4, 2);
}
