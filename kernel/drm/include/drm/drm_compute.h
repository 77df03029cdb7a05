/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __DRM_COMPUTE_H__
#define __DRM_COMPUTE_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_compute_svm.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_ioctl.h>
#include <uapi/drm/drm_compute.h>

struct drm_device;
struct drm_file;
struct drm_gem_object;
struct drm_gpuvm;
struct drm_pagemap;
struct mm_struct;
struct drm_compute_file;
struct drm_compute_vm;
struct drm_compute_userq;
struct dma_buf;
struct dma_buf_attachment;
struct drm_compute_device;
struct drm_compute_criu_map;
struct file;
struct iov_iter;

/**
 * struct drm_compute_dev_info - what a driver tells the DRM compute helpers
 * about one device.
 *
 * Filled by the driver before drm_compute_device_init() and read-only
 * afterwards. Limits of a feature are used only when the driver implements
 * that feature's operations (&struct drm_compute_ops).
 */
struct drm_compute_dev_info {
	/** @vram_size: bytes of device memory, 0 for none. */
	u64 vram_size;
	/** @vram_bar_size: bytes of device memory reachable through a PCI BAR. */
	u64 vram_bar_size;
	/** @placements: DRM_COMPUTE_PLACEMENT_* bits the device allocates. */
	u64 placements;
	/** @va_start: lowest GPU VA userspace may bind. */
	u64 va_start;
	/** @va_end: end (exclusive) of the bindable GPU VA range. */
	u64 va_end;
	/** @page_size: GPU page size, a power of two, at least PAGE_SIZE. */
	u32 page_size;
	/** @max_vms: GPU VMs one file may have at once. */
	u32 max_vms;
	/** @max_queues: user queues one file may have at once. */
	u32 max_queues;
	/** @num_priorities: queue priority levels (at most 16, KFD's range). */
	u32 num_priorities;
	/** @priority_default: level of a normal queue. */
	u32 priority_default;
	/** @priority_privileged: lowest level that needs CAP_SYS_NICE. */
	u32 priority_privileged;
	/** @num_cus: compute units, the width of a queue's CU mask. */
	u32 num_cus;
	/** @queue_formats: bit (1 << DRM_COMPUTE_QUEUE_FORMAT_*) per format. */
	u32 queue_formats;
	/** @doorbell_size: bytes of a queue's doorbell mapping. */
	u32 doorbell_size;
	/** @userq_caps: DRM_COMPUTE_USERQ_CAP_* bits. */
	u64 userq_caps;
	/** @ring_size_min: smallest ring, a power of two. */
	u64 ring_size_min;
	/** @ring_size_max: largest ring, a power of two. */
	u64 ring_size_max;
	/** @ctx_save_size: bytes a queue's context save area needs, 0 for none. */
	u64 ctx_save_size;
	/**
	 * @svm_flags: the DRM_COMPUTE_SVM_FLAG_* bits the device honours
	 * (with %DRM_COMPUTE_FEATURE_SVM: at least
	 * %DRM_COMPUTE_SVM_FLAGS_DEFAULT, the flags of memory never set).
	 * Setting any other flag fails with -EOPNOTSUPP, so that no
	 * application is told a promise the device does not keep.
	 */
	u32 svm_flags;
	/**
	 * @hang_timeout_ms: the device's own hang timeout: a queue with
	 * pending work whose progress (&drm_compute_userq_hw.progress) does
	 * not move this long is reset. 0: the helper's default, its
	 * ``hang_timeout_ms`` parameter. A driver whose hardware has a job
	 * timeout of its own passes that, so that the device has one rule.
	 */
	u32 hang_timeout_ms;
	/**
	 * @semantics: DRM_COMPUTE_SEMANTICS_* bits, where the device departs
	 * from the uapi's rules, reported by the DEVICE query; 0 for a driver
	 * that keeps them all.
	 */
	u64 semantics;
};

/**
 * struct drm_compute_bind - one validated VM_BIND operation.
 *
 * Built by the helper from &struct drm_uapi drm_compute_vm_bind once every
 * rule of the uapi holds; @obj carries a reference for the duration of the
 * call.
 */
struct drm_compute_bind {
	/** @op: DRM_COMPUTE_VM_BIND_OP_MAP or _UNMAP. */
	u32 op;
	/** @flags: DRM_COMPUTE_VM_BIND_* (MAP only). */
	u64 flags;
	/** @obj: the buffer (MAP), NULL (UNMAP). */
	struct drm_gem_object *obj;
	/** @bo_offset: offset into @obj (MAP). */
	u64 bo_offset;
	/** @va: GPU virtual address, page aligned. */
	u64 va;
	/** @range: bytes, page aligned, not zero. */
	u64 range;
};

/**
 * struct drm_compute_criu_map - one buffer mapping of a GPU VM, as a
 * checkpoint saves it (&drm_compute_ops.vm_criu_mappings).
 */
struct drm_compute_criu_map {
	/** @obj: the buffer, with a reference the helper drops. */
	struct drm_gem_object *obj;
	/** @flags: the DRM_COMPUTE_VM_BIND_* flags it was mapped with. */
	u64 flags;
	/** @bo_offset: offset into @obj. */
	u64 bo_offset;
	/** @va: GPU virtual address. */
	u64 va;
	/** @range: bytes. */
	u64 range;
};

/**
 * struct drm_compute_userq_args - validated creation parameters of a queue.
 */
struct drm_compute_userq_args {
	/** @vm: the VM the queue runs in (the helper holds a reference). */
	struct drm_compute_vm *vm;
	/** @format: DRM_COMPUTE_QUEUE_FORMAT_*, one the device reported. */
	u32 format;
	/** @priority: 0 .. &drm_compute_dev_info.num_priorities - 1. */
	u32 priority;
	/**
	 * @cu_mask: bitmap of &drm_compute_dev_info.num_cus bits, at least one
	 * set; owned by the helper, valid for the queue's lifetime.
	 */
	const unsigned long *cu_mask;
	/** @ring_va: ring base, aligned to @ring_size. */
	u64 ring_va;
	/** @ring_size: a power of two within the device's limits. */
	u64 ring_size;
	/** @rptr_va: 8-byte aligned. */
	u64 rptr_va;
	/** @wptr_va: 8-byte aligned, or 0 when the device reads no wptr memory. */
	u64 wptr_va;
	/** @fence_va: 8-byte aligned, or 0 without a fence slot in memory. */
	u64 fence_va;
	/** @ctx_save_va: page aligned, or 0 when the device needs none. */
	u64 ctx_save_va;
	/** @ctx_save_size: at least &drm_compute_dev_info.ctx_save_size. */
	u64 ctx_save_size;
	/**
	 * @restore: the queue is one a checkpoint saved
	 * (%DRM_COMPUTE_CRIU_RESTORE_QUEUES). A driver without
	 * &drm_compute_ops.userq_start makes it off the hardware, as its
	 * @userq_suspend leaves a queue, for @userq_criu_restore to place and
	 * @userq_resume to start.
	 */
	bool restore;
};

/**
 * struct drm_compute_userq_hw - a queue's hardware state, as the driver reads it.
 */
struct drm_compute_userq_hw {
	/** @rptr: read pointer. */
	u64 rptr;
	/** @wptr: write pointer last seen by the device. */
	u64 wptr;
	/**
	 * @progress: a counter that moves whenever the queue moves forward
	 * (a packet or a part of a long one done); hang detection compares it.
	 */
	u64 progress;
	/**
	 * @fence: the last fence value the queue wrote: the value in its
	 * fence slot, on devices with %DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;
	 * elsewhere the value of the last FENCE done, published no later
	 * than @rptr moves past it (0 before the first). USERQ_STATE and a
	 * checkpoint report it as it is, even when it is lower than an
	 * earlier one or not yet told to drm_compute_userq_fence(), so that
	 * a state past a FENCE shows its value.
	 */
	u64 fence;
};

/**
 * struct drm_compute_ops - the driver's side of the DRM compute helpers.
 *
 * Every callback runs in process context and may sleep unless it says
 * otherwise. A feature is reported (and its ioctls answer) only when every
 * callback it marks mandatory is set; drm_compute_device_init() derives
 * the feature bits from this table, never from a driver's claim, and
 * refuses a table that sets some of a feature's mandatory callbacks but not
 * all of them (the log names the missing one).
 */
struct drm_compute_ops {
	/**
	 * @bo_create: USERQ, mandatory. Create a zeroed buffer of @size bytes
	 * in @placement (one bit the device reports) and a handle for it in
	 * @cfile's &drm_file. Arguments are validated. Returns 0, -ENOSPC when
	 * the placement is full, or -ENOMEM.
	 */
	int (*bo_create)(struct drm_compute_file *cfile, u64 size,
			 u64 placement, u32 *handle);
	/**
	 * @bo_bindable: USERQ, optional. Whether @obj can be mapped in a VM of
	 * this device; without the callback, every object whose &drm_gem_object
	 * .dev is this device and that is not an import is.
	 */
	bool (*bo_bindable)(struct drm_gem_object *obj);
	/**
	 * @vm_create: USERQ, mandatory. Allocate a VM for @cfile; the helper
	 * initializes the embedded &struct drm_compute_vm afterwards with
	 * drm_compute_vm_init() semantics (reference and id).
	 */
	struct drm_compute_vm *(*vm_create)(struct drm_compute_file *cfile);
	/**
	 * @vm_free: USERQ, mandatory. The last reference to @vm is gone: tear
	 * down its mappings and free it. No queue runs on it any more. The
	 * memory of @vm must be freed after an RCU grace period (kfree_rcu()
	 * on &drm_compute_vm.rcu): lookups by id run under RCU.
	 */
	void (*vm_free)(struct drm_compute_vm *vm);
	/**
	 * @vm_bind: USERQ, mandatory. Apply @bind synchronously. Called with
	 * no helper lock held; must leave the VM unchanged when it fails.
	 * drm_compute_gpuvm_bind() implements it for drivers on drm_gpuvm.
	 */
	int (*vm_bind)(struct drm_compute_vm *vm,
		       const struct drm_compute_bind *bind);
	/**
	 * @userq_create: USERQ, mandatory. Allocate the driver's queue (which
	 * embeds &struct drm_compute_userq), set up its hardware state and
	 * doorbell, and return it (or an ERR_PTR()), not yet running.
	 * @doorbell_offset receives the mmap offset of the doorbell's page,
	 * @doorbell_pos the doorbell's byte offset in it.
	 */
	struct drm_compute_userq *(*userq_create)(struct drm_compute_file *cfile,
						  const struct drm_compute_userq_args *args,
						  u64 *doorbell_offset,
						  u32 *doorbell_pos);
	/**
	 * @userq_start: USERQ, optional. The helper set the queue up and is
	 * about to publish its id: let it watch its doorbell. Cannot fail.
	 * A driver whose hardware runs the queue from @userq_create on
	 * (amdgpu maps it on MES there) has none: userspace learns the
	 * doorbell only when creation returns. Such a driver makes a restored
	 * queue stopped instead (&drm_compute_userq_args.restore).
	 */
	void (*userq_start)(struct drm_compute_userq *q);
	/**
	 * @userq_stop: USERQ, mandatory. Stop the queue for good (destroy,
	 * file close, hang reset, unplug): when the call returns, the queue
	 * touches no memory and its doorbell is no longer watched. Called
	 * once per queue, with &drm_compute_userq.ctl_lock held, possibly on a
	 * queue that faulted or never got published.
	 */
	void (*userq_stop)(struct drm_compute_userq *q);
	/**
	 * @userq_free: USERQ, mandatory. Free the driver's queue; the last
	 * reference is gone and @userq_stop ran. As for @vm_free, the memory
	 * goes after an RCU grace period (&drm_compute_userq.rcu).
	 */
	void (*userq_free)(struct drm_compute_userq *q);
	/**
	 * @userq_suspend: USERQ, mandatory. Stop the queue where it can resume,
	 * saving its context; afterwards it touches no memory. Called with
	 * &drm_compute_userq.ctl_lock held, on a running queue.
	 */
	int (*userq_suspend)(struct drm_compute_userq *q);
	/**
	 * @userq_resume: USERQ, mandatory. Continue a queue @userq_suspend
	 * stopped. Called with &drm_compute_userq.ctl_lock held. A saved
	 * context that cannot be restored is reported with
	 * drm_compute_userq_fault(), not as an error.
	 */
	int (*userq_resume)(struct drm_compute_userq *q);
	/**
	 * @userq_hw_state: USERQ, mandatory. Read the queue's pointers and
	 * progress counter, and its fence slot on a device with
	 * %DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY. Must not sleep. What it reads
	 * of a queue the driver reported with drm_compute_userq_fault() is
	 * where the queue stopped: the driver publishes that before it
	 * reports the fault.
	 */
	void (*userq_hw_state)(struct drm_compute_userq *q,
			       struct drm_compute_userq_hw *hw);
	/**
	 * @userq_hang_check: USERQ, optional. Ask the hardware whether a
	 * queue whose progress counter stood still for the hang timeout is
	 * hung, for hardware that can tell a long dispatch from a hang
	 * (amdgpu: a queue MES can preempt is running, not hung). Return
	 * true to have the queue reset, false to give it another timeout.
	 * Without it, standing still for the timeout is a hang. Called with
	 * &drm_compute_userq.ctl_lock held, the queue active; may sleep.
	 */
	bool (*userq_hang_check)(struct drm_compute_userq *q);
	/**
	 * @userq_wake: USERQ, optional (mandatory with
	 * %DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP). Look at the doorbell again.
	 */
	void (*userq_wake)(struct drm_compute_userq *q);
	/**
	 * @svm_vm_init: SVM, mandatory. Set up the mirror of the calling
	 * process's address space (current->mm, also in
	 * &drm_compute_vm_svm.mm) for @vm, which userspace creates with
	 * %DRM_COMPUTE_VM_CREATE_SVM. The helper has set up
	 * &drm_compute_vm.svm (its lock and attribute store) already; the VM
	 * is not published yet. Called once per such VM, with
	 * &drm_compute_file.lock held. Returns 0 or a negative errno, which
	 * fails the creation; @svm_vm_fini is then not called.
	 */
	int (*svm_vm_init)(struct drm_compute_vm *vm);
	/**
	 * @svm_vm_fini: SVM, mandatory. The last reference to a VM
	 * @svm_vm_init set up is gone and no queue runs on it: tear the
	 * mirror down. Called before @vm_free, while &drm_compute_vm.svm is
	 * still valid (the helper tears it down afterwards).
	 */
	void (*svm_vm_fini)(struct drm_compute_vm *vm);
	/**
	 * @svm_attr_set: SVM, mandatory. Userspace set the @nattr attributes
	 * @attrs on [@start, @start + @size) of @vm, and the VM's attribute
	 * store holds them already: act on them (the mappings whose access,
	 * read-only or exec rule changed must follow the new attributes by
	 * the next device access; %DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC asks for
	 * a migration now). The helper validated everything: the range is
	 * page aligned, inside the VM's range and covered by CPU mappings
	 * that can be mirrored. Called with &drm_compute_vm_svm.lock held,
	 * from the ioctl of the VM's own process (current->mm is the VM's).
	 * Cannot fail: a prefetch that cannot place the data leaves it where
	 * it is.
	 */
	void (*svm_attr_set)(struct drm_compute_vm *vm, u64 start, u64 size,
			     const struct drm_compute_svm_attr *attrs,
			     u32 nattr);
	/**
	 * @svm_sync: SVM, optional. Catch up with the CPU mappings before an
	 * SVM operation: a driver that queues the ranges an MMU notifier saw
	 * unmapped (where it cannot remove them) removes them here, and one
	 * that keeps %DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED ranges mapped
	 * maps again those an invalidation cleared. The
	 * helper has dropped the attributes of unmapped memory already
	 * (drm_compute_svm_collect()). Called with &drm_compute_vm_svm.lock
	 * held, from the ioctl of the VM's own process.
	 */
	void (*svm_sync)(struct drm_compute_vm *vm);
	/**
	 * @p2p_bo_create: P2P_EXPORT, mandatory. As @bo_create, for a buffer
	 * made with the DRM_COMPUTE_BO_EXPORT_* flag @flags (validated: one
	 * flag, and the placement it takes). The buffer embeds a
	 * &struct drm_compute_p2p_export set up with
	 * drm_compute_p2p_export_init(), and its dma-buf operations call
	 * drm_compute_p2p_attach(), drm_compute_p2p_detach(),
	 * drm_compute_p2p_pin() and drm_compute_p2p_unpin().
	 */
	int (*p2p_bo_create)(struct drm_compute_file *cfile, u64 size,
			     u64 placement, u32 flags, u32 *handle);
	/**
	 * @p2p_export: P2P_EXPORT, mandatory. The export state of @obj, or
	 * NULL when @obj is not a buffer @p2p_bo_create made. Must not sleep.
	 */
	struct drm_compute_p2p_export *(*p2p_export)(struct drm_gem_object *obj);
	/**
	 * @p2p_move_to_host: P2P_EXPORT, mandatory. Move @obj, exported as
	 * @dmabuf, from device memory to system memory, so that an importer
	 * that cannot reach device memory can use it. GPU VM and CPU mappings,
	 * those of @dmabuf's file included, must follow the move (the data
	 * stays the same for every user). Before the call the helper has told
	 * every importer (dma_buf_invalidate_mappings()) and waited for every
	 * fence of the reservation object, so no importer uses the old memory.
	 * Called with the object's reservation lock held, never while the
	 * buffer is pinned. A driver whose move needs a lock that nests
	 * outside reservation locks (an engine that takes mmap_lock) takes it
	 * in its attach callback, before drm_compute_p2p_attach(), and, when
	 * drm_compute_p2p_may_move() says a move is coming, waits for the
	 * buffer's fences before taking it, so that the helper's wait does
	 * not hold that lock across another device's work.
	 * Returns 0, or a negative errno with @obj unchanged.
	 */
	int (*p2p_move_to_host)(struct drm_gem_object *obj,
				struct dma_buf *dmabuf);
	/**
	 * @p2p_check: P2P_EXPORT, optional. The driver's own conditions for a
	 * peer-to-peer attachment of @obj by the importer of @attach, after
	 * the helper found a PCI path: DRM_COMPUTE_P2P_REASON_DMA_MASK,
	 * _BAR or _DRIVER to rule it out, _NONE to allow it. Without the
	 * callback the helper only checks that the buffer fits in
	 * &drm_compute_dev_info.vram_bar_size. Called with the reservation
	 * lock held.
	 */
	u32 (*p2p_check)(struct drm_gem_object *obj,
			 struct dma_buf_attachment *attach);
	/**
	 * @p2p_interconnect: P2P_EXPORT, optional. Whether the importer of
	 * @attach reaches @obj's device memory over a link of the driver's
	 * own (amdgpu's XGMI) instead of PCIe: the helper then skips the
	 * BAR, PCI path and IOMMU checks, and only @p2p_check applies.
	 * Called with the reservation lock held; must not sleep.
	 */
	bool (*p2p_interconnect)(struct drm_gem_object *obj,
				 struct dma_buf_attachment *attach);
	/**
	 * @bo_criu_placement: CRIU, mandatory. The DRM_COMPUTE_PLACEMENT_*
	 * bit @obj, one of this device's buffers that is not an import, lives
	 * in now; 0 for an object the driver cannot save (which then counts as
	 * unsaved). Must not sleep.
	 */
	u64 (*bo_criu_placement)(struct drm_gem_object *obj);
	/**
	 * @bo_criu_copy: CRIU, mandatory. Copy iov_iter_count(@iter) bytes
	 * between @obj, from byte @offset on, and @iter: out of the buffer for
	 * a checkpoint (an ITER_DEST iterator over the caller's memory), into
	 * it for a restore (ITER_SOURCE). The helper checked the range
	 * against the buffer's size, holds a reference on @obj, and no queue
	 * of the file runs (paused or restoring). For a buffer made for
	 * export, whose memory can move, the helper holds @obj's reservation
	 * and @iter is a kernel buffer of at most 64 KiB. Copy straight
	 * between the buffer's memory and @iter where the CPU reaches it; a
	 * driver whose memory it does not reach copies through the device in
	 * bounded, fenced chunks. Returns 0, -EFAULT when @iter's memory
	 * cannot be reached, or the driver's error.
	 */
	int (*bo_criu_copy)(struct drm_gem_object *obj, u64 offset,
			    struct iov_iter *iter);
	/**
	 * @vm_criu_mappings: CRIU, mandatory. The buffer mappings of @vm, by
	 * address: fill up to @max entries of @maps, each with a reference on
	 * its object (the helper drops it), and set *@n to the number @vm has.
	 * drm_compute_gpuvm_criu_mappings() implements it for drivers on
	 * drm_gpuvm. Returns 0, -EINTR or -ENOMEM.
	 */
	int (*vm_criu_mappings)(struct drm_compute_vm *vm,
				struct drm_compute_criu_map *maps, u32 max,
				u32 *n);
	/**
	 * @file_criu_unsaved: CRIU, optional. The number of objects of the
	 * file that a checkpoint through the helper would not save, or would
	 * save without something the driver's own ioctls gave them (a mapping
	 * the helper does not list); they count in
	 * &drm_compute_criu_info.unsaved, so that the file is refused rather
	 * than restored without them. Drivers whose files hold nothing but
	 * what the helper made leave it NULL. Called with the file's
	 * &drm_compute_file.criu_lock held and no other helper lock. Returns
	 * the count, or -EINTR or another negative error code.
	 */
	int (*file_criu_unsaved)(struct drm_compute_file *cfile);
	/**
	 * @userq_criu_restore: CRIU, optional: with it a checkpoint saves the
	 * device's user queues and a restore makes them again
	 * (%DRM_COMPUTE_USERQ_CAP_CRIU); without it they count as unsaved.
	 * Put @q, which @userq_create just made and which has not started,
	 * where a checkpoint found it: suspended, with the read and write
	 * pointers and the completed fence value of @hw (@hw->progress is
	 * 0), so that @userq_resume continues it from the context the
	 * checkpoint's @userq_suspend left in its context save area, which
	 * the restore wrote back with the buffers. Called with the file's
	 * &drm_compute_file.criu_lock and &drm_compute_file.lock held.
	 * Returns 0 or a negative error code.
	 */
	int (*userq_criu_restore)(struct drm_compute_userq *q,
				  const struct drm_compute_userq_hw *hw);
};

/**
 * struct drm_compute_p2p_facts - what the placement decision for one
 * importer looks at (drm_compute_p2p_decide()).
 *
 * Gathered by the helper at attach time from the dma-buf attachment, the
 * PCI topology and the driver; a plain structure so that KUnit can tabulate
 * the decision.
 */
struct drm_compute_p2p_facts {
	/** @host_only: the buffer is %DRM_COMPUTE_BO_EXPORT_HOST_ONLY. */
	bool host_only;
	/** @importer_p2p: the importer attached with allow_peer2peer. */
	bool importer_p2p;
	/** @exporter_bar: the exporter is PCI and has a BAR over its memory. */
	bool exporter_bar;
	/** @importer_pci: the importer is a PCI device. */
	bool importer_pci;
	/**
	 * @interconnect: the importer reaches device memory over the
	 * driver's own link (&drm_compute_ops.p2p_interconnect), not PCIe.
	 */
	bool interconnect;
	/**
	 * @common_switch: exporter and importer share an upstream bridge
	 * below the root ports (a switch); the path avoids the host bridge.
	 */
	bool common_switch;
	/** @iommu_translates: the importer's IOMMU domain translates. */
	bool iommu_translates;
	/** @distance: pci_p2pdma_distance(); negative when not supported. */
	int distance;
	/** @driver_reason: what &drm_compute_ops.p2p_check answered. */
	u32 driver_reason;
};

/**
 * struct drm_compute_p2p_export - the export state of a buffer made with a
 * DRM_COMPUTE_BO_EXPORT_* flag, embedded in the driver's buffer.
 *
 * Every field is protected by the buffer's reservation lock
 * (&drm_gem_object.resv), which the dma-buf core holds around pin, unpin
 * and map, and which the helper takes in attach and detach.
 */
struct drm_compute_p2p_export {
	/** @flags: the DRM_COMPUTE_BO_EXPORT_* flag. */
	u32 flags;
	/** @placement: DRM_COMPUTE_PLACEMENT_* where the buffer lives now. */
	u64 placement;
	/** @reason: DRM_COMPUTE_P2P_REASON_* why it lives there. */
	u32 reason;
	/** @moves: moves to system memory. */
	u32 moves;
	/** @refused: attaches refused. */
	u32 refused;
	/** @refused_reason: reason of the last refusal. */
	u32 refused_reason;
	/** @pinned: pins by importers and kernel mappings; no move while set. */
	u32 pinned;
	/** @kernel_maps: kernel CPU mappings (dma_buf_vmap()), in @pinned. */
	u32 kernel_maps;
	/** @invalidations: times the importers were told to map again. */
	u32 invalidations;
	/**
	 * @revoked: drm_compute_p2p_revoke() took the buffer from its
	 * importers: no attach, pin or map succeeds any more.
	 */
	bool revoked;
	/**
	 * @pauses: checkpoints that paused a file holding the buffer
	 * (drm_compute_p2p_pause()): while non-zero, its importers have been
	 * told, and no attach, pin or map succeeds (-EBUSY).
	 */
	u32 pauses;
	/** @decided_by: name of the importer that moved the buffer. */
	char decided_by[32];
	/** @importers: &struct drm_compute_p2p_importer, oldest first. */
	struct list_head importers;
};

void drm_compute_p2p_export_init(struct drm_compute_p2p_export *exp,
				 u32 flags, u64 placement);
u32 drm_compute_p2p_decide(const struct drm_compute_p2p_facts *f);
bool drm_compute_p2p_may_move(struct drm_compute_device *cdev,
			      struct drm_gem_object *obj,
			      struct dma_buf_attachment *attach);
int drm_compute_p2p_attach(struct drm_compute_device *cdev,
			   struct drm_gem_object *obj,
			   struct dma_buf_attachment *attach);
void drm_compute_p2p_detach(struct drm_gem_object *obj,
			    struct dma_buf_attachment *attach);
int drm_compute_p2p_map_check(struct dma_buf_attachment *attach);
int drm_compute_p2p_pause(struct drm_compute_p2p_export *exp,
			  struct dma_resv *resv);
void drm_compute_p2p_resume(struct drm_compute_p2p_export *exp,
			    struct dma_resv *resv);
int drm_compute_p2p_pin(struct drm_compute_p2p_export *exp,
			struct dma_buf_attachment *attach);
void drm_compute_p2p_unpin(struct drm_compute_p2p_export *exp,
			   struct dma_buf_attachment *attach);
bool drm_compute_p2p_is_peer(struct dma_buf_attachment *attach);
void drm_compute_p2p_invalidate(struct drm_compute_p2p_export *exp);
void drm_compute_p2p_revoke(struct drm_compute_p2p_export *exp,
			    struct dma_resv *resv);

/**
 * struct drm_compute_device - the DRM compute state of one device.
 *
 * Embedded in the driver's device and set up by drm_compute_device_init().
 */
struct drm_compute_device {
	/** @drm: the DRM device. */
	struct drm_device *drm;
	/**
	 * @id: the device's id (&drm_compute_query_device.device_id), from
	 * init to fini; never 0 nor %DRM_COMPUTE_SVM_LOCATION_UNDEFINED.
	 */
	u32 id;
	/** @ops: the driver's operations. */
	const struct drm_compute_ops *ops;
	/** @info: the driver's description, a copy. */
	struct drm_compute_dev_info info;
	/** @features: DRM_COMPUTE_FEATURE_* derived from @ops at init. */
	u64 features;
	/**
	 * @userq_lock: protects @userqs. Taken in process context; nests
	 * inside no other helper lock.
	 */
	struct mutex userq_lock;
	/** @userqs: every live queue of every file, protected by @userq_lock. */
	struct list_head userqs;
	/** @watchdog: hang detection, runs while @userqs is not empty. */
	struct delayed_work watchdog;
	/**
	 * @fence_poll: with %DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY, reads the
	 * fence slots of queues with pending signals every millisecond.
	 */
	struct delayed_work fence_poll;
	/**
	 * @reset_work: stops the queues a device reset made HUNG
	 * (drm_compute_device_reset()), outside the driver's reset path.
	 */
	struct work_struct reset_work;
	/**
	 * @criu_share_lock: serializes the restore sessions' buffer tables
	 * (&drm_compute_criu_session.bos), so that one entry of a shared
	 * buffer makes it and every other takes it. Taken inside
	 * &drm_compute_file.criu_lock, before the driver's buffer creation.
	 */
	struct mutex criu_share_lock;
	/**
	 * @criu_sessions: id -> &struct drm_compute_criu_session, the restore
	 * sessions open on the device; changed under @criu_share_lock.
	 */
	struct xarray criu_sessions;
	/** @criu_next_session: the cyclic allocator's next session id. */
	u32 criu_next_session;
};

/**
 * struct drm_compute_file - the DRM compute state of one open file.
 *
 * Embedded in the driver's per-file data; set up at open by
 * drm_compute_file_init() and torn down at postclose by
 * drm_compute_file_fini().
 */
struct drm_compute_file {
	/** @cdev: the device. */
	struct drm_compute_device *cdev;
	/** @file: the DRM file. */
	struct drm_file *file;
	/**
	 * @lock: serializes creation and destruction of VMs and queues of
	 * this file (the id tables and &drm_compute_vm.num_queues). Never held
	 * while waiting for a queue.
	 */
	struct mutex lock;
	/** @vms: id -> &struct drm_compute_vm; readers use RCU (xa_load). */
	struct xarray vms;
	/** @queues: id -> &struct drm_compute_userq; readers use RCU. */
	struct xarray queues;
	/**
	 * @criu_lock: serializes the checkpoint phases of this file
	 * (%DRM_COMPUTE_OP_CRIU_PAUSE) with each other and with its release.
	 * Taken before @lock and before any queue's or buffer's lock.
	 */
	struct mutex criu_lock;
	/**
	 * @paused: a checkpoint paused the file; no queue may be created
	 * until it resumes. Written under @criu_lock and @lock, read under
	 * either.
	 */
	bool paused;
	/**
	 * @paused_bos: the exported buffers the pause took from their
	 * importers, each with a reference; @nr_paused_bos of them. Under
	 * @criu_lock.
	 */
	struct drm_gem_object **paused_bos;
	/** @nr_paused_bos: entries of @paused_bos. */
	u32 nr_paused_bos;
	/**
	 * @restoring: a restore is rebuilding the file
	 * (%DRM_COMPUTE_CRIU_RESTORE_BEGIN until _END): every ioctl but
	 * %DRM_COMPUTE_OP_CRIU_RESTORE fails with -EBUSY
	 * (drm_compute_ioctl_check()). Written under @criu_lock, read
	 * without a lock.
	 */
	bool restoring;
	/**
	 * @criu_session: the restore session this file owns
	 * (%DRM_COMPUTE_CRIU_RESTORE_SESSION), 0 for none; closed with the
	 * file. Under @criu_lock.
	 */
	u32 criu_session;
};

/**
 * DRM_COMPUTE_SVM_UNMAPPED_MAX - unmapped intervals an SVM VM records
 * between two collections before it rescans its whole attribute store.
 */
#define DRM_COMPUTE_SVM_UNMAPPED_MAX	16

/**
 * struct drm_compute_vm_svm - the SVM part of a GPU VM.
 *
 * Valid in a VM created with %DRM_COMPUTE_VM_CREATE_SVM (set in
 * &drm_compute_vm.flags), from before &drm_compute_ops.svm_vm_init until
 * after &drm_compute_ops.svm_vm_fini.
 */
struct drm_compute_vm_svm {
	/**
	 * @lock: serialises @attrs, and is the lock the store checks with
	 * lockdep. The helper holds it across each SVM operation, including
	 * &drm_compute_ops.svm_attr_set. The driver takes it to read the
	 * attributes (in its GPU fault handler, say) and may make it its SVM
	 * lock (drm_gpusvm_driver_set_lock()). Taken outside the mmap lock;
	 * never taken in an MMU notifier.
	 */
	struct mutex lock;
	/**
	 * @attrs: the attributes userspace set, over the device's
	 * [&drm_compute_dev_info.va_start, va_end); every device has
	 * %DRM_COMPUTE_SVM_MODE_ACCESS where none was set.
	 */
	struct drm_compute_svm_attr_store attrs;
	/**
	 * @mm: the address space the VM mirrors, its creator's; held with
	 * mmgrab() (the structure, not the address space) until the VM is
	 * freed, so that a comparison with current->mm is sound.
	 */
	struct mm_struct *mm;
	/**
	 * @watch: interval notifiers that record what munmap and mremap
	 * remove, so that the attributes of that memory go
	 * (drm_compute_svm_collect()). One is active at a time (@watch_cur),
	 * over the span of the memory that has attributes
	 * [@watch_start, @watch_end), so that munmap elsewhere in the process
	 * does not come through it; the other is the next span, inserted
	 * before the active one is removed.
	 */
	struct drm_compute_svm_watch {
		/** @watch.notifier: the interval notifier. */
		struct mmu_interval_notifier notifier;
		/** @watch.svm: back to this structure. */
		struct drm_compute_vm_svm *svm;
	} watch[2];
	/** @watch_cur: the active entry of @watch, or -1 for none (under @lock). */
	int watch_cur;
	/** @watch_start: first address the active watch covers (under @lock). */
	u64 watch_start;
	/** @watch_end: end of what the active watch covers (under @lock). */
	u64 watch_end;
	/** @unmap_lock: protects @unmapped, @nr_unmapped and @rescan. */
	spinlock_t unmap_lock;
	/** @unmapped: intervals unmapped since the last collection. */
	struct {
		/** @unmapped.start: first address. */
		u64 start;
		/** @unmapped.end: end, exclusive. */
		u64 end;
	} unmapped[DRM_COMPUTE_SVM_UNMAPPED_MAX];
	/** @nr_unmapped: entries used in @unmapped. */
	unsigned int nr_unmapped;
	/** @rescan: @unmapped overflowed: check the whole store. */
	bool rescan;
	/** @collect_work: runs drm_compute_svm_collect() under @lock. */
	struct work_struct collect_work;
	/**
	 * @criu_unwatched: a restore stored attributes that no watcher saw
	 * the address space for: the next drm_compute_svm_criu_resume()
	 * watches them and rescans the store (under @lock).
	 */
	bool criu_unwatched;
};

/**
 * struct drm_compute_vm - the helper's part of a GPU VM.
 *
 * Embedded in the driver's VM (vcompute embeds a &struct drm_gpuvm beside
 * it; amdgpu wraps its per-file &struct amdgpu_vm).
 */
struct drm_compute_vm {
	/** @cdev: the device; outlives the VM. */
	struct drm_compute_device *cdev;
	/** @cfile: the file the VM belongs to; valid while its id is published. */
	struct drm_compute_file *cfile;
	/** @ref: queues and in-flight ioctls hold references. */
	struct kref ref;
	/** @id: the VM's id in @cfile. */
	u32 id;
	/** @num_queues: queues running on the VM, protected by @cfile's lock. */
	u32 num_queues;
	/**
	 * @flags: DRM_COMPUTE_VM_CREATE_* the VM was created with; set before
	 * the VM is published, constant afterwards.
	 */
	u32 flags;
	/** @svm: with %DRM_COMPUTE_VM_CREATE_SVM in @flags, its SVM state. */
	struct drm_compute_vm_svm svm;
	/** @rcu: for the driver's kfree_rcu() in &drm_compute_ops.vm_free. */
	struct rcu_head rcu;
};

/**
 * struct drm_compute_userq - the helper's part of a user queue.
 *
 * Embedded in the driver's queue. The helper owns the lifetime (@ref), the
 * state machine, the fence value and its waiters, pending sync-object
 * signals and hang detection; the driver owns the hardware.
 */
struct drm_compute_userq {
	/** @cdev: the device; outlives the queue. */
	struct drm_compute_device *cdev;
	/** @cfile: the file the queue belongs to; valid until @destroyed. */
	struct drm_compute_file *cfile;
	/** @vm: the VM, referenced for the queue's lifetime. */
	struct drm_compute_vm *vm;
	/** @ref: lifetime; waiters and the watchdog hold references. */
	struct kref ref;
	/** @id: the queue's id in @cfile. */
	u32 id;
	/** @priority: the creation priority. */
	u32 priority;
	/** @cu_mask: the queue's CU bitmap. */
	unsigned long *cu_mask;
	/**
	 * @create: the arguments the queue was created with, its doorbell
	 * included, for a checkpoint (@create.cu_mask_ptr means nothing).
	 */
	struct drm_compute_userq_create create;
	/** @fence_context: dma-fence context of the fences the queue adds. */
	u64 fence_context;
	/**
	 * @ctl_lock: serializes suspend, resume, stop and hang reset of this
	 * queue. Taken before @lock, never inside it.
	 */
	struct mutex ctl_lock;
	/**
	 * @lock: protects @status, @fault_reason, @fault_va, @fence and
	 * @signals. A spinlock: the driver's engine reports fences and faults
	 * through it.
	 */
	spinlock_t lock;
	/** @status: DRM_COMPUTE_USERQ_STATUS_SUSPENDED, _FAULTED, _HUNG, _LOST or 0 (active). */
	u32 status;
	/** @fault_reason: DRM_COMPUTE_FAULT_*. */
	u32 fault_reason;
	/** @fault_va: address of the fault. */
	u64 fault_va;
	/** @fence: last fence value the queue wrote. */
	u64 fence;
	/** @signals: pending &drm_compute_userq_signal requests, by value. */
	struct list_head signals;
	/** @num_signals: entries in @signals. */
	u32 num_signals;
	/** @destroyed: set once the queue left its file, under @lock. */
	bool destroyed;
	/** @stopped: &drm_compute_ops.userq_stop ran, under @ctl_lock. */
	bool stopped;
	/**
	 * @criu_held: a checkpoint paused the queue's file
	 * (%DRM_COMPUTE_OP_CRIU_PAUSE): only its resume may continue the
	 * queue. Under @ctl_lock.
	 */
	bool criu_held;
	/**
	 * @criu_suspended: the pause suspended the queue, so its resume
	 * continues it. Under @ctl_lock.
	 */
	bool criu_suspended;
	/** @wq: waiters on @fence and @status. */
	wait_queue_head_t wq;
	/** @link: in &drm_compute_device.userqs, protected by its lock. */
	struct list_head link;
	/** @hang_progress: progress counter at the last watchdog look. */
	u64 hang_progress;
	/**
	 * @hang_since: jiffies since which @hang_progress has not moved, or
	 * since the driver last said the queue runs; under
	 * &drm_compute_device.userq_lock.
	 */
	unsigned long hang_since;
	/** @rcu: for the driver's kfree_rcu() in &drm_compute_ops.userq_free. */
	struct rcu_head rcu;
};

int drm_compute_device_init(struct drm_compute_device *cdev,
			    struct drm_device *drm,
			    const struct drm_compute_dev_info *info,
			    const struct drm_compute_ops *ops);
void drm_compute_device_fini(struct drm_compute_device *cdev);
void drm_compute_device_unplug(struct drm_compute_device *cdev);
unsigned int drm_compute_device_reset(struct drm_compute_device *cdev);

void drm_compute_file_init(struct drm_compute_file *cfile,
			   struct drm_compute_device *cdev,
			   struct drm_file *file);
void drm_compute_file_release(struct drm_compute_file *cfile);
void drm_compute_file_fini(struct drm_compute_file *cfile);

/* VMs (drm_compute_vm.c) */
void drm_compute_vm_put(struct drm_compute_vm *vm);
int drm_compute_bind_check(const struct drm_compute_dev_info *info,
			   const struct drm_compute_vm_bind *args,
			   u64 bo_size);
int drm_compute_gpuvm_bind(struct drm_gpuvm *gpuvm,
			   const struct drm_compute_bind *bind);
void drm_compute_gpuvm_unmap_all(struct drm_gpuvm *gpuvm);
int drm_compute_gpuvm_criu_mappings(struct drm_gpuvm *gpuvm,
				    struct drm_compute_criu_map *maps, u32 max,
				    u32 *n);

/**
 * struct drm_compute_gpuvm_pt_ops - page-table callbacks of a driver on
 * drm_gpuvm, used by drm_compute_gpuvm_bind().
 *
 * A driver on drm_gpuvm stores a pointer to its table in the
 * &struct drm_gpuvm_ops it passes to drm_gpuvm_init() by embedding both in
 * &struct drm_compute_gpuvm_funcs.
 */
struct drm_compute_gpuvm_pt_ops {
	/**
	 * @prepare: allocate what mapping [@va, @va + @range) will need.
	 * May fail; a failure must leave no mapping visible.
	 */
	int (*prepare)(struct drm_gpuvm *gpuvm, u64 va, u64 range);
	/**
	 * @map: write the page-table entries for [@va, @va + @range) to
	 * @obj's pages from @offset with DRM_COMPUTE_VM_BIND_* @flags.
	 * Cannot fail (@prepare ran).
	 */
	void (*map)(struct drm_gpuvm *gpuvm, u64 va, u64 range,
		    struct drm_gem_object *obj, u64 offset, u64 flags);
	/**
	 * @unmap: clear the entries of [@va, @va + @range); when it returns,
	 * no queue reaches the old pages through them. Cannot fail.
	 */
	void (*unmap)(struct drm_gpuvm *gpuvm, u64 va, u64 range);
};

/**
 * struct drm_compute_gpuvm_funcs - what a driver on drm_gpuvm passes to
 * drm_gpuvm_init() when it uses drm_compute_gpuvm_bind().
 */
struct drm_compute_gpuvm_funcs {
	/** @gpuvm: the drm_gpuvm callbacks (vm_free is the driver's). */
	struct drm_gpuvm_ops gpuvm;
	/** @pt: the page-table callbacks. */
	struct drm_compute_gpuvm_pt_ops pt;
};

/* User queues (drm_compute_userq.c) */
void drm_compute_userq_get(struct drm_compute_userq *q);
void drm_compute_userq_put(struct drm_compute_userq *q);
void drm_compute_userq_fence(struct drm_compute_userq *q, u64 value);
void drm_compute_userq_fault(struct drm_compute_userq *q, u32 reason, u64 va);
int drm_compute_priority_check(const struct drm_compute_dev_info *info,
			       u32 priority, bool privileged);
int drm_compute_cu_mask_parse(const struct drm_compute_dev_info *info,
			      const u32 *words, u32 count,
			      unsigned long *mask);

/* The ioctl handlers: DRM_COMPUTE_IOCTLS() wires them into a driver's table. */
int drm_compute_query_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_bo_create_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_bo_mmap_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_vm_create_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_vm_destroy_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_vm_bind_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_userq_create_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_userq_destroy_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_userq_control_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_userq_state_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_userq_wait_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_userq_signal_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_svm_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_p2p_report_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_criu_info_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_criu_pause_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_criu_checkpoint_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_criu_restore_ioctl(struct drm_compute_file *cfile, void *data);
int drm_compute_ioctl_check(struct drm_compute_file *cfile, unsigned int cmd);
long drm_compute_compat_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg);
void drm_compute_svm_collect(struct drm_compute_vm *vm);
u64 drm_compute_svm_chunk_end(struct drm_compute_vm *vm, u64 addr);
unsigned long drm_compute_svm_migrate_to_devmem(struct drm_compute_vm *vm,
						struct drm_pagemap *dpagemap,
						u64 start, u64 end);
void drm_compute_svm_migrate_to_ram(struct drm_compute_vm *vm, u64 start, u64 end,
				    unsigned int retries);

int drm_compute_call(struct drm_device *dev, struct drm_compute_file *cfile,
		     void *data, int (*fn)(struct drm_compute_file *cfile, void *data));

/* Query payload for one id; shared with KUnit (drm_compute_query.c). */
int drm_compute_query_fill(const struct drm_compute_device *cdev, u32 query,
			   void *buf, size_t size);

/**
 * DRM_COMPUTE_DEFINE_IOCTLS - define a driver's compute ioctl handlers
 * @prefix: the driver's prefix, e.g. vcompute
 *
 * Declares prefix_compute_file(), which the driver defines to return the
 * &struct drm_compute_file of a &struct drm_file, and defines one static
 * handler per operation, prefix_compute_<op>, each calling the helper with
 * that file's compute state inside drm_dev_enter() (drm_compute_call()),
 * so that an unplug waits for it; only USERQ_WAIT, which sleeps, runs
 * outside and is woken by drm_compute_device_unplug() instead. Use it
 * once, then DRM_COMPUTE_IOCTLS() in the driver's &struct drm_ioctl_desc
 * table.
 *
 * It also defines prefix_compute_ioctl() and prefix_compute_compat_ioctl()
 * for the driver's &struct file_operations (in place of drm_ioctl() and
 * drm_compat_ioctl()): they refuse DRM core's ioctls on a file being
 * restored (drm_compute_ioctl_check()), which the helper's own handlers
 * refuse in drm_compute_call(). A driver with an ioctl wrapper of its own
 * calls drm_compute_ioctl_check() there, and refuses its own ioctls that
 * bypass drm_compute_call() while the file is restoring.
 */
#define DRM_COMPUTE_DEFINE_IOCTLS(prefix)					\
static struct drm_compute_file *prefix##_compute_file(struct drm_file *file);	\
static int prefix##_compute_query(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_query_ioctl);		\
}									\
static int prefix##_compute_bo_create(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_bo_create_ioctl);		\
}									\
static int prefix##_compute_bo_mmap(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_bo_mmap_ioctl);		\
}									\
static int prefix##_compute_vm_create(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_vm_create_ioctl);		\
}									\
static int prefix##_compute_vm_destroy(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_vm_destroy_ioctl);		\
}									\
static int prefix##_compute_vm_bind(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_vm_bind_ioctl);		\
}									\
static int prefix##_compute_userq_create(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_userq_create_ioctl);		\
}									\
static int prefix##_compute_userq_destroy(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_userq_destroy_ioctl);		\
}									\
static int prefix##_compute_userq_control(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_userq_control_ioctl);		\
}									\
static int prefix##_compute_userq_state(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_userq_state_ioctl);		\
}									\
static int prefix##_compute_userq_wait(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	/* Sleeps: outside drm_dev_enter(), woken by unplug instead. */	\
	return drm_compute_userq_wait_ioctl(prefix##_compute_file(file), data);	\
}									\
static int prefix##_compute_userq_signal(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_userq_signal_ioctl);		\
}									\
static int prefix##_compute_svm(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_svm_ioctl);			\
}									\
static int prefix##_compute_p2p_report(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_p2p_report_ioctl);		\
}									\
static int prefix##_compute_criu_info(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_criu_info_ioctl);		\
}									\
static int prefix##_compute_criu_pause(struct drm_device *dev, void *data,	\
				struct drm_file *file)			\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_criu_pause_ioctl);		\
}									\
static int prefix##_compute_criu_checkpoint(struct drm_device *dev,	\
				void *data, struct drm_file *file)	\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_criu_checkpoint_ioctl);	\
}									\
static int prefix##_compute_criu_restore(struct drm_device *dev,	\
				void *data, struct drm_file *file)	\
{									\
	return drm_compute_call(dev, prefix##_compute_file(file), data,	\
				drm_compute_criu_restore_ioctl);	\
}									\
static long __maybe_unused prefix##_compute_ioctl(struct file *filp,	\
				unsigned int cmd, unsigned long arg)	\
{									\
	struct drm_file *file = filp->private_data;			\
	int ret = drm_compute_ioctl_check(prefix##_compute_file(file), cmd);	\
									\
	return ret ?: drm_ioctl(filp, cmd, arg);			\
}									\
static long __maybe_unused prefix##_compute_compat_ioctl(struct file *filp,	\
				unsigned int cmd, unsigned long arg)	\
{									\
	struct drm_file *file = filp->private_data;			\
	int ret = drm_compute_ioctl_check(prefix##_compute_file(file), cmd);	\
									\
	return ret ?: drm_compute_compat_ioctl(filp, cmd, arg);		\
}

/**
 * DRM_COMPUTE_IOCTLS - the entries of a driver's ioctl table for the
 * compute uapi
 * @DRV: the driver's uapi name: its header publishes DRM_<DRV>_COMPUTE_BASE
 * @prefix: the prefix given to DRM_COMPUTE_DEFINE_IOCTLS()
 *
 * Designated initializers: operation N lands at DRM_COMMAND_BASE +
 * DRM_<DRV>_COMPUTE_BASE + N wherever the macro stands in the table.
 *
 * Every operation that allocates or runs work carries DRM_AUTH, as
 * rendering ioctls do (drm_ioctl.h): a client of the primary node must be
 * authenticated by the master first, on the render node it changes
 * nothing. The read-only QUERY does not need it; the checkpoint/restore
 * operations have DRM core's own rule instead (DRM_CHECKPOINT_RESTORE).
 */
#define DRM_COMPUTE_IOCTLS(DRV, prefix)					\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_QUERY] = {		\
		.cmd = DRM_COMPUTE_IOCTL_QUERY(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_RENDER_ALLOW,				\
		.func = prefix##_compute_query,			\
		.name = "DRM_COMPUTE_QUERY",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_BO_CREATE] = {		\
		.cmd = DRM_COMPUTE_IOCTL_BO_CREATE(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_bo_create,			\
		.name = "DRM_COMPUTE_BO_CREATE",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_BO_MMAP] = {		\
		.cmd = DRM_COMPUTE_IOCTL_BO_MMAP(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_bo_mmap,			\
		.name = "DRM_COMPUTE_BO_MMAP",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_VM_CREATE] = {		\
		.cmd = DRM_COMPUTE_IOCTL_VM_CREATE(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_vm_create,			\
		.name = "DRM_COMPUTE_VM_CREATE",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_VM_DESTROY] = {		\
		.cmd = DRM_COMPUTE_IOCTL_VM_DESTROY(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_vm_destroy,			\
		.name = "DRM_COMPUTE_VM_DESTROY",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_VM_BIND] = {		\
		.cmd = DRM_COMPUTE_IOCTL_VM_BIND(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_vm_bind,			\
		.name = "DRM_COMPUTE_VM_BIND",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_USERQ_CREATE] = {		\
		.cmd = DRM_COMPUTE_IOCTL_USERQ_CREATE(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_userq_create,			\
		.name = "DRM_COMPUTE_USERQ_CREATE",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_USERQ_DESTROY] = {		\
		.cmd = DRM_COMPUTE_IOCTL_USERQ_DESTROY(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_userq_destroy,			\
		.name = "DRM_COMPUTE_USERQ_DESTROY",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_USERQ_CONTROL] = {		\
		.cmd = DRM_COMPUTE_IOCTL_USERQ_CONTROL(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_userq_control,			\
		.name = "DRM_COMPUTE_USERQ_CONTROL",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_USERQ_STATE] = {		\
		.cmd = DRM_COMPUTE_IOCTL_USERQ_STATE(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_userq_state,			\
		.name = "DRM_COMPUTE_USERQ_STATE",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_USERQ_WAIT] = {		\
		.cmd = DRM_COMPUTE_IOCTL_USERQ_WAIT(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_userq_wait,			\
		.name = "DRM_COMPUTE_USERQ_WAIT",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_USERQ_SIGNAL] = {		\
		.cmd = DRM_COMPUTE_IOCTL_USERQ_SIGNAL(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_userq_signal,			\
		.name = "DRM_COMPUTE_USERQ_SIGNAL",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_SVM] = {		\
		.cmd = DRM_COMPUTE_IOCTL_SVM(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_svm,				\
		.name = "DRM_COMPUTE_SVM",				\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_P2P_REPORT] = {	\
		.cmd = DRM_COMPUTE_IOCTL_P2P_REPORT(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_AUTH | DRM_RENDER_ALLOW,			\
		.func = prefix##_compute_p2p_report,			\
		.name = "DRM_COMPUTE_P2P_REPORT",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_CRIU_INFO] = {	\
		.cmd = DRM_COMPUTE_IOCTL_CRIU_INFO(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_RENDER_ALLOW | DRM_CHECKPOINT_RESTORE,	\
		.func = prefix##_compute_criu_info,			\
		.name = "DRM_COMPUTE_CRIU_INFO",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_CRIU_PAUSE] = {	\
		.cmd = DRM_COMPUTE_IOCTL_CRIU_PAUSE(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_RENDER_ALLOW | DRM_CHECKPOINT_RESTORE,	\
		.func = prefix##_compute_criu_pause,			\
		.name = "DRM_COMPUTE_CRIU_PAUSE",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_CRIU_CHECKPOINT] = {	\
		.cmd = DRM_COMPUTE_IOCTL_CRIU_CHECKPOINT(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_RENDER_ALLOW | DRM_CHECKPOINT_RESTORE,	\
		.func = prefix##_compute_criu_checkpoint,		\
		.name = "DRM_COMPUTE_CRIU_CHECKPOINT",			\
	},							\
	[DRM_##DRV##_COMPUTE_BASE + DRM_COMPUTE_OP_CRIU_RESTORE] = {	\
		.cmd = DRM_COMPUTE_IOCTL_CRIU_RESTORE(DRM_##DRV##_COMPUTE_BASE),	\
		.flags = DRM_RENDER_ALLOW | DRM_CHECKPOINT_RESTORE,	\
		.func = prefix##_compute_criu_restore,			\
		.name = "DRM_COMPUTE_CRIU_RESTORE",			\
	}

#endif /* __DRM_COMPUTE_H__ */
