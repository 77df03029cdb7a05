/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * Declarations shared by the DRM compute helper's files and its KUnit
 * tests; not for drivers.
 */
#ifndef __DRM_COMPUTE_INTERNAL_H__
#define __DRM_COMPUTE_INTERNAL_H__

#include <linux/stddef.h>
#include <linux/types.h>

#include <drm/drm_compute.h>

/* Every DRM_COMPUTE_PLACEMENT_* bit. */
#define DRM_COMPUTE_PLACEMENTS_KNOWN	(DRM_COMPUTE_PLACEMENT_VRAM | \
					 DRM_COMPUTE_PLACEMENT_SYSTEM)
/* Every DRM_COMPUTE_USERQ_CAP_* bit. */
/* Every DRM_COMPUTE_SEMANTICS_* bit. */
#define DRM_COMPUTE_SEMANTICS_KNOWN	(DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS | \
					 DRM_COMPUTE_SEMANTICS_SHARED_VA | \
					 DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM | \
					 DRM_COMPUTE_SEMANTICS_QUEUE_BUFFER_RULES | \
					 DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT)

#define DRM_COMPUTE_USERQ_CAPS_KNOWN	(DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP | \
					 DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY | \
					 DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY)
/* Every DRM_COMPUTE_VM_CREATE_* flag. */
#define DRM_COMPUTE_VM_CREATE_FLAGS_KNOWN	DRM_COMPUTE_VM_CREATE_SVM
/* Every DRM_COMPUTE_VM_BIND_* flag. */
#define DRM_COMPUTE_VM_BIND_FLAGS_KNOWN	(DRM_COMPUTE_VM_BIND_READONLY | \
					 DRM_COMPUTE_VM_BIND_NOEXEC)
/* Every DRM_COMPUTE_BO_EXPORT_* flag. */
#define DRM_COMPUTE_BO_EXPORT_KNOWN	(DRM_COMPUTE_BO_EXPORT_PREFER_P2P | \
					 DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P | \
					 DRM_COMPUTE_BO_EXPORT_HOST_ONLY)
/* Pending sync-object signals one queue may hold. */
#define DRM_COMPUTE_MAX_SIGNALS		1024

u64 drm_compute_features(const struct drm_compute_ops *ops);
int drm_compute_ops_check(const struct drm_compute_ops *ops,
			  const struct drm_compute_dev_info *info,
			  const char **missing);
bool drm_compute_device_svm(u32 id);
int drm_compute_info_check(const struct drm_compute_dev_info *info,
			   u64 features);
bool drm_compute_args_zero(const void *args, size_t offset, size_t size);
u32 drm_compute_xa_count(struct xarray *xa);

struct drm_compute_vm *drm_compute_vm_lookup(struct drm_compute_file *cfile,
					     u32 id);
void drm_compute_userq_remove(struct drm_compute_userq *q, int err);
/* Checkpoint: each object kind's part, sequenced by drm_compute_criu.c. */
void drm_compute_bo_criu_count(struct drm_compute_file *cfile,
			       struct drm_compute_criu_info *args);
int drm_compute_bo_criu_pause(struct drm_compute_file *cfile, u32 *exports);
u32 drm_compute_bo_criu_resume(struct drm_compute_file *cfile);
void drm_compute_bo_criu_fini(struct drm_compute_file *cfile);
u32 drm_compute_vm_criu_count(struct drm_compute_file *cfile);
u32 drm_compute_userq_criu_count(struct drm_compute_file *cfile);
int drm_compute_userq_criu_pause(struct drm_compute_file *cfile, u32 *paused);
int drm_compute_userq_criu_resume(struct drm_compute_file *cfile, u32 *resumed);
u32 drm_compute_userq_criu_unsaved(struct drm_compute_file *cfile);
int drm_compute_userq_criu_list(struct drm_compute_file *cfile,
				struct drm_compute_criu_checkpoint *args);
int drm_compute_userq_criu_restore(struct drm_compute_file *cfile,
				   struct drm_compute_criu_restore *args);
u32 drm_compute_userq_criu_signal_count(struct drm_compute_file *cfile);
int drm_compute_userq_criu_list_signals(struct drm_compute_file *cfile,
					struct drm_compute_criu_checkpoint *args);
int drm_compute_userq_criu_restore_signals(struct drm_compute_file *cfile,
					   struct drm_compute_criu_restore *args);
u32 drm_compute_syncobj_criu_count(struct drm_compute_file *cfile, u32 *unsaved);
int drm_compute_syncobj_criu_list(struct drm_compute_file *cfile,
				  struct drm_compute_criu_checkpoint *args);
int drm_compute_syncobj_criu_restore(struct drm_compute_file *cfile,
				     struct drm_compute_criu_restore *args);
u32 drm_compute_svm_criu_count(struct drm_compute_file *cfile, u32 *unsaved);
void drm_compute_svm_criu_pause(struct drm_compute_file *cfile);
int drm_compute_svm_criu_list(struct drm_compute_file *cfile,
			      struct drm_compute_criu_checkpoint *args);
int drm_compute_svm_criu_restore(struct drm_compute_file *cfile,
				 struct drm_compute_criu_restore *args);
int drm_compute_svm_criu_resume(struct drm_compute_file *cfile);
void drm_compute_criu_file_fini(struct drm_compute_file *cfile);
bool drm_compute_bo_criu_savable(struct drm_compute_device *cdev,
				 struct drm_gem_object *obj);
int drm_compute_bo_criu_list(struct drm_compute_file *cfile,
			     struct drm_compute_criu_checkpoint *args);
int drm_compute_bo_criu_copy(struct drm_compute_file *cfile, u32 handle,
			     u64 offset, u64 size, u64 ptr, int dir);
int drm_compute_bo_criu_restore(struct drm_compute_file *cfile,
				struct drm_compute_criu_restore *args);
int drm_compute_bo_criu_share(struct drm_compute_file *cfile,
			      struct drm_compute_criu_checkpoint *args);
int drm_compute_bo_criu_session(struct drm_compute_file *cfile, u64 *id);
void drm_compute_bo_criu_session_fini(struct drm_compute_file *cfile);
int drm_compute_vm_criu_unsaved(struct drm_compute_file *cfile);
int drm_compute_vm_criu_list(struct drm_compute_file *cfile,
			     struct drm_compute_criu_checkpoint *args);
int drm_compute_vm_criu_restore(struct drm_compute_file *cfile,
				struct drm_compute_criu_restore *args);
void drm_compute_watchdog_work(struct work_struct *work);
void drm_compute_fence_poll_work(struct work_struct *work);
void drm_compute_reset_work(struct work_struct *work);
unsigned int drm_compute_hang_timeout_ms(void);
unsigned int drm_compute_device_hang_timeout_ms(const struct drm_compute_device *cdev);
unsigned int drm_compute_hang_timeout_swap(unsigned int ms);
int drm_compute_userq_args_check(const struct drm_compute_dev_info *info,
				 const struct drm_compute_userq_create *args);
int drm_compute_svm_vm_init(struct drm_compute_vm *vm);
void drm_compute_svm_vm_fini(struct drm_compute_vm *vm);
int drm_compute_svm_args_check(const struct drm_compute_dev_info *info,
			       const struct drm_compute_svm *args);

#endif /* __DRM_COMPUTE_INTERNAL_H__ */
