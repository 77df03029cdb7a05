// SPDX-License-Identifier: MIT
/*
 * KUnit tests of the DRM compute helpers' user queues: the creation rules
 * (arguments, priorities, CU masks) and the state machine with its fence,
 * waits and hang detection, driven through the ioctl handlers against a
 * fake driver.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
#include <drm/drm_drv.h>
#include <drm/drm_kunit_helpers.h>

#include "../drm_compute_internal.h"

static const struct drm_compute_dev_info info = {
	.placements = DRM_COMPUTE_PLACEMENT_SYSTEM,
	.va_start = SZ_64K,
	.va_end = 1ULL << 47,
	.page_size = PAGE_SIZE,
	.max_vms = 2,
	.max_queues = 2,
	.num_priorities = 16,
	.priority_default = 7,
	.priority_privileged = 12,
	.num_cus = 40,
	.queue_formats = BIT(DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE),
	.doorbell_size = PAGE_SIZE,
	.ring_size_min = SZ_4K,
	.ring_size_max = SZ_4M,
	.ctx_save_size = PAGE_SIZE,
};

static const struct drm_compute_userq_create good_args = {
	.vm_id = 1,
	.format = DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE,
	.priority = 7,
	.ring_va = SZ_1M,
	.ring_size = SZ_64K,
	.rptr_va = SZ_2M,
	.ctx_save_va = SZ_4M,
	.ctx_save_size = PAGE_SIZE,
};

static void args_accept_valid(struct kunit *test)
{
	struct drm_compute_userq_create a = good_args;
	struct drm_compute_dev_info wi = info;

	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&info, &a), 0);
	a.cu_mask_count = 64;
	a.cu_mask_ptr = 0x1000;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&info, &a), 0);
	/* A device that reads the wptr from memory needs its address. */
	wi.userq_caps = DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY;
	a = good_args;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), -EINVAL);
	a.wptr_va = SZ_2M + 8;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), 0);
	/* And one that reads its fence from memory, the fence slot. */
	wi.userq_caps |= DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), -EINVAL);
	a.fence_va = SZ_2M + 12;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), -EINVAL);
	a.fence_va = SZ_2M + 16;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), 0);
	/* A device without a save area takes none. */
	wi.ctx_save_size = 0;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), -EINVAL);
	a.ctx_save_va = 0;
	a.ctx_save_size = 0;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&wi, &a), 0);
}

/* A field of the argument set to a value; up to two per case. */
struct field_set {
	size_t off;
	size_t size;
	u64 val;
};

#define SET32(f, v) { offsetof(struct drm_compute_userq_create, f), 4, (v) }
#define SET64(f, v) { offsetof(struct drm_compute_userq_create, f), 8, (v) }

struct args_case {
	const char *name;
	struct field_set set[2];
};

static const struct args_case args_cases[] = {
	{ "flags", { SET32(flags, 1) } },
	{ "pad", { SET32(pad, 1) } },
	{ "queue-id-not-zero", { SET32(queue_id, 1) } },
	{ "doorbell-offset-not-zero", { SET64(doorbell_offset, 1) } },
	{ "doorbell-pos-not-zero", { SET32(doorbell_pos, 8) } },
	{ "format-zero", { SET32(format, 0) } },
	{ "format-not-offered", { SET32(format, DRM_COMPUTE_QUEUE_FORMAT_AMD_AQL) } },
	{ "format-out-of-range", { SET32(format, 77) } },
	{ "priority-out-of-range", { SET32(priority, 16) } },
	{ "ring-size-not-power-of-2", { SET64(ring_size, SZ_64K + SZ_4K) } },
	{ "ring-too-small", { SET64(ring_size, SZ_2K) } },
	{ "ring-too-big", { SET64(ring_size, SZ_8M), SET64(ring_va, SZ_8M) } },
	{ "ring-va-zero", { SET64(ring_va, 0) } },
	{ "ring-va-unaligned", { SET64(ring_va, SZ_1M + SZ_4K) } },
	{ "rptr-va-zero", { SET64(rptr_va, 0) } },
	{ "rptr-va-unaligned", { SET64(rptr_va, SZ_2M + 4) } },
	{ "wptr-va-not-read", { SET64(wptr_va, SZ_2M + 8) } },
	{ "fence-va-not-read", { SET64(fence_va, SZ_2M + 16) } },
	{ "ctx-save-missing", { SET64(ctx_save_va, 0) } },
	{ "ctx-save-unaligned", { SET64(ctx_save_va, SZ_4M + 64) } },
	{ "ctx-save-too-small", { SET64(ctx_save_size, 64) } },
	{ "cu-count-not-multiple-of-32", { SET32(cu_mask_count, 33), SET64(cu_mask_ptr, 1) } },
	{ "cu-count-past-cus", { SET32(cu_mask_count, 96), SET64(cu_mask_ptr, 1) } },
	{ "cu-mask-null", { SET32(cu_mask_count, 32) } },
};

static void apply(struct drm_compute_userq_create *a, const struct field_set *set)
{
	unsigned int i;

	for (i = 0; i < 2 && set[i].size; i++) {
		void *field = (u8 *)a + set[i].off;

		if (set[i].size == sizeof(u32))
			*(u32 *)field = set[i].val;
		else
			*(u64 *)field = set[i].val;
	}
}

static void args_case_desc(const struct args_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(args_case, args_cases, args_case_desc);

static void args_reject(struct kunit *test)
{
	const struct args_case *c = test->param_value;
	struct drm_compute_userq_create a = good_args;

	apply(&a, c->set);
	KUNIT_EXPECT_EQ(test, drm_compute_userq_args_check(&info, &a), -EINVAL);
}

static void priority_rules(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, 0, false), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, 11, false), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, 12, false), -EACCES);
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, 15, false), -EACCES);
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, 15, true), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, 16, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, drm_compute_priority_check(&info, U32_MAX, true), -EINVAL);
}

static void cu_mask_rules(struct kunit *test)
{
	DECLARE_BITMAP(mask, 40);
	u32 words[3] = { 0x00000005, 0x00000080, 0 };

	KUNIT_EXPECT_EQ(test, drm_compute_cu_mask_parse(&info, NULL, 0, mask), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mask, 40), 40u);

	KUNIT_ASSERT_EQ(test, drm_compute_cu_mask_parse(&info, words, 64, mask), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mask, 40), 3u);
	KUNIT_EXPECT_TRUE(test, test_bit(0, mask) && test_bit(2, mask) && test_bit(39, mask));

	/* Bit 40 is past the last CU. */
	words[1] = 0x100;
	KUNIT_EXPECT_EQ(test, drm_compute_cu_mask_parse(&info, words, 64, mask), -EINVAL);
	/* No CU at all. */
	words[0] = 0;
	words[1] = 0;
	KUNIT_EXPECT_EQ(test, drm_compute_cu_mask_parse(&info, words, 64, mask), -EINVAL);
	/* Counts. */
	words[0] = 1;
	KUNIT_EXPECT_EQ(test, drm_compute_cu_mask_parse(&info, words, 32, mask), 0);
	KUNIT_EXPECT_EQ(test, drm_compute_cu_mask_parse(&info, words, 16, mask), -EINVAL);
	KUNIT_EXPECT_EQ(test, drm_compute_cu_mask_parse(&info, words, 96, mask), -EINVAL);
}

/* ---- the state machine, against a fake driver ---- */

struct fake_vm {
	struct drm_compute_vm base;
};

struct fake_queue {
	struct drm_compute_userq base;
	struct drm_compute_userq_hw hw;
	int started, stopped, suspended, resumed, woken;
	/* userq_hang_check: calls, and the answer to give. */
	int hang_checks;
	bool hang_check_hung;
};

static struct fake_queue *last_queue;
static int vms_created, vms_freed, queues_created, queues_freed;

static struct drm_compute_vm *fake_vm_create(struct drm_compute_file *cfile)
{
	struct fake_vm *vm = kzalloc_obj(*vm);

	if (!vm)
		return ERR_PTR(-ENOMEM);
	vms_created++;
	return &vm->base;
}

static void fake_vm_free(struct drm_compute_vm *vm)
{
	vms_freed++;
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

static struct drm_compute_userq *fake_create(struct drm_compute_file *cfile,
					     const struct drm_compute_userq_args *args,
					     u64 *offset, u32 *pos)
{
	struct fake_queue *q = kzalloc_obj(*q);

	if (!q)
		return ERR_PTR(-ENOMEM);
	*offset = 0x100000;
	*pos = 0;
	last_queue = q;
	queues_created++;
	return &q->base;
}

#define FQ(q) container_of(q, struct fake_queue, base)

static void fake_start(struct drm_compute_userq *q)
{
	FQ(q)->started++;
}

static void fake_stop(struct drm_compute_userq *q)
{
	FQ(q)->stopped++;
}

static void fake_wake(struct drm_compute_userq *q)
{
	FQ(q)->woken++;
}

static void fake_free(struct drm_compute_userq *q)
{
	queues_freed++;
	kfree(FQ(q));
}

static int fake_suspend(struct drm_compute_userq *q)
{
	FQ(q)->suspended++;
	return 0;
}

static int fake_resume(struct drm_compute_userq *q)
{
	FQ(q)->resumed++;
	return 0;
}

static void fake_hw_state(struct drm_compute_userq *q, struct drm_compute_userq_hw *hw)
{
	*hw = FQ(q)->hw;
}

static bool fake_hang_check(struct drm_compute_userq *q)
{
	struct fake_queue *fq = container_of(q, struct fake_queue, base);

	lockdep_assert_held(&q->ctl_lock);
	fq->hang_checks++;
	return fq->hang_check_hung;
}

static const struct drm_compute_ops fake_ops = {
	.bo_create = fake_bo_create,
	.vm_create = fake_vm_create,
	.vm_free = fake_vm_free,
	.vm_bind = fake_vm_bind,
	.userq_create = fake_create,
	.userq_start = fake_start,
	.userq_stop = fake_stop,
	.userq_free = fake_free,
	.userq_suspend = fake_suspend,
	.userq_resume = fake_resume,
	.userq_hw_state = fake_hw_state,
	.userq_wake = fake_wake,
};

struct sm {
	struct drm_device *drm;
	struct drm_compute_device cdev;
	struct drm_compute_file cfile;
	u32 queue_id;
};

static const struct drm_driver fake_driver = {
	.driver_features = DRIVER_RENDER,
};

static int sm_init(struct kunit *test)
{
	struct drm_compute_vm_create vc = { };
	struct drm_compute_userq_create qc = good_args;
	struct device *dev;
	struct sm *sm;

	sm = kunit_kzalloc(test, sizeof(*sm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sm);
	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	sm->drm = __drm_kunit_helper_alloc_drm_device_with_driver(test, dev,
								  sizeof(*sm->drm), 0,
								  &fake_driver);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sm->drm);
	KUNIT_ASSERT_EQ(test, drm_compute_device_init(&sm->cdev, sm->drm, &info,
						      &fake_ops), 0);
	KUNIT_ASSERT_EQ(test, sm->cdev.features, DRM_COMPUTE_FEATURE_USERQ);
	drm_compute_file_init(&sm->cfile, &sm->cdev, NULL);
	vms_created = 0;
	vms_freed = 0;
	queues_created = 0;
	queues_freed = 0;

	KUNIT_ASSERT_EQ(test, drm_compute_vm_create_ioctl(&sm->cfile, &vc), 0);
	KUNIT_ASSERT_EQ(test, vc.vm_id, 1u);
	KUNIT_ASSERT_EQ(test, drm_compute_userq_create_ioctl(&sm->cfile, &qc), 0);
	KUNIT_EXPECT_NE(test, qc.queue_id, 0u);
	KUNIT_EXPECT_EQ(test, qc.doorbell_offset, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, last_queue->started, 1);
	sm->queue_id = qc.queue_id;
	test->priv = sm;
	return 0;
}

static void sm_exit(struct kunit *test)
{
	struct sm *sm = test->priv;

	if (!sm)
		return;
	drm_compute_file_fini(&sm->cfile);
	drm_compute_device_fini(&sm->cdev);
	/* Every object of the file is gone with it. */
	KUNIT_EXPECT_EQ(test, vms_freed, vms_created);
	KUNIT_EXPECT_EQ(test, queues_freed, queues_created);
}

static u32 sm_status(struct kunit *test, struct sm *sm)
{
	struct drm_compute_userq_state st = { .queue_id = sm->queue_id };

	KUNIT_EXPECT_EQ(test, drm_compute_userq_state_ioctl(&sm->cfile, &st), 0);
	return st.status;
}

static int sm_control(struct sm *sm, u32 op)
{
	struct drm_compute_userq_control c = { .queue_id = sm->queue_id, .op = op };

	return drm_compute_userq_control_ioctl(&sm->cfile, &c);
}

static int sm_wait(struct sm *sm, u64 value)
{
	struct drm_compute_userq_wait w = { .queue_id = sm->queue_id, .value = value };

	return drm_compute_userq_wait_ioctl(&sm->cfile, &w);
}

static void sm_suspend_resume(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct fake_queue *q = last_queue;
	struct drm_compute_vm_destroy vd = { .vm_id = 1 };

	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_IDLE);
	q->hw.wptr = 64;
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_RUNNING);

	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
	KUNIT_EXPECT_EQ(test, q->suspended, 1);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_SUSPENDED);
	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_SUSPEND), -EINVAL);
	KUNIT_EXPECT_EQ(test, q->suspended, 1);

	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_RESUME), 0);
	KUNIT_EXPECT_EQ(test, q->resumed, 1);
	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_RESUME), -EINVAL);
	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_WAKE), 0);
	KUNIT_EXPECT_EQ(test, q->woken, 1);
	KUNIT_EXPECT_EQ(test, sm_control(sm, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sm_control(sm, 4), -EINVAL);

	/* The VM is busy while the queue lives. */
	KUNIT_EXPECT_EQ(test, drm_compute_vm_destroy_ioctl(&sm->cfile, &vd), -EBUSY);
}

static void sm_fence_and_fault(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct drm_compute_userq *q = &last_queue->base;

	KUNIT_EXPECT_EQ(test, sm_wait(sm, 0), 0);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 5), -ETIME);
	last_queue->hw.fence = 5;
	drm_compute_userq_fence(q, 5);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 5), 0);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 4), 0);

	drm_compute_userq_fault(q, DRM_COMPUTE_FAULT_WRITE, 0x1234000);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_FAULTED);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 6), -EIO);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 5), 0);
	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_SUSPEND), -EIO);
	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_RESUME), -EIO);
	KUNIT_EXPECT_EQ(test, sm_control(sm, DRM_COMPUTE_USERQ_OP_WAKE), -EIO);
	/* The first fault sticks. */
	drm_compute_userq_fault(q, DRM_COMPUTE_FAULT_UNMAPPED, 0);
	{
		struct drm_compute_userq_state st = { .queue_id = sm->queue_id };

		KUNIT_ASSERT_EQ(test, drm_compute_userq_state_ioctl(&sm->cfile, &st), 0);
		KUNIT_EXPECT_EQ(test, st.fault_reason, (u32)DRM_COMPUTE_FAULT_WRITE);
		KUNIT_EXPECT_EQ(test, st.fault_va, 0x1234000ULL);
		KUNIT_EXPECT_EQ(test, st.fence, 5ULL);
	}
}

/*
 * USERQ_STATE reports the last fence value the device wrote, even a lower
 * one than before and before the driver told the helper of it: the engine
 * publishes its value and read pointer first, then reports the fence. It
 * used to report the larger of the device's value and the one told, so a
 * state read in that window after FENCE 10 then FENCE 3 said 10 (IGT
 * compute_userq_state@after-work failed on it under TCG, once).
 */
static void sm_fence_lower(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct drm_compute_userq_state st = { .queue_id = sm->queue_id };

	last_queue->hw.fence = 10;
	drm_compute_userq_fence(&last_queue->base, 10);
	last_queue->hw.fence = 3;	/* done, not told yet */
	KUNIT_ASSERT_EQ(test, drm_compute_userq_state_ioctl(&sm->cfile, &st), 0);
	KUNIT_EXPECT_EQ(test, st.fence, 3ULL);
	drm_compute_userq_fence(&last_queue->base, 3);
	st = (struct drm_compute_userq_state){ .queue_id = sm->queue_id };
	KUNIT_ASSERT_EQ(test, drm_compute_userq_state_ioctl(&sm->cfile, &st), 0);
	KUNIT_EXPECT_EQ(test, st.fence, 3ULL);
}

/* A device whose queues keep their fence in memory: waits read the slot. */
static void sm_fence_memory(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct fake_queue *q = last_queue;

	sm->cdev.info.userq_caps |= DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 3), -ETIME);
	q->hw.fence = 3;
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 3), 0);
	KUNIT_EXPECT_EQ(test, last_queue->base.fence, 3ULL);
	/* Without the capability the slot is not the fence. */
	sm->cdev.info.userq_caps &= ~DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;
	q->hw.fence = 9;
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 9), -ETIME);
}

static void sm_hang(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct fake_queue *q = last_queue;
	unsigned int saved = drm_compute_hang_timeout_swap(200);

	/* Work pending, no progress: hung after the timeout. */
	q->hw.wptr = 64;
	q->hw.progress = 3;
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_RUNNING);
	msleep(250);
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	drm_compute_hang_timeout_swap(saved);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_HUNG);
	KUNIT_EXPECT_EQ(test, q->stopped, 1);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 1), -EIO);
}

/*
 * A driver that can ask its hardware (userq_hang_check): a queue standing
 * still for the timeout is reset only when the hardware says it is hung;
 * one it says still runs (a long dispatch) gets another full timeout. The
 * helper used to reset any queue whose progress counter stood still.
 */
static void sm_hang_check(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct fake_queue *q = last_queue;
	struct drm_compute_ops ops = fake_ops;
	unsigned int saved = drm_compute_hang_timeout_swap(200);

	ops.userq_hang_check = fake_hang_check;
	sm->cdev.ops = &ops;
	q->hw.wptr = 64;
	q->hw.progress = 3;
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	msleep(250);
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	KUNIT_EXPECT_EQ(test, q->hang_checks, 1);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_RUNNING);
	KUNIT_EXPECT_EQ(test, q->stopped, 0);
	/* Spared: not asked again before another timeout. */
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	KUNIT_EXPECT_EQ(test, q->hang_checks, 1);
	/* Now the hardware says it is hung. */
	q->hang_check_hung = true;
	msleep(250);
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	drm_compute_hang_timeout_swap(saved);
	KUNIT_EXPECT_EQ(test, q->hang_checks, 2);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_HUNG);
	KUNIT_EXPECT_EQ(test, q->stopped, 1);
	sm->cdev.ops = &fake_ops;
}

/* Another thread in a queue operation: it holds the control lock until told. */
struct ctl_holder {
	struct work_struct work;
	struct mutex *lock;		/* the queue's control lock, held by the work */
	struct completion held;		/* the work holds it */
	struct completion release;	/* the work may let go */
};

static void ctl_hold_fn(struct work_struct *work)
{
	struct ctl_holder *h = container_of(work, struct ctl_holder, work);

	mutex_lock(h->lock);
	complete(&h->held);
	wait_for_completion(&h->release);
	mutex_unlock(h->lock);
}

/*
 * A device reset while another thread holds the queue's control lock (a
 * suspend waiting for the device being reset): the queue is HUNG and its
 * waiters fail at once, and the driver's stop comes later, from the reset
 * work. drm_compute_device_reset() used to take the control lock and stop
 * the queue itself, inside the driver's recovery (issue 23): here that
 * would wait for the lock the other thread holds.
 */
static void sm_device_reset(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct fake_queue *q = last_queue;
	struct ctl_holder h = { .lock = &q->base.ctl_lock };

	INIT_WORK_ONSTACK(&h.work, ctl_hold_fn);
	init_completion(&h.held);
	init_completion(&h.release);
	queue_work(system_dfl_wq, &h.work);
	wait_for_completion(&h.held);
	KUNIT_EXPECT_EQ(test, drm_compute_device_reset(&sm->cdev), 1u);
	KUNIT_EXPECT_EQ(test, q->stopped, 0);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_HUNG);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 1), -EIO);
	complete(&h.release);
	flush_work(&h.work);
	destroy_work_on_stack(&h.work);
	flush_work(&sm->cdev.reset_work);
	KUNIT_EXPECT_EQ(test, q->stopped, 1);
	/* A queue already dead is left alone. */
	KUNIT_EXPECT_EQ(test, drm_compute_device_reset(&sm->cdev), 0u);
	flush_work(&sm->cdev.reset_work);
	KUNIT_EXPECT_EQ(test, q->stopped, 1);
}

static void sm_progress_is_not_hang(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct fake_queue *q = last_queue;
	unsigned int i, ms = 200, saved = drm_compute_hang_timeout_swap(ms);

	q->hw.wptr = 64;
	for (i = 0; i < 4; i++) {
		q->hw.progress = i;
		drm_compute_watchdog_work(&sm->cdev.watchdog.work);
		msleep(ms / 2 + 10);
	}
	q->hw.progress = i;
	drm_compute_watchdog_work(&sm->cdev.watchdog.work);
	drm_compute_hang_timeout_swap(saved);
	KUNIT_EXPECT_EQ(test, sm_status(test, sm), DRM_COMPUTE_USERQ_STATUS_RUNNING);
	KUNIT_EXPECT_EQ(test, q->stopped, 0);
}

static void sm_destroy(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct drm_compute_userq_destroy d = { .queue_id = sm->queue_id };
	struct drm_compute_vm_destroy vd = { .vm_id = 1 };

	KUNIT_EXPECT_EQ(test, drm_compute_userq_destroy_ioctl(&sm->cfile, &d), 0);
	KUNIT_EXPECT_EQ(test, queues_freed, 1);
	KUNIT_EXPECT_EQ(test, drm_compute_userq_destroy_ioctl(&sm->cfile, &d), -ENOENT);
	KUNIT_EXPECT_EQ(test, sm_wait(sm, 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, drm_compute_vm_destroy_ioctl(&sm->cfile, &vd), 0);
	KUNIT_EXPECT_EQ(test, vms_freed, 1);
	KUNIT_EXPECT_EQ(test, drm_compute_vm_destroy_ioctl(&sm->cfile, &vd), -ENOENT);
}

static void sm_limits(struct kunit *test)
{
	struct sm *sm = test->priv;
	struct drm_compute_userq_create qc = good_args;
	struct drm_compute_vm_create vc = { };

	/* info.max_queues is 2: one more fits, then none. */
	KUNIT_EXPECT_EQ(test, drm_compute_userq_create_ioctl(&sm->cfile, &qc), 0);
	qc = good_args;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_create_ioctl(&sm->cfile, &qc), -ENOSPC);
	qc = good_args;
	qc.vm_id = 9;
	KUNIT_EXPECT_EQ(test, drm_compute_userq_create_ioctl(&sm->cfile, &qc), -ENOENT);
	/* info.max_vms is 2. */
	KUNIT_EXPECT_EQ(test, drm_compute_vm_create_ioctl(&sm->cfile, &vc), 0);
	vc.vm_id = 0;
	KUNIT_EXPECT_EQ(test, drm_compute_vm_create_ioctl(&sm->cfile, &vc), -ENOSPC);
}

static struct kunit_case drm_compute_userq_tests[] = {
	KUNIT_CASE(args_accept_valid),
	KUNIT_CASE_PARAM(args_reject, args_case_gen_params),
	KUNIT_CASE(priority_rules),
	KUNIT_CASE(cu_mask_rules),
	{}
};

static struct kunit_suite drm_compute_userq_suite = {
	.name = "drm_compute_userq",
	.test_cases = drm_compute_userq_tests,
};

static struct kunit_case drm_compute_userq_state_tests[] = {
	KUNIT_CASE(sm_suspend_resume),
	KUNIT_CASE(sm_fence_and_fault),
	KUNIT_CASE(sm_fence_lower),
	KUNIT_CASE(sm_fence_memory),
	KUNIT_CASE_SLOW(sm_hang),
	KUNIT_CASE_SLOW(sm_hang_check),
	KUNIT_CASE(sm_device_reset),
	KUNIT_CASE_SLOW(sm_progress_is_not_hang),
	KUNIT_CASE(sm_destroy),
	KUNIT_CASE(sm_limits),
	{}
};

static struct kunit_suite drm_compute_userq_state_suite = {
	.name = "drm_compute_userq_state",
	.init = sm_init,
	.exit = sm_exit,
	.test_cases = drm_compute_userq_state_tests,
};

kunit_test_suites(&drm_compute_userq_suite, &drm_compute_userq_state_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for the DRM compute helpers' user queues");
MODULE_LICENSE("Dual MIT/GPL");
