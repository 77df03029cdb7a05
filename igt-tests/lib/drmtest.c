// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * DRM helpers of the IGT-API shim: render-node opening for DRIVER_ANY,
 * closing, and igt_ioctl.
 */

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <xf86drm.h>

#include "drmtest.h"

__thread int (*igt_ioctl)(int fd, unsigned long request, void *arg) = drmIoctl;

int __drm_open_driver_render(int chipset)
{
	/* Render minors are 128..191; take the lowest that opens. */
	if ((chipset & DRIVER_ANY) != DRIVER_ANY)
		return -1;
	for (int minor = 128; minor < 192; minor++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "%s/renderD%d", DRM_DIR_NAME, minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

int drm_open_driver_render(int chipset)
{
	int fd = __drm_open_driver_render(chipset);

	igt_skip_on_f(fd < 0, "No render node found for chipset flags %#x\n",
		      (unsigned int)chipset);
	return fd;
}

int __drm_close_driver(int fd)
{
	if (fd < 0)
		return -1;
	return close(fd);
}

int drm_close_driver(int fd)
{
	/* Like upstream: refuse to close stdio and invalid descriptors. */
	if (fd <= 2 || fcntl(fd, F_GETFD) < 0) {
		igt_warn("Don't attempt to close standard/invalid file descriptor: %d\n", fd);
		return -1;
	}
	return __drm_close_driver(fd);
}
