// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: amdgpu compute SVM device memory
 *
 * Device memory for the SVM compute VMs of amdgpu's render node
 * (amdgpu_compute_svm.c), on the DRM-common drm_pagemap, where amdkfd has
 * its own: a &struct drm_pagemap over the VRAM manager, so that a
 * prefetch to the device, or a fault on a range whose preferred location
 * is the device, migrates private anonymous memory into VRAM as
 * ZONE_DEVICE private pages, and a CPU access brings it back.
 *
 * Pagemap. One per device, made on first use and kept in a
 * &struct drm_pagemap_cache (with its &struct drm_pagemap_shrinker, both
 * device managed): a device-private &struct dev_pagemap as large as VRAM
 * (2 MiB aligned), in a free physical range (request_free_mem_region()
 * and memremap_pages()), with drm_pagemap's &struct dev_pagemap_ops. The
 * device page of page frame ``first_pfn + n`` is VRAM page ``n``: VRAM
 * byte offsets, those of the VRAM manager (&struct amdgpu_res_cursor),
 * translate to page frames and back by arithmetic. The owner given to the
 * core mm (amdgpu_compute_pagemap_owner()) is the device's, and not
 * amdkfd's (SVM_ADEV_PGMAP_OWNER()): HMM hands each mirror its own pages
 * only, and migrates the other's back to system memory first.
 *
 * Allocations. A migration allocates one VRAM buffer object of the chunk's
 * size (at most 2 MiB: see drm_compute_svm_chunk_end()), cleared,
 * without CPU access, as an ordinary evictable TTM buffer, so that SVM
 * data and buffers compete for VRAM and for the process's dmem cgroup.
 * The &struct amdgpu_compute_devmem that embeds it is handed to
 * drm_pagemap_migrate_to_devmem(), which owns it from then on through its
 * zone-device data and releases it when the last page is freed or
 * migrated back. Copies both ways are SDMA copies on one of TTM's move
 * entities: VRAM by its MC address, system pages through the entity's
 * GART window 0, one copy per physically contiguous VRAM extent of at
 * most one window (AMDGPU_GTT_MAX_TRANSFER_SIZE).
 *
 * Eviction. TTM may evict such a buffer like any other:
 * amdgpu_evict_flags() sends it to system memory and amdgpu_bo_move()
 * calls amdgpu_compute_pagemap_bo_move(), which first migrates every page
 * still in it back to system memory (drm_pagemap_evict_to_ram(): no mmap
 * lock, page locks only tried), then drops the VRAM. Suspend
 * (amdgpu_device_evict_resources()) thus brings all SVM data back. A page
 * busy in a concurrent migration makes the eviction fail with -ENOSPC,
 * which TTM's LRU walk skips.
 *
 * Unplug. amdgpu does not evict VRAM at unbind, and device pages left
 * behind would keep their data in memory that is gone:
 * amdgpu_compute_pagemap_unplug() evicts every live allocation while SDMA
 * still runs (before amdgpu_device_fini_hw()), after drm_dev_unplug()
 * made new migrations fail with -ENODEV. The pagemap is not device
 * managed: a page that could not be evicted keeps the dev_pagemap alive
 * instead of blocking the unbind in memunmap_pages(), and its CPU fault
 * then fails (SIGBUS).
 *
 * Lifetime and references. drm_pagemap counts references to the pagemap:
 * the cache while it is active, each SVM mirror that used it, each
 * drm_gpusvm range mapping its pages, each zone-device data; and it holds
 * the DRM device and the module while the count is not zero. Each
 * allocation holds one more, and mmgrab()s its mm, until its buffer is
 * freed, so that an eviction racing with the release of the allocation
 * still finds its page frames and mm. Releases may come in atomic context
 * (a page freed under a page-table lock; the shrinker), so allocations
 * and pagemaps are freed by one work item, flushed at module exit
 * (amdgpu_compute_pagemap_exit()) since drm_pagemap drops its module
 * reference before that work has run.
 *
 * Locking, outermost first: the SVM lock, the mmap lock (populate_mm runs
 * under it), an allocation's reservation (held across
 * drm_pagemap_migrate_to_devmem(), and by TTM across an eviction), page
 * locks, the move entity's lock, the gpusvm notifier lock (taken by the
 * MMU notifier a migration raises), &amdgpu_compute_pagemap.devmem_lock (a
 * spinlock, innermost). The copy callbacks take no reservation: a CPU
 * fault holds page locks while it copies, and the eviction of that
 * allocation, which holds its reservation, only tries page locks.
 *
 * What only hardware runs: all of it but amdgpu_compute_svm_next_run()
 * and amdgpu_compute_copy_next() (amdgpu_compute_args.h, KUnit).
 */

#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/ioport.h>
#include <linux/llist.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/pm_runtime.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_pagemap.h>
#include <drm/drm_pagemap_util.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>

#include "amdgpu.h"
#include "amdgpu_compute.h"
#include "amdgpu_compute_args.h"
#include "amdgpu_object.h"
#include "amdgpu_res_cursor.h"
#include "amdgpu_ttm.h"

/* Pages one SDMA copy moves: one GART window of a move entity. */
#define AMDGPU_COMPUTE_COPY_MAX_PAGES	(AMDGPU_GTT_MAX_TRANSFER_SIZE >> PAGE_SHIFT)

/**
 * struct amdgpu_compute_pagemap - the SVM device memory of one device
 */
struct amdgpu_compute_pagemap {
	/**
	 * @dpagemap: drm_pagemap's part; its reference count is the
	 * pagemap's.
	 */
	struct drm_pagemap dpagemap;
	/** @pagemap: the device-private pages, one per VRAM page. */
	struct dev_pagemap pagemap;
	/**
	 * @adev: the device; alive while @dpagemap's count is not zero
	 * (drm_pagemap holds the DRM device), not used by the destroy path.
	 */
	struct amdgpu_device *adev;
	/** @first_pfn: page frame of the device page of VRAM offset 0. */
	unsigned long first_pfn;
	/** @devmem_lock: protects @devmem_list; may be taken in atomic context. */
	spinlock_t devmem_lock;
	/** @devmem_list: allocations handed to drm_pagemap, not released yet. */
	struct list_head devmem_list;
	/** @dead_link: in the reaper's list once destroyed. */
	struct llist_node dead_link;
};

/*
 * Where an allocation is in its life: made (not handed to drm_pagemap),
 * handed to drm_pagemap (its pages may be in use), released by drm_pagemap
 * (no page uses it; its buffer goes).
 */
enum amdgpu_compute_devmem_state {
	AMDGPU_COMPUTE_DEVMEM_NEW,
	AMDGPU_COMPUTE_DEVMEM_LIVE,
	AMDGPU_COMPUTE_DEVMEM_RELEASED,
};

/**
 * struct amdgpu_compute_devmem - VRAM holding migrated SVM data
 *
 * Allocated by amdgpu_bo_create() (&amdgpu_bo_param.bo_ptr_size) and freed
 * with its buffer (amdgpu_compute_devmem_bo_destroy()).
 */
struct amdgpu_compute_devmem {
	/** @bo: the VRAM buffer; first, amdgpu_bo_create() allocates it. */
	struct amdgpu_bo bo;
	/** @base: drm_pagemap's part. */
	struct drm_pagemap_devmem base;
	/**
	 * @apm: the pagemap; a reference to its &drm_pagemap is held until
	 * the buffer is freed.
	 */
	struct amdgpu_compute_pagemap *apm;
	/** @first_pfn: copy of &amdgpu_compute_pagemap.first_pfn. */
	unsigned long first_pfn;
	/** @state: &enum amdgpu_compute_devmem_state. */
	atomic_t state;
	/** @link: in &amdgpu_compute_pagemap.devmem_list while LIVE. */
	struct list_head link;
	/** @release_link: in the reaper's list once released. */
	struct llist_node release_link;
};

static LLIST_HEAD(released_devmem);
static LLIST_HEAD(dead_pagemaps);

static void amdgpu_compute_pagemap_reap(struct work_struct *work);
static DECLARE_WORK(reaper, amdgpu_compute_pagemap_reap);

static struct amdgpu_compute_pagemap *to_apm(struct drm_pagemap *dpagemap)
{
	return container_of(dpagemap, struct amdgpu_compute_pagemap, dpagemap);
}

static struct amdgpu_compute_pagemap *page_to_apm(struct page *page)
{
	return container_of(page_pgmap(page), struct amdgpu_compute_pagemap, pagemap);
}

static struct amdgpu_compute_devmem *to_devmem(struct drm_pagemap_devmem *d)
{
	return container_of(d, struct amdgpu_compute_devmem, base);
}

static struct amdgpu_compute_devmem *bo_to_devmem(struct amdgpu_bo *bo)
{
	return container_of(bo, struct amdgpu_compute_devmem, bo);
}

/* VRAM byte offset of a device page of @apm. */
static u64 page_vram_offset(const struct amdgpu_compute_pagemap *apm,
			    struct page *page)
{
	return (u64)(page_to_pfn(page) - apm->first_pfn) << PAGE_SHIFT;
}

/**
 * amdgpu_compute_pagemap_owner - the device-private page owner of a device
 * @adev: the device
 *
 * What &dev_pagemap.owner of the device's pagemap is, and what its SVM
 * mirrors pass to HMM (&drm_gpusvm_ctx.device_private_page_owner). Unique
 * to the device and distinct from amdkfd's owner (the device or its XGMI
 * hive), so that neither side ever sees the other's pages as its own.
 *
 * Returns: the owner.
 */
void *amdgpu_compute_pagemap_owner(struct amdgpu_device *adev)
{
	return &adev->compute;
}

/**
 * amdgpu_compute_pagemap_supported - whether SVM data can move to VRAM
 * @adev: the device
 *
 * Device-private pages need dedicated VRAM that the CPU does not reach
 * coherently: not an APU (whose "VRAM" is a carve-out, and which amdkfd
 * leaves in system memory too), not VRAM the CPU maps coherently over
 * XGMI (that would be MEMORY_DEVICE_COHERENT), and SDMA to copy with.
 *
 * Returns: true when it can.
 */
bool amdgpu_compute_pagemap_supported(struct amdgpu_device *adev)
{
	return IS_ENABLED(CONFIG_DEVICE_PRIVATE) &&
	       !(adev->flags & AMD_IS_APU) && !adev->gmc.is_app_apu &&
	       !adev->gmc.xgmi.connected_to_cpu &&
	       adev->gmc.real_vram_size && adev->mman.buffer_funcs;
}

/* Allocations */

/* The buffer's destroy callback: frees the allocation with it. */
static void amdgpu_compute_devmem_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct amdgpu_bo *bo = ttm_to_amdgpu_bo(tbo);

	drm_gem_object_release(&bo->tbo.base);
	kvfree(bo_to_devmem(bo));
}

/**
 * amdgpu_compute_pagemap_is_devmem - whether a buffer holds SVM device memory
 * @bo: an amdgpu buffer
 *
 * For amdgpu_evict_flags() and amdgpu_bo_move().
 *
 * Returns: true for the buffer of a &struct amdgpu_compute_devmem.
 */
bool amdgpu_compute_pagemap_is_devmem(struct amdgpu_bo *bo)
{
	return bo->tbo.destroy == &amdgpu_compute_devmem_bo_destroy;
}

/*
 * What a released allocation still holds, in process context: its mm, its
 * runtime-PM reference, its buffer (which frees it), and last its pagemap
 * reference (which may be the DRM device's last: nothing of the device is
 * touched afterwards).
 */
static void devmem_free(struct amdgpu_compute_devmem *dm)
{
	struct drm_pagemap *dpagemap = &dm->apm->dpagemap;
	struct device *dev = dm->base.dev;
	struct amdgpu_bo *bo = &dm->bo;

	mmdrop(dm->base.mm);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
	amdgpu_bo_unref(&bo);		/* frees @dm */
	drm_pagemap_put(dpagemap);
}

static void pagemap_free(struct amdgpu_compute_pagemap *apm)
{
	struct range *r = &apm->pagemap.range;

	WARN_ON(!list_empty(&apm->devmem_list));
	memunmap_pages(&apm->pagemap);
	release_mem_region(r->start, range_len(r));
	kfree(apm);
}

/*
 * The reaper: released allocations first, whose pagemap references may
 * destroy pagemaps, which it frees next.
 */
static void amdgpu_compute_pagemap_reap(struct work_struct *work)
{
	struct amdgpu_compute_pagemap *apm, *next_apm;
	struct amdgpu_compute_devmem *dm, *next_dm;
	struct llist_node *list;

	list = llist_del_all(&released_devmem);
	llist_for_each_entry_safe(dm, next_dm, list, release_link)
		devmem_free(dm);
	list = llist_del_all(&dead_pagemaps);
	llist_for_each_entry_safe(apm, next_apm, list, dead_link)
		pagemap_free(apm);
}

/*
 * &drm_pagemap_devmem_ops.devmem_release: drm_pagemap is done with the
 * allocation (its zone-device data went, or the migration failed). May run
 * in atomic context.
 */
static void amdgpu_compute_devmem_release(struct drm_pagemap_devmem *d)
{
	struct amdgpu_compute_devmem *dm = to_devmem(d);
	struct amdgpu_compute_pagemap *apm = dm->apm;

	atomic_set(&dm->state, AMDGPU_COMPUTE_DEVMEM_RELEASED);
	spin_lock(&apm->devmem_lock);
	list_del_init(&dm->link);
	spin_unlock(&apm->devmem_lock);
	/* Not put by drm_pagemap when the migration failed. */
	dma_fence_put(d->pre_migrate_fence);
	d->pre_migrate_fence = NULL;
	llist_add(&dm->release_link, &released_devmem);
	schedule_work(&reaper);
}

/*
 * &drm_pagemap_devmem_ops.populate_devmem_pfn: the device page frames of
 * the allocation, in VRAM order. Both callers, the migration to the device
 * and the eviction, hold the buffer's reservation, so its placement holds.
 */
static int amdgpu_compute_devmem_populate_pfn(struct drm_pagemap_devmem *d,
					      unsigned long npages,
					      unsigned long *pfn)
{
	struct amdgpu_compute_devmem *dm = to_devmem(d);
	struct ttm_resource *res = dm->bo.tbo.resource;
	struct amdgpu_res_cursor cur;
	unsigned long j = 0;

	dma_resv_assert_held(dm->bo.tbo.base.resv);
	if (!res || res->mem_type != TTM_PL_VRAM ||
	    ((u64)npages << PAGE_SHIFT) > res->size)
		return -EINVAL;

	amdgpu_res_first(res, 0, (u64)npages << PAGE_SHIFT, &cur);
	while (cur.remaining) {
		unsigned long first = dm->first_pfn + (cur.start >> PAGE_SHIFT);
		unsigned long k, n = cur.size >> PAGE_SHIFT;

		for (k = 0; k < n; k++)
			pfn[j++] = first + k;
		amdgpu_res_next(&cur, cur.size);
	}
	return 0;
}

/* Copies */

struct copy_arg {
	struct amdgpu_compute_pagemap *apm;
	struct page **pages;
};

static u64 copy_vram_offset(const void *arg, unsigned long i)
{
	const struct copy_arg *c = arg;

	return c->pages[i] ? page_vram_offset(c->apm, c->pages[i]) : U64_MAX;
}

/*
 * Copy between the device pages @pages and the system pages at @addr
 * (drm_pagemap's copy_to_devmem/copy_to_ram arguments: indexed by page, an
 * entry of order k covering 2^k pages, an entry without address having
 * nothing to copy; the device pages of a migration to the device that had
 * no source keep the cleared VRAM). Each copy is contiguous in VRAM: the
 * system side goes through GART window 0 of a TTM move entity, programmed
 * and copied under the entity's lock, so that the window is ours until the
 * copy that reads it has been queued behind it. Waits for the last copy.
 */
static int amdgpu_compute_pagemap_copy(struct page **pages,
				       struct drm_pagemap_addr *addr,
				       unsigned long npages,
				       struct dma_fence *pre_migrate_fence,
				       bool to_vram)
{
	struct amdgpu_compute_copy_iter it = {};
	struct amdgpu_compute_copy_batch b;
	struct amdgpu_ttm_buffer_entity *entity;
	struct dma_fence *fence = NULL;
	struct amdgpu_device *adev;
	struct copy_arg arg = { .pages = pages };
	unsigned long i;
	dma_addr_t *dma;
	long t;
	int r = 0;

	for (i = 0; i < npages && !arg.apm; i++)
		if (pages[i])
			arg.apm = page_to_apm(pages[i]);
	if (!arg.apm)
		return 0;
	adev = arg.apm->adev;

	/* The clear of freshly allocated VRAM, on the way in. */
	if (pre_migrate_fence) {
		t = dma_fence_wait(pre_migrate_fence, false);
		if (t < 0)
			return t;
	}

	dma = kvmalloc_array(min_t(unsigned long, npages, AMDGPU_COMPUTE_COPY_MAX_PAGES),
			     sizeof(*dma), GFP_KERNEL);
	if (!dma)
		return -ENOMEM;

	/*
	 * Without SDMA (unplugged, suspended, in reset) the data cannot move:
	 * the migration fails and the pages stay where they are.
	 */
	if (!READ_ONCE(adev->mman.buffer_funcs_enabled) ||
	    !adev->mman.num_move_entities) {
		r = -ENODEV;
		goto out_free;
	}
	entity = &adev->mman.move_entities[atomic_inc_return(&adev->mman.next_move_entity) %
					   adev->mman.num_move_entities];

	mutex_lock(&entity->lock);
	while (amdgpu_compute_copy_next(addr, npages, copy_vram_offset, &arg,
					AMDGPU_COMPUTE_COPY_MAX_PAGES, &it, &b, dma)) {
		u64 vram = amdgpu_ttm_domain_start(adev, TTM_PL_VRAM) + b.vram_offset;
		struct dma_fence *next;
		u64 gart;

		/* The GPU writes system memory only on the way out. */
		r = amdgpu_ttm_map_dma_window(adev, entity, 0, dma, b.npages,
					      !to_vram, &gart);
		if (r)
			break;
		r = amdgpu_copy_buffer(adev, entity, to_vram ? gart : vram,
				       to_vram ? vram : gart,
				       (u32)(b.npages << PAGE_SHIFT), NULL, &next,
				       true, 0);
		if (r)
			break;
		dma_fence_put(fence);
		fence = next;
	}
	mutex_unlock(&entity->lock);

	if (fence) {
		/* Also after an error: the queued copies read our mappings. */
		t = dma_fence_wait(fence, false);
		if (!r && t < 0)
			r = t;
		if (!r && dma_fence_get_status(fence) < 0)
			r = dma_fence_get_status(fence);	/* a reset ate it */
		dma_fence_put(fence);
	}
	if (r)
		drm_dbg_driver(adev_to_drm(adev), "compute SVM: copy %s VRAM failed (%d)\n",
			       to_vram ? "to" : "from", r);
out_free:
	kvfree(dma);
	return r;
}

static int amdgpu_compute_copy_to_devmem(struct page **pages,
					 struct drm_pagemap_addr *pagemap_addr,
					 unsigned long npages,
					 struct dma_fence *pre_migrate_fence)
{
	return amdgpu_compute_pagemap_copy(pages, pagemap_addr, npages,
					   pre_migrate_fence, true);
}

static int amdgpu_compute_copy_to_ram(struct page **pages,
				      struct drm_pagemap_addr *pagemap_addr,
				      unsigned long npages,
				      struct dma_fence *pre_migrate_fence)
{
	return amdgpu_compute_pagemap_copy(pages, pagemap_addr, npages,
					   pre_migrate_fence, false);
}

static const struct drm_pagemap_devmem_ops amdgpu_compute_devmem_ops = {
	.devmem_release = amdgpu_compute_devmem_release,
	.populate_devmem_pfn = amdgpu_compute_devmem_populate_pfn,
	.copy_to_devmem = amdgpu_compute_copy_to_devmem,
	.copy_to_ram = amdgpu_compute_copy_to_ram,
};

/* Pagemap */

/*
 * &drm_pagemap_ops.device_map: a device page as this device addresses it,
 * by its VRAM offset (%AMDGPU_INTERCONNECT_VRAM; amdgpu_compute_svm.c
 * writes it with vram_base_offset into the page tables). No other device
 * gets one: the owner keeps other devices' mirrors from seeing the page.
 */
static struct drm_pagemap_addr
amdgpu_compute_pagemap_device_map(struct drm_pagemap *dpagemap,
				  struct device *dev, struct page *page,
				  unsigned int order, enum dma_data_direction dir)
{
	struct amdgpu_compute_pagemap *apm = to_apm(dpagemap);
	dma_addr_t addr = DMA_MAPPING_ERROR;

	if (dev == apm->adev->dev)
		addr = page_vram_offset(apm, page);
	return drm_pagemap_addr_encode(addr, AMDGPU_INTERCONNECT_VRAM, order, dir);
}

static void amdgpu_compute_pagemap_device_unmap(struct drm_pagemap *dpagemap,
						struct device *dev,
						const struct drm_pagemap_addr *addr)
{
	/* Nothing was mapped. */
}

/*
 * &drm_pagemap_ops.populate_mm: migrate [@start, @end) of @mm (one chunk,
 * inside one private anonymous mapping) to VRAM. Best effort. The mmap lock
 * is held; the buffer's reservation is held across the migration, so that
 * no eviction sees it half made.
 */
static int amdgpu_compute_pagemap_populate_mm(struct drm_pagemap *dpagemap,
					      unsigned long start, unsigned long end,
					      struct mm_struct *mm,
					      unsigned long timeslice_ms)
{
	struct amdgpu_compute_pagemap *apm = to_apm(dpagemap);
	struct amdgpu_device *adev = apm->adev;
	struct drm_device *drm = adev_to_drm(adev);
	struct drm_pagemap_migrate_details md = {
		.timeslice_ms = timeslice_ms,
	};
	struct amdgpu_bo_param bp = {
		.size = end - start,
		.byte_align = PAGE_SIZE,
		.bo_ptr_size = sizeof(struct amdgpu_compute_devmem),
		.domain = AMDGPU_GEM_DOMAIN_VRAM,
		/* Cleared: a page with no data before must read zero. */
		.flags = AMDGPU_GEM_CREATE_NO_CPU_ACCESS |
			 AMDGPU_GEM_CREATE_VRAM_CLEARED,
		.type = ttm_bo_type_device,
		.destroy = amdgpu_compute_devmem_bo_destroy,
	};
	struct dma_fence *pre_migrate_fence = NULL;
	struct amdgpu_compute_devmem *dm;
	struct amdgpu_bo *bo;
	int r, idx;

	mmap_assert_locked(mm);
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	if (!READ_ONCE(adev->mman.buffer_funcs_enabled)) {
		r = -EBUSY;
		goto out;
	}

	r = amdgpu_bo_create(adev, &bp, &bo);
	if (r)
		goto out;
	dm = bo_to_devmem(bo);
	atomic_set(&dm->state, AMDGPU_COMPUTE_DEVMEM_NEW);
	INIT_LIST_HEAD(&dm->link);
	dm->apm = apm;
	dm->first_pfn = apm->first_pfn;

	r = amdgpu_bo_reserve(bo, false);
	if (r)
		goto err_unref;
	/* Evicted between creation and reservation (as NEW: nothing lost). */
	if (bo->tbo.resource->mem_type != TTM_PL_VRAM) {
		r = -ENOSPC;
		goto err_unreserve;
	}
	/* The clear: copy_to_devmem waits for it before writing. */
	if (!dma_resv_test_signaled(bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL)) {
		r = dma_resv_get_singleton(bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL,
					   &pre_migrate_fence);
		if (r) {
			dma_resv_wait_timeout(bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL,
					      false, MAX_SCHEDULE_TIMEOUT);
			pre_migrate_fence = NULL;
			r = 0;
		}
	}

	drm_pagemap_devmem_init(&dm->base, adev->dev, mm, &amdgpu_compute_devmem_ops,
				dpagemap, end - start, pre_migrate_fence);
	/* Held until devmem_free(). */
	mmgrab(mm);
	drm_pagemap_get(dpagemap);
	pm_runtime_get_noresume(adev->dev);
	spin_lock(&apm->devmem_lock);
	list_add_tail(&dm->link, &apm->devmem_list);
	spin_unlock(&apm->devmem_lock);
	atomic_set(&dm->state, AMDGPU_COMPUTE_DEVMEM_LIVE);

	/*
	 * drm_pagemap owns the allocation from here, failure included (it
	 * calls devmem_release, which queues the buffer's reference to the
	 * reaper): keep the buffer until it is unreserved.
	 */
	amdgpu_bo_ref(bo);
	r = drm_pagemap_migrate_to_devmem(&dm->base, mm, start, end, &md);
	amdgpu_bo_unreserve(bo);
	amdgpu_bo_unref(&bo);
	goto out;

err_unreserve:
	amdgpu_bo_unreserve(bo);
err_unref:
	amdgpu_bo_unref(&bo);
out:
	drm_dev_exit(idx);
	return r;
}

/*
 * &drm_pagemap_ops.destroy: the last reference is gone and the cache does
 * not keep the pagemap (or shrinks it). No device page is in use. From
 * atomic context or reclaim, the reaper frees it.
 */
static void amdgpu_compute_pagemap_destroy(struct drm_pagemap *dpagemap,
					   bool is_atomic_or_reclaim)
{
	struct amdgpu_compute_pagemap *apm = to_apm(dpagemap);

	if (is_atomic_or_reclaim) {
		llist_add(&apm->dead_link, &dead_pagemaps);
		schedule_work(&reaper);
	} else {
		pagemap_free(apm);
	}
}

static const struct drm_pagemap_ops amdgpu_compute_pagemap_ops = {
	.device_map = amdgpu_compute_pagemap_device_map,
	.device_unmap = amdgpu_compute_pagemap_device_unmap,
	.populate_mm = amdgpu_compute_pagemap_populate_mm,
	.destroy = amdgpu_compute_pagemap_destroy,
};

static struct amdgpu_compute_pagemap *pagemap_create(struct amdgpu_device *adev)
{
	u64 size = ALIGN(adev->gmc.real_vram_size, SZ_2M);
	struct amdgpu_compute_pagemap *apm;
	struct resource *res;
	void *addr;
	int r;

	apm = kzalloc_obj(*apm);
	if (!apm)
		return ERR_PTR(-ENOMEM);
	apm->adev = adev;
	spin_lock_init(&apm->devmem_lock);
	INIT_LIST_HEAD(&apm->devmem_list);

	res = request_free_mem_region(&iomem_resource, size, "amdgpu compute SVM");
	if (IS_ERR(res)) {
		r = PTR_ERR(res);
		goto err_free;
	}
	apm->pagemap.type = MEMORY_DEVICE_PRIVATE;
	apm->pagemap.range.start = res->start;
	apm->pagemap.range.end = res->end;
	apm->pagemap.nr_range = 1;
	apm->pagemap.ops = drm_pagemap_pagemap_ops_get();
	apm->pagemap.owner = amdgpu_compute_pagemap_owner(adev);
	/* Not device managed: see DOC: amdgpu compute SVM device memory. */
	addr = memremap_pages(&apm->pagemap, dev_to_node(adev->dev));
	if (IS_ERR(addr)) {
		r = PTR_ERR(addr);
		goto err_region;
	}
	apm->first_pfn = PHYS_PFN(res->start);

	r = drm_pagemap_init(&apm->dpagemap, &apm->pagemap, adev_to_drm(adev),
			     &amdgpu_compute_pagemap_ops);
	if (r)
		goto err_unmap;
	drm_dbg_driver(adev_to_drm(adev), "compute SVM: %llu MiB of device pages\n",
		       size >> 20);
	return apm;

err_unmap:
	memunmap_pages(&apm->pagemap);
err_region:
	release_mem_region(res->start, resource_size(res));
err_free:
	kfree(apm);
	return ERR_PTR(r);
}

/**
 * amdgpu_compute_pagemap_init - set up the device's SVM device memory
 * @adev: the device, at probe (device-managed resources are set up)
 *
 * Registers the device's pagemap shrinker and cache; the pagemap itself is
 * made on first use. Without them (unsupported, or an error) the device's
 * SVM stays in system memory, which the uapi allows.
 */
void amdgpu_compute_pagemap_init(struct amdgpu_device *adev)
{
	struct drm_pagemap_shrinker *shrinker;
	struct drm_pagemap_cache *cache;

	adev->compute_dpagemap_cache = NULL;
	if (!amdgpu_compute_pagemap_supported(adev))
		return;
	shrinker = drm_pagemap_shrinker_create_devm(adev_to_drm(adev));
	if (IS_ERR(shrinker))
		goto err;
	cache = drm_pagemap_cache_create_devm(shrinker);
	if (IS_ERR(cache))
		goto err;
	adev->compute_dpagemap_cache = cache;
	return;
err:
	drm_warn(adev_to_drm(adev), "compute SVM: no device memory\n");
}

/**
 * amdgpu_compute_pagemap_get - the device's pagemap, made on first use
 * @adev: the device
 *
 * Context: process context, no mmap lock held (memremap_pages() may run).
 *
 * Returns: a reference to drop with drm_pagemap_put(), or an ERR_PTR():
 * -EOPNOTSUPP without device memory, -ENODEV after an unplug, -EINTR, or
 * what making the pagemap returned.
 */
struct drm_pagemap *amdgpu_compute_pagemap_get(struct amdgpu_device *adev)
{
	struct drm_pagemap_cache *cache = adev->compute_dpagemap_cache;
	struct amdgpu_compute_pagemap *apm;
	struct drm_pagemap *dpagemap;
	int idx, r;

	if (!cache)
		return ERR_PTR(-EOPNOTSUPP);
	if (!drm_dev_enter(adev_to_drm(adev), &idx))
		return ERR_PTR(-ENODEV);
	r = drm_pagemap_cache_lock_lookup(cache);
	if (r) {
		dpagemap = ERR_PTR(r);
		goto out;
	}
	dpagemap = drm_pagemap_get_from_cache(cache);
	if (!dpagemap) {
		apm = pagemap_create(adev);
		if (IS_ERR(apm)) {
			dpagemap = ERR_CAST(apm);
		} else {
			drm_pagemap_cache_set_pagemap(cache, &apm->dpagemap);
			dpagemap = &apm->dpagemap;
		}
	}
	drm_pagemap_cache_unlock_lookup(cache);
out:
	drm_dev_exit(idx);
	return dpagemap;
}

/* Migrate what @dm still has in VRAM to system memory; reservation held. */
static int devmem_evict(struct amdgpu_compute_devmem *dm)
{
	dma_resv_assert_held(dm->bo.tbo.base.resv);
	if (atomic_read(&dm->state) != AMDGPU_COMPUTE_DEVMEM_LIVE)
		return 0;	/* never handed out, or no page left */
	return drm_pagemap_evict_to_ram(&dm->base);
}

/**
 * amdgpu_compute_pagemap_bo_move - TTM moves an SVM device-memory buffer
 * @bo: the buffer (amdgpu_compute_pagemap_is_devmem()), reserved, in VRAM
 * @evict: an eviction
 * @new_mem: where it goes (system memory: amdgpu_evict_flags())
 *
 * The data goes to the pages' new system memory through the core mm, not
 * with the buffer: migrate every page back, then drop the VRAM.
 *
 * Returns: 0; -ENOSPC when pages were busy or their mm is exiting (its
 * pages are about to be freed), which TTM's LRU walk skips
 * (ttm_lru_walk_for_evict() takes the -EBUSY that ttm_bo_evict_cb() makes
 * of it as "next"); another error of the migration.
 */
int amdgpu_compute_pagemap_bo_move(struct amdgpu_bo *bo, bool evict,
				   struct ttm_resource *new_mem)
{
	int r = devmem_evict(bo_to_devmem(bo));

	if (r == -EBUSY || r == -EFAULT)
		return -ENOSPC;
	if (r)
		return r;
	amdgpu_bo_move_notify(&bo->tbo, evict, new_mem);
	ttm_bo_move_null(&bo->tbo, new_mem);
	return 0;
}

/**
 * amdgpu_compute_pagemap_unplug - bring SVM data home before the device goes
 * @adev: the device, after drm_dev_unplug() (no migration to it is under
 *	way or can start) and its compute queues stopped, before
 *	amdgpu_device_fini_hw() disables SDMA
 *
 * Evicts every live allocation. Whatever cannot be evicted (a page busy
 * twice running) is lost: its CPU fault fails later.
 */
void amdgpu_compute_pagemap_unplug(struct amdgpu_device *adev)
{
	struct amdgpu_compute_pagemap *apm;
	struct amdgpu_compute_devmem *dm;
	struct drm_pagemap *dpagemap;
	LIST_HEAD(todo);
	unsigned long failed = 0;

	if (!adev->compute_dpagemap_cache)
		return;
	/* Inactive pagemaps have no allocation: each holds a reference. */
	dpagemap = drm_pagemap_get_from_cache_if_active(adev->compute_dpagemap_cache);
	if (!dpagemap)
		return;
	apm = to_apm(dpagemap);

	spin_lock(&apm->devmem_lock);
	list_splice_init(&apm->devmem_list, &todo);
	while ((dm = list_first_entry_or_null(&todo, struct amdgpu_compute_devmem,
					      link))) {
		struct amdgpu_bo *bo;

		/* Back on the pagemap's list; a release takes it off either list. */
		list_move_tail(&dm->link, &apm->devmem_list);
		/* Listed, so not released: its buffer reference is not dropped. */
		bo = amdgpu_bo_ref(&dm->bo);
		spin_unlock(&apm->devmem_lock);

		if (!amdgpu_bo_reserve(bo, true)) {
			if (bo->tbo.resource && bo->tbo.resource->mem_type == TTM_PL_VRAM &&
			    devmem_evict(dm))
				failed++;
			amdgpu_bo_unreserve(bo);
		}
		amdgpu_bo_unref(&bo);
		cond_resched();
		spin_lock(&apm->devmem_lock);
	}
	spin_unlock(&apm->devmem_lock);
	if (failed)
		drm_warn(adev_to_drm(adev),
			 "compute SVM: %lu allocations left in VRAM at unplug\n", failed);
	drm_pagemap_put(dpagemap);
}

/**
 * amdgpu_compute_pagemap_exit - at module exit, before the driver goes
 *
 * Runs what the reaper still has queued: drm_pagemap drops its module and
 * device references before it has run.
 */
void amdgpu_compute_pagemap_exit(void)
{
	flush_work(&reaper);
}
