/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __DRM_COMPUTE_SVM_MIRROR_H__
#define __DRM_COMPUTE_SVM_MIRROR_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/workqueue_types.h>

#include <drm/drm_gpusvm.h>

struct drm_compute_svm_attr;
struct drm_compute_svm_mirror;
struct drm_compute_vm;
struct drm_device;
struct drm_pagemap;

/**
 * struct drm_compute_svm_range - a range of a mirror
 */
struct drm_compute_svm_range {
	/** @base: the drm_gpusvm range. */
	struct drm_gpusvm_range base;
	/** @pages: its pages and their DMA addresses. */
	struct drm_gpusvm_pages pages;
	/**
	 * @gc_link: in &drm_compute_svm_mirror.gc_list, under
	 * &drm_compute_svm_mirror.gc_lock.
	 */
	struct list_head gc_link;
	/**
	 * @remap_link: in &drm_compute_svm_mirror.remap_list, under
	 * &drm_compute_svm_mirror.gc_lock.
	 */
	struct list_head remap_link;
	/** @mapped: entries written; under the gpusvm notifier lock. */
	bool mapped;
	/**
	 * @read_only: the entries have no write permission; under the
	 * notifier lock.
	 */
	bool read_only;
	/**
	 * @always_mapped: mapped with %DRM_COMPUTE_SVM_MAP_ALWAYS: an
	 * invalidation other than an unmap queues it to be mapped again;
	 * under the notifier lock.
	 */
	bool always_mapped;
};

/**
 * struct drm_compute_svm_mirror_ops - the driver's side of a mirror
 *
 * Small and mechanical: what to write where. What to map, when to migrate
 * and which fault to raise is the helper's (drm_compute_svm_fault_decide()).
 */
struct drm_compute_svm_mirror_ops {
	/**
	 * @prepare: optional. Make sure the page tables for [@start, @end)
	 * exist, so that @map need not allocate. Called with the SVM lock
	 * held, not the notifier lock; may sleep and allocate. Returns 0,
	 * -EAGAIN to have the fault start over, or another negative errno,
	 * which fails the fault.
	 */
	int (*prepare)(struct drm_compute_svm_mirror *m, u64 start, u64 end);
	/**
	 * @map: mandatory. Write the entries of @range from
	 * &drm_compute_svm_range.pages (a &drm_pagemap_addr per mapping of
	 * 2^order pages: system memory by DMA address, the device's own
	 * memory by its protocol) with the DRM_COMPUTE_SVM_MAP_* bits of
	 * @map_flags, and make them visible to the device. Called with the
	 * SVM lock and the gpusvm notifier lock held, the pages checked
	 * valid: must not sleep on reclaim. Returns 0, -EAGAIN to have the
	 * fault start over, or another negative errno.
	 */
	int (*map)(struct drm_compute_svm_mirror *m,
		   struct drm_compute_svm_range *range, u32 map_flags);
	/**
	 * @zap: mandatory. Clear the entries of [@start, @end), so that
	 * once @flush (if any) returns the device no longer reaches the
	 * pages. Called with the notifier lock held, from the MMU notifier
	 * too: must not allocate or take a lock held across an allocation.
	 */
	void (*zap)(struct drm_compute_svm_mirror *m, u64 start, u64 end);
	/**
	 * @flush: optional. After one or more @zap calls: flush the
	 * device's TLBs. Same context as @zap.
	 */
	void (*flush)(struct drm_compute_svm_mirror *m);
	/**
	 * @bind_hole: mandatory. Whether a buffer mapping covers @addr
	 * (false), and else the hole between buffer mappings around it
	 * inside its 2 MiB block, [*@start, *@end). Called with the SVM
	 * lock held, which the driver's binds into an SVM VM also hold.
	 */
	bool (*bind_hole)(struct drm_compute_svm_mirror *m, u64 addr,
			  u64 *start, u64 *end);
	/**
	 * @pagemap_get: optional (a device without memory of its own). The
	 * device's memory, a reference that the mirror keeps until it is
	 * torn down, or an ERR_PTR. Called with the SVM lock held.
	 */
	struct drm_pagemap *(*pagemap_get)(struct drm_compute_svm_mirror *m);
};

/**
 * struct drm_compute_svm_stats - counters of a device's mirrors
 */
struct drm_compute_svm_stats {
	/** @faults: device faults serviced. */
	atomic64_t faults;
	/**
	 * @mapped_ahead: ranges mapped before any access
	 * (%DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED).
	 */
	atomic64_t mapped_ahead;
	/** @migrate_failed: migrations that left data in place. */
	atomic64_t migrate_failed;
	/**
	 * @fault_ns: nanoseconds spent servicing device faults, in
	 * drm_compute_svm_mirror_fault() with the SVM lock held (the garbage
	 * collector, the policy, a migration it asks for, HMM and the
	 * driver's entries), every fault counted, serviced or not. Waiting
	 * for the SVM lock and the device's own fault delivery are not in it:
	 * it is the service a driver's fault path pays the helper.
	 */
	atomic64_t fault_ns;
};

/**
 * struct drm_compute_svm_mirror - a device's mirror of an SVM VM
 *
 * Embedded in the driver's VM. The SVM lock is the VM's
 * &drm_compute_vm_svm.lock, which is also drm_gpusvm's driver lock.
 */
struct drm_compute_svm_mirror {
	/** @gpusvm: the ranges, their notifiers and pages. */
	struct drm_gpusvm gpusvm;
	/** @vm: the compute VM; set at init. */
	struct drm_compute_vm *vm;
	/** @drm: the device, which owns the DMA mappings; set at init. */
	struct drm_device *drm;
	/** @ops: the driver's callbacks; set at init. */
	const struct drm_compute_svm_mirror_ops *ops;
	/**
	 * @owner: the device-private page owner of the device's memory:
	 * HMM hands its pages over as they are; set at init.
	 */
	void *owner;
	/** @stats: the device's counters, or NULL; set at init. */
	struct drm_compute_svm_stats *stats;
	/**
	 * @retries: how often one fault starts over (the range kept being
	 * invalidated) before it raises %DRM_COMPUTE_FAULT_SVM_BUSY; set at
	 * init.
	 */
	unsigned int retries;
	/** @active: set up and not torn down; under the SVM lock. */
	bool active;
	/** @gc_lock: protects @gc_list and @remap_list; taken in the notifier. */
	spinlock_t gc_lock;
	/** @gc_list: ranges the CPU unmapped, to be removed. */
	struct list_head gc_list;
	/** @remap_list: ALWAYS_MAPPED ranges an invalidation cleared. */
	struct list_head remap_list;
	/** @gc_work: removes @gc_list's ranges under the SVM lock. */
	struct work_struct gc_work;
	/** @remap_work: maps @remap_list's ranges again under the SVM lock. */
	struct work_struct remap_work;
	/**
	 * @dpagemap: the device's memory, from the first migration until
	 * teardown (a reference); under the SVM lock.
	 */
	struct drm_pagemap *dpagemap;
};

int drm_compute_svm_mirror_init(struct drm_compute_svm_mirror *m,
				struct drm_compute_vm *vm,
				const struct drm_compute_svm_mirror_ops *ops,
				const char *name, struct drm_device *drm,
				void *owner, struct drm_compute_svm_stats *stats,
				unsigned int retries);
void drm_compute_svm_mirror_detach(struct drm_compute_svm_mirror *m);
void drm_compute_svm_mirror_fini(struct drm_compute_svm_mirror *m);
int drm_compute_svm_mirror_fault(struct drm_compute_svm_mirror *m, u64 addr,
				 bool write);
void drm_compute_svm_mirror_attr_set(struct drm_compute_svm_mirror *m,
				     u64 start, u64 size,
				     const struct drm_compute_svm_attr *attrs,
				     u32 nattr);
void drm_compute_svm_mirror_sync(struct drm_compute_svm_mirror *m);
void drm_compute_svm_mirror_bind_prepare(struct drm_compute_svm_mirror *m,
					 u64 start, u64 size);

#endif /* __DRM_COMPUTE_SVM_MIRROR_H__ */
