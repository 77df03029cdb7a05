// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: vcompute, the virtual compute device
 *
 * vcompute is a DRM driver without hardware, kept small in the spirit of
 * vgem: a software GPU whose render node carries the DRM compute uapi
 * through the DRM compute helpers exactly as a hardware driver does, so
 * that every compute ioctl, its invalid-input handling and its races run
 * end to end in a VM (IGT, CRIU, libvkp2p, the examples), while amdgpu,
 * which shares the helpers, can only be compiled here.
 *
 * Each instance is a faux-bus device "vcompute.N" made from a
 * &struct vcompute_config. The module creates ``num_devices`` of them at
 * load ("vcompute.0", ...) and removes them at unload; userspace creates
 * and removes more through configfs (vcompute_configfs.c), which is also
 * how a device is hot-unplugged under its clients. An instance has:
 *
 * - buffers in two placements (vcompute_bo.c): "VRAM", device memory whose
 *   addresses the driver allocates with the upstream buddy allocator over
 *   ``vram_mib`` MiB, and system memory backed by shmem; both mmap()able
 *   and exportable through PRIME; buffers made for export to peers carry
 *   the P2P helper's placement decision and report (vcompute_p2p.c);
 * - GPU VMs on drm_gpuvm with emulated four-level page tables
 *   (vcompute_vm.c): every access of the engine is translated and checked
 *   there, so a bad address faults the queue, never the kernel;
 * - user queues with doorbells (vcompute_userq.c) executed by a packet
 *   engine thread per device (vcompute_engine.c) that runs the packet
 *   format of vcompute_drm.h and its built-in kernels (vcompute_packet.c)
 *   over ``num_cus`` emulated compute units.
 *
 * Debugfs (dri/N/): ``vcompute_cu``, the workgroups each compute unit ran
 * and its thread's pid, which show a queue's CU mask at work.
 */

#include <linux/debugfs.h>
#include <linux/dma-resv.h>
#include <linux/device/faux.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_compute.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <uapi/drm/vcompute_drm.h>

#include "vcompute_drv.h"

#define DRIVER_NAME	"vcompute"
#define DRIVER_DESC	"Virtual compute device"
#define DRIVER_MAJOR	0
#define DRIVER_MINOR	2

#define VCOMPUTE_MAX_DEVICES	8

static unsigned int num_devices = 1;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices, "Instances to create at load (0-8, default 1)");

static unsigned int vram_mib = 256;
module_param(vram_mib, uint, 0444);
MODULE_PARM_DESC(vram_mib, "Size of each instance's emulated device memory in MiB (default 256)");

static unsigned int num_cus = 8;
module_param(num_cus, uint, 0444);
MODULE_PARM_DESC(num_cus, "Compute units of each instance (1-64, default 8)");

#define VCOMPUTE_MAX_CUS	64

static struct vcompute_device *devices[VCOMPUTE_MAX_DEVICES];

DRM_COMPUTE_DEFINE_IOCTLS(vcompute)

static struct drm_compute_file *vcompute_compute_file(struct drm_file *file)
{
	return &((struct vcompute_file *)file->driver_priv)->compute;
}

static const struct drm_ioctl_desc vcompute_ioctls[] = {
	DRM_COMPUTE_IOCTLS(VCOMPUTE, vcompute),
};

static const struct drm_compute_ops vcompute_compute_ops = {
	.bo_create = vcompute_bo_create_handle,
	.bo_bindable = vcompute_bo_bindable,
	.vm_create = vcompute_vm_create,
	.vm_free = vcompute_vm_free,
	.vm_bind = vcompute_vm_bind,
	.userq_create = vcompute_userq_create,
	.userq_start = vcompute_userq_start,
	.userq_stop = vcompute_userq_stop,
	.userq_free = vcompute_userq_free,
	.userq_suspend = vcompute_userq_suspend,
	.userq_resume = vcompute_userq_resume,
	.userq_hw_state = vcompute_userq_hw_state,
	.userq_wake = vcompute_userq_wake,
#if IS_ENABLED(CONFIG_DRM_VCOMPUTE_SVM)
	.svm_vm_init = vcompute_svm_vm_init,
	.svm_vm_fini = vcompute_svm_vm_fini,
	.svm_attr_set = vcompute_svm_attr_set,
	.svm_sync = vcompute_svm_sync,
#endif
	.p2p_bo_create = vcompute_p2p_bo_create,
	.p2p_export = vcompute_p2p_export_state,
	.p2p_move_to_host = vcompute_p2p_move_to_host,
	.p2p_check = vcompute_p2p_check,
	.bo_criu_placement = vcompute_bo_criu_placement,
	.bo_criu_copy = vcompute_bo_criu_copy,
	.vm_criu_mappings = vcompute_vm_criu_mappings,
	.userq_criu_restore = vcompute_userq_criu_restore,
};

static int vcompute_open(struct drm_device *drm, struct drm_file *file)
{
	struct vcompute_file *vfile;

	vfile = kzalloc_obj(*vfile);
	if (!vfile)
		return -ENOMEM;
	drm_compute_file_init(&vfile->compute, &to_vcompute(drm)->compute, file);
	file->driver_priv = vfile;
	return 0;
}

static void vcompute_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct vcompute_file *vfile = file->driver_priv;

	drm_compute_file_fini(&vfile->compute);
	kfree(vfile);
}

/* DRM_GEM_FOPS, with the helper's ioctl wrappers (restoring files). */
static const struct file_operations vcompute_fops = {
	.owner		= THIS_MODULE,
	.open		= drm_open,
	.release	= drm_release,
	.unlocked_ioctl	= vcompute_compute_ioctl,
	.compat_ioctl	= vcompute_compute_compat_ioctl,
	.poll		= drm_poll,
	.read		= drm_read,
	.llseek		= noop_llseek,
	.get_unmapped_area = drm_gem_get_unmapped_area,
	.mmap		= drm_gem_mmap,
	.fop_flags	= FOP_UNSIGNED_OFFSET,
};

static const struct drm_driver vcompute_driver = {
	.driver_features	= DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
				  DRIVER_SYNCOBJ_TIMELINE,
	.open			= vcompute_open,
	.postclose		= vcompute_postclose,
	.ioctls			= vcompute_ioctls,
	.num_ioctls		= ARRAY_SIZE(vcompute_ioctls),
	.fops			= &vcompute_fops,
	.dumb_create		= vcompute_dumb_create,
	.gem_prime_import = vcompute_gem_prime_import,

	.name	= DRIVER_NAME,
	.desc	= DRIVER_DESC,
	.major	= DRIVER_MAJOR,
	.minor	= DRIVER_MINOR,
};

static int cu_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vcompute_device *vdev = to_vcompute(entry->dev);
	unsigned int i;

	for (i = 0; i < vdev->config.num_cus; i++)
		seq_printf(m, "cu %u: %lld pid %d\n", i,
			   atomic64_read(&vdev->engine.cus[i].groups),
			   vdev->engine.cus[i].pid);
	return 0;
}

static int svm_stats_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vcompute_device *vdev = to_vcompute(entry->dev);

	seq_printf(m, "faults: %lld\npages_to_device: %lld\npages_to_ram: %lld\nmigrate_failed: %lld\nmapped_ahead: %lld\nfault_ns: %lld\n",
		   atomic64_read(&vdev->svm_stats.mirror.faults),
		   atomic64_read(&vdev->svm_stats.to_device),
		   atomic64_read(&vdev->svm_stats.to_ram),
		   atomic64_read(&vdev->svm_stats.mirror.migrate_failed),
		   atomic64_read(&vdev->svm_stats.mirror.mapped_ahead),
		   atomic64_read(&vdev->svm_stats.mirror.fault_ns));
	return 0;
}

/*
 * Tells the importers of every buffer made for export to map it again, or
 * with @revoke takes each buffer from its importers for good.
 */
static void vcompute_exports_tell(struct vcompute_device *vdev, bool revoke)
{
	unsigned long idx = 0;
	struct vcompute_bo *bo;

	for (;;) {
		/* The lock from lookup to reference: a freed buffer left first. */
		xa_lock(&vdev->exports);
		bo = xa_find(&vdev->exports, &idx, ULONG_MAX, XA_PRESENT);
		while (bo && !kref_get_unless_zero(&bo->base.refcount))
			bo = xa_find_after(&vdev->exports, &idx, ULONG_MAX, XA_PRESENT);
		xa_unlock(&vdev->exports);
		if (!bo)
			break;
		if (revoke) {
			drm_compute_p2p_revoke(&bo->export, bo->base.resv);
		} else {
			dma_resv_lock(bo->base.resv, NULL);
			drm_compute_p2p_invalidate(&bo->export);
			dma_resv_unlock(bo->base.resv);
		}
		drm_gem_object_put(&bo->base);
		idx++;
	}
}

/**
 * vcompute_reset - what a GPU reset does, emulated
 * @vdev: the device
 *
 * Every queue that was running loses its context and is reset (the helper
 * marks it HUNG), and every buffer made for export tells its importers to
 * map it again, as a GPU whose memory was rebuilt must: debugfs
 * ``vcompute_reset``, for the tests of both. The data stays (the emulated
 * memory survives).
 */
static void vcompute_reset(struct vcompute_device *vdev)
{
	vcompute_engine_reset(vdev);
	drm_compute_device_reset(&vdev->compute);
	vcompute_exports_tell(vdev, false);
}

static ssize_t reset_write(struct file *file, const char __user *buf,
			   size_t len, loff_t *pos)
{
	struct vcompute_device *vdev = file->private_data;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	vcompute_reset(vdev);
	drm_dev_exit(idx);
	return len;
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = reset_write,
};

/* What buffers hold now, to check that nothing is left behind. */
static int memory_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vcompute_device *vdev = to_vcompute(entry->dev);
	u64 avail;

	mutex_lock(&vdev->vram_lock);
	avail = vdev->vram.avail;
	mutex_unlock(&vdev->vram_lock);
	seq_printf(m, "vram_used: %llu\nown_pages: %ld\nsysmem_read: %lld\nall_own_pages: %ld\n",
		   vdev->config.vram_size - avail,
		   atomic_long_read(&vdev->own_pages),
		   atomic64_read(&vdev->sysmem_read),
		   atomic_long_read(&vcompute_all_own_pages));
	return 0;
}

static void vcompute_info(const struct vcompute_device *vdev,
			  struct drm_compute_dev_info *info)
{
	const struct vcompute_config *cfg = &vdev->config;

	*info = (struct drm_compute_dev_info) {
		.vram_size = cfg->vram_size,
		/*
		 * A faux device has no BAR: its memory is not PCI-reachable.
		 * A PCI instance's memory is its BAR, all of it.
		 */
		.vram_bar_size = vdev->pdev ? cfg->vram_size : 0,
		.placements = DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM,
		/* The first 64 KiB stay unmapped, so a NULL-ish VA faults. */
		.va_start = SZ_64K,
		.va_end = 1ULL << 47,
		.page_size = PAGE_SIZE,
		.max_vms = 16,
		.max_queues = 64,
		.num_priorities = 16,
		.priority_default = 7,
		.priority_privileged = 12,
		.num_cus = cfg->num_cus,
		.queue_formats = BIT(DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE),
		.doorbell_size = PAGE_SIZE,
		.userq_caps = DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP,
		.ring_size_min = SZ_4K,
		.ring_size_max = SZ_4M,
		.ctx_save_size = PAGE_SIZE,
		.svm_flags = VCOMPUTE_SVM_FLAGS,
	};
}

static void vcompute_fini_action(struct drm_device *drm, void *arg)
{
	struct vcompute_device *vdev = to_vcompute(drm);

	drm_compute_device_fini(&vdev->compute);
}

/* Everything the device needs before it is registered; devres-managed. */
static int vcompute_setup(struct vcompute_device *vdev)
{
	struct drm_compute_dev_info info;
	int ret;

	ret = drmm_mutex_init(&vdev->drm, &vdev->pagemap_lock);
	if (ret)
		return ret;
	ret = vcompute_vram_init(vdev);
	if (ret)
		return ret;
	if (vdev->pdev) {
		ret = vcompute_pci_bar_init(vdev);
		if (ret)
			return ret;
	}
	vcompute_info(vdev, &info);
	ret = drm_compute_device_init(&vdev->compute, &vdev->drm, &info,
				      &vcompute_compute_ops);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&vdev->drm, vcompute_fini_action, NULL);
	if (ret)
		return ret;
	return vcompute_engine_init(vdev);
}

/**
 * vcompute_config_check - whether a configuration makes a device
 * @cfg: the configuration
 *
 * Returns: 0, or -EINVAL for an empty name, no device memory, or a CU
 * count outside 1..64.
 */
int vcompute_config_check(const struct vcompute_config *cfg)
{
	if (!cfg->name[0] || !cfg->vram_size || !cfg->num_cus ||
	    cfg->num_cus > VCOMPUTE_MAX_CUS)
		return -EINVAL;
	return 0;
}

/* The DRM device on @parent, set up and registered; devres on @parent. */
static struct vcompute_device *vcompute_new(struct device *parent,
					    const struct vcompute_config *cfg,
					    struct faux_device *fdev,
					    struct pci_dev *pdev)
{
	struct vcompute_device *vdev;
	int ret;

	vdev = devm_drm_dev_alloc(parent, &vcompute_driver,
				  struct vcompute_device, drm);
	if (IS_ERR(vdev))
		return vdev;
	vdev->faux = fdev;
	vdev->pdev = pdev;
	vdev->config = *cfg;
	ret = vcompute_setup(vdev);
	if (ret)
		goto err_engine;

	drm_debugfs_add_file(&vdev->drm, "vcompute_cu", cu_show, NULL);
	drm_debugfs_add_file(&vdev->drm, "vcompute_memory", memory_show, NULL);
	if (IS_ENABLED(CONFIG_DRM_VCOMPUTE_SVM))
		drm_debugfs_add_file(&vdev->drm, "vcompute_svm", svm_stats_show, NULL);
	ret = drm_dev_register(&vdev->drm, 0);
	if (ret)
		goto err_engine;
	debugfs_create_file("vcompute_reset", 0200, vdev->drm.debugfs_root, vdev,
			    &reset_fops);
	return vdev;

err_engine:
	vcompute_engine_fini(vdev);
	return ERR_PTR(ret);
}

/**
 * vcompute_create_pci - create and register the instance of a PCI function
 * @pdev: the function, enabled, its BAR registered as P2P memory
 * @cfg: its configuration (copied); @cfg->vram_size is the BAR's size
 *
 * Returns: the device, or an ERR_PTR(); devres on @pdev undoes the rest.
 */
struct vcompute_device *vcompute_create_pci(struct pci_dev *pdev,
					    const struct vcompute_config *cfg)
{
	int ret;

	ret = vcompute_config_check(cfg);
	if (ret)
		return ERR_PTR(ret);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ERR_PTR(ret);
	return vcompute_new(&pdev->dev, cfg, NULL, pdev);
}

/**
 * vcompute_create - create and register one instance
 * @cfg: its configuration (copied)
 *
 * Returns: the device, or an ERR_PTR(): -EINVAL for a bad configuration,
 * -EEXIST when an instance of that name exists.
 */
struct vcompute_device *vcompute_create(const struct vcompute_config *cfg)
{
	struct vcompute_device *vdev;
	struct faux_device *fdev;
	char name[sizeof(DRIVER_NAME) + VCOMPUTE_NAME_MAX];
	int ret;

	ret = vcompute_config_check(cfg);
	if (ret)
		return ERR_PTR(ret);
	snprintf(name, sizeof(name), DRIVER_NAME ".%s", cfg->name);
	fdev = faux_device_create(name, NULL, NULL);
	if (!fdev)
		return ERR_PTR(-EEXIST);
	if (!devres_open_group(&fdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_faux;
	}
	ret = dma_coerce_mask_and_coherent(&fdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_devres;

	vdev = vcompute_new(&fdev->dev, cfg, fdev, NULL);
	if (IS_ERR(vdev)) {
		ret = PTR_ERR(vdev);
		goto err_devres;
	}
	return vdev;

err_devres:
	devres_release_group(&fdev->dev, NULL);
err_faux:
	faux_device_destroy(fdev);
	return ERR_PTR(ret);
}

/**
 * vcompute_destroy - hot-unplug an instance
 * @vdev: the device
 *
 * What a PCI driver's remove does: the DRM device is unplugged (new ioctls
 * fail with -ENODEV, CPU mappings of its buffers, dma-buf mappings
 * included, are zapped and fault SIGBUS), the engine stops, every queue
 * becomes LOST and its waiters return, and every buffer made for export is
 * revoked: its importers are told, and their next map fails with -ENODEV
 * (drm_compute_p2p_revoke()). Open files, mappings and exported dma-bufs
 * keep their memory until they are closed; the last close frees
 * everything.
 */
void vcompute_destroy(struct vcompute_device *vdev)
{
	struct faux_device *fdev = vdev->faux;

	drm_dev_unplug(&vdev->drm);
	vcompute_engine_fini(vdev);
	drm_compute_device_unplug(&vdev->compute);
	vcompute_exports_tell(vdev, true);
	/*
	 * A PCI instance's devres goes when its driver lets go of the
	 * function; the unbind then waits for the BAR, which the device
	 * holds no longer (DOC: vcompute as a PCI device).
	 */
	if (!fdev) {
		vcompute_pci_bar_put(vdev);
		return;
	}
	devres_release_group(&fdev->dev, NULL);
	faux_device_destroy(fdev);
}

static void vcompute_destroy_all(void)
{
	int i;

	for (i = VCOMPUTE_MAX_DEVICES - 1; i >= 0; i--) {
		if (devices[i])
			vcompute_destroy(devices[i]);
		devices[i] = NULL;
	}
}

static int __init vcompute_init(void)
{
	unsigned int i;
	int ret;

	if (num_devices > VCOMPUTE_MAX_DEVICES)
		return -EINVAL;

	for (i = 0; i < num_devices; i++) {
		struct vcompute_config cfg = {
			.vram_size = (u64)vram_mib << 20,
			.num_cus = num_cus,
		};
		struct vcompute_device *vdev;

		snprintf(cfg.name, sizeof(cfg.name), "%u", i);
		vdev = vcompute_create(&cfg);
		if (IS_ERR(vdev)) {
			vcompute_destroy_all();
			return PTR_ERR(vdev);
		}
		devices[i] = vdev;
	}
	ret = vcompute_configfs_register();
	if (ret) {
		vcompute_destroy_all();
		return ret;
	}
	/* After the faux instances: vcompute.0 keeps the first render node. */
	ret = vcompute_pci_register();
	if (ret) {
		vcompute_configfs_unregister();
		vcompute_destroy_all();
	}
	return ret;
}

static void __exit vcompute_exit(void)
{
	vcompute_pci_unregister();
	vcompute_configfs_unregister();
	vcompute_destroy_all();
	vcompute_pagemap_exit();
}

module_init(vcompute_init);
module_exit(vcompute_exit);

MODULE_IMPORT_NS("DMA_BUF");
MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
