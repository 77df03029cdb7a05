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
struct amdgpu_compute_vm_link;
struct amdgpu_device;
struct amdgpu_fpriv;
struct drm_file;
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
void amdgpu_compute_device_fini(struct amdgpu_device *adev);

void amdgpu_compute_file_init(struct amdgpu_device *adev,
			      struct amdgpu_fpriv *fpriv,
			      struct drm_file *file);
void amdgpu_compute_file_fini(struct amdgpu_fpriv *fpriv);

#endif /* __AMDGPU_COMPUTE_H__ */
