// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mmu_notifier.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm.h>
#include <drm/drm_file.h>
#include <drm/drm_pagemap.h>

#include "drm_compute_internal.h"
#include "drm_compute_svm_internal.h"

/**
 * DOC: SVM
 *
 * With shared virtual memory a GPU VM mirrors a process's address space,
 * so that its queues use the process's own pointers. Userspace asks for it
 * per VM (%DRM_COMPUTE_VM_CREATE_SVM) and says how each part of its memory
 * is to be treated with %DRM_COMPUTE_OP_SVM, whose attributes are those of
 * KFD's AMDKFD_IOC_SVM, on the render node: per file and per VM.
 *
 * The helper owns the uapi and the attributes. It checks every argument,
 * keeps the attributes of each SVM VM in an attribute store
 * (&drm_compute_vm_svm.attrs, see DOC: SVM attributes) under the VM's SVM
 * lock, and answers GET_ATTR from the store alone. The driver owns the
 * mirror: it sets it up and tears it down (&drm_compute_ops.svm_vm_init,
 * &drm_compute_ops.svm_vm_fini), services device faults on it (with
 * drm_gpusvm) reading the attributes from the store, and acts on each
 * SET_ATTR (&drm_compute_ops.svm_attr_set): it drops the mappings whose
 * rules changed and migrates for a prefetch. %DRM_COMPUTE_FEATURE_SVM is
 * reported only by a driver that has those three callbacks, on a device
 * with user queues; elsewhere both the VM flag and the operation fail with
 * -EOPNOTSUPP.
 *
 * The rules of the operation, checked in this order (a rejected call
 * changes nothing, and writes nothing back):
 *
 * - a device without SVM answers -EOPNOTSUPP, whatever the argument;
 * - the argument alone (drm_compute_svm_args_check()): a known operation,
 *   no flag, 1 to %DRM_COMPUTE_SVM_MAX_ATTRS attributes, a range that is
 *   not empty, aligned to the GPU page size, does not wrap and lies in the
 *   device's VA range; else -EINVAL;
 * - the VM: one of the file's (-ENOENT), made with
 *   %DRM_COMPUTE_VM_CREATE_SVM (-EINVAL), by the calling process (-EPERM:
 *   a VM mirrors one address space, its creator's, whose structure it
 *   holds with mmgrab());
 * - the attribute array is read (-EFAULT, -ENOMEM);
 * - under the SVM lock, the attributes (drm_compute_svm_attr_check():
 *   types, flags, granularity, device ids, the store's device slots):
 *   -EINVAL; then, for a set, every flag it sets must be one the device
 *   honours (&drm_compute_dev_info.svm_flags, reported by the DEVICE query
 *   as &drm_compute_query_device.svm_flags): -EOPNOTSUPP otherwise, never
 *   a flag stored that changes nothing;
 * - then the CPU mappings, under the mmap lock: every address of the range
 *   mapped, none in a VM_IO or VM_PFNMAP mapping, which HMM cannot mirror
 *   (KFD answers -EFAULT there, and so does the helper);
 * - only then does the store change (all or nothing; -ENOMEM) and the
 *   driver hear of it, or are the answers of a get written back (-EFAULT
 *   if they cannot be).
 *
 * Device ids. An attribute names a device by its id
 * (&drm_compute_device.id, reported by the DEVICE query). An access type
 * may name any device present that has SVM, this one or another; a
 * location only the VM's own device, and only if it has device memory:
 * migrating to the memory of another device is not supported yet. Every
 * device has %DRM_COMPUTE_SVM_ATTR_ACCESS where no attribute named it:
 * drm_gpusvm works with recoverable device faults, KFD's XNACK mode, where
 * that is KFD's default too.
 *
 * Attributes belong to the memory: what munmap or mremap removes loses its
 * attributes. The helper watches the VM's address space for that with an
 * interval notifier over the span of the memory that has attributes
 * (&drm_compute_vm_svm.watch; none while no attribute is set, so the rest
 * of the process's munmaps never reach it), grown before SET_ATTR stores
 * attributes and narrowed after, which records the unmapped intervals in a
 * small array (a notifier must
 * not allocate; on overflow the whole store is checked against the CPU
 * mappings); drm_compute_svm_collect() clears them from the store, from a
 * work item, before every operation, and wherever a driver calls it (at
 * the head of its fault handler), so that GET_ATTR never reports them and
 * a SET_ATTR on memory mapped again is not undone by a late clear.
 *
 * Migration. Where data lives is the driver's business, but the walks that
 * carry out a prefetch are not device specific, and drivers share them:
 * drm_compute_svm_migrate_to_devmem() moves the private anonymous memory
 * of a range to a &struct drm_pagemap in chunks
 * (drm_compute_svm_chunk_end(): the GRANULARITY attribute, at most
 * 2 MiB, inside one attribute piece and one CPU mapping), and
 * drm_compute_svm_migrate_to_ram() brings a range back by faulting it in
 * with HMM for no device.
 *
 * Locking: the operation takes &drm_compute_vm_svm.lock with no other
 * helper lock held, and the mmap lock of the VM's address space inside it
 * for the mapping check and, one chunk at a time, for the migration
 * walks; &drm_compute_ops.svm_attr_set runs under the SVM lock, with the
 * mmap lock dropped. The watcher takes only
 * &drm_compute_vm_svm.unmap_lock, a spinlock.
 */

/* Which device ids an attribute of this VM may name. */
static bool svm_device_valid(struct drm_compute_svm_attr_store *store,
			     u32 type, u32 dev_id)
{
	struct drm_compute_vm *vm = container_of(store, struct drm_compute_vm,
						 svm.attrs);
	const struct drm_compute_device *cdev = vm->cdev;

	switch (type) {
	case DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC:
	case DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC:
		return dev_id == cdev->id && cdev->info.vram_size;
	default:
		return drm_compute_device_svm(dev_id);
	}
}

static const struct drm_compute_svm_attr_ops svm_attr_ops = {
	.device_valid = svm_device_valid,
};

/* Clear the attributes of what is no longer mapped; SVM lock held. */
static void svm_attrs_rescan(struct drm_compute_vm_svm *svm)
{
	struct drm_compute_svm_attr_store *store = &svm->attrs;
	struct mm_struct *mm = svm->mm;
	u64 addr = store->va_start;

	if (!mmget_not_zero(mm)) {
		/* Nothing is mapped any more. */
		drm_compute_svm_attr_clear(store, store->va_start,
					   store->va_end - store->va_start);
		return;
	}
	mmap_read_lock(mm);
	while (addr < store->va_end) {
		const struct drm_compute_svm_attrs *a;
		struct vm_area_struct *vma;
		u64 s, sz, end;

		a = drm_compute_svm_attr_lookup(store, addr, &s, &sz);
		end = s + sz;
		if (a == &store->defaults) {
			addr = end;
			continue;
		}
		/* The first hole of [addr, end) in the CPU mappings. */
		vma = find_vma(mm, addr);
		if (vma && vma->vm_start <= addr) {
			addr = min_t(u64, vma->vm_end, end);
			continue;
		}
		s = vma ? min_t(u64, vma->vm_start, end) : end;
		if (drm_compute_svm_attr_clear(store, addr, s - addr))
			break;	/* -ENOMEM: keep them */
		addr = s;
	}
	mmap_read_unlock(mm);
	mmput(mm);
}

/**
 * drm_compute_svm_collect - drop the attributes of unmapped memory
 * @vm: an SVM VM
 *
 * Clears from the attribute store what the VM's watcher saw munmap or
 * mremap remove since the last call (or, if it recorded too much, checks
 * the whole store against the CPU mappings). The helper calls it from a
 * work item and before every SVM operation; a driver calls it where it
 * reads the attributes for a fault, so that it never applies those of
 * memory that is gone. A failed allocation keeps the intervals for the
 * next call.
 *
 * Context: &drm_compute_vm_svm.lock held; may take the mmap lock.
 */
void drm_compute_svm_collect(struct drm_compute_vm *vm)
{
	struct drm_compute_vm_svm *svm = &vm->svm;
	struct drm_compute_svm_attr_store *store = &svm->attrs;
	unsigned int i, n;
	bool rescan;
	struct {
		u64 start, end;
	} un[DRM_COMPUTE_SVM_UNMAPPED_MAX];

	lockdep_assert_held(&svm->lock);
	spin_lock(&svm->unmap_lock);
	n = svm->nr_unmapped;
	for (i = 0; i < n; i++) {
		un[i].start = svm->unmapped[i].start;
		un[i].end = svm->unmapped[i].end;
	}
	rescan = svm->rescan;
	svm->nr_unmapped = 0;
	svm->rescan = false;
	spin_unlock(&svm->unmap_lock);

	if (rescan) {
		svm_attrs_rescan(svm);
		return;
	}
	for (i = 0; i < n; i++) {
		u64 start = max(un[i].start, store->va_start);
		u64 end = min(un[i].end, store->va_end);

		if (start < end &&
		    drm_compute_svm_attr_clear(store, start, end - start)) {
			/* -ENOMEM: try again on the next call. */
			spin_lock(&svm->unmap_lock);
			svm->rescan = true;
			spin_unlock(&svm->unmap_lock);
			break;
		}
	}
}
EXPORT_SYMBOL(drm_compute_svm_collect);

static void svm_collect_work(struct work_struct *work)
{
	struct drm_compute_vm *vm = container_of(work, struct drm_compute_vm,
						 svm.collect_work);

	mutex_lock(&vm->svm.lock);
	drm_compute_svm_collect(vm);
	mutex_unlock(&vm->svm.lock);
}

/*
 * The watcher: records what munmap and mremap removed. No allocation and
 * no sleeping lock: it runs under the mmap lock and from reclaim.
 */
static bool svm_watch_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *mmu,
				 unsigned long cur_seq)
{
	struct drm_compute_svm_watch *w = container_of(mni, struct drm_compute_svm_watch,
						       notifier);
	struct drm_compute_vm_svm *svm = w->svm;
	unsigned int i;

	/* The mmu_interval_notifier contract: every invalidation moves it. */
	spin_lock(&svm->unmap_lock);
	mmu_interval_set_seq(mni, cur_seq);
	if (mmu->event != MMU_NOTIFY_UNMAP) {
		spin_unlock(&svm->unmap_lock);
		return true;
	}
	for (i = 0; i < svm->nr_unmapped; i++) {
		/* Merge with an overlapping or adjacent interval. */
		if (mmu->start <= svm->unmapped[i].end &&
		    mmu->end >= svm->unmapped[i].start) {
			svm->unmapped[i].start = min(svm->unmapped[i].start, mmu->start);
			svm->unmapped[i].end = max(svm->unmapped[i].end, mmu->end);
			break;
		}
	}
	if (i == svm->nr_unmapped) {
		if (i < DRM_COMPUTE_SVM_UNMAPPED_MAX) {
			svm->unmapped[i].start = mmu->start;
			svm->unmapped[i].end = mmu->end;
			svm->nr_unmapped++;
		} else {
			svm->rescan = true;
		}
	}
	spin_unlock(&svm->unmap_lock);
	queue_work(system_dfl_wq, &svm->collect_work);
	return true;
}

static const struct mmu_interval_notifier_ops svm_watch_ops = {
	.invalidate = svm_watch_invalidate,
};

/*
 * Watch [@start, @end) (nothing when empty) instead of what the watch
 * covers now: the new notifier is in place before the old one goes, so no
 * unmap in both spans is missed. svm->mm is alive (the caller's own, or
 * held with mmget()), and no mmap lock is held. On failure the old watch
 * stays.
 */
static int svm_watch_cover(struct drm_compute_vm_svm *svm, u64 start, u64 end)
{
	int next = svm->watch_cur == 0 ? 1 : 0, ret;

	lockdep_assert_held(&svm->lock);
	if (start >= end) {
		start = 0;
		end = 0;
	}
	if (start == svm->watch_start && end == svm->watch_end)
		return 0;
	if (start < end) {
		svm->watch[next].svm = svm;
		ret = mmu_interval_notifier_insert(&svm->watch[next].notifier, svm->mm,
						   start, end - start, &svm_watch_ops);
		if (ret)
			return ret;
	}
	if (svm->watch_cur >= 0)
		mmu_interval_notifier_remove(&svm->watch[svm->watch_cur].notifier);
	svm->watch_cur = start < end ? next : -1;
	svm->watch_start = start;
	svm->watch_end = end;
	return 0;
}

/* No watcher callback runs or starts afterwards, nor its work. */
static void svm_watch_stop(struct drm_compute_vm_svm *svm)
{
	if (svm->watch_cur >= 0)
		mmu_interval_notifier_remove(&svm->watch[svm->watch_cur].notifier);
	svm->watch_cur = -1;
	disable_work_sync(&svm->collect_work);
}

static void svm_teardown(struct drm_compute_vm_svm *svm)
{
	drm_compute_svm_attr_store_fini(&svm->attrs);
	mmdrop(svm->mm);
	mutex_destroy(&svm->lock);
}

/**
 * drm_compute_svm_vm_init - set up the SVM part of a VM being created
 * @vm: the VM, not published yet; VM_CREATE asked for
 *	%DRM_COMPUTE_VM_CREATE_SVM on a device with SVM
 *
 * The VM mirrors the calling process's address space. Sets
 * %DRM_COMPUTE_VM_CREATE_SVM in &drm_compute_vm.flags on success only.
 *
 * Context: &drm_compute_file.lock held; the ioctl of the creating process.
 *
 * Returns: 0, -EINVAL without an address space (a kernel thread), or what
 * &drm_compute_ops.svm_vm_init returned.
 */
int drm_compute_svm_vm_init(struct drm_compute_vm *vm)
{
	const struct drm_compute_dev_info *info = &vm->cdev->info;
	struct drm_compute_vm_svm *svm = &vm->svm;
	int ret;

	if (!current->mm)
		return -EINVAL;
	ret = drm_compute_svm_attr_store_init(&svm->attrs, &svm_attr_ops,
					      info->va_start, info->va_end,
					      DRM_COMPUTE_SVM_MODE_ACCESS);
	if (ret)
		return ret;
	mutex_init(&svm->lock);
	drm_compute_svm_attr_store_set_lock(&svm->attrs, &svm->lock);
	svm->mm = current->mm;
	mmgrab(svm->mm);
	spin_lock_init(&svm->unmap_lock);
	svm->nr_unmapped = 0;
	svm->rescan = false;
	INIT_WORK(&svm->collect_work, svm_collect_work);
	/* Nothing has attributes yet: nothing is watched (svm_watch_cover()). */
	svm->watch_cur = -1;
	svm->watch_start = 0;
	svm->watch_end = 0;

	ret = vm->cdev->ops->svm_vm_init(vm);
	if (ret) {
		svm_watch_stop(svm);
		svm_teardown(svm);
		return ret;
	}
	vm->flags |= DRM_COMPUTE_VM_CREATE_SVM;
	return 0;
}

/**
 * drm_compute_svm_vm_fini - tear down the SVM part of a VM
 * @vm: the VM, whose last reference is gone
 *
 * The driver's mirror first (&drm_compute_ops.svm_vm_fini), then the
 * attributes; &drm_compute_ops.vm_free comes after.
 */
void drm_compute_svm_vm_fini(struct drm_compute_vm *vm)
{
	svm_watch_stop(&vm->svm);
	vm->cdev->ops->svm_vm_fini(vm);
	svm_teardown(&vm->svm);
	vm->flags &= ~DRM_COMPUTE_VM_CREATE_SVM;
}

/**
 * drm_compute_svm_args_check - the rules of &struct drm_compute_svm that
 * need no state
 * @info: the device
 * @args: the argument
 *
 * Returns: 0, or -EINVAL for an unknown operation, flags, a number of
 * attributes out of 1..%DRM_COMPUTE_SVM_MAX_ATTRS, or a range that is
 * empty, unaligned to the GPU page size, wraps or leaves the device's VA
 * range.
 */
int drm_compute_svm_args_check(const struct drm_compute_dev_info *info,
			       const struct drm_compute_svm *args)
{
	u64 end;

	if (args->op != DRM_COMPUTE_SVM_OP_SET_ATTR &&
	    args->op != DRM_COMPUTE_SVM_OP_GET_ATTR)
		return -EINVAL;
	if (args->flags || !args->nattr ||
	    args->nattr > DRM_COMPUTE_SVM_MAX_ATTRS)
		return -EINVAL;
	if (!args->size || !IS_ALIGNED(args->start | args->size, info->page_size))
		return -EINVAL;
	if (check_add_overflow(args->start, args->size, &end) ||
	    args->start < info->va_start || end > info->va_end)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_args_check);

/*
 * Whether every address of [@start, @end) lies in a CPU mapping that HMM
 * can mirror (KFD's svm_range_is_valid(), with drm_gpusvm's flags).
 */
static int svm_range_mirrorable(struct mm_struct *mm, u64 start, u64 end)
{
	struct vm_area_struct *vma;
	int ret = 0;

	if (end > mm->task_size)
		return -EFAULT;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	while (start < end) {
		vma = vma_lookup(mm, start);
		if (!vma || (vma->vm_flags & (VM_IO | VM_PFNMAP))) {
			ret = -EFAULT;
			break;
		}
		start = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * A flag the device does not honour (&drm_compute_dev_info.svm_flags) is
 * refused, not stored; clearing one asks for nothing and is allowed.
 */
static int svm_flags_honoured(const struct drm_compute_vm *vm,
			      const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	u32 i;

	for (i = 0; i < nattr; i++)
		if (attrs[i].type == DRM_COMPUTE_SVM_ATTR_SET_FLAGS &&
		    attrs[i].value & ~vm->cdev->info.svm_flags)
			return -EOPNOTSUPP;
	return 0;
}

/* Under the SVM lock: the attributes, the mappings, then the store. */
static int svm_attr_op(struct drm_compute_vm *vm,
		       const struct drm_compute_svm *args,
		       struct drm_compute_svm_attr *attrs)
{
	struct drm_compute_vm_svm *svm = &vm->svm;
	bool set = args->op == DRM_COMPUTE_SVM_OP_SET_ATTR;
	u64 lo, hi;
	int ret;

	lockdep_assert_held(&svm->lock);
	/* Attributes of memory unmapped since the last operation go first. */
	drm_compute_svm_collect(vm);
	if (vm->cdev->ops->svm_sync)
		vm->cdev->ops->svm_sync(vm);
	ret = drm_compute_svm_attr_check(&svm->attrs, attrs, args->nattr, set);
	if (!ret && set)
		ret = svm_flags_honoured(vm, attrs, args->nattr);
	if (ret)
		return ret;
	ret = svm_range_mirrorable(svm->mm, args->start,
				   args->start + args->size);
	if (ret)
		return ret;
	if (!set)
		return drm_compute_svm_attr_get(&svm->attrs, args->start,
						args->size, attrs, args->nattr);
	/* Watch the range before it can hold attributes... */
	lo = args->start;
	hi = args->start + args->size;
	if (svm->watch_cur >= 0) {
		lo = min(lo, svm->watch_start);
		hi = max(hi, svm->watch_end);
	}
	ret = svm_watch_cover(svm, lo, hi);
	if (ret)
		return ret;
	ret = drm_compute_svm_attr_set(&svm->attrs, args->start, args->size,
				       attrs, args->nattr);
	if (!ret)
		vm->cdev->ops->svm_attr_set(vm, args->start, args->size, attrs,
					    args->nattr);
	/* ...and no more than what holds attributes afterwards. */
	if (!drm_compute_svm_attr_span(&svm->attrs, &lo, &hi)) {
		lo = 0;
		hi = 0;
	}
	svm_watch_cover(svm, lo, hi);
	return ret;
}

/**
 * drm_compute_svm_fault_decide - the SVM fault policy
 * @f: the attributes at the address, the device and the access
 *
 * KFD's rules, the same on every driver (DOC: SVM fault policy):
 *
 * - NO_ACCESS for this device: %DRM_COMPUTE_FAULT_UNMAPPED;
 * - %DRM_COMPUTE_SVM_FLAG_GPU_RO, or a CPU mapping without write
 *   permission: read-only entries, and a write is %DRM_COMPUTE_FAULT_WRITE;
 * - %DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY: a read maps the pages where they
 *   are as a read-only copy and moves nothing; a write is an ordinary
 *   access;
 * - the preferred location is this device and the access mode is not
 *   ACCESS_IN_PLACE: migrate to its memory first (never when mapping
 *   ahead);
 * - %DRM_COMPUTE_SVM_FLAG_GPU_EXEC: executable; COHERENT or EXT_COHERENT:
 *   coherent; %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED: kept mapped.
 *
 * Returns: the plan.
 */
struct drm_compute_svm_fault_plan
drm_compute_svm_fault_decide(const struct drm_compute_svm_fault_facts *f)
{
	struct drm_compute_svm_fault_plan p = {};
	bool copy;

	if (f->mode == DRM_COMPUTE_SVM_MODE_NO_ACCESS) {
		p.fault = DRM_COMPUTE_FAULT_UNMAPPED;
		return p;
	}
	if ((f->flags & DRM_COMPUTE_SVM_FLAG_GPU_RO || f->cpu_read_only) && f->write) {
		p.fault = DRM_COMPUTE_FAULT_WRITE;
		return p;
	}
	copy = f->flags & DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY && !f->write;
	p.read_only = copy || f->cpu_read_only || f->flags & DRM_COMPUTE_SVM_FLAG_GPU_RO;
	p.migrate = !f->ahead && !copy && f->preferred_here &&
		    f->mode != DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE;
	if (!p.read_only)
		p.map |= DRM_COMPUTE_SVM_MAP_WRITE;
	if (copy)
		p.map |= DRM_COMPUTE_SVM_MAP_COPY;
	if (f->flags & DRM_COMPUTE_SVM_FLAG_GPU_EXEC)
		p.map |= DRM_COMPUTE_SVM_MAP_EXEC;
	if (f->flags & (DRM_COMPUTE_SVM_FLAG_COHERENT | DRM_COMPUTE_SVM_FLAG_EXT_COHERENT))
		p.map |= DRM_COMPUTE_SVM_MAP_COHERENT;
	if (f->flags & DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED)
		p.map |= DRM_COMPUTE_SVM_MAP_ALWAYS;
	return p;
}
EXPORT_SYMBOL(drm_compute_svm_fault_decide);

/**
 * drm_compute_svm_chunk_end - end of the migration chunk at an address
 * @vm: an SVM VM; its SVM lock held
 * @addr: the address
 *
 * A chunk is one allocation of device memory, and drm_pagemap brings a
 * whole allocation back when the CPU touches any page of it: it is the
 * granularity of migration both ways. It is aligned to the GRANULARITY
 * attribute of @addr, at most 2 MiB (a transparent huge page, the largest
 * drm_gpusvm range), and ends with the attribute piece of @addr.
 *
 * Returns: the chunk's end, above @addr.
 */
u64 drm_compute_svm_chunk_end(struct drm_compute_vm *vm, u64 addr)
{
	const unsigned int max_shift = ilog2(SZ_2M);
	const struct drm_compute_svm_attrs *a;
	unsigned int shift = max_shift;
	u64 ps = 0, psz = 0, end;

	lockdep_assert_held(&vm->svm.lock);
	a = drm_compute_svm_attr_lookup(&vm->svm.attrs, addr, &ps, &psz);
	if (a)
		shift = min_t(unsigned int, a->granularity + PAGE_SHIFT, max_shift);
	end = ALIGN(addr + 1, 1ULL << shift);
	return a ? min(end, ps + psz) : end;
}
EXPORT_SYMBOL(drm_compute_svm_chunk_end);

/**
 * drm_compute_svm_migrate_to_devmem - move a range to device memory
 * @vm: an SVM VM; its SVM lock held (the mmap lock is taken inside)
 * @dpagemap: the device memory
 * @start: first address
 * @end: end of the range
 *
 * Migrates what is mapped of [@start, @end) in chunks
 * (drm_compute_svm_chunk_end()) that stay inside one CPU mapping, through
 * the pagemap's &drm_pagemap_ops.populate_mm. Mappings that are not
 * private anonymous memory stay where they are: drm_pagemap migrates only
 * those. Best effort, as the uapi says of a prefetch: the mmap lock is
 * dropped between chunks, and a fatal signal ends the walk early.
 *
 * Returns: the chunks that stayed in system memory (device memory full,
 * pages pinned or busy).
 */
unsigned long drm_compute_svm_migrate_to_devmem(struct drm_compute_vm *vm,
						struct drm_pagemap *dpagemap,
						u64 start, u64 end)
{
	struct mm_struct *mm = vm->svm.mm;
	unsigned long failed = 0;
	u64 addr, next;

	lockdep_assert_held(&vm->svm.lock);
	if (!mmget_not_zero(mm))
		return 0;
	/*
	 * The mmap lock is taken per chunk, so that a large prefetch lets
	 * faults and munmap() in between, and a fatal signal stops it.
	 */
	for (addr = start; addr < end && !fatal_signal_pending(current);
	     addr = next) {
		struct vm_area_struct *vma;
		bool migrate;

		if (mmap_read_lock_killable(mm))
			break;
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start >= end) {
			mmap_read_unlock(mm);
			break;
		}
		addr = max_t(u64, addr, vma->vm_start);
		next = min3(drm_compute_svm_chunk_end(vm, addr), (u64)vma->vm_end, end);
		migrate = vma_is_anonymous(vma) && !(vma->vm_flags & VM_SHARED);
		if (migrate && dpagemap->ops->populate_mm(dpagemap, addr, next, mm, 0))
			failed++;
		mmap_read_unlock(mm);
		cond_resched();
	}
	mmput(mm);
	return failed;
}
EXPORT_SYMBOL(drm_compute_svm_migrate_to_devmem);

/*
 * The notifier of one drm_compute_svm_migrate_to_ram() walk. The walk keeps
 * no pfns, so there is nothing to invalidate; moving the sequence makes
 * hmm_range_fault() see a concurrent invalidation and answer -EBUSY, as
 * the mmu_interval_notifier contract has it.
 */
static bool svm_walk_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	mmu_interval_set_seq(mni, cur_seq);
	return true;
}

static const struct mmu_interval_notifier_ops svm_walk_ops = {
	.invalidate = svm_walk_invalidate,
};

/**
 * drm_compute_svm_migrate_to_ram - bring a range back to system memory
 * @vm: an SVM VM; its SVM lock held (the mmap lock is taken inside)
 * @start: first address
 * @end: end of the range
 * @retries: attempts per 2 MiB while HMM answers -EBUSY (its one-second
 *	budget spent under invalidations)
 *
 * Faults every page of [@start, @end) in with HMM for no device, which
 * migrates device-private pages back through their migrate_to_ram; pages
 * never touched are faulted in too (reading zero). VM_IO and VM_PFNMAP
 * mappings are skipped. Best effort: a fatal signal ends the walk. The walk
 * has an interval notifier of its own over [@start, @end), so that
 * hmm_range_fault() retries (up to @retries) whatever invalidates the range
 * meanwhile, its own migrations included.
 */
void drm_compute_svm_migrate_to_ram(struct drm_compute_vm *vm, u64 start, u64 end,
				    unsigned int retries)
{
	/* The walk's own notifier, over the range it walks (svm_walk_ops). */
	struct mmu_interval_notifier walk;
	struct mm_struct *mm = vm->svm.mm;
	struct hmm_range hr = {
		.notifier = &walk,
		.default_flags = HMM_PFN_REQ_FAULT,
	};
	unsigned long *pfns;
	u64 addr, next;

	lockdep_assert_held(&vm->svm.lock);
	if (!IS_ENABLED(CONFIG_HMM_MIRROR))
		return;
	pfns = kvmalloc_array(SZ_2M >> PAGE_SHIFT, sizeof(*pfns), GFP_KERNEL);
	if (!pfns)
		return;
	hr.hmm_pfns = pfns;
	if (!mmget_not_zero(mm))
		goto out;
	if (start >= end ||
	    mmu_interval_notifier_insert(&walk, mm, start, end - start, &svm_walk_ops))
		goto put;
	for (addr = start; addr < end && !fatal_signal_pending(current);
	     addr = next) {
		struct vm_area_struct *vma;
		unsigned int tries = 0;
		int err;

		do {
			hr.notifier_seq = mmu_interval_read_begin(&walk);
			if (mmap_read_lock_killable(mm))
				goto remove;
			vma = find_vma(mm, addr);
			if (!vma || vma->vm_start >= end) {
				mmap_read_unlock(mm);
				goto remove;
			}
			addr = max_t(u64, addr, vma->vm_start);
			next = min3((u64)ALIGN(addr + 1, SZ_2M), (u64)vma->vm_end, end);
			err = 0;
			if (!(vma->vm_flags & (VM_IO | VM_PFNMAP))) {
				hr.start = addr;
				hr.end = next;
				err = hmm_range_fault(&hr);
			}
			mmap_read_unlock(mm);
		} while (err == -EBUSY && ++tries < retries);
	}
remove:
	mmu_interval_notifier_remove(&walk);
put:
	mmput(mm);
out:
	kvfree(pfns);
}
EXPORT_SYMBOL(drm_compute_svm_migrate_to_ram);

/**
 * drm_compute_svm_ioctl - %DRM_COMPUTE_OP_SVM
 * @cfile: the file's compute state
 * @data: &struct drm_compute_svm
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_svm documents.
 */
int drm_compute_svm_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_svm *args = data;
	struct drm_compute_svm_attr *attrs;
	struct drm_compute_vm *vm;
	int ret;

	if (!(cdev->features & DRM_COMPUTE_FEATURE_SVM))
		return -EOPNOTSUPP;
	ret = drm_compute_svm_args_check(&cdev->info, args);
	if (ret)
		return ret;

	vm = drm_compute_vm_lookup(cfile, args->vm_id);
	if (!vm)
		return -ENOENT;
	if (!(vm->flags & DRM_COMPUTE_VM_CREATE_SVM)) {
		ret = -EINVAL;
		goto out_put;
	}
	if (vm->svm.mm != current->mm) {
		ret = -EPERM;
		goto out_put;
	}
	attrs = memdup_array_user(u64_to_user_ptr(args->attrs), args->nattr,
				  sizeof(*attrs));
	if (IS_ERR(attrs)) {
		ret = PTR_ERR(attrs);
		goto out_put;
	}

	mutex_lock(&vm->svm.lock);
	ret = svm_attr_op(vm, args, attrs);
	mutex_unlock(&vm->svm.lock);
	if (!ret && args->op == DRM_COMPUTE_SVM_OP_GET_ATTR &&
	    copy_to_user(u64_to_user_ptr(args->attrs), attrs,
			 array_size(args->nattr, sizeof(*attrs))))
		ret = -EFAULT;
	kfree(attrs);
out_put:
	drm_compute_vm_put(vm);
	return ret;
}
EXPORT_SYMBOL(drm_compute_svm_ioctl);

/* The VM at @id of @cfile, with a reference, if it is an SVM VM; else NULL. */
static struct drm_compute_vm *svm_vm_get(struct drm_compute_file *cfile, unsigned long id)
{
	struct drm_compute_vm *vm = drm_compute_vm_lookup(cfile, id);

	if (vm && !(vm->flags & DRM_COMPUTE_VM_CREATE_SVM)) {
		drm_compute_vm_put(vm);
		vm = NULL;
	}
	return vm;
}

/* The address space of the process that owns @cfile now, for a comparison only. */
static const struct mm_struct *svm_owner_mm(struct drm_compute_file *cfile)
{
	const struct mm_struct *mm = NULL;
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(rcu_dereference(cfile->file->pid), PIDTYPE_PID);
	if (task)
		mm = READ_ONCE(task->mm);
	rcu_read_unlock();
	return mm;
}

/**
 * drm_compute_svm_criu_count - the SVM ranges a checkpoint of a file would
 * save
 * @cfile: the file's compute state
 * @unsaved: set to the SVM VMs a checkpoint cannot save: one that mirrors
 *	another process than the file's owner (a file inherited across
 *	fork() or passed on), which a restore in the owner would bind to the
 *	wrong address space, and one with more than
 *	%DRM_COMPUTE_CRIU_SVM_RANGES_MAX ranges; with
 *	%DRM_COMPUTE_FEATURE_CRIU only (without, every VM is unsaved already)
 *
 * Context: process; takes each SVM VM's &drm_compute_vm_svm.lock, with a
 * reference on the VM and no other helper lock held.
 *
 * Returns: the ranges with attributes other than the defaults, over the
 * file's SVM VMs, those of memory unmapped since the last look left out.
 */
u32 drm_compute_svm_criu_count(struct drm_compute_file *cfile, u32 *unsaved)
{
	const struct mm_struct *owner = svm_owner_mm(cfile);
	bool criu = cfile->cdev->features & DRM_COMPUTE_FEATURE_CRIU;
	struct drm_compute_vm *vm;
	u32 n = 0, ranges;
	unsigned long id;
	void *entry;

	*unsaved = 0;
	xa_for_each(&cfile->vms, id, entry) {
		vm = svm_vm_get(cfile, id);
		if (!vm)
			continue;
		mutex_lock(&vm->svm.lock);
		/* Not the attributes of memory already unmapped. */
		drm_compute_svm_collect(vm);
		ranges = drm_compute_svm_attr_count(&vm->svm.attrs);
		mutex_unlock(&vm->svm.lock);
		n += ranges;
		if (criu && (vm->svm.mm != owner ||
			     ranges > DRM_COMPUTE_CRIU_SVM_RANGES_MAX))
			(*unsaved)++;
		drm_compute_vm_put(vm);
	}
	return n;
}

/* Whether a piece's data may live in device memory. */
static bool svm_loc_device(u32 loc)
{
	return loc != DRM_COMPUTE_SVM_LOCATION_SYSMEM &&
	       loc != DRM_COMPUTE_SVM_LOCATION_UNDEFINED;
}

static int svm_criu_home(void *arg, u64 start, u64 size,
			 const struct drm_compute_svm_attrs *a)
{
	if (svm_loc_device(a->preferred_loc) || svm_loc_device(a->prefetch_loc))
		drm_compute_svm_migrate_to_ram(arg, start, start + size, 4);
	return 0;
}

/**
 * drm_compute_svm_criu_pause - bring the device memory of a file's SVM VMs
 * home for a checkpoint
 * @cfile: the file being paused, its queues stopped
 *
 * Data reaches device memory only where a location attribute names a
 * device (the fault policy's migration, a prefetch): those ranges are
 * faulted back to system memory (drm_compute_svm_migrate_to_ram()), where
 * the checkpoint tool reads the process's memory. Best effort, as a
 * prefetch: what stays (a page busy, a fatal signal) comes home when the
 * tool's access faults on it.
 *
 * Context: process; &drm_compute_file.criu_lock held; takes each SVM VM's
 * &drm_compute_vm_svm.lock and its mm's mmap lock inside.
 */
void drm_compute_svm_criu_pause(struct drm_compute_file *cfile)
{
	struct drm_compute_vm *vm;
	unsigned long id;
	void *entry;

	lockdep_assert_held(&cfile->criu_lock);
	xa_for_each(&cfile->vms, id, entry) {
		vm = svm_vm_get(cfile, id);
		if (!vm)
			continue;
		mutex_lock(&vm->svm.lock);
		drm_compute_svm_collect(vm);
		drm_compute_svm_attr_for_each(&vm->svm.attrs, svm_criu_home, vm);
		mutex_unlock(&vm->svm.lock);
		drm_compute_vm_put(vm);
	}
}

struct svm_criu_list {
	struct drm_compute_vm *vm;
	struct drm_compute_criu_svm_range *e;
	u32 n;
};

static int svm_criu_entry(void *arg, u64 start, u64 size,
			  const struct drm_compute_svm_attrs *a)
{
	struct svm_criu_list *l = arg;
	struct drm_compute_criu_svm_range *e = &l->e[l->n++];

	e->vm_id = l->vm->id;
	e->start = start;
	e->size = size;
	e->nattr = drm_compute_svm_attr_list(&l->vm->svm.attrs, a, e->attrs);
	return 0;
}

/**
 * drm_compute_svm_criu_list - %DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES
 * @cfile: the paused file
 * @args: the call: up to @count entries written at @ptr, @count set to the
 *	  number the file has
 *
 * Each SVM VM's ranges are read under its SVM lock into a kernel array
 * and copied out after, with no helper lock but the CRIU lock held.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EFAULT or -ENOMEM.
 */
int drm_compute_svm_criu_list(struct drm_compute_file *cfile,
			      struct drm_compute_criu_checkpoint *args)
{
	struct drm_compute_criu_svm_range __user *out = u64_to_user_ptr(args->ptr);
	struct svm_criu_list l = {};
	struct drm_compute_vm *vm;
	u32 total = 0, n, put;
	unsigned long id;
	void *entry;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	xa_for_each(&cfile->vms, id, entry) {
		vm = svm_vm_get(cfile, id);
		if (!vm)
			continue;
		mutex_lock(&vm->svm.lock);
		drm_compute_svm_collect(vm);
		n = drm_compute_svm_attr_count(&vm->svm.attrs);
		l = (struct svm_criu_list){ .vm = vm };
		l.e = n ? kvcalloc(n, sizeof(*l.e), GFP_KERNEL) : NULL;
		if (n && !l.e)
			ret = -ENOMEM;
		else
			drm_compute_svm_attr_for_each(&vm->svm.attrs, svm_criu_entry, &l);
		mutex_unlock(&vm->svm.lock);
		drm_compute_vm_put(vm);
		if (ret)
			break;
		put = min(l.n, args->count - min(total, args->count));
		if (put && copy_to_user(out + total, l.e, array_size(put, sizeof(*l.e))))
			ret = -EFAULT;
		kvfree(l.e);
		total += l.n;
		if (ret)
			break;
	}
	if (!ret)
		args->count = total;
	return ret;
}

/* An entry's own rules, its device ids moved from @old_id to this device. */
static int svm_criu_entry_check(struct drm_compute_file *cfile, u32 old_id,
				struct drm_compute_criu_svm_range *e)
{
	struct drm_compute_svm args = {
		.op = DRM_COMPUTE_SVM_OP_SET_ATTR,
		.start = e->start,
		.size = e->size,
		.nattr = e->nattr,
	};
	u32 i;

	if (!e->vm_id || e->reserved || !e->nattr ||
	    e->nattr > DRM_COMPUTE_CRIU_SVM_ATTRS ||
	    drm_compute_svm_args_check(&cfile->cdev->info, &args))
		return -EINVAL;
	for (i = 0; old_id && i < e->nattr; i++) {
		switch (e->attrs[i].type) {
		case DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC:
		case DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC:
		case DRM_COMPUTE_SVM_ATTR_ACCESS:
		case DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE:
		case DRM_COMPUTE_SVM_ATTR_NO_ACCESS:
			if (e->attrs[i].value == old_id)
				e->attrs[i].value = cfile->cdev->id;
			break;
		}
	}
	return 0;
}

/* What svm_criu_restore_vm() does with one VM's entries. */
enum svm_criu_step {
	/* in address order, not overlapping, lists SET_ATTR accepts, on an empty store */
	SVM_CRIU_CHECK,
	/* store them */
	SVM_CRIU_STORE,
	/* empty the store again: clearing every node whole allocates nothing */
	SVM_CRIU_UNDO,
};

/* One step of a restore over the entries of one VM, [@e, @e + @n). */
static int svm_criu_restore_vm(struct drm_compute_file *cfile,
			       const struct drm_compute_criu_svm_range *e, u32 n,
			       enum svm_criu_step step)
{
	struct drm_compute_vm *vm = drm_compute_vm_lookup(cfile, e->vm_id);
	struct drm_compute_vm_svm *svm;
	int ret = 0;
	u32 i;

	if (!vm)
		return -ENOENT;
	svm = &vm->svm;
	if (!(vm->flags & DRM_COMPUTE_VM_CREATE_SVM)) {
		ret = -EINVAL;
		goto out;
	}
	if (svm->mm != current->mm) {
		ret = -EPERM;
		goto out;
	}
	mutex_lock(&svm->lock);
	if (step == SVM_CRIU_UNDO) {
		drm_compute_svm_attr_clear(&svm->attrs, svm->attrs.va_start,
					   svm->attrs.va_end - svm->attrs.va_start);
		goto unlock;
	}
	if (step == SVM_CRIU_CHECK && drm_compute_svm_attr_count(&svm->attrs)) {
		ret = -EEXIST;
		goto unlock;
	}
	for (i = 0; i < n && !ret; i++) {
		if (step == SVM_CRIU_STORE) {
			ret = drm_compute_svm_attr_set(&svm->attrs, e[i].start, e[i].size,
						       e[i].attrs, e[i].nattr);
			continue;
		}
		if (i && e[i].start < e[i - 1].start + e[i - 1].size)
			ret = -EINVAL;
		else
			ret = drm_compute_svm_attr_check(&svm->attrs, e[i].attrs,
							 e[i].nattr, true);
		if (!ret)
			ret = svm_flags_honoured(vm, e[i].attrs, e[i].nattr);
	}
	if (step == SVM_CRIU_STORE && !ret)
		svm->criu_unwatched = true;
unlock:
	mutex_unlock(&svm->lock);
out:
	drm_compute_vm_put(vm);
	return ret;
}

/* The end of the entries of @e[@i]'s VM, which follow it. */
static u32 svm_criu_group_end(const struct drm_compute_criu_svm_range *e, u32 i, u32 n)
{
	u32 j = i + 1;

	while (j < n && e[j].vm_id == e[i].vm_id)
		j++;
	return j;
}

/**
 * drm_compute_svm_criu_restore - %DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES
 * @cfile: the restoring file
 * @args: the call: @count entries at @ptr; @id the checkpointed device's id
 *
 * The entries are read once. They come VM by VM, each VM's in address
 * order; every entry is checked first, as &struct drm_compute_svm's
 * SET_ATTR (the argument, the VM, the attributes, the flags the device
 * honours) but for the CPU mappings, which a restore tool makes after the
 * file, and a VM must hold no attributes yet (-EEXIST). Only then are they
 * stored; no driver callback runs, since a VM being restored has nothing
 * mapped, and nothing migrates. The VM watches its address space from
 * drm_compute_svm_criu_resume() on. All or nothing: a store that fails
 * for want of memory empties the stores of the VMs the call touched, which
 * held nothing before it.
 *
 * Context: process, the restoring process (the VMs' address space);
 * &drm_compute_file.criu_lock held.
 *
 * Returns: 0 or the first failing entry's error: -EINVAL, -ENOENT,
 * -EPERM, -EEXIST, -EOPNOTSUPP, -EFAULT or -ENOMEM.
 */
int drm_compute_svm_criu_restore(struct drm_compute_file *cfile,
				 struct drm_compute_criu_restore *args)
{
	struct drm_compute_criu_svm_range *e;
	u32 i, j, k;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_SVM))
		return -EOPNOTSUPP;
	if (!args->count)
		return 0;
	if (args->count > DRM_COMPUTE_CRIU_SVM_RANGES_MAX)
		return -EINVAL;
	e = vmemdup_array_user(u64_to_user_ptr(args->ptr), args->count, sizeof(*e));
	if (IS_ERR(e))
		return PTR_ERR(e);
	for (i = 0; i < args->count && !ret; i++)
		ret = svm_criu_entry_check(cfile, args->id, &e[i]);
	/* VM by VM, in ascending VM order: [i, j) are one VM's entries. */
	for (i = 0; i < args->count && !ret; i = j) {
		j = svm_criu_group_end(e, i, args->count);
		if (i && e[i].vm_id < e[i - 1].vm_id)
			ret = -EINVAL;
		else
			ret = svm_criu_restore_vm(cfile, &e[i], j - i, SVM_CRIU_CHECK);
	}
	if (ret)
		goto out;
	for (i = 0; i < args->count; i = j) {
		j = svm_criu_group_end(e, i, args->count);
		ret = svm_criu_restore_vm(cfile, &e[i], j - i, SVM_CRIU_STORE);
		if (ret)
			break;
	}
	/* Failed at the VM of entry i: empty it and those before it. */
	for (k = 0; ret && k <= i; k = svm_criu_group_end(e, k, args->count))
		svm_criu_restore_vm(cfile, &e[k], 0, SVM_CRIU_UNDO);
out:
	kvfree(e);
	return ret;
}

/**
 * drm_compute_svm_criu_resume - watch the address space of a file's SVM VMs
 * @cfile: a file leaving a pause or a restore
 *
 * After a restore the ranges' attributes are in the stores but not yet
 * watched (&drm_compute_vm_svm.criu_unwatched): munmap of the memory the
 * tool rebuilt meanwhile was no business of theirs. Each such VM now
 * watches what holds attributes (svm_watch_cover(), from the caller's
 * process, which need not be the VM's: the mm is held with mmget()) and
 * drops the attributes of what is not mapped now (a rescan of the store
 * against the CPU mappings). Other VMs are left alone.
 *
 * Context: process; &drm_compute_file.criu_lock held; takes each SVM VM's
 * lock.
 *
 * Returns: 0, or the first error of an interval notifier insert (the
 * other VMs are still set up).
 */
int drm_compute_svm_criu_resume(struct drm_compute_file *cfile)
{
	struct drm_compute_vm_svm *svm;
	struct drm_compute_vm *vm;
	unsigned long id;
	void *entry;
	u64 lo, hi;
	int ret = 0, err;

	lockdep_assert_held(&cfile->criu_lock);
	xa_for_each(&cfile->vms, id, entry) {
		vm = svm_vm_get(cfile, id);
		if (!vm)
			continue;
		svm = &vm->svm;
		mutex_lock(&svm->lock);
		if (svm->criu_unwatched && mmget_not_zero(svm->mm)) {
			err = 0;
			if (drm_compute_svm_attr_span(&svm->attrs, &lo, &hi)) {
				if (svm->watch_cur >= 0) {
					lo = min(lo, svm->watch_start);
					hi = max(hi, svm->watch_end);
				}
				err = svm_watch_cover(svm, lo, hi);
			}
			/* Unwatched until now: drop what is not mapped. */
			if (!err) {
				svm_attrs_rescan(svm);
				svm->criu_unwatched = false;
			}
			mmput(svm->mm);
			ret = ret ?: err;
		}
		mutex_unlock(&svm->lock);
		drm_compute_vm_put(vm);
	}
	return ret;
}
