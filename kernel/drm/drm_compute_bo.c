// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>

#include <drm/drm_compute.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
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
 * Locking: none of the helper's; the GEM core's handle table and the
 * object's own locks.
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
