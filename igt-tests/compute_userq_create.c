// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_USERQ_CREATE (struct drm_compute_userq_create):
 * every field's rule (format, flags, priority and its privilege, CU mask,
 * ring, read and write pointers, context save area, out fields), the
 * per-file limit, the addresses creation does not check and how the queue
 * faults on them later, and concurrent creation.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/capability.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_USERQ_CREATE: every field's "
		     "rule, priorities and CAP_SYS_NICE, CU masks, ring and "
		     "pointer alignment, the context save area, -ENOSPC at "
		     "max_queues, addresses checked only when the queue runs, "
		     "and concurrent creation.");

#define RING_SIZE (64 * 1024)
#define RACE_CHILDREN 4
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };
static uint32_t vm;
static struct compute_rawq rq;	/* buffers and a valid creation template */
/* A queue of another file that must keep running whatever happens here. */
static struct compute_dev byfile = { .fd = -1 };
static struct compute_queue bystander;

static void expect_create_rejected(const struct drm_compute_userq_create *args, int err)
{
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_CREATE, args, sizeof(*args), err);
}

/* Create from @args; returns the queue id or the negative errno. */
static int create(const struct compute_dev *dev, const struct drm_compute_userq_create *args)
{
	struct drm_compute_userq_create a = *args;
	int ret = compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_CREATE, &a);

	return ret ? ret : (int)a.queue_id;
}

static void destroy(const struct compute_dev *dev, int id)
{
	igt_assert_lt(0, id);
	igt_assert_eq(onenode_userq_destroy(&dev->dev, id), 0);
}

/* A valid creation still works after rejections, and the queue runs. */
static void check_create_works(void)
{
	compute_rawq_create(&rq);
	compute_rawq_sync(&rq, compute_rawq_submit(&rq));
	compute_rawq_destroy(&rq);
}

/* Create, check the reported state, destroy. */
static void check_created(const struct drm_compute_userq_create *args)
{
	struct drm_compute_userq_state st;
	int id = create(&cd, args);

	igt_assert_f(id > 0, "USERQ_CREATE: %d\n", id);
	compute_state(&cd, id, &st);
	igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_IDLE);
	igt_assert_eq_u32(st.priority, args->priority);
	destroy(&cd, id);
}

/* The context save area rules, where the device needs one. */
static void check_ctx_save_rules(void)
{
	struct drm_compute_userq_create a = rq.args;

	a.ctx_save_va = 0;
	expect_create_rejected(&a, -EINVAL);
	for (uint64_t off = 8; off < cd.info.page_size; off *= 4) {
		a = rq.args;
		a.ctx_save_va += off;
		expect_create_rejected(&a, -EINVAL);
	}
	a = rq.args;
	a.ctx_save_size = 0;
	expect_create_rejected(&a, -EINVAL);
	a.ctx_save_size = cd.uq.ctx_save_size - 1;
	expect_create_rejected(&a, -EINVAL);
	a.ctx_save_size = cd.uq.ctx_save_size - 8;
	expect_create_rejected(&a, -EINVAL);
	a.ctx_save_size = 2 * cd.uq.ctx_save_size;
	check_created(&a);
}

static int create_n(const struct compute_dev *dev, int *ids, unsigned int max)
{
	unsigned int n = 0;
	int id;

	while ((id = create(dev, &rq.args)) > 0) {
		igt_assert_lt_u32(n, max);
		ids[n++] = id;
	}
	igt_assert_eq(id, -ENOSPC);
	return n;
}

struct race_shared {
	unsigned int created[RACE_CHILDREN];
	int done[RACE_CHILDREN];
	int release;
	unsigned long rounds[RACE_CHILDREN];
};

static struct race_shared *shared;

static void race_limit(int child)
{
	int ids[256];
	unsigned int n = create_n(&cd, ids, 256);
	uint64_t end;

	__atomic_store_n(&shared->created[child], n, __ATOMIC_RELEASE);
	__atomic_store_n(&shared->done[child], 1, __ATOMIC_RELEASE);
	end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;
	while (!__atomic_load_n(&shared->release, __ATOMIC_ACQUIRE))
		igt_assert(compute_now_ns() < end);
	for (unsigned int i = 0; i < n; i++)
		destroy(&cd, ids[i]);
}

static void race_churn(int child)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
	unsigned long n = 0;

	while (compute_now_ns() < end) {
		if (child == 0) {
			/* A file of its own with queues, closed with them. */
			static struct compute_dev f = { .fd = -1 };
			uint32_t fvm;
			int id;

			compute_open_file(&cd, &f);
			fvm = compute_vm(&f);
			for (unsigned int i = 0; i < 4; i++) {
				struct drm_compute_userq_create a = rq.args;

				a.vm_id = fvm;
				id = create(&f, &a);
				igt_assert_lt(0, id);
			}
			compute_close(&f);
		} else {
			int id = create(&cd, &rq.args);

			if (id == -ENOSPC)
				continue;
			igt_assert_lt(0, id);
			destroy(&cd, id);
		}
		n++;
	}
	shared->rounds[child] = n;
	igt_assert_lt(0, (int)n);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		vm = compute_vm(&cd);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &rq);
		compute_open_file(&cd, &byfile);
		compute_queue_init_at(&byfile, compute_vm(&byfile), COMPUTE_QUEUE_VA(0),
				      &bystander);
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(shared != MAP_FAILED);
	}

	igt_describe("A valid argument creates a queue: a non-zero id, a "
		     "doorbell inside its mmap()able page with the write pointer "
		     "at 0, state IDLE at the given priority; the queue executes "
		     "packets; a second queue gets another id and doorbell.");
	igt_subtest("basic") {
		static struct compute_rawq second;
		struct drm_compute_userq_state st;
		uint64_t off_a, off_b;

		compute_rawq_create(&rq);
		igt_assert_eq_u64(rq.db->wptr, 0);
		igt_assert_eq_u32(rq.db->flags & ~DRM_COMPUTE_DOORBELL_NEED_WAKEUP, 0);
		compute_state(&cd, rq.id, &st);
		igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_IDLE);
		igt_assert_eq_u32(st.priority, cd.uq.priority_default);
		igt_assert_eq_u64(st.rptr, 0);
		igt_assert_eq_u64(st.wptr, 0);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));

		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(1), RING_SIZE, 0, &second);
		compute_rawq_create(&second);
		igt_assert_neq_u32(second.id, rq.id);
		compute_rawq_sync(&second, compute_rawq_submit(&second));
		off_a = (uintptr_t)rq.db;
		off_b = (uintptr_t)second.db;
		igt_assert_neq_u64(off_a, off_b);
		compute_rawq_teardown(&second);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A format the device does not report is rejected with "
		     "-EINVAL, the argument unchanged.");
	igt_subtest("invalid-format") {
		const uint32_t formats[] = {
			0, DRM_COMPUTE_QUEUE_FORMAT_AMD_AQL, DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4,
			4, 31, 32, 33, 0x80000000, 0xffffffff,
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(formats); i++) {
			struct drm_compute_userq_create a = rq.args;

			if (formats[i] < 32 && (cd.uq.queue_formats & (1u << formats[i])))
				continue;
			a.format = formats[i];
			expect_create_rejected(&a, -EINVAL);
		}
		check_create_works();
	}

	igt_describe("Every bit of flags is rejected with -EINVAL (none is "
		     "defined), and so is a non-zero pad.");
	igt_subtest("invalid-flags-pad") {
		for (unsigned int bit = 0; bit < 32; bit++) {
			struct drm_compute_userq_create a = rq.args;

			a.flags = 1u << bit;
			expect_create_rejected(&a, -EINVAL);
			a = rq.args;
			a.pad = 1u << bit;
			expect_create_rejected(&a, -EINVAL);
		}
		check_create_works();
	}

	igt_describe("A non-zero out field on input (queue_id, doorbell_pos, "
		     "doorbell_offset) is rejected with -EINVAL, also with the "
		     "values of an existing queue.");
	igt_subtest_with_dynamic("invalid-out-fields") {
		struct drm_compute_userq_create live = rq.args;

		igt_assert_eq(compute_ioctl(&cd, DRM_COMPUTE_OP_USERQ_CREATE, &live), 0);
		igt_dynamic("queue-id") {
			const uint32_t v[] = { 1, live.queue_id, 0xffffffff };

			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(v); i++) {
				struct drm_compute_userq_create a = rq.args;

				a.queue_id = v[i];
				expect_create_rejected(&a, -EINVAL);
			}
		}
		igt_dynamic("doorbell-pos") {
			const uint32_t v[] = { 8, 16, live.doorbell_pos | 0x10, 0xffffffff };

			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(v); i++) {
				struct drm_compute_userq_create a = rq.args;

				a.doorbell_pos = v[i];
				expect_create_rejected(&a, -EINVAL);
			}
		}
		igt_dynamic("doorbell-offset") {
			const uint64_t v[] = { 4096, live.doorbell_offset, ~0ull };

			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(v); i++) {
				struct drm_compute_userq_create a = rq.args;

				a.doorbell_offset = v[i];
				expect_create_rejected(&a, -EINVAL);
			}
		}
		destroy(&cd, live.queue_id);
	}

	igt_describe("Every priority from 0 to num_priorities - 1 creates a "
		     "queue whose state reports it (the test runs with "
		     "CAP_SYS_NICE); num_priorities and above are rejected with "
		     "-EINVAL.");
	igt_subtest("priorities") {
		const uint32_t bad[] = {
			cd.uq.num_priorities, cd.uq.num_priorities + 1, 0x80000000, 0xffffffff,
		};

		for (uint32_t p = 0; p < cd.uq.num_priorities; p++) {
			struct drm_compute_userq_create a = rq.args;

			a.priority = p;
			check_created(&a);
		}
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad); i++) {
			struct drm_compute_userq_create a = rq.args;

			a.priority = bad[i];
			expect_create_rejected(&a, -EINVAL);
		}
	}

	igt_describe("Without CAP_SYS_NICE (dropped in a forked child with "
		     "capset) priorities from priority_privileged up are refused "
		     "with -EACCES and an unchanged argument, lower ones work.");
	igt_subtest("priority-privileged") {
		igt_require_f(cd.uq.priority_privileged < cd.uq.num_priorities,
			      "no priority needs privilege on this device\n");
		igt_fork(child, 1) {
			igt_assert(compute_drop_cap(CAP_SYS_NICE));
			for (uint32_t p = 0; p < cd.uq.num_priorities; p++) {
				struct drm_compute_userq_create a = rq.args;

				a.priority = p;
				if (p >= cd.uq.priority_privileged)
					expect_create_rejected(&a, -EACCES);
				else
					check_created(&a);
			}
		}
		igt_waitchildren();
	}

	igt_describe("A ring size that is zero, not a power of two, below "
		     "ring_size_min or above ring_size_max is rejected with "
		     "-EINVAL; the smallest and the largest sizes work.");
	igt_subtest("ring-size") {
		static struct compute_rawq big;
		const uint64_t min = cd.uq.ring_size_min, max = cd.uq.ring_size_max;
		const uint64_t bad[] = { 0, min / 2, min + 8, 3 * min, max * 2, ~0ull, 1ull << 63 };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad); i++) {
			struct drm_compute_userq_create a = rq.args;

			a.ring_size = bad[i];
			expect_create_rejected(&a, -EINVAL);
		}
		igt_require(max <= COMPUTE_QUEUE_VA(1) - COMPUTE_QUEUE_VA(0) - RAWQ_STATE_SIZE);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(1), min, 0, &big);
		compute_rawq_create(&big);
		compute_rawq_sync(&big, compute_rawq_submit(&big));
		compute_rawq_teardown(&big);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(1), max, 0, &big);
		compute_rawq_create(&big);
		compute_rawq_sync(&big, compute_rawq_submit(&big));
		compute_rawq_teardown(&big);
	}

	igt_describe("A zero ring_va or one not aligned to the ring size, and a "
		     "zero or not 8-byte aligned rptr_va, are rejected with "
		     "-EINVAL.");
	igt_subtest("ring-rptr-alignment") {
		const uint64_t ring_bad[] = { 0, 8, COMPUTE_PAGE, RING_SIZE / 2 };
		const uint64_t rptr_bad[] = { 1, 4, 7 };
		struct drm_compute_userq_create a;

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ring_bad); i++) {
			a = rq.args;
			a.ring_va = i ? rq.args.ring_va + ring_bad[i] : 0;
			expect_create_rejected(&a, -EINVAL);
		}
		a = rq.args;
		a.rptr_va = 0;
		expect_create_rejected(&a, -EINVAL);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(rptr_bad); i++) {
			a = rq.args;
			a.rptr_va += rptr_bad[i];
			expect_create_rejected(&a, -EINVAL);
		}
		check_create_works();
	}

	igt_describe("wptr_va follows DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY: without "
		     "it any non-zero value is rejected with -EINVAL; with it a "
		     "zero or misaligned one is.");
	igt_subtest("wptr-va") {
		const uint64_t good = rq.state.va + 16;
		struct drm_compute_userq_create a = rq.args;

		if (cd.uq.caps & DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY) {
			a.wptr_va = 0;
			expect_create_rejected(&a, -EINVAL);
			a.wptr_va = good + 4;
			expect_create_rejected(&a, -EINVAL);
		} else {
			const uint64_t v[] = { good, good + 4, 8, ~0ull };

			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(v); i++) {
				a.wptr_va = v[i];
				expect_create_rejected(&a, -EINVAL);
			}
		}
		check_create_works();
	}

	igt_describe("Where the device needs a context save area, a zero or "
		     "not page-aligned ctx_save_va and a ctx_save_size below "
		     "ctx_save_size of the report are rejected with -EINVAL; a "
		     "larger area works.");
	igt_subtest("ctx-save") {
		struct drm_compute_userq_create a = rq.args;

		if (!cd.uq.ctx_save_size) {
			/* The device saves context elsewhere: an area is refused. */
			a.ctx_save_va = rq.state.va + RAWQ_CTX_OFF;
			a.ctx_save_size = COMPUTE_PAGE;
			expect_create_rejected(&a, -EINVAL);
			a.ctx_save_va = 0;
			expect_create_rejected(&a, -EINVAL);
		} else {
			check_ctx_save_rules();
		}
	}

	igt_describe("CU masks: a count that is not a multiple of 32 or exceeds "
		     "the CU count rounded up to 32, a bit past the last CU, a mask "
		     "enabling no CU and a zero pointer with a count are rejected "
		     "with -EINVAL, an unreadable pointer with -EFAULT; masks of "
		     "one CU each and of all CUs work.");
	igt_subtest("cu-mask") {
		const uint32_t ncu = cd.uq.num_cus, words = (ncu + 31) / 32;
		static uint32_t mask[8];
		const uint32_t bad_counts[] = { 1, 8, 31, 33, 32 * words + 32, 32 * words + 1 };
		struct drm_compute_userq_create a;
		long page = sysconf(_SC_PAGESIZE);
		void *none;

		igt_require(words < COMPUTE_ARRAY_SIZE(mask));
		memset(mask, 0, sizeof(mask));
		mask[0] = 1;
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad_counts); i++) {
			a = rq.args;
			a.cu_mask_ptr = (uintptr_t)mask;
			a.cu_mask_count = bad_counts[i];
			expect_create_rejected(&a, -EINVAL);
		}
		/* A bit past the last CU, inside the last word. */
		if (ncu % 32) {
			memset(mask, 0, sizeof(mask));
			mask[ncu / 32] = 1u << (ncu % 32);
			mask[0] |= 1;
			a = rq.args;
			a.cu_mask_ptr = (uintptr_t)mask;
			a.cu_mask_count = 32 * words;
			expect_create_rejected(&a, -EINVAL);
		}
		memset(mask, 0, sizeof(mask));
		a = rq.args;
		a.cu_mask_ptr = (uintptr_t)mask;
		a.cu_mask_count = 32 * words;
		expect_create_rejected(&a, -EINVAL);
		a.cu_mask_ptr = 0;
		expect_create_rejected(&a, -EINVAL);

		none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		igt_assert(none != MAP_FAILED);
		a.cu_mask_ptr = (uintptr_t)none;
		expect_create_rejected(&a, -EFAULT);
		munmap(none, page);
		a.cu_mask_ptr = (uintptr_t)none;
		expect_create_rejected(&a, -EFAULT);

		for (uint32_t cu = 0; cu < ncu; cu++) {
			memset(mask, 0, sizeof(mask));
			mask[cu / 32] = 1u << (cu % 32);
			a = rq.args;
			a.cu_mask_ptr = (uintptr_t)mask;
			a.cu_mask_count = 32 * words;
			check_created(&a);
		}
		memset(mask, 0xff, sizeof(mask));
		if (ncu % 32)
			mask[words - 1] = (1u << (ncu % 32)) - 1;
		a = rq.args;
		a.cu_mask_ptr = (uintptr_t)mask;
		a.cu_mask_count = 32 * words;
		check_created(&a);
		/* A count of 0 ignores the pointer. */
		a.cu_mask_count = 0;
		a.cu_mask_ptr = 0x10;
		check_created(&a);
	}

	igt_describe("An unknown VM (0, destroyed, never created, another "
		     "file's) fails with -ENOENT, the argument unchanged.");
	igt_subtest("bad-vm") {
		static struct compute_dev other = { .fd = -1 };
		uint32_t gone = compute_vm(&cd), theirs[4];
		struct drm_compute_userq_create a = rq.args;

		compute_vm_destroy(&cd, gone);
		compute_open_file(&cd, &other);
		for (unsigned int i = 0; i < 4; i++)
			theirs[i] = compute_vm(&other);
		const uint32_t ids[] = { 0, gone, vm + 100, 0xffffffff, theirs[3] };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ids); i++) {
			if (ids[i] == vm)
				continue;
			a.vm_id = ids[i];
			expect_create_rejected(&a, -ENOENT);
		}
		compute_close(&other);
		check_create_works();
	}

	igt_describe("A file has at most max_queues queues: the next creation "
		     "fails with -ENOSPC and an unchanged argument while another "
		     "file still creates; destroying one makes room for one.");
	igt_subtest("max-queues") {
		static int ids[256];
		static struct compute_dev other = { .fd = -1 };
		unsigned int n;
		int id;

		igt_require(cd.uq.max_queues < COMPUTE_ARRAY_SIZE(ids));
		n = create_n(&cd, ids, COMPUTE_ARRAY_SIZE(ids));
		igt_assert_eq_u32(n, cd.uq.max_queues);
		expect_create_rejected(&rq.args, -ENOSPC);
		compute_open_file(&cd, &other);
		{
			struct drm_compute_userq_create a = rq.args;

			a.vm_id = compute_vm(&other);
			id = create(&other, &a);
			igt_assert_lt(0, id);
		}
		compute_close(&other);
		destroy(&cd, ids[10]);
		ids[10] = create(&cd, &rq.args);
		igt_assert_lt(0, ids[10]);
		expect_create_rejected(&rq.args, -ENOSPC);
		for (unsigned int i = 0; i < n; i++)
			destroy(&cd, ids[i]);
		check_create_works();
	}

	igt_describe("Creation does not look at the addresses: a queue whose "
		     "ring, read pointer or context save area is not mapped (or "
		     "read-only) is created, and faults when it runs: UNMAPPED at "
		     "the ring on the first fetch, UNMAPPED or WRITE at the read "
		     "pointer after the first packet, at the save area on "
		     "SUSPEND; a queue of another file keeps running.");
	igt_subtest_with_dynamic("addresses-checked-at-run") {
		const uint64_t hole = COMPUTE_QUEUE_VA(8);

		igt_dynamic("ring-unmapped") {
			rq.args.ring_va = hole;
			compute_rawq_create(&rq);
			compute_rawq_submit(&rq);
			compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, hole, 0);
			compute_check_alive(&bystander);
			compute_rawq_destroy(&rq);
		}
		rq.args.ring_va = rq.ring.va;
		igt_dynamic("rptr-unmapped") {
			rq.args.rptr_va = hole + 8;
			compute_rawq_create(&rq);
			compute_rawq_submit(&rq);
			compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, hole + 8, 0);
			compute_check_alive(&bystander);
			compute_rawq_destroy(&rq);
		}
		rq.args.rptr_va = rq.state.va + RAWQ_RPTR_OFF;
		igt_dynamic("rptr-readonly") {
			uint32_t h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

			compute_map(&cd, vm, h, 0, hole, COMPUTE_PAGE, DRM_COMPUTE_VM_BIND_READONLY);
			rq.args.rptr_va = hole + 16;
			compute_rawq_create(&rq);
			compute_rawq_submit(&rq);
			compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_WRITE, hole + 16, 0);
			compute_check_alive(&bystander);
			compute_rawq_destroy(&rq);
			compute_unmap(&cd, vm, hole, COMPUTE_PAGE);
			compute_bo_close(&cd, h);
		}
		rq.args.rptr_va = rq.state.va + RAWQ_RPTR_OFF;
		if (cd.uq.ctx_save_size) {
			igt_dynamic("ctx-save-unmapped") {
				rq.args.ctx_save_va = hole;
				compute_rawq_create(&rq);
				igt_assert_eq(onenode_userq_control(&cd.dev, rq.id,
								    DRM_COMPUTE_USERQ_OP_SUSPEND),
					      -EIO);
				compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, hole,
						     UINT64_MAX);
				compute_check_alive(&bystander);
				compute_rawq_destroy(&rq);
			}
			rq.args.ctx_save_va = rq.state.va + RAWQ_CTX_OFF;
		}
	}

	igt_describe("Processes sharing one file create queues all at once "
		     "until -ENOSPC: together they get exactly max_queues.");
	igt_subtest("race-create-limit") {
		unsigned int total = 0;
		bool all;

		memset(shared, 0, sizeof(*shared));
		igt_fork(child, RACE_CHILDREN)
			race_limit(child);
		all = compute_wait_flags(shared->done, RACE_CHILDREN);
		for (unsigned int i = 0; i < RACE_CHILDREN; i++)
			total += shared->created[i];
		__atomic_store_n(&shared->release, 1, __ATOMIC_RELEASE);
		igt_waitchildren();
		igt_assert(all);
		igt_assert_eq_u32(total, cd.uq.max_queues);
		check_create_works();
	}

	igt_describe("Processes create and destroy queues on one file for 2 s "
		     "while another opens files, creates queues in them and closes "
		     "the files with the queues alive; every creation succeeds or "
		     "fails with -ENOSPC.");
	igt_subtest("race-create-destroy") {
		memset(shared, 0, sizeof(*shared));
		igt_fork(child, RACE_CHILDREN)
			race_churn(child);
		igt_waitchildren();
		for (unsigned int i = 0; i < RACE_CHILDREN; i++)
			igt_info("child %u: %lu rounds\n", i, shared->rounds[i]);
		check_create_works();
	}

	igt_fixture {
		compute_queue_fini(&bystander);
		compute_close(&byfile);
		compute_rawq_teardown(&rq);
		compute_close(&cd);
	}
}
