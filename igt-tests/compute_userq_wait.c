// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_USERQ_WAIT (struct drm_compute_userq_wait):
 * values already reached, timeouts (polling, past, future), waking on the
 * fence, -EIO when the queue faults, -ECANCELED when it is destroyed,
 * signals interrupting the wait (with and without SA_RESTART), bad input,
 * and many concurrent waiters.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_USERQ_WAIT: values reached, "
		     "timeouts, waking on the fence, -EIO on a fault, -ECANCELED "
		     "on destruction, signals with and without SA_RESTART, bad "
		     "fields and ids, and many concurrent waiters.");

#define RING_SIZE (16 * 1024)
#define RACE_CHILDREN 4
#define RACE_FENCES 64
#define MS 1000000ull

static struct compute_dev cd = { .fd = -1 };
static unsigned int compute_base;
static uint32_t vm;
static struct compute_rawq rq;

/* The raw ioctl, no retry on EINTR: 0 or -errno. */
static int wait_raw(uint32_t id, uint64_t value, int64_t abs_ns)
{
	struct drm_compute_userq_wait w = {
		.queue_id = id,
		.value = value,
		.timeout_nsec = abs_ns,
	};

	if (ioctl(cd.fd, onenode_compute_request(compute_base, DRM_COMPUTE_OP_USERQ_WAIT), &w))
		return -errno;
	return 0;
}

static volatile uint32_t *scratch(void)
{
	return (volatile uint32_t *)((char *)rq.state.cpu + RAWQ_SCRATCH_OFF);
}

/* WAIT_MEM on scratch[0] == 1, then a FENCE; returns the fence value. */
static uint64_t submit_blocked(void)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw;

	scratch()[0] = 0;
	qw = onenode_pkt_wait_mem(pkt, rq.state.va + RAWQ_SCRATCH_OFF, VCOMPUTE_WAIT_EQ, 1,
				  0xffffffff, 0, 0);
	compute_rawq_emit(&rq, pkt, qw);
	return compute_rawq_submit(&rq);
}

static void release(void)
{
	scratch()[0] = 1;
}

/* ---- signals ---- */

static volatile int got_signal;

static void on_signal(int sig)
{
	(void)sig;
	got_signal++;
}

struct waiter {
	pthread_t thread;
	uint32_t id;
	uint64_t value;
	int64_t deadline;
	int ret;
};

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;

	w->ret = wait_raw(w->id, w->value, w->deadline);
	return NULL;
}

static void check_interrupted(bool restart)
{
	struct sigaction sa, old;
	struct waiter w;
	uint64_t value;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = restart ? SA_RESTART : 0;
	igt_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
	got_signal = 0;

	compute_rawq_create(&rq);
	value = submit_blocked();
	memset(&w, 0, sizeof(w));
	w.id = rq.id;
	w.value = value;
	w.deadline = compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS);
	w.ret = 1;
	igt_assert_eq(pthread_create(&w.thread, NULL, waiter_thread, &w), 0);
	compute_sleep_ms(COMPUTE_SHORT_MS);
	igt_assert_eq(pthread_kill(w.thread, SIGUSR1), 0);
	compute_sleep_ms(COMPUTE_SHORT_MS);
	if (restart) {
		/* Restarted: still waiting, and done once the value arrives. */
		igt_assert_eq(__atomic_load_n(&w.ret, __ATOMIC_ACQUIRE), 1);
		release();
	}
	igt_assert_eq(pthread_join(w.thread, NULL), 0);
	igt_assert_eq(got_signal, 1);
	igt_assert_eq(w.ret, restart ? 0 : -EINTR);
	if (!restart) {
		release();
		compute_rawq_sync(&rq, value);
	}
	compute_rawq_destroy(&rq);
	igt_assert_eq(sigaction(SIGUSR1, &old, NULL), 0);
}

/* ---- race ---- */

static void race_waiter(int child)
{
	for (uint64_t v = 1 + child; v <= RACE_FENCES; v += RACE_CHILDREN) {
		struct drm_compute_userq_state st;

		igt_assert_eq(wait_raw(rq.id, v, compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS)), 0);
		compute_state(&cd, rq.id, &st);
		igt_assert_lte_u64(v, st.fence);
	}
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		igt_assert_eq(onenode_compute_base(cd.dev.driver, &compute_base), 0);
		vm = compute_vm(&cd);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &rq);
	}

	igt_describe("A value the fence already reached (or passed, or 0) "
		     "returns 0 at once, with a polling timeout of 0 too.");
	igt_subtest("reached") {
		uint64_t value;

		compute_rawq_create(&rq);
		rq.fence = 4;
		value = compute_rawq_submit(&rq);
		compute_rawq_sync(&rq, value);
		for (uint64_t v = 0; v <= value; v++) {
			igt_assert_eq(wait_raw(rq.id, v, 0), 0);
			igt_assert_eq(wait_raw(rq.id, v, compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS)), 0);
		}
		compute_rawq_destroy(&rq);
	}

	igt_describe("A value not reached fails with -ETIME: at once for a "
		     "timeout of 0 or in the past, after the time for a future "
		     "one (and not much later), also for the largest value.");
	igt_subtest("timeout") {
		uint64_t t0, elapsed;

		compute_rawq_create(&rq);
		igt_assert_eq(wait_raw(rq.id, 1, 0), -ETIME);
		igt_assert_eq(wait_raw(rq.id, 1, 1), -ETIME);
		igt_assert_eq(wait_raw(rq.id, 1, compute_abs_timeout(0) - 1000 * MS), -ETIME);
		igt_assert_eq(wait_raw(rq.id, UINT64_MAX, 0), -ETIME);
		t0 = compute_now_ns();
		igt_assert_eq(wait_raw(rq.id, 1, t0 + 100 * MS), -ETIME);
		elapsed = compute_now_ns() - t0;
		igt_info("a 100 ms wait took %.1f ms\n", elapsed / 1e6);
		igt_assert_lte_u64(95 * MS, elapsed);
		igt_assert_lte_u64(elapsed, 20000 * MS);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A wait for a value the queue reaches later sleeps until "
		     "the FENCE runs and then returns 0.");
	igt_subtest("wakes-on-fence") {
		uint64_t value, t0;

		compute_rawq_create(&rq);
		value = submit_blocked();
		igt_fork(child, 1) {
			t0 = compute_now_ns();
			igt_assert_eq(wait_raw(rq.id, value,
					       compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS)), 0);
			igt_assert_lte_u64(COMPUTE_SHORT_MS * MS / 2, compute_now_ns() - t0);
		}
		compute_sleep_ms(COMPUTE_SHORT_MS);
		release();
		igt_waitchildren();
		compute_rawq_destroy(&rq);
	}

	igt_describe("A waiter returns -EIO when the queue faults before the "
		     "value; on a faulted queue a value not reached fails with "
		     "-EIO at once, a value reached still returns 0.");
	igt_subtest("fault") {
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], value;
		uint32_t qw;

		compute_rawq_create(&rq);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		scratch()[0] = 0;
		qw = onenode_pkt_wait_mem(pkt, rq.state.va + RAWQ_SCRATCH_OFF, VCOMPUTE_WAIT_EQ, 1,
					  0xffffffff, 0, 0);
		compute_rawq_emit(&rq, pkt, qw);
		qw = onenode_pkt_fill(pkt, COMPUTE_BUF_VA(9), 64, 0);
		compute_rawq_emit(&rq, pkt, qw);
		value = compute_rawq_submit(&rq);
		igt_fork(child, 1)
			igt_assert_eq(wait_raw(rq.id, value,
					       compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS)), -EIO);
		compute_sleep_ms(COMPUTE_SHORT_MS);
		release();
		igt_waitchildren();
		compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, COMPUTE_BUF_VA(9),
				     UINT64_MAX);
		igt_assert_eq(wait_raw(rq.id, value, 0), -EIO);
		igt_assert_eq(wait_raw(rq.id, value + 100,
				       compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS)), -EIO);
		igt_assert_eq(wait_raw(rq.id, value - 1, 0), 0);
		compute_rawq_destroy(&rq);
	}

	igt_describe("A waiter returns -ECANCELED when the queue is destroyed "
		     "before the value.");
	igt_subtest("destroyed") {
		uint64_t value;
		uint32_t id;

		compute_rawq_create(&rq);
		value = submit_blocked();
		id = rq.id;
		igt_fork(child, 2)
			igt_assert_eq(wait_raw(id, value + child,
					       compute_abs_timeout(COMPUTE_TIMEOUT_MS * MS)),
				      -ECANCELED);
		compute_sleep_ms(COMPUTE_SHORT_MS);
		compute_rawq_destroy(&rq);
		igt_waitchildren();
		igt_assert_eq(wait_raw(id, value, 0), -ENOENT);
	}

	igt_describe("A signal interrupts a wait: without SA_RESTART the ioctl "
		     "fails with EINTR; with it the wait is restarted (with the "
		     "same absolute timeout) and returns 0 once the value arrives.");
	igt_subtest_with_dynamic("signal") {
		igt_dynamic("no-restart")
			check_interrupted(false);
		igt_dynamic("restart")
			check_interrupted(true);
	}

	igt_describe("Any flag bit is rejected with -EINVAL and the argument "
		     "comes back unchanged.");
	igt_subtest("invalid-flags") {
		compute_rawq_create(&rq);
		for (unsigned int bit = 0; bit < 32; bit++) {
			struct drm_compute_userq_wait w = {
				.queue_id = rq.id,
				.flags = 1u << bit,
			};

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_WAIT, &w, sizeof(w),
						-EINVAL);
		}
		compute_rawq_destroy(&rq);
	}

	igt_describe("Id 0, unknown ids and another file's queue ids fail with "
		     "-ENOENT, the argument unchanged.");
	igt_subtest("bad-id") {
		static struct compute_dev other = { .fd = -1 };
		static struct compute_rawq theirs;
		const uint32_t ids[] = { 0, 1000, 0xffffffff };
		uint32_t first;

		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ids); i++) {
			struct drm_compute_userq_wait w = { .queue_id = ids[i] };

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_WAIT, &w, sizeof(w),
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
			struct drm_compute_userq_wait w = { .queue_id = theirs.id };

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_WAIT, &w, sizeof(w),
						-ENOENT);
		}
		igt_assert_eq(onenode_userq_destroy(&other.dev, first), 0);
		compute_rawq_teardown(&theirs);
		compute_close(&other);
		compute_rawq_destroy(&rq);
	}

	igt_describe("Processes wait for 64 fence values in turn while the queue "
		     "reaches them one by one: every wait returns 0 and the fence "
		     "is at least the value afterwards.");
	igt_subtest("race-many-waiters") {
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];

		compute_rawq_create(&rq);
		igt_fork(child, RACE_CHILDREN)
			race_waiter(child);
		for (uint64_t v = 1; v <= RACE_FENCES; v++) {
			uint32_t qw = onenode_pkt_fence(pkt, rq.state.va + RAWQ_FENCE_OFF, v);

			compute_rawq_emit(&rq, pkt, qw);
			compute_rawq_commit(&rq);
			usleep(500);
		}
		igt_waitchildren();
		compute_rawq_destroy(&rq);
	}

	igt_fixture {
		compute_rawq_teardown(&rq);
		compute_close(&cd);
	}
}
