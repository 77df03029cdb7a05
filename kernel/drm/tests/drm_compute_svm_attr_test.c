// SPDX-License-Identifier: MIT
/*
 * KUnit tests of the DRM compute helpers' SVM attribute store: split and
 * merge on partial updates, the canonical form, every rule of a set (each
 * leaving the store unchanged), get over uniform and mixed ranges, lookup,
 * walk, clear, allocation failures, and a randomized run against a
 * page-by-page model.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_compute_svm.h>

#include "../drm_compute_svm_internal.h"

#define PG(n)		((u64)(n) << PAGE_SHIFT)
#define VA_END_PG	BIT(20)
#define VA_START	PG(16)
#define VA_END		PG(VA_END_PG)
/* Devices 1..LOC_DEVICES have memory; devices 1..DEVICES may map. */
#define LOC_DEVICES	4
#define DEVICES		40

#define UNDEF		DRM_COMPUTE_SVM_LOCATION_UNDEFINED
#define SYSMEM		DRM_COMPUTE_SVM_LOCATION_SYSMEM

#define A_PREF		DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC
#define A_PREFETCH	DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC
#define A_ACCESS	DRM_COMPUTE_SVM_ATTR_ACCESS
#define A_IN_PLACE	DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE
#define A_NO_ACCESS	DRM_COMPUTE_SVM_ATTR_NO_ACCESS
#define A_SET		DRM_COMPUTE_SVM_ATTR_SET_FLAGS
#define A_CLR		DRM_COMPUTE_SVM_ATTR_CLR_FLAGS
#define A_GRAN		DRM_COMPUTE_SVM_ATTR_GRANULARITY

struct svm_test {
	struct drm_compute_svm_attr_store store;
	/* Serialises the store, as a driver's lock would. */
	struct mutex lock;
	/* Allocations the stubbed allocator makes before failing. */
	int allocs_left;
};

static bool t_device_valid(struct drm_compute_svm_attr_store *store,
			   u32 type, u32 dev_id)
{
	if (type == A_PREF || type == A_PREFETCH)
		return dev_id <= LOC_DEVICES;
	return dev_id <= DEVICES;
}

static const struct drm_compute_svm_attr_ops t_ops = {
	.device_valid = t_device_valid,
};

static int t_store_init(struct kunit *test,
			enum drm_compute_svm_access_mode default_access)
{
	struct svm_test *t = test->priv;
	int ret;

	ret = drm_compute_svm_attr_store_init(&t->store, &t_ops, VA_START,
					      VA_END, default_access);
	if (!ret)
		drm_compute_svm_attr_store_set_lock(&t->store, &t->lock);
	return ret;
}

static int svm_test_init(struct kunit *test)
{
	struct svm_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	mutex_init(&t->lock);
	test->priv = t;
	KUNIT_ASSERT_EQ(test, t_store_init(test, DRM_COMPUTE_SVM_MODE_ACCESS), 0);
	return 0;
}

static void svm_test_exit(struct kunit *test)
{
	struct svm_test *t = test->priv;

	if (!t)
		return;
	drm_compute_svm_attr_store_fini(&t->store);
	mutex_destroy(&t->lock);
}

/* Entry points under the lock; nothing asserts while it is held. */
static int t_set(struct kunit *test, u64 start, u64 size,
		 const struct drm_compute_svm_attr *attrs, unsigned int nattr)
{
	struct svm_test *t = test->priv;
	int ret;

	mutex_lock(&t->lock);
	ret = drm_compute_svm_attr_set(&t->store, start, size, attrs, nattr);
	mutex_unlock(&t->lock);
	return ret;
}

static int t_check(struct kunit *test, const struct drm_compute_svm_attr *attrs,
		   unsigned int nattr, bool set)
{
	struct svm_test *t = test->priv;
	int ret;

	mutex_lock(&t->lock);
	ret = drm_compute_svm_attr_check(&t->store, attrs, nattr, set);
	mutex_unlock(&t->lock);
	return ret;
}

static int t_set_loc(struct kunit *test, u32 first_pg, u32 end_pg, u32 loc)
{
	const struct drm_compute_svm_attr a = { A_PREF, loc };

	return t_set(test, PG(first_pg), PG(end_pg - first_pg), &a, 1);
}

static int t_get(struct kunit *test, u64 start, u64 size,
		 struct drm_compute_svm_attr *attrs, unsigned int nattr)
{
	struct svm_test *t = test->priv;
	int ret;

	mutex_lock(&t->lock);
	ret = drm_compute_svm_attr_get(&t->store, start, size, attrs, nattr);
	mutex_unlock(&t->lock);
	return ret;
}

static int t_clear(struct kunit *test, u64 start, u64 size)
{
	struct svm_test *t = test->priv;
	int ret;

	mutex_lock(&t->lock);
	ret = drm_compute_svm_attr_clear(&t->store, start, size);
	mutex_unlock(&t->lock);
	return ret;
}

static bool t_lookup(struct kunit *test, u64 addr,
		     struct drm_compute_svm_attrs *out, u64 *start, u64 *size)
{
	struct svm_test *t = test->priv;
	const struct drm_compute_svm_attrs *a;

	mutex_lock(&t->lock);
	a = drm_compute_svm_attr_lookup(&t->store, addr, start, size);
	if (a)
		*out = *a;
	mutex_unlock(&t->lock);
	return !!a;
}

/* A device's access mode at an address, -1 outside the store. */
static int t_access(struct kunit *test, u64 addr, u32 dev_id)
{
	struct svm_test *t = test->priv;
	const struct drm_compute_svm_attrs *a;
	int mode = -1;

	mutex_lock(&t->lock);
	a = drm_compute_svm_attr_lookup(&t->store, addr, NULL, NULL);
	if (a)
		mode = drm_compute_svm_attrs_access(&t->store, a, dev_id);
	mutex_unlock(&t->lock);
	return mode;
}

/* The store's own comparison, which attrs_equal_every_byte checks. */
static bool t_attrs_equal(const struct drm_compute_svm_attrs *a,
			  const struct drm_compute_svm_attrs *b)
{
	return drm_compute_svm_attrs_equal(a, b);
}

static struct drm_compute_svm_attr_range *t_range(struct rb_node *node)
{
	return node ? rb_entry(node, struct drm_compute_svm_attr_range, rb) : NULL;
}

static unsigned int t_num_ranges(struct kunit *test)
{
	struct svm_test *t = test->priv;
	struct rb_node *node;
	unsigned int n = 0;

	for (node = rb_first_cached(&t->store.root); node; node = rb_next(node))
		n++;
	return n;
}

/* Everything a store holds, as text: equal dumps, equal stores. */
static char *t_dump(struct kunit *test)
{
	struct svm_test *t = test->priv;
	const size_t len = 4096;
	char *buf = kunit_kzalloc(test, len, GFP_KERNEL);
	struct rb_node *node;
	size_t off = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	off += scnprintf(buf + off, len - off, "ids");
	for (i = 0; i < DRM_COMPUTE_SVM_MAX_DEVICES; i++)
		off += scnprintf(buf + off, len - off, " %x", t->store.dev_ids[i]);
	for (node = rb_first_cached(&t->store.root); node; node = rb_next(node)) {
		struct drm_compute_svm_attr_range *r = t_range(node);

		off += scnprintf(buf + off, len - off, "\n[%llx %llx] %x %x %x %u ",
				 r->start, r->last, r->attrs.preferred_loc,
				 r->attrs.prefetch_loc, r->attrs.flags,
				 r->attrs.granularity);
		for (i = 0; i < DRM_COMPUTE_SVM_MAX_DEVICES; i++)
			off += scnprintf(buf + off, len - off, "%u",
					 r->attrs.access[i]);
	}
	return buf;
}

/* The interval tree's augmented value is right in every node. */
static u64 t_check_subtree(struct kunit *test, struct rb_node *node)
{
	struct drm_compute_svm_attr_range *r = t_range(node);
	u64 last;

	if (!r)
		return 0;
	last = max3(r->last, t_check_subtree(test, node->rb_left),
		    t_check_subtree(test, node->rb_right));
	KUNIT_EXPECT_EQ(test, r->__subtree_last, last);
	return last;
}

/*
 * The canonical form: page-granular ranges within the limits, in order,
 * none holding the defaults, no two adjacent ones equal.
 */
static void expect_canonical(struct kunit *test)
{
	struct svm_test *t = test->priv;
	struct drm_compute_svm_attr_range *r, *prev = NULL;
	struct rb_node *node;
	u32 n = 0;

	KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&t->store.root),
			    rb_first(&t->store.root.rb_root));
	t_check_subtree(test, t->store.root.rb_root.rb_node);
	for (node = rb_first_cached(&t->store.root); node; node = rb_next(node)) {
		r = t_range(node);
		n++;
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED(r->start, PAGE_SIZE));
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED(r->last + 1, PAGE_SIZE));
		KUNIT_EXPECT_LT(test, r->start, r->last);
		KUNIT_EXPECT_GE(test, r->start, t->store.va_start);
		KUNIT_EXPECT_LT(test, r->last, t->store.va_end);
		KUNIT_EXPECT_FALSE(test, t_attrs_equal(&r->attrs, &t->store.defaults));
		if (prev) {
			KUNIT_EXPECT_LT(test, prev->last, r->start);
			if (prev->last + 1 == r->start)
				KUNIT_EXPECT_FALSE(test, t_attrs_equal(&prev->attrs,
								       &r->attrs));
		}
		prev = r;
	}
	mutex_lock(&t->lock);
	KUNIT_EXPECT_EQ(test, drm_compute_svm_attr_count(&t->store), n);
	mutex_unlock(&t->lock);
}

/* A range of pages [start, end) holding preferred location @loc. */
struct piece {
	u32 start;
	u32 end;
	u32 loc;
};

/* The ranges are @exp (up to an empty piece), nothing but @loc set. */
static void expect_layout(struct kunit *test, const struct piece *exp)
{
	struct svm_test *t = test->priv;
	struct drm_compute_svm_attrs want = t->store.defaults;
	struct rb_node *node = rb_first_cached(&t->store.root);
	unsigned int i;

	for (i = 0; exp[i].end; i++, node = rb_next(node)) {
		struct drm_compute_svm_attr_range *r = t_range(node);

		KUNIT_ASSERT_NOT_NULL_MSG(test, r, "range %u missing", i);
		KUNIT_EXPECT_EQ_MSG(test, r->start, PG(exp[i].start), "range %u", i);
		KUNIT_EXPECT_EQ_MSG(test, r->last, PG(exp[i].end) - 1, "range %u", i);
		want.preferred_loc = exp[i].loc;
		KUNIT_EXPECT_TRUE_MSG(test, t_attrs_equal(&r->attrs, &want),
				      "range %u", i);
	}
	KUNIT_EXPECT_NULL_MSG(test, node, "more than %u ranges", i);
	mutex_lock(&t->lock);
	KUNIT_EXPECT_EQ(test, drm_compute_svm_attr_count(&t->store), i);
	mutex_unlock(&t->lock);
}

static int t_init_once(const struct drm_compute_svm_attr_ops *ops,
		       u64 va_start, u64 va_end,
		       enum drm_compute_svm_access_mode default_access)
{
	struct drm_compute_svm_attr_store s;
	int ret;

	ret = drm_compute_svm_attr_store_init(&s, ops, va_start, va_end,
					      default_access);
	if (!ret)
		drm_compute_svm_attr_store_fini(&s);
	return ret;
}

static void init_rejects(struct kunit *test)
{
	const struct drm_compute_svm_attr_ops no_callback = {};
	const enum drm_compute_svm_access_mode access = DRM_COMPUTE_SVM_MODE_ACCESS;

	KUNIT_EXPECT_EQ(test, t_init_once(NULL, VA_START, VA_END, access), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&no_callback, VA_START, VA_END, access),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_END, VA_START, access), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_START, VA_START, access), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_START + 1, VA_END, access),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_START, VA_END - 1, access),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_START, VA_END,
					  DRM_COMPUTE_SVM_MODE_DEFAULT), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_START, VA_END,
					  (enum drm_compute_svm_access_mode)4),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, VA_START, VA_END,
					  DRM_COMPUTE_SVM_MODE_NO_ACCESS), 0);
	KUNIT_EXPECT_EQ(test, t_init_once(&t_ops, 0, U64_MAX & PAGE_MASK,
					  DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE), 0);
}

/* An empty store: KFD's defaults everywhere, one piece over all of it. */
static void defaults(struct kunit *test)
{
	struct drm_compute_svm_attr get[] = {
		{ A_PREF, 7 }, { A_PREFETCH, 7 }, { A_SET, 7 }, { A_CLR, 7 },
		{ A_GRAN, 7 }, { A_NO_ACCESS, 1 }, { A_IN_PLACE, DEVICES },
	};
	struct drm_compute_svm_attrs a;
	u64 start, size;

	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(100), &a, &start, &size));
	KUNIT_EXPECT_EQ(test, a.preferred_loc, UNDEF);
	KUNIT_EXPECT_EQ(test, a.prefetch_loc, UNDEF);
	KUNIT_EXPECT_EQ(test, a.flags, DRM_COMPUTE_SVM_FLAG_HOST_ACCESS |
				       DRM_COMPUTE_SVM_FLAG_COHERENT);
	KUNIT_EXPECT_EQ(test, a.granularity, 9);
	KUNIT_EXPECT_EQ(test, start, VA_START);
	KUNIT_EXPECT_EQ(test, size, VA_END - VA_START);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(100), 1), DRM_COMPUTE_SVM_MODE_ACCESS);
	KUNIT_EXPECT_EQ(test, t_access(test, VA_END - 1, 2), DRM_COMPUTE_SVM_MODE_ACCESS);

	KUNIT_ASSERT_EQ(test, t_get(test, VA_START, VA_END - VA_START, get,
				    ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, UNDEF);
	KUNIT_EXPECT_EQ(test, get[1].value, UNDEF);
	KUNIT_EXPECT_EQ(test, get[2].value, DRM_COMPUTE_SVM_FLAGS_DEFAULT);
	KUNIT_EXPECT_EQ(test, get[3].value, DRM_COMPUTE_SVM_FLAGS_KNOWN &
					    ~DRM_COMPUTE_SVM_FLAGS_DEFAULT);
	KUNIT_EXPECT_EQ(test, get[4].value, DRM_COMPUTE_SVM_GRANULARITY_DEFAULT);
	KUNIT_EXPECT_EQ(test, get[5].type, A_ACCESS);
	KUNIT_EXPECT_EQ(test, get[5].value, 1);
	KUNIT_EXPECT_EQ(test, get[6].type, A_ACCESS);
	KUNIT_EXPECT_EQ(test, get[6].value, DEVICES);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 0);
}

/* Every attribute type set on one range and read back. */
static void get_uniform(struct kunit *test)
{
	const struct drm_compute_svm_attr set[] = {
		{ A_PREF, 2 }, { A_PREFETCH, SYSMEM },
		{ A_IN_PLACE, 3 }, { A_NO_ACCESS, 4 },
		{ A_SET, DRM_COMPUTE_SVM_FLAG_GPU_RO | DRM_COMPUTE_SVM_FLAG_GPU_EXEC },
		{ A_CLR, DRM_COMPUTE_SVM_FLAG_COHERENT },
		{ A_GRAN, 4 },
	};
	const u32 flags = DRM_COMPUTE_SVM_FLAG_HOST_ACCESS |
			  DRM_COMPUTE_SVM_FLAG_GPU_RO |
			  DRM_COMPUTE_SVM_FLAG_GPU_EXEC;
	struct drm_compute_svm_attr get[] = {
		{ A_PREF, 0 }, { A_PREFETCH, 0x1234 },
		{ A_ACCESS, 3 }, { A_ACCESS, 4 }, { A_NO_ACCESS, 5 },
		{ A_IN_PLACE, 3 },
		{ A_SET, 0 }, { A_CLR, 0 }, { A_GRAN, 0 },
	};
	struct drm_compute_svm_attrs a;

	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(100), set, ARRAY_SIZE(set)), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 1);
	expect_canonical(test);

	KUNIT_ASSERT_EQ(test, t_get(test, PG(120), PG(50), get, ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, 2);
	KUNIT_EXPECT_EQ(test, get[1].value, SYSMEM);
	KUNIT_EXPECT_EQ(test, get[2].type, A_IN_PLACE);
	KUNIT_EXPECT_EQ(test, get[2].value, 3);
	KUNIT_EXPECT_EQ(test, get[3].type, A_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, get[4].type, A_ACCESS);
	KUNIT_EXPECT_EQ(test, get[5].type, A_IN_PLACE);
	KUNIT_EXPECT_EQ(test, get[6].value, flags);
	KUNIT_EXPECT_EQ(test, get[7].value, DRM_COMPUTE_SVM_FLAGS_KNOWN & ~flags);
	KUNIT_EXPECT_EQ(test, get[8].value, 4);

	/* The same through lookup, at both ends of the range. */
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(100), &a, NULL, NULL));
	KUNIT_EXPECT_EQ(test, a.preferred_loc, 2);
	KUNIT_EXPECT_EQ(test, a.prefetch_loc, SYSMEM);
	KUNIT_EXPECT_EQ(test, a.flags, flags);
	KUNIT_EXPECT_EQ(test, a.granularity, 4);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(200) - 1, 3),
			DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(200) - 1, 4),
			DRM_COMPUTE_SVM_MODE_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(200) - 1, 5),
			DRM_COMPUTE_SVM_MODE_ACCESS);
	/* And nothing outside it. */
	KUNIT_EXPECT_EQ(test, t_access(test, PG(200), 3), DRM_COMPUTE_SVM_MODE_ACCESS);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(100) - 1, 4), DRM_COMPUTE_SVM_MODE_ACCESS);
}

/* A list applies in order; nothing to apply changes nothing. */
static void set_in_order(struct kunit *test)
{
	const struct drm_compute_svm_attr set_clr[] = {
		{ A_SET, DRM_COMPUTE_SVM_FLAG_GPU_RO },
		{ A_CLR, DRM_COMPUTE_SVM_FLAG_GPU_RO },
		{ A_PREF, 1 }, { A_PREF, 2 },
		{ A_ACCESS, 5 }, { A_NO_ACCESS, 5 },
	};
	const struct drm_compute_svm_attr clr_set[] = {
		{ A_CLR, DRM_COMPUTE_SVM_FLAG_GPU_RO },
		{ A_SET, DRM_COMPUTE_SVM_FLAG_GPU_RO },
		{ A_NO_ACCESS, 5 }, { A_IN_PLACE, 5 },
	};
	struct drm_compute_svm_attrs a;

	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(10), set_clr,
				    ARRAY_SIZE(set_clr)), 0);
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(100), &a, NULL, NULL));
	KUNIT_EXPECT_EQ(test, a.flags, DRM_COMPUTE_SVM_FLAGS_DEFAULT);
	KUNIT_EXPECT_EQ(test, a.preferred_loc, 2);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(100), 5), DRM_COMPUTE_SVM_MODE_NO_ACCESS);

	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(10), clr_set,
				    ARRAY_SIZE(clr_set)), 0);
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(100), &a, NULL, NULL));
	KUNIT_EXPECT_EQ(test, a.flags, DRM_COMPUTE_SVM_FLAGS_DEFAULT |
				       DRM_COMPUTE_SVM_FLAG_GPU_RO);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(100), 5),
			DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE);

	KUNIT_EXPECT_EQ(test, t_set(test, PG(300), PG(10), NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, PG(300), 0, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 1);
}

struct layout_case {
	const char *name;
	/* Set in order on an empty store: the layout before. */
	struct piece init[4];
	/* Then this preferred location set on a range, or the range cleared. */
	struct piece op;
	bool clear;
	/* The layout after. */
	struct piece expect[4];
};

static const struct layout_case layout_cases[] = {
	{ "split-start", { { 100, 200, 1 } }, { 100, 150, 2 }, false,
	  { { 100, 150, 2 }, { 150, 200, 1 } } },
	{ "split-end", { { 100, 200, 1 } }, { 150, 200, 2 }, false,
	  { { 100, 150, 1 }, { 150, 200, 2 } } },
	{ "split-middle", { { 100, 200, 1 } }, { 120, 180, 2 }, false,
	  { { 100, 120, 1 }, { 120, 180, 2 }, { 180, 200, 1 } } },
	{ "overlap-start", { { 100, 200, 1 } }, { 50, 150, 2 }, false,
	  { { 50, 150, 2 }, { 150, 200, 1 } } },
	{ "overlap-end", { { 100, 200, 1 } }, { 150, 250, 2 }, false,
	  { { 100, 150, 1 }, { 150, 250, 2 } } },
	{ "cover", { { 100, 200, 1 } }, { 50, 250, 2 }, false,
	  { { 50, 250, 2 } } },
	{ "exact", { { 100, 200, 1 } }, { 100, 200, 2 }, false,
	  { { 100, 200, 2 } } },
	{ "span-ranges-and-gaps",
	  { { 100, 120, 1 }, { 140, 160, 2 }, { 180, 200, 3 } },
	  { 110, 190, 4 }, false,
	  { { 100, 110, 1 }, { 110, 190, 4 }, { 190, 200, 3 } } },
	{ "fill-gap-merge-right", { { 100, 120, 1 }, { 140, 160, 2 } },
	  { 110, 150, 2 }, false,
	  { { 100, 110, 1 }, { 110, 160, 2 } } },
	{ "merge-back", { { 100, 150, 1 }, { 150, 200, 2 } },
	  { 150, 200, 1 }, false,
	  { { 100, 200, 1 } } },
	{ "merge-three", { { 100, 120, 1 }, { 120, 140, 2 }, { 140, 160, 1 } },
	  { 120, 140, 1 }, false,
	  { { 100, 160, 1 } } },
	{ "fill-gap-merge-both", { { 100, 120, 1 }, { 140, 160, 1 } },
	  { 120, 140, 1 }, false,
	  { { 100, 160, 1 } } },
	{ "adjacent-differs", { { 100, 120, 1 } }, { 120, 140, 2 }, false,
	  { { 100, 120, 1 }, { 120, 140, 2 } } },
	{ "adjacent-equal", { { 100, 120, 1 } }, { 120, 140, 1 }, false,
	  { { 100, 140, 1 } } },
	{ "adjacent-below", { { 100, 120, 1 } }, { 80, 100, 1 }, false,
	  { { 80, 120, 1 } } },
	{ "same-value", { { 100, 200, 1 } }, { 120, 180, 1 }, false,
	  { { 100, 200, 1 } } },
	{ "sysmem-is-a-value", { { 100, 200, 1 } }, { 120, 180, SYSMEM }, false,
	  { { 100, 120, 1 }, { 120, 180, SYSMEM }, { 180, 200, 1 } } },
	{ "default-value-splits", { { 100, 200, 1 } }, { 120, 180, UNDEF }, false,
	  { { 100, 120, 1 }, { 180, 200, 1 } } },
	{ "default-value-in-gap", { { 100, 120, 1 } }, { 200, 300, UNDEF }, false,
	  { { 100, 120, 1 } } },
	{ "default-value-over-all", { { 100, 120, 1 }, { 140, 160, 2 } },
	  { 90, 170, UNDEF }, false,
	  { } },
	{ "va-start", { }, { 16, 17, 2 }, false,
	  { { 16, 17, 2 } } },
	{ "va-end", { { 16, VA_END_PG, 1 } }, { VA_END_PG - 1, VA_END_PG, 2 }, false,
	  { { 16, VA_END_PG - 1, 1 }, { VA_END_PG - 1, VA_END_PG, 2 } } },
	{ "clear-start", { { 100, 200, 1 } }, { 50, 150 }, true,
	  { { 150, 200, 1 } } },
	{ "clear-end", { { 100, 200, 1 } }, { 150, 250 }, true,
	  { { 100, 150, 1 } } },
	{ "clear-middle", { { 100, 200, 1 } }, { 120, 180 }, true,
	  { { 100, 120, 1 }, { 180, 200, 1 } } },
	{ "clear-span", { { 100, 120, 1 }, { 140, 160, 2 }, { 180, 200, 3 } },
	  { 110, 190 }, true,
	  { { 100, 110, 1 }, { 190, 200, 3 } } },
	{ "clear-gap", { { 100, 120, 1 } }, { 130, 140 }, true,
	  { { 100, 120, 1 } } },
	{ "clear-past-limits", { { 16, 20, 1 }, { VA_END_PG - 4, VA_END_PG, 2 } },
	  { 0, VA_END_PG + 16 }, true,
	  { } },
	{ "clear-outside-limits", { { 16, 20, 1 } }, { 0, 16 }, true,
	  { { 16, 20, 1 } } },
};

static void layout_case_desc(const struct layout_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(layout_case, layout_cases, layout_case_desc);

static void layout(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	const struct piece *p;

	for (p = c->init; p->end; p++)
		KUNIT_ASSERT_EQ(test, t_set_loc(test, p->start, p->end, p->loc), 0);
	expect_layout(test, c->init);

	if (c->clear)
		KUNIT_EXPECT_EQ(test, t_clear(test, PG(c->op.start),
					      PG(c->op.end - c->op.start)), 0);
	else
		KUNIT_EXPECT_EQ(test, t_set_loc(test, c->op.start, c->op.end,
						c->op.loc), 0);
	expect_layout(test, c->expect);
	expect_canonical(test);
}

/* Some ranges, a device slot taken: what a rejected call must keep. */
static void t_populate(struct kunit *test)
{
	const struct drm_compute_svm_attr a[] = {
		{ A_PREF, 1 }, { A_IN_PLACE, 3 },
	};
	const struct drm_compute_svm_attr b = {
		A_SET, DRM_COMPUTE_SVM_FLAG_GPU_RO
	};

	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(20), a, ARRAY_SIZE(a)), 0);
	KUNIT_ASSERT_EQ(test, t_set(test, PG(140), PG(20), &b, 1), 0);
	KUNIT_ASSERT_EQ(test, t_num_ranges(test), 2);
}

struct reject_case {
	const char *name;
	u64 start;
	u64 size;
	struct drm_compute_svm_attr attrs[2];
	unsigned int nattr;
	/* Invalid for a get too; otherwise a get ignores what is wrong. */
	bool get;
};

#define GOOD_START	PG(110)
#define GOOD_SIZE	PG(40)
#define GRAN_MAX	DRM_COMPUTE_SVM_GRANULARITY_MAX

static const struct reject_case reject_cases[] = {
	{ "size-zero", GOOD_START, 0, { { A_PREF, 2 } }, 1, true },
	{ "start-unaligned", GOOD_START + 1, GOOD_SIZE, { { A_PREF, 2 } }, 1, true },
	{ "size-unaligned", GOOD_START, GOOD_SIZE + 8, { { A_PREF, 2 } }, 1, true },
	{ "wraps", U64_MAX & PAGE_MASK, PG(2), { { A_PREF, 2 } }, 1, true },
	{ "below-va-start", VA_START - PG(1), PG(2), { { A_PREF, 2 } }, 1, true },
	{ "past-va-end", VA_END - PG(1), PG(2), { { A_PREF, 2 } }, 1, true },
	{ "type-unknown", GOOD_START, GOOD_SIZE, { { 8, 0 } }, 1, true },
	{ "type-top", GOOD_START, GOOD_SIZE, { { U32_MAX, 0 } }, 1, true },
	{ "flag-unknown", GOOD_START, GOOD_SIZE, { { A_SET, BIT(8) } }, 1, false },
	{ "clr-flag-unknown", GOOD_START, GOOD_SIZE, { { A_CLR, BIT(31) } }, 1, false },
	{ "granularity-max-plus-one", GOOD_START, GOOD_SIZE,
	  { { A_GRAN, GRAN_MAX + 1 } }, 1, false },
	{ "granularity-top", GOOD_START, GOOD_SIZE, { { A_GRAN, U32_MAX } }, 1, false },
	{ "preferred-no-memory", GOOD_START, GOOD_SIZE,
	  { { A_PREF, LOC_DEVICES + 1 } }, 1, false },
	{ "prefetch-unknown-device", GOOD_START, GOOD_SIZE,
	  { { A_PREFETCH, DEVICES + 1 } }, 1, false },
	{ "access-unknown-device", GOOD_START, GOOD_SIZE,
	  { { A_ACCESS, DEVICES + 1 } }, 1, true },
	{ "access-sysmem", GOOD_START, GOOD_SIZE, { { A_IN_PLACE, SYSMEM } }, 1, true },
	{ "access-undefined", GOOD_START, GOOD_SIZE, { { A_NO_ACCESS, UNDEF } }, 1, true },
	{ "valid-then-invalid", GOOD_START, GOOD_SIZE,
	  { { A_PREF, 2 }, { A_GRAN, GRAN_MAX + 1 } }, 2, false },
	{ "new-device-then-invalid", GOOD_START, GOOD_SIZE,
	  { { A_ACCESS, 7 }, { 9, 0 } }, 2, true },
};

static void reject_case_desc(const struct reject_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reject_case, reject_cases, reject_case_desc);

/*
 * A set that breaks a rule fails and leaves the store as it was; the check
 * of the list alone agrees with set and get about the attributes.
 */
static void rejects(struct kunit *test)
{
	const struct reject_case *c = test->param_value;
	bool range_bad = c->start != GOOD_START || c->size != GOOD_SIZE;
	struct drm_compute_svm_attr get[2];
	char *before;

	t_populate(test);
	before = t_dump(test);
	KUNIT_EXPECT_EQ(test, t_check(test, c->attrs, c->nattr, true),
			range_bad ? 0 : -EINVAL);
	KUNIT_EXPECT_EQ(test, t_check(test, c->attrs, c->nattr, false),
			!range_bad && c->get ? -EINVAL : 0);
	KUNIT_EXPECT_STREQ(test, t_dump(test), before);
	KUNIT_EXPECT_EQ(test, t_set(test, c->start, c->size, c->attrs, c->nattr),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, t_dump(test), before);

	memcpy(get, c->attrs, sizeof(get));
	if (c->get) {
		KUNIT_EXPECT_EQ(test, t_get(test, c->start, c->size, get, c->nattr),
				-EINVAL);
		KUNIT_EXPECT_MEMEQ(test, get, c->attrs, sizeof(get));
	} else {
		KUNIT_EXPECT_EQ(test, t_get(test, c->start, c->size, get, c->nattr), 0);
	}
	KUNIT_EXPECT_STREQ(test, t_dump(test), before);
}

static void too_many_devices(struct kunit *test)
{
	struct drm_compute_svm_attr a[DRM_COMPUTE_SVM_MAX_DEVICES + 1];
	const unsigned int max = DRM_COMPUTE_SVM_MAX_DEVICES;
	char *before;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(a); i++) {
		a[i].type = A_NO_ACCESS;
		a[i].value = i + 1;
	}

	/* One device too many in one list: nothing happens. */
	before = t_dump(test);
	KUNIT_EXPECT_EQ(test, t_check(test, a, ARRAY_SIZE(a), true), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_check(test, a, ARRAY_SIZE(a), false), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, PG(100), PG(10), a, ARRAY_SIZE(a)), -EINVAL);
	KUNIT_EXPECT_STREQ(test, t_dump(test), before);

	/* Every slot taken; a check takes none. */
	KUNIT_EXPECT_EQ(test, t_check(test, a, max, true), 0);
	KUNIT_EXPECT_EQ(test, t_check(test, &a[max], 1, true), 0);
	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(10), a, max), 0);
	KUNIT_EXPECT_EQ(test, t_check(test, &a[max], 1, true), -EINVAL);
	for (i = 0; i < max; i++)
		KUNIT_EXPECT_EQ(test, t_access(test, PG(105), i + 1),
				DRM_COMPUTE_SVM_MODE_NO_ACCESS);

	/* Another device, even alone and elsewhere, fails. */
	before = t_dump(test);
	KUNIT_EXPECT_EQ(test, t_set(test, PG(300), PG(10), &a[max], 1), -EINVAL);
	KUNIT_EXPECT_STREQ(test, t_dump(test), before);

	/* Slots outlive the attributes that took them. */
	KUNIT_EXPECT_EQ(test, t_clear(test, PG(100), PG(10)), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, PG(300), PG(10), &a[max], 1), -EINVAL);

	/* A device with a slot can still be named. */
	a[0].type = A_IN_PLACE;
	KUNIT_EXPECT_EQ(test, t_set(test, PG(300), PG(10), a, 1), 0);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(300), 1),
			DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE);
	/* A device without a slot has the default everywhere. */
	KUNIT_EXPECT_EQ(test, t_access(test, PG(300), max + 1),
			DRM_COMPUTE_SVM_MODE_ACCESS);
}

/* KFD's rules over pieces that differ, gaps counting as defaults. */
static void get_mixed(struct kunit *test)
{
	const u32 ro = DRM_COMPUTE_SVM_FLAG_GPU_RO;
	const u32 exec = DRM_COMPUTE_SVM_FLAG_GPU_EXEC;
	const u32 host = DRM_COMPUTE_SVM_FLAG_HOST_ACCESS;
	const u32 coherent = DRM_COMPUTE_SVM_FLAG_COHERENT;
	const struct drm_compute_svm_attr a[] = {
		{ A_PREF, 1 }, { A_PREFETCH, 2 }, { A_ACCESS, 1 }, { A_IN_PLACE, 2 },
		{ A_NO_ACCESS, 4 }, { A_SET, ro }, { A_GRAN, 12 },
	};
	const struct drm_compute_svm_attr b[] = {
		{ A_PREF, 2 }, { A_PREFETCH, 2 }, { A_IN_PLACE, 1 }, { A_IN_PLACE, 2 },
		{ A_NO_ACCESS, 4 }, { A_SET, ro | exec }, { A_CLR, host },
		{ A_GRAN, 6 },
	};
	const struct drm_compute_svm_attr query[] = {
		{ A_PREF, 0 }, { A_PREFETCH, 0 },
		{ A_ACCESS, 1 }, { A_ACCESS, 2 }, { A_ACCESS, 3 }, { A_ACCESS, 4 },
		{ A_SET, 0 }, { A_CLR, 0 }, { A_GRAN, 0 },
	};
	struct drm_compute_svm_attr get[ARRAY_SIZE(query)];

	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(50), a, ARRAY_SIZE(a)), 0);
	KUNIT_ASSERT_EQ(test, t_set(test, PG(150), PG(50), b, ARRAY_SIZE(b)), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 2);

	/* Over both. */
	memcpy(get, query, sizeof(get));
	KUNIT_ASSERT_EQ(test, t_get(test, PG(100), PG(100), get, ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, UNDEF);
	KUNIT_EXPECT_EQ(test, get[1].value, 2);
	KUNIT_EXPECT_EQ(test, get[2].type, A_NO_ACCESS);	/* ACCESS, IN_PLACE */
	KUNIT_EXPECT_EQ(test, get[2].value, 1);
	KUNIT_EXPECT_EQ(test, get[3].type, A_IN_PLACE);
	KUNIT_EXPECT_EQ(test, get[4].type, A_ACCESS);		/* the default */
	KUNIT_EXPECT_EQ(test, get[5].type, A_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, get[6].value, coherent | ro);
	KUNIT_EXPECT_EQ(test, get[7].value, DRM_COMPUTE_SVM_FLAGS_KNOWN &
					    ~(host | coherent | ro | exec));
	KUNIT_EXPECT_EQ(test, get[8].value, 6);

	/* With a gap after them: its defaults count. */
	memcpy(get, query, sizeof(get));
	KUNIT_ASSERT_EQ(test, t_get(test, PG(100), PG(150), get, ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, UNDEF);
	KUNIT_EXPECT_EQ(test, get[1].value, UNDEF);
	KUNIT_EXPECT_EQ(test, get[2].type, A_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, get[3].type, A_NO_ACCESS);	/* IN_PLACE, ACCESS */
	KUNIT_EXPECT_EQ(test, get[4].type, A_ACCESS);
	KUNIT_EXPECT_EQ(test, get[5].type, A_NO_ACCESS);	/* NO_ACCESS, ACCESS */
	KUNIT_EXPECT_EQ(test, get[6].value, coherent);
	KUNIT_EXPECT_EQ(test, get[7].value, DRM_COMPUTE_SVM_FLAGS_KNOWN &
					    ~(host | coherent | ro | exec));
	KUNIT_EXPECT_EQ(test, get[8].value, 6);

	/* Within one of them: its own values. */
	memcpy(get, query, sizeof(get));
	KUNIT_ASSERT_EQ(test, t_get(test, PG(150), PG(50), get, ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, 2);
	KUNIT_EXPECT_EQ(test, get[1].value, 2);
	KUNIT_EXPECT_EQ(test, get[2].type, A_IN_PLACE);
	KUNIT_EXPECT_EQ(test, get[3].type, A_IN_PLACE);
	KUNIT_EXPECT_EQ(test, get[6].value, coherent | ro | exec);
	KUNIT_EXPECT_EQ(test, get[7].value, DRM_COMPUTE_SVM_FLAGS_KNOWN &
					    ~(coherent | ro | exec));
	KUNIT_EXPECT_EQ(test, get[8].value, 6);

	memcpy(get, query, sizeof(get));
	KUNIT_ASSERT_EQ(test, t_get(test, PG(120), PG(10), get, ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, 1);
	KUNIT_EXPECT_EQ(test, get[2].type, A_ACCESS);
	KUNIT_EXPECT_EQ(test, get[6].value, host | coherent | ro);
	KUNIT_EXPECT_EQ(test, get[8].value, 12);
}

static void lookup_gaps(struct kunit *test)
{
	struct svm_test *t = test->priv;
	struct drm_compute_svm_attrs a;
	u64 start, size;

	KUNIT_ASSERT_EQ(test, t_set_loc(test, 100, 120, 1), 0);
	KUNIT_ASSERT_EQ(test, t_set_loc(test, 140, 160, 2), 0);

	/* Between two ranges. */
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(130), &a, &start, &size));
	KUNIT_EXPECT_TRUE(test, t_attrs_equal(&a, &t->store.defaults));
	KUNIT_EXPECT_EQ(test, start, PG(120));
	KUNIT_EXPECT_EQ(test, size, PG(20));
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(139) + 5, &a, &start, &size));
	KUNIT_EXPECT_EQ(test, start, PG(120));
	KUNIT_EXPECT_EQ(test, size, PG(20));
	/* Before the first, after the last: up to the limits. */
	KUNIT_ASSERT_TRUE(test, t_lookup(test, VA_START, &a, &start, &size));
	KUNIT_EXPECT_TRUE(test, t_attrs_equal(&a, &t->store.defaults));
	KUNIT_EXPECT_EQ(test, start, VA_START);
	KUNIT_EXPECT_EQ(test, size, PG(100) - VA_START);
	KUNIT_ASSERT_TRUE(test, t_lookup(test, VA_END - 1, &a, &start, &size));
	KUNIT_EXPECT_EQ(test, start, PG(160));
	KUNIT_EXPECT_EQ(test, size, VA_END - PG(160));
	/* In a range, at its first and last byte. */
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(100), &a, &start, &size));
	KUNIT_EXPECT_EQ(test, a.preferred_loc, 1);
	KUNIT_EXPECT_EQ(test, start, PG(100));
	KUNIT_EXPECT_EQ(test, size, PG(20));
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(160) - 1, &a, &start, &size));
	KUNIT_EXPECT_EQ(test, a.preferred_loc, 2);
	KUNIT_EXPECT_EQ(test, start, PG(140));
	/* Outside the limits: nothing. */
	KUNIT_EXPECT_FALSE(test, t_lookup(test, VA_END, &a, &start, &size));
	KUNIT_EXPECT_FALSE(test, t_lookup(test, VA_START - 1, &a, &start, &size));
	KUNIT_EXPECT_FALSE(test, t_lookup(test, 0, &a, &start, &size));
	KUNIT_EXPECT_EQ(test, t_access(test, U64_MAX, 1), -1);
}

struct walk_rec {
	unsigned int n;
	unsigned int stop_after;
	u64 start[8];
	u64 size[8];
	u32 loc[8];
};

static int walk_fn(void *arg, u64 start, u64 size,
		   const struct drm_compute_svm_attrs *attrs)
{
	struct walk_rec *w = arg;

	if (w->n == ARRAY_SIZE(w->start))
		return -E2BIG;
	w->start[w->n] = start;
	w->size[w->n] = size;
	w->loc[w->n] = attrs->preferred_loc;
	if (++w->n == w->stop_after)
		return 7;
	return 0;
}

static int t_walk(struct kunit *test, u64 start, u64 size, struct walk_rec *w)
{
	struct svm_test *t = test->priv;
	int ret;

	mutex_lock(&t->lock);
	ret = drm_compute_svm_attr_walk(&t->store, start, size, walk_fn, w);
	mutex_unlock(&t->lock);
	return ret;
}

static void walk(struct kunit *test)
{
	struct walk_rec w = {};

	KUNIT_ASSERT_EQ(test, t_set_loc(test, 100, 120, 1), 0);
	KUNIT_ASSERT_EQ(test, t_set_loc(test, 140, 160, 2), 0);

	/* Clipped ranges and the gap between them, in order. */
	KUNIT_EXPECT_EQ(test, t_walk(test, PG(110), PG(40), &w), 0);
	KUNIT_ASSERT_EQ(test, w.n, 3);
	KUNIT_EXPECT_EQ(test, w.start[0], PG(110));
	KUNIT_EXPECT_EQ(test, w.size[0], PG(10));
	KUNIT_EXPECT_EQ(test, w.loc[0], 1);
	KUNIT_EXPECT_EQ(test, w.start[1], PG(120));
	KUNIT_EXPECT_EQ(test, w.size[1], PG(20));
	KUNIT_EXPECT_EQ(test, w.loc[1], UNDEF);
	KUNIT_EXPECT_EQ(test, w.start[2], PG(140));
	KUNIT_EXPECT_EQ(test, w.size[2], PG(10));
	KUNIT_EXPECT_EQ(test, w.loc[2], 2);

	/* Gaps at both ends. */
	memset(&w, 0, sizeof(w));
	KUNIT_EXPECT_EQ(test, t_walk(test, PG(90), PG(80), &w), 0);
	KUNIT_ASSERT_EQ(test, w.n, 5);
	KUNIT_EXPECT_EQ(test, w.start[0], PG(90));
	KUNIT_EXPECT_EQ(test, w.size[0], PG(10));
	KUNIT_EXPECT_EQ(test, w.start[4], PG(160));
	KUNIT_EXPECT_EQ(test, w.size[4], PG(10));
	KUNIT_EXPECT_EQ(test, w.loc[4], UNDEF);

	/* Only a gap. */
	memset(&w, 0, sizeof(w));
	KUNIT_EXPECT_EQ(test, t_walk(test, PG(200), PG(10), &w), 0);
	KUNIT_ASSERT_EQ(test, w.n, 1);
	KUNIT_EXPECT_EQ(test, w.size[0], PG(10));

	/* The callback stops it. */
	memset(&w, 0, sizeof(w));
	w.stop_after = 2;
	KUNIT_EXPECT_EQ(test, t_walk(test, PG(90), PG(80), &w), 7);
	KUNIT_EXPECT_EQ(test, w.n, 2);

	memset(&w, 0, sizeof(w));
	KUNIT_EXPECT_EQ(test, t_walk(test, PG(90), 0, &w), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_walk(test, VA_END - PG(1), PG(2), &w), -EINVAL);
	KUNIT_EXPECT_EQ(test, w.n, 0);
}

/* A store whose devices have no access unless given it. */
static void access_default_no_access(struct kunit *test)
{
	struct svm_test *t = test->priv;
	const struct drm_compute_svm_attr give = { A_ACCESS, 1 };
	const struct drm_compute_svm_attr take = { A_NO_ACCESS, 1 };
	struct drm_compute_svm_attr get = { A_ACCESS, 1 };

	drm_compute_svm_attr_store_fini(&t->store);
	KUNIT_ASSERT_EQ(test, t_store_init(test, DRM_COMPUTE_SVM_MODE_NO_ACCESS), 0);

	KUNIT_EXPECT_EQ(test, t_access(test, PG(100), 1), DRM_COMPUTE_SVM_MODE_NO_ACCESS);
	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(100), &give, 1), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 1);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(100), 1), DRM_COMPUTE_SVM_MODE_ACCESS);
	KUNIT_EXPECT_EQ(test, t_access(test, PG(100), 2), DRM_COMPUTE_SVM_MODE_NO_ACCESS);

	/* Back to the default: the range is gone. */
	KUNIT_ASSERT_EQ(test, t_set(test, PG(100), PG(100), &take, 1), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 0);
	KUNIT_ASSERT_EQ(test, t_get(test, PG(50), PG(200), &get, 1), 0);
	KUNIT_EXPECT_EQ(test, get.type, A_NO_ACCESS);
}

/* A store over the whole address space: its first and last page. */
static void full_range(struct kunit *test)
{
	struct svm_test *t = test->priv;
	const u64 end = U64_MAX & PAGE_MASK;
	const struct drm_compute_svm_attr a = { A_GRAN, 0 };
	struct drm_compute_svm_attr get = { A_GRAN, 0 };
	struct drm_compute_svm_attrs attrs;
	u64 start, size;
	int ret;

	drm_compute_svm_attr_store_fini(&t->store);
	ret = drm_compute_svm_attr_store_init(&t->store, &t_ops, 0, end,
					      DRM_COMPUTE_SVM_MODE_ACCESS);
	KUNIT_ASSERT_EQ(test, ret, 0);
	drm_compute_svm_attr_store_set_lock(&t->store, &t->lock);

	KUNIT_EXPECT_EQ(test, t_set(test, 0, PG(1), &a, 1), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, end - PG(1), PG(1), &a, 1), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, end - PG(1), PG(2), &a, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 2);
	expect_canonical(test);

	KUNIT_ASSERT_TRUE(test, t_lookup(test, end - 1, &attrs, &start, &size));
	KUNIT_EXPECT_EQ(test, attrs.granularity, 0);
	KUNIT_EXPECT_EQ(test, start, end - PG(1));
	KUNIT_EXPECT_EQ(test, size, PG(1));
	KUNIT_ASSERT_TRUE(test, t_lookup(test, PG(1), &attrs, &start, &size));
	KUNIT_EXPECT_EQ(test, attrs.granularity, DRM_COMPUTE_SVM_GRANULARITY_DEFAULT);
	KUNIT_EXPECT_EQ(test, start, PG(1));
	KUNIT_EXPECT_EQ(test, size, end - PG(2));
	KUNIT_EXPECT_FALSE(test, t_lookup(test, end, &attrs, &start, &size));

	KUNIT_EXPECT_EQ(test, t_get(test, 0, end, &get, 1), 0);
	KUNIT_EXPECT_EQ(test, get.value, 0);

	KUNIT_EXPECT_EQ(test, t_clear(test, 0, end), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 0);
	/* Past the limits is ignored, a wrap is not. */
	KUNIT_EXPECT_EQ(test, t_clear(test, end, PG(1)), -EINVAL);
}

static struct drm_compute_svm_attr_range *failing_alloc(void)
{
	struct svm_test *t = kunit_get_current_test()->priv;

	if (!t->allocs_left)
		return NULL;
	t->allocs_left--;
	return kzalloc(sizeof(struct drm_compute_svm_attr_range), GFP_KERNEL);
}

/* Every allocation an update needs can fail, each time changing nothing. */
static void alloc_failure(struct kunit *test)
{
	const struct piece after_set[] = {
		{ 100, 110, 1 }, { 110, 190, 4 }, { 190, 200, 3 }, { }
	};
	const struct piece after_clear[] = {
		{ 100, 110, 1 }, { 110, 120, 4 }, { 140, 190, 4 }, { 190, 200, 3 }, { }
	};
	const struct drm_compute_svm_attr a = { A_PREF, 4 };
	const struct drm_compute_svm_attr undef = { A_PREF, UNDEF };
	struct svm_test *t = test->priv;
	char *before;
	int n, ret;

	KUNIT_ASSERT_EQ(test, t_set_loc(test, 100, 120, 1), 0);
	KUNIT_ASSERT_EQ(test, t_set_loc(test, 140, 160, 2), 0);
	KUNIT_ASSERT_EQ(test, t_set_loc(test, 180, 200, 3), 0);
	before = t_dump(test);
	kunit_activate_static_stub(test, drm_compute_svm_attr_range_alloc,
				   failing_alloc);

	/* Two splits and two gaps: four nodes, each one failing in turn. */
	for (n = 0; n <= 4; n++) {
		t->allocs_left = n;
		ret = t_set(test, PG(110), PG(80), &a, 1);
		KUNIT_EXPECT_EQ_MSG(test, ret, n < 4 ? -ENOMEM : 0, "%d nodes", n);
		if (ret)
			KUNIT_EXPECT_STREQ(test, t_dump(test), before);
	}
	expect_layout(test, after_set);

	/* The inside of one range: two nodes. */
	before = t_dump(test);
	t->allocs_left = 1;
	KUNIT_EXPECT_EQ(test, t_clear(test, PG(120), PG(20)), -ENOMEM);
	KUNIT_EXPECT_STREQ(test, t_dump(test), before);
	t->allocs_left = 2;
	KUNIT_EXPECT_EQ(test, t_clear(test, PG(120), PG(20)), 0);
	expect_layout(test, after_clear);
	expect_canonical(test);

	/* No range to cut, no gap to fill: no allocation. */
	t->allocs_left = 0;
	KUNIT_EXPECT_EQ(test, t_clear(test, PG(110), PG(10)), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, PG(300), PG(10), &undef, 1), 0);
	KUNIT_EXPECT_EQ(test, t_set(test, PG(140), PG(50), &a, 1), 0);
	KUNIT_EXPECT_EQ(test, t_num_ranges(test), 3);
}

/*
 * A model: the attributes of each page of [M_LO, M_HI), updated page by
 * page; random sets and clears land in [M_LO + 16, M_HI - 16), so the
 * model's edges keep the defaults, as does everything outside it.
 */
#define M_LO		80
#define M_HI		176
#define M_PAGES		(M_HI - M_LO)
#define M_DEVS		3
#define M_ROUNDS	200

struct m_page {
	u32 pref;
	u32 prefetch;
	u32 flags;
	u32 gran;
	u8 mode[M_DEVS + 1];
};

static void m_default(struct m_page *p)
{
	int d;

	memset(p, 0, sizeof(*p));
	p->pref = UNDEF;
	p->prefetch = UNDEF;
	p->flags = DRM_COMPUTE_SVM_FLAGS_DEFAULT;
	p->gran = DRM_COMPUTE_SVM_GRANULARITY_DEFAULT;
	for (d = 1; d <= M_DEVS; d++)
		p->mode[d] = DRM_COMPUTE_SVM_MODE_ACCESS;
}

static void m_apply(struct m_page *p, const struct drm_compute_svm_attr *a,
		    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 v = a[i].value;

		switch (a[i].type) {
		case A_PREF:
			p->pref = v;
			break;
		case A_PREFETCH:
			p->prefetch = v;
			break;
		case A_ACCESS:
			p->mode[v] = DRM_COMPUTE_SVM_MODE_ACCESS;
			break;
		case A_IN_PLACE:
			p->mode[v] = DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE;
			break;
		case A_NO_ACCESS:
			p->mode[v] = DRM_COMPUTE_SVM_MODE_NO_ACCESS;
			break;
		case A_SET:
			p->flags |= v;
			break;
		case A_CLR:
			p->flags &= ~v;
			break;
		case A_GRAN:
			p->gran = v;
			break;
		}
	}
}

static void m_random_attr(struct rnd_state *rnd, struct drm_compute_svm_attr *a)
{
	static const u32 locs[] = { SYSMEM, 1, 2, UNDEF };
	static const u32 grans[] = { 0, 6, 9, 12 };
	u32 r = prandom_u32_state(rnd);

	a->type = r % 8;
	r /= 8;
	switch (a->type) {
	case A_PREF:
	case A_PREFETCH:
		a->value = locs[r % ARRAY_SIZE(locs)];
		break;
	case A_ACCESS:
	case A_IN_PLACE:
	case A_NO_ACCESS:
		a->value = 1 + r % M_DEVS;
		break;
	case A_SET:
	case A_CLR:
		a->value = BIT(r % 8) | BIT((r / 8) % 8);
		break;
	default:
		a->value = grans[r % ARRAY_SIZE(grans)];
		break;
	}
}

static bool m_matches(struct svm_test *t, const struct drm_compute_svm_attrs *a,
		      const struct m_page *p)
{
	int d;

	if (a->preferred_loc != p->pref || a->prefetch_loc != p->prefetch ||
	    a->flags != p->flags || a->granularity != p->gran)
		return false;
	for (d = 1; d <= M_DEVS; d++)
		if (drm_compute_svm_attrs_access(&t->store, a, d) != p->mode[d])
			return false;
	return true;
}

/*
 * Every page of the model against a lookup, and the piece a lookup reports
 * against the model's maximal run of equal pages around it. Reports the
 * first difference only.
 */
static bool m_check_pages(struct kunit *test, const struct m_page *m)
{
	struct svm_test *t = test->priv;
	int p, run_start = 0, run_end = 0;

	for (p = 0; p < M_PAGES; p++) {
		const struct drm_compute_svm_attrs *a;
		u64 start = 0, size = 0, want_start, want_end;
		bool match;

		if (p && memcmp(&m[p], &m[p - 1], sizeof(*m)))
			run_start = p;
		if (p >= run_end) {
			run_end = p + 1;
			while (run_end < M_PAGES &&
			       !memcmp(&m[run_end], &m[p], sizeof(*m)))
				run_end++;
		}
		want_start = run_start ? PG(M_LO + run_start) : VA_START;
		want_end = run_end < M_PAGES ? PG(M_LO + run_end) : VA_END;

		mutex_lock(&t->lock);
		a = drm_compute_svm_attr_lookup(&t->store, PG(M_LO + p), &start, &size);
		match = a && m_matches(t, a, &m[p]);
		mutex_unlock(&t->lock);

		if (!match || start != want_start || start + size != want_end) {
			KUNIT_FAIL(test, "page %d: attrs %s, piece [%llx, %llx) not [%llx, %llx)",
				   M_LO + p, match ? "ok" : "differ",
				   start, start + size, want_start, want_end);
			return false;
		}
	}
	return true;
}

/* A get over pages [@s, @e) against the model's aggregate. */
static bool m_check_get(struct kunit *test, const struct m_page *m, int s, int e)
{
	struct drm_compute_svm_attr get[] = {
		{ A_PREF, 0 }, { A_PREFETCH, 0 }, { A_SET, 0 }, { A_CLR, 0 },
		{ A_GRAN, 0 }, { A_ACCESS, 1 }, { A_IN_PLACE, 2 }, { A_NO_ACCESS, 3 },
	};
	u32 want[ARRAY_SIZE(get)];
	u8 mode[M_DEVS + 1];
	int p, d;
	unsigned int i;

	want[0] = m[s].pref;
	want[1] = m[s].prefetch;
	want[2] = ~0u;
	want[3] = ~0u;
	want[4] = U32_MAX;
	for (d = 1; d <= M_DEVS; d++)
		mode[d] = m[s].mode[d];
	for (p = s; p < e; p++) {
		if (m[p].pref != want[0])
			want[0] = UNDEF;
		if (m[p].prefetch != want[1])
			want[1] = UNDEF;
		want[2] &= m[p].flags;
		want[3] &= ~m[p].flags & DRM_COMPUTE_SVM_FLAGS_KNOWN;
		want[4] = min(want[4], m[p].gran);
		for (d = 1; d <= M_DEVS; d++)
			if (m[p].mode[d] != mode[d])
				mode[d] = DRM_COMPUTE_SVM_MODE_NO_ACCESS;
	}
	for (d = 1; d <= M_DEVS; d++)
		want[4 + d] = mode[d] == DRM_COMPUTE_SVM_MODE_ACCESS ? A_ACCESS :
			      mode[d] == DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE ?
			      A_IN_PLACE : A_NO_ACCESS;

	KUNIT_ASSERT_EQ(test, t_get(test, PG(M_LO + s), PG(e - s), get,
				    ARRAY_SIZE(get)), 0);
	for (i = 0; i < ARRAY_SIZE(get); i++) {
		u32 got = i <= 4 ? get[i].value : get[i].type;

		if (got != want[i]) {
			KUNIT_FAIL(test, "get [%d, %d): answer %u is %x, want %x",
				   M_LO + s, M_LO + e, i, got, want[i]);
			return false;
		}
	}
	return true;
}

static void model(struct kunit *test)
{
	struct m_page *m = kunit_kcalloc(test, M_PAGES, sizeof(*m), GFP_KERNEL);
	struct drm_compute_svm_attr a[3];
	struct rnd_state rnd;
	bool ok = true;
	int round, p;

	KUNIT_ASSERT_NOT_NULL(test, m);
	prandom_seed_state(&rnd, 0x5eedULL);
	for (p = 0; p < M_PAGES; p++)
		m_default(&m[p]);

	for (round = 0; round < M_ROUNDS && ok; round++) {
		int s = 16 + prandom_u32_state(&rnd) % (M_PAGES - 32);
		int len = 1 + prandom_u32_state(&rnd) % (M_PAGES - 16 - s);
		unsigned int op = prandom_u32_state(&rnd) % 6, n = 1 + op % 3, i;

		if (!op) {
			KUNIT_ASSERT_EQ(test, t_clear(test, PG(M_LO + s), PG(len)), 0);
			for (p = s; p < s + len; p++)
				m_default(&m[p]);
		} else {
			for (i = 0; i < n; i++)
				m_random_attr(&rnd, &a[i]);
			KUNIT_ASSERT_EQ(test, t_set(test, PG(M_LO + s), PG(len), a, n), 0);
			for (p = s; p < s + len; p++)
				m_apply(&m[p], a, n);
		}
		ok = m_check_pages(test, m);
		expect_canonical(test);

		s = prandom_u32_state(&rnd) % M_PAGES;
		len = 1 + prandom_u32_state(&rnd) % (M_PAGES - s);
		ok = ok && m_check_get(test, m, s, s + len);
	}
}

/* What a checkpoint lists: each range of a store with its list of attributes. */
struct criu_rec {
	u64 start[128], size[128];
	struct drm_compute_svm_attr attrs[128][DRM_COMPUTE_CRIU_SVM_ATTRS];
	u32 nattr[128];
	unsigned int n;
	struct drm_compute_svm_attr_store *store;
};

static int criu_rec_fn(void *arg, u64 start, u64 size,
		       const struct drm_compute_svm_attrs *a)
{
	struct criu_rec *r = arg;

	if (r->n == ARRAY_SIZE(r->start))
		return -ENOSPC;
	r->start[r->n] = start;
	r->size[r->n] = size;
	r->nattr[r->n] = drm_compute_svm_attr_list(r->store, a, r->attrs[r->n]);
	r->n++;
	return 0;
}

static int criu_list(struct kunit *test, struct drm_compute_svm_attr_store *store,
		     struct mutex *lock, struct criu_rec *r)
{
	int ret;

	r->n = 0;
	r->store = store;
	mutex_lock(lock);
	ret = drm_compute_svm_attr_for_each(store, criu_rec_fn, r);
	mutex_unlock(lock);
	return ret;
}

/*
 * A checkpoint's round trip: the ranges of a store built at random, each
 * listed (drm_compute_svm_attr_list()) and set on a fresh store, make the
 * same store: same ranges, same locations, flags and granularity, and the
 * same access for every device. An attribute the list forgets fails here.
 */
static void criu_round_trip(struct kunit *test)
{
	struct criu_rec *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct criu_rec *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct svm_test *t = test->priv;
	struct drm_compute_svm_attr_store fresh;
	struct drm_compute_svm_attr attr[3];
	struct rnd_state rnd;
	unsigned int i, round;
	u32 dev;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	prandom_seed_state(&rnd, 0xc810ULL);
	for (round = 0; round < 40; round++) {
		u32 s = 16 + prandom_u32_state(&rnd) % 200;
		u32 len = 1 + prandom_u32_state(&rnd) % 40;
		unsigned int n = 1 + round % 3;

		for (i = 0; i < n; i++)
			m_random_attr(&rnd, &attr[i]);
		KUNIT_ASSERT_EQ(test, t_set(test, PG(s), PG(len), attr, n), 0);
	}
	KUNIT_ASSERT_EQ(test, criu_list(test, &t->store, &t->lock, a), 0);
	KUNIT_ASSERT_GT(test, a->n, 1U);

	KUNIT_ASSERT_EQ(test, drm_compute_svm_attr_store_init(&fresh, &t_ops, VA_START,
							      VA_END,
							      DRM_COMPUTE_SVM_MODE_ACCESS), 0);
	drm_compute_svm_attr_store_set_lock(&fresh, &t->lock);
	mutex_lock(&t->lock);
	for (i = 0; i < a->n; i++)
		KUNIT_EXPECT_EQ(test, drm_compute_svm_attr_set(&fresh, a->start[i], a->size[i],
							       a->attrs[i], a->nattr[i]), 0);
	mutex_unlock(&t->lock);
	KUNIT_EXPECT_EQ(test, criu_list(test, &fresh, &t->lock, b), 0);

	KUNIT_EXPECT_EQ(test, a->n, b->n);
	mutex_lock(&t->lock);
	for (i = 0; i < min(a->n, b->n); i++) {
		const struct drm_compute_svm_attrs *x, *y;

		x = drm_compute_svm_attr_lookup(&t->store, a->start[i], NULL, NULL);
		y = drm_compute_svm_attr_lookup(&fresh, b->start[i], NULL, NULL);
		KUNIT_EXPECT_EQ(test, a->start[i], b->start[i]);
		KUNIT_EXPECT_EQ(test, a->size[i], b->size[i]);
		KUNIT_EXPECT_EQ(test, x->preferred_loc, y->preferred_loc);
		KUNIT_EXPECT_EQ(test, x->prefetch_loc, y->prefetch_loc);
		KUNIT_EXPECT_EQ(test, x->flags, y->flags);
		KUNIT_EXPECT_EQ(test, x->granularity, y->granularity);
		for (dev = 1; dev <= DEVICES; dev++)
			KUNIT_EXPECT_EQ(test, drm_compute_svm_attrs_access(&t->store, x, dev),
					drm_compute_svm_attrs_access(&fresh, y, dev));
	}
	mutex_unlock(&t->lock);
	drm_compute_svm_attr_store_fini(&fresh);
}

/*
 * Every byte of struct drm_compute_svm_attrs but its explicit padding takes
 * part in the comparison that merges ranges (issue 25: a field forgotten
 * there would silently merge ranges with different values). A field added
 * to the structure and not to the comparison fails here; so does padding
 * of the compiler's, which a field could hide behind.
 */
static void attrs_equal_every_byte(struct kunit *test)
{
	struct drm_compute_svm_attrs a, b;
	size_t i;

	memset(&a, 0, sizeof(a));
	KUNIT_EXPECT_TRUE(test, drm_compute_svm_attrs_equal(&a, &a));
	for (i = 0; i < offsetof(struct drm_compute_svm_attrs, pad); i++) {
		memcpy(&b, &a, sizeof(b));
		((u8 *)&b)[i] ^= 0x5a;
		KUNIT_EXPECT_FALSE_MSG(test, drm_compute_svm_attrs_equal(&a, &b),
				       "byte %zu of struct drm_compute_svm_attrs is not compared",
				       i);
	}
}

/*
 * Every attribute type the uapi defines is accepted by a set and comes back
 * from a get with the value set: a type accepted but not applied (a
 * forgotten case of the apply switch) fails here.
 */
static void every_type_round_trips(struct kunit *test)
{
	const struct drm_compute_svm_attr set[] = {
		{ DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, 1 },
		{ DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, DRM_COMPUTE_SVM_LOCATION_SYSMEM },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE, 1 },
		{ DRM_COMPUTE_SVM_ATTR_NO_ACCESS, 2 },
		{ DRM_COMPUTE_SVM_ATTR_SET_FLAGS, DRM_COMPUTE_SVM_FLAG_GPU_EXEC },
		{ DRM_COMPUTE_SVM_ATTR_CLR_FLAGS, DRM_COMPUTE_SVM_FLAG_COHERENT },
		{ DRM_COMPUTE_SVM_ATTR_GRANULARITY, 3 },
	};
	struct drm_compute_svm_attr get[] = {
		{ DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC },
		{ DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS, 1 },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS, 2 },
		{ DRM_COMPUTE_SVM_ATTR_SET_FLAGS },
		{ DRM_COMPUTE_SVM_ATTR_CLR_FLAGS },
		{ DRM_COMPUTE_SVM_ATTR_GRANULARITY },
	};
	const struct drm_compute_svm_attr past = { DRM_COMPUTE_SVM_ATTR_GRANULARITY + 1, 0 };
	u32 type, seen = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(set); i++)
		seen |= BIT(set[i].type);
	seen |= BIT(DRM_COMPUTE_SVM_ATTR_ACCESS);	/* read back below */
	for (type = 0; type <= DRM_COMPUTE_SVM_ATTR_GRANULARITY; type++)
		KUNIT_EXPECT_TRUE_MSG(test, seen & BIT(type), "type %u not covered", type);

	KUNIT_ASSERT_EQ(test, t_set(test, PG(32), PG(4), set, ARRAY_SIZE(set)), 0);
	KUNIT_ASSERT_EQ(test, t_get(test, PG(32), PG(4), get, ARRAY_SIZE(get)), 0);
	KUNIT_EXPECT_EQ(test, get[0].value, 1);
	KUNIT_EXPECT_EQ(test, get[1].value, DRM_COMPUTE_SVM_LOCATION_SYSMEM);
	KUNIT_EXPECT_EQ(test, get[2].type, DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE);
	KUNIT_EXPECT_EQ(test, get[3].type, DRM_COMPUTE_SVM_ATTR_NO_ACCESS);
	KUNIT_EXPECT_TRUE(test, get[4].value & DRM_COMPUTE_SVM_FLAG_GPU_EXEC);
	KUNIT_EXPECT_TRUE(test, get[5].value & DRM_COMPUTE_SVM_FLAG_COHERENT);
	KUNIT_EXPECT_EQ(test, get[6].value, 3);
	/* One past the last type is refused, and changes nothing. */
	KUNIT_EXPECT_EQ(test, t_check(test, &past, 1, true), -EINVAL);
}

static struct kunit_case drm_compute_svm_attr_tests[] = {
	KUNIT_CASE(init_rejects),
	KUNIT_CASE(attrs_equal_every_byte),
	KUNIT_CASE(every_type_round_trips),
	KUNIT_CASE(criu_round_trip),
	KUNIT_CASE(defaults),
	KUNIT_CASE(get_uniform),
	KUNIT_CASE(set_in_order),
	KUNIT_CASE_PARAM(layout, layout_case_gen_params),
	KUNIT_CASE_PARAM(rejects, reject_case_gen_params),
	KUNIT_CASE(too_many_devices),
	KUNIT_CASE(get_mixed),
	KUNIT_CASE(lookup_gaps),
	KUNIT_CASE(walk),
	KUNIT_CASE(access_default_no_access),
	KUNIT_CASE(full_range),
	KUNIT_CASE(alloc_failure),
	KUNIT_CASE(model),
	{}
};

static struct kunit_suite drm_compute_svm_attr_suite = {
	.name = "drm_compute_svm_attr",
	.init = svm_test_init,
	.exit = svm_test_exit,
	.test_cases = drm_compute_svm_attr_tests,
};

kunit_test_suite(drm_compute_svm_attr_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers' SVM attribute store");
MODULE_LICENSE("Dual MIT/GPL");
