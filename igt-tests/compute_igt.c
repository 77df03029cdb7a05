// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * Helpers shared by the IGT tests of the DRM compute uapi; see
 * compute_igt.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

#include "igt_core.h"

#include "compute_igt.h"
#include "onenode_igt.h"

const struct compute_placement compute_placements[2] = {
	{ "vram", DRM_COMPUTE_PLACEMENT_VRAM },
	{ "system", DRM_COMPUTE_PLACEMENT_SYSTEM },
};

/**
 * compute_vram_full_errno - what creating a buffer that does not fit in
 * device memory fails with on @cd: -ENOSPC by the uapi, -ENOMEM where the
 * device reports DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM
 * @cd: the device
 */
int compute_vram_full_errno(const struct compute_dev *cd)
{
	return cd->info.semantics & DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM ? -ENOMEM : -ENOSPC;
}

/**
 * compute_has_placement - whether the device's DEVICE report offers
 * @placement
 * @cd: an open device
 * @placement: a DRM_COMPUTE_PLACEMENT_* bit
 */
bool compute_has_placement(const struct compute_dev *cd, uint64_t placement)
{
	return cd->info.placements & placement;
}

/**
 * compute_from_fd - fill @cd from an open render node: the device and what
 * it reports
 * @cd: filled; owns @fd afterwards (compute_close() closes it)
 * @fd: an open vcompute render node
 */
void compute_from_fd(struct compute_dev *cd, int fd)
{
	int ret;

	memset(cd, 0, sizeof(*cd));
	cd->fd = fd;
	ret = onenode_device_from_fd(cd->fd, &cd->dev);
	igt_assert_f(ret == 0, "onenode_device_from_fd: %s\n", onenode_strerror(ret));
	ret = onenode_query_device(&cd->dev, &cd->info);
	igt_assert_f(ret == 0, "DEVICE query: %s\n", onenode_strerror(ret));
	if (cd->info.features & DRM_COMPUTE_FEATURE_USERQ) {
		ret = onenode_query_userq(&cd->dev, &cd->uq);
		igt_assert_f(ret == 0, "USERQ query: %s\n", onenode_strerror(ret));
	}
}

/**
 * compute_open - open the vcompute render node and read its reports
 * @cd: filled
 *
 * Skips when there is no vcompute render node.
 */
void compute_open(struct compute_dev *cd)
{
	compute_from_fd(cd, onenode_open_render("vcompute"));
}

/**
 * compute_instance_attr - write a configfs attribute of instance @name
 * @name: the instance (a directory under COMPUTE_CONFIGFS)
 * @attr: the attribute
 * @value: what is written
 */
void compute_instance_attr(const char *name, const char *attr, const char *value)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), COMPUTE_CONFIGFS "/%s/%s", name, attr);
	fd = open(path, O_WRONLY);
	igt_assert_f(fd >= 0, "open %s: %s\n", path, strerror(errno));
	igt_assert_f(write(fd, value, strlen(value)) == (ssize_t)strlen(value),
		     "write %s to %s: %s\n", value, path, strerror(errno));
	close(fd);
}

/**
 * compute_instance_node - the render node of instance @name
 * @name: the instance
 * @node: set to its /dev/dri path, or "" when it has none
 * @len: room in @node
 */
void compute_instance_node(const char *name, char *node, size_t len)
{
	char want[64], link[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir("/sys/class/drm");

	node[0] = '\0';
	snprintf(want, sizeof(want), "vcompute.%s", name);
	igt_assert(d);
	while ((e = readdir(d))) {
		ssize_t n;

		if (strncmp(e->d_name, "renderD", 7))
			continue;
		snprintf(path, sizeof(path), "/sys/class/drm/%s/device", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (!strcmp(strrchr(link, '/') ? strrchr(link, '/') + 1 : link, want)) {
			snprintf(node, len, "/dev/dri/%s", e->d_name);
			break;
		}
	}
	closedir(d);
}

/**
 * compute_instance_plug - plug instance @name in or out (its "enabled")
 * @name: the instance
 * @on: plug in
 */
void compute_instance_plug(const char *name, bool on)
{
	compute_instance_attr(name, "enabled", on ? "1" : "0");
}

/**
 * compute_instance_up - create instance @name and open its render node
 * @name: the instance
 * @vram_mib: its device memory
 * @cd: filled with the open device
 */
void compute_instance_up(const char *name, unsigned int vram_mib, struct compute_dev *cd)
{
	char node[PATH_MAX], mib[16];
	int fd;

	igt_require_f(access(COMPUTE_CONFIGFS, F_OK) == 0, "vcompute with configfs is loaded\n");
	snprintf(node, sizeof(node), COMPUTE_CONFIGFS "/%s", name);
	if (mkdir(node, 0755))
		igt_assert_eq(errno, EEXIST);
	snprintf(mib, sizeof(mib), "%u", vram_mib);
	compute_instance_attr(name, "vram_mib", mib);
	compute_instance_plug(name, true);
	compute_instance_node(name, node, sizeof(node));
	igt_assert_f(node[0], "no render node for vcompute.%s\n", name);

	fd = open(node, O_RDWR | O_CLOEXEC);
	igt_assert_fd(fd);
	compute_from_fd(cd, fd);
}

/**
 * compute_instance_remove - unplug instance @name and remove it
 * @name: the instance; its clients may still hold files
 */
void compute_instance_remove(const char *name)
{
	char node[PATH_MAX];

	compute_instance_plug(name, false);
	compute_instance_node(name, node, sizeof(node));
	igt_assert_f(!node[0], "%s still there after unplug\n", node);
	snprintf(node, sizeof(node), COMPUTE_CONFIGFS "/%s", name);
	igt_assert_eq(rmdir(node), 0);
}

/**
 * compute_open_file - open another file of the same render node
 * @cd: an open device
 * @other: filled; its objects are independent of @cd's
 */
void compute_open_file(const struct compute_dev *cd, struct compute_dev *other)
{
	int ret;

	memset(other, 0, sizeof(*other));
	igt_assert(cd->dev.path[0]);
	other->fd = open(cd->dev.path, O_RDWR | O_CLOEXEC);
	igt_assert_fd(other->fd);
	ret = onenode_device_from_fd(other->fd, &other->dev);
	igt_assert_f(ret == 0, "onenode_device_from_fd: %s\n", onenode_strerror(ret));
	other->info = cd->info;
	other->uq = cd->uq;
}

/**
 * compute_open_card - open the first primary node (/dev/dri/card*) that
 * @accept takes
 * @accept: called with each node opened read-write; true keeps it, false
 *	has it closed and the walk go on
 * @arg: passed to @accept
 *
 * Returns: the fd, or -1 when no node was taken.
 */
int compute_open_card(bool (*accept)(int fd, void *arg), void *arg)
{
	DIR *dir = opendir("/dev/dri");
	struct dirent *e;
	int fd = -1;

	if (!dir)
		return -1;
	while (fd < 0 && (e = readdir(dir))) {
		char path[PATH_MAX];

		if (strncmp(e->d_name, "card", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !accept(fd, arg)) {
			close(fd);
			fd = -1;
		}
	}
	closedir(dir);
	return fd;
}

static bool is_vgem(int fd, void *arg)
{
	(void)arg;
	return onenode_fd_is_driver(fd, "vgem");
}

/** compute_prime_fd - export GEM @handle of @cd as a read-write dma-buf fd */
int compute_prime_fd(const struct compute_dev *cd, uint32_t handle)
{
	int fd = -1;

	igt_assert_eq(drmPrimeHandleToFD(cd->fd, handle, DRM_CLOEXEC | DRM_RDWR, &fd), 0);
	return fd;
}

/**
 * compute_engine_pid - the kernel thread that runs @cd's queues
 * @cd: a vcompute device
 *
 * vcompute's engine thread is named after its instance ("vcompute.0",
 * truncated to the kernel's 15 characters), the name of the render node's
 * parent device.
 *
 * Returns: its pid, or -ENOENT.
 */
int compute_engine_pid(const struct compute_dev *cd)
{
	char link[PATH_MAX], real[PATH_MAX], want[16];
	struct dirent *e;
	const char *base;
	int pid = -ENOENT;
	size_t len;
	DIR *dir;

	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major(cd->dev.rdev),
		 minor(cd->dev.rdev));
	if (!realpath(link, real))
		return -ENOENT;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	/* The kernel keeps 15 characters of a thread's name. */
	len = strnlen(base, sizeof(want) - 1);
	memcpy(want, base, len);
	want[len] = 0;
	dir = opendir("/proc");
	if (!dir)
		return -ENOENT;
	while (pid < 0 && (e = readdir(dir))) {
		char path[PATH_MAX], comm[32] = "";
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && strcspn(comm, "\n") == strlen(want) &&
		    !strncmp(comm, want, strlen(want)))
			pid = atoi(e->d_name);
		fclose(f);
	}
	closedir(dir);
	return pid;
}

/**
 * compute_task_cpu_ns - CPU time a task has used, user and system
 * @pid: the task (a kernel thread is a process of its own)
 *
 * The scheduler's count in nanoseconds, through the process CPU clock
 * (clock_getcpuclockid()); from /proc/PID/stat's clock ticks where that
 * clock cannot be read.
 *
 * Returns: the time, or 0 when it cannot be read.
 */
uint64_t compute_task_cpu_ns(int pid)
{
	unsigned long long utime = 0, stime = 0;
	char path[64], buf[1024], *p;
	struct timespec ts;
	clockid_t clk;
	size_t n;
	FILE *f;

	if (!clock_getcpuclockid(pid, &clk) && !clock_gettime(clk, &ts))
		return ts.tv_sec * 1000000000ull + ts.tv_nsec;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* Fields after the command name, which may hold spaces: ") S ppid ...". */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &utime, &stime) != 2)
		return 0;
	return (utime + stime) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

/**
 * compute_assert_memory - the device's memory is as it was
 * @used: device memory in use before (compute_memory())
 * @pages: the driver's own system pages before
 * @when: what the failure message says
 */
void compute_assert_memory(const struct compute_dev *cd, uint64_t used, int64_t pages,
			   const char *when)
{
	uint64_t u;
	int64_t p;

	igt_assert_eq(compute_memory(cd, &u, &p), 0);
	igt_assert_f(u == used && p == pages,
		     "%s: device memory %" PRIu64 " bytes, %" PRId64 " own pages; "
		     "before: %" PRIu64 ", %" PRId64 "\n", when, u, p, used, pages);
}

/**
 * compute_find_edu - the first DMA-doing test importer (vcompute_edu.c)
 * @dev: its misc device path, /dev/vcompute-edu-<PCI address>
 * @len: room in @dev
 *
 * Returns: whether the VM has one.
 */
bool compute_find_edu(char *dev, size_t len)
{
	DIR *dir = opendir("/dev");
	struct dirent *e;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (e = readdir(dir)))
		if (!strncmp(e->d_name, "vcompute-edu-", 13))
			found = snprintf(dev, len, "/dev/%s", e->d_name) < (int)len;
	closedir(dir);
	return found;
}

/**
 * compute_edu_import - open edu @dev and import dma-buf @dmabuf into it
 *
 * Returns: the edu's file; the import must succeed.
 */
int compute_edu_import(const char *dev, int dmabuf)
{
	struct vcompute_edu_import imp = { .fd = dmabuf };
	int efd = open(dev, O_RDWR | O_CLOEXEC);

	igt_assert_f(efd >= 0, "%s: %s\n", dev, strerror(errno));
	igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_IMPORT, &imp), 0);
	return efd;
}

/**
 * compute_edu_write - the edu of @efd DMA-writes @size bytes of @src at the
 * start of its import
 *
 * Returns: 0 or -errno (the exporter's map error among them).
 */
int compute_edu_write(int efd, const void *src, uint64_t size)
{
	struct vcompute_edu_write w = { .size = size, .data = (uintptr_t)src };

	return ioctl(efd, VCOMPUTE_EDU_IOCTL_WRITE, &w) ? -errno : 0;
}

/**
 * compute_open_vgem - open vgem's primary node (vgem has no render node)
 *
 * Returns: the fd, or -1 without vgem.
 */
int compute_open_vgem(void)
{
	return compute_open_card(is_vgem, NULL);
}

/** compute_close - close the file of @cd; its objects go with it. */
void compute_close(struct compute_dev *cd)
{
	if (cd->fd >= 0)
		close(cd->fd);
	cd->fd = -1;
	cd->dev.fd = -1;
}

/** compute_require_userq - skip unless the device reports user queues. */
void compute_require_userq(const struct compute_dev *cd)
{
	igt_require_f(cd->info.features & DRM_COMPUTE_FEATURE_USERQ,
		      "the device does not report DRM_COMPUTE_FEATURE_USERQ\n");
}

/**
 * compute_ioctl - compute operation @op with @arg as it is
 *
 * Returns: 0 or the negative errno.
 */
int compute_ioctl(const struct compute_dev *cd, unsigned int op, void *arg)
{
	return onenode_compute_ioctl(&cd->dev, op, arg);
}

/**
 * compute_expect_rejected - the operation must fail with @err and hand
 * the argument back byte for byte as it went in (a rejected call writes
 * nothing).
 */
void compute_expect_rejected(const struct compute_dev *cd, unsigned int op,
			     const void *arg, size_t size, int err)
{
	unsigned char buf[256];

	igt_assert_lte_u64(size, sizeof(buf));
	memcpy(buf, arg, size);
	igt_assert_eq(compute_ioctl(cd, op, buf), err);
	igt_assert_f(memcmp(buf, arg, size) == 0,
		     "op %#x: a rejected argument came back modified\n", op);
}

/** compute_now_ns - CLOCK_MONOTONIC in ns. */
uint64_t compute_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** compute_abs_timeout - the absolute CLOCK_MONOTONIC time @rel_ns from now. */
int64_t compute_abs_timeout(uint64_t rel_ns)
{
	return (int64_t)(compute_now_ns() + rel_ns);
}

/** compute_sleep_ms - sleep, restarting after signals. */
void compute_sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000l };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/**
 * compute_wait_flags - wait until every one of @n flags (in memory shared
 * with forked children, set with a release store) is non-zero
 * @flags: the flags
 * @n: how many
 *
 * Polls every millisecond, for at most %COMPUTE_TIMEOUT_MS.
 *
 * Returns: whether all were set in time.
 */
bool compute_wait_flags(const int *flags, unsigned int n)
{
	uint64_t end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;
	bool all;

	do {
		all = true;
		for (unsigned int i = 0; i < n; i++)
			all &= __atomic_load_n(&flags[i], __ATOMIC_ACQUIRE) != 0;
		if (!all)
			usleep(1000);
	} while (!all && compute_now_ns() < end);
	return all;
}

/* ---- buffers and VMs ---- */

/** compute_bo - create a buffer; returns its handle. */
uint32_t compute_bo(const struct compute_dev *cd, uint64_t size, uint64_t placement)
{
	uint32_t handle = 0;
	int ret = onenode_bo_create(&cd->dev, size, placement, &handle);

	igt_assert_f(ret == 0, "BO_CREATE of %" PRIu64 " bytes, placement %#" PRIx64 ": %s\n",
		     size, placement, onenode_strerror(ret));
	igt_assert_neq_u32(handle, 0);
	return handle;
}

/** compute_bo_map - map @size bytes of a buffer, shared and read/write. */
void *compute_bo_map(const struct compute_dev *cd, uint32_t handle, uint64_t size)
{
	void *ptr = NULL;
	int ret = onenode_bo_map(&cd->dev, handle, size, &ptr);

	igt_assert_f(ret == 0, "mapping handle %u: %s\n", handle, onenode_strerror(ret));
	return ptr;
}

/** compute_bo_close - close a GEM handle. */
void compute_bo_close(const struct compute_dev *cd, uint32_t handle)
{
	int ret = onenode_bo_close(&cd->dev, handle);

	igt_assert_f(ret == 0, "GEM_CLOSE %u: %s\n", handle, onenode_strerror(ret));
}

/** compute_vm - create a GPU VM; returns its id. */
uint32_t compute_vm(const struct compute_dev *cd)
{
	uint32_t vm = 0;
	int ret = onenode_vm_create(&cd->dev, &vm);

	igt_assert_f(ret == 0, "VM_CREATE: %s\n", onenode_strerror(ret));
	igt_assert_neq_u32(vm, 0);
	return vm;
}

/** compute_vm_destroy - destroy a GPU VM. */
void compute_vm_destroy(const struct compute_dev *cd, uint32_t vm)
{
	int ret = onenode_vm_destroy(&cd->dev, vm);

	igt_assert_f(ret == 0, "VM_DESTROY %u: %s\n", vm, onenode_strerror(ret));
}

/** compute_map - VM_BIND MAP that must succeed. */
void compute_map(const struct compute_dev *cd, uint32_t vm, uint32_t handle,
		 uint64_t bo_offset, uint64_t va, uint64_t range, uint64_t flags)
{
	int ret = onenode_vm_map(&cd->dev, vm, handle, bo_offset, va, range, flags);

	igt_assert_f(ret == 0, "MAP handle %u +%#" PRIx64 " at %#" PRIx64 " (+%#" PRIx64
		     ", flags %#" PRIx64 "): %s\n", handle, bo_offset, va, range, flags,
		     onenode_strerror(ret));
}

/** compute_unmap - VM_BIND UNMAP that must succeed. */
void compute_unmap(const struct compute_dev *cd, uint32_t vm, uint64_t va,
		   uint64_t range)
{
	int ret = onenode_vm_unmap(&cd->dev, vm, va, range);

	igt_assert_f(ret == 0, "UNMAP %#" PRIx64 " +%#" PRIx64 ": %s\n", va, range,
		     onenode_strerror(ret));
}

/**
 * compute_buf_init - create a buffer, map it for the CPU and, with a
 * non-zero @vm, bind it at @va with @flags.
 */
void compute_buf_init(const struct compute_dev *cd, uint32_t vm, uint64_t size,
		      uint64_t placement, uint64_t va, uint64_t flags,
		      struct compute_buf *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->size = size;
	buf->handle = compute_bo(cd, size, placement);
	buf->cpu = compute_bo_map(cd, buf->handle, size);
	if (vm) {
		compute_map(cd, vm, buf->handle, 0, va, size, flags);
		buf->vm = vm;
		buf->va = va;
	}
}

/** compute_buf_fini - undo compute_buf_init(); safe on a zeroed @buf. */
void compute_buf_fini(const struct compute_dev *cd, struct compute_buf *buf)
{
	if (buf->vm)
		compute_unmap(cd, buf->vm, buf->va, buf->size);
	if (buf->cpu)
		munmap(buf->cpu, buf->size);
	if (buf->handle)
		compute_bo_close(cd, buf->handle);
	memset(buf, 0, sizeof(*buf));
}

/* ---- queues set up by libonenode ---- */

/** compute_queue_init - a libonenode queue in @vm with @params. */
void compute_queue_init(const struct compute_dev *cd, uint32_t vm,
			const struct onenode_queue_params *params,
			struct compute_queue *cq)
{
	int ret;

	memset(cq, 0, sizeof(*cq));
	cq->cd = cd;
	igt_assert_lte_u64(onenode_queue_va_size(&cd->dev, params->ring_size),
			   COMPUTE_QUEUE_VA(1) - COMPUTE_QUEUE_VA(0));
	ret = onenode_queue_init(&cq->q, &cd->dev, vm, params);
	igt_assert_f(ret == 0, "onenode_queue_init at %#" PRIx64 ": %s\n", params->va,
		     onenode_strerror(ret));
}

/** compute_queue_init_at - a queue with default parameters at @va. */
void compute_queue_init_at(const struct compute_dev *cd, uint32_t vm,
			   uint64_t va, struct compute_queue *cq)
{
	const struct onenode_queue_params params = {
		.va = va,
		.priority = ONENODE_PRIORITY_DEFAULT,
	};

	compute_queue_init(cd, vm, &params, cq);
}

/** compute_queue_fini - destroy the queue and its buffers; NULL-safe. */
void compute_queue_fini(struct compute_queue *cq)
{
	if (cq && cq->cd)
		onenode_queue_fini(&cq->q);
	if (cq)
		memset(cq, 0, sizeof(*cq));
}

/** compute_emit - write a packet into the ring (not yet published). */
void compute_emit(struct compute_queue *cq, const uint64_t *pkt, uint32_t qwords)
{
	int ret = onenode_queue_emit(&cq->q, pkt, qwords);

	igt_assert_f(ret == 0, "emitting %u words: %s\n", qwords, onenode_strerror(ret));
}

/**
 * compute_commit - publish the emitted packets.
 *
 * -EIO is not a failure of the commit: the packets are published, and the
 * queue died, possibly on them. When the engine is still polling, it can
 * run a packet that faults before the commit's WAKE (which the engine
 * asked for as it went idle) reaches the kernel, and the WAKE of a dead
 * queue returns -EIO; a test expecting that fault would otherwise fail
 * here, one time in many. The caller's wait or state query reports it.
 */
void compute_commit(struct compute_queue *cq)
{
	int ret = onenode_queue_commit(&cq->q);

	igt_assert_f(ret == 0 || ret == -EIO, "commit: %s\n", onenode_strerror(ret));
}

/** compute_submit - emit a FENCE, publish; returns its value. */
uint64_t compute_submit(struct compute_queue *cq)
{
	uint64_t value = onenode_queue_fence(&cq->q);

	igt_assert_f(value, "no room in the ring for a FENCE\n");
	compute_commit(cq);
	return value;
}

static void dump_state(const struct compute_dev *cd, uint32_t queue_id)
{
	struct drm_compute_userq_state st;

	memset(&st, 0, sizeof(st));
	st.queue_id = queue_id;
	if (compute_ioctl(cd, DRM_COMPUTE_OP_USERQ_STATE, &st))
		return;
	igt_info("queue %u: status %s, rptr %" PRIu64 ", wptr %" PRIu64 ", fence %" PRIu64
		 ", fault %s at %#" PRIx64 "\n", queue_id, onenode_status_name(st.status),
		 (uint64_t)st.rptr, (uint64_t)st.wptr, (uint64_t)st.fence,
		 onenode_fault_name(st.fault_reason), (uint64_t)st.fault_va);
}

/** compute_sync - wait until the queue's fence reaches @value. */
void compute_sync(struct compute_queue *cq, uint64_t value)
{
	int ret = onenode_queue_wait(&cq->q, value, COMPUTE_TIMEOUT_MS * 1000000ll);

	if (ret)
		dump_state(cq->cd, cq->q.id);
	igt_assert_f(ret == 0, "waiting for fence %" PRIu64 " of queue %u: %s\n", value,
		     cq->q.id, onenode_strerror(ret));
}

/**
 * compute_check_alive - the queue still executes: a FENCE completes and
 * its value lands in memory.
 */
void compute_check_alive(struct compute_queue *cq)
{
	uint64_t value = compute_submit(cq);

	compute_sync(cq, value);
	igt_assert_eq_u64(*cq->q.fence, value);
}

/* ---- queue state ---- */

/** compute_state - USERQ_STATE of a queue, which must exist. */
void compute_state(const struct compute_dev *cd, uint32_t queue_id,
		   struct drm_compute_userq_state *st)
{
	memset(st, 0, sizeof(*st));
	st->queue_id = queue_id;
	igt_assert_eq(compute_ioctl(cd, DRM_COMPUTE_OP_USERQ_STATE, st), 0);
}

/**
 * compute_poll_status - poll the state until it shows @status
 *
 * Returns: whether it did within @timeout_ms; @st holds the last state.
 */
bool compute_poll_status(const struct compute_dev *cd, uint32_t queue_id,
			 uint32_t status, unsigned int timeout_ms,
			 struct drm_compute_userq_state *st)
{
	uint64_t end = compute_now_ns() + timeout_ms * 1000000ull;

	for (;;) {
		compute_state(cd, queue_id, st);
		if (st->status == status)
			return true;
		if (compute_now_ns() > end)
			return false;
		usleep(1000);
	}
}

/** compute_assert_status - the queue reaches @status within the timeout. */
void compute_assert_status(const struct compute_dev *cd, uint32_t queue_id,
			   uint32_t status, struct drm_compute_userq_state *st)
{
	struct drm_compute_userq_state local;

	if (!st)
		st = &local;
	igt_assert_f(compute_poll_status(cd, queue_id, status, COMPUTE_TIMEOUT_MS, st),
		     "queue %u: status %s, want %s (fault %s at %#" PRIx64 ")\n", queue_id,
		     onenode_status_name(st->status), onenode_status_name(status),
		     onenode_fault_name(st->fault_reason), (uint64_t)st->fault_va);
}

/**
 * compute_assert_fault - the queue faults with @reason at @fault_va and
 * its read pointer stays at @rptr (the faulting packet); UINT64_MAX skips
 * the address or pointer check.
 */
void compute_assert_fault(const struct compute_dev *cd, uint32_t queue_id,
			  uint32_t reason, uint64_t fault_va, uint64_t rptr)
{
	struct drm_compute_userq_state st;

	compute_assert_status(cd, queue_id, DRM_COMPUTE_USERQ_STATUS_FAULTED, &st);
	igt_assert_f(st.fault_reason == reason, "fault reason %s, want %s\n",
		     onenode_fault_name(st.fault_reason), onenode_fault_name(reason));
	if (fault_va != UINT64_MAX)
		igt_assert_eq_u64(st.fault_va, fault_va);
	if (rptr != UINT64_MAX)
		igt_assert_eq_u64(st.rptr, rptr);
}

/* ---- queues with a layout the test chooses ---- */

/** compute_rawq_va_size - GPU VA a raw queue with @ring_size occupies. */
uint64_t compute_rawq_va_size(uint64_t ring_size)
{
	return ring_size + RAWQ_STATE_SIZE;
}

/**
 * compute_rawq_setup - buffers and the creation argument of a raw queue
 * @va: where the ring goes (aligned to @ring_size); the state buffer
 *	follows it
 * @ring_flags: DRM_COMPUTE_VM_BIND_* of the ring's mapping
 */
void compute_rawq_setup(const struct compute_dev *cd, uint32_t vm, uint64_t va,
			uint64_t ring_size, uint64_t ring_flags,
			struct compute_rawq *rq)
{
	struct drm_compute_userq_create *a = &rq->args;

	memset(rq, 0, sizeof(*rq));
	rq->cd = cd;
	rq->vm = vm;
	igt_assert_eq_u64(va & (ring_size - 1), 0);
	compute_buf_init(cd, vm, ring_size, DRM_COMPUTE_PLACEMENT_SYSTEM, va,
			 ring_flags, &rq->ring);
	compute_buf_init(cd, vm, RAWQ_STATE_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM,
			 va + ring_size, DRM_COMPUTE_VM_BIND_NOEXEC, &rq->state);

	a->vm_id = vm;
	a->format = DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE;
	a->priority = cd->uq.priority_default;
	a->ring_va = va;
	a->ring_size = ring_size;
	a->rptr_va = rq->state.va + RAWQ_RPTR_OFF;
	if (cd->uq.ctx_save_size) {
		igt_assert_lte_u64(cd->uq.ctx_save_size, RAWQ_STATE_SIZE - RAWQ_CTX_OFF);
		a->ctx_save_va = rq->state.va + RAWQ_CTX_OFF;
		a->ctx_save_size = cd->uq.ctx_save_size;
	}
}

/** compute_rawq_create - create the queue from @rq->args and map its doorbell. */
void compute_rawq_create(struct compute_rawq *rq)
{
	const struct compute_dev *cd = rq->cd;
	struct drm_compute_userq_create args = rq->args;
	int ret;

	/* A fresh queue: no read pointer or fence of an earlier one. */
	memset((char *)rq->state.cpu + RAWQ_RPTR_OFF, 0, 8);
	memset((char *)rq->state.cpu + RAWQ_FENCE_OFF, 0, 8);
	ret = compute_ioctl(cd, DRM_COMPUTE_OP_USERQ_CREATE, &args);
	igt_assert_f(ret == 0, "USERQ_CREATE: %s\n", onenode_strerror(ret));
	igt_assert_f(args.queue_id != 0, "USERQ_CREATE succeeded with queue_id 0 (doorbell "
		     "offset %#" PRIx64 " pos %u, vm %u, ring %#" PRIx64 ")\n",
		     (uint64_t)args.doorbell_offset, args.doorbell_pos, args.vm_id,
		     (uint64_t)args.ring_va);
	igt_assert_lte_u64(args.doorbell_pos + sizeof(struct drm_compute_doorbell),
			   cd->uq.doorbell_size);
	rq->id = args.queue_id;
	rq->db_offset = args.doorbell_offset;
	rq->db_map = mmap(NULL, cd->uq.doorbell_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, cd->fd, args.doorbell_offset);
	igt_assert(rq->db_map != MAP_FAILED);
	rq->db = (struct drm_compute_doorbell *)((char *)rq->db_map + args.doorbell_pos);
	rq->wptr = 0;
	rq->fence = 0;
}

/** compute_rawq_destroy - destroy the queue (not its buffers). */
void compute_rawq_destroy(struct compute_rawq *rq)
{
	if (rq->db_map)
		munmap(rq->db_map, rq->cd->uq.doorbell_size);
	rq->db_map = NULL;
	rq->db = NULL;
	if (rq->id)
		igt_assert_eq(onenode_userq_destroy(&rq->cd->dev, rq->id), 0);
	rq->id = 0;
}

/** compute_rawq_teardown - destroy the queue if any, then its buffers. */
void compute_rawq_teardown(struct compute_rawq *rq)
{
	if (!rq->cd)
		return;
	compute_rawq_destroy(rq);
	compute_buf_fini(rq->cd, &rq->state);
	compute_buf_fini(rq->cd, &rq->ring);
	memset(rq, 0, sizeof(*rq));
}

/** compute_rawq_emit - copy a packet into the ring at the write pointer, wrapping. */
void compute_rawq_emit(struct compute_rawq *rq, const uint64_t *pkt, uint32_t qwords)
{
	volatile uint64_t *rptr = (volatile uint64_t *)((char *)rq->state.cpu + RAWQ_RPTR_OFF);
	uint64_t *ring = rq->ring.cpu;
	uint64_t n = rq->ring.size / 8;

	igt_assert_f(rq->wptr + qwords * 8ull - *rptr <= rq->ring.size,
		     "raw queue ring full\n");
	for (uint32_t i = 0; i < qwords; i++)
		ring[(rq->wptr / 8 + i) % n] = pkt[i];
	rq->wptr += qwords * 8ull;
}

/**
 * compute_rawq_commit - store the write pointer to the doorbell, then
 * follow the NEED_WAKEUP protocol.
 */
void compute_rawq_commit(struct compute_rawq *rq)
{
	__atomic_store_n(&rq->db->wptr, rq->wptr, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rq->db->flags, __ATOMIC_RELAXED) & DRM_COMPUTE_DOORBELL_NEED_WAKEUP)
		igt_assert_eq(onenode_userq_control(&rq->cd->dev, rq->id,
						    DRM_COMPUTE_USERQ_OP_WAKE), 0);
}

/** compute_rawq_submit - a FENCE to the state buffer's fence slot, committed. */
uint64_t compute_rawq_submit(struct compute_rawq *rq)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw = onenode_pkt_fence(pkt, rq->state.va + RAWQ_FENCE_OFF, ++rq->fence);

	compute_rawq_emit(rq, pkt, qw);
	compute_rawq_commit(rq);
	return rq->fence;
}

/** compute_rawq_sync - wait until the raw queue's fence reaches @value. */
void compute_rawq_sync(struct compute_rawq *rq, uint64_t value)
{
	int ret = onenode_userq_wait(&rq->cd->dev, rq->id, value,
				     COMPUTE_TIMEOUT_MS * 1000000ll);

	if (ret)
		dump_state(rq->cd, rq->id);
	igt_assert_f(ret == 0, "waiting for fence %" PRIu64 " of queue %u: %s\n", value,
		     rq->id, onenode_strerror(ret));
}

/** compute_rawq_ctx - CPU address of the raw queue's context save area. */
void *compute_rawq_ctx(struct compute_rawq *rq)
{
	return (char *)rq->state.cpu + RAWQ_CTX_OFF;
}

/* ---- races ---- */

struct race_ctl {
	int go;		/* round + 1 the children may start */
	int done;	/* children finished with the current round */
	int results[COMPUTE_RACE_MAX_CHILDREN];
	uint64_t slot[COMPUTE_RACE_SLOTS];
};

static void race_wait(const int *value, int want, uint64_t end)
{
	while (__atomic_load_n(value, __ATOMIC_ACQUIRE) != want) {
		igt_assert_f(compute_now_ns() < end, "race: a process did not arrive\n");
		sched_yield();
	}
}

void compute_race_rounds(unsigned int children, unsigned int rounds,
			 void (*setup)(unsigned int round, uint64_t *slot),
			 int (*fn)(int child, unsigned int round, const uint64_t *slot),
			 void (*check)(unsigned int round, const int *results, uint64_t *slot))
{
	static struct race_ctl *ctl;

	igt_assert_lte_u32(children, COMPUTE_RACE_MAX_CHILDREN);
	if (!ctl) {
		ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(ctl != MAP_FAILED);
	}
	memset(ctl, 0, sizeof(*ctl));

	igt_fork(child, (int)children) {
		for (unsigned int r = 0; r < rounds; r++) {
			uint64_t end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;

			race_wait(&ctl->go, (int)r + 1, end);
			ctl->results[child] = fn(child, r, ctl->slot);
			__atomic_add_fetch(&ctl->done, 1, __ATOMIC_ACQ_REL);
		}
	}
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;

		if (setup)
			setup(r, ctl->slot);
		__atomic_store_n(&ctl->done, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&ctl->go, (int)r + 1, __ATOMIC_RELEASE);
		race_wait(&ctl->done, (int)children, end);
		if (check)
			check(r, ctl->results, ctl->slot);
	}
	igt_waitchildren();
}

/* ---- sync objects ---- */

/**
 * compute_fence_status - the status of the fence a sync object holds
 * @point: a timeline point, or 0 for the binary fence
 *
 * Returns: 1 signaled, 0 pending, the fence's negative error when it was
 * signaled with one, -ENOENT when there is no fence (no point) yet.
 * Through a timeline only what the fence chain keeps is seen: a signaled
 * point may come back as a stub fence without the error.
 */
int compute_fence_status(int fd, uint32_t syncobj, uint64_t point)
{
	struct sync_file_info info;
	uint32_t binary = syncobj;
	int sync_fd = -1, ret;

	if (point) {
		igt_assert_eq(drmSyncobjCreate(fd, 0, &binary), 0);
		if (drmSyncobjTransfer(fd, binary, 0, syncobj, point, 0)) {
			drmSyncobjDestroy(fd, binary);
			return -ENOENT;
		}
	}
	ret = drmSyncobjExportSyncFile(fd, binary, &sync_fd);
	if (point)
		drmSyncobjDestroy(fd, binary);
	if (ret)
		return -ENOENT;
	memset(&info, 0, sizeof(info));
	ret = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info);
	close(sync_fd);
	igt_assert_eq(ret, 0);
	return info.status;
}

/* ---- the system ---- */

/** compute_read_param - a module parameter's value; 0 or -errno. */
int compute_read_param(const char *module, const char *param, unsigned long long *value)
{
	char path[PATH_MAX];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, param);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu", value);
	fclose(f);
	return n == 1 ? 0 : -EINVAL;
}

/**
 * compute_param_set - set a module parameter for a test, keeping its value
 * @p: the parameter; its value before the first set is kept in @p
 * @value: the value to set
 *
 * Skips the test when the parameter cannot be read; fails it when it
 * cannot be written. compute_param_restore() puts the kept value back.
 */
void compute_param_set(struct compute_param *p, unsigned long long value)
{
	if (!p->held) {
		igt_require(compute_read_param(p->module, p->name, &p->saved) == 0);
		p->held = true;
	}
	igt_assert_eq(compute_write_param(p->module, p->name, value), 0);
}

/** compute_param_restore - the value before compute_param_set(), if it ran */
void compute_param_restore(struct compute_param *p)
{
	if (!p->held)
		return;
	compute_write_param(p->module, p->name, p->saved);
	p->held = false;
}

/** compute_write_param - set a writable module parameter; 0 or -errno. */
int compute_write_param(const char *module, const char *param, unsigned long long value)
{
	char path[PATH_MAX], buf[32];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, param);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%llu\n", value);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/* Debugfs file @file of @cd's device, for reading or (@write) writing. */
static FILE *open_debugfs_mode(const struct compute_dev *cd, const char *file,
			       bool write)
{
	char path[PATH_MAX];

	if (onenode_debugfs_path(&cd->dev, file, path, sizeof(path)))
		return NULL;
	return fopen(path, write ? "we" : "re");
}

/* Debugfs file @file of @cd's device: the dri/N whose name has it. */
static FILE *open_debugfs(const struct compute_dev *cd, const char *file)
{
	return open_debugfs_mode(cd, file, false);
}

/**
 * compute_reset - reset @cd's device as a GPU reset would (debugfs
 * vcompute_reset): its running queues are reset, its export buffers'
 * importers told to map again
 * @cd: the device
 *
 * Returns: 0, or -ENOENT without the debugfs file.
 */
int compute_reset(const struct compute_dev *cd)
{
	FILE *f = open_debugfs_mode(cd, "vcompute_reset", true);
	int ret = 0;

	if (!f)
		return -ENOENT;
	if (fputs("1\n", f) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/**
 * compute_cus - read debugfs vcompute_cu of @cd's device: per compute
 * unit, the workgroups it ran and its worker thread
 * @cd: the device
 * @groups: filled, one entry per CU below @max
 * @pids: filled likewise with the workers' pids, or NULL
 * @max: entries at @groups and @pids
 *
 * Returns: the number of CUs, or -ENOENT without the debugfs file.
 */
int compute_cus(const struct compute_dev *cd, uint64_t *groups, int *pids, unsigned int max)
{
	FILE *f = open_debugfs(cd, "vcompute_cu");
	unsigned long long n;
	unsigned int cu;
	int count = 0, pid;

	if (!f)
		return -ENOENT;
	while (fscanf(f, " cu %u: %llu pid %d", &cu, &n, &pid) == 3) {
		if (cu < max) {
			groups[cu] = n;
			if (pids)
				pids[cu] = pid;
		}
		count++;
	}
	fclose(f);
	return count;
}

/**
 * compute_memory - read debugfs vcompute_memory of @cd's device: what its
 * buffers hold now
 * @cd: the device
 * @vram_used: set to the bytes of device memory allocated
 * @own_pages: set to the system pages the driver allocated for buffers
 *
 * Returns: 0, or -ENOENT without the debugfs file.
 */
int compute_memory(const struct compute_dev *cd, uint64_t *vram_used, int64_t *own_pages)
{
	FILE *f = open_debugfs(cd, "vcompute_memory");
	unsigned long long used;
	long long pages;
	int n;

	if (!f)
		return -ENOENT;
	n = fscanf(f, " vram_used: %llu own_pages: %lld", &used, &pages);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*vram_used = used;
	*own_pages = pages;
	return 0;
}

/*
 * compute_svm_set - SET_ATTR of one attribute on [p, p + size) of SVM VM vm;
 * returns 0 or the negative errno.
 */
int compute_svm_set(const struct compute_dev *cd, uint32_t vm, const void *p, uint64_t size,
		    uint32_t type, uint32_t value)
{
	struct drm_compute_svm_attr a = { .type = type, .value = value };

	return onenode_svm_set_attr(&cd->dev, vm, (uintptr_t)p, size, &a, 1);
}

/*
 * compute_svm_get - GET_ATTR of one attribute over [p, p + size), which must
 * succeed: the value, or for the access attributes (whose value names the
 * device, in) the access type the range has.
 */
uint32_t compute_svm_get(const struct compute_dev *cd, uint32_t vm, const void *p, uint64_t size,
			 uint32_t type, uint32_t in)
{
	struct drm_compute_svm_attr a = { .type = type, .value = in };
	int ret = onenode_svm_get_attr(&cd->dev, vm, (uintptr_t)p, size, &a, 1);

	igt_assert_f(ret == 0, "GET_ATTR type %u: %s\n", type, onenode_strerror(ret));
	return type >= DRM_COMPUTE_SVM_ATTR_ACCESS &&
	       type <= DRM_COMPUTE_SVM_ATTR_NO_ACCESS ? a.type : a.value;
}

/**
 * compute_svm_stat - one counter of debugfs vcompute_svm of @cd's device
 * @cd: the device
 * @key: its name: faults, pages_to_device, pages_to_ram, migrate_failed,
 *	mapped_ahead, fault_ns (nanoseconds of fault service)
 *
 * Returns: the count, -ENOENT without the file, -EINVAL without the key.
 */
int64_t compute_svm_stat(const struct compute_dev *cd, const char *key)
{
	FILE *f = open_debugfs(cd, "vcompute_svm");
	char name[32];
	long long v;
	int64_t ret = -EINVAL;

	if (!f)
		return -ENOENT;
	while (fscanf(f, " %31[^:]: %lld", name, &v) == 2)
		if (!strcmp(name, key))
			ret = v;
	fclose(f);
	return ret;
}

/**
 * compute_all_own_pages - system pages vcompute holds for buffers of every
 * instance, those of unplugged instances included (debugfs vcompute_memory
 * of @cd's device)
 * @cd: any vcompute device
 *
 * Returns: the count, or a negative errno.
 */
int64_t compute_all_own_pages(const struct compute_dev *cd)
{
	FILE *f = open_debugfs(cd, "vcompute_memory");
	long long pages;
	char key[32];
	int64_t ret = -EINVAL;

	if (!f)
		return -ENOENT;
	while (fscanf(f, " %31s %lld", key, &pages) == 2)
		if (!strcmp(key, "all_own_pages:"))
			ret = pages;
	fclose(f);
	return ret;
}

/**
 * compute_drop_cap - remove capability @cap from this thread's effective,
 * permitted and inheritable sets
 * @cap: CAP_*
 *
 * Returns: whether it worked.
 */
bool compute_drop_cap(unsigned int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int i = CAP_TO_INDEX(cap);
	uint32_t mask = CAP_TO_MASK(cap);

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	data[i].effective &= ~mask;
	data[i].permitted &= ~mask;
	data[i].inheritable &= ~mask;
	return syscall(SYS_capset, &hdr, data) == 0;
}

/* ---- memory ---- */

/** compute_rand32 - xorshift64*; @state must not be 0. */
uint32_t compute_rand32(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t pattern_word(uint32_t seed, size_t i)
{
	uint32_t x = seed ^ (uint32_t)(i * 0x9e3779b1u);

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	return x;
}

/** compute_fill_pattern - fill @size bytes (a multiple of 4) with a pattern of @seed. */
void compute_fill_pattern(void *dst, size_t size, uint32_t seed)
{
	uint32_t *p = dst;

	for (size_t i = 0; i < size / 4; i++)
		p[i] = pattern_word(seed, i);
}

/**
 * compute_check_pattern - whether @src holds the pattern of @seed
 * @bad: set to the first mismatching byte offset
 */
bool compute_check_pattern(const void *src, size_t size, uint32_t seed, size_t *bad)
{
	const uint32_t *p = src;

	for (size_t i = 0; i < size / 4; i++) {
		if (p[i] != pattern_word(seed, i)) {
			if (bad)
				*bad = i * 4;
			return false;
		}
	}
	return true;
}
