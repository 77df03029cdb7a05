// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: vcompute_edu, a DMA-doing dma-buf importer
 *
 * The "NIC" of the test VM: a driver for QEMU's ``edu`` PCI device (1234:11e8)
 * that imports a dma-buf the way an RDMA NIC does its memory regions: a
 * dynamic attachment, peer-to-peer allowed, mapped under the reservation
 * lock on the first write and kept for the next ones until the exporter
 * invalidates it (a move, a device reset, a revocation at unplug), when the
 * mapping is dropped and the next write maps again. It writes into the
 * buffer with the device's DMA engine, by bus address. So a write into a
 * buffer the exporter placed peer-to-peer goes to the exporter's BAR, and a
 * write into a buffer that fell back to system memory goes to RAM: what the
 * P2P helper decided is what the bytes do.
 *
 * The device copies through a 4 KiB buffer of its own: each chunk goes from a
 * coherent host page (filled with the caller's data) into the device, then
 * from the device to the imported buffer's bus address. QEMU's edu finishes a
 * DMA about 100 ms (virtual time) after it is started, so this importer shows
 * where bytes land, not how fast. QEMU's edu clamps DMA addresses to its
 * ``dma_mask`` (28 bits unless told otherwise), so the driver's DMA mask is
 * the module parameter ``dma_bits`` (28 by default); the test VM starts its
 * edu functions with a 64-bit mask and loads the module with dma_bits=64.
 * A DMA that does not finish within EDU_DMA_TIMEOUT_MS wedges the device:
 * it cannot be stopped, so its mapping is kept (pinned; an invalidation does
 * not drop it) and every later write fails (-EIO).
 *
 * Each function has a misc device ``/dev/vcompute-edu-<PCI address>``; an
 * open file imports at most one dma-buf at a time (VCOMPUTE_EDU_IOCTL_*,
 * vcompute_drm.h). Locking: &vcompute_edu.lock serialises the DMA engine
 * and its removal; &vcompute_edu_file.lock protects the file's import; the
 * dma-buf's reservation lock protects its mapping. A file keeps the device
 * structure and the &struct pci_dev alive (an attachment names the
 * device): after the function is removed its imports and writes fail with
 * -ENODEV.
 *
 * Like vcompute's PCI instances (vcompute_pci_asked()), it binds only to an
 * edu function named in its ``pci_functions`` parameter or whose
 * driver_override is "vcompute_edu", and has no device table: loading the
 * module claims nothing by itself.
 */

#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/drm/vcompute_drm.h>

#include "vcompute_bind.h"

#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8
#define EDU_ID		0x00
#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_COUNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_CMD_START	BIT(0)
#define EDU_CMD_TO_RAM	BIT(1)
#define EDU_BUF		0x40000
#define EDU_BUF_SIZE	4096
/* A DMA takes ~100 ms of QEMU's virtual time; allow for a slow TCG host. */
#define EDU_DMA_TIMEOUT_MS	10000

static unsigned int dma_bits = 28;
module_param(dma_bits, uint, 0444);
MODULE_PARM_DESC(dma_bits, "DMA address bits of the edu functions, as QEMU's dma_mask property gives them (28)");

static char *pci_functions;
module_param(pci_functions, charp, 0444);
MODULE_PARM_DESC(pci_functions,
		 "edu functions (1234:11e8) to drive, e.g. 0000:05:00.0 (default: none; driver_override works too)");

static struct pci_driver edu_driver;

struct vcompute_edu {
	/* Open files hold a reference: the function may go before them. */
	struct kref ref;
	/* Set under @lock when the function is removed: no DMA afterwards. */
	bool gone;
	/* Set under @lock when a DMA did not finish: it may still run. */
	bool wedged;
	struct pci_dev *pdev;
	void __iomem *mmio;
	/* Coherent host page the data goes through on its way to the device. */
	void *bounce;
	dma_addr_t bounce_dma;
	/* Serialises the DMA engine (its registers and its buffer). */
	struct mutex lock;
	struct miscdevice misc;
	char name[48];
};

struct vcompute_edu_file {
	struct vcompute_edu *edu;
	/* Protects @attach and @buf. */
	struct mutex lock;
	struct dma_buf_attachment *attach;
	/* The mapping, from the first write until invalidated; resv lock. */
	struct sg_table *sgt;
	/* A DMA into @sgt never finished: it is never unmapped; resv lock. */
	bool stuck;
	/* VCOMPUTE_EDU_IMPORT_PIN: @attach is pinned until it goes. */
	bool pinned;
	/* The caller's chunk, copied in before the engine is taken. */
	u8 buf[EDU_BUF_SIZE];
};

static int edu_dma(struct vcompute_edu *edu, u64 src, u64 dst, u32 count, u32 cmd)
{
	unsigned int waited = 0;

	lockdep_assert_held(&edu->lock);
	writeq(src, edu->mmio + EDU_DMA_SRC);
	writeq(dst, edu->mmio + EDU_DMA_DST);
	writeq(count, edu->mmio + EDU_DMA_COUNT);
	writeq(cmd | EDU_CMD_START, edu->mmio + EDU_DMA_CMD);
	while (readq(edu->mmio + EDU_DMA_CMD) & EDU_CMD_START) {
		if (waited >= EDU_DMA_TIMEOUT_MS) {
			/* QEMU's edu cannot abort: it may write later. */
			edu->wedged = true;
			dev_err(&edu->pdev->dev, "DMA did not finish; device wedged\n");
			return -ETIMEDOUT;
		}
		usleep_range(5000, 10000);
		waited += 5;
	}
	return 0;
}

static void edu_invalidate(struct dma_buf_attachment *attach)
{
	struct vcompute_edu_file *f = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	/* No DMA runs outside a write, which holds the reservation lock. */
	if (f && f->sgt && !f->stuck) {
		dma_buf_unmap_attachment(attach, f->sgt, DMA_BIDIRECTIONAL);
		f->sgt = NULL;
	}
}

static const struct dma_buf_attach_ops edu_importer_ops = {
	.allow_peer2peer = true,
	.invalidate_mappings = edu_invalidate,
};

/* The bus address of byte @off of a mapping, and bytes contiguous from it. */
static int sg_addr(struct sg_table *sgt, u64 off, dma_addr_t *addr, u64 *len)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (off < sg_dma_len(sg)) {
			*addr = sg_dma_address(sg) + off;
			*len = sg_dma_len(sg) - off;
			return 0;
		}
		off -= sg_dma_len(sg);
	}
	return -EINVAL;
}

static int edu_write(struct vcompute_edu_file *f, struct vcompute_edu_write *args)
{
	struct vcompute_edu *edu = f->edu;
	struct dma_buf_attachment *attach = f->attach;
	const u8 __user *data = u64_to_user_ptr(args->data);
	u64 done = 0;
	int ret;

	if (!attach)
		return -ENOENT;
	/* Aligned chunks never cross a page, so never a mapping's segment. */
	if (!args->size || !IS_ALIGNED(args->offset, EDU_BUF_SIZE) ||
	    args->offset > attach->dmabuf->size ||
	    args->size > attach->dmabuf->size - args->offset)
		return -EINVAL;

	while (done < args->size) {
		u64 n = min_t(u64, args->size - done, EDU_BUF_SIZE), len;
		struct sg_table *sgt;
		dma_addr_t addr;
		long wait;

		/* Outside the engine's lock: a fault here may take its time. */
		if (copy_from_user(f->buf, data + done, n))
			return -EFAULT;
		mutex_lock(&edu->lock);
		if (edu->gone || edu->wedged) {
			ret = edu->gone ? -ENODEV : -EIO;
			mutex_unlock(&edu->lock);
			return ret;
		}
		memcpy(edu->bounce, f->buf, n);
		ret = edu_dma(edu, edu->bounce_dma, EDU_BUF, n, 0);
		if (ret)
			goto out_unlock;

		/*
		 * As a dynamic importer does: under the lock, after every
		 * fence a writer must wait for, with the mapping it keeps, or
		 * a new one if the exporter took the last one back.
		 */
		dma_resv_lock(attach->dmabuf->resv, NULL);
		if (f->stuck) {
			ret = -EIO;
			goto out_resv;
		}
		wait = dma_resv_wait_timeout(attach->dmabuf->resv,
					     dma_resv_usage_rw(true), true,
					     MAX_SCHEDULE_TIMEOUT);
		if (wait < 0) {
			ret = wait;
			goto out_resv;
		}
		if (!f->sgt) {
			sgt = dma_buf_map_attachment(attach, DMA_BIDIRECTIONAL);
			if (IS_ERR(sgt)) {
				ret = PTR_ERR(sgt);
				goto out_resv;
			}
			f->sgt = sgt;
		}
		ret = sg_addr(f->sgt, args->offset + done, &addr, &len);
		if (!ret && len < n)
			ret = -EINVAL;
		if (!ret)
			ret = edu_dma(edu, EDU_BUF, addr, n, EDU_CMD_TO_RAM);
		if (ret == -ETIMEDOUT) {
			/*
			 * The device may still write there: keep the mapping,
			 * and the buffer where it is (a move would hand its
			 * memory to others).
			 */
			if (dma_buf_pin(attach))
				dev_warn(&edu->pdev->dev,
					 "a wedged DMA's buffer cannot be pinned\n");
			f->stuck = true;
		}
out_resv:
		dma_resv_unlock(attach->dmabuf->resv);
out_unlock:
		mutex_unlock(&edu->lock);
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

static void edu_detach(struct vcompute_edu_file *f)
{
	struct dma_buf *dmabuf;

	if (!f->attach)
		return;
	/*
	 * A wedged DMA may still write: keep its buffer and mapping for good,
	 * and with them the device and the code the attachment points at.
	 */
	dmabuf = f->attach->dmabuf;
	dma_resv_lock(dmabuf->resv, NULL);
	if (f->stuck) {
		dev_warn(&f->edu->pdev->dev, "leaving a mapping a wedged DMA may use\n");
		pci_dev_get(f->edu->pdev);
		__module_get(THIS_MODULE);
		/* The attachment outlives the file: nothing left to tell it. */
		f->attach->importer_priv = NULL;
		f->attach = NULL;
		f->sgt = NULL;
		f->stuck = false;
		dma_resv_unlock(dmabuf->resv);
		return;
	}
	if (f->sgt)
		dma_buf_unmap_attachment(f->attach, f->sgt, DMA_BIDIRECTIONAL);
	f->sgt = NULL;
	if (f->pinned)
		dma_buf_unpin(f->attach);
	f->pinned = false;
	dma_resv_unlock(dmabuf->resv);
	dma_buf_detach(dmabuf, f->attach);
	dma_buf_put(dmabuf);
	f->attach = NULL;
}

static long edu_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vcompute_edu_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case VCOMPUTE_EDU_IOCTL_IMPORT: {
		struct vcompute_edu_import args;
		struct dma_buf_attachment *attach;
		struct dma_buf *dmabuf;

		struct sg_table *sgt = NULL;

		if (copy_from_user(&args, uarg, sizeof(args)))
			return -EFAULT;
		if (args.flags & ~VCOMPUTE_EDU_IMPORT_PIN)
			return -EINVAL;
		mutex_lock(&f->edu->lock);
		ret = f->edu->gone ? -ENODEV : 0;
		mutex_unlock(&f->edu->lock);
		if (ret)
			return ret;
		dmabuf = dma_buf_get(args.fd);
		if (IS_ERR(dmabuf))
			return PTR_ERR(dmabuf);
		attach = dma_buf_dynamic_attach(dmabuf, &f->edu->pdev->dev,
						&edu_importer_ops, f);
		if (IS_ERR(attach)) {
			dma_buf_put(dmabuf);
			return PTR_ERR(attach);
		}
		mutex_lock(&f->lock);
		edu_detach(f);
		/* The exporter may tell the attachment from now on: its lock. */
		dma_resv_lock(dmabuf->resv, NULL);
		ret = 0;
		if (args.flags & VCOMPUTE_EDU_IMPORT_PIN) {
			/* As a pinned importer: pinned and mapped for good. */
			ret = dma_buf_pin(attach);
			if (!ret) {
				sgt = dma_buf_map_attachment(attach, DMA_BIDIRECTIONAL);
				if (IS_ERR(sgt)) {
					ret = PTR_ERR(sgt);
					sgt = NULL;
					dma_buf_unpin(attach);
				}
			}
		}
		if (!ret) {
			f->attach = attach;
			f->sgt = sgt;
			f->pinned = !!sgt;
		}
		dma_resv_unlock(dmabuf->resv);
		mutex_unlock(&f->lock);
		if (ret) {
			dma_buf_detach(dmabuf, attach);
			dma_buf_put(dmabuf);
		}
		return ret;
	}
	case VCOMPUTE_EDU_IOCTL_WRITE: {
		struct vcompute_edu_write args;

		if (copy_from_user(&args, uarg, sizeof(args)))
			return -EFAULT;
		if (args.flags || args.pad)
			return -EINVAL;
		mutex_lock(&f->lock);
		ret = edu_write(f, &args);
		mutex_unlock(&f->lock);
		return ret;
	}
	case VCOMPUTE_EDU_IOCTL_DETACH:
		mutex_lock(&f->lock);
		edu_detach(f);
		mutex_unlock(&f->lock);
		return 0;
	}
	return -ENOTTY;
}

static void edu_free(struct kref *ref)
{
	struct vcompute_edu *edu = container_of(ref, struct vcompute_edu, ref);

	pci_dev_put(edu->pdev);
	kfree(edu);
}

static int edu_open(struct inode *inode, struct file *file)
{
	struct vcompute_edu *edu = container_of(file->private_data,
						struct vcompute_edu, misc);
	struct vcompute_edu_file *f;

	f = kzalloc_obj(*f);
	if (!f)
		return -ENOMEM;
	kref_get(&edu->ref);
	f->edu = edu;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int edu_release(struct inode *inode, struct file *file)
{
	struct vcompute_edu_file *f = file->private_data;

	edu_detach(f);
	mutex_destroy(&f->lock);
	kref_put(&f->edu->ref, edu_free);
	kfree(f);
	return 0;
}

static const struct file_operations edu_fops = {
	.owner = THIS_MODULE,
	.open = edu_open,
	.release = edu_release,
	.unlocked_ioctl = edu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vcompute_edu *edu;
	int ret;

	/* driver_override matches any function: take only an edu. */
	if (pdev->vendor != EDU_VENDOR || pdev->device != EDU_DEVICE ||
	    !vcompute_pci_asked(pdev, &edu_driver.driver, pci_functions))
		return -ENODEV;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	edu = kzalloc_obj(*edu);
	if (!edu)
		return -ENOMEM;
	kref_init(&edu->ref);
	mutex_init(&edu->lock);
	edu->mmio = pcim_iomap_region(pdev, 0, "vcompute_edu");
	if (IS_ERR(edu->mmio)) {
		ret = PTR_ERR(edu->mmio);
		goto err;
	}
	if ((readl(edu->mmio + EDU_ID) & 0xff) != 0xed) {
		ret = dev_err_probe(&pdev->dev, -ENODEV, "not an edu device\n");
		goto err;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(min(dma_bits, 64u)));
	if (ret)
		goto err;
	edu->bounce = dmam_alloc_coherent(&pdev->dev, EDU_BUF_SIZE, &edu->bounce_dma,
					  GFP_KERNEL);
	if (!edu->bounce) {
		ret = -ENOMEM;
		goto err;
	}
	pci_set_master(pdev);
	/* Attachments name the device; open files may outlive the function. */
	edu->pdev = pci_dev_get(pdev);
	snprintf(edu->name, sizeof(edu->name), "vcompute-edu-%s", pci_name(pdev));
	edu->misc = (struct miscdevice) {
		.minor = MISC_DYNAMIC_MINOR,
		.name = edu->name,
		.fops = &edu_fops,
		.parent = &pdev->dev,
		.mode = 0600,
	};
	ret = misc_register(&edu->misc);
	if (ret)
		goto err;
	pci_set_drvdata(pdev, edu);
	return 0;

err:
	kref_put(&edu->ref, edu_free);
	return ret;
}

static void edu_remove(struct pci_dev *pdev)
{
	struct vcompute_edu *edu = pci_get_drvdata(pdev);

	misc_deregister(&edu->misc);
	/* Files still open get -ENODEV; the registers and buffer go now. */
	mutex_lock(&edu->lock);
	edu->gone = true;
	mutex_unlock(&edu->lock);
	kref_put(&edu->ref, edu_free);
}

/* No MODULE_DEVICE_TABLE: bound only where asked (vcompute_pci_asked()). */
static const struct pci_device_id edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};

static struct pci_driver edu_driver = {
	.name = "vcompute_edu",
	.id_table = edu_ids,
	.probe = edu_probe,
	.remove = edu_remove,
};
module_pci_driver(edu_driver);

MODULE_IMPORT_NS("DMA_BUF");
MODULE_DESCRIPTION("QEMU edu as a DMA-doing dma-buf importer for the P2P tests");
MODULE_LICENSE("GPL");
