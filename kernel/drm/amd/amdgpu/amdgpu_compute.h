/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __AMDGPU_COMPUTE_H__
#define __AMDGPU_COMPUTE_H__

#include <linux/idr.h>
#include <linux/types.h>

#include <drm/drm_compute.h>

struct amdgpu_bo;
struct amdgpu_bo_va;
struct amdgpu_compute_svm;
struct amdgpu_compute_vm_link;
struct amdgpu_device;
struct amdgpu_fpriv;
struct amdgpu_vm;
struct drm_file;
struct drm_pagemap;
struct ttm_resource;
struct drm_gem_object;

/**
 * struct amdgpu_compute_file - the DRM compute state of one amdgpu file.
 *
 * Embedded in &struct amdgpu_fpriv. Besides the helper's state it holds
 * what every compute queue of the file shares and the uapi does not
 * provide: a page of doorbells and the queues' EOP buffers, made when the
 * file creates its first queue, one slot of each per queue.
 */
struct amdgpu_compute_file {
	/** @base: the helper's state; @base.cdev is NULL once torn down. */
	struct drm_compute_file base;
	/** @slots: queue slots (doorbell index and EOP buffer) in use. */
	struct ida slots;
	/**
	 * @link: the file's amdgpu VM as its compute VMs see it, or NULL
	 * before the first VM_CREATE.
	 */
	struct amdgpu_compute_vm_link *link;
	/**
	 * @doorbell: a page of doorbells (AMDGPU_GEM_DOMAIN_DOORBELL) that
	 * the file may mmap, or NULL.
	 */
	struct drm_gem_object *doorbell;
	/** @eop: the queues' EOP buffers, pinned in GTT, or NULL. */
	struct amdgpu_bo *eop;
	/** @eop_cpu: kernel mapping of @eop. */
	void *eop_cpu;
	/** @eop_va: @eop's mapping in the file's VM. */
	struct amdgpu_bo_va *eop_va;
};

void amdgpu_compute_device_init(struct amdgpu_device *adev);
void amdgpu_compute_device_unplug(struct amdgpu_device *adev);
void amdgpu_compute_device_reset(struct amdgpu_device *adev);
void amdgpu_compute_device_fini(struct amdgpu_device *adev);

void amdgpu_compute_file_init(struct amdgpu_device *adev,
			      struct amdgpu_fpriv *fpriv,
			      struct drm_file *file);
void amdgpu_compute_file_release(struct amdgpu_fpriv *fpriv);
void amdgpu_compute_file_fini(struct amdgpu_fpriv *fpriv);

/* amdgpu_compute_svm.c: SVM compute VMs on drm_gpusvm */
#if IS_ENABLED(CONFIG_DRM_COMPUTE_SVM)
bool amdgpu_compute_svm_supported(struct amdgpu_device *adev);
int amdgpu_compute_svm_init(struct amdgpu_device *adev, struct drm_compute_vm *cvm,
			    struct amdgpu_vm *vm, struct amdgpu_compute_svm **out);
void amdgpu_compute_svm_fini(struct amdgpu_compute_svm *svm);
void amdgpu_compute_svm_detach(struct amdgpu_vm *vm);
struct amdgpu_compute_svm *amdgpu_compute_svm_get(struct amdgpu_vm *vm);
void amdgpu_compute_svm_put(struct amdgpu_compute_svm *svm);
int amdgpu_compute_svm_fault(struct amdgpu_compute_svm *svm, u64 addr, bool write);
void amdgpu_compute_svm_attr_set(struct amdgpu_compute_svm *svm, u64 start, u64 size,
				 const struct drm_compute_svm_attr *attrs, u32 nattr);
void amdgpu_compute_svm_sync(struct amdgpu_compute_svm *svm);
void amdgpu_compute_svm_bind_prepare(struct amdgpu_compute_svm *svm, u64 va, u64 range);

/* amdgpu_compute_pagemap.c: SVM device memory on drm_pagemap */
bool amdgpu_compute_pagemap_supported(struct amdgpu_device *adev);
void *amdgpu_compute_pagemap_owner(struct amdgpu_device *adev);
void amdgpu_compute_pagemap_init(struct amdgpu_device *adev);
struct drm_pagemap *amdgpu_compute_pagemap_get(struct amdgpu_device *adev);
void amdgpu_compute_pagemap_unplug(struct amdgpu_device *adev);
void amdgpu_compute_pagemap_exit(void);
bool amdgpu_compute_pagemap_is_devmem(struct amdgpu_bo *bo);
int amdgpu_compute_pagemap_bo_move(struct amdgpu_bo *bo, bool evict,
				   struct ttm_resource *new_mem);
#else
static inline bool amdgpu_compute_svm_supported(struct amdgpu_device *adev)
{
	return false;
}

static inline void amdgpu_compute_svm_detach(struct amdgpu_vm *vm)
{
}

static inline struct amdgpu_compute_svm *amdgpu_compute_svm_get(struct amdgpu_vm *vm)
{
	return NULL;
}

static inline void amdgpu_compute_svm_put(struct amdgpu_compute_svm *svm)
{
}

static inline void amdgpu_compute_svm_bind_prepare(struct amdgpu_compute_svm *svm, u64 va,
						   u64 range)
{
}

static inline int amdgpu_compute_svm_fault(struct amdgpu_compute_svm *svm, u64 addr,
					   bool write)
{
	return -EOPNOTSUPP;
}

static inline void amdgpu_compute_pagemap_init(struct amdgpu_device *adev)
{
}

static inline void amdgpu_compute_pagemap_unplug(struct amdgpu_device *adev)
{
}

static inline void amdgpu_compute_pagemap_exit(void)
{
}

static inline bool amdgpu_compute_pagemap_is_devmem(struct amdgpu_bo *bo)
{
	return false;
}

static inline int amdgpu_compute_pagemap_bo_move(struct amdgpu_bo *bo, bool evict,
						 struct ttm_resource *new_mem)
{
	return -EINVAL;
}
#endif

#endif /* __AMDGPU_COMPUTE_H__ */
