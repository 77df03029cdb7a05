// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: User queues
 *
 * A vcompute queue is the hardware half of a &struct drm_compute_userq: a
 * ring, a read-pointer write-back address, a context save area and a
 * doorbell, run by the device's engine (vcompute_engine.c).
 *
 * The doorbell is a page of its own (a handle-less buffer whose mmap
 * offset only the creating file may map) that starts with
 * &struct drm_compute_doorbell: userspace stores its write pointer there,
 * the engine reads it, and the engine sets
 * %DRM_COMPUTE_DOORBELL_NEED_WAKEUP there before it sleeps.
 *
 * Suspend writes a &struct vcompute_ctx_save to the context save area
 * (through the VM, so an unmapped area faults the queue) and resume reads
 * it back and continues from it, mid-packet if the queue stopped inside a
 * long packet: the save area is the queue's state, as AMD's CWSR area is.
 *
 * Locking: every change of a queue's engine state is made under
 * &vcompute_engine.lock, which the engine holds while it runs, so start,
 * stop, suspend and resume never race with execution. The state query
 * reads the pointers without a lock (READ_ONCE).
 */

#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/slab.h>

#include <drm/drm_compute.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include "vcompute_drv.h"

/**
 * vcompute_doorbell - the doorbell of a queue
 * @q: the queue
 *
 * Returns: the kernel address of the doorbell page's start.
 */
struct drm_compute_doorbell *vcompute_doorbell(struct vcompute_queue *q)
{
	return page_address(q->doorbell->pages[0]);
}

/**
 * vcompute_userq_create - &drm_compute_ops.userq_create
 * @cfile: the file
 * @args: the validated parameters
 * @doorbell_offset: set to the doorbell page's mmap offset
 * @doorbell_pos: set to 0, the doorbell's place in its page
 *
 * Returns: the queue, not running, or an ERR_PTR().
 */
struct drm_compute_userq *vcompute_userq_create(struct drm_compute_file *cfile,
						const struct drm_compute_userq_args *args,
						u64 *doorbell_offset,
						u32 *doorbell_pos)
{
	struct vcompute_device *vdev = to_vcompute(cfile->cdev->drm);
	struct vcompute_queue *q;
	struct vcompute_bo *db;
	unsigned int cu, i = 0;
	int ret;

	q = kzalloc_obj(*q);
	if (!q)
		return ERR_PTR(-ENOMEM);
	q->vdev = vdev;
	q->vm = to_vcompute_vm(args->vm);
	q->ring_va = args->ring_va;
	q->ring_size = args->ring_size;
	q->rptr_va = args->rptr_va;
	q->ctx_save_va = args->ctx_save_va;
	INIT_LIST_HEAD(&q->link);

	q->num_cus = bitmap_weight(args->cu_mask, vdev->config.num_cus);
	q->cus = kcalloc(q->num_cus, sizeof(*q->cus), GFP_KERNEL);
	if (!q->cus) {
		ret = -ENOMEM;
		goto err_free;
	}
	for_each_set_bit(cu, args->cu_mask, vdev->config.num_cus)
		q->cus[i++] = cu;

	db = vcompute_bo_create(vdev, PAGE_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	if (IS_ERR(db)) {
		ret = PTR_ERR(db);
		goto err_free;
	}
	q->doorbell = db;
	ret = drm_gem_create_mmap_offset(&db->base);
	if (ret)
		goto err_doorbell;
	/* Only this file may map it; the doorbell has no handle to share. */
	ret = drm_vma_node_allow(&db->base.vma_node, cfile->file);
	if (ret)
		goto err_doorbell;

	*doorbell_offset = drm_vma_node_offset_addr(&db->base.vma_node);
	*doorbell_pos = 0;
	return &q->base;

err_doorbell:
	drm_gem_object_put(&db->base);
err_free:
	kfree(q->cus);
	kfree(q);
	return ERR_PTR(ret);
}

/**
 * vcompute_userq_start - &drm_compute_ops.userq_start
 * @cq: the queue
 *
 * Puts the queue into the engine's list, by priority, and kicks the engine.
 */
void vcompute_userq_start(struct drm_compute_userq *cq)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);
	struct vcompute_engine *engine = &q->vdev->engine;
	struct vcompute_queue *pos;

	mutex_lock(&engine->lock);
	list_for_each_entry(pos, &engine->queues, link)
		if (pos->base.priority < cq->priority)
			break;
	list_add_tail(&q->link, &pos->link);
	q->started = true;
	mutex_unlock(&engine->lock);
	vcompute_engine_kick(q->vdev);
}

/**
 * vcompute_userq_stop - &drm_compute_ops.userq_stop
 * @cq: the queue
 *
 * Takes the queue out of the engine's list; the engine lock guarantees it
 * is not executing, so afterwards it touches no memory. The file loses
 * the right to map the doorbell (a mapping it has stays, as plain memory).
 */
void vcompute_userq_stop(struct drm_compute_userq *cq)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);
	struct vcompute_engine *engine = &q->vdev->engine;

	mutex_lock(&engine->lock);
	if (q->started)
		list_del_init(&q->link);
	q->started = false;
	mutex_unlock(&engine->lock);
	/* Now, while the file surely exists: the doorbell may outlive it. */
	drm_vma_node_revoke(&q->doorbell->base.vma_node, cq->cfile->file);
}

/**
 * vcompute_userq_free - &drm_compute_ops.userq_free
 * @cq: the stopped queue
 */
void vcompute_userq_free(struct drm_compute_userq *cq)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);

	drm_gem_object_put(&q->doorbell->base);
	kfree(q->cus);
	/* Lookups by id may still be reading its reference count. */
	kfree_rcu(q, base.rcu);
}

struct ctx_io {
	struct vcompute_ctx_save *save;
	size_t done;
	bool write;
};

static void ctx_copy(void *kaddr, size_t len, void *arg)
{
	struct ctx_io *io = arg;

	if (io->write)
		memcpy(kaddr, (u8 *)io->save + io->done, len);
	else
		memcpy((u8 *)io->save + io->done, kaddr, len);
	io->done += len;
}

/* Fault the queue from the engine's side: it will not run again. */
static void queue_fault(struct vcompute_queue *q, u32 reason, u64 va)
{
	q->dead = true;
	drm_compute_userq_fault(&q->base, reason, va);
}

/**
 * vcompute_userq_suspend - &drm_compute_ops.userq_suspend
 * @cq: the queue
 *
 * Stops the queue where it stands, mid-packet included, and writes its
 * context to the context save area. An area the VM does not map writably
 * faults the queue.
 *
 * Returns: 0.
 */
int vcompute_userq_suspend(struct drm_compute_userq *cq)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);
	struct vcompute_engine *engine = &q->vdev->engine;
	struct vcompute_ctx_save save;
	struct ctx_io io = { .save = &save, .write = true };
	u64 fault_va;
	int fault;

	mutex_lock(&engine->lock);
	q->suspended = true;
	q->saves++;
	save = (struct vcompute_ctx_save) {
		.magic = VCOMPUTE_CTX_SAVE_MAGIC,
		.version = VCOMPUTE_CTX_SAVE_VERSION,
		.rptr = q->rptr,
		.progress = q->pkt_progress,
		.state = q->pkt_state,
		.saves = q->saves,
	};
	/* A wait keeps its elapsed time, not its start. */
	if (q->wait_start)
		save.state = ktime_get_ns() - q->wait_start;
	fault = vcompute_vm_access(q->vm, q->ctx_save_va, sizeof(save),
				   VCOMPUTE_WRITE, ctx_copy, &io, &fault_va);
	if (fault)
		queue_fault(q, fault, fault_va);
	mutex_unlock(&engine->lock);
	return 0;
}

/**
 * vcompute_userq_resume - &drm_compute_ops.userq_resume
 * @cq: the suspended queue
 *
 * Reads the context back from the save area and continues from it. A
 * record with a wrong magic or version, or an unreadable area, faults the
 * queue instead.
 *
 * Returns: 0.
 */
int vcompute_userq_resume(struct drm_compute_userq *cq)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);
	struct vcompute_engine *engine = &q->vdev->engine;
	struct vcompute_ctx_save save;
	struct ctx_io io = { .save = &save, .write = false };
	u64 fault_va;
	int fault;

	mutex_lock(&engine->lock);
	fault = vcompute_vm_access(q->vm, q->ctx_save_va, sizeof(save),
				   VCOMPUTE_READ, ctx_copy, &io, &fault_va);
	if (fault) {
		queue_fault(q, fault, fault_va);
	} else if (save.magic != VCOMPUTE_CTX_SAVE_MAGIC ||
		   save.version != VCOMPUTE_CTX_SAVE_VERSION ||
		   !IS_ALIGNED(save.rptr, 8)) {
		queue_fault(q, DRM_COMPUTE_FAULT_PACKET, q->ctx_save_va);
	} else {
		WRITE_ONCE(q->rptr, save.rptr);
		q->pkt_progress = save.progress;
		q->pkt_state = save.state;
		if (q->wait_start)
			q->wait_start = ktime_get_ns() - save.state;
		q->saves = save.saves;
		q->suspended = false;
	}
	mutex_unlock(&engine->lock);
	vcompute_engine_kick(q->vdev);
	return 0;
}

/**
 * vcompute_userq_criu_restore - &drm_compute_ops.userq_criu_restore
 * @cq: the queue, made and not started
 * @hw: where the checkpoint found it
 *
 * The queue stays suspended until its resume reads the context save area
 * back; the doorbell gets the write pointer userspace had stored in the
 * old one, so the packets it announced run.
 *
 * Returns: 0.
 */
int vcompute_userq_criu_restore(struct drm_compute_userq *cq,
				const struct drm_compute_userq_hw *hw)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);
	struct vcompute_engine *engine = &q->vdev->engine;

	mutex_lock(&engine->lock);
	q->suspended = true;
	WRITE_ONCE(q->rptr, hw->rptr);
	WRITE_ONCE(q->wptr, hw->wptr);
	WRITE_ONCE(q->fence_done, hw->fence);
	WRITE_ONCE(vcompute_doorbell(q)->wptr, hw->wptr);
	mutex_unlock(&engine->lock);
	return 0;
}

/**
 * vcompute_userq_hw_state - &drm_compute_ops.userq_hw_state
 * @cq: the queue
 * @hw: filled
 *
 * Lockless: the engine publishes each field with WRITE_ONCE(), the read
 * pointer with smp_store_release().
 */
void vcompute_userq_hw_state(struct drm_compute_userq *cq,
			     struct drm_compute_userq_hw *hw)
{
	struct vcompute_queue *q = to_vcompute_queue(cq);

	/* Acquire: pairs with the engine's release, after @fence_done. */
	hw->rptr = smp_load_acquire(&q->rptr);
	hw->fence = READ_ONCE(q->fence_done);
	hw->wptr = READ_ONCE(vcompute_doorbell(q)->wptr);
	hw->progress = READ_ONCE(q->progress);
}

/**
 * vcompute_userq_wake - &drm_compute_ops.userq_wake
 * @cq: the queue
 */
void vcompute_userq_wake(struct drm_compute_userq *cq)
{
	vcompute_engine_kick(to_vcompute_queue(cq)->vdev);
}
