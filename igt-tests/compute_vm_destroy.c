// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_VM_DESTROY (struct drm_compute_vm_destroy):
 * destruction and what is gone afterwards, -EBUSY while a queue runs on the
 * VM, the references mappings hold, rejection of bad input, other files'
 * ids, and races of destruction against destruction and queue creation.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_VM_DESTROY: the VM and its id "
		     "are gone, -EBUSY while a queue (even a dead one) runs on "
		     "it, mappings release their buffers with it, rejection of "
		     "bad fields and foreign ids, and races against itself and "
		     "against queue creation.");

#define MIB (1ull << 20)
#define RACE_CHILDREN 4
#define RACE_ROUNDS 24

static struct compute_dev cd = { .fd = -1 };

static void expect_destroy_rejected(const struct compute_dev *dev, uint32_t vm,
				    uint32_t pad, int err)
{
	struct drm_compute_vm_destroy args = { .vm_id = vm, .pad = pad };

	compute_expect_rejected(dev, DRM_COMPUTE_OP_VM_DESTROY, &args, sizeof(args), err);
}

/* The VM exists: a page maps into it (and is unmapped again). */
static void check_vm_alive(const struct compute_dev *dev, uint32_t vm)
{
	uint32_t h = compute_bo(dev, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

	compute_map(dev, vm, h, 0, COMPUTE_BUF_VA(7), COMPUTE_PAGE, 0);
	compute_unmap(dev, vm, COMPUTE_BUF_VA(7), COMPUTE_PAGE);
	compute_bo_close(dev, h);
}

/* ---- races ---- */

static void setup_vm(unsigned int round, uint64_t *slot)
{
	(void)round;
	slot[0] = compute_vm(&cd);
}

static int race_destroy(int child, unsigned int round, const uint64_t *slot)
{
	(void)child;
	(void)round;
	return onenode_vm_destroy(&cd.dev, (uint32_t)slot[0]);
}

static void check_one_destroyed(unsigned int round, const int *results, uint64_t *slot)
{
	unsigned int won = 0;

	for (unsigned int c = 0; c < RACE_CHILDREN; c++) {
		igt_assert_f(results[c] == 0 || results[c] == -ENOENT,
			     "round %u child %u: %d\n", round, c, results[c]);
		won += results[c] == 0;
	}
	igt_assert_f(won == 1, "round %u: %u destroys succeeded\n", round, won);
	expect_destroy_rejected(&cd, (uint32_t)slot[0], 0, -ENOENT);
}

/* A queue creation template whose buffers live in a VM of their own. */
static struct compute_rawq tmpl;

static int race_destroy_or_create(int child, unsigned int round, const uint64_t *slot)
{
	struct drm_compute_userq_create args = tmpl.args;
	int ret;

	(void)round;
	if (child == 0)
		return onenode_vm_destroy(&cd.dev, (uint32_t)slot[0]);
	/* The VM's ring is not mapped: creation does not look at it. */
	args.vm_id = (uint32_t)slot[0];
	ret = compute_ioctl(&cd, DRM_COMPUTE_OP_USERQ_CREATE, &args);
	return ret ? ret : (int)args.queue_id;
}

static void check_destroy_or_create(unsigned int round, const int *results, uint64_t *slot)
{
	uint32_t vm = (uint32_t)slot[0];
	unsigned int queues = 0;

	for (unsigned int c = 1; c < RACE_CHILDREN; c++) {
		igt_assert_f(results[c] > 0 || results[c] == -ENOENT,
			     "round %u: queue creation gave %d\n", round, results[c]);
		queues += results[c] > 0;
	}
	if (results[0] == 0) {
		/* Destroyed first: no queue may have been created on it. */
		igt_assert_f(queues == 0, "round %u: %u queues on a destroyed VM\n",
			     round, queues);
		return;
	}
	igt_assert_f(results[0] == -EBUSY && queues > 0,
		     "round %u: destroy gave %d with %u queues\n", round, results[0], queues);
	for (unsigned int c = 1; c < RACE_CHILDREN; c++)
		if (results[c] > 0)
			igt_assert_eq(onenode_userq_destroy(&cd.dev, results[c]), 0);
	compute_vm_destroy(&cd, vm);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
	}

	igt_describe("A destroyed VM is gone: destroying it again, binding in it "
		     "and creating a queue on it fail with -ENOENT; a VM with "
		     "mappings is destroyed as well.");
	igt_subtest("basic") {
		static struct compute_rawq rq;
		uint32_t vm = compute_vm(&cd), keep = compute_vm(&cd);
		uint32_t h = compute_bo(&cd, 4 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		struct drm_compute_userq_create args;

		compute_rawq_setup(&cd, keep, COMPUTE_QUEUE_VA(0), 4096, 0, &rq);
		compute_map(&cd, vm, h, 0, COMPUTE_BUF_VA(0), 4 * COMPUTE_PAGE, 0);
		compute_vm_destroy(&cd, vm);
		expect_destroy_rejected(&cd, vm, 0, -ENOENT);
		igt_assert_eq(onenode_vm_map(&cd.dev, vm, h, 0, COMPUTE_BUF_VA(0),
					     COMPUTE_PAGE, 0), -ENOENT);
		args = rq.args;
		args.vm_id = vm;
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_CREATE, &args, sizeof(args),
					-ENOENT);
		check_vm_alive(&cd, keep);
		compute_rawq_teardown(&rq);
		compute_vm_destroy(&cd, keep);
		compute_bo_close(&cd, h);
	}

	igt_describe("A VM with a queue on it is not destroyed: -EBUSY with the "
		     "argument unchanged, while the queue keeps running and the VM "
		     "keeps taking mappings; once the queue is destroyed the VM "
		     "goes. Other VMs of the file are not affected.");
	igt_subtest("busy") {
		static struct compute_queue q;
		uint32_t vm = compute_vm(&cd), idle = compute_vm(&cd);

		compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(0), &q);
		expect_destroy_rejected(&cd, vm, 0, -EBUSY);
		compute_check_alive(&q);
		check_vm_alive(&cd, vm);
		compute_vm_destroy(&cd, idle);
		expect_destroy_rejected(&cd, vm, 0, -EBUSY);
		compute_queue_fini(&q);
		compute_vm_destroy(&cd, vm);
	}

	igt_describe("A dead queue still holds its VM: after the queue faulted "
		     "VM_DESTROY still fails with -EBUSY, until the queue is "
		     "destroyed.");
	igt_subtest("busy-dead-queue") {
		static struct compute_queue q;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		uint32_t vm = compute_vm(&cd), qw;

		compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(0), &q);
		/* A write to an address nothing is mapped at. */
		qw = onenode_pkt_fill(pkt, COMPUTE_BUF_VA(3), 64, 0);
		compute_emit(&q, pkt, qw);
		compute_commit(&q);
		compute_assert_fault(&cd, q.q.id, DRM_COMPUTE_FAULT_UNMAPPED, COMPUTE_BUF_VA(3),
				     UINT64_MAX);
		expect_destroy_rejected(&cd, vm, 0, -EBUSY);
		compute_queue_fini(&q);
		compute_vm_destroy(&cd, vm);
	}

	igt_describe("A non-zero pad is rejected with -EINVAL, the argument "
		     "unchanged and the VM kept.");
	igt_subtest("invalid-pad") {
		uint32_t vm = compute_vm(&cd);
		const uint32_t pads[] = { 1, 0x80000000, 0xffffffff };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(pads); i++)
			expect_destroy_rejected(&cd, vm, pads[i], -EINVAL);
		check_vm_alive(&cd, vm);
		compute_vm_destroy(&cd, vm);
	}

	igt_describe("Id 0, ids never created and the largest id fail with "
		     "-ENOENT, the argument unchanged, and change nothing (the next "
		     "VM still gets a non-zero id).");
	igt_subtest("bad-id") {
		uint32_t vm = compute_vm(&cd);
		const uint32_t ids[] = { 0, vm + 1, vm + 1000, 0x80000000, 0xffffffff };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ids); i++)
			expect_destroy_rejected(&cd, ids[i], 0, -ENOENT);
		/* Nothing changed: the next VM still gets a non-zero id. */
		compute_vm_destroy(&cd, compute_vm(&cd));
		compute_vm_destroy(&cd, vm);
	}

	igt_describe("Another file's VM id is unknown here (-ENOENT) and that "
		     "file's VM survives the attempt.");
	igt_subtest("other-file") {
		static struct compute_dev other = { .fd = -1 };
		uint32_t theirs[3];

		compute_open_file(&cd, &other);
		for (unsigned int i = 0; i < 3; i++)
			theirs[i] = compute_vm(&other);
		for (unsigned int i = 0; i < 3; i++)
			expect_destroy_rejected(&cd, theirs[i], 0, -ENOENT);
		for (unsigned int i = 0; i < 3; i++) {
			check_vm_alive(&other, theirs[i]);
			compute_vm_destroy(&other, theirs[i]);
		}
		compute_close(&other);
	}

	igt_describe("Mappings hold their buffers: VRAM filled with buffers that "
		     "are mapped in a VM and whose handles are closed stays full "
		     "(-ENOSPC) until the VM is destroyed, after which all of it "
		     "can be allocated again.");
	igt_subtest("releases-buffers") {
		static uint32_t handles[256];
		const uint64_t chunk = 16 * MIB;
		unsigned int n = 0;
		uint32_t vm, h;
		int ret;

		igt_require(cd.info.placements & DRM_COMPUTE_PLACEMENT_VRAM);
		vm = compute_vm(&cd);
		while ((ret = onenode_bo_create(&cd.dev, chunk, DRM_COMPUTE_PLACEMENT_VRAM,
						&h)) == 0) {
			igt_assert_lt_u32(n, COMPUTE_ARRAY_SIZE(handles));
			compute_map(&cd, vm, h, 0, COMPUTE_BUF_VA(0) + n * chunk, chunk, 0);
			handles[n++] = h;
		}
		igt_assert_eq(ret, -ENOSPC);
		for (unsigned int i = 0; i < n; i++)
			compute_bo_close(&cd, handles[i]);
		igt_assert_eq(onenode_bo_create(&cd.dev, chunk, DRM_COMPUTE_PLACEMENT_VRAM, &h),
			      -ENOSPC);
		compute_vm_destroy(&cd, vm);
		h = compute_bo(&cd, cd.info.vram_size, DRM_COMPUTE_PLACEMENT_VRAM);
		compute_bo_close(&cd, h);
	}

	igt_describe("Processes sharing the file destroy the same VM at once, "
		     "24 times: exactly one succeeds each time, the others get "
		     "-ENOENT.");
	igt_subtest("race-destroy")
		compute_race_rounds(RACE_CHILDREN, RACE_ROUNDS, setup_vm, race_destroy,
				    check_one_destroyed);

	igt_describe("One process destroys a VM while others create queues on "
		     "it, 24 times: either the destroy wins and every creation "
		     "fails with -ENOENT, or a queue exists and the destroy fails "
		     "with -EBUSY.");
	igt_subtest("race-destroy-create-queue") {
		uint32_t vm = compute_vm(&cd);

		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), 4096, 0, &tmpl);
		compute_race_rounds(RACE_CHILDREN, RACE_ROUNDS, setup_vm,
				    race_destroy_or_create, check_destroy_or_create);
		compute_rawq_teardown(&tmpl);
		compute_vm_destroy(&cd, vm);
	}

	igt_fixture {
		compute_close(&cd);
	}
}
