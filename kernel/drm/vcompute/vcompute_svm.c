// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: Shared virtual memory
 *
 * A VM created with %DRM_COMPUTE_VM_CREATE_SVM mirrors its creator's
 * address space: every address of the device's VA range that no VM_BIND
 * mapping covers is the process's memory at the same address. The mirror
 * is the helper's (drm_compute_svm_mirror.c, DOC: SVM mirror): its ranges,
 * garbage collector, migration and fault policy are those of every
 * driver. This file gives it vcompute's page tables.
 *
 * The emulated page tables start empty there; the engine's first access
 * to such an address misses, drops &vcompute_vm.pt_lock and calls
 * vcompute_svm_fault(), which has the mirror service the fault. The mirror
 * calls back to write the entries (svm_map(): vcompute's device is
 * dma-direct, so a DMA address is a physical one; pages already in this
 * device's memory are mapped where they are, by their device-private page
 * frame, and the engine reaches their data through the backing page,
 * vcompute_pagemap.c), and to clear them (svm_zap(), under pt_lock for
 * writing: the engine holds pt_lock for reading across every access that
 * uses an entry, so once down_write() returns no access can use the old
 * pages; that is vcompute's TLB invalidation, done synchronously, and
 * there is no separate flush).
 *
 * What the policy's plan means here: %DRM_COMPUTE_SVM_MAP_WRITE and
 * %DRM_COMPUTE_SVM_MAP_EXEC are the entries' write and execute bits
 * (KFD's rules: without exec, packets cannot be fetched from the range); a
 * %DRM_COMPUTE_SVM_MAP_COPY entry carries %VCOMPUTE_PTE_RO_COPY, so that a
 * write of the engine is a miss (not a permission fault) that the fault
 * service answers with a writable mapping; %DRM_COMPUTE_SVM_MAP_COHERENT
 * holds by construction, since the engine reaches every page through the
 * kernel's cached mapping, as the CPU does, atomics included.
 *
 * Flags honoured (%VCOMPUTE_SVM_FLAGS, reported by the DEVICE query): all
 * but HIVE_LOCAL, which is refused with -EOPNOTSUPP: the device has no
 * hive. HOST_ACCESS, COHERENT and EXT_COHERENT hold by construction
 * (device memory is device-private: one copy, which a CPU access brings
 * back); GPU_READ_MOSTLY's read-only copy of system memory is the CPU's
 * own pages, which the engine reads at the CPU's speed, so the data
 * settles where both sides read it; GPU_ALWAYS_MAPPED ranges are mapped
 * at SET_ATTR and again after each invalidation but an unmap (counted in
 * ``mapped_ahead`` of debugfs ``vcompute_svm``, not as faults).
 *
 * Bounds. A fault starts over at most ``svm_fault_retries`` times (the
 * mirror's &drm_compute_svm_mirror.retries) before the queue faults with
 * %DRM_COMPUTE_FAULT_SVM_BUSY, since the engine thread runs every queue of
 * the device.
 *
 * Locking, outermost first:
 * &drm_compute_userq.ctl_lock, &vcompute_engine.lock,
 * &drm_compute_vm_svm.lock (the SVM lock: drm_gpusvm's driver lock, the
 * attribute store's lock, binds of an SVM VM), the mmap lock (taken inside
 * drm_gpusvm and HMM), &vcompute_vm.pt_alloc_lock, the gpusvm notifier
 * lock, &vcompute_vm.pt_lock. An MMU notifier enters at the notifier lock
 * (drm_gpusvm) and takes only pt_lock and the mirror's spinlock (the
 * helper's watcher takes its own spinlock): never the engine lock, the
 * SVM lock or anything held across an allocation or the mmap lock, since
 * it runs under the mmap lock and from reclaim.
 */

#include <linux/dma-direct.h>
#include <linux/moduleparam.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm_mirror.h>
#include <drm/drm_gpusvm.h>
#include <drm/drm_pagemap.h>

#include "vcompute_drv.h"

static unsigned int svm_fault_retries = 4;
module_param(svm_fault_retries, uint, 0644);
MODULE_PARM_DESC(svm_fault_retries,
		 "Attempts to service one SVM fault before the queue faults with SVM_BUSY, read when an SVM VM is created (default 4)");

static struct vcompute_vm *mirror_to_vm(struct drm_compute_svm_mirror *m)
{
	return container_of(m, struct vcompute_vm, svm.mirror);
}

/* &drm_compute_svm_mirror_ops.prepare: the tables, allocated outside pt_lock. */
static int svm_prepare(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	return vcompute_vm_pt_prepare(mirror_to_vm(m), start, end - start);
}

/*
 * &drm_compute_svm_mirror_ops.map: the entries of @range from its DMA
 * addresses, under pt_lock for writing (the notifier lock held).
 */
static int svm_map(struct drm_compute_svm_mirror *m,
		   struct drm_compute_svm_range *range, u32 map_flags)
{
	struct vcompute_vm *vm = mirror_to_vm(m);
	struct device *dev = vm->gpuvm.drm->dev;
	unsigned long i, j, k, npages = drm_gpusvm_range_size(&range->base) >> PAGE_SHIFT;
	u64 va = drm_gpusvm_range_start(&range->base);
	u64 bits = VCOMPUTE_PTE_VALID;

	if (map_flags & DRM_COMPUTE_SVM_MAP_WRITE)
		bits |= VCOMPUTE_PTE_WRITE;
	else if (map_flags & DRM_COMPUTE_SVM_MAP_COPY)
		bits |= VCOMPUTE_PTE_RO_COPY;
	if (map_flags & DRM_COMPUTE_SVM_MAP_EXEC)
		bits |= VCOMPUTE_PTE_EXEC;

	down_write(&vm->pt_lock);
	for (i = 0, j = 0; i < npages; j++) {
		const struct drm_pagemap_addr *a = &range->pages.dma_addr[j];
		u64 mem = VCOMPUTE_PTE_SYSMEM;
		unsigned long pfn;

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
	up_write(&vm->pt_lock);
	return 0;
}

/* &drm_compute_svm_mirror_ops.zap: the "TLB flush" is pt_lock's down_write(). */
static void svm_zap(struct drm_compute_svm_mirror *m, u64 start, u64 end)
{
	struct vcompute_vm *vm = mirror_to_vm(m);

	down_write(&vm->pt_lock);
	vcompute_vm_pt_zap(vm, start, end - start);
	up_write(&vm->pt_lock);
}

/*
 * &drm_compute_svm_mirror_ops.bind_hole: the hole around @va between
 * VM_BIND mappings, within the 2 MiB block of @va. false if a mapping
 * covers @va (a bind that just completed: the access is to be retried).
 * SVM lock held, which binds of an SVM VM hold too, so the tree is stable.
 */
static bool svm_bind_hole(struct drm_compute_svm_mirror *m, u64 va,
			  u64 *start, u64 *end)
{
	struct vcompute_vm *vm = mirror_to_vm(m);
	u64 s = ALIGN_DOWN(va, SZ_2M), e = s + SZ_2M;
	struct drm_gpuva *gva;

	lockdep_assert_held(&vm->compute.svm.lock);
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

/* &drm_compute_svm_mirror_ops.pagemap_get: the device's emulated memory. */
static struct drm_pagemap *svm_pagemap_get(struct drm_compute_svm_mirror *m)
{
	return vcompute_pagemap_get(to_vcompute(mirror_to_vm(m)->gpuvm.drm));
}

static const struct drm_compute_svm_mirror_ops vcompute_mirror_ops = {
	.prepare = svm_prepare,
	.map = svm_map,
	.zap = svm_zap,
	.bind_hole = svm_bind_hole,
	.pagemap_get = svm_pagemap_get,
};

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
	struct vcompute_vm *vm = to_vcompute_vm(cvm);
	struct vcompute_device *vdev = to_vcompute(vm->gpuvm.drm);
	int ret;

	ret = drm_compute_svm_mirror_init(&vm->svm.mirror, cvm, &vcompute_mirror_ops,
					  "vcompute", &vdev->drm,
					  vcompute_pagemap_owner(vdev),
					  &vdev->svm_stats.mirror,
					  READ_ONCE(svm_fault_retries));
	if (ret)
		return ret;
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

	drm_compute_svm_mirror_fini(&vm->svm.mirror);
	vm->svm_enabled = false;
}

/**
 * vcompute_svm_bind_prepare - make room for a bind in an SVM VM
 * @vm: the VM
 * @va: first address of a MAP
 * @range: its bytes
 *
 * Removes every SVM range overlapping the MAP: a VM_BIND mapping and an SVM
 * range never overlap (DOC: SVM mirror).
 *
 * Context: &drm_compute_vm_svm.lock held, across the bind that follows.
 */
void vcompute_svm_bind_prepare(struct vcompute_vm *vm, u64 va, u64 range)
{
	drm_compute_svm_mirror_bind_prepare(&vm->svm.mirror, va, range);
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
	int fault;

	mutex_lock(&csvm->lock);
	fault = drm_compute_svm_mirror_fault(&vm->svm.mirror, va,
					     access == VCOMPUTE_WRITE);
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
 * Context: &drm_compute_vm_svm.lock held.
 */
void vcompute_svm_attr_set(struct drm_compute_vm *cvm, u64 start, u64 size,
			   const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	drm_compute_svm_mirror_attr_set(&to_vcompute_vm(cvm)->svm.mirror, start,
					size, attrs, nattr);
}

/**
 * vcompute_svm_sync - &drm_compute_ops.svm_sync
 * @cvm: the VM
 *
 * Context: &drm_compute_vm_svm.lock held.
 */
void vcompute_svm_sync(struct drm_compute_vm *cvm)
{
	drm_compute_svm_mirror_sync(&to_vcompute_vm(cvm)->svm.mirror);
}
