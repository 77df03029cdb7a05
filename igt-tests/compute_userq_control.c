// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_USERQ_CONTROL (struct drm_compute_userq_control):
 * SUSPEND and RESUME (in the middle of a DISPATCH, with correct results
 * after; vcompute's context-save record in the save area; a corrupted
 * record faulting the queue on resume; time suspended not counting against
 * a WAIT_MEM timeout), WAKE and the NEED_WAKEUP doorbell protocol, the
 * operations each state forbids, rejection of bad input, and races.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_USERQ_CONTROL: suspend and resume "
		     "mid-DISPATCH with correct results, the context-save record "
		     "and a corrupted one faulting the queue, WAKE and the "
		     "NEED_WAKEUP protocol, the operations each state forbids, "
		     "bad fields and ids, and concurrent control.");

#define RING_SIZE (16 * 1024)
#define ELEMS (1u << 20)
#define BUF_SIZE (ELEMS * 4ull)
#define RACE_CHILDREN 4
#define RACE_ROUNDS 16
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };
static uint32_t vm;
static struct compute_rawq rq;
static struct compute_buf a, b, c;
/* A queue of another file that must keep running whatever happens here. */
static struct compute_dev byfile = { .fd = -1 };
static struct compute_queue bystander;

static int control(uint32_t id, uint32_t op)
{
	return onenode_userq_control(&cd.dev, id, op);
}

static void expect_control_rejected(uint32_t id, uint32_t op, uint32_t flags, uint32_t pad,
				    int err)
{
	struct drm_compute_userq_control args = {
		.queue_id = id,
		.op = op,
		.flags = flags,
		.pad = pad,
	};

	compute_expect_rejected(&cd, DRM_COMPUTE_OP_USERQ_CONTROL, &args, sizeof(args), err);
}

static struct vcompute_ctx_save *record(void)
{
	return compute_rawq_ctx(&rq);
}

static void fill_inputs(uint32_t seed)
{
	uint64_t s = seed | 1;
	uint32_t *pa = a.cpu, *pb = b.cpu;

	for (uint32_t i = 0; i < ELEMS; i++) {
		pa[i] = compute_rand32(&s);
		pb[i] = compute_rand32(&s);
	}
	memset(c.cpu, 0, BUF_SIZE);
}

static void check_vadd(void)
{
	const uint32_t *pa = a.cpu, *pb = b.cpu, *pc = c.cpu;

	for (uint32_t i = 0; i < ELEMS; i++)
		igt_assert_f(pc[i] == pa[i] + pb[i], "element %u: %#x + %#x gave %#x\n", i,
			     pa[i], pb[i], pc[i]);
}

/* Emit a VADD_U32 over the whole buffers; returns its ring offset. */
static uint64_t emit_vadd(uint32_t group_size)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS], at = rq.wptr;
	uint32_t qw = onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, ELEMS, group_size,
					   a.va, b.va, c.va);

	compute_rawq_emit(&rq, pkt, qw);
	return at;
}

static uint64_t sum32(const void *p, size_t size)
{
	const uint32_t *w = p;
	uint64_t s = 0;

	for (size_t i = 0; i < size / 4; i++)
		s = s * 31 + w[i];
	return s;
}

/* Block the raw queue in WAIT_MEM on scratch[0] == 1 with @timeout_ns. */
static volatile uint32_t *scratch(void)
{
	return (volatile uint32_t *)((char *)rq.state.cpu + RAWQ_SCRATCH_OFF);
}

static uint64_t submit_wait(uint64_t timeout_ns)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw;

	scratch()[0] = 0;
	qw = onenode_pkt_wait_mem(pkt, rq.state.va + RAWQ_SCRATCH_OFF, VCOMPUTE_WAIT_EQ, 1,
				  0xffffffff, 0, timeout_ns);
	compute_rawq_emit(&rq, pkt, qw);
	return compute_rawq_submit(&rq);
}

/* ---- races ---- */

static volatile int *race_stop;

static void race_suspender(int child)
{
	unsigned long ok = 0, refused = 0;

	while (!__atomic_load_n(race_stop, __ATOMIC_ACQUIRE)) {
		int s = control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND);
		int r;

		usleep(child * 100);
		r = control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME);
		igt_assert_f(s == 0 || s == -EINVAL, "suspend: %d\n", s);
		igt_assert_f(r == 0 || r == -EINVAL, "resume: %d\n", r);
		ok += !s + !r;
		refused += !!s + !!r;
		if (child == 1)
			igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_WAKE), 0);
	}
	/* Each child ends with a resume: the last call of all leaves it running. */
	igt_info("child %d: %lu done, %lu refused\n", child, ok, refused);
}

static void setup_queue(unsigned int round, uint64_t *slot)
{
	compute_rawq_create(&rq);
	if (round & 1)
		submit_wait(0);
	slot[0] = rq.id;
	munmap(rq.db_map, cd.uq.doorbell_size);
	rq.db_map = NULL;
	rq.id = 0;
}

static int race_control_destroy(int child, unsigned int round, const uint64_t *slot)
{
	static const uint32_t ops[] = {
		DRM_COMPUTE_USERQ_OP_SUSPEND, DRM_COMPUTE_USERQ_OP_RESUME, DRM_COMPUTE_USERQ_OP_WAKE,
	};
	int ret;

	(void)round;
	if (child == 0)
		return onenode_userq_destroy(&cd.dev, (uint32_t)slot[0]);
	ret = control((uint32_t)slot[0], ops[(child - 1) % 3]);
	return ret == -ENOENT || ret == -EINVAL ? 0 : ret;
}

static void check_control_destroy(unsigned int round, const int *results, uint64_t *slot)
{
	struct drm_compute_userq_state st = { .queue_id = (uint32_t)slot[0] };

	for (unsigned int i = 0; i < RACE_CHILDREN; i++)
		igt_assert_f(results[i] == 0, "round %u child %u: %d\n", round, i, results[i]);
	igt_assert_eq(compute_ioctl(&cd, DRM_COMPUTE_OP_USERQ_STATE, &st), -ENOENT);
}

igt_main
{
	igt_fixture {
		uint64_t placement;

		compute_open(&cd);
		compute_require_userq(&cd);
		igt_require(cd.uq.ctx_save_size >= sizeof(struct vcompute_ctx_save));
		vm = compute_vm(&cd);
		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(0), RING_SIZE, 0, &rq);
		placement = cd.info.placements & DRM_COMPUTE_PLACEMENT_VRAM ?
			    DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM;
		compute_buf_init(&cd, vm, BUF_SIZE, placement, COMPUTE_BUF_VA(0),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &a);
		compute_buf_init(&cd, vm, BUF_SIZE, placement, COMPUTE_BUF_VA(1),
				 DRM_COMPUTE_VM_BIND_NOEXEC | DRM_COMPUTE_VM_BIND_READONLY, &b);
		compute_buf_init(&cd, vm, BUF_SIZE, placement, COMPUTE_BUF_VA(2),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &c);
		compute_open_file(&cd, &byfile);
		compute_queue_init_at(&byfile, compute_vm(&byfile), COMPUTE_QUEUE_VA(0),
				      &bystander);
		race_stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				 -1, 0);
		igt_assert(race_stop != MAP_FAILED);
	}

	igt_describe("SUSPEND of an idle queue: state SUSPENDED, vcompute's "
		     "record in the context save area (magic, version, the read "
		     "pointer, the number of suspensions); RESUME: IDLE again and "
		     "work runs; a second cycle counts two suspensions.");
	igt_subtest("suspend-resume-idle") {
		struct drm_compute_userq_state st;

		compute_rawq_create(&rq);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		memset(record(), 0, sizeof(*record()));
		for (uint64_t round = 1; round <= 2; round++) {
			igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
			compute_state(&cd, rq.id, &st);
			igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_SUSPENDED);
			igt_assert_eq_u32(record()->magic, VCOMPUTE_CTX_SAVE_MAGIC);
			igt_assert_eq_u32(record()->version, VCOMPUTE_CTX_SAVE_VERSION);
			igt_assert_eq_u64(record()->rptr, st.rptr);
			igt_assert_eq_u64(record()->rptr, rq.wptr);
			igt_assert_eq_u64(record()->progress, 0);
			igt_assert_eq_u64(record()->saves, round);
			igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
			compute_state(&cd, rq.id, &st);
			igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_IDLE);
			compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		}
		compute_rawq_destroy(&rq);
	}

	igt_describe("SUSPEND in the middle of a long DISPATCH (VADD_U32 over 1M "
		     "elements): the record points at the packet with partial "
		     "progress, nothing is written while suspended, work submitted "
		     "meanwhile waits; after RESUME, and after more cycles, every "
		     "element is correct.");
	igt_subtest("suspend-mid-dispatch") {
		struct drm_compute_userq_state st;
		unsigned int delay_us = 2000, caught = 0, cycles = 0;
		uint64_t at, value;

		compute_rawq_create(&rq);
		for (unsigned int attempt = 0; attempt < 20 && !caught; attempt++) {
			fill_inputs(attempt + 1);
			at = emit_vadd(256);
			value = compute_rawq_submit(&rq);
			usleep(delay_us);
			igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
			if (record()->rptr == at && record()->progress > 0) {
				uint64_t before = sum32(c.cpu, BUF_SIZE), more;

				caught++;
				compute_state(&cd, rq.id, &st);
				igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_SUSPENDED);
				igt_assert_eq_u64(st.rptr, at);
				/* Work submitted now waits for the resume. */
				more = compute_rawq_submit(&rq);
				compute_sleep_ms(COMPUTE_SHORT_MS);
				igt_assert_eq_u64(sum32(c.cpu, BUF_SIZE), before);
				igt_assert_eq(onenode_userq_wait(&cd.dev, rq.id, more, 0), -ETIME);
				/* A few more cycles while it runs. */
				for (unsigned int i = 0; i < 4; i++) {
					igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
					usleep(500);
					igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
					cycles++;
				}
				value = more;
			} else if (record()->rptr == at) {
				delay_us *= 2;		/* not started yet */
			} else {
				delay_us = delay_us / 2 + 1;	/* already done */
			}
			igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
			compute_rawq_sync(&rq, value);
			check_vadd();
		}
		igt_info("caught mid-dispatch: %u, extra cycles %u\n", caught, cycles);
		igt_assert_f(caught, "never suspended inside the DISPATCH\n");
		compute_rawq_destroy(&rq);
	}

	igt_describe("A record that is corrupted while the queue is suspended "
		     "faults the queue on RESUME instead of running from a made-up "
		     "state: a bad magic, version or misaligned read pointer with "
		     "DRM_COMPUTE_FAULT_PACKET at the save area, a read pointer "
		     "past the write pointer with DRM_COMPUTE_FAULT_WPTR; a queue "
		     "of another file keeps running.");
	igt_subtest_with_dynamic("corrupted-record") {
		static const struct {
			const char *name;
			size_t offset;
			uint64_t xor;
			uint32_t reason;
		} cases[] = {
			{ "magic", offsetof(struct vcompute_ctx_save, magic), 1,
			  DRM_COMPUTE_FAULT_PACKET },
			{ "version", offsetof(struct vcompute_ctx_save, version), 0x100,
			  DRM_COMPUTE_FAULT_PACKET },
			{ "rptr-misaligned", offsetof(struct vcompute_ctx_save, rptr), 4,
			  DRM_COMPUTE_FAULT_PACKET },
			{ "rptr-ahead", offsetof(struct vcompute_ctx_save, rptr), 1 << 20,
			  DRM_COMPUTE_FAULT_WPTR },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				char *rec = (char *)record() + cases[i].offset;
				int ret;

				compute_rawq_create(&rq);
				compute_rawq_sync(&rq, compute_rawq_submit(&rq));
				igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
				if (cases[i].offset == offsetof(struct vcompute_ctx_save, rptr))
					*(uint64_t *)rec ^= cases[i].xor;
				else
					*(uint32_t *)rec ^= (uint32_t)cases[i].xor;
				ret = control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME);
				igt_assert_f(ret == 0 || ret == -EIO, "resume: %d\n", ret);
				if (cases[i].reason == DRM_COMPUTE_FAULT_WPTR) {
					uint64_t nop[ONENODE_PKT_MAX_QWORDS];

					/*
					 * The engine faults the queue as soon as it
					 * runs again (the read pointer is past the
					 * write pointer already) or at this
					 * submission: its WAKE may find it faulted.
					 */
					compute_rawq_emit(&rq, nop, onenode_pkt_nop(nop, 1));
					__atomic_store_n(&rq.db->wptr, rq.wptr, __ATOMIC_RELEASE);
					ret = control(rq.id, DRM_COMPUTE_USERQ_OP_WAKE);
					igt_assert_f(ret == 0 || ret == -EIO, "wake: %d\n", ret);
				}
				compute_assert_fault(&cd, rq.id, cases[i].reason,
						     cases[i].reason == DRM_COMPUTE_FAULT_PACKET ?
						     rq.args.ctx_save_va : UINT64_MAX, UINT64_MAX);
				igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), -EIO);
				compute_check_alive(&bystander);
				compute_rawq_destroy(&rq);
			}
		}
	}

	igt_describe("Time spent suspended does not count against a WAIT_MEM's "
		     "own timeout: a 2 s wait suspended for 3 s is still waiting "
		     "after RESUME, and completes when the value arrives.");
	igt_subtest("suspended-wait-keeps-timeout") {
		struct drm_compute_userq_state st;
		uint64_t value;

		compute_rawq_create(&rq);
		value = submit_wait(2000000000ull);
		compute_sleep_ms(300);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
		compute_sleep_ms(3000);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
		compute_sleep_ms(300);
		compute_state(&cd, rq.id, &st);
		igt_assert_f(st.status == DRM_COMPUTE_USERQ_STATUS_RUNNING,
			     "after resume: status %s, fault %s\n", onenode_status_name(st.status),
			     onenode_fault_name(st.fault_reason));
		scratch()[0] = 1;
		compute_rawq_sync(&rq, value);
		compute_rawq_destroy(&rq);
	}

	igt_describe("An idle device sets NEED_WAKEUP in the doorbell; work "
		     "published then runs once WAKE is called; WAKE is harmless "
		     "on idle, running and suspended queues.");
	igt_subtest("wake-after-need-wakeup") {
		uint64_t end, value;

		igt_require(cd.uq.caps & DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP);
		compute_rawq_create(&rq);
		end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;
		while (!(__atomic_load_n(&rq.db->flags, __ATOMIC_ACQUIRE) &
			 DRM_COMPUTE_DOORBELL_NEED_WAKEUP))
			igt_assert_f(compute_now_ns() < end, "the device never asked for a wake-up\n");
		/* Publish by hand, then wake. */
		{
			uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
			uint32_t qw = onenode_pkt_fence(pkt, rq.state.va + RAWQ_FENCE_OFF, ++rq.fence);

			compute_rawq_emit(&rq, pkt, qw);
			__atomic_store_n(&rq.db->wptr, rq.wptr, __ATOMIC_RELEASE);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_WAKE), 0);
			compute_rawq_sync(&rq, rq.fence);
		}
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_WAKE), 0);
		value = submit_wait(0);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_WAKE), 0);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_WAKE), 0);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
		scratch()[0] = 1;
		compute_rawq_sync(&rq, value);
		compute_rawq_destroy(&rq);
	}

	igt_describe("No wake-up is lost: 300 submissions, each after a random "
		     "pause around the device's idle timeout, published with the "
		     "store/barrier/flag-check protocol, all complete.");
	igt_subtest("no-lost-wakeup") {
		unsigned long long idle_us = 1000;
		uint64_t seed = 99;
		unsigned int woken = 0;

		compute_read_param("vcompute", "poll_idle_us", &idle_us);
		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < 300; i++) {
			uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
			uint32_t qw = onenode_pkt_fence(pkt, rq.state.va + RAWQ_FENCE_OFF, ++rq.fence);

			usleep(compute_rand32(&seed) % (2 * idle_us + 1));
			compute_rawq_emit(&rq, pkt, qw);
			woken += !!(rq.db->flags & DRM_COMPUTE_DOORBELL_NEED_WAKEUP);
			compute_rawq_commit(&rq);
			compute_rawq_sync(&rq, rq.fence);
		}
		igt_info("%u of 300 submissions found the device asleep\n", woken);
		compute_rawq_destroy(&rq);
	}

	igt_describe("An op other than SUSPEND, RESUME and WAKE, any flag bit "
		     "and a non-zero pad are rejected with -EINVAL, the argument "
		     "unchanged and the queue unaffected.");
	igt_subtest("invalid-fields") {
		const uint32_t ops[] = { 0, 4, 5, 0x80000000, 0xffffffff };

		compute_rawq_create(&rq);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ops); i++)
			expect_control_rejected(rq.id, ops[i], 0, 0, -EINVAL);
		for (unsigned int bit = 0; bit < 32; bit++) {
			expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND, 1u << bit, 0,
						-EINVAL);
			expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_WAKE, 0, 1u << bit,
						-EINVAL);
		}
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
		compute_rawq_destroy(&rq);
	}

	igt_describe("The state decides: SUSPEND of a suspended queue and RESUME "
		     "of an active one fail with -EINVAL; every operation on a "
		     "faulted queue fails with -EIO; the argument comes back "
		     "unchanged.");
	igt_subtest("invalid-state") {
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		uint32_t qw;

		compute_rawq_create(&rq);
		expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_RESUME, 0, 0, -EINVAL);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
		expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND, 0, 0, -EINVAL);
		igt_assert_eq(control(rq.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
		expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_RESUME, 0, 0, -EINVAL);

		qw = onenode_pkt_fill(pkt, COMPUTE_BUF_VA(9), 64, 0);
		compute_rawq_emit(&rq, pkt, qw);
		compute_rawq_commit(&rq);
		compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_UNMAPPED, COMPUTE_BUF_VA(9),
				     UINT64_MAX);
		expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_SUSPEND, 0, 0, -EIO);
		expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_RESUME, 0, 0, -EIO);
		expect_control_rejected(rq.id, DRM_COMPUTE_USERQ_OP_WAKE, 0, 0, -EIO);
		compute_check_alive(&bystander);
		compute_rawq_destroy(&rq);
	}

	igt_describe("Id 0, unknown ids and another file's queue ids fail with "
		     "-ENOENT for every operation; the other file's queue is not "
		     "suspended by the attempt.");
	igt_subtest("bad-id") {
		static struct compute_dev other = { .fd = -1 };
		static struct compute_rawq theirs;
		struct drm_compute_userq_state st;
		uint32_t first;

		compute_rawq_create(&rq);
		compute_open_file(&cd, &other);
		compute_rawq_setup(&other, compute_vm(&other), COMPUTE_QUEUE_VA(0), RING_SIZE, 0,
				   &theirs);
		compute_rawq_create(&theirs);
		first = theirs.id;
		munmap(theirs.db_map, cd.uq.doorbell_size);
		compute_rawq_create(&theirs);	/* a second one, id 2: not ours */
		for (uint32_t op = DRM_COMPUTE_USERQ_OP_SUSPEND; op <= DRM_COMPUTE_USERQ_OP_WAKE; op++) {
			expect_control_rejected(0, op, 0, 0, -ENOENT);
			expect_control_rejected(rq.id + 1000, op, 0, 0, -ENOENT);
			expect_control_rejected(0xffffffff, op, 0, 0, -ENOENT);
			if (theirs.id != rq.id)
				expect_control_rejected(theirs.id, op, 0, 0, -ENOENT);
		}
		compute_state(&other, theirs.id, &st);
		igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_IDLE);
		igt_assert_eq(onenode_userq_destroy(&other.dev, first), 0);
		compute_rawq_teardown(&theirs);
		compute_close(&other);
		compute_rawq_destroy(&rq);
	}

	igt_describe("Processes suspend and resume one queue as fast as they can "
		     "for 2 s (each call succeeds or gets -EINVAL) while it runs "
		     "VADD_U32 jobs that are all checked.");
	igt_subtest("race-suspend-resume") {
		unsigned int jobs = 0;
		uint64_t end;

		compute_rawq_create(&rq);
		*race_stop = 0;
		igt_fork(child, RACE_CHILDREN)
			race_suspender(child);
		end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
		while (compute_now_ns() < end) {
			fill_inputs(jobs + 100);
			emit_vadd(4096);
			compute_rawq_sync(&rq, compute_rawq_submit(&rq));
			check_vadd();
			jobs++;
		}
		__atomic_store_n(race_stop, 1, __ATOMIC_RELEASE);
		igt_waitchildren();
		igt_info("%u jobs\n", jobs);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		compute_rawq_destroy(&rq);
	}

	igt_describe("One process destroys a queue (idle or blocked in a "
		     "WAIT_MEM) while others suspend, resume and wake it, 16 "
		     "times: every call succeeds or fails with -ENOENT or -EINVAL.");
	igt_subtest("race-control-destroy")
		compute_race_rounds(RACE_CHILDREN, RACE_ROUNDS, setup_queue, race_control_destroy,
				    check_control_destroy);

	igt_fixture {
		compute_queue_fini(&bystander);
		compute_close(&byfile);
		compute_rawq_teardown(&rq);
		compute_buf_fini(&cd, &c);
		compute_buf_fini(&cd, &b);
		compute_buf_fini(&cd, &a);
		compute_close(&cd);
	}
}
