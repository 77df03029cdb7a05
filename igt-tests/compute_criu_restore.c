// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_CRIU_RESTORE (struct drm_compute_criu_restore):
 * a file checkpointed through DRM_COMPUTE_OP_CRIU_CHECKPOINT is rebuilt in
 * a fresh file with the same handles, contents, VM ids and mappings; the
 * restoring state refuses every other ioctl, DRM core's included, so a
 * racing thread can neither see nor take a handle; collisions and bad
 * entries fail cleanly; a restore given up frees everything; user queues
 * come back where the checkpoint stopped them, mid-packet included; bad
 * input and the access rule.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/userfaultfd.h>

#include "igt_core.h"
#include "drmtest.h"

#include <xf86drm.h>

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_CRIU_RESTORE: a checkpointed "
		     "file rebuilt with the same handles, contents, VMs and "
		     "mappings; the restoring state refusing every other "
		     "ioctl; collisions, bad entries, a given-up restore, bad "
		     "input, the access rule and races.");

#define MAX_OBJS 16

static struct compute_dev cd = { .fd = -1 };

/* What a checkpoint of a file read: its objects and contents. */
struct image {
	struct drm_compute_criu_bo bos[MAX_OBJS];
	uint8_t *data[MAX_OBJS];
	struct drm_compute_criu_vm vms[MAX_OBJS];
	struct drm_compute_criu_mapping maps[MAX_OBJS];
	struct drm_compute_criu_queue queues[MAX_OBJS];
	struct drm_compute_criu_syncobj syncobjs[MAX_OBJS];
	struct drm_compute_criu_signal signals[MAX_OBJS];
	uint32_t nbos, nvms, nmaps, nqueues, nsyncobjs, nsignals;
};

static void checkpoint(const struct compute_dev *f, struct image *img)
{
	memset(img, 0, sizeof(*img));
	img->nbos = img->nvms = img->nmaps = img->nqueues = img->nsyncobjs = MAX_OBJS;
	img->nsignals = MAX_OBJS;
	igt_assert_eq(onenode_criu_pause(&f->dev, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), 0);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, img->bos,
					&img->nbos), 0);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_VMS, img->vms,
					&img->nvms), 0);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS, img->maps,
					&img->nmaps), 0);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES, img->queues,
					&img->nqueues), 0);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS,
					img->syncobjs, &img->nsyncobjs), 0);
	igt_assert_eq(onenode_criu_list(&f->dev, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS,
					img->signals, &img->nsignals), 0);
	igt_assert(img->nbos <= MAX_OBJS && img->nvms <= MAX_OBJS && img->nmaps <= MAX_OBJS &&
		   img->nqueues <= MAX_OBJS && img->nsyncobjs <= MAX_OBJS &&
		   img->nsignals <= MAX_OBJS);
	for (uint32_t i = 0; i < img->nbos; i++) {
		img->data[i] = malloc(img->bos[i].size);
		igt_assert(img->data[i]);
		igt_assert_eq(onenode_criu_read_bo(&f->dev, img->bos[i].handle, 0, img->data[i],
						   img->bos[i].size), 0);
	}
	igt_assert_eq(onenode_criu_pause(&f->dev, DRM_COMPUTE_CRIU_OP_RESUME, NULL), 0);
}

static void image_free(struct image *img)
{
	for (uint32_t i = 0; i < img->nbos; i++)
		free(img->data[i]);
}

/*
 * Rebuild @img in @f, a fresh file, in restore session @session (0: none);
 * 0 or the first error. A buffer the session had is not written again.
 */
static int restore_in(const struct compute_dev *f, struct image *img, uint64_t session)
{
	uint32_t n;
	int ret;

	ret = onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < img->nbos; i++) {
		img->bos[i].mmap_offset = 0;
		img->bos[i].flags &= ~DRM_COMPUTE_CRIU_BO_JOINED;
	}
	n = img->nbos;
	ret = onenode_criu_restore_bos(&f->dev, session, img->bos, &n);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < img->nbos; i++) {
		if (img->bos[i].flags & DRM_COMPUTE_CRIU_BO_JOINED)
			continue;
		ret = onenode_criu_write_bo(&f->dev, img->bos[i].handle, 0, img->data[i],
					    img->bos[i].size);
		if (ret)
			return ret;
	}
	n = img->nvms;
	ret = onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_VMS, img->vms, &n);
	if (ret)
		return ret;
	n = img->nmaps;
	ret = onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, img->maps, &n);
	if (ret)
		return ret;
	if (img->nsyncobjs) {
		n = img->nsyncobjs;
		ret = onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS,
					   img->syncobjs, &n);
		if (ret)
			return ret;
	}
	if (img->nqueues) {
		for (uint32_t i = 0; i < img->nqueues; i++)
			img->queues[i].doorbell_offset = 0;
		n = img->nqueues;
		ret = onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, img->queues,
					   &n);
		if (ret)
			return ret;
	}
	if (img->nsignals) {
		n = img->nsignals;
		ret = onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_SIGNALS, img->signals,
					   &n);
		if (ret)
			return ret;
	}
	return onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL);
}

static int restore(const struct compute_dev *f, struct image *img)
{
	return restore_in(f, img, 0);
}

/* A file with holes in its handles and VM ids, patterns, split mappings. */
static void build(const struct compute_dev *f)
{
	uint64_t vram = compute_has_placement(f, DRM_COMPUTE_PLACEMENT_VRAM) ?
			DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM;
	uint32_t h[4], vm[3];

	for (int i = 0; i < 4; i++) {
		uint64_t size = (uint64_t)(i + 1) * 3 * COMPUTE_PAGE;
		uint8_t *p;

		h[i] = compute_bo(f, size, i & 1 ? vram : DRM_COMPUTE_PLACEMENT_SYSTEM);
		p = compute_bo_map(f, h[i], size);
		for (uint64_t j = 0; j < size; j++)
			p[j] = (uint8_t)(h[i] * 37u + j * 11u + (j >> 12));
		munmap(p, size);
	}
	compute_bo_close(f, h[1]);
	for (int i = 0; i < 3; i++)
		vm[i] = compute_vm(f);
	compute_vm_destroy(f, vm[0]);
	compute_map(f, vm[1], h[0], 0, COMPUTE_BUF_VA(0), 3 * COMPUTE_PAGE,
		    DRM_COMPUTE_VM_BIND_READONLY);
	compute_unmap(f, vm[1], COMPUTE_BUF_VA(0) + COMPUTE_PAGE, COMPUTE_PAGE);
	compute_map(f, vm[2], h[3], COMPUTE_PAGE, COMPUTE_BUF_VA(1), 2 * COMPUTE_PAGE,
		    DRM_COMPUTE_VM_BIND_NOEXEC);
	compute_map(f, vm[2], h[2], 0, COMPUTE_BUF_VA(2), 9 * COMPUTE_PAGE, 0);
}

static void same_image(const struct image *a, const struct image *b)
{
	igt_assert_eq_u32(a->nbos, b->nbos);
	igt_assert_eq_u32(a->nvms, b->nvms);
	igt_assert_eq_u32(a->nmaps, b->nmaps);
	for (uint32_t i = 0; i < a->nbos; i++) {
		igt_assert_eq_u32(a->bos[i].handle, b->bos[i].handle);
		igt_assert_eq_u64(a->bos[i].size, b->bos[i].size);
		igt_assert_eq_u64(a->bos[i].placement, b->bos[i].placement);
		igt_assert_f(!memcmp(a->data[i], b->data[i], a->bos[i].size),
			     "handle %u: contents differ\n", a->bos[i].handle);
	}
	igt_assert(!memcmp(a->vms, b->vms, a->nvms * sizeof(a->vms[0])));
	igt_assert(!memcmp(a->maps, b->maps, a->nmaps * sizeof(a->maps[0])));
}

static void test_roundtrip(void)
{
	struct image before, after;
	struct compute_dev f, g;
	uint8_t *p;

	compute_open_file(&cd, &f);
	build(&f);
	checkpoint(&f, &before);
	igt_assert_eq_u32(before.nbos, 3);
	igt_assert_eq_u32(before.nvms, 2);
	igt_assert_eq_u32(before.nmaps, 4);

	compute_open_file(&cd, &g);
	igt_assert_eq(restore(&g, &before), 0);
	/* Every restored buffer has an mmap offset that maps its bytes. */
	for (uint32_t i = 0; i < before.nbos; i++) {
		uint64_t off;

		igt_assert_neq_u64(before.bos[i].mmap_offset, 0);
		igt_assert_eq(onenode_bo_mmap_offset(&g.dev, before.bos[i].handle, &off), 0);
		igt_assert_eq_u64(off, before.bos[i].mmap_offset);
		p = compute_bo_map(&g, before.bos[i].handle, before.bos[i].size);
		igt_assert(!memcmp(p, before.data[i], before.bos[i].size));
		munmap(p, before.bos[i].size);
	}
	checkpoint(&g, &after);
	same_image(&before, &after);
	/* An ordinary file again: new objects take free handles and ids. */
	compute_bo_close(&g, compute_bo(&g, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM));
	compute_vm_destroy(&g, compute_vm(&g));
	image_free(&before);
	image_free(&after);
	compute_close(&g);
	compute_close(&f);
}

static void test_restoring_refuses(void)
{
	struct drm_compute_criu_bo bo = {
		.handle = 5, .size = COMPUTE_PAGE, .placement = DRM_COMPUTE_PLACEMENT_SYSTEM,
	};
	struct drm_compute_query_device info;
	struct drm_gem_close close_args = { .handle = 5 };
	struct compute_dev f;
	uint32_t n = 1, h;
	int fd;

	compute_open_file(&cd, &f);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &bo, &n), 0);
	/* The helper's ioctls, and DRM core's. */
	igt_assert_eq(onenode_bo_create(&f.dev, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM, &h),
		      -EBUSY);
	igt_assert_eq(onenode_query_device(&f.dev, &info), -EBUSY);
	igt_assert_eq(onenode_criu_pause(&f.dev, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), -EBUSY);
	igt_assert_eq(drmIoctl(f.fd, DRM_IOCTL_GEM_CLOSE, &close_args), -1);
	igt_assert_eq(errno, EBUSY);
	igt_assert_eq(drmPrimeHandleToFD(f.fd, 5, DRM_CLOEXEC, &fd), -1);
	igt_assert_eq(errno, EBUSY);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL),
		      -EBUSY);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	/* After the end: an ordinary file with the buffer at its handle. */
	igt_assert_eq(onenode_query_device(&f.dev, &info), 0);
	compute_bo_close(&f, 5);
	/* Outside the restoring state, the restore's ops are refused. */
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &bo, &n), -EBUSY);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL),
		      -EBUSY);
	/* Only an empty file begins a restore. */
	h = compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL),
		      -EBUSY);
	compute_bo_close(&f, h);
	h = compute_vm(&f);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL),
		      -EBUSY);
	compute_vm_destroy(&f, h);
	compute_close(&f);
}

static void test_bad_entries(void)
{
	struct drm_compute_criu_bo bos[3] = {
		{ .handle = 3, .size = COMPUTE_PAGE, .placement = DRM_COMPUTE_PLACEMENT_SYSTEM },
		{ .handle = 7, .size = COMPUTE_PAGE, .placement = DRM_COMPUTE_PLACEMENT_SYSTEM },
		{ .handle = 3, .size = COMPUTE_PAGE, .placement = DRM_COMPUTE_PLACEMENT_SYSTEM },
	};
	struct drm_compute_criu_vm vms[2] = { { .id = 4 }, { .id = 4 } };
	struct drm_compute_criu_mapping m = {
		.vm_id = 4, .handle = 3, .va = COMPUTE_BUF_VA(0), .range = COMPUTE_PAGE,
	};
	struct drm_compute_criu_bo b;
	struct drm_compute_criu_vm v;
	struct compute_dev f;
	uint8_t byte = 1;
	uint32_t n;

	compute_open_file(&cd, &f);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	/* A handle twice: all or nothing, the two made before are taken back. */
	n = 3;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, bos, &n), -EEXIST);
	igt_assert_eq_u32(n, 3);
	igt_assert_eq(onenode_criu_write_bo(&f.dev, 3, 0, &byte, 1), -ENOENT);
	igt_assert_eq(onenode_criu_write_bo(&f.dev, 7, 0, &byte, 1), -ENOENT);
	n = 2;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, bos, &n), 0);
	/* Creation's rules. */
	b = (struct drm_compute_criu_bo){ .handle = 9, .size = 100,
					  .placement = DRM_COMPUTE_PLACEMENT_SYSTEM };
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.size = COMPUTE_PAGE;
	b.placement = 3;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.placement = DRM_COMPUTE_PLACEMENT_SYSTEM;
	b.handle = 0;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.handle = 0x7fffffff;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.handle = 9;
	b.mmap_offset = COMPUTE_PAGE;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.mmap_offset = 0;
	/*
	 * Export flags: two, an unknown one, a placement the flag does not
	 * allow, or a device without export.
	 */
	b.flags = DRM_COMPUTE_BO_EXPORT_PREFER_P2P | DRM_COMPUTE_BO_EXPORT_HOST_ONLY;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.flags = 1u << 20;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.flags = DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n),
		      cd.info.features & DRM_COMPUTE_FEATURE_P2P_EXPORT ? -EINVAL : -EOPNOTSUPP);
	b.flags = DRM_COMPUTE_BO_EXPORT_PREFER_P2P;
	b.placement = 1ull << 40;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &b, &n), -EINVAL);
	b.flags = 0;
	b.placement = DRM_COMPUTE_PLACEMENT_SYSTEM;
	/* Writes outside a buffer, or to one the file lacks. */
	igt_assert_eq(onenode_criu_write_bo(&f.dev, 3, COMPUTE_PAGE, &byte, 1), -EINVAL);
	igt_assert_eq(onenode_criu_write_bo(&f.dev, 9, 0, &byte, 1), -ENOENT);
	igt_assert_eq(onenode_criu_write_bo(&f.dev, 3, 0, (void *)16, 1), -EFAULT);
	/* VMs: an id twice (the first taken back), an SVM VM where SVM is not, id 0. */
	n = 2;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, vms, &n), -EEXIST);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, &m,
					   &(uint32_t){ 1 }), -ENOENT);
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, vms, &n), 0);
	v = (struct drm_compute_criu_vm){ .id = 5, .flags = DRM_COMPUTE_VM_CREATE_SVM };
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, &v, &n),
		      cd.info.features & DRM_COMPUTE_FEATURE_SVM ? 0 : -EOPNOTSUPP);
	v = (struct drm_compute_criu_vm){ .id = 0 };
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, &v, &n), -EINVAL);
	/*
	 * Mappings: binding's rules; an unknown VM or handle. Two where the
	 * second overlaps the first: neither is left, so the first maps again.
	 */
	{
		struct drm_compute_criu_mapping two[2] = { m, m };

		n = 2;
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, two,
						   &n), -EINVAL);
	}
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, &m, &n), 0);
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, &m, &n),
		      -EINVAL);
	m.va = COMPUTE_BUF_VA(1);
	m.handle = 9;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, &m, &n),
		      -ENOENT);
	m.handle = 3;
	m.vm_id = 6;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, &m, &n),
		      -ENOENT);
	m.vm_id = 4;
	m.handle = 0;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, &m, &n),
		      -EINVAL);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	compute_close(&f);
}

static void test_given_up(void)
{
	struct drm_compute_criu_bo bos[8];
	struct drm_compute_criu_vm vm = { .id = 2 };
	uint64_t used0, used1, placement;
	int64_t pages0, pages1;
	struct compute_dev f;
	uint32_t n;

	placement = compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_VRAM) ?
		    DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM;
	igt_require(compute_memory(&cd, &used0, &pages0) == 0);
	for (int round = 0; round < 3; round++) {
		compute_open_file(&cd, &f);
		for (uint32_t i = 0; i < COMPUTE_ARRAY_SIZE(bos); i++)
			bos[i] = (struct drm_compute_criu_bo){
				.handle = 10 + 3 * i, .size = 16 * COMPUTE_PAGE,
				.placement = placement,
			};
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL,
						   NULL), 0);
		n = COMPUTE_ARRAY_SIZE(bos);
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, bos, &n),
			      0);
		n = 1;
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, &vm, &n),
			      0);
		igt_assert_eq(compute_memory(&cd, &used1, &pages1), 0);
		igt_assert_lt_u64(used0 + (placement == DRM_COMPUTE_PLACEMENT_VRAM ?
					   8 * 16 * COMPUTE_PAGE - 1 : 0), used1 + 1);
		/* The tool gives up: it closes the file, without END. */
		compute_close(&f);
		compute_assert_memory(&cd, used0, pages0, "after a restore was given up");
	}
}

/* The image's contents of buffer @handle. */
static uint8_t *image_bo(const struct image *img, uint32_t handle)
{
	for (uint32_t i = 0; i < img->nbos; i++)
		if (img->bos[i].handle == handle)
			return img->data[i];
	igt_assert_f(false, "no buffer %u in the image\n", handle);
	return NULL;
}

/* Nodes a LIST_SUM walks around a two-node cycle (values 1 and 2). */
#define LIST_NODES	(1ull << 18)
#define LIST_OUT	64	/* offset of its struct vcompute_list_sum */
#define WRITE_AT	128	/* where the suspended queue's WRITE_DATA goes */

/*
 * A queue checkpointed in the middle of a long LIST_SUM, and a second
 * queue its user had suspended with a write pending, restored into a fresh
 * file: the first finishes the walk from where it was, with the sum of the
 * whole walk; the second stays suspended until resumed, then writes. The
 * sync-object signals pending on both come back pending and complete with
 * their queues.
 */
static void test_queues(void)
{
	struct compute_param job_limit = { .module = "vcompute", .name = "job_timeout_ms" };
	static struct compute_rawq rq, sq;
	static struct compute_buf d;
	const struct vcompute_ctx_save *ctx;
	struct drm_compute_userq_state st;
	struct vcompute_list_node *nodes;
	const volatile struct vcompute_list_sum *sum;
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS], v1, v2, v3, t0, wptr, ctx_va;
	uint32_t rq_id, sq_id, state, data, walk_so, write_so;
	const struct drm_compute_criu_queue *e;
	struct compute_dev f, g;
	uint32_t vm, word = 0x5eed1234;
	struct image img;
	void *db;
	uint8_t *p;

	igt_require_f(cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU,
		      "the device does not restore its queues\n");
	compute_param_set(&job_limit, 0);
	compute_open_file(&cd, &f);
	vm = compute_vm(&f);
	compute_buf_init(&f, vm, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM, COMPUTE_BUF_VA(0),
			 DRM_COMPUTE_VM_BIND_NOEXEC, &d);
	nodes = d.cpu;
	nodes[0] = (struct vcompute_list_node){ .next = d.va + sizeof(*nodes), .value = 1 };
	nodes[1] = (struct vcompute_list_node){ .next = d.va, .value = 2 };
	sum = (const volatile void *)((char *)d.cpu + LIST_OUT);

	compute_rawq_setup(&f, vm, COMPUTE_QUEUE_VA(0), 4096, 0, &rq);
	compute_rawq_create(&rq);
	v1 = compute_rawq_submit(&rq);
	compute_rawq_sync(&rq, v1);
	compute_rawq_emit(&rq, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_LIST_SUM,
							 LIST_NODES, 0, d.va, d.va + LIST_OUT, 0));
	v2 = compute_rawq_submit(&rq);

	compute_rawq_setup(&f, vm, COMPUTE_QUEUE_VA(1), 4096, 0, &sq);
	compute_rawq_create(&sq);
	igt_assert_eq(onenode_userq_control(&f.dev, sq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
	compute_rawq_emit(&sq, pkt, onenode_pkt_write_data(pkt, d.va + WRITE_AT, &word, 1));
	v3 = compute_rawq_submit(&sq);
	/* The walk's end signals a binary sync object, the write a timeline's point 3. */
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &walk_so), 0);
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &write_so), 0);
	igt_assert_eq(onenode_userq_signal(&f.dev, rq.id, v2, walk_so, 0), 0);
	igt_assert_eq(onenode_userq_signal(&f.dev, sq.id, v3, write_so, 3), 0);

	/* Inside the walk. */
	t0 = compute_now_ns();
	while (!sum->nodes && compute_now_ns() - t0 < COMPUTE_TIMEOUT_MS * 1000000ull)
		compute_sleep_ms(1);
	checkpoint(&f, &img);
	/* What the checks below need, before the teardown forgets it. */
	rq_id = rq.id;
	sq_id = sq.id;
	state = rq.state.handle;
	data = d.handle;
	wptr = rq.wptr;
	ctx_va = rq.args.ctx_save_va;
	compute_rawq_teardown(&sq);
	compute_rawq_teardown(&rq);
	compute_buf_fini(&f, &d);
	compute_close(&f);

	igt_assert_eq_u32(img.nqueues, 2);
	igt_assert_eq_u32(img.nsyncobjs, 2);
	igt_assert_eq_u32(img.nsignals, 2);
	igt_assert_eq_u32(img.signals[0].queue_id, rq_id);
	igt_assert_eq_u32(img.signals[0].handle, walk_so);
	igt_assert_eq_u64(img.signals[0].value, v2);
	igt_assert_eq_u32(img.signals[1].handle, write_so);
	igt_assert_eq_u64(img.signals[1].point, 3);
	e = &img.queues[0];
	igt_assert_eq_u32(e->queue_id, rq_id);
	igt_assert_eq_u32(e->status, 0);
	igt_assert_eq_u64(e->fence, v1);
	igt_assert_eq_u64(e->ring_va, COMPUTE_QUEUE_VA(0));
	igt_assert_eq_u64(e->ctx_save_va, ctx_va);
	igt_assert_eq_u64(e->wptr, wptr);
	igt_assert_eq_u32(img.queues[1].queue_id, sq_id);
	igt_assert_eq_u32(img.queues[1].status, DRM_COMPUTE_USERQ_STATUS_SUSPENDED);
	/* The pause stopped the walk partway and saved where. */
	ctx = (const void *)(image_bo(&img, state) + RAWQ_CTX_OFF);
	igt_assert_eq_u32(ctx->magic, VCOMPUTE_CTX_SAVE_MAGIC);
	igt_info("checkpointed after %" PRIu64 " of %llu nodes\n", (uint64_t)ctx->progress,
		 LIST_NODES);
	igt_assert_f(ctx->progress > 0 && ctx->progress < LIST_NODES,
		     "the checkpoint found the walk at node %" PRIu64 "\n",
		     (uint64_t)ctx->progress);

	compute_open_file(&cd, &g);
	igt_assert_eq(restore(&g, &img), 0);
	igt_assert_neq_u64(img.queues[0].doorbell_offset, 0);
	db = mmap(NULL, cd.uq.doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd,
		  (off_t)img.queues[0].doorbell_offset);
	igt_assert(db != MAP_FAILED);
	igt_assert_eq_u64(((struct drm_compute_doorbell *)db)->wptr, e->wptr);
	munmap(db, cd.uq.doorbell_size);

	igt_assert_eq(onenode_userq_wait(&g.dev, rq_id, v2, COMPUTE_TIMEOUT_MS * 1000000ll), 0);
	igt_assert_eq(drmSyncobjWait(g.fd, &walk_so, 1,
				     compute_abs_timeout(COMPUTE_TIMEOUT_MS * 1000000ull),
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), 0);
	p = compute_bo_map(&g, data, COMPUTE_PAGE);
	sum = (const volatile void *)(p + LIST_OUT);
	igt_assert_eq_u64(sum->nodes, LIST_NODES);
	igt_assert_eq_u64(sum->sum, LIST_NODES / 2 * 3);

	/* Its user suspended it: still so, until resumed. */
	compute_state(&g, sq_id, &st);
	igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_SUSPENDED);
	igt_assert_eq(onenode_userq_wait(&g.dev, sq_id, v3, 0), -ETIME);
	{
		uint64_t point = 3, got = 0;

		/* Its signal is still pending: nothing at point 3 yet. */
		igt_assert_eq(drmSyncobjQuery(g.fd, &write_so, &got, 1), 0);
		igt_assert_eq_u64(got, 0);
		igt_assert_eq(onenode_userq_control(&g.dev, sq_id, DRM_COMPUTE_USERQ_OP_RESUME),
			      0);
		igt_assert_eq(onenode_userq_wait(&g.dev, sq_id, v3,
						 COMPUTE_TIMEOUT_MS * 1000000ll), 0);
		igt_assert_eq(drmSyncobjTimelineWait(g.fd, &write_so, &point, 1,
						     compute_abs_timeout(COMPUTE_TIMEOUT_MS * 1000000ull),
						     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), 0);
	}
	igt_assert_eq_u32(*(uint32_t *)(p + WRITE_AT), word);
	munmap(p, COMPUTE_PAGE);

	image_free(&img);
	compute_close(&g);
	compute_param_restore(&job_limit);
}

/*
 * RESTORE_SIGNALS's rules, on restoring file @g with queue @queue_id at
 * fence @fence: each bad entry fails, all or nothing; a good one is added.
 */
static void bad_signals(const struct compute_dev *g, uint32_t queue_id, uint64_t fence)
{
	const struct drm_compute_criu_syncobj so = { .handle = 5 };
	const struct drm_compute_criu_signal good = {
		.queue_id = queue_id, .handle = 5, .value = fence + 100,
	};
	struct drm_compute_criu_signal bad, two[2], *many;
	uint32_t n = 1;

	igt_assert_eq(onenode_criu_restore(&g->dev, DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS,
					   (void *)&so, &n), 0);
	for (int i = 0; i < 3; i++) {
		static const int want[] = { -ENOENT, -ENOENT, -EINVAL };

		bad = good;
		switch (i) {
		case 0: bad.queue_id = queue_id + 1; break;
		case 1: bad.handle = 6; break;
		default: bad.reserved = 1; break;
		}
		n = 1;
		igt_assert_f(onenode_criu_restore(&g->dev, DRM_COMPUTE_CRIU_RESTORE_SIGNALS, &bad,
						  &n) == want[i], "bad signal %d accepted\n", i);
	}
	/* The second fails: the first is not added either. */
	two[0] = good;
	two[1] = good;
	two[1].handle = 6;
	n = 2;
	igt_assert_eq(onenode_criu_restore(&g->dev, DRM_COMPUTE_CRIU_RESTORE_SIGNALS, two, &n),
		      -ENOENT);
	/* One more than a queue holds. */
	many = calloc(1025, sizeof(*many));
	igt_assert(many);
	for (int i = 0; i < 1025; i++)
		many[i] = good;
	n = 1025;
	igt_assert_eq(onenode_criu_restore(&g->dev, DRM_COMPUTE_CRIU_RESTORE_SIGNALS, many, &n),
		      -ENOSPC);
	free(many);
	n = 1;
	igt_assert_eq(onenode_criu_restore(&g->dev, DRM_COMPUTE_CRIU_RESTORE_SIGNALS,
					   (void *)&good, &n), 0);
}

/* RESTORE_QUEUES's rules: each bad entry fails, all or nothing. */
static void test_bad_queues(void)
{
	static struct compute_rawq rq;
	struct drm_compute_criu_queue good, two[2], bad;
	struct compute_dev f, g;
	struct image img;
	uint32_t vm, n;

	igt_require(cd.uq.caps & DRM_COMPUTE_USERQ_CAP_CRIU);
	compute_open_file(&cd, &f);
	vm = compute_vm(&f);
	compute_rawq_setup(&f, vm, COMPUTE_QUEUE_VA(0), 4096, 0, &rq);
	compute_rawq_create(&rq);
	checkpoint(&f, &img);
	compute_rawq_teardown(&rq);
	compute_close(&f);
	igt_assert_eq_u32(img.nqueues, 1);
	good = img.queues[0];
	good.doorbell_offset = 0;
	for (uint32_t i = 0; i < img.nbos; i++)
		img.bos[i].mmap_offset = 0;

	compute_open_file(&cd, &g);
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	n = 1;
	/* No VM yet. */
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, &good, &n),
		      -ENOENT);
	n = img.nbos;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, img.bos, &n), 0);
	n = img.nvms;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, img.vms, &n), 0);
	n = img.nmaps;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS, img.maps,
					   &n), 0);
	for (int i = 0; i < 8; i++) {
		bad = good;
		switch (i) {
		case 0: bad.queue_id = 0; break;
		case 1: bad.pad = 1; break;
		case 2: bad.reserved[1] = 1; break;
		case 3: bad.status = DRM_COMPUTE_USERQ_STATUS_FAULTED; break;
		case 4: bad.doorbell_offset = COMPUTE_PAGE; break;
		case 5: bad.cu_mask_count = 33; break;
		case 6: memset(bad.cu_mask, 0, sizeof(bad.cu_mask)); break;	/* no CU */
		default: bad.ring_size = 4095; break;
		}
		n = 1;
		igt_assert_f(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, &bad,
						  &n) == -EINVAL, "bad entry %d accepted\n", i);
	}
	/* The second entry takes the first's id: neither is left. */
	two[0] = good;
	two[1] = good;
	n = 2;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, two, &n),
		      -EEXIST);
	igt_assert_eq_u64(two[0].doorbell_offset, 0);
	n = 1;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, &good, &n), 0);
	igt_assert_neq_u64(good.doorbell_offset, 0);
	good.doorbell_offset = 0;
	n = 1;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, &good, &n),
		      -EEXIST);
	bad_signals(&g, good.queue_id, good.fence);
	/* Ended paused: the queue, whose contents were never written, stays put. */
	igt_assert_eq(onenode_criu_restore_ex(&g.dev, DRM_COMPUTE_CRIU_RESTORE_END,
					      DRM_COMPUTE_CRIU_RESTORE_END_PAUSED, 0, NULL, NULL), 0);
	{
		struct drm_compute_criu_info info;

		/* Of every call above, only the last good signal was added. */
		igt_assert_eq(onenode_criu_info(&g.dev, &info), 0);
		igt_assert_eq_u32(info.signals, 1);
	}
	igt_assert_eq(onenode_criu_pause(&g.dev, DRM_COMPUTE_CRIU_OP_RESUME, NULL), 0);
	/* An ordinary file: the restored queue is there and idle. */
	igt_assert_eq(onenode_userq_wait(&g.dev, good.queue_id, good.fence, 0), 0);
	image_free(&img);
	compute_close(&g);
}

/*
 * Sync objects: a signaled binary one, one without a fence, a timeline
 * signaled up to point 7, and a hole in the handles, come back as they
 * were: the same handles, waits and queries answering the same.
 */
static void test_syncobjs(void)
{
	const uint32_t sig = DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED,
		       tl = DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE;
	uint32_t a, b, c, hole, again, n;
	uint64_t point, p3 = 3, p7 = 7, p5 = 5;
	struct drm_compute_criu_syncobj bad[2];
	struct compute_dev f, g;
	struct image img;

	compute_open_file(&cd, &f);
	igt_assert_eq(drmSyncobjCreate(f.fd, DRM_SYNCOBJ_CREATE_SIGNALED, &a), 0);
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &hole), 0);
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &b), 0);
	igt_assert_eq(drmSyncobjCreate(f.fd, 0, &c), 0);
	igt_assert_eq(drmSyncobjTimelineSignal(f.fd, &c, &p3, 1), 0);
	igt_assert_eq(drmSyncobjTimelineSignal(f.fd, &c, &p7, 1), 0);
	igt_assert_eq(drmSyncobjDestroy(f.fd, hole), 0);
	checkpoint(&f, &img);
	compute_close(&f);
	igt_assert_eq_u32(img.nsyncobjs, 3);
	igt_assert(img.syncobjs[0].handle == a && img.syncobjs[0].flags == sig &&
		   !img.syncobjs[0].point);
	igt_assert(img.syncobjs[1].handle == b && !img.syncobjs[1].flags);
	igt_assert(img.syncobjs[2].handle == c && img.syncobjs[2].flags == (sig | tl));
	igt_assert_eq_u64(img.syncobjs[2].point, 7);

	compute_open_file(&cd, &g);
	igt_assert_eq(restore(&g, &img), 0);
	igt_assert_eq(drmSyncobjWait(g.fd, &a, 1, 0, 0, NULL), 0);
	igt_assert_eq(drmSyncobjWait(g.fd, &b, 1, 0, 0, NULL), -EINVAL);	/* no fence */
	igt_assert_eq(drmSyncobjQuery(g.fd, &c, &point, 1), 0);
	igt_assert_eq_u64(point, 7);
	igt_assert_eq(drmSyncobjTimelineWait(g.fd, &c, &p5, 1, 0, 0, NULL), 0);
	/* The hole is free again. */
	igt_assert_eq(drmSyncobjCreate(g.fd, 0, &again), 0);
	igt_assert_eq_u32(again, hole);
	image_free(&img);
	compute_close(&g);

	/* Bad entries, and all or nothing. */
	compute_open_file(&cd, &g);
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	for (int i = 0; i < 6; i++) {
		bad[0] = (struct drm_compute_criu_syncobj){ .handle = 4, .flags = sig };
		switch (i) {
		case 0: bad[0].handle = 0; break;
		case 1: bad[0].reserved = 1; break;
		case 2: bad[0].flags = tl; bad[0].point = 2; break;
		case 3: bad[0].point = 2; break;
		case 4: bad[0].flags = sig | tl; break;	/* point 0 */
		default: bad[0].flags = 1u << 5; break;
		}
		n = 1;
		igt_assert_f(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS, bad,
						  &n) == -EINVAL, "bad entry %d accepted\n", i);
	}
	bad[0] = (struct drm_compute_criu_syncobj){ .handle = 4, .flags = sig };
	bad[1] = bad[0];
	n = 2;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS, bad, &n),
		      -EEXIST);
	n = 1;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS, bad, &n), 0);
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	igt_assert_eq(drmSyncobjWait(g.fd, &bad[0].handle, 1, 0, 0, NULL), 0);
	compute_close(&g);
}


#define SVM_SIZE (4ull << 20)
#define MIB (1ull << 20)

static uint32_t svm_ranges(const struct compute_dev *f)
{
	struct drm_compute_criu_info i = {};

	igt_assert_eq(onenode_criu_info(&f->dev, &i), 0);
	igt_assert_eq_u32(i.unsaved, 0);
	return i.svm_ranges;
}

/* Copy @size bytes from @src to @dst with a queue of @vm; 0 or the fault reason. */
static uint32_t svm_copy(const struct compute_dev *f, uint32_t vm, void *dst, const void *src,
			 uint64_t size)
{
	static struct compute_queue q;
	struct drm_compute_userq_state st;
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS], v;
	int ret;

	compute_queue_init_at(f, vm, COMPUTE_QUEUE_VA(1), &q);
	compute_emit(&q, pkt, onenode_pkt_copy(pkt, (uintptr_t)dst, (uintptr_t)src, size));
	v = compute_submit(&q);
	ret = onenode_queue_wait(&q.q, v, COMPUTE_TIMEOUT_MS * 1000000ll);
	compute_state(f, q.q.id, &st);
	compute_queue_fini(&q);
	return ret ? st.fault_reason : 0;
}

/*
 * SVM VMs: attributes over malloc'ed memory (a preferred and prefetched
 * device location with a granularity, no access, a flag) are listed by a
 * checkpoint after the pause brought the device's pages home, and a fresh
 * file of the same process gets them back (END_PAUSED: unwatched until the
 * resume, whose rescan drops what was unmapped meanwhile); its queues then
 * follow them: the copy reads the data, the NO_ACCESS range faults.
 */
static void test_svm(void)
{
	struct drm_compute_criu_svm_range r[8];
	struct drm_compute_criu_vm vms[2];
	struct onenode_residency res;
	uint32_t id = cd.info.device_id, vm, n, nr;
	bool vram = cd.info.vram_size >= MIB;
	struct compute_dev f, g;
	uint8_t *p, *dst;

	igt_require_f(cd.info.features & DRM_COMPUTE_FEATURE_SVM, "no SVM\n");
	p = mmap(NULL, SVM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(p != MAP_FAILED && dst != MAP_FAILED);
	compute_fill_pattern(p, SVM_SIZE, 31);

	compute_open_file(&cd, &f);
	vm = compute_vm(&f);	/* an ordinary VM beside */
	igt_assert_eq(onenode_vm_create_flags(&f.dev, DRM_COMPUTE_VM_CREATE_SVM, &vm), 0);
	igt_assert_eq(compute_svm_set(&f, vm, p, MIB, DRM_COMPUTE_SVM_ATTR_GRANULARITY, 6), 0);
	if (vram) {
		igt_assert_eq(compute_svm_set(&f, vm, p, MIB, DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, id), 0);
		igt_assert_eq(compute_svm_set(&f, vm, p, MIB, DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, id), 0);
		igt_assert_eq(onenode_svm_residency(p, MIB, &res), 0);
		igt_assert_eq_u64(res.device, MIB / COMPUTE_PAGE);
	}
	igt_assert_eq(compute_svm_set(&f, vm, p + MIB, MIB, DRM_COMPUTE_SVM_ATTR_NO_ACCESS, id), 0);
	igt_assert_eq(compute_svm_set(&f, vm, p + 2 * MIB, MIB, DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC,
		DRM_COMPUTE_SVM_LOCATION_SYSMEM), 0);
	igt_assert_eq(compute_svm_set(&f, vm, p + 3 * MIB, MIB, DRM_COMPUTE_SVM_ATTR_SET_FLAGS,
		cd.info.svm_flags & DRM_COMPUTE_SVM_FLAG_GPU_RO), 0);
	nr = svm_ranges(&f);
	igt_assert_eq_u32(nr, cd.info.svm_flags & DRM_COMPUTE_SVM_FLAG_GPU_RO ? 4 : 3);

	/* The pause brings the device's pages home; the checkpoint lists the ranges. */
	igt_assert_eq(onenode_criu_pause(&f.dev, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), 0);
	igt_assert_eq(onenode_svm_residency(p, SVM_SIZE, &res), 0);
	igt_assert_eq_u64(res.device, 0);
	igt_assert(compute_check_pattern(p, SVM_SIZE, 31, NULL));
	n = 2;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_VMS, vms, &n), 0);
	igt_assert_eq_u32(n, 2);
	igt_assert_eq_u32(vms[1].flags, DRM_COMPUTE_VM_CREATE_SVM);
	n = 0;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES, NULL, &n),
		      0);
	igt_assert_eq_u32(n, nr);
	memset(r, 0xa5, sizeof(r));
	n = 8;
	igt_assert_eq(onenode_criu_list(&f.dev, DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES, r, &n), 0);
	igt_assert_eq_u32(n, nr);
	for (uint32_t i = 0; i < n; i++) {
		igt_assert_eq_u32(r[i].vm_id, vm);
		igt_assert_eq_u64(r[i].start, (uintptr_t)p + i * MIB);
		igt_assert_eq_u64(r[i].size, MIB);
		igt_assert(r[i].nattr >= 5 && r[i].nattr <= DRM_COMPUTE_CRIU_SVM_ATTRS);
		igt_assert_eq_u64(r[i].reserved, 0);
	}
	igt_assert_eq(onenode_criu_pause(&f.dev, DRM_COMPUTE_CRIU_OP_RESUME, NULL), 0);
	compute_close(&f);

	/* A fresh file of the same process: the VMs, then the ranges, paused. */
	compute_open_file(&cd, &g);
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	n = 2;
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, vms, &n), 0);
	n = nr;
	igt_assert_eq(onenode_criu_restore_ex(&g.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, 0, id,
					      r, &n), 0);
	igt_assert_eq(onenode_criu_restore_ex(&g.dev, DRM_COMPUTE_CRIU_RESTORE_END,
					      DRM_COMPUTE_CRIU_RESTORE_END_PAUSED, 0, NULL, NULL),
		      0);
	igt_assert_eq_u32(svm_ranges(&g), nr);
	if (vram)
		igt_assert_eq_u32(compute_svm_get(&g, vm, p, MIB, DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, 0),
				  id);
	igt_assert_eq_u32(compute_svm_get(&g, vm, p, MIB, DRM_COMPUTE_SVM_ATTR_GRANULARITY, 0), 6);
	igt_assert_eq_u32(compute_svm_get(&g, vm, p + MIB, MIB, DRM_COMPUTE_SVM_ATTR_ACCESS, id),
			  DRM_COMPUTE_SVM_ATTR_NO_ACCESS);
	igt_assert_eq_u32(compute_svm_get(&g, vm, p + 2 * MIB, MIB, DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC,
				  0), DRM_COMPUTE_SVM_LOCATION_SYSMEM);
	/* Paused: memory unmapped now keeps its attributes until the resume looks. */
	munmap(p + 2 * MIB, MIB);
	igt_assert_eq_u32(svm_ranges(&g), nr);
	igt_assert_eq(onenode_criu_pause(&g.dev, DRM_COMPUTE_CRIU_OP_RESUME, NULL), 0);
	igt_assert_eq_u32(svm_ranges(&g), nr - 1);
	/* Watched from the resume on. */
	if (nr == 4) {
		munmap(p + 3 * MIB, MIB);
		compute_sleep_ms(50);
		igt_assert_eq_u32(svm_ranges(&g), nr - 2);
	}
	/* The attributes act: the data reads back through a queue, NO_ACCESS faults. */
	memset(dst, 0, MIB);
	igt_assert_eq_u32(svm_copy(&g, vm, dst, p, MIB), 0);
	igt_assert(compute_check_pattern(dst, MIB, 31, NULL));
	igt_assert_eq_u32(svm_copy(&g, vm, dst, p + MIB, COMPUTE_PAGE),
			  DRM_COMPUTE_FAULT_UNMAPPED);
	compute_close(&g);
	munmap(p, 2 * MIB);
	munmap(dst, MIB);
}

/* RESTORE_SVM_RANGES's rules: each bad entry fails, all or nothing. */
static void test_bad_svm_ranges(void)
{
	struct drm_compute_criu_vm vms[2] = {
		{ .id = 1 }, { .id = 2, .flags = DRM_COMPUTE_VM_CREATE_SVM },
	};
	struct drm_compute_criu_svm_range good = { .vm_id = 2, .nattr = 1 }, two[2], bad;
	uint32_t id = cd.info.device_id, n;
	struct compute_dev f;
	uint8_t *p;

	igt_require_f(cd.info.features & DRM_COMPUTE_FEATURE_SVM, "no SVM\n");
	p = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(p != MAP_FAILED);
	good.start = (uintptr_t)p;
	good.size = MIB;
	good.attrs[0] = (struct drm_compute_svm_attr){ DRM_COMPUTE_SVM_ATTR_NO_ACCESS, id };

	compute_open_file(&cd, &f);
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, &good,
					   &n), -EBUSY);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	n = 2;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_VMS, vms, &n), 0);
	for (int i = 0; i < 10; i++) {
		int want = -EINVAL;

		bad = good;
		switch (i) {
		case 0: bad.vm_id = 7; want = -ENOENT; break;
		case 1: bad.vm_id = 1; break;	/* not an SVM VM */
		case 2: bad.vm_id = 0; break;
		case 3: bad.nattr = 0; break;
		case 4: bad.nattr = DRM_COMPUTE_CRIU_SVM_ATTRS + 1; break;
		case 5: bad.reserved = 1; break;
		case 6: bad.start += 1; break;
		case 7: bad.size = 0; break;
		case 8: bad.attrs[0].type = DRM_COMPUTE_SVM_ATTR_GRANULARITY + 1; break;
		default: bad.attrs[0].value = 0xfffffff0u; break;	/* no such device */
		}
		n = 1;
		igt_assert_f(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, &bad,
						  &n) == want, "case %d\n", i);
	}
	/* The second fails: the first is taken back. */
	two[0] = good;
	two[1] = good;
	two[1].attrs[0].type = 99;
	n = 2;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, two, &n),
		      -EINVAL);
	/* A VM's entries out of address order, or overlapping. */
	two[1] = good;
	two[0].size = MIB / 2;
	two[1].start += MIB / 4;
	n = 2;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, two, &n),
		      -EINVAL);
	two[0] = good;
	two[0].start += MIB / 2;
	two[0].size = MIB / 2;
	two[1] = good;
	two[1].size = MIB / 2;
	n = 2;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, two, &n),
		      -EINVAL);
	/* Too many entries for one call. */
	n = DRM_COMPUTE_CRIU_SVM_RANGES_MAX + 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, &good,
					   &n), -EINVAL);
	/* Another device's id in the image names this one. */
	bad = good;
	bad.attrs[0].value = 0xfffffff0u;
	n = 1;
	igt_assert_eq(onenode_criu_restore_ex(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, 0,
					      0xfffffff0u, &bad, &n), 0);
	/* A VM that has its ranges already. */
	n = 1;
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, &good,
					   &n), -EEXIST);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	igt_assert_eq_u32(svm_ranges(&f), 1);
	igt_assert_eq_u32(compute_svm_get(&f, 2, p, MIB, DRM_COMPUTE_SVM_ATTR_ACCESS, id),
			  DRM_COMPUTE_SVM_ATTR_NO_ACCESS);
	compute_close(&f);
	munmap(p, MIB);
}

/* The P2P report of @handle in @f: its flag, where it is, how often it moved. */
static void export_report(const struct compute_dev *f, uint32_t handle, uint32_t flags,
			  uint64_t placement, uint32_t moves)
{
	struct drm_compute_p2p_report r;

	igt_assert_eq(onenode_p2p_report(&f->dev, handle, &r, NULL, 0), 0);
	igt_assert_eq_u32(r.export_flags, flags);
	igt_assert_eq_u64(r.placement, placement);
	igt_assert_eq_u32(r.moves, moves);
}

/*
 * Buffers made for export whose dma-buf, if any, only the file's own PRIME
 * cache holds: saved with their flag and made again with it. A PREFER_P2P
 * buffer that a static importer (vgem) moved to system memory, then let
 * go (its fd closed too), is listed there, and starts in device memory
 * again after the restore, its bytes intact, for its next importer to
 * decide; a HOST_ONLY one stays in system memory. While an fd holds its
 * dma-buf, the buffer is not saved.
 */
static void test_export_flags(void)
{
	const uint64_t size = 5 * COMPUTE_PAGE;
	uint32_t h[2], flags[2] = { DRM_COMPUTE_BO_EXPORT_PREFER_P2P,
				    DRM_COMPUTE_BO_EXPORT_HOST_ONLY };
	uint64_t place[2] = { DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_PLACEMENT_SYSTEM };
	int vgem = compute_open_vgem(), fd;
	struct drm_compute_criu_info info;
	struct image img = {};
	struct compute_dev f, g;
	uint32_t moved = 0;
	uint8_t *p;

	igt_require_f(cd.info.features & DRM_COMPUTE_FEATURE_P2P_EXPORT, "P2P export\n");
	igt_require_f(compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_VRAM), "VRAM\n");
	compute_open_file(&cd, &f);
	for (int i = 0; i < 2; i++) {
		igt_assert_eq(onenode_bo_create_export(&f.dev, size, place[i], flags[i], &h[i]), 0);
		p = compute_bo_map(&f, h[i], size);
		for (uint64_t j = 0; j < size; j++)
			p[j] = (uint8_t)(i * 101u + j * 7u + (j >> 12));
		munmap(p, size);
	}
	if (vgem >= 0) {
		uint32_t imp;

		/* vgem cannot take peer memory: the PREFER_P2P buffer moves. */
		fd = compute_prime_fd(&f, h[0]);
		igt_assert_eq(drmPrimeFDToHandle(vgem, fd, &imp), 0);
		igt_assert_eq(drmCloseBufferHandle(vgem, imp), 0);
		close(fd);
		moved = 1;
	} else {
		igt_info("no vgem: the PREFER_P2P buffer was not moved before the checkpoint\n");
	}
	export_report(&f, h[0], flags[0], moved ? DRM_COMPUTE_PLACEMENT_SYSTEM : place[0], moved);
	igt_assert_eq(onenode_criu_info(&f.dev, &info), 0);
	igt_assert_eq_u32(info.unsaved, 0);
	/* Exported once, its dma-buf held only by the file's PRIME cache. */
	igt_assert_eq_u32(info.exports, moved);

	checkpoint(&f, &img);
	igt_assert_eq_u32(img.nbos, 2);
	for (int i = 0; i < 2; i++) {
		igt_assert_eq_u32(img.bos[i].handle, h[i]);
		igt_assert_eq_u32(img.bos[i].flags, flags[i]);
	}
	igt_assert_eq_u64(img.bos[0].placement,
			  moved ? DRM_COMPUTE_PLACEMENT_SYSTEM : DRM_COMPUTE_PLACEMENT_VRAM);
	igt_assert_eq_u64(img.bos[1].placement, DRM_COMPUTE_PLACEMENT_SYSTEM);

	compute_open_file(&cd, &g);
	igt_assert_eq(restore(&g, &img), 0);
	for (int i = 0; i < 2; i++) {
		export_report(&g, h[i], flags[i], place[i], 0);
		p = compute_bo_map(&g, h[i], size);
		igt_assert_f(!memcmp(p, img.data[i], size), "handle %u: contents differ\n", h[i]);
		munmap(p, size);
	}
	/*
	 * While an fd holds its dma-buf, it is saved (shared, @shared);
	 * while an importer is attached, not.
	 */
	fd = compute_prime_fd(&g, h[0]);
	igt_assert_eq(onenode_criu_info(&g.dev, &info), 0);
	igt_assert_eq_u32(info.unsaved, 0);
	if (vgem >= 0) {
		uint32_t imp;

		igt_assert_eq(drmPrimeFDToHandle(vgem, fd, &imp), 0);
		igt_assert_eq(onenode_criu_info(&g.dev, &info), 0);
		igt_assert_eq_u32(info.unsaved, 1);
		igt_assert_eq(drmCloseBufferHandle(vgem, imp), 0);
		igt_assert_eq(onenode_criu_info(&g.dev, &info), 0);
		igt_assert_eq_u32(info.unsaved, 0);
	}
	close(fd);
	image_free(&img);
	compute_close(&g);
	compute_close(&f);
	if (vgem >= 0)
		close(vgem);
}

/* Byte @i of the shared buffer's pattern. */
static uint8_t shared_byte(uint64_t i)
{
	return (uint8_t)(i * 13u + (i >> 12) + 5u);
}

/* A restore session, owned by file @s of its own, opened here: its id. */
static uint64_t session_open(struct compute_dev *s)
{
	uint64_t sid;

	compute_open_file(&cd, s);
	igt_assert_eq(onenode_criu_session(&s->dev, &sid), 0);
	igt_assert(sid);
	return sid;
}

static void test_shared(void)
{
	const uint64_t size = 6 * COMPUTE_PAGE;
	struct image ia, ib;
	struct compute_dev f, g, s, f2, g2, h;
	struct drm_compute_criu_bo e, keep;
	uint64_t sid, other;
	uint32_t a, b, b2, n;
	uint8_t *p, *q;
	int fd;

	/* A buffer of f, imported by g: one object, two files. */
	compute_open_file(&cd, &f);
	compute_open_file(&cd, &g);
	a = compute_bo(&f, size, DRM_COMPUTE_PLACEMENT_SYSTEM);
	p = compute_bo_map(&f, a, size);
	for (uint64_t i = 0; i < size; i++)
		p[i] = shared_byte(i);
	munmap(p, size);
	fd = compute_prime_fd(&f, a);
	igt_assert_eq(drmPrimeFDToHandle(g.fd, fd, &b), 0);
	close(fd);
	checkpoint(&f, &ia);
	checkpoint(&g, &ib);
	igt_assert_eq_u32(ia.nbos, 1);
	igt_assert_eq_u32(ib.nbos, 1);
	igt_assert(ia.bos[0].share);
	igt_assert_eq_u64(ia.bos[0].share, ib.bos[0].share);
	igt_assert_eq_u32(ib.bos[0].handle, b);

	/* A session, kept by its own file for the whole restore. */
	sid = session_open(&s);
	igt_assert_eq(onenode_criu_session(&s.dev, &other), -EBUSY);

	/* The first file makes the buffer, the second takes the same one. */
	compute_open_file(&cd, &f2);
	compute_open_file(&cd, &g2);
	igt_assert_eq(restore_in(&f2, &ia, sid), 0);
	igt_assert(!(ia.bos[0].flags & DRM_COMPUTE_CRIU_BO_JOINED));
	igt_assert_eq(restore_in(&g2, &ib, sid), 0);
	igt_assert(ib.bos[0].flags & DRM_COMPUTE_CRIU_BO_JOINED);
	igt_assert_eq_u64(ib.bos[0].mmap_offset, ia.bos[0].mmap_offset);
	p = compute_bo_map(&f2, a, size);
	q = compute_bo_map(&g2, b, size);
	for (uint64_t i = 0; i < size; i++)
		igt_assert_f(p[i] == shared_byte(i) && q[i] == shared_byte(i),
			     "byte %" PRIu64 " differs\n", i);
	p[size - 1] ^= 0xff;
	igt_assert_eq(q[size - 1], (uint8_t)~shared_byte(size - 1));
	munmap(p, size);
	munmap(q, size);
	/* PRIME agrees: f2's dma-buf imports into g2 as g2's own handle. */
	fd = compute_prime_fd(&f2, a);
	igt_assert_eq(drmPrimeFDToHandle(g2.fd, fd, &b2), 0);
	igt_assert_eq_u32(b2, b);
	close(fd);

	/* Shared entries without a session, in an unknown one, or not matching. */
	compute_open_file(&cd, &h);
	igt_assert_eq(onenode_criu_restore(&h.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	e = ia.bos[0];
	e.flags &= ~DRM_COMPUTE_CRIU_BO_JOINED;
	e.mmap_offset = 0;
	n = 1;
	igt_assert_eq(onenode_criu_restore_bos(&h.dev, 0, &e, &n), -EINVAL);
	igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid + 1, &e, &n), -ENOENT);
	igt_assert_eq(onenode_criu_restore_bos(&h.dev, 1ull << 40, &e, &n), -ENOENT);
	e.size += COMPUTE_PAGE;
	keep = e;
	igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, &e, &n), -EINVAL);
	igt_assert(!memcmp(&e, &keep, sizeof(e)));
	e.size -= COMPUTE_PAGE;
	e.flags = DRM_COMPUTE_CRIU_BO_JOINED;
	igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, &e, &n), -EINVAL);
	e.flags = 0;
	/* All or nothing: the second fails, the first's join is taken back. */
	{
		struct drm_compute_criu_bo two[2] = { e, e };

		two[1].handle = e.handle + 1;
		two[1].size += COMPUTE_PAGE;
		n = 2;
		igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, two, &n), -EINVAL);
		igt_assert(!(two[0].flags & DRM_COMPUTE_CRIU_BO_JOINED) && !two[0].mmap_offset);
		/*
		 * A buffer the failed call made leaves the session with it: sent
		 * again, it is made again (to be written), not taken zeroed.
		 */
		two[0].share = ia.bos[0].share + 1;
		n = 2;
		igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, two, &n), -EINVAL);
		n = 1;
		igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, two, &n), 0);
		igt_assert(!(two[0].flags & DRM_COMPUTE_CRIU_BO_JOINED) && two[0].mmap_offset);
	}
	compute_close(&h);

	/* Closed with its file, the session is gone. */
	compute_close(&s);
	compute_open_file(&cd, &h);
	igt_assert_eq(onenode_criu_restore(&h.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL), 0);
	n = 1;
	igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, &e, &n), -ENOENT);
	compute_close(&h);

	image_free(&ia);
	image_free(&ib);
	compute_close(&g2);
	compute_close(&f2);
	compute_close(&g);
	compute_close(&f);
}

struct share_race {
	const struct compute_dev *f;
	struct drm_compute_criu_bo e;
	uint64_t sid;
	atomic_int *go;
	int ret;
};

static void *share_racer(void *arg)
{
	struct share_race *r = arg;
	uint32_t n = 1;

	while (!atomic_load(r->go))
		sched_yield();
	r->ret = onenode_criu_restore_bos(&r->f->dev, r->sid, &r->e, &n);
	return NULL;
}

static void test_shared_race(void)
{
	struct drm_compute_criu_bo e = {
		.handle = 3, .size = 2 * COMPUTE_PAGE,
		.placement = DRM_COMPUTE_PLACEMENT_SYSTEM, .share = 0x1234,
	};
	struct compute_dev s, f[4];
	struct share_race r[4];
	pthread_t t[4];
	uint64_t off = 0;

	compute_open_file(&cd, &s);
	for (int round = 0; round < 16; round++) {
		atomic_int go = 0;
		int made = 0;
		uint64_t sid;

		/* A fresh session each round: the id is made once per session. */
		compute_close(&s);
		sid = session_open(&s);
		for (int i = 0; i < 4; i++) {
			compute_open_file(&cd, &f[i]);
			igt_assert_eq(onenode_criu_restore(&f[i].dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN,
							   NULL, NULL), 0);
			r[i] = (struct share_race){ .f = &f[i], .e = e, .sid = sid, .go = &go };
			igt_assert_eq(pthread_create(&t[i], NULL, share_racer, &r[i]), 0);
		}
		atomic_store(&go, 1);
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			igt_assert_eq(r[i].ret, 0);
			made += !(r[i].e.flags & DRM_COMPUTE_CRIU_BO_JOINED);
			if (i)
				igt_assert_eq_u64(r[i].e.mmap_offset, off);
			off = r[i].e.mmap_offset;
		}
		igt_assert_eq(made, 1);
		for (int i = 0; i < 4; i++)
			compute_close(&f[i]);
	}
	compute_close(&s);
}

/* A shared entry of @share at @handle, as a checkpoint lists it. */
static struct drm_compute_criu_bo shared_entry(uint32_t handle, uint64_t share)
{
	return (struct drm_compute_criu_bo){
		.handle = handle, .size = 2 * COMPUTE_PAGE,
		.placement = DRM_COMPUTE_PLACEMENT_SYSTEM, .share = share,
	};
}

static void restoring_file(struct compute_dev *f)
{
	compute_open_file(&cd, f);
	igt_assert_eq(onenode_criu_restore(&f->dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL),
		      0);
}

/*
 * The entries are written back once, after every one was made: when they
 * cannot be (a read-only array), the call takes back what it made, and
 * the shared buffer it made is the next entry's to write, not a buffer
 * that nobody writes.
 */
static void test_shared_efault(void)
{
	struct drm_compute_criu_bo e = shared_entry(5, 0x4321), *ro;
	struct compute_dev s, f;
	uint64_t sid;
	uint32_t n = 1;

	sid = session_open(&s);
	restoring_file(&f);
	ro = mmap(NULL, COMPUTE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(ro != MAP_FAILED);
	*ro = e;
	igt_assert_eq(mprotect(ro, COMPUTE_PAGE, PROT_READ), 0);
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, sid, ro, &n), -EFAULT);
	igt_assert(!memcmp(ro, &e, sizeof(e)));
	/* Nothing left at the handle; the retry gets the buffer to write. */
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, sid, &e, &n), 0);
	igt_assert_f(!(e.flags & DRM_COMPUTE_CRIU_BO_JOINED),
		     "the retry took the buffer as written by someone else\n");
	igt_assert(e.mmap_offset);
	munmap(ro, COMPUTE_PAGE);
	compute_close(&f);
	compute_close(&s);
}

/*
 * A shared buffer that only a dma-buf fd holds (the file that made it is
 * closed, as the plugin's file for a restored dma-buf fd is): a file that
 * takes it later imports that dma-buf as its own handle. A second dma-buf
 * of the buffer would make the import a second handle, with a WARN in
 * drm_gem_prime_fd_to_handle().
 */
static void test_shared_dmabuf_alone(void)
{
	struct drm_compute_criu_bo e = shared_entry(9, 0x5555);
	struct drm_compute_criu_share info;
	struct compute_dev s, f, g;
	uint32_t n = 1, h;
	uint64_t sid;
	int fd;

	sid = session_open(&s);
	restoring_file(&f);
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, sid, &e, &n), 0);
	igt_assert(!(e.flags & DRM_COMPUTE_CRIU_BO_JOINED));
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	fd = compute_prime_fd(&f, e.handle);
	compute_close(&f);

	restoring_file(&g);
	e.flags = 0;
	e.mmap_offset = 0;
	igt_assert_eq(onenode_criu_restore_bos(&g.dev, sid, &e, &n), 0);
	igt_assert(e.flags & DRM_COMPUTE_CRIU_BO_JOINED);
	igt_assert_eq(onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	igt_assert_eq(onenode_criu_dmabuf(&g.dev, fd, &info), 0);
	igt_assert_eq_u32(info.handle, e.handle);
	igt_assert_eq(drmPrimeFDToHandle(g.fd, fd, &h), 0);
	igt_assert_eq_u32(h, e.handle);
	close(fd);
	compute_close(&g);
	compute_close(&s);
}

/* The access mode of dma-buf fd @fd: O_RDONLY or O_RDWR. */
static int dmabuf_mode(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	igt_assert(fl >= 0);
	return fl & O_ACCMODE;
}

/*
 * A buffer whose dma-buf was exported read-only: listed so, and shared
 * again read-only; one exported read-write comes back read-write. A
 * read-only entry without a share id is refused.
 */
static void test_shared_dmabuf_mode(void)
{
	struct compute_dev f, g, s, f2, g2;
	struct image ia, ib;
	uint64_t sid;
	int fd;

	for (int rdwr = 0; rdwr < 2; rdwr++) {
		uint32_t a, b, n;

		compute_open_file(&cd, &f);
		compute_open_file(&cd, &g);
		a = compute_bo(&f, 2 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		igt_assert_eq(drmPrimeHandleToFD(f.fd, a, DRM_CLOEXEC | (rdwr ? DRM_RDWR : 0),
						 &fd), 0);
		igt_assert_eq(dmabuf_mode(fd), rdwr ? O_RDWR : O_RDONLY);
		igt_assert_eq(drmPrimeFDToHandle(g.fd, fd, &b), 0);
		close(fd);
		checkpoint(&f, &ia);
		checkpoint(&g, &ib);
		igt_assert(ia.bos[0].share);
		igt_assert_eq(!!(ia.bos[0].flags & DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY), !rdwr);
		igt_assert_eq(!!(ib.bos[0].flags & DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY), !rdwr);

		sid = session_open(&s);
		compute_open_file(&cd, &f2);
		compute_open_file(&cd, &g2);
		igt_assert_eq(restore_in(&f2, &ia, sid), 0);
		igt_assert_eq(restore_in(&g2, &ib, sid), 0);
		/* Any export of the restored buffer is the session's dma-buf. */
		igt_assert_eq(drmPrimeHandleToFD(g2.fd, b, DRM_CLOEXEC | DRM_RDWR, &fd), 0);
		igt_assert_eq(dmabuf_mode(fd), rdwr ? O_RDWR : O_RDONLY);
		igt_assert_eq(drmPrimeFDToHandle(f2.fd, fd, &n), 0);
		igt_assert_eq_u32(n, a);
		close(fd);

		if (!rdwr) {
			struct compute_dev h;
			struct drm_compute_criu_bo e = ia.bos[0];

			compute_open_file(&cd, &h);
			igt_assert_eq(onenode_criu_restore(&h.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN,
							   NULL, NULL), 0);
			e.flags &= ~DRM_COMPUTE_CRIU_BO_JOINED;
			e.mmap_offset = 0;
			e.share = 0;
			n = 1;
			igt_assert_eq(onenode_criu_restore_bos(&h.dev, sid, &e, &n), -EINVAL);
			compute_close(&h);
		}
		image_free(&ia);
		image_free(&ib);
		compute_close(&g2);
		compute_close(&f2);
		compute_close(&s);
		compute_close(&g);
		compute_close(&f);
	}
}

/*
 * Become @uid keeping CAP_CHECKPOINT_RESTORE (and the rest of the
 * permitted set) effective: a restorer of another user.
 */
static void become_other_restorer(uid_t uid)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	igt_assert_eq(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), 0);
	igt_assert_eq(setresuid(uid, uid, uid), 0);
	igt_assert_eq(syscall(SYS_capget, &hdr, data), 0);
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		data[i].effective = data[i].permitted;
	igt_assert_eq(syscall(SYS_capset, &hdr, data), 0);
}

/*
 * A session is its opener's: a restoring process of another user, allowed
 * to restore, does not find it by its id, and takes none of its buffers.
 */
static void test_shared_session_owner(void)
{
	struct drm_compute_criu_bo e = shared_entry(4, 0x6666);
	struct compute_dev s, f;
	uint64_t sid;
	uint32_t n = 1;

	sid = session_open(&s);
	restoring_file(&f);
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, sid, &e, &n), 0);
	compute_close(&f);

	igt_fork(child, 1) {
		struct drm_compute_criu_bo c = shared_entry(4, 0x6666);
		struct compute_dev g;

		restoring_file(&g);
		become_other_restorer(65534);
		igt_assert_eq(onenode_criu_restore_bos(&g.dev, sid, &c, &n), -ENOENT);
		compute_close(&g);
	}
	igt_waitchildren();
	/* Its opener's user still finds it. */
	restoring_file(&f);
	e = shared_entry(4, 0x6666);
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, sid, &e, &n), 0);
	igt_assert(e.flags & DRM_COMPUTE_CRIU_BO_JOINED);
	compute_close(&f);
	compute_close(&s);
}

struct undo_race {
	const struct compute_dev *f;
	struct drm_compute_criu_bo *entries;
	uint64_t sid;
	int ret;
};

static void *undo_racer(void *arg)
{
	struct undo_race *r = arg;
	uint32_t n = 2;

	r->ret = onenode_criu_restore_bos(&r->f->dev, r->sid, r->entries, &n);
	return NULL;
}

/*
 * A call stopped reading its entries (a userfaultfd page) while another
 * file takes the shared buffer and the caller rewrites an entry it has
 * passed: the call fails on its last entry and takes back what it made
 * from what it read, not from the caller's memory (so it deletes no other
 * handle), and leaves the other file's buffer in the session (so a retry
 * shares it instead of making a second one).
 */
static void test_shared_undo_race(void)
{
	const uint64_t share = 0x7777;
	struct drm_compute_criu_bo e, *entries, *page1;
	struct uffdio_register reg = {};
	struct uffdio_copy copy = {};
	struct drm_compute_criu_share info;
	struct compute_dev s, f, g;
	struct uffd_msg msg;
	struct undo_race r;
	uint64_t sid;
	uint32_t n = 1;
	pthread_t t;
	uint8_t *area, *src;
	int uffd;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	igt_require_f(uffd >= 0, "userfaultfd: %s\n", strerror(errno));
	{
		struct uffdio_api api = { .api = UFFD_API };

		igt_assert_eq(ioctl(uffd, UFFDIO_API, &api), 0);
	}
	sid = session_open(&s);
	restoring_file(&f);
	restoring_file(&g);

	/* A handle f made before, which the failing call must not touch. */
	e = (struct drm_compute_criu_bo){ .handle = 7, .size = COMPUTE_PAGE,
					  .placement = DRM_COMPUTE_PLACEMENT_SYSTEM };
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, 0, &e, &n), 0);

	/* Entry 0 ends a present page, entry 1 starts a missing one. */
	area = mmap(NULL, 2 * COMPUTE_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(area != MAP_FAILED);
	page1 = (struct drm_compute_criu_bo *)(area + COMPUTE_PAGE);
	entries = page1 - 1;
	entries[0] = shared_entry(1, share);
	reg.range.start = (uintptr_t)page1;
	reg.range.len = COMPUTE_PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	igt_assert_eq(ioctl(uffd, UFFDIO_REGISTER, &reg), 0);

	r = (struct undo_race){ .f = &f, .entries = entries, .sid = sid };
	igt_assert_eq(pthread_create(&t, NULL, undo_racer, &r), 0);
	igt_assert_eq(read(uffd, &msg, sizeof(msg)), (ssize_t)sizeof(msg));
	igt_assert_eq(msg.event, UFFD_EVENT_PAGEFAULT);

	/* f's call waits for entry 1: g takes the buffer, entry 0 changes. */
	e = shared_entry(1, share);
	igt_assert_eq(onenode_criu_restore_bos(&g.dev, sid, &e, &n), 0);
	entries[0].handle = 7;

	/* Entry 1 arrives, invalid (handle 0). */
	src = calloc(1, COMPUTE_PAGE);
	igt_assert(src);
	((struct drm_compute_criu_bo *)src)[0] = shared_entry(0, 0);
	copy.dst = (uintptr_t)page1;
	copy.src = (uintptr_t)src;
	copy.len = COMPUTE_PAGE;
	igt_assert_eq(ioctl(uffd, UFFDIO_COPY, &copy), 0);
	pthread_join(t, NULL);
	igt_assert_eq(r.ret, -EINVAL);

	/* The retry shares g's buffer; handle 7 is still f's. */
	entries[0] = shared_entry(1, share);
	n = 1;
	igt_assert_eq(onenode_criu_restore_bos(&f.dev, sid, entries, &n), 0);
	igt_assert_f(entries[0].flags & DRM_COMPUTE_CRIU_BO_JOINED,
		     "a second buffer was made for a share id the session had\n");
	igt_assert_eq_u64(entries[0].mmap_offset, e.mmap_offset);
	igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL), 0);
	igt_assert_f(onenode_criu_bo_share(&f.dev, 7, &info) == 0,
		     "the failed call deleted a handle it had not made\n");

	free(src);
	munmap(area, 2 * COMPUTE_PAGE);
	close(uffd);
	compute_close(&g);
	compute_close(&f);
	compute_close(&s);
}

static void test_invalid(void)
{
	struct drm_compute_criu_restore ok = { .op = DRM_COMPUTE_CRIU_RESTORE_BEGIN }, bad;
	struct compute_dev f;
	unsigned int i;

	compute_open_file(&cd, &f);
	for (i = 0; i < 3; i++) {
		bad = ok;
		bad.op = (uint32_t[]){ 0, DRM_COMPUTE_CRIU_RESTORE_SIGNALS + 1, 0xffffffffu }[i];
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	}
	for (i = 0; i < 32; i++) {
		bad = ok;
		bad.flags = 1u << i;
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	}
	bad = ok;
	bad.reserved = 1;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	/* A session on any op but BOS, and anything in SESSION's input. */
	for (i = 0; i < 2; i++) {
		bad = ok;
		bad.op = i ? DRM_COMPUTE_CRIU_RESTORE_SESSION : DRM_COMPUTE_CRIU_RESTORE_BEGIN;
		bad.session = 1;
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	}
	bad = (struct drm_compute_criu_restore){ .op = DRM_COMPUTE_CRIU_RESTORE_SESSION,
						 .ptr = 8 };
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	/* Fields BEGIN does not use; fields the array ops and WRITE_BO do not. */
	for (i = 0; i < 5; i++) {
		bad = ok;
		switch (i) {
		case 0: bad.count = 1; break;
		case 1: bad.id = 1; break;
		case 2: bad.ptr = 8; break;
		case 3: bad.offset = 8; break;
		default: bad.size = 8; break;
		}
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	}
	bad = (struct drm_compute_criu_restore){ .op = DRM_COMPUTE_CRIU_RESTORE_BOS, .id = 1 };
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	/* END takes END_PAUSED and no other flag; SVM_RANGES takes an id but no offset. */
	for (i = 1; i < 32; i++) {
		bad = (struct drm_compute_criu_restore){ .op = DRM_COMPUTE_CRIU_RESTORE_END,
							 .flags = 1u << i };
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad),
					-EINVAL);
	}
	bad = (struct drm_compute_criu_restore){ .op = DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES,
						 .offset = 4096 };
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	bad = (struct drm_compute_criu_restore){ .op = DRM_COMPUTE_CRIU_RESTORE_WRITE_BO,
						 .count = 1 };
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_RESTORE, &bad, sizeof(bad), -EINVAL);
	/* The file was never put in the restoring state. */
	igt_assert_eq(onenode_query_device(&f.dev, &f.info), 0);
	compute_close(&f);
}

static void test_access(void)
{
	igt_fork(child, 1) {
		struct compute_dev f;

		compute_open_file(&cd, &f);
		igt_assert(compute_drop_cap(CAP_CHECKPOINT_RESTORE));
		igt_assert(compute_drop_cap(CAP_SYS_ADMIN));
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL,
						   NULL), -EPERM);
		/* Not restoring: its ordinary ioctls work. */
		compute_bo_close(&f, compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM));
		compute_close(&f);
	}
	igt_waitchildren();
}

struct intruder {
	const struct compute_dev *f;
	atomic_bool stop;
	atomic_uint tries, got;
};

/*
 * Another thread of the restoring process tries to take, close or export
 * the handles the restore places, and to make objects of its own.
 */
static void *intruder_thread(void *arg)
{
	struct intruder *in = arg;
	unsigned int i = 0;

	while (!atomic_load(&in->stop)) {
		struct drm_gem_close cl = { .handle = 1 + i % MAX_OBJS };
		uint32_t h;
		int fd, ret;

		switch (i++ % 3) {
		case 0:
			ret = onenode_bo_create(&in->f->dev, COMPUTE_PAGE,
						DRM_COMPUTE_PLACEMENT_SYSTEM, &h);
			break;
		case 1:
			ret = drmIoctl(in->f->fd, DRM_IOCTL_GEM_CLOSE, &cl) ? -errno : 0;
			break;
		default:
			ret = drmPrimeHandleToFD(in->f->fd, cl.handle, DRM_CLOEXEC, &fd) ?
			      -errno : 0;
			if (!ret)
				close(fd);
			break;
		}
		atomic_fetch_add(&in->tries, 1);
		if (ret != -EBUSY)
			atomic_fetch_add(&in->got, 1);
	}
	return NULL;
}

static void test_race(void)
{
	struct drm_compute_criu_bo bos[MAX_OBJS];
	unsigned int rounds = 0, tries = 0;

	for (; rounds < 20; rounds++) {
		struct intruder in = { .stop = false };
		struct image after;
		struct compute_dev f;
		pthread_t t;
		uint32_t n;

		compute_open_file(&cd, &f);
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL,
						   NULL), 0);
		in.f = &f;
		igt_assert_eq(pthread_create(&t, NULL, intruder_thread, &in), 0);
		for (uint32_t i = 0; i < MAX_OBJS; i++)
			bos[i] = (struct drm_compute_criu_bo){
				.handle = MAX_OBJS - i, .size = COMPUTE_PAGE,
				.placement = DRM_COMPUTE_PLACEMENT_SYSTEM,
			};
		for (uint32_t i = 0; i < MAX_OBJS; i++) {
			n = 1;
			igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_BOS,
							   &bos[i], &n), 0);
		}
		atomic_store(&in.stop, true);
		pthread_join(t, NULL);
		igt_assert_eq(onenode_criu_restore(&f.dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL),
			      0);
		igt_assert_f(!atomic_load(&in.got), "%u of %u intruding calls were not refused\n",
			     atomic_load(&in.got), atomic_load(&in.tries));
		tries += atomic_load(&in.tries);
		/* Exactly the restored handles, nothing else. */
		checkpoint(&f, &after);
		igt_assert_eq_u32(after.nbos, MAX_OBJS);
		for (uint32_t i = 0; i < MAX_OBJS; i++)
			igt_assert_eq_u32(after.bos[i].handle, i + 1);
		image_free(&after);
		compute_close(&f);
	}
	igt_info("%u rounds, %u intruding calls, all refused\n", rounds, tries);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		igt_require_f(cd.info.features & DRM_COMPUTE_FEATURE_CRIU,
			      "the device does not report DRM_COMPUTE_FEATURE_CRIU\n");
		igt_require_f(geteuid() == 0, "root (CAP_CHECKPOINT_RESTORE)\n");
	}

	igt_describe("A file with holes in its handles and VM ids, buffers in "
		     "each placement and split mappings with flags is "
		     "checkpointed and restored in a fresh file: the same "
		     "handles, bytes, VM ids and mappings, mmap offsets that map "
		     "the restored bytes, and an ordinary file afterwards.");
	igt_subtest("roundtrip")
		test_roundtrip();

	igt_describe("While restoring, the helper's ioctls and DRM core's (GEM "
		     "close, PRIME export) fail with -EBUSY; a second BEGIN, the "
		     "restore's ops outside the state and BEGIN on a file that "
		     "holds a buffer or a VM are refused.");
	igt_subtest("restoring-refuses")
		test_restoring_refuses();

	igt_describe("A handle or VM id twice, creation's and binding's rules, "
		     "an export flag, an SVM VM, writes outside a buffer: each "
		     "fails with its error, and an array call makes all of its "
		     "entries or none.");
	igt_subtest("bad-entries")
		test_bad_entries();

	igt_describe("A restore given up halfway (the file closed without "
		     "END) leaves no buffer and no memory behind.");
	igt_subtest("given-up")
		test_given_up();

	igt_describe("Buffers made for export: listed with their flag, restored "
		     "with it, a PREFER_P2P buffer moved to system memory by vgem "
		     "back in device memory with its bytes; while an importer is "
		     "attached, not saved.");
	igt_subtest("export-flags")
		test_export_flags();

	igt_describe("A buffer held by two files is listed in both with one share "
		     "id; restored in a session, the first file makes it and the "
		     "second takes the same buffer (JOINED, one mmap offset, writes "
		     "seen by both, PRIME agreeing); a shared entry without a "
		     "session, in an unknown or closed one, with another size or "
		     "with JOINED set is refused, all or nothing.");
	igt_subtest("shared")
		test_shared();

	igt_describe("Four files restore the same share id at once, sixteen times: "
		     "one makes the buffer, three take it.");
	igt_subtest("shared-race")
		test_shared_race();

	igt_describe("RESTORE_BOS on a read-only array: -EFAULT, nothing left "
		     "at the handle, and the shared buffer it made is the "
		     "retry's to write, not taken as written.");
	igt_subtest("shared-efault")
		test_shared_efault();

	igt_describe("A shared buffer only a dma-buf fd holds, taken by a later "
		     "file: the fd imports as that file's handle, with no "
		     "second dma-buf.");
	igt_subtest("shared-dmabuf-alone")
		test_shared_dmabuf_alone();

	igt_describe("A call stalled on a userfaultfd page while another file "
		     "takes its shared buffer and the caller rewrites a passed "
		     "entry: the failed call deletes only what it made and the "
		     "retry shares the other file's buffer.");
	igt_subtest("shared-undo-race")
		test_shared_undo_race();

	igt_describe("A buffer whose dma-buf was exported read-only is listed "
		     "with DMABUF_RDONLY and its dma-buf comes back read-only; a "
		     "read-write one read-write; the flag without a share id is "
		     "refused.");
	igt_subtest("shared-dmabuf-mode")
		test_shared_dmabuf_mode();

	igt_describe("A restore session is its opener's: a restorer of another "
		     "user, with CAP_CHECKPOINT_RESTORE, does not find it by id.");
	igt_subtest("shared-session-owner")
		test_shared_session_owner();

	igt_describe("An unknown op, each flag bit, each reserved word and "
		     "fields the op does not use: -EINVAL, the argument "
		     "unchanged, the file not restoring.");
	igt_subtest("invalid")
		test_invalid();

	igt_describe("A queue checkpointed inside a long LIST_SUM and one its "
		     "user had suspended with a write pending are restored in "
		     "a fresh file at their ids, with their doorbells' write "
		     "pointers and fence values: the first finishes the walk "
		     "with the whole walk's sum, the second stays suspended "
		     "until resumed, then writes; the sync-object signals "
		     "pending on both come back pending and complete with "
		     "them.");
	igt_subtest("queues")
		test_queues();

	igt_describe("RESTORE_QUEUES refuses an entry with id 0, non-zero pad, "
		     "reserved or doorbell offset, a dead status, a CU mask of "
		     "no CU or of the wrong size, creation's rules broken, an "
		     "unknown VM and an id in use; two entries where the second "
		     "fails leave neither. RESTORE_SIGNALS refuses an unknown "
		     "queue or sync object, non-zero reserved and more signals "
		     "than a queue holds, all or nothing.");
	igt_subtest("bad-queues")
		test_bad_queues();

	igt_describe("Sync objects (signaled, without a fence, a timeline up to "
		     "point 7) and a hole in their handles are saved and come "
		     "back at their handles, waits and queries answering as "
		     "before; bad entries are refused, all or nothing.");
	igt_subtest("syncobjs")
		test_syncobjs();

	igt_describe("SVM VMs: attributes over malloc'ed memory (a preferred and "
		     "prefetched device location with a granularity, no access, "
		     "a flag) are listed after the pause brought device pages "
		     "home, come back in a fresh file of the same process "
		     "(END_PAUSED: unwatched until the resume, which drops what "
		     "was unmapped meanwhile) and act: a queue reads the data, "
		     "the NO_ACCESS range faults.");
	igt_subtest("svm")
		test_svm();

	igt_describe("RESTORE_SVM_RANGES outside a restore, an unknown or "
		     "non-SVM VM, bad counts, reserved, alignment, attribute "
		     "type and device, a VM's entries out of order or "
		     "overlapping, too many entries, a VM that has ranges "
		     "already: each refused; two entries where the second "
		     "fails leave neither; the image's device id names this "
		     "device.");
	igt_subtest("bad-svm-ranges")
		test_bad_svm_ranges();

	igt_describe("The owner without CAP_CHECKPOINT_RESTORE and "
		     "CAP_SYS_ADMIN cannot begin a restore.");
	igt_subtest("access")
		test_access();

	igt_describe("A thread of the restoring process creates, closes and "
		     "exports buffers while the restore places sixteen handles "
		     "in reverse order: every one of its calls is refused and "
		     "the file ends with exactly the restored handles.");
	igt_subtest("race")
		test_race();

	igt_fixture
		compute_close(&cd);
}
