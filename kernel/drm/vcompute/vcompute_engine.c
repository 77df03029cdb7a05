// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: The packet engine
 *
 * One kernel thread per device executes every started queue. A round walks
 * the queues from the highest priority down and gives each a time slice of
 * (priority + 1) x ``SLICE_NS`` of engine time, at least one step; a step is
 * one packet, or one bounded chunk of a long one (256 KiB of data of a
 * COPY or FILL, as much per enabled compute unit of a DISPATCH, LIST_CHUNK
 * nodes of a LIST_SUM: DOC: Compute units), so a queue is
 * preemptible between chunks: suspend, stop and hang reset wait at most one
 * chunk, and a queue that never stops (a LIST_SUM over a cyclic list, a
 * DISPATCH of 2^64 elements) takes no more than its share of the engine's
 * time from the others.
 *
 * Every packet is a job with a time limit: the engine time it has taken
 * (&vcompute_queue.job_ns, waiting not counted) may not exceed
 * ``job_timeout_ms`` (module parameter, 0 = no limit). A job that runs past
 * it is stopped and its queue faulted with %DRM_COMPUTE_FAULT_JOB_TIMEOUT
 * at the packet's place in the ring, as a GPU's job timeout would; the log
 * names the queue.
 *
 * A step reads the doorbell's write pointer (with acquire semantics: the
 * packets are written before it), fetches the packet at the read pointer
 * from the ring through the VM with exec permission, checks it
 * (vcompute_pkt_header_check(), vcompute_pkt_body_check()) and runs it.
 * When a packet is complete the read pointer moves past it and is written
 * back to the queue's rptr address; a FENCE packet's value is written to
 * memory before the read pointer moves, and waiters are told afterwards
 * (drm_compute_userq_fence()); the state reports it from the moment the
 * read pointer is past it (&drm_compute_userq_hw.fence). A fault of any kind stops the queue and is
 * reported with drm_compute_userq_fault(); the read pointer stays at the
 * faulting packet.
 *
 * Doorbells are polled, which is the software equivalent of a GPU's
 * doorbell monitor: while any queue has work the thread runs rounds;
 * while queues only wait (WAIT_MEM) it polls them with a backoff, from
 * ``WAIT_POLL_MIN_US`` doubling to ``WAIT_POLL_MAX_US`` for as long as
 * nothing moves (a WAIT_MEM is satisfied by a memory write, which rings
 * no doorbell); after ``poll_idle_us`` (module parameter) without work it
 * sleeps, using no CPU, following io_uring's SQPOLL protocol: set
 * %DRM_COMPUTE_DOORBELL_NEED_WAKEUP in every doorbell, full barrier,
 * re-read every write pointer, and sleep only if none moved.
 * vcompute_engine_kick() (queue start and resume, the WAKE operation)
 * wakes it.
 */

/**
 * DOC: Compute units
 *
 * The engine thread is the device's command processor; the workgroups of
 * a DISPATCH run on compute units (&struct vcompute_cu), one worker thread
 * each, so a queue's CU mask decides which threads do its work and how
 * many run it at once. A step of a DISPATCH gives each unit the queue's
 * mask enables up to 256 KiB of data in whole workgroups, at least one
 * and at most 64 of them, in one contiguous block per unit (the first
 * block to the first enabled unit, and so on); the engine hands every
 * unit its share and waits for all of them before it goes on, so a queue
 * stays preemptible between steps and its packet state has one writer at
 * a time. A
 * reduction (CRC32C, SUM_U32, LIST_SUM) is one workgroup and runs on the
 * queue's first enabled unit. When shares fault, the queue reports the
 * fault of the lowest workgroup; later workgroups may have run, as on a
 * GPU. COPY, FILL and the other packets are the engine's own (a GPU's DMA
 * and command processor) and use no unit.
 *
 * A unit counts the workgroups it ran (debugfs ``vcompute_cu``, with its
 * thread's pid, whose CPU time shows where the work ran).
 */

#include <linux/atomic.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <drm/drm_compute.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vcompute_drv.h"

static unsigned int poll_idle_us = 1000;
module_param(poll_idle_us, uint, 0644);
MODULE_PARM_DESC(poll_idle_us,
		 "Microseconds the engine keeps polling idle doorbells before it sleeps (default 1000)");

static unsigned int job_timeout_ms = 10000;
module_param(job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "Engine time one packet may take before its queue is stopped (ms, 0 = no limit; default 10000)");

#define CHUNK		SZ_256K
#define MAX_GROUPS	64
/* A queue's time slice per round, per priority level. */
#define SLICE_NS	(250 * NSEC_PER_USEC)
/* The backoff of polling waiting queues. */
#define WAIT_POLL_MIN_US	20
#define WAIT_POLL_MAX_US	10000

enum step {
	STEP_IDLE,	/* nothing to do */
	STEP_WORK,	/* moved forward */
	STEP_WAIT,	/* blocked in WAIT_MEM */
	STEP_DEAD,	/* faulted now */
};

/* The outcome of running (part of) a packet. */
struct exec {
	int fault;	/* DRM_COMPUTE_FAULT_* or 0 */
	u64 fault_va;
	bool done;	/* the packet is complete */
	bool wait;	/* blocked in WAIT_MEM */
};

/**
 * vcompute_engine_kick - make the engine look at the doorbells now
 * @vdev: the device
 */
void vcompute_engine_kick(struct vcompute_device *vdev)
{
	atomic_set(&vdev->engine.kicked, 1);
	wake_up(&vdev->engine.wq);
}

/* ---- memory through the VM ---- */

static void copy_out(void *kaddr, size_t len, void *arg)
{
	u8 **dst = arg;

	memcpy(*dst, kaddr, len);
	*dst += len;
}

static void copy_in(void *kaddr, size_t len, void *arg)
{
	const u8 **src = arg;

	memcpy(kaddr, *src, len);
	*src += len;
}

static int vm_read(struct vcompute_queue *q, u64 va, void *buf, u64 len,
		   enum vcompute_access access, u64 *fault_va)
{
	u8 *dst = buf;

	return vcompute_vm_access(q->vm, va, len, access, copy_out, &dst, fault_va);
}

static int vm_write(struct vcompute_queue *q, u64 va, const void *buf, u64 len,
		    u64 *fault_va)
{
	const u8 *src = buf;

	return vcompute_vm_access(q->vm, va, len, VCOMPUTE_WRITE, copy_in, &src,
				  fault_va);
}

/* Copy @len bytes between two ranges of the queue's VM. */
static int vm_copy(struct vcompute_queue *q, u64 dst, u64 src, u64 len,
		   u64 *fault_va)
{
	struct vcompute_vm *vm = q->vm;
	unsigned int refaults = 0;
	int fault = 0;

	if (src + len < src || dst + len < dst) {
		*fault_va = src + len < src ? src : dst;
		return DRM_COMPUTE_FAULT_UNMAPPED;
	}
	down_read(&vm->pt_lock);
	while (len) {
		u64 n = min3(len, PAGE_SIZE - offset_in_page(src),
			     PAGE_SIZE - offset_in_page(dst));
		bool relocked = false, sysmem;
		struct page *sp, *dp;
		void *s, *d;

		fault = vcompute_vm_translate_fault(vm, src, VCOMPUTE_READ, &sp,
						    &relocked, &sysmem);
		if (fault) {
			*fault_va = src;
			break;
		}
		fault = vcompute_vm_translate_fault(vm, dst, VCOMPUTE_WRITE, &dp,
						    &relocked, NULL);
		if (fault) {
			*fault_va = dst;
			break;
		}
		/* pt_lock was dropped after @sp was found: translate again. */
		if (relocked && ++refaults <= VCOMPUTE_SVM_MAX_REFAULTS)
			continue;
		if (relocked) {
			fault = DRM_COMPUTE_FAULT_SVM_BUSY;
			*fault_va = src;
			break;
		}
		refaults = 0;
		if (sysmem)
			atomic64_add(n, &q->vdev->sysmem_read);
		s = kmap_local_page(sp);
		d = kmap_local_page(dp);
		memcpy(d + offset_in_page(dst), s + offset_in_page(src), n);
		kunmap_local(d);
		kunmap_local(s);
		src += n;
		dst += n;
		len -= n;
	}
	up_read(&vm->pt_lock);
	return fault;
}

/* ---- packets ---- */

static void fill32(void *kaddr, size_t len, void *arg)
{
	memset32(kaddr, *(u32 *)arg, len / 4);
}

static void exec_fill(struct vcompute_queue *q, const struct vcompute_pkt_fill *p,
		      struct exec *x)
{
	u64 n = min_t(u64, p->size - q->pkt_progress, CHUNK);
	u32 value = p->value;

	x->fault = vcompute_vm_access(q->vm, p->dst_va + q->pkt_progress, n,
				      VCOMPUTE_WRITE, fill32, &value, &x->fault_va);
	q->pkt_progress += n;
	x->done = q->pkt_progress >= p->size;
}

static void exec_copy(struct vcompute_queue *q, const struct vcompute_pkt_copy *p,
		      struct exec *x)
{
	u64 n = min_t(u64, p->size - q->pkt_progress, CHUNK);

	x->fault = vm_copy(q, p->dst_va + q->pkt_progress,
			   p->src_va + q->pkt_progress, n, &x->fault_va);
	q->pkt_progress += n;
	x->done = q->pkt_progress >= p->size;
}

static void exec_atomic(struct vcompute_queue *q,
			const struct vcompute_pkt_atomic *p, struct exec *x)
{
	int size = vcompute_pkt_atomic_size(p->op);
	struct vcompute_vm *vm = q->vm;
	bool relocked = false;
	struct page *page;
	u64 old = 0;
	void *kaddr;

	down_read(&vm->pt_lock);
	/* The only translation: the page is current even after a relock. */
	x->fault = vcompute_vm_translate_fault(vm, p->va, VCOMPUTE_WRITE, &page,
					       &relocked, NULL);
	if (x->fault) {
		x->fault_va = p->va;
		up_read(&vm->pt_lock);
		return;
	}
	kaddr = kmap_local_page(page) + offset_in_page(p->va);
	switch (p->op) {
	case VCOMPUTE_ATOMIC_ADD_U32:
		old = (u32)atomic_fetch_add((int)p->src, kaddr);
		break;
	case VCOMPUTE_ATOMIC_ADD_U64:
		old = atomic64_fetch_add((s64)p->src, kaddr);
		break;
	case VCOMPUTE_ATOMIC_CMPXCHG_U32:
		old = cmpxchg((u32 *)kaddr, (u32)p->cmp, (u32)p->src);
		break;
	case VCOMPUTE_ATOMIC_CMPXCHG_U64:
		old = cmpxchg64((u64 *)kaddr, p->cmp, p->src);
		break;
	}
	kunmap_local(kaddr);
	up_read(&vm->pt_lock);

	if (p->ret_va)
		x->fault = vm_write(q, p->ret_va, &old, size, &x->fault_va);
	x->done = true;
}

static void exec_wait(struct vcompute_queue *q,
		      const struct vcompute_pkt_wait_mem *p, struct exec *x)
{
	bool wide = p->flags & VCOMPUTE_WAIT_64BIT;
	u64 value = 0, now;

	x->fault = vm_read(q, p->va, &value, wide ? 8 : 4, VCOMPUTE_READ,
			   &x->fault_va);
	if (x->fault)
		return;
	if (!wide)
		value = (u32)value;
	if (vcompute_wait_cond(p->func, value & p->mask, p->ref)) {
		x->done = true;
		return;
	}
	now = ktime_get_ns();
	if (!q->wait_start)
		q->wait_start = now;
	if (p->timeout_ns && now - q->wait_start > p->timeout_ns) {
		x->fault = DRM_COMPUTE_FAULT_TIMEOUT;
		x->fault_va = p->va;
		return;
	}
	x->wait = true;
}

/* Element-wise kernels: up to two inputs and one output of 32-bit words. */
struct ew {
	int nin;
	u64 in[2];
	u64 out;
	u32 kernel;
	u32 factor;
	u64 count;	/* elements */
	u64 gs;		/* elements per workgroup */
};

static void ew_run(const struct ew *k, const u32 *a, const u32 *b, u32 *c, u64 n)
{
	u64 i;

	switch (k->kernel) {
	case VCOMPUTE_KERNEL_VADD_U32:
		for (i = 0; i < n; i++)
			c[i] = a[i] + b[i];
		break;
	case VCOMPUTE_KERNEL_VADD_F32:
		for (i = 0; i < n; i++)
			c[i] = vcompute_f32_add(a[i], b[i]);
		break;
	case VCOMPUTE_KERNEL_SCALE_U32:
		for (i = 0; i < n; i++)
			c[i] = a[i] * k->factor;
		break;
	}
}

/* Elements [first, first + count) of an element-wise kernel. */
static int ew_range(struct vcompute_queue *q, const struct ew *k, u64 first,
		    u64 count, u64 *fault_va)
{
	struct vcompute_vm *vm = q->vm;
	unsigned int refaults = 0;
	int fault = 0;

	down_read(&vm->pt_lock);
	while (count) {
		u64 va[3], n = count;
		bool relocked = false, sysmem[3];
		struct page *pg[3];
		void *map[3];
		int i, m = k->nin + 1;

		for (i = 0; i < k->nin; i++)
			va[i] = k->in[i] + first * 4;
		va[k->nin] = k->out + first * 4;
		/* A run of elements that crosses no page of any operand. */
		for (i = 0; i < m; i++) {
			n = min(n, (PAGE_SIZE - offset_in_page(va[i])) / 4);
			fault = vcompute_vm_translate_fault(vm, va[i],
							    i < k->nin ? VCOMPUTE_READ :
									 VCOMPUTE_WRITE,
							    &pg[i], &relocked, &sysmem[i]);
			if (fault) {
				*fault_va = va[i];
				goto out;
			}
		}
		/* pt_lock was dropped: the operands found before may be stale. */
		if (relocked) {
			if (++refaults > VCOMPUTE_SVM_MAX_REFAULTS) {
				fault = DRM_COMPUTE_FAULT_SVM_BUSY;
				*fault_va = va[0];
				goto out;
			}
			continue;
		}
		refaults = 0;
		for (i = 0; i < k->nin; i++)
			if (sysmem[i])
				atomic64_add(n * 4, &q->vdev->sysmem_read);
		for (i = 0; i < m; i++)
			map[i] = kmap_local_page(pg[i]) + offset_in_page(va[i]);
		ew_run(k, map[0], k->nin > 1 ? map[1] : NULL, map[m - 1], n);
		for (i = m - 1; i >= 0; i--)
			kunmap_local(map[i]);
		first += n;
		count -= n;
	}
out:
	up_read(&vm->pt_lock);
	return fault;
}

static void crc_update(void *kaddr, size_t len, void *arg)
{
	u32 *crc = arg;

	*crc = crc32c(*crc, kaddr, len);
}

static void exec_crc(struct vcompute_cu *cu,
		     const struct vcompute_pkt_dispatch *p, struct exec *x)
{
	struct vcompute_queue *q = cu->q;
	u64 n = min_t(u64, p->count - q->pkt_progress, CHUNK);
	u32 crc;

	/* The raw CRC runs inverted, so that the result is CRC-32C proper. */
	if (!q->pkt_progress)
		q->pkt_state = ~(u32)p->args[2];
	crc = q->pkt_state;
	x->fault = vcompute_vm_access(q->vm, p->args[0] + q->pkt_progress, n,
				      VCOMPUTE_READ, crc_update, &crc, &x->fault_va);
	if (x->fault)
		return;
	q->pkt_state = crc;
	q->pkt_progress += n;
	if (q->pkt_progress < p->count)
		return;
	crc = ~crc;
	x->fault = vm_write(q, p->args[1], &crc, 4, &x->fault_va);
	atomic64_inc(&cu->groups);
	x->done = true;
}

static void sum_update(void *kaddr, size_t len, void *arg)
{
	const u32 *v = kaddr;
	u64 *sum = arg;
	size_t i;

	for (i = 0; i < len / 4; i++)
		*sum += v[i];
}

static void exec_sum(struct vcompute_cu *cu,
		     const struct vcompute_pkt_dispatch *p, struct exec *x)
{
	struct vcompute_queue *q = cu->q;
	u64 n = min_t(u64, p->count - q->pkt_progress, CHUNK / 4);
	u64 sum = q->pkt_state;

	x->fault = vcompute_vm_access(q->vm, p->args[0] + q->pkt_progress * 4,
				      n * 4, VCOMPUTE_READ, sum_update, &sum,
				      &x->fault_va);
	if (x->fault)
		return;
	q->pkt_state = sum;
	q->pkt_progress += n;
	if (q->pkt_progress < p->count)
		return;
	x->fault = vm_write(q, p->args[1], &sum, 8, &x->fault_va);
	atomic64_inc(&cu->groups);
	x->done = true;
}

/*
 * LIST_SUM: up to LIST_CHUNK nodes per round. The next node is the
 * packet's state and the nodes visited its progress; the running sum lives
 * in the output, so that a suspended queue resumes with nothing lost.
 */
#define LIST_CHUNK	256

static void exec_list_sum(struct vcompute_cu *cu,
			  const struct vcompute_pkt_dispatch *p, struct exec *x)
{
	struct vcompute_queue *q = cu->q;
	struct vcompute_list_sum out = {};
	u64 node = q->pkt_progress ? q->pkt_state : p->args[0], sum = 0;
	unsigned int i;

	if (q->pkt_progress) {
		x->fault = vm_read(q, p->args[1], &out, sizeof(out), VCOMPUTE_READ,
				   &x->fault_va);
		if (x->fault)
			return;
	}
	for (i = 0; i < LIST_CHUNK && node && q->pkt_progress < p->count; i++) {
		struct vcompute_list_node n;

		if (node & 7) {
			x->fault = DRM_COMPUTE_FAULT_ALIGNMENT;
			x->fault_va = node;
			return;
		}
		x->fault = vm_read(q, node, &n, sizeof(n), VCOMPUTE_READ, &x->fault_va);
		if (x->fault)
			return;
		sum += n.value;
		node = n.next;
		q->pkt_progress++;
	}
	out.sum += sum;
	out.nodes = q->pkt_progress;
	x->fault = vm_write(q, p->args[1], &out, sizeof(out), &x->fault_va);
	if (x->fault)
		return;
	q->pkt_state = node;
	if (node && q->pkt_progress < p->count)
		return;
	atomic64_inc(&cu->groups);
	x->done = true;
}

/* ---- the compute units ---- */

static void cu_work_fn(struct kthread_work *work)
{
	struct vcompute_cu *cu = container_of(work, struct vcompute_cu, work);
	struct vcompute_engine *e = cu->engine;

	cu->run(cu);
	/* The last share wakes the engine; nothing touches @cu after. */
	if (atomic_dec_and_test(&e->cu_pending))
		complete(&e->cu_done);
}

/* Hand @cu a share; the caller set &vcompute_engine.cu_pending. */
static void cu_start(struct vcompute_cu *cu, void (*run)(struct vcompute_cu *cu),
		     struct vcompute_queue *q, const void *arg, u64 first, u64 end)
{
	cu->run = run;
	cu->q = q;
	cu->arg = arg;
	cu->first = first;
	cu->end = end;
	cu->fault = 0;
	cu->fault_va = 0;
	cu->fault_group = 0;
	cu->done = false;
	kthread_queue_work(cu->worker, &cu->work);
}

/* A unit's share of an element-wise kernel: workgroups [first, end). */
static void cu_elementwise(struct vcompute_cu *cu)
{
	const struct ew *k = cu->arg;
	u64 g;

	for (g = cu->first; g < cu->end; g++) {
		u64 first = g * k->gs, n = min(k->gs, k->count - first);

		cu->fault = ew_range(cu->q, k, first, n, &cu->fault_va);
		if (cu->fault) {
			cu->fault_group = g;
			return;
		}
		atomic64_inc(&cu->groups);
	}
}

/* A reduction: one workgroup, a chunk of it per step. */
static void cu_reduce(struct vcompute_cu *cu)
{
	const struct vcompute_pkt_dispatch *p = cu->arg;
	struct exec x = { };

	switch (p->kernel) {
	case VCOMPUTE_KERNEL_CRC32C:
		exec_crc(cu, p, &x);
		break;
	case VCOMPUTE_KERNEL_SUM_U32:
		exec_sum(cu, p, &x);
		break;
	case VCOMPUTE_KERNEL_LIST_SUM:
		exec_list_sum(cu, p, &x);
		break;
	}
	cu->fault = x.fault;
	cu->fault_va = x.fault_va;
	cu->done = x.done;
}

/* Wait until every share handed out has finished. */
static void cu_wait(struct vcompute_engine *e)
{
	wait_for_completion(&e->cu_done);
}

static void exec_dispatch(struct vcompute_queue *q,
			  const struct vcompute_pkt_dispatch *p, struct exec *x)
{
	struct vcompute_engine *e = &q->vdev->engine;
	u64 gs = p->group_size ?: 256;
	/* Not DIV_ROUND_UP(): a count near 2^64 must not wrap to no groups. */
	u64 groups = p->count / gs + !!(p->count % gs);
	struct ew k = { .kernel = p->kernel, .count = p->count, .gs = gs };
	u64 step, end, bytes, per, fault_group = 0;
	unsigned int i, n;

	if (p->kernel == VCOMPUTE_KERNEL_CRC32C ||
	    p->kernel == VCOMPUTE_KERNEL_SUM_U32 ||
	    p->kernel == VCOMPUTE_KERNEL_LIST_SUM) {
		struct vcompute_cu *cu = &e->cus[q->cus[0]];

		atomic_set(&e->cu_pending, 1);
		reinit_completion(&e->cu_done);
		cu_start(cu, cu_reduce, q, p, 0, 1);
		cu_wait(e);
		x->fault = cu->fault;
		x->fault_va = cu->fault_va;
		x->done = cu->done;
		return;
	}
	if (p->kernel == VCOMPUTE_KERNEL_SCALE_U32) {
		k.nin = 1;
		k.in[0] = p->args[0];
		k.out = p->args[1];
		k.factor = p->args[2];
	} else {
		k.nin = 2;
		k.in[0] = p->args[0];
		k.in[1] = p->args[1];
		k.out = p->args[2];
	}
	/* Per enabled unit: whole workgroups up to a chunk of data, 1 to MAX_GROUPS. */
	bytes = gs * 4 * (k.nin + 1);
	step = clamp_t(u64, DIV_ROUND_UP(CHUNK, bytes), 1, MAX_GROUPS) * q->num_cus;
	step = min(step, groups - q->pkt_progress);
	if (!step) {
		/* count 0: a dispatch of no workgroups completes at once. */
		x->done = true;
		return;
	}
	end = q->pkt_progress + step;
	/* One contiguous block of workgroups per unit: no cache line shared. */
	per = DIV_ROUND_UP(step, q->num_cus);
	n = DIV_ROUND_UP(step, per);
	atomic_set(&e->cu_pending, n);
	reinit_completion(&e->cu_done);
	for (i = 0; i < n; i++) {
		u64 g = q->pkt_progress + i * per;

		cu_start(&e->cus[q->cus[i]], cu_elementwise, q, &k, g, min(g + per, end));
	}
	cu_wait(e);
	/* The fault of the lowest workgroup is the queue's. */
	for (i = 0; i < n; i++) {
		struct vcompute_cu *cu = &e->cus[q->cus[i]];

		if (!cu->fault || (x->fault && cu->fault_group >= fault_group))
			continue;
		x->fault = cu->fault;
		x->fault_va = cu->fault_va;
		fault_group = cu->fault_group;
	}
	if (x->fault)
		return;
	q->pkt_progress = end;
	x->done = q->pkt_progress >= groups;
}

static void exec_packet(struct vcompute_queue *q, struct exec *x)
{
	const struct vcompute_pkt_header *h = (const void *)q->pkt;

	switch (h->opcode) {
	case VCOMPUTE_PKT_NOP:
		x->done = true;
		break;
	case VCOMPUTE_PKT_WRITE_DATA: {
		const struct vcompute_pkt_write_data *p = (const void *)q->pkt;

		x->fault = vm_write(q, p->dst_va, &q->pkt[2],
				    (h->size_qw - 2) * 8, &x->fault_va);
		x->done = true;
		break;
	}
	case VCOMPUTE_PKT_COPY:
		exec_copy(q, (const void *)q->pkt, x);
		break;
	case VCOMPUTE_PKT_FILL:
		exec_fill(q, (const void *)q->pkt, x);
		break;
	case VCOMPUTE_PKT_ATOMIC:
		exec_atomic(q, (const void *)q->pkt, x);
		break;
	case VCOMPUTE_PKT_WAIT_MEM:
		exec_wait(q, (const void *)q->pkt, x);
		break;
	case VCOMPUTE_PKT_FENCE: {
		const struct vcompute_pkt_fence *p = (const void *)q->pkt;

		x->fault = vm_write(q, p->va, &p->value, 8, &x->fault_va);
		x->done = true;
		break;
	}
	case VCOMPUTE_PKT_DISPATCH:
		exec_dispatch(q, (const void *)q->pkt, x);
		break;
	}
}

/* Read @len bytes of the ring at byte position @pos, wrapping. */
static int ring_fetch(struct vcompute_queue *q, u64 pos, void *buf, u64 len,
		      u64 *fault_va)
{
	u64 off = pos & (q->ring_size - 1), first = min(len, q->ring_size - off);
	int fault;

	fault = vm_read(q, q->ring_va + off, buf, first, VCOMPUTE_EXEC, fault_va);
	if (!fault && first < len)
		fault = vm_read(q, q->ring_va, (u8 *)buf + first, len - first,
				VCOMPUTE_EXEC, fault_va);
	return fault;
}

static enum step queue_fault(struct vcompute_queue *q, int fault, u64 va)
{
	q->dead = true;
	drm_compute_userq_fault(&q->base, fault, va);
	return STEP_DEAD;
}

/* The packet at the read pointer ran past the job limit: stop its queue. */
static enum step job_timeout(struct vcompute_queue *q, unsigned int limit_ms)
{
	u64 va = q->ring_va + (q->rptr & (q->ring_size - 1));

	drm_err_ratelimited(&q->vdev->drm,
			    "compute: queue %u: the packet at %#llx ran for more than %u ms; stopped\n",
			    q->base.id, va, limit_ms);
	return queue_fault(q, DRM_COMPUTE_FAULT_JOB_TIMEOUT, va);
}

/* One packet, or one chunk of a long one. Called with the engine lock. */
static enum step queue_step(struct vcompute_queue *q)
{
	const struct vcompute_pkt_header *h = (const void *)q->pkt;
	struct drm_compute_doorbell *db = vcompute_doorbell(q);
	u64 rptr = q->rptr, wptr, fault_va = 0, t0;
	unsigned int limit_ms;
	struct exec x = { };
	int fault;

	if (q->suspended || q->dead)
		return STEP_IDLE;
	/* The packets were written before the write pointer. */
	wptr = smp_load_acquire(&db->wptr);
	WRITE_ONCE(q->wptr, wptr);
	if (wptr == rptr)
		return STEP_IDLE;
	if (wptr < rptr || wptr - rptr > q->ring_size || wptr & 7)
		return queue_fault(q, DRM_COMPUTE_FAULT_WPTR, 0);

	fault = ring_fetch(q, rptr, q->pkt, 8, &fault_va);
	if (fault)
		return queue_fault(q, fault, fault_va);
	fault = vcompute_pkt_header_check(h);
	if (!fault && h->size_qw * 8ULL > wptr - rptr)
		fault = DRM_COMPUTE_FAULT_PACKET;	/* runs past the write pointer */
	if (fault)
		return queue_fault(q, fault, q->ring_va + (rptr & (q->ring_size - 1)));
	if (h->size_qw > 1) {
		fault = ring_fetch(q, rptr + 8, &q->pkt[1], (h->size_qw - 1) * 8ULL,
				   &fault_va);
		if (fault)
			return queue_fault(q, fault, fault_va);
	}
	fault = vcompute_pkt_body_check(q->pkt, &fault_va);
	if (fault)
		return queue_fault(q, fault, fault == DRM_COMPUTE_FAULT_PACKET ?
				   q->ring_va + (rptr & (q->ring_size - 1)) : fault_va);

	t0 = ktime_get_ns();
	exec_packet(q, &x);
	if (x.fault)
		return queue_fault(q, x.fault, x.fault_va);
	if (x.wait)
		return STEP_WAIT;
	q->job_ns += ktime_get_ns() - t0;
	WRITE_ONCE(q->progress, q->progress + 1);
	if (!x.done) {
		limit_ms = READ_ONCE(job_timeout_ms);
		if (limit_ms && q->job_ns > limit_ms * NSEC_PER_MSEC)
			return job_timeout(q, limit_ms);
		return STEP_WORK;
	}

	rptr += h->size_qw * 8ULL;
	q->pkt_progress = 0;
	q->pkt_state = 0;
	q->wait_start = 0;
	q->job_ns = 0;
	fault = vm_write(q, q->rptr_va, &rptr, 8, &fault_va);
	if (fault)
		return queue_fault(q, fault, fault_va);
	if (h->opcode == VCOMPUTE_PKT_FENCE)
		WRITE_ONCE(q->fence_done,
			   ((const struct vcompute_pkt_fence *)q->pkt)->value);
	/*
	 * Release, paired with vcompute_userq_hw_state()'s acquire: a state
	 * that shows the queue past a FENCE shows its value. Waiters are told
	 * afterwards, so one woken by the fence finds the queue past it.
	 */
	smp_store_release(&q->rptr, rptr);
	if (h->opcode == VCOMPUTE_PKT_FENCE)
		drm_compute_userq_fence(&q->base, q->fence_done);
	return STEP_WORK;
}

/* Whether a queue is one the engine runs and has packets waiting. */
static bool queue_pending(struct vcompute_queue *q)
{
	return !q->suspended && !q->dead &&
	       READ_ONCE(vcompute_doorbell(q)->wptr) != q->rptr;
}

static void set_need_wakeup(struct vcompute_engine *e, bool on)
{
	struct vcompute_queue *q;

	list_for_each_entry(q, &e->queues, link) {
		struct drm_compute_doorbell *db = vcompute_doorbell(q);

		WRITE_ONCE(db->flags, on ? DRM_COMPUTE_DOORBELL_NEED_WAKEUP : 0);
	}
}

/*
 * Ask userspace for a wake-up before sleeping. Returns false when a write
 * pointer moved meanwhile, so the thread must not sleep.
 */
static bool arm_wakeup(struct vcompute_engine *e)
{
	struct vcompute_queue *q;
	bool pending = false;

	mutex_lock(&e->lock);
	set_need_wakeup(e, true);
	/* Pairs with userspace's barrier between its wptr store and flag load. */
	smp_mb();
	list_for_each_entry(q, &e->queues, link)
		pending |= queue_pending(q);
	if (pending)
		set_need_wakeup(e, false);
	mutex_unlock(&e->lock);
	return !pending;
}

/*
 * Run @q for its time slice: steps until the slice is used up or the queue
 * stops moving. Sets *@moved when a step moved it forward. Called with the
 * engine lock.
 */
static enum step queue_slice(struct vcompute_queue *q, bool *moved)
{
	u64 start = ktime_get_ns(), slice = (q->base.priority + 1) * SLICE_NS;
	enum step s;

	lockdep_assert_held(&q->vdev->engine.lock);
	do {
		s = queue_step(q);
		if (s != STEP_WORK)
			return s;
		*moved = true;
	} while (ktime_get_ns() - start < slice);
	return STEP_WORK;
}

static int engine_thread(void *arg)
{
	struct vcompute_device *vdev = arg;
	struct vcompute_engine *e = &vdev->engine;
	unsigned int wait_us = WAIT_POLL_MIN_US;
	u64 idle_since = ktime_get_ns();

	while (!kthread_should_stop()) {
		bool work = false, waiting = false;
		struct vcompute_queue *q;

		atomic_set(&e->kicked, 0);
		mutex_lock(&e->lock);
		list_for_each_entry(q, &e->queues, link) {
			enum step s = queue_slice(q, &work);

			waiting |= s == STEP_WAIT;
		}
		mutex_unlock(&e->lock);

		if (work) {
			idle_since = ktime_get_ns();
			wait_us = WAIT_POLL_MIN_US;
			cond_resched();
			continue;
		}
		if (waiting) {
			/* Nothing moved: poll again later, or on a doorbell. */
			wait_event_interruptible_hrtimeout(e->wq, atomic_read(&e->kicked) ||
							   kthread_should_stop(),
							   us_to_ktime(wait_us));
			if (atomic_read(&e->kicked))
				wait_us = WAIT_POLL_MIN_US;
			else
				wait_us = min(wait_us * 2, WAIT_POLL_MAX_US);
			continue;
		}
		wait_us = WAIT_POLL_MIN_US;
		if (ktime_get_ns() - idle_since < READ_ONCE(poll_idle_us) * 1000ULL) {
			usleep_range(10, 50);
			continue;
		}
		if (!arm_wakeup(e))
			continue;
		wait_event_interruptible(e->wq, atomic_read(&e->kicked) ||
					 kthread_should_stop());
		mutex_lock(&e->lock);
		set_need_wakeup(e, false);
		mutex_unlock(&e->lock);
		idle_since = ktime_get_ns();
	}
	return 0;
}

/**
 * vcompute_engine_reset - what a GPU reset does to the queues: their
 * contexts are lost
 * @vdev: the device
 *
 * No queue in the engine runs again; the helper marks them HUNG
 * (drm_compute_device_reset()) and stops them for good later.
 */
void vcompute_engine_reset(struct vcompute_device *vdev)
{
	struct vcompute_queue *q;

	mutex_lock(&vdev->engine.lock);
	list_for_each_entry(q, &vdev->engine.queues, link)
		q->dead = true;
	mutex_unlock(&vdev->engine.lock);
}

/* Stop the units' threads; the array stays with the DRM device. */
static void cus_fini(struct vcompute_engine *e, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!e->cus[i].worker)
			continue;
		kthread_destroy_worker(e->cus[i].worker);
		e->cus[i].worker = NULL;
	}
}

/**
 * vcompute_engine_init - start a device's engine and compute units
 * @vdev: the device
 *
 * Returns: 0 or a negative errno.
 */
int vcompute_engine_init(struct vcompute_device *vdev)
{
	struct vcompute_engine *e = &vdev->engine;
	unsigned int i, n = vdev->config.num_cus;
	struct task_struct *t;
	int ret;

	mutex_init(&e->lock);
	INIT_LIST_HEAD(&e->queues);
	init_waitqueue_head(&e->wq);
	atomic_set(&e->kicked, 0);
	atomic_set(&e->cu_pending, 0);
	init_completion(&e->cu_done);
	e->cus = drmm_kcalloc(&vdev->drm, n, sizeof(*e->cus), GFP_KERNEL);
	if (!e->cus)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct vcompute_cu *cu = &e->cus[i];
		struct kthread_worker *w;

		cu->engine = e;
		kthread_init_work(&cu->work, cu_work_fn);
		w = kthread_run_worker(0, "vcompute.%s.cu%u", vdev->config.name, i);
		if (IS_ERR(w)) {
			ret = PTR_ERR(w);
			goto err;
		}
		cu->worker = w;
		cu->pid = task_pid_nr(w->task);
	}
	t = kthread_run(engine_thread, vdev, "vcompute.%s", vdev->config.name);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto err;
	}
	e->thread = t;
	return 0;

err:
	cus_fini(e, i);
	return ret;
}

/**
 * vcompute_engine_fini - stop a device's engine and compute units
 * @vdev: the device
 *
 * Safe on an engine that never started, and twice. Queues still in the
 * list stay there until the helper stops them; nothing runs them any more.
 */
void vcompute_engine_fini(struct vcompute_device *vdev)
{
	struct vcompute_engine *e = &vdev->engine;

	if (!e->thread)
		return;
	/* The engine waits for its units' shares before it stops. */
	kthread_stop(e->thread);
	e->thread = NULL;
	cus_fini(e, vdev->config.num_cus);
}
