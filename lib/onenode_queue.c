// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode: the ready-made user queue (struct onenode_queue): its two
 * buffers and their layout in the GPU VA space, the doorbell mapping, and
 * the submission protocol (emit, commit with the NEED_WAKEUP handshake,
 * fence, wait). See onenode.h for the contract and the layout.
 */
#define _GNU_SOURCE
#include "onenode.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "onenode_vcompute.h"

/* Words of the state buffer's first page (see onenode.h). */
enum {
	STATE_RPTR,	/* read pointer, written by the queue */
	STATE_FENCE,	/* fence slot, written by FENCE packets */
	STATE_WPTR,	/* write pointer in memory (DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY) */
	STATE_WORDS,
};

/* Bytes of the state buffer mapped for the CPU. */
#define STATE_MAP_SIZE (STATE_WORDS * sizeof(uint64_t))

#define DEFAULT_RING_SIZE (64u << 10)

/* Where everything of a queue goes, from the device's reports. */
struct queue_layout {
	struct drm_compute_query_userq uq;
	uint64_t placement;	/* of both buffers */
	uint64_t page_size;
	uint64_t state_size;	/* page 0 + the context save area */
	uint64_t ctx_save_size;	/* rounded up to the page, 0 for none */
	uint64_t ring_size;
	uint64_t ring_bo_size;	/* rounded up to the page */
	uint64_t ring_va;	/* for a given va */
	uint64_t va_size;	/* the most any page-aligned va needs */
	uint32_t format;
};

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The lowest DRM_COMPUTE_QUEUE_FORMAT_* the device reports, 0 for none. */
static uint32_t first_format(uint32_t formats)
{
	formats &= ~1u;	/* bit 0 is no format */
	return formats ? (uint32_t)__builtin_ctz(formats) : 0;
}

/*
 * Fill @l for a queue at @va (0 when only the size is wanted) with a ring of
 * @ring_size bytes (0 for the default). -EOPNOTSUPP without user queues,
 * -EINVAL for a bad ring size or va, -EPROTO for a report that cannot be
 * right.
 */
static int queue_layout(const struct onenode_device *dev, uint64_t va,
			uint64_t ring_size, struct queue_layout *l)
{
	struct drm_compute_query_device d;
	uint64_t pad_max;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = onenode_query_device(dev, &d);
	if (ret)
		return ret;
	if (!(d.features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	ret = onenode_query_userq(dev, &l->uq);
	if (ret)
		return ret;
	l->page_size = d.page_size;
	l->format = first_format(l->uq.queue_formats);
	if (!is_pow2(l->page_size) || l->page_size < STATE_MAP_SIZE || !l->format ||
	    !(d.placements & (DRM_COMPUTE_PLACEMENT_SYSTEM | DRM_COMPUTE_PLACEMENT_VRAM)))
		return -EPROTO;
	l->placement = d.placements & DRM_COMPUTE_PLACEMENT_SYSTEM ?
		DRM_COMPUTE_PLACEMENT_SYSTEM : DRM_COMPUTE_PLACEMENT_VRAM;

	l->ring_size = ring_size ? ring_size : DEFAULT_RING_SIZE;
	if (!is_pow2(l->ring_size) || l->ring_size > (1ULL << 40))
		return -EINVAL;
	l->ring_bo_size = align_up(l->ring_size, l->page_size);
	l->ctx_save_size = align_up(l->uq.ctx_save_size, l->page_size);
	l->state_size = l->page_size + l->ctx_save_size;
	/* va + state_size is page aligned: aligning it to the ring skips less than a ring. */
	pad_max = l->ring_size > l->page_size ? l->ring_size - l->page_size : 0;
	l->va_size = l->state_size + pad_max + l->ring_bo_size;
	if (va & (l->page_size - 1) || va > UINT64_MAX - l->va_size)
		return -EINVAL;
	l->ring_va = align_up(va + l->state_size, l->ring_size > l->page_size ?
			      l->ring_size : l->page_size);
	return 0;
}

uint64_t onenode_queue_va_size(const struct onenode_device *dev,
			       uint64_t ring_size)
{
	struct queue_layout l;

	return queue_layout(dev, 0, ring_size, &l) ? 0 : l.va_size;
}

/* The device's GPU page size, 0 when it cannot be queried. */
static uint64_t page_size_of(const struct onenode_device *dev)
{
	struct drm_compute_query_device d;

	return onenode_query_device(dev, &d) ? 0 : d.page_size;
}

void onenode_queue_fini(struct onenode_queue *q)
{
	uint64_t page;

	if (!q || !q->dev)
		return;
	if (q->id)
		onenode_userq_destroy(q->dev, q->id);
	if (q->doorbell_map)
		munmap(q->doorbell_map, q->doorbell_map_size);
	if (q->ring)
		munmap(q->ring, q->ring_size);
	if (q->rptr)
		munmap((void *)q->rptr, STATE_MAP_SIZE);
	/* The state buffer and the padding up to the ring are the queue's. */
	if (q->rptr_va)
		onenode_vm_unmap(q->dev, q->vm_id, q->rptr_va, q->ring_va - q->rptr_va);
	page = page_size_of(q->dev);
	if (q->ring_va && page)
		onenode_vm_unmap(q->dev, q->vm_id, q->ring_va, align_up(q->ring_size, page));
	if (q->state_handle)
		onenode_bo_close(q->dev, q->state_handle);
	if (q->ring_handle)
		onenode_bo_close(q->dev, q->ring_handle);
	memset(q, 0, sizeof(*q));
}

/*
 * Create both buffers and bind them: the ring (executable) first, then the
 * state buffer (no-exec), so that fini can always tell what is bound. Each
 * field of @q is set once its step succeeded.
 */
static int queue_buffers(struct onenode_queue *q, const struct queue_layout *l,
			 uint64_t va)
{
	const struct onenode_device *dev = q->dev;
	int ret;

	ret = onenode_bo_create(dev, l->ring_bo_size, l->placement, &q->ring_handle);
	if (!ret)
		ret = onenode_bo_create(dev, l->state_size, l->placement, &q->state_handle);
	if (!ret)
		ret = onenode_vm_map(dev, q->vm_id, q->ring_handle, 0, l->ring_va,
				     l->ring_bo_size, 0);
	if (ret)
		return ret;
	q->ring_va = l->ring_va;
	q->ring_size = l->ring_size;
	ret = onenode_vm_map(dev, q->vm_id, q->state_handle, 0, va, l->state_size,
			     DRM_COMPUTE_VM_BIND_NOEXEC);
	if (ret)
		return ret;
	q->rptr_va = va + STATE_RPTR * 8;
	q->fence_va = va + STATE_FENCE * 8;
	q->ctx_save_va = l->ctx_save_size ? va + l->page_size : 0;
	return 0;
}

/* CPU mappings of the ring and of the state buffer's first words. */
static int queue_cpu_maps(struct onenode_queue *q)
{
	void *ring, *state;
	int ret;

	ret = onenode_bo_map(q->dev, q->ring_handle, q->ring_size, &ring);
	if (ret)
		return ret;
	q->ring = ring;
	ret = onenode_bo_map(q->dev, q->state_handle, STATE_MAP_SIZE, &state);
	if (ret)
		return ret;
	q->rptr = (volatile uint64_t *)state + STATE_RPTR;
	q->fence = (volatile uint64_t *)state + STATE_FENCE;
	return 0;
}

/* USERQ_CREATE, then the doorbell mapping. */
static int queue_create(struct onenode_queue *q, const struct queue_layout *l,
			const struct onenode_queue_params *p)
{
	struct drm_compute_userq_create args;
	size_t need;
	void *map;
	int ret;

	memset(&args, 0, sizeof(args));
	args.vm_id = q->vm_id;
	args.format = l->format;
	args.priority = p->priority == ONENODE_PRIORITY_DEFAULT ?
		l->uq.priority_default : p->priority;
	args.cu_mask_ptr = (uintptr_t)p->cu_mask;
	args.cu_mask_count = p->cu_mask ? p->cu_mask_count : 0;
	args.ring_va = q->ring_va;
	args.ring_size = q->ring_size;
	args.rptr_va = q->rptr_va;
	if (l->uq.caps & DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY)
		args.wptr_va = q->rptr_va + (STATE_WPTR - STATE_RPTR) * 8;
	if (l->uq.caps & DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY)
		args.fence_va = q->fence_va;
	args.ctx_save_va = q->ctx_save_va;
	args.ctx_save_size = l->ctx_save_size;
	ret = onenode_userq_create(q->dev, &args);
	if (ret)
		return ret;
	q->id = args.queue_id;

	need = l->uq.caps & DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP ?
		sizeof(struct drm_compute_doorbell) : sizeof(uint64_t);
	if ((size_t)args.doorbell_pos + need > l->uq.doorbell_size || args.doorbell_pos % 8)
		return -EPROTO;
	map = mmap(NULL, l->uq.doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   q->dev->fd, (off_t)args.doorbell_offset);
	if (map == MAP_FAILED)
		return -errno;
	q->doorbell_map = map;
	q->doorbell_map_size = l->uq.doorbell_size;
	q->doorbell = (struct drm_compute_doorbell *)((char *)map + args.doorbell_pos);
	return 0;
}

int onenode_queue_init(struct onenode_queue *q, const struct onenode_device *dev,
		       uint32_t vm_id, const struct onenode_queue_params *p)
{
	struct queue_layout l;
	int ret;

	if (!q)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	if (!dev || dev->fd < 0 || !p || !p->va)
		return -EINVAL;
	ret = queue_layout(dev, p->va, p->ring_size, &l);
	if (ret)
		return ret;
	q->dev = dev;
	q->vm_id = vm_id;
	q->caps = l.uq.caps;
	q->format = l.format;
	ret = queue_buffers(q, &l, p->va);
	if (!ret)
		ret = queue_cpu_maps(q);
	if (!ret)
		ret = queue_create(q, &l, p);
	if (ret)
		onenode_queue_fini(q);
	return ret;
}

/* The device counts its pointers in bytes (vcompute) or dwords (AMD). */
static unsigned int unit_shift(const struct onenode_queue *q)
{
	return q->format == DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE ? 0 : 2;
}

int onenode_queue_emit(struct onenode_queue *q, const void *pkt,
		       uint32_t qwords)
{
	uint64_t bytes = (uint64_t)qwords * 8, rptr, off, first;

	if (!q || !q->ring || !pkt || !qwords || bytes > q->ring_size)
		return -EINVAL;
	/* Pairs with the queue's write-back: it has finished reading up to rptr. */
	rptr = __atomic_load_n(q->rptr, __ATOMIC_ACQUIRE) << unit_shift(q);
	if (q->wptr - rptr > q->ring_size - bytes)
		return -ENOSPC;
	off = q->wptr & (q->ring_size - 1);
	first = q->ring_size - off < bytes ? q->ring_size - off : bytes;
	memcpy((char *)q->ring + off, pkt, first);
	memcpy(q->ring, (const char *)pkt + first, bytes - first);
	q->wptr += bytes;
	return 0;
}

int onenode_queue_commit(struct onenode_queue *q)
{
	uint64_t caps;
	int ret = 0;

	if (!q || !q->doorbell)
		return -EINVAL;
	caps = q->caps;
	/* Packets before the write pointer; the device may read it from memory first. */
	if (caps & DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY)
		__atomic_store_n(&q->rptr[STATE_WPTR], q->wptr >> unit_shift(q),
				 __ATOMIC_RELEASE);
	__atomic_store_n(&q->doorbell->wptr, q->wptr >> unit_shift(q), __ATOMIC_RELEASE);
	/* The store above before the load of flags below (io_uring SQPOLL). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Elsewhere the word after the wptr may be another queue's doorbell. */
	if (!(caps & DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP))
		return 0;
	if (__atomic_load_n(&q->doorbell->flags, __ATOMIC_RELAXED) &
	    DRM_COMPUTE_DOORBELL_NEED_WAKEUP) {
		q->wakeups++;
		ret = onenode_userq_control(q->dev, q->id, DRM_COMPUTE_USERQ_OP_WAKE);
	}
	return ret;
}

uint64_t onenode_queue_fence(struct onenode_queue *q)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t qw;

	if (!q || !q->ring || q->format != DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE)
		return 0;
	qw = onenode_pkt_fence(pkt, q->fence_va, q->fence_value + 1);
	if (onenode_queue_emit(q, pkt, qw))
		return 0;
	return ++q->fence_value;
}

int onenode_queue_wait(struct onenode_queue *q, uint64_t value,
		       int64_t timeout_ns)
{
	if (!q || !q->dev)
		return -EINVAL;
	return onenode_userq_wait(q->dev, q->id, value, timeout_ns);
}
