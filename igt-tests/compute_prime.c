// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of PRIME (dma-buf export and import, DRM_IOCTL_PRIME_*) on
 * compute buffers: the vendor-neutral coverage IGT 2.5 has only for Intel
 * and vgem. Export and import between two files, self-import, dma-buf
 * mmap(), every order of closing handles, dma-buf fds and files, bad fds,
 * and imports of buffers of other exporters (udmabuf, another DRM device),
 * which become GEM objects that VM_BIND refuses with -EOPNOTSUPP.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/udmabuf.h>
#include <xf86drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"
#include "onenode_igt.h"

IGT_TEST_DESCRIPTION("Checks PRIME export and import of compute buffers: "
		     "between files, self-import, dma-buf mmap, every close "
		     "order, bad fds, and imports of udmabuf and of another "
		     "device's buffers, which VM_BIND refuses with -EOPNOTSUPP.");

#define SIZE (16 * COMPUTE_PAGE)
#define RACE_CHILDREN 4
#define RACE_SECONDS 2

static struct compute_dev a = { .fd = -1 }, b = { .fd = -1 };


static int export_handle(const struct compute_dev *dev, uint32_t handle, uint32_t flags,
			 int *fd)
{
	return drmPrimeHandleToFD(dev->fd, handle, flags, fd) ? -errno : 0;
}

static int import_fd(const struct compute_dev *dev, int fd, uint32_t *handle)
{
	return drmPrimeFDToHandle(dev->fd, fd, handle) ? -errno : 0;
}

static int export_or_fail(const struct compute_dev *dev, uint32_t handle)
{
	int fd = -1;

	igt_assert_eq(export_handle(dev, handle, DRM_CLOEXEC | DRM_RDWR, &fd), 0);
	igt_assert_fd(fd);
	return fd;
}

static uint32_t import_or_fail(const struct compute_dev *dev, int fd)
{
	uint32_t handle = 0;

	igt_assert_eq(import_fd(dev, fd, &handle), 0);
	igt_assert_neq_u32(handle, 0);
	return handle;
}

/* A buffer of @placement in @dev filled with the pattern of @seed. */
static uint32_t filled_bo(const struct compute_dev *dev, uint64_t placement, uint32_t seed)
{
	uint32_t h = compute_bo(dev, SIZE, placement);
	void *m = compute_bo_map(dev, h, SIZE);

	compute_fill_pattern(m, SIZE, seed);
	munmap(m, SIZE);
	return h;
}

static void check_bo(const struct compute_dev *dev, uint32_t handle, uint32_t seed)
{
	void *m = compute_bo_map(dev, handle, SIZE);
	size_t bad = 0;

	igt_assert_f(compute_check_pattern(m, SIZE, seed, &bad),
		     "handle %u differs at byte %zu\n", handle, bad);
	munmap(m, SIZE);
}

static void dmabuf_sync(int fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	igt_assert_eq(ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), 0);
}

/* The dma-buf's own mmap() sees the pattern of @seed; then writes @next. */
static void check_dmabuf_mmap(int fd, uint32_t seed, uint32_t next)
{
	void *m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	size_t bad = 0;

	igt_assert(m != MAP_FAILED);
	dmabuf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
	igt_assert_f(compute_check_pattern(m, SIZE, seed, &bad),
		     "dma-buf mapping differs at byte %zu\n", bad);
	compute_fill_pattern(m, SIZE, next);
	dmabuf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
	munmap(m, SIZE);
}

/*
 * Binding @handle in a fresh VM of @dev must fail with -EOPNOTSUPP, leave
 * the range free (a buffer of @dev binds there afterwards), and the
 * imported handle stays usable for GEM_CLOSE.
 */
static void check_bind_refused(const struct compute_dev *dev, uint32_t handle, uint64_t size)
{
	uint32_t vm = compute_vm(dev), own;
	struct drm_compute_vm_bind bind = {
		.vm_id = vm,
		.op = DRM_COMPUTE_VM_BIND_OP_MAP,
		.handle = handle,
		.va = COMPUTE_BUF_VA(0),
		.range = size,
	};

	compute_expect_rejected(dev, DRM_COMPUTE_OP_VM_BIND, &bind, sizeof(bind), -EOPNOTSUPP);
	bind.flags = DRM_COMPUTE_VM_BIND_READONLY | DRM_COMPUTE_VM_BIND_NOEXEC;
	compute_expect_rejected(dev, DRM_COMPUTE_OP_VM_BIND, &bind, sizeof(bind), -EOPNOTSUPP);
	own = compute_bo(dev, size, DRM_COMPUTE_PLACEMENT_SYSTEM);
	compute_map(dev, vm, own, 0, COMPUTE_BUF_VA(0), size, 0);
	compute_vm_destroy(dev, vm);
	compute_bo_close(dev, own);
}

/* ---- another device ---- */

/* A dumb buffer made on a node of another driver than vcompute. */
struct foreign_dumb {
	uint32_t handle;
	uint32_t pitch;
};

static bool makes_foreign_dumb(int fd, void *arg)
{
	struct drm_mode_create_dumb create = {
		.width = SIZE / 4 / 64,
		.height = 64,
		.bpp = 32,
	};
	struct foreign_dumb *d = arg;

	if (onenode_fd_is_driver(fd, "vcompute") ||
	    drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) || create.size < SIZE)
		return false;
	d->handle = create.handle;
	d->pitch = create.pitch;
	return true;
}

/* A DRM node of a driver other than vcompute that creates dumb buffers. */
static int open_foreign_node(uint32_t *handle, uint32_t *pitch)
{
	struct foreign_dumb d;
	int fd = compute_open_card(makes_foreign_dumb, &d);

	if (fd >= 0) {
		*handle = d.handle;
		*pitch = d.pitch;
	}
	return fd;
}

static void *map_dumb(int fd, uint32_t handle)
{
	struct drm_mode_map_dumb map = { .handle = handle };
	void *m;

	igt_assert_eq(drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map), 0);
	m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.offset);
	igt_assert(m != MAP_FAILED);
	return m;
}

/* ---- race ---- */

static int race_fd = -1;
static uint32_t race_handle;

/*
 * Every child imports the same dma-buf into file b, maps the handle and
 * reads the pattern, then closes the handle. Handles are shared by the
 * file, so another child's close may make a lookup fail with -ENOENT;
 * whatever succeeded must see the buffer's bytes.
 */
static void race_importer(int child)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
	/*
	 * A child that lost every round to the others' closes (it happens
	 * under TCG) goes on alone, once they are done, until it maps one.
	 */
	uint64_t last = end + 30 * 1000000000ull;
	unsigned long ok = 0, lost = 0;

	while (compute_now_ns() < end || (!ok && compute_now_ns() < last)) {
		uint32_t h = import_or_fail(&b, race_fd);
		uint64_t offset;
		void *m;
		int ret;

		ret = onenode_bo_mmap_offset(&b.dev, h, &offset);
		if (ret == 0) {
			m = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, b.fd, offset);
			if (m != MAP_FAILED) {
				size_t bad;

				igt_assert_f(compute_check_pattern(m, SIZE, 4242, &bad),
					     "child %d: import differs at %zu\n", child, bad);
				munmap(m, SIZE);
				ok++;
			} else {
				lost++;
			}
		} else {
			igt_assert_eq(ret, -ENOENT);
			lost++;
		}
		ret = onenode_bo_close(&b.dev, h);
		igt_assert_f(ret == 0 || ret == -EINVAL, "GEM_CLOSE: %d\n", ret);
		if (child == 0) {
			/* And the exporter keeps exporting and dropping fds. */
			int fd = -1;

			igt_assert_eq(export_handle(&a, race_handle, DRM_CLOEXEC, &fd), 0);
			close(fd);
		}
	}
	igt_info("child %d: %lu mapped imports, %lu lost to a close\n", child, ok, lost);
	igt_assert_lt(0, (int)ok);
}

igt_main
{
	igt_fixture {
		compute_open(&a);
		compute_require_userq(&a);
		compute_open_file(&a, &b);
	}

	igt_describe("A buffer exported from one file and imported into another "
		     "is the same buffer: equal bytes through both files' "
		     "mappings, writes seen both ways, and the importer (the same "
		     "device) can bind it in its VM.");
	igt_subtest_with_dynamic("export-import") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&a, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				uint32_t ha = filled_bo(&a, compute_placements[p].placement, 11);
				int fd = export_or_fail(&a, ha);
				uint32_t hb = import_or_fail(&b, fd), vm;
				void *m;

				check_bo(&b, hb, 11);
				m = compute_bo_map(&b, hb, SIZE);
				compute_fill_pattern(m, SIZE, 12);
				munmap(m, SIZE);
				check_bo(&a, ha, 12);
				vm = compute_vm(&b);
				compute_map(&b, vm, hb, 0, COMPUTE_BUF_VA(0), SIZE, 0);
				compute_vm_destroy(&b, vm);
				close(fd);
				compute_bo_close(&b, hb);
				compute_bo_close(&a, ha);
			}
		}
	}

	igt_describe("Importing a file's own export returns the handle it "
		     "already has; importing the same dma-buf twice into another "
		     "file returns one handle too.");
	igt_subtest("self-import") {
		uint32_t ha = filled_bo(&a, DRM_COMPUTE_PLACEMENT_SYSTEM, 21);
		int fd = export_or_fail(&a, ha), fd2 = export_or_fail(&a, ha);
		uint32_t hb;

		igt_assert_eq_u32(import_or_fail(&a, fd), ha);
		igt_assert_eq_u32(import_or_fail(&a, fd2), ha);
		hb = import_or_fail(&b, fd);
		igt_assert_eq_u32(import_or_fail(&b, fd), hb);
		igt_assert_eq_u32(import_or_fail(&b, fd2), hb);
		check_bo(&b, hb, 21);
		close(fd);
		close(fd2);
		compute_bo_close(&b, hb);
		compute_bo_close(&a, ha);
	}

	igt_describe("mmap() of the exported dma-buf sees the same bytes as the "
		     "GEM mapping, and writes through it (between DMA_BUF_IOCTL_SYNC "
		     "calls) are seen through the GEM mapping and by an importer.");
	igt_subtest_with_dynamic("dmabuf-mmap") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&a, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				uint32_t ha = filled_bo(&a, compute_placements[p].placement, 31);
				int fd = export_or_fail(&a, ha);
				uint32_t hb;

				check_dmabuf_mmap(fd, 31, 32);
				check_bo(&a, ha, 32);
				hb = import_or_fail(&b, fd);
				check_bo(&b, hb, 32);
				close(fd);
				compute_bo_close(&b, hb);
				compute_bo_close(&a, ha);
			}
		}
	}

	igt_describe("Every close order keeps the buffer alive as long as "
		     "something refers to it: the handle before the dma-buf fd, "
		     "the fd before the handles, the exporter's whole file first, "
		     "the importer's file first, and a re-import after the "
		     "importer closed its handle.");
	igt_subtest_with_dynamic("close-order") {
		igt_dynamic("handle-then-fd") {
			uint32_t ha = filled_bo(&a, DRM_COMPUTE_PLACEMENT_SYSTEM, 41);
			int fd = export_or_fail(&a, ha);
			uint32_t hb;

			compute_bo_close(&a, ha);
			hb = import_or_fail(&b, fd);
			check_bo(&b, hb, 41);
			check_dmabuf_mmap(fd, 41, 42);
			close(fd);
			check_bo(&b, hb, 42);
			compute_bo_close(&b, hb);
		}
		igt_dynamic("fd-then-handles") {
			uint32_t ha = filled_bo(&a, DRM_COMPUTE_PLACEMENT_SYSTEM, 43);
			int fd = export_or_fail(&a, ha);
			uint32_t hb = import_or_fail(&b, fd);

			close(fd);
			check_bo(&b, hb, 43);
			check_bo(&a, ha, 43);
			compute_bo_close(&a, ha);
			check_bo(&b, hb, 43);
			compute_bo_close(&b, hb);
		}
		igt_dynamic("exporter-file-first") {
			static struct compute_dev e = { .fd = -1 };
			uint32_t he, hb;
			int fd, fd2;

			compute_open_file(&a, &e);
			he = filled_bo(&e, DRM_COMPUTE_PLACEMENT_VRAM & a.info.placements ?
				       DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM, 44);
			fd = export_or_fail(&e, he);
			hb = import_or_fail(&b, fd);
			compute_close(&e);
			check_bo(&b, hb, 44);
			check_dmabuf_mmap(fd, 44, 45);
			close(fd);
			check_bo(&b, hb, 45);
			/* The importer can export it on. */
			fd2 = export_or_fail(&b, hb);
			igt_assert_eq_u32(import_or_fail(&a, fd2), import_or_fail(&a, fd2));
			close(fd2);
			compute_bo_close(&b, hb);
		}
		igt_dynamic("importer-file-first") {
			static struct compute_dev i = { .fd = -1 };
			uint32_t ha = filled_bo(&a, DRM_COMPUTE_PLACEMENT_SYSTEM, 46);
			int fd = export_or_fail(&a, ha);

			compute_open_file(&a, &i);
			import_or_fail(&i, fd);
			compute_close(&i);
			close(fd);
			check_bo(&a, ha, 46);
			compute_bo_close(&a, ha);
		}
		igt_dynamic("reimport") {
			uint32_t ha = filled_bo(&a, DRM_COMPUTE_PLACEMENT_SYSTEM, 47);
			int fd = export_or_fail(&a, ha);
			uint32_t hb = import_or_fail(&b, fd);

			compute_bo_close(&b, hb);
			compute_bo_close(&a, ha);
			hb = import_or_fail(&b, fd);
			check_bo(&b, hb, 47);
			close(fd);
			compute_bo_close(&b, hb);
		}
	}

	igt_describe("Bad file descriptors fail: -1 and a closed fd with -EBADF; "
		     "the DRM fd itself, /dev/null and a memfd (not dma-bufs) with "
		     "-EINVAL; exporting handle 0 or an unknown handle with "
		     "-ENOENT, and unknown export flags with -EINVAL.");
	igt_subtest("bad-fds") {
		uint32_t h, ha = compute_bo(&a, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		int closed, null_fd, mem_fd, fd = -1;

		null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		mem_fd = memfd_create("compute_prime", MFD_CLOEXEC);
		igt_assert_fd(null_fd);
		igt_assert_fd(mem_fd);
		igt_assert_eq(ftruncate(mem_fd, SIZE), 0);

		/* A number that was a dma-buf a moment ago and is closed now. */
		closed = export_or_fail(&a, ha);
		close(closed);
		igt_assert_eq(import_fd(&a, closed, &h), -EBADF);
		igt_assert_eq(import_fd(&a, -1, &h), -EBADF);
		igt_assert_eq(import_fd(&a, a.fd, &h), -EINVAL);
		igt_assert_eq(import_fd(&a, null_fd, &h), -EINVAL);
		igt_assert_eq(import_fd(&a, mem_fd, &h), -EINVAL);
		igt_assert_eq(export_handle(&a, 0, DRM_CLOEXEC, &fd), -ENOENT);
		igt_assert_eq(export_handle(&a, ha + 1000, DRM_CLOEXEC, &fd), -ENOENT);
		igt_assert_eq(export_handle(&a, ha, 0x4, &fd), -EINVAL);
		igt_assert_eq(export_handle(&a, ha, DRM_CLOEXEC | 0x80000000u, &fd), -EINVAL);
		close(null_fd);
		close(mem_fd);
		compute_bo_close(&a, ha);
	}

	igt_describe("A udmabuf (memfd pages) imports as a GEM object whose "
		     "mapping through the render node shows the memfd's bytes, "
		     "but VM_BIND refuses it with -EOPNOTSUPP and leaves the range "
		     "free; the handle closes normally.");
	igt_subtest("import-udmabuf") {
		struct udmabuf_create create = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = SIZE };
		int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC), memfd, buf;
		uint32_t h;
		void *m;

		igt_require_f(dev >= 0, "no /dev/udmabuf\n");
		memfd = memfd_create("compute_prime", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		igt_assert_fd(memfd);
		igt_assert_eq(ftruncate(memfd, SIZE), 0);
		igt_assert_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
		m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		igt_assert(m != MAP_FAILED);
		compute_fill_pattern(m, SIZE, 51);
		munmap(m, SIZE);
		create.memfd = memfd;
		buf = ioctl(dev, UDMABUF_CREATE, &create);
		igt_assert_fd(buf);

		h = import_or_fail(&a, buf);
		igt_assert_eq_u32(import_or_fail(&a, buf), h);
		check_bind_refused(&a, h, SIZE);
		check_bo(&a, h, 51);
		compute_bo_close(&a, h);
		close(buf);
		close(memfd);
		close(dev);
	}

	igt_describe("A buffer of another DRM device (a dumb buffer of the first "
		     "other driver, e.g. vgem) imports as a GEM object that maps "
		     "its bytes through the render node, but VM_BIND refuses it "
		     "with -EOPNOTSUPP.");
	igt_subtest("import-foreign-device") {
		uint32_t dumb = 0, pitch = 0, h;
		int node = open_foreign_node(&dumb, &pitch), fd = -1;
		void *m;

		igt_require_f(node >= 0, "no other DRM device with dumb buffers\n");
		m = map_dumb(node, dumb);
		compute_fill_pattern(m, SIZE, 61);
		munmap(m, SIZE);
		igt_assert_eq(drmPrimeHandleToFD(node, dumb, DRM_CLOEXEC | DRM_RDWR, &fd), 0);
		h = import_or_fail(&a, fd);
		check_bind_refused(&a, h, SIZE);
		check_bo(&a, h, 61);
		compute_bo_close(&a, h);
		close(fd);
		close(node);
	}

	igt_describe("Processes sharing the importer's file import one dma-buf "
		     "over and over, map and read it and close the shared handle "
		     "while the exporter keeps exporting: lookups may lose to a "
		     "close (-ENOENT), every mapping that works shows the buffer.");
	igt_subtest("race-import-close") {
		uint32_t ha = filled_bo(&a, DRM_COMPUTE_PLACEMENT_SYSTEM, 4242);

		race_handle = ha;
		race_fd = export_or_fail(&a, ha);
		igt_fork(child, RACE_CHILDREN)
			race_importer(child);
		igt_waitchildren();
		close(race_fd);
		race_fd = -1;
		check_bo(&a, ha, 4242);
		compute_bo_close(&a, ha);
	}

	igt_fixture {
		compute_close(&b);
		compute_close(&a);
	}
}
