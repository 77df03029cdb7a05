/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * The SVM attribute store's node, shared by drm_compute_svm_attr.c and its
 * KUnit test; not for drivers, which read a store through
 * drm_compute_svm_attr_lookup() and drm_compute_svm_attr_walk().
 */
#ifndef __DRM_COMPUTE_SVM_INTERNAL_H__
#define __DRM_COMPUTE_SVM_INTERNAL_H__

#include <linux/list.h>
#include <linux/rbtree_types.h>
#include <linux/types.h>

#include <drm/drm_compute_svm.h>

/**
 * struct drm_compute_svm_attr_range - one range of an SVM attribute store
 *
 * Page granular: @start and @last + 1 are page aligned.
 */
struct drm_compute_svm_attr_range {
	union {
		/** @rb: node in &drm_compute_svm_attr_store.root. */
		struct rb_node rb;
		/** @link: in the list of nodes set aside for one update. */
		struct list_head link;
	};
	/** @start: first address. */
	u64 start;
	/** @last: last address (inclusive). */
	u64 last;
	/** @__subtree_last: the interval tree's augmented value. */
	u64 __subtree_last;
	/** @attrs: the attributes, never equal to the store's defaults. */
	struct drm_compute_svm_attrs attrs;
};

struct drm_compute_svm_attr_range *drm_compute_svm_attr_range_alloc(void);
u32 drm_compute_svm_attr_count(struct drm_compute_svm_attr_store *store);
bool drm_compute_svm_attr_span(struct drm_compute_svm_attr_store *store,
			       u64 *start, u64 *end);
int drm_compute_svm_attr_for_each(struct drm_compute_svm_attr_store *store,
				  int (*fn)(void *arg, u64 start, u64 size,
					    const struct drm_compute_svm_attrs *attrs),
				  void *arg);
#if IS_ENABLED(CONFIG_KUNIT)
bool drm_compute_svm_attrs_equal(const struct drm_compute_svm_attrs *a,
				 const struct drm_compute_svm_attrs *b);
#endif
u32 drm_compute_svm_attr_list(const struct drm_compute_svm_attr_store *store,
			      const struct drm_compute_svm_attrs *attrs,
			      struct drm_compute_svm_attr *out);

#endif /* __DRM_COMPUTE_SVM_INTERNAL_H__ */
