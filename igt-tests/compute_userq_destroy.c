// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_USERQ_DESTROY (struct drm_compute_userq_destroy):
 * what is gone afterwards, destroying a queue with work in flight (it stops
 * at once, waiters get -ECANCELED, pending sync-object signals complete
 * with an error), closing the file with work in flight, rejection of bad
 * input, and races of destruction against itself and other ioctls.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_USERQ_DESTROY: the queue and its "
		     "id are gone, work in flight is abandoned, waiters get "
		     "-ECANCELED and pending sync-object signals complete with "
		     "an error, also when the file is closed; bad fields and "
		     "foreign ids; races against itself and other ioctls.");

#define RING_SIZE (16 * 1024)
#define RACE_CHILDREN 4
#define RACE_ROUNDS 24
#define MARKER 0x600dcafe

static struct compute_dev cd = { .fd = -1 };
static uint32_t vm;
static struct compute_rawq rq;

static volatile uint32_t *scratch(struct compute_rawq *q)
{
	return (volatile uint32_t *)((char *)q->state.cpu + RAWQ_SCRATCH_OFF);
}

/*
 * Block the queue in a WAIT_MEM on scratch[0] == 1 (no timeout of its
 * own), followed by a WRITE_DATA of MARKER to scratch[2] and a FENCE.
 * Returns the fence value that completes the block.
 */
static uint64_t submit_blocked(struct compute_rawq *q)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t marker = MARKER, qw;

	scratch(q)[0] = 0;
	scratch(q)[2] = 0;
	qw = onenode_pkt_wait_mem(pkt, q->state.va + RAWQ_SCRATCH_OFF, VCOMPUTE_WAIT_EQ, 1,
				  0xffffffff, 0, 0);
	compute_rawq_emit(q, pkt, qw);
	qw = onenode_pkt_write_data(pkt, q->state.va + RAWQ_SCRATCH_OFF + 8, &marker, 1);
	compute_rawq_emit(q, pkt, qw);
	return compute_rawq_submit(q);
}

static void expect_destroy_rejected(uint32_t id, uint32_t pad, int err)
{
	struct drm_compute_userq_destroy args = { .queue_id = id, .pad = pad };

	compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_DESTROY, &args, sizeof(args), err);
}

/* Every per-queue ioctl now fails with -ENOENT for @id. */
static void check_gone(const struct compute_dev *dev, uint32_t id)
{
	struct drm_compute_userq_state st = { .queue_id = id };
	uint32_t syncobj;

	igt_assert_eq(compute_ioctl(dev, DRM_COMPUTE_OP_USERQ_STATE, &st), -ENOENT);
	igt_assert_eq(onenode_userq_destroy(&dev->dev, id), -ENOENT);
	igt_assert_eq(onenode_userq_control(&dev->dev, id, DRM_COMPUTE_USERQ_OP_WAKE), -ENOENT);
	igt_assert_eq(onenode_userq_wait(&dev->dev, id, 0, 0), -ENOENT);
	igt_assert_eq(drmSyncobjCreate(dev->fd, 0, &syncobj), 0);
	igt_assert_eq(onenode_userq_signal(&dev->dev, id, 1, syncobj, 0), -ENOENT);
	drmSyncobjDestroy(dev->fd, syncobj);
}

/* The syncobj gets a fence (point) that is signaled with error @err. */
static void check_signaled_with(int fd, uint32_t syncobj, uint64_t point, int err)
{
	uint64_t p = point;

	igt_assert_eq(drmSyncobjTimelineWait(fd, &syncobj, &p, 1,
					     compute_abs_timeout(COMPUTE_TIMEOUT_MS * 1000000ull),
					     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL), 0);
	if (!point)
		igt_assert_eq(compute_fence_status(fd, syncobj, 0), err);
}

/* ---- races ---- */

static void setup_queue(unsigned int round, uint64_t *slot)
{
	(void)round;
	compute_rawq_create(&rq);
	if (round & 1)
		submit_blocked(&rq);
	slot[0] = rq.id;
	rq.id = 0;	/* the round destroys it */
	munmap(rq.db_map, cd.uq.doorbell_size);
	rq.db_map = NULL;
}

static int race_destroy(int child, unsigned int round, const uint64_t *slot)
{
	(void)child;
	(void)round;
	return onenode_userq_destroy(&cd.dev, (uint32_t)slot[0]);
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
	check_gone(&cd, (uint32_t)slot[0]);
}

/* Child 0 destroys; the others use the queue meanwhile. */
static int race_destroy_vs_use(int child, unsigned int round, const uint64_t *slot)
{
	uint32_t id = (uint32_t)slot[0];
	struct drm_compute_userq_state st = { .queue_id = id };
	uint32_t syncobj;
	int ret;

	(void)round;
	switch (child) {
	case 0:
		return onenode_userq_destroy(&cd.dev, id);
	case 1:
		ret = compute_ioctl(&cd, DRM_COMPUTE_OP_USERQ_STATE, &st);
		return ret == 0 || ret == -ENOENT ? 0 : ret;
	case 2:
		ret = onenode_userq_wait(&cd.dev, id, 1000, 20 * 1000000ll);
		return ret == -ECANCELED || ret == -ENOENT || ret == -ETIME ? 0 : ret;
	default:
		if (drmSyncobjCreate(cd.fd, 0, &syncobj))
			return -errno;
		ret = onenode_userq_signal(&cd.dev, id, 1000, syncobj, 0);
		if (ret == 0) {
			/* Accepted: the destroy completes it with an error. */
			uint64_t point = 0;

			ret = drmSyncobjTimelineWait(cd.fd, &syncobj, &point, 1,
						     compute_abs_timeout(COMPUTE_TIMEOUT_MS *
									 1000000ull),
						     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
			if (ret == 0 && compute_fence_status(cd.fd, syncobj, 0) != -ECANCELED)
				ret = -EPROTO;
		} else if (ret == -ENOENT || ret == -EIO) {
			ret = 0;
		}
		drmSyncobjDestroy(cd.fd, syncobj);
		return ret;
	}
}

static void check_destroy_vs_use(unsigned int round, const int *results, uint64_t *slot)
{
	igt_assert_f(results[0] == 0, "round %u: destroy gave %d\n", round, results[0]);
	for (unsigned int c = 1; c < RACE_CHILDREN; c++)
		igt_assert_f(results[c] == 0, "round %u child %u: unexpected %d\n", round, c,
			     results[c]);
	check_gone(&cd, (uint32_t)slot[0]);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		vm = compute_vm(&cd);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &rq);
	}

	igt_describe("A destroyed queue is gone: its id gives -ENOENT to every "
		     "queue ioctl, its doorbell mapping is plain memory (writes "
		     "run nothing) and the doorbell cannot be mapped again.");
	igt_subtest("basic") {
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		uint32_t marker = MARKER, qw, id;
		void *again;

		compute_rawq_create(&rq);
		id = rq.id;
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		igt_assert_eq(onenode_userq_destroy(&cd.dev, id), 0);
		check_gone(&cd, id);

		/* The old doorbell: writing it runs nothing. */
		scratch(&rq)[2] = 0;
		qw = onenode_pkt_write_data(pkt, rq.state.va + RAWQ_SCRATCH_OFF + 8, &marker, 1);
		compute_rawq_emit(&rq, pkt, qw);
		__atomic_store_n(&rq.db->wptr, rq.wptr, __ATOMIC_RELEASE);
		compute_sleep_ms(COMPUTE_SHORT_MS);
		igt_assert_eq_u32(scratch(&rq)[2], 0);
		munmap(rq.db_map, cd.uq.doorbell_size);
		rq.db_map = NULL;
		rq.id = 0;

		again = mmap(NULL, cd.uq.doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			     cd.fd, rq.db_offset);
		igt_assert(again == MAP_FAILED);
	}

	igt_describe("A non-zero pad is rejected with -EINVAL, the argument "
		     "unchanged and the queue still running.");
	igt_subtest("invalid-pad") {
		const uint32_t pads[] = { 1, 0x80000000, 0xffffffff };

		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(pads); i++)
			expect_destroy_rejected(rq.id, pads[i], -EINVAL);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		compute_rawq_destroy(&rq);
	}

	igt_describe("Id 0, ids never created and the largest id fail with "
		     "-ENOENT, the argument unchanged, and change nothing (the next "
		     "queue still gets a non-zero id); so do another file's ids, "
		     "whose queues keep running.");
	igt_subtest("bad-id") {
		static struct compute_dev other = { .fd = -1 };
		static struct compute_rawq theirs[3];
		struct drm_compute_userq_create a;
		uint32_t ovm;

		compute_rawq_create(&rq);
		expect_destroy_rejected(0, 0, -ENOENT);
		expect_destroy_rejected(rq.id + 1, 0, -ENOENT);
		expect_destroy_rejected(rq.id + 1000, 0, -ENOENT);
		expect_destroy_rejected(0xffffffff, 0, -ENOENT);
		/* Nothing changed: the next queue still gets a non-zero id. */
		a = rq.args;
		igt_assert_eq(compute_ioctl(&cd, DRM_COMPUTE_OP_USERQ_CREATE, &a), 0);
		igt_assert_f(a.queue_id != 0,
			     "after USERQ_DESTROY of id 0 was rejected, USERQ_CREATE gave id 0\n");
		igt_assert_eq(onenode_userq_destroy(&cd.dev, a.queue_id), 0);
		compute_open_file(&cd, &other);
		ovm = compute_vm(&other);
		for (unsigned int i = 0; i < 3; i++) {
			compute_rawq_setup(&other, ovm, COMPUTE_QUEUE_VA(i), RING_SIZE, 0, &theirs[i]);
			compute_rawq_create(&theirs[i]);
		}
		for (unsigned int i = 0; i < 3; i++)
			if (theirs[i].id != rq.id)
				expect_destroy_rejected(theirs[i].id, 0, -ENOENT);
		for (unsigned int i = 0; i < 3; i++) {
			compute_rawq_sync(&theirs[i], compute_rawq_submit(&theirs[i]));
			compute_rawq_teardown(&theirs[i]);
		}
		compute_close(&other);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		compute_rawq_destroy(&rq);
	}

	igt_describe("Destroying a queue blocked in the middle of its work stops "
		     "it at once: a waiter returns -ECANCELED, pending binary and "
		     "timeline signals are added signaled with -ECANCELED, and "
		     "releasing the blocking condition afterwards runs nothing.");
	igt_subtest("with-work-in-flight") {
		uint32_t binary, timeline;
		uint64_t value;

		compute_rawq_create(&rq);
		value = submit_blocked(&rq);
		igt_assert_eq(drmSyncobjCreate(cd.fd, 0, &binary), 0);
		igt_assert_eq(drmSyncobjCreate(cd.fd, 0, &timeline), 0);
		igt_assert_eq(onenode_userq_signal(&cd.dev, rq.id, value, binary, 0), 0);
		igt_assert_eq(onenode_userq_signal(&cd.dev, rq.id, value, timeline, 3), 0);
		compute_assert_status(&cd, rq.id, DRM_COMPUTE_USERQ_STATUS_RUNNING, NULL);

		igt_fork(child, 1)
			igt_assert_eq(onenode_userq_wait(&cd.dev, rq.id, value,
							 COMPUTE_TIMEOUT_MS * 1000000ll),
				      -ECANCELED);
		compute_sleep_ms(COMPUTE_SHORT_MS);
		compute_rawq_destroy(&rq);
		igt_waitchildren();

		check_signaled_with(cd.fd, binary, 0, -ECANCELED);
		check_signaled_with(cd.fd, timeline, 3, -ECANCELED);
		scratch(&rq)[0] = 1;
		compute_sleep_ms(COMPUTE_SHORT_MS);
		igt_assert_eq_u32(scratch(&rq)[2], 0);
		drmSyncobjDestroy(cd.fd, binary);
		drmSyncobjDestroy(cd.fd, timeline);
	}

	igt_describe("Dead and stopped queues are destroyed too: a faulted, a "
		     "suspended and an idle queue each go, and their ids are "
		     "gone.");
	igt_subtest("any-state") {
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		uint32_t qw, id;

		compute_rawq_create(&rq);
		qw = onenode_pkt_fill(pkt, COMPUTE_BUF_VA(9), 64, 0);
		compute_rawq_emit(&rq, pkt, qw);
		compute_rawq_commit(&rq);
		compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, COMPUTE_BUF_VA(9),
				     UINT64_MAX);
		id = rq.id;
		compute_rawq_destroy(&rq);
		check_gone(&cd, id);

		compute_rawq_create(&rq);
		igt_assert_eq(onenode_userq_control(&cd.dev, rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND),
			      0);
		id = rq.id;
		compute_rawq_destroy(&rq);
		check_gone(&cd, id);
	}

	igt_describe("Closing the file with a queue blocked mid-work stops it: "
		     "a signal pending on a sync object shared with another file "
		     "completes with -ECANCELED, and the queue does not run on when "
		     "the condition is released through a buffer the other file "
		     "shares.");
	igt_subtest("close-file-with-work") {
		static struct compute_dev e = { .fd = -1 };
		static struct compute_rawq eq;
		uint32_t esync, shared_sync, shared_bo;
		uint64_t value;
		volatile uint32_t *s;
		int fd;

		compute_open_file(&cd, &e);
		compute_rawq_setup(&e, compute_vm(&e), COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &eq);
		compute_rawq_create(&eq);
		value = submit_blocked(&eq);
		igt_assert_eq(drmSyncobjCreate(e.fd, 0, &esync), 0);
		igt_assert_eq(onenode_userq_signal(&e.dev, eq.id, value, esync, 0), 0);
		igt_assert_eq(drmSyncobjHandleToFD(e.fd, esync, &fd), 0);
		igt_assert_eq(drmSyncobjFDToHandle(cd.fd, fd, &shared_sync), 0);
		close(fd);
		igt_assert_eq(drmPrimeHandleToFD(e.fd, eq.state.handle, DRM_CLOEXEC, &fd), 0);
		igt_assert_eq(drmPrimeFDToHandle(cd.fd, fd, &shared_bo), 0);
		close(fd);
		s = compute_bo_map(&cd, shared_bo, RAWQ_STATE_SIZE);
		compute_assert_status(&e, eq.id, DRM_COMPUTE_USERQ_STATUS_RUNNING, NULL);

		/* The queue's mappings in this process must not keep the file. */
		munmap(eq.db_map, cd.uq.doorbell_size);
		munmap(eq.ring.cpu, eq.ring.size);
		munmap(eq.state.cpu, eq.state.size);
		memset(&eq, 0, sizeof(eq));
		compute_close(&e);

		check_signaled_with(cd.fd, shared_sync, 0, -ECANCELED);
		s[RAWQ_SCRATCH_OFF / 4] = 1;
		compute_sleep_ms(COMPUTE_SHORT_MS);
		igt_assert_eq_u32(s[RAWQ_SCRATCH_OFF / 4 + 2], 0);
		munmap((void *)s, RAWQ_STATE_SIZE);
		compute_bo_close(&cd, shared_bo);
		drmSyncobjDestroy(cd.fd, shared_sync);
	}

	igt_describe("A hundred signals pending on a queue, on as many sync "
		     "objects, all complete with -ECANCELED when it is destroyed.");
	igt_subtest("many-pending-signals") {
		static uint32_t syncobjs[100];

		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(syncobjs); i++) {
			igt_assert_eq(drmSyncobjCreate(cd.fd, 0, &syncobjs[i]), 0);
			igt_assert_eq(onenode_userq_signal(&cd.dev, rq.id, 1 + i, syncobjs[i], 0), 0);
		}
		compute_rawq_destroy(&rq);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(syncobjs); i++) {
			check_signaled_with(cd.fd, syncobjs[i], 0, -ECANCELED);
			drmSyncobjDestroy(cd.fd, syncobjs[i]);
		}
	}

	igt_describe("Processes sharing the file destroy one queue (idle or "
		     "blocked in a WAIT_MEM) at once, 24 times: exactly one "
		     "succeeds, the others get -ENOENT, and the id is gone.");
	igt_subtest("race-destroy")
		compute_race_rounds(RACE_CHILDREN, RACE_ROUNDS, setup_queue, race_destroy,
				    check_one_destroyed);

	igt_describe("One process destroys a queue while others read its state, "
		     "wait on it and add signals to it, 24 times: each call "
		     "succeeds or fails the documented way (-ENOENT, -ECANCELED, "
		     "-EIO), and an accepted signal completes with -ECANCELED.");
	igt_subtest("race-destroy-vs-use")
		compute_race_rounds(RACE_CHILDREN, RACE_ROUNDS, setup_queue, race_destroy_vs_use,
				    check_destroy_vs_use);

	igt_fixture {
		compute_rawq_teardown(&rq);
		compute_close(&cd);
	}
}
