// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the DRM compute helpers.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>

#include <drm/drm_compute.h>
#include <uapi/drm/drm_compute.h>

static const struct drm_compute_dev_info full_info = {
	.features = DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM,
	.vram_size = 16ULL << 30,
	.vram_bar_size = 256ULL << 20,
	.max_queues = 128,
	.num_priorities = 4,
};

static void drm_compute_caps_reports_driver_info(struct kunit *test)
{
	struct drm_compute_caps caps = {};

	KUNIT_ASSERT_EQ(test, drm_compute_caps_fill(&full_info, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps.version, DRM_COMPUTE_CAPS_VERSION);
	KUNIT_EXPECT_EQ(test, caps.features, full_info.features);
	KUNIT_EXPECT_EQ(test, caps.vram_size, full_info.vram_size);
	KUNIT_EXPECT_EQ(test, caps.vram_bar_size, full_info.vram_bar_size);
	KUNIT_EXPECT_EQ(test, caps.max_queues, 128u);
	KUNIT_EXPECT_EQ(test, caps.num_priorities, 4u);
	KUNIT_EXPECT_EQ(test, caps.flags, 0u);
}

static void drm_compute_caps_drops_unknown_features(struct kunit *test)
{
	struct drm_compute_dev_info info = full_info;
	struct drm_compute_caps caps = {};

	info.features |= 1ULL << 63;
	KUNIT_ASSERT_EQ(test, drm_compute_caps_fill(&info, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps.features & ~DRM_COMPUTE_FEATURES_KNOWN, 0ull);
}

static void drm_compute_caps_queues_need_userq(struct kunit *test)
{
	struct drm_compute_dev_info info = full_info;
	struct drm_compute_caps caps = {};

	info.features &= ~DRM_COMPUTE_FEATURE_USERQ;
	KUNIT_ASSERT_EQ(test, drm_compute_caps_fill(&info, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps.max_queues, 0u);
	KUNIT_EXPECT_EQ(test, caps.num_priorities, 0u);
}

static void drm_compute_caps_bar_clamped_to_vram(struct kunit *test)
{
	struct drm_compute_dev_info info = full_info;
	struct drm_compute_caps caps = {};

	info.vram_bar_size = info.vram_size * 2;
	KUNIT_ASSERT_EQ(test, drm_compute_caps_fill(&info, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps.vram_bar_size, info.vram_size);
}

struct caps_invalid_case {
	const char *name;
	void (*poison)(struct drm_compute_caps *caps);
};

static void poison_flags(struct drm_compute_caps *c) { c->flags = 1; }
static void poison_version(struct drm_compute_caps *c) { c->version = 1; }
static void poison_features(struct drm_compute_caps *c) { c->features = 1; }
static void poison_queues(struct drm_compute_caps *c) { c->max_queues = 1; }
static void poison_reserved0(struct drm_compute_caps *c) { c->reserved[0] = 1; }
static void poison_reserved_last(struct drm_compute_caps *c)
{
	c->reserved[ARRAY_SIZE(c->reserved) - 1] = 1ULL << 63;
}

static const struct caps_invalid_case caps_invalid_cases[] = {
	{ "flags", poison_flags },
	{ "version", poison_version },
	{ "features", poison_features },
	{ "max_queues", poison_queues },
	{ "reserved[0]", poison_reserved0 },
	{ "reserved[last]", poison_reserved_last },
};

static void caps_invalid_desc(const struct caps_invalid_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(caps_invalid, caps_invalid_cases, caps_invalid_desc);

static void drm_compute_caps_rejects_nonzero_input(struct kunit *test)
{
	const struct caps_invalid_case *t = test->param_value;
	struct drm_compute_caps caps = {}, before;

	t->poison(&caps);
	before = caps;
	KUNIT_EXPECT_EQ(test, drm_compute_caps_fill(&full_info, &caps), -EINVAL);
	/* A rejected call leaves the argument as it was. */
	KUNIT_EXPECT_MEMEQ(test, &caps, &before, sizeof(caps));
}

static struct kunit_case drm_compute_caps_tests[] = {
	KUNIT_CASE(drm_compute_caps_reports_driver_info),
	KUNIT_CASE(drm_compute_caps_drops_unknown_features),
	KUNIT_CASE(drm_compute_caps_queues_need_userq),
	KUNIT_CASE(drm_compute_caps_bar_clamped_to_vram),
	KUNIT_CASE_PARAM(drm_compute_caps_rejects_nonzero_input, caps_invalid_gen_params),
	{}
};

static struct kunit_suite drm_compute_caps_suite = {
	.name = "drm_compute_caps",
	.test_cases = drm_compute_caps_tests,
};

kunit_test_suite(drm_compute_caps_suite);

MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers");
MODULE_LICENSE("Dual MIT/GPL");
