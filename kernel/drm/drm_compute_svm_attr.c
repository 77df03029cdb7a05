// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/export.h>
#include <linux/interval_tree_generic.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include <drm/drm_compute_svm.h>

#include "drm_compute_svm_internal.h"

/**
 * DOC: SVM attributes
 *
 * With shared virtual memory a device uses the process's own pointers, and
 * userspace says how each part of the address space should be treated:
 * where its data should live, which devices may reach it and how, what
 * the devices do with it, and in what chunks it migrates. The SVM
 * attribute store keeps these attributes for one address space, with the
 * meaning of KFD's AMDKFD_IOC_SVM, so that every driver offers the same
 * semantics and an amdgpu render node can offer what ROCm has on
 * /dev/kfd:
 *
 * - preferred location and prefetch location: a device id, or
 *   %DRM_COMPUTE_SVM_LOCATION_SYSMEM, or %DRM_COMPUTE_SVM_LOCATION_UNDEFINED
 *   (no preference);
 * - per device, one access mode: ACCESS (the device maps the range, the
 *   data may migrate to it), ACCESS_IN_PLACE (it maps the data where it
 *   is) or NO_ACCESS;
 * - DRM_COMPUTE_SVM_FLAG_* flags (host access, coherence, read-only,
 *   read-mostly, exec, ...);
 * - the migration granularity, log2 pages.
 *
 * The store only records. The driver acts on what it records: it migrates
 * when userspace sets a prefetch location, its fault handler reads the
 * attributes at the faulting address (drm_compute_svm_attr_lookup(),
 * which also gives the extent over which they hold) to decide whether
 * and where to map and how much to migrate, and a prefetch walks a range
 * piece by piece (drm_compute_svm_attr_walk()). The store is independent
 * of drm_gpusvm's ranges: those follow what devices touched and come and
 * go with faults and notifiers; attributes follow what userspace asked
 * for and stay until it sets them again or the memory is unmapped.
 *
 * The contract with a driver: embed &struct drm_compute_svm_attr_store in
 * the object that owns the address space, call
 * drm_compute_svm_attr_store_init() with the range of addresses it covers,
 * the access mode a device has where nothing was set, and a
 * &struct drm_compute_svm_attr_ops that says which device ids are valid;
 * name its lock with drm_compute_svm_attr_store_set_lock(); call
 * drm_compute_svm_attr_clear() when memory is unmapped and
 * drm_compute_svm_attr_store_fini() at the end.
 *
 * Defaults. An address never set has KFD's defaults: no preferred and no
 * prefetch location (%DRM_COMPUTE_SVM_LOCATION_UNDEFINED),
 * %DRM_COMPUTE_SVM_FLAGS_DEFAULT (host access and coherent), granularity
 * %DRM_COMPUTE_SVM_GRANULARITY_DEFAULT (2 MiB with 4 KiB pages), and for
 * every device the store's default access mode: KFD gives every device
 * access when the process runs with recoverable faults (XNACK on, the
 * mode drm_gpusvm works in) and none otherwise, so the driver picks.
 *
 * Setting. drm_compute_svm_attr_set() applies a list of attributes, in
 * order, to a page-aligned range within the store's limits; the range may
 * cover any number of set ranges and gaps, and only the addresses inside
 * it change. Every input is checked before anything changes, and every
 * node the update needs is allocated before anything changes too: a call
 * that fails changes nothing. Unlike KFD, which clamps a granularity that
 * is too large, the store rejects it, like every other invalid value. A
 * device gets one of %DRM_COMPUTE_SVM_MAX_DEVICES slots the first time an
 * attribute names it, and keeps it for the store's life; a call naming a
 * device beyond that fails.
 *
 * Merging. The store keeps one canonical form: a range exists only where
 * the attributes differ from the defaults, and two adjacent ranges never
 * have equal attributes. After every change, ranges that became equal to
 * their neighbours are merged and ranges that went back to the defaults
 * are dropped, so the ranges are as few as the attributes allow and do
 * not depend on the order of the calls that set them.
 *
 * Getting. drm_compute_svm_attr_get() reports each attribute over a whole
 * range, as KFD's GET_ATTR does, except that addresses never set count
 * with their defaults (KFD skips the addresses it holds no range for):
 * a location is reported if it is the same everywhere, else
 * %DRM_COMPUTE_SVM_LOCATION_UNDEFINED; SET_FLAGS reports the flags set
 * everywhere (AND), CLR_FLAGS the flags clear everywhere (NOR);
 * granularity the smallest; for a device, ACCESS or ACCESS_IN_PLACE if it
 * has that mode everywhere, else NO_ACCESS (the intersection: a range
 * partly ACCESS and partly ACCESS_IN_PLACE reports NO_ACCESS).
 *
 * Unmapping. Attributes belong to the memory, not to the addresses:
 * KFD drops them when the memory is unmapped, and so should a driver, by
 * calling drm_compute_svm_attr_clear() for the unmapped range (from a
 * worker, not the MMU notifier: clearing the middle of a range allocates).
 * A later mmap at the same address then starts from the defaults.
 *
 * Locking: the store has no lock; see &struct drm_compute_svm_attr_store.
 */

#define RANGE_START(r)	((r)->start)
#define RANGE_LAST(r)	((r)->last)

INTERVAL_TREE_DEFINE(struct drm_compute_svm_attr_range, rb, u64, __subtree_last,
		     RANGE_START, RANGE_LAST, static, svm_attr_it)

/* One update of a store: the attributes and what they need. */
struct svm_attr_update {
	/* The list to apply, NULL to reset to the defaults. */
	const struct drm_compute_svm_attr *attrs;
	unsigned int nattr;
	/* The store's device slots with the ones @attrs adds. */
	u32 dev_ids[DRM_COMPUTE_SVM_MAX_DEVICES];
	/* What a gap inside the range becomes, and whether it differs. */
	struct drm_compute_svm_attrs gap;
	bool fill_gaps;
	/* The nodes allocated for the update. */
	struct list_head pool;
};

static void svm_attr_assert_held(const struct drm_compute_svm_attr_store *store,
				 bool exclusive)
{
#ifdef CONFIG_LOCKDEP
	if (store->lock_dep_map)
		lockdep_assert(lock_is_held_type(store->lock_dep_map,
						 exclusive ? 0 : -1));
#endif
}

/*
 * The attribute types of the uapi as an enum, so that a switch over them
 * that misses one warns (-Wswitch): attrs_check() rejects a type past the
 * last before switching, attrs_apply() and get_piece() have no default.
 * A type the uapi adds is rejected until it has its enumerator, and then
 * each switch must handle it to build warning-free.
 */
enum svm_attr_type {
	SVM_ATTR_PREFERRED_LOC = DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC,
	SVM_ATTR_PREFETCH_LOC = DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC,
	SVM_ATTR_ACCESS = DRM_COMPUTE_SVM_ATTR_ACCESS,
	SVM_ATTR_ACCESS_IN_PLACE = DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE,
	SVM_ATTR_NO_ACCESS = DRM_COMPUTE_SVM_ATTR_NO_ACCESS,
	SVM_ATTR_SET_FLAGS = DRM_COMPUTE_SVM_ATTR_SET_FLAGS,
	SVM_ATTR_CLR_FLAGS = DRM_COMPUTE_SVM_ATTR_CLR_FLAGS,
	SVM_ATTR_GRANULARITY = DRM_COMPUTE_SVM_ATTR_GRANULARITY,
	SVM_ATTR_TYPES
};

/*
 * No padding the compiler chose: every byte of the structure is a field or
 * the explicit, zeroed &drm_compute_svm_attrs.pad, so that
 * drm_compute_svm_attrs_equal()'s KUnit test can check that each byte of
 * every field takes part in the comparison.
 */
static_assert(sizeof(struct drm_compute_svm_attrs) ==
	      offsetofend(struct drm_compute_svm_attrs, pad));

/**
 * drm_compute_svm_attrs_equal - whether two ranges' attributes are one
 * @a: attributes
 * @b: attributes
 *
 * Equal attributes merge two adjacent ranges into one, so a field this
 * comparison forgot would silently merge ranges with different values; the
 * KUnit test attrs_equal_every_byte flips each byte of the structure (but
 * the explicit padding) and expects the comparison to see it.
 *
 * Returns: true when every field is equal.
 */
VISIBLE_IF_KUNIT bool drm_compute_svm_attrs_equal(const struct drm_compute_svm_attrs *a,
						  const struct drm_compute_svm_attrs *b)
{
	return a->preferred_loc == b->preferred_loc &&
	       a->prefetch_loc == b->prefetch_loc &&
	       a->flags == b->flags &&
	       a->granularity == b->granularity &&
	       !memcmp(a->access, b->access, sizeof(a->access));
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_attrs_equal);

static bool mode_valid(enum drm_compute_svm_access_mode mode)
{
	return mode == DRM_COMPUTE_SVM_MODE_ACCESS ||
	       mode == DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE ||
	       mode == DRM_COMPUTE_SVM_MODE_NO_ACCESS;
}

static int slot_find(const u32 *dev_ids, u32 dev_id)
{
	int i;

	for (i = 0; i < DRM_COMPUTE_SVM_MAX_DEVICES; i++)
		if (dev_ids[i] == dev_id)
			return i;
	return -ENOENT;
}

/* The slot of @dev_id in @dev_ids, given a free one if it has none. */
static int slot_get(u32 *dev_ids, u32 dev_id)
{
	int slot = slot_find(dev_ids, dev_id);

	if (slot < 0) {
		slot = slot_find(dev_ids, 0);
		if (slot >= 0)
			dev_ids[slot] = dev_id;
	}
	return slot;
}

static bool device_valid(struct drm_compute_svm_attr_store *store, u32 type,
			 u32 dev_id)
{
	return dev_id != DRM_COMPUTE_SVM_LOCATION_SYSMEM &&
	       dev_id != DRM_COMPUTE_SVM_LOCATION_UNDEFINED &&
	       store->ops->device_valid(store, type, dev_id);
}

/* Page aligned, not empty, no wrap, within the store's limits. */
static int range_check(const struct drm_compute_svm_attr_store *store,
		       u64 start, u64 size, u64 *last)
{
	u64 end;

	if (!size || !IS_ALIGNED(start, PAGE_SIZE) ||
	    !IS_ALIGNED(size, PAGE_SIZE) ||
	    check_add_overflow(start, size, &end) ||
	    start < store->va_start || end > store->va_end)
		return -EINVAL;
	*last = end - 1;
	return 0;
}

/*
 * Every attribute of a set (@dev_ids: the slots, extended with the devices
 * it names) or a get (@dev_ids NULL: only the values that are inputs).
 */
static int attrs_check(struct drm_compute_svm_attr_store *store,
		       const struct drm_compute_svm_attr *attrs,
		       unsigned int nattr, u32 *dev_ids)
{
	unsigned int i;

	for (i = 0; i < nattr; i++) {
		u32 type = attrs[i].type, value = attrs[i].value;

		if (type >= SVM_ATTR_TYPES)
			return -EINVAL;
		switch ((enum svm_attr_type)type) {
		case SVM_ATTR_PREFERRED_LOC:
		case SVM_ATTR_PREFETCH_LOC:
			if (!dev_ids || value == DRM_COMPUTE_SVM_LOCATION_SYSMEM ||
			    value == DRM_COMPUTE_SVM_LOCATION_UNDEFINED)
				break;
			if (!device_valid(store, type, value))
				return -EINVAL;
			break;
		case SVM_ATTR_ACCESS:
		case SVM_ATTR_ACCESS_IN_PLACE:
		case SVM_ATTR_NO_ACCESS:
			if (!device_valid(store, type, value))
				return -EINVAL;
			if (dev_ids && slot_get(dev_ids, value) < 0)
				return -EINVAL;
			break;
		case SVM_ATTR_SET_FLAGS:
		case SVM_ATTR_CLR_FLAGS:
			if (dev_ids && (value & ~DRM_COMPUTE_SVM_FLAGS_KNOWN))
				return -EINVAL;
			break;
		case SVM_ATTR_GRANULARITY:
			if (dev_ids && value > DRM_COMPUTE_SVM_GRANULARITY_MAX)
				return -EINVAL;
			break;
		case SVM_ATTR_TYPES:
			return -EINVAL;
		}
	}
	return 0;
}

static void access_set(const struct drm_compute_svm_attr_store *store,
		       const u32 *dev_ids, struct drm_compute_svm_attrs *a,
		       u32 dev_id, enum drm_compute_svm_access_mode mode)
{
	int slot = slot_find(dev_ids, dev_id);

	/* attrs_check() gave every device named a slot. */
	if (WARN_ON(slot < 0))
		return;
	a->access[slot] = mode == store->default_access ?
			  DRM_COMPUTE_SVM_MODE_DEFAULT : mode;
}

/* Apply a checked list to @a, in order. */
static void attrs_apply(const struct drm_compute_svm_attr_store *store,
			const struct svm_attr_update *up,
			struct drm_compute_svm_attrs *a)
{
	unsigned int i;

	if (!up->attrs) {
		*a = store->defaults;
		return;
	}
	for (i = 0; i < up->nattr; i++) {
		u32 value = up->attrs[i].value;

		/* Checked by attrs_check(): no default, see enum svm_attr_type. */
		switch ((enum svm_attr_type)up->attrs[i].type) {
		case SVM_ATTR_PREFERRED_LOC:
			a->preferred_loc = value;
			break;
		case SVM_ATTR_PREFETCH_LOC:
			a->prefetch_loc = value;
			break;
		case SVM_ATTR_ACCESS:
			access_set(store, up->dev_ids, a, value,
				   DRM_COMPUTE_SVM_MODE_ACCESS);
			break;
		case SVM_ATTR_ACCESS_IN_PLACE:
			access_set(store, up->dev_ids, a, value,
				   DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE);
			break;
		case SVM_ATTR_NO_ACCESS:
			access_set(store, up->dev_ids, a, value,
				   DRM_COMPUTE_SVM_MODE_NO_ACCESS);
			break;
		case SVM_ATTR_SET_FLAGS:
			a->flags |= value;
			break;
		case SVM_ATTR_CLR_FLAGS:
			a->flags &= ~value;
			break;
		case SVM_ATTR_GRANULARITY:
			a->granularity = value;
			break;
		case SVM_ATTR_TYPES:
			break;
		}
	}
}

/**
 * drm_compute_svm_attr_range_alloc - allocate a node of a store
 *
 * The one allocation of the store, apart so that KUnit can make it fail.
 *
 * Returns: a zeroed node, or NULL.
 */
struct drm_compute_svm_attr_range *drm_compute_svm_attr_range_alloc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(drm_compute_svm_attr_range_alloc);

	return kzalloc(sizeof(struct drm_compute_svm_attr_range),
		       GFP_KERNEL_ACCOUNT);
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_attr_range_alloc);

static void pool_free(struct list_head *pool)
{
	struct drm_compute_svm_attr_range *r, *tmp;

	list_for_each_entry_safe(r, tmp, pool, link) {
		list_del(&r->link);
		kfree(r);
	}
}

static struct drm_compute_svm_attr_range *pool_take(struct svm_attr_update *up)
{
	struct drm_compute_svm_attr_range *r;

	r = list_first_entry(&up->pool, struct drm_compute_svm_attr_range, link);
	list_del(&r->link);
	return r;
}

/*
 * Nodes an update of [@start, @last] needs: one for each end that cuts
 * through a range, one for each gap it fills.
 */
static unsigned int update_nodes(struct drm_compute_svm_attr_store *store,
				 u64 start, u64 last, bool fill_gaps)
{
	struct drm_compute_svm_attr_range *r;
	unsigned int n = 0;
	u64 cur = start;

	for (r = svm_attr_it_iter_first(&store->root, start, last); r;
	     r = svm_attr_it_iter_next(r, start, last)) {
		if (r->start < start)
			n++;
		else if (fill_gaps && r->start > cur)
			n++;
		if (r->last > last)
			n++;
		cur = r->last + 1;
	}
	if (fill_gaps && cur <= last)
		n++;
	return n;
}

/* Cut @r at @addr: @r keeps [start, @addr - 1], @node gets the rest. */
static struct drm_compute_svm_attr_range *
range_split(struct drm_compute_svm_attr_store *store,
	    struct drm_compute_svm_attr_range *r, u64 addr,
	    struct drm_compute_svm_attr_range *node)
{
	node->start = addr;
	node->last = r->last;
	node->attrs = r->attrs;
	svm_attr_it_remove(r, &store->root);
	r->last = addr - 1;
	svm_attr_it_insert(r, &store->root);
	svm_attr_it_insert(node, &store->root);
	return node;
}

static void range_fill(struct drm_compute_svm_attr_store *store,
		       u64 start, u64 last,
		       const struct drm_compute_svm_attrs *attrs,
		       struct drm_compute_svm_attr_range *node)
{
	node->start = start;
	node->last = last;
	node->attrs = *attrs;
	svm_attr_it_insert(node, &store->root);
}

/* Apply @up to [@start, @last], with the nodes update_nodes() counted. */
static void update_apply(struct drm_compute_svm_attr_store *store,
			 u64 start, u64 last, struct svm_attr_update *up)
{
	struct drm_compute_svm_attr_range *r;
	u64 cur = start;

	r = svm_attr_it_iter_first(&store->root, start, last);
	while (r) {
		if (r->start < start)
			r = range_split(store, r, start, pool_take(up));
		else if (up->fill_gaps && r->start > cur)
			range_fill(store, cur, r->start - 1, &up->gap,
				   pool_take(up));
		if (r->last > last)
			range_split(store, r, last + 1, pool_take(up));
		attrs_apply(store, up, &r->attrs);
		cur = r->last + 1;
		r = svm_attr_it_iter_next(r, start, last);
	}
	if (up->fill_gaps && cur <= last)
		range_fill(store, cur, last, &up->gap, pool_take(up));
}

/*
 * Back to the canonical form around [@start, @last], the only part that
 * changed: drop the ranges that hold the defaults, merge neighbours that
 * hold equal attributes.
 */
static void update_normalize(struct drm_compute_svm_attr_store *store,
			     u64 start, u64 last)
{
	struct drm_compute_svm_attr_range *r, *next, *prev = NULL;
	u64 first = start ? start - 1 : 0;

	/* last < va_end, so last + 1 does not wrap. */
	for (r = svm_attr_it_iter_first(&store->root, first, last + 1); r;
	     r = next) {
		next = svm_attr_it_iter_next(r, first, last + 1);
		if (drm_compute_svm_attrs_equal(&r->attrs, &store->defaults)) {
			svm_attr_it_remove(r, &store->root);
			kfree(r);
		} else if (prev && prev->last + 1 == r->start &&
			   drm_compute_svm_attrs_equal(&prev->attrs, &r->attrs)) {
			svm_attr_it_remove(r, &store->root);
			svm_attr_it_remove(prev, &store->root);
			prev->last = r->last;
			svm_attr_it_insert(prev, &store->root);
			kfree(r);
		} else {
			prev = r;
		}
	}
}

static int svm_attr_update(struct drm_compute_svm_attr_store *store,
			   u64 start, u64 last, struct svm_attr_update *up)
{
	unsigned int n = update_nodes(store, start, last, up->fill_gaps);

	INIT_LIST_HEAD(&up->pool);
	while (n--) {
		struct drm_compute_svm_attr_range *r;

		r = drm_compute_svm_attr_range_alloc();
		if (!r) {
			pool_free(&up->pool);
			return -ENOMEM;
		}
		list_add(&r->link, &up->pool);
	}

	/* Nothing below fails. */
	memcpy(store->dev_ids, up->dev_ids, sizeof(store->dev_ids));
	update_apply(store, start, last, up);
	update_normalize(store, start, last);
	WARN_ON(!list_empty(&up->pool));
	pool_free(&up->pool);
	return 0;
}

/**
 * drm_compute_svm_attr_store_init - set up an empty store
 * @store: the store
 * @ops: the driver's callbacks, valid for the store's life
 * @va_start: lowest address covered, page aligned
 * @va_end: end (exclusive) of the addresses covered, page aligned, above
 *	@va_start
 * @default_access: what a device may do where no attribute names it:
 *	%DRM_COMPUTE_SVM_MODE_ACCESS, _ACCESS_IN_PLACE or _NO_ACCESS
 *
 * Every address of [@va_start, @va_end) starts with the defaults (DOC: SVM
 * attributes). Name the driver's lock afterwards with
 * drm_compute_svm_attr_store_set_lock().
 *
 * Returns: 0, or -EINVAL if an argument breaks a rule above.
 */
int drm_compute_svm_attr_store_init(struct drm_compute_svm_attr_store *store,
				    const struct drm_compute_svm_attr_ops *ops,
				    u64 va_start, u64 va_end,
				    enum drm_compute_svm_access_mode default_access)
{
	if (!ops || !ops->device_valid || va_start >= va_end ||
	    !IS_ALIGNED(va_start, PAGE_SIZE) || !IS_ALIGNED(va_end, PAGE_SIZE) ||
	    !mode_valid(default_access))
		return -EINVAL;

	memset(store, 0, sizeof(*store));
	store->root = RB_ROOT_CACHED;
	store->ops = ops;
	store->va_start = va_start;
	store->va_end = va_end;
	store->defaults.preferred_loc = DRM_COMPUTE_SVM_LOCATION_UNDEFINED;
	store->defaults.prefetch_loc = DRM_COMPUTE_SVM_LOCATION_UNDEFINED;
	store->defaults.flags = DRM_COMPUTE_SVM_FLAGS_DEFAULT;
	store->defaults.granularity = DRM_COMPUTE_SVM_GRANULARITY_DEFAULT;
	store->default_access = default_access;
	return 0;
}
EXPORT_SYMBOL(drm_compute_svm_attr_store_init);

/**
 * drm_compute_svm_attr_store_fini - free every range of a store
 * @store: the store
 *
 * The store is empty afterwards (every address holds the defaults again)
 * and may be used again or freed.
 *
 * Context: no other user of the store left; the lock is not checked.
 */
void drm_compute_svm_attr_store_fini(struct drm_compute_svm_attr_store *store)
{
	struct drm_compute_svm_attr_range *r, *next;

	rbtree_postorder_for_each_entry_safe(r, next, &store->root.rb_root, rb)
		kfree(r);
	store->root = RB_ROOT_CACHED;
}
EXPORT_SYMBOL(drm_compute_svm_attr_store_fini);

/**
 * drm_compute_svm_attr_count - ranges whose attributes differ from the
 * defaults
 * @store: the store
 *
 * Adjacent addresses with equal attributes are one range (the store's
 * canonical form), so the count is what a checkpoint of the store saves.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: the number of ranges.
 */
u32 drm_compute_svm_attr_count(struct drm_compute_svm_attr_store *store)
{
	struct rb_node *node;
	u32 n = 0;

	svm_attr_assert_held(store, false);
	for (node = rb_first_cached(&store->root); node; node = rb_next(node))
		n++;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_attr_count);

/**
 * drm_compute_svm_attr_for_each - visit the ranges whose attributes are not
 * the defaults
 * @store: the store
 * @fn: called for each range, in address order; a value other than 0
 *	stops the walk; must not change the store
 * @arg: passed to @fn
 *
 * The ranges drm_compute_svm_attr_count() counts: what a checkpoint saves.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: 0, or what @fn returned when it stopped the walk.
 */
int drm_compute_svm_attr_for_each(struct drm_compute_svm_attr_store *store,
				  int (*fn)(void *arg, u64 start, u64 size,
					    const struct drm_compute_svm_attrs *attrs),
				  void *arg)
{
	struct rb_node *node;
	int ret;

	svm_attr_assert_held(store, false);
	for (node = rb_first_cached(&store->root); node; node = rb_next(node)) {
		struct drm_compute_svm_attr_range *r =
			rb_entry(node, struct drm_compute_svm_attr_range, rb);

		ret = fn(arg, r->start, r->last - r->start + 1, &r->attrs);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_attr_for_each);

static u32 access_type(enum drm_compute_svm_access_mode mode);

/**
 * drm_compute_svm_attr_list - the attributes that make a piece's
 * @store: the store @attrs belongs to
 * @attrs: a piece's attributes (drm_compute_svm_attr_for_each())
 * @out: room for %DRM_COMPUTE_CRIU_SVM_ATTRS attributes
 *
 * Writes the list that drm_compute_svm_attr_set(), on addresses holding
 * the defaults of a store with the same default access, turns into
 * @attrs: both locations, the flags set and those cleared, the
 * granularity, and the access of each device whose mode is not the
 * default. A field of &struct drm_compute_svm_attrs this list forgets
 * fails the round trip of the attribute store's KUnit test.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: the number of attributes written.
 */
u32 drm_compute_svm_attr_list(const struct drm_compute_svm_attr_store *store,
			      const struct drm_compute_svm_attrs *attrs,
			      struct drm_compute_svm_attr *out)
{
	u32 n = 0, i;

	BUILD_BUG_ON(DRM_COMPUTE_CRIU_SVM_ATTRS < 5 + DRM_COMPUTE_SVM_MAX_DEVICES);
	svm_attr_assert_held(store, false);
	out[n++] = (struct drm_compute_svm_attr){
		DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, attrs->preferred_loc };
	out[n++] = (struct drm_compute_svm_attr){
		DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, attrs->prefetch_loc };
	out[n++] = (struct drm_compute_svm_attr){
		DRM_COMPUTE_SVM_ATTR_SET_FLAGS, attrs->flags };
	out[n++] = (struct drm_compute_svm_attr){
		DRM_COMPUTE_SVM_ATTR_CLR_FLAGS,
		~attrs->flags & DRM_COMPUTE_SVM_FLAGS_KNOWN };
	out[n++] = (struct drm_compute_svm_attr){
		DRM_COMPUTE_SVM_ATTR_GRANULARITY, attrs->granularity };
	for (i = 0; i < DRM_COMPUTE_SVM_MAX_DEVICES; i++) {
		if (!store->dev_ids[i] ||
		    attrs->access[i] == DRM_COMPUTE_SVM_MODE_DEFAULT)
			continue;
		out[n++] = (struct drm_compute_svm_attr){
			access_type(attrs->access[i]), store->dev_ids[i] };
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_attr_list);

/**
 * drm_compute_svm_attr_span - the smallest interval holding every attribute
 * @store: the store
 * @start: set to the first address that has attributes
 * @end: set to the end of the last range that has attributes
 *
 * What an SVM VM must watch for munmap (drm_compute_svm.c): outside it
 * nothing has attributes to lose.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: false, with nothing set, when no address has attributes.
 */
bool drm_compute_svm_attr_span(struct drm_compute_svm_attr_store *store,
			       u64 *start, u64 *end)
{
	struct rb_node *first = rb_first_cached(&store->root);

	svm_attr_assert_held(store, false);
	if (!first)
		return false;
	*start = rb_entry(first, struct drm_compute_svm_attr_range, rb)->start;
	/* The root's augmented value is the largest last address of all. */
	*end = rb_entry(store->root.rb_root.rb_node, struct drm_compute_svm_attr_range,
			rb)->__subtree_last + 1;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_svm_attr_span);

/**
 * drm_compute_svm_attr_set - set attributes on a range
 * @store: the store
 * @start: first address, page aligned
 * @size: bytes, page aligned, not 0; [@start, @start + @size) within the
 *	store's limits
 * @attrs: the attributes, applied in this order: a later location,
 *	granularity or access for the same device replaces an earlier one;
 *	flags are set and cleared in turn
 * @nattr: entries of @attrs; 0 checks the range and changes nothing
 *
 * Each attribute must be of a known type; a location must be
 * %DRM_COMPUTE_SVM_LOCATION_SYSMEM, _UNDEFINED or a device id
 * &drm_compute_svm_attr_ops.device_valid accepts for it; an access type
 * must name such a device, and the store must have a slot for it (at most
 * %DRM_COMPUTE_SVM_MAX_DEVICES devices over its life); flags must be
 * DRM_COMPUTE_SVM_FLAG_* bits; a granularity at most
 * %DRM_COMPUTE_SVM_GRANULARITY_MAX. Addresses outside the range keep
 * their attributes, even within a range the update splits.
 *
 * Context: the store's lock held exclusively. May sleep: allocates with
 * GFP_KERNEL_ACCOUNT.
 *
 * Returns: 0; -EINVAL if the range or an attribute breaks a rule above;
 * -ENOMEM. On error the store is unchanged.
 */
int drm_compute_svm_attr_set(struct drm_compute_svm_attr_store *store,
			     u64 start, u64 size,
			     const struct drm_compute_svm_attr *attrs,
			     unsigned int nattr)
{
	struct svm_attr_update up = {
		.attrs = attrs,
		.nattr = nattr,
	};
	u64 last;
	int ret;

	svm_attr_assert_held(store, true);

	ret = range_check(store, start, size, &last);
	if (ret)
		return ret;
	memcpy(up.dev_ids, store->dev_ids, sizeof(up.dev_ids));
	ret = attrs_check(store, attrs, nattr, up.dev_ids);
	if (ret || !nattr)
		return ret;

	up.gap = store->defaults;
	attrs_apply(store, &up, &up.gap);
	up.fill_gaps = !drm_compute_svm_attrs_equal(&up.gap, &store->defaults);
	return svm_attr_update(store, start, last, &up);
}
EXPORT_SYMBOL(drm_compute_svm_attr_set);

/**
 * drm_compute_svm_attr_check - check a list of attributes, changing nothing
 * @store: the store
 * @attrs: the attributes
 * @nattr: entries of @attrs
 * @set: true for a list to set: every rule of drm_compute_svm_attr_set()
 *	about the attributes, device slots included; false for a list to
 *	get: those of drm_compute_svm_attr_get()
 *
 * The range is not looked at. A caller rejects a bad list with this before
 * anything else it does for the call (look at the address space, say);
 * the set or get that follows under the same hold of the lock gives the
 * same answer about the list.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: 0, or -EINVAL if an attribute breaks a rule.
 */
int drm_compute_svm_attr_check(struct drm_compute_svm_attr_store *store,
			       const struct drm_compute_svm_attr *attrs,
			       unsigned int nattr, bool set)
{
	u32 dev_ids[DRM_COMPUTE_SVM_MAX_DEVICES];

	svm_attr_assert_held(store, false);

	memcpy(dev_ids, store->dev_ids, sizeof(dev_ids));
	return attrs_check(store, attrs, nattr, set ? dev_ids : NULL);
}
EXPORT_SYMBOL(drm_compute_svm_attr_check);

/**
 * drm_compute_svm_attr_clear - drop the attributes of a range
 * @store: the store
 * @start: first address, page aligned
 * @size: bytes, page aligned, not 0, @start + @size not wrapping
 *
 * Every address of the range holds the defaults afterwards; addresses
 * outside it keep their attributes. The parts of the range outside the
 * store's limits hold nothing and are ignored, so a driver can pass an
 * unmapped range as it is.
 *
 * Context: the store's lock held exclusively. May sleep: clearing the
 * inside of one range allocates with GFP_KERNEL_ACCOUNT; no other case
 * allocates.
 *
 * Returns: 0; -EINVAL for a range that breaks a rule above; -ENOMEM. On
 * error the store is unchanged.
 */
int drm_compute_svm_attr_clear(struct drm_compute_svm_attr_store *store,
			       u64 start, u64 size)
{
	struct svm_attr_update up = {};
	u64 end;

	svm_attr_assert_held(store, true);

	if (!size || !IS_ALIGNED(start, PAGE_SIZE) ||
	    !IS_ALIGNED(size, PAGE_SIZE) || check_add_overflow(start, size, &end))
		return -EINVAL;
	start = max(start, store->va_start);
	end = min(end, store->va_end);
	if (start >= end)
		return 0;

	memcpy(up.dev_ids, store->dev_ids, sizeof(up.dev_ids));
	return svm_attr_update(store, start, end - 1, &up);
}
EXPORT_SYMBOL(drm_compute_svm_attr_clear);

/* Visit every piece of [@start, @last]: ranges clipped to it, and gaps. */
static int svm_attr_walk(struct drm_compute_svm_attr_store *store,
			 u64 start, u64 last,
			 int (*fn)(void *arg, u64 start, u64 size,
				   const struct drm_compute_svm_attrs *attrs),
			 void *arg)
{
	struct drm_compute_svm_attr_range *r;
	u64 cur = start;
	int ret;

	for (r = svm_attr_it_iter_first(&store->root, start, last); r;
	     r = svm_attr_it_iter_next(r, start, last)) {
		u64 s = max(r->start, start), l = min(r->last, last);

		if (s > cur) {
			ret = fn(arg, cur, s - cur, &store->defaults);
			if (ret)
				return ret;
		}
		ret = fn(arg, s, l - s + 1, &r->attrs);
		if (ret)
			return ret;
		cur = l + 1;
	}
	if (cur <= last)
		return fn(arg, cur, last - cur + 1, &store->defaults);
	return 0;
}

/**
 * drm_compute_svm_attr_walk - visit the attributes of a range piece by piece
 * @store: the store
 * @start: first address, page aligned
 * @size: bytes, page aligned, not 0, within the store's limits
 * @fn: called for each piece, in address order, with its first address,
 *	its size and its attributes (the defaults for an address never set);
 *	must not change the store; a value other than 0 stops the walk
 * @arg: passed to @fn
 *
 * The pieces cover the range exactly. Two consecutive pieces never have
 * equal attributes (the store's canonical form), so a prefetch, say, gets
 * each part to migrate in one call.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: 0 once every piece was visited, what @fn returned if it
 * stopped the walk, or -EINVAL for a range that breaks a rule above.
 */
int drm_compute_svm_attr_walk(struct drm_compute_svm_attr_store *store,
			      u64 start, u64 size,
			      int (*fn)(void *arg, u64 start, u64 size,
					const struct drm_compute_svm_attrs *attrs),
			      void *arg)
{
	u64 last;
	int ret;

	svm_attr_assert_held(store, false);

	ret = range_check(store, start, size, &last);
	if (ret)
		return ret;
	return svm_attr_walk(store, start, last, fn, arg);
}
EXPORT_SYMBOL(drm_compute_svm_attr_walk);

/**
 * drm_compute_svm_attrs_access - a device's access mode in a set of
 * attributes
 * @store: the store @attrs belongs to
 * @attrs: attributes from drm_compute_svm_attr_lookup() or a walk
 * @dev_id: the device
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: %DRM_COMPUTE_SVM_MODE_ACCESS, _ACCESS_IN_PLACE or _NO_ACCESS:
 * the mode set for @dev_id, else the store's default.
 */
enum drm_compute_svm_access_mode
drm_compute_svm_attrs_access(const struct drm_compute_svm_attr_store *store,
			     const struct drm_compute_svm_attrs *attrs,
			     u32 dev_id)
{
	int slot = dev_id ? slot_find(store->dev_ids, dev_id) : -ENOENT;

	if (slot < 0 || attrs->access[slot] == DRM_COMPUTE_SVM_MODE_DEFAULT)
		return store->default_access;
	return attrs->access[slot];
}
EXPORT_SYMBOL(drm_compute_svm_attrs_access);

/**
 * drm_compute_svm_attr_lookup - the attributes at an address
 * @store: the store
 * @addr: the address (a device's faulting address, say)
 * @start: if not NULL, set to the first address of the piece holding
 *	@addr: the largest range around it with the same attributes
 * @size: if not NULL, set to the size of that piece in bytes
 *
 * Context: the store's lock held, in any mode; the attributes returned
 * stay valid until the store next changes.
 *
 * Returns: the attributes (the store's defaults if @addr was never set),
 * or NULL if @addr is outside the store's limits.
 */
const struct drm_compute_svm_attrs *
drm_compute_svm_attr_lookup(struct drm_compute_svm_attr_store *store, u64 addr,
			    u64 *start, u64 *size)
{
	const struct drm_compute_svm_attrs *attrs = &store->defaults;
	struct rb_node *node = store->root.rb_root.rb_node;
	u64 s = store->va_start, l = store->va_end - 1;

	svm_attr_assert_held(store, false);

	if (addr < store->va_start || addr >= store->va_end)
		return NULL;

	/* The range holding @addr, or the ranges on each side of its gap. */
	while (node) {
		struct drm_compute_svm_attr_range *r =
			rb_entry(node, struct drm_compute_svm_attr_range, rb);

		if (addr < r->start) {
			l = r->start - 1;
			node = node->rb_left;
		} else if (addr > r->last) {
			s = r->last + 1;
			node = node->rb_right;
		} else {
			s = r->start;
			l = r->last;
			attrs = &r->attrs;
			break;
		}
	}
	if (start)
		*start = s;
	if (size)
		*size = l - s + 1;
	return attrs;
}
EXPORT_SYMBOL(drm_compute_svm_attr_lookup);

struct svm_attr_get {
	struct drm_compute_svm_attr_store *store;
	struct drm_compute_svm_attr *attrs;
	unsigned int nattr;
	bool first;
};

static u32 access_type(enum drm_compute_svm_access_mode mode)
{
	switch (mode) {
	case DRM_COMPUTE_SVM_MODE_ACCESS:
		return DRM_COMPUTE_SVM_ATTR_ACCESS;
	case DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE:
		return DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE;
	default:
		return DRM_COMPUTE_SVM_ATTR_NO_ACCESS;
	}
}

/* Fold one piece into the answer of a get, attribute by attribute. */
static int get_piece(void *arg, u64 start, u64 size,
		     const struct drm_compute_svm_attrs *a)
{
	struct svm_attr_get *g = arg;
	unsigned int i;

	for (i = 0; i < g->nattr; i++) {
		struct drm_compute_svm_attr *attr = &g->attrs[i];
		u32 v;

		/* Checked by attrs_check(): no default, see enum svm_attr_type. */
		switch ((enum svm_attr_type)attr->type) {
		case SVM_ATTR_PREFERRED_LOC:
		case SVM_ATTR_PREFETCH_LOC:
			v = attr->type == DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC ?
			    a->preferred_loc : a->prefetch_loc;
			if (!g->first && attr->value != v)
				v = DRM_COMPUTE_SVM_LOCATION_UNDEFINED;
			attr->value = v;
			break;
		case SVM_ATTR_ACCESS:
		case SVM_ATTR_ACCESS_IN_PLACE:
		case SVM_ATTR_NO_ACCESS:
			v = access_type(drm_compute_svm_attrs_access(g->store, a,
								     attr->value));
			if (!g->first && attr->type != v)
				v = DRM_COMPUTE_SVM_ATTR_NO_ACCESS;
			attr->type = v;
			break;
		case SVM_ATTR_SET_FLAGS:
			v = a->flags;
			attr->value = g->first ? v : attr->value & v;
			break;
		case SVM_ATTR_CLR_FLAGS:
			v = ~a->flags & DRM_COMPUTE_SVM_FLAGS_KNOWN;
			attr->value = g->first ? v : attr->value & v;
			break;
		case SVM_ATTR_GRANULARITY:
			v = a->granularity;
			attr->value = g->first ? v : min(attr->value, v);
			break;
		case SVM_ATTR_TYPES:
			break;
		}
	}
	g->first = false;
	return 0;
}

/**
 * drm_compute_svm_attr_get - report attributes over a range
 * @store: the store
 * @start: first address, page aligned
 * @size: bytes, page aligned, not 0, within the store's limits
 * @attrs: in: the attributes asked for, of known types; for the access
 *	types the value names a device &drm_compute_svm_attr_ops.device_valid
 *	accepts; out: the answers, as DOC: SVM attributes describes (for an
 *	access type, the type is replaced by the device's access)
 * @nattr: entries of @attrs
 *
 * Addresses never set count with their defaults. The value of a location,
 * flags or granularity attribute is ignored on input.
 *
 * Context: the store's lock held, in any mode.
 *
 * Returns: 0, or -EINVAL if the range or an attribute breaks a rule above;
 * then @attrs is unchanged.
 */
int drm_compute_svm_attr_get(struct drm_compute_svm_attr_store *store,
			     u64 start, u64 size,
			     struct drm_compute_svm_attr *attrs,
			     unsigned int nattr)
{
	struct svm_attr_get g = {
		.store = store,
		.attrs = attrs,
		.nattr = nattr,
		.first = true,
	};
	u64 last;
	int ret;

	svm_attr_assert_held(store, false);

	ret = range_check(store, start, size, &last);
	if (ret)
		return ret;
	ret = attrs_check(store, attrs, nattr, NULL);
	if (ret)
		return ret;
	/* Checked: from here on nothing fails, the answers build in place. */
	return svm_attr_walk(store, start, last, get_piece, &g);
}
EXPORT_SYMBOL(drm_compute_svm_attr_get);
