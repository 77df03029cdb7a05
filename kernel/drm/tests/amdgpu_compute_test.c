// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * KUnit tests of the device-free part of amdgpu's DRM compute glue
 * (drivers/gpu/drm/amd/amdgpu/amdgpu_compute_args.h): what the glue hands
 * to amdgpu for a compute queue and a VM_BIND. The functions are static
 * inline, so this suite builds into the kernel while amdgpu is a module.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/string.h>

#include "../amd/amdgpu/amdgpu_compute_args.h"

/* amdgpu's order of its four levels: low < normal low < normal high < high. */
static int level_rank(u32 flags)
{
	switch (flags & AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_MASK) {
	case AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_LOW:
		return 0;
	case AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_LOW:
		return 1;
	case AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_HIGH:
		return 2;
	default:
		return 3;
	}
}

struct priority_case {
	u32 priority;
	u32 level;
};

/* ROCm's HSA levels -3..3 are 0, 3, 5, 7, 9, 11, 15; the rest in between. */
static const struct priority_case priority_cases[] = {
	{ 0, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_LOW },
	{ 3, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_LOW },
	{ 5, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_LOW },
	{ 6, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_LOW },
	{ 7, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_LOW },
	{ 8, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_LOW },
	{ 9, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_HIGH },
	{ 11, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_HIGH },
	{ 12, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_HIGH },
	{ 15, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_HIGH },
};

static void priority_case_desc(const struct priority_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "priority %u", c->priority);
}

KUNIT_ARRAY_PARAM(priority, priority_cases, priority_case_desc);

static void amdgpu_compute_test_priority_level(struct kunit *test)
{
	const struct priority_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, amdgpu_compute_priority_flags(c->priority),
			c->level << AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_SHIFT);
}

/*
 * Over every level: the flags stay in amdgpu's priority field, never go
 * down as the level goes up, and are HIGH exactly from the level that the
 * device reports as privileged, the only level amdgpu_userq_priority_permit()
 * checks. The default level is amdgpu's own default.
 */
static void amdgpu_compute_test_priority_order(struct kunit *test)
{
	int prev = -1;
	u32 p;

	for (p = 0; p < AMDGPU_COMPUTE_NUM_PRIORITIES; p++) {
		u32 flags = amdgpu_compute_priority_flags(p);
		u32 level = (flags & AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_MASK) >>
			    AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_SHIFT;

		KUNIT_EXPECT_EQ(test, flags & ~AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_MASK, 0);
		KUNIT_EXPECT_GE(test, level_rank(flags), prev);
		prev = level_rank(flags);
		KUNIT_EXPECT_EQ(test,
				level == AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_HIGH,
				p >= AMDGPU_COMPUTE_PRIORITY_PRIVILEGED);
	}
	KUNIT_EXPECT_EQ(test, amdgpu_compute_priority_flags(AMDGPU_COMPUTE_PRIORITY_DEFAULT),
			AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_LOW);
	KUNIT_EXPECT_LT(test, AMDGPU_COMPUTE_PRIORITY_DEFAULT,
			AMDGPU_COMPUTE_PRIORITY_PRIVILEGED);
}

/* CP_HQD_QUEUE_PRIORITY takes the level itself, 0..15, as KFD writes it. */
static void amdgpu_compute_test_hqd_priority(struct kunit *test)
{
	u32 p;

	for (p = 0; p < AMDGPU_COMPUTE_NUM_PRIORITIES; p++)
		KUNIT_EXPECT_EQ(test, amdgpu_compute_hqd_queue_priority(p), p);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_hqd_queue_priority(16), 15);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_hqd_queue_priority(U32_MAX), 15);
}

static void amdgpu_compute_test_vm_flags(struct kunit *test)
{
	const u32 r = AMDGPU_VM_PAGE_READABLE, w = AMDGPU_VM_PAGE_WRITEABLE,
		  x = AMDGPU_VM_PAGE_EXECUTABLE;

	KUNIT_EXPECT_EQ(test, amdgpu_compute_vm_flags(0), r | w | x);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_vm_flags(DRM_COMPUTE_VM_BIND_READONLY),
			r | x);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_vm_flags(DRM_COMPUTE_VM_BIND_NOEXEC),
			r | w);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_vm_flags(DRM_COMPUTE_VM_BIND_READONLY |
						       DRM_COMPUTE_VM_BIND_NOEXEC),
			r);
}

/* A checkpoint reads back the VM_BIND flags the map was made with. */
static void amdgpu_compute_test_bind_flags_roundtrip(struct kunit *test)
{
	u64 f;

	for (f = 0; f <= (DRM_COMPUTE_VM_BIND_READONLY | DRM_COMPUTE_VM_BIND_NOEXEC); f++)
		KUNIT_EXPECT_EQ(test, amdgpu_compute_bind_flags(amdgpu_compute_vm_flags(f)), f);
}

/*
 * Only what BO_CREATE makes is saved (its flags as amdgpu_gem_object_create()
 * leaves them); GEM_CREATE's other flags and domains would be lost.
 */
static void amdgpu_compute_test_criu_bo_flags(struct kunit *test)
{
	const u64 made = AMDGPU_GEM_CREATE_VRAM_CLEARED | AMDGPU_GEM_CREATE_VRAM_WIPE_ON_RELEASE;
	const u32 vram = AMDGPU_GEM_DOMAIN_VRAM, gtt = AMDGPU_GEM_DOMAIN_GTT;

	KUNIT_EXPECT_TRUE(test, amdgpu_compute_criu_bo_flags_ok(made, vram));
	KUNIT_EXPECT_TRUE(test, amdgpu_compute_criu_bo_flags_ok(made, gtt));
	KUNIT_EXPECT_TRUE(test, amdgpu_compute_criu_bo_flags_ok(made |
				AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED, vram));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(AMDGPU_GEM_CREATE_VRAM_CLEARED,
								 vram));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(made, vram | gtt));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(made, AMDGPU_GEM_DOMAIN_GDS));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(made |
				 AMDGPU_GEM_CREATE_CPU_GTT_USWC, gtt));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(made |
				 AMDGPU_GEM_CREATE_NO_CPU_ACCESS, vram));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(made |
				 AMDGPU_GEM_CREATE_VM_ALWAYS_VALID, vram));
	KUNIT_EXPECT_FALSE(test, amdgpu_compute_criu_bo_flags_ok(made |
				 AMDGPU_GEM_CREATE_EXPLICIT_SYNC, vram));
}

static void amdgpu_compute_test_domain(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, amdgpu_compute_domain(DRM_COMPUTE_PLACEMENT_VRAM),
			AMDGPU_GEM_DOMAIN_VRAM);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_domain(DRM_COMPUTE_PLACEMENT_SYSTEM),
			AMDGPU_GEM_DOMAIN_GTT);
}

/* A few CUs enabled across the word and long boundaries. */
static void amdgpu_compute_test_cu_mask_words(struct kunit *test)
{
	DECLARE_BITMAP(mask, 72);
	u32 words[3] = { 0xdeadbeef, 0xdeadbeef, 0xdeadbeef };

	bitmap_zero(mask, 72);
	__set_bit(0, mask);
	__set_bit(31, mask);
	__set_bit(32, mask);
	__set_bit(63, mask);
	__set_bit(64, mask);
	__set_bit(71, mask);
	KUNIT_ASSERT_EQ(test, amdgpu_compute_cu_mask_words(words, mask, 72), 3);
	KUNIT_EXPECT_EQ(test, words[0], 0x80000001u);
	KUNIT_EXPECT_EQ(test, words[1], 0x80000001u);
	/* CU 64 and 71; nothing past the last CU. */
	KUNIT_EXPECT_EQ(test, words[2], 0x00000081u);
}

/* Every CU count up to 96, a pattern that leaves CUs out: bit n is CU n. */
static void amdgpu_compute_test_cu_mask_pattern(struct kunit *test)
{
	DECLARE_BITMAP(mask, 96);
	u32 words[3], n, i;

	for (n = 1; n <= 96; n++) {
		u32 count;

		bitmap_zero(mask, n);
		for (i = 0; i < n; i += 3)
			__set_bit(i, mask);
		memset(words, 0xff, sizeof(words));
		count = amdgpu_compute_cu_mask_words(words, mask, n);
		if (n == 1) {
			/* CU 0 alone is every CU. */
			KUNIT_EXPECT_EQ(test, count, 0);
			continue;
		}
		KUNIT_ASSERT_EQ(test, count, DIV_ROUND_UP(n, 32));
		for (i = 0; i < count * 32; i++)
			KUNIT_EXPECT_EQ_MSG(test, !!(words[i / 32] & BIT(i % 32)),
					    i < n && i % 3 == 0, "n %u, CU %u", n, i);
	}
}

/* A mask with every CU is no mask: the MQD keeps amdgpu's default. */
static void amdgpu_compute_test_cu_mask_full(struct kunit *test)
{
	DECLARE_BITMAP(mask, 80);
	u32 words[3] = { 1, 2, 3 };

	bitmap_fill(mask, 80);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_cu_mask_words(words, mask, 80), 0);
	KUNIT_EXPECT_EQ(test, words[0], 1);
	__clear_bit(79, mask);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_cu_mask_words(words, mask, 80), 3);
	KUNIT_EXPECT_EQ(test, words[2], 0x7fffu);
}

static void amdgpu_compute_test_userq_in(struct kunit *test)
{
	DECLARE_BITMAP(mask, 8);
	const struct drm_compute_userq_args args = {
		.format = DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4,
		.priority = 12,
		.cu_mask = mask,
		.ring_va = 0x100000,
		.ring_size = 0x10000,
		.rptr_va = 0x200000,
		.wptr_va = 0x200008,
	};
	struct drm_amdgpu_userq_mqd_compute_gfx11 mqd;
	struct drm_amdgpu_userq_in in;

	memset(&in, 0xff, sizeof(in));
	memset(&mqd, 0xff, sizeof(mqd));
	amdgpu_compute_userq_in(&in, &mqd, &args, 5, 0x7fffffe00000 + 5 * 2048);

	KUNIT_EXPECT_EQ(test, in.op, AMDGPU_USERQ_OP_CREATE);
	KUNIT_EXPECT_EQ(test, in.queue_id, 0);
	KUNIT_EXPECT_EQ(test, in.ip_type, AMDGPU_HW_IP_COMPUTE);
	KUNIT_EXPECT_EQ(test, in.doorbell_handle, 0);
	KUNIT_EXPECT_EQ(test, in.doorbell_offset, 5);
	KUNIT_EXPECT_EQ(test, in.flags, AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_HIGH);
	KUNIT_EXPECT_EQ(test, in.queue_va, 0x100000);
	KUNIT_EXPECT_EQ(test, in.queue_size, 0x10000);
	KUNIT_EXPECT_EQ(test, in.rptr_va, 0x200000);
	KUNIT_EXPECT_EQ(test, in.wptr_va, 0x200008);
	KUNIT_EXPECT_EQ(test, in.mqd, 0);
	KUNIT_EXPECT_EQ(test, in.mqd_size, sizeof(mqd));
	KUNIT_EXPECT_EQ(test, mqd.eop_va, 0x7fffffe00000 + 5 * 2048);
}

/* Every slot's EOP buffer lies in the window, apart from the others. */
static void amdgpu_compute_test_eop_va(struct kunit *test)
{
	const u64 base = amdgpu_compute_va_end(1ULL << 47, 1ULL << 48);
	u32 slot;

	for (slot = 0; slot < AMDGPU_COMPUTE_MAX_QUEUES; slot++) {
		u64 va = amdgpu_compute_eop_va(base, slot);

		KUNIT_EXPECT_GE(test, va, base);
		KUNIT_EXPECT_LE(test, va + AMDGPU_COMPUTE_EOP_SIZE,
				base + AMDGPU_COMPUTE_EOP_WINDOW);
		KUNIT_EXPECT_EQ(test, va % 256, 0);	/* EOP base >> 8 */
		if (slot)
			KUNIT_EXPECT_EQ(test, va - amdgpu_compute_eop_va(base, slot - 1),
					AMDGPU_COMPUTE_EOP_SIZE);
	}
	/* The doorbells fit the one page each file gets. */
	KUNIT_EXPECT_LE(test, AMDGPU_COMPUTE_MAX_QUEUES * AMDGPU_COMPUTE_DOORBELL_SIZE,
			PAGE_SIZE);
}

static void amdgpu_compute_test_va_end(struct kunit *test)
{
	/* 48-bit VM: the low half ends at the hole. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_va_end(1ULL << 47, (1ULL << 48) - SZ_4M),
			(1ULL << 47) - SZ_2M);
	/* 57-bit VM. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_va_end(1ULL << 56, (1ULL << 57) - SZ_4M),
			(1ULL << 56) - SZ_2M);
	/* A VM smaller than the low half ends at its reserved top. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_va_end(1ULL << 47, (1ULL << 40) - SZ_4M),
			(1ULL << 40) - SZ_4M - SZ_2M);
}

struct rptr_case {
	const char *name;
	u64 wptr;
	u32 rptr;
	u64 ring_size;
	u64 expect;
};

static const struct rptr_case rptr_cases[] = {
	{ "new queue", 0, 0, SZ_4K, 0 },
	{ "idle before a wrap", 100, 100, SZ_4K, 100 },
	{ "busy before a wrap", 100, 40, SZ_4K, 40 },
	{ "idle after wraps", 5 * 1024 + 7, 7, SZ_4K, 5 * 1024 + 7 },
	{ "writer wrapped, reader not", 1030, 1020, SZ_4K, 1020 },
	{ "both wrapped", 1030, 2, SZ_4K, 1026 },
	{ "a full ring ahead but one", 2047, 0, SZ_4K, 1024 },
	{ "large ring", (1ULL << 33) + 5, 3, SZ_1G, (1ULL << 33) + 3 },
	{ "near the top", U64_MAX, 1023, SZ_4K, U64_MAX },
};

static void rptr_case_desc(const struct rptr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rptr, rptr_cases, rptr_case_desc);

static void amdgpu_compute_test_rptr(struct kunit *test)
{
	const struct rptr_case *c = test->param_value;
	u64 rptr = amdgpu_compute_rptr(c->wptr, c->rptr, c->ring_size);

	KUNIT_EXPECT_EQ(test, rptr, c->expect);
	KUNIT_EXPECT_LE(test, rptr, c->wptr);
	KUNIT_EXPECT_LT(test, c->wptr - rptr, c->ring_size / 4);
	KUNIT_EXPECT_EQ(test, rptr % (c->ring_size / 4), c->rptr);
}

/* A restored queue's MQD: the CP reports the checkpointed read pointer back. */
static void amdgpu_compute_test_ring_regs(struct kunit *test)
{
	struct amdgpu_compute_ring_regs regs;

	for (unsigned int i = 0; i < ARRAY_SIZE(rptr_cases); i++) {
		const struct rptr_case *c = &rptr_cases[i];

		KUNIT_ASSERT_EQ_MSG(test, amdgpu_compute_ring_regs(c->expect, c->wptr,
								   c->ring_size, &regs),
				    0, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, regs.pq_rptr, c->rptr, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, amdgpu_compute_rptr(c->wptr, regs.pq_rptr,
							      c->ring_size),
				    c->expect, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, (u64)regs.pq_wptr_hi << 32 | regs.pq_wptr_lo,
				    c->wptr, "%s", c->name);
	}
	/* Past the write pointer, or a whole ring behind it: a damaged image. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_ring_regs(101, 100, SZ_4K, &regs), -EINVAL);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_ring_regs(0, 1024, SZ_4K, &regs), -EINVAL);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_ring_regs(1, 1024, SZ_4K, &regs), 0);
	KUNIT_EXPECT_EQ(test, regs.pq_rptr, 1);
}

static void amdgpu_compute_test_svm_page_flags(struct kunit *test)
{
	const u32 rw = AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_PAGE_WRITEABLE;
	const u32 w = DRM_COMPUTE_SVM_MAP_WRITE;

	/* Read-only unless the plan says WRITE: GPU_RO, a read-only copy. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(0),
			AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_MTYPE_NC);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(DRM_COMPUTE_SVM_MAP_COPY),
			AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_MTYPE_NC);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(w), rw | AMDGPU_VM_MTYPE_NC);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(w | DRM_COMPUTE_SVM_MAP_EXEC),
			rw | AMDGPU_VM_PAGE_EXECUTABLE | AMDGPU_VM_MTYPE_NC);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(w | DRM_COMPUTE_SVM_MAP_COHERENT),
			rw | AMDGPU_VM_MTYPE_UC);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(DRM_COMPUTE_SVM_MAP_COHERENT),
			AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_MTYPE_UC);
	/* Keeping a range mapped is the helper's business, not the entries'. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_page_flags(w | DRM_COMPUTE_SVM_MAP_ALWAYS),
			rw | AMDGPU_VM_MTYPE_NC);
}

#define SYS(a, o)  drm_pagemap_addr_encode((a), DRM_INTERCONNECT_SYSTEM, (o), DMA_BIDIRECTIONAL)
#define VRAM(a, o) drm_pagemap_addr_encode((a), AMDGPU_INTERCONNECT_VRAM, (o), DMA_BIDIRECTIONAL)

/* drm_gpusvm's array is packed: one entry per mapping. */
static void amdgpu_compute_test_svm_next_run(struct kunit *test)
{
	/*
	 * 20 pages: 2 system, VRAM order-2 at 0x100000, VRAM 4 more
	 * contiguous, VRAM discontiguous x2, system order-3.
	 */
	struct drm_pagemap_addr src[16] = {
		SYS(0x10000, 0), SYS(0x80000, 0),
		VRAM(0x100000, 2),
		VRAM(0x104000, 0), VRAM(0x105000, 0), VRAM(0x106000, 0), VRAM(0x107000, 0),
		VRAM(0x200000, 0), VRAM(0x201000, 0),
		SYS(0x400000, 3),
	};
	struct amdgpu_compute_svm_run run;
	unsigned long pos = 0, page = 0;
	dma_addr_t dma[20] = {};

	KUNIT_ASSERT_EQ(test, amdgpu_compute_svm_next_run(src, 20, &pos, &page, &run, dma), 1);
	KUNIT_EXPECT_FALSE(test, run.vram);
	KUNIT_EXPECT_EQ(test, run.first, 0UL);
	KUNIT_EXPECT_EQ(test, run.npages, 2UL);
	KUNIT_EXPECT_EQ(test, dma[1], (dma_addr_t)0x80000);

	KUNIT_ASSERT_EQ(test, amdgpu_compute_svm_next_run(src, 20, &pos, &page, &run, dma), 1);
	KUNIT_EXPECT_TRUE(test, run.vram);
	KUNIT_EXPECT_EQ(test, run.first, 2UL);
	KUNIT_EXPECT_EQ(test, run.npages, 8UL);	/* order-2 + 4 contiguous */
	KUNIT_EXPECT_EQ(test, run.vram_offset, 0x100000ULL);

	KUNIT_ASSERT_EQ(test, amdgpu_compute_svm_next_run(src, 20, &pos, &page, &run, dma), 1);
	KUNIT_EXPECT_EQ(test, run.first, 10UL);
	KUNIT_EXPECT_EQ(test, run.npages, 2UL);
	KUNIT_EXPECT_EQ(test, run.vram_offset, 0x200000ULL);

	KUNIT_ASSERT_EQ(test, amdgpu_compute_svm_next_run(src, 20, &pos, &page, &run, dma), 1);
	KUNIT_EXPECT_FALSE(test, run.vram);
	KUNIT_EXPECT_EQ(test, run.npages, 8UL);
	KUNIT_EXPECT_EQ(test, dma[12 + 7], (dma_addr_t)(0x400000 + 7 * PAGE_SIZE));

	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_next_run(src, 20, &pos, &page, &run, dma), 0);

	/* An order running past the range, another protocol: -EINVAL. */
	pos = 0;
	page = 0;
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_next_run(src, 3, &pos, &page, &run, dma), 1);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_svm_next_run(src, 3, &pos, &page, &run, dma),
			-EINVAL);
}

struct copy_case {
	u64 vram[16];	/* U64_MAX: no device page */
};

static u64 test_vram_offset(const void *arg, unsigned long i)
{
	return ((const struct copy_case *)arg)->vram[i];
}

/* drm_pagemap's copy arrays are indexed by page, followers unfilled. */
static void amdgpu_compute_test_copy_next(struct kunit *test)
{
	const u64 N = U64_MAX, P = PAGE_SIZE;
	/*
	 * 0: hole; 1-2 contiguous; 3: order-2 head contiguous (3..6);
	 * 7: discontiguous; 8: no device page.
	 */
	struct copy_case c = { .vram = { N, 0, P, 2 * P, N, N, N, 100 * P, N } };
	struct drm_pagemap_addr addr[9] = {
		[1] = SYS(0x1000, 0), [2] = SYS(0x9000, 0), [3] = SYS(0x20000, 2),
		[7] = SYS(0x50000, 0), [8] = SYS(0x60000, 0),
	};
	struct amdgpu_compute_copy_iter it = {};
	struct amdgpu_compute_copy_batch b;
	dma_addr_t dma[8];

	KUNIT_ASSERT_TRUE(test, amdgpu_compute_copy_next(addr, 9, test_vram_offset, &c,
							 8, &it, &b, dma));
	KUNIT_EXPECT_EQ(test, b.first, 1UL);
	KUNIT_EXPECT_EQ(test, b.npages, 6UL);
	KUNIT_EXPECT_EQ(test, b.vram_offset, 0ULL);
	KUNIT_EXPECT_EQ(test, dma[5], (dma_addr_t)(0x20000 + 3 * P));

	KUNIT_ASSERT_TRUE(test, amdgpu_compute_copy_next(addr, 9, test_vram_offset, &c,
							 8, &it, &b, dma));
	KUNIT_EXPECT_EQ(test, b.first, 7UL);
	KUNIT_EXPECT_EQ(test, b.npages, 1UL);
	KUNIT_EXPECT_EQ(test, b.vram_offset, 100 * P);

	KUNIT_EXPECT_FALSE(test, amdgpu_compute_copy_next(addr, 9, test_vram_offset, &c,
							  8, &it, &b, dma));

	/* A window of 3 pages splits the order-2 entry. */
	memset(&it, 0, sizeof(it));
	KUNIT_ASSERT_TRUE(test, amdgpu_compute_copy_next(addr, 9, test_vram_offset, &c,
							 3, &it, &b, dma));
	KUNIT_EXPECT_EQ(test, b.npages, 3UL);	/* 1, 2, 3 */
	KUNIT_ASSERT_TRUE(test, amdgpu_compute_copy_next(addr, 9, test_vram_offset, &c,
							 3, &it, &b, dma));
	KUNIT_EXPECT_EQ(test, b.first, 4UL);
	KUNIT_EXPECT_EQ(test, b.npages, 3UL);	/* rest of the entry: 4, 5, 6 */
	KUNIT_EXPECT_EQ(test, b.vram_offset, 3 * P);
	KUNIT_EXPECT_EQ(test, dma[0], (dma_addr_t)(0x20000 + P));
}

struct span_case {
	const char *name;
	u64 start, end, va, va_end;
	struct amdgpu_compute_span_cut want;
};

/*
 * An UNMAP against one compute mapping [0x10000, 0x40000): what is
 * cleared and what stays. The glue used to clear the whole compute VA
 * range instead, GEM_VA mappings included (issue 23).
 */
static const struct span_case span_cases[] = {
	{ "miss-before", 0x10000, 0x40000, 0x0, 0x10000,
	  { 0, 0, { 0x10000 }, { 0x40000 }, 1 } },
	{ "miss-after", 0x10000, 0x40000, 0x40000, 0x50000,
	  { 0, 0, { 0x10000 }, { 0x40000 }, 1 } },
	{ "exact", 0x10000, 0x40000, 0x10000, 0x40000,
	  { 0x10000, 0x40000, {}, {}, 0 } },
	{ "covering", 0x10000, 0x40000, 0x0, U64_MAX,
	  { 0x10000, 0x40000, {}, {}, 0 } },
	{ "head", 0x10000, 0x40000, 0x0, 0x20000,
	  { 0x10000, 0x20000, { 0x20000 }, { 0x40000 }, 1 } },
	{ "tail", 0x10000, 0x40000, 0x30000, 0x80000,
	  { 0x30000, 0x40000, { 0x10000 }, { 0x30000 }, 1 } },
	{ "hole", 0x10000, 0x40000, 0x20000, 0x30000,
	  { 0x20000, 0x30000, { 0x10000, 0x30000 }, { 0x20000, 0x40000 }, 2 } },
};

static void span_desc(const struct span_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(span, span_cases, span_desc);

static void amdgpu_compute_test_span_cut(struct kunit *test)
{
	const struct span_case *c = test->param_value;
	struct amdgpu_compute_span_cut got;
	unsigned int i;

	amdgpu_compute_span_cut(c->start, c->end, c->va, c->va_end, &got);
	KUNIT_EXPECT_EQ(test, got.clear_start, c->want.clear_start);
	KUNIT_EXPECT_EQ(test, got.clear_end, c->want.clear_end);
	KUNIT_ASSERT_EQ(test, got.keep, c->want.keep);
	for (i = 0; i < got.keep; i++) {
		KUNIT_EXPECT_EQ(test, got.keep_start[i], c->want.keep_start[i]);
		KUNIT_EXPECT_EQ(test, got.keep_end[i], c->want.keep_end[i]);
	}
}

/* amdgpu's compute job timeout, per device, becomes the helper's hang timeout. */
static void amdgpu_compute_test_hang_timeout(struct kunit *test)
{
	static const struct {
		long jiffies;
		u32 ms;
	} cases[] = {
		{ 10 * HZ, 10000 },
		{ 60 * HZ, 60000 },
		{ 0, 1 },	/* never 0, which would mean the helper's default */
		{ MAX_SCHEDULE_TIMEOUT, U32_MAX },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, amdgpu_compute_hang_timeout_ms(cases[i].jiffies),
				    cases[i].ms, "%ld jiffies", cases[i].jiffies);
}

static struct kunit_case amdgpu_compute_test_cases[] = {
	KUNIT_CASE_PARAM(amdgpu_compute_test_priority_level, priority_gen_params),
	KUNIT_CASE(amdgpu_compute_test_priority_order),
	KUNIT_CASE(amdgpu_compute_test_hqd_priority),
	KUNIT_CASE(amdgpu_compute_test_vm_flags),
	KUNIT_CASE(amdgpu_compute_test_bind_flags_roundtrip),
	KUNIT_CASE(amdgpu_compute_test_criu_bo_flags),
	KUNIT_CASE(amdgpu_compute_test_domain),
	KUNIT_CASE(amdgpu_compute_test_cu_mask_words),
	KUNIT_CASE(amdgpu_compute_test_cu_mask_pattern),
	KUNIT_CASE(amdgpu_compute_test_cu_mask_full),
	KUNIT_CASE(amdgpu_compute_test_userq_in),
	KUNIT_CASE(amdgpu_compute_test_eop_va),
	KUNIT_CASE(amdgpu_compute_test_va_end),
	KUNIT_CASE_PARAM(amdgpu_compute_test_rptr, rptr_gen_params),
	KUNIT_CASE(amdgpu_compute_test_ring_regs),
	KUNIT_CASE(amdgpu_compute_test_svm_page_flags),
	KUNIT_CASE(amdgpu_compute_test_svm_next_run),
	KUNIT_CASE(amdgpu_compute_test_copy_next),
	KUNIT_CASE_PARAM(amdgpu_compute_test_span_cut, span_gen_params),
	KUNIT_CASE(amdgpu_compute_test_hang_timeout),
	{}
};

static struct kunit_suite amdgpu_compute_test_suite = {
	.name = "amdgpu_compute",
	.test_cases = amdgpu_compute_test_cases,
};

kunit_test_suite(amdgpu_compute_test_suite);

MODULE_DESCRIPTION("KUnit tests for amdgpu's DRM compute glue");
MODULE_LICENSE("Dual MIT/GPL");
