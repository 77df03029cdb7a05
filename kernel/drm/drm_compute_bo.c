// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/cred.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include <drm/drm_compute.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include "drm_compute_internal.h"

/**
 * DOC: Buffers
 *
 * Buffers are ordinary GEM objects of the driver, so PRIME export and
 * import, handle close and the generic GEM ioctls work on them as on any
 * other. The helper checks the creation arguments (a size that is a
 * multiple of the GPU page size, exactly one placement the device has, at
 * most one export flag with the placement it takes) and hands them to
 * &drm_compute_ops.bo_create, or to &drm_compute_ops.p2p_bo_create for a
 * buffer made for export (DOC: Export to peer devices); it answers the mmap
 * offset of any GEM object of the file through the GEM core.
 *
 * Checkpoint (drm_compute_bo_criu_*()): the buffers of a file are counted
 * and listed from its GEM handle table, a pause takes its exported ones
 * from their importers, and the contents of the others are copied between
 * the buffer and the checkpoint tool's memory by the driver
 * (&drm_compute_ops.bo_criu_copy). A restore creates each buffer as
 * BO_CREATE would, then moves it to the handle the image names, which the
 * file's restoring state keeps free of other calls (DOC: Checkpoint/restore).
 *
 * Locking: none of the helper's for creation; the GEM core's handle table
 * and the object's own locks. The checkpoint functions run under the
 * file's &drm_compute_file.criu_lock, which also guards
 * &drm_compute_file.paused_bos.
 */

/**
 * drm_compute_bo_create_ioctl - %DRM_COMPUTE_OP_BO_CREATE
 * @cfile: the file's compute state
 * @data: &struct drm_compute_bo_create
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_bo_create
 * documents.
 */
int drm_compute_bo_create_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_bo_create *args = data;
	u32 handle;
	int ret;

	if (!(cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if ((args->flags & ~DRM_COMPUTE_BO_EXPORT_KNOWN) || args->handle ||
	    hweight32(args->flags) > 1)
		return -EINVAL;
	if (!args->size || !IS_ALIGNED(args->size, cdev->info.page_size))
		return -EINVAL;
	if (hweight64(args->placement) != 1 ||
	    !(args->placement & cdev->info.placements))
		return -EINVAL;
	if (args->flags) {
		u64 want = args->flags == DRM_COMPUTE_BO_EXPORT_HOST_ONLY ?
			   DRM_COMPUTE_PLACEMENT_SYSTEM :
			   DRM_COMPUTE_PLACEMENT_VRAM;

		if (args->placement != want)
			return -EINVAL;
		if (!(cdev->features & DRM_COMPUTE_FEATURE_P2P_EXPORT))
			return -EOPNOTSUPP;
		ret = cdev->ops->p2p_bo_create(cfile, args->size,
					       args->placement, args->flags,
					       &handle);
	} else {
		ret = cdev->ops->bo_create(cfile, args->size, args->placement,
					   &handle);
	}
	if (ret)
		return ret;
	args->handle = handle;
	return 0;
}
EXPORT_SYMBOL(drm_compute_bo_create_ioctl);

/**
 * drm_compute_bo_mmap_ioctl - %DRM_COMPUTE_OP_BO_MMAP
 * @cfile: the file's compute state
 * @data: &struct drm_compute_bo_mmap
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_bo_mmap
 * documents.
 */
int drm_compute_bo_mmap_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_bo_mmap *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (args->pad || args->offset)
		return -EINVAL;
	obj = drm_gem_object_lookup(cfile->file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return ret;
}
EXPORT_SYMBOL(drm_compute_bo_mmap_ioctl);

/**
 * drm_compute_bo_criu_count - the buffers a checkpoint of a file would save
 * @cfile: the file's compute state
 * @args: &struct drm_compute_criu_info: @bos, @exports and @imports set
 *
 * Context: process; takes &drm_file.table_lock.
 */
void drm_compute_bo_criu_count(struct drm_compute_file *cfile,
			       struct drm_compute_criu_info *args)
{
	struct drm_file *file = cfile->file;
	struct drm_gem_object *obj;
	u32 bos = 0, exports = 0, imports = 0, unsaved = 0;
	int handle;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, handle) {
		bos++;
		if (drm_gem_is_imported(obj))
			imports++;
		else if (READ_ONCE(obj->dma_buf))
			exports++;
		unsaved += !drm_compute_bo_criu_savable(cfile->cdev, obj);
	}
	spin_unlock(&file->table_lock);
	args->bos = bos;
	args->exports = exports;
	args->imports = imports;
	args->unsaved += unsaved;
}

static bool bo_exported(struct drm_gem_object *obj)
{
	return !drm_gem_is_imported(obj) && READ_ONCE(obj->dma_buf);
}

/*
 * The file's buffers (@exported: only the exported ones), each with a
 * reference, and their handles, in ascending handle order: *@n of them. A
 * buffer made after the count is left out: CRIU has frozen the file's
 * users.
 */
static int file_bos(struct drm_compute_file *cfile, bool exported,
		    struct drm_gem_object ***objs, u32 **handles, u32 *n)
{
	struct drm_file *file = cfile->file;
	struct drm_gem_object *obj;
	u32 max = 0, i = 0;
	int handle;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, handle)
		max += !exported || bo_exported(obj);
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
		if (exported && !bo_exported(obj))
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

/**
 * drm_compute_bo_criu_pause - take a paused file's exported buffers from
 * their importers
 * @cfile: the file, marked paused
 * @exports: set to the buffers taken
 *
 * Each exported buffer is told to its importers and held off until
 * drm_compute_bo_criu_resume(); one that cannot be taken fails the call,
 * which gives back those it took.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EBUSY for a buffer an importer holds, -EINTR, -ETIMEDOUT or
 * -ENOMEM.
 */
int drm_compute_bo_criu_pause(struct drm_compute_file *cfile, u32 *exports)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_gem_object **objs = NULL;
	u32 *handles = NULL, nb = 0, i;
	int ret;

	lockdep_assert_held(&cfile->criu_lock);
	ret = file_bos(cfile, true, &objs, &handles, &nb);
	if (ret)
		return ret;
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
			kvfree(handles);
			return ret;
		}
	}
	kvfree(handles);
	cfile->paused_bos = objs;
	cfile->nr_paused_bos = nb;
	*exports = nb;
	return 0;
}

/**
 * drm_compute_bo_criu_resume - give a paused file's exported buffers back
 * @cfile: the file
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: the buffers given back.
 */
u32 drm_compute_bo_criu_resume(struct drm_compute_file *cfile)
{
	u32 i, n = cfile->nr_paused_bos;

	lockdep_assert_held(&cfile->criu_lock);
	for (i = 0; i < n; i++)
		bo_resume(cfile->cdev, cfile->paused_bos[i]);
	bos_put(cfile->paused_bos, n);
	cfile->paused_bos = NULL;
	cfile->nr_paused_bos = 0;
	return n;
}

/**
 * drm_compute_bo_criu_fini - the buffers a checkpoint leaves at a file's
 * release
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
 * GEM handles (so a handle count of 0 means no other file);
 * &drm_compute_file.criu_lock held.
 */
void drm_compute_bo_criu_fini(struct drm_compute_file *cfile)
{
	struct drm_compute_p2p_export *exp;
	struct drm_gem_object *obj;
	unsigned int others;
	u32 i;

	lockdep_assert_held(&cfile->criu_lock);
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
}

/**
 * drm_compute_bo_criu_savable - whether a checkpoint can save a buffer
 * @cdev: the device
 * @obj: a GEM object with a handle in a file of @cdev
 *
 * A buffer of this device the driver can save (&drm_compute_ops
 * .bo_criu_placement), not an import, whose dma-buf, if it was ever
 * exported, no importer is attached to: an importer (another device, a
 * NIC) would stay attached to this buffer, not to the restored one. Other
 * files of the device and dma-buf fds may hold it: the checkpoint lists
 * it with an id (bo_shared()) by which the restore shares it again. A
 * buffer made for export is made again with its flag. Imports are not
 * saved.
 *
 * Context: any; does not sleep. &drm_gem_object.dma_buf must stay: the
 * caller holds &drm_device.object_name_lock, or &drm_file.table_lock with
 * @obj's handle in the table (the dma-buf then lives until the handle is
 * gone). The attachment list is read without its lock: the pause checked
 * it under the lock, and an importer that attaches later is the pause's
 * known gap (DOC: Checkpoint/restore).
 *
 * Returns: true when it can be saved.
 */
bool drm_compute_bo_criu_savable(struct drm_compute_device *cdev,
				 struct drm_gem_object *obj)
{
	struct dma_buf *dmabuf = READ_ONCE(obj->dma_buf);

	if (!(cdev->features & DRM_COMPUTE_FEATURE_CRIU) ||
	    obj->dev != cdev->drm || drm_gem_is_imported(obj) ||
	    (dmabuf && !list_empty(&dmabuf->attachments)))
		return false;
	return cdev->ops->bo_criu_placement(obj) != 0;
}

/*
 * Whether something beside one file holds @obj: a handle in another file,
 * or a reference to its dma-buf beyond the GEM object's own and one
 * file's PRIME cache's (an fd, another file's cache). Under
 * &drm_device.object_name_lock, which keeps both counts.
 */
static bool bo_shared(struct drm_gem_object *obj)
{
	lockdep_assert_held(&obj->dev->object_name_lock);
	return obj->handle_count > 1 ||
	       (obj->dma_buf && file_count(obj->dma_buf->file) > 2);
}

/*
 * The id by which a checkpoint names a shared buffer in every file that
 * holds it: its mmap offset in pages, unique on the device while the
 * buffer lives, made here if the buffer had none.
 */
static int bo_share_id(struct drm_gem_object *obj, u64 *share)
{
	int ret = drm_gem_create_mmap_offset(obj);

	if (!ret)
		*share = drm_vma_node_start(&obj->vma_node);
	return ret;
}

/* 0 for a buffer without one: an unallocated node starts at 0. */
static u64 bo_mmap_offset(struct drm_gem_object *obj)
{
	return drm_vma_node_offset_addr(&obj->vma_node);
}

/**
 * drm_compute_bo_criu_list - %DRM_COMPUTE_CRIU_CKPT_LIST_BOS
 * @cfile: the paused file
 * @args: the call: up to @count entries written at @ptr, @count set to the
 *	  number of buffers
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EFAULT or -ENOMEM.
 */
int drm_compute_bo_criu_list(struct drm_compute_file *cfile,
			     struct drm_compute_criu_checkpoint *args)
{
	struct drm_compute_criu_bo __user *out = u64_to_user_ptr(args->ptr);
	struct drm_gem_object **objs;
	u32 *handles, n, i;
	int ret;

	lockdep_assert_held(&cfile->criu_lock);
	ret = file_bos(cfile, false, &objs, &handles, &n);
	if (ret)
		return ret;
	for (i = 0; i < min(n, args->count); i++) {
		struct drm_compute_p2p_export *exp = bo_export_state(cfile->cdev, objs[i]);
		struct drm_compute_criu_bo e = {
			.handle = handles[i],
			.flags = exp ? exp->flags : 0,
			.size = objs[i]->size,
			.placement = cfile->cdev->ops->bo_criu_placement(objs[i]),
		};
		bool shared, rdonly;

		mutex_lock(&objs[i]->dev->object_name_lock);
		shared = bo_shared(objs[i]);
		rdonly = objs[i]->dma_buf &&
			 !(objs[i]->dma_buf->file->f_mode & FMODE_WRITE);
		mutex_unlock(&objs[i]->dev->object_name_lock);
		if (shared) {
			ret = bo_share_id(objs[i], &e.share);
			if (ret)
				break;
			if (rdonly)
				e.flags |= DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY;
		}
		e.mmap_offset = bo_mmap_offset(objs[i]);
		if (copy_to_user(&out[i], &e, sizeof(e))) {
			ret = -EFAULT;
			break;
		}
	}
	bos_put(objs, n);
	kvfree(handles);
	if (!ret)
		args->count = n;
	return ret;
}

/*
 * drm_compute_bo_criu_copy() for a buffer made for export: through a kernel
 * buffer, the driver's copy under the reservation, the caller's memory
 * touched without it.
 */
static int bo_criu_copy_locked(struct drm_compute_device *cdev,
			       struct drm_gem_object *obj, u64 offset, u64 size,
			       u64 ptr, int dir)
{
	void __user *user = u64_to_user_ptr(ptr);
	size_t len, chunk = min_t(u64, size, SZ_64K);
	struct iov_iter iter;
	struct kvec kv;
	void *buf;
	int ret = 0;

	buf = kvmalloc(chunk, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while (size && !ret) {
		len = min_t(u64, size, chunk);
		kv = (struct kvec){ .iov_base = buf, .iov_len = len };
		if (dir == ITER_SOURCE && copy_from_user(buf, user, len)) {
			ret = -EFAULT;
			break;
		}
		iov_iter_kvec(&iter, dir, &kv, 1, len);
		ret = dma_resv_lock_interruptible(obj->resv, NULL);
		if (ret)
			break;
		ret = cdev->ops->bo_criu_copy(obj, offset, &iter);
		dma_resv_unlock(obj->resv);
		if (!ret && dir == ITER_DEST && copy_to_user(user, buf, len))
			ret = -EFAULT;
		user += len;
		offset += len;
		size -= len;
	}
	kvfree(buf);
	return ret;
}

/**
 * drm_compute_bo_criu_copy - copy a buffer's contents out (checkpoint) or in
 * (restore)
 * @cfile: the file, paused or restoring
 * @handle: the buffer
 * @offset: byte offset into it
 * @size: bytes
 * @ptr: the caller's memory
 * @dir: ITER_DEST to read the buffer into @ptr, ITER_SOURCE to write it
 *
 * The bytes go straight between the buffer and the caller's pages
 * (&drm_compute_ops.bo_criu_copy), in the pieces the caller asks for. A
 * buffer made for export can move under its reservation (a new importer),
 * so it is copied in 64 KiB pieces through a kernel buffer, each under the
 * reservation, never while the caller's memory is faulted in (which may
 * be a mapping of this very buffer).
 *
 * Context: process; &drm_compute_file.criu_lock held, no other helper
 * lock (the copy may fault the caller's memory in).
 *
 * Returns: 0, -ENOENT, -EINVAL for a range outside the buffer or longer
 * than MAX_RW_COUNT, -EOPNOTSUPP for a buffer that cannot be saved,
 * -EFAULT, or the driver's error.
 */
int drm_compute_bo_criu_copy(struct drm_compute_file *cfile, u32 handle,
			     u64 offset, u64 size, u64 ptr, int dir)
{
	struct drm_gem_object *obj;
	struct iov_iter iter;
	int ret;

	lockdep_assert_held(&cfile->criu_lock);
	if (!size || size > MAX_RW_COUNT)
		return -EINVAL;
	obj = drm_gem_object_lookup(cfile->file, handle);
	if (!obj)
		return -ENOENT;
	if (offset > obj->size || size > obj->size - offset) {
		ret = -EINVAL;
		goto out;
	}
	mutex_lock(&obj->dev->object_name_lock);
	ret = drm_compute_bo_criu_savable(cfile->cdev, obj) ? 0 : -EOPNOTSUPP;
	mutex_unlock(&obj->dev->object_name_lock);
	if (ret)
		goto out;
	if (bo_export_state(cfile->cdev, obj)) {
		ret = bo_criu_copy_locked(cfile->cdev, obj, offset, size, ptr, dir);
		goto out;
	}
	ret = import_ubuf(dir, u64_to_user_ptr(ptr), size, &iter);
	if (!ret)
		ret = cfile->cdev->ops->bo_criu_copy(obj, offset, &iter);
out:
	drm_gem_object_put(obj);
	return ret;
}

/*
 * Give the buffer at handle @from the handle @to instead. The file is
 * restoring, so no other call looks at its handles meanwhile, and the
 * handle is new: no PRIME entry of this file names it (a dma-buf of a
 * shared buffer is in other files' caches only).
 */
static int bo_move_handle(struct drm_file *file, u32 from, u32 to)
{
	struct drm_gem_object *obj;
	int ret;

	if (from == to)
		return 0;
	idr_preload(GFP_KERNEL);
	spin_lock(&file->table_lock);
	obj = idr_find(&file->object_idr, from);
	ret = idr_alloc(&file->object_idr, obj, to, to + 1, GFP_NOWAIT);
	if (ret >= 0)
		idr_remove(&file->object_idr, from);
	spin_unlock(&file->table_lock);
	idr_preload_end();
	if (ret == -ENOSPC)
		return -EEXIST;
	return ret < 0 ? ret : 0;
}

/* Make the buffer of entry @e at its handle, zeroed, with an mmap offset. */
static int bo_criu_make(struct drm_compute_file *cfile,
			struct drm_compute_criu_bo *e)
{
	struct drm_compute_bo_create create = {
		.flags = e->flags & ~DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY,
		.size = e->size,
		.placement = e->placement,
	};
	struct drm_gem_object *obj;
	int ret;

	/*
	 * A buffer made for export starts where its flag puts it, as at
	 * BO_CREATE; its next importer decides again where it goes. Where
	 * it was at the checkpoint (a PREFER_P2P buffer moved to system
	 * memory for an importer) must be a place the flag allows.
	 */
	if (create.flags == DRM_COMPUTE_BO_EXPORT_PREFER_P2P) {
		if (e->placement != DRM_COMPUTE_PLACEMENT_VRAM &&
		    e->placement != DRM_COMPUTE_PLACEMENT_SYSTEM)
			return -EINVAL;
		create.placement = DRM_COMPUTE_PLACEMENT_VRAM;
	}
	ret = drm_compute_bo_create_ioctl(cfile, &create);
	if (ret)
		return ret;
	ret = bo_move_handle(cfile->file, create.handle, e->handle);
	if (ret) {
		drm_gem_handle_delete(cfile->file, create.handle);
		return ret;
	}
	obj = drm_gem_object_lookup(cfile->file, e->handle);
	if (WARN_ON(!obj))
		return -ENOENT;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		e->mmap_offset = bo_mmap_offset(obj);
	drm_gem_object_put(obj);
	if (ret)
		drm_gem_handle_delete(cfile->file, e->handle);
	return ret;
}

/**
 * struct drm_compute_criu_shared - a shared buffer of a restore session
 */
struct drm_compute_criu_shared {
	/** @obj: the buffer, with a reference. */
	struct drm_gem_object *obj;
	/**
	 * @dmabuf: its dma-buf, exported when the buffer was made, with a
	 * reference: the buffer's only dma-buf for as long as the session
	 * lives, also while no file holds a handle to it (a restored dma-buf
	 * fd alone), so that a later file takes the buffer with this dma-buf
	 * in its PRIME cache and not a second one.
	 */
	struct dma_buf *dmabuf;
	/**
	 * @claimed: an entry took the buffer without
	 * %DRM_COMPUTE_CRIU_BO_JOINED, so its caller writes the contents;
	 * cleared again when that entry's call fails.
	 */
	bool claimed;
};

/**
 * struct drm_compute_criu_session - a restore session
 * (%DRM_COMPUTE_CRIU_RESTORE_SESSION): the shared buffers made so far.
 *
 * Owned by the file that opened it (&drm_compute_file.criu_session), found
 * by id in &drm_compute_device.criu_sessions, freed with its file
 * (drm_compute_bo_criu_session_fini()).
 */
struct drm_compute_criu_session {
	/**
	 * @bos: checkpoint share id (&drm_compute_criu_bo.share) -> &struct
	 * drm_compute_criu_shared; entries and their @claimed under
	 * &drm_compute_device.criu_share_lock.
	 */
	struct xarray bos;
	/**
	 * @cred: who opened it. Only a caller with the same effective uid in
	 * the same user namespace finds it (bo_criu_session_find()): another
	 * user allowed to restore cannot take this restore's buffers by
	 * guessing its id.
	 */
	const struct cred *cred;
};

/* Session @session of the caller's, under criu_share_lock; NULL if none. */
static struct drm_compute_criu_session *
bo_criu_session_find(struct drm_compute_device *cdev, u64 session)
{
	struct drm_compute_criu_session *sess;

	lockdep_assert_held(&cdev->criu_share_lock);
	if (!session || session > INT_MAX)
		return NULL;
	sess = xa_load(&cdev->criu_sessions, session);
	if (!sess || sess->cred->user_ns != current_user_ns() ||
	    !uid_eq(sess->cred->euid, current_euid()))
		return NULL;
	return sess;
}

/**
 * drm_compute_bo_criu_session - %DRM_COMPUTE_CRIU_RESTORE_SESSION
 * @cfile: the file that will own the session
 * @id: set to the session's id
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EBUSY when the file owns a session or no id is free, or
 * -ENOMEM.
 */
int drm_compute_bo_criu_session(struct drm_compute_file *cfile, u64 *id)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_criu_session *sess;
	u32 sid;
	int ret;

	lockdep_assert_held(&cfile->criu_lock);
	if (cfile->criu_session)
		return -EBUSY;
	sess = kzalloc_obj(*sess);
	if (!sess)
		return -ENOMEM;
	xa_init(&sess->bos);
	sess->cred = get_current_cred();
	mutex_lock(&cdev->criu_share_lock);
	ret = xa_alloc_cyclic(&cdev->criu_sessions, &sid, sess,
			      XA_LIMIT(1, INT_MAX), &cdev->criu_next_session,
			      GFP_KERNEL);
	mutex_unlock(&cdev->criu_share_lock);
	if (ret < 0) {
		put_cred(sess->cred);
		kfree(sess);
		return ret;
	}
	cfile->criu_session = sid;
	*id = sid;
	return 0;
}

/**
 * drm_compute_bo_criu_session_fini - close the restore session a file owns
 * @cfile: the closing file
 *
 * Drops the session's references: a shared buffer no restored file or fd
 * took goes now.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 */
void drm_compute_bo_criu_session_fini(struct drm_compute_file *cfile)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_criu_session *sess;
	struct drm_compute_criu_shared *sh;
	unsigned long share;

	lockdep_assert_held(&cfile->criu_lock);
	if (!cfile->criu_session)
		return;
	mutex_lock(&cdev->criu_share_lock);
	sess = xa_erase(&cdev->criu_sessions, cfile->criu_session);
	mutex_unlock(&cdev->criu_share_lock);
	cfile->criu_session = 0;
	if (WARN_ON(!sess))
		return;
	xa_for_each(&sess->bos, share, sh) {
		dma_buf_put(sh->dmabuf);
		drm_gem_object_put(sh->obj);
		kfree(sh);
	}
	xa_destroy(&sess->bos);
	put_cred(sess->cred);
	kfree(sess);
}

/*
 * Give entry @e's handle to @sh's buffer, with @sh's dma-buf in the file's
 * PRIME cache, so that importing the buffer's dma-buf into this file finds
 * this handle, as it did before the checkpoint, instead of making a second
 * one. When no file holds a handle to the buffer (a restored dma-buf fd
 * alone), GEM has let go of its dma-buf: it gets the session's back first,
 * as importing that dma-buf would give it (drm_gem_prime_fd_to_handle()),
 * and never a second one.
 */
static int bo_criu_take(struct drm_compute_file *cfile,
			struct drm_compute_criu_shared *sh,
			struct drm_compute_criu_bo *e)
{
	struct drm_compute_p2p_export *exp = bo_export_state(cfile->cdev, sh->obj);
	struct drm_gem_object *obj = sh->obj;
	struct dma_buf *dmabuf;
	u32 handle;
	int ret;

	if (obj->size != e->size ||
	    (exp ? exp->flags : 0) != (e->flags & ~DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY))
		return -EINVAL;
	/*
	 * Until the handle exists the buffer may hold a dma-buf with no
	 * handle, as during drm_gem_prime_fd_to_handle(); a handle that
	 * cannot be made drops it again (drm_gem_object_handle_put_unlocked()).
	 */
	mutex_lock(&obj->dev->object_name_lock);
	if (!obj->dma_buf) {
		get_dma_buf(sh->dmabuf);
		obj->dma_buf = sh->dmabuf;
	}
	ret = drm_WARN_ON(obj->dev, obj->dma_buf != sh->dmabuf) ? -EBUSY : 0;
	mutex_unlock(&obj->dev->object_name_lock);
	if (!ret)
		ret = drm_gem_handle_create(cfile->file, obj, &handle);
	if (ret)
		return ret;
	ret = bo_move_handle(cfile->file, handle, e->handle);
	if (ret) {
		drm_gem_handle_delete(cfile->file, handle);
		return ret;
	}
	dmabuf = drm_gem_prime_handle_to_dmabuf(obj->dev, cfile->file, e->handle,
						DRM_CLOEXEC | DRM_RDWR);
	if (IS_ERR(dmabuf)) {
		drm_gem_handle_delete(cfile->file, e->handle);
		return PTR_ERR(dmabuf);
	}
	dma_buf_put(dmabuf);
	e->mmap_offset = bo_mmap_offset(obj);
	return 0;
}

/* Make @e's buffer and give it to session @sess; its caller writes it. */
static int bo_criu_make_shared(struct drm_compute_file *cfile,
			       struct drm_compute_criu_session *sess,
			       struct drm_compute_criu_bo *e)
{
	struct drm_compute_criu_shared *sh;
	int ret;

	sh = kzalloc_obj(*sh);
	if (!sh)
		return -ENOMEM;
	ret = bo_criu_make(cfile, e);
	if (ret)
		goto err_free;
	sh->obj = drm_gem_object_lookup(cfile->file, e->handle);
	if (WARN_ON(!sh->obj)) {
		ret = -ENOENT;
		goto err_free;
	}
	sh->dmabuf = drm_gem_prime_handle_to_dmabuf(cfile->cdev->drm, cfile->file,
						    e->handle, DRM_CLOEXEC |
						    (e->flags & DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY ?
						     0 : DRM_RDWR));
	if (IS_ERR(sh->dmabuf)) {
		ret = PTR_ERR(sh->dmabuf);
		goto err_put;
	}
	sh->claimed = true;
	ret = xa_err(xa_store(&sess->bos, e->share, sh, GFP_KERNEL));
	if (!ret)
		return 0;
	dma_buf_put(sh->dmabuf);
err_put:
	drm_gem_object_put(sh->obj);
	drm_gem_handle_delete(cfile->file, e->handle);
	e->mmap_offset = 0;
err_free:
	kfree(sh);
	return ret;
}

/*
 * A shared entry: the session's buffer of its id if there is one, else
 * made here and given to the session. One lock over both, so two files
 * restoring at once make the buffer once. The first entry to get the
 * buffer writes it; the others come back JOINED.
 */
static int bo_criu_restore_shared(struct drm_compute_file *cfile,
				  struct drm_compute_criu_bo *e, u64 session)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_criu_session *sess;
	struct drm_compute_criu_shared *sh;
	int ret;

	if (!session || e->share != (unsigned long)e->share)
		return -EINVAL;
	mutex_lock(&cdev->criu_share_lock);
	sess = bo_criu_session_find(cdev, session);
	if (!sess) {
		ret = -ENOENT;
		goto out;
	}
	sh = xa_load(&sess->bos, e->share);
	if (!sh) {
		ret = bo_criu_make_shared(cfile, sess, e);
		goto out;
	}
	ret = bo_criu_take(cfile, sh, e);
	if (ret)
		goto out;
	if (sh->claimed)
		e->flags |= DRM_COMPUTE_CRIU_BO_JOINED;
	sh->claimed = true;
out:
	mutex_unlock(&cdev->criu_share_lock);
	return ret;
}

/*
 * The call that got the session's buffer of @share to write failed: the
 * buffer stays in the session, since other files may have taken it
 * meanwhile, and the next entry of that id (a retry, another file) gets it
 * to write instead.
 */
static void bo_criu_unclaim(struct drm_compute_file *cfile, u64 session,
			    u64 share)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_criu_session *sess;
	struct drm_compute_criu_shared *sh;

	mutex_lock(&cdev->criu_share_lock);
	sess = bo_criu_session_find(cdev, session);
	sh = sess ? xa_load(&sess->bos, share) : NULL;
	if (sh)
		sh->claimed = false;
	mutex_unlock(&cdev->criu_share_lock);
}

static int bo_criu_restore_one(struct drm_compute_file *cfile,
			       struct drm_compute_criu_bo *e, u64 session)
{
	/* Handles are idr ids: 1 to INT_MAX. */
	if (!e->handle || e->handle >= INT_MAX || e->mmap_offset ||
	    e->flags & DRM_COMPUTE_CRIU_BO_JOINED ||
	    (e->flags & DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY && !e->share))
		return -EINVAL;
	if (e->share)
		return bo_criu_restore_shared(cfile, e, session);
	return bo_criu_make(cfile, e);
}

/* Take back entry @e, which this call made or took. */
static void bo_criu_undo_one(struct drm_compute_file *cfile,
			     const struct drm_compute_criu_bo *e, u64 session)
{
	drm_gem_handle_delete(cfile->file, e->handle);
	if (e->share && !(e->flags & DRM_COMPUTE_CRIU_BO_JOINED))
		bo_criu_unclaim(cfile, session, e->share);
}

/**
 * drm_compute_bo_criu_restore - %DRM_COMPUTE_CRIU_RESTORE_BOS
 * @cfile: the restoring file
 * @args: the call: @count entries at @ptr
 *
 * Each buffer is created zeroed, with &struct drm_compute_bo_create's
 * rules, at the handle its entry names, and given an mmap offset, which is
 * written back to the entry; a shared entry takes its session's buffer
 * (bo_criu_restore_shared()). The entries are read once, into the kernel,
 * and written back once: all or nothing, an entry that fails takes back
 * what the call made before it from that copy, and the caller's array is
 * left as it was.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0 or the first entry's error, as &struct
 * drm_compute_criu_restore documents.
 */
int drm_compute_bo_criu_restore(struct drm_compute_file *cfile,
				struct drm_compute_criu_restore *args)
{
	void __user *uptr = u64_to_user_ptr(args->ptr);
	struct drm_compute_criu_bo *e;
	int ret = 0;
	u32 i;

	lockdep_assert_held(&cfile->criu_lock);
	if (!args->count)
		return 0;
	/* The caller's own array, copied: NOWARN, as its size is the caller's. */
	e = kvmalloc_array(args->count, sizeof(*e),
			   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!e)
		return -ENOMEM;
	if (copy_from_user(e, uptr, array_size(args->count, sizeof(*e)))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < args->count; i++) {
		ret = bo_criu_restore_one(cfile, &e[i], args->session);
		if (ret)
			break;
	}
	if (!ret && copy_to_user(uptr, e, array_size(args->count, sizeof(*e))))
		ret = -EFAULT;
	while (ret && i--)
		bo_criu_undo_one(cfile, &e[i], args->session);
out:
	kvfree(e);
	return ret;
}

/* The buffer of @file whose dma-buf @fd is, with a reference; its handle. */
static struct drm_gem_object *bo_by_dmabuf(struct drm_file *file, int fd,
					   u32 *handle)
{
	struct drm_gem_object *obj, *found = NULL;
	struct dma_buf *dmabuf;
	int id;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return ERR_CAST(dmabuf);
	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		if (READ_ONCE(obj->dma_buf) == dmabuf &&
		    !drm_gem_is_imported(obj)) {
			found = obj;
			drm_gem_object_get(found);
			*handle = id;
			break;
		}
	}
	spin_unlock(&file->table_lock);
	dma_buf_put(dmabuf);
	return found ?: ERR_PTR(-ENOENT);
}

/**
 * drm_compute_bo_criu_share - %DRM_COMPUTE_CRIU_CKPT_DMABUF and
 * %DRM_COMPUTE_CRIU_CKPT_BO_SHARE
 * @cfile: the file asked, paused or not
 * @args: the call: @id the dma-buf's fd (DMABUF) or the buffer's handle
 *	  (BO_SHARE), @ptr where the answer goes
 *
 * DMABUF finds the buffer of the file whose dma-buf the fd is by the GEM
 * object's own pointer to its dma-buf, as DRM core's PRIME cache would,
 * without calling the dma-buf's exporter: any dma-buf may come in.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EBADF or -EINVAL (dma_buf_get()), -ENOENT when the file has
 * no such buffer of its own (an import is none), -ENOMEM or -EFAULT.
 */
int drm_compute_bo_criu_share(struct drm_compute_file *cfile,
			      struct drm_compute_criu_checkpoint *args)
{
	struct drm_compute_criu_share out = {};
	struct drm_compute_p2p_export *exp;
	struct drm_gem_object *obj;
	int ret;

	lockdep_assert_held(&cfile->criu_lock);
	if (args->op == DRM_COMPUTE_CRIU_CKPT_DMABUF) {
		obj = bo_by_dmabuf(cfile->file, args->id, &out.handle);
		if (IS_ERR(obj))
			return PTR_ERR(obj);
	} else {
		obj = drm_gem_object_lookup(cfile->file, args->id);
		if (!obj)
			return -ENOENT;
		out.handle = args->id;
		if (drm_gem_is_imported(obj)) {
			ret = -ENOENT;
			goto out;
		}
	}
	ret = bo_share_id(obj, &out.share);
	if (ret)
		goto out;
	exp = bo_export_state(cfile->cdev, obj);
	out.flags = exp ? exp->flags : 0;
	out.size = obj->size;
	/* Both go with the last handle, under the lock DRM core takes. */
	mutex_lock(&obj->dev->object_name_lock);
	out.files = obj->handle_count;
	if (obj->dma_buf)
		out.dmabuf_ino = file_inode(obj->dma_buf->file)->i_ino;
	mutex_unlock(&obj->dev->object_name_lock);
	if (copy_to_user(u64_to_user_ptr(args->ptr), &out, sizeof(out)))
		ret = -EFAULT;
out:
	drm_gem_object_put(obj);
	return ret;
}
