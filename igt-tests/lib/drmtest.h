/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * drmtest.h - the DRM device helpers of the IGT-API shim (see README.md):
 * opening a render node, closing it, and the do_ioctl() checks.
 */
#ifndef ONENODE_IGT_DRMTEST_H
#define ONENODE_IGT_DRMTEST_H

#include <errno.h>

#include "igt_core.h"
#include "ioctl_wrappers.h"

/*
 * Driver selection flags. The shim knows no driver by name: DRIVER_ANY
 * takes the first render node that opens, like upstream's fallback; any
 * other selection finds nothing. Open a specific driver through the
 * project's own helpers (onenode_igt.h) instead.
 */
#define DRIVER_VGEM	(1 << 2)
#define DRIVER_VKMS	(1 << 9)
#define DRIVER_VIRTIO	(1 << 10)
#define DRIVER_ANY	~(DRIVER_VGEM | DRIVER_VKMS | DRIVER_VIRTIO)

/** __drm_open_driver_render - a render node fd, or -1 when none opens. */
int __drm_open_driver_render(int chipset);
/** drm_open_driver_render - like __drm_open_driver_render(), skips on -1. */
int drm_open_driver_render(int chipset);
/** __drm_close_driver - close(@fd); -1 for an invalid fd. */
int __drm_close_driver(int fd);
/** drm_close_driver - like __drm_close_driver(), warns on invalid fds. */
int drm_close_driver(int fd);

/** do_ioctl - assert that the ioctl succeeds. */
#define do_ioctl(fd, ioc, ioc_data) do { \
	igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), 0); \
	errno = 0; \
} while (0)

/** do_ioctl_err - assert that the ioctl fails with errno @err. */
#define do_ioctl_err(fd, ioc, ioc_data, err) do { \
	igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), -1); \
	igt_assert_eq(errno, err); \
	errno = 0; \
} while (0)

#endif /* ONENODE_IGT_DRMTEST_H */
