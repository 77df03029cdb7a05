// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// onenode_compute_shim: a fake of the onenode kernel's DRM compute export
// uapi (uapi/drm/drm_compute.h) for RADV's amdgpu winsys, preloaded in front
// of Mesa's amdgpu drm-shim (libamdgpu_noop_drm_shim.so), which fakes the
// rest of amdgpu. It answers, on the shim's render node:
//
//   DRM_COMPUTE_OP_QUERY (DEVICE)   USERQ | P2P_EXPORT, 8 GiB VRAM, 256 MiB BAR
//   DRM_COMPUTE_OP_BO_CREATE        a shim GEM buffer, after the kernel's
//                                   argument checks (EINVAL on any violation)
//   DRM_COMPUTE_OP_P2P_REPORT       the buffer's export flag; VRAM and reason
//                                   NONE, or system memory and HOST_ONLY; no
//                                   importer ever attaches
//   PRIME handle <-> fd             a memfd of the buffer's size per buffer
//                                   (the shim has no PRIME)
//
// Nothing is placed, migrated or shared with a device: it lets RADV's
// userspace path run (uapi arguments, handle wrapping, export, the import
// mapping, the report's translation), not the kernel's decisions. Every
// compute call is logged on stderr ("onenode-compute-shim: ...").
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm.h>
#include <amdgpu_drm.h>

#include "drm_compute.h"

#define COMPUTE_BASE 0x40 /* DRM_AMDGPU_COMPUTE_BASE of the onenode amdgpu patch */
#define PAGE 4096u
#define MAX_BOS 256

struct fake_bo {
	uint32_t handle;
	uint32_t export_flags;
	uint64_t size;
	uint64_t placement;
	int dmabuf; /* the memfd standing for its one dma-buf file, -1 before export */
	ino_t dmabuf_ino;
};

static struct fake_bo bos[MAX_BOS];
static int (*next_ioctl)(int, unsigned long, ...);

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "onenode-compute-shim: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static struct fake_bo *find_bo(uint32_t handle)
{
	for (int i = 0; i < MAX_BOS; i++)
		if (bos[i].handle == handle && handle)
			return &bos[i];
	return NULL;
}

static struct fake_bo *free_slot(void)
{
	for (int i = 0; i < MAX_BOS; i++)
		if (!bos[i].handle)
			return &bos[i];
	return NULL;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static int query(struct drm_compute_query *q)
{
	struct drm_compute_query_device dev = {
		.features = DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_P2P_EXPORT,
		.vram_size = 8ull << 30,
		.vram_bar_size = 256ull << 20,
		.placements = DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM,
		.va_start = 1ull << 20,
		.va_end = 1ull << 47,
		.page_size = PAGE,
		.device_id = 1,
	};
	if (q->pad || q->reserved || (q->size && !q->data))
		return fail(EINVAL);
	if (q->query != DRM_COMPUTE_QUERY_DEVICE)
		return fail(q->query < DRM_COMPUTE_QUERY_COUNT ? EOPNOTSUPP : EINVAL);
	if (q->size) {
		uint32_t n = q->size < sizeof(dev) ? q->size : sizeof(dev);
		memcpy((void *)(uintptr_t)q->data, &dev, n);
		q->size = n;
	} else {
		q->size = sizeof(dev);
	}
	say("QUERY DEVICE: features USERQ|P2P_EXPORT");
	return 0;
}

static int bo_create(int fd, struct drm_compute_bo_create *a)
{
	const uint32_t known = DRM_COMPUTE_BO_EXPORT_PREFER_P2P | DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P |
			       DRM_COMPUTE_BO_EXPORT_HOST_ONLY;
	bool host = a->flags == DRM_COMPUTE_BO_EXPORT_HOST_ONLY;
	struct fake_bo *bo = free_slot();

	say("BO_CREATE size %llu placement %s flags %s", (unsigned long long)a->size,
	    a->placement == DRM_COMPUTE_PLACEMENT_VRAM     ? "VRAM"
	    : a->placement == DRM_COMPUTE_PLACEMENT_SYSTEM ? "SYSTEM"
							   : "invalid",
	    a->flags == DRM_COMPUTE_BO_EXPORT_PREFER_P2P    ? "PREFER_P2P"
	    : a->flags == DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P ? "REQUIRE_P2P"
	    : host                                          ? "HOST_ONLY"
							    : "none or several");
	/* The kernel's checks (struct drm_compute_bo_create). */
	if (!a->size || a->size % PAGE || a->handle || (a->flags & ~known) || __builtin_popcount(a->flags) > 1 ||
	    (a->placement != DRM_COMPUTE_PLACEMENT_VRAM && a->placement != DRM_COMPUTE_PLACEMENT_SYSTEM) ||
	    (a->flags && host != (a->placement == DRM_COMPUTE_PLACEMENT_SYSTEM))) {
		say("BO_CREATE: EINVAL");
		return fail(EINVAL);
	}
	if (!bo)
		return fail(ENOMEM);

	union drm_amdgpu_gem_create gc = {0};
	gc.in.bo_size = a->size;
	gc.in.alignment = PAGE;
	gc.in.domains = host ? AMDGPU_GEM_DOMAIN_GTT : AMDGPU_GEM_DOMAIN_VRAM;
	if (next_ioctl(fd, DRM_IOCTL_AMDGPU_GEM_CREATE, &gc))
		return -1;
	*bo = (struct fake_bo){
		.handle = gc.out.handle,
		.export_flags = a->flags,
		.size = a->size,
		.placement = a->placement,
		.dmabuf = -1,
	};
	a->handle = gc.out.handle;
	return 0;
}

static int p2p_report(struct drm_compute_p2p_report *r)
{
	struct fake_bo *bo = find_bo(r->handle);

	if (r->flags || r->export_flags || r->placement || r->reason || r->moves || r->decided_by[0] ||
	    r->refused || r->refused_reason || r->kernel_maps || r->invalidations || r->reserved)
		return fail(EINVAL);
	if (!bo)
		return fail(EINVAL); /* unknown here, or made without an export flag */
	r->count = 0;
	r->export_flags = bo->export_flags;
	r->placement = bo->placement;
	r->reason = bo->export_flags == DRM_COMPUTE_BO_EXPORT_HOST_ONLY ? DRM_COMPUTE_P2P_REASON_HOST_ONLY
									: DRM_COMPUTE_P2P_REASON_NONE;
	say("P2P_REPORT handle %u: %s, no importer", bo->handle,
	    bo->placement == DRM_COMPUTE_PLACEMENT_VRAM ? "VRAM" : "system memory");
	return 0;
}

static int prime_to_fd(struct drm_prime_handle *p)
{
	struct fake_bo *bo = find_bo(p->handle);
	struct stat st;
	int fd;

	if (!bo)
		return fail(ENOSYS); /* the shim has no PRIME for its own buffers */
	/* One dma-buf per buffer, a new descriptor of it per export. */
	if (bo->dmabuf < 0) {
		fd = memfd_create("onenode-fake-dmabuf", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)bo->size) || fstat(fd, &st)) {
			if (fd >= 0)
				close(fd);
			return fail(ENOMEM);
		}
		bo->dmabuf = fd;
		bo->dmabuf_ino = st.st_ino;
	}
	fd = fcntl(bo->dmabuf, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	p->fd = fd;
	say("PRIME_HANDLE_TO_FD handle %u", bo->handle);
	return 0;
}

static int prime_to_handle(struct drm_prime_handle *p)
{
	struct stat st;

	if (fstat(p->fd, &st))
		return fail(EBADF);
	for (int i = 0; i < MAX_BOS; i++) {
		if (bos[i].handle && bos[i].dmabuf_ino == st.st_ino) {
			p->handle = bos[i].handle;
			say("PRIME_FD_TO_HANDLE -> handle %u", p->handle);
			return 0;
		}
	}
	return fail(EINVAL);
}

__attribute__((visibility("default"))) int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (!next_ioctl)
		next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");

	switch (request) {
	case DRM_COMPUTE_IOCTL_QUERY(COMPUTE_BASE):
		return query(arg);
	case DRM_COMPUTE_IOCTL_BO_CREATE(COMPUTE_BASE):
		return bo_create(fd, arg);
	case DRM_COMPUTE_IOCTL_P2P_REPORT(COMPUTE_BASE):
		return p2p_report(arg);
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
		return prime_to_fd(arg);
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
		return prime_to_handle(arg);
	case DRM_IOCTL_GEM_CLOSE: {
		struct fake_bo *bo = find_bo(((struct drm_gem_close *)arg)->handle);
		if (bo) {
			if (bo->dmabuf >= 0)
				close(bo->dmabuf);
			memset(bo, 0, sizeof(*bo));
		}
		break;
	}
	default:
		break;
	}
	return next_ioctl(fd, request, arg);
}
