// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * caps_mutants: an LD_PRELOAD library that makes a correct vcompute look
 * broken to DRM_IOCTL_VCOMPUTE_CAPS callers, one way at a time
 * (ONENODE_CAPS_MUTANT=name). igt-tests/harness/check_mutants runs
 * vcompute_caps under each and requires the subtests meant to catch that
 * bug to fail: proof that the IGT test can fail, without a broken kernel.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vcompute_drm.h"

#define CAPS_NR (DRM_COMMAND_BASE + DRM_VCOMPUTE_CAPS)

typedef int (*ioctl_fn)(int, unsigned long, ...);

static bool is_caps(unsigned long request)
{
	return _IOC_TYPE(request) == DRM_IOCTL_BASE && _IOC_NR(request) == CAPS_NR;
}

int ioctl(int fd, unsigned long request, ...)
{
	static ioctl_fn real;
	static unsigned long calls;
	const char *mutant = getenv("ONENODE_CAPS_MUTANT");
	struct drm_compute_caps *caps;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (!mutant || !is_caps(request) || !arg)
		return real(fd, request, arg);

	caps = arg;
	if (!strcmp(mutant, "accept-input")) {
		/* A kernel that no longer validates its input. */
		if (_IOC_SIZE(request) >= sizeof(*caps))
			memset(caps, 0, sizeof(*caps));
		return real(fd, request, arg);
	}
	if (!strcmp(mutant, "write-on-reject")) {
		/* A kernel that fills the report before validating. */
		ret = real(fd, request, arg);
		if (ret < 0 && errno == EINVAL && _IOC_SIZE(request) >= sizeof(*caps))
			caps->version = DRM_COMPUTE_CAPS_VERSION;
		return ret;
	}
	if (!strcmp(mutant, "overrun")) {
		/* A kernel that writes its whole structure whatever the size. */
		struct drm_compute_caps full = { 0 };

		if (_IOC_SIZE(request) >= sizeof(*caps))
			return real(fd, request, arg);
		ret = real(fd, DRM_IOCTL_VCOMPUTE_CAPS, &full);
		if (ret == 0)
			memcpy(arg, &full, sizeof(full));
		return ret;
	}

	ret = real(fd, request, arg);
	if (ret || _IOC_SIZE(request) < sizeof(*caps))
		return ret;
	if (!strcmp(mutant, "unknown-feature"))
		caps->features |= 1ull << 63;
	else if (!strcmp(mutant, "bar-exceeds-vram"))
		caps->vram_bar_size = caps->vram_size + 1;
	else if (!strcmp(mutant, "dirty-reserved"))
		caps->reserved[5] = 1;
	else if (!strcmp(mutant, "flaky") &&
		 __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % 97 == 0)
		caps->vram_size ^= 4096;	/* now and then, a torn report */
	return ret;
}
