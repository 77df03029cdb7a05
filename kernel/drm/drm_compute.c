// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <kunit/visibility.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "drm_compute_internal.h"

/**
 * DOC: Overview
 *
 * The DRM compute helpers hold the vendor-neutral part of GPU compute on a
 * render node: what a compute stack needs from the kernel beyond GEM and
 * command submission, without a separate device file. They own the uapi of
 * include/uapi/drm/drm_compute.h: every rule about input (validation,
 * versioning, what is reported), the per-file objects and their lifetime,
 * the user-queue state machine with its fences, sync-object signals and
 * hang detection. A driver owns the hardware: it allocates buffers, keeps
 * page tables and runs queues, through &struct drm_compute_ops.
 *
 * The contract with a driver:
 *
 * - embed &struct drm_compute_device in the device and call
 *   drm_compute_device_init() with a &struct drm_compute_dev_info and the
 *   ops before registering the DRM device; drm_compute_device_fini() after
 *   the last file is closed;
 * - embed &struct drm_compute_file in the per-file data; call
 *   drm_compute_file_init() at open and drm_compute_file_fini() at
 *   postclose (after the DRM core closed the file's GEM handles); a driver
 *   that must stop the file's queues earlier calls
 *   drm_compute_file_release() there too;
 * - wire the ioctls with DRM_COMPUTE_DEFINE_IOCTLS() and DRM_COMPUTE_IOCTLS()
 *   at the base its uapi header publishes; each handler returns the
 *   helper's result unchanged;
 * - report queue events with drm_compute_userq_fence() and
 *   drm_compute_userq_fault().
 *
 * Feature bits follow from the ops a driver implements
 * (drm_compute_features()), never from the driver's name or a hand-set
 * constant: a driver that implements none of a feature's mandatory
 * callbacks does not report it, and that feature's ioctls fail with
 * -EOPNOTSUPP; one that implements some but not all of them is refused at
 * init, with the missing callback named in the log.
 *
 * The objects live one per file: drm_compute_query.c (the query),
 * drm_compute_bo.c (buffers), drm_compute_vm.c (GPU VMs, and binding on
 * drm_gpuvm), drm_compute_userq.c (user queues), drm_compute_svm.c (the
 * SVM operation over the attribute store of drm_compute_svm_attr.c),
 * drm_compute_p2p.c (export buffers for peer-to-peer DMA) and
 * drm_compute_criu.c (checkpoint/restore).
 *
 * Every device gets an id at init (&drm_compute_device.id, reported by the
 * DEVICE query), by which SVM attributes name devices: ids are unique
 * among the devices present and handed out cyclically, so a device that
 * went away does not lend its id to the next one soon.
 *
 * Users today: vcompute, the virtual compute device that runs every
 * compute uapi in a VM, and the amdgpu render node.
 */

/**
 * DOC: Locking
 *
 * From outermost to innermost:
 *
 * - &drm_compute_file.lock serializes creation and destruction of a file's
 *   VMs and queues; it is never held while waiting on a queue;
 * - &drm_compute_userq.ctl_lock serializes control of one queue (suspend,
 *   resume, stop, hang reset); the driver's suspend and stop run under it;
 * - &drm_compute_device.userq_lock protects the device's list of queues
 *   (for hang detection); taken under &drm_compute_file.lock; unplug takes
 *   each queue's ctl_lock inside it, so it is never taken with a ctl_lock
 *   held;
 * - &drm_compute_userq.lock (spinlock) protects a queue's status, fence
 *   value and pending signals; the driver's engine reports through it;
 * - &drm_compute_vm_svm.lock (mutex) serialises an SVM VM's attributes;
 *   the SVM operation takes it with no other helper lock held, and takes
 *   the mmap lock inside it (to look at the CPU mappings); it is never
 *   taken in an MMU notifier.
 *
 * Lookups by id (xa_load() under RCU, then kref_get_unless_zero()) take no
 * lock; an object found that way stays valid until its reference is put.
 */

/* Device ids (&drm_compute_device.id); the mark: the device has SVM. */
static DEFINE_XARRAY_ALLOC1(drm_compute_devices);
static u32 drm_compute_next_id;
#define DRM_COMPUTE_DEVICE_SVM	XA_MARK_1

/**
 * drm_compute_device_svm - whether a device with SVM has this id
 * @id: a device id
 *
 * Context: any; does not sleep.
 *
 * Returns: true when a compute device that reports
 * %DRM_COMPUTE_FEATURE_SVM is present with @id.
 */
bool drm_compute_device_svm(u32 id)
{
	return xa_get_mark(&drm_compute_devices, id, DRM_COMPUTE_DEVICE_SVM);
}

/*
 * The mandatory callbacks of each feature, in the order drm_compute_ops
 * documents them. A feature is reported when all of its callbacks are set
 * (SVM, P2P_EXPORT and CRIU also need USERQ's); a driver that sets some of them
 * but not all is refused at init (drm_compute_ops_check()).
 */
struct drm_compute_op_need {
	u64 feature;
	size_t offset;
	const char *name;
};

#define NEED(f, op) { DRM_COMPUTE_FEATURE_##f, offsetof(struct drm_compute_ops, op), #op }
static const struct drm_compute_op_need drm_compute_op_needs[] = {
	NEED(USERQ, bo_create),
	NEED(USERQ, vm_create),
	NEED(USERQ, vm_free),
	NEED(USERQ, vm_bind),
	NEED(USERQ, userq_create),
	NEED(USERQ, userq_stop),
	NEED(USERQ, userq_free),
	NEED(USERQ, userq_suspend),
	NEED(USERQ, userq_resume),
	NEED(USERQ, userq_hw_state),
	NEED(SVM, svm_vm_init),
	NEED(SVM, svm_vm_fini),
	NEED(SVM, svm_attr_set),
	NEED(P2P_EXPORT, p2p_bo_create),
	NEED(P2P_EXPORT, p2p_export),
	NEED(P2P_EXPORT, p2p_move_to_host),
	NEED(CRIU, bo_criu_placement),
	NEED(CRIU, bo_criu_copy),
	NEED(CRIU, vm_criu_mappings),
};

#undef NEED

static bool drm_compute_op_set(const struct drm_compute_ops *ops, size_t offset)
{
	return *(const void * const *)((const u8 *)ops + offset);
}

/* Bits of @feature's mandatory callbacks that @ops sets, and that it lacks. */
static void drm_compute_ops_count(const struct drm_compute_ops *ops, u64 feature,
				  unsigned int *set, unsigned int *unset)
{
	unsigned int i;

	*set = 0;
	*unset = 0;
	for (i = 0; i < ARRAY_SIZE(drm_compute_op_needs); i++) {
		if (drm_compute_op_needs[i].feature != feature)
			continue;
		if (drm_compute_op_set(ops, drm_compute_op_needs[i].offset))
			(*set)++;
		else
			(*unset)++;
	}
}

/**
 * drm_compute_features - feature bits a table of driver ops supports
 * @ops: the driver's operations
 *
 * Returns: DRM_COMPUTE_FEATURE_* bits whose mandatory callbacks are all set;
 * SVM, P2P_EXPORT and CRIU only with USERQ.
 */
u64 drm_compute_features(const struct drm_compute_ops *ops)
{
	static const u64 all[] = { DRM_COMPUTE_FEATURE_USERQ, DRM_COMPUTE_FEATURE_SVM,
				   DRM_COMPUTE_FEATURE_P2P_EXPORT,
				   DRM_COMPUTE_FEATURE_CRIU };
	unsigned int i, set, unset;
	u64 features = 0;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		drm_compute_ops_count(ops, all[i], &set, &unset);
		if (!unset)
			features |= all[i];
	}
	if (!(features & DRM_COMPUTE_FEATURE_USERQ))
		return 0;
	return features;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_features);

/**
 * drm_compute_ops_check - refuse a partial set of a feature's callbacks
 * @ops: the driver's operations
 * @info: the device's description (its USERQ caps ask for callbacks too)
 * @missing: set to the name of the first missing callback on failure
 *
 * A driver implements a feature completely or not at all: one that sets
 * some of a feature's mandatory callbacks, but not every one, would
 * otherwise silently lose the feature. So would one that sets SVM's,
 * P2P_EXPORT's or CRIU's callbacks without USERQ's, or that implements USERQ and
 * announces %DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP without @userq_wake.
 *
 * Returns: 0, or -EINVAL with *@missing naming the callback.
 */
int drm_compute_ops_check(const struct drm_compute_ops *ops,
			  const struct drm_compute_dev_info *info,
			  const char **missing)
{
	u64 begun = 0, complete = 0, f;
	unsigned int i, set, unset;

	for (i = 0; i < ARRAY_SIZE(drm_compute_op_needs); i++) {
		f = drm_compute_op_needs[i].feature;
		drm_compute_ops_count(ops, f, &set, &unset);
		if (set)
			begun |= f;
		if (!unset)
			complete |= f;
	}
	/* SVM, P2P_EXPORT or CRIU callbacks ask for every USERQ one too. */
	if (begun & ~DRM_COMPUTE_FEATURE_USERQ)
		begun |= DRM_COMPUTE_FEATURE_USERQ;
	for (i = 0; i < ARRAY_SIZE(drm_compute_op_needs); i++) {
		const struct drm_compute_op_need *n = &drm_compute_op_needs[i];

		if ((begun & ~complete & n->feature) &&
		    !drm_compute_op_set(ops, n->offset)) {
			*missing = n->name;
			return -EINVAL;
		}
	}
	if ((begun & DRM_COMPUTE_FEATURE_USERQ) &&
	    (info->userq_caps & DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP) && !ops->userq_wake) {
		*missing = "userq_wake";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_ops_check);

/**
 * drm_compute_info_check - whether a driver's description is consistent
 * @info: the description
 * @features: the features its ops support
 *
 * Returns: 0, or -EINVAL with the reason logged by the caller.
 */
int drm_compute_info_check(const struct drm_compute_dev_info *info,
			   u64 features)
{
	if (info->vram_bar_size > info->vram_size ||
	    info->semantics & ~DRM_COMPUTE_SEMANTICS_KNOWN)
		return -EINVAL;
	if (!(features & DRM_COMPUTE_FEATURE_USERQ))
		return 0;
	if (!info->placements || info->placements & ~DRM_COMPUTE_PLACEMENTS_KNOWN)
		return -EINVAL;
	if ((info->placements & DRM_COMPUTE_PLACEMENT_VRAM) && !info->vram_size)
		return -EINVAL;
	if (!is_power_of_2(info->page_size) || info->page_size < PAGE_SIZE)
		return -EINVAL;
	if (info->va_start >= info->va_end ||
	    !IS_ALIGNED(info->va_start | info->va_end, info->page_size))
		return -EINVAL;
	if (!info->max_vms || !info->max_queues || !info->num_cus ||
	    !info->num_priorities || info->num_priorities > 16 ||
	    info->priority_default >= info->num_priorities ||
	    info->priority_privileged > info->num_priorities ||
	    info->priority_privileged <= info->priority_default)
		return -EINVAL;
	if (!info->queue_formats || !info->doorbell_size ||
	    !is_power_of_2(info->ring_size_min) ||
	    !is_power_of_2(info->ring_size_max) ||
	    info->ring_size_min > info->ring_size_max)
		return -EINVAL;
	if (info->userq_caps & ~DRM_COMPUTE_USERQ_CAPS_KNOWN)
		return -EINVAL;
	/* Memory never set has the default flags: the device keeps them. */
	if ((features & DRM_COMPUTE_FEATURE_SVM) &&
	    ((info->svm_flags & DRM_COMPUTE_SVM_FLAGS_DEFAULT) != DRM_COMPUTE_SVM_FLAGS_DEFAULT ||
	     info->svm_flags & ~DRM_COMPUTE_SVM_FLAGS_KNOWN))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_info_check);

/**
 * drm_compute_device_init - set up the compute state of a device
 * @cdev: the state, embedded in the driver's device
 * @drm: the DRM device
 * @info: what the device is; copied
 * @ops: the driver's operations; must outlive @cdev
 *
 * Derives the feature bits from @ops, refuses a feature whose callbacks
 * are only partly set (drm_compute_ops_check()), checks that @info gives
 * every limit those features need, and gives the device its id.
 *
 * Returns: 0, -EINVAL when @ops or @info is inconsistent (logged, naming
 * the missing callback), -ENOMEM, or
 * -EBUSY when no device id is free.
 */
int drm_compute_device_init(struct drm_compute_device *cdev,
			    struct drm_device *drm,
			    const struct drm_compute_dev_info *info,
			    const struct drm_compute_ops *ops)
{
	u64 features = drm_compute_features(ops);
	const char *missing;
	int ret;

	ret = drm_compute_ops_check(ops, info, &missing);
	if (ret) {
		drm_err(drm, "compute: driver ops incomplete: %s is missing\n", missing);
		return ret;
	}
	ret = drm_compute_info_check(info, features);
	if (ret) {
		drm_err(drm, "compute: inconsistent device description\n");
		return ret;
	}
	/* Never 0 (SYSMEM) nor U32_MAX (UNDEFINED): SVM locations. */
	ret = xa_alloc_cyclic(&drm_compute_devices, &cdev->id, cdev,
			      XA_LIMIT(1, INT_MAX), &drm_compute_next_id,
			      GFP_KERNEL);
	if (ret < 0)
		return ret;
	if (features & DRM_COMPUTE_FEATURE_SVM)
		xa_set_mark(&drm_compute_devices, cdev->id, DRM_COMPUTE_DEVICE_SVM);

	cdev->drm = drm;
	cdev->ops = ops;
	cdev->info = *info;
	cdev->features = features;
	/* Queues are saved where they can be made again, mask and all. */
	/*
	 * A restored queue is put in place before it starts: at userq_start,
	 * or, for a driver whose create starts a queue, at the resume that
	 * ends the restore (drm_compute_userq_args.restore).
	 */
	if ((features & DRM_COMPUTE_FEATURE_CRIU) && ops->userq_criu_restore &&
	    info->num_cus <= DRM_COMPUTE_CRIU_CU_MASK_WORDS * 32)
		cdev->info.userq_caps |= DRM_COMPUTE_USERQ_CAP_CRIU;
	mutex_init(&cdev->userq_lock);
	INIT_LIST_HEAD(&cdev->userqs);
	INIT_DELAYED_WORK(&cdev->watchdog, drm_compute_watchdog_work);
	INIT_DELAYED_WORK(&cdev->fence_poll, drm_compute_fence_poll_work);
	INIT_WORK(&cdev->reset_work, drm_compute_reset_work);
	mutex_init(&cdev->criu_share_lock);
	xa_init_flags(&cdev->criu_sessions, XA_FLAGS_ALLOC1);
	return 0;
}
EXPORT_SYMBOL(drm_compute_device_init);

/**
 * drm_compute_device_fini - tear down the compute state of a device
 * @cdev: the state
 *
 * Call after the last file of the device was closed.
 */
void drm_compute_device_fini(struct drm_compute_device *cdev)
{
	cancel_delayed_work_sync(&cdev->watchdog);
	cancel_delayed_work_sync(&cdev->fence_poll);
	cancel_work_sync(&cdev->reset_work);
	drm_WARN_ON(cdev->drm, !list_empty(&cdev->userqs));
	/* Sessions go with the files that own them. */
	drm_WARN_ON(cdev->drm, !xa_empty(&cdev->criu_sessions));
	xa_destroy(&cdev->criu_sessions);
	mutex_destroy(&cdev->criu_share_lock);
	mutex_destroy(&cdev->userq_lock);
	xa_erase(&drm_compute_devices, cdev->id);
}
EXPORT_SYMBOL(drm_compute_device_fini);

/**
 * drm_compute_file_init - set up the compute state of an open file
 * @cfile: the state, embedded in the driver's per-file data
 * @cdev: the device
 * @file: the DRM file
 */
void drm_compute_file_init(struct drm_compute_file *cfile,
			   struct drm_compute_device *cdev,
			   struct drm_file *file)
{
	cfile->cdev = cdev;
	cfile->file = file;
	mutex_init(&cfile->lock);
	mutex_init(&cfile->criu_lock);
	xa_init_flags(&cfile->vms, XA_FLAGS_ALLOC1);
	xa_init_flags(&cfile->queues, XA_FLAGS_ALLOC1);
}
EXPORT_SYMBOL(drm_compute_file_init);

/**
 * drm_compute_file_release - stop the work of a closing file
 * @cfile: the state
 *
 * Stops and releases every queue of the file, then every VM; a queue still
 * executing is stopped first, so no work outlives its file. A driver that
 * must stop its queues before the DRM core closes the file's GEM handles
 * (amdgpu, whose user queues go at release) calls this there; otherwise
 * drm_compute_file_fini() does it. Calling it again does nothing.
 */
void drm_compute_file_release(struct drm_compute_file *cfile)
{
	struct drm_compute_userq *q;
	struct drm_compute_vm *vm;
	unsigned long id;

	mutex_lock(&cfile->lock);
	xa_for_each(&cfile->queues, id, q) {
		xa_erase(&cfile->queues, id);
		drm_compute_userq_remove(q, -ECANCELED);
	}
	xa_for_each(&cfile->vms, id, vm) {
		xa_erase(&cfile->vms, id);
		drm_compute_vm_put(vm);
	}
	mutex_unlock(&cfile->lock);
}
EXPORT_SYMBOL(drm_compute_file_release);

/**
 * drm_compute_file_fini - tear down the compute state of a closing file
 * @cfile: the state
 *
 * Call at postclose, after the DRM core closed the file's GEM handles:
 * revokes the buffers a checkpoint paused that no other file holds, if it
 * paused any (drm_compute_criu_file_fini(), which counts the handles left),
 * then stops the file's work (drm_compute_file_release(), unless the driver
 * did at release) and frees the state.
 */
void drm_compute_file_fini(struct drm_compute_file *cfile)
{
	drm_compute_criu_file_fini(cfile);
	drm_compute_file_release(cfile);
	xa_destroy(&cfile->queues);
	xa_destroy(&cfile->vms);
	mutex_destroy(&cfile->criu_lock);
	mutex_destroy(&cfile->lock);
}
EXPORT_SYMBOL(drm_compute_file_fini);

/**
 * drm_compute_args_zero - whether a byte range of an argument is all zero
 * @args: the argument
 * @offset: first byte
 * @size: bytes
 *
 * For the uapi rule that padding, reserved and out fields are zero on input.
 *
 * Returns: true when every byte in the range is zero.
 */
bool drm_compute_args_zero(const void *args, size_t offset, size_t size)
{
	return !memchr_inv((const u8 *)args + offset, 0, size);
}

/**
 * drm_compute_xa_count - entries of an id table
 * @xa: a file's table of VMs or queues
 *
 * For the per-file limits and the checkpoint counts. A snapshot: the table
 * may change meanwhile unless the caller holds &drm_compute_file.lock.
 *
 * Returns: the number of entries.
 */
u32 drm_compute_xa_count(struct xarray *xa)
{
	unsigned long id;
	void *entry;
	u32 n = 0;

	xa_for_each(xa, id, entry)
		n++;
	return n;
}

/**
 * drm_compute_call - run an ioctl handler of the helper while the device is
 * present
 * @dev: the DRM device
 * @cfile: the file's compute state
 * @data: the ioctl argument
 * @fn: the handler
 *
 * Used by the handlers DRM_COMPUTE_DEFINE_IOCTLS() defines: drm_dev_unplug()
 * waits for a call in progress, and a call after it fails.
 *
 * Returns: what @fn returns, or -ENODEV once the device is unplugged.
 */
int drm_compute_call(struct drm_device *dev, struct drm_compute_file *cfile,
		     void *data, int (*fn)(struct drm_compute_file *cfile, void *data))
{
	int idx, ret;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	/* A file being restored answers only the restore (DOC: Checkpoint/restore). */
	if (READ_ONCE(cfile->restoring) && fn != drm_compute_criu_restore_ioctl)
		ret = -EBUSY;
	else
		ret = fn(cfile, data);
	drm_dev_exit(idx);
	return ret;
}
EXPORT_SYMBOL(drm_compute_call);

/**
 * drm_compute_ioctl_check - refuse DRM core's ioctls on a file being restored
 * @cfile: the file's compute state
 * @cmd: the ioctl command
 *
 * Called by the driver's &file_operations.unlocked_ioctl before
 * drm_ioctl() (DRM_COMPUTE_DEFINE_IOCTLS() defines such a wrapper). While
 * a restore rebuilds the file (&drm_compute_file.restoring), DRM core's
 * own ioctls, GEM close, PRIME and sync objects among them, would see or
 * take handles the restore is placing: they fail. The driver's ioctls pass
 * here; drm_compute_call() refuses those of the helper.
 *
 * Returns: 0, or -EBUSY.
 */
int drm_compute_ioctl_check(struct drm_compute_file *cfile, unsigned int cmd)
{
	if (!READ_ONCE(cfile->restoring))
		return 0;
	if (_IOC_TYPE(cmd) == DRM_IOCTL_BASE && _IOC_NR(cmd) >= DRM_COMMAND_BASE &&
	    _IOC_NR(cmd) < DRM_COMMAND_END)
		return 0;
	return -EBUSY;
}
EXPORT_SYMBOL(drm_compute_ioctl_check);

/**
 * drm_compute_compat_ioctl - drm_compat_ioctl() where the kernel has it
 * @filp: the file
 * @cmd: the ioctl command
 * @arg: its argument
 *
 * For the wrapper DRM_COMPUTE_DEFINE_IOCTLS() defines.
 *
 * Returns: drm_compat_ioctl()'s result, -ENOTTY without CONFIG_COMPAT.
 */
long drm_compute_compat_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
#ifdef CONFIG_COMPAT
	return drm_compat_ioctl(filp, cmd, arg);
#else
	return -ENOTTY;
#endif
}
EXPORT_SYMBOL(drm_compute_compat_ioctl);

MODULE_DESCRIPTION("DRM compute helpers");
MODULE_LICENSE("Dual MIT/GPL");
