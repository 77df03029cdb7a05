// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode without a device: feature naming, the CAPS ioctl table,
 * argument checking, error messages, and discovery in a fake /dev/dri made
 * of regular files, links and /dev/null, where no node may ever match.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onenode.h"
#include "vcompute_drm.h"
#include "tap.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

static void test_feature_names(void)
{
	char buf[64];
	int n;

	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_USERQ), "userq", "userq bit named");
	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_SVM), "svm", "svm bit named");
	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_P2P_EXPORT), "p2p-export",
		  "p2p-export bit named");
	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_CRIU), "criu", "criu bit named");
	CHECK(onenode_feature_name(0) == NULL, "no name for 0");
	CHECK(onenode_feature_name(DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM) == NULL,
	      "no name for two bits");
	CHECK(onenode_feature_name(1ULL << 63) == NULL, "no name for an unknown bit");

	/* Every known bit has a distinct name: a new bit needs a name too. */
	for (int bit = 0; bit < 64; bit++) {
		uint64_t m = 1ULL << bit;

		if (!(DRM_COMPUTE_FEATURES_KNOWN & m))
			continue;
		CHECK(onenode_feature_name(m) != NULL, "known bit %d has a name", bit);
	}

	n = onenode_features_string(0, buf, sizeof(buf));
	CHECK_STR(buf, "none", "empty set prints none");
	CHECK_EQ(n, 4, "length of none");

	n = onenode_features_string(DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_CRIU,
				    buf, sizeof(buf));
	CHECK_STR(buf, "userq,criu", "two bits in bit order");
	CHECK_EQ(n, 10, "length of userq,criu");

	n = onenode_features_string(DRM_COMPUTE_FEATURES_KNOWN | (1ULL << 40) | (1ULL << 63),
				    buf, sizeof(buf));
	CHECK_STR(buf, "userq,svm,p2p-export,criu,bit40,bit63", "unknown bits as bitN");
	CHECK_EQ(n, (int)strlen("userq,svm,p2p-export,criu,bit40,bit63"), "full length returned");

	n = onenode_features_string(DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM, buf, 4);
	CHECK_STR(buf, "use", "truncated output is terminated");
	CHECK_EQ(n, 9, "truncation still returns the full length");

	n = onenode_features_string(DRM_COMPUTE_FEATURE_SVM, NULL, 0);
	CHECK_EQ(n, 3, "NULL buffer of length 0 measures");
	CHECK_EQ(onenode_features_string(1, NULL, 8), -EINVAL, "NULL buffer with a length");
}

static void test_caps_ioctl_table(void)
{
	unsigned long req = 0;

	CHECK_EQ(onenode_caps_ioctl("vcompute", &req), 0, "vcompute has a CAPS ioctl");
	CHECK(req == DRM_IOCTL_VCOMPUTE_CAPS, "vcompute's is DRM_IOCTL_VCOMPUTE_CAPS");
	CHECK_EQ(onenode_caps_ioctl("amdgpu", &req), 0, "amdgpu has a CAPS ioctl");
	CHECK(req == DRM_IOWR(DRM_COMMAND_BASE + 0x1B, struct drm_compute_caps),
	      "amdgpu's is DRM_COMMAND_BASE + 0x1B");
	CHECK_EQ(onenode_caps_ioctl("vgem", &req), -EOPNOTSUPP, "vgem has none");
	CHECK_EQ(onenode_caps_ioctl("vcomput", &req), -EOPNOTSUPP, "prefix is no match");
	CHECK_EQ(onenode_caps_ioctl(NULL, &req), -EINVAL, "NULL driver");
	CHECK_EQ(onenode_caps_ioctl("vcompute", NULL), -EINVAL, "NULL request");
}

static void test_caps_fields(void)
{
	struct drm_compute_caps caps = {
		.flags = 0, .version = 1, .features = 5, .vram_size = 1ULL << 28,
		.vram_bar_size = 1ULL << 20, .max_queues = 7, .num_priorities = 3,
	};
	static const char *const names[] = {
		"flags", "version", "features", "vram_size", "vram_bar_size",
		"max_queues", "num_priorities",
	};
	const uint64_t values[] = { 0, 1, 5, 1ULL << 28, 1ULL << 20, 7, 3 };
	struct onenode_caps_field f[ONENODE_CAPS_NFIELDS + 1];

	CHECK_EQ(onenode_caps_fields(&caps, f, ONENODE_CAPS_NFIELDS), ONENODE_CAPS_NFIELDS,
		 "all fields listed");
	for (int i = 0; i < ONENODE_CAPS_NFIELDS; i++) {
		CHECK_STR(f[i].name, names[i], "field %d name", i);
		CHECK(f[i].value == values[i], "field %s value", names[i]);
		CHECK_EQ(f[i].is_bytes, i == 3 || i == 4, "field %s unit", names[i]);
		CHECK(f[i].offset + f[i].size <= offsetof(struct drm_compute_caps, reserved) &&
		      (f[i].size == 4 || f[i].size == 8), "field %s offset and size", names[i]);
	}
	/* Offsets and sizes locate each value: reading back gives the value. */
	for (int i = 0; i < ONENODE_CAPS_NFIELDS; i++) {
		const unsigned char *p = (const unsigned char *)&caps + f[i].offset;
		uint64_t v = 0;

		if (f[i].size == 4) {
			uint32_t v32;

			memcpy(&v32, p, 4);
			v = v32;
		} else {
			memcpy(&v, p, 8);
		}
		CHECK(v == f[i].value, "field %s found at its offset", names[i]);
	}
	CHECK_EQ(onenode_caps_fields(&caps, f, ONENODE_CAPS_NFIELDS - 1), -EINVAL,
		 "too small an array");
	CHECK_EQ(onenode_caps_fields(NULL, f, ONENODE_CAPS_NFIELDS), -EINVAL, "NULL caps");
	CHECK_EQ(onenode_caps_fields(&caps, NULL, ONENODE_CAPS_NFIELDS), -EINVAL, "NULL out");
}

static void test_strerror(void)
{
	CHECK_STR(onenode_strerror(0), "success", "0 is success");
	CHECK_STR(onenode_strerror(-ENOENT), "no such DRM render node", "-ENOENT");
	CHECK_STR(onenode_strerror(ENOENT), onenode_strerror(-ENOENT), "sign does not matter");
	CHECK_STR(onenode_strerror(-ENOTTY), "not a DRM device", "-ENOTTY");
	CHECK(strstr(onenode_strerror(-EOPNOTSUPP), "CAPS ioctl") != NULL, "-EOPNOTSUPP");
	CHECK_STR(onenode_strerror(-EACCES), "Permission denied", "others from libc");
	CHECK_STR(onenode_strerror(-99999), "unknown error", "out of range");
	CHECK_STR(onenode_strerror(INT_MIN), "unknown error", "INT_MIN");
}

static void test_open_path(const char *tmp)
{
	struct onenode_device dev;
	char path[PATH_MAX], longpath[ONENODE_PATH_MAX + 16];
	int fds = count_fds();

	dev.fd = 1234;
	CHECK_EQ(onenode_open_path(NULL, &dev), -EINVAL, "open_path(NULL)");
	CHECK_EQ(dev.fd, -1, "fd reset on failure");
	CHECK_EQ(onenode_open_path("", &dev), -EINVAL, "open_path(\"\")");
	CHECK_EQ(onenode_open_path("/dev/null", NULL), -EINVAL, "open_path NULL dev");
	CHECK_EQ(onenode_open_path_flags("/dev/null", O_RDWR | O_CREAT, &dev), -EINVAL,
		 "open flags beyond access mode and O_NONBLOCK");
	CHECK_EQ(onenode_open_path_flags("/dev/null", O_ACCMODE, &dev), -EINVAL,
		 "invalid access mode");
	CHECK_EQ(onenode_open_path_flags("/dev/null", O_RDONLY | O_NONBLOCK, &dev), -ENOTTY,
		 "read-only non-blocking open reaches the DRM check");

	snprintf(path, sizeof(path), "%s/missing", tmp);
	CHECK_EQ(onenode_open_path(path, &dev), -ENOENT, "missing path");
	snprintf(path, sizeof(path), "%s/renderD128", tmp);
	CHECK_EQ(onenode_open_path(path, &dev), -ENOTTY, "regular file is not DRM");
	CHECK_EQ(onenode_open_path("/dev/null", &dev), -ENOTTY, "/dev/null is not DRM");
	CHECK_EQ(dev.fd, -1, "fd reset after -ENOTTY");

	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK_EQ(onenode_open_path(longpath, &dev), -ENAMETOOLONG, "path too long");

	CHECK_EQ(count_fds(), fds, "no fd leaked by failed opens");
	onenode_close(&dev);
	onenode_close(NULL);
}

static void test_from_fd(void)
{
	struct onenode_device dev;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	CHECK_EQ(onenode_device_from_fd(-1, &dev), -EBADF, "from_fd(-1)");
	CHECK_EQ(onenode_device_from_fd(fd, NULL), -EINVAL, "from_fd NULL dev");
	CHECK_EQ(onenode_device_from_fd(fd, &dev), -ENOTTY, "from_fd(/dev/null)");
	CHECK(fcntl(fd, F_GETFD) >= 0, "borrowed fd left open on failure");

	/* A hand-made borrowed device: close must not close the fd. */
	memset(&dev, 0, sizeof(dev));
	dev.fd = fd;
	dev.owns_fd = 0;
	onenode_close(&dev);
	CHECK(fcntl(fd, F_GETFD) >= 0, "close does not close a borrowed fd");
	CHECK_EQ(dev.fd, -1, "close resets the device");
	close(fd);
}

static void test_query_caps_args(void)
{
	struct onenode_device dev;
	struct drm_compute_caps caps;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	memset(&dev, 0, sizeof(dev));
	dev.fd = -1;
	strcpy(dev.driver, "vcompute");
	CHECK_EQ(onenode_query_caps(NULL, &caps), -EINVAL, "query_caps NULL dev");
	CHECK_EQ(onenode_query_caps(&dev, NULL), -EINVAL, "query_caps NULL caps");
	CHECK_EQ(onenode_query_caps(&dev, &caps), -EINVAL, "query_caps closed dev");

	dev.fd = fd;
	CHECK_EQ(onenode_query_caps(&dev, &caps), -ENOTTY, "CAPS ioctl on /dev/null fails");
	strcpy(dev.driver, "vgem");
	CHECK_EQ(onenode_query_caps(&dev, &caps), -EOPNOTSUPP, "driver without CAPS ioctl");
	close(fd);
}

static void test_open_driver(const char *tmp)
{
	struct onenode_device dev;
	char path[PATH_MAX], empty[PATH_MAX];
	int fds = count_fds();

	CHECK_EQ(onenode_open_driver(NULL, tmp, &dev), -EINVAL, "NULL driver");
	CHECK_EQ(onenode_open_driver("", tmp, &dev), -EINVAL, "empty driver");
	CHECK_EQ(onenode_open_driver("vcompute", tmp, NULL), -EINVAL, "NULL dev");

	snprintf(path, sizeof(path), "%s/nonexistent", tmp);
	CHECK_EQ(onenode_open_driver("vcompute", path, &dev), -ENOENT, "missing directory");
	snprintf(path, sizeof(path), "%s/renderD128", tmp);
	CHECK_EQ(onenode_open_driver("vcompute", path, &dev), -ENOENT, "a file as directory");

	snprintf(empty, sizeof(empty), "%s/empty", tmp);
	CHECK(mkdir(empty, 0755) == 0, "mkdir %s", empty);
	CHECK_EQ(onenode_open_driver("vcompute", empty, &dev), -ENOENT, "empty directory");

	/* tmp holds renderD128 (file), renderD129 -> /dev/null, card0, renderDx. */
	CHECK_EQ(onenode_open_driver("vcompute", tmp, &dev), -ENOENT,
		 "only fake nodes: nothing matches");
	CHECK_EQ(dev.fd, -1, "fd reset when nothing matches");

	/* The environment variable stands in for /dev/dri. */
	CHECK(setenv(ONENODE_DRI_DIR_ENV, empty, 1) == 0, "setenv");
	CHECK_STR(onenode_dri_dir(), empty, "dri dir from the environment");
	CHECK_EQ(onenode_open_driver("vcompute", NULL, &dev), -ENOENT,
		 "NULL dri_dir uses the environment");
	CHECK(setenv(ONENODE_DRI_DIR_ENV, "", 1) == 0, "setenv empty");
	CHECK_STR(onenode_dri_dir(), ONENODE_DEFAULT_DRI_DIR, "empty variable means default");
	unsetenv(ONENODE_DRI_DIR_ENV);
	CHECK_STR(onenode_dri_dir(), ONENODE_DEFAULT_DRI_DIR, "default /dev/dri");

	/* A node that cannot be opened may hide a match: its error wins. */
	snprintf(path, sizeof(path), "%s/renderD130", tmp);
	CHECK(symlink("renderD130", path) == 0, "self-referencing link");
	CHECK_EQ(onenode_open_driver("vcompute", tmp, &dev), -ELOOP,
		 "unopenable node reported instead of -ENOENT");
	unlink(path);

	CHECK_EQ(count_fds(), fds, "no fd leaked by discovery");
}

int main(void)
{
	char tmp[] = "/tmp/onenode-test-XXXXXX", path[PATH_MAX];
	int fd;

	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s/renderD128", tmp);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/renderD129", tmp);
	if (symlink("/dev/null", path))
		perror("symlink");
	snprintf(path, sizeof(path), "%s/card0", tmp);
	if (symlink("/dev/null", path))
		perror("symlink");
	snprintf(path, sizeof(path), "%s/renderDx", tmp);
	if (symlink("/nonexistent", path))
		perror("symlink");

	test_feature_names();
	test_caps_ioctl_table();
	test_caps_fields();
	test_strerror();
	test_open_path(tmp);
	test_from_fd();
	test_query_caps_args();
	test_open_driver(tmp);

	/* Clean up the fake directory. */
	static const char *const made[] = {
		"renderD128", "renderD129", "card0", "renderDx", "empty",
	};
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, made[i]);
		if (remove(path))
			perror(path);
	}
	if (rmdir(tmp))
		perror(tmp);
	return tap_done();
}
