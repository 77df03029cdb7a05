// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode against the real vcompute render node (suite 'vm'): discovery
 * by driver name, by path and by fd agree; the CAPS query succeeds and obeys
 * the uapi rules; the kernel refuses non-zero input fields; a DRM node of a
 * driver without a CAPS ioctl (vgem, when present) is reported as such.
 * Skips (TAP "1..0 # SKIP") when no vcompute node exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "onenode.h"
#include "vcompute_drm.h"
#include "tap.h"

/* The raw ioctl with a chosen input, to see what the kernel refuses. */
static int raw_caps(int fd, struct drm_compute_caps *caps)
{
	return drmIoctl(fd, DRM_IOCTL_VCOMPUTE_CAPS, caps) ? -errno : 0;
}

static void test_vgem(void)
{
	struct onenode_device dev;
	struct drm_compute_caps caps;
	int ret = onenode_open_driver("vgem", NULL, &dev);

	if (ret == -ENOENT) {
		printf("# no vgem node: driver-without-CAPS check not run\n");
		return;
	}
	CHECK_EQ(ret, 0, "open vgem by name: %s", onenode_strerror(ret));
	if (ret)
		return;
	CHECK_STR(dev.driver, "vgem", "vgem driver name");
	CHECK_EQ(onenode_query_caps(&dev, &caps), -EOPNOTSUPP, "vgem has no CAPS ioctl");
	onenode_close(&dev);
}

int main(void)
{
	struct onenode_device a, b, c;
	struct drm_compute_caps ca, cb, raw;
	struct stat st;
	int ret;

	ret = onenode_open_driver("vcompute", NULL, &a);
	if (ret == -ENOENT) {
		printf("1..0 # SKIP no vcompute render node in %s\n", onenode_dri_dir());
		return 0;
	}
	CHECK_EQ(ret, 0, "open vcompute by driver name: %s", onenode_strerror(ret));
	if (ret)
		return tap_done();

	CHECK_STR(a.driver, "vcompute", "driver name");
	CHECK(strncmp(a.path, onenode_dri_dir(), strlen(onenode_dri_dir())) == 0 &&
	      strstr(a.path, "/renderD") != NULL, "path %s is a render node", a.path);
	CHECK(a.owns_fd == 1 && fcntl(a.fd, F_GETFD) == FD_CLOEXEC, "owned fd with CLOEXEC");
	CHECK(stat(a.path, &st) == 0 && st.st_rdev == a.rdev, "rdev matches the path");

	ret = onenode_query_caps(&a, &ca);
	CHECK_EQ(ret, 0, "query caps: %s", onenode_strerror(ret));
	CHECK_EQ(ca.version, DRM_COMPUTE_CAPS_VERSION, "caps layout version");
	CHECK_EQ(ca.flags, 0, "flags come back zero");
	CHECK((ca.features & ~(uint64_t)DRM_COMPUTE_FEATURES_KNOWN) == 0,
	      "only known feature bits (0x%llx)", (unsigned long long)ca.features);
	CHECK(ca.vram_bar_size <= ca.vram_size, "BAR no larger than VRAM");
	CHECK(ca.vram_size > 0, "vcompute reports VRAM (%llu bytes)",
	      (unsigned long long)ca.vram_size);
	CHECK(!(ca.features & DRM_COMPUTE_FEATURE_USERQ) ? ca.num_priorities == 0 : 1,
	      "no priorities without user queues");
	{
		int zero = 1;

		for (size_t i = 0; i < sizeof(ca.reserved) / sizeof(ca.reserved[0]); i++)
			zero &= ca.reserved[i] == 0;
		CHECK(zero, "reserved fields come back zero");
	}

	/* The same node by path and by borrowed fd. */
	ret = onenode_open_path(a.path, &b);
	CHECK_EQ(ret, 0, "open by path: %s", onenode_strerror(ret));
	CHECK(ret == 0 && !strcmp(b.driver, a.driver) && b.rdev == a.rdev &&
	      b.version_major == a.version_major && b.version_minor == a.version_minor,
	      "same identity by path");
	CHECK(ret == 0 && onenode_query_caps(&b, &cb) == 0 && !memcmp(&ca, &cb, sizeof(ca)),
	      "same caps through a second file");

	onenode_close(&b);
	ret = onenode_open_path_flags(a.path, O_RDONLY | O_NONBLOCK, &b);
	CHECK_EQ(ret, 0, "open read-only, non-blocking: %s", onenode_strerror(ret));
	CHECK(ret == 0 && (fcntl(b.fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) ==
	      (O_RDONLY | O_NONBLOCK), "open flags applied");
	CHECK(ret == 0 && onenode_query_caps(&b, &cb) == 0 && !memcmp(&ca, &cb, sizeof(ca)),
	      "caps through a read-only file");

	ret = onenode_device_from_fd(a.fd, &c);
	CHECK_EQ(ret, 0, "identify from fd: %s", onenode_strerror(ret));
	CHECK(ret == 0 && !c.owns_fd && !strcmp(c.path, a.path) && c.rdev == a.rdev,
	      "borrowed fd: same path and rdev, not owned");
	onenode_close(&c);
	CHECK(fcntl(a.fd, F_GETFD) >= 0, "closing the borrowed device kept the fd");

	/* The kernel's input rules, which the library relies on. */
	memset(&raw, 0, sizeof(raw));
	raw.flags = 1;
	CHECK_EQ(raw_caps(a.fd, &raw), -EINVAL, "non-zero flags refused");
	memset(&raw, 0, sizeof(raw));
	raw.reserved[5] = 1;
	CHECK_EQ(raw_caps(a.fd, &raw), -EINVAL, "non-zero reserved refused");
	memset(&raw, 0, sizeof(raw));
	raw.version = 7;
	CHECK_EQ(raw_caps(a.fd, &raw), -EINVAL, "non-zero out field on input refused");

	onenode_close(&b);
	onenode_close(&a);
	test_vgem();
	return tap_done();
}
