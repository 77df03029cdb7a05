// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_QUERY (struct drm_compute_query) on vcompute's
 * render node: the DEVICE and USERQ reports, the size protocol (0 asks for
 * the size, a shorter size gets the leading bytes, a longer one gets the
 * kernel's size back), rejection of bad input, the DRM core's handling of
 * shorter and longer argument structures, and concurrent queries while the
 * node is opened and closed.
 *
 * Facts of the DRM core this test relies on (drm_ioctl() in
 * drivers/gpu/drm/drm_ioctl.c, Linux 7.3):
 * - a driver ioctl whose number is past the driver's table fails with
 *   -EINVAL before anything is copied; a command of another ioctl type
 *   fails with -ENOTTY;
 * - the argument is copied in with the size encoded in the command, the
 *   rest of the kernel's structure is zeroed, and the copy-out uses the
 *   size encoded in the command;
 * - the copy-out happens whatever the handler returned, so a rejected
 *   argument comes back exactly as the handler left it: the DRM compute
 *   helpers reject before writing, so it must come back unchanged.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <xf86drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"
#include "onenode_igt.h"
#include "vcompute_drm.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_QUERY: the DEVICE and USERQ "
		     "reports and their consistency, the size protocol, "
		     "rejection of bad input, shorter and longer argument "
		     "structures, and concurrent queries while the render node "
		     "is opened and closed.");

#define RACE_CHILDREN 3
#define RACE_THREADS 4
#define RACE_SECONDS 2

#define CANARY 0xa5
#define BUF_MAX 65536

/* The query command encoded with an argument of @size bytes. */
static unsigned long query_request(size_t size);

static int raw_query(int fd, unsigned long request, void *arg)
{
	if (igt_ioctl(fd, request, arg))
		return -errno;
	return 0;
}

/*
 * State shared by fixtures and subtests lives in static storage: a failing
 * subtest leaves through siglongjmp().
 */
static struct compute_dev cd = { .fd = -1 };
static unsigned int compute_base;
static struct drm_compute_query_device ref_device;
static struct drm_compute_query_userq ref_userq;
static unsigned char buf[BUF_MAX + 64];
static unsigned long long saved_hang_timeout = ~0ull;

static unsigned long query_request(size_t size)
{
	unsigned long req = onenode_compute_request(compute_base, DRM_COMPUTE_OP_QUERY);

	return _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, _IOC_NR(req), size);
}

static int do_query(int fd, struct drm_compute_query *q)
{
	return raw_query(fd, query_request(sizeof(*q)), q);
}

/* A full report of @id into @out (@size bytes); the ioctl must succeed. */
static void query_full(int fd, uint32_t id, void *out, uint32_t size)
{
	struct drm_compute_query q = {
		.query = id,
		.size = size,
		.data = (uintptr_t)out,
	};

	memset(out, 0, size);
	igt_assert_eq(do_query(fd, &q), 0);
	igt_assert_eq_u32(q.size, size);
}

static size_t report_size(uint32_t id)
{
	return id == DRM_COMPUTE_QUERY_DEVICE ? sizeof(struct drm_compute_query_device) :
						sizeof(struct drm_compute_query_userq);
}

static const void *report_ref(uint32_t id)
{
	return id == DRM_COMPUTE_QUERY_DEVICE ? (const void *)&ref_device :
						(const void *)&ref_userq;
}

static bool have_userq(void)
{
	return ref_device.features & DRM_COMPUTE_FEATURE_USERQ;
}

/* Every rule of the uapi for a DEVICE report, whatever the device. */
static void check_device(const struct drm_compute_query_device *d)
{
	igt_assert_f((d->features & ~DRM_COMPUTE_FEATURES_KNOWN) == 0,
		     "unknown feature bits %#" PRIx64 "\n",
		     (uint64_t)(d->features & ~DRM_COMPUTE_FEATURES_KNOWN));
	igt_assert_lte_u64(d->vram_bar_size, d->vram_size);
	igt_assert_eq_u32(d->pad, 0);
	igt_assert_neq_u32(d->device_id, DRM_COMPUTE_SVM_LOCATION_SYSMEM);
	igt_assert_neq_u32(d->device_id, DRM_COMPUTE_SVM_LOCATION_UNDEFINED);
	igt_assert_eq_u32(d->pad2, 0);
	igt_assert_eq_u32(d->pad3, 0);
	/* Only documented differences; a device without SVM honours no SVM flag. */
	igt_assert_f(!(d->semantics & ~(DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS |
					DRM_COMPUTE_SEMANTICS_SHARED_VA |
					DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM |
					DRM_COMPUTE_SEMANTICS_QUEUE_BUFFER_RULES |
					DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT)),
		     "unknown semantics bits %#" PRIx64 "\n", (uint64_t)d->semantics);
	if (!(d->features & DRM_COMPUTE_FEATURE_SVM))
		igt_assert_eq_u32(d->svm_flags, 0);
	if (!(d->features & DRM_COMPUTE_FEATURE_USERQ)) {
		igt_assert_eq_u64(d->placements, 0);
		igt_assert_eq_u64(d->va_start, 0);
		igt_assert_eq_u64(d->va_end, 0);
		igt_assert_eq_u32(d->page_size, 0);
		return;
	}
	igt_assert_neq_u64(d->placements, 0);
	igt_assert_eq_u64(d->placements & ~(uint64_t)(DRM_COMPUTE_PLACEMENT_VRAM |
						      DRM_COMPUTE_PLACEMENT_SYSTEM), 0);
	if (d->placements & DRM_COMPUTE_PLACEMENT_VRAM)
		igt_assert_neq_u64(d->vram_size, 0);
	igt_assert_f(d->page_size >= 4096 && !(d->page_size & (d->page_size - 1)),
		     "page size %u\n", d->page_size);
	igt_assert_lt_u64(d->va_start, d->va_end);
	igt_assert_eq_u64((d->va_start | d->va_end) & (d->page_size - 1), 0);
}

static bool pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Every rule of the uapi for a USERQ report. */
static void check_userq(const struct drm_compute_query_userq *u)
{
	igt_assert_eq_u64(u->caps & ~(uint64_t)(DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP |
						DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY |
						DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY |
						DRM_COMPUTE_USERQ_CAP_CRIU), 0);
	igt_assert_lt_u32(0, u->max_queues);
	igt_assert_lt_u32(0, u->num_priorities);
	igt_assert_lte_u32(u->num_priorities, 16);
	igt_assert_lt_u32(u->priority_default, u->num_priorities);
	igt_assert_lt_u32(u->priority_default, u->priority_privileged);
	igt_assert_lte_u32(u->priority_privileged, u->num_priorities);
	igt_assert_lt_u32(0, u->num_cus);
	igt_assert_neq_u32(u->queue_formats, 0);
	igt_assert_eq_u32(u->queue_formats & ~((1u << DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE) |
					       (1u << DRM_COMPUTE_QUEUE_FORMAT_AMD_AQL) |
					       (1u << DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4)), 0);
	igt_assert_f(pow2(u->ring_size_min) && pow2(u->ring_size_max),
		     "ring sizes %" PRIu64 "..%" PRIu64 "\n",
		     (uint64_t)u->ring_size_min, (uint64_t)u->ring_size_max);
	igt_assert_lte_u64(u->ring_size_min, u->ring_size_max);
	igt_assert_lt_u32(0, u->doorbell_size);
	/* A doorbell without NEED_WAKEUP is 8 bytes, with it 16. */
	igt_assert_lte_u64(u->caps & DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP ? 16 : 8,
			   u->doorbell_size);
}

/* ---- the size protocol ---- */

/*
 * Query @id with @size bytes at a canary-filled buffer; check the bytes the
 * kernel may write (min(size, report)) and that nothing else changed.
 */
static void check_sized_report(uint32_t id, uint32_t size)
{
	size_t rsize = report_size(id), filled = size < rsize ? size : rsize;
	size_t total = (size > rsize ? size : rsize) + 64;
	const unsigned char *ref = report_ref(id);
	struct drm_compute_query q = {
		.query = id,
		.size = size,
		.data = (uintptr_t)buf,
	};

	igt_assert_lte_u64(total, sizeof(buf));
	memset(buf, CANARY, total);
	igt_assert_eq(do_query(cd.fd, &q), 0);
	igt_assert_eq_u32(q.size, size ? (uint32_t)filled : (uint32_t)rsize);
	igt_assert_eq_u32(q.query, id);
	igt_assert_eq_u64(q.data, (uintptr_t)buf);
	igt_assert_eq_u32(q.pad, 0);
	igt_assert_eq_u32(q.reserved, 0);
	for (size_t i = 0; i < total; i++) {
		unsigned int want = i < filled && size ? ref[i] : CANARY;

		igt_assert_f(buf[i] == want, "query %u size %u: byte %zu is %#x, want %#x\n",
			     id, size, i, buf[i], want);
	}
}

/* The argument must be rejected with @err, unchanged, the data untouched. */
static void expect_rejected(const struct drm_compute_query *q, int err)
{
	struct drm_compute_query arg = *q;

	igt_assert_eq(do_query(cd.fd, &arg), err);
	igt_assert_f(memcmp(&arg, q, sizeof(arg)) == 0, "a rejected argument was modified\n");
}

static void expect_rejected_untouched(struct drm_compute_query *q, int err)
{
	memset(buf, CANARY, 4096);
	q->data = (uintptr_t)buf;
	q->size = 4096;
	expect_rejected(q, err);
	for (size_t i = 0; i < 4096; i++)
		igt_assert_f(buf[i] == CANARY, "byte %zu of the data written on rejection\n", i);
}

/* ---- argument structure sizes ---- */

/* The command encoded with @argsize bytes, a zeroed argument except query/size. */
static void check_arg_size(size_t argsize, uint32_t size)
{
	static unsigned char arg[4096 + 64];
	struct drm_compute_query q = { .query = DRM_COMPUTE_QUERY_DEVICE, .size = size };
	size_t total = argsize + 64, head = argsize < sizeof(q) ? argsize : sizeof(q);

	igt_assert_lte_u64(total, sizeof(arg));
	if (size)
		q.data = (uintptr_t)buf;
	memset(buf, CANARY, sizeof(ref_device));
	memset(arg, CANARY, total);
	memset(arg, 0, argsize);
	memcpy(arg, &q, head);

	/* Only the data pointer can be cut off: without it, size must be 0. */
	if (size && argsize < offsetof(struct drm_compute_query, data) + 8) {
		igt_assert_eq(raw_query(cd.fd, query_request(argsize), arg), -EINVAL);
		igt_assert(memcmp(arg, &q, head) == 0);
		return;
	}
	igt_assert_eq(raw_query(cd.fd, query_request(argsize), arg), 0);
	memcpy(&q, arg, head);
	igt_assert_eq_u32(q.size, sizeof(ref_device));
	for (size_t i = head; i < total; i++)
		igt_assert_f(arg[i] == (i < argsize ? 0 : CANARY),
			     "argument byte %zu is %#x\n", i, arg[i]);
	if (size)
		igt_assert(memcmp(buf, &ref_device, sizeof(ref_device)) == 0);
}

/* ---- races ---- */

struct race {
	const char *path;
	int shared_fd;		/* -1: every thread opens its own */
	int stop;
};

struct race_worker {
	struct race *race;
	pthread_t thread;
	unsigned int index;
	unsigned long iterations;
	unsigned long failures;
	int last_error;
};

static bool race_stopped(const struct race *race)
{
	return __atomic_load_n(&race->stop, __ATOMIC_ACQUIRE);
}

/* One query: DEVICE, USERQ, or (on some iterations of odd workers) invalid. */
static bool race_query_ok(struct race_worker *w, int fd)
{
	union {
		struct drm_compute_query_device d;
		struct drm_compute_query_userq u;
	} out;
	struct drm_compute_query q, sent;
	unsigned int kind = w->iterations % 4;
	bool invalid = (w->index & 1) && kind == 3;
	uint32_t id = (kind & 1) && have_userq() ? DRM_COMPUTE_QUERY_USERQ :
						   DRM_COMPUTE_QUERY_DEVICE;
	int ret;

	memset(&out, 0, sizeof(out));
	memset(&q, 0, sizeof(q));
	q.query = id;
	q.size = report_size(id);
	q.data = (uintptr_t)&out;
	if (invalid) {
		if (w->iterations & 4)
			q.reserved = w->iterations | 1;
		else
			q.query = DRM_COMPUTE_QUERY_COUNT + (w->iterations & 0xff);
	}
	sent = q;
	ret = do_query(fd, &q);
	if (invalid)
		return ret == -EINVAL && memcmp(&q, &sent, sizeof(q)) == 0;
	if (ret)
		w->last_error = ret;
	return ret == 0 && q.size == report_size(id) &&
	       memcmp(&out, report_ref(id), report_size(id)) == 0;
}

static void *race_querier(void *arg)
{
	struct race_worker *w = arg;
	struct race *race = w->race;
	int fd = race->shared_fd;

	if (fd < 0)
		fd = open(race->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		w->last_error = -errno;
		w->failures++;
		return NULL;
	}
	while (!race_stopped(race)) {
		if (!race_query_ok(w, fd))
			w->failures++;
		w->iterations++;
	}
	if (fd != race->shared_fd)
		close(fd);
	return NULL;
}

/* Opens, queries and closes the node (and a dup of the shared fd) in a loop. */
static void *race_churner(void *arg)
{
	struct race_worker *w = arg;
	struct race *race = w->race;

	while (!race_stopped(race)) {
		int fd = open(race->path, O_RDWR | O_CLOEXEC);

		if (fd < 0) {
			w->last_error = -errno;
			w->failures++;
			break;
		}
		if (!race_query_ok(w, fd))
			w->failures++;
		close(fd);
		if (race->shared_fd >= 0) {
			fd = dup(race->shared_fd);
			if (fd < 0 || !race_query_ok(w, fd))
				w->failures++;
			if (fd >= 0)
				close(fd);
		}
		w->iterations++;
	}
	return NULL;
}

static void race_child(struct race *race, int child)
{
	struct race_worker workers[RACE_THREADS + 1];
	unsigned long total = 0, churns;

	memset(workers, 0, sizeof(workers));
	for (unsigned int i = 0; i <= RACE_THREADS; i++) {
		workers[i].race = race;
		workers[i].index = i;
		igt_assert_eq(pthread_create(&workers[i].thread, NULL,
					     i < RACE_THREADS ? race_querier : race_churner,
					     &workers[i]), 0);
	}
	compute_sleep_ms(RACE_SECONDS * 1000);
	__atomic_store_n(&race->stop, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i <= RACE_THREADS; i++)
		igt_assert_eq(pthread_join(workers[i].thread, NULL), 0);

	for (unsigned int i = 0; i <= RACE_THREADS; i++) {
		igt_assert_f(workers[i].failures == 0,
			     "child %d thread %u: %lu of %lu queries wrong (last error %d)\n",
			     child, i, workers[i].failures, workers[i].iterations,
			     workers[i].last_error);
		if (i < RACE_THREADS)
			total += workers[i].iterations;
	}
	churns = workers[RACE_THREADS].iterations;
	igt_info("child %d: %lu queries, %lu open/close rounds\n", child, total, churns);
	igt_assert(total > 0 && churns > 0);
}

static void run_race(int shared_fd)
{
	struct race race = {
		.path = cd.dev.path,
		.shared_fd = shared_fd,
	};

	igt_fork(child, RACE_CHILDREN)
		race_child(&race, child);
	igt_waitchildren();
}

static const struct {
	const char *name;
	uint32_t id;
} queries[] = {
	{ "device", DRM_COMPUTE_QUERY_DEVICE },
	{ "userq", DRM_COMPUTE_QUERY_USERQ },
};

/* The sysfs device of a DRM node, for comparing nodes. */
static bool node_device(dev_t rdev, char *out)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major(rdev), minor(rdev));
	return realpath(link, out);
}

static bool same_device(int fd, void *arg)
{
	char real[PATH_MAX];
	struct stat st;

	return !fstat(fd, &st) && node_device(st.st_rdev, real) && !strcmp(real, arg);
}

/*
 * DRM_AUTH on every compute operation but the read-only QUERY: a client of
 * the primary node that the master has not authenticated gets -EACCES
 * (before, it could allocate and run work), then, authenticated, reaches
 * the operation itself. DRM core counts a CAP_SYS_ADMIN opener as
 * authenticated, so the client is a child without it.
 */
static void test_primary_auth(void)
{
	char dev[PATH_MAX], path[64];
	int master, to_parent[2], to_child[2];
	drm_magic_t magic;
	struct stat st;
	char ok;

	igt_assert(node_device(cd.dev.rdev, dev));
	master = compute_open_card(same_device, dev);
	igt_require_f(master >= 0, "a primary node of %s\n", dev);
	igt_require_f(drmIsMaster(master), "no other DRM master on the device\n");
	igt_assert_eq(fstat(master, &st), 0);
	snprintf(path, sizeof(path), "/dev/dri/card%u", minor(st.st_rdev));
	igt_assert_eq(pipe(to_parent), 0);
	igt_assert_eq(pipe(to_child), 0);

	igt_fork(child, 1) {
		struct drm_compute_query_device d;
		unsigned char buf[256];
		int client;

		igt_assert(compute_drop_cap(CAP_SYS_ADMIN));
		client = open(path, O_RDWR | O_CLOEXEC);
		igt_assert_lte(0, client);
		igt_assert(!drmIsMaster(client));
		query_full(client, DRM_COMPUTE_QUERY_DEVICE, &d, sizeof(d));
		for (unsigned int op = DRM_COMPUTE_OP_BO_CREATE; op <= DRM_COMPUTE_OP_P2P_REPORT;
		     op++) {
			memset(buf, 0, sizeof(buf));
			igt_assert_f(ioctl(client, onenode_compute_request(compute_base, op),
					   buf) == -1 && errno == EACCES,
				     "op %#x from an unauthenticated primary client: %s\n", op,
				     strerror(errno));
		}
		igt_assert_eq(drmGetMagic(client, &magic), 0);
		igt_assert_eq(write(to_parent[1], &magic, sizeof(magic)), (int)sizeof(magic));
		igt_assert_eq(read(to_child[0], &ok, 1), 1);
		/* Authenticated: BO_CREATE now looks at its (zero, invalid) size. */
		memset(buf, 0, sizeof(buf));
		igt_assert_eq(ioctl(client, onenode_compute_request(compute_base,
								     DRM_COMPUTE_OP_BO_CREATE),
				    buf), -1);
		igt_assert_eq(errno, EINVAL);
		close(client);
	}
	igt_assert_eq(read(to_parent[0], &magic, sizeof(magic)), (int)sizeof(magic));
	igt_assert_eq(drmAuthMagic(master, magic), 0);
	igt_assert_eq(write(to_child[1], "y", 1), 1);
	igt_waitchildren();
	close(to_parent[0]);
	close(to_parent[1]);
	close(to_child[0]);
	close(to_child[1]);
	close(master);
}

igt_main
{
	igt_fixture {
		int ret;

		compute_open(&cd);
		ret = onenode_compute_base(cd.dev.driver, &compute_base);
		igt_assert_eq(ret, 0);
		igt_info("vcompute render node: %s\n", cd.dev.path);
		query_full(cd.fd, DRM_COMPUTE_QUERY_DEVICE, &ref_device, sizeof(ref_device));
		if (have_userq())
			query_full(cd.fd, DRM_COMPUTE_QUERY_USERQ, &ref_userq, sizeof(ref_userq));
	}

	igt_describe("The DEVICE report obeys the uapi: only known feature "
		     "bits, a BAR within VRAM, a zero pad, and placements, a "
		     "page-aligned VA range and a power-of-two page size exactly "
		     "when USERQ is reported.");
	igt_subtest("basic-device") {
		struct drm_compute_query_device d;

		query_full(cd.fd, DRM_COMPUTE_QUERY_DEVICE, &d, sizeof(d));
		igt_info("features %#" PRIx64 " vram %" PRIu64 " bar %" PRIu64
			 " placements %#" PRIx64 " va %#" PRIx64 "-%#" PRIx64 " page %u\n",
			 (uint64_t)d.features, (uint64_t)d.vram_size,
			 (uint64_t)d.vram_bar_size, (uint64_t)d.placements,
			 (uint64_t)d.va_start, (uint64_t)d.va_end, d.page_size);
		check_device(&d);
	}

	igt_describe("The USERQ report is answered exactly when the DEVICE "
		     "report has DRM_COMPUTE_FEATURE_USERQ (-EOPNOTSUPP "
		     "otherwise) and its limits are consistent: priorities, "
		     "formats, ring sizes, doorbell size.");
	igt_subtest("basic-userq") {
		struct drm_compute_query_userq u;
		struct drm_compute_query q = {
			.query = DRM_COMPUTE_QUERY_USERQ,
			.size = sizeof(u),
			.data = (uintptr_t)&u,
		};

		memset(&u, 0, sizeof(u));
		if (!have_userq()) {
			igt_assert_eq(do_query(cd.fd, &q), -EOPNOTSUPP);
		} else {
			igt_assert_eq(do_query(cd.fd, &q), 0);
			igt_assert_eq_u32(q.size, sizeof(u));
			igt_info("caps %#" PRIx64 " queues %u prios %u/%u/%u cus %u formats %#x "
				 "ring %" PRIu64 "..%" PRIu64 " ctx %" PRIu64 " doorbell %u hang %u ms\n",
				 (uint64_t)u.caps, u.max_queues, u.num_priorities,
				 u.priority_default, u.priority_privileged, u.num_cus,
				 u.queue_formats, (uint64_t)u.ring_size_min,
				 (uint64_t)u.ring_size_max, (uint64_t)u.ctx_save_size,
				 u.doorbell_size, u.hang_timeout_ms);
			check_userq(&u);
		}
	}

	igt_describe("vcompute's reports match its documented device and its "
		     "module parameters (vram_mib, num_cus, hang_timeout_ms): "
		     "VA range [64 KiB, 2^47), 4 KiB pages, 64 queues, 16 "
		     "priorities (default 7, privileged from 12), rings of 4 KiB "
		     "to 4 MiB, a 4 KiB context save area and doorbell page, "
		     "NEED_WAKEUP.");
	igt_subtest("vcompute-report") {
		unsigned long long mib, cus, hang;
		const struct drm_compute_query_device *d = &ref_device;
		const struct drm_compute_query_userq *u = &ref_userq;

		igt_require(have_userq());
		igt_require_f(compute_read_param("vcompute", "vram_mib", &mib) == 0 &&
			      compute_read_param("vcompute", "num_cus", &cus) == 0,
			      "no vcompute module parameters in sysfs\n");
		igt_assert_eq_u64(d->features & DRM_COMPUTE_FEATURE_USERQ,
				  DRM_COMPUTE_FEATURE_USERQ);
		igt_assert_eq_u64(d->vram_size, mib << 20);
		igt_assert_eq_u64(d->vram_bar_size, 0);
		igt_assert_eq_u64(d->placements, DRM_COMPUTE_PLACEMENT_VRAM |
						 DRM_COMPUTE_PLACEMENT_SYSTEM);
		igt_assert_eq_u64(d->va_start, 64 << 10);
		igt_assert_eq_u64(d->va_end, 1ull << 47);
		igt_assert_eq_u32(d->page_size, 4096);
		igt_assert_eq_u64(u->caps, DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP |
					   DRM_COMPUTE_USERQ_CAP_CRIU);
		igt_assert_eq_u32(u->max_queues, 64);
		igt_assert_eq_u32(u->num_priorities, 16);
		igt_assert_eq_u32(u->priority_default, 7);
		igt_assert_eq_u32(u->priority_privileged, 12);
		igt_assert_eq_u32(u->num_cus, cus);
		igt_assert_eq_u32(u->queue_formats, 1u << DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE);
		igt_assert_eq_u64(u->ring_size_min, 4096);
		igt_assert_eq_u64(u->ring_size_max, 4u << 20);
		igt_assert_eq_u64(u->ctx_save_size, 4096);
		igt_assert_eq_u32(u->doorbell_size, 4096);
		if (compute_read_param("drm_compute_helper", "hang_timeout_ms", &hang) == 0)
			igt_assert_eq_u32(u->hang_timeout_ms, hang);
	}

	igt_describe("hang_timeout_ms in the USERQ report is read when the query "
		     "runs: it follows the drm_compute_helper module parameter "
		     "(changed and restored).");
	igt_subtest("hang-timeout-live") {
		struct drm_compute_query_userq u;
		static const unsigned long long values[] = { 1234, 0, 10000 };

		igt_require(have_userq());
		igt_require(compute_read_param("drm_compute_helper", "hang_timeout_ms",
					       &saved_hang_timeout) == 0);
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(values); i++) {
			igt_assert_eq(compute_write_param("drm_compute_helper",
							  "hang_timeout_ms", values[i]), 0);
			query_full(cd.fd, DRM_COMPUTE_QUERY_USERQ, &u, sizeof(u));
			igt_assert_eq_u32(u.hang_timeout_ms, values[i]);
		}
		igt_assert_eq(compute_write_param("drm_compute_helper", "hang_timeout_ms",
						  saved_hang_timeout), 0);
		saved_hang_timeout = ~0ull;
	}

	igt_describe("Size 0 asks for the size: the kernel sets size to its "
		     "report's size and writes nothing at data, whatever data is "
		     "(a buffer, NULL, or an unmapped address).");
	igt_subtest_with_dynamic("size-zero") {
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(queries); i++) {
			if (queries[i].id == DRM_COMPUTE_QUERY_USERQ && !have_userq())
				continue;
			igt_dynamic_f("%s", queries[i].name) {
				static const uint64_t ptrs[] = { 0, 0x10 };
				struct drm_compute_query q;

				check_sized_report(queries[i].id, 0);
				for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(ptrs); p++) {
					memset(&q, 0, sizeof(q));
					q.query = queries[i].id;
					q.data = ptrs[p];
					igt_assert_eq(do_query(cd.fd, &q), 0);
					igt_assert_eq_u32(q.size, report_size(queries[i].id));
					igt_assert_eq_u64(q.data, ptrs[p]);
				}
			}
		}
	}

	igt_describe("A size shorter than the report (older userspace) gets "
		     "exactly the leading bytes, size comes back unchanged, and "
		     "nothing past them is written.");
	igt_subtest_with_dynamic("size-short") {
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(queries); i++) {
			uint32_t rsize = report_size(queries[i].id);

			if (queries[i].id == DRM_COMPUTE_QUERY_USERQ && !have_userq())
				continue;
			igt_dynamic_f("%s", queries[i].name) {
				for (uint32_t size = 1; size < rsize; size++)
					check_sized_report(queries[i].id, size);
			}
		}
	}

	igt_describe("A size longer than the report (newer userspace) gets the "
		     "whole report, the kernel's size back in size, and nothing "
		     "written past the report.");
	igt_subtest_with_dynamic("size-long") {
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(queries); i++) {
			uint32_t rsize = report_size(queries[i].id);
			const uint32_t sizes[] = { rsize, rsize + 1, rsize + 8, 4096, BUF_MAX };

			if (queries[i].id == DRM_COMPUTE_QUERY_USERQ && !have_userq())
				continue;
			igt_dynamic_f("%s", queries[i].name) {
				for (unsigned int s = 0; s < COMPUTE_ARRAY_SIZE(sizes); s++)
					check_sized_report(queries[i].id, sizes[s]);
			}
		}
	}

	igt_describe("The reports are identical across repeated queries, several "
		     "open files of the node and a reopen.");
	igt_subtest("stable") {
		struct drm_compute_query_device d;
		struct drm_compute_query_userq u;
		int fds[3];

		for (unsigned int i = 0; i < 3; i++) {
			fds[i] = open(cd.dev.path, O_RDWR | O_CLOEXEC);
			igt_assert_fd(fds[i]);
		}
		for (unsigned int round = 0; round < 8; round++) {
			for (unsigned int i = 0; i < 3; i++) {
				query_full(fds[i], DRM_COMPUTE_QUERY_DEVICE, &d, sizeof(d));
				igt_assert(memcmp(&d, &ref_device, sizeof(d)) == 0);
				if (!have_userq())
					continue;
				query_full(fds[i], DRM_COMPUTE_QUERY_USERQ, &u, sizeof(u));
				igt_assert(memcmp(&u, &ref_userq, sizeof(u)) == 0);
			}
		}
		for (unsigned int i = 0; i < 3; i++)
			igt_assert_eq(close(fds[i]), 0);
		fds[0] = open(cd.dev.path, O_RDWR | O_CLOEXEC);
		igt_assert_fd(fds[0]);
		query_full(fds[0], DRM_COMPUTE_QUERY_DEVICE, &d, sizeof(d));
		igt_assert(memcmp(&d, &ref_device, sizeof(d)) == 0);
		igt_assert_eq(close(fds[0]), 0);
	}

	igt_describe("An unknown query id is rejected with -EINVAL, with size 0 "
		     "and with a buffer; the argument comes back unchanged and the "
		     "buffer untouched.");
	igt_subtest("unknown-query") {
		static const uint32_t ids[] = {
			DRM_COMPUTE_QUERY_COUNT, DRM_COMPUTE_QUERY_COUNT + 1,
			0x7fffffff, 0x80000000, 0xffffffff,
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ids); i++) {
			struct drm_compute_query q = { .query = ids[i] };

			expect_rejected(&q, -EINVAL);
			expect_rejected_untouched(&q, -EINVAL);
		}
	}

	igt_describe("A non-zero pad or reserved field is rejected with -EINVAL "
		     "for every query; the argument comes back unchanged, the "
		     "buffer untouched, and a valid query still works.");
	igt_subtest_with_dynamic("invalid-fields") {
		static const struct {
			const char *name;
			size_t offset;
		} fields[] = {
			{ "pad", offsetof(struct drm_compute_query, pad) },
			{ "reserved", offsetof(struct drm_compute_query, reserved) },
		};
		static const uint32_t values[] = { 1, 0x80000000, 0xffffffff, 0x5a5a5a5a };

		for (unsigned int f = 0; f < COMPUTE_ARRAY_SIZE(fields); f++) {
			igt_dynamic_f("%s", fields[f].name) {
				for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(queries); i++) {
					for (unsigned int v = 0; v < COMPUTE_ARRAY_SIZE(values); v++) {
						struct drm_compute_query q = { .query = queries[i].id };

						memcpy((char *)&q + fields[f].offset, &values[v], 4);
						expect_rejected(&q, -EINVAL);
						expect_rejected_untouched(&q, -EINVAL);
					}
				}
				check_sized_report(DRM_COMPUTE_QUERY_DEVICE, sizeof(ref_device));
			}
		}
	}

	igt_describe("A zero data pointer with a non-zero size is rejected with "
		     "-EINVAL and the argument comes back unchanged.");
	igt_subtest("null-data") {
		static const uint32_t sizes[] = { 1, 8, sizeof(struct drm_compute_query_device),
						  0xffffffff };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(queries); i++) {
			for (unsigned int s = 0; s < COMPUTE_ARRAY_SIZE(sizes); s++) {
				struct drm_compute_query q = {
					.query = queries[i].id,
					.size = sizes[s],
				};

				expect_rejected(&q, -EINVAL);
			}
		}
	}

	igt_describe("A report the kernel cannot write fails with -EFAULT and "
		     "the argument comes back unchanged: a read-only page, an "
		     "unmapped page, a buffer whose end runs into an unmapped "
		     "page; a NULL argument pointer fails with -EFAULT too.");
	igt_subtest_with_dynamic("bad-pointer") {
		long page = sysconf(_SC_PAGESIZE);

		igt_dynamic("null-argument")
			igt_assert_eq(raw_query(cd.fd, query_request(sizeof(struct drm_compute_query)),
						NULL), -EFAULT);
		igt_dynamic("read-only") {
			void *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			struct drm_compute_query q = {
				.query = DRM_COMPUTE_QUERY_DEVICE,
				.size = sizeof(ref_device),
				.data = (uintptr_t)ro,
			};

			igt_assert(ro != MAP_FAILED);
			expect_rejected(&q, -EFAULT);
			munmap(ro, page);
		}
		igt_dynamic("unmapped") {
			char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			struct drm_compute_query q = {
				.query = DRM_COMPUTE_QUERY_DEVICE,
				.size = sizeof(ref_device),
			};

			igt_assert(p != MAP_FAILED);
			munmap(p + page, page);
			q.data = (uintptr_t)(p + page);
			expect_rejected(&q, -EFAULT);
			/* The report starts on the mapped page and runs off it. */
			q.data = (uintptr_t)(p + page - 8);
			expect_rejected(&q, -EFAULT);
			munmap(p, page);
		}
	}

	igt_describe("Operations past the compute uapi's (the reserved range up to "
		     "DRM_COMPUTE_OP_MAX, the last driver number) fail with -EINVAL "
		     "and a command of another ioctl type with -ENOTTY; the "
		     "argument is left untouched.");
	igt_subtest_with_dynamic("unknown-ioctl") {
		unsigned int nr = DRM_COMMAND_BASE + compute_base;
		struct {
			char name[32];
			unsigned long request;
			int err;
		} cases[] = {
			{ "op-count", DRM_IOWR(nr + DRM_COMPUTE_OP_COUNT, struct drm_compute_query),
			  -EINVAL },
			{ "op-max", DRM_IOWR(nr + DRM_COMPUTE_OP_MAX - 1, struct drm_compute_query),
			  -EINVAL },
			{ "last-driver-nr", DRM_IOWR(DRM_COMMAND_END - 1, struct drm_compute_query),
			  -EINVAL },
			{ "foreign-type", _IOWR('e', nr, struct drm_compute_query), -ENOTTY },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				struct drm_compute_query q = {
					.query = DRM_COMPUTE_QUERY_DEVICE,
					.size = sizeof(ref_device),
					.data = (uintptr_t)buf,
				}, sent = q;

				memset(buf, CANARY, sizeof(ref_device));
				igt_assert_eq(raw_query(cd.fd, cases[i].request, &q), cases[i].err);
				igt_assert(memcmp(&q, &sent, sizeof(q)) == 0);
				for (size_t b = 0; b < sizeof(ref_device); b++)
					igt_assert_eq(buf[b], CANARY);
			}
		}
	}

	igt_describe("Older userspace with a shorter argument structure: the "
		     "command encoded with 16 bytes (no pad, reserved) works, with "
		     "8 bytes (no data pointer) it answers the size and rejects a "
		     "non-zero size; nothing past the argument is written.");
	igt_subtest_with_dynamic("old-userspace") {
		static const size_t sizes[] = { 8, 16, 20 };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(sizes); i++) {
			igt_dynamic_f("arg-%zu", sizes[i]) {
				check_arg_size(sizes[i], 0);
				check_arg_size(sizes[i], sizeof(ref_device));
			}
		}
	}

	igt_describe("Newer userspace with a longer, zero-extended argument "
		     "structure: the query works and the extension comes back "
		     "zero (above 128 bytes the DRM core allocates).");
	igt_subtest_with_dynamic("new-userspace") {
		static const size_t sizes[] = { 32, 128, 136, 4096 };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(sizes); i++) {
			igt_dynamic_f("arg-%zu", sizes[i]) {
				check_arg_size(sizes[i], 0);
				check_arg_size(sizes[i], sizeof(ref_device));
			}
		}
	}

	igt_describe("Processes and threads query DEVICE and USERQ through one "
		     "shared open file (invalid queries mixed in) while another "
		     "thread opens, dups and closes the node; every result equals "
		     "the reference report or is the expected -EINVAL.");
	igt_subtest("race-shared-fd")
		run_race(cd.fd);

	igt_describe("As race-shared-fd, but every querying thread uses its own "
		     "open file.");
	igt_subtest("race-separate-fds")
		run_race(-1);

	igt_describe("An unauthenticated client of the primary node may QUERY, "
		     "and gets -EACCES from every other compute operation until "
		     "the master authenticates it (DRM_AUTH).");
	igt_subtest("primary-node-auth")
		test_primary_auth();

	igt_fixture {
		if (saved_hang_timeout != ~0ull)
			compute_write_param("drm_compute_helper", "hang_timeout_ms",
					    saved_hang_timeout);
		compute_close(&cd);
	}
}
