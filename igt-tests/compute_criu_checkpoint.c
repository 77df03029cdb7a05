// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_CRIU_CHECKPOINT (struct
 * drm_compute_criu_checkpoint): a paused file's buffers, GPU VMs and
 * mappings listed as they are, buffer contents read in pieces straight
 * into the caller's memory, the kernel's refusal of a file that holds what
 * it cannot save (counted in drm_compute_criu_info.unsaved), bad input,
 * the access rule, and a race with object churn and the resume.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/capability.h>

#include "igt_core.h"
#include "drmtest.h"

#include <xf86drm.h>

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_CRIU_CHECKPOINT: listing a "
		     "paused file's buffers, VMs and mappings, reading buffer "
		     "contents, refusing files with objects that cannot be "
		     "saved, bad input, the access rule and races.");

#define RACE_MS 3000

static struct compute_dev cd = { .fd = -1 };

static void pause_file(const struct compute_dev *f, uint32_t op)
{
	igt_assert_eq(onenode_criu_pause(&f->dev, op, NULL), 0);
}

static uint8_t pattern(uint32_t handle, uint64_t off)
{
	return (uint8_t)(handle * 131u + off * 7u + (off >> 12));
}

static void fill(const struct compute_dev *f, uint32_t handle, uint64_t size)
{
	uint8_t *p = compute_bo_map(f, handle, size);

	for (uint64_t i = 0; i < size; i++)
		p[i] = pattern(handle, i);
	munmap(p, size);
}

static void test_list(void)
{
	struct drm_compute_criu_bo bos[4];
	struct drm_compute_criu_vm vms[4];
	struct drm_compute_criu_mapping maps[4];
	struct compute_dev f;
	uint32_t a, b, c, vm1, vm2, n;
	uint64_t off;

	compute_open_file(&cd, &f);
	a = compute_bo(&f, 4 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	b = compute_bo(&f, 2 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	c = compute_bo(&f, COMPUTE_PAGE, compute_has_placement(&f, DRM_COMPUTE_PLACEMENT_VRAM) ?
		       DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM);
	/* A gap in the handles: b goes, c stays at its handle. */
	compute_bo_close(&f, b);
	igt_assert_eq(onenode_bo_mmap_offset(&f.dev, a, &off), 0);
	vm1 = compute_vm(&f);
	vm2 = compute_vm(&f);
	compute_map(&f, vm2, a, 0, COMPUTE_BUF_VA(0), 4 * COMPUTE_PAGE,
		    DRM_COMPUTE_VM_BIND_READONLY);
	/* Split by an unmap: both halves keep their flag. */
	compute_unmap(&f, vm2, COMPUTE_BUF_VA(0) + COMPUTE_PAGE, COMPUTE_PAGE);
	compute_map(&f, vm2, c, 0, COMPUTE_BUF_VA(1), COMPUTE_PAGE, DRM_COMPUTE_VM_BIND_NOEXEC);

	pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
	n = 0;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, NULL, &n), 0);
	igt_assert_eq_u32(n, 2);
	/* Room for one: one written, the count says two. */
	memset(bos, 0xa5, sizeof(bos));
	n = 1;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, bos, &n), 0);
	igt_assert_eq_u32(n, 2);
	igt_assert_eq_u32(bos[1].handle, 0xa5a5a5a5);
	n = 4;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, bos, &n), 0);
	igt_assert_eq_u32(n, 2);
	igt_assert_eq_u32(bos[0].handle, a);
	igt_assert_eq_u64(bos[0].size, 4 * COMPUTE_PAGE);
	igt_assert_eq_u64(bos[0].placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
	igt_assert_eq_u64(bos[0].mmap_offset, off);
	igt_assert_eq_u32(bos[1].handle, c);
	igt_assert_eq_u64(bos[1].size, COMPUTE_PAGE);
	igt_assert_eq_u64(bos[1].mmap_offset, 0);
	/* Neither is held by anything but this file: no share id. */
	igt_assert(!bos[0].flags && !bos[0].share && !bos[1].flags && !bos[1].share);

	n = 4;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_VMS, vms, &n), 0);
	igt_assert_eq_u32(n, 2);
	igt_assert_eq_u32(vms[0].id, vm1);
	igt_assert_eq_u32(vms[1].id, vm2);
	igt_assert_eq_u32(vms[0].flags, 0);

	n = 4;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS, maps, &n), 0);
	igt_assert_eq_u32(n, 3);
	igt_assert_eq_u32(maps[0].vm_id, vm2);
	igt_assert_eq_u32(maps[0].handle, a);
	igt_assert_eq_u64(maps[0].va, COMPUTE_BUF_VA(0));
	igt_assert_eq_u64(maps[0].range, COMPUTE_PAGE);
	igt_assert_eq_u64(maps[0].bo_offset, 0);
	igt_assert_eq_u64(maps[0].flags, DRM_COMPUTE_VM_BIND_READONLY);
	igt_assert_eq_u64(maps[1].va, COMPUTE_BUF_VA(0) + 2 * COMPUTE_PAGE);
	igt_assert_eq_u64(maps[1].range, 2 * COMPUTE_PAGE);
	igt_assert_eq_u64(maps[1].bo_offset, 2 * COMPUTE_PAGE);
	igt_assert_eq_u64(maps[1].flags, DRM_COMPUTE_VM_BIND_READONLY);
	igt_assert_eq_u32(maps[2].handle, c);
	igt_assert_eq_u64(maps[2].flags, DRM_COMPUTE_VM_BIND_NOEXEC);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);
	compute_close(&f);
}

/*
 * Pending sync-object signals: counted by INFO, listed by queue and, in a
 * queue, in the order it completes them, whatever order they were asked
 * in; a short array gets the first ones and the full count.
 */
static void test_signals(void)
{
	static const uint64_t values[] = { 30, 10, 20 };
	struct drm_compute_criu_signal e[4];
	struct drm_compute_criu_info info;
	struct compute_queue q0, q1;
	struct compute_dev f;
	uint32_t vm, bin, tl, n;

	compute_open_file(&cd, &f);
	vm = compute_vm(&f);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(0), &q0);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(1), &q1);
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &bin), 0);
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &tl), 0);
	for (int i = 0; i < 3; i++)
		igt_assert_eq(onenode_userq_signal(&f.dev, q0.q.id, 1000 + values[i], tl,
						   values[i]), 0);
	igt_assert_eq(onenode_userq_signal(&f.dev, q1.q.id, 1000, bin, 0), 0);
	igt_assert_eq(onenode_criu_info(&f.dev, &info), 0);
	igt_assert_eq_u32(info.signals, 4);
	igt_assert_eq_u32(info.unsaved, cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU ? 0 : 2);
	igt_require(cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU);

	pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
	n = 0;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS, NULL, &n), 0);
	igt_assert_eq_u32(n, 4);
	memset(e, 0xa5, sizeof(e));
	n = 2;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS, e, &n), 0);
	igt_assert_eq_u32(n, 4);
	igt_assert_eq_u32(e[2].handle, 0xa5a5a5a5);
	n = 4;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS, e, &n), 0);
	igt_assert_eq_u32(n, 4);
	for (int i = 0; i < 3; i++) {
		igt_assert_eq_u32(e[i].queue_id, q0.q.id);
		igt_assert_eq_u32(e[i].handle, tl);
		igt_assert_eq_u64(e[i].value, 1010 + 10 * i);
		igt_assert_eq_u64(e[i].point, 10 + 10 * i);
		igt_assert_eq_u64(e[i].reserved, 0);
	}
	igt_assert_eq_u32(e[3].queue_id, q1.q.id);
	igt_assert_eq_u32(e[3].handle, bin);
	igt_assert_eq_u64(e[3].value, 1000);
	igt_assert_eq_u64(e[3].point, 0);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);

	/* Listing changed nothing: the queue completes them later as before. */
	igt_assert_eq(onenode_criu_info(&f.dev, &info), 0);
	igt_assert_eq_u32(info.signals, 4);
	compute_queue_fini(&q1);
	compute_queue_fini(&q0);
	compute_close(&f);
}

static void test_read_bo(void)
{
	const uint64_t size = 64 * COMPUTE_PAGE;
	struct compute_dev f;
	uint8_t *buf;
	uint32_t h;

	compute_open_file(&cd, &f);
	buf = malloc(size + 1);
	igt_assert(buf);
	for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(compute_placements); i++) {
		const struct compute_placement *pl = &compute_placements[i];
		uint64_t off = 0, step = 1;

		if (!compute_has_placement(&f, pl->placement))
			continue;
		h = compute_bo(&f, size, pl->placement);
		fill(&f, h, size);
		pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
		memset(buf, 0, size + 1);
		/* Pieces of growing, unaligned sizes cross every page edge. */
		while (off < size) {
			uint64_t len = step < size - off ? step : size - off;

			igt_assert_eq(onenode_criu_read_bo(&f.dev, h, off, buf + off, len), 0);
			off += len;
			step = step * 3 + 1;
		}
		for (uint64_t j = 0; j < size; j++)
			igt_assert_f(buf[j] == pattern(h, j), "%s: byte %llu is %#x, want %#x\n",
				     pl->name, (unsigned long long)j, buf[j], pattern(h, j));
		igt_assert_eq(buf[size], 0);
		/* Outside the buffer, an unknown handle, memory it cannot write. */
		igt_assert_eq(onenode_criu_read_bo(&f.dev, h, size - 1, buf, 2), -EINVAL);
		igt_assert_eq(onenode_criu_read_bo(&f.dev, h, size + COMPUTE_PAGE, buf, 1), -EINVAL);
		igt_assert_eq(onenode_criu_read_bo(&f.dev, h, 0, buf, 0), -EINVAL);
		igt_assert_eq(onenode_criu_read_bo(&f.dev, h + 100, 0, buf, 1), -ENOENT);
		igt_assert_eq(onenode_criu_read_bo(&f.dev, h, 0, (void *)16, COMPUTE_PAGE),
			      -EFAULT);
		pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);
		/* Not paused: the queues could be writing. */
		igt_assert_eq(onenode_criu_read_bo(&f.dev, h, 0, buf, 1), -EBUSY);
		compute_bo_close(&f, h);
	}
	free(buf);
	compute_close(&f);
}

/* sw_sync (debugfs): a timeline whose fences signal when the test says. */
struct sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};
#define SW_SYNC_IOC_CREATE_FENCE	_IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC_IOC_INC			_IOW('W', 1, uint32_t)

static void expect_unsaved(const struct compute_dev *f, uint32_t want)
{
	struct drm_compute_criu_info i;
	uint32_t n = 0;

	igt_assert_eq(onenode_criu_info(&f->dev, &i), 0);
	igt_assert_eq_u32(i.unsaved, want);
	pause_file(f, DRM_COMPUTE_CRIU_OP_PAUSE);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, NULL, &n),
		      want ? -EOPNOTSUPP : 0);
	n = 0;
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS, NULL, &n),
		      want ? -EOPNOTSUPP : 0);
	pause_file(f, DRM_COMPUTE_CRIU_OP_RESUME);
}

static void test_unsaved(void)
{
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	struct drm_compute_userq_state st;
	uint32_t a, vm, svm, so, word = 1;
	struct compute_queue q;
	struct compute_dev f;
	int dmabuf, timeline, vgem;

	compute_open_file(&cd, &f);
	expect_unsaved(&f, 0);
	a = compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	vm = compute_vm(&f);
	compute_map(&f, vm, a, 0, COMPUTE_BUF_VA(0), COMPUTE_PAGE, 0);
	expect_unsaved(&f, 0);

	/* A queue: saved where the device restores queues. */
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(0), &q);
	expect_unsaved(&f, cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU ? 0 : 1);
	/*
	 * A sync-object signal pending on it: saved, and so is the sync
	 * object the signal holds. Once its handle is closed, the signal
	 * names no sync object of the file: that one is not.
	 */
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &so), 0);
	igt_assert_eq(onenode_userq_signal(&f.dev, q.q.id, 1000, so, 1), 0);
	expect_unsaved(&f, cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU ? 0 : 1);
	drmSyncobjDestroy(f.fd, so);
	expect_unsaved(&f, cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU ? 1 : 2);
	compute_queue_fini(&q);
	expect_unsaved(&f, 0);
	/* A sync object whose fence is pending: not saved; signaled, it is. */
	timeline = open("/sys/kernel/debug/sync/sw_sync", O_RDWR);
	if (timeline >= 0) {
		struct sw_sync_create_fence_data fd_args = { .value = 1, .name = "criu" };
		struct drm_compute_criu_syncobj e;
		uint32_t inc = 1, n = 1;

		igt_assert_eq(ioctl(timeline, SW_SYNC_IOC_CREATE_FENCE, &fd_args), 0);
		igt_assert_eq(drmSyncobjCreate(f.fd, 0, &so), 0);
		igt_assert_eq(drmSyncobjImportSyncFile(f.fd, so, fd_args.fence), 0);
		close(fd_args.fence);
		expect_unsaved(&f, 1);
		igt_assert_eq(ioctl(timeline, SW_SYNC_IOC_INC, &inc), 0);
		expect_unsaved(&f, 0);
		pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
		igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS, &e,
						&n), 0);
		igt_assert_eq_u32(n, 1);
		igt_assert_eq_u32(e.handle, so);
		igt_assert_eq_u32(e.flags, DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED);
		pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);
		drmSyncobjDestroy(f.fd, so);
		close(timeline);
	} else {
		igt_info("no sw_sync in debugfs: a pending sync object not tried\n");
	}
	/* A sync object shared through an fd: not saved; once private, it is. */
	igt_assert_eq(drmSyncobjCreate(f.fd, DRM_SYNCOBJ_CREATE_SIGNALED, &so), 0);
	expect_unsaved(&f, 0);
	igt_assert_eq(drmSyncobjHandleToFD(f.fd, so, &dmabuf), 0);
	expect_unsaved(&f, 1);
	close(dmabuf);
	expect_unsaved(&f, 0);
	drmSyncobjDestroy(f.fd, so);
	/* A faulted queue: not saved. */
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(0), &q);
	compute_emit(&q, pkt, onenode_pkt_write_data(pkt, COMPUTE_BUF_VA(9), &word, 1));
	compute_submit(&q);
	igt_assert(compute_poll_status(&f, q.q.id, DRM_COMPUTE_USERQ_STATUS_FAULTED,
				       COMPUTE_TIMEOUT_MS, &st));
	expect_unsaved(&f, 1);
	compute_queue_fini(&q);
	expect_unsaved(&f, 0);

	/* A mapping of a buffer the file has no handle to any more. */
	compute_bo_close(&f, a);
	expect_unsaved(&f, 1);
	compute_unmap(&f, vm, COMPUTE_BUF_VA(0), COMPUTE_PAGE);
	expect_unsaved(&f, 0);

	/*
	 * An exported buffer: saved while an fd holds its dma-buf (listed
	 * with a share id, compute_criu_restore@shared), not while an
	 * importer is attached, which would stay attached to this buffer and
	 * not to the restored one (the pause refuses it too).
	 */
	a = compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	dmabuf = compute_prime_fd(&f, a);
	expect_unsaved(&f, 0);
	vgem = compute_open_vgem();
	if (vgem >= 0) {
		struct drm_compute_criu_info i;
		uint32_t imp;

		igt_assert_eq(drmPrimeFDToHandle(vgem, dmabuf, &imp), 0);
		igt_assert_eq(onenode_criu_info(&f.dev, &i), 0);
		igt_assert_eq_u32(i.unsaved, 1);
		igt_assert_eq(drmCloseBufferHandle(vgem, imp), 0);
		close(vgem);
	} else {
		igt_info("no vgem: a buffer with an importer not tried\n");
	}
	close(dmabuf);
	expect_unsaved(&f, 0);
	compute_bo_close(&f, a);
	expect_unsaved(&f, 0);

	/*
	 * An SVM VM is saved (compute_criu_restore@svm), but not once another
	 * process owns the file: it mirrors its creator's address space, which
	 * a restore in the owner would not give it.
	 */
	if (onenode_vm_create_flags(&f.dev, DRM_COMPUTE_VM_CREATE_SVM, &svm) == 0) {
		expect_unsaved(&f, 0);
		igt_fork(child, 1) {
			struct drm_compute_query_device d;

			/* An ordinary ioctl: the child owns the file now. */
			igt_assert_eq(onenode_query_device(&f.dev, &d), 0);
			expect_unsaved(&f, 1);
		}
		igt_waitchildren();
		igt_assert_eq(onenode_query_device(&f.dev, &f.info), 0);
		expect_unsaved(&f, 0);
		compute_vm_destroy(&f, svm);
	}
	expect_unsaved(&f, 0);
	compute_close(&f);
}

static void test_dmabuf(void)
{
	struct drm_compute_criu_checkpoint args;
	struct drm_compute_criu_share d, e;
	struct drm_compute_criu_bo bo;
	struct compute_dev f, g;
	uint32_t a, b, c, n;
	int fd, closed, vgem;
	struct stat st;

	compute_open_file(&cd, &f);
	compute_open_file(&cd, &g);
	a = compute_bo(&f, 3 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	fd = compute_prime_fd(&f, a);

	/* Any file, paused or not, names its buffer of the dma-buf. */
	igt_assert_eq(onenode_criu_dmabuf(&f.dev, fd, &d), 0);
	igt_assert_eq_u32(d.handle, a);
	igt_assert_eq_u64(d.size, 3 * COMPUTE_PAGE);
	igt_assert(d.share);
	igt_assert_eq_u32(d.flags, 0);
	igt_assert_eq_u32(d.files, 1);
	igt_assert_eq_u32(d.pad, 0);
	/* The dma-buf's inode, as fstat() of its fd gives it. */
	igt_assert_eq(fstat(fd, &st), 0);
	igt_assert_eq_u64(d.dmabuf_ino, st.st_ino);
	igt_assert(d.dmabuf_ino);
	/* A buffer never exported has no dma-buf: 0. */
	c = compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	igt_assert_eq(onenode_criu_bo_share(&f.dev, c, &e), 0);
	igt_assert_eq_u64(e.dmabuf_ino, 0);
	compute_bo_close(&f, c);
	/* Not in g until g imports it; then under g's handle, the same id. */
	igt_assert_eq(onenode_criu_dmabuf(&g.dev, fd, &e), -ENOENT);
	igt_assert_eq(drmPrimeFDToHandle(g.fd, fd, &b), 0);
	igt_assert_eq(onenode_criu_dmabuf(&g.dev, fd, &e), 0);
	igt_assert_eq_u32(e.handle, b);
	igt_assert_eq_u64(e.share, d.share);
	igt_assert_eq_u32(e.files, 2);
	/* BO_SHARE says the same by handle, in each file. */
	igt_assert_eq(onenode_criu_bo_share(&f.dev, a, &e), 0);
	igt_assert(e.handle == a && e.share == d.share && e.files == 2 &&
		   e.size == 3 * COMPUTE_PAGE);
	igt_assert_eq(onenode_criu_bo_share(&g.dev, b, &e), 0);
	igt_assert(e.handle == b && e.share == d.share && e.files == 2);
	igt_assert_eq_u64(e.dmabuf_ino, d.dmabuf_ino);
	igt_assert_eq(onenode_criu_bo_share(&g.dev, b + 100, &e), -ENOENT);

	/* The list names it by the same id; once the file alone holds it, by none. */
	pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
	n = 1;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, &bo, &n), 0);
	igt_assert_eq_u64(bo.share, d.share);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);
	close(fd);
	compute_bo_close(&g, b);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
	n = 1;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, &bo, &n), 0);
	igt_assert_eq_u64(bo.share, 0);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);

	/* Not a dma-buf, no fd, another device's dma-buf. */
	igt_assert_eq(onenode_criu_dmabuf(&f.dev, f.fd, &d), -EINVAL);
	closed = dup(f.fd);
	close(closed);
	igt_assert_eq(onenode_criu_dmabuf(&f.dev, closed, &d), -EBADF);
	vgem = compute_open_vgem();
	if (vgem >= 0) {
		struct drm_mode_create_dumb create = { .width = 64, .height = 16, .bpp = 32 };
		int vfd;

		igt_assert_eq(drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create), 0);
		igt_assert_eq(drmPrimeHandleToFD(vgem, create.handle, DRM_CLOEXEC, &vfd), 0);
		igt_assert_eq(onenode_criu_dmabuf(&f.dev, vfd, &d), -ENOENT);
		close(vfd);
		close(vgem);
	} else {
		igt_info("no vgem: another device's dma-buf not tried\n");
	}
	/* Fields DMABUF and BO_SHARE do not use. */
	fd = compute_prime_fd(&f, a);
	for (int i = 0; i < 6; i++) {
		memset(&args, 0, sizeof(args));
		args.op = i < 3 ? DRM_COMPUTE_CRIU_CKPT_DMABUF : DRM_COMPUTE_CRIU_CKPT_BO_SHARE;
		args.id = i < 3 ? (uint32_t)fd : a;
		args.ptr = (uintptr_t)&d;
		switch (i % 3) {
		case 0: args.count = 1; break;
		case 1: args.offset = 1; break;
		default: args.size = 1; break;
		}
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &args, sizeof(args),
					-EINVAL);
	}
	memset(&args, 0, sizeof(args));
	args.op = DRM_COMPUTE_CRIU_CKPT_DMABUF;
	args.id = (uint32_t)fd;
	args.ptr = 8;	/* unwritable */
	igt_assert_eq(onenode_criu_checkpoint(&f.dev, &args), -EFAULT);
	close(fd);
	compute_close(&g);
	compute_close(&f);
}

static void test_invalid(void)
{
	struct drm_compute_criu_checkpoint ok = { .op = DRM_COMPUTE_CRIU_CKPT_LIST_BOS }, bad;
	struct compute_dev f;
	unsigned int i;

	compute_open_file(&cd, &f);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
	igt_assert_eq(onenode_criu_checkpoint(&f.dev, &ok), 0);
	igt_assert_eq_u32(ok.count, 0);
	for (i = 0; i < 3; i++) {
		bad = ok;
		bad.op = (uint32_t[]){ 0, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS + 1, 0xffffffffu }[i];
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad),
					-EINVAL);
	}
	for (i = 0; i < 32; i++) {
		bad = ok;
		bad.flags = 1u << i;
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad),
					-EINVAL);
	}
	for (i = 0; i < 2; i++) {
		bad = ok;
		bad.reserved[i] = 1;
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad),
					-EINVAL);
	}
	/* Fields a LIST op does not use, and READ_BO's count. */
	bad = ok;
	bad.id = 1;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad), -EINVAL);
	bad = ok;
	bad.offset = COMPUTE_PAGE;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad), -EINVAL);
	bad = ok;
	bad.size = COMPUTE_PAGE;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad), -EINVAL);
	bad = ok;
	bad.op = DRM_COMPUTE_CRIU_CKPT_READ_BO;
	bad.count = 1;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &bad, sizeof(bad), -EINVAL);
	pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);
	/* Not paused. */
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_CHECKPOINT, &ok, sizeof(ok), -EBUSY);
	compute_close(&f);
}

static void test_access(void)
{
	igt_fork(child, 1) {
		struct drm_compute_criu_checkpoint c = { .op = DRM_COMPUTE_CRIU_CKPT_LIST_BOS };
		struct compute_dev f;

		compute_open_file(&cd, &f);
		pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
		igt_assert(compute_drop_cap(CAP_CHECKPOINT_RESTORE));
		igt_assert(compute_drop_cap(CAP_SYS_ADMIN));
		igt_assert_eq(onenode_criu_checkpoint(&f.dev, &c), -EPERM);
		compute_close(&f);
	}
	igt_waitchildren();
}

struct churn {
	const struct compute_dev *f;
	atomic_bool stop;
	atomic_uint made;
};

/* Buffers and mappings come and go while the checkpoint looks. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	uint32_t vm = compute_vm(c->f);

	while (!atomic_load(&c->stop)) {
		uint32_t h = compute_bo(c->f, 2 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

		compute_map(c->f, vm, h, 0, COMPUTE_BUF_VA(2), 2 * COMPUTE_PAGE, 0);
		compute_unmap(c->f, vm, COMPUTE_BUF_VA(2), 2 * COMPUTE_PAGE);
		compute_bo_close(c->f, h);
		atomic_fetch_add(&c->made, 1);
	}
	compute_vm_destroy(c->f, vm);
	return NULL;
}

static void test_race(void)
{
	struct drm_compute_criu_bo bos[16];
	struct drm_compute_criu_mapping maps[16];
	struct churn c = { .stop = false };
	struct compute_dev f;
	uint64_t end = compute_now_ns() + RACE_MS * 1000000ull;
	unsigned int rounds = 0, reads = 0, refused = 0;
	uint8_t buf[2 * COMPUTE_PAGE];
	pthread_t t;

	compute_open_file(&cd, &f);
	c.f = &f;
	igt_assert_eq(pthread_create(&t, NULL, churn_thread, &c), 0);
	while (compute_now_ns() < end) {
		uint32_t n = COMPUTE_ARRAY_SIZE(bos), m = COMPUTE_ARRAY_SIZE(maps);
		int ret;

		pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE);
		/*
		 * Every list first asks what cannot be saved: a mapping seen
		 * just before its buffer's handle closed is such a thing.
		 */
		ret = onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, bos, &n);
		igt_assert_f(ret == 0 || ret == -EOPNOTSUPP, "buffers: %d\n", ret);
		if (ret)
			n = 0;
		refused += !!ret;
		for (uint32_t i = 0; i < n && i < COMPUTE_ARRAY_SIZE(bos); i++) {
			ret = onenode_criu_read_bo(&f.dev, bos[i].handle, 0, buf, bos[i].size);
			/* The buffer may have gone since the list. */
			igt_assert_f(ret == 0 || ret == -ENOENT, "read: %d\n", ret);
			reads += !ret;
		}
		/* A mapping whose handle just closed cannot be saved. */
		ret = onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS, maps, &m);
		igt_assert_f(ret == 0 || ret == -EOPNOTSUPP, "mappings: %d\n", ret);
		refused += !!ret;
		pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME);
		rounds++;
	}
	atomic_store(&c.stop, true);
	pthread_join(t, NULL);
	igt_info("%u checkpoint rounds, %u lists refused by the race, %u buffers read, %u "
		 "buffers made meanwhile\n", rounds, refused, reads, atomic_load(&c.made));
	igt_assert_lt(0, (int)atomic_load(&c.made));
	/* The race allows refusals, not that nothing is ever read. */
	igt_assert_lt(0, (int)reads);
	compute_close(&f);
}

igt_main
{
	igt_fixture {
		struct drm_compute_query_device *info;

		compute_open(&cd);
		compute_require_userq(&cd);
		info = &cd.info;
		igt_require_f(info->features & DRM_COMPUTE_FEATURE_CRIU,
			      "the device does not report DRM_COMPUTE_FEATURE_CRIU\n");
		igt_require_f(geteuid() == 0, "root (CAP_CHECKPOINT_RESTORE)\n");
	}

	igt_describe("A paused file's buffers (handle, size, placement, mmap "
		     "offset), VMs and mappings (flags kept across a split) "
		     "are listed as they are; a short array gets the first "
		     "entries and the full count.");
	igt_subtest("list")
		test_list();

	igt_describe("Sync-object signals pending on two queues: INFO counts "
		     "them, LIST_SIGNALS gives them by queue and in completion "
		     "order, a short array the first ones and the full count.");
	igt_subtest("signals")
		test_signals();

	igt_describe("Buffer contents in each placement are read in pieces of "
		     "unaligned sizes, byte for byte; a range outside the "
		     "buffer, an empty one, an unknown handle, unwritable "
		     "memory and a file not paused are refused.");
	igt_subtest("read-bo")
		test_read_bo();

	igt_describe("A sync-object signal pending on a closed handle, a faulted "
		     "queue, a sync object with a pending fence or shared "
		     "through an fd, a buffer an importer is attached to, an SVM VM and a "
		     "mapping of a buffer without a handle count as unsaved (a queue alone "
		     "does not, where the device restores queues), and the "
		     "kernel refuses to list a file holding any; gone, the "
		     "file can be saved again.");
	igt_subtest("unsaved")
		test_unsaved();

	igt_describe("DMABUF names the buffer of a dma-buf fd in any file that holds it, by "
		     "the share id LIST_BOS gives it while it is shared, and BO_SHARE says "
		     "the same by handle, counting the files and naming the dma-buf's inode "
		     "(0 for a buffer never exported); foreign dma-bufs, other fds, "
		     "unknown handles and bad arguments are refused.");
	igt_subtest("dmabuf")
		test_dmabuf();

	igt_describe("An unknown op, each flag bit, each reserved word, fields "
		     "the op does not use, a file not paused: refused with the "
		     "argument unchanged.");
	igt_subtest("invalid")
		test_invalid();

	igt_describe("The owner without CAP_CHECKPOINT_RESTORE and "
		     "CAP_SYS_ADMIN gets -EPERM.");
	igt_subtest("access")
		test_access();

	igt_describe("A thread makes, maps and closes buffers while the file "
		     "is paused, listed, read and resumed over and over: only "
		     "the answers the race allows.");
	igt_subtest("race")
		test_race();

	igt_fixture
		compute_close(&cd);
}
