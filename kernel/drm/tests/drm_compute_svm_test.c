// SPDX-License-Identifier: MIT
/*
 * KUnit tests of the DRM compute helpers' SVM operation: the features SVM
 * needs, device ids, the SVM flag of VM_CREATE, every rule of struct
 * drm_compute_svm with each failure leaving the attributes, the driver and
 * the argument untouched, the address-space checks, and set then get
 * through the ioctl handler, against a fake driver on a KUnit DRM device
 * whose test thread has an address space (kunit_vm_mmap()); and the SVM
 * fault policy, from a table.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm.h>
#include <drm/drm_drv.h>
#include <drm/drm_kunit_helpers.h>

#include "../drm_compute_internal.h"

static const struct drm_compute_dev_info info = {
	.vram_size = SZ_256M,
	.placements = DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM,
	.va_start = SZ_64K,
	.va_end = 1ULL << 47,
	.page_size = PAGE_SIZE,
	.max_vms = 4,
	.max_queues = 4,
	.num_priorities = 16,
	.priority_default = 7,
	.priority_privileged = 12,
	.num_cus = 8,
	.queue_formats = BIT(DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE),
	.doorbell_size = PAGE_SIZE,
	.ring_size_min = SZ_4K,
	.ring_size_max = SZ_4M,
	.ctx_save_size = PAGE_SIZE,
	.svm_flags = DRM_COMPUTE_SVM_FLAGS_DEFAULT | DRM_COMPUTE_SVM_FLAG_GPU_RO |
		     DRM_COMPUTE_SVM_FLAG_GPU_EXEC,
};

/* ---- the fake driver ---- */

struct fake_vm {
	struct drm_compute_vm base;
};

struct fake_queue {
	struct drm_compute_userq base;
};

/* What the fake driver saw; reset by each test's init. */
static struct {
	int vms_created, vms_freed, queues_created, queues_freed;
	int svm_inits, svm_finis, attr_sets;
	/* Returned by the next svm_vm_init, then cleared. */
	int init_err;
	/* A VM freed with its SVM part still set up. */
	bool freed_before_fini;
	/* The last svm_attr_set, and what the store held then. */
	bool set_locked;
	u64 set_start, set_size;
	u32 set_nattr;
	struct drm_compute_svm_attr set_attrs[DRM_COMPUTE_SVM_MAX_ATTRS];
	struct drm_compute_svm_attrs set_store;
} fake;

static struct drm_compute_vm *fake_vm_create(struct drm_compute_file *cfile)
{
	struct fake_vm *vm = kzalloc_obj(*vm);

	if (!vm)
		return ERR_PTR(-ENOMEM);
	fake.vms_created++;
	return &vm->base;
}

static void fake_vm_free(struct drm_compute_vm *vm)
{
	if (vm->flags & DRM_COMPUTE_VM_CREATE_SVM)
		fake.freed_before_fini = true;
	fake.vms_freed++;
	kfree(container_of(vm, struct fake_vm, base));
}

static int fake_vm_bind(struct drm_compute_vm *vm, const struct drm_compute_bind *bind)
{
	return 0;
}

static int fake_bo_create(struct drm_compute_file *cfile, u64 size, u64 placement,
			  u32 *handle)
{
	return -ENOSPC;
}

static struct drm_compute_userq *fake_userq_create(struct drm_compute_file *cfile,
						   const struct drm_compute_userq_args *args,
						   u64 *offset, u32 *pos)
{
	struct fake_queue *q = kzalloc_obj(*q);

	if (!q)
		return ERR_PTR(-ENOMEM);
	*offset = 0x100000;
	*pos = 0;
	fake.queues_created++;
	return &q->base;
}

static void fake_userq_nop(struct drm_compute_userq *q)
{
}

static void fake_userq_free(struct drm_compute_userq *q)
{
	fake.queues_freed++;
	kfree(container_of(q, struct fake_queue, base));
}

static int fake_userq_ctl(struct drm_compute_userq *q)
{
	return 0;
}

static void fake_userq_hw_state(struct drm_compute_userq *q,
				struct drm_compute_userq_hw *hw)
{
	memset(hw, 0, sizeof(*hw));
}

static int fake_svm_vm_init(struct drm_compute_vm *vm)
{
	int err = fake.init_err;

	fake.init_err = 0;
	if (err)
		return err;
	fake.svm_inits++;
	return 0;
}

static void fake_svm_vm_fini(struct drm_compute_vm *vm)
{
	fake.svm_finis++;
}

static void fake_svm_attr_set(struct drm_compute_vm *vm, u64 start, u64 size,
			      const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	const struct drm_compute_svm_attrs *now;

	fake.attr_sets++;
	fake.set_locked = mutex_is_locked(&vm->svm.lock);
	fake.set_start = start;
	fake.set_size = size;
	fake.set_nattr = nattr;
	memcpy(fake.set_attrs, attrs, nattr * sizeof(*attrs));
	now = drm_compute_svm_attr_lookup(&vm->svm.attrs, start, NULL, NULL);
	if (now)
		fake.set_store = *now;
}

#define USERQ_OPS						\
	.bo_create = fake_bo_create,				\
	.vm_create = fake_vm_create,				\
	.vm_free = fake_vm_free,				\
	.vm_bind = fake_vm_bind,				\
	.userq_create = fake_userq_create,			\
	.userq_start = fake_userq_nop,				\
	.userq_stop = fake_userq_nop,				\
	.userq_free = fake_userq_free,				\
	.userq_suspend = fake_userq_ctl,			\
	.userq_resume = fake_userq_ctl,				\
	.userq_hw_state = fake_userq_hw_state

static const struct drm_compute_ops svm_ops = {
	USERQ_OPS,
	.svm_vm_init = fake_svm_vm_init,
	.svm_vm_fini = fake_svm_vm_fini,
	.svm_attr_set = fake_svm_attr_set,
};

static const struct drm_compute_ops userq_only_ops = {
	USERQ_OPS,
};

static const struct drm_driver fake_driver = {
	.driver_features = DRIVER_RENDER,
};

static struct drm_device *alloc_drm(struct kunit *test)
{
	struct drm_device *drm;
	struct device *dev;

	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	drm = __drm_kunit_helper_alloc_drm_device_with_driver(test, dev,
							      sizeof(*drm), 0,
							      &fake_driver);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, drm);
	return drm;
}

/* ---- features, device ids, the argument alone ---- */

static void features_need_svm_ops(struct kunit *test)
{
	static const size_t svm_mandatory[] = {
		offsetof(struct drm_compute_ops, svm_vm_init),
		offsetof(struct drm_compute_ops, svm_vm_fini),
		offsetof(struct drm_compute_ops, svm_attr_set),
	};
	struct drm_compute_dev_info wi = info;
	struct drm_compute_device *cdev;
	struct drm_compute_ops ops;
	struct drm_device *drm;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, drm_compute_features(&svm_ops),
			DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM);
	KUNIT_EXPECT_EQ(test, drm_compute_features(&userq_only_ops),
			DRM_COMPUTE_FEATURE_USERQ);
	for (i = 0; i < ARRAY_SIZE(svm_mandatory); i++) {
		ops = svm_ops;
		*(void **)((u8 *)&ops + svm_mandatory[i]) = NULL;
		KUNIT_EXPECT_EQ_MSG(test, drm_compute_features(&ops),
				    DRM_COMPUTE_FEATURE_USERQ,
				    "callback at offset %zu", svm_mandatory[i]);
	}
	/* SVM needs user queues. */
	ops = svm_ops;
	ops.vm_bind = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_features(&ops), 0ULL);

	/*
	 * A device that announces NEED_WAKEUP without a wake callback, or
	 * that sets part of SVM's callbacks, is refused at init instead of
	 * silently losing features (issue 23; init used to succeed with no
	 * feature at all).
	 */
	wi.userq_caps = DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP;
	cdev = kunit_kzalloc(test, sizeof(*cdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cdev);
	drm = alloc_drm(test);
	KUNIT_EXPECT_EQ(test, drm_compute_device_init(cdev, drm, &wi, &svm_ops), -EINVAL);
	ops = svm_ops;
	ops.svm_attr_set = NULL;
	KUNIT_EXPECT_EQ(test, drm_compute_device_init(cdev, drm, &info, &ops), -EINVAL);
	/* SVM without the default flags honoured, or with unknown ones. */
	wi = info;
	wi.svm_flags = DRM_COMPUTE_SVM_FLAG_HOST_ACCESS;
	KUNIT_EXPECT_EQ(test, drm_compute_device_init(cdev, drm, &wi, &svm_ops), -EINVAL);
	wi.svm_flags = info.svm_flags | BIT(8);
	KUNIT_EXPECT_EQ(test, drm_compute_device_init(cdev, drm, &wi, &svm_ops), -EINVAL);
	/* Without SVM the flags are not looked at. */
	wi.svm_flags = 0;
	KUNIT_EXPECT_EQ(test, drm_compute_info_check(&wi, DRM_COMPUTE_FEATURE_USERQ), 0);
}

static void device_ids(struct kunit *test)
{
	struct drm_device *drm = alloc_drm(test);
	struct drm_compute_device *c;
	struct drm_compute_query_device d;
	u32 freed;
	int i, j;

	c = kunit_kcalloc(test, 4, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, drm_compute_device_init(&c[i], drm, &info,
							      i ? &userq_only_ops :
								  &svm_ops), 0);
		KUNIT_EXPECT_NE(test, c[i].id, DRM_COMPUTE_SVM_LOCATION_SYSMEM);
		KUNIT_EXPECT_NE(test, c[i].id, DRM_COMPUTE_SVM_LOCATION_UNDEFINED);
		KUNIT_EXPECT_LE(test, c[i].id, (u32)INT_MAX);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, c[i].id, c[j].id);
		KUNIT_ASSERT_EQ(test, drm_compute_query_fill(&c[i], DRM_COMPUTE_QUERY_DEVICE,
							     &d, sizeof(d)), (int)sizeof(d));
		KUNIT_EXPECT_EQ(test, d.device_id, c[i].id);
		KUNIT_EXPECT_EQ(test, d.pad2, 0u);
	}
	/* Ids are handed out cyclically: a freed one is not the next one. */
	freed = c[1].id;
	drm_compute_device_fini(&c[1]);
	KUNIT_ASSERT_EQ(test, drm_compute_device_init(&c[3], drm, &info, &svm_ops), 0);
	KUNIT_EXPECT_NE(test, c[3].id, freed);
	KUNIT_EXPECT_NE(test, c[3].id, c[0].id);
	KUNIT_EXPECT_NE(test, c[3].id, c[2].id);
	drm_compute_device_fini(&c[0]);
	drm_compute_device_fini(&c[2]);
	drm_compute_device_fini(&c[3]);
}

static const struct drm_compute_svm good_args = {
	.vm_id = 1,
	.op = DRM_COMPUTE_SVM_OP_SET_ATTR,
	.start = SZ_1M,
	.size = SZ_64K,
	.attrs = 0x1000,
	.nattr = 1,
};

/* A field of the argument set to a value; up to two per case. */
struct field_set {
	size_t off;
	size_t size;
	u64 val;
};

#define A32(f, v) { offsetof(struct drm_compute_svm, f), 4, (v) }
#define A64(f, v) { offsetof(struct drm_compute_svm, f), 8, (v) }

struct args_case {
	const char *name;
	struct field_set set[2];
};

static const struct args_case args_cases[] = {
	{ "op-zero", { A32(op, 0) } },
	{ "op-unknown", { A32(op, 3) } },
	{ "op-top", { A32(op, U32_MAX) } },
	{ "flags-bit0", { A32(flags, 1) } },
	{ "flags-bit31", { A32(flags, BIT(31)) } },
	{ "nattr-zero", { A32(nattr, 0) } },
	{ "nattr-past-max", { A32(nattr, DRM_COMPUTE_SVM_MAX_ATTRS + 1) } },
	{ "nattr-top", { A32(nattr, U32_MAX) } },
	{ "size-zero", { A64(size, 0) } },
	{ "size-unaligned", { A64(size, SZ_64K + 8) } },
	{ "start-unaligned", { A64(start, SZ_1M + 1) } },
	{ "start-half-page", { A64(start, SZ_1M + PAGE_SIZE / 2) } },
	{ "below-va-start", { A64(start, 0), A64(size, SZ_64K) } },
	{ "straddles-va-start", { A64(start, SZ_64K - PAGE_SIZE), A64(size, 2 * PAGE_SIZE) } },
	{ "past-va-end", { A64(start, (1ULL << 47) - PAGE_SIZE), A64(size, 2 * PAGE_SIZE) } },
	{ "at-va-end", { A64(start, 1ULL << 47), A64(size, PAGE_SIZE) } },
	{ "wraps", { A64(start, U64_MAX & PAGE_MASK), A64(size, 2 * PAGE_SIZE) } },
	{ "size-huge", { A64(size, U64_MAX & PAGE_MASK) } },
};

static void args_case_desc(const struct args_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(args_case, args_cases, args_case_desc);

static void args_rules(struct kunit *test)
{
	const struct args_case *c = test->param_value;
	struct drm_compute_svm a = good_args;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, drm_compute_svm_args_check(&info, &a), 0);
	a.op = DRM_COMPUTE_SVM_OP_GET_ATTR;
	a.nattr = DRM_COMPUTE_SVM_MAX_ATTRS;
	a.start = info.va_end - SZ_64K;
	KUNIT_EXPECT_EQ(test, drm_compute_svm_args_check(&info, &a), 0);

	a = good_args;
	for (i = 0; i < ARRAY_SIZE(c->set) && c->set[i].size; i++) {
		void *field = (u8 *)&a + c->set[i].off;

		if (c->set[i].size == sizeof(u32))
			*(u32 *)field = c->set[i].val;
		else
			*(u64 *)field = c->set[i].val;
	}
	KUNIT_EXPECT_EQ(test, drm_compute_svm_args_check(&info, &a), -EINVAL);
}

/* ---- the operation through the ioctl handler ---- */

#define REGION_PAGES	16
/* The region's last pages are unmapped again: a hole after page 11. */
#define MAPPED_PAGES	12

struct svm_t {
	struct drm_device *drm;
	struct drm_compute_device cdev;
	struct drm_compute_file cfile;
	/* A device without SVM, and its file. */
	struct drm_compute_device plain_cdev;
	struct drm_compute_file plain_cfile;
	/* Another device with SVM, to be named in access attributes. */
	struct drm_compute_device other_cdev;
	u32 svm_vm, plain_vm;
	/* User memory: the attribute array at page 0, the ranges after it. */
	unsigned long base;
	/* How far init got: devices 1..3 made, then the files. */
	unsigned int devices;
	bool files;
};

static struct svm_t *svm_t_of(struct kunit *test)
{
	return test->priv;
}

/* The address of page @n of the user region. */
static u64 upg(struct kunit *test, unsigned int n)
{
	return svm_t_of(test)->base + (u64)n * PAGE_SIZE;
}

static int vm_create(struct drm_compute_file *cfile, u32 flags, u32 *id)
{
	struct drm_compute_vm_create vc = { .flags = flags };
	int ret = drm_compute_vm_create_ioctl(cfile, &vc);

	if (!ret)
		*id = vc.vm_id;
	return ret;
}

static int svm_init(struct kunit *test)
{
	struct svm_t *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	test->priv = t;
	memset(&fake, 0, sizeof(fake));

	/* The test thread's address space, which the SVM VM mirrors. */
	t->base = kunit_vm_mmap(test, NULL, 0, REGION_PAGES * PAGE_SIZE,
				PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, t->base, 0, "no user memory");
	KUNIT_ASSERT_LT(test, t->base, (unsigned long)TASK_SIZE);
	KUNIT_ASSERT_EQ(test, vm_munmap(t->base + MAPPED_PAGES * PAGE_SIZE,
					(REGION_PAGES - MAPPED_PAGES) * PAGE_SIZE), 0);

	t->drm = alloc_drm(test);
	KUNIT_ASSERT_EQ(test, drm_compute_device_init(&t->cdev, t->drm, &info, &svm_ops), 0);
	t->devices++;
	KUNIT_ASSERT_EQ(test, drm_compute_device_init(&t->plain_cdev, t->drm, &info,
						      &userq_only_ops), 0);
	t->devices++;
	KUNIT_ASSERT_EQ(test, drm_compute_device_init(&t->other_cdev, t->drm, &info,
						      &svm_ops), 0);
	t->devices++;
	drm_compute_file_init(&t->cfile, &t->cdev, NULL);
	drm_compute_file_init(&t->plain_cfile, &t->plain_cdev, NULL);
	t->files = true;
	KUNIT_ASSERT_EQ(test, t->cdev.features,
			DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM);

	KUNIT_ASSERT_EQ(test, vm_create(&t->cfile, DRM_COMPUTE_VM_CREATE_SVM, &t->svm_vm), 0);
	KUNIT_ASSERT_EQ(test, vm_create(&t->cfile, 0, &t->plain_vm), 0);
	KUNIT_ASSERT_EQ(test, fake.svm_inits, 1);
	return 0;
}

static void svm_exit(struct kunit *test)
{
	struct svm_t *t = test->priv;

	if (!t)
		return;
	if (t->files) {
		drm_compute_file_fini(&t->cfile);
		drm_compute_file_fini(&t->plain_cfile);
	}
	if (t->devices > 0)
		drm_compute_device_fini(&t->cdev);
	if (t->devices > 1)
		drm_compute_device_fini(&t->plain_cdev);
	if (t->devices > 2)
		drm_compute_device_fini(&t->other_cdev);
	/* Every VM is gone with its file, the SVM part before the rest. */
	KUNIT_EXPECT_EQ(test, fake.vms_freed, fake.vms_created);
	KUNIT_EXPECT_EQ(test, fake.queues_freed, fake.queues_created);
	KUNIT_EXPECT_EQ(test, fake.svm_finis, fake.svm_inits);
	KUNIT_EXPECT_FALSE(test, fake.freed_before_fini);
}

static struct drm_compute_vm *svm_vm(struct kunit *test)
{
	return xa_load(&svm_t_of(test)->cfile.vms, svm_t_of(test)->svm_vm);
}

/* The user's attribute array, at the start of the region. */
static void put_attrs(struct kunit *test, const struct drm_compute_svm_attr *a,
		      unsigned int n)
{
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)svm_t_of(test)->base, a,
					   n * sizeof(*a)), 0);
}

static void read_attrs(struct kunit *test, struct drm_compute_svm_attr *a,
		       unsigned int n)
{
	KUNIT_ASSERT_EQ(test, copy_from_user(a, (void __user *)svm_t_of(test)->base,
					     n * sizeof(*a)), 0);
}

static struct drm_compute_svm op_args(struct kunit *test, u32 op, u64 start,
				      u64 size, unsigned int nattr)
{
	return (struct drm_compute_svm) {
		.vm_id = svm_t_of(test)->svm_vm,
		.op = op,
		.start = start,
		.size = size,
		.attrs = svm_t_of(test)->base,
		.nattr = nattr,
	};
}

static int svm_op(struct kunit *test, u32 op, u64 start, u64 size,
		  struct drm_compute_svm_attr *a, unsigned int n)
{
	struct drm_compute_svm args = op_args(test, op, start, size, n);
	int ret;

	put_attrs(test, a, n);
	ret = drm_compute_svm_ioctl(&svm_t_of(test)->cfile, &args);
	if (!ret && op == DRM_COMPUTE_SVM_OP_GET_ATTR)
		read_attrs(test, a, n);
	return ret;
}

static int svm_set(struct kunit *test, u64 start, u64 size,
		   const struct drm_compute_svm_attr *a, unsigned int n)
{
	struct drm_compute_svm args = op_args(test, DRM_COMPUTE_SVM_OP_SET_ATTR,
					      start, size, n);

	put_attrs(test, a, n);
	return drm_compute_svm_ioctl(&svm_t_of(test)->cfile, &args);
}

static int dump_piece(void *arg, u64 start, u64 size,
		      const struct drm_compute_svm_attrs *a)
{
	char *s = arg;
	size_t len = strlen(s);

	snprintf(s + len, PAGE_SIZE - len, "[%llx+%llx %x %x %x %u %*phN]",
		 start, size, a->preferred_loc, a->prefetch_loc, a->flags,
		 a->granularity, (int)sizeof(a->access), a->access);
	return 0;
}

/* The whole store of the SVM VM, as a string, to compare before and after. */
static char *snapshot(struct kunit *test)
{
	struct drm_compute_vm *vm = svm_vm(test);
	char *s = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	mutex_lock(&vm->svm.lock);
	KUNIT_EXPECT_EQ(test, drm_compute_svm_attr_walk(&vm->svm.attrs, info.va_start,
							info.va_end - info.va_start,
							dump_piece, s), 0);
	snprintf(s + strlen(s), PAGE_SIZE - strlen(s), " slots %*phN",
		 (int)sizeof(vm->svm.attrs.dev_ids), vm->svm.attrs.dev_ids);
	mutex_unlock(&vm->svm.lock);
	return s;
}

/* Migration chunks: granularity aligned, at most 2 MiB, inside their piece. */
static void chunk_end(struct kunit *test)
{
	const struct drm_compute_svm_attr g4 = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 4 };
	const struct drm_compute_svm_attr g20 = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 20 };
	struct drm_compute_vm *vm = svm_vm(test);
	u64 a = upg(test, 2), piece_end = upg(test, 10);

	/* Granularity 4: 16 pages; the piece [2, 10) ends the chunk first. */
	KUNIT_ASSERT_EQ(test, svm_set(test, a, 8 * PAGE_SIZE, &g4, 1), 0);
	mutex_lock(&vm->svm.lock);
	KUNIT_EXPECT_EQ(test, drm_compute_svm_chunk_end(vm, a),
			min_t(u64, ALIGN(a + 1, 16 * PAGE_SIZE), piece_end));
	KUNIT_EXPECT_EQ(test, drm_compute_svm_chunk_end(vm, piece_end - PAGE_SIZE),
			piece_end);
	/* Memory never set: the default granularity, a 2 MiB block, up to the piece. */
	KUNIT_EXPECT_EQ(test, drm_compute_svm_chunk_end(vm, piece_end),
			(u64)ALIGN(piece_end + 1, SZ_2M));
	mutex_unlock(&vm->svm.lock);

	/* A granularity above 2 MiB still migrates 2 MiB at a time. */
	KUNIT_ASSERT_EQ(test, svm_set(test, a, 8 * PAGE_SIZE, &g20, 1), 0);
	mutex_lock(&vm->svm.lock);
	KUNIT_EXPECT_EQ(test, drm_compute_svm_chunk_end(vm, a),
			min_t(u64, ALIGN(a + 1, SZ_2M), piece_end));
	mutex_unlock(&vm->svm.lock);
}

static void vm_create_flags(struct kunit *test)
{
	struct svm_t *t = svm_t_of(test);
	struct drm_compute_vm_destroy vd = { .vm_id = t->svm_vm };
	struct drm_compute_vm_create vc;
	unsigned int bit;
	u32 id;

	KUNIT_EXPECT_EQ(test, svm_vm(test)->flags, (u32)DRM_COMPUTE_VM_CREATE_SVM);
	KUNIT_EXPECT_PTR_EQ(test, svm_vm(test)->svm.mm, current->mm);
	KUNIT_EXPECT_EQ(test, ((struct drm_compute_vm *)xa_load(&t->cfile.vms,
								t->plain_vm))->flags, 0u);

	/* Unknown bits, with or without SVM; the argument is left alone. */
	for (bit = 1; bit < 32; bit++) {
		vc = (struct drm_compute_vm_create) { .flags = BIT(bit) };
		KUNIT_EXPECT_EQ(test, drm_compute_vm_create_ioctl(&t->cfile, &vc), -EINVAL);
		KUNIT_EXPECT_EQ(test, vc.vm_id, 0u);
		vc.flags |= DRM_COMPUTE_VM_CREATE_SVM;
		KUNIT_EXPECT_EQ(test, drm_compute_vm_create_ioctl(&t->cfile, &vc), -EINVAL);
	}
	vc = (struct drm_compute_vm_create) { .flags = DRM_COMPUTE_VM_CREATE_SVM, .vm_id = 1 };
	KUNIT_EXPECT_EQ(test, drm_compute_vm_create_ioctl(&t->cfile, &vc), -EINVAL);

	/* A device without SVM. */
	KUNIT_EXPECT_EQ(test, vm_create(&t->plain_cfile, DRM_COMPUTE_VM_CREATE_SVM, &id),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fake.vms_created, 2);

	/* The driver refuses: the VM is freed, its SVM part undone. */
	fake.init_err = -ENOMEM;
	KUNIT_EXPECT_EQ(test, vm_create(&t->cfile, DRM_COMPUTE_VM_CREATE_SVM, &id), -ENOMEM);
	KUNIT_EXPECT_EQ(test, fake.vms_created, 3);
	KUNIT_EXPECT_EQ(test, fake.vms_freed, 1);
	KUNIT_EXPECT_EQ(test, fake.svm_inits, 1);
	KUNIT_EXPECT_EQ(test, fake.svm_finis, 0);

	/* A second SVM VM, then destroy both: fini before free. */
	KUNIT_ASSERT_EQ(test, vm_create(&t->cfile, DRM_COMPUTE_VM_CREATE_SVM, &id), 0);
	KUNIT_EXPECT_EQ(test, fake.svm_inits, 2);
	KUNIT_EXPECT_EQ(test, drm_compute_vm_destroy_ioctl(&t->cfile, &vd), 0);
	vd.vm_id = id;
	KUNIT_EXPECT_EQ(test, drm_compute_vm_destroy_ioctl(&t->cfile, &vd), 0);
	KUNIT_EXPECT_EQ(test, fake.svm_finis, 2);
	KUNIT_EXPECT_EQ(test, fake.vms_freed, 3);
	KUNIT_EXPECT_FALSE(test, fake.freed_before_fini);
}

static void unsupported(struct kunit *test)
{
	struct svm_t *t = svm_t_of(test);
	struct drm_compute_svm args = op_args(test, DRM_COMPUTE_SVM_OP_SET_ATTR,
					      upg(test, 1), PAGE_SIZE, 1);
	struct drm_compute_svm sent;
	u32 id;

	KUNIT_ASSERT_EQ(test, vm_create(&t->plain_cfile, 0, &id), 0);
	args.vm_id = id;
	sent = args;
	KUNIT_EXPECT_EQ(test, drm_compute_svm_ioctl(&t->plain_cfile, &args), -EOPNOTSUPP);
	KUNIT_EXPECT_MEMEQ(test, &args, &sent, sizeof(args));
	/* Whatever the argument. */
	args.flags = 1;
	args.op = 0;
	args.nattr = 0;
	sent = args;
	KUNIT_EXPECT_EQ(test, drm_compute_svm_ioctl(&t->plain_cfile, &args), -EOPNOTSUPP);
	KUNIT_EXPECT_MEMEQ(test, &args, &sent, sizeof(args));
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 0);
}

static void set_then_get(struct kunit *test)
{
	struct svm_t *t = svm_t_of(test);
	const u32 own = t->cdev.id, other = t->other_cdev.id;
	const u32 ro = DRM_COMPUTE_SVM_FLAG_GPU_RO, exec = DRM_COMPUTE_SVM_FLAG_GPU_EXEC;
	const u32 host = DRM_COMPUTE_SVM_FLAG_HOST_ACCESS;
	const u32 coherent = DRM_COMPUTE_SVM_FLAG_COHERENT;
	const struct drm_compute_svm_attr set[] = {
		{ DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, own },
		{ DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, DRM_COMPUTE_SVM_LOCATION_SYSMEM },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE, own },
		{ DRM_COMPUTE_SVM_ATTR_NO_ACCESS, other },
		{ DRM_COMPUTE_SVM_ATTR_SET_FLAGS, ro | exec },
		{ DRM_COMPUTE_SVM_ATTR_CLR_FLAGS, host },
		{ DRM_COMPUTE_SVM_ATTR_GRANULARITY, 4 },
	};
	struct drm_compute_svm_attr get[] = {
		{ DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, 0 },
		{ DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, 0 },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS, own },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS, other },
		{ DRM_COMPUTE_SVM_ATTR_SET_FLAGS, 0 },
		{ DRM_COMPUTE_SVM_ATTR_CLR_FLAGS, 0 },
		{ DRM_COMPUTE_SVM_ATTR_GRANULARITY, 0 },
	};
	struct drm_compute_svm_attr query[ARRAY_SIZE(get)];
	struct drm_compute_svm args, sent;

	/* Untouched memory has the defaults. */
	memcpy(query, get, sizeof(get));
	KUNIT_ASSERT_EQ(test, svm_op(test, DRM_COMPUTE_SVM_OP_GET_ATTR, upg(test, 1),
				     10 * PAGE_SIZE, query, ARRAY_SIZE(query)), 0);
	KUNIT_EXPECT_EQ(test, query[0].value, DRM_COMPUTE_SVM_LOCATION_UNDEFINED);
	KUNIT_EXPECT_EQ(test, query[1].value, DRM_COMPUTE_SVM_LOCATION_UNDEFINED);
	KUNIT_EXPECT_EQ(test, query[2].type, (u32)DRM_COMPUTE_SVM_ATTR_ACCESS);
	KUNIT_EXPECT_EQ(test, query[3].type, (u32)DRM_COMPUTE_SVM_ATTR_ACCESS);
	KUNIT_EXPECT_EQ(test, query[4].value, host | coherent);
	KUNIT_EXPECT_EQ(test, query[5].value, DRM_COMPUTE_SVM_FLAGS_KNOWN & ~(host | coherent));
	KUNIT_EXPECT_EQ(test, query[6].value, (u32)DRM_COMPUTE_SVM_GRANULARITY_DEFAULT);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 0);

	/* SET on pages 2..5 through the handler: the driver hears of it. */
	put_attrs(test, set, ARRAY_SIZE(set));
	args = op_args(test, DRM_COMPUTE_SVM_OP_SET_ATTR, upg(test, 2), 4 * PAGE_SIZE,
		       ARRAY_SIZE(set));
	sent = args;
	KUNIT_ASSERT_EQ(test, drm_compute_svm_ioctl(&t->cfile, &args), 0);
	KUNIT_EXPECT_MEMEQ(test, &args, &sent, sizeof(args));
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 1);
	KUNIT_EXPECT_TRUE(test, fake.set_locked);
	KUNIT_EXPECT_EQ(test, fake.set_start, upg(test, 2));
	KUNIT_EXPECT_EQ(test, fake.set_size, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, fake.set_nattr, (u32)ARRAY_SIZE(set));
	KUNIT_EXPECT_MEMEQ(test, fake.set_attrs, set, sizeof(set));
	/* ... after the store changed. */
	KUNIT_EXPECT_EQ(test, fake.set_store.preferred_loc, own);
	KUNIT_EXPECT_EQ(test, fake.set_store.granularity, 4);
	KUNIT_EXPECT_EQ(test, fake.set_store.flags, coherent | ro | exec);

	/* GET over exactly that range. */
	memcpy(query, get, sizeof(get));
	KUNIT_ASSERT_EQ(test, svm_op(test, DRM_COMPUTE_SVM_OP_GET_ATTR, upg(test, 2),
				     4 * PAGE_SIZE, query, ARRAY_SIZE(query)), 0);
	KUNIT_EXPECT_EQ(test, query[0].value, own);
	KUNIT_EXPECT_EQ(test, query[1].value, DRM_COMPUTE_SVM_LOCATION_SYSMEM);
	KUNIT_EXPECT_EQ(test, query[2].type, (u32)DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE);
	KUNIT_EXPECT_EQ(test, query[2].value, own);
	KUNIT_EXPECT_EQ(test, query[3].type, (u32)DRM_COMPUTE_SVM_ATTR_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, query[3].value, other);
	KUNIT_EXPECT_EQ(test, query[4].value, coherent | ro | exec);
	KUNIT_EXPECT_EQ(test, query[5].value,
			DRM_COMPUTE_SVM_FLAGS_KNOWN & ~(coherent | ro | exec));
	KUNIT_EXPECT_EQ(test, query[6].value, 4u);

	/* GET over more, with defaults on page 1: KFD's mixing rules. */
	memcpy(query, get, sizeof(get));
	KUNIT_ASSERT_EQ(test, svm_op(test, DRM_COMPUTE_SVM_OP_GET_ATTR, upg(test, 1),
				     5 * PAGE_SIZE, query, ARRAY_SIZE(query)), 0);
	KUNIT_EXPECT_EQ(test, query[0].value, DRM_COMPUTE_SVM_LOCATION_UNDEFINED);
	KUNIT_EXPECT_EQ(test, query[1].value, DRM_COMPUTE_SVM_LOCATION_UNDEFINED);
	KUNIT_EXPECT_EQ(test, query[2].type, (u32)DRM_COMPUTE_SVM_ATTR_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, query[3].type, (u32)DRM_COMPUTE_SVM_ATTR_NO_ACCESS);
	KUNIT_EXPECT_EQ(test, query[4].value, coherent);
	KUNIT_EXPECT_EQ(test, query[5].value,
			DRM_COMPUTE_SVM_FLAGS_KNOWN & ~(coherent | ro | exec | host));
	KUNIT_EXPECT_EQ(test, query[6].value, 4u);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 1);

	/* SET back to the defaults: the store is empty again. */
	{
		const struct drm_compute_svm_attr back[] = {
			{ DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, DRM_COMPUTE_SVM_LOCATION_UNDEFINED },
			{ DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, DRM_COMPUTE_SVM_LOCATION_UNDEFINED },
			{ DRM_COMPUTE_SVM_ATTR_ACCESS, own },
			{ DRM_COMPUTE_SVM_ATTR_ACCESS, other },
			{ DRM_COMPUTE_SVM_ATTR_SET_FLAGS, host },
			{ DRM_COMPUTE_SVM_ATTR_CLR_FLAGS, ro | exec },
			{ DRM_COMPUTE_SVM_ATTR_GRANULARITY,
			  DRM_COMPUTE_SVM_GRANULARITY_DEFAULT },
		};
		char *empty;

		KUNIT_ASSERT_EQ(test, svm_set(test, upg(test, 1), 8 * PAGE_SIZE, back,
					      ARRAY_SIZE(back)), 0);
		empty = snapshot(test);
		KUNIT_EXPECT_EQ(test, strncmp(empty, "[10000+", 7), 0);
		KUNIT_EXPECT_PTR_EQ(test, strchr(empty + 1, '['), NULL);
		KUNIT_EXPECT_EQ(test, fake.attr_sets, 2);
	}
}

/*
 * Failing calls. Ids and addresses that depend on the fixture are written
 * as sentinels and resolved at run time.
 */
enum {
	ID_OWN = 0xfffff000,	/* this VM's device */
	ID_OTHER,		/* another device with SVM */
	ID_PLAIN,		/* a device without SVM */
	ID_NONE,		/* no device */
};

enum kind {
	K_VM,		/* vm_id = value (ID_PLAIN: the plain VM of the file) */
	K_RANGE,	/* [page start, page end) of the region, start in pages */
	K_PTR,		/* attrs: P_* */
	K_ATTR,		/* the one attribute */
};

enum { P_NULL, P_HOLE, P_STRADDLE, P_KERNEL };

struct reject_case {
	const char *name;
	enum kind kind;
	u64 a, b;
	struct drm_compute_svm_attr attr;
	int set_err;
	int get_err;
};

static const struct reject_case reject_cases[] = {
	{ "vm-unknown", K_VM, 99, 0, {}, -ENOENT, -ENOENT },
	{ "vm-zero", K_VM, 0, 0, {}, -ENOENT, -ENOENT },
	{ "vm-without-svm", K_VM, ID_PLAIN, 0, {}, -EINVAL, -EINVAL },
	{ "attrs-null", K_PTR, P_NULL, 0, {}, -EFAULT, -EFAULT },
	{ "attrs-in-hole", K_PTR, P_HOLE, 0, {}, -EFAULT, -EFAULT },
	{ "attrs-run-into-hole", K_PTR, P_STRADDLE, 0, {}, -EFAULT, -EFAULT },
	{ "attrs-kernel-address", K_PTR, P_KERNEL, 0, {}, -EFAULT, -EFAULT },
	{ "range-tail-unmapped", K_RANGE, 8, 14, {}, -EFAULT, -EFAULT },
	{ "range-in-hole", K_RANGE, 12, 16, {}, -EFAULT, -EFAULT },
	{ "range-before-region", K_RANGE, -2, 2, {}, -EFAULT, -EFAULT },
	{ "type-unknown", K_ATTR, 0, 0, { 8, 0 }, -EINVAL, -EINVAL },
	{ "type-top", K_ATTR, 0, 0, { U32_MAX, 0 }, -EINVAL, -EINVAL },
	{ "flag-unknown", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_SET_FLAGS, BIT(8) }, -EINVAL, 0 },
	/* Stored and reported, changing nothing, before issue 23. */
	{ "flag-not-honoured", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_SET_FLAGS, DRM_COMPUTE_SVM_FLAG_HIVE_LOCAL }, -EOPNOTSUPP, 0 },
	{ "clr-flag-unknown", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_CLR_FLAGS, BIT(31) }, -EINVAL, 0 },
	{ "granularity-too-big", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_GRANULARITY, DRM_COMPUTE_SVM_GRANULARITY_MAX + 1 },
	  -EINVAL, 0 },
	{ "preferred-other-device", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, ID_OTHER }, -EINVAL, 0 },
	{ "prefetch-no-device", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, ID_NONE }, -EINVAL, 0 },
	{ "access-no-device", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_ACCESS, ID_NONE }, -EINVAL, -EINVAL },
	{ "access-device-without-svm", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE, ID_PLAIN }, -EINVAL, -EINVAL },
	{ "access-sysmem", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_NO_ACCESS, DRM_COMPUTE_SVM_LOCATION_SYSMEM },
	  -EINVAL, -EINVAL },
	{ "access-undefined", K_ATTR, 0, 0,
	  { DRM_COMPUTE_SVM_ATTR_ACCESS, DRM_COMPUTE_SVM_LOCATION_UNDEFINED },
	  -EINVAL, -EINVAL },
};

static void reject_case_desc(const struct reject_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reject_case, reject_cases, reject_case_desc);

static u32 resolve_id(struct kunit *test, u32 v)
{
	switch (v) {
	case ID_OWN: return svm_t_of(test)->cdev.id;
	case ID_OTHER: return svm_t_of(test)->other_cdev.id;
	case ID_PLAIN: return svm_t_of(test)->plain_cdev.id;
	/* Ids are at most INT_MAX. */
	case ID_NONE: return (u32)INT_MAX + 1;
	}
	return v;
}

static void reject_one(struct kunit *test, const struct reject_case *c, u32 op)
{
	struct svm_t *t = svm_t_of(test);
	struct drm_compute_svm_attr attrs[2] = {
		{ DRM_COMPUTE_SVM_ATTR_GRANULARITY, 3 },
		{ DRM_COMPUTE_SVM_ATTR_ACCESS, t->cdev.id },
	}, after[2];
	struct drm_compute_svm args = op_args(test, op, upg(test, 1), 4 * PAGE_SIZE, 2);
	struct drm_compute_svm sent;
	int want = op == DRM_COMPUTE_SVM_OP_SET_ATTR ? c->set_err : c->get_err;
	int sets = fake.attr_sets;
	char *before;

	switch (c->kind) {
	case K_VM:
		args.vm_id = c->a == ID_PLAIN ? t->plain_vm : c->a;
		break;
	case K_RANGE:
		args.start = upg(test, 0) + (s64)c->a * (s64)PAGE_SIZE;
		args.size = (c->b - c->a) * PAGE_SIZE;
		break;
	case K_PTR:
		switch (c->a) {
		case P_NULL:
			args.attrs = 0;
			break;
		case P_HOLE:
			args.attrs = upg(test, MAPPED_PAGES);
			break;
		case P_STRADDLE:
			args.attrs = upg(test, MAPPED_PAGES) - sizeof(attrs[0]);
			break;
		default:
			args.attrs = (uintptr_t)attrs;
			break;
		}
		break;
	case K_ATTR:
		attrs[1] = c->attr;
		attrs[1].value = resolve_id(test, c->attr.value);
		break;
	}

	put_attrs(test, attrs, 2);
	before = snapshot(test);
	sent = args;
	KUNIT_EXPECT_EQ_MSG(test, drm_compute_svm_ioctl(&t->cfile, &args), want,
			    "%s", op == DRM_COMPUTE_SVM_OP_SET_ATTR ? "SET" : "GET");
	/* Nothing changed: the store, the driver, the argument, the array. */
	KUNIT_EXPECT_STREQ(test, snapshot(test), before);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, sets);
	KUNIT_EXPECT_MEMEQ(test, &args, &sent, sizeof(args));
	if (want) {
		read_attrs(test, after, 2);
		KUNIT_EXPECT_MEMEQ(test, after, attrs, sizeof(attrs));
	}
}

static void rejects(struct kunit *test)
{
	const struct reject_case *c = test->param_value;
	const struct drm_compute_svm_attr some[] = {
		{ DRM_COMPUTE_SVM_ATTR_SET_FLAGS, DRM_COMPUTE_SVM_FLAG_GPU_RO },
	};

	/* Something set already, on pages 3..8 (crossing the range used). */
	KUNIT_ASSERT_EQ(test, svm_set(test, upg(test, 3), 6 * PAGE_SIZE, some, 1), 0);
	reject_one(test, c, DRM_COMPUTE_SVM_OP_SET_ATTR);
	reject_one(test, c, DRM_COMPUTE_SVM_OP_GET_ATTR);
}

struct remote_call {
	struct work_struct work;
	struct drm_compute_file *cfile;
	int (*fn)(struct drm_compute_file *cfile, void *data);
	void *data;
	int ret;
};

static void remote_fn(struct work_struct *work)
{
	struct remote_call *rc = container_of(work, struct remote_call, work);

	rc->ret = rc->fn(rc->cfile, rc->data);
}

/* Call an ioctl handler from a kworker: a task with another (no) mm. */
static int call_elsewhere(struct drm_compute_file *cfile,
			  int (*fn)(struct drm_compute_file *cfile, void *data),
			  void *data)
{
	struct remote_call rc = { .cfile = cfile, .fn = fn, .data = data };

	INIT_WORK_ONSTACK(&rc.work, remote_fn);
	schedule_work(&rc.work);
	flush_work(&rc.work);
	destroy_work_on_stack(&rc.work);
	return rc.ret;
}

static const struct drm_compute_userq_create good_queue = {
	.format = DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE,
	.priority = 7,
	.ring_va = SZ_1M,
	.ring_size = SZ_64K,
	.rptr_va = SZ_2M,
	.ctx_save_va = SZ_4M,
	.ctx_save_size = PAGE_SIZE,
};

static void other_process(struct kunit *test)
{
	struct svm_t *t = svm_t_of(test);
	const struct drm_compute_svm_attr a = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 2 };
	struct drm_compute_svm args;
	struct drm_compute_userq_create qc;
	struct drm_compute_vm_create vc = { .flags = DRM_COMPUTE_VM_CREATE_SVM };
	char *before;

	put_attrs(test, &a, 1);
	before = snapshot(test);
	args = op_args(test, DRM_COMPUTE_SVM_OP_SET_ATTR, upg(test, 1), PAGE_SIZE, 1);
	KUNIT_EXPECT_EQ(test, call_elsewhere(&t->cfile, drm_compute_svm_ioctl, &args),
			-EPERM);
	args.op = DRM_COMPUTE_SVM_OP_GET_ATTR;
	KUNIT_EXPECT_EQ(test, call_elsewhere(&t->cfile, drm_compute_svm_ioctl, &args),
			-EPERM);
	KUNIT_EXPECT_STREQ(test, snapshot(test), before);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 0);

	/* No queue on another process's SVM VM; on a plain VM, yes. */
	qc = good_queue;
	qc.vm_id = t->svm_vm;
	KUNIT_EXPECT_EQ(test, call_elsewhere(&t->cfile, drm_compute_userq_create_ioctl, &qc),
			-EPERM);
	KUNIT_EXPECT_EQ(test, qc.queue_id, 0u);
	KUNIT_EXPECT_EQ(test, fake.queues_created, 0);
	qc.vm_id = t->plain_vm;
	KUNIT_EXPECT_EQ(test, call_elsewhere(&t->cfile, drm_compute_userq_create_ioctl, &qc),
			0);
	qc = good_queue;
	qc.vm_id = t->svm_vm;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_create_ioctl(&t->cfile, &qc), 0);
	KUNIT_EXPECT_EQ(test, fake.queues_created, 2);

	/* A task without an address space has nothing to mirror. */
	KUNIT_EXPECT_EQ(test, call_elsewhere(&t->cfile, drm_compute_vm_create_ioctl, &vc),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vc.vm_id, 0u);
	KUNIT_EXPECT_EQ(test, fake.svm_inits, 1);

	/* The owner still can. */
	KUNIT_EXPECT_EQ(test, svm_set(test, upg(test, 1), PAGE_SIZE, &a, 1), 0);
}

/* A mapping HMM cannot mirror (VM_IO, as a device's mmap has) is refused. */
static void unmirrorable_mapping(struct kunit *test)
{
	const struct drm_compute_svm_attr a = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 2 };
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	char *before = snapshot(test);
	bool found;

	/*
	 * The flag on an anonymous mapping of the test: its pages stay
	 * ordinary pages (vm_normal_page() looks at VM_PFNMAP and
	 * VM_MIXEDMAP, not VM_IO), and it is cleared again below.
	 */
	mmap_write_lock(mm);
	vma = vma_lookup(mm, upg(test, 4));
	found = vma;
	if (vma)
		vm_flags_set(vma, VM_IO);
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE(test, found);

	KUNIT_EXPECT_EQ(test, svm_set(test, upg(test, 4), PAGE_SIZE, &a, 1), -EFAULT);
	KUNIT_EXPECT_STREQ(test, snapshot(test), before);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 0);

	mmap_write_lock(mm);
	vma = vma_lookup(mm, upg(test, 4));
	if (vma)
		vm_flags_clear(vma, VM_IO);
	mmap_write_unlock(mm);
	KUNIT_EXPECT_EQ(test, svm_set(test, upg(test, 4), PAGE_SIZE, &a, 1), 0);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 1);
}

/* The answers of a GET that cannot be written back: -EFAULT, nothing else. */
static void get_unwritable(struct kunit *test)
{
	struct svm_t *t = svm_t_of(test);
	struct drm_compute_svm_attr a = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 0 };
	struct drm_compute_svm args;
	unsigned long ro;

	/* A read-only page reads as zeros: PREFERRED_LOC (type 0) queries. */
	ro = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
			   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, ro, 0);
	args = op_args(test, DRM_COMPUTE_SVM_OP_GET_ATTR, upg(test, 1), PAGE_SIZE, 4);
	args.attrs = ro;
	KUNIT_EXPECT_EQ(test, drm_compute_svm_ioctl(&t->cfile, &args), -EFAULT);
	/* A SET reads it fine: four times "no preferred location" (0 = SYSMEM). */
	args.op = DRM_COMPUTE_SVM_OP_SET_ATTR;
	KUNIT_EXPECT_EQ(test, drm_compute_svm_ioctl(&t->cfile, &args), 0);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 1);
	a.type = DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC;
	KUNIT_ASSERT_EQ(test, svm_op(test, DRM_COMPUTE_SVM_OP_GET_ATTR, upg(test, 1),
				     PAGE_SIZE, &a, 1), 0);
	KUNIT_EXPECT_EQ(test, a.value, DRM_COMPUTE_SVM_LOCATION_SYSMEM);
}

/* Sixteen devices per VM over its life, as the store allows, through the uapi. */
static void many_devices(struct kunit *test)
{
	struct svm_t *t = svm_t_of(test);
	const unsigned int n = DRM_COMPUTE_SVM_MAX_DEVICES + 1;
	struct drm_compute_svm_attr a[DRM_COMPUTE_SVM_MAX_DEVICES + 1];
	struct drm_compute_device *devs;
	unsigned int i;
	char *before;

	devs = kunit_kcalloc(test, n, sizeof(*devs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, devs);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, drm_compute_device_init(&devs[i], t->drm, &info,
							      &svm_ops), 0);
		a[i].type = DRM_COMPUTE_SVM_ATTR_NO_ACCESS;
		a[i].value = devs[i].id;
	}
	before = snapshot(test);
	KUNIT_EXPECT_EQ(test, svm_set(test, upg(test, 1), PAGE_SIZE, a, n), -EINVAL);
	KUNIT_EXPECT_STREQ(test, snapshot(test), before);
	KUNIT_EXPECT_EQ(test, svm_set(test, upg(test, 1), PAGE_SIZE, a, n - 1), 0);
	/* A device that has gone is no longer a valid name. */
	drm_compute_device_fini(&devs[0]);
	before = snapshot(test);
	KUNIT_EXPECT_EQ(test, svm_set(test, upg(test, 2), PAGE_SIZE, a, 1), -EINVAL);
	KUNIT_EXPECT_STREQ(test, snapshot(test), before);
	KUNIT_EXPECT_EQ(test, fake.attr_sets, 1);
	for (i = 1; i < n; i++)
		drm_compute_device_fini(&devs[i]);
}

static struct kunit_case drm_compute_svm_tests[] = {
	KUNIT_CASE(features_need_svm_ops),
	KUNIT_CASE(device_ids),
	KUNIT_CASE_PARAM(args_rules, args_case_gen_params),
	{}
};

static struct kunit_suite drm_compute_svm_suite = {
	.name = "drm_compute_svm",
	.test_cases = drm_compute_svm_tests,
};

/*
 * The munmap watcher covers the memory that has attributes, and only that
 * (issue 23: it used to span the device's whole VA range, so every munmap
 * of the process went through it): nothing before the first SET_ATTR, the
 * span of what holds attributes after each.
 */
static void watch_follows_attributes(struct kunit *test)
{
	const struct drm_compute_svm_attr gran = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 3 };
	struct drm_compute_vm *vm = svm_vm(test);

	KUNIT_EXPECT_EQ(test, vm->svm.watch_cur, -1);
	KUNIT_ASSERT_EQ(test, svm_set(test, upg(test, 2), 4 * PAGE_SIZE, &gran, 1), 0);
	KUNIT_EXPECT_GE(test, vm->svm.watch_cur, 0);
	KUNIT_EXPECT_EQ(test, vm->svm.watch_start, upg(test, 2));
	KUNIT_EXPECT_EQ(test, vm->svm.watch_end, upg(test, 6));
	KUNIT_ASSERT_EQ(test, svm_set(test, upg(test, 8), 2 * PAGE_SIZE, &gran, 1), 0);
	KUNIT_EXPECT_EQ(test, vm->svm.watch_start, upg(test, 2));
	KUNIT_EXPECT_EQ(test, vm->svm.watch_end, upg(test, 10));
	/* Unmapped: the attributes of pages 8..9 go, and the watch narrows. */
	KUNIT_ASSERT_EQ(test, vm_munmap(upg(test, 8), 2 * PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, svm_set(test, upg(test, 3), PAGE_SIZE, &gran, 1), 0);
	KUNIT_EXPECT_EQ(test, vm->svm.watch_start, upg(test, 2));
	KUNIT_EXPECT_EQ(test, vm->svm.watch_end, upg(test, 6));
}

static struct kunit_case drm_compute_svm_ioctl_tests[] = {
	KUNIT_CASE(vm_create_flags),
	KUNIT_CASE(unsupported),
	KUNIT_CASE(set_then_get),
	KUNIT_CASE(chunk_end),
	KUNIT_CASE_PARAM(rejects, reject_case_gen_params),
	KUNIT_CASE(other_process),
	KUNIT_CASE(unmirrorable_mapping),
	KUNIT_CASE(get_unwritable),
	KUNIT_CASE(many_devices),
	KUNIT_CASE(watch_follows_attributes),
	{}
};

static struct kunit_suite drm_compute_svm_ioctl_suite = {
	.name = "drm_compute_svm_ioctl",
	.init = svm_init,
	.exit = svm_exit,
	.test_cases = drm_compute_svm_ioctl_tests,
};

/*
 * The fault policy (drm_compute_svm_fault_decide()), one row per rule and
 * per pair of rules that meet: what every driver's mirror does for an
 * access, decided here once.
 */
#define RO	DRM_COMPUTE_SVM_FLAG_GPU_RO
#define EXEC	DRM_COMPUTE_SVM_FLAG_GPU_EXEC
#define RM	DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY
#define AM	DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED
#define COH	DRM_COMPUTE_SVM_FLAG_COHERENT
#define XCOH	DRM_COMPUTE_SVM_FLAG_EXT_COHERENT
#define M_W	DRM_COMPUTE_SVM_MAP_WRITE
#define M_X	DRM_COMPUTE_SVM_MAP_EXEC
#define M_C	DRM_COMPUTE_SVM_MAP_COHERENT
#define M_COPY	DRM_COMPUTE_SVM_MAP_COPY
#define M_AM	DRM_COMPUTE_SVM_MAP_ALWAYS
#define ACC	DRM_COMPUTE_SVM_MODE_ACCESS
#define INPL	DRM_COMPUTE_SVM_MODE_ACCESS_IN_PLACE
#define NOACC	DRM_COMPUTE_SVM_MODE_NO_ACCESS

struct policy_case {
	const char *name;
	struct drm_compute_svm_fault_facts facts;
	struct drm_compute_svm_fault_plan plan;
};

static const struct policy_case policy_cases[] = {
	{ "read", { ACC, 0 }, { 0, false, false, M_W } },
	{ "write", { ACC, 0, .write = true }, { 0, false, false, M_W } },
	{ "no-access read", { NOACC, 0 }, { DRM_COMPUTE_FAULT_UNMAPPED } },
	{ "no-access write", { NOACC, RO, .write = true },
	  { DRM_COMPUTE_FAULT_UNMAPPED } },
	{ "no-access ahead", { NOACC, AM, .ahead = true },
	  { DRM_COMPUTE_FAULT_UNMAPPED } },
	{ "no-access preferred", { NOACC, 0, .preferred_here = true },
	  { DRM_COMPUTE_FAULT_UNMAPPED } },
	{ "gpu-ro read", { ACC, RO }, { 0, false, true, 0 } },
	{ "gpu-ro write", { ACC, RO, .write = true }, { DRM_COMPUTE_FAULT_WRITE } },
	{ "cpu-ro read", { ACC, 0, .cpu_read_only = true }, { 0, false, true, 0 } },
	{ "cpu-ro write", { ACC, 0, .write = true, .cpu_read_only = true },
	  { DRM_COMPUTE_FAULT_WRITE } },
	{ "exec", { ACC, EXEC }, { 0, false, false, M_W | M_X } },
	{ "exec gpu-ro", { ACC, EXEC | RO }, { 0, false, true, M_X } },
	{ "coherent", { ACC, COH }, { 0, false, false, M_W | M_C } },
	{ "ext-coherent", { ACC, XCOH }, { 0, false, false, M_W | M_C } },
	{ "preferred read", { ACC, 0, .preferred_here = true }, { 0, true, false, M_W } },
	{ "preferred write", { ACC, 0, .preferred_here = true, .write = true },
	  { 0, true, false, M_W } },
	{ "preferred in place", { INPL, 0, .preferred_here = true },
	  { 0, false, false, M_W } },
	{ "preferred ahead", { ACC, AM, .preferred_here = true, .ahead = true },
	  { 0, false, false, M_W | M_AM } },
	{ "preferred gpu-ro", { ACC, RO, .preferred_here = true }, { 0, true, true, 0 } },
	{ "preferred cpu-ro", { ACC, 0, .preferred_here = true, .cpu_read_only = true },
	  { 0, true, true, 0 } },
	{ "read-mostly read", { ACC, RM }, { 0, false, true, M_COPY } },
	{ "read-mostly write", { ACC, RM, .write = true }, { 0, false, false, M_W } },
	{ "read-mostly preferred read", { ACC, RM, .preferred_here = true },
	  { 0, false, true, M_COPY } },
	{ "read-mostly preferred write", { ACC, RM, .preferred_here = true, .write = true },
	  { 0, true, false, M_W } },
	{ "read-mostly gpu-ro write", { ACC, RM | RO, .write = true },
	  { DRM_COMPUTE_FAULT_WRITE } },
	{ "read-mostly cpu-ro read", { ACC, RM, .cpu_read_only = true },
	  { 0, false, true, M_COPY } },
	{ "always-mapped", { ACC, AM }, { 0, false, false, M_W | M_AM } },
	{ "always-mapped ahead gpu-ro", { ACC, AM | RO, .ahead = true },
	  { 0, false, true, M_AM } },
	{ "everything read", { ACC, RM | EXEC | COH | AM, .preferred_here = true },
	  { 0, false, true, M_COPY | M_X | M_C | M_AM } },
	/* Flags the policy has nothing to do with change nothing. */
	{ "host-access hive-local",
	  { ACC, DRM_COMPUTE_SVM_FLAG_HOST_ACCESS | DRM_COMPUTE_SVM_FLAG_HIVE_LOCAL },
	  { 0, false, false, M_W } },
};

static void policy_case_desc(const struct policy_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(policy, policy_cases, policy_case_desc);

static void policy_table(struct kunit *test)
{
	const struct policy_case *c = test->param_value;
	struct drm_compute_svm_fault_plan p = drm_compute_svm_fault_decide(&c->facts);

	KUNIT_EXPECT_EQ(test, p.fault, c->plan.fault);
	if (c->plan.fault)
		return;
	KUNIT_EXPECT_EQ(test, p.migrate, c->plan.migrate);
	KUNIT_EXPECT_EQ(test, p.read_only, c->plan.read_only);
	KUNIT_EXPECT_EQ(test, p.map, c->plan.map);
}

/*
 * Invariants over every combination of the facts: a plan never maps
 * writable what it gets read-only, never migrates ahead of an access or for
 * a read-only copy, and faults only on NO_ACCESS or a write it cannot map.
 */
static void policy_invariants(struct kunit *test)
{
	static const enum drm_compute_svm_access_mode modes[] = { ACC, INPL, NOACC };
	unsigned int m, bits;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		/* Every flag the uapi knows (bits 0-7), then the four booleans. */
		for (bits = 0; bits < (1u << 12); bits++) {
			struct drm_compute_svm_fault_facts f = {
				.mode = modes[m],
				.flags = bits & DRM_COMPUTE_SVM_FLAGS_KNOWN,
				.preferred_here = bits & BIT(8),
				.write = bits & BIT(9),
				.ahead = bits & BIT(10),
				.cpu_read_only = bits & BIT(11),
			};
			struct drm_compute_svm_fault_plan p = drm_compute_svm_fault_decide(&f);
			bool ro = f.flags & RO || f.cpu_read_only;

			if (f.mode == NOACC) {
				KUNIT_EXPECT_EQ(test, p.fault, DRM_COMPUTE_FAULT_UNMAPPED);
				continue;
			}
			if (ro && f.write) {
				KUNIT_EXPECT_EQ(test, p.fault, DRM_COMPUTE_FAULT_WRITE);
				continue;
			}
			KUNIT_EXPECT_EQ(test, p.fault, 0);
			KUNIT_EXPECT_EQ(test, !!(p.map & M_W), !p.read_only);
			KUNIT_EXPECT_EQ(test, p.read_only, ro || (f.flags & RM && !f.write));
			if (f.write)
				KUNIT_EXPECT_TRUE(test, p.map & M_W);
			if (p.migrate)
				KUNIT_EXPECT_TRUE(test, f.preferred_here && !f.ahead &&
						  f.mode != INPL && !(p.map & M_COPY));
			KUNIT_EXPECT_EQ(test, !!(p.map & M_X), !!(f.flags & EXEC));
			KUNIT_EXPECT_EQ(test, !!(p.map & M_AM), !!(f.flags & AM));
			KUNIT_EXPECT_EQ(test, !!(p.map & M_C), !!(f.flags & (COH | XCOH)));
		}
	}
}

static struct kunit_case drm_compute_svm_policy_tests[] = {
	KUNIT_CASE_PARAM(policy_table, policy_gen_params),
	KUNIT_CASE(policy_invariants),
	{}
};

static struct kunit_suite drm_compute_svm_policy_suite = {
	.name = "drm_compute_svm_policy",
	.test_cases = drm_compute_svm_policy_tests,
};

kunit_test_suites(&drm_compute_svm_suite, &drm_compute_svm_ioctl_suite,
		  &drm_compute_svm_policy_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers' SVM operation");
MODULE_LICENSE("Dual MIT/GPL");
