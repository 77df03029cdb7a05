// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * KUnit tests of the device-free part of amdgpu's side of the DRM compute
 * P2P helper (drivers/gpu/drm/amd/amdgpu/amdgpu_compute_p2p.h): the BAR
 * size reported, the creation flags, where a pin and a map put an export
 * buffer, and amdgpu's p2p_check answer. The functions are static inline,
 * so this suite builds into the kernel while amdgpu is a module.
 */

#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/limits.h>
#include <linux/sizes.h>

#include "../amd/amdgpu/amdgpu_compute_p2p.h"

struct bar_case {
	const char *name;
	u64 visible;
	u64 real;
	bool is_apu;
	u64 bar;
};

static const struct bar_case bar_cases[] = {
	{ "small BAR", SZ_256M, 16ULL * SZ_1G, false, SZ_256M },
	{ "resizable BAR", 16ULL * SZ_1G, 16ULL * SZ_1G, false, 16ULL * SZ_1G },
	{ "BAR larger than VRAM", 32ULL * SZ_1G, 16ULL * SZ_1G, false, 16ULL * SZ_1G },
	{ "APU carve-out", SZ_512M, SZ_512M, true, 0 },
	{ "no VRAM", 0, 0, false, 0 },
};

static void bar_case_desc(const struct bar_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bar, bar_cases, bar_case_desc);

static void amdgpu_compute_p2p_test_bar_size(struct kunit *test)
{
	const struct bar_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, amdgpu_compute_vram_bar_size(c->visible, c->real,
							   c->is_apu), c->bar);
}

static void amdgpu_compute_p2p_test_gem_flags(struct kunit *test)
{
	const u64 always = AMDGPU_GEM_CREATE_VRAM_CLEARED |
			   AMDGPU_GEM_CREATE_VRAM_WIPE_ON_RELEASE;
	const u64 visible = AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED;

	/* VRAM that fits the BAR: visible VRAM first, any VRAM second. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_gem_flags(DRM_COMPUTE_PLACEMENT_VRAM,
							   SZ_2M, SZ_256M, true),
			always | visible);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_gem_flags(DRM_COMPUTE_PLACEMENT_VRAM,
							   SZ_2M, SZ_256M, false),
			always);
	/* Exactly the BAR still fits; one page more never asks for it. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_gem_flags(DRM_COMPUTE_PLACEMENT_VRAM,
							   SZ_256M, SZ_256M, true),
			always | visible);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_gem_flags(DRM_COMPUTE_PLACEMENT_VRAM,
							   SZ_256M + SZ_4K, SZ_256M, true),
			always);
	/* No BAR (APU): nothing to ask for. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_gem_flags(DRM_COMPUTE_PLACEMENT_VRAM,
							   SZ_2M, 0, true),
			always);
	/* HOST_ONLY lives in GTT. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_gem_flags(DRM_COMPUTE_PLACEMENT_SYSTEM,
							   SZ_2M, SZ_256M, true),
			always);
}

static void amdgpu_compute_p2p_test_awake(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test,
			  amdgpu_compute_p2p_keeps_device_awake(DRM_COMPUTE_BO_EXPORT_PREFER_P2P));
	KUNIT_EXPECT_TRUE(test,
			  amdgpu_compute_p2p_keeps_device_awake(DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P));
	KUNIT_EXPECT_FALSE(test,
			   amdgpu_compute_p2p_keeps_device_awake(DRM_COMPUTE_BO_EXPORT_HOST_ONLY));
}

static void amdgpu_compute_p2p_test_domains(struct kunit *test)
{
	/* A map never falls back: VRAM alone for a peer, GTT alone otherwise. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_map_domain(true),
			(u32)AMDGPU_GEM_DOMAIN_VRAM);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_map_domain(false),
			(u32)AMDGPU_GEM_DOMAIN_GTT);
	/* A pin keeps the helper's placement, whatever the other importers. */
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_pin_domain(DRM_COMPUTE_PLACEMENT_VRAM),
			(u32)AMDGPU_GEM_DOMAIN_VRAM);
	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_pin_domain(DRM_COMPUTE_PLACEMENT_SYSTEM),
			(u32)AMDGPU_GEM_DOMAIN_GTT);
}

struct reach_case {
	const char *name;
	u64 aper_base;
	u64 bar_size;
	u64 dma_limit;
	bool reaches;
};

#define MASK(n) DMA_BIT_MASK(n)

static const struct reach_case reach_cases[] = {
	{ "32-bit BAR, 32-bit mask", 0xe0000000ULL, SZ_256M, MASK(32), true },
	{ "BAR ends at 4 GiB, 32-bit mask", 0xf0000000ULL, SZ_256M, MASK(32), true },
	{ "BAR one page past 4 GiB", 0xf0000000ULL, SZ_256M + SZ_4K, MASK(32), false },
	{ "resizable BAR above 4 GiB, 32-bit mask", 0x3800000000ULL, 16ULL * SZ_1G,
	  MASK(32), false },
	{ "resizable BAR, 36-bit mask", 0x3800000000ULL, 16ULL * SZ_1G, MASK(36), false },
	{ "resizable BAR, 40-bit mask", 0x3800000000ULL, 16ULL * SZ_1G, MASK(40), true },
	{ "translating IOMMU", 0x3800000000ULL, 16ULL * SZ_1G, U64_MAX, true },
	{ "window wraps", U64_MAX - SZ_4K + 1, SZ_8K, U64_MAX, false },
	{ "no BAR", 0xe0000000ULL, 0, U64_MAX, false },
};

static void reach_case_desc(const struct reach_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reach, reach_cases, reach_case_desc);

static void amdgpu_compute_p2p_test_dma_reaches(struct kunit *test)
{
	const struct reach_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_dma_reaches(c->aper_base,
							     c->bar_size,
							     c->dma_limit),
			c->reaches);
}

struct reason_case {
	const char *name;
	struct amdgpu_compute_p2p_facts f;
	u32 reason;
};

/* A BAR of 256 MiB at 0xe0000000 below 4 GiB, and one of 16 GiB above it. */
#define LOW_BAR		.bar_size = SZ_256M, .aper_base = 0xe0000000ULL
#define HIGH_BAR	.bar_size = 16ULL * SZ_1G, .aper_base = 0x3800000000ULL

static const struct reason_case reason_cases[] = {
	{ "fits, unpinned",
	  { .size = SZ_2M, LOW_BAR, .dma_limit = MASK(64) },
	  DRM_COMPUTE_P2P_REASON_NONE },
	{ "exactly the BAR",
	  { .size = SZ_256M, LOW_BAR, .dma_limit = MASK(64) },
	  DRM_COMPUTE_P2P_REASON_NONE },
	{ "larger than the BAR",
	  { .size = SZ_256M + SZ_4K, LOW_BAR, .dma_limit = MASK(64) },
	  DRM_COMPUTE_P2P_REASON_BAR },
	{ "no BAR",
	  { .size = SZ_2M, .bar_size = 0, .dma_limit = MASK(64) },
	  DRM_COMPUTE_P2P_REASON_BAR },
	{ "unpinned outside visible VRAM: the map moves it",
	  { .size = SZ_2M, LOW_BAR, .dma_limit = MASK(64),
	    .in_visible_vram = false },
	  DRM_COMPUTE_P2P_REASON_NONE },
	{ "pinned in visible VRAM",
	  { .size = SZ_2M, LOW_BAR, .dma_limit = MASK(64), .pinned = true,
	    .in_visible_vram = true },
	  DRM_COMPUTE_P2P_REASON_NONE },
	{ "pinned outside visible VRAM",
	  { .size = SZ_2M, LOW_BAR, .dma_limit = MASK(64), .pinned = true },
	  DRM_COMPUTE_P2P_REASON_BAR },
	{ "32-bit mask, BAR below 4 GiB",
	  { .size = SZ_2M, LOW_BAR, .dma_limit = MASK(32) },
	  DRM_COMPUTE_P2P_REASON_NONE },
	{ "32-bit mask, BAR above 4 GiB",
	  { .size = SZ_2M, HIGH_BAR, .dma_limit = MASK(32) },
	  DRM_COMPUTE_P2P_REASON_DMA_MASK },
	{ "the mask before the BAR's room",
	  { .size = 32ULL * SZ_1G, HIGH_BAR, .dma_limit = MASK(32) },
	  DRM_COMPUTE_P2P_REASON_DMA_MASK },
	{ "translating IOMMU, BAR above 4 GiB",
	  { .size = SZ_2M, HIGH_BAR, .dma_limit = U64_MAX },
	  DRM_COMPUTE_P2P_REASON_NONE },
	{ "XGMI needs neither BAR nor mask",
	  { .size = 32ULL * SZ_1G, HIGH_BAR, .dma_limit = MASK(32),
	    .xgmi = true, .pinned = true },
	  DRM_COMPUTE_P2P_REASON_NONE },
};

static void reason_case_desc(const struct reason_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reason, reason_cases, reason_case_desc);

static void amdgpu_compute_p2p_test_reason(struct kunit *test)
{
	const struct reason_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, amdgpu_compute_p2p_reason(&c->f), c->reason);
}

static struct kunit_case amdgpu_compute_p2p_test_cases[] = {
	KUNIT_CASE_PARAM(amdgpu_compute_p2p_test_bar_size, bar_gen_params),
	KUNIT_CASE(amdgpu_compute_p2p_test_gem_flags),
	KUNIT_CASE(amdgpu_compute_p2p_test_awake),
	KUNIT_CASE(amdgpu_compute_p2p_test_domains),
	KUNIT_CASE_PARAM(amdgpu_compute_p2p_test_dma_reaches, reach_gen_params),
	KUNIT_CASE_PARAM(amdgpu_compute_p2p_test_reason, reason_gen_params),
	{}
};

static struct kunit_suite amdgpu_compute_p2p_test_suite = {
	.name = "amdgpu_compute_p2p",
	.test_cases = amdgpu_compute_p2p_test_cases,
};

kunit_test_suite(amdgpu_compute_p2p_test_suite);

MODULE_DESCRIPTION("KUnit tests for amdgpu's side of the DRM compute P2P helper");
MODULE_LICENSE("Dual MIT/GPL");
