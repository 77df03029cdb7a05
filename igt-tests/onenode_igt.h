/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * onenode_igt.h - project helpers for onenode's IGT tests. They build on
 * the upstream IGT API only, so they work with the internal shim and with a
 * real igt-gpu-tools alike; nothing here belongs in the shim.
 */
#ifndef ONENODE_IGT_H
#define ONENODE_IGT_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt_core.h"

/**
 * onenode_fd_is_driver - whether @fd is a DRM device of driver @name, as
 * DRM_IOCTL_VERSION reports it.
 */
static inline bool onenode_fd_is_driver(int fd, const char *name)
{
	drmVersionPtr version = drmGetVersion(fd);
	bool match;

	if (!version)
		return false;
	match = version->name && strcmp(version->name, name) == 0;
	drmFreeVersion(version);
	return match;
}

/**
 * __onenode_open_render - open the first render node (/dev/dri/renderD*,
 * lowest minor first) whose driver is @name.
 *
 * Returns: an O_RDWR | O_CLOEXEC fd, or -1 when no such node opens.
 */
static inline int __onenode_open_render(const char *name)
{
	int best_minor = INT_MAX, fd = -1;
	struct dirent *entry;
	DIR *dir = opendir(DRM_DIR_NAME);

	if (!dir)
		return -1;
	while ((entry = readdir(dir))) {
		char path[PATH_MAX];
		int minor, cand;

		if (sscanf(entry->d_name, "renderD%d", &minor) != 1 ||
		    minor >= best_minor)
			continue;
		snprintf(path, sizeof(path), "%s/%s", DRM_DIR_NAME, entry->d_name);
		cand = open(path, O_RDWR | O_CLOEXEC);
		if (cand < 0)
			continue;
		if (!onenode_fd_is_driver(cand, name)) {
			close(cand);
			continue;
		}
		if (fd >= 0)
			close(fd);
		fd = cand;
		best_minor = minor;
	}
	closedir(dir);
	return fd;
}

/**
 * onenode_open_render - like __onenode_open_render(), but skips the current
 * subtest or fixture when the node is absent.
 */
static inline int onenode_open_render(const char *name)
{
	int fd = __onenode_open_render(name);

	igt_require_f(fd >= 0, "no render node of driver \"%s\"\n", name);
	return fd;
}

#endif /* ONENODE_IGT_H */
