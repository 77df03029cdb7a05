// SPDX-License-Identifier: MIT
/*
 * KUnit tests of the DRM compute helpers: the rules of VM_BIND.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include <drm/drm_compute.h>

#include "../drm_compute_internal.h"

static const struct drm_compute_dev_info info = {
	.va_start = SZ_64K,
	.va_end = 1ULL << 47,
	.page_size = PAGE_SIZE,
};

#define BO_SIZE	SZ_1M

static const struct drm_compute_vm_bind good_map = {
	.vm_id = 1,
	.op = DRM_COMPUTE_VM_BIND_OP_MAP,
	.flags = DRM_COMPUTE_VM_BIND_READONLY | DRM_COMPUTE_VM_BIND_NOEXEC,
	.handle = 1,
	.bo_offset = SZ_64K,
	.va = SZ_1G,
	.range = SZ_256K,
};

static const struct drm_compute_vm_bind good_unmap = {
	.vm_id = 1,
	.op = DRM_COMPUTE_VM_BIND_OP_UNMAP,
	.va = SZ_1G,
	.range = SZ_1G,
};

static void bind_accepts_valid(struct kunit *test)
{
	struct drm_compute_vm_bind b = good_map;

	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &good_map, BO_SIZE), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &good_unmap, U64_MAX), 0);
	/* The whole range, at both ends. */
	b.va = info.va_start;
	b.bo_offset = 0;
	b.range = BO_SIZE;
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &b, BO_SIZE), 0);
	b.va = info.va_end - BO_SIZE;
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &b, BO_SIZE), 0);
}

struct bind_case {
	const char *name;
	bool unmap;
	void (*spoil)(struct drm_compute_vm_bind *b);
};

static void s_op0(struct drm_compute_vm_bind *b) { b->op = 0; }
static void s_op3(struct drm_compute_vm_bind *b) { b->op = 3; }
static void s_pad(struct drm_compute_vm_bind *b) { b->pad = 1; }
static void s_flag(struct drm_compute_vm_bind *b) { b->flags |= BIT_ULL(2); }
static void s_flag_top(struct drm_compute_vm_bind *b) { b->flags |= BIT_ULL(63); }
static void s_range0(struct drm_compute_vm_bind *b) { b->range = 0; }
static void s_va_unaligned(struct drm_compute_vm_bind *b) { b->va += 1; }
static void s_range_unaligned(struct drm_compute_vm_bind *b) { b->range += 8; }
static void s_off_unaligned(struct drm_compute_vm_bind *b) { b->bo_offset += 2; }
static void s_below(struct drm_compute_vm_bind *b) { b->va = 0; }
static void s_below_end(struct drm_compute_vm_bind *b) { b->va = SZ_64K - SZ_4K; b->range = SZ_8K; }
static void s_above(struct drm_compute_vm_bind *b) { b->va = (1ULL << 47) - SZ_4K; b->range = SZ_8K; }
static void s_va_overflow(struct drm_compute_vm_bind *b) { b->va = U64_MAX & PAGE_MASK; b->range = SZ_8K; }
static void s_bo_past_end(struct drm_compute_vm_bind *b) { b->bo_offset = BO_SIZE - SZ_4K; b->range = SZ_8K; }
static void s_bo_overflow(struct drm_compute_vm_bind *b) { b->bo_offset = U64_MAX & PAGE_MASK; }
static void s_unmap_handle(struct drm_compute_vm_bind *b) { b->handle = 1; }
static void s_unmap_offset(struct drm_compute_vm_bind *b) { b->bo_offset = SZ_4K; }
static void s_unmap_flags(struct drm_compute_vm_bind *b) { b->flags = DRM_COMPUTE_VM_BIND_READONLY; }

static const struct bind_case bind_cases[] = {
	{ "op-zero", false, s_op0 },
	{ "op-unknown", false, s_op3 },
	{ "pad", false, s_pad },
	{ "flag-unknown", false, s_flag },
	{ "flag-top-bit", false, s_flag_top },
	{ "range-zero", false, s_range0 },
	{ "va-unaligned", false, s_va_unaligned },
	{ "range-unaligned", false, s_range_unaligned },
	{ "bo-offset-unaligned", false, s_off_unaligned },
	{ "va-zero", false, s_below },
	{ "va-below-start", false, s_below_end },
	{ "va-past-end", false, s_above },
	{ "va-overflow", false, s_va_overflow },
	{ "bo-past-end", false, s_bo_past_end },
	{ "bo-offset-overflow", false, s_bo_overflow },
	{ "unmap-range-zero", true, s_range0 },
	{ "unmap-va-unaligned", true, s_va_unaligned },
	{ "unmap-va-overflow", true, s_va_overflow },
	{ "unmap-pad", true, s_pad },
	{ "unmap-handle", true, s_unmap_handle },
	{ "unmap-bo-offset", true, s_unmap_offset },
	{ "unmap-flags", true, s_unmap_flags },
};

static void bind_case_desc(const struct bind_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bind_case, bind_cases, bind_case_desc);

static void bind_rejects(struct kunit *test)
{
	const struct bind_case *c = test->param_value;
	struct drm_compute_vm_bind b = c->unmap ? good_unmap : good_map;

	c->spoil(&b);
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &b, BO_SIZE), -EINVAL);
}

/* The ioctl checks everything but the bounds before looking the BO up. */
static void bind_bounds_need_size(struct kunit *test)
{
	struct drm_compute_vm_bind b = good_map;

	s_bo_past_end(&b);
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &b, U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &b, BO_SIZE), -EINVAL);
}

static struct kunit_case drm_compute_vm_tests[] = {
	KUNIT_CASE(bind_accepts_valid),
	KUNIT_CASE_PARAM(bind_rejects, bind_case_gen_params),
	KUNIT_CASE(bind_bounds_need_size),
	{}
};

static struct kunit_suite drm_compute_vm_suite = {
	.name = "drm_compute_vm",
	.test_cases = drm_compute_vm_tests,
};

kunit_test_suite(drm_compute_vm_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers' VM_BIND checks");
MODULE_LICENSE("Dual MIT/GPL");
