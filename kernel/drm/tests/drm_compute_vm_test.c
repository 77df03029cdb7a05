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

/* A field of the argument set to a value; up to two per case. */
struct field_set {
	size_t off;
	size_t size;
	u64 val;
};

#define SET32(f, v) { offsetof(struct drm_compute_vm_bind, f), 4, (v) }
#define SET64(f, v) { offsetof(struct drm_compute_vm_bind, f), 8, (v) }

struct bind_case {
	const char *name;
	bool unmap;
	struct field_set set[2];
};

static const struct bind_case bind_cases[] = {
	{ "op-zero", false, { SET32(op, 0) } },
	{ "op-unknown", false, { SET32(op, 3) } },
	{ "pad", false, { SET32(pad, 1) } },
	{ "flag-unknown", false, { SET64(flags, BIT_ULL(2)) } },
	{ "flag-top-bit", false, { SET64(flags, BIT_ULL(63)) } },
	{ "range-zero", false, { SET64(range, 0) } },
	{ "va-unaligned", false, { SET64(va, SZ_1G + 1) } },
	{ "range-unaligned", false, { SET64(range, SZ_256K + 8) } },
	{ "bo-offset-unaligned", false, { SET64(bo_offset, SZ_64K + 2) } },
	{ "va-zero", false, { SET64(va, 0) } },
	{ "va-below-start", false, { SET64(va, SZ_64K - SZ_4K), SET64(range, SZ_8K) } },
	{ "va-past-end", false, { SET64(va, (1ULL << 47) - SZ_4K), SET64(range, SZ_8K) } },
	{ "va-overflow", false, { SET64(va, U64_MAX & PAGE_MASK), SET64(range, SZ_8K) } },
	{ "bo-past-end", false, { SET64(bo_offset, BO_SIZE - SZ_4K), SET64(range, SZ_8K) } },
	{ "bo-offset-overflow", false, { SET64(bo_offset, U64_MAX & PAGE_MASK) } },
	{ "unmap-range-zero", true, { SET64(range, 0) } },
	{ "unmap-va-unaligned", true, { SET64(va, SZ_1G + 1) } },
	{ "unmap-va-overflow", true, { SET64(va, U64_MAX & PAGE_MASK), SET64(range, SZ_8K) } },
	{ "unmap-pad", true, { SET32(pad, 1) } },
	{ "unmap-handle", true, { SET32(handle, 1) } },
	{ "unmap-bo-offset", true, { SET64(bo_offset, SZ_4K) } },
	{ "unmap-flags", true, { SET64(flags, DRM_COMPUTE_VM_BIND_READONLY) } },
};

static void apply(struct drm_compute_vm_bind *b, const struct field_set *set)
{
	unsigned int i;

	for (i = 0; i < 2 && set[i].size; i++) {
		void *field = (u8 *)b + set[i].off;

		if (set[i].size == sizeof(u32))
			*(u32 *)field = set[i].val;
		else
			*(u64 *)field = set[i].val;
	}
}

static void bind_case_desc(const struct bind_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bind_case, bind_cases, bind_case_desc);

static void bind_rejects(struct kunit *test)
{
	const struct bind_case *c = test->param_value;
	struct drm_compute_vm_bind b = c->unmap ? good_unmap : good_map;

	apply(&b, c->set);
	KUNIT_EXPECT_EQ(test, drm_compute_bind_check(&info, &b, BO_SIZE), -EINVAL);
}

/* The ioctl checks everything but the bounds before looking the BO up. */
static void bind_bounds_need_size(struct kunit *test)
{
	struct drm_compute_vm_bind b = good_map;

	b.bo_offset = BO_SIZE - SZ_4K;
	b.range = SZ_8K;
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
