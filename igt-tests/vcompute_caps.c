// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_IOCTL_VCOMPUTE_CAPS, the capability query of the DRM
 * compute uapi (struct drm_compute_caps) on vcompute's render node.
 *
 * Facts of the DRM core this test relies on (drm_ioctl() in
 * drivers/gpu/drm/drm_ioctl.c, Linux 7.3):
 * - a driver ioctl whose number is past the driver's table fails with
 *   -EINVAL before anything is copied; a command of another ioctl type
 *   fails with -ENOTTY;
 * - the argument is copied in with the size encoded in the command, the
 *   rest of the kernel's structure is zeroed, and the copy-out uses the
 *   size encoded in the command: a shorter structure from older userspace
 *   works, and nothing past its end is read or written;
 * - the copy-out happens whatever the handler returned, so a rejected
 *   argument comes back exactly as the handler left it. The DRM compute
 *   helpers reject before writing anything, so a rejected argument must
 *   come back byte for byte as it went in.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "onenode_igt.h"
#include "vcompute_drm.h"

IGT_TEST_DESCRIPTION("Checks DRM_IOCTL_VCOMPUTE_CAPS: the capability report, "
		     "rejection of non-zero input, the DRM core's handling of "
		     "shorter and longer argument structures, and concurrent "
		     "queries while the render node is opened and closed.");

#define CAPS_NR (DRM_COMMAND_BASE + DRM_VCOMPUTE_CAPS)
/* The CAPS command encoded with an argument of @size bytes. */
#define CAPS_IOCTL_SIZED(size) \
	_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, CAPS_NR, (size))

#define RACE_CHILDREN 3
#define RACE_THREADS 4
#define RACE_SECONDS 2

static int caps_ioctl(int fd, unsigned long request, void *arg)
{
	if (igt_ioctl(fd, request, arg))
		return -errno;
	return 0;
}

static void query(int fd, struct drm_compute_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	igt_assert_eq(caps_ioctl(fd, DRM_IOCTL_VCOMPUTE_CAPS, caps), 0);
}

/* Every rule the uapi states for a report, whatever the device. */
static void check_report(const struct drm_compute_caps *caps)
{
	igt_assert_eq_u32(caps->flags, 0);
	igt_assert_eq_u32(caps->version, DRM_COMPUTE_CAPS_VERSION);
	igt_assert_f((caps->features & ~DRM_COMPUTE_FEATURES_KNOWN) == 0,
		     "unknown feature bits %#llx\n",
		     (unsigned long long)(caps->features & ~DRM_COMPUTE_FEATURES_KNOWN));
	igt_assert_lte_u64(caps->vram_bar_size, caps->vram_size);
	if (caps->features & DRM_COMPUTE_FEATURE_USERQ) {
		igt_assert_lt_u32(0, caps->max_queues);
		igt_assert_lt_u32(0, caps->num_priorities);
	} else {
		igt_assert_eq_u32(caps->max_queues, 0);
		igt_assert_eq_u32(caps->num_priorities, 0);
	}
	for (unsigned int i = 0; i < sizeof(caps->reserved) / sizeof(caps->reserved[0]); i++)
		igt_assert_f(caps->reserved[i] == 0, "reserved[%u] = %#llx\n", i,
			     (unsigned long long)caps->reserved[i]);
}

static void check_same(const struct drm_compute_caps *a,
		       const struct drm_compute_caps *b)
{
	igt_assert_eq_u32(a->version, b->version);
	igt_assert_eq_u64(a->features, b->features);
	igt_assert_eq_u64(a->vram_size, b->vram_size);
	igt_assert_eq_u64(a->vram_bar_size, b->vram_bar_size);
	igt_assert_eq_u32(a->max_queues, b->max_queues);
	igt_assert_eq_u32(a->num_priorities, b->num_priorities);
	igt_assert(memcmp(a, b, sizeof(*a)) == 0);
}

/* ---- input fields ---- */

struct caps_field {
	char name[32];
	size_t offset, size;
};

#define FIELD(n, member) { n, offsetof(struct drm_compute_caps, member), \
			   sizeof(((struct drm_compute_caps *)0)->member) }

static const struct caps_field named_fields[] = {
	FIELD("flags", flags),
	FIELD("version", version),
	FIELD("features", features),
	FIELD("vram-size", vram_size),
	FIELD("vram-bar-size", vram_bar_size),
	FIELD("max-queues", max_queues),
	FIELD("num-priorities", num_priorities),
};

#define NUM_RESERVED (sizeof(((struct drm_compute_caps *)0)->reserved) / sizeof(__u64))

static void set_field(struct drm_compute_caps *caps, const struct caps_field *f,
		      uint64_t value)
{
	char *p = (char *)caps + f->offset;

	if (f->size == sizeof(uint32_t)) {
		uint32_t v = (uint32_t)value;

		memcpy(p, &v, sizeof(v));
	} else {
		memcpy(p, &value, sizeof(value));
	}
}

/* The ioctl must fail with -EINVAL and hand @caps back unchanged. */
static void expect_rejected(int fd, const struct drm_compute_caps *caps)
{
	struct drm_compute_caps arg = *caps;

	igt_assert_eq(caps_ioctl(fd, DRM_IOCTL_VCOMPUTE_CAPS, &arg), -EINVAL);
	igt_assert_f(memcmp(&arg, caps, sizeof(arg)) == 0,
		     "a rejected argument was modified\n");
}

static void check_field_rejected(int fd, const struct caps_field *f,
				 const struct drm_compute_caps *ref)
{
	const uint64_t top = 1ull << (8 * f->size - 1);
	const uint64_t values[] = { 1, top, ~0ull, 0x5a5a5a5a5a5a5a5aull };
	struct drm_compute_caps caps, after;

	for (unsigned int i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		memset(&caps, 0, sizeof(caps));
		set_field(&caps, f, values[i]);
		igt_debug("%s = %#llx\n", f->name, (unsigned long long)values[i]);
		expect_rejected(fd, &caps);
	}
	/* A rejected call leaves no state behind. */
	query(fd, &after);
	check_same(&after, ref);
}

/* ---- argument sizes ---- */

#define CANARY 0xa5

/*
 * Issue the query with an argument of @size bytes placed in a larger
 * buffer filled with a canary, and check that the kernel filled exactly
 * the first @size bytes of the full report and nothing else.
 */
#define SIZED_MAX 4096

static void check_sized_query(int fd, size_t size, const struct drm_compute_caps *ref)
{
	/* Static: a failed assertion leaves by longjmp and leaks nothing. */
	static unsigned char buf[SIZED_MAX + 64];
	size_t total = (size > sizeof(*ref) ? size : sizeof(*ref)) + 64;
	unsigned char expect[sizeof(*ref)];

	igt_assert_lte_u64(size, SIZED_MAX);
	memset(buf, CANARY, total);
	memset(buf, 0, size);
	memcpy(expect, ref, sizeof(expect));

	igt_assert_eq(caps_ioctl(fd, CAPS_IOCTL_SIZED(size), buf), 0);

	for (size_t i = 0; i < total; i++) {
		unsigned int want;

		if (i < size)
			want = i < sizeof(expect) ? expect[i] : 0;
		else
			want = CANARY;
		igt_assert_f(buf[i] == want,
			     "size %zu: byte %zu is %#x, expected %#x\n",
			     size, i, buf[i], want);
	}
}

/* ---- races ---- */

struct race {
	const char *path;		/* the render node */
	int shared_fd;			/* -1: every thread opens its own */
	struct drm_compute_caps ref;
	int stop;
};

struct race_worker {
	struct race *race;
	pthread_t thread;
	unsigned int index;
	unsigned long iterations;
	unsigned long failures;		/* wrong results or unexpected errors */
	int last_error;
};

static bool race_stopped(const struct race *race)
{
	return __atomic_load_n(&race->stop, __ATOMIC_ACQUIRE);
}

/* One query, valid or (on odd iterations of odd workers) invalid. */
static bool race_query_ok(struct race_worker *w, int fd)
{
	struct drm_compute_caps caps, sent;
	bool invalid = (w->index & 1) && (w->iterations & 1);
	int ret;

	memset(&caps, 0, sizeof(caps));
	if (invalid)
		caps.reserved[w->iterations % NUM_RESERVED] = w->iterations | 1;
	sent = caps;

	ret = caps_ioctl(fd, DRM_IOCTL_VCOMPUTE_CAPS, &caps);
	if (invalid)
		return ret == -EINVAL && memcmp(&caps, &sent, sizeof(caps)) == 0;
	if (ret)
		w->last_error = ret;
	return ret == 0 && memcmp(&caps, &w->race->ref, sizeof(caps)) == 0;
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

/* Opens and closes the node (and a dup of the shared fd) in a loop. */
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

/* Runs in each child: RACE_THREADS queriers and one churner. */
static void race_child(struct race *race, int child)
{
	struct race_worker workers[RACE_THREADS + 1];
	struct timespec duration = { .tv_sec = RACE_SECONDS };
	unsigned long total = 0, churns;

	memset(workers, 0, sizeof(workers));
	for (unsigned int i = 0; i <= RACE_THREADS; i++) {
		workers[i].race = race;
		workers[i].index = i;
		igt_assert_eq(pthread_create(&workers[i].thread, NULL,
					     i < RACE_THREADS ? race_querier : race_churner,
					     &workers[i]), 0);
	}
	nanosleep(&duration, NULL);
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

static void run_race(const char *path, int shared_fd,
		     const struct drm_compute_caps *ref)
{
	struct race race = {
		.path = path,
		.shared_fd = shared_fd,
		.ref = *ref,
	};

	igt_fork(child, RACE_CHILDREN)
		race_child(&race, child);
	igt_waitchildren();
}

/* ---- helpers on the module ---- */

static int read_module_param(const char *module, const char *param,
			     unsigned long long *value)
{
	char path[256];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, param);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu", value);
	fclose(f);
	return n == 1 ? 0 : -EINVAL;
}

/*
 * State shared by fixtures and subtests lives in static storage: a failing
 * subtest leaves through siglongjmp(), after which locals modified since
 * the jump buffer was set would be indeterminate.
 */
static struct drm_compute_caps ref;
static char *path;
static int fd = -1;

igt_main
{

	igt_fixture {
		fd = onenode_open_render("vcompute");
		path = drmGetDeviceNameFromFd2(fd);
		igt_assert(path);
		igt_info("vcompute render node: %s\n", path);
		query(fd, &ref);
	}

	igt_describe("A query on a zeroed argument succeeds and reports layout "
		     "version DRM_COMPUTE_CAPS_VERSION, only known feature bits, "
		     "zero reserved fields, a BAR size within the VRAM size and "
		     "queue limits consistent with the USERQ feature bit.");
	igt_subtest("basic") {
		struct drm_compute_caps caps;

		query(fd, &caps);
		igt_info("version %u features %#llx vram %llu bar %llu queues %u prios %u\n",
			 caps.version, (unsigned long long)caps.features,
			 (unsigned long long)caps.vram_size,
			 (unsigned long long)caps.vram_bar_size,
			 caps.max_queues, caps.num_priorities);
		check_report(&caps);
	}

	igt_describe("The reported VRAM size is the one set by vcompute's "
		     "vram_mib module parameter.");
	igt_subtest("vram-size-module-param") {
		unsigned long long mib;
		struct drm_compute_caps caps;

		igt_require_f(read_module_param("vcompute", "vram_mib", &mib) == 0,
			      "no /sys/module/vcompute/parameters/vram_mib\n");
		query(fd, &caps);
		igt_assert_eq_u64(caps.vram_size, mib << 20);
	}

	igt_describe("The report is the same for repeated queries, on several "
		     "open files of the node and after reopening it.");
	igt_subtest("stable") {
		int fds[3];
		struct drm_compute_caps caps;

		for (unsigned int i = 0; i < 3; i++) {
			fds[i] = open(path, O_RDWR | O_CLOEXEC);
			igt_assert_fd(fds[i]);
		}
		for (unsigned int round = 0; round < 8; round++) {
			for (unsigned int i = 0; i < 3; i++) {
				query(fds[i], &caps);
				check_same(&caps, &ref);
			}
			query(fd, &caps);
			check_same(&caps, &ref);
		}
		for (unsigned int i = 0; i < 3; i++)
			igt_assert_eq(close(fds[i]), 0);

		fds[0] = open(path, O_RDWR | O_CLOEXEC);
		igt_assert_fd(fds[0]);
		query(fds[0], &caps);
		check_same(&caps, &ref);
		igt_assert_eq(close(fds[0]), 0);
	}

	igt_describe("Every bit of flags is rejected with -EINVAL: no input flag "
		     "is defined, and the argument comes back unchanged.");
	igt_subtest("invalid-flags") {
		struct drm_compute_caps caps, after;

		for (unsigned int bit = 0; bit < 32; bit++) {
			memset(&caps, 0, sizeof(caps));
			caps.flags = 1u << bit;
			expect_rejected(fd, &caps);
		}
		query(fd, &after);
		check_same(&after, &ref);
	}

	igt_describe("A non-zero value in any field on input, out fields and "
		     "reserved words included, is rejected with -EINVAL; the "
		     "argument comes back unchanged and a valid query still works.");
	igt_subtest_with_dynamic("invalid-fields") {
		for (unsigned int i = 0; i < sizeof(named_fields) / sizeof(named_fields[0]); i++) {
			igt_dynamic(named_fields[i].name)
				check_field_rejected(fd, &named_fields[i], &ref);
		}
		for (unsigned int i = 0; i < NUM_RESERVED; i++) {
			struct caps_field f = {
				.offset = offsetof(struct drm_compute_caps, reserved) +
					  i * sizeof(__u64),
				.size = sizeof(__u64),
			};

			snprintf(f.name, sizeof(f.name), "reserved-%u", i);
			igt_dynamic(f.name)
				check_field_rejected(fd, &f, &ref);
		}
	}

	igt_describe("Pointers the kernel cannot copy from or to fail with "
		     "-EFAULT.");
	igt_subtest_with_dynamic("bad-pointer") {
		igt_dynamic("null")
			igt_assert_eq(caps_ioctl(fd, DRM_IOCTL_VCOMPUTE_CAPS, NULL),
				      -EFAULT);
		igt_dynamic("read-only") {
			long page = sysconf(_SC_PAGESIZE);
			void *ro = mmap(NULL, page, PROT_READ,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			igt_assert(ro != MAP_FAILED);
			igt_assert_eq(caps_ioctl(fd, DRM_IOCTL_VCOMPUTE_CAPS, ro),
				      -EFAULT);
			munmap(ro, page);
		}
	}

	igt_describe("Driver ioctl numbers past vcompute's table fail with "
		     "-EINVAL and a command of another ioctl type with -ENOTTY; "
		     "the argument is left untouched.");
	igt_subtest_with_dynamic("unknown-ioctl") {
		static const struct {
			const char *name;
			unsigned long request;
			int err;
		} cases[] = {
			{ "next-driver-nr",
			  DRM_IOWR(CAPS_NR + 1, struct drm_compute_caps), -EINVAL },
			{ "last-driver-nr",
			  DRM_IOWR(DRM_COMMAND_END - 1, struct drm_compute_caps), -EINVAL },
			{ "foreign-type",
			  _IOWR('e', CAPS_NR, struct drm_compute_caps), -ENOTTY },
		};

		for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			igt_dynamic(cases[i].name) {
				unsigned char buf[sizeof(struct drm_compute_caps)];

				memset(buf, 0, sizeof(buf));
				igt_assert_eq(caps_ioctl(fd, cases[i].request, buf),
					      cases[i].err);
				for (size_t b = 0; b < sizeof(buf); b++)
					igt_assert_eq(buf[b], 0);
			}
		}
	}

	igt_describe("Older userspace with a shorter structure: the command "
		     "encoded with a smaller size succeeds, fills exactly that "
		     "many bytes of the report and touches nothing past them.");
	igt_subtest_with_dynamic("old-userspace") {
		static const size_t sizes[] = {
			0, 4, 6, 8, 13, 16, 24, 32, 36, 40, 48,
			sizeof(struct drm_compute_caps) - 8,
		};

		for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			igt_dynamic_f("size-%zu", sizes[i])
				check_sized_query(fd, sizes[i], &ref);
	}

	igt_describe("Newer userspace with a longer, zero-extended structure: "
		     "the query succeeds, fills the known part and leaves the "
		     "extension zero (sizes above 128 bytes take the DRM core's "
		     "heap path).");
	igt_subtest_with_dynamic("new-userspace") {
		static const size_t sizes[] = {
			sizeof(struct drm_compute_caps) + 8, 128, 136, SIZED_MAX,
		};

		for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			igt_dynamic_f("size-%zu", sizes[i])
				check_sized_query(fd, sizes[i], &ref);
	}

	igt_describe("Processes and threads query through one shared open file "
		     "(valid and invalid arguments mixed) while another thread "
		     "opens, dups and closes the node; every result matches the "
		     "reference report or is the expected -EINVAL.");
	igt_subtest("race-shared-fd")
		run_race(path, fd, &ref);

	igt_describe("As race-shared-fd, but every querying thread uses its own "
		     "open file.");
	igt_subtest("race-separate-fds")
		run_race(path, -1, &ref);

	igt_fixture {
		free(path);
		drm_close_driver(fd);
	}
}
