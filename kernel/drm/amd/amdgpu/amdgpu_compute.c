// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: amdgpu compute glue
 *
 * amdgpu's side of the DRM compute helpers (drivers/gpu/drm/drm_compute.c):
 * it describes the device to the helpers and forwards the compute ioctls of
 * the render node to them. Everything that is not AMD-specific lives in the
 * helpers; this file only reads amdgpu state.
 *
 * Feature bits stay clear until the matching uapi is wired here: amdgpu's
 * existing DRM_AMDGPU_USERQ queues are not yet the compute user-queue uapi
 * (no CWSR, CU mask or suspend), so %DRM_COMPUTE_FEATURE_USERQ is not set.
 */

#include <drm/drm_compute.h>
#include <uapi/drm/drm_compute.h>

#include "amdgpu.h"
#include "amdgpu_compute.h"

/**
 * amdgpu_compute_caps_ioctl - DRM_IOCTL_AMDGPU_COMPUTE_CAPS
 * @dev: the DRM device
 * @data: &struct drm_compute_caps, copied in by the DRM core
 * @filp: the DRM file
 *
 * Returns: 0, or -EINVAL on invalid input (see drm_compute_caps_fill()).
 */
int amdgpu_compute_caps_ioctl(struct drm_device *dev, void *data,
			      struct drm_file *filp)
{
	struct amdgpu_device *adev = drm_to_adev(dev);
	const struct drm_compute_dev_info info = {
		.vram_size = adev->gmc.real_vram_size,
		.vram_bar_size = adev->gmc.visible_vram_size,
	};

	return drm_compute_caps_fill(&info, data);
}
