// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_BO_MMAP (struct drm_compute_bo_mmap): the fake
 * offset, CPU access to both placements, what mmap() refuses, handles of
 * other files, rejection of bad input, and races of mapping against
 * closing.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_BO_MMAP: the offset, CPU reads "
		     "and writes of both placements, MAP_PRIVATE and oversized "
		     "mappings refused, other files' handles and offsets refused, "
		     "rejection of bad fields, and mapping racing with closing.");

#define RACE_CHILDREN 4
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };


static int bo_mmap(const struct compute_dev *dev, uint32_t handle, uint64_t *offset)
{
	struct drm_compute_bo_mmap args = { .handle = handle };
	int ret = compute_ioctl(dev, DRM_COMPUTE_OP_BO_MMAP, &args);

	if (ret == 0) {
		igt_assert_eq_u32(args.handle, handle);
		igt_assert_eq_u32(args.pad, 0);
		*offset = args.offset;
	}
	return ret;
}

static uint64_t offset_of(uint32_t handle)
{
	uint64_t offset = 0;

	igt_assert_eq(bo_mmap(&cd, handle, &offset), 0);
	return offset;
}

static void *map_at(int fd, uint64_t offset, size_t size, int prot, int flags)
{
	return mmap(NULL, size, prot, flags, fd, offset);
}

static void expect_mmap_rejected(uint32_t handle, uint32_t pad, uint64_t offset, int err)
{
	struct drm_compute_bo_mmap args = {
		.handle = handle,
		.pad = pad,
		.offset = offset,
	};

	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_MMAP, &args, sizeof(args), err);
}

/* ---- race ---- */

struct race_shared {
	unsigned long maps[RACE_CHILDREN];
	unsigned long gone[RACE_CHILDREN];
};

static struct race_shared *shared;

/*
 * Child 0 keeps replacing a buffer (create, publish its handle, close);
 * the others look the published handle up, map it and touch it. A lookup
 * may lose the race (-ENOENT, or a mmap() that fails); a mapping that
 * succeeded keeps the buffer alive until munmap().
 */
static volatile uint32_t *published;

static void race_mapper(int child)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;

	while (compute_now_ns() < end) {
		uint32_t h = __atomic_load_n(published, __ATOMIC_ACQUIRE);
		uint64_t offset;
		uint32_t *p;
		int ret;

		if (!h)
			continue;
		ret = bo_mmap(&cd, h, &offset);
		if (ret) {
			igt_assert_eq(ret, -ENOENT);
			shared->gone[child]++;
			continue;
		}
		p = map_at(cd.fd, offset, COMPUTE_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED);
		if (p == MAP_FAILED) {
			/* Closed between the lookup and mmap(): the offset is gone. */
			igt_assert_f(errno == EINVAL || errno == EACCES, "mmap: %d\n", errno);
			shared->gone[child]++;
			continue;
		}
		p[child] = child;
		igt_assert_eq_u32(p[child], child);
		munmap(p, COMPUTE_PAGE);
		shared->maps[child]++;
	}
}

static void race_replacer(void)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;

	while (compute_now_ns() < end) {
		uint32_t h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

		__atomic_store_n(published, h, __ATOMIC_RELEASE);
		usleep(50);
		__atomic_store_n(published, 0, __ATOMIC_RELEASE);
		compute_bo_close(&cd, h);
	}
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		shared = mmap(NULL, sizeof(*shared) + 64, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(shared != MAP_FAILED);
		published = (volatile uint32_t *)(shared + 1);
	}

	igt_describe("The offset is non-zero and page aligned, the same on "
		     "repeated calls for one buffer and different for different "
		     "buffers; the input comes back unchanged.");
	igt_subtest("basic") {
		uint32_t a = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		uint32_t b = compute_bo(&cd, 4 * COMPUTE_PAGE, cd.info.placements &
					-cd.info.placements);
		uint64_t oa = offset_of(a), ob = offset_of(b);

		igt_assert_neq_u64(oa, 0);
		igt_assert_eq_u64(oa & (COMPUTE_PAGE - 1), 0);
		igt_assert_eq_u64(ob & (COMPUTE_PAGE - 1), 0);
		igt_assert_neq_u64(oa, ob);
		igt_assert_eq_u64(offset_of(a), oa);
		igt_assert_eq_u64(offset_of(b), ob);
		compute_bo_close(&cd, a);
		compute_bo_close(&cd, b);
	}

	igt_describe("Both placements are readable and writable through the "
		     "CPU: a pattern written through one mapping is seen through "
		     "a second one at once and through a new one after unmapping; "
		     "a mapping of the leading pages only works too.");
	igt_subtest_with_dynamic("cpu-access") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&cd, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				const size_t size = 64 * COMPUTE_PAGE;
				uint32_t h = compute_bo(&cd, size, compute_placements[p].placement);
				uint64_t off = offset_of(h);
				void *m1, *m2, *head;
				size_t bad;

				m1 = map_at(cd.fd, off, size, PROT_READ | PROT_WRITE, MAP_SHARED);
				m2 = map_at(cd.fd, off, size, PROT_READ, MAP_SHARED);
				igt_assert(m1 != MAP_FAILED && m2 != MAP_FAILED);
				compute_fill_pattern(m1, size, 0x1234 + p);
				igt_assert_f(compute_check_pattern(m2, size, 0x1234 + p, &bad),
					     "second mapping differs at %zu\n", bad);
				munmap(m1, size);
				munmap(m2, size);
				m1 = map_at(cd.fd, off, size, PROT_READ, MAP_SHARED);
				igt_assert(m1 != MAP_FAILED);
				igt_assert(compute_check_pattern(m1, size, 0x1234 + p, &bad));
				munmap(m1, size);
				head = map_at(cd.fd, off, COMPUTE_PAGE, PROT_READ, MAP_SHARED);
				igt_assert(head != MAP_FAILED);
				igt_assert(compute_check_pattern(head, COMPUTE_PAGE, 0x1234 + p, &bad));
				munmap(head, COMPUTE_PAGE);
				compute_bo_close(&cd, h);
			}
		}
	}

	igt_describe("mmap() refuses a private mapping (a copy-on-write view of "
		     "device memory), read-only or writable, a mapping larger than "
		     "the buffer, and an offset inside the buffer instead of at "
		     "its start.");
	igt_subtest_with_dynamic("mmap-refused") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&cd, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				const size_t size = 4 * COMPUTE_PAGE;
				uint32_t h = compute_bo(&cd, size, compute_placements[p].placement);
				uint64_t off = offset_of(h);

				igt_assert(map_at(cd.fd, off, size, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE) == MAP_FAILED);
				igt_assert(map_at(cd.fd, off, size, PROT_READ, MAP_PRIVATE) ==
					   MAP_FAILED);
				igt_assert(map_at(cd.fd, off, size + COMPUTE_PAGE, PROT_READ,
						  MAP_SHARED) == MAP_FAILED);
				igt_assert(map_at(cd.fd, off + COMPUTE_PAGE, COMPUTE_PAGE, PROT_READ,
						  MAP_SHARED) == MAP_FAILED);
				compute_bo_close(&cd, h);
			}
		}
	}

	igt_describe("A non-zero pad or offset (an out field) on input is "
		     "rejected with -EINVAL and the argument comes back unchanged.");
	igt_subtest("invalid-fields") {
		uint32_t h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		const uint64_t values[] = { 1, 0x80000000, 0xffffffff, 1ull << 63, ~0ull };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(values); i++) {
			expect_mmap_rejected(h, (uint32_t)values[i] | 1, 0, -EINVAL);
			expect_mmap_rejected(h, 0, values[i], -EINVAL);
			expect_mmap_rejected(h, 0, offset_of(h), -EINVAL);
		}
		compute_bo_close(&cd, h);
	}

	igt_describe("Handle 0, a handle never created, a closed handle and the "
		     "largest handle fail with -ENOENT, the argument unchanged.");
	igt_subtest("bad-handle") {
		uint32_t h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

		compute_bo_close(&cd, h);
		expect_mmap_rejected(0, 0, 0, -ENOENT);
		expect_mmap_rejected(h, 0, 0, -ENOENT);
		expect_mmap_rejected(h + 1000, 0, 0, -ENOENT);
		expect_mmap_rejected(0xffffffff, 0, 0, -ENOENT);
	}

	igt_describe("Another file's handle is unknown here (-ENOENT), and "
		     "another file's offset cannot be mapped through this file "
		     "(-EACCES) while it works through its own.");
	igt_subtest("other-file") {
		static struct compute_dev other = { .fd = -1 };
		uint32_t mine, theirs[4];
		uint64_t off;
		void *m;

		compute_open_file(&cd, &other);
		/* Make the other file's handle numbers exceed ours. */
		for (unsigned int i = 0; i < 4; i++)
			theirs[i] = compute_bo(&other, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		mine = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		for (unsigned int i = 0; i < 4; i++) {
			if (theirs[i] == mine)
				continue;
			expect_mmap_rejected(theirs[i], 0, 0, -ENOENT);
		}
		igt_assert_eq(bo_mmap(&other, theirs[3], &off), 0);
		m = map_at(cd.fd, off, COMPUTE_PAGE, PROT_READ, MAP_SHARED);
		igt_assert(m == MAP_FAILED && errno == EACCES);
		m = map_at(other.fd, off, COMPUTE_PAGE, PROT_READ, MAP_SHARED);
		igt_assert(m != MAP_FAILED);
		munmap(m, COMPUTE_PAGE);
		compute_bo_close(&cd, mine);
		compute_close(&other);
	}

	igt_describe("A mapping keeps its buffer: after GEM_CLOSE of the handle "
		     "and after closing the file, the mapping still reads and "
		     "writes the buffer's pages.");
	igt_subtest_with_dynamic("outlives-handle") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&cd, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				static struct compute_dev other = { .fd = -1 };
				const size_t size = 8 * COMPUTE_PAGE;
				uint32_t h;
				void *m;
				size_t bad;

				compute_open_file(&cd, &other);
				h = compute_bo(&other, size, compute_placements[p].placement);
				m = compute_bo_map(&other, h, size);
				compute_fill_pattern(m, size, 77);
				compute_bo_close(&other, h);
				igt_assert(compute_check_pattern(m, size, 77, &bad));
				compute_close(&other);
				igt_assert(compute_check_pattern(m, size, 77, &bad));
				compute_fill_pattern(m, size, 78);
				igt_assert(compute_check_pattern(m, size, 78, &bad));
				munmap(m, size);
			}
		}
	}

	igt_describe("While one process keeps creating and closing a buffer, "
		     "others look its handle up, map it and write it: each call "
		     "either succeeds with a working mapping or fails with "
		     "-ENOENT (or mmap() with -EINVAL) after the close.");
	igt_subtest("race-mmap-close") {
		unsigned long maps = 0, gone = 0;

		memset(shared, 0, sizeof(*shared));
		*published = 0;
		igt_fork(child, RACE_CHILDREN) {
			if (child == 0)
				race_replacer();
			else
				race_mapper(child);
		}
		igt_waitchildren();
		for (unsigned int i = 1; i < RACE_CHILDREN; i++) {
			maps += shared->maps[i];
			gone += shared->gone[i];
		}
		igt_info("%lu mappings, %lu lookups that lost the race\n", maps, gone);
		igt_assert_lt(0, (int)maps);
	}

	igt_fixture {
		compute_close(&cd);
	}
}
