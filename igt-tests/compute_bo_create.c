// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_BO_CREATE (struct drm_compute_bo_create):
 * placements, sizes, exhaustion of device memory (-ENOSPC) and recovery,
 * zeroed contents, handles per file, rejection of bad input, and
 * concurrent creation. Buffers made for export (the export flags) are
 * compute_p2p's.
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

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_BO_CREATE: placements and sizes, "
		     "-ENOSPC when device memory is exhausted (-ENOMEM where the "
		     "device reports DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM) and success once "
		     "it is freed, zeroed contents, handles per file, rejection "
		     "of every bad field, and concurrent creation.");

#define MIB (1ull << 20)
#define CHUNK (16 * MIB)
#define RACE_CHILDREN 4
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };


static int bo_create(const struct compute_dev *dev, uint64_t size, uint64_t placement,
		     uint32_t *handle)
{
	struct drm_compute_bo_create args = {
		.size = size,
		.placement = placement,
	};
	int ret = compute_ioctl(dev, DRM_COMPUTE_OP_BO_CREATE, &args);

	if (ret == 0) {
		igt_assert_eq_u64(args.size, size);
		igt_assert_eq_u64(args.placement, placement);
		igt_assert_eq_u32(args.flags, 0);
		igt_assert_neq_u32(args.handle, 0);
		*handle = args.handle;
	}
	return ret;
}

static void expect_create_rejected(uint64_t size, uint64_t placement, int err)
{
	struct drm_compute_bo_create args = {
		.size = size,
		.placement = placement,
	};

	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &args, sizeof(args), err);
}

/* Whether every byte of @size at @p is zero. */
static bool all_zero(const void *p, size_t size, size_t *bad)
{
	const uint64_t *q = p;

	for (size_t i = 0; i < size / 8; i++) {
		if (q[i]) {
			*bad = i * 8;
			return false;
		}
	}
	return true;
}

/*
 * Allocate VRAM in @chunk pieces until -ENOSPC (-ENOMEM on a device that
 * reports DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM); returns how many fit.
 */
static unsigned int fill_vram(const struct compute_dev *dev, uint64_t chunk,
			      uint32_t *handles, unsigned int max)
{
	unsigned int n = 0;
	int ret;

	for (;;) {
		uint32_t h;

		ret = bo_create(dev, chunk, DRM_COMPUTE_PLACEMENT_VRAM, &h);
		if (ret)
			break;
		igt_assert_lt_u32(n, max);
		handles[n++] = h;
	}
	igt_assert_f(ret == compute_vram_full_errno(dev), "allocating VRAM: %d after %u chunks\n",
		     ret, n);
	return n;
}

static void close_all(const struct compute_dev *dev, uint32_t *handles, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		compute_bo_close(dev, handles[i]);
}

/* Shared with forked children: an anonymous shared page. */
struct race_shared {
	unsigned int counts[RACE_CHILDREN];
	int done[RACE_CHILDREN];
	int release;
	unsigned long creates[RACE_CHILDREN];
};

static struct race_shared *shared;

static void race_create_close(int child)
{
	uint64_t seed = 0x1234567ull * (child + 1);
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
	unsigned long n = 0;

	while (compute_now_ns() < end) {
		uint64_t size = (1 + compute_rand32(&seed) % 16) * COMPUTE_PAGE;
		uint64_t placement = compute_placements[compute_rand32(&seed) % 2].placement;
		uint32_t h, pattern = child << 24 | (uint32_t)n;
		size_t bad;
		void *p;

		if (!compute_has_placement(&cd, placement))
			continue;
		igt_assert_eq(bo_create(&cd, size, placement, &h), 0);
		p = compute_bo_map(&cd, h, size);
		igt_assert_f(all_zero(p, size, &bad), "child %d: new buffer not zero at %zu\n",
			     child, bad);
		compute_fill_pattern(p, size, pattern);
		/* Let others create and close meanwhile, then read back. */
		usleep(compute_rand32(&seed) % 200);
		igt_assert_f(compute_check_pattern(p, size, pattern, &bad),
			     "child %d: buffer changed under it at %zu\n", child, bad);
		munmap(p, size);
		compute_bo_close(&cd, h);
		n++;
	}
	shared->creates[child] = n;
	igt_assert_lt(0, (int)n);
}

static void race_vram_limit(int child)
{
	uint32_t handles[64];
	uint64_t end;
	unsigned int n;

	n = fill_vram(&cd, 8 * MIB, handles, 64);
	__atomic_store_n(&shared->counts[child], n, __ATOMIC_RELEASE);
	__atomic_store_n(&shared->done[child], 1, __ATOMIC_RELEASE);
	/* Keep the memory until every child has found the limit. */
	end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;
	while (!__atomic_load_n(&shared->release, __ATOMIC_ACQUIRE))
		igt_assert(compute_now_ns() < end);
	close_all(&cd, handles, n);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(shared != MAP_FAILED);
	}

	igt_describe("A buffer of each reported placement is created for sizes "
		     "of one page to over a MiB; each gets a distinct non-zero "
		     "handle, the input fields come back as sent, and GEM_CLOSE "
		     "releases it.");
	igt_subtest_with_dynamic("basic") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&cd, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				const uint64_t sizes[] = {
					cd.info.page_size, 16ull * cd.info.page_size,
					MIB + cd.info.page_size,
				};
				uint32_t h[3];

				for (unsigned int i = 0; i < 3; i++) {
					igt_assert_eq(bo_create(&cd, sizes[i], compute_placements[p].placement,
								&h[i]), 0);
					for (unsigned int j = 0; j < i; j++)
						igt_assert_neq_u32(h[i], h[j]);
				}
				close_all(&cd, h, 3);
			}
		}
	}

	igt_describe("A placement that is not exactly one bit the device reports "
		     "is rejected with -EINVAL and the argument comes back "
		     "unchanged: none, both, and every unknown bit.");
	igt_subtest("invalid-placement") {
		expect_create_rejected(COMPUTE_PAGE, 0, -EINVAL);
		expect_create_rejected(COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_VRAM |
				       DRM_COMPUTE_PLACEMENT_SYSTEM, -EINVAL);
		for (unsigned int bit = 0; bit < 64; bit++) {
			uint64_t p = 1ull << bit;

			if (compute_has_placement(&cd, p))
				continue;
			expect_create_rejected(COMPUTE_PAGE, p, -EINVAL);
		}
		expect_create_rejected(COMPUTE_PAGE, ~0ull, -EINVAL);
	}

	igt_describe("A zero size or one that is not a multiple of the GPU page "
		     "size is rejected with -EINVAL for every placement, the "
		     "argument unchanged.");
	igt_subtest("invalid-size") {
		const uint64_t page = cd.info.page_size;
		const uint64_t sizes[] = {
			0, 1, 8, page / 2, page - 1, page + 1, 3 * page + 8, ~0ull,
		};

		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++)
			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(sizes); i++)
				expect_create_rejected(sizes[i], compute_placements[p].placement,
						       -EINVAL);
	}

	igt_describe("A size no memory can hold fails cleanly, the argument "
		     "unchanged: -ENOSPC for device memory (more than all VRAM), "
		     "-ENOMEM for system memory.");
	igt_subtest_with_dynamic("too-large") {
		const uint64_t page = cd.info.page_size;

		if (compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_VRAM)) {
			igt_dynamic("vram") {
				const uint64_t sizes[] = {
					cd.info.vram_size + page, 2 * cd.info.vram_size,
					1ull << 40, ~(page - 1),
				};

				for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(sizes); i++)
					expect_create_rejected(sizes[i], DRM_COMPUTE_PLACEMENT_VRAM,
							       compute_vram_full_errno(&cd));
			}
		}
		if (compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_SYSTEM)) {
			igt_dynamic("system") {
				const uint64_t sizes[] = { 1ull << 62, ~(page - 1) };

				for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(sizes); i++)
					expect_create_rejected(sizes[i], DRM_COMPUTE_PLACEMENT_SYSTEM,
							       -ENOMEM);
			}
		}
	}

	igt_describe("Device memory is a device-wide budget: 16 MiB buffers fill "
		     "exactly vram_size, then creation fails with -ENOSPC (in this "
		     "file and in another) while system memory still works; freeing "
		     "one buffer, or closing the file that holds them, makes "
		     "creation succeed again, and a single buffer of all VRAM fits "
		     "once everything is free.");
	igt_subtest("vram-exhaustion") {
		static uint32_t handles[1024];
		static struct compute_dev other = { .fd = -1 };
		unsigned int n, expect;
		uint32_t h;

		igt_require(compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_VRAM));
		expect = cd.info.vram_size / CHUNK;
		igt_require(expect > 0 && expect <= COMPUTE_ARRAY_SIZE(handles));

		n = fill_vram(&cd, CHUNK, handles, COMPUTE_ARRAY_SIZE(handles));
		igt_assert_eq_u32(n, expect);
		igt_assert_eq(bo_create(&cd, cd.info.page_size, DRM_COMPUTE_PLACEMENT_VRAM, &h),
			      compute_vram_full_errno(&cd));
		compute_open_file(&cd, &other);
		igt_assert_eq(bo_create(&other, cd.info.page_size, DRM_COMPUTE_PLACEMENT_VRAM,
					&h), compute_vram_full_errno(&cd));
		if (compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_SYSTEM)) {
			igt_assert_eq(bo_create(&other, CHUNK, DRM_COMPUTE_PLACEMENT_SYSTEM, &h), 0);
			compute_bo_close(&other, h);
		}

		/* Freeing one makes room for exactly one again. */
		compute_bo_close(&cd, handles[n - 1]);
		igt_assert_eq(bo_create(&other, CHUNK, DRM_COMPUTE_PLACEMENT_VRAM, &h), 0);
		igt_assert_eq(bo_create(&cd, cd.info.page_size, DRM_COMPUTE_PLACEMENT_VRAM,
					&handles[n - 1]),
			      compute_vram_full_errno(&cd));
		compute_bo_close(&other, h);
		igt_assert_eq(bo_create(&cd, CHUNK, DRM_COMPUTE_PLACEMENT_VRAM,
					&handles[n - 1]), 0);
		close_all(&cd, handles, n);

		/* Closing the file that holds the memory frees it. */
		n = fill_vram(&other, CHUNK, handles, COMPUTE_ARRAY_SIZE(handles));
		igt_assert_eq_u32(n, expect);
		igt_assert_eq(bo_create(&cd, CHUNK, DRM_COMPUTE_PLACEMENT_VRAM, &h),
			      compute_vram_full_errno(&cd));
		compute_close(&other);
		igt_assert_eq(bo_create(&cd, cd.info.vram_size, DRM_COMPUTE_PLACEMENT_VRAM, &h), 0);
		igt_assert_eq(bo_create(&cd, cd.info.page_size, DRM_COMPUTE_PLACEMENT_VRAM,
					&handles[0]), compute_vram_full_errno(&cd));
		compute_bo_close(&cd, h);
	}

	igt_describe("A new buffer reads back as zeros through the CPU, also "
		     "when it reuses the memory of a buffer just freed that held "
		     "a pattern.");
	igt_subtest_with_dynamic("zeroed") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&cd, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				const uint64_t size = 2 * MIB;

				for (unsigned int round = 0; round < 3; round++) {
					uint32_t h = compute_bo(&cd, size, compute_placements[p].placement);
					void *m = compute_bo_map(&cd, h, size);
					size_t bad;

					igt_assert_f(all_zero(m, size, &bad),
						     "round %u: byte %zu not zero\n", round, bad);
					memset(m, 0xff, size);
					munmap(m, size);
					compute_bo_close(&cd, h);
				}
			}
		}
	}

	igt_describe("Every bit of flags that is not an export flag is rejected "
		     "with -EINVAL, the argument unchanged (export flags: "
		     "compute_p2p).");
	igt_subtest("invalid-flags") {
		const uint32_t known = DRM_COMPUTE_BO_EXPORT_PREFER_P2P |
				       DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P |
				       DRM_COMPUTE_BO_EXPORT_HOST_ONLY;

		for (unsigned int bit = 0; bit < 32; bit++) {
			struct drm_compute_bo_create args = {
				.size = COMPUTE_PAGE,
				.placement = DRM_COMPUTE_PLACEMENT_SYSTEM,
				.flags = 1u << bit,
			};

			if (known & (1u << bit))
				continue;

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &args,
						sizeof(args), -EINVAL);
		}
	}

	igt_describe("A non-zero handle (an out field) on input is rejected with "
		     "-EINVAL, the argument unchanged, for valid and for existing "
		     "handle numbers.");
	igt_subtest("invalid-handle") {
		uint32_t existing = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		const uint32_t values[] = { 1, existing, 0x80000000, 0xffffffff };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(values); i++) {
			struct drm_compute_bo_create args = {
				.size = COMPUTE_PAGE,
				.placement = DRM_COMPUTE_PLACEMENT_SYSTEM,
				.handle = values[i],
			};

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &args,
						sizeof(args), -EINVAL);
		}
		compute_bo_close(&cd, existing);
	}

	igt_describe("Handles are per file: another file's handle numbers are "
		     "unknown here (BO_MMAP -ENOENT, GEM_CLOSE -EINVAL), two files "
		     "hold different buffers under equal numbers, and closing one "
		     "file leaves the other's buffers and contents intact.");
	igt_subtest("handles-per-file") {
		static struct compute_dev a = { .fd = -1 }, b = { .fd = -1 };
		uint32_t ha[5], hb;
		uint64_t offset;
		void *pa, *pb;
		size_t bad;

		compute_open_file(&cd, &a);
		compute_open_file(&cd, &b);
		for (unsigned int i = 0; i < 5; i++)
			ha[i] = compute_bo(&a, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		hb = compute_bo(&b, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		pa = compute_bo_map(&a, ha[0], COMPUTE_PAGE);
		pb = compute_bo_map(&b, hb, COMPUTE_PAGE);
		compute_fill_pattern(pa, COMPUTE_PAGE, 0xaaaa);
		compute_fill_pattern(pb, COMPUTE_PAGE, 0xbbbb);
		for (unsigned int i = 0; i < 5; i++) {
			if (ha[i] == hb)
				continue;
			igt_assert_eq(onenode_bo_mmap_offset(&b.dev, ha[i], &offset), -ENOENT);
			igt_assert_eq(onenode_bo_close(&b.dev, ha[i]), -EINVAL);
		}
		igt_assert(compute_check_pattern(pa, COMPUTE_PAGE, 0xaaaa, &bad));
		igt_assert(compute_check_pattern(pb, COMPUTE_PAGE, 0xbbbb, &bad));
		compute_close(&a);
		igt_assert(compute_check_pattern(pb, COMPUTE_PAGE, 0xbbbb, &bad));
		igt_assert(compute_check_pattern(pa, COMPUTE_PAGE, 0xaaaa, &bad));
		munmap(pa, COMPUTE_PAGE);
		munmap(pb, COMPUTE_PAGE);
		compute_bo_close(&b, hb);
		compute_close(&b);
	}

	igt_describe("Hundreds of buffers in one file get distinct handles and "
		     "are all released by GEM_CLOSE.");
	igt_subtest("many") {
		static uint32_t h[512];

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(h); i++) {
			uint64_t p = compute_placements[i % 2].placement;

			if (!compute_has_placement(&cd, p))
				p = cd.info.placements & -cd.info.placements;
			h[i] = compute_bo(&cd, COMPUTE_PAGE, p);
		}
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(h); i++)
			for (unsigned int j = i + 1; j < COMPUTE_ARRAY_SIZE(h); j++)
				igt_assert_neq_u32(h[i], h[j]);
		close_all(&cd, h, COMPUTE_ARRAY_SIZE(h));
	}

	igt_describe("Processes sharing one file create, map, fill, check and "
		     "close buffers of random sizes and placements for 2 s: every "
		     "new buffer is zero and keeps its own contents while the "
		     "others churn.");
	igt_subtest("race-create-close") {
		memset(shared, 0, sizeof(*shared));
		igt_fork(child, RACE_CHILDREN)
			race_create_close(child);
		igt_waitchildren();
		for (unsigned int i = 0; i < RACE_CHILDREN; i++)
			igt_info("child %u: %lu buffers\n", i, shared->creates[i]);
	}

	igt_describe("Processes sharing one file allocate 8 MiB of VRAM at a time "
		     "until -ENOSPC, all at once: together they get exactly "
		     "vram_size, never more.");
	igt_subtest("race-vram-limit") {
		uint64_t total = 0;
		bool all;

		igt_require(compute_has_placement(&cd, DRM_COMPUTE_PLACEMENT_VRAM));
		memset(shared, 0, sizeof(*shared));
		igt_fork(child, RACE_CHILDREN)
			race_vram_limit(child);
		all = compute_wait_flags(shared->done, RACE_CHILDREN);
		for (unsigned int i = 0; i < RACE_CHILDREN; i++)
			total += shared->counts[i] * 8 * MIB;
		__atomic_store_n(&shared->release, 1, __ATOMIC_RELEASE);
		igt_waitchildren();
		igt_assert(all);
		igt_assert_eq_u64(total, cd.info.vram_size);
	}

	igt_fixture {
		compute_close(&cd);
	}
}
