// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include <drm/drm_compute.h>

#include "drm_compute_internal.h"

/**
 * DOC: Query
 *
 * %DRM_COMPUTE_OP_QUERY reads one report of the device, chosen by id, in the
 * style of xe's DRM_IOCTL_XE_DEVICE_QUERY: a size of 0 asks for the size,
 * and a report only grows at its end, so old and new userspace read the
 * fields they know. Each feature brings its own report
 * (%DRM_COMPUTE_QUERY_USERQ for user queues); a device without the feature
 * answers its query with -EOPNOTSUPP. Every value comes from the driver's
 * &struct drm_compute_dev_info or from the helper's own state, filled by
 * drm_compute_query_fill().
 *
 * Locking: none; the description is read-only after
 * drm_compute_device_init().
 */

static size_t query_size(u32 query)
{
	switch (query) {
	case DRM_COMPUTE_QUERY_DEVICE:
		return sizeof(struct drm_compute_query_device);
	case DRM_COMPUTE_QUERY_USERQ:
		return sizeof(struct drm_compute_query_userq);
	}
	return 0;
}

/**
 * drm_compute_query_fill - build one report
 * @cdev: the device
 * @query: DRM_COMPUTE_QUERY_*
 * @buf: room for the report (query_size() bytes)
 * @size: bytes at @buf
 *
 * Returns: the size of the report, -EINVAL for an unknown @query or a
 * small @buf, -EOPNOTSUPP for a report of a feature the device lacks.
 */
int drm_compute_query_fill(const struct drm_compute_device *cdev, u32 query,
			   void *buf, size_t size)
{
	const struct drm_compute_dev_info *info = &cdev->info;
	bool userq = cdev->features & DRM_COMPUTE_FEATURE_USERQ;
	size_t need = query_size(query);

	if (!need || size < need)
		return -EINVAL;
	memset(buf, 0, need);

	switch (query) {
	case DRM_COMPUTE_QUERY_DEVICE: {
		struct drm_compute_query_device *d = buf;

		d->features = cdev->features & DRM_COMPUTE_FEATURES_KNOWN;
		d->vram_size = info->vram_size;
		d->vram_bar_size = min(info->vram_bar_size, info->vram_size);
		d->device_id = cdev->id;
		d->semantics = info->semantics;
		if (cdev->features & DRM_COMPUTE_FEATURE_SVM)
			d->svm_flags = info->svm_flags;
		if (userq) {
			d->placements = info->placements;
			d->va_start = info->va_start;
			d->va_end = info->va_end;
			d->page_size = info->page_size;
		}
		break;
	}
	case DRM_COMPUTE_QUERY_USERQ: {
		struct drm_compute_query_userq *u = buf;

		if (!userq)
			return -EOPNOTSUPP;
		u->caps = info->userq_caps;
		u->max_queues = info->max_queues;
		u->num_priorities = info->num_priorities;
		u->priority_default = info->priority_default;
		u->priority_privileged = info->priority_privileged;
		u->num_cus = info->num_cus;
		u->queue_formats = info->queue_formats;
		u->ring_size_min = info->ring_size_min;
		u->ring_size_max = info->ring_size_max;
		u->ctx_save_size = info->ctx_save_size;
		u->doorbell_size = info->doorbell_size;
		u->hang_timeout_ms = drm_compute_device_hang_timeout_ms(cdev);
		break;
	}
	}
	return need;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_query_fill);

/**
 * drm_compute_query_ioctl - %DRM_COMPUTE_OP_QUERY
 * @cfile: the file's compute state
 * @data: &struct drm_compute_query
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_query documents.
 */
int drm_compute_query_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_query *args = data;
	union {
		struct drm_compute_query_device device;
		struct drm_compute_query_userq userq;
	} report;
	int len;

	if (args->pad || args->reserved || (args->size && !args->data))
		return -EINVAL;
	len = drm_compute_query_fill(cfile->cdev, args->query, &report,
				     sizeof(report));
	if (len < 0)
		return len;
	if (args->size) {
		len = min_t(u32, args->size, len);
		if (copy_to_user(u64_to_user_ptr(args->data), &report, len))
			return -EFAULT;
	}
	args->size = len;
	return 0;
}
EXPORT_SYMBOL(drm_compute_query_ioctl);
