// SPDX-License-Identifier: MIT
/*
 * KUnit tests for the DRM compute helpers.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/stddef.h>
#include <linux/string.h>

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

/* One case per field of the argument, reserved words included. */
struct caps_field {
	const char *name;
	size_t offset;
	size_t size;
};

#define CAPS_OFF(f) offsetof(struct drm_compute_caps, f)
#define CAPS_SIZE(f) sizeof_field(struct drm_compute_caps, f)

static const struct caps_field caps_fields[] = {
	{ "flags", CAPS_OFF(flags), CAPS_SIZE(flags) },
	{ "version", CAPS_OFF(version), CAPS_SIZE(version) },
	{ "features", CAPS_OFF(features), CAPS_SIZE(features) },
	{ "vram_size", CAPS_OFF(vram_size), CAPS_SIZE(vram_size) },
	{ "vram_bar_size", CAPS_OFF(vram_bar_size), CAPS_SIZE(vram_bar_size) },
	{ "max_queues", CAPS_OFF(max_queues), CAPS_SIZE(max_queues) },
	{ "num_priorities", CAPS_OFF(num_priorities), CAPS_SIZE(num_priorities) },
	{ "reserved[0]", CAPS_OFF(reserved[0]), CAPS_SIZE(reserved[0]) },
	{ "reserved[1]", CAPS_OFF(reserved[1]), CAPS_SIZE(reserved[1]) },
	{ "reserved[2]", CAPS_OFF(reserved[2]), CAPS_SIZE(reserved[2]) },
	{ "reserved[3]", CAPS_OFF(reserved[3]), CAPS_SIZE(reserved[3]) },
	{ "reserved[4]", CAPS_OFF(reserved[4]), CAPS_SIZE(reserved[4]) },
	{ "reserved[5]", CAPS_OFF(reserved[5]), CAPS_SIZE(reserved[5]) },
};

static void caps_field_desc(const struct caps_field *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(caps_field, caps_fields, caps_field_desc);

/* The table above must name every byte of the structure exactly once. */
static void drm_compute_caps_fields_cover_struct(struct kunit *test)
{
	size_t next = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(caps_fields); i++) {
		KUNIT_EXPECT_EQ_MSG(test, caps_fields[i].offset, next, "%s",
				    caps_fields[i].name);
		next = caps_fields[i].offset + caps_fields[i].size;
	}
	KUNIT_EXPECT_EQ(test, next, sizeof(struct drm_compute_caps));
}

static void drm_compute_caps_rejects_nonzero_input(struct kunit *test)
{
	const struct caps_field *t = test->param_value;
	struct drm_compute_caps caps = {}, before;

	/*
	 * The field's most significant byte (little and big endian alike
	 * hold it at one end): a check that truncates the field misses it.
	 */
	((u8 *)&caps)[t->offset + (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ?
				   0 : t->size - 1)] = 0x80;
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
	KUNIT_CASE(drm_compute_caps_fields_cover_struct),
	KUNIT_CASE_PARAM(drm_compute_caps_rejects_nonzero_input, caps_field_gen_params),
	{}
};

static struct kunit_suite drm_compute_caps_suite = {
	.name = "drm_compute_caps",
	.test_cases = drm_compute_caps_tests,
};

kunit_test_suite(drm_compute_caps_suite);

MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers");
MODULE_LICENSE("Dual MIT/GPL");
