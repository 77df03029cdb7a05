// SPDX-License-Identifier: MIT
/*
 * KUnit tests of the DRM compute helpers: features from ops, the checks of
 * a driver's description, and the query reports.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include <drm/drm_compute.h>

#include "../drm_compute_internal.h"

/* Never called: only their presence counts. */
static int nop_bo_create(struct drm_compute_file *cfile, u64 size, u64 placement,
			 u32 *handle)
{
	return -ENODEV;
}

static struct drm_compute_vm *nop_vm_create(struct drm_compute_file *cfile)
{
	return ERR_PTR(-ENODEV);
}

static void nop_vm_free(struct drm_compute_vm *vm)
{
}

static int nop_vm_bind(struct drm_compute_vm *vm, const struct drm_compute_bind *bind)
{
	return -ENODEV;
}

static struct drm_compute_userq *nop_userq_create(struct drm_compute_file *cfile,
						  const struct drm_compute_userq_args *args,
						  u64 *offset, u32 *pos)
{
	return ERR_PTR(-ENODEV);
}

static void nop_userq(struct drm_compute_userq *q)
{
}

static int nop_userq_int(struct drm_compute_userq *q)
{
	return -ENODEV;
}

static void nop_hw_state(struct drm_compute_userq *q, struct drm_compute_userq_hw *hw)
{
}

static int nop_p2p_bo_create(struct drm_compute_file *cfile, u64 size,
			     u64 placement, u32 flags, u32 *handle)
{
	return -ENODEV;
}

static struct drm_compute_p2p_export *nop_p2p_export(struct drm_gem_object *obj)
{
	return NULL;
}

static int nop_p2p_move(struct drm_gem_object *obj, struct dma_buf *dmabuf)
{
	return -ENODEV;
}

static u64 nop_bo_criu_placement(struct drm_gem_object *obj)
{
	return 0;
}

static int nop_bo_criu_copy(struct drm_gem_object *obj, u64 offset,
			    struct iov_iter *iter)
{
	return -ENODEV;
}

static int nop_vm_criu_mappings(struct drm_compute_vm *vm,
				struct drm_compute_criu_map *maps, u32 max, u32 *n)
{
	return -ENODEV;
}

static const struct drm_compute_ops full_ops = {
	.bo_create = nop_bo_create,
	.vm_create = nop_vm_create,
	.vm_free = nop_vm_free,
	.vm_bind = nop_vm_bind,
	.userq_create = nop_userq_create,
	.userq_start = nop_userq,
	.userq_stop = nop_userq,
	.userq_free = nop_userq,
	.userq_suspend = nop_userq_int,
	.userq_resume = nop_userq_int,
	.userq_hw_state = nop_hw_state,
	.userq_wake = nop_userq,
};

static const struct drm_compute_dev_info info = {
	.vram_size = SZ_1G,
	.vram_bar_size = SZ_256M,
	.placements = DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM,
	.va_start = SZ_64K,
	.va_end = 1ULL << 47,
	.page_size = PAGE_SIZE,
	.max_vms = 4,
	.max_queues = 8,
	.num_priorities = 16,
	.priority_default = 7,
	.priority_privileged = 12,
	.num_cus = 8,
	.queue_formats = BIT(DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE),
	.doorbell_size = PAGE_SIZE,
	.userq_caps = DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP,
	.ring_size_min = SZ_4K,
	.ring_size_max = SZ_4M,
	.ctx_save_size = PAGE_SIZE,
};

static void features_follow_ops(struct kunit *test)
{
	/* Each mandatory USERQ callback, removed in turn, drops the feature. */
	static const size_t mandatory[] = {
		offsetof(struct drm_compute_ops, bo_create),
		offsetof(struct drm_compute_ops, vm_create),
		offsetof(struct drm_compute_ops, vm_free),
		offsetof(struct drm_compute_ops, vm_bind),
		offsetof(struct drm_compute_ops, userq_create),
		offsetof(struct drm_compute_ops, userq_stop),
		offsetof(struct drm_compute_ops, userq_free),
		offsetof(struct drm_compute_ops, userq_suspend),
		offsetof(struct drm_compute_ops, userq_resume),
		offsetof(struct drm_compute_ops, userq_hw_state),
	};
	struct drm_compute_ops ops;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, drm_compute_features(&full_ops), DRM_COMPUTE_FEATURE_USERQ);
	for (i = 0; i < ARRAY_SIZE(mandatory); i++) {
		ops = full_ops;
		*(void **)((u8 *)&ops + mandatory[i]) = NULL;
		KUNIT_EXPECT_EQ_MSG(test, drm_compute_features(&ops), 0ULL,
				    "callback at offset %zu", mandatory[i]);
	}
	/* Optional ones do not. */
	ops = full_ops;
	ops.userq_wake = NULL;
	ops.bo_bindable = NULL;
	ops.userq_start = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&ops), DRM_COMPUTE_FEATURE_USERQ);
}

static void p2p_feature_follows_ops(struct kunit *test)
{
	struct drm_compute_ops ops = full_ops, part;

	ops.p2p_bo_create = nop_p2p_bo_create;
	ops.p2p_export = nop_p2p_export;
	ops.p2p_move_to_host = nop_p2p_move;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&ops),
			DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_P2P_EXPORT);
	/* Each of the three is mandatory; p2p_check is not. */
	part = ops;
	part.p2p_bo_create = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&part), DRM_COMPUTE_FEATURE_USERQ);
	part = ops;
	part.p2p_export = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&part), DRM_COMPUTE_FEATURE_USERQ);
	part = ops;
	part.p2p_move_to_host = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&part), DRM_COMPUTE_FEATURE_USERQ);
	/* And not without user queues. */
	part = ops;
	part.vm_bind = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&part), 0ULL);
}

static void criu_feature_follows_ops(struct kunit *test)
{
	static const size_t mandatory[] = {
		offsetof(struct drm_compute_ops, bo_criu_placement),
		offsetof(struct drm_compute_ops, bo_criu_copy),
		offsetof(struct drm_compute_ops, vm_criu_mappings),
	};
	struct drm_compute_ops ops = full_ops, part;
	const char *missing = NULL;
	unsigned int i;

	ops.bo_criu_placement = nop_bo_criu_placement;
	ops.bo_criu_copy = nop_bo_criu_copy;
	ops.vm_criu_mappings = nop_vm_criu_mappings;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&ops),
			DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_CRIU);
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&ops, &info, &missing), 0);
	/* Each is mandatory: without one, no feature, and init refuses the table. */
	for (i = 0; i < ARRAY_SIZE(mandatory); i++) {
		part = ops;
		*(void **)((u8 *)&part + mandatory[i]) = NULL;
		KUNIT_EXPECT_EQ(test, drm_compute_features(&part), DRM_COMPUTE_FEATURE_USERQ);
		missing = NULL;
		KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&part, &info, &missing), -EINVAL);
		KUNIT_EXPECT_NOT_NULL(test, missing);
	}
	/* Not without user queues. */
	part = ops;
	part.vm_bind = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&part), 0ULL);
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&part, &info, &missing), -EINVAL);
	KUNIT_EXPECT_STREQ(test, missing, "vm_bind");
}

/*
 * A feature begun but not finished is refused, naming the first missing
 * callback; a complete table, or one without a feature at all, passes.
 */
static void ops_check_refuses_partial(struct kunit *test)
{
	static const struct {
		const char *desc;
		size_t clear;	/* the callback removed from full_ops + P2P */
		const char *missing;
	} cases[] = {
		{ "no bo_create", offsetof(struct drm_compute_ops, bo_create), "bo_create" },
		{ "no userq_hw_state", offsetof(struct drm_compute_ops, userq_hw_state),
		  "userq_hw_state" },
		{ "no p2p_export", offsetof(struct drm_compute_ops, p2p_export), "p2p_export" },
		{ "no p2p_move_to_host", offsetof(struct drm_compute_ops, p2p_move_to_host),
		  "p2p_move_to_host" },
	};
	struct drm_compute_dev_info wi = info;
	struct drm_compute_ops ops = full_ops;
	const char *missing = NULL;
	unsigned int i;

	ops.p2p_bo_create = nop_p2p_bo_create;
	ops.p2p_export = nop_p2p_export;
	ops.p2p_move_to_host = nop_p2p_move;
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&ops, &info, &missing), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&full_ops, &info, &missing), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&(struct drm_compute_ops) {}, &info,
						    &missing), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct drm_compute_ops part = ops;

		*(void **)((u8 *)&part + cases[i].clear) = NULL;
		missing = NULL;
		KUNIT_EXPECT_EQ_MSG(test, drm_compute_ops_check(&part, &info, &missing),
				    -EINVAL, "%s", cases[i].desc);
		KUNIT_EXPECT_STREQ_MSG(test, missing, cases[i].missing, "%s", cases[i].desc);
	}
	/* P2P callbacks alone: USERQ's are asked for. */
	ops = (struct drm_compute_ops) {
		.p2p_bo_create = nop_p2p_bo_create,
		.p2p_export = nop_p2p_export,
		.p2p_move_to_host = nop_p2p_move,
	};
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&ops, &info, &missing), -EINVAL);
	KUNIT_EXPECT_STREQ(test, missing, "bo_create");
	/* NEED_WAKEUP asks for userq_wake. */
	ops = full_ops;
	ops.userq_wake = NULL;
	wi.userq_caps = DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP;
	KUNIT_EXPECT_EQ(test, drm_compute_ops_check(&ops, &wi, &missing), -EINVAL);
	KUNIT_EXPECT_STREQ(test, missing, "userq_wake");
}

static void info_check_accepts_valid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, drm_compute_info_check(&info, DRM_COMPUTE_FEATURE_USERQ), 0);
	/* Without USERQ, the limits are not needed. */
	KUNIT_EXPECT_EQ(test, drm_compute_info_check(&(struct drm_compute_dev_info) {
		.vram_size = SZ_1G }, 0), 0);
}

/* A field of the description set to a value; up to two per case. */
struct field_set {
	size_t off;
	size_t size;
	u64 val;
};

#define SET32(f, v) { offsetof(struct drm_compute_dev_info, f), 4, (v) }
#define SET64(f, v) { offsetof(struct drm_compute_dev_info, f), 8, (v) }

struct info_case {
	const char *name;
	struct field_set set[2];
};

static const struct info_case info_cases[] = {
	{ "bar-larger-than-vram", { SET64(vram_bar_size, SZ_1G + 1) } },
	{ "no-placement", { SET64(placements, 0) } },
	{ "unknown-placement", { SET64(placements, BIT_ULL(9) | DRM_COMPUTE_PLACEMENT_VRAM) } },
	{ "vram-placement-without-vram", { SET64(vram_size, 0), SET64(vram_bar_size, 0) } },
	{ "page-size-not-power-of-2", { SET32(page_size, 3 * PAGE_SIZE) } },
	{ "empty-va-range", { SET64(va_end, SZ_64K) } },
	{ "va-range-unaligned", { SET64(va_start, 1) } },
	{ "no-vms", { SET32(max_vms, 0) } },
	{ "no-queues", { SET32(max_queues, 0) } },
	{ "no-cus", { SET32(num_cus, 0) } },
	{ "too-many-priorities", { SET32(num_priorities, 17) } },
	{ "default-priority-out-of-range", { SET32(priority_default, 16) } },
	{ "privileged-not-above-default", { SET32(priority_privileged, 7) } },
	{ "no-queue-format", { SET32(queue_formats, 0) } },
	{ "no-doorbell", { SET32(doorbell_size, 0) } },
	{ "ring-min-above-max", { SET64(ring_size_min, SZ_8M) } },
	{ "ring-max-not-power-of-2", { SET64(ring_size_max, SZ_4M + SZ_4K) } },
	{ "unknown-userq-cap", { SET64(userq_caps, BIT_ULL(40)) } },
	{ "unknown-semantics", { SET64(semantics, BIT_ULL(40)) } },
};

static void apply(struct drm_compute_dev_info *i, const struct field_set *set)
{
	unsigned int n;

	for (n = 0; n < 2 && set[n].size; n++) {
		void *field = (u8 *)i + set[n].off;

		if (set[n].size == sizeof(u32))
			*(u32 *)field = set[n].val;
		else
			*(u64 *)field = set[n].val;
	}
}

static void info_case_desc(const struct info_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(info_case, info_cases, info_case_desc);

static void info_check_rejects(struct kunit *test)
{
	const struct info_case *c = test->param_value;
	struct drm_compute_dev_info i = info;

	apply(&i, c->set);
	KUNIT_EXPECT_EQ(test, drm_compute_info_check(&i, DRM_COMPUTE_FEATURE_USERQ), -EINVAL);
}

static void query_device_reports_info(struct kunit *test)
{
	struct drm_compute_device cdev = { .info = info, .features = DRM_COMPUTE_FEATURE_USERQ,
					   .id = 42 };
	struct drm_compute_query_device d;

	KUNIT_ASSERT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_DEVICE,
						     &d, sizeof(d)), (int)sizeof(d));
	KUNIT_EXPECT_EQ(test, d.features, DRM_COMPUTE_FEATURE_USERQ);
	KUNIT_EXPECT_EQ(test, d.vram_size, info.vram_size);
	KUNIT_EXPECT_EQ(test, d.vram_bar_size, info.vram_bar_size);
	KUNIT_EXPECT_EQ(test, d.placements, info.placements);
	KUNIT_EXPECT_EQ(test, d.va_start, info.va_start);
	KUNIT_EXPECT_EQ(test, d.va_end, info.va_end);
	KUNIT_EXPECT_EQ(test, d.page_size, info.page_size);
	KUNIT_EXPECT_EQ(test, d.pad, 0u);
	KUNIT_EXPECT_EQ(test, d.device_id, 42u);
	KUNIT_EXPECT_EQ(test, d.pad2, 0u);
	/* No SVM: no flags; the documented differences, whatever the features. */
	KUNIT_EXPECT_EQ(test, d.svm_flags, 0u);
	KUNIT_EXPECT_EQ(test, d.pad3, 0u);
	KUNIT_EXPECT_EQ(test, d.semantics, 0ULL);
	cdev.info.semantics = DRM_COMPUTE_SEMANTICS_SHARED_VA |
			      DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT;
	KUNIT_ASSERT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_DEVICE,
						     &d, sizeof(d)), (int)sizeof(d));
	KUNIT_EXPECT_EQ(test, d.semantics, cdev.info.semantics);
}

static void query_device_without_userq(struct kunit *test)
{
	struct drm_compute_device cdev = { .info = info };
	struct drm_compute_query_device d;

	memset(&d, 0xff, sizeof(d));
	KUNIT_ASSERT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_DEVICE,
						     &d, sizeof(d)), (int)sizeof(d));
	KUNIT_EXPECT_EQ(test, d.features, 0ULL);
	KUNIT_EXPECT_EQ(test, d.vram_size, info.vram_size);
	/* The VM limits are reported only with the feature that uses them. */
	KUNIT_EXPECT_EQ(test, d.placements, 0ULL);
	KUNIT_EXPECT_EQ(test, d.va_end, 0ULL);
	KUNIT_EXPECT_EQ(test, d.page_size, 0u);
}

static void query_userq_reports_limits(struct kunit *test)
{
	struct drm_compute_device cdev = { .info = info, .features = DRM_COMPUTE_FEATURE_USERQ };
	struct drm_compute_query_userq u;

	KUNIT_ASSERT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_USERQ,
						     &u, sizeof(u)), (int)sizeof(u));
	KUNIT_EXPECT_EQ(test, u.caps, info.userq_caps);
	KUNIT_EXPECT_EQ(test, u.max_queues, info.max_queues);
	KUNIT_EXPECT_EQ(test, u.num_priorities, info.num_priorities);
	KUNIT_EXPECT_EQ(test, u.priority_default, info.priority_default);
	KUNIT_EXPECT_EQ(test, u.priority_privileged, info.priority_privileged);
	KUNIT_EXPECT_EQ(test, u.num_cus, info.num_cus);
	KUNIT_EXPECT_EQ(test, u.queue_formats, info.queue_formats);
	KUNIT_EXPECT_EQ(test, u.ring_size_min, info.ring_size_min);
	KUNIT_EXPECT_EQ(test, u.ring_size_max, info.ring_size_max);
	KUNIT_EXPECT_EQ(test, u.ctx_save_size, info.ctx_save_size);
	KUNIT_EXPECT_EQ(test, u.doorbell_size, info.doorbell_size);
	KUNIT_EXPECT_EQ(test, u.hang_timeout_ms, drm_compute_hang_timeout_ms());
}

/* A driver's own hang timeout is the device's; 0 means the helper's default. */
static void query_hang_timeout(struct kunit *test)
{
	struct drm_compute_device cdev = { .info = info, .features = DRM_COMPUTE_FEATURE_USERQ };
	struct drm_compute_query_userq u;

	cdev.info.hang_timeout_ms = 60000;
	KUNIT_ASSERT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_USERQ, &u, sizeof(u)),
			(int)sizeof(u));
	KUNIT_EXPECT_EQ(test, u.hang_timeout_ms, 60000u);
	KUNIT_EXPECT_EQ(test, drm_compute_device_hang_timeout_ms(&cdev), 60000u);
	cdev.info.hang_timeout_ms = 0;
	KUNIT_EXPECT_EQ(test, drm_compute_device_hang_timeout_ms(&cdev),
			drm_compute_hang_timeout_ms());
}

static void query_errors(struct kunit *test)
{
	struct drm_compute_device cdev = { .info = info };
	struct drm_compute_query_userq u;

	/* A feature's query needs the feature. */
	KUNIT_EXPECT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_USERQ,
						     &u, sizeof(u)), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_COUNT,
						     &u, sizeof(u)), -EINVAL);
	KUNIT_EXPECT_EQ(test, drm_compute_query_fill(&cdev, DRM_COMPUTE_QUERY_DEVICE,
						     &u, 8), -EINVAL);
}

static struct kunit_case drm_compute_query_tests[] = {
	KUNIT_CASE(features_follow_ops),
	KUNIT_CASE(p2p_feature_follows_ops),
	KUNIT_CASE(criu_feature_follows_ops),
	KUNIT_CASE(ops_check_refuses_partial),
	KUNIT_CASE(info_check_accepts_valid),
	KUNIT_CASE_PARAM(info_check_rejects, info_case_gen_params),
	KUNIT_CASE(query_device_reports_info),
	KUNIT_CASE(query_device_without_userq),
	KUNIT_CASE(query_userq_reports_limits),
	KUNIT_CASE(query_hang_timeout),
	KUNIT_CASE(query_errors),
	{}
};

static struct kunit_suite drm_compute_query_suite = {
	.name = "drm_compute_query",
	.test_cases = drm_compute_query_tests,
};

kunit_test_suite(drm_compute_query_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers' query");
MODULE_LICENSE("Dual MIT/GPL");
