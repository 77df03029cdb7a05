// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode: render-node discovery (open by driver name, by path, or
 * identify a borrowed fd). See onenode.h for the contract of every function;
 * the compute operations are in onenode_compute.c, the ready-made queue in
 * onenode_queue.c, names and messages in onenode_names.c.
 */
#define _GNU_SOURCE
#include "onenode.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

const char *onenode_dri_dir(void)
{
	const char *dir = getenv(ONENODE_DRI_DIR_ENV);

	return dir && dir[0] ? dir : ONENODE_DEFAULT_DRI_DIR;
}

static void device_reset(struct onenode_device *dev)
{
	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
}

/*
 * Fill the identity of @dev from its fd: driver name and version through
 * DRM_IOCTL_VERSION (name and description, no date), rdev through
 * fstat(). The name is always NUL-terminated; a name that does not fit is
 * refused, so that a truncated name can never match a table entry.
 */
static int device_identify(struct onenode_device *dev)
{
	struct drm_version v;
	struct stat st;

	if (fstat(dev->fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	dev->rdev = st.st_rdev;

	memset(&v, 0, sizeof(v));
	v.name = dev->driver;
	v.name_len = sizeof(dev->driver) - 1;
	v.desc = dev->desc;
	v.desc_len = sizeof(dev->desc) - 1;
	if (drmIoctl(dev->fd, DRM_IOCTL_VERSION, &v))
		return errno == EINVAL ? -ENOTTY : -errno;
	if (v.name_len >= sizeof(dev->driver))
		return -ENAMETOOLONG;
	dev->driver[v.name_len] = '\0';
	dev->desc[v.desc_len < sizeof(dev->desc) ? v.desc_len : sizeof(dev->desc) - 1] = '\0';
	dev->version_major = v.version_major;
	dev->version_minor = v.version_minor;
	dev->version_patchlevel = v.version_patchlevel;
	return 0;
}

int onenode_open_path_flags(const char *path, int flags, struct onenode_device *dev)
{
	int ret;

	if (!dev)
		return -EINVAL;
	device_reset(dev);
	if (!path || !path[0] || (flags & ~(O_ACCMODE | O_NONBLOCK)) ||
	    (flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	if (strlen(path) >= sizeof(dev->path))
		return -ENAMETOOLONG;

	dev->fd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (dev->fd < 0) {
		ret = -errno;
		device_reset(dev);
		return ret;
	}
	dev->owns_fd = 1;
	strcpy(dev->path, path);
	ret = device_identify(dev);
	if (ret)
		onenode_close(dev);
	return ret;
}

int onenode_open_path(const char *path, struct onenode_device *dev)
{
	return onenode_open_path_flags(path, O_RDWR, dev);
}

int onenode_device_from_fd(int fd, struct onenode_device *dev)
{
	char link[64];
	ssize_t n;
	int ret;

	if (!dev)
		return -EINVAL;
	device_reset(dev);
	if (fd < 0)
		return -EBADF;
	dev->fd = fd;
	ret = device_identify(dev);
	if (ret) {
		device_reset(dev);
		return ret;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, dev->path, sizeof(dev->path) - 1);
	dev->path[n > 0 ? n : 0] = '\0';
	return 0;
}

void onenode_close(struct onenode_device *dev)
{
	if (!dev)
		return;
	if (dev->owns_fd && dev->fd >= 0)
		close(dev->fd);
	device_reset(dev);
}

/* "renderD<number>" with nothing after the number; -1 for anything else. */
static long render_minor(const char *name)
{
	const char *p = name + strlen("renderD");
	char *end;
	long n;

	if (strncmp(name, "renderD", strlen("renderD")) || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	n = strtol(p, &end, 10);
	if (errno || *end || n > INT_MAX)
		return -1;
	return n;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Sorted minors of every renderD<n> entry of @dri_dir; *@out is malloc'ed. */
static int scan_render_nodes(const char *dri_dir, long **out, size_t *count)
{
	size_t n = 0, cap = 0;
	long *minors = NULL;
	struct dirent *de;
	DIR *dir;

	dir = opendir(dri_dir);
	if (!dir)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	while ((de = readdir(dir))) {
		long m = render_minor(de->d_name);

		if (m < 0)
			continue;
		if (n == cap) {
			long *grown;

			cap = cap ? 2 * cap : 16;
			grown = realloc(minors, cap * sizeof(*minors));
			if (!grown) {
				free(minors);
				closedir(dir);
				return -ENOMEM;
			}
			minors = grown;
		}
		minors[n++] = m;
	}
	closedir(dir);
	if (n)
		qsort(minors, n, sizeof(*minors), cmp_long);
	*out = minors;
	*count = n;
	return 0;
}

int onenode_open_driver(const char *driver, const char *dri_dir,
			struct onenode_device *dev)
{
	long *minors = NULL;
	size_t count = 0, i;
	int ret;

	if (!dev)
		return -EINVAL;
	device_reset(dev);
	if (!driver || !driver[0])
		return -EINVAL;
	if (!dri_dir)
		dri_dir = onenode_dri_dir();

	ret = scan_render_nodes(dri_dir, &minors, &count);
	if (ret)
		return ret;
	ret = -ENOENT;
	for (i = 0; i < count; i++) {
		char path[ONENODE_PATH_MAX];
		int err;

		if (snprintf(path, sizeof(path), "%s/renderD%ld", dri_dir,
			     minors[i]) >= (int)sizeof(path)) {
			ret = -ENAMETOOLONG;
			break;
		}
		err = onenode_open_path(path, dev);
		if (err) {
			/*
			 * Not a DRM device (a stale or fake entry): no
			 * evidence of a matching node. Any other failure
			 * might hide one: report it if nothing matches.
			 */
			if (err != -ENOTTY && err != -ENAMETOOLONG)
				ret = err;
			continue;
		}
		if (!strcmp(dev->driver, driver)) {
			ret = 0;
			break;
		}
		onenode_close(dev);
	}
	free(minors);
	return ret;
}

/* The name of @dev's device ("vcompute.0", "0000:03:00.0"), from sysfs. */
static int device_name(const struct onenode_device *dev, char *name, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];
	const char *base;

	if (!dev->rdev)
		return -ENOENT;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major(dev->rdev),
		 minor(dev->rdev));
	if (!realpath(link, real))
		return -errno;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

int onenode_debugfs_path(const struct onenode_device *dev, const char *file,
			 char *out, size_t len)
{
	static const char root[] = "/sys/kernel/debug/dri";
	char name[128], want[160];
	struct dirent *e;
	int ret = -ENOENT;
	DIR *dir;

	if (!dev || !file || !out || !len)
		return -EINVAL;
	ret = device_name(dev, name, sizeof(name));
	if (ret)
		return ret;
	snprintf(want, sizeof(want), " dev=%s", name);
	dir = opendir(root);
	if (!dir) {
		/* debugfs may not be mounted yet. */
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		dir = opendir(root);
	}
	if (!dir)
		return -ENOENT;
	ret = -ENOENT;
	while (ret == -ENOENT && (e = readdir(dir))) {
		char path[PATH_MAX], line[256] = "";
		const char *p;
		FILE *n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/name", root, e->d_name);
		n = fopen(path, "re");
		if (!n)
			continue;
		if (!fgets(line, sizeof(line), n))
			line[0] = 0;
		fclose(n);
		/* "vcompute dev=NAME[ master=...][ unique=...]" */
		p = strstr(line, want);
		if (!p || (p[strlen(want)] != ' ' && p[strlen(want)] != '\n'))
			continue;
		if ((size_t)snprintf(out, len, "%s/%s/%s", root, e->d_name, file) >= len)
			ret = -ENAMETOOLONG;
		else
			ret = access(out, F_OK) ? -ENOENT : 0;
	}
	closedir(dir);
	return ret;
}
