// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/idr.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

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
 * The first operation, %DRM_COMPUTE_OP_CRIU_INFO, counts what a checkpoint
 * of a file would have to save: buffers (exported and imported ones apart),
 * GPU VMs, user queues and SVM attribute ranges. No driver saves these
 * objects yet; CRIU's onenode plugin fails the dump of a file that holds
 * any, so that the process goes on running instead of being restored
 * without its GPU state. The later phases (pause, checkpoint, restore,
 * resume, after KFD's) take the numbers 0x0f..0x1f of the compute range.
 *
 * Locking: the GEM handle table is walked under &drm_file.table_lock; VMs
 * and queues are counted from their id tables (RCU), and each SVM VM's
 * attribute ranges under its &drm_compute_vm_svm.lock, with a reference on
 * the VM and no other helper lock held, after the attributes of memory
 * unmapped since the last collection are dropped (drm_compute_svm_collect(),
 * which takes the VM's mm's lock inside).
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
