// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_CRIU_PAUSE (struct drm_compute_criu_pause):
 * the phase of a checkpoint before anything is saved. The pause suspends a
 * file's running queues (and only the resume continues them), takes its
 * exported buffers from their importers (a DMA-doing importer's writes are
 * refused until the resume), refuses a buffer an importer pinned (leaving
 * everything as it was), and a file closed while paused revokes its
 * buffers without leaking their pages. Bad input, the access rule and a
 * race with object churn.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/capability.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include <xf86drm.h>

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_CRIU_PAUSE: a checkpoint's "
		     "pause suspends the file's running queues and takes its "
		     "exported buffers from their importers until the resume; "
		     "a pinned buffer fails the pause with nothing changed; a "
		     "file closed while paused revokes its buffers; bad input, "
		     "the access rule and races.");

#define SIZE (4 * COMPUTE_PAGE)
#define RACE_ROUNDS 150

static struct compute_dev cd = { .fd = -1 };

static int pause_file(const struct compute_dev *f, uint32_t op,
		      struct drm_compute_criu_pause *out)
{
	return onenode_criu_pause(&f->dev, op, out);
}

static void expect_pause(const struct compute_dev *f, uint32_t op, uint32_t userqs,
			 uint32_t exports)
{
	struct drm_compute_criu_pause p;

	igt_assert_eq(pause_file(f, op, &p), 0);
	igt_assert_f(p.userqs == userqs && p.exports == exports,
		     "%s: %u queues, %u buffers; want %u, %u\n",
		     op == DRM_COMPUTE_CRIU_OP_PAUSE ? "pause" : "resume", p.userqs,
		     p.exports, userqs, exports);
	igt_assert_eq_u32(p.op, op);
	igt_assert_eq_u32(p.flags, 0);
	igt_assert(!p.reserved[0] && !p.reserved[1]);
}

/* A PREFER_P2P buffer, in device memory where the device has some. */
static uint32_t export_bo(const struct compute_dev *f)
{
	uint64_t placement = compute_has_placement(f, DRM_COMPUTE_PLACEMENT_VRAM) ?
			     DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM;
	uint32_t handle = 0;

	igt_assert_eq(onenode_bo_create_export(&f->dev, SIZE, placement,
					       DRM_COMPUTE_BO_EXPORT_PREFER_P2P, &handle), 0);
	return handle;
}

static uint32_t invalidations(const struct compute_dev *f, uint32_t handle)
{
	struct drm_compute_p2p_report r;

	igt_assert_eq(onenode_p2p_report(&f->dev, handle, &r, NULL, 0), 0);
	return r.invalidations;
}

/*
 * A running queue (stalled on a flag, then a FENCE) and one its user
 * suspended: the pause suspends the first only; the user resumes neither
 * while paused; no queue is created meanwhile; the flag set during the pause
 * does not let the queue on until the resume; the user's queue stays
 * suspended.
 */
static void test_queues(void)
{
	struct drm_compute_userq_state st;
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	struct compute_queue run, held, extra;
	struct compute_buf flag;
	struct compute_dev f;
	uint64_t fence;
	uint32_t vm;

	compute_open_file(&cd, &f);
	vm = compute_vm(&f);
	compute_buf_init(&f, vm, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM, COMPUTE_BUF_VA(0),
			 DRM_COMPUTE_VM_BIND_NOEXEC, &flag);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(0), &run);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(1), &held);
	compute_emit(&run, pkt, onenode_pkt_wait_mem(pkt, flag.va, VCOMPUTE_WAIT_EQ, 1,
						    ~0ull, 0, 0));
	fence = compute_submit(&run);
	igt_assert_eq(onenode_userq_control(&f.dev, held.q.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);

	expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 1, 0);
	compute_assert_status(&f, run.q.id, DRM_COMPUTE_USERQ_STATUS_SUSPENDED, &st);
	compute_assert_status(&f, held.q.id, DRM_COMPUTE_USERQ_STATUS_SUSPENDED, &st);
	/* The checkpoint's queue is not its user's to resume. */
	igt_assert_eq(onenode_userq_control(&f.dev, run.q.id, DRM_COMPUTE_USERQ_OP_RESUME), -EBUSY);
	igt_assert_eq(onenode_userq_control(&f.dev, run.q.id, DRM_COMPUTE_USERQ_OP_SUSPEND), -EINVAL);
	/* Nor is the queue its user suspended before: the file is held. */
	igt_assert_eq(onenode_userq_control(&f.dev, held.q.id, DRM_COMPUTE_USERQ_OP_RESUME), -EBUSY);
	/* No new queue while paused. */
	{
		const struct onenode_queue_params params = {
			.va = COMPUTE_QUEUE_VA(2), .priority = ONENODE_PRIORITY_DEFAULT,
		};
		struct onenode_queue q;

		igt_assert_eq(onenode_queue_init(&q, &f.dev, vm, &params), -EBUSY);
	}
	/* What it waits for comes, but a paused queue does not go on. */
	*(volatile uint32_t *)flag.cpu = 1;
	compute_sleep_ms(300);
	igt_assert_f(*run.q.fence < fence, "a paused queue reached its fence\n");
	compute_assert_status(&f, run.q.id, DRM_COMPUTE_USERQ_STATUS_SUSPENDED, &st);

	expect_pause(&f, DRM_COMPUTE_CRIU_OP_RESUME, 1, 0);
	compute_sync(&run, fence);
	compute_check_alive(&run);
	/* The user's own suspension stayed, and is the user's to end. */
	compute_assert_status(&f, held.q.id, DRM_COMPUTE_USERQ_STATUS_SUSPENDED, &st);
	igt_assert_eq(onenode_userq_control(&f.dev, held.q.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
	compute_check_alive(&held);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(2), &extra);
	compute_check_alive(&extra);

	compute_queue_fini(&extra);
	compute_queue_fini(&held);
	compute_queue_fini(&run);
	compute_buf_fini(&f, &flag);
	compute_vm_destroy(&f, vm);
	compute_close(&f);
}

/*
 * The edu, a DMA-doing dynamic importer, writes into an export buffer; the
 * pause tells it (the report counts the invalidation) and refuses its
 * writes (-EBUSY) until the resume, the buffer's bytes untouched; then
 * its write lands again. A second file holding the same buffer pauses it
 * too, and its close while paused leaves the buffer to the first.
 */
static void test_dynamic_importer(const char *edu)
{
	uint8_t *a = malloc(SIZE), *b = malloc(SIZE);
	struct compute_dev f;
	uint64_t used;
	int64_t pages;
	size_t bad = 0;
	uint32_t h, inv;
	int fd, efd;
	void *m;

	igt_assert(a && b);
	igt_assert_eq(compute_memory(&cd, &used, &pages), 0);
	compute_open_file(&cd, &f);
	h = export_bo(&f);
	m = compute_bo_map(&f, h, SIZE);
	fd = compute_prime_fd(&f, h);
	efd = compute_edu_import(edu, fd);
	compute_fill_pattern(a, SIZE, 201);
	igt_assert_eq(compute_edu_write(efd, a, SIZE), 0);
	inv = invalidations(&f, h);

	expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 1);
	igt_assert_eq_u32(invalidations(&f, h), inv + 1);
	compute_fill_pattern(b, SIZE, 202);
	igt_assert_eq(compute_edu_write(efd, b, SIZE), -EBUSY);
	igt_assert_f(compute_check_pattern(m, SIZE, 201, &bad),
		     "the buffer changed while paused: bad at byte %zu\n", bad);
	/* A second pause is refused, and changes nothing. */
	igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), -EALREADY);

	expect_pause(&f, DRM_COMPUTE_CRIU_OP_RESUME, 0, 1);
	igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME, NULL), -EALREADY);
	igt_assert_eq(compute_edu_write(efd, b, SIZE), 0);
	igt_assert_f(compute_check_pattern(m, SIZE, 202, &bad),
		     "the importer's write after the resume: bad at byte %zu\n", bad);

	/*
	 * Another file of the device holds the same buffer: each pauses it,
	 * it stays paused until both resume, and the other file closing
	 * while paused does not revoke what this file still holds.
	 */
	{
		struct compute_dev g;
		uint32_t hg = 0;

		compute_open_file(&cd, &g);
		igt_assert_eq(drmPrimeFDToHandle(g.fd, fd, &hg), 0);
		expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 1);
		expect_pause(&g, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 1);
		expect_pause(&g, DRM_COMPUTE_CRIU_OP_RESUME, 0, 1);
		igt_assert_eq(compute_edu_write(efd, a, SIZE), -EBUSY);
		expect_pause(&g, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 1);
		compute_close(&g);
		igt_assert_eq(compute_edu_write(efd, a, SIZE), -EBUSY);
		expect_pause(&f, DRM_COMPUTE_CRIU_OP_RESUME, 0, 1);
		igt_assert_eq(compute_edu_write(efd, a, SIZE), 0);
		igt_assert_f(compute_check_pattern(m, SIZE, 201, &bad),
			     "the write after both resumed: bad at byte %zu\n", bad);
	}

	close(efd);
	close(fd);
	munmap(m, SIZE);
	compute_bo_close(&f, h);
	compute_close(&f);
	compute_assert_memory(&cd, used, pages, "after every close");
	free(a);
	free(b);
}

/*
 * The file is closed while paused, as when the checkpointed process goes
 * away: the buffer is revoked (the importer's next write: -ENODEV), its
 * pages stay while the importer holds it, and go when it lets go.
 */
static void test_revoke_at_close(const char *edu)
{
	uint8_t *a = malloc(SIZE);
	struct compute_dev f;
	uint64_t used, used_paused;
	int64_t pages, pages_paused;
	uint32_t h;
	int fd, efd;

	igt_assert(a);
	igt_assert_eq(compute_memory(&cd, &used, &pages), 0);
	compute_open_file(&cd, &f);
	h = export_bo(&f);
	fd = compute_prime_fd(&f, h);
	efd = compute_edu_import(edu, fd);
	compute_fill_pattern(a, SIZE, 211);
	igt_assert_eq(compute_edu_write(efd, a, SIZE), 0);
	close(fd);

	expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 1);
	igt_assert_eq(compute_memory(&cd, &used_paused, &pages_paused), 0);
	/* Device memory, or pages of the driver's own after the move. */
	igt_assert_f(used_paused >= used + SIZE ||
		     pages_paused >= pages + (int64_t)(SIZE / COMPUTE_PAGE),
		     "the buffer is not counted: %" PRIu64 " bytes, %" PRId64 " pages before; "
		     "%" PRIu64 ", %" PRId64 " with it\n", used, pages, used_paused, pages_paused);
	compute_close(&f);
	igt_assert_eq(compute_edu_write(efd, a, SIZE), -ENODEV);
	/* The importer still holds the buffer: its pages stay. */
	compute_assert_memory(&cd, used_paused, pages_paused, "the importer holds the revoked buffer");
	close(efd);
	compute_assert_memory(&cd, used, pages, "after the importer let go");
	free(a);
}

/*
 * A pinned importer (the edu importing with VCOMPUTE_EDU_IMPORT_PIN, as
 * RDMA's pinned memory regions do) fails the pause with -EBUSY, and
 * everything stays as it was: the queue runs, the file is not paused, the
 * importer's writes land. So does an ordinary buffer (no export flag) that
 * another device (vgem) attached: its importer cannot be told. Once both
 * let go the pause goes through, and vgem cannot attach a paused buffer.
 */
static void test_pinned(const char *edu)
{
	struct drm_compute_userq_state st;
	uint8_t *a = malloc(SIZE);
	struct compute_queue q;
	struct compute_dev f;
	uint32_t h, plain = 0, vm, imp = 0, nbufs = 0;
	int vgem = compute_open_vgem(), fd, pfd = -1, efd;
	size_t bad = 0;
	void *m;

	igt_require_f(edu[0] || vgem >= 0, "an edu or vgem importer\n");
	igt_assert(a);
	compute_open_file(&cd, &f);
	vm = compute_vm(&f);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(0), &q);
	h = export_bo(&f);
	m = compute_bo_map(&f, h, SIZE);
	fd = compute_prime_fd(&f, h);
	nbufs++;

	if (edu[0]) {
		struct vcompute_edu_import imp_pin = { .fd = fd, .flags = VCOMPUTE_EDU_IMPORT_PIN };

		efd = open(edu, O_RDWR | O_CLOEXEC);
		igt_assert_fd(efd);
		igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_IMPORT, &imp_pin), 0);
		igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), -EBUSY);
		compute_state(&f, q.q.id, &st);
		igt_assert_neq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_SUSPENDED);
		compute_check_alive(&q);
		igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME, NULL), -EALREADY);
		compute_fill_pattern(a, SIZE, 221);
		igt_assert_eq(compute_edu_write(efd, a, SIZE), 0);
		igt_assert_f(compute_check_pattern(m, SIZE, 221, &bad),
			     "the pinned importer's write: bad at byte %zu\n", bad);
		close(efd);
	}
	if (vgem >= 0) {
		plain = compute_bo(&f, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		pfd = compute_prime_fd(&f, plain);
		nbufs++;
		igt_assert_eq(drmPrimeFDToHandle(vgem, pfd, &imp), 0);
		igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), -EBUSY);
		compute_check_alive(&q);
		igt_assert_eq(drmCloseBufferHandle(vgem, imp), 0);
		/* The failed pause let the export buffer go again. */
		igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME, NULL), -EALREADY);
		igt_assert_eq(drmPrimeFDToHandle(vgem, fd, &imp), 0);
		igt_assert_eq(drmCloseBufferHandle(vgem, imp), 0);
	}

	/* Nobody holds them now: the pause goes through. */
	expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 1, nbufs);
	if (vgem >= 0) {
		/* No importer attaches while paused. */
		igt_assert_eq(drmPrimeFDToHandle(vgem, fd, &imp), -1);
		igt_assert_eq(errno, EBUSY);
	}
	expect_pause(&f, DRM_COMPUTE_CRIU_OP_RESUME, 1, nbufs);
	compute_check_alive(&q);

	if (vgem >= 0) {
		close(pfd);
		compute_bo_close(&f, plain);
		close(vgem);
	}
	munmap(m, SIZE);
	close(fd);
	compute_bo_close(&f, h);
	compute_queue_fini(&q);
	compute_vm_destroy(&f, vm);
	compute_close(&f);
	free(a);
}

static void test_invalid(void)
{
	static const uint32_t ops[] = { 0, 3, 0x80000000u, ~0u };
	struct drm_compute_criu_pause bad;
	struct compute_dev f;
	unsigned int i;

	compute_open_file(&cd, &f);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		memset(&bad, 0, sizeof(bad));
		bad.op = ops[i];
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EINVAL);
	}
	for (i = 0; i < 32; i++) {
		memset(&bad, 0, sizeof(bad));
		bad.op = DRM_COMPUTE_CRIU_OP_PAUSE;
		bad.flags = 1u << i;
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EINVAL);
	}
	memset(&bad, 0, sizeof(bad));
	bad.op = DRM_COMPUTE_CRIU_OP_PAUSE;
	bad.userqs = 1;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EINVAL);
	memset(&bad, 0, sizeof(bad));
	bad.op = DRM_COMPUTE_CRIU_OP_PAUSE;
	bad.exports = 1;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EINVAL);
	for (i = 0; i < 2; i++) {
		memset(&bad, 0, sizeof(bad));
		bad.op = DRM_COMPUTE_CRIU_OP_PAUSE;
		bad.reserved[i] = 1;
		compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EINVAL);
	}
	/* The wrong state: -EALREADY, the argument as it came. */
	memset(&bad, 0, sizeof(bad));
	bad.op = DRM_COMPUTE_CRIU_OP_RESUME;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EALREADY);
	expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 0);
	memset(&bad, 0, sizeof(bad));
	bad.op = DRM_COMPUTE_CRIU_OP_PAUSE;
	compute_expect_rejected(&f, DRM_COMPUTE_OP_CRIU_PAUSE, &bad, sizeof(bad), -EALREADY);
	expect_pause(&f, DRM_COMPUTE_CRIU_OP_RESUME, 0, 0);
	compute_close(&f);
}

/* DRM core's rule: without the capability -EPERM; not the owner -EACCES. */
static void test_access(void)
{
	struct compute_dev f;
	struct drm_compute_query_device d;

	compute_open_file(&cd, &f);
	/* The parent's ordinary ioctl makes it the owner. */
	igt_assert_eq(onenode_query_device(&f.dev, &d), 0);
	igt_fork(child, 1) {
		/* Neither the owner nor its tracer; the file stays the parent's. */
		igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), -EACCES);
	}
	igt_waitchildren();
	igt_fork(child, 1) {
		struct compute_dev own;

		compute_open_file(&cd, &own);
		igt_assert(compute_drop_cap(CAP_CHECKPOINT_RESTORE));
		igt_assert(compute_drop_cap(CAP_SYS_ADMIN));
		igt_assert_eq(pause_file(&own, DRM_COMPUTE_CRIU_OP_PAUSE, NULL), -EPERM);
		compute_close(&own);
	}
	igt_waitchildren();
	/* The refusals left the file with its owner, not paused. */
	expect_pause(&f, DRM_COMPUTE_CRIU_OP_PAUSE, 0, 0);
	expect_pause(&f, DRM_COMPUTE_CRIU_OP_RESUME, 0, 0);
	compute_close(&f);
}

/*
 * Threads of the owner churn queues (create, suspend, resume, destroy)
 * and export buffers (export, static import into vgem, close) while the
 * main thread pauses and resumes the file. Every answer must be one the
 * uapi gives in that race; no assertion runs in a thread. Afterwards the
 * file is not paused, a new queue runs, and nothing is left allocated.
 */
struct churn {
	struct compute_dev *f;
	uint32_t vm;
	int vgem;
	atomic_bool stop;
	atomic_uint bad;
	atomic_int first_bad;
	atomic_uint refused;
};

static void churn_bad(struct churn *c, int code)
{
	int zero = 0;

	atomic_fetch_add(&c->bad, 1);
	atomic_compare_exchange_strong(&c->first_bad, &zero, code);
}

static void *queue_churn(void *arg)
{
	struct churn *c = arg;
	const struct onenode_device *dev = &c->f->dev;
	const struct onenode_queue_params params = {
		.va = COMPUTE_QUEUE_VA(8), .priority = ONENODE_PRIORITY_DEFAULT,
	};

	while (!atomic_load(&c->stop)) {
		struct onenode_queue q;
		int ret;

		ret = onenode_queue_init(&q, dev, c->vm, &params);
		if (ret == -EBUSY) {
			atomic_fetch_add(&c->refused, 1);
			continue;
		}
		if (ret) {
			churn_bad(c, 1000 - ret);
			break;
		}
		ret = onenode_userq_control(&c->f->dev, q.id, DRM_COMPUTE_USERQ_OP_SUSPEND);
		if (ret && ret != -EINVAL)	/* -EINVAL: paused already */
			churn_bad(c, 2000 - ret);
		ret = onenode_userq_control(&c->f->dev, q.id, DRM_COMPUTE_USERQ_OP_RESUME);
		if (ret == -EBUSY || ret == -EINVAL)
			atomic_fetch_add(&c->refused, 1);
		else if (ret)
			churn_bad(c, 3000 - ret);
		onenode_queue_fini(&q);
	}
	return NULL;
}

static void *export_churn(void *arg)
{
	struct churn *c = arg;
	const struct onenode_device *dev = &c->f->dev;

	while (!atomic_load(&c->stop)) {
		uint32_t h = 0, imp = 0;
		int fd = -1, ret;

		ret = onenode_bo_create_export(dev, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM,
					       DRM_COMPUTE_BO_EXPORT_HOST_ONLY, &h);
		if (ret) {
			churn_bad(c, 4000 - ret);
			break;
		}
		if (drmPrimeHandleToFD(c->f->fd, h, DRM_CLOEXEC | DRM_RDWR, &fd)) {
			churn_bad(c, 5000 + errno);
		} else if (c->vgem >= 0) {
			if (!drmPrimeFDToHandle(c->vgem, fd, &imp))
				drmCloseBufferHandle(c->vgem, imp);
			else if (errno == EBUSY)
				atomic_fetch_add(&c->refused, 1);
			else
				churn_bad(c, 6000 + errno);
		}
		if (fd >= 0)
			close(fd);
		drmCloseBufferHandle(c->f->fd, h);
	}
	return NULL;
}

static void test_race(void)
{
	struct churn c = { .vgem = compute_open_vgem() };
	unsigned int n, paused = 0, busy = 0, other = 0, started = 0;
	int first_other = 0, ret;
	struct compute_dev f;
	pthread_t th[2];
	uint64_t used;
	int64_t pages;

	igt_assert_eq(compute_memory(&cd, &used, &pages), 0);
	compute_open_file(&cd, &f);
	c.f = &f;
	c.vm = compute_vm(&f);
	started += !pthread_create(&th[0], NULL, queue_churn, &c);
	started += !pthread_create(&th[1], NULL, export_churn, &c);
	for (n = 0; n < RACE_ROUNDS && started == 2; n++) {
		ret = pause_file(&f, DRM_COMPUTE_CRIU_OP_PAUSE, NULL);
		if (ret == -EBUSY) {	/* vgem held a buffer */
			busy++;
			continue;
		}
		if (ret) {
			if (!other++)
				first_other = ret;
			continue;
		}
		paused++;
		ret = pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME, NULL);
		if (ret && !other++)
			first_other = ret;
	}
	/* Stop and join before any assertion. */
	atomic_store(&c.stop, true);
	for (n = 0; n < started; n++)
		pthread_join(th[n], NULL);
	igt_assert_eq(started, 2);
	igt_assert_f(!other, "%u unexpected answers to pause/resume; the first: %d\n",
		     other, first_other);
	igt_assert_f(!atomic_load(&c.bad), "%u unexpected answers in the churn; the first: %d\n",
		     atomic_load(&c.bad), atomic_load(&c.first_bad));
	igt_info("%u pauses, %u refused for a pinned buffer; %u calls of the churn refused\n",
		 paused, busy, atomic_load(&c.refused));
	igt_assert_lt(0, paused);

	/* Not paused, and a queue runs. */
	igt_assert_eq(pause_file(&f, DRM_COMPUTE_CRIU_OP_RESUME, NULL), -EALREADY);
	{
		struct compute_queue q;

		compute_queue_init_at(&f, c.vm, COMPUTE_QUEUE_VA(0), &q);
		compute_check_alive(&q);
		compute_queue_fini(&q);
	}
	compute_vm_destroy(&f, c.vm);
	compute_close(&f);
	if (c.vgem >= 0)
		close(c.vgem);
	compute_assert_memory(&cd, used, pages, "after the race and every close");
}

igt_main
{
	char edu[PATH_MAX] = "";

	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		igt_require_f(geteuid() == 0, "root (CAP_CHECKPOINT_RESTORE)\n");
	}

	igt_describe("A running queue is suspended by the pause; the user "
		     "resumes no queue while paused; a queue its user suspended "
		     "stays suspended after the resume; no queue is created "
		     "while paused; work that becomes ready during the pause "
		     "waits for the resume.");
	igt_subtest("queues")
		test_queues();

	igt_describe("Exported buffers and their importers: a DMA-doing "
		     "dynamic importer is told at the pause and its writes are "
		     "refused until the resume, the bytes untouched; a file "
		     "closed while paused revokes its buffer, whose pages stay "
		     "while the importer holds it and go when it lets go; a "
		     "pinned buffer (a static importer, or an ordinary buffer "
		     "imported elsewhere) fails the pause with everything as "
		     "it was.");
	igt_subtest_with_dynamic("exports") {
		if (compute_find_edu(edu, sizeof(edu))) {
			igt_dynamic("dynamic-importer")
				test_dynamic_importer(edu);
			igt_dynamic("revoke-at-close")
				test_revoke_at_close(edu);
		} else {
			igt_info("no edu importer in this VM: dynamic importers not tried\n");
		}
		igt_dynamic("pinned")
			test_pinned(edu);
	}

	igt_describe("An unknown op, each flag bit, the out fields and each "
		     "reserved word: -EINVAL; a second pause and a resume of a "
		     "file not paused: -EALREADY; the argument unchanged.");
	igt_subtest("invalid")
		test_invalid();

	igt_describe("DRM core's checkpoint/restore rule: another process "
		     "that neither owns the file nor traces its owner gets "
		     "-EACCES, the owner without the capability -EPERM; "
		     "neither pauses the file.");
	igt_subtest("access")
		test_access();

	igt_describe("Threads create, suspend, resume and destroy queues and "
		     "export buffers to vgem while the file is paused and "
		     "resumed: only the answers the race allows; afterwards the "
		     "file runs and nothing is left allocated.");
	igt_subtest("race")
		test_race();

	igt_fixture
		compute_close(&cd);
}
