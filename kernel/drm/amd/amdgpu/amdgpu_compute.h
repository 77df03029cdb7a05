/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __AMDGPU_COMPUTE_H__
#define __AMDGPU_COMPUTE_H__

struct drm_device;
struct drm_file;

int amdgpu_compute_caps_ioctl(struct drm_device *dev, void *data,
			      struct drm_file *filp);

#endif /* __AMDGPU_COMPUTE_H__ */
