// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include <drm/drm_auth.h>
#include <drm/drm_compute.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_utils.h>

#include "drm_compute_internal.h"

/**
 * DOC: User queues
 *
 * A user queue is a ring in a GPU VM that userspace fills with packets and
 * submits by storing a write pointer to a doorbell it has mapped: no system
 * call per submission. The helper owns everything about a queue that is
 * not hardware:
 *
 * - creation rules (&struct drm_compute_userq_create): format, priority
 *   range and its privilege (drm_compute_priority_check()), the CU mask
 *   (drm_compute_cu_mask_parse()), ring, pointer and context-save
 *   alignment (drm_compute_userq_args_check()), the per-file limit;
 * - lifetime: a queue belongs to its file, holds a reference to its VM, and
 *   is stopped before it is freed, at destroy or at file close;
 * - the state machine. A queue is active (reported IDLE or RUNNING from
 *   the hardware's pointers), SUSPENDED, or dead: FAULTED (the driver
 *   reported a fault), HUNG (hang detection reset it) or LOST (the device
 *   went away). Only active and suspended queues change state by ioctl::
 *
 *	ACTIVE     --SUSPEND-->                    SUSPENDED
 *	SUSPENDED  --RESUME-->                     ACTIVE
 *	ACTIVE, SUSPENDED  --fault-->              FAULTED
 *	ACTIVE  --no progress, hang_timeout_ms-->  HUNG
 *	any  --device unplugged-->                 LOST
 *
 * - the fence: the driver reports each FENCE packet with
 *   drm_compute_userq_fence(); waiters (%DRM_COMPUTE_OP_USERQ_WAIT) wake,
 *   and pending sync-object signals whose value is reached are completed.
 *   On a device whose queues keep their fence in a memory slot
 *   (%DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY) and whose driver has no event to
 *   report it with, the helper reads the slot instead: every millisecond
 *   during a wait and while signals are pending;
 * - sync-object interop that keeps dma-buf.rst's rule for long-running
 *   work: a fence is added to a sync object only once the queue reached its
 *   value, already signaled, so no published dma-fence ever depends on
 *   userspace. A queue that dies completes its pending signals with an
 *   error instead;
 * - hang detection: a queue with pending work whose progress counter
 *   (&struct drm_compute_userq_hw) does not move for the device's hang
 *   timeout (drm_compute_device_hang_timeout_ms(): the driver's
 *   &drm_compute_dev_info.hang_timeout_ms, else ``hang_timeout_ms`` of
 *   drm_compute_helper, where 0 disables) is stopped and marked HUNG; only
 *   that queue, every other keeps running. Where the hardware can tell a
 *   long dispatch from a hang, the driver is asked first
 *   (&drm_compute_ops.userq_hang_check), and a queue it says still runs
 *   gets another timeout.
 */

static unsigned int hang_timeout_ms = 10000;
module_param(hang_timeout_ms, uint, 0644);
MODULE_PARM_DESC(hang_timeout_ms,
		 "Reset a user queue that makes no progress for this long, on devices without a timeout of their own (ms, 0 = never; default 10000)");

/**
 * drm_compute_hang_timeout_ms - the helper's default hang timeout
 *
 * Also the bound of the waits for importers' fences (drm_compute_p2p.c).
 *
 * Returns: the module parameter's value, read once.
 */
unsigned int drm_compute_hang_timeout_ms(void)
{
	return READ_ONCE(hang_timeout_ms);
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_hang_timeout_ms);

/**
 * drm_compute_device_hang_timeout_ms - the hang timeout of a device
 * @cdev: the device
 *
 * Returns: &drm_compute_dev_info.hang_timeout_ms, or the helper's default
 * where the driver set none.
 */
unsigned int drm_compute_device_hang_timeout_ms(const struct drm_compute_device *cdev)
{
	return cdev->info.hang_timeout_ms ?: drm_compute_hang_timeout_ms();
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_device_hang_timeout_ms);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * drm_compute_hang_timeout_swap - set the hang timeout, for KUnit
 * @ms: the new value
 *
 * Returns: the old value.
 */
unsigned int drm_compute_hang_timeout_swap(unsigned int ms)
{
	return xchg(&hang_timeout_ms, ms);
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_hang_timeout_swap);
#endif

/*
 * A pending sync-object signal. The fence is allocated with the request,
 * so completing it cannot fail.
 */
struct userq_signal {
	struct list_head link;
	u64 value;
	u64 point;
	/* The handle it was asked with: a checkpoint saves it by this. */
	u32 handle;
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	struct dma_fence *fence;
};

static DEFINE_SPINLOCK(fence_lock);

static const char *fence_driver_name(struct dma_fence *fence)
{
	return "drm_compute";
}

static const char *fence_timeline_name(struct dma_fence *fence)
{
	return "userq";
}

static const struct dma_fence_ops userq_fence_ops = {
	.get_driver_name = fence_driver_name,
	.get_timeline_name = fence_timeline_name,
};

static void signal_free(struct userq_signal *sig)
{
	dma_fence_chain_free(sig->chain);
	if (sig->fence)
		dma_fence_put(sig->fence);
	drm_syncobj_put(sig->syncobj);
	kfree(sig);
}

static struct userq_signal *signal_alloc(struct drm_compute_userq *q,
					 const struct drm_compute_userq_signal *args)
{
	struct userq_signal *sig;

	sig = kzalloc_obj(*sig);
	if (!sig)
		return NULL;
	sig->value = args->value;
	sig->point = args->point;
	sig->handle = args->handle;
	sig->fence = kzalloc_obj(*sig->fence);
	if (!sig->fence)
		goto err;
	dma_fence_init(sig->fence, &userq_fence_ops, &fence_lock,
		       q->fence_context, args->value);
	if (args->point) {
		sig->chain = dma_fence_chain_alloc();
		if (!sig->chain)
			goto err;
	}
	return sig;
err:
	if (sig->fence) {
		dma_fence_signal(sig->fence);
		dma_fence_put(sig->fence);
	}
	kfree(sig);
	return NULL;
}

/* Signal the fence (with @err when not 0), hand it to the sync object. */
static void signal_complete(struct userq_signal *sig, int err)
{
	if (err)
		dma_fence_set_error(sig->fence, err);
	dma_fence_signal(sig->fence);
	if (sig->point) {
		drm_syncobj_add_point(sig->syncobj, sig->chain, sig->fence,
				      sig->point);
		sig->chain = NULL;
	} else {
		drm_syncobj_replace_fence(sig->syncobj, sig->fence);
	}
	signal_free(sig);
}

static void signals_complete(struct list_head *list, int err)
{
	struct userq_signal *sig, *tmp;

	list_for_each_entry_safe(sig, tmp, list, link) {
		list_del(&sig->link);
		signal_complete(sig, err);
	}
}

static bool userq_dead(const struct drm_compute_userq *q)
{
	return q->status == DRM_COMPUTE_USERQ_STATUS_FAULTED ||
	       q->status == DRM_COMPUTE_USERQ_STATUS_HUNG ||
	       q->status == DRM_COMPUTE_USERQ_STATUS_LOST;
}

/*
 * Move the queue to a dead @status unless it is dead already; the caller
 * completes @done with an error and wakes the waiters.
 */
static bool userq_kill_locked(struct drm_compute_userq *q, u32 status,
			      u32 reason, u64 va, struct list_head *done)
{
	lockdep_assert_held(&q->lock);
	if (userq_dead(q))
		return false;
	q->status = status;
	q->fault_reason = reason;
	q->fault_va = va;
	list_splice_init(&q->signals, done);
	q->num_signals = 0;
	return true;
}

static void userq_kill(struct drm_compute_userq *q, u32 status, u32 reason,
		       u64 va)
{
	LIST_HEAD(done);
	bool killed;

	spin_lock(&q->lock);
	killed = userq_kill_locked(q, status, reason, va, &done);
	spin_unlock(&q->lock);
	if (!killed)
		return;
	signals_complete(&done, -EIO);
	wake_up_all(&q->wq);
}

/**
 * drm_compute_userq_fence - report a completed FENCE packet
 * @q: the queue
 * @value: the value the packet wrote
 *
 * For the driver's engine, in process context, after the value is visible
 * in memory. Wakes the waiters and completes the sync-object signals whose
 * value is reached. The fence value is the last one written; userspace
 * keeps it increasing.
 */
void drm_compute_userq_fence(struct drm_compute_userq *q, u64 value)
{
	struct userq_signal *sig, *tmp;
	LIST_HEAD(done);

	spin_lock(&q->lock);
	q->fence = value;
	list_for_each_entry_safe(sig, tmp, &q->signals, link) {
		if (sig->value > value)
			break;
		list_move_tail(&sig->link, &done);
		q->num_signals--;
	}
	spin_unlock(&q->lock);
	signals_complete(&done, 0);
	wake_up_all(&q->wq);
}
EXPORT_SYMBOL(drm_compute_userq_fence);

/**
 * drm_compute_userq_fault - report that a queue faulted
 * @q: the queue, which the driver no longer runs
 * @reason: DRM_COMPUTE_FAULT_*
 * @va: the faulting address, or 0
 *
 * The queue becomes FAULTED (unless it is dead already), its waiters
 * return -EIO and its pending signals complete with -EIO.
 */
void drm_compute_userq_fault(struct drm_compute_userq *q, u32 reason, u64 va)
{
	drm_dbg_driver(q->cdev->drm, "compute: queue %u faulted: reason %u at %#llx\n",
		       q->id, reason, va);
	userq_kill(q, DRM_COMPUTE_USERQ_STATUS_FAULTED, reason, va);
}
EXPORT_SYMBOL(drm_compute_userq_fault);

static bool fence_in_memory(const struct drm_compute_userq *q)
{
	return q->cdev->info.userq_caps & DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;
}

/*
 * On a device whose queues keep their fence in a memory slot, read it and
 * report a new value as the driver's engine would.
 */
static void userq_poll_fence(struct drm_compute_userq *q)
{
	struct drm_compute_userq_hw hw = { };
	bool newer;

	if (!fence_in_memory(q))
		return;
	q->cdev->ops->userq_hw_state(q, &hw);
	spin_lock(&q->lock);
	newer = hw.fence > q->fence;
	spin_unlock(&q->lock);
	if (newer)
		drm_compute_userq_fence(q, hw.fence);
}

static void userq_release(struct kref *ref)
{
	struct drm_compute_userq *q = container_of(ref, struct drm_compute_userq, ref);
	struct drm_compute_vm *vm = q->vm;
	unsigned long *mask = q->cu_mask;

	drm_WARN_ON(q->cdev->drm, !list_empty(&q->signals));
	mutex_destroy(&q->ctl_lock);
	q->cdev->ops->userq_free(q);
	bitmap_free(mask);
	drm_compute_vm_put(vm);
}

/**
 * drm_compute_userq_get - take a reference to a queue
 * @q: the queue
 */
void drm_compute_userq_get(struct drm_compute_userq *q)
{
	kref_get(&q->ref);
}
EXPORT_SYMBOL(drm_compute_userq_get);

/**
 * drm_compute_userq_put - drop a reference to a queue
 * @q: the queue
 *
 * The last reference frees it through &drm_compute_ops.userq_free.
 */
void drm_compute_userq_put(struct drm_compute_userq *q)
{
	kref_put(&q->ref, userq_release);
}
EXPORT_SYMBOL(drm_compute_userq_put);

static struct drm_compute_userq *userq_lookup(struct drm_compute_file *cfile,
					      u32 id)
{
	struct drm_compute_userq *q;

	rcu_read_lock();
	q = xa_load(&cfile->queues, id);
	if (q && !kref_get_unless_zero(&q->ref))
		q = NULL;
	rcu_read_unlock();
	return q;
}

/* Stop the hardware once; called with ctl_lock held. */
static void userq_stop(struct drm_compute_userq *q)
{
	lockdep_assert_held(&q->ctl_lock);
	if (q->stopped)
		return;
	q->cdev->ops->userq_stop(q);
	/* Read without ctl_lock by drm_compute_reset_work(), as a hint. */
	WRITE_ONCE(q->stopped, true);
}

/**
 * drm_compute_userq_remove - stop a queue that left its file and drop the
 * file's reference
 * @q: the queue, already erased from its file's table
 * @err: the error its pending signals complete with
 *
 * Called with the file's lock held.
 */
void drm_compute_userq_remove(struct drm_compute_userq *q, int err)
{
	struct drm_compute_device *cdev = q->cdev;
	LIST_HEAD(done);

	lockdep_assert_held(&q->cfile->lock);
	mutex_lock(&q->ctl_lock);
	userq_stop(q);
	mutex_unlock(&q->ctl_lock);

	spin_lock(&q->lock);
	q->destroyed = true;
	list_splice_init(&q->signals, &done);
	q->num_signals = 0;
	spin_unlock(&q->lock);
	signals_complete(&done, err);
	wake_up_all(&q->wq);

	mutex_lock(&cdev->userq_lock);
	list_del_init(&q->link);
	mutex_unlock(&cdev->userq_lock);
	q->vm->num_queues--;
	drm_compute_userq_put(q);
}

/**
 * drm_compute_priority_check - may a queue get this priority
 * @info: the device
 * @priority: the requested level
 * @privileged: the caller has CAP_SYS_NICE or is DRM master
 *
 * Returns: 0, -EINVAL for a level the device lacks, -EACCES for a
 * privileged level without privilege.
 */
int drm_compute_priority_check(const struct drm_compute_dev_info *info,
			       u32 priority, bool privileged)
{
	if (priority >= info->num_priorities)
		return -EINVAL;
	if (priority >= info->priority_privileged && !privileged)
		return -EACCES;
	return 0;
}
EXPORT_SYMBOL(drm_compute_priority_check);

/**
 * drm_compute_cu_mask_parse - turn a uapi CU mask into a bitmap
 * @info: the device
 * @words: @count / 32 words of mask, bit n of word n / 32 for CU n
 * @count: bits in @words, a multiple of 32 (0: every CU)
 * @mask: bitmap of &drm_compute_dev_info.num_cus bits, filled
 *
 * Returns: 0, or -EINVAL for a count that is not a multiple of 32 or
 * exceeds the CU count rounded up to 32, a bit past the last CU, or a
 * mask that enables no CU.
 */
int drm_compute_cu_mask_parse(const struct drm_compute_dev_info *info,
			      const u32 *words, u32 count, unsigned long *mask)
{
	u32 n = info->num_cus, i;

	if (!count) {
		bitmap_fill(mask, n);
		return 0;
	}
	if (count % 32 || count > round_up(n, 32))
		return -EINVAL;
	bitmap_zero(mask, n);
	for (i = 0; i < count; i++) {
		if (!(words[i / 32] & BIT(i % 32)))
			continue;
		if (i >= n)
			return -EINVAL;
		__set_bit(i, mask);
	}
	return bitmap_empty(mask, n) ? -EINVAL : 0;
}
EXPORT_SYMBOL(drm_compute_cu_mask_parse);

/**
 * drm_compute_userq_args_check - check the rules of a USERQ_CREATE argument
 * that need no lookup
 * @info: the device
 * @args: the argument
 *
 * Returns: 0 or -EINVAL.
 */
int drm_compute_userq_args_check(const struct drm_compute_dev_info *info,
				 const struct drm_compute_userq_create *args)
{
	bool wptr_mem = info->userq_caps & DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY;
	bool fence_mem = info->userq_caps & DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;

	if (args->flags || args->pad || args->queue_id ||
	    args->doorbell_pos || args->doorbell_offset)
		return -EINVAL;
	if (args->format >= 32 || !(info->queue_formats & BIT(args->format)))
		return -EINVAL;
	if (args->priority >= info->num_priorities)
		return -EINVAL;
	if (!is_power_of_2(args->ring_size) ||
	    args->ring_size < info->ring_size_min ||
	    args->ring_size > info->ring_size_max)
		return -EINVAL;
	if (!args->ring_va || !IS_ALIGNED(args->ring_va, args->ring_size))
		return -EINVAL;
	if (!args->rptr_va || !IS_ALIGNED(args->rptr_va, 8))
		return -EINVAL;
	if (wptr_mem ? !args->wptr_va || !IS_ALIGNED(args->wptr_va, 8) :
		       args->wptr_va)
		return -EINVAL;
	if (fence_mem ? !args->fence_va || !IS_ALIGNED(args->fence_va, 8) :
			args->fence_va)
		return -EINVAL;
	if (info->ctx_save_size) {
		if (!args->ctx_save_va ||
		    !IS_ALIGNED(args->ctx_save_va, info->page_size) ||
		    args->ctx_save_size < info->ctx_save_size)
			return -EINVAL;
	} else if (args->ctx_save_va || args->ctx_save_size) {
		return -EINVAL;
	}
	if (args->cu_mask_count % 32 ||
	    args->cu_mask_count > round_up(info->num_cus, 32) ||
	    (args->cu_mask_count && !args->cu_mask_ptr))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_userq_args_check);

/* A queue's CU bitmap from @count bits of @words (every CU for 0). */
static unsigned long *cu_mask_new(const struct drm_compute_dev_info *info,
				  const u32 *words, u32 count)
{
	unsigned long *mask;
	int ret;

	mask = bitmap_zalloc(info->num_cus, GFP_KERNEL);
	if (!mask)
		return ERR_PTR(-ENOMEM);
	ret = drm_compute_cu_mask_parse(info, words, count, mask);
	if (ret) {
		bitmap_free(mask);
		return ERR_PTR(ret);
	}
	return mask;
}

static unsigned long *cu_mask_from_user(const struct drm_compute_dev_info *info,
					const struct drm_compute_userq_create *args)
{
	unsigned long *mask;
	u32 *words = NULL;

	if (args->cu_mask_count) {
		words = memdup_array_user(u64_to_user_ptr(args->cu_mask_ptr),
					  args->cu_mask_count / 32, sizeof(u32));
		if (IS_ERR(words))
			return ERR_CAST(words);
	}
	mask = cu_mask_new(info, words, args->cu_mask_count);
	kfree(words);
	return mask;
}

/*
 * USERQ_CREATE's rules that need no lookup, for a new queue and for one a
 * restore makes: the arguments, and the priority for this caller.
 */
static int userq_rules_check(struct drm_compute_file *cfile,
			     const struct drm_compute_userq_create *args)
{
	const struct drm_compute_dev_info *info = &cfile->cdev->info;
	bool privileged;
	int ret;

	ret = drm_compute_userq_args_check(info, args);
	if (ret)
		return ret;
	privileged = capable(CAP_SYS_NICE) || drm_is_current_master(cfile->file);
	return drm_compute_priority_check(info, args->priority, privileged);
}

static void watchdog_kick(struct drm_compute_device *cdev)
{
	unsigned int ms = drm_compute_device_hang_timeout_ms(cdev);

	/* Four looks per timeout; a disabled detector looks once a second. */
	ms = ms ? max(ms / 4, 10u) : 1000;
	mod_delayed_work(system_dfl_wq, &cdev->watchdog, msecs_to_jiffies(ms));
}

/*
 * Put a restored queue where its checkpoint found it (before it starts):
 * suspended, its hold ended by the restore's END, which continues it if
 * it ran when the checkpoint paused it.
 */
static int userq_criu_make(struct drm_compute_userq *q,
			   const struct drm_compute_criu_queue *saved, u32 db_pos)
{
	const struct drm_compute_userq_hw hw = {
		.rptr = saved->rptr,
		.wptr = saved->wptr,
		.fence = saved->fence,
	};
	int ret;

	lockdep_assert_held(&q->cfile->criu_lock);
	if (db_pos != saved->doorbell_pos)
		return -ENXIO;
	ret = q->cdev->ops->userq_criu_restore(q, &hw);
	if (ret)
		return ret;
	mutex_lock(&q->ctl_lock);
	q->criu_held = true;
	q->criu_suspended = !saved->status;
	spin_lock(&q->lock);
	q->status = DRM_COMPUTE_USERQ_STATUS_SUSPENDED;
	q->fence = saved->fence;
	spin_unlock(&q->lock);
	mutex_unlock(&q->ctl_lock);
	return 0;
}

/*
 * Make a queue from checked arguments: an ordinary one (@saved NULL) at
 * the first free id, or one a checkpoint saved, at its id and stopped
 * where it was. Takes @mask, and frees it on failure.
 */
static int userq_new(struct drm_compute_file *cfile,
		     struct drm_compute_userq_create *args, unsigned long *mask,
		     const struct drm_compute_criu_queue *saved)
{
	struct drm_compute_device *cdev = cfile->cdev;
	const struct drm_compute_dev_info *info = &cdev->info;
	struct drm_compute_userq_args qargs;
	struct drm_compute_userq *q;
	struct drm_compute_vm *vm;
	u64 db_offset = 0;
	u32 db_pos = 0;
	int ret;

	vm = drm_compute_vm_lookup(cfile, args->vm_id);
	if (!vm) {
		bitmap_free(mask);
		return -ENOENT;
	}
	/* An SVM VM mirrors its creator's address space, and only serves it. */
	if ((vm->flags & DRM_COMPUTE_VM_CREATE_SVM) && vm->svm.mm != current->mm) {
		drm_compute_vm_put(vm);
		bitmap_free(mask);
		return -EPERM;
	}

	qargs = (struct drm_compute_userq_args) {
		.vm = vm,
		.format = args->format,
		.priority = args->priority,
		.cu_mask = mask,
		.ring_va = args->ring_va,
		.ring_size = args->ring_size,
		.rptr_va = args->rptr_va,
		.wptr_va = args->wptr_va,
		.fence_va = args->fence_va,
		.ctx_save_va = args->ctx_save_va,
		.ctx_save_size = args->ctx_save_size,
		.restore = !!saved,
	};

	mutex_lock(&cfile->lock);
	/* The VM may have been destroyed since the lookup. */
	if (xa_load(&cfile->vms, args->vm_id) != vm) {
		ret = -ENOENT;
		goto err_unlock;
	}
	/* A checkpoint saves the queues it paused, no others. */
	if (cfile->paused) {
		ret = -EBUSY;
		goto err_unlock;
	}
	if (drm_compute_xa_count(&cfile->queues) >= info->max_queues) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	if (saved && xa_load(&cfile->queues, saved->queue_id)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	q = cdev->ops->userq_create(cfile, &qargs, &db_offset, &db_pos);
	if (IS_ERR(q)) {
		ret = PTR_ERR(q);
		goto err_unlock;
	}
	q->cdev = cdev;
	q->cfile = cfile;
	q->vm = vm;
	kref_init(&q->ref);
	q->priority = args->priority;
	q->cu_mask = mask;
	q->create = *args;
	q->create.cu_mask_ptr = 0;
	q->create.doorbell_offset = db_offset;
	q->create.doorbell_pos = db_pos;
	q->fence_context = dma_fence_context_alloc(1);
	mutex_init(&q->ctl_lock);
	spin_lock_init(&q->lock);
	q->status = 0;
	q->fault_reason = DRM_COMPUTE_FAULT_NONE;
	q->fault_va = 0;
	q->fence = 0;
	INIT_LIST_HEAD(&q->signals);
	q->num_signals = 0;
	q->destroyed = false;
	q->stopped = false;
	init_waitqueue_head(&q->wq);
	q->hang_progress = 0;
	q->hang_since = jiffies;
	vm->num_queues++;

	mutex_lock(&cdev->userq_lock);
	list_add_tail(&q->link, &cdev->userqs);
	watchdog_kick(cdev);
	mutex_unlock(&cdev->userq_lock);

	if (saved) {
		ret = userq_criu_make(q, saved, db_pos);
		if (ret) {
			/* Never published: stop it, and the file's reference goes. */
			drm_compute_userq_remove(q, -ECANCELED);
			mutex_unlock(&cfile->lock);
			return ret;
		}
	}
	/* Started before it is published, so no ioctl sees it unstarted. */
	if (cdev->ops->userq_start)
		cdev->ops->userq_start(q);
	if (saved) {
		q->id = saved->queue_id;
		ret = xa_insert(&cfile->queues, q->id, q, GFP_KERNEL);
	} else {
		ret = xa_alloc(&cfile->queues, &q->id, q, XA_LIMIT(1, U32_MAX),
			       GFP_KERNEL);
	}
	if (ret) {
		drm_compute_userq_remove(q, -ECANCELED);
		mutex_unlock(&cfile->lock);
		return ret == -EBUSY ? -EEXIST : ret;
	}
	/* Once unlocked, a concurrent destroy of the new id may free @q. */
	args->queue_id = q->id;
	mutex_unlock(&cfile->lock);

	args->doorbell_offset = db_offset;
	args->doorbell_pos = db_pos;
	return 0;

err_unlock:
	mutex_unlock(&cfile->lock);
	drm_compute_vm_put(vm);
	bitmap_free(mask);
	return ret;
}

/**
 * drm_compute_userq_create_ioctl - %DRM_COMPUTE_OP_USERQ_CREATE
 * @cfile: the file's compute state
 * @data: &struct drm_compute_userq_create
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_userq_create
 * documents.
 */
int drm_compute_userq_create_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_device *cdev = cfile->cdev;
	const struct drm_compute_dev_info *info = &cdev->info;
	struct drm_compute_userq_create *args = data;
	unsigned long *mask;
	int ret;

	if (!(cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	ret = userq_rules_check(cfile, args);
	if (ret)
		return ret;
	mask = cu_mask_from_user(info, args);
	if (IS_ERR(mask))
		return PTR_ERR(mask);
	return userq_new(cfile, args, mask, NULL);
}
EXPORT_SYMBOL(drm_compute_userq_create_ioctl);

/**
 * drm_compute_userq_destroy_ioctl - %DRM_COMPUTE_OP_USERQ_DESTROY
 * @cfile: the file's compute state
 * @data: &struct drm_compute_userq_destroy
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_userq_destroy
 * documents.
 */
int drm_compute_userq_destroy_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_userq_destroy *args = data;
	struct drm_compute_userq *q;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (args->pad)
		return -EINVAL;
	mutex_lock(&cfile->lock);
	/* Never erase what is not there: index 0 is the reserved one. */
	q = xa_load(&cfile->queues, args->queue_id);
	if (q) {
		xa_erase(&cfile->queues, args->queue_id);
		drm_compute_userq_remove(q, -ECANCELED);
	}
	mutex_unlock(&cfile->lock);
	return q ? 0 : -ENOENT;
}
EXPORT_SYMBOL(drm_compute_userq_destroy_ioctl);

static int userq_suspend(struct drm_compute_userq *q)
{
	u32 status;
	int ret;

	mutex_lock(&q->ctl_lock);
	spin_lock(&q->lock);
	status = q->status;
	spin_unlock(&q->lock);
	if (q->stopped && !status) {
		ret = -ENOENT;	/* destroyed since the lookup */
		goto out;
	}
	if (status == DRM_COMPUTE_USERQ_STATUS_SUSPENDED) {
		ret = -EINVAL;
		goto out;
	}
	if (status) {
		ret = -EIO;
		goto out;
	}
	ret = q->cdev->ops->userq_suspend(q);
	if (ret)
		goto out;
	spin_lock(&q->lock);
	if (!q->status)
		q->status = DRM_COMPUTE_USERQ_STATUS_SUSPENDED;
	else
		ret = -EIO;	/* it faulted on the way */
	spin_unlock(&q->lock);
out:
	mutex_unlock(&q->ctl_lock);
	return ret;
}

static int userq_resume(struct drm_compute_userq *q)
{
	int ret = 0;

	mutex_lock(&q->ctl_lock);
	if (q->criu_held) {
		ret = -EBUSY;	/* only the checkpoint's resume */
		goto out;
	}
	spin_lock(&q->lock);
	if (q->stopped && !userq_dead(q))
		ret = -ENOENT;	/* destroyed since the lookup */
	else if (q->status != DRM_COMPUTE_USERQ_STATUS_SUSPENDED)
		ret = userq_dead(q) ? -EIO : -EINVAL;
	else
		q->status = 0;	/* a fault reported while resuming sticks */
	spin_unlock(&q->lock);
	if (!ret) {
		ret = q->cdev->ops->userq_resume(q);
		if (ret) {
			spin_lock(&q->lock);
			if (!q->status)
				q->status = DRM_COMPUTE_USERQ_STATUS_SUSPENDED;
			spin_unlock(&q->lock);
		}
	}
out:
	mutex_unlock(&q->ctl_lock);
	return ret;
}

/*
 * userq_criu_hold - hold a queue for a checkpoint
 * @q: a queue of the file being paused
 *
 * Suspends the queue if it runs; in any case only
 * userq_criu_release() continues it from now on.
 *
 * Context: process; the file's &drm_compute_file.criu_lock held.
 *
 * Returns: 1 when the queue was running and is now suspended for the
 * checkpoint; 0 when there was nothing to suspend (suspended by its user,
 * dead, or destroyed); or the driver's error from suspending it, with the
 * queue held all the same (userq_criu_release() releases it).
 */
static int userq_criu_hold(struct drm_compute_userq *q)
{
	int ret = 0;

	mutex_lock(&q->ctl_lock);
	q->criu_held = true;
	spin_lock(&q->lock);
	/* Stopped: destroyed; a status: suspended by its user, or dead. */
	if (q->stopped || q->status) {
		spin_unlock(&q->lock);
		goto out;
	}
	spin_unlock(&q->lock);
	ret = q->cdev->ops->userq_suspend(q);
	if (ret)
		goto out;
	spin_lock(&q->lock);
	if (!q->status) {
		q->status = DRM_COMPUTE_USERQ_STATUS_SUSPENDED;
		q->criu_suspended = true;
		ret = 1;
	}	/* else it faulted on the way: dead, nothing to continue */
	spin_unlock(&q->lock);
out:
	mutex_unlock(&q->ctl_lock);
	return ret;
}

/*
 * userq_criu_release - release a queue a checkpoint held
 * @q: a queue of the paused file
 *
 * The hold ends in any case; the queue continues if the pause suspended
 * it and it is still suspended. One that cannot continue stays suspended,
 * in its user's hands.
 *
 * Context: process; the file's &drm_compute_file.criu_lock held.
 *
 * Returns: 1 when the queue runs again; 0 when the pause had not
 * suspended it, or it died or was destroyed meanwhile; or the driver's
 * error from resuming it.
 */
static int userq_criu_release(struct drm_compute_userq *q)
{
	bool go = false;
	int ret = 0;

	mutex_lock(&q->ctl_lock);
	q->criu_held = false;
	if (!q->criu_suspended)
		goto out;
	q->criu_suspended = false;
	spin_lock(&q->lock);
	if (!q->stopped && q->status == DRM_COMPUTE_USERQ_STATUS_SUSPENDED) {
		q->status = 0;
		go = true;
	}
	spin_unlock(&q->lock);
	if (go) {
		ret = q->cdev->ops->userq_resume(q);
		spin_lock(&q->lock);
		if (ret && !q->status)
			q->status = DRM_COMPUTE_USERQ_STATUS_SUSPENDED;
		spin_unlock(&q->lock);
		if (!ret)
			ret = 1;
	}
out:
	mutex_unlock(&q->ctl_lock);
	return ret;
}

/*
 * The file's first queue at or after id *@id, with a reference (*@id set to
 * its id), or NULL. No allocation, so that undoing a pause cannot fail.
 */
static struct drm_compute_userq *userq_next(struct drm_compute_file *cfile,
					    unsigned long *id)
{
	struct drm_compute_userq *q;

	rcu_read_lock();
	for (;;) {
		q = xa_find(&cfile->queues, id, ULONG_MAX, XA_PRESENT);
		if (!q || kref_get_unless_zero(&q->ref))
			break;
		(*id)++;	/* being freed: not the file's any more */
	}
	rcu_read_unlock();
	return q;
}

/**
 * drm_compute_userq_criu_count - the queues a checkpoint of a file would save
 * @cfile: the file's compute state
 *
 * Returns: the file's queues.
 */
u32 drm_compute_userq_criu_count(struct drm_compute_file *cfile)
{
	return drm_compute_xa_count(&cfile->queues);
}

/**
 * drm_compute_userq_criu_pause - hold a paused file's queues
 * @cfile: the file, marked paused (no queue is created from then on)
 * @paused: set to the queues the call suspended
 *
 * Suspends every running queue and holds every queue: no user resumes one
 * until drm_compute_userq_criu_resume(). On failure every queue is
 * released, and those the call suspended continue.
 *
 * Context: process; &drm_compute_file.criu_lock held. Queues are found
 * under RCU and worked on with a reference, one at a time.
 *
 * Returns: 0, or the driver's error from suspending a queue.
 */
int drm_compute_userq_criu_pause(struct drm_compute_file *cfile, u32 *paused)
{
	struct drm_compute_userq *q;
	unsigned long id;
	u32 n = 0, resumed;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	for (id = 0; (q = userq_next(cfile, &id)); id++) {
		ret = userq_criu_hold(q);
		drm_compute_userq_put(q);
		if (ret < 0)
			break;
		n += ret;
		ret = 0;
	}
	/* Only the queues this pause suspended carry its mark. */
	if (ret) {
		drm_compute_userq_criu_resume(cfile, &resumed);
		n = 0;
	}
	*paused = n;
	return ret;
}

/**
 * drm_compute_userq_criu_resume - release a paused file's queues
 * @cfile: the file
 * @resumed: set to the queues that run again
 *
 * Every hold ends; a queue the pause suspended continues. A failure to
 * resume one is reported, and the others are released all the same.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, or the first driver error from resuming a queue.
 */
int drm_compute_userq_criu_resume(struct drm_compute_file *cfile, u32 *resumed)
{
	struct drm_compute_userq *q;
	unsigned long id;
	u32 n = 0;
	int ret = 0, r;

	lockdep_assert_held(&cfile->criu_lock);
	for (id = 0; (q = userq_next(cfile, &id)); id++) {
		r = userq_criu_release(q);
		drm_compute_userq_put(q);
		if (r > 0)
			n++;
		else if (r < 0 && !ret)
			ret = r;
	}
	*resumed = n;
	return ret;
}

/* Whether a checkpoint can save @q as it stands. */
static bool userq_criu_savable(struct drm_compute_userq *q)
{
	bool ok;

	if (!(q->cdev->info.userq_caps & DRM_COMPUTE_USERQ_CAP_CRIU))
		return false;
	spin_lock(&q->lock);
	/* Dead queues are not saved. */
	ok = !userq_dead(q) && !q->stopped;
	spin_unlock(&q->lock);
	return ok;
}

/*
 * Whether a checkpoint can save pending signal @sig of a queue of @cfile:
 * its handle still names its sync object (a closed handle leaves the
 * signal with a sync object the checkpoint cannot name).
 */
static bool signal_criu_savable(struct drm_compute_file *cfile,
				const struct userq_signal *sig)
{
	return xa_load(&cfile->file->syncobj_xa, sig->handle) == sig->syncobj;
}

/* The pending signals of @q that a checkpoint cannot save. */
static u32 userq_signals_unsaved(struct drm_compute_userq *q)
{
	struct userq_signal *sig;
	u32 n = 0;

	spin_lock(&q->lock);
	list_for_each_entry(sig, &q->signals, link)
		n += !signal_criu_savable(q->cfile, sig);
	spin_unlock(&q->lock);
	return n;
}

/**
 * drm_compute_userq_criu_unsaved - the queues a checkpoint cannot save
 * @cfile: the file's compute state
 *
 * Every queue on a device without %DRM_COMPUTE_USERQ_CAP_CRIU; elsewhere
 * those that are dead (faulted, hung, lost), and the pending sync-object
 * signals whose handle no longer names their sync object.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: the count.
 */
u32 drm_compute_userq_criu_unsaved(struct drm_compute_file *cfile)
{
	struct drm_compute_userq *q;
	unsigned long id;
	u32 n = 0;

	lockdep_assert_held(&cfile->criu_lock);
	for (id = 0; (q = userq_next(cfile, &id)); id++) {
		if (!userq_criu_savable(q))
			n++;
		n += userq_signals_unsaved(q);
		drm_compute_userq_put(q);
	}
	return n;
}

/* One queue as a checkpoint saves it; -EAGAIN for one that runs. */
static int userq_criu_save(struct drm_compute_userq *q,
			   struct drm_compute_criu_queue *e)
{
	const struct drm_compute_userq_create *c = &q->create;
	struct drm_compute_userq_hw hw = { };
	int ret = 0;

	mutex_lock(&q->ctl_lock);
	spin_lock(&q->lock);
	/* The pause holds every queue it saves. */
	if (q->status != DRM_COMPUTE_USERQ_STATUS_SUSPENDED || !q->criu_held)
		ret = -EAGAIN;
	spin_unlock(&q->lock);
	if (ret)
		goto out;
	q->cdev->ops->userq_hw_state(q, &hw);
	*e = (struct drm_compute_criu_queue) {
		.queue_id = q->id,
		.vm_id = c->vm_id,
		.format = c->format,
		.priority = q->priority,
		.ring_va = c->ring_va,
		.ring_size = c->ring_size,
		.rptr_va = c->rptr_va,
		.wptr_va = c->wptr_va,
		.fence_va = c->fence_va,
		.ctx_save_va = c->ctx_save_va,
		.ctx_save_size = c->ctx_save_size,
		.rptr = hw.rptr,
		.wptr = hw.wptr,
		.status = q->criu_suspended ? 0 : DRM_COMPUTE_USERQ_STATUS_SUSPENDED,
		.cu_mask_count = round_up(q->cdev->info.num_cus, 32),
		.doorbell_offset = c->doorbell_offset,
		.doorbell_pos = c->doorbell_pos,
	};
	e->fence = hw.fence;
	bitmap_to_arr32(e->cu_mask, q->cu_mask, q->cdev->info.num_cus);
out:
	mutex_unlock(&q->ctl_lock);
	return ret;
}

/**
 * drm_compute_userq_criu_list - %DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES
 * @cfile: the paused file, which holds nothing unsaved
 * @args: the call: up to @count entries written to @ptr, @count set to
 *	  the file's queues
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EFAULT, or -EAGAIN for a queue the pause did not hold
 * (none, on a paused file).
 */
int drm_compute_userq_criu_list(struct drm_compute_file *cfile,
				struct drm_compute_criu_checkpoint *args)
{
	void __user *out = u64_to_user_ptr(args->ptr);
	struct drm_compute_criu_queue e;
	struct drm_compute_userq *q;
	unsigned long id;
	u32 total = 0;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	for (id = 0; (q = userq_next(cfile, &id)); id++) {
		if (total < args->count) {
			ret = userq_criu_save(q, &e);
			if (!ret && copy_to_user(out + total * sizeof(e), &e, sizeof(e)))
				ret = -EFAULT;
		}
		drm_compute_userq_put(q);
		if (ret)
			return ret;
		total++;
	}
	args->count = total;
	return 0;
}

/* A saved queue's creation arguments, checked as USERQ_CREATE's are. */
static int userq_criu_args(struct drm_compute_file *cfile,
			   const struct drm_compute_criu_queue *e,
			   struct drm_compute_userq_create *args,
			   unsigned long **mask)
{
	int ret;

	if (!e->queue_id || e->pad || e->reserved[0] || e->reserved[1] ||
	    (e->status && e->status != DRM_COMPUTE_USERQ_STATUS_SUSPENDED) ||
	    e->cu_mask_count > DRM_COMPUTE_CRIU_CU_MASK_WORDS * 32 ||
	    e->doorbell_offset)
		return -EINVAL;
	*args = (struct drm_compute_userq_create) {
		.vm_id = e->vm_id,
		.format = e->format,
		.priority = e->priority,
		.ring_va = e->ring_va,
		.ring_size = e->ring_size,
		.rptr_va = e->rptr_va,
		.wptr_va = e->wptr_va,
		.fence_va = e->fence_va,
		.ctx_save_va = e->ctx_save_va,
		.ctx_save_size = e->ctx_save_size,
	};
	ret = userq_rules_check(cfile, args);
	if (ret)
		return ret;
	*mask = cu_mask_new(&cfile->cdev->info, e->cu_mask, e->cu_mask_count);
	return PTR_ERR_OR_ZERO(*mask);
}

/*
 * All or nothing: destroy the @made first queues of a failed call, by the
 * ids of the call's own copy of its entries, and zero their doorbell
 * offsets in the caller's array again.
 */
static void userq_criu_restore_undo(struct drm_compute_file *cfile,
				    const struct drm_compute_criu_queue *e,
				    struct drm_compute_criu_queue __user *in, u32 made)
{
	struct drm_compute_userq *q;

	while (made--) {
		mutex_lock(&cfile->lock);
		q = xa_erase(&cfile->queues, e[made].queue_id);
		if (q)
			drm_compute_userq_remove(q, -ECANCELED);
		mutex_unlock(&cfile->lock);
		/* Best effort: the entry goes back as it came. */
		if (put_user(0ull, &in[made].doorbell_offset))
			continue;
	}
}

/**
 * drm_compute_userq_criu_restore - %DRM_COMPUTE_CRIU_RESTORE_QUEUES
 * @cfile: the restoring file
 * @args: the call: @count entries at @ptr
 *
 * Each queue is made with USERQ_CREATE's rules and driver path, at the id
 * its entry names, stopped where the checkpoint found it
 * (&drm_compute_ops.userq_criu_restore); its new doorbell offset goes into
 * its entry. The entries are read once: all or nothing, an entry that
 * fails takes back what the call made before it, whatever the caller's
 * memory says meanwhile.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0 or the first entry's error, as &struct
 * drm_compute_criu_restore documents.
 */
int drm_compute_userq_criu_restore(struct drm_compute_file *cfile,
				   struct drm_compute_criu_restore *args)
{
	struct drm_compute_criu_queue __user *in = u64_to_user_ptr(args->ptr);
	struct drm_compute_userq_create create;
	struct drm_compute_criu_queue *e;
	unsigned long *mask;
	int ret = 0;
	u32 i;

	lockdep_assert_held(&cfile->criu_lock);
	if (!(cfile->cdev->info.userq_caps & DRM_COMPUTE_USERQ_CAP_CRIU))
		return -EOPNOTSUPP;
	if (!args->count)
		return 0;
	if (args->count > cfile->cdev->info.max_queues)
		return -ENOSPC;
	e = vmemdup_array_user(in, args->count, sizeof(*e));
	if (IS_ERR(e))
		return PTR_ERR(e);
	for (i = 0; i < args->count; i++) {
		ret = userq_criu_args(cfile, &e[i], &create, &mask);
		if (ret)
			break;
		ret = userq_new(cfile, &create, mask, &e[i]);
		if (ret)
			break;
		if (put_user(create.doorbell_offset, &in[i].doorbell_offset)) {
			i++;	/* made: taken back with the others */
			ret = -EFAULT;
			break;
		}
	}
	if (ret)
		userq_criu_restore_undo(cfile, e, in, i);
	kvfree(e);
	return ret;
}

/*
 * Pending sync-object signals (USERQ_SIGNAL requests a queue's fence has
 * not reached): nothing of them is in the sync object until they complete,
 * so a checkpoint saves each request (queue, handle, value, point) and a
 * restore asks for it again on the restored queue.
 */

/**
 * drm_compute_userq_criu_signal_count - the pending sync-object signals of
 * a file's queues
 * @cfile: the file's compute state
 *
 * Returns: the count.
 */
u32 drm_compute_userq_criu_signal_count(struct drm_compute_file *cfile)
{
	struct drm_compute_userq *q;
	unsigned long id;
	u32 n = 0;

	for (id = 0; (q = userq_next(cfile, &id)); id++) {
		spin_lock(&q->lock);
		n += q->num_signals;
		spin_unlock(&q->lock);
		drm_compute_userq_put(q);
	}
	return n;
}

/*
 * The references the pending signals of @cfile's queues hold on @syncobj:
 * a checkpoint tells a sync object shared beyond its handle from one its
 * own queues will signal by these.
 */
static u32 userq_signal_refs(struct drm_compute_file *cfile,
			     struct drm_syncobj *syncobj)
{
	struct drm_compute_userq *q;
	struct userq_signal *sig;
	unsigned long id;
	u32 n = 0;

	for (id = 0; (q = userq_next(cfile, &id)); id++) {
		spin_lock(&q->lock);
		list_for_each_entry(sig, &q->signals, link)
			n += sig->syncobj == syncobj;
		spin_unlock(&q->lock);
		drm_compute_userq_put(q);
	}
	return n;
}

/**
 * drm_compute_userq_criu_list_signals - %DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS
 * @cfile: the paused file, which holds nothing unsaved
 * @args: the call: up to @count entries written to @ptr, @count set to
 *	  the file's pending signals
 *
 * By queue id, and in each queue in the order it completes them.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EFAULT or -ENOMEM.
 */
int drm_compute_userq_criu_list_signals(struct drm_compute_file *cfile,
					struct drm_compute_criu_checkpoint *args)
{
	void __user *out = u64_to_user_ptr(args->ptr);
	struct drm_compute_criu_signal *e;
	struct drm_compute_userq *q;
	struct userq_signal *sig;
	unsigned long id;
	u32 total = 0, n;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	/* Copied out of each queue's list under its spinlock, then to the user. */
	e = kvmalloc_array(DRM_COMPUTE_MAX_SIGNALS, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	for (id = 0; !ret && (q = userq_next(cfile, &id)); id++) {
		n = 0;
		spin_lock(&q->lock);
		list_for_each_entry(sig, &q->signals, link) {
			if (n == DRM_COMPUTE_MAX_SIGNALS)
				break;
			e[n++] = (struct drm_compute_criu_signal) {
				.queue_id = q->id,
				.handle = sig->handle,
				.value = sig->value,
				.point = sig->point,
			};
		}
		spin_unlock(&q->lock);
		drm_compute_userq_put(q);
		if (total < args->count &&
		    copy_to_user(out + total * sizeof(*e), e,
				 min(n, args->count - total) * sizeof(*e)))
			ret = -EFAULT;
		total += n;
	}
	kvfree(e);
	if (!ret)
		args->count = total;
	return ret;
}

/* The distinct queues of a RESTORE_SIGNALS call, with their new signals. */
struct signal_restore_queue {
	struct drm_compute_userq *q;
	u32 added;
};

/**
 * drm_compute_userq_criu_restore_signals - %DRM_COMPUTE_CRIU_RESTORE_SIGNALS
 * @cfile: the restoring file
 * @args: the call: @count entries at @ptr
 *
 * Each entry asks again for a signal of a restored queue, as USERQ_SIGNAL
 * would: one whose value the queue's fence has reached completes now, the
 * others when the queue gets there. Every entry is checked and allocated
 * before the first is added, so the call adds all of them or none.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EINVAL, -ENOENT, -EIO, -ENOSPC, -EFAULT or -ENOMEM, as
 * %DRM_COMPUTE_CRIU_RESTORE_SIGNALS documents.
 */
int drm_compute_userq_criu_restore_signals(struct drm_compute_file *cfile,
					   struct drm_compute_criu_restore *args)
{
	const u32 max_queues = cfile->cdev->info.max_queues;
	struct signal_restore_queue *qs;
	struct drm_compute_criu_signal *e;
	struct userq_signal **sigs;
	u32 i, j, nq = 0;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	if (!args->count)
		return 0;
	if (args->count > (u64)max_queues * DRM_COMPUTE_MAX_SIGNALS)
		return -ENOSPC;
	e = vmemdup_array_user(u64_to_user_ptr(args->ptr), args->count, sizeof(*e));
	if (IS_ERR(e))
		return PTR_ERR(e);
	sigs = kvcalloc(args->count, sizeof(*sigs), GFP_KERNEL);
	qs = kvcalloc(max_queues, sizeof(*qs), GFP_KERNEL);
	if (!sigs || !qs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args->count && !ret; i++) {
		const struct drm_compute_userq_signal req = {
			.queue_id = e[i].queue_id, .handle = e[i].handle,
			.value = e[i].value, .point = e[i].point,
		};
		struct drm_syncobj *syncobj;

		if (e[i].reserved) {
			ret = -EINVAL;
			break;
		}
		for (j = 0; j < nq && qs[j].q->id != e[i].queue_id; j++)
			;
		if (j == nq) {
			qs[nq].q = userq_lookup(cfile, e[i].queue_id);
			if (!qs[nq].q) {
				ret = -ENOENT;
				break;
			}
			nq++;
		}
		spin_lock(&qs[j].q->lock);
		if (qs[j].q->num_signals + ++qs[j].added > DRM_COMPUTE_MAX_SIGNALS)
			ret = -ENOSPC;
		spin_unlock(&qs[j].q->lock);
		if (ret)
			break;
		syncobj = drm_syncobj_find(cfile->file, e[i].handle);
		if (!syncobj) {
			ret = -ENOENT;
			break;
		}
		sigs[i] = signal_alloc(qs[j].q, &req);
		if (!sigs[i]) {
			drm_syncobj_put(syncobj);
			ret = -ENOMEM;
			break;
		}
		sigs[i]->syncobj = syncobj;
	}
	/* The restoring file runs no other ioctl: the queues stay as checked. */
	for (j = 0; j < nq && !ret; j++) {
		spin_lock(&qs[j].q->lock);
		if (qs[j].q->destroyed || userq_dead(qs[j].q))
			ret = -EIO;
		spin_unlock(&qs[j].q->lock);
	}
	for (i = 0; i < args->count && sigs[i]; i++) {
		struct drm_compute_userq *q;
		bool now = false;

		if (ret) {
			/* Never published: drop it quietly, signaled so it can go. */
			dma_fence_signal(sigs[i]->fence);
			signal_free(sigs[i]);
			continue;
		}
		for (j = 0; qs[j].q->id != e[i].queue_id; j++)
			;
		q = qs[j].q;
		spin_lock(&q->lock);
		if (q->fence >= sigs[i]->value) {
			now = true;
		} else {
			struct userq_signal *pos;

			list_for_each_entry_reverse(pos, &q->signals, link)
				if (pos->value <= sigs[i]->value)
					break;
			list_add(&sigs[i]->link, &pos->link);
			q->num_signals++;
		}
		spin_unlock(&q->lock);
		if (now)
			signal_complete(sigs[i], 0);
		else if (fence_in_memory(q))
			mod_delayed_work(system_dfl_wq, &q->cdev->fence_poll, 1);
	}
out:
	for (j = 0; j < nq; j++)
		drm_compute_userq_put(qs[j].q);
	kvfree(qs);
	kvfree(sigs);
	kvfree(e);
	return ret;
}

/*
 * Sync objects: DRM core's, which the file's queues signal into
 * (USERQ_SIGNAL). A checkpoint saves each one's state: no fence, or a
 * fence that signaled (a binary one, or a timeline up to its last point);
 * a pending or failed fence is unsaved.
 */

/* The file's next sync object at or after handle *@idx, referenced. */
static struct drm_syncobj *syncobj_next(struct drm_file *file, unsigned long *idx)
{
	struct drm_syncobj *s;

	xa_lock(&file->syncobj_xa);
	s = xa_find(&file->syncobj_xa, idx, ULONG_MAX, XA_PRESENT);
	if (s)
		drm_syncobj_get(s);
	xa_unlock(&file->syncobj_xa);
	return s;
}

/* Whether a signaled fence, or any point of a signaled timeline, failed. */
static bool fence_failed(struct dma_fence *f)
{
	struct dma_fence *iter;

	if (!to_dma_fence_chain(f))
		return f->error;
	/* A chain keeps no error of its own: its points' fences do. */
	dma_fence_chain_for_each(iter, f) {
		if (dma_fence_chain_contained(iter)->error) {
			dma_fence_put(iter);
			return true;
		}
	}
	return false;
}

/*
 * @s (referenced by the caller, by its handle and by the pending signals
 * of @cfile's queues) as a checkpoint saves it; false when it cannot be
 * saved: a fence pending or failed, or the object shared beyond this
 * handle (an fd, another handle or file), which a restore would make a
 * private copy of.
 */
static bool syncobj_criu_state(struct drm_compute_file *cfile,
			       struct drm_syncobj *s,
			       struct drm_compute_criu_syncobj *e)
{
	struct dma_fence *f;
	bool ok = true;

	e->flags = 0;
	e->point = 0;
	if (kref_read(&s->refcount) > 2 + userq_signal_refs(cfile, s))
		return false;
	f = drm_syncobj_fence_get(s);
	if (!f)
		return true;
	if (!dma_fence_is_signaled(f) || fence_failed(f)) {
		ok = false;
	} else if (to_dma_fence_chain(f)) {
		e->flags = DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED | DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE;
		e->point = f->seqno;
	} else {
		e->flags = DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED;
	}
	dma_fence_put(f);
	return ok;
}

/**
 * drm_compute_syncobj_criu_count - the sync objects of a file, and those
 * a checkpoint cannot save
 * @cfile: the file's compute state
 * @unsaved: set to the sync objects whose fence is pending or failed
 *
 * Returns: the file's sync objects.
 */
u32 drm_compute_syncobj_criu_count(struct drm_compute_file *cfile, u32 *unsaved)
{
	struct drm_compute_criu_syncobj e;
	struct drm_syncobj *s;
	unsigned long idx;
	u32 n = 0;

	*unsaved = 0;
	if (!drm_core_check_feature(cfile->cdev->drm, DRIVER_SYNCOBJ))
		return 0;	/* no sync objects, and no table to look in */
	for (idx = 0; (s = syncobj_next(cfile->file, &idx)); idx++) {
		n++;
		if (!syncobj_criu_state(cfile, s, &e))
			(*unsaved)++;
		drm_syncobj_put(s);
	}
	return n;
}

/**
 * drm_compute_syncobj_criu_list - %DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS
 * @cfile: the paused file, which holds nothing unsaved
 * @args: the call: up to @count entries written to @ptr, @count set to
 *	  the file's sync objects
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EFAULT, or -EAGAIN for a sync object that got a pending
 * fence since the file was counted.
 */
int drm_compute_syncobj_criu_list(struct drm_compute_file *cfile,
				  struct drm_compute_criu_checkpoint *args)
{
	void __user *out = u64_to_user_ptr(args->ptr);
	struct drm_compute_criu_syncobj e;
	struct drm_syncobj *s;
	unsigned long idx;
	u32 total = 0;
	int ret = 0;

	lockdep_assert_held(&cfile->criu_lock);
	if (!drm_core_check_feature(cfile->cdev->drm, DRIVER_SYNCOBJ)) {
		args->count = 0;
		return 0;
	}
	for (idx = 0; (s = syncobj_next(cfile->file, &idx)); idx++) {
		if (total < args->count) {
			e = (struct drm_compute_criu_syncobj) { .handle = idx };
			if (!syncobj_criu_state(cfile, s, &e))
				ret = -EAGAIN;
			else if (copy_to_user(out + total * sizeof(e), &e, sizeof(e)))
				ret = -EFAULT;
		}
		drm_syncobj_put(s);
		if (ret)
			return ret;
		total++;
	}
	args->count = total;
	return 0;
}

/* A new sync object in the state @e describes, not yet in any file. */
static int syncobj_criu_make(const struct drm_compute_criu_syncobj *e,
			     struct drm_syncobj **out)
{
	const u32 both = DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED | DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE;
	struct dma_fence_chain *chain;
	struct dma_fence *stub;
	int ret;

	if (!e->handle || e->reserved || (e->flags & ~both) ||
	    ((e->flags & DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE) ?
	     (e->flags != both || !e->point) : e->point))
		return -EINVAL;
	ret = drm_syncobj_create(out, e->flags == DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED ?
				 DRM_SYNCOBJ_CREATE_SIGNALED : 0, NULL);
	if (ret || e->flags != both)
		return ret;
	chain = dma_fence_chain_alloc();
	if (!chain) {
		drm_syncobj_put(*out);
		return -ENOMEM;
	}
	stub = dma_fence_get_stub();
	drm_syncobj_add_point(*out, chain, stub, e->point);	/* takes its own */
	dma_fence_put(stub);
	return 0;
}

/**
 * drm_compute_syncobj_criu_restore - %DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS
 * @cfile: the restoring file
 * @args: the call: @count entries at @ptr
 *
 * Each sync object is created at the handle its entry names, holding a
 * signaled fence (at the same timeline point) where the entry says so.
 * All or nothing: an entry that fails takes back those made before it.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0 or the first entry's error, as &struct
 * drm_compute_criu_restore documents.
 */
int drm_compute_syncobj_criu_restore(struct drm_compute_file *cfile,
				     struct drm_compute_criu_restore *args)
{
	struct xarray *xa = &cfile->file->syncobj_xa;
	struct drm_compute_criu_syncobj *e;
	struct drm_syncobj *s;
	int ret = 0;
	u32 i;

	lockdep_assert_held(&cfile->criu_lock);
	if (!args->count)
		return 0;
	if (!drm_core_check_feature(cfile->cdev->drm, DRIVER_SYNCOBJ))
		return -EOPNOTSUPP;
	e = vmemdup_array_user(u64_to_user_ptr(args->ptr), args->count, sizeof(*e));
	if (IS_ERR(e))
		return PTR_ERR(e);
	for (i = 0; i < args->count; i++) {
		if ((e[i].flags & DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE) &&
		    !drm_core_check_feature(cfile->cdev->drm, DRIVER_SYNCOBJ_TIMELINE)) {
			ret = -EOPNOTSUPP;
			break;
		}
		ret = syncobj_criu_make(&e[i], &s);
		if (ret)
			break;
		/* The file's reference; the creation's goes below. */
		drm_syncobj_get(s);
		ret = xa_insert(xa, e[i].handle, s, GFP_KERNEL);
		if (ret) {
			drm_syncobj_put(s);
			ret = ret == -EBUSY ? -EEXIST : ret;
		}
		drm_syncobj_put(s);
		if (ret)
			break;
	}
	/* All or nothing, by the handles of the call's own copy. */
	while (ret && i--) {
		s = xa_erase(xa, e[i].handle);
		if (s)
			drm_syncobj_put(s);
	}
	kvfree(e);
	return ret;
}

/**
 * drm_compute_userq_control_ioctl - %DRM_COMPUTE_OP_USERQ_CONTROL
 * @cfile: the file's compute state
 * @data: &struct drm_compute_userq_control
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_userq_control
 * documents.
 */
int drm_compute_userq_control_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_userq_control *args = data;
	struct drm_compute_userq *q;
	int ret;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (args->flags || args->pad)
		return -EINVAL;
	if (args->op < DRM_COMPUTE_USERQ_OP_SUSPEND ||
	    args->op > DRM_COMPUTE_USERQ_OP_WAKE)
		return -EINVAL;
	q = userq_lookup(cfile, args->queue_id);
	if (!q)
		return -ENOENT;

	switch (args->op) {
	case DRM_COMPUTE_USERQ_OP_SUSPEND:
		ret = userq_suspend(q);
		break;
	case DRM_COMPUTE_USERQ_OP_RESUME:
		ret = userq_resume(q);
		break;
	default:
		spin_lock(&q->lock);
		ret = userq_dead(q) ? -EIO : 0;
		spin_unlock(&q->lock);
		if (!ret && q->cdev->ops->userq_wake)
			q->cdev->ops->userq_wake(q);
		break;
	}
	drm_compute_userq_put(q);
	return ret;
}
EXPORT_SYMBOL(drm_compute_userq_control_ioctl);

/**
 * drm_compute_userq_state_ioctl - %DRM_COMPUTE_OP_USERQ_STATE
 * @cfile: the file's compute state
 * @data: &struct drm_compute_userq_state
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_userq_state
 * documents.
 */
int drm_compute_userq_state_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_userq_state *args = data;
	struct drm_compute_userq_hw hw = { };
	struct drm_compute_userq *q;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (!drm_compute_args_zero(args, offsetof(typeof(*args), status),
				   sizeof(*args) - offsetof(typeof(*args), status)))
		return -EINVAL;
	q = userq_lookup(cfile, args->queue_id);
	if (!q)
		return -ENOENT;

	spin_lock(&q->lock);
	args->status = q->status;
	args->fault_reason = q->fault_reason;
	args->fault_va = q->fault_va;
	spin_unlock(&q->lock);
	/*
	 * The device's state after the status, not before: a queue seen dead
	 * has stopped, and its driver published the read pointer and fence it
	 * stopped at before it reported the fault (the lock orders the two),
	 * so a FAULTED report carries the faulting packet's read pointer. Read
	 * first, a snapshot from before the queue ran on could come with it.
	 */
	q->cdev->ops->userq_hw_state(q, &hw);
	/*
	 * The device's own fence: it may be newer than what
	 * drm_compute_userq_fence() was told yet, and lower than an earlier
	 * value (the last one written).
	 */
	args->fence = hw.fence;
	if (!args->status)
		args->status = hw.rptr == hw.wptr ? DRM_COMPUTE_USERQ_STATUS_IDLE :
						    DRM_COMPUTE_USERQ_STATUS_RUNNING;
	args->rptr = hw.rptr;
	args->wptr = hw.wptr;
	args->priority = q->priority;
	drm_compute_userq_put(q);
	return 0;
}
EXPORT_SYMBOL(drm_compute_userq_state_ioctl);

/* Whether a wait for @value is over; *@err says how it ended. */
static bool wait_done(struct drm_compute_userq *q, u64 value, int *err)
{
	bool done = true;

	spin_lock(&q->lock);
	if (q->fence >= value)
		*err = 0;
	else if (q->destroyed)
		*err = -ECANCELED;
	else if (userq_dead(q))
		*err = -EIO;
	else
		done = false;
	spin_unlock(&q->lock);
	return done;
}

/**
 * drm_compute_userq_wait_ioctl - %DRM_COMPUTE_OP_USERQ_WAIT
 * @cfile: the file's compute state
 * @data: &struct drm_compute_userq_wait
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_userq_wait
 * documents.
 */
int drm_compute_userq_wait_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_userq_wait *args = data;
	struct drm_compute_userq *q;
	signed long timeout;
	int err = 0;
	long ret;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (args->flags)
		return -EINVAL;
	/* Outside drm_compute_call(), which refuses the others. */
	if (READ_ONCE(cfile->restoring))
		return -EBUSY;
	q = userq_lookup(cfile, args->queue_id);
	if (!q)
		return -ENOENT;

	timeout = drm_timeout_abs_to_jiffies(args->timeout_nsec);
	if (!fence_in_memory(q)) {
		ret = wait_event_interruptible_timeout(q->wq,
						       wait_done(q, args->value, &err),
						       timeout);
	} else {
		/* Nothing reports the slot: look at it every millisecond. */
		do {
			signed long slice = min_t(signed long, timeout,
						  msecs_to_jiffies(1) ?: 1);

			userq_poll_fence(q);
			ret = wait_event_interruptible_timeout(q->wq,
							       wait_done(q, args->value, &err),
							       slice);
			timeout -= slice;
		} while (!ret && timeout > 0);
	}
	drm_compute_userq_put(q);
	if (ret < 0)
		return ret;
	if (!ret)
		return -ETIME;
	return err;
}
EXPORT_SYMBOL(drm_compute_userq_wait_ioctl);

/**
 * drm_compute_userq_signal_ioctl - %DRM_COMPUTE_OP_USERQ_SIGNAL
 * @cfile: the file's compute state
 * @data: &struct drm_compute_userq_signal
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_userq_signal
 * documents.
 */
int drm_compute_userq_signal_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_userq_signal *args = data;
	struct userq_signal *sig, *pos;
	struct drm_syncobj *syncobj;
	struct drm_compute_userq *q;
	bool now = false;
	int ret = 0;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (args->flags || args->pad)
		return -EINVAL;
	q = userq_lookup(cfile, args->queue_id);
	if (!q)
		return -ENOENT;
	syncobj = drm_syncobj_find(cfile->file, args->handle);
	if (!syncobj) {
		ret = -ENOENT;
		goto out;
	}
	sig = signal_alloc(q, args);
	if (!sig) {
		drm_syncobj_put(syncobj);
		ret = -ENOMEM;
		goto out;
	}
	sig->syncobj = syncobj;
	userq_poll_fence(q);

	spin_lock(&q->lock);
	if (q->destroyed || userq_dead(q)) {
		ret = -EIO;
	} else if (q->fence >= args->value) {
		now = true;
	} else if (q->num_signals >= DRM_COMPUTE_MAX_SIGNALS) {
		ret = -ENOSPC;
	} else {
		/* Keep the list sorted by value: completion walks its head. */
		list_for_each_entry_reverse(pos, &q->signals, link)
			if (pos->value <= sig->value)
				break;
		list_add(&sig->link, &pos->link);
		q->num_signals++;
	}
	spin_unlock(&q->lock);

	if (now) {
		signal_complete(sig, 0);
	} else if (!ret && fence_in_memory(q)) {
		mod_delayed_work(system_dfl_wq, &q->cdev->fence_poll, 1);
	} else if (ret) {
		/* Never published: drop it quietly, signaled so it can go. */
		dma_fence_signal(sig->fence);
		signal_free(sig);
	}
out:
	drm_compute_userq_put(q);
	return ret;
}
EXPORT_SYMBOL(drm_compute_userq_signal_ioctl);

/* Whether @q may run: it has no final status and is not being destroyed. */
static bool userq_active(struct drm_compute_userq *q)
{
	bool active;

	spin_lock(&q->lock);
	active = !q->status && !q->destroyed;
	spin_unlock(&q->lock);
	return active;
}

/* What the watchdog did with a queue that stood still for the timeout. */
enum hang_verdict {
	HANG_GONE,	/* dead or destroyed meanwhile: nothing to do */
	HANG_RESET,	/* stopped and marked HUNG */
	HANG_SPARED,	/* the hardware says it runs (&drm_compute_ops.userq_hang_check) */
};

/*
 * Stop @q and mark it HUNG, unless it is dead already or the driver's
 * hardware says it is still running.
 */
static enum hang_verdict hang_reset(struct drm_compute_userq *q)
{
	const struct drm_compute_ops *ops = q->cdev->ops;
	enum hang_verdict v = HANG_GONE;

	mutex_lock(&q->ctl_lock);
	if (!userq_active(q))
		goto out;
	if (ops->userq_hang_check && !ops->userq_hang_check(q)) {
		v = HANG_SPARED;
		goto out;
	}
	userq_stop(q);
	userq_kill(q, DRM_COMPUTE_USERQ_STATUS_HUNG, DRM_COMPUTE_FAULT_HANG, 0);
	v = HANG_RESET;
out:
	mutex_unlock(&q->ctl_lock);
	return v;
}

#define WATCHDOG_BATCH	16

/**
 * drm_compute_watchdog_work - hang detection of a device's queues
 * @work: &drm_compute_device.watchdog
 *
 * Looks at every active queue: one with pending work whose progress
 * counter stood still for the hang timeout is reset (hang_reset()), unless
 * the driver's &drm_compute_ops.userq_hang_check says the hardware still
 * runs it; then it gets another timeout. Runs while the device has queues.
 */
void drm_compute_watchdog_work(struct work_struct *work)
{
	struct drm_compute_device *cdev =
		container_of(work, struct drm_compute_device, watchdog.work);
	unsigned int ms = drm_compute_device_hang_timeout_ms(cdev), n = 0, i;
	struct drm_compute_userq *hung[WATCHDOG_BATCH];
	struct drm_compute_userq_hw hw;
	struct drm_compute_userq *q;
	bool any;

	mutex_lock(&cdev->userq_lock);
	list_for_each_entry(q, &cdev->userqs, link) {
		if (!userq_active(q) || !ms) {
			q->hang_since = jiffies;
			continue;
		}
		cdev->ops->userq_hw_state(q, &hw);
		if (hw.rptr == hw.wptr || hw.progress != q->hang_progress) {
			q->hang_progress = hw.progress;
			q->hang_since = jiffies;
			continue;
		}
		if (time_before(jiffies, q->hang_since + msecs_to_jiffies(ms)) ||
		    n == WATCHDOG_BATCH)
			continue;
		drm_compute_userq_get(q);
		hung[n++] = q;
	}
	mutex_unlock(&cdev->userq_lock);

	for (i = 0; i < n; i++) {
		switch (hang_reset(hung[i])) {
		case HANG_RESET:
			drm_err_ratelimited(cdev->drm,
					    "compute: queue %u made no progress for %u ms; reset it\n",
					    hung[i]->id, ms);
			break;
		case HANG_SPARED:
			/* Another full timeout before it is looked at again. */
			drm_dbg_driver(cdev->drm,
				       "compute: queue %u made no progress for %u ms, but runs\n",
				       hung[i]->id, ms);
			mutex_lock(&cdev->userq_lock);
			hung[i]->hang_since = jiffies;
			mutex_unlock(&cdev->userq_lock);
			break;
		case HANG_GONE:
			break;
		}
		drm_compute_userq_put(hung[i]);
	}

	mutex_lock(&cdev->userq_lock);
	any = !list_empty(&cdev->userqs);
	if (any)
		watchdog_kick(cdev);
	mutex_unlock(&cdev->userq_lock);
}

/**
 * drm_compute_fence_poll_work - read the fence slots of queues with
 * pending signals
 * @work: &drm_compute_device.fence_poll
 *
 * Only on devices with %DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY, whose drivers
 * have no event to report a fence with: every millisecond while a signal
 * is pending, as AMD's own render-node queues poll today.
 */
void drm_compute_fence_poll_work(struct work_struct *work)
{
	struct drm_compute_device *cdev =
		container_of(work, struct drm_compute_device, fence_poll.work);
	struct drm_compute_userq *q;
	bool pending = false;

	mutex_lock(&cdev->userq_lock);
	list_for_each_entry(q, &cdev->userqs, link) {
		bool waiting;

		spin_lock(&q->lock);
		waiting = q->num_signals && !userq_dead(q);
		spin_unlock(&q->lock);
		if (!waiting)
			continue;
		userq_poll_fence(q);
		spin_lock(&q->lock);
		pending |= q->num_signals && !userq_dead(q);
		spin_unlock(&q->lock);
	}
	if (pending)
		mod_delayed_work(system_dfl_wq, &cdev->fence_poll, 1);
	mutex_unlock(&cdev->userq_lock);
}

/**
 * drm_compute_reset_work - stop the queues a device reset made HUNG
 * @work: &drm_compute_device.reset_work
 *
 * Calls &drm_compute_ops.userq_stop for every queue that is dead and not
 * yet stopped, in batches with references, under each queue's control
 * lock: the work drm_compute_device_reset() leaves for after the driver's
 * reset path.
 */
void drm_compute_reset_work(struct work_struct *work)
{
	struct drm_compute_device *cdev =
		container_of(work, struct drm_compute_device, reset_work);
	struct drm_compute_userq *batch[WATCHDOG_BATCH], *q;
	unsigned int got, i;

	do {
		got = 0;
		mutex_lock(&cdev->userq_lock);
		list_for_each_entry(q, &cdev->userqs, link) {
			/* A hint: userq_stop() checks again under ctl_lock. */
			if (userq_active(q) || READ_ONCE(q->stopped))
				continue;
			drm_compute_userq_get(q);
			batch[got++] = q;
			if (got == WATCHDOG_BATCH)
				break;
		}
		mutex_unlock(&cdev->userq_lock);
		for (i = 0; i < got; i++) {
			mutex_lock(&batch[i]->ctl_lock);
			userq_stop(batch[i]);
			mutex_unlock(&batch[i]->ctl_lock);
			drm_compute_userq_put(batch[i]);
		}
	} while (got == WATCHDOG_BATCH);
}

/**
 * drm_compute_device_reset - the device was reset
 * @cdev: the device
 *
 * For the driver's reset path: every queue that was active lost its
 * context with the reset and is marked HUNG (%DRM_COMPUTE_FAULT_HANG), as
 * hang detection leaves a queue it resets; its waiters return -EIO and its
 * pending signals complete with -EIO at once. Queues already dead stay as
 * they are. The queues are stopped (&drm_compute_ops.userq_stop) later, by
 * &drm_compute_device.reset_work: a stop talks to the device (amdgpu: MES
 * unmaps), which a driver must not do from inside its recovery, and
 * another thread may hold a queue's control lock while it waits for the
 * device that is being reset. The driver keeps the queues from running
 * meanwhile as far as its hardware allows. Buffers made for export are the
 * driver's to handle (drm_compute_p2p_invalidate()).
 *
 * Context: process, any point of a driver's reset path; takes
 * &drm_compute_device.userq_lock and each queue's spinlock, calls no
 * driver operation and waits for nothing.
 *
 * Returns: the number of queues made HUNG.
 */
unsigned int drm_compute_device_reset(struct drm_compute_device *cdev)
{
	struct drm_compute_userq *q;
	unsigned int n = 0;

	mutex_lock(&cdev->userq_lock);
	list_for_each_entry(q, &cdev->userqs, link) {
		if (!userq_active(q))
			continue;
		userq_kill(q, DRM_COMPUTE_USERQ_STATUS_HUNG, DRM_COMPUTE_FAULT_HANG, 0);
		n++;
	}
	mutex_unlock(&cdev->userq_lock);
	if (!n)
		return 0;
	queue_work(system_dfl_wq, &cdev->reset_work);
	drm_err(cdev->drm, "compute: device reset; %u queue%s reset\n", n,
		n == 1 ? "" : "s");
	return n;
}
EXPORT_SYMBOL(drm_compute_device_reset);

/**
 * drm_compute_device_unplug - the device went away
 * @cdev: the device
 *
 * For the driver's removal path, after drm_dev_unplug(): every queue of
 * every file is stopped and becomes LOST, its waiters return -EIO and its
 * pending signals complete with -EIO. The files stay open until userspace
 * closes them; their ioctls fail with -ENODEV in the DRM core.
 */
void drm_compute_device_unplug(struct drm_compute_device *cdev)
{
	struct drm_compute_userq *q;

	cancel_delayed_work_sync(&cdev->watchdog);
	cancel_delayed_work_sync(&cdev->fence_poll);
	/* What a reset left to stop is stopped below. */
	cancel_work_sync(&cdev->reset_work);
	mutex_lock(&cdev->userq_lock);
	list_for_each_entry(q, &cdev->userqs, link) {
		mutex_lock(&q->ctl_lock);
		userq_stop(q);
		mutex_unlock(&q->ctl_lock);
		userq_kill(q, DRM_COMPUTE_USERQ_STATUS_LOST, DRM_COMPUTE_FAULT_LOST, 0);
	}
	mutex_unlock(&cdev->userq_lock);
}
EXPORT_SYMBOL(drm_compute_device_unplug);
