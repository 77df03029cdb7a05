// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// onenode_compute_shim: the onenode kernel's DRM compute export uapi
// (uapi/drm/drm_compute.h) for RADV's amdgpu winsys, preloaded in front of
// Mesa's amdgpu drm-shim (libamdgpu_noop_drm_shim.so), which fakes the rest
// of amdgpu. Two modes.
//
// Fake (the default): it answers, on the shim's render node,
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
// mapping, the report's translation), not the kernel's decisions.
//
// Kernel (ONENODE_COMPUTE_SHIM_NODE names a render node of a driver with the
// uapi, e.g. vcompute in the test VM, or "auto" for the first vcompute node):
// the same calls go to that node, so the buffer RADV allocates is the
// kernel's. BO_CREATE makes the kernel's buffer and a drm-shim GEM buffer of
// the same size that stands for it in the amdgpu calls the shim fakes (VA
// binds, metadata); QUERY and P2P_REPORT are the kernel's answers; PRIME
// exports the kernel's dma-buf (a NIC can import it) and an import of it
// resolves back to the stand-in; a CPU mapping of the stand-in maps the
// kernel's buffer. The kernel's argument checks and decisions apply, and its
// placement report is what RADV translates. Only the DRM compute calls and
// the buffers' memory are real: the device is still drm-shim's fake amdgpu,
// and no command submission reaches any kernel.
//
// Every compute call is logged on stderr ("onenode-compute-shim: ...").
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <drm.h>
#include <amdgpu_drm.h>

#include "drm_compute.h"

#define COMPUTE_BASE 0x40 /* DRM_AMDGPU_COMPUTE_BASE of the onenode amdgpu patch */
#define VCOMPUTE_BASE 0x00 /* DRM_VCOMPUTE_COMPUTE_BASE (uapi/drm/vcompute_drm.h) */
#define PAGE 4096u
#define MAX_BOS 256

struct fake_bo {
	uint32_t handle;
	uint32_t export_flags;
	uint64_t size;
	uint64_t placement;
	int dmabuf; /* the memfd standing for its one dma-buf file, -1 before export */
	ino_t dmabuf_ino;
	/* Kernel mode: the kernel's handle, and where the shim and the kernel map it. */
	uint32_t kernel_handle;
	int shim_map_fd; /* the fd whose GEM_MMAP gave shim_offset */
	uint64_t shim_offset;
	uint64_t kernel_offset;
};

static struct fake_bo bos[MAX_BOS];
static int (*next_ioctl)(int, unsigned long, ...);
static void *(*next_mmap)(void *, size_t, int, int, int, off_t);

/* Kernel mode: the real render node; -1 in fake mode. */
static int kernel_fd = -1;

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

/* The kernel's node is reached by system calls, past every preloaded
 * wrapper: drm-shim claims the path and the ioctls of its own render node.
 */
static int kioctl(unsigned long request, void *arg)
{
	long r;

	do {
		r = syscall(SYS_ioctl, kernel_fd, request, arg);
	} while (r == -1 && (errno == EINTR || errno == EAGAIN));
	return (int)r;
}

static struct fake_bo *find_kernel_bo(uint32_t kernel_handle)
{
	for (int i = 0; i < MAX_BOS; i++)
		if (bos[i].handle && bos[i].kernel_handle == kernel_handle)
			return &bos[i];
	return NULL;
}

static int open_node(const char *path, char *driver, size_t len)
{
	struct drm_version v = {.name = driver, .name_len = len - 1};
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(driver, 0, len);
	if (syscall(SYS_ioctl, fd, DRM_IOCTL_VERSION, &v)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ONENODE_COMPUTE_SHIM_NODE: a path, or "auto" for the first vcompute node. */
__attribute__((constructor)) static void kernel_mode_init(void)
{
	const char *want = getenv("ONENODE_COMPUTE_SHIM_NODE");
	char path[64], driver[64];

	if (!want || !*want)
		return;
	if (strcmp(want, "auto")) {
		kernel_fd = open_node(want, driver, sizeof(driver));
		snprintf(path, sizeof(path), "%s", want);
	} else {
		for (int minor = 128; minor < 192 && kernel_fd < 0; minor++) {
			snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
			kernel_fd = open_node(path, driver, sizeof(driver));
			if (kernel_fd >= 0 && strcmp(driver, "vcompute")) {
				close(kernel_fd);
				kernel_fd = -1;
			}
		}
	}
	if (kernel_fd < 0) {
		say("ONENODE_COMPUTE_SHIM_NODE=%s: no such render node with the uapi; exiting", want);
		_exit(2);
	}
	say("kernel mode: the DRM compute uapi and NIC buffers of %s (driver %s)", path, driver);
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
	if (kernel_fd >= 0) {
		int r = kioctl(DRM_COMPUTE_IOCTL_QUERY(VCOMPUTE_BASE), q);
		int err = errno;

		say("QUERY %u: %s (the kernel's answer)", q->query, r ? strerror(err) : "ok");
		return r ? fail(err) : 0;
	}
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

/* Kernel mode: the kernel's buffer, and a drm-shim buffer standing for it. */
static int kernel_bo_create(int fd, struct drm_compute_bo_create *a, struct fake_bo *bo)
{
	struct drm_compute_bo_create k = *a;
	struct drm_compute_bo_mmap m = {0};
	struct drm_gem_close c = {0};
	union drm_amdgpu_gem_create gc = {0};

	if (!bo)
		return fail(ENOMEM);
	if (kioctl(DRM_COMPUTE_IOCTL_BO_CREATE(VCOMPUTE_BASE), &k)) {
		int err = errno;

		say("BO_CREATE: the kernel refused it: %s", strerror(err));
		return fail(err);
	}
	m.handle = k.handle;
	gc.in.bo_size = k.size;
	gc.in.alignment = PAGE;
	gc.in.domains = k.placement == DRM_COMPUTE_PLACEMENT_SYSTEM ? AMDGPU_GEM_DOMAIN_GTT : AMDGPU_GEM_DOMAIN_VRAM;
	if (kioctl(DRM_COMPUTE_IOCTL_BO_MMAP(VCOMPUTE_BASE), &m) || next_ioctl(fd, DRM_IOCTL_AMDGPU_GEM_CREATE, &gc)) {
		int err = errno;

		c.handle = k.handle;
		kioctl(DRM_IOCTL_GEM_CLOSE, &c);
		return fail(err);
	}
	*bo = (struct fake_bo){
		.handle = gc.out.handle,
		.export_flags = k.flags,
		.size = k.size,
		.placement = k.placement,
		.dmabuf = -1,
		.kernel_handle = k.handle,
		.kernel_offset = m.offset,
	};
	a->handle = gc.out.handle;
	say("BO_CREATE: kernel handle %u, stand-in handle %u", k.handle, gc.out.handle);
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
	if (kernel_fd >= 0)
		return kernel_bo_create(fd, a, bo);
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

	if (kernel_fd >= 0) {
		struct drm_compute_p2p_report k = *r;

		if (!bo)
			return fail(ENOENT); /* no buffer of the kernel's */
		k.handle = bo->kernel_handle;
		if (kioctl(DRM_COMPUTE_IOCTL_P2P_REPORT(VCOMPUTE_BASE), &k))
			return -1;
		*r = k;
		r->handle = bo->handle;
		say("P2P_REPORT handle %u (kernel %u): %s, reason %u, %u importer(s), decided by '%.*s'", bo->handle,
		    bo->kernel_handle, r->placement == DRM_COMPUTE_PLACEMENT_VRAM ? "VRAM" : "system memory", r->reason,
		    r->count, (int)sizeof(r->decided_by), r->decided_by);
		return 0;
	}
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
	if (kernel_fd >= 0) {
		struct drm_prime_handle k = {.handle = bo->kernel_handle, .flags = p->flags};

		if (kioctl(DRM_IOCTL_PRIME_HANDLE_TO_FD, &k))
			return -1;
		p->fd = k.fd;
		say("PRIME_HANDLE_TO_FD handle %u: the kernel's dma-buf", bo->handle);
		return 0;
	}
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

static int prime_to_handle(int fd, struct drm_prime_handle *p)
{
	struct stat st;

	if (kernel_fd >= 0) {
		struct drm_prime_handle k = {.fd = p->fd};
		struct fake_bo *bo;

		if (kioctl(DRM_IOCTL_PRIME_FD_TO_HANDLE, &k))
			return next_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, p);
		bo = find_kernel_bo(k.handle);
		if (bo) {
			p->handle = bo->handle;
			say("PRIME_FD_TO_HANDLE -> handle %u (kernel %u)", p->handle, k.handle);
			return 0;
		}
		/* Another exporter's dma-buf, which the kernel just imported. */
		struct drm_gem_close c = {.handle = k.handle};
		kioctl(DRM_IOCTL_GEM_CLOSE, &c);
		return fail(EINVAL);
	}
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
		return prime_to_handle(fd, arg);
	case DRM_IOCTL_AMDGPU_GEM_MMAP: {
		/* Kernel mode: remember where the shim maps the stand-in. */
		union drm_amdgpu_gem_mmap *m = arg;
		struct fake_bo *bo = kernel_fd >= 0 ? find_bo(m->in.handle) : NULL;
		int r = next_ioctl(fd, request, arg);

		if (!r && bo) {
			bo->shim_map_fd = fd;
			bo->shim_offset = m->out.addr_ptr;
		}
		return r;
	}
	case DRM_IOCTL_GEM_CLOSE: {
		struct fake_bo *bo = find_bo(((struct drm_gem_close *)arg)->handle);
		if (bo) {
			if (bo->dmabuf >= 0)
				close(bo->dmabuf);
			if (bo->kernel_handle) {
				struct drm_gem_close c = {.handle = bo->kernel_handle};

				kioctl(DRM_IOCTL_GEM_CLOSE, &c);
			}
			memset(bo, 0, sizeof(*bo));
		}
		break;
	}
	default:
		break;
	}
	return next_ioctl(fd, request, arg);
}

/* Kernel mode: a CPU mapping of a stand-in maps the kernel's buffer. */
static void *map(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	if (!next_mmap)
		next_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	if (kernel_fd >= 0) {
		for (int i = 0; i < MAX_BOS; i++) {
			struct fake_bo *bo = &bos[i];

			if (bo->handle && bo->shim_offset && fd == bo->shim_map_fd &&
			    (uint64_t)offset == bo->shim_offset && len <= bo->size)
				return (void *)syscall(SYS_mmap, addr, len, prot, flags, kernel_fd,
						       (off_t)bo->kernel_offset);
		}
	}
	return next_mmap(addr, len, prot, flags, fd, offset);
}

__attribute__((visibility("default"))) void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	return map(addr, len, prot, flags, fd, offset);
}

__attribute__((visibility("default"))) void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	return map(addr, len, prot, flags, fd, offset);
}
