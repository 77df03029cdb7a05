// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: GPU VMs and page tables
 *
 * A vcompute VM is a &struct drm_gpuvm, bound through the helper's
 * drm_compute_gpuvm_bind(), plus the emulated GPU's page tables. The tables
 * mirror x86-64's shape: four levels of 512 entries, 4 KiB pages, a 48-bit
 * address space. A leaf entry holds the page frame number of the page and
 * VCOMPUTE_PTE_* permission bits (valid, write, exec); an upper entry
 * holds the address of the next table.
 *
 * Every access of the engine goes through vcompute_vm_translate() or
 * vcompute_vm_access(): a missing entry, a write to a read-only page or a
 * packet fetch from a no-exec page is a fault of the queue, reported with
 * the faulting address, and the kernel never touches memory the VM does
 * not map. In a VM made with %DRM_COMPUTE_VM_CREATE_SVM a missing entry
 * is first a fault to service (vcompute_vm_translate_fault(), DOC: Shared
 * virtual memory), and only what cannot be mirrored faults the queue.
 *
 * Locking: &vcompute_vm.pt_lock. The engine holds it for reading while it
 * translates and touches pages; the bind path holds it for writing while
 * it changes entries. An UNMAP returns only after every access that could
 * have used the old entries has finished, so a buffer unbound under a
 * running queue is safe: the queue faults on its next access.
 *
 * Nothing allocates memory under &vcompute_vm.pt_lock, so that an MMU
 * notifier, which may run from reclaim, can take it for writing (shared
 * virtual memory zaps entries that way). Tables are made beforehand, by
 * vcompute_pt_prepare(), under &vcompute_vm.pt_alloc_lock alone: each new
 * table is zeroed, then published with smp_store_release() into its
 * parent entry, and every walk reads the upper entries with READ_ONCE(), so
 * a walk under pt_lock sees either no table or a complete one. Tables are
 * never freed before the VM. Lockdep learns the rule when the VM is made
 * (pt_lock taken inside fs_reclaim), so an allocation under pt_lock is
 * reported even before any notifier exists.
 */

#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/lockdep.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include <drm/drm_compute.h>
#include <drm/drm_gpuvm.h>

#include "vcompute_drv.h"

#define PT_BITS		9
#define PT_ENTRIES	BIT(PT_BITS)
#define PT_LEVELS	4
#define VA_BITS		(PAGE_SHIFT + PT_BITS * PT_LEVELS)

static inline struct vcompute_vm *gpuvm_to_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct vcompute_vm, gpuvm);
}

static unsigned int pt_index(u64 va, int level)
{
	return (va >> (PAGE_SHIFT + PT_BITS * level)) & (PT_ENTRIES - 1);
}

/*
 * The leaf entry of @va, or NULL when a table on the way is missing. The
 * upper entries are read once each: vcompute_pt_prepare() publishes new
 * tables without pt_lock.
 */
static u64 *pt_leaf(struct vcompute_vm *vm, u64 va)
{
	u64 *table = vm->root;
	int level;

	for (level = PT_LEVELS - 1; level > 0; level--) {
		u64 next = READ_ONCE(table[pt_index(va, level)]);

		if (!next)
			return NULL;
		table = (u64 *)(uintptr_t)next;
	}
	return &table[pt_index(va, 0)];
}

/*
 * Make every missing table on the way to the leaf of @va. Under
 * pt_alloc_lock only (never pt_lock): a new table is zeroed before
 * smp_store_release() publishes it, so a concurrent walk sees all of it.
 */
static int pt_populate(struct vcompute_vm *vm, u64 va)
{
	u64 *table = vm->root;
	int level;

	lockdep_assert_held(&vm->pt_alloc_lock);
	for (level = PT_LEVELS - 1; level > 0; level--) {
		u64 *entry = &table[pt_index(va, level)];
		u64 next = READ_ONCE(*entry);

		if (!next) {
			/* Userspace makes these: charge them to it. */
			u64 *t = (u64 *)get_zeroed_page(GFP_KERNEL_ACCOUNT);

			if (!t)
				return -ENOMEM;
			next = (u64)(uintptr_t)t;
			/* Pairs with the READ_ONCE() of pt_leaf(): zeroes first. */
			smp_store_release(entry, next);
		}
		table = (u64 *)(uintptr_t)next;
	}
	return 0;
}

static void pt_free(u64 *table, int level)
{
	int i;

	if (level > 0)
		for (i = 0; i < PT_ENTRIES; i++)
			if (table[i])
				pt_free((u64 *)(uintptr_t)table[i], level - 1);
	free_page((unsigned long)table);
}

static int vcompute_pt_prepare(struct drm_gpuvm *gpuvm, u64 va, u64 range)
{
	struct vcompute_vm *vm = gpuvm_to_vm(gpuvm);
	u64 end = va + range, step = 1ULL << (PAGE_SHIFT + PT_BITS);
	int ret = 0;

	/* Allocations: pt_alloc_lock, never pt_lock (DOC above). */
	mutex_lock(&vm->pt_alloc_lock);
	/* One walk per leaf table the range touches. */
	for (; va < end && !ret; va = round_down(va, step) + step)
		ret = pt_populate(vm, va);
	mutex_unlock(&vm->pt_alloc_lock);
	return ret;
}

/**
 * vcompute_vm_pt_prepare - make the tables a range needs
 * @vm: the VM
 * @va: first address
 * @range: bytes
 *
 * Context: may sleep and allocate; &vcompute_vm.pt_lock not held.
 *
 * Returns: 0 or -ENOMEM.
 */
int vcompute_vm_pt_prepare(struct vcompute_vm *vm, u64 va, u64 range)
{
	return vcompute_pt_prepare(&vm->gpuvm, va, range);
}

/**
 * vcompute_vm_pt_set - write one leaf entry
 * @vm: the VM; vcompute_vm_pt_prepare() made the tables of @va
 * @va: the page's address
 * @pfn: the page frame
 * @bits: VCOMPUTE_PTE_* bits
 *
 * Context: &vcompute_vm.pt_lock held for writing.
 */
void vcompute_vm_pt_set(struct vcompute_vm *vm, u64 va, unsigned long pfn,
			u64 bits)
{
	u64 *leaf = pt_leaf(vm, va);

	lockdep_assert_held_write(&vm->pt_lock);
	if (!WARN_ON_ONCE(!leaf))
		*leaf = ((u64)pfn << PAGE_SHIFT) | bits;
}

/**
 * vcompute_vm_pt_zap - clear the leaf entries of a range
 * @vm: the VM
 * @va: first address
 * @range: bytes
 *
 * Context: &vcompute_vm.pt_lock held for writing; no allocation (an MMU
 * notifier calls this).
 */
void vcompute_vm_pt_zap(struct vcompute_vm *vm, u64 va, u64 range)
{
	u64 i, n = range >> PAGE_SHIFT;

	lockdep_assert_held_write(&vm->pt_lock);
	for (i = 0; i < n; i++) {
		u64 *leaf = pt_leaf(vm, va + (i << PAGE_SHIFT));

		if (leaf)
			*leaf = 0;
	}
}

/**
 * vcompute_vm_pt_repoint - point the entries of a mapping at new pages
 * @gpuvm: the VM
 * @va: first address of the mapping
 * @range: bytes
 * @pages: the page for each of its pages, in order, in system memory
 *
 * Keeps each entry's permission bits; entries that are not valid stay so.
 * A buffer that moves to system memory (DOC: Export to peer devices) uses
 * it.
 *
 * Context: no device access in flight (&vcompute_engine.lock held); takes
 * &vcompute_vm.pt_lock for writing.
 */
void vcompute_vm_pt_repoint(struct drm_gpuvm *gpuvm, u64 va, u64 range,
			    struct page **pages)
{
	struct vcompute_vm *vm = gpuvm_to_vm(gpuvm);
	u64 i, n = range >> PAGE_SHIFT;

	down_write(&vm->pt_lock);
	for (i = 0; i < n; i++) {
		u64 *leaf = pt_leaf(vm, va + (i << PAGE_SHIFT));

		if (leaf && (*leaf & VCOMPUTE_PTE_VALID))
			*leaf = ((u64)page_to_pfn(pages[i]) << PAGE_SHIFT) |
				(*leaf & VCOMPUTE_PTE_FLAGS) | VCOMPUTE_PTE_SYSMEM;
	}
	up_write(&vm->pt_lock);
}

static void vcompute_pt_map(struct drm_gpuvm *gpuvm, u64 va, u64 range,
			    struct drm_gem_object *obj, u64 offset, u64 flags)
{
	struct vcompute_vm *vm = gpuvm_to_vm(gpuvm);
	struct vcompute_bo *bo = to_vcompute_bo(obj);
	u64 bits = VCOMPUTE_PTE_VALID, i, n = range >> PAGE_SHIFT;

	if (!(flags & DRM_COMPUTE_VM_BIND_READONLY))
		bits |= VCOMPUTE_PTE_WRITE;
	if (!(flags & DRM_COMPUTE_VM_BIND_NOEXEC))
		bits |= VCOMPUTE_PTE_EXEC;
	if (bo->placement != DRM_COMPUTE_PLACEMENT_VRAM)
		bits |= VCOMPUTE_PTE_SYSMEM;

	down_write(&vm->pt_lock);
	for (i = 0; i < n; i++) {
		struct page *page = bo->pages[(offset >> PAGE_SHIFT) + i];
		u64 *leaf = pt_leaf(vm, va + (i << PAGE_SHIFT));

		/* vcompute_pt_prepare() made every table. */
		*leaf = ((u64)page_to_pfn(page) << PAGE_SHIFT) | bits;
	}
	up_write(&vm->pt_lock);
}

static void vcompute_pt_unmap(struct drm_gpuvm *gpuvm, u64 va, u64 range)
{
	struct vcompute_vm *vm = gpuvm_to_vm(gpuvm);

	down_write(&vm->pt_lock);
	vcompute_vm_pt_zap(vm, va, range);
	up_write(&vm->pt_lock);
}

static void vcompute_gpuvm_free(struct drm_gpuvm *gpuvm)
{
	struct vcompute_vm *vm = gpuvm_to_vm(gpuvm);

	pt_free(vm->root, PT_LEVELS - 1);
	mutex_destroy(&vm->pt_alloc_lock);
	/* Lookups by id may still be reading its reference count. */
	kfree_rcu(vm, compute.rcu);
}

static const struct drm_compute_gpuvm_funcs vcompute_gpuvm_funcs = {
	.gpuvm = {
		.vm_free = vcompute_gpuvm_free,
	},
	.pt = {
		.prepare = vcompute_pt_prepare,
		.map = vcompute_pt_map,
		.unmap = vcompute_pt_unmap,
	},
};

/**
 * vcompute_vm_create - &drm_compute_ops.vm_create
 * @cfile: the file
 *
 * Returns: the new VM, or ERR_PTR(-ENOMEM).
 */
struct drm_compute_vm *vcompute_vm_create(struct drm_compute_file *cfile)
{
	struct drm_device *drm = cfile->cdev->drm;
	struct drm_gem_object *r_obj;
	struct vcompute_vm *vm;

	vm = kzalloc_obj(*vm);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	vm->root = (u64 *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	r_obj = drm_gpuvm_resv_object_alloc(drm);
	if (!vm->root || !r_obj) {
		if (r_obj)
			drm_gem_object_put(r_obj);
		free_page((unsigned long)vm->root);
		kfree(vm);
		return ERR_PTR(-ENOMEM);
	}
	init_rwsem(&vm->pt_lock);
	mutex_init(&vm->pt_alloc_lock);
	/*
	 * pt_lock may be taken for writing from reclaim (an MMU notifier
	 * zapping entries): teach lockdep now, so that an allocation under
	 * it is reported on its first run rather than on the first deadlock.
	 */
	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		fs_reclaim_acquire(GFP_KERNEL);
		might_lock(&vm->pt_lock);
		fs_reclaim_release(GFP_KERNEL);
	}
	drm_gpuvm_init(&vm->gpuvm, "vcompute", DRM_GPUVM_RESV_PROTECTED, drm,
		       r_obj, 0, 1ULL << VA_BITS, 0, 0, &vcompute_gpuvm_funcs.gpuvm);
	/* The VM holds its own reference to the reservation object. */
	drm_gem_object_put(r_obj);
	return &vm->compute;
}

/**
 * vcompute_vm_free - &drm_compute_ops.vm_free
 * @cvm: the VM; no queue runs on it
 */
void vcompute_vm_free(struct drm_compute_vm *cvm)
{
	struct vcompute_vm *vm = to_vcompute_vm(cvm);

	drm_compute_gpuvm_unmap_all(&vm->gpuvm);
	drm_gpuvm_put(&vm->gpuvm);
}

/**
 * vcompute_vm_criu_mappings - &drm_compute_ops.vm_criu_mappings
 * @cvm: the VM
 * @maps: filled with up to @max mappings
 * @max: entries of @maps
 * @n: set to the VM's mappings
 *
 * Returns: 0 or -EINTR.
 */
int vcompute_vm_criu_mappings(struct drm_compute_vm *cvm,
			      struct drm_compute_criu_map *maps, u32 max, u32 *n)
{
	return drm_compute_gpuvm_criu_mappings(&to_vcompute_vm(cvm)->gpuvm,
					       maps, max, n);
}

/**
 * vcompute_vm_bind - &drm_compute_ops.vm_bind
 * @cvm: the VM
 * @bind: the validated operation
 *
 * Returns: what drm_compute_gpuvm_bind() returns.
 */
int vcompute_vm_bind(struct drm_compute_vm *cvm,
		     const struct drm_compute_bind *bind)
{
	struct vcompute_vm *vm = to_vcompute_vm(cvm);
	int ret;

	if (!vm->svm_enabled)
		return drm_compute_gpuvm_bind(&vm->gpuvm, bind);
	/*
	 * An SVM VM: binds and SVM ranges never overlap. The SVM lock keeps
	 * faults out while a MAP drops the ranges in its way and maps.
	 */
	mutex_lock(&cvm->svm.lock);
	if (bind->op == DRM_COMPUTE_VM_BIND_OP_MAP)
		vcompute_svm_bind_prepare(vm, bind->va, bind->range);
	ret = drm_compute_gpuvm_bind(&vm->gpuvm, bind);
	mutex_unlock(&cvm->svm.lock);
	return ret;
}

/*
 * Translate @va with the page tables read-locked; 0 or a DRM_COMPUTE_FAULT_*.
 * *@sysmem, when given, says whether the page is system memory.
 */
static int translate_locked(struct vcompute_vm *vm, u64 va,
			    enum vcompute_access access, struct page **page,
			    bool *sysmem)
{
	u64 *leaf, pte;

	lockdep_assert_held(&vm->pt_lock);
	if (va >> VA_BITS)
		return DRM_COMPUTE_FAULT_UNMAPPED;
	leaf = pt_leaf(vm, va);
	pte = leaf ? *leaf : 0;
	if (!(pte & VCOMPUTE_PTE_VALID))
		return DRM_COMPUTE_FAULT_UNMAPPED;
	/* A read-only copy is a miss for a write: the fault service upgrades it. */
	if (access == VCOMPUTE_WRITE && !(pte & VCOMPUTE_PTE_WRITE))
		return pte & VCOMPUTE_PTE_RO_COPY ? DRM_COMPUTE_FAULT_UNMAPPED :
						    DRM_COMPUTE_FAULT_WRITE;
	if (access == VCOMPUTE_EXEC && !(pte & VCOMPUTE_PTE_EXEC))
		return DRM_COMPUTE_FAULT_EXEC;
	*page = pfn_to_page(pte >> PAGE_SHIFT);
	if (sysmem)
		*sysmem = pte & VCOMPUTE_PTE_SYSMEM;
	/* SVM data in device memory: its data is in the backing page. */
	if (is_device_private_page(*page))
		*page = vcompute_pagemap_backing(*page);
	return 0;
}

/**
 * vcompute_vm_translate - translate one address, page tables read-locked
 * @vm: the VM; the caller holds &vcompute_vm.pt_lock for reading
 * @va: the address
 * @access: what the engine means to do
 * @page: set to the page on success
 *
 * Returns: 0, or the DRM_COMPUTE_FAULT_* the access would raise.
 */
int vcompute_vm_translate(struct vcompute_vm *vm, u64 va,
			  enum vcompute_access access, struct page **page)
{
	return translate_locked(vm, va, access, page, NULL);
}

/**
 * vcompute_vm_translate_fault - translate one address, servicing SVM faults
 * @vm: the VM; the caller holds &vcompute_vm.pt_lock for reading
 * @va: the address
 * @access: what the engine means to do
 * @page: set to the page on success
 * @relocked: set to true if pt_lock was dropped and taken again: every
 *	page the caller translated before may be stale and must be
 *	translated again (left alone otherwise)
 * @sysmem: set to whether the page is system memory, or NULL
 *
 * In an SVM VM, a missing entry is a fault to service, not yet a fault of
 * the queue: pt_lock is dropped (the service takes the mmap lock, and an
 * MMU notifier takes pt_lock for writing), vcompute_svm_fault() writes the
 * entries, pt_lock is taken again and the translation retried, at most
 * %VCOMPUTE_SVM_MAX_REFAULTS times.
 *
 * Context: the engine thread (may sleep), &vcompute_engine.lock held.
 *
 * Returns: 0, or the DRM_COMPUTE_FAULT_* the access raises.
 */
int vcompute_vm_translate_fault(struct vcompute_vm *vm, u64 va,
				enum vcompute_access access, struct page **page,
				bool *relocked, bool *sysmem)
{
	unsigned int tries = 0;
	int fault;

	for (;;) {
		fault = translate_locked(vm, va, access, page, sysmem);
		/* A write to a read-only SVM entry is a real permission fault. */
		if (fault != DRM_COMPUTE_FAULT_UNMAPPED || !vm->svm_enabled ||
		    va >> VA_BITS)
			return fault;
		if (tries++ == VCOMPUTE_SVM_MAX_REFAULTS)
			return DRM_COMPUTE_FAULT_SVM_BUSY;
		up_read(&vm->pt_lock);
		fault = vcompute_svm_fault(vm, va, access);
		down_read(&vm->pt_lock);
		*relocked = true;
		if (fault)
			return fault;
	}
}

/**
 * vcompute_vm_access - touch a range of a VM, a page at a time
 * @vm: the VM
 * @va: first byte
 * @len: bytes
 * @access: what @fn does with them
 * @fn: called for each piece with a kernel address of it
 * @arg: passed to @fn
 * @fault_va: set to the faulting address on a fault
 *
 * Pieces before a faulting page are done; the queue faults anyway, so a
 * partial result is what the GPU would leave too.
 *
 * Returns: 0, or the DRM_COMPUTE_FAULT_* raised.
 */
int vcompute_vm_access(struct vcompute_vm *vm, u64 va, u64 len,
		       enum vcompute_access access, vcompute_access_fn fn,
		       void *arg, u64 *fault_va)
{
	int fault = 0;

	if (va + len < va) {
		*fault_va = va;
		return DRM_COMPUTE_FAULT_UNMAPPED;
	}
	down_read(&vm->pt_lock);
	while (len) {
		u64 off = offset_in_page(va), n = min_t(u64, len, PAGE_SIZE - off);
		bool relocked = false, sysmem;
		struct page *page;
		void *kaddr;

		/* One page at a time: a relock invalidates nothing held. */
		fault = vcompute_vm_translate_fault(vm, va, access, &page,
						    &relocked, &sysmem);
		if (fault) {
			*fault_va = va;
			break;
		}
		if (access == VCOMPUTE_READ && sysmem)
			atomic64_add(n, &to_vcompute(vm->gpuvm.drm)->sysmem_read);
		kaddr = kmap_local_page(page);
		fn(kaddr + off, n, arg);
		kunmap_local(kaddr);
		va += n;
		len -= n;
	}
	up_read(&vm->pt_lock);
	return fault;
}
