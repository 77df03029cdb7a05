// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: vcompute as a PCI device
 *
 * Besides its faux-bus instances, vcompute drives QEMU's ``ivshmem-plain``
 * PCI function (1af4:1110) as a compute device whose device memory is the
 * function's BAR 2: a real PCI BAR, so that peer-to-peer placement is
 * decided by the kernel's own PCI topology code. At probe the BAR is
 * registered as peer-to-peer memory (pci_p2pdma_add_resource()), which
 * gives it struct pages (ZONE_DEVICE, MEMORY_DEVICE_PCI_P2PDMA), and taken
 * whole (pci_alloc_p2pmem()): the device's buddy allocator hands out offsets
 * into it, and a buffer's pages are the BAR's pages at those offsets. The
 * CPU reaches them through their kernel mapping and PFN maps, the engine
 * through the same kernel mapping, and an importer by bus address
 * (dma_map_sgtable() of P2PDMA pages gives the bus address on a switch path).
 *
 * &drm_compute_dev_info.vram_bar_size is the BAR's size, so the P2P helper
 * asks pci_p2pdma_distance() about every PCI importer. The instance is named
 * after its PCI function ("vcompute.pci-0000:03:00.0"); it has no
 * configfs directory, and goes with the PCI function (driver unbind or
 * module unload), through the same hot-unplug path as a faux instance.
 *
 * The BAR's lifetime. The P2P registration is devres of the function: an
 * unbind tears it down after remove() and waits there until every page of
 * the BAR is back in the P2P pool. The BAR therefore goes back as soon as
 * nothing uses it (&vcompute_device.bar_refs): at unplug when no buffer
 * lives in it, else when the last such buffer is freed. A file left open
 * across the unbind with no buffer in the BAR does not hold the unbind
 * (upstream IGT's core_hotunplug); one whose buffers are in the BAR holds
 * it until they go, since importers and CPU maps may still name their
 * pages until then.
 *
 * vcompute binds only to a function the administrator hands it
 * (vcompute_pci_asked()): the module has no device table, so udev never
 * loads it for an ivshmem function, and its probe refuses any function
 * that the ``pci_functions`` parameter does not name and whose
 * driver_override is not "vcompute" (an ivshmem device is usually memory
 * shared between VMs, which buffer allocation would overwrite). Either::
 *
 *	modprobe vcompute pci_functions=0000:03:00.0,0000:04:00.0
 *
 * which also rebinds a function after a remove and rescan, or::
 *
 *	echo vcompute > /sys/bus/pci/devices/0000:03:00.0/driver_override
 *	echo 0000:03:00.0 > /sys/bus/pci/drivers_probe
 *
 * ``./onenode vm`` gives the test VM three such functions on q35: two
 * behind one emulated PCIe switch, where peer-to-peer works, and one on a
 * root port of its own, where the host bridge (not in the p2pdma
 * whitelist) rules it out; tools/guest/run.sh hands them to vcompute.
 */

#include <linux/pci.h>
#include <linux/pci-p2pdma.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "vcompute_bind.h"
#include "vcompute_drv.h"

#define IVSHMEM_VENDOR	0x1af4
#define IVSHMEM_DEVICE	0x1110
#define IVSHMEM_BAR	2

static char *pci_functions;
module_param(pci_functions, charp, 0444);
MODULE_PARM_DESC(pci_functions,
		 "ivshmem-plain functions (1af4:1110) to drive, e.g. 0000:03:00.0,0000:04:00.0 (default: none; driver_override works too)");

static struct pci_driver vcompute_pci_driver;

/* Give the BAR back to the P2P pool; its last holder is gone. */
static void vcompute_pci_bar_release(struct vcompute_device *vdev)
{
	pci_free_p2pmem(vdev->pdev, vdev->bar_va, vdev->config.vram_size);
	vdev->bar_va = NULL;
}

/* A device that was never registered, so never unplugged, ends here. */
static void vcompute_pci_bar_free(struct drm_device *drm, void *arg)
{
	struct vcompute_device *vdev = to_vcompute(drm);

	if (vdev->bar_va)
		vcompute_pci_bar_release(vdev);
}

/**
 * vcompute_pci_bar_get - hold the BAR for a buffer placed in it
 * @vdev: a PCI instance
 *
 * Returns: true, or false when the BAR has gone back (the device was
 * unplugged and its last buffer freed).
 */
bool vcompute_pci_bar_get(struct vcompute_device *vdev)
{
	return refcount_inc_not_zero(&vdev->bar_refs);
}

/**
 * vcompute_pci_bar_put - let go of the BAR
 * @vdev: a PCI instance
 *
 * The device's own hold goes at unplug, a buffer's when it is freed; the
 * last gives the BAR back to the P2P pool, which a pending unbind waits for.
 *
 * Context: process.
 */
void vcompute_pci_bar_put(struct vcompute_device *vdev)
{
	if (refcount_dec_and_test(&vdev->bar_refs))
		vcompute_pci_bar_release(vdev);
}

/**
 * vcompute_pci_bar_end - the last bus address of the device-memory BAR
 * @vdev: a PCI instance
 *
 * Returns: what an importer's DMA must reach to write anywhere in it.
 */
u64 vcompute_pci_bar_end(struct vcompute_device *vdev)
{
	return pci_bus_address(vdev->pdev, IVSHMEM_BAR) +
	       pci_resource_len(vdev->pdev, IVSHMEM_BAR) - 1;
}

/**
 * vcompute_pci_bar_init - take the whole BAR as device memory
 * @vdev: the device, not registered yet
 *
 * The device holds the BAR until it is unplugged (vcompute_pci_bar_put()).
 *
 * Returns: 0 or a negative errno.
 */
int vcompute_pci_bar_init(struct vcompute_device *vdev)
{
	vdev->bar_va = pci_alloc_p2pmem(vdev->pdev, vdev->config.vram_size);
	if (!vdev->bar_va)
		return -ENOMEM;
	refcount_set(&vdev->bar_refs, 1);
	return drmm_add_action_or_reset(&vdev->drm, vcompute_pci_bar_free, NULL);
}

static int vcompute_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vcompute_config cfg = { .num_cus = 8 };
	struct vcompute_device *vdev;
	resource_size_t size;
	int ret;

	/* driver_override matches any function: take only what we know. */
	if (pdev->vendor != IVSHMEM_VENDOR || pdev->device != IVSHMEM_DEVICE ||
	    !vcompute_pci_asked(pdev, &vcompute_pci_driver.driver, pci_functions))
		return -ENODEV;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	size = pci_resource_len(pdev, IVSHMEM_BAR);
	if (!size || !IS_ALIGNED(size, SZ_2M))
		return dev_err_probe(&pdev->dev, -ENODEV, "BAR %d of %pa bytes\n",
				     IVSHMEM_BAR, &size);
	ret = pci_p2pdma_add_resource(pdev, IVSHMEM_BAR, 0, 0);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "registering the BAR for P2P\n");
	pci_set_master(pdev);

	cfg.vram_size = size;
	snprintf(cfg.name, sizeof(cfg.name), "pci-%s", pci_name(pdev));
	vdev = vcompute_create_pci(pdev, &cfg);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	pci_set_drvdata(pdev, vdev);
	return 0;
}

static void vcompute_pci_remove(struct pci_dev *pdev)
{
	vcompute_destroy(pci_get_drvdata(pdev));
}

/*
 * Deliberately no MODULE_DEVICE_TABLE: udev must not load vcompute for an
 * ivshmem function; the probe takes only the functions it was handed.
 */
static const struct pci_device_id vcompute_pci_ids[] = {
	{ PCI_DEVICE(IVSHMEM_VENDOR, IVSHMEM_DEVICE) },
	{ }
};

static struct pci_driver vcompute_pci_driver = {
	.name = "vcompute",
	.id_table = vcompute_pci_ids,
	.probe = vcompute_pci_probe,
	.remove = vcompute_pci_remove,
};

/**
 * vcompute_pci_register - drive the ivshmem functions handed to vcompute
 *
 * Returns: 0 or a negative errno.
 */
int vcompute_pci_register(void)
{
	return pci_register_driver(&vcompute_pci_driver);
}

/** vcompute_pci_unregister - let go of every PCI instance */
void vcompute_pci_unregister(void)
{
	pci_unregister_driver(&vcompute_pci_driver);
}
