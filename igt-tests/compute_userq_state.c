// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_USERQ_STATE (struct drm_compute_userq_state):
 * every field in every status (idle, running, suspended, faulted), out
 * and reserved fields that must be zero on input, bad ids, and reading
 * the state while the queue runs.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_USERQ_STATE: status, pointers, "
		     "fence, fault and priority in every status, out and "
		     "reserved fields rejected when non-zero on input, bad ids, "
		     "and consistent snapshots while the queue runs.");

#define RING_SIZE (16 * 1024)
#define RACE_CHILDREN 3
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };
static uint32_t vm;
static struct compute_rawq rq;

static volatile uint32_t *scratch(void)
{
	return (volatile uint32_t *)((char *)rq.state.cpu + RAWQ_SCRATCH_OFF);
}

static void emit_fence(uint64_t value)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw = onenode_pkt_fence(pkt, rq.state.va + RAWQ_FENCE_OFF, value);

	compute_rawq_emit(&rq, pkt, qw);
}

static void check_state(const struct drm_compute_userq_state *st, uint32_t status,
			uint64_t rptr, uint64_t wptr, uint64_t fence)
{
	igt_assert_f(st->status == status, "status %s, want %s\n",
		     onenode_status_name(st->status), onenode_status_name(status));
	igt_assert_eq_u64(st->rptr, rptr);
	igt_assert_eq_u64(st->wptr, wptr);
	igt_assert_eq_u64(st->fence, fence);
	igt_assert_eq_u64(st->reserved[0], 0);
	igt_assert_eq_u64(st->reserved[1], 0);
	if (status != DRM_COMPUTE_USERQ_STATUS_FAULTED) {
		igt_assert_eq_u32(st->fault_reason, DRM_COMPUTE_FAULT_NONE);
		igt_assert_eq_u64(st->fault_va, 0);
	}
}

struct state_field {
	const char *name;
	size_t offset, size;
};

#define FIELD(n, m) { n, offsetof(struct drm_compute_userq_state, m), \
		      sizeof(((struct drm_compute_userq_state *)0)->m) }

static const struct state_field out_fields[] = {
	FIELD("status", status),
	FIELD("rptr", rptr),
	FIELD("wptr", wptr),
	FIELD("fence", fence),
	FIELD("fault-va", fault_va),
	FIELD("fault-reason", fault_reason),
	FIELD("priority", priority),
	{ "reserved-0", offsetof(struct drm_compute_userq_state, reserved), 8 },
	{ "reserved-1", offsetof(struct drm_compute_userq_state, reserved) + 8, 8 },
};

/* ---- race ---- */

struct race_shared {
	int stop;
	unsigned long reads[RACE_CHILDREN];
};

static struct race_shared *shared;

static void race_reader(int child)
{
	uint64_t last_rptr = 0, last_fence = 0;
	unsigned long n = 0;

	while (!__atomic_load_n(&shared->stop, __ATOMIC_ACQUIRE)) {
		struct drm_compute_userq_state st;

		compute_state(&cd, rq.id, &st);
		igt_assert_f(st.status == DRM_COMPUTE_USERQ_STATUS_IDLE ||
			     st.status == DRM_COMPUTE_USERQ_STATUS_RUNNING,
			     "status %s\n", onenode_status_name(st.status));
		igt_assert_eq(st.status == DRM_COMPUTE_USERQ_STATUS_IDLE, st.rptr == st.wptr);
		igt_assert_lte_u64(st.rptr, st.wptr);
		igt_assert_lte_u64(st.wptr - st.rptr, RING_SIZE);
		igt_assert_lte_u64(last_rptr, st.rptr);
		igt_assert_lte_u64(last_fence, st.fence);
		igt_assert_eq_u32(st.fault_reason, 0);
		igt_assert_eq_u32(st.priority, rq.args.priority);
		last_rptr = st.rptr;
		last_fence = st.fence;
		n++;
	}
	shared->reads[child] = n;
	igt_assert_lt(0, (int)n);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		vm = compute_vm(&cd);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &rq);
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(shared != MAP_FAILED);
	}

	igt_describe("A new queue reads IDLE with both pointers and the fence at "
		     "0, no fault, its creation priority and zero reserved words; "
		     "the query comes back with queue_id unchanged.");
	igt_subtest_with_dynamic("new-queue") {
		const uint32_t prios[] = { 0, cd.uq.priority_default, cd.uq.num_priorities - 1 };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(prios); i++) {
			igt_dynamic_f("priority-%u", prios[i]) {
				struct drm_compute_userq_state st;

				rq.args.priority = prios[i];
				compute_rawq_create(&rq);
				compute_state(&cd, rq.id, &st);
				igt_assert_eq_u32(st.queue_id, rq.id);
				check_state(&st, DRM_COMPUTE_USERQ_STATUS_IDLE, 0, 0, 0);
				igt_assert_eq_u32(st.priority, prios[i]);
				compute_rawq_destroy(&rq);
			}
		}
		rq.args.priority = cd.uq.priority_default;
	}

	igt_describe("After work: IDLE, read and write pointers both at the bytes "
		     "submitted, fence at the last value written by a FENCE "
		     "packet, even a lower one than before.");
	igt_subtest("after-work") {
		struct drm_compute_userq_state st;

		compute_rawq_create(&rq);
		emit_fence(10);
		compute_rawq_commit(&rq);
		igt_assert_eq(onenode_userq_wait(&cd.dev, rq.id, 10, COMPUTE_TIMEOUT_MS * 1000000ll),
			      0);
		compute_state(&cd, rq.id, &st);
		check_state(&st, DRM_COMPUTE_USERQ_STATUS_IDLE, rq.wptr, rq.wptr, 10);
		emit_fence(3);
		compute_rawq_commit(&rq);
		compute_assert_status(&cd, rq.id, DRM_COMPUTE_USERQ_STATUS_IDLE, &st);
		igt_assert_eq_u64(st.rptr, rq.wptr);
		check_state(&st, DRM_COMPUTE_USERQ_STATUS_IDLE, rq.wptr, rq.wptr, 3);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A queue blocked in WAIT_MEM reads RUNNING with the read "
		     "pointer at the wait packet and the write pointer at the end "
		     "of what was submitted; SUSPENDED while suspended; IDLE once "
		     "released.");
	igt_subtest("running-suspended") {
		struct drm_compute_userq_state st;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], at;
		uint32_t qw;

		compute_rawq_create(&rq);
		emit_fence(1);
		at = rq.wptr;
		scratch()[0] = 0;
		qw = onenode_pkt_wait_mem(pkt, rq.state.va + RAWQ_SCRATCH_OFF, VCOMPUTE_WAIT_EQ, 1,
					  0xffffffff, 0, 0);
		compute_rawq_emit(&rq, pkt, qw);
		emit_fence(2);
		compute_rawq_commit(&rq);
		igt_assert_eq(onenode_userq_wait(&cd.dev, rq.id, 1, COMPUTE_TIMEOUT_MS * 1000000ll),
			      0);
		compute_state(&cd, rq.id, &st);
		check_state(&st, DRM_COMPUTE_USERQ_STATUS_RUNNING, at, rq.wptr, 1);
		igt_assert_eq(onenode_userq_control(&cd.dev, rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
		compute_state(&cd, rq.id, &st);
		check_state(&st, DRM_COMPUTE_USERQ_STATUS_SUSPENDED, at, rq.wptr, 1);
		igt_assert_eq(onenode_userq_control(&cd.dev, rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
		scratch()[0] = 1;
		compute_rawq_sync(&rq, 2);
		compute_state(&cd, rq.id, &st);
		check_state(&st, DRM_COMPUTE_USERQ_STATUS_IDLE, rq.wptr, rq.wptr, 2);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A faulted queue reads FAULTED with the reason, the address "
		     "and the read pointer at the faulting packet, and keeps the "
		     "fence it reached before.");
	igt_subtest("faulted") {
		struct drm_compute_userq_state st;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], at;
		uint32_t qw;

		compute_rawq_create(&rq);
		emit_fence(7);
		at = rq.wptr;
		qw = onenode_pkt_fill(pkt, COMPUTE_BUF_VA(9) + 64, 64, 0);
		compute_rawq_emit(&rq, pkt, qw);
		emit_fence(8);
		compute_rawq_commit(&rq);
		compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, COMPUTE_BUF_VA(9) + 64,
				     at);
		compute_state(&cd, rq.id, &st);
		check_state(&st, DRM_COMPUTE_USERQ_STATUS_FAULTED, at, rq.wptr, 7);
		igt_assert_eq_u32(st.priority, rq.args.priority);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A non-zero out or reserved field on input is rejected with "
		     "-EINVAL and the argument comes back unchanged.");
	igt_subtest_with_dynamic("invalid-out-fields") {
		compute_rawq_create(&rq);
		for (unsigned int f = 0; f < COMPUTE_ARRAY_SIZE(out_fields); f++) {
			igt_dynamic(out_fields[f].name) {
				const uint64_t top = 1ull << (8 * out_fields[f].size - 1);
				const uint64_t values[] = { 1, top, ~0ull };

				for (unsigned int v = 0; v < COMPUTE_ARRAY_SIZE(values); v++) {
					struct drm_compute_userq_state st = { .queue_id = rq.id };

					memcpy((char *)&st + out_fields[f].offset, &values[v],
					       out_fields[f].size);
					compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_STATE, &st,
								sizeof(st), -EINVAL);
				}
			}
		}
		compute_rawq_destroy(&rq);
	}

	igt_describe("Id 0, unknown ids and another file's queue ids fail with "
		     "-ENOENT, the argument unchanged.");
	igt_subtest("bad-id") {
		static struct compute_dev other = { .fd = -1 };
		static struct compute_rawq theirs;
		const uint32_t ids[] = { 0, 1000, 0x80000000, 0xffffffff };
		uint32_t first;

		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ids); i++) {
			struct drm_compute_userq_state st = { .queue_id = ids[i] };

			if (ids[i] == rq.id)
				continue;
			compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_STATE, &st, sizeof(st),
						-ENOENT);
		}
		compute_open_file(&cd, &other);
		compute_rawq_setup(&other, compute_vm(&other), COMPUTE_QUEUE_VA(0), RING_SIZE, 0,
				   &theirs);
		compute_rawq_create(&theirs);
		first = theirs.id;
		munmap(theirs.db_map, cd.uq.doorbell_size);
		compute_rawq_create(&theirs);
		if (theirs.id != rq.id) {
			struct drm_compute_userq_state st = { .queue_id = theirs.id };

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_STATE, &st, sizeof(st),
						-ENOENT);
		}
		igt_assert_eq(onenode_userq_destroy(&other.dev, first), 0);
		compute_rawq_teardown(&theirs);
		compute_close(&other);
		compute_rawq_destroy(&rq);
	}

	igt_describe("Processes read the state in a loop while the queue runs "
		     "2 s of work: every snapshot is consistent (IDLE exactly when "
		     "the pointers are equal, rptr <= wptr within a ring, rptr and "
		     "fence never going back, no fault).");
	igt_subtest("race-read-while-running") {
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], end, fence = 0;
		uint32_t data[64], qw;

		compute_rawq_create(&rq);
		memset(shared, 0, sizeof(*shared));
		memset(data, 0x5a, sizeof(data));
		igt_fork(child, RACE_CHILDREN)
			race_reader(child);
		end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
		while (compute_now_ns() < end) {
			for (unsigned int i = 0; i < 8; i++) {
				qw = onenode_pkt_write_data(pkt, rq.state.va + RAWQ_SCRATCH_OFF,
							    data, 4);
				compute_rawq_emit(&rq, pkt, qw);
			}
			emit_fence(++fence);
			compute_rawq_commit(&rq);
			igt_assert_eq(onenode_userq_wait(&cd.dev, rq.id, fence,
							 COMPUTE_TIMEOUT_MS * 1000000ll), 0);
		}
		__atomic_store_n(&shared->stop, 1, __ATOMIC_RELEASE);
		igt_waitchildren();
		igt_info("%" PRIu64 " batches, reads %lu/%lu/%lu\n", fence, shared->reads[0],
			 shared->reads[1], shared->reads[2]);
		compute_rawq_destroy(&rq);
	}

	igt_fixture {
		compute_rawq_teardown(&rq);
		compute_close(&cd);
	}
}
