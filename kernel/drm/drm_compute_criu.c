// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/uio.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include <drm/drm_compute.h>

#include "drm_compute_internal.h"

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
 * and SVM attribute ranges, and, of those, the objects the device cannot
 * save (&drm_compute_criu_info.unsaved): every one without
 * %DRM_COMPUTE_FEATURE_CRIU; with it, user queues the device cannot
 * restore, buffers whose dma-buf an importer is attached to, imported
 * ones, mappings of a buffer the file has no handle to, and what the
 * driver's own ioctls made that the helper cannot see
 * (&drm_compute_ops.file_criu_unsaved).
 * The kernel decides this, not the tool.
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
 * Each object kind owns its part, in its own file: buffers
 * (drm_compute_bo_criu_count(), _pause(), _resume(), _fini()), GPU VMs
 * (drm_compute_vm_criu_count()), user queues (drm_compute_userq_criu_count(),
 * _pause(), _resume()) and SVM ranges (drm_compute_svm_criu_count()). This
 * file only checks the arguments and sequences them: queues are held
 * before buffers are taken from their importers, and a failure undoes the
 * steps before it.
 *
 * %DRM_COMPUTE_OP_CRIU_CHECKPOINT works on a paused file that holds
 * nothing unsaved: it lists the buffers (handle, size, placement, mmap
 * offset), the VMs (id, flags) and their mappings (read from the driver,
 * &drm_compute_ops.vm_criu_mappings), and copies a buffer's contents
 * straight between the buffer and the tool's memory
 * (&drm_compute_ops.bo_criu_copy), in pieces the tool chooses: there is no
 * staging copy in the kernel, and the file is left as it was.
 *
 * %DRM_COMPUTE_OP_CRIU_RESTORE rebuilds a file: BEGIN puts a file that
 * holds nothing in the restoring state (&drm_compute_file.restoring), in
 * which every other ioctl fails with -EBUSY, DRM core's among them
 * (drm_compute_ioctl_check(), drm_compute_call()), so no concurrent call
 * sees a half-made file or takes a handle the image names; buffers are
 * created with BO_CREATE's rules and moved to the handle the image names,
 * VMs created at their ids, mappings made with VM_BIND's rules; END makes
 * it an ordinary file. A restore that fails is given up by closing the
 * file, which frees all it made. Upstream's GEM_CHANGE_HANDLE, which moved
 * handles of a live file and raced (CVE-2026-53145), is not needed.
 *
 * User queues (drm_compute_userq_criu_list(), _restore()): the pause
 * suspended each running queue, which saved its context, mid-packet if
 * need be, into its context save area, memory of its VM that is saved with
 * the buffers like its ring and pointers. A queue's entry keeps the rest:
 * its creation arguments, read and write pointers, completed fence value,
 * whether its user had suspended it, and its doorbell's mmap offset.
 * RESTORE_QUEUES, after the buffers are written and mapped, makes each at
 * its id, suspended where it was (&drm_compute_ops.userq_criu_restore),
 * and END continues those that ran, from their save areas. Devices
 * without that callback report no %DRM_COMPUTE_USERQ_CAP_CRIU and their
 * queues count as unsaved; so do dead queues. A queue's pending
 * sync-object signals (USERQ_SIGNAL requests its fence has not reached,
 * of which the sync object holds nothing yet) are listed by LIST_SIGNALS
 * and asked for again on the restored queue by RESTORE_SIGNALS
 * (drm_compute_userq_criu_list_signals(), _restore_signals()); one whose
 * handle no longer names its sync object is unsaved.
 *
 * Sync objects (DRM core's; drm_compute_syncobj_criu_list(), _restore()):
 * one with no fence, or a signaled one, is saved (a timeline with its last
 * point) and made again at its handle, holding a signaled stub fence at
 * that point; one with a pending or failed fence, or held beyond its
 * handle and its own queues' pending signals, is unsaved.
 *
 * SVM VMs (drm_compute_svm_criu_pause(), _list(), _restore(), _resume()):
 * the memory is the process's, which the tool saves; the pause brings what
 * lives in device memory home first. LIST_SVM_RANGES gives each range of
 * attributes as the SET_ATTR list that makes it again; RESTORE_SVM_RANGES,
 * in the restoring process (the VM's address space), stores them without
 * looking at CPU mappings that do not exist yet, and names the restoring
 * device where the image named the checkpointed one. The VMs start
 * watching the address space (and drop the attributes of what is not
 * mapped) at END, or, after END with %DRM_COMPUTE_CRIU_RESTORE_END_PAUSED,
 * at the resume a tool calls once the memory is in place; until then the
 * file is paused, so no restored queue runs on an address space being
 * rebuilt.
 *
 * A buffer no importer is attached to is saved; one made for export (a
 * DRM_COMPUTE_BO_EXPORT_* flag) is made again with its flag, and its next
 * importer decides its placement again. Buffers with importers, and
 * imported buffers, are not saved.
 *
 * Shared buffers: a buffer that something beside one file holds (a handle
 * in another file of the device, a dma-buf fd) is listed with a share id
 * (&drm_compute_criu_bo.share), the same in every file that holds it;
 * %DRM_COMPUTE_CRIU_CKPT_DMABUF names the buffer of a dma-buf fd by the
 * same id, and it and %DRM_COMPUTE_CRIU_CKPT_BO_SHARE count the files that
 * hold the buffer (drm_compute_bo_criu_share()). A restore tool opens a
 * restore session (%DRM_COMPUTE_CRIU_RESTORE_SESSION,
 * drm_compute_bo_criu_session()) on a file it keeps for the whole restore,
 * and names it in every RESTORE_BOS: the first entry of an id makes the
 * buffer, exports its one dma-buf (read-write, or read-only for an entry
 * with %DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY) and the session keeps both; the
 * later ones, in any file and process, take the same buffer
 * with that dma-buf in their PRIME cache (%DRM_COMPUTE_CRIU_BO_JOINED),
 * also when no file holds it any more and only a restored dma-buf fd
 * does. A failed call leaves its shared buffers in the session, for the
 * next entry of their ids to write. The session is closed with its file,
 * which drops its references. A session id is found only by callers with
 * its opener's effective uid in its opener's user namespace (a restore
 * tool's tasks, before their own credentials come back), so another user
 * allowed to restore cannot take its buffers by guessing the id. Whether
 * every holder of a shared buffer was in the checkpoint is the tool's to
 * check (&drm_compute_criu_share.files, the files with a handle
 * to it). A driver gets %DRM_COMPUTE_FEATURE_CRIU by implementing the CRIU
 * callbacks of &struct drm_compute_ops.
 *
 * Locking: the checkpoint and restore ops run under
 * &drm_compute_file.criu_lock; a buffer's contents are copied with no other
 * helper lock held, as the copy may fault the tool's memory in (a buffer
 * made for export, which can move, goes through a kernel buffer, each
 * piece under its reservation). The GEM
 * handle table is walked under &drm_file.table_lock; VMs
 * and queues are counted from their id tables (RCU), and each SVM VM's
 * attribute ranges under its &drm_compute_vm_svm.lock, with a reference on
 * the VM and no other helper lock held, after the attributes of memory
 * unmapped since the last collection are dropped (drm_compute_svm_collect(),
 * which takes the VM's mm's lock inside). The pause and resume of a file
 * are serialized by its &drm_compute_file.criu_lock, taken before its
 * &drm_compute_file.lock, any queue's &drm_compute_userq.ctl_lock and any
 * buffer's reservation lock; they hold references on the queues (found
 * under RCU) and buffers (under the handle table's lock) they work on. The
 * pause waits for
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

/* Count a file's objects, and those of them a checkpoint cannot save. */
static int criu_count(struct drm_compute_file *cfile,
		      struct drm_compute_criu_info *args)
{
	const struct drm_compute_ops *ops = cfile->cdev->ops;
	int vms_unsaved, driver_unsaved = 0;
	u32 syncobjs_unsaved, svm_unsaved;

	lockdep_assert_held(&cfile->criu_lock);
	args->unsaved = 0;
	drm_compute_bo_criu_count(cfile, args);
	args->vms = drm_compute_vm_criu_count(cfile);
	args->userqs = drm_compute_userq_criu_count(cfile);
	args->svm_ranges = drm_compute_svm_criu_count(cfile, &svm_unsaved);
	args->syncobjs = drm_compute_syncobj_criu_count(cfile, &syncobjs_unsaved);
	args->signals = drm_compute_userq_criu_signal_count(cfile);
	vms_unsaved = drm_compute_vm_criu_unsaved(cfile);
	if (vms_unsaved < 0)
		return vms_unsaved;
	if (ops->file_criu_unsaved) {
		driver_unsaved = ops->file_criu_unsaved(cfile);
		if (driver_unsaved < 0)
			return driver_unsaved;
	}
	args->unsaved += vms_unsaved + drm_compute_userq_criu_unsaved(cfile) +
			 syncobjs_unsaved + svm_unsaved + driver_unsaved;
	return 0;
}

/**
 * drm_compute_criu_info_ioctl - count what a checkpoint of a file would save
 * @cfile: the file's compute state
 * @data: &struct drm_compute_criu_info
 *
 * DRM core has checked the caller (%DRM_CHECKPOINT_RESTORE) before this
 * runs.
 *
 * Returns: 0, -EINVAL for non-zero flags, out fields or reserved, -EINTR
 * or -ENOMEM.
 */
int drm_compute_criu_info_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_criu_info *args = data;
	int ret;

	if (args->flags ||
	    !drm_compute_args_zero(args, offsetofend(typeof(*args), flags),
				   sizeof(*args) - offsetofend(typeof(*args), flags)))
		return -EINVAL;

	ret = mutex_lock_interruptible(&cfile->criu_lock);
	if (ret)
		return ret;
	ret = criu_count(cfile, args);
	mutex_unlock(&cfile->criu_lock);
	return ret;
}
EXPORT_SYMBOL(drm_compute_criu_info_ioctl);

static void set_paused(struct drm_compute_file *cfile, bool paused)
{
	mutex_lock(&cfile->lock);
	cfile->paused = paused;
	mutex_unlock(&cfile->lock);
}

static int criu_pause(struct drm_compute_file *cfile,
		      struct drm_compute_criu_pause *args)
{
	u32 userqs = 0, exports = 0, resumed;
	int ret;

	if (cfile->paused)
		return -EALREADY;
	/* Set first: no queue is created from here on. */
	set_paused(cfile, true);
	ret = drm_compute_userq_criu_pause(cfile, &userqs);
	if (ret)
		goto out_unpause;
	/* The queues are stopped: what they moved to device memory comes home. */
	drm_compute_svm_criu_pause(cfile);
	ret = drm_compute_bo_criu_pause(cfile, &exports);
	if (ret) {
		drm_compute_userq_criu_resume(cfile, &resumed);
		goto out_unpause;
	}
	args->userqs = userqs;
	args->exports = exports;
	return 0;

out_unpause:
	set_paused(cfile, false);
	return ret;
}

static int criu_resume(struct drm_compute_file *cfile,
		       struct drm_compute_criu_pause *args)
{
	u32 resumed = 0, exports;
	int ret;

	if (!cfile->paused)
		return -EALREADY;
	/*
	 * A file restored with END_PAUSED: its SVM VMs watch from here on,
	 * before a queue runs; if they cannot, the file stays paused and
	 * the resume may be tried again.
	 */
	ret = drm_compute_svm_criu_resume(cfile);
	if (ret)
		return ret;
	ret = drm_compute_userq_criu_resume(cfile, &resumed);
	exports = drm_compute_bo_criu_resume(cfile);
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
 * Ends what a pause left of a file closed while paused, per object kind:
 * its exported buffers (drm_compute_bo_criu_fini()); its queues are gone
 * already where the driver stopped them at release. Closes the restore
 * session the file owns (drm_compute_bo_criu_session_fini()).
 *
 * Context: process, at the file's postclose, after the DRM core closed its
 * GEM handles.
 */
void drm_compute_criu_file_fini(struct drm_compute_file *cfile)
{
	mutex_lock(&cfile->criu_lock);
	drm_compute_bo_criu_fini(cfile);
	drm_compute_bo_criu_session_fini(cfile);
	mutex_unlock(&cfile->criu_lock);
}

/* Whether a file holds nothing: what a restore may begin on. */
static bool file_empty(struct drm_compute_file *cfile)
{
	bool empty;

	spin_lock(&cfile->file->table_lock);
	empty = idr_is_empty(&cfile->file->object_idr);
	spin_unlock(&cfile->file->table_lock);
	return empty && xa_empty(&cfile->vms) && xa_empty(&cfile->queues) &&
	       xa_empty(&cfile->file->syncobj_xa);
}

static int criu_checkpoint(struct drm_compute_file *cfile,
			   struct drm_compute_criu_checkpoint *args)
{
	struct drm_compute_criu_info info = {};
	int ret;

	/* Names a buffer, saves nothing: any file. */
	if (args->op == DRM_COMPUTE_CRIU_CKPT_DMABUF ||
	    args->op == DRM_COMPUTE_CRIU_CKPT_BO_SHARE)
		return drm_compute_bo_criu_share(cfile, args);
	if (!cfile->paused)
		return -EBUSY;
	if (args->op == DRM_COMPUTE_CRIU_CKPT_READ_BO)
		return drm_compute_bo_criu_copy(cfile, args->id, args->offset,
						args->size, args->ptr, ITER_DEST);
	/* The kernel says what cannot be saved, not the tool. */
	ret = criu_count(cfile, &info);
	if (ret)
		return ret;
	if (info.unsaved) {
		drm_dbg_driver(cfile->cdev->drm,
			       "criu: checkpoint: %u objects cannot be saved\n",
			       info.unsaved);
		return -EOPNOTSUPP;
	}
	if (args->op == DRM_COMPUTE_CRIU_CKPT_LIST_BOS)
		return drm_compute_bo_criu_list(cfile, args);
	if (args->op == DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES)
		return drm_compute_userq_criu_list(cfile, args);
	if (args->op == DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS)
		return drm_compute_syncobj_criu_list(cfile, args);
	if (args->op == DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS)
		return drm_compute_userq_criu_list_signals(cfile, args);
	if (args->op == DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES)
		return drm_compute_svm_criu_list(cfile, args);
	return drm_compute_vm_criu_list(cfile, args);
}

/**
 * drm_compute_criu_checkpoint_ioctl - save what a paused file holds
 * @cfile: the file's compute state
 * @data: &struct drm_compute_criu_checkpoint
 *
 * DRM core has checked the caller (%DRM_CHECKPOINT_RESTORE) before this
 * runs.
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_criu_checkpoint
 * documents.
 */
int drm_compute_criu_checkpoint_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_criu_checkpoint *args = data;
	int ret;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_CRIU))
		return -EOPNOTSUPP;
	if (args->flags || args->reserved[0] || args->reserved[1])
		return -EINVAL;
	switch (args->op) {
	case DRM_COMPUTE_CRIU_CKPT_LIST_BOS:
	case DRM_COMPUTE_CRIU_CKPT_LIST_VMS:
	case DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS:
	case DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES:
	case DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS:
	case DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES:
	case DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS:
		if (args->id || args->offset || args->size)
			return -EINVAL;
		break;
	case DRM_COMPUTE_CRIU_CKPT_READ_BO:
		if (args->count)
			return -EINVAL;
		break;
	case DRM_COMPUTE_CRIU_CKPT_DMABUF:
	case DRM_COMPUTE_CRIU_CKPT_BO_SHARE:
		if (args->count || args->offset || args->size)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	ret = mutex_lock_interruptible(&cfile->criu_lock);
	if (ret)
		return ret;
	ret = criu_checkpoint(cfile, args);
	mutex_unlock(&cfile->criu_lock);
	return ret;
}
EXPORT_SYMBOL(drm_compute_criu_checkpoint_ioctl);

static int criu_restore(struct drm_compute_file *cfile,
			struct drm_compute_criu_restore *args)
{
	u32 resumed;
	int ret;

	if (args->op == DRM_COMPUTE_CRIU_RESTORE_SESSION)
		return drm_compute_bo_criu_session(cfile, &args->session);
	if (args->op == DRM_COMPUTE_CRIU_RESTORE_BEGIN) {
		if (cfile->restoring || cfile->paused)
			return -EBUSY;
		/* Set first: from here on no other call makes an object. */
		WRITE_ONCE(cfile->restoring, true);
		if (!file_empty(cfile)) {
			WRITE_ONCE(cfile->restoring, false);
			return -EBUSY;
		}
		return 0;
	}
	if (!cfile->restoring)
		return -EBUSY;
	switch (args->op) {
	case DRM_COMPUTE_CRIU_RESTORE_BOS:
		return drm_compute_bo_criu_restore(cfile, args);
	case DRM_COMPUTE_CRIU_RESTORE_WRITE_BO:
		return drm_compute_bo_criu_copy(cfile, args->id, args->offset,
						args->size, args->ptr, ITER_SOURCE);
	case DRM_COMPUTE_CRIU_RESTORE_VMS:
	case DRM_COMPUTE_CRIU_RESTORE_MAPPINGS:
		return drm_compute_vm_criu_restore(cfile, args);
	case DRM_COMPUTE_CRIU_RESTORE_QUEUES:
		return drm_compute_userq_criu_restore(cfile, args);
	case DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS:
		return drm_compute_syncobj_criu_restore(cfile, args);
	case DRM_COMPUTE_CRIU_RESTORE_SIGNALS:
		return drm_compute_userq_criu_restore_signals(cfile, args);
	case DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES:
		return drm_compute_svm_criu_restore(cfile, args);
	default:	/* DRM_COMPUTE_CRIU_RESTORE_END */
		if (args->flags & DRM_COMPUTE_CRIU_RESTORE_END_PAUSED) {
			/* Paused before it leaves: no window for a queue to run. */
			set_paused(cfile, true);
			WRITE_ONCE(cfile->restoring, false);
			return 0;
		}
		/* The SVM VMs watch, then the queues that ran continue. */
		ret = drm_compute_svm_criu_resume(cfile);
		if (ret)
			return ret;	/* still restoring: END may be tried again */
		ret = drm_compute_userq_criu_resume(cfile, &resumed);
		WRITE_ONCE(cfile->restoring, false);
		return ret;
	}
}

/**
 * drm_compute_criu_restore_ioctl - rebuild a checkpointed file's objects
 * @cfile: the file's compute state
 * @data: &struct drm_compute_criu_restore
 *
 * DRM core has checked the caller (%DRM_CHECKPOINT_RESTORE) before this
 * runs.
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_criu_restore
 * documents.
 */
int drm_compute_criu_restore_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_criu_restore *args = data;
	int ret;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_CRIU))
		return -EOPNOTSUPP;
	if (args->reserved)
		return -EINVAL;
	if (args->flags && (args->op != DRM_COMPUTE_CRIU_RESTORE_END ||
			    args->flags & ~DRM_COMPUTE_CRIU_RESTORE_END_PAUSED))
		return -EINVAL;
	if (args->session && args->op != DRM_COMPUTE_CRIU_RESTORE_BOS)
		return -EINVAL;
	switch (args->op) {
	case DRM_COMPUTE_CRIU_RESTORE_BEGIN:
	case DRM_COMPUTE_CRIU_RESTORE_END:
	case DRM_COMPUTE_CRIU_RESTORE_SESSION:
		if (args->count || args->id || args->ptr || args->offset ||
		    args->size)
			return -EINVAL;
		break;
	case DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES:
		if (args->offset || args->size)
			return -EINVAL;
		break;
	case DRM_COMPUTE_CRIU_RESTORE_BOS:
	case DRM_COMPUTE_CRIU_RESTORE_VMS:
	case DRM_COMPUTE_CRIU_RESTORE_MAPPINGS:
	case DRM_COMPUTE_CRIU_RESTORE_QUEUES:
	case DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS:
	case DRM_COMPUTE_CRIU_RESTORE_SIGNALS:
		if (args->id || args->offset || args->size)
			return -EINVAL;
		break;
	case DRM_COMPUTE_CRIU_RESTORE_WRITE_BO:
		if (args->count)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	ret = mutex_lock_interruptible(&cfile->criu_lock);
	if (ret)
		return ret;
	ret = criu_restore(cfile, args);
	mutex_unlock(&cfile->criu_lock);
	return ret;
}
EXPORT_SYMBOL(drm_compute_criu_restore_ioctl);
