/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __DRM_COMPUTE_SVM_H__
#define __DRM_COMPUTE_SVM_H__

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/lockdep_types.h>
#include <linux/rbtree_types.h>
#include <linux/types.h>

#include <asm/page.h>

#include <uapi/drm/drm_compute.h>

struct drm_compute_svm_attr_store;

/*
 * The attribute types, locations and flags are the uapi's
 * (uapi/drm/drm_compute.h: DRM_COMPUTE_SVM_ATTR_*, _LOCATION_*, _FLAG_*),
 * which are KFD's values.
 */

/** DRM_COMPUTE_SVM_MAX_DEVICES - devices one store keeps access modes for. */
#define DRM_COMPUTE_SVM_MAX_DEVICES		16

/** DRM_COMPUTE_SVM_FLAGS_DEFAULT - flags of a range never set (KFD's). */
#define DRM_COMPUTE_SVM_FLAGS_DEFAULT		(DRM_COMPUTE_SVM_FLAG_HOST_ACCESS | \
						 DRM_COMPUTE_SVM_FLAG_COHERENT)

/**
 * DRM_COMPUTE_SVM_GRANULARITY_DEFAULT - migration granularity of a range
 * never set, log2 pages (KFD's: 2 MiB with 4 KiB pages).
 */
#define DRM_COMPUTE_SVM_GRANULARITY_DEFAULT	9
/**
 * DRM_COMPUTE_SVM_GRANULARITY_MAX - largest granularity accepted: the one
 * whose chunk, PAGE_SIZE << granularity bytes, still fits in a u64.
 */
#define DRM_COMPUTE_SVM_GRANULARITY_MAX		(63 - PAGE_SHIFT)

/**
 * enum drm_compute_svm_access_mode - how one device may reach a range
 * @DRM_COMPUTE_SVM_MODE_DEFAULT: stored only: the store's default mode
 *	(&drm_compute_svm_attr_store.default_access) applies.
 * @DRM_COMPUTE_SVM_MODE_ACCESS: as %DRM_COMPUTE_SVM_ATTR_ACCESS.
 * @DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE: as
 *	%DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE.
 * @DRM_COMPUTE_SVM_MODE_NO_ACCESS: as %DRM_COMPUTE_SVM_ATTR_NO_ACCESS.
 */
enum drm_compute_svm_access_mode {
	DRM_COMPUTE_SVM_MODE_DEFAULT,
	DRM_COMPUTE_SVM_MODE_ACCESS,
	DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE,
	DRM_COMPUTE_SVM_MODE_NO_ACCESS,
};

/**
 * struct drm_compute_svm_attrs - the attributes of one address range
 *
 * Compared field by field: two ranges with equal attributes are one range.
 */
struct drm_compute_svm_attrs {
	/** @preferred_loc: device id or DRM_COMPUTE_SVM_LOCATION_*. */
	u32 preferred_loc;
	/** @prefetch_loc: device id or DRM_COMPUTE_SVM_LOCATION_*. */
	u32 prefetch_loc;
	/** @flags: DRM_COMPUTE_SVM_FLAG_* bits. */
	u32 flags;
	/** @granularity: migration granularity, log2 pages. */
	u8 granularity;
	/**
	 * @access: &enum drm_compute_svm_access_mode per device, indexed like
	 * &drm_compute_svm_attr_store.dev_ids; read it through
	 * drm_compute_svm_attrs_access().
	 */
	u8 access[DRM_COMPUTE_SVM_MAX_DEVICES];
	/**
	 * @pad: zero; explicit, so that the structure has no padding of the
	 * compiler's and every other byte belongs to a field that
	 * drm_compute_svm_attrs_equal() compares (checked by KUnit).
	 */
	u8 pad[3];
};

/**
 * struct drm_compute_svm_attr_ops - the driver's side of an attribute store
 */
struct drm_compute_svm_attr_ops {
	/**
	 * @device_valid: whether @dev_id names a device that may appear in an
	 * attribute of @type: a location (PREFERRED_LOC, PREFETCH_LOC: a
	 * device whose memory can hold the data) or an access type (a device
	 * that can map the range). Never called for
	 * %DRM_COMPUTE_SVM_LOCATION_SYSMEM or _UNDEFINED, which are never
	 * device ids. Mandatory; called with the store's lock held, must not
	 * sleep.
	 */
	bool (*device_valid)(struct drm_compute_svm_attr_store *store,
			     u32 type, u32 dev_id);
};

/**
 * struct drm_compute_svm_attr_store - SVM attributes of an address space
 *
 * The store has no lock of its own: the driver serialises every call with
 * one lock of its choice (the SVM lock of the VM, say), held exclusively
 * for drm_compute_svm_attr_set() and drm_compute_svm_attr_clear(), and at
 * least shared for the readers. drm_compute_svm_attr_store_set_lock()
 * names it to lockdep, which then checks it in every entry point. Each
 * field below is protected by that lock unless it says otherwise.
 */
struct drm_compute_svm_attr_store {
	/**
	 * @root: interval tree of the ranges whose attributes differ from
	 * @defaults, at most one per address, never two adjacent ones with
	 * equal attributes.
	 */
	struct rb_root_cached root;
	/** @ops: the driver's callbacks; set at init. */
	const struct drm_compute_svm_attr_ops *ops;
	/** @va_start: lowest address the store covers; set at init. */
	u64 va_start;
	/** @va_end: end (exclusive) of the addresses covered; set at init. */
	u64 va_end;
	/** @defaults: the attributes of an address never set; set at init. */
	struct drm_compute_svm_attrs defaults;
	/**
	 * @default_access: the access mode of a device at an address where
	 * no attribute named it; set at init, never
	 * %DRM_COMPUTE_SVM_MODE_DEFAULT.
	 */
	enum drm_compute_svm_access_mode default_access;
	/**
	 * @dev_ids: the device id of each index of
	 * &drm_compute_svm_attrs.access, 0 for an unused index. A device gets
	 * an index when an attribute first names it and keeps it for the
	 * store's life.
	 */
	u32 dev_ids[DRM_COMPUTE_SVM_MAX_DEVICES];
#ifdef CONFIG_LOCKDEP
	/**
	 * @lock_dep_map: the driver's lock serialising the store, or NULL if
	 * not named (drm_compute_svm_attr_store_set_lock()).
	 */
	struct lockdep_map *lock_dep_map;
#endif
};

#ifdef CONFIG_LOCKDEP
static inline void
__drm_compute_svm_attr_store_set_lock(struct drm_compute_svm_attr_store *store,
				      struct lockdep_map *map)
{
	if (!WARN(store->lock_dep_map, "SVM attribute store lock set twice"))
		store->lock_dep_map = map;
}

/**
 * drm_compute_svm_attr_store_set_lock - name the lock serialising a store
 * @store: the store, after drm_compute_svm_attr_store_init()
 * @lock: the driver's lock (a mutex or rw_semaphore: anything with a
 *	dep_map)
 *
 * Once named, every entry point asserts that @lock is held: exclusively
 * for the writers, in any mode for the readers.
 */
#define drm_compute_svm_attr_store_set_lock(store, lock) \
	__drm_compute_svm_attr_store_set_lock(store, &(lock)->dep_map)
#else
#define drm_compute_svm_attr_store_set_lock(store, lock) \
	do { (void)(store); (void)(lock); } while (0)
#endif

/**
 * DOC: SVM fault policy
 *
 * What a device does when it reaches an address of an SVM VM that it has
 * no entry for is decided in one place for every driver, by
 * drm_compute_svm_fault_decide(): a pure function of the attributes at the
 * address, the device and the access, which returns a plan (fault, or
 * migrate first and map with these permissions). The mirror
 * (drm_compute_svm_mirror.c) carries the plan out; a driver never reads
 * the attributes to decide for itself, so that an attribute added to the
 * uapi changes this function and its table test, not each driver.
 */

/** DRM_COMPUTE_SVM_MAP_WRITE - the entries are writable. */
#define DRM_COMPUTE_SVM_MAP_WRITE	BIT(0)
/** DRM_COMPUTE_SVM_MAP_EXEC - packets and code may be fetched through them. */
#define DRM_COMPUTE_SVM_MAP_EXEC	BIT(1)
/**
 * DRM_COMPUTE_SVM_MAP_COHERENT - accesses must be coherent with the CPU's
 * (%DRM_COMPUTE_SVM_FLAG_COHERENT or _EXT_COHERENT): uncached where the
 * device does not snoop.
 */
#define DRM_COMPUTE_SVM_MAP_COHERENT	BIT(2)
/**
 * DRM_COMPUTE_SVM_MAP_COPY - a read-only copy (%DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY):
 * a device write through it is a miss to service with a writable mapping,
 * not a permission fault.
 */
#define DRM_COMPUTE_SVM_MAP_COPY	BIT(3)
/**
 * DRM_COMPUTE_SVM_MAP_ALWAYS - keep mapped (%DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED):
 * map again after any invalidation but an unmap.
 */
#define DRM_COMPUTE_SVM_MAP_ALWAYS	BIT(4)

/**
 * struct drm_compute_svm_fault_facts - what the fault policy looks at
 *
 * A plain structure, so that KUnit can tabulate the policy.
 */
struct drm_compute_svm_fault_facts {
	/**
	 * @mode: this device's access mode at the address (never
	 * %DRM_COMPUTE_SVM_MODE_DEFAULT); %DRM_COMPUTE_SVM_MODE_NO_ACCESS
	 * also for an address outside the VM's range.
	 */
	enum drm_compute_svm_access_mode mode;
	/** @flags: DRM_COMPUTE_SVM_FLAG_* at the address. */
	u32 flags;
	/** @preferred_here: the preferred location is this device. */
	bool preferred_here;
	/** @write: the access writes. */
	bool write;
	/**
	 * @ahead: not an access: mapping ahead of any access
	 * (%DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED), which moves nothing.
	 */
	bool ahead;
	/**
	 * @cpu_read_only: the CPU mapping has no write permission (learnt
	 * when drm_gpusvm refused a writable range).
	 */
	bool cpu_read_only;
};

/**
 * struct drm_compute_svm_fault_plan - what to do about one fault
 */
struct drm_compute_svm_fault_plan {
	/** @fault: 0 to map, else the DRM_COMPUTE_FAULT_* to raise. */
	u32 fault;
	/** @migrate: move the range to this device's memory first. */
	bool migrate;
	/** @read_only: get the pages without write access. */
	bool read_only;
	/** @map: DRM_COMPUTE_SVM_MAP_* of the entries. */
	u32 map;
};

struct drm_compute_svm_fault_plan
drm_compute_svm_fault_decide(const struct drm_compute_svm_fault_facts *f);

int drm_compute_svm_attr_store_init(struct drm_compute_svm_attr_store *store,
				    const struct drm_compute_svm_attr_ops *ops,
				    u64 va_start, u64 va_end,
				    enum drm_compute_svm_access_mode default_access);
void drm_compute_svm_attr_store_fini(struct drm_compute_svm_attr_store *store);

int drm_compute_svm_attr_set(struct drm_compute_svm_attr_store *store,
			     u64 start, u64 size,
			     const struct drm_compute_svm_attr *attrs,
			     unsigned int nattr);
int drm_compute_svm_attr_get(struct drm_compute_svm_attr_store *store,
			     u64 start, u64 size,
			     struct drm_compute_svm_attr *attrs,
			     unsigned int nattr);
int drm_compute_svm_attr_clear(struct drm_compute_svm_attr_store *store,
			       u64 start, u64 size);
int drm_compute_svm_attr_check(struct drm_compute_svm_attr_store *store,
			       const struct drm_compute_svm_attr *attrs,
			       unsigned int nattr, bool set);

const struct drm_compute_svm_attrs *
drm_compute_svm_attr_lookup(struct drm_compute_svm_attr_store *store, u64 addr,
			    u64 *start, u64 *size);
int drm_compute_svm_attr_walk(struct drm_compute_svm_attr_store *store,
			      u64 start, u64 size,
			      int (*fn)(void *arg, u64 start, u64 size,
					const struct drm_compute_svm_attrs *attrs),
			      void *arg);
enum drm_compute_svm_access_mode
drm_compute_svm_attrs_access(const struct drm_compute_svm_attr_store *store,
			     const struct drm_compute_svm_attrs *attrs,
			     u32 dev_id);

#endif /* __DRM_COMPUTE_SVM_H__ */
