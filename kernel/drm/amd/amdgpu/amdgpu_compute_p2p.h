/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __AMDGPU_COMPUTE_P2P_H__
#define __AMDGPU_COMPUTE_P2P_H__

/*
 * amdgpu's side of the DRM compute P2P placement helper
 * (amdgpu_compute_p2p.c, DOC: amdgpu compute export to peers).
 *
 * The first half is what amdgpu_dma_buf.c and amdgpu_compute.c call; the
 * second is the device-free part of the decisions, static inline and free
 * of amdgpu.h like amdgpu_compute_args.h, so that the KUnit suite
 * (drivers/gpu/drm/tests/amdgpu_compute_p2p_test.c) builds into the kernel
 * while amdgpu is a module.
 */

#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/types.h>

#include <drm/drm_compute.h>
#include <uapi/drm/amdgpu_drm.h>

struct amdgpu_bo;
struct dma_buf;
struct dma_buf_attachment;
struct drm_compute_file;
struct drm_gem_object;

/* &drm_compute_ops callbacks */
int amdgpu_compute_p2p_bo_create(struct drm_compute_file *cfile, u64 size,
				 u64 placement, u32 flags, u32 *handle);
struct drm_compute_p2p_export *amdgpu_compute_p2p_export(struct drm_gem_object *obj);
int amdgpu_compute_p2p_move_to_host(struct drm_gem_object *obj,
				    struct dma_buf *dmabuf);
u32 amdgpu_compute_p2p_check(struct drm_gem_object *obj,
			     struct dma_buf_attachment *attach);
bool amdgpu_compute_p2p_interconnect(struct drm_gem_object *obj,
				     struct dma_buf_attachment *attach);

/* amdgpu_dmabuf_ops of a BO with AMDGPU_BO_COMPUTE_EXPORT (amdgpu_dma_buf.c) */
int amdgpu_compute_p2p_attach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *attach);
void amdgpu_compute_p2p_detach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach);
int amdgpu_compute_p2p_pin(struct amdgpu_bo *bo,
			   struct dma_buf_attachment *attach);
void amdgpu_compute_p2p_unpin(struct amdgpu_bo *bo,
			      struct dma_buf_attachment *attach);
int amdgpu_compute_p2p_map_prepare(struct amdgpu_bo *bo,
				   struct dma_buf_attachment *attach);

/* Whether the glue may pin @bo for its own use (queue pointers) in GTT. */
bool amdgpu_compute_p2p_may_pin_gtt(struct amdgpu_bo *bo);

/* ------------------------------------------------------------------------
 * Device-free decisions (KUnit)
 */

/**
 * amdgpu_compute_vram_bar_size - &drm_compute_dev_info.vram_bar_size
 * @visible: adev->gmc.visible_vram_size, the VRAM behind the BAR
 * @real: adev->gmc.real_vram_size
 * @is_apu: AMD_IS_APU: "VRAM" is a carve-out of system memory, and the
 *	aperture amdgpu maps is that memory's physical address, not a BAR
 *
 * Returns: the bytes of device memory a peer reaches through a PCI BAR:
 * visible VRAM (never more than the VRAM there is) on a discrete GPU, 0 on
 * an APU, where the helper then reports %DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY.
 */
static inline u64 amdgpu_compute_vram_bar_size(u64 visible, u64 real,
					       bool is_apu)
{
	if (is_apu)
		return 0;
	return visible < real ? visible : real;
}

/**
 * amdgpu_compute_p2p_gem_flags - AMDGPU_GEM_CREATE_* of an export buffer
 * @placement: %DRM_COMPUTE_PLACEMENT_VRAM (PREFER_P2P, REQUIRE_P2P) or
 *	%DRM_COMPUTE_PLACEMENT_SYSTEM (HOST_ONLY)
 * @size: bytes
 * @bar_size: &drm_compute_dev_info.vram_bar_size
 * @visible_first: the first try: ask for CPU-visible VRAM
 *
 * As any compute buffer: cleared, and wiped when freed (what
 * amdgpu_gem_object_create() adds). A VRAM buffer that fits in the BAR is
 * first placed in CPU-visible VRAM (AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED,
 * which amdgpu_bo_placement_from_domain() turns into an lpfn limit), where
 * a peer can reach it without a move; the second try, when visible VRAM is
 * full, takes any VRAM, and a peer's map moves it into the BAR later.
 *
 * Returns: the flags for &amdgpu_bo_param.flags, without the kernel-only
 * AMDGPU_BO_COMPUTE_EXPORT.
 */
static inline u64 amdgpu_compute_p2p_gem_flags(u64 placement, u64 size,
					       u64 bar_size, bool visible_first)
{
	u64 flags = AMDGPU_GEM_CREATE_VRAM_CLEARED |
		    AMDGPU_GEM_CREATE_VRAM_WIPE_ON_RELEASE;

	if (placement == DRM_COMPUTE_PLACEMENT_VRAM && visible_first &&
	    size <= bar_size)
		flags |= AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED;
	return flags;
}

/**
 * amdgpu_compute_p2p_keeps_device_awake - whether an attachment holds a
 * runtime-PM reference
 * @export_flags: the buffer's DRM_COMPUTE_BO_EXPORT_* flag
 *
 * A buffer made in VRAM may be mapped by a peer through the BAR, and VRAM
 * does not survive runtime suspend, so each of its attachments keeps the
 * device awake from attach to detach. The answer depends on the flag
 * alone, which never changes, so attach and detach agree on it (the
 * helper changes &dma_buf_attachment.peer2peer when a buffer moves, so
 * amdgpu's own rule, a reference per peer-to-peer attachment, cannot be
 * kept). HOST_ONLY buffers never leave GTT and hold none.
 *
 * Returns: true for PREFER_P2P and REQUIRE_P2P.
 */
static inline bool amdgpu_compute_p2p_keeps_device_awake(u32 export_flags)
{
	return export_flags & (DRM_COMPUTE_BO_EXPORT_PREFER_P2P |
			       DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P);
}

/**
 * amdgpu_compute_p2p_map_domain - where a map puts an unpinned buffer
 * @peer: drm_compute_p2p_is_peer() of the attachment
 *
 * A peer maps VRAM (through the BAR) and nothing else: never a silent
 * fallback to GTT, as amdgpu_dma_buf_map() would take (VRAM | GTT). An
 * importer that maps system memory gets GTT.
 *
 * Returns: AMDGPU_GEM_DOMAIN_VRAM or AMDGPU_GEM_DOMAIN_GTT.
 */
static inline u32 amdgpu_compute_p2p_map_domain(bool peer)
{
	return peer ? AMDGPU_GEM_DOMAIN_VRAM : AMDGPU_GEM_DOMAIN_GTT;
}

/**
 * amdgpu_compute_p2p_pin_domain - where a pin keeps an export buffer
 * @placement: &drm_compute_p2p_export.placement, the helper's placement
 *
 * In place: VRAM while the helper keeps the buffer in device memory,
 * GTT once it moved it (or for HOST_ONLY). Unlike amdgpu_dma_buf_pin(),
 * the other attachments play no part: the helper decided for each of them
 * at attach.
 *
 * Returns: AMDGPU_GEM_DOMAIN_VRAM or AMDGPU_GEM_DOMAIN_GTT.
 */
static inline u32 amdgpu_compute_p2p_pin_domain(u64 placement)
{
	return placement == DRM_COMPUTE_PLACEMENT_VRAM ?
	       AMDGPU_GEM_DOMAIN_VRAM : AMDGPU_GEM_DOMAIN_GTT;
}

/**
 * amdgpu_compute_p2p_dma_reaches - whether an importer reaches the BAR
 * @aper_base: address of VRAM offset 0 as amdgpu_vram_mgr_alloc_sgt()
 *	hands it to dma_map_resource() (adev->gmc.aper_base)
 * @bar_size: bytes of VRAM behind it (&drm_compute_dev_info.vram_bar_size)
 * @dma_limit: the highest bus address the importer can reach: its DMA mask
 *	and bus limit, or U64_MAX where its IOMMU translates (the mapping
 *	is then an IOVA within the mask)
 *
 * The whole window is checked, not the buffer's current blocks: an
 * unpinned buffer may move anywhere in it.
 *
 * Returns: true when every byte of the window is reachable.
 */
static inline bool amdgpu_compute_p2p_dma_reaches(u64 aper_base, u64 bar_size,
						  u64 dma_limit)
{
	u64 last;

	if (!bar_size || check_add_overflow(aper_base, bar_size - 1, &last))
		return false;
	return last <= dma_limit;
}

/**
 * struct amdgpu_compute_p2p_facts - what amdgpu's &drm_compute_ops.p2p_check
 * looks at, gathered under the buffer's reservation lock
 */
struct amdgpu_compute_p2p_facts {
	/** @size: bytes of the buffer. */
	u64 size;
	/** @bar_size: &drm_compute_dev_info.vram_bar_size (visible VRAM). */
	u64 bar_size;
	/** @aper_base: adev->gmc.aper_base. */
	u64 aper_base;
	/** @dma_limit: see amdgpu_compute_p2p_dma_reaches(). */
	u64 dma_limit;
	/**
	 * @xgmi: the importer is an amdgpu device of the exporter's XGMI hive
	 * (amdgpu_dmabuf_is_xgmi_accessible()): it reaches VRAM over XGMI,
	 * not the BAR.
	 */
	bool xgmi;
	/** @pinned: the BO is pinned (ttm pin_count): where it is, it stays. */
	bool pinned;
	/** @in_visible_vram: its resource lies in CPU-visible VRAM. */
	bool in_visible_vram;
};

/**
 * amdgpu_compute_p2p_reason - amdgpu's conditions for a peer-to-peer map
 * @f: the facts
 *
 * Runs after the helper found a PCI path. In the uapi's order: an XGMI
 * peer needs neither BAR nor DMA mask; the importer's DMA must reach the
 * BAR window (%DRM_COMPUTE_P2P_REASON_DMA_MASK); the buffer must fit in
 * the BAR, and a pinned one must already lie there, as it cannot move
 * (%DRM_COMPUTE_P2P_REASON_BAR).
 *
 * Returns: a DRM_COMPUTE_P2P_REASON_*, %DRM_COMPUTE_P2P_REASON_NONE to
 * allow.
 */
static inline u32 amdgpu_compute_p2p_reason(const struct amdgpu_compute_p2p_facts *f)
{
	if (f->xgmi)
		return DRM_COMPUTE_P2P_REASON_NONE;
	if (!f->bar_size)
		return DRM_COMPUTE_P2P_REASON_BAR;
	if (!amdgpu_compute_p2p_dma_reaches(f->aper_base, f->bar_size,
					    f->dma_limit))
		return DRM_COMPUTE_P2P_REASON_DMA_MASK;
	if (f->size > f->bar_size || (f->pinned && !f->in_visible_vram))
		return DRM_COMPUTE_P2P_REASON_BAR;
	return DRM_COMPUTE_P2P_REASON_NONE;
}

#endif /* __AMDGPU_COMPUTE_P2P_H__ */
