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
 * helper owns the uapi and the attributes (drm_compute_svm.c); this file
 * is the mirror: one &struct drm_gpusvm per compute VM over the file's
 * &struct amdgpu_vm, which names it in &amdgpu_vm.compute_svm.
 *
 * GPU faults. A retry fault of the VM (amdgpu_vm_handle_fault(), from the
 * interrupt handler's worker) comes here instead of going to amdkfd:
 * amdgpu_compute_svm_fault() reads the attributes (NO_ACCESS, GPU_RO,
 * GPU_EXEC, coherence), finds or makes the drm_gpusvm range around the
 * address (inside one CPU mapping, one attribute piece and the hole
 * between buffer mappings), gets its pages with HMM, then writes the page
 * tables in two steps: a locked amdgpu_vm_update_range() with invalid
 * entries makes sure the page tables exist (it allocates), and under
 * drm_gpusvm's notifier lock, with drm_gpusvm_pages_valid() checked, an
 * unlocked update of the leaves writes the entries (no page-table
 * allocation, and reclaim kept out with memalloc_noreclaim_save(), as
 * amdkfd does under its range lock; see Page tables below). A fault that cannot be serviced
 * (NO_ACCESS, no CPU mapping, a write to read-only memory) returns an
 * error, and amdgpu_vm_handle_fault() then writes no-retry entries so that
 * the queue takes a VM fault.
 *
 * Device memory. A range's pages may be in this device's VRAM, as
 * device-private pages of its pagemap (amdgpu_compute_pagemap.c, DOC:
 * amdgpu compute SVM device memory): HMM hands them over as such (the
 * mirror's owner is the pagemap's), and the entries then hold VRAM
 * addresses. A prefetch to the device, or a fault on a range whose
 * preferred location is the device (and which is not used in place),
 * migrates its private anonymous memory there through the DRM-common walk
 * (drm_compute_svm_migrate_to_devmem()); a prefetch to system memory
 * brings it back (drm_compute_svm_migrate_to_ram()), and so does a CPU
 * access (drm_pagemap's migrate_to_ram).
 *
 * Page tables. Every update of the mirror's entries goes through the VM's
 * delayed entity, in order, and is waited for: a locked update with
 * invalid entries first (it allocates the tables), then, under drm_gpusvm's
 * notifier lock with the pages checked, an unlocked update of the leaves,
 * one per run of system pages or of contiguous VRAM.
 *
 * Invalidation. drm_gpusvm's notifier, with its notifier lock held for
 * writing, clears the entries of the ranges touched with an unlocked
 * update, waits for it, flushes the TLBs of the VM's PASID (an unlocked
 * update only moves the VM's TLB sequence on), and drops the DMA mappings;
 * an unmap also queues the range for removal under the SVM lock (a work
 * item, and the head of every fault, bind and SVM operation). This is
 * amdkfd's XNACK-on model: queues keep running and refault.
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
 * the walk over a range's device addresses (KUnit). It needs retry faults
 * (amdgpu.noretry=0, GC 9.4.2 and newer): without them the device reports
 * no SVM.
 */

#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
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
	/** @gpusvm: the ranges, their notifiers and pages. */
	struct drm_gpusvm gpusvm;
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
	/** @gc_lock: protects @gc_list; taken in the MMU notifier. */
	spinlock_t gc_lock;
	/** @gc_list: ranges the CPU unmapped, to be removed. */
	struct list_head gc_list;
	/** @gc_work: removes them under the SVM lock. */
	struct work_struct gc_work;
	/**
	 * @dpagemap: the device's pagemap, a reference, from this mirror's
	 * first migration until it is detached; under the SVM lock.
	 */
	struct drm_pagemap *dpagemap;
};

/**
 * struct amdgpu_compute_range - a drm_gpusvm range of amdgpu's mirror
 */
struct amdgpu_compute_range {
	/** @base: the range. */
	struct drm_gpusvm_range base;
	/** @pages: its pages and DMA addresses. */
	struct drm_gpusvm_pages pages;
	/** @gc_link: in &amdgpu_compute_svm.gc_list. */
	struct list_head gc_link;
	/** @mapped: entries written; under the gpusvm notifier lock. */
	bool mapped;
	/** @read_only: mapped without write permission. */
	bool read_only;
};

static struct amdgpu_compute_range *to_arange(struct drm_gpusvm_range *r)
{
	return container_of(r, struct amdgpu_compute_range, base);
}

static struct amdgpu_compute_svm *to_asvm(struct drm_gpusvm *g)
{
	return container_of(g, struct amdgpu_compute_svm, gpusvm);
}

static unsigned long range_npages(struct drm_gpusvm_range *r)
{
	return drm_gpusvm_range_size(r) >> PAGE_SHIFT;
}

static struct drm_gpusvm_range *amdgpu_svm_range_alloc(struct drm_gpusvm *g)
{
	struct amdgpu_compute_range *ar = kzalloc_obj(*ar);

	if (!ar)
		return NULL;
	drm_gpusvm_init_pages(&ar->pages, adev_to_drm(to_asvm(g)->adev));
	INIT_LIST_HEAD(&ar->gc_link);
	return &ar->base;
}

static void amdgpu_svm_range_free(struct drm_gpusvm_range *r)
{
	struct amdgpu_compute_range *ar = to_arange(r);
	struct amdgpu_compute_svm *svm = to_asvm(r->gpusvm);

	spin_lock(&svm->gc_lock);
	list_del_init(&ar->gc_link);
	spin_unlock(&svm->gc_lock);
	drm_gpusvm_free_pages(r->gpusvm, &ar->pages, range_npages(r));
	kfree(ar);
}

/*
 * The TLBs of the VM's PASID: an unlocked update only moves the VM's TLB
 * sequence on, which the next command submission would act on; a mirror's
 * queues submit nothing, so flush now, as amdkfd does for its ranges
 * (amdgpu_vm_flush_compute_tlb() is for amdkfd's compute VMs only).
 */
static void svm_flush_tlb(struct amdgpu_compute_svm *svm)
{
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
 * delayed entity (behind the updates that wrote them), wait for it and
 * flush the TLBs: usable from the MMU notifier, and once it returns the
 * GPU no longer reaches the pages.
 */
static void svm_clear(struct amdgpu_compute_svm *svm, u64 start, u64 end)
{
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
	svm_flush_tlb(svm);
	if (r)
		drm_err_ratelimited(adev_to_drm(svm->adev),
				    "compute SVM: clearing 0x%llx-0x%llx failed (%d)\n",
				    start, end, r);
}

static void amdgpu_svm_invalidate(struct drm_gpusvm *g,
				  struct drm_gpusvm_notifier *notifier,
				  const struct mmu_notifier_range *mmu)
{
	struct amdgpu_compute_svm *svm = to_asvm(g);
	const struct drm_gpusvm_ctx ctx = { .in_notifier = true };
	unsigned long start = max(mmu->start, drm_gpusvm_notifier_start(notifier));
	unsigned long end = min(mmu->end, drm_gpusvm_notifier_end(notifier));
	struct drm_gpusvm_range *r = NULL;
	bool queue = false;

	drm_gpusvm_for_each_range(r, notifier, start, end) {
		struct amdgpu_compute_range *ar = to_arange(r);

		if (ar->mapped) {
			svm_clear(svm, drm_gpusvm_range_start(r), drm_gpusvm_range_end(r));
			ar->mapped = false;
		}
		drm_gpusvm_unmap_pages(g, &ar->pages, range_npages(r), &ctx);
		if (mmu->event != MMU_NOTIFY_UNMAP)
			continue;
		drm_gpusvm_range_set_unmapped(r, &ar->pages, 1, mmu);
		spin_lock(&svm->gc_lock);
		if (list_empty(&ar->gc_link))
			list_add_tail(&ar->gc_link, &svm->gc_list);
		spin_unlock(&svm->gc_lock);
		queue = true;
	}
	if (queue)
		queue_work(system_dfl_wq, &svm->gc_work);
}

static const struct drm_gpusvm_ops amdgpu_svm_ops = {
	.range_alloc = amdgpu_svm_range_alloc,
	.range_free = amdgpu_svm_range_free,
	.invalidate = amdgpu_svm_invalidate,
};

static const unsigned long amdgpu_svm_chunks[] = { SZ_2M, SZ_64K, SZ_4K };

/* Remove @r: entries, DMA mappings, the range. SVM lock held, attached. */
static void range_remove(struct amdgpu_compute_svm *svm, struct drm_gpusvm_range *r)
{
	struct amdgpu_compute_range *ar = to_arange(r);
	const struct drm_gpusvm_ctx ctx = {};

	drm_gpusvm_notifier_lock(&svm->gpusvm);
	if (ar->mapped) {
		svm_clear(svm, drm_gpusvm_range_start(r), drm_gpusvm_range_end(r));
		ar->mapped = false;
	}
	drm_gpusvm_notifier_unlock(&svm->gpusvm);
	drm_gpusvm_unmap_pages(&svm->gpusvm, &ar->pages, range_npages(r), &ctx);
	drm_gpusvm_range_remove(&svm->gpusvm, r);
}

/* Remove every range overlapping [@start, @end). SVM lock held, attached. */
static void ranges_remove(struct amdgpu_compute_svm *svm, u64 start, u64 end)
{
	struct drm_gpusvm_notifier *n, *next_n;

	drm_gpusvm_for_each_notifier_safe(n, next_n, &svm->gpusvm, start, end) {
		struct drm_gpusvm_range *r, *next;

		drm_gpusvm_for_each_range_safe(r, next, n, start, end)
			range_remove(svm, r);
	}
}

/* Ranges the CPU unmapped, and the attributes of unmapped memory. */
static void svm_gc(struct amdgpu_compute_svm *svm)
{
	struct amdgpu_compute_range *ar;

	lockdep_assert_held(&svm->cvm->svm.lock);
	for (;;) {
		spin_lock(&svm->gc_lock);
		ar = list_first_entry_or_null(&svm->gc_list,
					      struct amdgpu_compute_range, gc_link);
		if (ar)
			list_del_init(&ar->gc_link);
		spin_unlock(&svm->gc_lock);
		if (!ar)
			break;
		range_remove(svm, &ar->base);
	}
	drm_compute_svm_collect(svm->cvm);
}

static void svm_gc_work(struct work_struct *work)
{
	struct amdgpu_compute_svm *svm = container_of(work, struct amdgpu_compute_svm,
						      gc_work);

	mutex_lock(&svm->cvm->svm.lock);
	if (svm->vm)
		svm_gc(svm);
	mutex_unlock(&svm->cvm->svm.lock);
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

/* Tear the mirror down and forget the file's VM. SVM lock held. */
static void svm_detach(struct amdgpu_compute_svm *svm)
{
	struct amdgpu_vm *vm = svm->vm;
	struct drm_exec exec;

	lockdep_assert_held(&svm->cvm->svm.lock);
	if (!vm)
		return;
	ranges_remove(svm, 0, ULONG_MAX);
	drm_gpusvm_fini(&svm->gpusvm);	/* no notifier runs afterwards */
	/* Migrated pages hold references of their own. */
	if (svm->dpagemap)
		drm_pagemap_put(svm->dpagemap);
	svm->dpagemap = NULL;
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
 * mirrors into @vm (one at a time); what drm_gpusvm_init() or the
 * reservation returned.
 */
int amdgpu_compute_svm_init(struct amdgpu_device *adev, struct drm_compute_vm *cvm,
			    struct amdgpu_vm *vm, struct amdgpu_compute_svm **out)
{
	const struct drm_compute_dev_info *info = &cvm->cdev->info;
	struct amdgpu_compute_svm *svm;
	struct drm_exec exec;
	int r;

	svm = kzalloc_obj(*svm);
	if (!svm)
		return -ENOMEM;
	svm->cvm = cvm;
	svm->adev = adev;
	svm->vm = vm;
	spin_lock_init(&svm->gc_lock);
	INIT_LIST_HEAD(&svm->gc_list);
	INIT_WORK(&svm->gc_work, svm_gc_work);
	r = drm_gpusvm_init(&svm->gpusvm, "amdgpu-compute", cvm->svm.mm,
			    info->va_start, info->va_end - info->va_start, SZ_512M,
			    &amdgpu_svm_ops, amdgpu_svm_chunks,
			    ARRAY_SIZE(amdgpu_svm_chunks));
	if (r)
		goto err_free;
	drm_gpusvm_driver_set_lock(&svm->gpusvm, &cvm->svm.lock);

	r = lock_root(&exec, vm);
	if (!r) {
		if (vm->compute_svm)
			r = -EBUSY;
		else
			WRITE_ONCE(vm->compute_svm, svm);
	}
	drm_exec_fini(&exec);
	if (r)
		goto err_gpusvm;
	*out = svm;
	return 0;

err_gpusvm:
	mutex_lock(&cvm->svm.lock);
	drm_gpusvm_fini(&svm->gpusvm);
	mutex_unlock(&cvm->svm.lock);
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

	disable_work_sync(&svm->gc_work);
	mutex_lock(&cvm->svm.lock);
	svm_detach(svm);
	mutex_unlock(&cvm->svm.lock);
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

/*
 * The hole around @addr between buffer mappings, inside its 2 MiB block,
 * in bytes; false when a buffer mapping covers @addr.
 */
static bool svm_hole(struct amdgpu_compute_svm *svm, u64 addr, u64 *start, u64 *end)
{
	u64 pfn = addr >> AMDGPU_GPU_PAGE_SHIFT, p;
	u64 first = ALIGN_DOWN(addr, SZ_2M) >> AMDGPU_GPU_PAGE_SHIFT;
	u64 last = first + (SZ_2M >> AMDGPU_GPU_PAGE_SHIFT) - 1;
	struct amdgpu_bo_va_mapping *m;
	struct drm_exec exec;
	bool ok = true;
	int r = 0;

	r = lock_root(&exec, svm->vm);
	if (r) {
		ok = false;
		goto out;
	}
	if (amdgpu_vm_bo_lookup_mapping(svm->vm, pfn)) {
		ok = false;
		goto out;
	}
	/* Walk out from the address; a mapping found skips its whole extent. */
	for (p = pfn; p > first; p--) {
		m = amdgpu_vm_bo_lookup_mapping(svm->vm, p - 1);
		if (m) {
			first = m->last + 1;
			break;
		}
	}
	for (p = pfn; p < last; p++) {
		m = amdgpu_vm_bo_lookup_mapping(svm->vm, p + 1);
		if (m) {
			last = m->start - 1;
			break;
		}
	}
	*start = first << AMDGPU_GPU_PAGE_SHIFT;
	*end = (last + 1) << AMDGPU_GPU_PAGE_SHIFT;
out:
	drm_exec_fini(&exec);
	return ok;
}

/*
 * Write the entries of @ar: page tables first (a locked update may
 * allocate them; it writes invalid entries), then the leaves, unlocked,
 * under the notifier lock with the pages checked, one update per run of
 * system pages or of contiguous VRAM; all on the VM's delayed entity, and
 * waited for. -EAGAIN: invalidated meanwhile, get the pages again.
 */
static int svm_map(struct amdgpu_compute_svm *svm, struct amdgpu_compute_range *ar,
		   u32 page_flags)
{
	struct amdgpu_device *adev = svm->adev;
	struct amdgpu_vm *vm = svm->vm;
	unsigned long npages = range_npages(&ar->base), pos = 0, page = 0;
	u64 first = drm_gpusvm_range_start(&ar->base) >> AMDGPU_GPU_PAGE_SHIFT;
	u64 last = (drm_gpusvm_range_end(&ar->base) >> AMDGPU_GPU_PAGE_SHIFT) - 1;
	u64 pte_sys = AMDGPU_PTE_VALID | AMDGPU_PTE_SYSTEM | AMDGPU_PTE_SNOOPED;
	/* This device's own VRAM: neither system memory nor snooped. */
	u64 pte_vram = AMDGPU_PTE_VALID;
	struct amdgpu_compute_svm_run run;
	struct dma_fence *fence = NULL;
	unsigned int noreclaim;
	struct drm_exec exec;
	dma_addr_t *addrs;
	int r;

	/* System runs: one DMA address per CPU page, as amdgpu_vm_update_range() reads them. */
	addrs = kvmalloc_array(npages, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;

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

	drm_exec_init(&exec, 0, 1);
	drm_exec_until_all_locked(&exec) {
		r = amdgpu_vm_lock_pd(vm, &exec, 1);
		drm_exec_retry_on_contention(&exec);
		if (r)
			break;
	}
	if (!r && !amdgpu_vm_ready(vm))
		r = -EAGAIN;	/* evicted: the restore comes first */
	if (!r)
		r = amdgpu_vm_update_range(adev, vm, false, false, false, false, NULL,
					   first, last, 0, 0, 0, NULL, NULL, NULL);
	drm_exec_fini(&exec);
	if (r)
		goto out;

	drm_gpusvm_notifier_lock(&svm->gpusvm);
	if (!drm_gpusvm_pages_valid(&svm->gpusvm, &ar->pages)) {
		r = -EAGAIN;
	} else {
		noreclaim = memalloc_noreclaim_save();
		while ((r = amdgpu_compute_svm_next_run(ar->pages.dma_addr, npages, &pos,
							&page, &run, addrs)) > 0) {
			u64 s = first + run.first * AMDGPU_GPU_PAGES_IN_CPU_PAGE;
			u64 l = s + run.npages * AMDGPU_GPU_PAGES_IN_CPU_PAGE - 1;
			struct dma_fence *f = NULL;

			if (run.vram)
				r = amdgpu_vm_update_range(adev, vm, false, true, true, false,
							   NULL, s, l, pte_vram,
							   run.vram_offset,
							   adev->vm_manager.vram_base_offset,
							   NULL, NULL, &f);
			else
				r = amdgpu_vm_update_range(adev, vm, false, true, true, false,
							   NULL, s, l, pte_sys,
							   (u64)run.first << PAGE_SHIFT, 0,
							   NULL, addrs, &f);
			if (f) {
				dma_fence_put(fence);
				fence = f;
			}
			if (r)
				break;
		}
		memalloc_noreclaim_restore(noreclaim);
		if (!r) {
			ar->mapped = true;
			ar->read_only = !(page_flags & AMDGPU_VM_PAGE_WRITEABLE);
		}
	}
	drm_gpusvm_notifier_unlock(&svm->gpusvm);
	if (fence) {
		dma_fence_wait(fence, false);
		dma_fence_put(fence);
	}
out:
	kvfree(addrs);
	return r;
}

/* The device's pagemap, made on first use and kept; SVM lock held. */
static struct drm_pagemap *svm_dpagemap(struct amdgpu_compute_svm *svm)
{
	struct drm_pagemap *dp;

	lockdep_assert_held(&svm->cvm->svm.lock);
	if (!svm->dpagemap) {
		dp = amdgpu_compute_pagemap_get(svm->adev);
		if (IS_ERR(dp))
			return dp;
		svm->dpagemap = dp;
	}
	return svm->dpagemap;
}

/* Migrate [@start, @end) to VRAM, best effort. SVM lock held. */
static void svm_migrate_to_vram(struct amdgpu_compute_svm *svm, u64 start, u64 end)
{
	struct drm_pagemap *dp = svm_dpagemap(svm);

	if (!IS_ERR(dp))
		drm_compute_svm_migrate_to_devmem(svm->cvm, dp, start, end);
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
 * Returns: 0 when the entries are written (the hardware retries), or a
 * negative errno: -EACCES (NO_ACCESS), -EPERM (a write to read-only
 * memory), -EFAULT (no CPU mapping HMM can mirror), -EEXIST (a buffer
 * mapping covers @addr), -EBUSY (the range kept moving), -ENODEV
 * (detached).
 */
int amdgpu_compute_svm_fault(struct amdgpu_compute_svm *svm, u64 addr, bool write)
{
	struct drm_compute_vm *cvm = svm->cvm;
	struct drm_compute_vm_svm *csvm = &cvm->svm;
	struct drm_gpusvm *g = &svm->gpusvm;
	const struct drm_compute_svm_attrs *attrs;
	struct drm_gpusvm_ctx ctx = {
		/* This device's VRAM pages are mapped where they are. */
		.device_private_page_owner = amdgpu_compute_pagemap_owner(svm->adev),
		/* A range may be partly in VRAM (a CPU fault took a chunk back). */
		.allow_mixed = true,
	};
	struct amdgpu_compute_range *ar;
	struct drm_gpusvm_range *r;
	u64 hs = 0, he = 0, as = 0, asz = 0;
	unsigned int tries = 0;
	bool migrate;
	u32 aflags;
	int err;

	mutex_lock(&csvm->lock);
	if (!svm->vm) {
		err = -ENODEV;
		goto out;
	}
	svm_gc(svm);
	attrs = drm_compute_svm_attr_lookup(&csvm->attrs, addr, &as, &asz);
	if (!attrs || drm_compute_svm_attrs_access(&csvm->attrs, attrs, cvm->cdev->id) ==
		      DRM_COMPUTE_SVM_MODE_NO_ACCESS) {
		err = -EACCES;
		goto out;
	}
	aflags = attrs->flags;	/* @attrs dies with the next store change */
	/* Preferred here, and not to be used in place: move on fault. */
	migrate = attrs->preferred_loc == cvm->cdev->id &&
		  drm_compute_svm_attrs_access(&csvm->attrs, attrs, cvm->cdev->id) !=
		  DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE;
	ctx.read_only = !!(aflags & DRM_COMPUTE_SVM_FLAG_GPU_RO);
	if (ctx.read_only && write) {
		err = -EPERM;
		goto out;
	}
	if (!svm_hole(svm, addr, &hs, &he)) {
		err = -EEXIST;
		goto out;
	}
	hs = max(hs, as);
	he = min(he, as + asz);

retry:
	if (tries++ >= AMDGPU_COMPUTE_SVM_TRIES) {
		err = -EBUSY;
		goto out;
	}
	r = drm_gpusvm_range_find_or_insert(g, addr, hs, he, &ctx);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		/* A read-only CPU mapping: mirror it read-only for reads. */
		if (err == -EPERM && !write && !ctx.read_only) {
			ctx.read_only = true;
			goto retry;
		}
		goto out;
	}
	ar = to_arange(r);
	if (ar->read_only && !ctx.read_only) {
		range_remove(svm, r);	/* writable wanted now */
		goto retry;
	}
	if (migrate) {
		migrate = false;	/* once per fault */
		svm_migrate_to_vram(svm, drm_gpusvm_range_start(r), drm_gpusvm_range_end(r));
	}
	err = drm_gpusvm_get_pages(g, &ar->pages, g->mm, &r->notifier->notifier,
				   drm_gpusvm_range_start(r), drm_gpusvm_range_end(r),
				   &ctx);
	if (err == -EBUSY || err == -EAGAIN) {
		svm_gc(svm);
		goto retry;
	}
	if (err)
		goto out;
	err = svm_map(svm, ar, amdgpu_compute_svm_page_flags(ctx.read_only ?
							     aflags | DRM_COMPUTE_SVM_FLAG_GPU_RO :
							     aflags));
	if (err == -EAGAIN)
		goto retry;
out:
	mutex_unlock(&csvm->lock);
	return err;
}

/**
 * amdgpu_compute_svm_attr_set - act on attributes userspace set
 * @svm: the mirror
 * @start: first address
 * @size: bytes
 * @attrs: the attributes set (already in the store)
 * @nattr: entries in @attrs
 *
 * Removes the ranges of the interval, so that the next fault maps them
 * with the new rules, then carries out a prefetch: to this device's VRAM,
 * or back to system memory (the helper accepts no other device).
 *
 * Context: the SVM lock held.
 */
void amdgpu_compute_svm_attr_set(struct amdgpu_compute_svm *svm, u64 start, u64 size,
				 const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	u32 i;

	if (!svm->vm)
		return;
	ranges_remove(svm, start, start + size);
	for (i = 0; i < nattr; i++) {
		if (attrs[i].type != DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC)
			continue;
		if (attrs[i].value == svm->cvm->cdev->id)
			svm_migrate_to_vram(svm, start, start + size);
		else if (attrs[i].value == DRM_COMPUTE_SVM_LOCATION_SYSMEM)
			drm_compute_svm_migrate_to_ram(svm->cvm, start, start + size,
						       AMDGPU_COMPUTE_SVM_TRIES);
	}
}

/**
 * amdgpu_compute_svm_sync - remove the ranges the CPU unmapped
 * @svm: the mirror
 *
 * Context: the SVM lock held, before an SVM operation.
 */
void amdgpu_compute_svm_sync(struct amdgpu_compute_svm *svm)
{
	if (svm->vm)
		svm_gc(svm);
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
	if (!svm->vm)
		return;
	svm_gc(svm);
	ranges_remove(svm, va, va + range);
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
