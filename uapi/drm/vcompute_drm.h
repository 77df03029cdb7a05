/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef _UAPI_VCOMPUTE_DRM_H_
#define _UAPI_VCOMPUTE_DRM_H_

#include "drm.h"
#include "drm_compute.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: vcompute uapi
 *
 * vcompute is a hardware-free virtual compute device. Its render node
 * carries the DRM compute uapi (&struct drm_compute_caps and the structures
 * that follow it) in vcompute's driver command range, so that every compute
 * ioctl runs end to end in a VM without a GPU. Its driver name, as returned
 * by DRM_IOCTL_VERSION, is "vcompute".
 */

/** DRM_VCOMPUTE_CAPS - command number of &DRM_IOCTL_VCOMPUTE_CAPS. */
#define DRM_VCOMPUTE_CAPS		0x00

/**
 * DRM_IOCTL_VCOMPUTE_CAPS - query &struct drm_compute_caps.
 *
 * Fails with -EINVAL when any field of &struct drm_compute_caps is not zero
 * on input (see its rules); the structure is then left unchanged.
 */
#define DRM_IOCTL_VCOMPUTE_CAPS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VCOMPUTE_CAPS, struct drm_compute_caps)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VCOMPUTE_DRM_H_ */
