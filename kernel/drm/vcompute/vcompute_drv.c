// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: vcompute, the virtual compute device
 *
 * vcompute is a DRM driver without hardware, kept small in the spirit of
 * vgem: a render node whose compute uapi is implemented through the DRM
 * compute helpers exactly as a hardware driver implements it, with the
 * hardware replaced by software. It exists so that every compute ioctl, its
 * invalid-input handling and its races run end to end in a VM (IGT, CRIU and
 * libvkp2p tests), while amdgpu, which shares the helpers, can only be
 * compiled here.
 *
 * Today it exposes GEM objects backed by shmem (the generic dumb-buffer and
 * PRIME paths) and the capability query. Its "VRAM" is a size reported by
 * the module parameter ``vram_mib``; no feature bit is set until the uapi
 * behind it is implemented.
 */

#include <linux/device/faux.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>

#include <drm/drm_compute.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <uapi/drm/vcompute_drm.h>

#define DRIVER_NAME	"vcompute"
#define DRIVER_DESC	"Virtual compute device"
#define DRIVER_MAJOR	0
#define DRIVER_MINOR	1

static unsigned int vram_mib = 256;
module_param(vram_mib, uint, 0444);
MODULE_PARM_DESC(vram_mib, "Size of the emulated device memory in MiB (default 256)");

/**
 * struct vcompute_device - the one virtual compute device
 * @drm: the DRM device
 * @faux_dev: the faux bus device @drm hangs off
 * @info: what the device reports through the DRM compute helpers; set
 *        before drm_dev_register() and read-only afterwards, so it needs
 *        no lock
 */
struct vcompute_device {
	struct drm_device drm;
	struct faux_device *faux_dev;
	struct drm_compute_dev_info info;
};

static struct vcompute_device *vcompute_device;

static struct vcompute_device *to_vcompute(struct drm_device *drm)
{
	return container_of(drm, struct vcompute_device, drm);
}

static int vcompute_caps_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	return drm_compute_caps_fill(&to_vcompute(drm)->info, data);
}

static const struct drm_ioctl_desc vcompute_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VCOMPUTE_CAPS, vcompute_caps_ioctl, DRM_RENDER_ALLOW),
};

DEFINE_DRM_GEM_FOPS(vcompute_fops);

static const struct drm_driver vcompute_driver = {
	.driver_features	= DRIVER_GEM | DRIVER_RENDER,
	.ioctls			= vcompute_ioctls,
	.num_ioctls		= ARRAY_SIZE(vcompute_ioctls),
	.fops			= &vcompute_fops,
	DRM_GEM_SHMEM_DRIVER_OPS,

	.name	= DRIVER_NAME,
	.desc	= DRIVER_DESC,
	.major	= DRIVER_MAJOR,
	.minor	= DRIVER_MINOR,
};

static int __init vcompute_init(void)
{
	struct faux_device *fdev;
	struct vcompute_device *vdev;
	int ret;

	fdev = faux_device_create(DRIVER_NAME, NULL, NULL);
	if (!fdev)
		return -ENODEV;

	if (!devres_open_group(&fdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto out_faux;
	}
	ret = dma_coerce_mask_and_coherent(&fdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto out_devres;

	vdev = devm_drm_dev_alloc(&fdev->dev, &vcompute_driver,
				  struct vcompute_device, drm);
	if (IS_ERR(vdev)) {
		ret = PTR_ERR(vdev);
		goto out_devres;
	}
	vdev->faux_dev = fdev;
	vdev->info.vram_size = (u64)vram_mib << 20;
	/* No BAR: the device memory of the faux device is not PCI-reachable. */
	vdev->info.vram_bar_size = 0;

	ret = drm_dev_register(&vdev->drm, 0);
	if (ret)
		goto out_devres;

	vcompute_device = vdev;
	return 0;

out_devres:
	devres_release_group(&fdev->dev, NULL);
out_faux:
	faux_device_destroy(fdev);
	return ret;
}

static void __exit vcompute_exit(void)
{
	struct faux_device *fdev = vcompute_device->faux_dev;

	drm_dev_unregister(&vcompute_device->drm);
	devres_release_group(&fdev->dev, NULL);
	faux_device_destroy(fdev);
}

module_init(vcompute_init);
module_exit(vcompute_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
