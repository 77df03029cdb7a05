// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: Buffers
 *
 * A vcompute buffer lives in one of two placements:
 *
 * - %DRM_COMPUTE_PLACEMENT_VRAM: emulated device memory. Its addresses are
 *   allocated from the instance's ``vram_mib`` MiB with the upstream buddy
 *   allocator (&vcompute_device.vram), so device memory fills up and
 *   fragments as on a GPU and creation fails with -ENOSPC when it is full;
 *   the pages behind it are the driver's own, zeroed at allocation;
 * - %DRM_COMPUTE_PLACEMENT_SYSTEM: shmem, like any GEM object.
 *
 * Either way the pages are allocated at creation: GPU VM mappings, CPU
 * mappings (PFN maps, which fault SIGBUS once the device is unplugged) and
 * PRIME exports all see the same pages. They stay until the buffer is
 * freed, except for one case: a buffer made for export to peers
 * (DRM_COMPUTE_BO_EXPORT_PREFER_P2P) moves once from device memory to
 * system memory when an importer cannot reach device memory
 * (vcompute_p2p.c). Imported dma-bufs of other devices are GEM objects too,
 * mmap()able through their exporter, but the engine never maps them.
 *
 * Locking: &vcompute_device.vram_lock around the buddy allocator. The page
 * array of a buffer changes only under its reservation lock and
 * &vcompute_engine.lock together, so the CPU fault handler reads it under
 * the reservation lock and the engine under its own lock.
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include <drm/drm_compute.h>
#include <drm/drm_drv.h>
#include <drm/drm_dumb_buffers.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_vma_manager.h>

#include "vcompute_drv.h"

/* What every instance's buffers hold, gone instances' included (debugfs). */
atomic_long_t vcompute_all_own_pages = ATOMIC_LONG_INIT(0);

/**
 * vcompute_bo_release_pages - free the driver's own pages of a buffer
 * @vdev: the device
 * @pages: @n pages (the array may end early at a NULL entry), or NULL
 * @n: entries of @pages
 * @blocks: the device-memory blocks they stood for; emptied
 *
 * Frees @pages itself too.
 */
void vcompute_bo_release_pages(struct vcompute_device *vdev,
			       struct page **pages, unsigned long n,
			       struct list_head *blocks)
{
	unsigned long i;

	if (pages) {
		/* A PCI instance's BAR pages stay with the BAR. */
		for (i = 0; i < n && pages[i]; i++) {
			if (is_pci_p2pdma_page(pages[i]))
				continue;
			__free_page(pages[i]);
			vcompute_own_pages_add(vdev, -1);
		}
		kvfree(pages);
	}
	if (!list_empty(blocks)) {
		mutex_lock(&vdev->vram_lock);
		gpu_buddy_free_list(&vdev->vram, blocks, 0);
		mutex_unlock(&vdev->vram_lock);
	}
}

static void vcompute_bo_free(struct drm_gem_object *obj)
{
	struct vcompute_bo *bo = to_vcompute_bo(obj);

	/* Out of the registry before it goes (vcompute_reset()). */
	if (vcompute_bo_is_export(obj))
		xa_erase(&to_vcompute(obj->dev)->exports, bo->export_id);
	if (drm_gem_is_imported(obj))
		drm_prime_gem_destroy(obj, NULL);
	else if (!bo->shmem)
		vcompute_bo_release_pages(to_vcompute(obj->dev), bo->pages,
					  obj->size >> PAGE_SHIFT, &bo->blocks);
	else if (bo->pages)
		drm_gem_put_pages(obj, bo->pages, true, true);
	/* No handle, mapping or importer names its BAR pages any more. */
	if (bo->in_bar)
		vcompute_pci_bar_put(to_vcompute(obj->dev));
	drm_gem_object_release(obj);
	kfree(bo);
}

static struct sg_table *vcompute_bo_get_sg_table(struct drm_gem_object *obj)
{
	struct vcompute_bo *bo = to_vcompute_bo(obj);

	return drm_prime_pages_to_sg(obj->dev, bo->pages, obj->size >> PAGE_SHIFT);
}

/* Whether @bo lives in a PCI instance's BAR, which the CPU sees as I/O memory. */
static bool vcompute_bo_in_bar(struct vcompute_bo *bo)
{
	return bo->placement == DRM_COMPUTE_PLACEMENT_VRAM &&
	       to_vcompute(bo->base.dev)->pdev;
}

static int vcompute_bo_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct vcompute_bo *bo = to_vcompute_bo(obj);
	unsigned int n = obj->size >> PAGE_SHIFT;
	void *vaddr;
	int ret;

	if (drm_gem_is_imported(obj))
		return dma_buf_vmap(obj->dma_buf, map);
	/* A kernel mapping holds the pages: no move until it goes. */
	if (vcompute_bo_is_export(obj)) {
		ret = drm_compute_p2p_pin(&bo->export, NULL);
		if (ret)
			return ret;
	}
	/*
	 * BAR pages are MMIO to the CPU: memremap_pages() maps P2P memory
	 * uncached, and a second mapping must not alias it with another
	 * memory type. Map them uncached too and say so, so that users take
	 * the I/O accessors.
	 */
	if (vcompute_bo_in_bar(bo)) {
		vaddr = vmap(bo->pages, n, VM_MAP, pgprot_noncached(PAGE_KERNEL));
		if (vaddr)
			iosys_map_set_vaddr_iomem(map, (void __iomem __force *)vaddr);
	} else {
		vaddr = vmap(bo->pages, n, VM_MAP, PAGE_KERNEL);
		if (vaddr)
			iosys_map_set_vaddr(map, vaddr);
	}
	if (!vaddr && vcompute_bo_is_export(obj))
		drm_compute_p2p_unpin(&bo->export, NULL);
	return vaddr ? 0 : -ENOMEM;
}

static void vcompute_bo_vunmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	if (drm_gem_is_imported(obj)) {
		dma_buf_vunmap(obj->dma_buf, map);
		return;
	}
	vunmap(map->is_iomem ? (void __force *)map->vaddr_iomem : map->vaddr);
	if (vcompute_bo_is_export(obj))
		drm_compute_p2p_unpin(&to_vcompute_bo(obj)->export, NULL);
}

static int vcompute_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	int ret;

	if (drm_gem_is_imported(obj)) {
		/* The exporter maps it; our vm_ops must not stay behind. */
		vma->vm_private_data = NULL;
		vma->vm_ops = NULL;
		ret = dma_buf_mmap(obj->dma_buf, vma, 0);
		if (!ret)
			drm_gem_object_put(obj);
		return ret;
	}
	/* A private writable mapping would copy device memory on write. */
	if (vma_is_cow_mapping(vma))
		return -EINVAL;
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vma_get_page_prot(vma);
	return 0;
}

static vm_fault_t vcompute_bo_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct vcompute_bo *bo = to_vcompute_bo(obj);
	/* The mapping may start anywhere inside the object. */
	unsigned long off = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	vm_fault_t ret;
	int idx;

	if (off >= obj->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	/* Once the device is unplugged, its memory is gone for userspace. */
	if (!drm_dev_enter(obj->dev, &idx))
		return VM_FAULT_SIGBUS;
	/* An export buffer's pages change under its reservation lock. */
	dma_resv_lock(obj->resv, NULL);
	ret = vmf_insert_pfn(vma, vmf->address, page_to_pfn(bo->pages[off]));
	dma_resv_unlock(obj->resv);
	drm_dev_exit(idx);
	return ret;
}

static const struct vm_operations_struct vcompute_bo_vm_ops = {
	.fault = vcompute_bo_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs vcompute_bo_funcs = {
	.free = vcompute_bo_free,
	.get_sg_table = vcompute_bo_get_sg_table,
	.vmap = vcompute_bo_vmap,
	.vunmap = vcompute_bo_vunmap,
	.mmap = vcompute_bo_mmap,
	.vm_ops = &vcompute_bo_vm_ops,
};

/* A buffer made for export: the same, with the P2P-aware dma-buf export. */
const struct drm_gem_object_funcs vcompute_export_bo_funcs = {
	.free = vcompute_bo_free,
	.export = vcompute_p2p_export,
	.get_sg_table = vcompute_bo_get_sg_table,
	.vmap = vcompute_bo_vmap,
	.vunmap = vcompute_bo_vunmap,
	.mmap = vcompute_bo_mmap,
	.vm_ops = &vcompute_bo_vm_ops,
};

static int vram_alloc(struct vcompute_device *vdev, struct vcompute_bo *bo)
{
	unsigned long i, n = bo->base.size >> PAGE_SHIFT;
	bool flushed = false;
	int ret;

	/* Larger than the whole device memory: full, as the uapi says. */
	if (bo->base.size > vdev->config.vram_size)
		return -ENOSPC;
	for (;;) {
		mutex_lock(&vdev->vram_lock);
		ret = gpu_buddy_alloc_blocks(&vdev->vram, 0, vdev->config.vram_size,
					     bo->base.size, PAGE_SIZE, &bo->blocks, 0);
		mutex_unlock(&vdev->vram_lock);
		if (ret != -ENOMEM && ret != -ENOSPC)
			break;
		if (flushed)
			return -ENOSPC;
		/* SVM device memory given back may still be on its way. */
		vcompute_pagemap_flush_released(vdev);
		flushed = true;
	}
	if (ret)
		return ret;

	bo->pages = kvcalloc(n, sizeof(*bo->pages), GFP_KERNEL);
	if (!bo->pages)
		return -ENOMEM;
	if (vdev->pdev) {
		/* A PCI instance: the BAR's own pages at the blocks' offsets. */
		struct gpu_buddy_block *block;

		if (!vcompute_pci_bar_get(vdev))
			return -ENODEV;
		bo->in_bar = true;
		i = 0;
		list_for_each_entry(block, &bo->blocks, link) {
			u64 off = gpu_buddy_block_offset(block);
			u64 end = off + gpu_buddy_block_size(&vdev->vram, block);

			memset(vdev->bar_va + off, 0, end - off);
			for (; off < end; off += PAGE_SIZE)
				bo->pages[i++] = virt_to_page(vdev->bar_va + off);
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		bo->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!bo->pages[i])
			return -ENOMEM;
		vcompute_own_pages_add(vdev, 1);
	}
	return 0;
}

/**
 * vcompute_bo_create - allocate a buffer without a handle
 * @vdev: the device
 * @size: bytes, page aligned
 * @placement: DRM_COMPUTE_PLACEMENT_VRAM or _SYSTEM
 *
 * Returns: the buffer with one reference, or an ERR_PTR(): -ENOSPC when
 * device memory is full, -ENOMEM.
 */
struct vcompute_bo *vcompute_bo_create(struct vcompute_device *vdev,
				       u64 size, u64 placement)
{
	struct vcompute_bo *bo;
	struct page **pages;
	int ret;

	bo = kzalloc_obj(*bo);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.funcs = &vcompute_bo_funcs;
	bo->placement = placement;
	INIT_LIST_HEAD(&bo->blocks);

	if (placement == DRM_COMPUTE_PLACEMENT_VRAM) {
		drm_gem_private_object_init(&vdev->drm, &bo->base, size);
		ret = vram_alloc(vdev, bo);
		if (ret)
			goto err_put;
		return bo;
	}

	/* More than the machine has can never be backed; don't try. */
	if (size >> PAGE_SHIFT > totalram_pages()) {
		kfree(bo);
		return ERR_PTR(-ENOMEM);
	}
	ret = drm_gem_object_init(&vdev->drm, &bo->base, size);
	if (ret) {
		kfree(bo);
		return ERR_PTR(ret);
	}
	bo->shmem = true;
	pages = drm_gem_get_pages(&bo->base);
	if (IS_ERR(pages)) {
		ret = PTR_ERR(pages);
		goto err_put;
	}
	bo->pages = pages;
	return bo;

err_put:
	drm_gem_object_put(&bo->base);
	return ERR_PTR(ret);
}

/**
 * vcompute_bo_create_handle - &drm_compute_ops.bo_create
 * @cfile: the file
 * @size: bytes, page aligned
 * @placement: one placement bit
 * @handle: set to the new handle
 *
 * Returns: 0, -ENOSPC, or -ENOMEM.
 */
int vcompute_bo_create_handle(struct drm_compute_file *cfile, u64 size,
			      u64 placement, u32 *handle)
{
	return vcompute_p2p_bo_create(cfile, size, placement, 0, handle);
}

/**
 * vcompute_p2p_bo_create - &drm_compute_ops.p2p_bo_create
 * @cfile: the file
 * @size: bytes, page aligned
 * @placement: VRAM, or SYSTEM for HOST_ONLY
 * @flags: the DRM_COMPUTE_BO_EXPORT_* flag, 0 for a buffer not made for
 *	   export (&drm_compute_ops.bo_create)
 * @handle: set to the new handle
 *
 * Returns: 0, -ENOSPC, or -ENOMEM.
 */
int vcompute_p2p_bo_create(struct drm_compute_file *cfile, u64 size,
			   u64 placement, u32 flags, u32 *handle)
{
	struct vcompute_device *vdev = to_vcompute(cfile->cdev->drm);
	struct vcompute_bo *bo;
	int ret;

	bo = vcompute_bo_create(vdev, size, placement);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	if (flags) {
		drm_compute_p2p_export_init(&bo->export, flags, placement);
		ret = xa_alloc(&vdev->exports, &bo->export_id, bo, xa_limit_32b,
			       GFP_KERNEL);
		if (ret) {
			drm_gem_object_put(&bo->base);
			return ret;
		}
		bo->base.funcs = &vcompute_export_bo_funcs;
	}
	ret = drm_gem_handle_create(cfile->file, &bo->base, handle);
	drm_gem_object_put(&bo->base);
	return ret;
}

/**
 * vcompute_bo_bindable - &drm_compute_ops.bo_bindable
 * @obj: a GEM object of the file
 *
 * Returns: whether @obj is a vcompute buffer with pages (not an import).
 */
bool vcompute_bo_bindable(struct drm_gem_object *obj)
{
	return (obj->funcs == &vcompute_bo_funcs || vcompute_bo_is_export(obj)) &&
	       !drm_gem_is_imported(obj) && to_vcompute_bo(obj)->pages;
}

/**
 * vcompute_bo_criu_placement - &drm_compute_ops.bo_criu_placement
 * @obj: a buffer of the device, not an import
 *
 * Returns: the buffer's placement, 0 for one without pages.
 */
u64 vcompute_bo_criu_placement(struct drm_gem_object *obj)
{
	return vcompute_bo_bindable(obj) ? to_vcompute_bo(obj)->placement : 0;
}

/**
 * vcompute_bo_criu_copy - &drm_compute_ops.bo_criu_copy
 * @obj: a buffer the helper may save; one made for export can move, and
 *	 the helper holds its reservation, under which its pages stay put
 *	 (vcompute_p2p.c); any other keeps its pages from creation to free
 *	 (DOC: Buffers) and needs no lock
 * @offset: byte offset into the buffer
 * @iter: the checkpoint tool's memory
 *
 * Copies page by page between the buffer's pages and @iter; a BAR page is
 * read and written through the kernel's (uncached) mapping of the BAR.
 *
 * Returns: 0, or -EFAULT when @iter's memory cannot be reached.
 */
int vcompute_bo_criu_copy(struct drm_gem_object *obj, u64 offset,
			  struct iov_iter *iter)
{
	struct vcompute_bo *bo = to_vcompute_bo(obj);
	bool out = iov_iter_rw(iter) == ITER_DEST;
	size_t len, done;
	struct page *page;

	if (vcompute_bo_is_export(obj))
		dma_resv_assert_held(obj->resv);
	if (WARN_ON_ONCE(!bo->pages))
		return -EINVAL;
	while (iov_iter_count(iter)) {
		page = bo->pages[offset >> PAGE_SHIFT];
		len = min_t(size_t, PAGE_SIZE - offset_in_page(offset),
			    iov_iter_count(iter));
		done = out ? copy_page_to_iter(page, offset_in_page(offset), len, iter) :
			     copy_page_from_iter(page, offset_in_page(offset), len, iter);
		if (done != len)
			return -EFAULT;
		offset += len;
		if (!(offset & (SZ_2M - 1)))
			cond_resched();
	}
	return 0;
}

/**
 * vcompute_dumb_create - &drm_driver.dumb_create: a system-memory buffer
 * @file: the DRM file
 * @drm: the device
 * @args: the dumb-buffer request
 *
 * Returns: 0 or a negative errno.
 */
int vcompute_dumb_create(struct drm_file *file, struct drm_device *drm,
			 struct drm_mode_create_dumb *args)
{
	struct vcompute_bo *bo;
	int ret;

	ret = drm_mode_size_dumb(drm, args, 0, PAGE_SIZE);
	if (ret)
		return ret;
	bo = vcompute_bo_create(to_vcompute(drm), args->size,
				DRM_COMPUTE_PLACEMENT_SYSTEM);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	drm_gem_object_put(&bo->base);
	return ret;
}

/**
 * vcompute_bo_import_alloc - a buffer object for an import
 * @drm: the device
 * @size: the dma-buf's size
 *
 * The caller sets &drm_gem_object.import_attach and .resv.
 *
 * Returns: the object (one reference), or NULL.
 */
struct vcompute_bo *vcompute_bo_import_alloc(struct drm_device *drm,
					     size_t size)
{
	struct vcompute_bo *bo;

	bo = kzalloc_obj(*bo);
	if (!bo)
		return NULL;
	bo->base.funcs = &vcompute_bo_funcs;
	INIT_LIST_HEAD(&bo->blocks);
	drm_gem_private_object_init(drm, &bo->base, size);
	return bo;
}

static void vram_fini(struct drm_device *drm, void *arg)
{
	struct vcompute_device *vdev = to_vcompute(drm);

	/* Every buffer is gone with the device's last reference. */
	WARN_ON(!xa_empty(&vdev->exports));
	xa_destroy(&vdev->exports);
	gpu_buddy_fini(&vdev->vram);
}

/**
 * vcompute_vram_init - set up the device-memory allocator
 * @vdev: the device
 *
 * Returns: 0 or a negative errno; torn down with the DRM device.
 */
int vcompute_vram_init(struct vcompute_device *vdev)
{
	int ret;

	ret = drmm_mutex_init(&vdev->drm, &vdev->vram_lock);
	if (ret)
		return ret;
	xa_init_flags(&vdev->exports, XA_FLAGS_ALLOC);
	ret = gpu_buddy_init(&vdev->vram, vdev->config.vram_size, PAGE_SIZE);
	if (ret)
		return ret;
	return drmm_add_action_or_reset(&vdev->drm, vram_fini, NULL);
}
