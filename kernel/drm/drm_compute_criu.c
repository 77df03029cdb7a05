// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/export.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "drm_compute_internal.h"
#include "drm_compute_svm_internal.h"

/**
 * DOC: Checkpoint/restore
 *
 * Checkpoint/restore of a process that uses a compute render node goes
 * through DRM, so that its access rule is one rule for every driver: the
 * helper's checkpoint/restore ioctls carry DRM core's
 * %DRM_CHECKPOINT_RESTORE flag (see include/drm/drm_ioctl.h). The caller
 * needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN and must be the process
 * that owns the file or its ptrace tracer, which CRIU is once it has
 * seized the tree and works on copies of its descriptors; such a call does
 * not hand the file over to the caller.
 *
 * %DRM_COMPUTE_OP_CRIU_INFO counts what a checkpoint of a file would have
 * to save: buffers (exported and imported ones apart), GPU VMs, user queues
 * and SVM attribute ranges.
 *
 * %DRM_COMPUTE_OP_CRIU_PAUSE is the phase before anything is saved, as
 * KFD's: it suspends the file's running queues and holds every queue (no
 * user resumes one until the checkpoint's resume) and takes its exported
 * buffers from
 * their importers (drm_compute_p2p_pause(): told, waited for, held off
 * until the resume). A buffer an importer pinned, or an ordinary PRIME
 * buffer another device attached (its importer cannot be told), fails the
 * pause, which then undoes what it did. No queue is created while the file
 * is paused. Its resume continues the queues and gives the buffers back; a
 * file closed while paused revokes them (drm_compute_criu_file_fini()), so
 * that no importer writes into the memory of a process that was
 * checkpointed and went away.
 *
 * No driver saves the objects yet; CRIU's onenode plugin pauses a file,
 * fails the dump of one that holds any object, and resumes it, so that the
 * process goes on running instead of being restored without its GPU state.
 * The later phases (checkpoint, restore) take the numbers 0x10..0x1f of the
 * compute range.
 *
 * Locking: the GEM handle table is walked under &drm_file.table_lock; VMs
 * and queues are counted from their id tables (RCU), and each SVM VM's
 * attribute ranges under its &drm_compute_vm_svm.lock, with a reference on
 * the VM and no other helper lock held, after the attributes of memory
 * unmapped since the last collection are dropped (drm_compute_svm_collect(),
 * which takes the VM's mm's lock inside). The pause and resume of a file
 * are serialized by its &drm_compute_file.criu_lock, taken before its
 * &drm_compute_file.lock, any queue's &drm_compute_userq.ctl_lock and any
 * buffer's reservation lock; they hold references on the queues and
 * buffers they work on, taken under the file's locks. The pause waits for
 * a buffer's importers with &drm_compute_file.criu_lock and the buffer's
 * reservation lock held, interruptibly.
 *
 * An ordinary buffer (exported without a DRM_COMPUTE_BO_EXPORT_* flag) has
 * the PRIME helpers' dma-buf operations, which know nothing of a pause: it
 * is checked for importers at the pause only; one that attaches later is
 * not held off.
 *
 * The owner-or-tracer condition names whose state is being saved; it is
 * no security boundary beyond the capability: DRM core hands a file to
 * whichever process makes an ordinary ioctl on it, so a capable holder of
 * the descriptor becomes its owner with one such call.
 */

/* Ranges with attributes other than the defaults, over the file's SVM VMs. */
static u32 svm_ranges(struct drm_compute_file *cfile)
{
	struct drm_compute_vm *vm;
	unsigned long id;
	void *entry;
	u32 n = 0;

	xa_for_each(&cfile->vms, id, entry) {
		vm = drm_compute_vm_lookup(cfile, id);
		if (!vm)
			continue;
		if (vm->flags & DRM_COMPUTE_VM_CREATE_SVM) {
			mutex_lock(&vm->svm.lock);
			/* Not the attributes of memory already unmapped. */
			drm_compute_svm_collect(vm);
			n += drm_compute_svm_attr_count(&vm->svm.attrs);
			mutex_unlock(&vm->svm.lock);
		}
		drm_compute_vm_put(vm);
	}
	return n;
}

/**
 * drm_compute_criu_info_ioctl - count what a checkpoint of a file would save
 * @cfile: the file's compute state
 * @data: &struct drm_compute_criu_info
 *
 * DRM core has checked the caller (%DRM_CHECKPOINT_RESTORE) before this
 * runs.
 *
 * Returns: 0, or -EINVAL for non-zero flags, pad, out fields or reserved.
 */
int drm_compute_criu_info_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_criu_info *args = data;
	struct drm_file *file = cfile->file;
	struct drm_gem_object *obj;
	u32 bos = 0, exports = 0, imports = 0;
	int handle;

	if (args->flags ||
	    !drm_compute_args_zero(args, offsetofend(typeof(*args), flags),
				   sizeof(*args) - offsetofend(typeof(*args), flags)))
		return -EINVAL;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, handle) {
		bos++;
		if (drm_gem_is_imported(obj))
			imports++;
		else if (READ_ONCE(obj->dma_buf))
			exports++;
	}
	spin_unlock(&file->table_lock);

	args->bos = bos;
	args->exports = exports;
	args->imports = imports;
	args->vms = drm_compute_xa_count(&cfile->vms);
	args->userqs = drm_compute_xa_count(&cfile->queues);
	args->svm_ranges = svm_ranges(cfile);
	return 0;
}
EXPORT_SYMBOL(drm_compute_criu_info_ioctl);

/* The file's queues, each with a reference, into a new array of *@n. */
static struct drm_compute_userq **file_queues(struct drm_compute_file *cfile,
					      u32 *n)
{
	struct drm_compute_userq **qs, *q;
	unsigned long id;
	u32 i = 0;

	mutex_lock(&cfile->lock);
	qs = kvcalloc(max(drm_compute_xa_count(&cfile->queues), 1U),
		      sizeof(*qs), GFP_KERNEL);
	if (qs) {
		/* The table does not change under the lock. */
		xa_for_each(&cfile->queues, id, q) {
			drm_compute_userq_get(q);
			qs[i++] = q;
		}
	}
	mutex_unlock(&cfile->lock);
	*n = i;
	return qs;
}

static void queues_put(struct drm_compute_userq **qs, u32 n)
{
	while (n--)
		drm_compute_userq_put(qs[n]);
	kvfree(qs);
}

static bool bo_exported(struct drm_gem_object *obj)
{
	return !drm_gem_is_imported(obj) && READ_ONCE(obj->dma_buf);
}

/*
 * The file's exported buffers, each with a reference, and their handles:
 * *@n of them. A buffer exported after the count is left out: CRIU has
 * frozen the file's users.
 */
static int file_exports(struct drm_compute_file *cfile,
			struct drm_gem_object ***objs, u32 **handles, u32 *n)
{
	struct drm_file *file = cfile->file;
	struct drm_gem_object *obj;
	u32 max = 0, i = 0;
	int handle;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, handle)
		max += bo_exported(obj);
	spin_unlock(&file->table_lock);

	*objs = kvcalloc(max(max, 1U), sizeof(**objs), GFP_KERNEL);
	*handles = kvcalloc(max(max, 1U), sizeof(**handles), GFP_KERNEL);
	if (!*objs || !*handles) {
		kvfree(*objs);
		kvfree(*handles);
		*objs = NULL;
		*handles = NULL;
		return -ENOMEM;
	}
	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, handle) {
		if (i == max)
			break;
		if (!bo_exported(obj))
			continue;
		drm_gem_object_get(obj);
		(*objs)[i] = obj;
		(*handles)[i++] = handle;
	}
	spin_unlock(&file->table_lock);
	*n = i;
	return 0;
}

/* The helper's export state of @obj, NULL for an ordinary buffer. */
static struct drm_compute_p2p_export *
bo_export_state(struct drm_compute_device *cdev, struct drm_gem_object *obj)
{
	if (!(cdev->features & DRM_COMPUTE_FEATURE_P2P_EXPORT) ||
	    obj->dev != cdev->drm)
		return NULL;
	return cdev->ops->p2p_export(obj);
}

/*
 * Takes @obj from its importers. An ordinary PRIME buffer's importers
 * cannot be told to let go: one that has any fails the pause.
 */
static int bo_pause(struct drm_compute_device *cdev, struct drm_gem_object *obj)
{
	struct drm_compute_p2p_export *exp = bo_export_state(cdev, obj);
	struct dma_buf *dmabuf;
	bool attached;
	int ret;

	if (exp)
		return drm_compute_p2p_pause(exp, obj->resv);

	/* &drm_gem_object.dma_buf goes with the last handle. */
	mutex_lock(&obj->dev->object_name_lock);
	dmabuf = obj->dma_buf;
	if (dmabuf)
		get_dma_buf(dmabuf);
	mutex_unlock(&obj->dev->object_name_lock);
	if (!dmabuf)
		return 0;
	ret = dma_resv_lock_interruptible(dmabuf->resv, NULL);
	if (!ret) {
		attached = !list_empty(&dmabuf->attachments);
		dma_resv_unlock(dmabuf->resv);
		ret = attached ? -EBUSY : 0;
	}
	dma_buf_put(dmabuf);
	return ret;
}

static void bo_resume(struct drm_compute_device *cdev, struct drm_gem_object *obj)
{
	struct drm_compute_p2p_export *exp = bo_export_state(cdev, obj);

	if (exp)
		drm_compute_p2p_resume(exp, obj->resv);
}

static void bos_put(struct drm_gem_object **objs, u32 n)
{
	while (n--)
		drm_gem_object_put(objs[n]);
	kvfree(objs);
}

static void set_paused(struct drm_compute_file *cfile, bool paused)
{
	mutex_lock(&cfile->lock);
	cfile->paused = paused;
	mutex_unlock(&cfile->lock);
}

static int criu_pause(struct drm_compute_file *cfile,
		      struct drm_compute_criu_pause *args)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_gem_object **objs = NULL;
	struct drm_compute_userq **qs;
	u32 nq, nb = 0, i, paused = 0;
	u32 *handles = NULL;
	int ret = 0;

	if (cfile->paused)
		return -EALREADY;
	/* Set first: no queue is created from here on. */
	set_paused(cfile, true);
	qs = file_queues(cfile, &nq);
	if (!qs) {
		ret = -ENOMEM;
		goto out_unpause;
	}
	for (i = 0; i < nq; i++) {
		ret = drm_compute_userq_criu_pause(qs[i]);
		if (ret < 0)
			goto out_queues;
		paused += ret;
	}
	ret = file_exports(cfile, &objs, &handles, &nb);
	if (ret)
		goto out_queues;
	for (i = 0; i < nb; i++) {
		ret = bo_pause(cdev, objs[i]);
		if (ret) {
			if (ret == -EBUSY)
				drm_dbg_driver(cdev->drm,
					       "criu: pause: handle %u is held by an importer\n",
					       handles[i]);
			while (i--)
				bo_resume(cdev, objs[i]);
			bos_put(objs, nb);
			goto out_queues;
		}
	}
	args->userqs = paused;
	args->exports = nb;
	kvfree(handles);
	cfile->paused_bos = objs;
	cfile->nr_paused_bos = nb;
	queues_put(qs, nq);
	return 0;

out_queues:
	kvfree(handles);
	/* Only the queues this pause suspended carry its mark. */
	for (i = 0; i < nq; i++)
		drm_compute_userq_criu_resume(qs[i]);
	queues_put(qs, nq);
out_unpause:
	set_paused(cfile, false);
	return ret;
}

static int criu_resume(struct drm_compute_file *cfile,
		       struct drm_compute_criu_pause *args)
{
	u32 nq, i, resumed = 0, exports = cfile->nr_paused_bos;
	struct drm_compute_userq **qs;
	int ret = 0, r;

	if (!cfile->paused)
		return -EALREADY;
	qs = file_queues(cfile, &nq);
	if (!qs)
		return -ENOMEM;	/* still paused: the caller may try again */
	for (i = 0; i < nq; i++) {
		r = drm_compute_userq_criu_resume(qs[i]);
		if (r > 0)
			resumed++;
		else if (r < 0 && !ret)
			ret = r;
	}
	queues_put(qs, nq);
	for (i = 0; i < cfile->nr_paused_bos; i++)
		bo_resume(cfile->cdev, cfile->paused_bos[i]);
	bos_put(cfile->paused_bos, cfile->nr_paused_bos);
	cfile->paused_bos = NULL;
	cfile->nr_paused_bos = 0;
	set_paused(cfile, false);
	/* A rejected call leaves its argument as it came. */
	if (!ret) {
		args->userqs = resumed;
		args->exports = exports;
	}
	return ret;
}

/**
 * drm_compute_criu_pause_ioctl - pause a file for a checkpoint, or resume it
 * @cfile: the file's compute state
 * @data: &struct drm_compute_criu_pause
 *
 * DRM core has checked the caller (%DRM_CHECKPOINT_RESTORE) before this
 * runs.
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_criu_pause
 * documents.
 */
int drm_compute_criu_pause_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_criu_pause *args = data;
	const size_t out = offsetof(typeof(*args), userqs);
	int ret;

	if ((args->op != DRM_COMPUTE_CRIU_OP_PAUSE &&
	     args->op != DRM_COMPUTE_CRIU_OP_RESUME) || args->flags ||
	    !drm_compute_args_zero(args, out, sizeof(*args) - out))
		return -EINVAL;

	ret = mutex_lock_interruptible(&cfile->criu_lock);
	if (ret)
		return ret;
	if (args->op == DRM_COMPUTE_CRIU_OP_PAUSE)
		ret = criu_pause(cfile, args);
	else
		ret = criu_resume(cfile, args);
	mutex_unlock(&cfile->criu_lock);
	return ret;
}
EXPORT_SYMBOL(drm_compute_criu_pause_ioctl);

/**
 * drm_compute_criu_file_fini - what a checkpoint leaves at a file's release
 * @cfile: the closing file
 *
 * A file closed while paused was checkpointed, or given up with its
 * process: its pause of each buffer ends, and a buffer no other file has a
 * handle to is revoked (drm_compute_p2p_revoke()), so that its importers,
 * told at the pause, never map it again; the memory goes when they let go.
 * A buffer another file still holds stays that file's. Nothing to do for a
 * file not paused.
 *
 * Context: process, at the file's postclose, after the DRM core closed its
 * GEM handles (so a handle count of 0 means no other file); its queues are
 * gone already where the driver stopped them at release.
 */
void drm_compute_criu_file_fini(struct drm_compute_file *cfile)
{
	struct drm_compute_p2p_export *exp;
	struct drm_gem_object *obj;
	unsigned int others;
	u32 i;

	mutex_lock(&cfile->criu_lock);
	for (i = 0; i < cfile->nr_paused_bos; i++) {
		obj = cfile->paused_bos[i];
		exp = bo_export_state(cfile->cdev, obj);
		if (!exp)
			continue;
		mutex_lock(&obj->dev->object_name_lock);
		others = obj->handle_count;
		mutex_unlock(&obj->dev->object_name_lock);
		/* Revoked before the pause ends: no map in between. */
		if (!others)
			drm_compute_p2p_revoke(exp, obj->resv);
		drm_compute_p2p_resume(exp, obj->resv);
	}
	bos_put(cfile->paused_bos, cfile->nr_paused_bos);
	cfile->paused_bos = NULL;
	cfile->nr_paused_bos = 0;
	mutex_unlock(&cfile->criu_lock);
}
