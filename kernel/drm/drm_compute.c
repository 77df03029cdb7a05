// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>

#include <drm/drm_compute.h>
#include <uapi/drm/drm_compute.h>

/**
 * DOC: DRM compute helpers
 *
 * The DRM compute helpers hold the vendor-neutral part of GPU compute on a
 * render node: what a compute stack needs from the kernel beyond GEM and
 * command submission, without a separate device file. A driver describes its
 * device once (&struct drm_compute_dev_info), wires the helpers into its own
 * ioctl table and supplies the hardware operations; the helpers own the uapi
 * rules (input validation, versioning, what is reported) so that every
 * driver behaves the same and one userspace library serves them all.
 *
 * The contract with drivers:
 *
 * - the argument structures are those of include/uapi/drm/drm_compute.h, in
 *   the driver's own command range (DRM_COMMAND_BASE + n);
 * - a driver's ioctl handler calls the helper and returns its result
 *   unchanged; the helper never sleeps on driver locks;
 * - feature bits are derived from what the driver declares, never from the
 *   driver's name.
 *
 * Users today: the amdgpu render node and vcompute, the virtual compute
 * device that runs every compute uapi in a VM.
 */

/**
 * drm_compute_caps_fill - fill a capability report from a driver's description
 * @info: the device, as its driver describes it
 * @caps: the ioctl argument, as copied in from userspace
 *
 * Validates @caps as input (every field must be zero: there is no input flag
 * yet, and out fields must not carry garbage that a later version could take
 * as a request), then fills it. The report is kept consistent whatever the
 * driver declared: unknown feature bits are dropped, queue limits are
 * reported only with %DRM_COMPUTE_FEATURE_USERQ, and the BAR-reachable size
 * never exceeds the device memory size.
 *
 * Returns: 0 on success, -EINVAL on invalid input.
 */
int drm_compute_caps_fill(const struct drm_compute_dev_info *info,
			  struct drm_compute_caps *caps)
{
	/* The whole structure, so that a field added later is covered too. */
	if (memchr_inv(caps, 0, sizeof(*caps)))
		return -EINVAL;

	caps->version = DRM_COMPUTE_CAPS_VERSION;
	caps->features = info->features & DRM_COMPUTE_FEATURES_KNOWN;
	caps->vram_size = info->vram_size;
	caps->vram_bar_size = min(info->vram_bar_size, info->vram_size);
	if (caps->features & DRM_COMPUTE_FEATURE_USERQ) {
		caps->max_queues = info->max_queues;
		caps->num_priorities = info->num_priorities;
	}
	return 0;
}
EXPORT_SYMBOL(drm_compute_caps_fill);

MODULE_DESCRIPTION("DRM compute helpers");
MODULE_LICENSE("Dual MIT/GPL");
