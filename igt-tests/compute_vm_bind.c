// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_VM_BIND (struct drm_compute_vm_bind): every
 * rule of MAP and UNMAP, what the GPU sees after each (checked by running
 * packets on a queue), MAP into a non-empty range changing nothing,
 * partial UNMAP splitting mappings, READONLY and NOEXEC enforced by the
 * engine, and races: two binds of one VA, unbinding under a reading
 * queue, and a bind storm against VM creation.
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

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_VM_BIND: every rule of MAP and "
		     "UNMAP, what queues see after each bind, MAP into a used "
		     "range changing nothing, partial UNMAP splitting mappings, "
		     "READONLY and NOEXEC enforced by the engine, and races of "
		     "binds against binds, queues and VM creation.");

#define PAGE COMPUTE_PAGE
/* Where the tests bind: V; the probe result buffer: RESULT_VA. */
#define V COMPUTE_BUF_VA(1)
#define RESULT_VA COMPUTE_BUF_VA(15)
#define RESULT_SIZE (1ull << 20)
#define PROBE_QVA COMPUTE_QUEUE_VA(1)
#define RACE_CHILDREN 4
#define RACE_ROUNDS 24
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };
static struct compute_buf result;	/* CPU view of what probes copy */

static struct drm_compute_vm_bind map_args(uint32_t vm, uint32_t handle, uint64_t bo_offset,
					   uint64_t va, uint64_t range, uint64_t flags)
{
	struct drm_compute_vm_bind b = {
		.vm_id = vm,
		.op = DRM_COMPUTE_VM_BIND_OP_MAP,
		.flags = flags,
		.handle = handle,
		.bo_offset = bo_offset,
		.va = va,
		.range = range,
	};

	return b;
}

static struct drm_compute_vm_bind unmap_args(uint32_t vm, uint64_t va, uint64_t range)
{
	struct drm_compute_vm_bind b = {
		.vm_id = vm,
		.op = DRM_COMPUTE_VM_BIND_OP_UNMAP,
		.va = va,
		.range = range,
	};

	return b;
}

static void expect_bind_rejected(const struct compute_dev *dev,
				 const struct drm_compute_vm_bind *b, int err)
{
	compute_expect_rejected(dev, DRM_COMPUTE_OP_VM_BIND, b, sizeof(*b), err);
}

/* A VM with the probe result buffer bound. */
static uint32_t probe_vm(void)
{
	uint32_t vm = compute_vm(&cd);

	compute_map(&cd, vm, result.handle, 0, RESULT_VA, RESULT_SIZE, 0);
	return vm;
}

/*
 * Run @pkt on a fresh queue in @vm. Returns 0 when it completed, else the
 * fault reason (then *@fault_va is the address).
 */
static uint32_t run_packet(uint32_t vm, const uint64_t *pkt, uint32_t qw, uint64_t *fault_va)
{
	static struct compute_queue q;
	struct drm_compute_userq_state st;
	uint64_t value;
	int ret;

	compute_queue_init_at(&cd, vm, PROBE_QVA, &q);
	compute_emit(&q, pkt, qw);
	value = compute_submit(&q);
	ret = onenode_queue_wait(&q.q, value, COMPUTE_TIMEOUT_MS * 1000000ll);
	compute_state(&cd, q.q.id, &st);
	compute_queue_fini(&q);
	if (ret == 0)
		return 0;
	igt_assert_f(ret == -EIO, "waiting for the probe: %d\n", ret);
	igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_FAULTED);
	if (fault_va)
		*fault_va = st.fault_va;
	return st.fault_reason;
}

/* GPU copy of @size bytes at @va into the result buffer; 0 or the fault. */
static uint32_t gpu_read(uint32_t vm, uint64_t va, uint64_t size, uint64_t *fault_va)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw;

	igt_assert_lte_u64(size, RESULT_SIZE);
	memset(result.cpu, 0xcd, size);
	qw = onenode_pkt_copy(pkt, RESULT_VA, va, size);
	return run_packet(vm, pkt, qw, fault_va);
}

/* GPU fill of @size bytes at @va with @value; 0 or the fault. */
static uint32_t gpu_fill(uint32_t vm, uint64_t va, uint64_t size, uint32_t value,
			 uint64_t *fault_va)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw = onenode_pkt_fill(pkt, va, size, value);

	return run_packet(vm, pkt, qw, fault_va);
}

/* The GPU reads at @va exactly the pattern of @seed from byte @offset on. */
static void check_gpu_sees(uint32_t vm, uint64_t va, uint64_t size, uint32_t seed,
			   uint64_t offset)
{
	static uint32_t expect[RESULT_SIZE / 4];
	uint64_t fault_va = 0;
	uint32_t fault = gpu_read(vm, va, size, &fault_va);

	igt_assert_f(fault == 0, "GPU read of %#" PRIx64 "+%#" PRIx64 " faulted (%s at %#"
		     PRIx64 ")\n", va, size, onenode_fault_name(fault), fault_va);
	compute_fill_pattern(expect, offset + size, seed);
	igt_assert_f(memcmp(result.cpu, (char *)expect + offset, size) == 0,
		     "GPU sees other data at %#" PRIx64 "\n", va);
}

/* The GPU faults UNMAPPED reading @va. */
static void check_gpu_unmapped(uint32_t vm, uint64_t va)
{
	uint64_t fault_va = 0;
	uint32_t fault = gpu_read(vm, va, 4, &fault_va);

	igt_assert_f(fault == DRM_COMPUTE_FAULT_UNMAPPED,
		     "GPU read of %#" PRIx64 ": %s\n", va, onenode_fault_name(fault));
	igt_assert_eq_u64(fault_va, va);
}

/* [va, va + range) holds no mapping: each page can be mapped (and unmapped). */
static void check_range_free(uint32_t vm, uint64_t va, uint64_t range)
{
	uint32_t h = compute_bo(&cd, PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

	for (uint64_t off = 0; off < range; off += PAGE) {
		compute_map(&cd, vm, h, 0, va + off, PAGE, 0);
		compute_unmap(&cd, vm, va + off, PAGE);
	}
	compute_bo_close(&cd, h);
}

/* A buffer of @pages pages holding the pattern of @seed. */
static uint32_t pattern_bo(uint64_t pages, uint64_t placement, uint32_t seed)
{
	uint32_t h = compute_bo(&cd, pages * PAGE, placement);
	void *m = compute_bo_map(&cd, h, pages * PAGE);

	compute_fill_pattern(m, pages * PAGE, seed);
	munmap(m, pages * PAGE);
	return h;
}


/* A queue in a VM of its own completes work. */
static void check_other_vm_alive(void)
{
	static struct compute_queue q;
	uint32_t other = compute_vm(&cd);

	compute_queue_init_at(&cd, other, COMPUTE_QUEUE_VA(3), &q);
	compute_check_alive(&q);
	compute_queue_fini(&q);
	compute_vm_destroy(&cd, other);
}

/* ---- races ---- */

static uint32_t race_vm;
static uint32_t race_bos[RACE_CHILDREN];

static int race_map_same_va(int child, unsigned int round, const uint64_t *slot)
{
	(void)slot;
	return onenode_vm_map(&cd.dev, race_vm, race_bos[child], 0, V + round * PAGE, PAGE, 0);
}

static void check_one_mapped(unsigned int round, const int *results, uint64_t *slot)
{
	unsigned int won = 0, winner = 0;

	(void)slot;
	for (unsigned int c = 0; c < RACE_CHILDREN; c++) {
		igt_assert_f(results[c] == 0 || results[c] == -EINVAL,
			     "round %u child %u: %d\n", round, c, results[c]);
		if (results[c] == 0) {
			won++;
			winner = c;
		}
	}
	igt_assert_f(won == 1, "round %u: %u maps of one VA succeeded\n", round, won);
	/* Only every sixth round, to keep it short: the winner's page is there. */
	if (round % 6 == 0)
		check_gpu_sees(race_vm, V + round * PAGE, PAGE, 100 + winner, 0);
	compute_unmap(&cd, race_vm, V + round * PAGE, PAGE);
}

struct storm_shared {
	unsigned long binds[RACE_CHILDREN];
	unsigned long vms;
};

static struct storm_shared *storm;

static void storm_binder(int child, uint32_t vm)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
	uint32_t h = compute_bo(&cd, 4 * PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	uint64_t base = COMPUTE_BUF_VA(2) + child * 0x100000ull, seed = child + 1;
	unsigned long n = 0;

	while (compute_now_ns() < end) {
		uint64_t pages = 1 + compute_rand32(&seed) % 4;
		uint64_t va = base + (compute_rand32(&seed) % 16) * PAGE;

		/* Unmap whatever is there (splitting), then map. */
		compute_unmap(&cd, vm, va, pages * PAGE);
		compute_map(&cd, vm, h, (4 - pages) * PAGE, va, pages * PAGE,
			    n & 1 ? DRM_COMPUTE_VM_BIND_READONLY : 0);
		n++;
	}
	compute_unmap(&cd, vm, base, 0x100000);
	compute_bo_close(&cd, h);
	storm->binds[child] = n;
}

static void storm_vm_churner(void)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
	uint32_t h = compute_bo(&cd, PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

	while (compute_now_ns() < end) {
		uint32_t vm;
		int ret = onenode_vm_create(&cd.dev, &vm);

		if (ret) {
			igt_assert_eq(ret, -ENOSPC);
			continue;
		}
		compute_map(&cd, vm, h, 0, V, PAGE, 0);
		compute_vm_destroy(&cd, vm);
		storm->vms++;
	}
	compute_bo_close(&cd, h);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		compute_buf_init(&cd, 0, RESULT_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, 0, 0, &result);
		storm = mmap(NULL, sizeof(*storm), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(storm != MAP_FAILED);
	}

	igt_describe("A mapped buffer is what queues see at its VA, from the "
		     "given buffer offset, and what they write lands in it; after "
		     "UNMAP a read faults UNMAPPED at the address; the range can "
		     "then take another buffer.");
	igt_subtest_with_dynamic("map-unmap") {
		for (unsigned int p = 0; p < COMPUTE_ARRAY_SIZE(compute_placements); p++) {
			if (!compute_has_placement(&cd, compute_placements[p].placement))
				continue;
			igt_dynamic(compute_placements[p].name) {
				uint32_t vm = probe_vm();
				uint32_t a = pattern_bo(8, compute_placements[p].placement, 1);
				uint32_t b = pattern_bo(8, compute_placements[p].placement, 2);
				uint32_t *m;

				compute_map(&cd, vm, a, 0, V, 8 * PAGE, 0);
				check_gpu_sees(vm, V, 8 * PAGE, 1, 0);
				igt_assert_eq(gpu_fill(vm, V + 4, 8, 0xfeedf00d, NULL), 0);
				m = compute_bo_map(&cd, a, PAGE);
				igt_assert_eq_u32(m[1], 0xfeedf00d);
				igt_assert_eq_u32(m[2], 0xfeedf00d);
				munmap(m, PAGE);
				compute_unmap(&cd, vm, V, 8 * PAGE);
				check_gpu_unmapped(vm, V);
				check_gpu_unmapped(vm, V + 7 * PAGE);
				/* Pages 2..5 of b at V + PAGE. */
				compute_map(&cd, vm, b, 2 * PAGE, V + PAGE, 4 * PAGE, 0);
				check_gpu_sees(vm, V + PAGE, 4 * PAGE, 2, 2 * PAGE);
				check_gpu_unmapped(vm, V);
				compute_vm_destroy(&cd, vm);
				compute_bo_close(&cd, a);
				compute_bo_close(&cd, b);
			}
		}
	}

	igt_describe("An op other than MAP or UNMAP is rejected with -EINVAL, "
		     "the argument unchanged.");
	igt_subtest("invalid-op") {
		uint32_t vm = compute_vm(&cd), h = compute_bo(&cd, PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		const uint32_t ops[] = { 0, 3, 4, 0x80000000, 0xffffffff };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(ops); i++) {
			struct drm_compute_vm_bind b = map_args(vm, h, 0, V, PAGE, 0);

			b.op = ops[i];
			expect_bind_rejected(&cd, &b, -EINVAL);
		}
		check_range_free(vm, V, PAGE);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("MAP rejects every unknown flag bit and UNMAP every flag "
		     "with -EINVAL, the argument unchanged and nothing mapped or "
		     "unmapped.");
	igt_subtest("invalid-flags") {
		uint32_t vm = compute_vm(&cd), h = compute_bo(&cd, 2 * PAGE,
							      DRM_COMPUTE_PLACEMENT_SYSTEM);
		struct drm_compute_vm_bind b;

		for (unsigned int bit = 2; bit < 64; bit++) {
			b = map_args(vm, h, 0, V, PAGE, 1ull << bit);
			expect_bind_rejected(&cd, &b, -EINVAL);
		}
		check_range_free(vm, V, PAGE);
		compute_map(&cd, vm, h, 0, V + PAGE, PAGE, 0);
		for (unsigned int bit = 0; bit < 64; bit++) {
			b = unmap_args(vm, V + PAGE, PAGE);
			b.flags = 1ull << bit;
			expect_bind_rejected(&cd, &b, -EINVAL);
		}
		/* Still mapped: a MAP over it fails. */
		b = map_args(vm, h, 0, V + PAGE, PAGE, 0);
		expect_bind_rejected(&cd, &b, -EINVAL);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("A non-zero pad is rejected with -EINVAL for MAP and UNMAP; "
		     "so are a handle or a buffer offset given to UNMAP.");
	igt_subtest("invalid-fields") {
		uint32_t vm = compute_vm(&cd), h = compute_bo(&cd, 2 * PAGE,
							      DRM_COMPUTE_PLACEMENT_SYSTEM);
		const uint32_t pads[] = { 1, 0x80000000, 0xffffffff };
		struct drm_compute_vm_bind b;

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(pads); i++) {
			b = map_args(vm, h, 0, V, PAGE, 0);
			b.pad = pads[i];
			expect_bind_rejected(&cd, &b, -EINVAL);
			b = unmap_args(vm, V, PAGE);
			b.pad = pads[i];
			expect_bind_rejected(&cd, &b, -EINVAL);
		}
		compute_map(&cd, vm, h, 0, V, PAGE, 0);
		b = unmap_args(vm, V, PAGE);
		b.handle = h;
		expect_bind_rejected(&cd, &b, -EINVAL);
		b = unmap_args(vm, V, PAGE);
		b.bo_offset = PAGE;
		expect_bind_rejected(&cd, &b, -EINVAL);
		compute_unmap(&cd, vm, V, PAGE);
		check_range_free(vm, V, 2 * PAGE);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("A va, range or buffer offset that is not a multiple of the "
		     "GPU page size, and a zero range, are rejected with -EINVAL "
		     "for MAP and UNMAP, the argument unchanged.");
	igt_subtest_with_dynamic("misaligned") {
		const uint64_t page = cd.info.page_size;
		const uint64_t bad[] = { 1, 8, page / 2, page - 1 };
		uint32_t vm = compute_vm(&cd), h = compute_bo(&cd, 4 * PAGE,
							      DRM_COMPUTE_PLACEMENT_SYSTEM);
		struct drm_compute_vm_bind b;

		igt_dynamic("va") {
			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad); i++) {
				b = map_args(vm, h, 0, V + bad[i], PAGE, 0);
				expect_bind_rejected(&cd, &b, -EINVAL);
				b = unmap_args(vm, V + bad[i], PAGE);
				expect_bind_rejected(&cd, &b, -EINVAL);
			}
		}
		igt_dynamic("range") {
			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad); i++) {
				b = map_args(vm, h, 0, V, PAGE + bad[i], 0);
				expect_bind_rejected(&cd, &b, -EINVAL);
				b = unmap_args(vm, V, PAGE + bad[i]);
				expect_bind_rejected(&cd, &b, -EINVAL);
			}
		}
		igt_dynamic("bo-offset") {
			for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad); i++) {
				b = map_args(vm, h, bad[i], V, PAGE, 0);
				expect_bind_rejected(&cd, &b, -EINVAL);
			}
		}
		igt_dynamic("zero-range") {
			b = map_args(vm, h, 0, V, 0, 0);
			expect_bind_rejected(&cd, &b, -EINVAL);
			b = unmap_args(vm, V, 0);
			expect_bind_rejected(&cd, &b, -EINVAL);
		}
		check_range_free(vm, V, 4 * PAGE);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("A range not inside [va_start, va_end) is rejected with "
		     "-EINVAL for MAP and UNMAP: below the start, across or past "
		     "the end, and a va + range that overflows 64 bits.");
	igt_subtest_with_dynamic("out-of-range") {
		const uint64_t page = cd.info.page_size;
		const uint64_t start = cd.info.va_start, end = cd.info.va_end;
		const struct {
			const char *name;
			uint64_t va, range;
		} cases[] = {
			{ "zero-va", 0, page },
			{ "below-start", start - page, page },
			{ "across-start", start - page, 2 * page },
			{ "across-end", end - page, 2 * page },
			{ "at-end", end, page },
			{ "past-end", end + 16 * page, page },
			{ "overflow", -2 * page, 4 * page },
			{ "huge-range", start, 1ull << 63 },
			{ "all-ones", -page, page },
		};
		uint32_t vm = compute_vm(&cd), h = compute_bo(&cd, 4 * PAGE,
							      DRM_COMPUTE_PLACEMENT_SYSTEM);

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			if (cases[i].va == 0 && start == 0)
				continue;
			igt_dynamic(cases[i].name) {
				struct drm_compute_vm_bind b;

				b = map_args(vm, h, 0, cases[i].va, cases[i].range, 0);
				if (cases[i].range <= 4 * PAGE)
					expect_bind_rejected(&cd, &b, -EINVAL);
				b = unmap_args(vm, cases[i].va, cases[i].range);
				expect_bind_rejected(&cd, &b, -EINVAL);
			}
		}
		igt_dynamic("edges-work") {
			/* The first and the last page are bindable. */
			compute_map(&cd, vm, h, 0, start, page, 0);
			compute_map(&cd, vm, h, 0, end - page, page, 0);
			compute_unmap(&cd, vm, start, page);
			compute_unmap(&cd, vm, end - page, page);
		}
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("MAP of a range that is not inside the buffer is rejected "
		     "with -EINVAL: one page too many, an offset at or past the "
		     "end, and an offset + range that overflows 64 bits.");
	igt_subtest("bo-bounds") {
		const uint64_t size = 4 * PAGE;
		const struct {
			uint64_t offset, range;
		} cases[] = {
			{ 0, size + PAGE },
			{ PAGE, size },
			{ size, PAGE },
			{ size + PAGE, PAGE },
			{ -PAGE, 2 * PAGE },
			{ -2 * PAGE, 4 * PAGE },
			{ PAGE, -PAGE },
		};
		uint32_t vm = compute_vm(&cd), h = compute_bo(&cd, size,
							      DRM_COMPUTE_PLACEMENT_SYSTEM);

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			struct drm_compute_vm_bind b = map_args(vm, h, cases[i].offset, V,
								cases[i].range, 0);

			expect_bind_rejected(&cd, &b, -EINVAL);
		}
		check_range_free(vm, V, 8 * PAGE);
		compute_map(&cd, vm, h, 3 * PAGE, V, PAGE, 0);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("An unknown VM id (0, never created, destroyed, another "
		     "file's) fails with -ENOENT for MAP and UNMAP, and so does an "
		     "unknown handle for MAP (0, closed, another file's).");
	igt_subtest("bad-ids") {
		static struct compute_dev other = { .fd = -1 };
		uint32_t vm = compute_vm(&cd), gone = compute_vm(&cd), theirs[3], hthem[3];
		uint32_t h = compute_bo(&cd, PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		uint32_t closed = compute_bo(&cd, PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		struct drm_compute_vm_bind b;

		compute_vm_destroy(&cd, gone);
		compute_bo_close(&cd, closed);
		compute_open_file(&cd, &other);
		for (unsigned int i = 0; i < 3; i++) {
			theirs[i] = compute_vm(&other);
			hthem[i] = compute_bo(&other, PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		}
		const uint32_t vms[] = { 0, gone, vm + 100, 0xffffffff, theirs[2] };
		const uint32_t handles[] = { 0, closed, h + 100, 0xffffffff, hthem[2] };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(vms); i++) {
			if (vms[i] == vm)
				continue;
			b = map_args(vms[i], h, 0, V, PAGE, 0);
			expect_bind_rejected(&cd, &b, -ENOENT);
			b = unmap_args(vms[i], V, PAGE);
			expect_bind_rejected(&cd, &b, -ENOENT);
		}
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(handles); i++) {
			if (handles[i] == h)
				continue;
			b = map_args(vm, handles[i], 0, V, PAGE, 0);
			expect_bind_rejected(&cd, &b, -ENOENT);
		}
		check_range_free(vm, V, PAGE);
		compute_close(&other);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, h);
	}

	igt_describe("MAP into a range that holds a mapping (the same range, "
		     "overlapping its start or end, inside it, around it) fails "
		     "with -EINVAL and changes nothing: the old mapping is still "
		     "what queues see and the rest of the range is still free.");
	igt_subtest_with_dynamic("map-overlap") {
		/* The existing mapping: pages [2, 6) of the range at V. */
		const struct {
			const char *name;
			uint64_t first, pages;
		} cases[] = {
			{ "same", 2, 4 },
			{ "start", 0, 3 },
			{ "end", 5, 3 },
			{ "inside", 3, 1 },
			{ "around", 0, 8 },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				uint32_t vm = probe_vm();
				uint32_t a = pattern_bo(4, DRM_COMPUTE_PLACEMENT_SYSTEM, 10);
				uint32_t b = pattern_bo(8, DRM_COMPUTE_PLACEMENT_SYSTEM, 11);
				uint64_t first = cases[i].first, last = first + cases[i].pages;
				struct drm_compute_vm_bind bind;

				compute_map(&cd, vm, a, 0, V + 2 * PAGE, 4 * PAGE, 0);
				bind = map_args(vm, b, 0, V + first * PAGE, cases[i].pages * PAGE, 0);
				expect_bind_rejected(&cd, &bind, -EINVAL);
				bind.flags = DRM_COMPUTE_VM_BIND_READONLY;
				expect_bind_rejected(&cd, &bind, -EINVAL);
				check_gpu_sees(vm, V + 2 * PAGE, 4 * PAGE, 10, 0);
				if (first < 2)
					check_range_free(vm, V + first * PAGE, (2 - first) * PAGE);
				if (last > 6)
					check_range_free(vm, V + 6 * PAGE, (last - 6) * PAGE);
				compute_vm_destroy(&cd, vm);
				compute_bo_close(&cd, a);
				compute_bo_close(&cd, b);
			}
		}
	}

	igt_describe("UNMAP of part of a mapping splits it: the pages outside "
		     "the range keep their buffer pages, those inside fault "
		     "UNMAPPED; an UNMAP straddling a hole and a mapping, and one "
		     "over an empty range, succeed; the hole takes a new buffer.");
	igt_subtest("unmap-split") {
		uint32_t vm = probe_vm();
		uint32_t a = pattern_bo(8, DRM_COMPUTE_PLACEMENT_SYSTEM, 20);
		uint32_t b = pattern_bo(3, DRM_COMPUTE_PLACEMENT_SYSTEM, 21);

		compute_map(&cd, vm, a, 0, V, 8 * PAGE, 0);
		compute_unmap(&cd, vm, V + 2 * PAGE, 2 * PAGE);
		check_gpu_sees(vm, V, 2 * PAGE, 20, 0);
		check_gpu_sees(vm, V + 4 * PAGE, 4 * PAGE, 20, 4 * PAGE);
		check_gpu_unmapped(vm, V + 2 * PAGE);
		check_gpu_unmapped(vm, V + 3 * PAGE);

		/* Straddling the hole and the next page. */
		compute_unmap(&cd, vm, V + 3 * PAGE, 2 * PAGE);
		check_gpu_unmapped(vm, V + 4 * PAGE);
		check_gpu_sees(vm, V + 5 * PAGE, 3 * PAGE, 20, 5 * PAGE);
		check_gpu_sees(vm, V + PAGE, PAGE, 20, PAGE);

		/* Nothing at all there. */
		compute_unmap(&cd, vm, V + 64 * PAGE, 16 * PAGE);

		compute_map(&cd, vm, b, 0, V + 2 * PAGE, 3 * PAGE, 0);
		check_gpu_sees(vm, V + 2 * PAGE, 3 * PAGE, 21, 0);
		check_gpu_sees(vm, V, 2 * PAGE, 20, 0);

		/* Across every piece and beyond: all gone. */
		compute_unmap(&cd, vm, V - PAGE, 10 * PAGE);
		check_range_free(vm, V - PAGE, 10 * PAGE);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, a);
		compute_bo_close(&cd, b);
	}

	igt_describe("READONLY is enforced by the engine: queues read the "
		     "mapping, but a FILL or an ATOMIC into it faults the queue "
		     "with DRM_COMPUTE_FAULT_WRITE at the address and leaves the "
		     "buffer unchanged; the CPU mapping stays writable; a queue "
		     "in another VM keeps running.");
	igt_subtest("readonly") {
		static struct compute_queue bystander;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], fault_va = 0;
		uint32_t vm = probe_vm(), other = compute_vm(&cd), qw;
		uint32_t a = pattern_bo(4, DRM_COMPUTE_PLACEMENT_SYSTEM, 30);
		uint32_t *m;
		size_t bad;

		compute_queue_init_at(&cd, other, COMPUTE_QUEUE_VA(2), &bystander);
		compute_map(&cd, vm, a, 0, V, 4 * PAGE, DRM_COMPUTE_VM_BIND_READONLY);
		check_gpu_sees(vm, V, 4 * PAGE, 30, 0);
		igt_assert_eq(gpu_fill(vm, V + PAGE + 16, 64, 0, &fault_va),
			      DRM_COMPUTE_FAULT_WRITE);
		igt_assert_eq_u64(fault_va, V + PAGE + 16);
		compute_check_alive(&bystander);
		qw = onenode_pkt_atomic(pkt, VCOMPUTE_ATOMIC_ADD_U32, V + 8, 1, 0, 0);
		igt_assert_eq(run_packet(vm, pkt, qw, &fault_va), DRM_COMPUTE_FAULT_WRITE);
		igt_assert_eq_u64(fault_va, V + 8);
		m = compute_bo_map(&cd, a, 4 * PAGE);
		igt_assert(compute_check_pattern(m, 4 * PAGE, 30, &bad));
		m[0] = 0x600d;
		munmap(m, 4 * PAGE);
		igt_assert_eq(gpu_read(vm, V, 4, NULL), 0);
		igt_assert_eq_u32(*(uint32_t *)result.cpu, 0x600d);
		compute_check_alive(&bystander);
		compute_queue_fini(&bystander);
		compute_vm_destroy(&cd, other);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, a);
	}

	igt_describe("NOEXEC is enforced by the engine: a queue whose ring is "
		     "bound NOEXEC faults with DRM_COMPUTE_FAULT_EXEC at the ring "
		     "address on its first packet, read pointer 0, while a queue in "
		     "another VM runs; a READONLY ring "
		     "executes; data in NOEXEC mappings is read and written "
		     "normally.");
	igt_subtest("noexec") {
		static struct compute_rawq rq;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		uint32_t vm = probe_vm(), qw;
		uint32_t a = pattern_bo(2, DRM_COMPUTE_PLACEMENT_SYSTEM, 40);

		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(2), 4096, DRM_COMPUTE_VM_BIND_NOEXEC,
				   &rq);
		compute_rawq_create(&rq);
		compute_rawq_submit(&rq);
		compute_assert_fault(&cd, rq.id, DRM_COMPUTE_FAULT_EXEC, rq.ring.va, 0);
		compute_rawq_teardown(&rq);
		check_other_vm_alive();

		compute_rawq_setup(&cd, vm, COMPUTE_QUEUE_VA(2), 4096,
				   DRM_COMPUTE_VM_BIND_READONLY, &rq);
		compute_rawq_create(&rq);
		compute_map(&cd, vm, a, 0, V, 2 * PAGE, DRM_COMPUTE_VM_BIND_NOEXEC);
		qw = onenode_pkt_copy(pkt, V + PAGE, V, 256);
		compute_rawq_emit(&rq, pkt, qw);
		compute_rawq_sync(&rq, compute_rawq_submit(&rq));
		compute_rawq_teardown(&rq);
		check_gpu_sees(vm, V + PAGE, 256, 40, 0);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, a);
	}

	igt_describe("A mapping holds a reference on its buffer: after GEM_CLOSE "
		     "of the only handle, queues still read and write the buffer "
		     "through the mapping until it is unmapped (on a device that "
		     "reports DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS, the close "
		     "unmaps it).");
	igt_subtest("holds-reference") {
		uint32_t vm = probe_vm();
		uint32_t a = pattern_bo(4, DRM_COMPUTE_PLACEMENT_VRAM & cd.info.placements ?
					DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM, 50);

		compute_map(&cd, vm, a, 0, V, 4 * PAGE, 0);
		compute_bo_close(&cd, a);
		if (!(cd.info.semantics & DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS)) {
			check_gpu_sees(vm, V, 4 * PAGE, 50, 0);
			igt_assert_eq(gpu_fill(vm, V, 4 * PAGE, 0x12345678, NULL), 0);
			igt_assert_eq(gpu_read(vm, V + 3 * PAGE, 8, NULL), 0);
			igt_assert_eq_u32(((uint32_t *)result.cpu)[1], 0x12345678);
			compute_unmap(&cd, vm, V, 4 * PAGE);
		}
		check_gpu_unmapped(vm, V);
		compute_vm_destroy(&cd, vm);
	}

	igt_describe("Processes sharing the file map their own buffers at the "
		     "same VA at once, 24 times: exactly one MAP succeeds, the "
		     "others fail with -EINVAL, and queues see the winner's "
		     "buffer.");
	igt_subtest("race-same-va") {
		race_vm = probe_vm();
		for (unsigned int c = 0; c < RACE_CHILDREN; c++)
			race_bos[c] = pattern_bo(1, DRM_COMPUTE_PLACEMENT_SYSTEM, 100 + c);
		compute_race_rounds(RACE_CHILDREN, RACE_ROUNDS, NULL, race_map_same_va,
				    check_one_mapped);
		for (unsigned int c = 0; c < RACE_CHILDREN; c++)
			compute_bo_close(&cd, race_bos[c]);
		compute_vm_destroy(&cd, race_vm);
	}

	igt_describe("A buffer is unmapped while a queue copies from it 4 to "
		     "64 times (after its first copies): the queue either completes or "
		     "faults UNMAPPED at an "
		     "address inside the unmapped range, the kernel stays clean, "
		     "and a queue in another VM keeps running.");
	igt_subtest("race-unmap-while-reading") {
		static struct compute_queue q, bystander;
		const uint64_t size = 256 * 1024;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], seed = 7;
		uint32_t other = compute_vm(&cd);
		unsigned int completed = 0, faulted = 0;

		compute_queue_init_at(&cd, other, COMPUTE_QUEUE_VA(2), &bystander);
		for (unsigned int round = 0; round < 6; round++) {
			uint32_t vm = probe_vm(), a, qw;
			struct drm_compute_userq_state st;
			uint64_t value, deadline = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;
			int ret;

			a = compute_bo(&cd, size, DRM_COMPUTE_PLACEMENT_SYSTEM);
			compute_map(&cd, vm, a, 0, V, size, 0);
			compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(0), &q);
			for (unsigned int i = 0; i < 4u << (round % 5); i++) {
				qw = onenode_pkt_copy(pkt, RESULT_VA, V, size);
				compute_emit(&q, pkt, qw);
			}
			value = compute_submit(&q);
			/* Unmap once the queue is past its first copies. */
			while (__atomic_load_n(q.q.rptr, __ATOMIC_ACQUIRE) < 2 * 8 * qw &&
			       compute_now_ns() < deadline)
				usleep(100);
			usleep(compute_rand32(&seed) % 5000);
			compute_unmap(&cd, vm, V, size);
			ret = onenode_queue_wait(&q.q, value, COMPUTE_TIMEOUT_MS * 1000000ll);
			compute_state(&cd, q.q.id, &st);
			if (ret == 0) {
				completed++;
			} else {
				igt_assert_eq(ret, -EIO);
				igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_FAULTED);
				igt_assert_eq_u32(st.fault_reason, DRM_COMPUTE_FAULT_UNMAPPED);
				igt_assert_f(st.fault_va >= V && st.fault_va < V + size,
					     "fault at %#" PRIx64 "\n", (uint64_t)st.fault_va);
				faulted++;
			}
			compute_check_alive(&bystander);
			compute_queue_fini(&q);
			compute_vm_destroy(&cd, vm);
			compute_bo_close(&cd, a);
		}
		igt_info("%u runs completed, %u faulted\n", completed, faulted);
		compute_queue_fini(&bystander);
		compute_vm_destroy(&cd, other);
	}

	igt_describe("Processes sharing the file map and unmap pages in their own "
		     "parts of one VM as fast as they can (splitting mappings) "
		     "while another creates, binds into and destroys VMs, for 2 s; "
		     "every bind succeeds and a queue in the VM keeps completing "
		     "work reading a stable mapping.");
	igt_subtest("race-bind-storm") {
		static struct compute_queue q;
		uint64_t pkt[ONENODE_PKT_MAX_QWORDS], end;
		uint32_t vm = probe_vm(), a = pattern_bo(1, DRM_COMPUTE_PLACEMENT_SYSTEM, 60), qw;
		unsigned long jobs = 0;

		memset(storm, 0, sizeof(*storm));
		compute_map(&cd, vm, a, 0, V, PAGE, 0);
		compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(0), &q);
		igt_fork(child, RACE_CHILDREN) {
			if (child == RACE_CHILDREN - 1)
				storm_vm_churner();
			else
				storm_binder(child, vm);
		}
		end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
		while (compute_now_ns() < end) {
			qw = onenode_pkt_copy(pkt, RESULT_VA, V, PAGE);
			compute_emit(&q, pkt, qw);
			compute_sync(&q, compute_submit(&q));
			jobs++;
		}
		igt_waitchildren();
		for (unsigned int c = 0; c + 1 < RACE_CHILDREN; c++)
			igt_info("child %u: %lu binds\n", c, storm->binds[c]);
		igt_info("%lu VMs churned, %lu queue jobs\n", storm->vms, jobs);
		check_gpu_sees(vm, V, PAGE, 60, 0);
		compute_queue_fini(&q);
		compute_vm_destroy(&cd, vm);
		compute_bo_close(&cd, a);
	}

	igt_fixture {
		compute_buf_fini(&cd, &result);
		compute_close(&cd);
	}
}
