// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: Export to peer devices
 *
 * Buffers made with a DRM_COMPUTE_BO_EXPORT_* flag export through
 * vcompute's own &dma_buf_ops, which hand attach, detach, pin and unpin to
 * the DRM compute P2P helper (drm_compute_p2p.c) and map what it decided.
 * The faux-bus vcompute has no PCI BAR (&drm_compute_dev_info.vram_bar_size
 * is 0), so the helper never lets an importer map its device memory: every
 * importer is told why (%DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY, or
 * _IMPORTER_NOT_P2P for a static importer), a REQUIRE_P2P buffer refuses
 * them, and a PREFER_P2P buffer moves to system memory on the first attach.
 * A PCI instance (DOC: vcompute as a PCI device) has its memory in a BAR:
 * there the PCI topology decides, and a peer maps the BAR's bus addresses.
 *
 * The move (vcompute_p2p_move_to_host()) runs with &vcompute_engine.lock
 * held, so that no queue touches memory, and the buffer's reservation lock
 * inside it (the engine takes mmap_lock for SVM faults and reservation
 * locks nest in mmap_lock, so the engine lock is the outer one; the attach
 * callback takes it before the helper takes the reservation lock). It
 * allocates system pages, unmaps the buffer's CPU mappings (they fault
 * again, under the reservation lock, and find the new pages), copies the
 * data, points every GPU VM mapping of the buffer at the new pages and
 * swaps the page array; the device-memory pages and their buddy blocks go
 * back afterwards.
 *
 * As an importer, vcompute attaches dynamically with peer-to-peer allowed:
 * the engine never maps an import (DOC: Buffers), so an import holds no
 * mapping that a move could invalidate, and it stands for a peer device that
 * could take device memory. Its attachment is what the exporter's decision
 * looks at.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_compute.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_prime.h>
#include <drm/drm_vma_manager.h>

#include "vcompute_drv.h"

/**
 * vcompute_p2p_export_state - &drm_compute_ops.p2p_export
 * @obj: a GEM object
 *
 * Returns: the export state of a buffer made for export, NULL otherwise.
 */
struct drm_compute_p2p_export *vcompute_p2p_export_state(struct drm_gem_object *obj)
{
	if (!vcompute_bo_is_export(obj) || drm_gem_is_imported(obj))
		return NULL;
	return &to_vcompute_bo(obj)->export;
}

static int vcompute_p2p_attach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dmabuf->priv;
	struct vcompute_device *vdev = to_vcompute(obj->dev);
	int ret;

	/*
	 * A move must run with no queue touching memory. The engine takes
	 * mmap_lock (SVM faults), and reservation locks nest inside that,
	 * so the engine lock comes first: taken here, before the helper
	 * takes the reservation lock. The helper waits for the buffer's
	 * fences before a move; when this importer would move the buffer,
	 * wait for them here first, with no lock held, so that the engine
	 * is not held up behind another device's work (vcompute adds no
	 * fences of its own: only those that arrive in between are waited
	 * for under the engine lock). Importers that do not move it do not
	 * wait at all.
	 */
	if (drm_compute_p2p_may_move(&vdev->compute, obj, attach)) {
		long r = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_BOOKKEEP,
					       true, MAX_SCHEDULE_TIMEOUT);

		if (r < 0)
			return r;
	}
	ret = drm_gem_map_attach(dmabuf, attach);
	if (ret)
		return ret;
	mutex_lock(&vdev->engine.lock);
	ret = drm_compute_p2p_attach(&vdev->compute, obj, attach);
	mutex_unlock(&vdev->engine.lock);
	return ret;
}

static void vcompute_p2p_detach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attach)
{
	drm_compute_p2p_detach(dmabuf->priv, attach);
}

static int vcompute_p2p_pin(struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;

	return drm_compute_p2p_pin(&to_vcompute_bo(obj)->export, attach);
}

static void vcompute_p2p_unpin(struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;

	drm_compute_p2p_unpin(&to_vcompute_bo(obj)->export, attach);
}

static struct sg_table *vcompute_p2p_map(struct dma_buf_attachment *attach,
					 enum dma_data_direction dir)
{
	struct drm_gem_object *obj = attach->dmabuf->priv;
	struct sg_table *sgt;
	int idx, ret;

	/* Not while revoked, nor while a checkpoint has the buffer paused. */
	ret = drm_compute_p2p_map_check(attach);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * Without a BAR the helper never decides peer-to-peer. With one, the
	 * pages are P2PDMA pages: the DMA API maps them to bus addresses.
	 */
	if (WARN_ON_ONCE(drm_compute_p2p_is_peer(attach) &&
			 !to_vcompute(obj->dev)->pdev))
		return ERR_PTR(-EINVAL);
	/* No new mapping of a device that is going away (its BAR with it). */
	if (!drm_dev_enter(obj->dev, &idx))
		return ERR_PTR(-ENODEV);
	sgt = drm_gem_map_dma_buf(attach, dir);
	drm_dev_exit(idx);
	return sgt;
}

static const struct dma_buf_ops vcompute_p2p_dmabuf_ops = {
	.attach = vcompute_p2p_attach,
	.detach = vcompute_p2p_detach,
	.pin = vcompute_p2p_pin,
	.unpin = vcompute_p2p_unpin,
	.map_dma_buf = vcompute_p2p_map,
	.unmap_dma_buf = drm_gem_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

/**
 * vcompute_p2p_export - &drm_gem_object_funcs.export of an export buffer
 * @obj: the buffer
 * @flags: the dma-buf file flags
 *
 * Returns: the new dma-buf or an ERR_PTR().
 */
struct dma_buf *vcompute_p2p_export(struct drm_gem_object *obj, int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	exp_info.ops = &vcompute_p2p_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/**
 * vcompute_p2p_move_to_host - &drm_compute_ops.p2p_move_to_host
 * @obj: a buffer in device memory, not pinned
 * @dmabuf: its dma-buf (&drm_gem_object.dma_buf is gone once the last
 *	    handle closed, while the dma-buf and its mappings live on)
 *
 * Context: &vcompute_engine.lock held (vcompute_p2p_attach()), then the
 * reservation lock of @obj; takes each mapping VM's &vcompute_vm.pt_lock.
 *
 * Returns: 0, or -ENOMEM with @obj unchanged.
 */
int vcompute_p2p_move_to_host(struct drm_gem_object *obj,
			      struct dma_buf *dmabuf)
{
	struct vcompute_device *vdev = to_vcompute(obj->dev);
	struct vcompute_bo *bo = to_vcompute_bo(obj);
	unsigned long i, n = obj->size >> PAGE_SHIFT;
	struct drm_gpuvm_bo *vm_bo;
	struct page **pages, **old;
	struct drm_gpuva *va;
	LIST_HEAD(blocks);

	lockdep_assert_held(&vdev->engine.lock);
	dma_resv_assert_held(obj->resv);
	if (WARN_ON(bo->placement != DRM_COMPUTE_PLACEMENT_VRAM))
		return -EINVAL;
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			vcompute_bo_release_pages(vdev, pages, n, &blocks);
			return -ENOMEM;
		}
		vcompute_own_pages_add(vdev, 1);
	}

	/* CPU mappings fault again, under the reservation lock we hold. */
	drm_vma_node_unmap(&obj->vma_node, obj->dev->anon_inode->i_mapping);
	unmap_mapping_range(dmabuf->file->f_mapping, 0, 0, 1);

	for (i = 0; i < n; i++)
		copy_highpage(pages[i], bo->pages[i]);
	/* The buffer's gpuva list is protected by the reservation lock. */
	drm_gem_for_each_gpuvm_bo(vm_bo, obj)
		drm_gpuvm_bo_for_each_va(va, vm_bo)
			vcompute_vm_pt_repoint(va->vm, va->va.addr, va->va.range,
					       pages + (va->gem.offset >> PAGE_SHIFT));
	old = bo->pages;
	bo->pages = pages;
	bo->placement = DRM_COMPUTE_PLACEMENT_SYSTEM;
	list_splice_init(&bo->blocks, &blocks);

	vcompute_bo_release_pages(vdev, old, n, &blocks);
	return 0;
}

/**
 * vcompute_p2p_check - &drm_compute_ops.p2p_check
 * @obj: a buffer made for export
 * @attach: an importer the PCI topology lets reach it peer-to-peer
 *
 * The buffer must fit in the BAR (the helper's own rule), and the
 * importer's DMA must reach every bus address of the BAR: the buffer's
 * pages may lie anywhere in it.
 *
 * Context: the reservation lock of @obj held.
 *
 * Returns: %DRM_COMPUTE_P2P_REASON_NONE, _BAR or _DMA_MASK.
 */
u32 vcompute_p2p_check(struct drm_gem_object *obj,
		       struct dma_buf_attachment *attach)
{
	struct vcompute_device *vdev = to_vcompute(obj->dev);
	struct device *idev = attach->dev;

	if (obj->size > vdev->compute.info.vram_bar_size)
		return DRM_COMPUTE_P2P_REASON_BAR;
	if (vdev->pdev &&
	    vcompute_pci_bar_end(vdev) > min_not_zero(dma_get_mask(idev),
						      idev->bus_dma_limit))
		return DRM_COMPUTE_P2P_REASON_DMA_MASK;
	return DRM_COMPUTE_P2P_REASON_NONE;
}

static void vcompute_import_invalidate(struct dma_buf_attachment *attach)
{
	/* The engine never maps an import: there is nothing to drop. */
}

static const struct dma_buf_attach_ops vcompute_import_ops = {
	.allow_peer2peer = true,
	.invalidate_mappings = vcompute_import_invalidate,
};

/**
 * vcompute_gem_prime_import - &drm_driver.gem_prime_import
 * @drm: the device
 * @dmabuf: the dma-buf
 *
 * A buffer of this device comes back as itself; any other is attached
 * dynamically, peer-to-peer allowed, and never mapped.
 *
 * Returns: a GEM object with a reference, or an ERR_PTR().
 */
struct drm_gem_object *vcompute_gem_prime_import(struct drm_device *drm,
						 struct dma_buf *dmabuf)
{
	struct dma_buf_attachment *attach;
	struct drm_gem_object *obj;
	struct vcompute_bo *bo;

	if (drm_gem_is_prime_exported_dma_buf(drm, dmabuf) ||
	    (dmabuf->ops == &vcompute_p2p_dmabuf_ops &&
	     ((struct drm_gem_object *)dmabuf->priv)->dev == drm)) {
		obj = dmabuf->priv;
		drm_gem_object_get(obj);
		return obj;
	}

	attach = dma_buf_dynamic_attach(dmabuf, drm->dev, &vcompute_import_ops,
					NULL);
	if (IS_ERR(attach))
		return ERR_CAST(attach);
	bo = vcompute_bo_import_alloc(drm, dmabuf->size);
	if (!bo) {
		dma_buf_detach(dmabuf, attach);
		return ERR_PTR(-ENOMEM);
	}
	get_dma_buf(dmabuf);
	bo->base.import_attach = attach;
	bo->base.resv = dmabuf->resv;
	return &bo->base;
}
