/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __DRM_COMPUTE_H__
#define __DRM_COMPUTE_H__

#include <linux/types.h>

struct drm_compute_caps;

/**
 * struct drm_compute_dev_info - what a driver tells the DRM compute helpers
 * about one device.
 *
 * Filled by the driver, read by drm_compute_caps_fill(). A driver sets a bit
 * in @features only for the parts of the compute uapi it wires into its
 * ioctl table on this device.
 */
struct drm_compute_dev_info {
	/** @features: DRM_COMPUTE_FEATURE_* bits the driver implements. */
	u64 features;
	/** @vram_size: bytes of device memory, 0 for none. */
	u64 vram_size;
	/** @vram_bar_size: bytes of device memory reachable through a PCI BAR. */
	u64 vram_bar_size;
	/** @max_queues: user queues one file may create. */
	u32 max_queues;
	/** @num_priorities: queue priority levels. */
	u32 num_priorities;
};

int drm_compute_caps_fill(const struct drm_compute_dev_info *info,
			  struct drm_compute_caps *caps);

#endif /* __DRM_COMPUTE_H__ */
