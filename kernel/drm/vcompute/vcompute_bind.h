/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright 2026 The onenode authors
 */

#ifndef _VCOMPUTE_BIND_H_
#define _VCOMPUTE_BIND_H_

#include <linux/device.h>
#include <linux/pci.h>
#include <linux/string.h>

/**
 * vcompute_pci_asked - whether the administrator handed a function to a driver
 * @pdev: the PCI function being probed
 * @drv: the driver probing it
 * @list: the driver's module parameter: PCI names separated by commas
 *	  ("0000:03:00.0,0000:04:00.0"), or NULL
 *
 * vcompute and vcompute_edu are test drivers for QEMU devices that have
 * other users (an ivshmem function is usually memory shared between VMs):
 * they have no device table, so udev never loads them, and they bind only
 * a function named in their parameter, which survives a remove and rescan,
 * or one whose driver_override names them.
 *
 * Returns: true when @pdev may be driven.
 */
static inline bool vcompute_pci_asked(struct pci_dev *pdev,
				      const struct device_driver *drv,
				      const char *list)
{
	const char *name = pci_name(pdev);
	size_t len = strlen(name);

	if (device_match_driver_override(&pdev->dev, drv) > 0)
		return true;
	while (list && *list) {
		if (!strncmp(list, name, len) && (list[len] == ',' || !list[len]))
			return true;
		list = strchr(list, ',');
		if (list)
			list++;
	}
	return false;
}

#endif
