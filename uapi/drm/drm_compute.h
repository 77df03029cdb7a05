/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef _UAPI_DRM_COMPUTE_H_
#define _UAPI_DRM_COMPUTE_H_

#include <linux/const.h>

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: DRM compute uapi
 *
 * Structures shared by every DRM driver that implements GPU compute on its
 * render node through the DRM compute helpers (drivers/gpu/drm/drm_compute*.c).
 * A driver exposes each operation as an ioctl in its own command range
 * (for example &DRM_IOCTL_VCOMPUTE_CAPS or DRM_IOCTL_AMDGPU_COMPUTE_CAPS);
 * the argument structures, their rules and their semantics are the same
 * everywhere, so one userspace library serves every driver.
 *
 * Rules that hold for every structure in this file:
 *
 * - pointers travel as __u64;
 * - every padding, reserved field and unknown flag bit must be zero on input,
 *   or the ioctl fails with -EINVAL;
 * - structures only grow at their end; the DRM core zero-extends a shorter
 *   structure from older userspace and truncates the copy-out to the size
 *   userspace passed, and the kernel reports the layout it filled through
 *   a version field.
 */

/**
 * DRM_COMPUTE_CAPS_VERSION - layout version of &struct drm_compute_caps
 * filled by this kernel.
 */
#define DRM_COMPUTE_CAPS_VERSION	1

/** DRM_COMPUTE_FEATURE_USERQ - compute user queues on the render node. */
#define DRM_COMPUTE_FEATURE_USERQ	_BITULL(0)
/** DRM_COMPUTE_FEATURE_SVM - shared virtual memory through HMM. */
#define DRM_COMPUTE_FEATURE_SVM		_BITULL(1)
/** DRM_COMPUTE_FEATURE_P2P_EXPORT - dma-buf export with P2P placement reports. */
#define DRM_COMPUTE_FEATURE_P2P_EXPORT	_BITULL(2)
/** DRM_COMPUTE_FEATURE_CRIU - checkpoint/restore of render-node state. */
#define DRM_COMPUTE_FEATURE_CRIU	_BITULL(3)
/** DRM_COMPUTE_FEATURES_KNOWN - every feature bit this uapi defines. */
#define DRM_COMPUTE_FEATURES_KNOWN	(DRM_COMPUTE_FEATURE_USERQ | \
					 DRM_COMPUTE_FEATURE_SVM | \
					 DRM_COMPUTE_FEATURE_P2P_EXPORT | \
					 DRM_COMPUTE_FEATURE_CRIU)

/**
 * struct drm_compute_caps - versioned capability report of a compute device.
 *
 * Userspace zeroes the whole structure and issues the driver's CAPS ioctl;
 * the kernel fills every "out" field. Every field is zero on input: a
 * non-zero @flags, a non-zero reserved word, and also a non-zero "out"
 * field (which would be a value from an earlier call, or garbage) fail
 * with -EINVAL and leave the structure as userspace passed it. The rule
 * keeps every field free for a later "in" meaning. A feature bit is set
 * only when the driver implements that part of the uapi on this device, so
 * userspace needs no list of drivers.
 */
struct drm_compute_caps {
	/** @flags: in, no flag is defined yet: must be zero. */
	__u32 flags;
	/**
	 * @version: out (zero on input), the layout the kernel filled,
	 * %DRM_COMPUTE_CAPS_VERSION.
	 */
	__u32 version;
	/** @features: out (zero on input), DRM_COMPUTE_FEATURE_* bits. */
	__u64 features;
	/** @vram_size: out (zero on input), bytes of device memory (0 for none). */
	__u64 vram_size;
	/**
	 * @vram_bar_size: out (zero on input), bytes of device memory that a
	 * peer device can reach through a PCI BAR; an upper bound for
	 * peer-to-peer placement.
	 */
	__u64 vram_bar_size;
	/** @max_queues: out (zero on input), user queues one file may create. */
	__u32 max_queues;
	/**
	 * @num_priorities: out (zero on input), queue priority levels (0 when
	 * no user queues).
	 */
	__u32 num_priorities;
	/** @reserved: in must be zero, out zero; room for later fields. */
	__u64 reserved[6];
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_DRM_COMPUTE_H_ */
