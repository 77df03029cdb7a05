// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: SVM device memory
 *
 * Shared virtual memory migrates to vcompute's emulated device memory as
 * ZONE_DEVICE private pages, the way a GPU's VRAM is handed to the core
 * mm, through the DRM-common drm_pagemap. Each device has at most one
 * &struct vcompute_pagemap: a device-private &struct dev_pagemap as large
 * as the device memory, in a free physical address range
 * (request_free_mem_region() and memremap_pages(), as lib/test_hmm.c
 * does), with drm_pagemap's &struct dev_pagemap_ops, so that a CPU fault
 * on a migrated page runs drm_pagemap's migrate_to_ram. Device-private
 * pages have no kernel mapping; the data of each one lives in a system
 * page, its *backing page*, found by the page's offset in the pagemap
 * (``zone_device_data`` belongs to drm_pagemap). Device memory that holds
 * SVM data is allocated from the same buddy allocator as VRAM buffers, so
 * both compete for the ``vram_mib`` MiB as on a GPU.
 *
 * A migration is an allocation (&struct vcompute_devmem: buddy blocks of
 * the range's size) handed to drm_pagemap_migrate_to_devmem(), which asks
 * for its page frames (populate_devmem_pfn: a device page's backing page
 * is allocated the first time it is used and kept until the pagemap goes,
 * as a GPU keeps its VRAM, so that a migration allocates no system page)
 * and copies the source pages in (copy_to_devmem). Back to
 * system memory, copy_to_ram copies out of the backing pages. The engine
 * reaches a device page through its backing page
 * (vcompute_pagemap_backing()), mapped in the emulated page tables by its
 * device-private page frame number.
 *
 * Lifetime. The pagemap is made when a VM first migrates (a prefetch, or
 * a fault where the preferred location is the device) and each SVM VM
 * that used it holds a reference until it is freed; every allocation
 * holds one through drm_pagemap's zone-device data, until its last page
 * is freed or migrated back. drm_pagemap holds the module and the DRM
 * device while the pagemap lives, so a process that keeps migrated pages
 * after closing its file keeps the module loaded (its data stays
 * reachable: the CPU migrates it back on access, even after a
 * hot-unplug). Releases may come from atomic context (a page freed under
 * a page-table lock), so allocations and pagemaps are freed by one work
 * item, flushed at module exit.
 *
 * Huge pages. drm_pagemap moves a transparent huge page, and an untouched
 * 2 MiB hole, as one 2 MiB device folio, whose pages must be consecutive:
 * a migration of a whole, aligned 2 MiB takes one aligned 2 MiB block of
 * device memory, and the copy derives a folio's pages from its head.
 *
 * Limits, drm_pagemap's and the core mm's: only private anonymous
 * mappings migrate (a file-backed or shared mapping stays in system
 * memory and is mirrored there), a migration is all or nothing per
 * chunk, and device memory is not evicted to make room: a migration that
 * finds the device memory full, or with no free aligned 2 MiB block for a
 * 2 MiB chunk, leaves the data where it is.
 */

#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-fence.h>
#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/llist.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_pagemap.h>
#include <drm/drm_print.h>

#include "vcompute_drv.h"

/**
 * struct vcompute_pagemap - the device-private memory of one device
 */
struct vcompute_pagemap {
	/** @dpagemap: drm_pagemap's part; its reference count is ours. */
	struct drm_pagemap dpagemap;
	/** @pagemap: the device-private pages. */
	struct dev_pagemap pagemap;
	/** @vdev: the device (a DRM device reference is held). */
	struct vcompute_device *vdev;
	/** @first_pfn: page frame number of the first device page. */
	unsigned long first_pfn;
	/** @npages: device pages. */
	unsigned long npages;
	/**
	 * @backing: the system page behind each device page, allocated the
	 * first time an allocation owns that page and kept, as VRAM is kept,
	 * until the pagemap is freed; its contents are an owner's only from
	 * its copy_to_devmem on (copy_pages() fills every page it is given).
	 */
	struct page **backing;
	/** @dead_link: in the reaper's list once destroyed. */
	struct llist_node dead_link;
};

/**
 * struct vcompute_devmem - device memory holding migrated SVM data
 */
struct vcompute_devmem {
	/** @base: drm_pagemap's part. */
	struct drm_pagemap_devmem base;
	/** @vpm: the pagemap it belongs to. */
	struct vcompute_pagemap *vpm;
	/** @blocks: its buddy blocks. */
	struct list_head blocks;
	/** @release_link: in the reaper's list once released. */
	struct llist_node release_link;
};

static LLIST_HEAD(released_devmem);
static LLIST_HEAD(dead_pagemaps);

static void vcompute_pagemap_reap(struct work_struct *work);
static DECLARE_WORK(reaper, vcompute_pagemap_reap);

static struct vcompute_pagemap *page_to_vpm(struct page *page)
{
	return container_of(page_pgmap(page), struct vcompute_pagemap, pagemap);
}

/**
 * vcompute_pagemap_backing - the system page behind a device page
 * @page: a device-private page of a vcompute pagemap, in use
 *
 * Returns: the page that holds @page's data.
 */
struct page *vcompute_pagemap_backing(struct page *page)
{
	struct vcompute_pagemap *vpm = page_to_vpm(page);

	return vpm->backing[page_to_pfn(page) - vpm->first_pfn];
}

static struct vcompute_devmem *to_vdevmem(struct drm_pagemap_devmem *d)
{
	return container_of(d, struct vcompute_devmem, base);
}

/*
 * Free an allocation: its blocks, whose backing pages stay for the next
 * allocation that takes them. Process context.
 */
static void devmem_free(struct vcompute_devmem *dm)
{
	struct vcompute_device *vdev = dm->vpm->vdev;

	mutex_lock(&vdev->vram_lock);
	gpu_buddy_free_list(&vdev->vram, &dm->blocks, 0);
	mutex_unlock(&vdev->vram_lock);
	kfree(dm);
}

/* Free a pagemap whose last reference is gone. Process context. */
static void pagemap_free(struct vcompute_pagemap *vpm)
{
	struct vcompute_device *vdev = vpm->vdev;
	struct range *r = &vpm->pagemap.range;
	unsigned long i;

	mutex_lock(&vdev->pagemap_lock);
	if (vdev->pagemap == vpm)
		vdev->pagemap = NULL;
	mutex_unlock(&vdev->pagemap_lock);
	memunmap_pages(&vpm->pagemap);
	release_mem_region(r->start, range_len(r));
	for (i = 0; i < vpm->npages; i++)
		if (vpm->backing[i])
			__free_page(vpm->backing[i]);
	kvfree(vpm->backing);
	drm_dev_put(&vdev->drm);
	kfree(vpm);
}

/*
 * The reaper. Pagemaps are taken first: a pagemap is destroyed only after
 * every allocation of it was released (each holds a reference), so the
 * releases of the pagemaps taken are in the list taken next.
 */
static void vcompute_pagemap_reap(struct work_struct *work)
{
	struct llist_node *dead = llist_del_all(&dead_pagemaps);
	struct llist_node *released = llist_del_all(&released_devmem);
	struct vcompute_pagemap *vpm, *next_vpm;
	struct vcompute_devmem *dm, *next_dm;

	llist_for_each_entry_safe(dm, next_dm, released, release_link)
		devmem_free(dm);
	llist_for_each_entry_safe(vpm, next_vpm, dead, dead_link)
		pagemap_free(vpm);
}

/**
 * vcompute_pagemap_flush_released() - free the device memory released so far
 * @vdev: the device about to allocate device memory
 *
 * Device pages are released from any context and their memory is freed by
 * the reaper, later. An allocation that finds the device memory full waits
 * for the releases already made (a munmap that has returned), so that memory
 * a process gave back is memory it can have again. Called without
 * &vcompute_device.vram_lock and without mm locks: the reaper takes the one
 * and tears down pagemaps, which must not wait for the other.
 */
void vcompute_pagemap_flush_released(struct vcompute_device *vdev)
{
	lockdep_assert_not_held(&vdev->vram_lock);
	flush_work(&reaper);
}

/* May run in atomic context: the reaper frees it. */
static void vcompute_devmem_release(struct drm_pagemap_devmem *d)
{
	llist_add(&to_vdevmem(d)->release_link, &released_devmem);
	schedule_work(&reaper);
}

static int vcompute_populate_devmem_pfn(struct drm_pagemap_devmem *d,
					unsigned long npages, unsigned long *pfn)
{
	struct vcompute_devmem *dm = to_vdevmem(d);
	struct vcompute_pagemap *vpm = dm->vpm;
	struct gpu_buddy_block *block;
	unsigned long j = 0;

	list_for_each_entry(block, &dm->blocks, link) {
		unsigned long first = gpu_buddy_block_offset(block) >> PAGE_SHIFT;
		unsigned long n = gpu_buddy_block_size(&vpm->vdev->vram, block) >> PAGE_SHIFT;
		unsigned long i;

		for (i = first; i < first + n && j < npages; i++, j++) {
			/*
			 * Kept from an earlier allocation, or made now. Not
			 * zeroed: copy_pages() fills every page it is given.
			 */
			if (!vpm->backing[i])
				vpm->backing[i] = alloc_page(GFP_HIGHUSER);
			if (!vpm->backing[i])
				return -ENOMEM;	/* the pagemap keeps the others */
			pfn[j] = vpm->first_pfn + i;
		}
	}
	return j == npages ? 0 : -EINVAL;
}

/*
 * The device page @k pages into the entry at @i: a device folio larger
 * than a page (a transparent huge page moved as one) has only its head in
 * @pages, and its pages are consecutive.
 */
static struct page *entry_page(struct page **pages, unsigned long i, unsigned long k)
{
	struct folio *folio;

	if (pages[i + k] || !k || !pages[i])
		return pages[i + k];
	folio = page_folio(pages[i]);
	return k < folio_nr_pages(folio) ? folio_page(folio, k) : NULL;
}

/*
 * Copy between device pages and the system pages behind @addr; an entry
 * of order k covers 2^k pages, its followers are not filled in (in @addr,
 * nor in @pages when the device side is one folio). An entry without
 * address had no data (a hole of untouched memory, as a 2 MiB hole one
 * device folio): on the way to the device, the backing page of each of
 * its device pages is cleared, since backing pages are allocated
 * uncleared and kept between owners. vcompute's device is dma-direct
 * without an IOMMU (checked when the pagemap is made), so the CPU reaches
 * what drm_pagemap DMA-mapped at dma_to_phys(). Counts the pages copied in
 * the device's statistics.
 */
static int copy_pages(struct page **pages, struct drm_pagemap_addr *addr,
		      unsigned long npages, struct dma_fence *fence,
		      bool to_device)
{
	struct vcompute_pagemap *vpm = NULL;
	unsigned long i, k, copied = 0;
	long ret;

	if (fence) {
		ret = dma_fence_wait(fence, false);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < npages;) {
		unsigned long n = 1UL << addr[i].order;

		if (!addr[i].addr) {
			n = 1;
			if (to_device && pages[i]) {
				n = folio_nr_pages(page_folio(pages[i]));
				for (k = 0; k < n && i + k < npages; k++) {
					struct page *dev = entry_page(pages, i, k);

					clear_highpage(vcompute_pagemap_backing(dev));
				}
			}
			i += n;
			continue;
		}
		for (k = 0; k < n && i + k < npages; k++) {
			struct page *dev = entry_page(pages, i, k), *sys;

			if (!dev)
				continue;
			vpm = page_to_vpm(dev);
			sys = pfn_to_page(PHYS_PFN(dma_to_phys(vpm->vdev->drm.dev,
							       addr[i].addr)) + k);
			dev = vcompute_pagemap_backing(dev);
			if (to_device)
				copy_highpage(dev, sys);
			else
				copy_highpage(sys, dev);
			copied++;
		}
		i += n;
	}
	if (vpm)
		atomic64_add(copied, to_device ? &vpm->vdev->svm_stats.to_device :
						 &vpm->vdev->svm_stats.to_ram);
	return 0;
}

static int vcompute_copy_to_devmem(struct page **pages,
				   struct drm_pagemap_addr *addr,
				   unsigned long npages,
				   struct dma_fence *pre_migrate_fence)
{
	return copy_pages(pages, addr, npages, pre_migrate_fence, true);
}

static int vcompute_copy_to_ram(struct page **pages,
				struct drm_pagemap_addr *addr,
				unsigned long npages,
				struct dma_fence *pre_migrate_fence)
{
	return copy_pages(pages, addr, npages, pre_migrate_fence, false);
}

static const struct drm_pagemap_devmem_ops vcompute_devmem_ops = {
	.devmem_release = vcompute_devmem_release,
	.populate_devmem_pfn = vcompute_populate_devmem_pfn,
	.copy_to_devmem = vcompute_copy_to_devmem,
	.copy_to_ram = vcompute_copy_to_ram,
};

/*
 * A device page as the device itself sees it: by its device-private
 * physical address (DRM_INTERCONNECT_DRIVER). No other device reaches it.
 */
static struct drm_pagemap_addr
vcompute_device_map(struct drm_pagemap *dpagemap, struct device *dev,
		    struct page *page, unsigned int order,
		    enum dma_data_direction dir)
{
	dma_addr_t addr = DMA_MAPPING_ERROR;

	if (dev == dpagemap->drm->dev)
		addr = PFN_PHYS(page_to_pfn(page));
	return drm_pagemap_addr_encode(addr, DRM_INTERCONNECT_DRIVER, order, dir);
}

static void vcompute_device_unmap(struct drm_pagemap *dpagemap,
				  struct device *dev,
				  const struct drm_pagemap_addr *addr)
{
	/* Nothing was mapped. */
}

static int vcompute_populate_mm(struct drm_pagemap *dpagemap,
				unsigned long start, unsigned long end,
				struct mm_struct *mm, unsigned long timeslice_ms)
{
	struct vcompute_pagemap *vpm = container_of(dpagemap, struct vcompute_pagemap,
						    dpagemap);
	struct vcompute_device *vdev = vpm->vdev;
	struct drm_pagemap_migrate_details md = { .timeslice_ms = timeslice_ms };
	/*
	 * A whole, aligned 2 MiB may hold a transparent huge page, or be an
	 * untouched hole, that drm_pagemap moves as one 2 MiB device folio:
	 * its device pages must then be consecutive, so one aligned block.
	 */
	u64 min_block = IS_ALIGNED(start, SZ_2M) && IS_ALIGNED(end, SZ_2M) ? SZ_2M : PAGE_SIZE;
	struct vcompute_devmem *dm;
	int ret, idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	dm = kzalloc_obj(*dm);
	if (!dm) {
		ret = -ENOMEM;
		goto out;
	}
	dm->vpm = vpm;
	INIT_LIST_HEAD(&dm->blocks);
	mutex_lock(&vdev->vram_lock);
	ret = gpu_buddy_alloc_blocks(&vdev->vram, 0, vdev->config.vram_size,
				     end - start, min_block, &dm->blocks, 0);
	mutex_unlock(&vdev->vram_lock);
	if (ret) {
		kfree(dm);
		goto out;
	}
	drm_pagemap_devmem_init(&dm->base, vdev->drm.dev, mm, &vcompute_devmem_ops,
				dpagemap, end - start, NULL);
	/* Consumes @dm: on failure it is released through the ops. */
	ret = drm_pagemap_migrate_to_devmem(&dm->base, mm, start, end, &md);
out:
	drm_dev_exit(idx);
	return ret;
}

/* May run in atomic context: the reaper frees it. */
static void vcompute_pagemap_destroy(struct drm_pagemap *dpagemap,
				     bool is_atomic_or_reclaim)
{
	struct vcompute_pagemap *vpm = container_of(dpagemap, struct vcompute_pagemap,
						    dpagemap);

	llist_add(&vpm->dead_link, &dead_pagemaps);
	schedule_work(&reaper);
}

static const struct drm_pagemap_ops vcompute_pagemap_ops = {
	.device_map = vcompute_device_map,
	.device_unmap = vcompute_device_unmap,
	.populate_mm = vcompute_populate_mm,
	.destroy = vcompute_pagemap_destroy,
};

static struct vcompute_pagemap *pagemap_create(struct vcompute_device *vdev)
{
	u64 size = vdev->config.vram_size;
	struct vcompute_pagemap *vpm;
	struct resource *res;
	void *addr;
	int ret;

	/* Physical addresses as DMA addresses (see copy_pages()). */
	if (!dev_is_dma_coherent(vdev->drm.dev) || device_iommu_mapped(vdev->drm.dev))
		return ERR_PTR(-EOPNOTSUPP);
	vpm = kzalloc_obj(*vpm);
	if (!vpm)
		return ERR_PTR(-ENOMEM);
	vpm->vdev = vdev;
	vpm->npages = size >> PAGE_SHIFT;
	vpm->backing = kvcalloc(vpm->npages, sizeof(*vpm->backing), GFP_KERNEL);
	if (!vpm->backing) {
		ret = -ENOMEM;
		goto err_free;
	}
	res = request_free_mem_region(&iomem_resource, size, "vcompute device memory");
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto err_backing;
	}
	vpm->pagemap.type = MEMORY_DEVICE_PRIVATE;
	vpm->pagemap.range.start = res->start;
	vpm->pagemap.range.end = res->end;
	vpm->pagemap.nr_range = 1;
	vpm->pagemap.ops = drm_pagemap_pagemap_ops_get();
	vpm->pagemap.owner = vcompute_pagemap_owner(vdev);
	addr = memremap_pages(&vpm->pagemap, numa_node_id());
	if (IS_ERR(addr)) {
		ret = PTR_ERR(addr);
		goto err_region;
	}
	vpm->first_pfn = PHYS_PFN(res->start);
	ret = drm_pagemap_init(&vpm->dpagemap, &vpm->pagemap, &vdev->drm,
			       &vcompute_pagemap_ops);
	if (ret)
		goto err_unmap;
	drm_dev_get(&vdev->drm);	/* for the reaper, see pagemap_free() */
	return vpm;

err_unmap:
	memunmap_pages(&vpm->pagemap);
err_region:
	release_mem_region(res->start, resource_size(res));
err_backing:
	kvfree(vpm->backing);
err_free:
	kfree(vpm);
	return ERR_PTR(ret);
}

/**
 * vcompute_pagemap_get - the device's pagemap, made on first use
 * @vdev: the device
 *
 * Returns: a reference to be dropped with drm_pagemap_put(), or an
 * ERR_PTR(): -ENODEV after a hot-unplug, -ENOMEM, or what
 * request_free_mem_region() and memremap_pages() returned.
 */
struct drm_pagemap *vcompute_pagemap_get(struct vcompute_device *vdev)
{
	struct vcompute_pagemap *vpm;
	struct drm_pagemap *dpagemap;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return ERR_PTR(-ENODEV);
	mutex_lock(&vdev->pagemap_lock);
	vpm = vdev->pagemap;
	dpagemap = vpm ? drm_pagemap_get_unless_zero(&vpm->dpagemap) : NULL;
	if (!dpagemap) {
		/* None, or one being destroyed: the reaper frees that one. */
		vpm = pagemap_create(vdev);
		if (IS_ERR(vpm)) {
			dpagemap = ERR_CAST(vpm);
		} else {
			vdev->pagemap = vpm;
			dpagemap = &vpm->dpagemap;
		}
	}
	mutex_unlock(&vdev->pagemap_lock);
	drm_dev_exit(idx);
	return dpagemap;
}

/**
 * vcompute_pagemap_exit - at module exit, after every device is gone
 *
 * Runs what the reaper still has queued: drm_pagemap drops its module
 * reference before our destroy work has run.
 */
void vcompute_pagemap_exit(void)
{
	flush_work(&reaper);
}
