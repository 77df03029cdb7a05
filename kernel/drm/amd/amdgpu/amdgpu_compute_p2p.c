// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: amdgpu compute export to peers
 *
 * amdgpu's side of the DRM compute P2P placement helper
 * (drivers/gpu/drm/drm_compute_p2p.c). A buffer made through
 * DRM_COMPUTE_OP_BO_CREATE with a DRM_COMPUTE_BO_EXPORT_* flag is an
 * &amdgpu_bo_user with a &struct drm_compute_p2p_export behind it
 * (&struct amdgpu_compute_bo) and AMDGPU_BO_COMPUTE_EXPORT in its flags.
 * It exports through amdgpu's own &amdgpu_dmabuf_ops, so imports, XGMI and
 * KFD recognise it as any amdgpu dma-buf; for such a buffer, and only for
 * it, the callbacks in amdgpu_dma_buf.c hand over to this file:
 *
 * - attach and detach go to drm_compute_p2p_attach() and
 *   drm_compute_p2p_detach(), which decide per importer, move a
 *   PREFER_P2P buffer to GTT for an importer that cannot reach VRAM, and
 *   refuse such an importer of a REQUIRE_P2P or pinned buffer (-EBUSY).
 *   amdgpu's own attach rules (pci_p2pdma_distance(), XGMI) are the
 *   helper's and amdgpu_compute_p2p_check()'s here. Each attachment of a
 *   VRAM buffer keeps the device awake until detach: VRAM a peer maps does
 *   not survive runtime suspend (amdgpu would instead drop peer-to-peer
 *   for a sleeping device, which REQUIRE_P2P forbids).
 * - pin pins where the helper placed the buffer, VRAM or GTT, and counts
 *   the pin (drm_compute_p2p_pin()); amdgpu_dma_buf_pin() would drop VRAM
 *   whenever any attachment is not peer-to-peer. A kernel mapping
 *   (dma_buf_vmap()) pins the same way and counts as one.
 * - map maps VRAM by bus address (amdgpu_vram_mgr_alloc_sgt()) only to an
 *   importer drm_compute_p2p_is_peer() names, after moving an unpinned
 *   buffer into CPU-visible VRAM if TTM evicted it; any other importer
 *   gets the GTT pages. Neither falls back to the other's memory.
 * - begin_cpu_access does not move the buffer to GTT.
 *
 * The move to system memory (amdgpu_compute_p2p_move_to_host()) is a TTM
 * validation into GTT under the reservation lock the helper holds, after
 * the helper told every importer and waited for every fence, the user
 * queues' eviction fences included: TTM zaps the CPU mappings, those of
 * the dma-buf file too (its f_mapping is the DRM device's), and the GPU VMs
 * follow through amdgpu's move notification and the queues' restore. The
 * BO's preferred and allowed domains become GTT, so that neither command
 * submission nor the user queues' restore brings it back to VRAM.
 *
 * What stays TTM's: an unpinned buffer the helper keeps in VRAM can still
 * be evicted under memory pressure, like any amdgpu BO. Its importers are
 * told (amdgpu_bo_move_notify()), and a peer's next map brings it back into
 * visible VRAM or fails; the report gives the helper's placement, not the
 * BO's resource of the moment.
 *
 * Locking: the helper's contract (drm_compute.h): attach and detach take
 * the reservation lock through the helper; pin, unpin and map run with it
 * held by the dma-buf core, and so do the TTM calls made from them. The
 * runtime-PM reference is taken before the reservation lock, as amdgpu's
 * ioctls take it.
 *
 * Only hardware exercises: all of it past the argument translation (the
 * placement decisions are tabulated by the KUnit suite amdgpu_compute_p2p).
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/iommu.h>
#include <linux/minmax.h>
#include <linux/pm_runtime.h>

#include <drm/drm_compute.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/ttm/ttm_bo.h>

#include "amdgpu.h"
#include "amdgpu_compute_args.h"
#include "amdgpu_compute_p2p.h"
#include "amdgpu_dma_buf.h"
#include "amdgpu_object.h"
#include "amdgpu_ttm.h"

/*
 * A buffer made for export: amdgpu's user BO, freed as one (the export
 * state needs no teardown: every importer holds a reference to the BO).
 */
struct amdgpu_compute_bo {
	struct amdgpu_bo_user ubo;	/* first: amdgpu_bo_destroy() frees it */
	struct drm_compute_p2p_export exp;
};

static struct amdgpu_compute_bo *to_compute_bo(struct amdgpu_bo *bo)
{
	return container_of(to_amdgpu_bo_user(bo), struct amdgpu_compute_bo, ubo);
}

static struct drm_compute_p2p_export *bo_export(struct amdgpu_bo *bo)
{
	return &to_compute_bo(bo)->exp;
}

/**
 * amdgpu_compute_p2p_bo_create - &drm_compute_ops.p2p_bo_create
 * @cfile: the file's compute state
 * @size: bytes, validated by the helper
 * @placement: VRAM (PREFER_P2P, REQUIRE_P2P) or SYSTEM (HOST_ONLY)
 * @flags: the DRM_COMPUTE_BO_EXPORT_* flag
 * @handle: receives the GEM handle
 *
 * The buffer amdgpu_gem_object_create() would make for the placement (its
 * own reservation object, cleared, wiped on release), one &struct
 * amdgpu_compute_bo large. A VRAM buffer is placed in CPU-visible VRAM when
 * it fits there; when visible VRAM is full, in any VRAM, as
 * amdgpu_gem_create_ioctl() retries.
 *
 * Returns: 0, or what amdgpu_bo_create() returns (-ENOMEM for a full VRAM).
 */
int amdgpu_compute_p2p_bo_create(struct drm_compute_file *cfile, u64 size,
				 u64 placement, u32 flags, u32 *handle)
{
	struct amdgpu_device *adev = drm_to_adev(cfile->cdev->drm);
	struct amdgpu_fpriv *fpriv = cfile->file->driver_priv;
	u64 bar_size = cfile->cdev->info.vram_bar_size;
	struct amdgpu_bo_param bp = {
		.size = size,
		.domain = amdgpu_compute_domain(placement),
		.preferred_domain = amdgpu_compute_domain(placement),
		.type = ttm_bo_type_device,
		.xcp_id_plus1 = fpriv->xcp_id + 1,
	};
	struct amdgpu_bo_user *ubo;
	struct drm_gem_object *gobj;
	bool visible = true;
	int r;

	BUILD_BUG_ON(offsetof(struct amdgpu_compute_bo, ubo.bo) != 0);
	if (size > ULONG_MAX)
		return -ENOMEM;
retry:
	bp.flags = amdgpu_compute_p2p_gem_flags(placement, size, bar_size,
						visible) |
		   AMDGPU_BO_COMPUTE_EXPORT;
	/* amdgpu_bo_create_user() keeps a larger size than its own. */
	bp.bo_ptr_size = sizeof(struct amdgpu_compute_bo);
	r = amdgpu_bo_create_user(adev, &bp, &ubo);
	if (r && r != -ERESTARTSYS && visible &&
	    (bp.flags & AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED)) {
		visible = false;
		goto retry;
	}
	if (r)
		return r;

	drm_compute_p2p_export_init(bo_export(&ubo->bo), flags, placement);
	gobj = &ubo->bo.tbo.base;
	r = drm_gem_handle_create(cfile->file, gobj, handle);
	drm_gem_object_put(gobj);
	return r;
}

/**
 * amdgpu_compute_p2p_export - &drm_compute_ops.p2p_export
 * @obj: a GEM object of an amdgpu device, which is always an &amdgpu_bo
 *	(imports included; they never carry AMDGPU_BO_COMPUTE_EXPORT)
 *
 * Returns: the export state, or NULL for a buffer not made for export.
 */
struct drm_compute_p2p_export *amdgpu_compute_p2p_export(struct drm_gem_object *obj)
{
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);

	return amdgpu_bo_is_compute_export(bo) ? bo_export(bo) : NULL;
}

/**
 * amdgpu_compute_p2p_move_to_host - &drm_compute_ops.p2p_move_to_host
 * @obj: an export buffer the helper keeps in VRAM
 * @dmabuf: its dma-buf; nothing to do with it here: the file's CPU
 *	mappings live in the DRM device's address space (drm_gem_dmabuf_export()
 *	set its f_mapping), which TTM's move zaps with the GEM object's own
 *
 * Context: the reservation lock of @obj held (by the helper's attach).
 *
 * Returns: 0; -EBUSY when amdgpu itself has the BO pinned (display, a
 * queue's pointers, KFD), which the helper's pin count does not see;
 * ttm_bo_validate()'s error, with the BO where it was.
 */
int amdgpu_compute_p2p_move_to_host(struct drm_gem_object *obj,
				    struct dma_buf *dmabuf)
{
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	u32 preferred = bo->preferred_domains, allowed = bo->allowed_domains;
	int r;

	dma_resv_assert_held(obj->resv);
	if (bo->tbo.pin_count)
		return -EBUSY;
	/*
	 * For good: command submission validates with these, and the user
	 * queues' restore with allowed_domains, so the BO stays in GTT.
	 */
	bo->preferred_domains = AMDGPU_GEM_DOMAIN_GTT;
	bo->allowed_domains = AMDGPU_GEM_DOMAIN_GTT;
	amdgpu_bo_placement_from_domain(bo, AMDGPU_GEM_DOMAIN_GTT);
	r = ttm_bo_validate(&bo->tbo, &bo->placement, &ctx);
	if (r) {
		bo->preferred_domains = preferred;
		bo->allowed_domains = allowed;
	}
	return r;
}

/*
 * The highest bus address the importer's DMA reaches without an IOMMU in
 * between; where its IOMMU translates, dma_map_resource() hands out an
 * IOVA inside the mask, so there is no limit to check.
 */
static u64 amdgpu_compute_p2p_dma_limit(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY)
		return U64_MAX;
	return min_not_zero(dma_get_mask(dev), dev->bus_dma_limit);
}

/**
 * amdgpu_compute_p2p_check - &drm_compute_ops.p2p_check
 * @obj: an export buffer
 * @attach: the importer's attachment, after the helper found a PCI path
 *
 * amdgpu_compute_p2p_reason() on the buffer's placement, the BAR window
 * and the importer's DMA reach.
 *
 * Context: the reservation lock of @obj held.
 *
 * Returns: a DRM_COMPUTE_P2P_REASON_*.
 */
u32 amdgpu_compute_p2p_check(struct drm_gem_object *obj,
			     struct dma_buf_attachment *attach)
{
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);
	struct amdgpu_device *adev = amdgpu_ttm_adev(bo->tbo.bdev);
	struct ttm_resource *res = bo->tbo.resource;
	struct amdgpu_compute_p2p_facts f = {
		.size = amdgpu_bo_size(bo),
		.bar_size = adev->compute.info.vram_bar_size,
		.aper_base = adev->gmc.aper_base,
		.dma_limit = amdgpu_compute_p2p_dma_limit(attach->dev),
		.xgmi = amdgpu_dma_buf_attach_is_xgmi(attach),
		.pinned = bo->tbo.pin_count,
		.in_visible_vram = res && res->mem_type == TTM_PL_VRAM &&
				   amdgpu_res_cpu_visible(adev, res),
	};

	dma_resv_assert_held(obj->resv);
	return amdgpu_compute_p2p_reason(&f);
}

/**
 * amdgpu_compute_p2p_interconnect - &drm_compute_ops.p2p_interconnect
 * @obj: an export buffer
 * @attach: a new attachment of it
 *
 * An amdgpu device of the exporter's XGMI hive reaches VRAM over XGMI,
 * whatever the PCIe topology says.
 *
 * Context: the reservation lock of @obj held.
 *
 * Returns: true for such an importer.
 */
bool amdgpu_compute_p2p_interconnect(struct drm_gem_object *obj,
				     struct dma_buf_attachment *attach)
{
	return amdgpu_dma_buf_attach_is_xgmi(attach);
}

/**
 * amdgpu_compute_p2p_attach - &dma_buf_ops.attach of an export buffer
 * @dmabuf: the buffer's dma-buf
 * @attach: the new attachment
 *
 * Context: process; no reservation lock held (the helper takes it).
 *
 * Returns: 0, or drm_compute_p2p_attach()'s error (-EBUSY: refused), or
 * the runtime resume's.
 */
int amdgpu_compute_p2p_attach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dmabuf->priv;
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);
	struct amdgpu_device *adev = amdgpu_ttm_adev(bo->tbo.bdev);
	struct device *dev = adev_to_drm(adev)->dev;
	bool awake = amdgpu_compute_p2p_keeps_device_awake(bo_export(bo)->flags);
	int r;

	if (awake) {
		r = pm_runtime_get_sync(dev);
		if (r < 0)
			goto err_pm_put;
	}

	r = dma_resv_lock(obj->resv, NULL);
	if (r)
		goto err_pm_put;
	amdgpu_vm_bo_update_shared(bo);
	dma_resv_unlock(obj->resv);

	r = drm_compute_p2p_attach(&adev->compute, obj, attach);
	if (r)
		goto err_pm_put;
	return 0;

err_pm_put:
	if (awake)
		pm_runtime_put_autosuspend(dev);
	return r;
}

/**
 * amdgpu_compute_p2p_detach - &dma_buf_ops.detach of an export buffer
 * @dmabuf: the buffer's dma-buf
 * @attach: an attachment amdgpu_compute_p2p_attach() accepted
 */
void amdgpu_compute_p2p_detach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dmabuf->priv;
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);
	struct amdgpu_device *adev = amdgpu_ttm_adev(bo->tbo.bdev);

	drm_compute_p2p_detach(obj, attach);
	if (amdgpu_compute_p2p_keeps_device_awake(bo_export(bo)->flags))
		pm_runtime_put_autosuspend(adev_to_drm(adev)->dev);
}

/**
 * amdgpu_compute_p2p_pin - &dma_buf_ops.pin and vmap of an export buffer
 * @bo: the buffer
 * @attach: the attachment, or NULL for a kernel mapping (dma_buf_vmap())
 *
 * Pins where the helper placed the buffer; a BO amdgpu pinned elsewhere
 * already fails (amdgpu_bo_pin(): -EINVAL).
 *
 * Context: the reservation lock of @bo held.
 *
 * Returns: 0, -ENODEV for a revoked buffer, -EBUSY while a checkpoint
 * has it paused, or amdgpu_bo_pin()'s error.
 */
int amdgpu_compute_p2p_pin(struct amdgpu_bo *bo,
			   struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_export *exp = bo_export(bo);
	int r;

	dma_resv_assert_held(bo->tbo.base.resv);
	r = drm_compute_p2p_pin(exp, attach);
	if (r)
		return r;
	r = amdgpu_bo_pin(bo, amdgpu_compute_p2p_pin_domain(exp->placement));
	if (r)
		drm_compute_p2p_unpin(exp, attach);
	return r;
}

/**
 * amdgpu_compute_p2p_unpin - &dma_buf_ops.unpin and vunmap of an export buffer
 * @bo: the buffer
 * @attach: as given to amdgpu_compute_p2p_pin()
 *
 * Context: the reservation lock of @bo held.
 */
void amdgpu_compute_p2p_unpin(struct amdgpu_bo *bo,
			      struct dma_buf_attachment *attach)
{
	dma_resv_assert_held(bo->tbo.base.resv);
	drm_compute_p2p_unpin(bo_export(bo), attach);
	amdgpu_bo_unpin(bo);
}

/**
 * amdgpu_compute_p2p_map_prepare - place an export buffer for a map
 * @bo: the buffer
 * @attach: the importer's attachment
 *
 * An unpinned buffer goes where this importer maps it: CPU-visible VRAM
 * for a peer (the BAR), GTT for any other; a pinned one must already be
 * there. amdgpu_dma_buf_map() then builds the table from the resource.
 *
 * Context: the reservation lock of @bo held.
 *
 * Returns: 0; ttm_bo_validate()'s error; -EBUSY when the buffer is pinned
 * where this importer cannot use it (a pin by amdgpu itself); -ENODEV or
 * -EBUSY from drm_compute_p2p_map_check().
 */
int amdgpu_compute_p2p_map_prepare(struct amdgpu_bo *bo,
				   struct dma_buf_attachment *attach)
{
	struct amdgpu_device *adev = amdgpu_ttm_adev(bo->tbo.bdev);
	bool peer = drm_compute_p2p_is_peer(attach);
	struct ttm_resource *res;
	int r;

	/* Not while revoked, nor while a checkpoint has the buffer paused. */
	r = drm_compute_p2p_map_check(attach);
	if (r)
		return r;
	if (!bo->tbo.pin_count) {
		struct ttm_operation_ctx ctx = { false, false };

		/* The lpfn limit of visible VRAM, as amdgpu_dma_buf_map() sets it. */
		if (peer)
			bo->flags |= AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED;
		amdgpu_bo_placement_from_domain(bo, amdgpu_compute_p2p_map_domain(peer));
		r = ttm_bo_validate(&bo->tbo, &bo->placement, &ctx);
		if (r)
			return r;
	}

	res = bo->tbo.resource;
	if (peer)
		return res->mem_type == TTM_PL_VRAM &&
		       amdgpu_res_cpu_visible(adev, res) ? 0 : -EBUSY;
	return res->mem_type == TTM_PL_TT ? 0 : -EBUSY;
}

/**
 * amdgpu_compute_p2p_may_pin_gtt - whether the glue may pin a BO in GTT
 * @bo: a BO the glue wants for a queue's pointers
 *
 * Such a pin is amdgpu's own, which the helper does not count: it must
 * not pull an export buffer the helper keeps in VRAM into GTT.
 *
 * Context: the reservation lock of @bo held.
 *
 * Returns: true for any BO but an export buffer in the helper's VRAM.
 */
bool amdgpu_compute_p2p_may_pin_gtt(struct amdgpu_bo *bo)
{
	dma_resv_assert_held(bo->tbo.base.resv);
	return !amdgpu_bo_is_compute_export(bo) ||
	       bo_export(bo)->placement == DRM_COMPUTE_PLACEMENT_SYSTEM;
}
