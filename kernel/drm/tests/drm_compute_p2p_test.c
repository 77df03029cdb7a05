// SPDX-License-Identifier: MIT
/*
 * KUnit tests of the DRM compute helpers: the peer-to-peer placement
 * decision, one row per reason, and the order in which reasons win.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/module.h>

#include <drm/drm_compute.h>

#include "../drm_compute_internal.h"

/* Everything in favour of peer-to-peer: two functions behind one switch. */
static const struct drm_compute_p2p_facts p2p_ok = {
	.importer_p2p = true,
	.exporter_bar = true,
	.importer_pci = true,
	.common_switch = true,
	.distance = 2,
	.driver_reason = DRM_COMPUTE_P2P_REASON_NONE,
};

struct decide_case {
	const char *name;
	void (*change)(struct drm_compute_p2p_facts *f);
	u32 want;
};

static void none(struct drm_compute_p2p_facts *f)
{
}

static void host_only(struct drm_compute_p2p_facts *f)
{
	f->host_only = true;
}

static void static_importer(struct drm_compute_p2p_facts *f)
{
	f->importer_p2p = false;
}

static void no_bar(struct drm_compute_p2p_facts *f)
{
	f->exporter_bar = false;
}

static void importer_not_pci(struct drm_compute_p2p_facts *f)
{
	f->importer_pci = false;
}

static void root_ports(struct drm_compute_p2p_facts *f)
{
	f->common_switch = false;
	f->distance = -1;
}

static void acs(struct drm_compute_p2p_facts *f)
{
	f->distance = -1;
}

static void host_bridge_ok(struct drm_compute_p2p_facts *f)
{
	f->common_switch = false;
	f->distance = 8;
}

static void host_bridge_iommu(struct drm_compute_p2p_facts *f)
{
	host_bridge_ok(f);
	f->iommu_translates = true;
}

/* Behind a switch the IOMMU is not on the path. */
static void switch_iommu(struct drm_compute_p2p_facts *f)
{
	f->iommu_translates = true;
}

static void dma_mask(struct drm_compute_p2p_facts *f)
{
	f->driver_reason = DRM_COMPUTE_P2P_REASON_DMA_MASK;
}

static void bar(struct drm_compute_p2p_facts *f)
{
	f->driver_reason = DRM_COMPUTE_P2P_REASON_BAR;
}

static void driver(struct drm_compute_p2p_facts *f)
{
	f->driver_reason = DRM_COMPUTE_P2P_REASON_DRIVER;
}

/* Several reasons at once: the earliest check names the result. */
static void host_only_and_all(struct drm_compute_p2p_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->host_only = true;
	f->distance = -1;
	f->iommu_translates = true;
	f->driver_reason = DRM_COMPUTE_P2P_REASON_DRIVER;
}

static void static_and_no_bar(struct drm_compute_p2p_facts *f)
{
	f->importer_p2p = false;
	f->exporter_bar = false;
}

static void no_bar_and_not_pci(struct drm_compute_p2p_facts *f)
{
	f->exporter_bar = false;
	f->importer_pci = false;
	f->distance = -1;
}

static void no_path_and_driver(struct drm_compute_p2p_facts *f)
{
	root_ports(f);
	f->driver_reason = DRM_COMPUTE_P2P_REASON_BAR;
}

static void iommu_and_driver(struct drm_compute_p2p_facts *f)
{
	host_bridge_iommu(f);
	f->driver_reason = DRM_COMPUTE_P2P_REASON_DMA_MASK;
}

/* XGMI between two GPUs on separate root ports: no PCI path, no BAR needed. */
static void interconnect(struct drm_compute_p2p_facts *f)
{
	root_ports(f);
	f->exporter_bar = false;
	f->interconnect = true;
}

static void interconnect_driver(struct drm_compute_p2p_facts *f)
{
	interconnect(f);
	f->driver_reason = DRM_COMPUTE_P2P_REASON_DRIVER;
}

static void interconnect_static(struct drm_compute_p2p_facts *f)
{
	interconnect(f);
	f->importer_p2p = false;
}

static const struct decide_case decide_cases[] = {
	{ "switch", none, DRM_COMPUTE_P2P_REASON_NONE },
	{ "host-bridge-whitelisted", host_bridge_ok, DRM_COMPUTE_P2P_REASON_NONE },
	{ "switch-iommu", switch_iommu, DRM_COMPUTE_P2P_REASON_NONE },
	{ "host-only", host_only, DRM_COMPUTE_P2P_REASON_HOST_ONLY },
	{ "static-importer", static_importer, DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P },
	{ "no-bar", no_bar, DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY },
	{ "importer-not-pci", importer_not_pci, DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_PCI },
	{ "root-ports", root_ports, DRM_COMPUTE_P2P_REASON_NO_PCI_PATH },
	{ "acs-redirect", acs, DRM_COMPUTE_P2P_REASON_ACS_REDIRECT },
	{ "host-bridge-iommu", host_bridge_iommu, DRM_COMPUTE_P2P_REASON_IOMMU },
	{ "dma-mask", dma_mask, DRM_COMPUTE_P2P_REASON_DMA_MASK },
	{ "bar", bar, DRM_COMPUTE_P2P_REASON_BAR },
	{ "driver", driver, DRM_COMPUTE_P2P_REASON_DRIVER },
	{ "host-only-wins", host_only_and_all, DRM_COMPUTE_P2P_REASON_HOST_ONLY },
	{ "importer-before-bar", static_and_no_bar, DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P },
	{ "bar-before-importer-pci", no_bar_and_not_pci, DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY },
	{ "path-before-driver", no_path_and_driver, DRM_COMPUTE_P2P_REASON_NO_PCI_PATH },
	{ "iommu-before-driver", iommu_and_driver, DRM_COMPUTE_P2P_REASON_IOMMU },
	{ "interconnect-skips-pci", interconnect, DRM_COMPUTE_P2P_REASON_NONE },
	{ "interconnect-driver", interconnect_driver, DRM_COMPUTE_P2P_REASON_DRIVER },
	{ "importer-before-interconnect", interconnect_static,
	  DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P },
};

static void decide_case_desc(const struct decide_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(decide, decide_cases, decide_case_desc);

static void p2p_decide(struct kunit *test)
{
	const struct decide_case *c = test->param_value;
	struct drm_compute_p2p_facts f = p2p_ok;

	c->change(&f);
	KUNIT_EXPECT_EQ(test, drm_compute_p2p_decide(&f), c->want);
}

/* Every reason the uapi defines, except PINNED (a refusal, not a decision), has a row. */
static void p2p_every_reason_tested(struct kunit *test)
{
	unsigned long seen = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(decide_cases); i++)
		seen |= BIT(decide_cases[i].want);
	KUNIT_EXPECT_EQ(test, seen, GENMASK(DRM_COMPUTE_P2P_REASON_DRIVER, 0));
}

static void p2p_export_init(struct kunit *test)
{
	struct drm_compute_p2p_export exp;

	memset(&exp, 0xff, sizeof(exp));
	drm_compute_p2p_export_init(&exp, DRM_COMPUTE_BO_EXPORT_HOST_ONLY,
				    DRM_COMPUTE_PLACEMENT_SYSTEM);
	KUNIT_EXPECT_EQ(test, exp.reason, DRM_COMPUTE_P2P_REASON_HOST_ONLY);
	KUNIT_EXPECT_EQ(test, exp.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
	KUNIT_EXPECT_EQ(test, exp.pinned, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&exp.importers));

	drm_compute_p2p_export_init(&exp, DRM_COMPUTE_BO_EXPORT_PREFER_P2P,
				    DRM_COMPUTE_PLACEMENT_VRAM);
	KUNIT_EXPECT_EQ(test, exp.reason, DRM_COMPUTE_P2P_REASON_NONE);
	KUNIT_EXPECT_EQ(test, exp.moves, 0);
	KUNIT_EXPECT_STREQ(test, exp.decided_by, "");
}

static struct kunit_case drm_compute_p2p_tests[] = {
	KUNIT_CASE_PARAM(p2p_decide, decide_gen_params),
	KUNIT_CASE(p2p_every_reason_tested),
	KUNIT_CASE(p2p_export_init),
	{}
};

static struct kunit_suite drm_compute_p2p_suite = {
	.name = "drm_compute_p2p",
	.test_cases = drm_compute_p2p_tests,
};

kunit_test_suite(drm_compute_p2p_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers' P2P placement decision");
MODULE_LICENSE("Dual MIT/GPL");
