// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode: the DRM compute operations. One table maps a driver name to
 * its compute base; onenode_compute_ioctl() is the only place that issues a
 * compute ioctl, and every wrapper below goes through it. See onenode.h for
 * the contract of every function.
 */
#define _GNU_SOURCE
#include "onenode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "vcompute_drm.h"

/*
 * amdgpu's compute base: kernels carrying the onenode amdgpu glue expose
 * the compute uapi from DRM_COMMAND_BASE + 0x40. amdgpu kernels without
 * the glue have no ioctl there and DRM answers -EINVAL.
 */
#ifndef DRM_AMDGPU_COMPUTE_BASE
#define DRM_AMDGPU_COMPUTE_BASE 0x40
#endif

/* Driver name -> compute base. One line per driver that carries the uapi. */
static const struct {
	const char *driver;
	unsigned int base;
} compute_bases[] = {
	{ "vcompute", DRM_VCOMPUTE_COMPUTE_BASE },
	{ "amdgpu", DRM_AMDGPU_COMPUTE_BASE },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int onenode_compute_base(const char *driver, unsigned int *base)
{
	size_t i;

	if (!driver || !base)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(compute_bases); i++) {
		if (!strcmp(compute_bases[i].driver, driver)) {
			*base = compute_bases[i].base;
			return 0;
		}
	}
	return -EOPNOTSUPP;
}

unsigned long onenode_compute_request(unsigned int base, unsigned int op)
{
	switch (op) {
	case DRM_COMPUTE_OP_QUERY:
		return DRM_COMPUTE_IOCTL_QUERY(base);
	case DRM_COMPUTE_OP_BO_CREATE:
		return DRM_COMPUTE_IOCTL_BO_CREATE(base);
	case DRM_COMPUTE_OP_BO_MMAP:
		return DRM_COMPUTE_IOCTL_BO_MMAP(base);
	case DRM_COMPUTE_OP_VM_CREATE:
		return DRM_COMPUTE_IOCTL_VM_CREATE(base);
	case DRM_COMPUTE_OP_VM_DESTROY:
		return DRM_COMPUTE_IOCTL_VM_DESTROY(base);
	case DRM_COMPUTE_OP_VM_BIND:
		return DRM_COMPUTE_IOCTL_VM_BIND(base);
	case DRM_COMPUTE_OP_USERQ_CREATE:
		return DRM_COMPUTE_IOCTL_USERQ_CREATE(base);
	case DRM_COMPUTE_OP_USERQ_DESTROY:
		return DRM_COMPUTE_IOCTL_USERQ_DESTROY(base);
	case DRM_COMPUTE_OP_USERQ_CONTROL:
		return DRM_COMPUTE_IOCTL_USERQ_CONTROL(base);
	case DRM_COMPUTE_OP_USERQ_STATE:
		return DRM_COMPUTE_IOCTL_USERQ_STATE(base);
	case DRM_COMPUTE_OP_USERQ_WAIT:
		return DRM_COMPUTE_IOCTL_USERQ_WAIT(base);
	case DRM_COMPUTE_OP_USERQ_SIGNAL:
		return DRM_COMPUTE_IOCTL_USERQ_SIGNAL(base);
	case DRM_COMPUTE_OP_SVM:
		return DRM_COMPUTE_IOCTL_SVM(base);
	case DRM_COMPUTE_OP_P2P_REPORT:
		return DRM_COMPUTE_IOCTL_P2P_REPORT(base);
	case DRM_COMPUTE_OP_CRIU_INFO:
		return DRM_COMPUTE_IOCTL_CRIU_INFO(base);
	case DRM_COMPUTE_OP_CRIU_PAUSE:
		return DRM_COMPUTE_IOCTL_CRIU_PAUSE(base);
	case DRM_COMPUTE_OP_CRIU_CHECKPOINT:
		return DRM_COMPUTE_IOCTL_CRIU_CHECKPOINT(base);
	case DRM_COMPUTE_OP_CRIU_RESTORE:
		return DRM_COMPUTE_IOCTL_CRIU_RESTORE(base);
	}
	return 0;
}

int onenode_compute_ioctl(const struct onenode_device *dev, unsigned int op,
			  void *arg)
{
	unsigned long request;
	unsigned int base;
	int ret;

	if (!dev || dev->fd < 0 || !arg)
		return -EINVAL;
	ret = onenode_compute_base(dev->driver, &base);
	if (ret)
		return ret;
	request = onenode_compute_request(base, op);
	if (!request)
		return -EINVAL;
	return drmIoctl(dev->fd, request, arg) ? -errno : 0;
}

/* ---- query ---- */

int onenode_query(const struct onenode_device *dev, uint32_t query,
		  void *data, uint32_t *size)
{
	struct drm_compute_query q;
	int ret;

	if (!size || (!data && *size))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.query = query;
	q.size = *size;
	q.data = (uintptr_t)data;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_QUERY, &q);
	if (!ret)
		*size = q.size;
	return ret;
}

/*
 * A whole report into @out (zeroed first, so that the part an older kernel
 * does not fill reads as zero); -EPROTO when the kernel wrote nothing.
 */
static int query_report(const struct onenode_device *dev, uint32_t query,
			void *out, uint32_t size)
{
	int ret;

	if (!out)
		return -EINVAL;
	memset(out, 0, size);
	ret = onenode_query(dev, query, out, &size);
	if (!ret && size == 0)
		ret = -EPROTO;
	return ret;
}

int onenode_query_device(const struct onenode_device *dev,
			 struct drm_compute_query_device *out)
{
	return query_report(dev, DRM_COMPUTE_QUERY_DEVICE, out, sizeof(*out));
}

int onenode_query_userq(const struct onenode_device *dev,
			struct drm_compute_query_userq *out)
{
	return query_report(dev, DRM_COMPUTE_QUERY_USERQ, out, sizeof(*out));
}

/* ---- buffers ---- */

int onenode_bo_create_export(const struct onenode_device *dev, uint64_t size,
			     uint64_t placement, uint32_t flags,
			     uint32_t *handle)
{
	struct drm_compute_bo_create args;
	int ret;

	if (!handle)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.size = size;
	args.placement = placement;
	args.flags = flags;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_BO_CREATE, &args);
	if (!ret)
		*handle = args.handle;
	return ret;
}

int onenode_bo_create(const struct onenode_device *dev, uint64_t size,
		      uint64_t placement, uint32_t *handle)
{
	return onenode_bo_create_export(dev, size, placement, 0, handle);
}

int onenode_p2p_report(const struct onenode_device *dev, uint32_t handle,
		       struct drm_compute_p2p_report *rep,
		       struct drm_compute_p2p_attachment *att, uint32_t count)
{
	if (!rep || (count && !att))
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	rep->handle = handle;
	rep->count = count;
	rep->attachments = (uintptr_t)att;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_P2P_REPORT, rep);
}

int onenode_criu_info(const struct onenode_device *dev,
		      struct drm_compute_criu_info *info)
{
	if (!info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_INFO, info);
}

int onenode_criu_pause(const struct onenode_device *dev, uint32_t op,
		       struct drm_compute_criu_pause *out)
{
	struct drm_compute_criu_pause args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.op = op;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_PAUSE, &args);
	if (!ret && out)
		*out = args;
	return ret;
}

int onenode_criu_checkpoint(const struct onenode_device *dev,
			    struct drm_compute_criu_checkpoint *args)
{
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_CHECKPOINT, args);
}

int onenode_criu_list(const struct onenode_device *dev, uint32_t op, void *entries,
		      uint32_t *count)
{
	struct drm_compute_criu_checkpoint args;
	int ret;

	if (!count || (!entries && *count))
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.op = op;
	args.count = *count;
	args.ptr = (uintptr_t)entries;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &args);
	if (!ret)
		*count = args.count;
	return ret;
}

int onenode_criu_read_bo(const struct onenode_device *dev, uint32_t handle,
			 uint64_t offset, void *dst, uint64_t size)
{
	struct drm_compute_criu_checkpoint args;

	memset(&args, 0, sizeof(args));
	args.op = DRM_COMPUTE_CRIU_CKPT_READ_BO;
	args.id = handle;
	args.offset = offset;
	args.size = size;
	args.ptr = (uintptr_t)dst;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &args);
}

int onenode_criu_restore(const struct onenode_device *dev, uint32_t op, void *entries,
			 uint32_t *count)
{
	return onenode_criu_restore_ex(dev, op, 0, 0, entries, count);
}

int onenode_criu_restore_ex(const struct onenode_device *dev, uint32_t op, uint32_t flags,
			    uint32_t id, void *entries, uint32_t *count)
{
	struct drm_compute_criu_restore args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.flags = flags;
	args.id = id;
	args.count = count ? *count : 0;
	args.ptr = (uintptr_t)entries;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_RESTORE, &args);
	if (count)
		*count = args.count;
	return ret;
}

int onenode_criu_session(const struct onenode_device *dev, uint64_t *session)
{
	struct drm_compute_criu_restore args;
	int ret;

	if (!session)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.op = DRM_COMPUTE_CRIU_RESTORE_SESSION;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_RESTORE, &args);
	if (!ret)
		*session = args.session;
	return ret;
}

int onenode_criu_restore_bos(const struct onenode_device *dev, uint64_t session,
			     struct drm_compute_criu_bo *bos, uint32_t *count)
{
	struct drm_compute_criu_restore args;
	int ret;

	if (!count)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.op = DRM_COMPUTE_CRIU_RESTORE_BOS;
	args.count = *count;
	args.ptr = (uintptr_t)bos;
	args.session = session;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_RESTORE, &args);
	*count = args.count;
	return ret;
}

int onenode_criu_dmabuf(const struct onenode_device *dev, int dmabuf_fd,
			struct drm_compute_criu_share *out)
{
	struct drm_compute_criu_checkpoint args;

	if (!out || dmabuf_fd < 0)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	memset(out, 0, sizeof(*out));
	args.op = DRM_COMPUTE_CRIU_CKPT_DMABUF;
	args.id = (uint32_t)dmabuf_fd;
	args.ptr = (uintptr_t)out;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &args);
}

int onenode_criu_bo_share(const struct onenode_device *dev, uint32_t handle,
			  struct drm_compute_criu_share *out)
{
	struct drm_compute_criu_checkpoint args;

	if (!out)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	memset(out, 0, sizeof(*out));
	args.op = DRM_COMPUTE_CRIU_CKPT_BO_SHARE;
	args.id = handle;
	args.ptr = (uintptr_t)out;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &args);
}

int onenode_criu_write_bo(const struct onenode_device *dev, uint32_t handle,
			  uint64_t offset, const void *src, uint64_t size)
{
	struct drm_compute_criu_restore args;

	memset(&args, 0, sizeof(args));
	args.op = DRM_COMPUTE_CRIU_RESTORE_WRITE_BO;
	args.id = handle;
	args.offset = offset;
	args.size = size;
	args.ptr = (uintptr_t)src;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_CRIU_RESTORE, &args);
}

int onenode_bo_mmap_offset(const struct onenode_device *dev, uint32_t handle,
			   uint64_t *offset)
{
	struct drm_compute_bo_mmap args;
	int ret;

	if (!offset)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.handle = handle;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_BO_MMAP, &args);
	if (!ret)
		*offset = args.offset;
	return ret;
}

int onenode_bo_map(const struct onenode_device *dev, uint32_t handle,
		   uint64_t size, void **ptr)
{
	uint64_t offset;
	void *p;
	int ret;

	if (!ptr || !size || size > SIZE_MAX)
		return -EINVAL;
	ret = onenode_bo_mmap_offset(dev, handle, &offset);
	if (ret)
		return ret;
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		 (off_t)offset);
	if (p == MAP_FAILED)
		return -errno;
	*ptr = p;
	return 0;
}

int onenode_bo_close(const struct onenode_device *dev, uint32_t handle)
{
	struct drm_gem_close args;

	if (!dev || dev->fd < 0)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.handle = handle;
	return drmIoctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &args) ? -errno : 0;
}

/* ---- GPU VMs ---- */

int onenode_vm_create(const struct onenode_device *dev, uint32_t *vm_id)
{
	return onenode_vm_create_flags(dev, 0, vm_id);
}

int onenode_vm_create_flags(const struct onenode_device *dev, uint32_t flags,
			    uint32_t *vm_id)
{
	struct drm_compute_vm_create args;
	int ret;

	if (!vm_id)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.flags = flags;
	ret = onenode_compute_ioctl(dev, DRM_COMPUTE_OP_VM_CREATE, &args);
	if (!ret)
		*vm_id = args.vm_id;
	return ret;
}

int onenode_vm_destroy(const struct onenode_device *dev, uint32_t vm_id)
{
	struct drm_compute_vm_destroy args;

	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_VM_DESTROY, &args);
}

int onenode_vm_map(const struct onenode_device *dev, uint32_t vm_id,
		   uint32_t handle, uint64_t bo_offset, uint64_t va,
		   uint64_t range, uint64_t flags)
{
	struct drm_compute_vm_bind args;

	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	args.op = DRM_COMPUTE_VM_BIND_OP_MAP;
	args.flags = flags;
	args.handle = handle;
	args.bo_offset = bo_offset;
	args.va = va;
	args.range = range;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_VM_BIND, &args);
}

int onenode_vm_unmap(const struct onenode_device *dev, uint32_t vm_id,
		     uint64_t va, uint64_t range)
{
	struct drm_compute_vm_bind args;

	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	args.op = DRM_COMPUTE_VM_BIND_OP_UNMAP;
	args.va = va;
	args.range = range;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_VM_BIND, &args);
}

/* ---- shared virtual memory ---- */

/* @attrs: read by a SET, read and written by a GET. */
static int svm_attr_op(const struct onenode_device *dev, uint32_t op,
		       uint32_t vm_id, uint64_t start, uint64_t size,
		       const void *attrs, uint32_t nattr)
{
	struct drm_compute_svm args;

	if (!attrs || !nattr)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	args.op = op;
	args.start = start;
	args.size = size;
	args.attrs = (uintptr_t)attrs;
	args.nattr = nattr;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_SVM, &args);
}

int onenode_svm_set_attr(const struct onenode_device *dev, uint32_t vm_id,
			 uint64_t start, uint64_t size,
			 const struct drm_compute_svm_attr *attrs, uint32_t nattr)
{
	return svm_attr_op(dev, DRM_COMPUTE_SVM_OP_SET_ATTR, vm_id, start, size,
			   attrs, nattr);
}

int onenode_svm_get_attr(const struct onenode_device *dev, uint32_t vm_id,
			 uint64_t start, uint64_t size,
			 struct drm_compute_svm_attr *attrs, uint32_t nattr)
{
	return svm_attr_op(dev, DRM_COMPUTE_SVM_OP_GET_ATTR, vm_id, start, size,
			   attrs, nattr);
}

/* ---- user queues ---- */

int onenode_userq_create(const struct onenode_device *dev,
			 struct drm_compute_userq_create *args)
{
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_CREATE, args);
}

int onenode_userq_destroy(const struct onenode_device *dev, uint32_t queue_id)
{
	struct drm_compute_userq_destroy args;

	memset(&args, 0, sizeof(args));
	args.queue_id = queue_id;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_DESTROY, &args);
}

int onenode_userq_control(const struct onenode_device *dev, uint32_t queue_id,
			  uint32_t op)
{
	struct drm_compute_userq_control args;

	memset(&args, 0, sizeof(args));
	args.queue_id = queue_id;
	args.op = op;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_CONTROL, &args);
}

int onenode_userq_state(const struct onenode_device *dev, uint32_t queue_id,
			struct drm_compute_userq_state *st)
{
	if (!st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->queue_id = queue_id;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_STATE, st);
}

/*
 * The absolute CLOCK_MONOTONIC deadline of a wait @timeout_ns from now:
 * 0 stays 0 (poll once), a negative timeout or one that overflows is
 * INT64_MAX (forever).
 */
static int64_t deadline_ns(int64_t timeout_ns)
{
	struct timespec now;
	int64_t t;

	if (timeout_ns == 0)
		return 0;
	if (timeout_ns < 0 || clock_gettime(CLOCK_MONOTONIC, &now))
		return INT64_MAX;
	t = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	return timeout_ns > INT64_MAX - t ? INT64_MAX : t + timeout_ns;
}

int onenode_userq_wait(const struct onenode_device *dev, uint32_t queue_id,
		       uint64_t value, int64_t timeout_ns)
{
	struct drm_compute_userq_wait args;

	memset(&args, 0, sizeof(args));
	args.queue_id = queue_id;
	args.value = value;
	args.timeout_nsec = deadline_ns(timeout_ns);
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_WAIT, &args);
}

int onenode_userq_signal(const struct onenode_device *dev, uint32_t queue_id,
			 uint64_t value, uint32_t syncobj, uint64_t point)
{
	struct drm_compute_userq_signal args;

	memset(&args, 0, sizeof(args));
	args.queue_id = queue_id;
	args.handle = syncobj;
	args.value = value;
	args.point = point;
	return onenode_compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_SIGNAL, &args);
}

/* /proc/self/pagemap: bit 63 present, bit 62 swap-type entry. */
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)

int onenode_thp_bytes(const void *p, uint64_t *bytes)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long long lo, hi, kib = 0;
	bool ours = false;
	char line[256];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2)
			ours = lo <= (uintptr_t)p && (uintptr_t)p < hi;
		else if (ours)
			sscanf(line, "AnonHugePages: %llu kB", &kib);
	}
	fclose(f);
	*bytes = (uint64_t)kib << 10;
	return 0;
}

int onenode_svm_residency(const void *p, uint64_t size, struct onenode_residency *r)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t first, last, i, e[512];
	int fd, ret = 0;

	if (!size || !r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	first = (uintptr_t)p / page;
	last = ((uintptr_t)p + size - 1) / page;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = first; i <= last && !ret;) {
		uint64_t n = last - i + 1 < 512 ? last - i + 1 : 512, j;
		ssize_t got = pread(fd, e, n * sizeof(e[0]), (off_t)(i * sizeof(e[0])));

		if (got != (ssize_t)(n * sizeof(e[0]))) {
			ret = got < 0 ? -errno : -EIO;
			break;
		}
		for (j = 0; j < n; j++) {
			if (e[j] & PM_PRESENT)
				r->sysmem++;
			else if (e[j] & PM_SWAP)
				r->device++;
			else
				r->none++;
		}
		i += n;
	}
	close(fd);
	return ret;
}
