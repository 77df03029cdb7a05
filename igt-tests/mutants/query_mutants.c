// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * query_mutants: an LD_PRELOAD library that makes a correct vcompute look
 * broken to DRM_COMPUTE_OP_QUERY callers, one way at a time
 * (ONENODE_QUERY_MUTANT=name). igt-tests/harness/check_mutants runs
 * compute_query under each and requires the subtests meant to catch that
 * bug to fail: proof that the IGT test can fail, without a broken kernel.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vcompute_drm.h"

#define QUERY_NR (DRM_COMMAND_BASE + DRM_VCOMPUTE_COMPUTE_BASE + DRM_COMPUTE_OP_QUERY)

typedef int (*ioctl_fn)(int, unsigned long, ...);

static ioctl_fn real;

static bool is_query(unsigned long request)
{
	return _IOC_TYPE(request) == DRM_IOCTL_BASE && _IOC_NR(request) == QUERY_NR &&
	       _IOC_SIZE(request) >= sizeof(struct drm_compute_query);
}

static size_t report_size(uint32_t id)
{
	switch (id) {
	case DRM_COMPUTE_QUERY_DEVICE:
		return sizeof(struct drm_compute_query_device);
	case DRM_COMPUTE_QUERY_USERQ:
		return sizeof(struct drm_compute_query_userq);
	}
	return 0;
}

/* The real report of @id, whole; 0 or -1 with errno. */
static int full_report(int fd, unsigned long request, uint32_t id, void *out)
{
	struct drm_compute_query q = {
		.query = id,
		.size = (uint32_t)report_size(id),
		.data = (uintptr_t)out,
	};

	return real(fd, request, &q);
}

/* Changes what a successful query wrote, per mutant. */
static void corrupt_report(const char *mutant, const struct drm_compute_query *q)
{
	static unsigned long calls;
	union {
		struct drm_compute_query_device d;
		struct drm_compute_query_userq u;
	} r;
	size_t size = report_size(q->query);

	if (!q->data || q->size < size)
		return;
	memcpy(&r, (void *)(uintptr_t)q->data, size);
	if (q->query == DRM_COMPUTE_QUERY_DEVICE) {
		if (!strcmp(mutant, "unknown-feature"))
			r.d.features |= 1ull << 63;
		else if (!strcmp(mutant, "bar-exceeds-vram"))
			r.d.vram_bar_size = r.d.vram_size + 1;
		else if (!strcmp(mutant, "dirty-pad"))
			r.d.pad = 1;
		else if (!strcmp(mutant, "flaky") &&
			 __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % 97 == 0)
			r.d.vram_size ^= 4096;	/* now and then, a torn report */
	} else if (!strcmp(mutant, "bad-priorities")) {
		r.u.priority_privileged = r.u.num_priorities + 1;
	}
	memcpy((void *)(uintptr_t)q->data, &r, size);
}

int ioctl(int fd, unsigned long request, ...)
{
	const char *mutant = getenv("ONENODE_QUERY_MUTANT");
	struct drm_compute_query *q;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (!mutant || !is_query(request) || !arg)
		return real(fd, request, arg);
	q = arg;

	if (!strcmp(mutant, "accept-input")) {
		/* A kernel that no longer validates its input. */
		q->pad = 0;
		q->reserved = 0;
		if (!report_size(q->query))
			q->query = DRM_COMPUTE_QUERY_DEVICE;
		return real(fd, request, arg);
	}
	if (!strcmp(mutant, "write-on-reject")) {
		/* A kernel that sets size before it validates. */
		ret = real(fd, request, arg);
		if (ret < 0 && errno == EINVAL)
			q->size = 4;
		return ret;
	}
	if (!strcmp(mutant, "efault-ignored")) {
		/* A kernel that ignores a failed copy to userspace. */
		ret = real(fd, request, arg);
		if (ret < 0 && errno == EFAULT) {
			q->size = (uint32_t)report_size(q->query);
			errno = 0;
			return 0;
		}
		return ret;
	}
	if (!strcmp(mutant, "overrun") || !strcmp(mutant, "size-zero-writes")) {
		/*
		 * overrun: a kernel that writes its whole report into a shorter
		 * buffer; size-zero-writes: one that writes it even when only
		 * the size was asked for.
		 */
		unsigned char full[sizeof(struct drm_compute_query_userq)];
		size_t size = report_size(q->query);
		uint32_t asked = q->size;
		bool zero = !strcmp(mutant, "size-zero-writes");

		ret = real(fd, request, arg);
		if (ret || !size || q->data < 4096)
			return ret;
		if (zero ? asked != 0 : (asked == 0 || asked >= size))
			return ret;
		if (full_report(fd, request, q->query, full) == 0)
			memcpy((void *)(uintptr_t)q->data, full, size);
		return ret;
	}
	if (!strcmp(mutant, "long-size-echo")) {
		/* A kernel that hands a longer size back unchanged. */
		uint32_t asked = q->size;

		ret = real(fd, request, arg);
		if (ret == 0 && asked > q->size)
			q->size = asked;
		return ret;
	}

	ret = real(fd, request, arg);
	if (ret == 0)
		corrupt_report(mutant, q);
	return ret;
}
