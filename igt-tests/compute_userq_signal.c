// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_USERQ_SIGNAL (struct drm_compute_userq_signal):
 * binary and timeline sync objects get their fence or point only once the
 * queue reached the value (never a fence that waits on userspace: checked
 * with DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT and a short timeout), values
 * already reached, error fences when the queue dies, the limit of 1024
 * pending signals, bad handles and ids, and signals racing with the fence.
 */

#include <errno.h>
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

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_USERQ_SIGNAL: binary and timeline "
		     "sync objects get a signaled fence only once the queue "
		     "reached the value, values already reached, error fences "
		     "when the queue faults or is destroyed, -ENOSPC after 1024 "
		     "pending signals, bad handles and ids, and signals racing "
		     "with the fence.");

#define RING_SIZE (16 * 1024)
#define MAX_PENDING 1024
#define RACE_CHILDREN 4
#define RACE_SIGNALS 64
#define RACE_LAST (RACE_SIGNALS * 4 + 16)
#define MS 1000000ull

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

/* A WAIT_MEM on scratch[@slot] == 1 (cleared first). */
static void emit_block(unsigned int slot)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw;

	scratch()[slot] = 0;
	qw = onenode_pkt_wait_mem(pkt, rq.state.va + RAWQ_SCRATCH_OFF + 4 * slot,
				  VCOMPUTE_WAIT_EQ, 1, 0xffffffff, 0, 0);
	compute_rawq_emit(&rq, pkt, qw);
}

static int add_signal(uint32_t id, uint64_t value, uint32_t syncobj, uint64_t point)
{
	return onenode_userq_signal(&cd.dev, id, value, syncobj, point);
}

static uint32_t syncobj_create(void)
{
	uint32_t h;

	igt_assert_eq(drmSyncobjCreate(cd.fd, 0, &h), 0);
	return h;
}

/* Whether @point (0: the binary fence) gets a fence within @ms. */
static int submitted_within(uint32_t syncobj, uint64_t point, unsigned int ms)
{
	uint64_t p = point;

	return drmSyncobjTimelineWait(cd.fd, &syncobj, &p, 1, compute_abs_timeout(ms * MS),
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
}

/* No fence (point) yet: WAIT_FOR_SUBMIT times out, the query says so. */
static void check_not_available(uint32_t syncobj, uint64_t point)
{
	igt_assert_eq(submitted_within(syncobj, point, 50), -ETIME);
	if (point) {
		uint64_t now = 0;

		igt_assert_eq(drmSyncobjQuery(cd.fd, &syncobj, &now, 1), 0);
		igt_assert_lt_u64(now, point);
	} else {
		igt_assert_eq(compute_fence_status(cd.fd, syncobj, 0), -ENOENT);
	}
}

/* The fence (point) is there, signaled, with @status (1, or an error). */
static void check_available(uint32_t syncobj, uint64_t point, int status)
{
	igt_assert_eq(submitted_within(syncobj, point, COMPUTE_TIMEOUT_MS), 0);
	if (point) {
		uint64_t now = 0;

		igt_assert_eq(drmSyncobjQuery(cd.fd, &syncobj, &now, 1), 0);
		igt_assert_lte_u64(point, now);
	} else {
		igt_assert_eq(compute_fence_status(cd.fd, syncobj, 0), status);
	}
}

static void expect_signal_rejected(uint32_t id, uint32_t syncobj, uint64_t value,
				   uint64_t point, uint32_t flags, uint32_t pad, int err)
{
	struct drm_compute_userq_signal args = {
		.queue_id = id,
		.handle = syncobj,
		.value = value,
		.point = point,
		.flags = flags,
		.pad = pad,
	};

	compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_SIGNAL, &args, sizeof(args), err);
}

/* ---- race ---- */

static void race_signaler(int child)
{
	uint32_t syncobj = syncobj_create();
	uint64_t value = 0;

	for (uint64_t point = 1; point <= RACE_SIGNALS; point++) {
		struct drm_compute_userq_state st;

		compute_state(&cd, rq.id, &st);
		/* Around the fence: reached already, just reached, ahead. */
		value = (st.fence + (point % 3)) > value ? st.fence + point % 3 : value + 1;
		if (value > RACE_LAST)
			value = RACE_LAST;
		igt_assert_eq(add_signal(rq.id, value, syncobj, point), 0);
		usleep(100 * child);
	}
	igt_assert_eq(submitted_within(syncobj, RACE_SIGNALS, COMPUTE_TIMEOUT_MS), 0);
	drmSyncobjDestroy(cd.fd, syncobj);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		vm = compute_vm(&cd);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &rq);
	}

	igt_describe("A binary sync object gets its fence only when the queue "
		     "reaches the value: not while the queue is blocked before "
		     "it, not when it reaches value - 1 (WAIT_FOR_SUBMIT with a "
		     "short timeout times out), and then a signaled fence.");
	igt_subtest("binary") {
		uint32_t syncobj = syncobj_create();

		compute_rawq_create(&rq);
		emit_block(0);
		emit_fence(1);
		emit_block(1);
		emit_fence(2);
		compute_rawq_commit(&rq);
		igt_assert_eq(add_signal(rq.id, 2, syncobj, 0), 0);
		check_not_available(syncobj, 0);
		scratch()[0] = 1;
		compute_rawq_sync(&rq, 1);
		check_not_available(syncobj, 0);
		scratch()[1] = 1;
		check_available(syncobj, 0, 1);
		igt_assert_eq(drmSyncobjWait(cd.fd, &syncobj, 1, 0, 0, NULL), 0);
		drmSyncobjDestroy(cd.fd, syncobj);
		compute_rawq_destroy(&rq);
	}

	igt_describe("Timeline points appear one by one as the queue reaches "
		     "their values: drmSyncobjQuery and WAIT_FOR_SUBMIT on a point "
		     "show nothing before its value, then a signaled point.");
	igt_subtest("timeline") {
		uint32_t syncobj = syncobj_create();

		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < 3; i++) {
			emit_block(i);
			emit_fence(10 + i);
		}
		compute_rawq_commit(&rq);
		for (unsigned int i = 0; i < 3; i++)
			igt_assert_eq(add_signal(rq.id, 10 + i, syncobj, 5 + 5 * i), 0);
		for (unsigned int i = 0; i < 3; i++) {
			for (unsigned int j = i; j < 3; j++)
				check_not_available(syncobj, 5 + 5 * j);
			scratch()[i] = 1;
			check_available(syncobj, 5 + 5 * i, 1);
		}
		drmSyncobjDestroy(cd.fd, syncobj);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A value the queue already reached (or 0) gets its fence "
		     "or point at once, on binary and timeline sync objects.");
	igt_subtest("already-reached") {
		uint32_t binary = syncobj_create(), timeline = syncobj_create();

		compute_rawq_create(&rq);
		emit_fence(20);
		compute_rawq_commit(&rq);
		compute_rawq_sync(&rq, 20);
		igt_assert_eq(add_signal(rq.id, 0, binary, 0), 0);
		igt_assert_eq(drmSyncobjWait(cd.fd, &binary, 1, 0, 0, NULL), 0);
		igt_assert_eq(add_signal(rq.id, 20, binary, 0), 0);
		igt_assert_eq(compute_fence_status(cd.fd, binary, 0), 1);
		igt_assert_eq(add_signal(rq.id, 15, timeline, 3), 0);
		check_available(timeline, 3, 1);
		igt_assert_eq(add_signal(rq.id, 20, timeline, 4), 0);
		check_available(timeline, 4, 1);
		drmSyncobjDestroy(cd.fd, binary);
		drmSyncobjDestroy(cd.fd, timeline);
		compute_rawq_destroy(&rq);
	}

	igt_describe("When the queue faults first, pending signals complete with "
		     "an error: the binary fence is signaled with -EIO, the "
		     "timeline point appears; a new signal on the dead queue fails "
		     "with -EIO and an unchanged argument.");
	igt_subtest("queue-faults") {
		uint32_t binary = syncobj_create(), timeline = syncobj_create();
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		uint32_t qw;

		compute_rawq_create(&rq);
		emit_block(0);
		qw = onenode_pkt_fill(pkt, COMPUTE_BUF_VA(9), 64, 0);
		compute_rawq_emit(&rq, pkt, qw);
		emit_fence(1);
		compute_rawq_commit(&rq);
		igt_assert_eq(add_signal(rq.id, 1, binary, 0), 0);
		igt_assert_eq(add_signal(rq.id, 1, timeline, 7), 0);
		check_not_available(binary, 0);
		scratch()[0] = 1;
		compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, COMPUTE_BUF_VA(9),
				     UINT64_MAX);
		check_available(binary, 0, -EIO);
		check_available(timeline, 7, 1);
		expect_signal_rejected(rq.id, binary, 2, 0, 0, 0, -EIO);
		expect_signal_rejected(rq.id, binary, 0, 0, 0, 0, -EIO);
		drmSyncobjDestroy(cd.fd, binary);
		drmSyncobjDestroy(cd.fd, timeline);
		compute_rawq_destroy(&rq);
	}

	igt_describe("When the queue is destroyed first, a pending binary signal "
		     "completes with -ECANCELED.");
	igt_subtest("queue-destroyed") {
		uint32_t binary = syncobj_create();

		compute_rawq_create(&rq);
		emit_block(0);
		emit_fence(1);
		compute_rawq_commit(&rq);
		igt_assert_eq(add_signal(rq.id, 1, binary, 0), 0);
		check_not_available(binary, 0);
		compute_rawq_destroy(&rq);
		check_available(binary, 0, -ECANCELED);
		drmSyncobjDestroy(cd.fd, binary);
	}

	igt_describe("A queue holds at most 1024 pending signals: the next one "
		     "fails with -ENOSPC and an unchanged argument (a value already "
		     "reached still works); once the queue passes the values, new "
		     "signals are accepted again.");
	igt_subtest("max-pending") {
		uint32_t syncobj = syncobj_create(), now = syncobj_create();

		compute_rawq_create(&rq);
		for (uint64_t v = 1; v <= MAX_PENDING; v++)
			igt_assert_eq(add_signal(rq.id, v, syncobj, 0), 0);
		expect_signal_rejected(rq.id, syncobj, MAX_PENDING + 1, 0, 0, 0, -ENOSPC);
		expect_signal_rejected(rq.id, now, 1, 0, 0, 0, -ENOSPC);
		igt_assert_eq(add_signal(rq.id, 0, now, 0), 0);
		check_not_available(syncobj, 0);
		emit_fence(MAX_PENDING);
		compute_rawq_commit(&rq);
		compute_rawq_sync(&rq, MAX_PENDING);
		check_available(syncobj, 0, 1);
		for (uint64_t v = 1; v <= 4; v++)
			igt_assert_eq(add_signal(rq.id, MAX_PENDING + v, now, 0), 0);
		drmSyncobjDestroy(cd.fd, syncobj);
		drmSyncobjDestroy(cd.fd, now);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A sync object handle that is 0, never created, destroyed "
		     "or another file's, and a queue id that is 0, unknown or "
		     "another file's, fail with -ENOENT; any flag bit or a "
		     "non-zero pad fails with -EINVAL; the argument is unchanged "
		     "and nothing is added.");
	igt_subtest("bad-handles") {
		static struct compute_dev other = { .fd = -1 };
		static struct compute_rawq theirs;
		uint32_t syncobj = syncobj_create(), gone = syncobj_create(), foreign[3], first;

		compute_rawq_create(&rq);
		drmSyncobjDestroy(cd.fd, gone);
		compute_open_file(&cd, &other);
		for (unsigned int i = 0; i < 3; i++)
			igt_assert_eq(drmSyncobjCreate(other.fd, 0, &foreign[i]), 0);
		const uint32_t handles[] = { 0, gone, syncobj + 100, 0xffffffff, foreign[2] };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(handles); i++)
			if (handles[i] != syncobj)
				expect_signal_rejected(rq.id, handles[i], 0, 0, 0, 0, -ENOENT);
		compute_rawq_setup(&other, compute_vm(&other), COMPUTE_QUEUE_VA(0), RING_SIZE, 0,
				   &theirs);
		compute_rawq_create(&theirs);
		first = theirs.id;
		munmap(theirs.db_map, cd.uq.doorbell_size);
		compute_rawq_create(&theirs);
		expect_signal_rejected(0, syncobj, 0, 0, 0, 0, -ENOENT);
		expect_signal_rejected(rq.id + 1000, syncobj, 0, 0, 0, 0, -ENOENT);
		if (theirs.id != rq.id)
			expect_signal_rejected(theirs.id, syncobj, 0, 0, 0, 0, -ENOENT);
		for (unsigned int bit = 0; bit < 32; bit++) {
			expect_signal_rejected(rq.id, syncobj, 0, 0, 1u << bit, 0, -EINVAL);
			expect_signal_rejected(rq.id, syncobj, 0, 0, 0, 1u << bit, -EINVAL);
		}
		check_not_available(syncobj, 0);
		igt_assert_eq(onenode_userq_destroy(&other.dev, first), 0);
		compute_rawq_teardown(&theirs);
		compute_close(&other);
		drmSyncobjDestroy(cd.fd, syncobj);
		compute_rawq_destroy(&rq);
	}

	igt_describe("Processes add timeline signals with values around the "
		     "queue's moving fence (already reached, just reached, ahead) "
		     "while it advances: every signal is accepted and every point "
		     "appears, none is lost between the check and the fence.");
	igt_subtest("race-signal-fence") {
		compute_rawq_create(&rq);
		igt_fork(child, RACE_CHILDREN)
			race_signaler(child);
		for (uint64_t v = 1; v <= RACE_LAST; v++) {
			emit_fence(v);
			compute_rawq_commit(&rq);
			usleep(300);
		}
		igt_waitchildren();
		compute_rawq_destroy(&rq);
	}

	igt_fixture {
		compute_rawq_teardown(&rq);
		compute_close(&cd);
	}
}
