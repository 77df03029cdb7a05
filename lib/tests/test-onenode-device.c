// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode against the real vcompute render node (suite 'vm'):
 *  - discovery by driver name, by path and by fd agree;
 *  - the DEVICE and USERQ queries obey the uapi rules (size probing, short
 *    reports, refused inputs), through several files;
 *  - buffers: create, CPU map, contents, close; GPU VMs: bind, overlap,
 *    unbind, destroy;
 *  - the ready-made queue: its layout, every packet type once with its
 *    result checked (WRITE_DATA, NOP, COPY, FILL, ATOMIC, WAIT_MEM, FENCE,
 *    DISPATCH of each built-in kernel), a small ring wrapped several times
 *    and filled to -ENOSPC, the NEED_WAKEUP path after the engine went
 *    idle, suspend/resume through the context save area, wait timeouts, a
 *    binary syncobj signal, a write fault, and failed inits undone;
 *  - vgem, when present, is a DRM node without the compute uapi.
 * Skips (TAP "1..0 # SKIP") when no vcompute node exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "onenode.h"
#include "onenode_vcompute.h"
#include "tap.h"

#define SEC		1000000000LL
#define DATA_VA		0x100000ULL	/* the data buffer */
#define DATA_SIZE	0x10000ULL
#define RO_VA		0x200000ULL	/* a read-only mapping */
#define QUEUE_VA	0x1000000ULL	/* queues, 16 MiB apart */
#define QUEUE_STRIDE	0x1000000ULL

/* Offsets in the data buffer. */
#define OFF_WRITE	0x0000
#define OFF_COPY	0x0100
#define OFF_FILL	0x0200
#define OFF_ATOMIC	0x0400
#define OFF_WAIT	0x0800
#define OFF_CRC_IN	0x0a00
#define OFF_CRC_OUT	0x0a40
#define OFF_F32		0x0b00
#define OFF_A		0x1000
#define OFF_B		0x2000
#define OFF_C		0x3000
#define OFF_WRAP	0x4000
#define OFF_WAKE	0x8000
#define VADD_N		1000

struct env {
	struct onenode_device dev;
	struct drm_compute_query_device d;
	struct drm_compute_query_userq u;
	uint32_t vm;
	uint32_t data;		/* VRAM buffer of DATA_SIZE at DATA_VA */
	unsigned char *map;	/* its CPU mapping */
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static uint32_t *u32_at(struct env *e, uint64_t off)
{
	return (uint32_t *)(e->map + off);
}

static uint64_t *u64_at(struct env *e, uint64_t off)
{
	return (uint64_t *)(e->map + off);
}

static int emit(struct onenode_queue *q, const uint64_t *pkt, uint32_t qw)
{
	int ret = onenode_queue_emit(q, pkt, qw);

	if (ret)
		printf("# emit of %u words: %s\n", qw, onenode_strerror(ret));
	return ret;
}

/* Fence, commit, wait: 0 when the queue got through everything emitted. */
static int flush(struct onenode_queue *q, int64_t timeout_ns)
{
	uint64_t v = onenode_queue_fence(q);
	int ret;

	if (!v)
		return -ENOSPC;
	ret = onenode_queue_commit(q);
	if (!ret)
		ret = onenode_queue_wait(q, v, timeout_ns);
	if (ret)
		printf("# flush to fence %llu: %s\n", (unsigned long long)v, onenode_strerror(ret));
	return ret;
}

static void test_discovery(const struct onenode_device *a)
{
	struct onenode_device b, c;
	struct stat st;
	int ret;

	CHECK_STR(a->driver, "vcompute", "driver name");
	CHECK(strncmp(a->path, onenode_dri_dir(), strlen(onenode_dri_dir())) == 0 &&
	      strstr(a->path, "/renderD") != NULL, "path %s is a render node", a->path);
	CHECK(a->owns_fd == 1 && fcntl(a->fd, F_GETFD) == FD_CLOEXEC, "owned fd with CLOEXEC");
	CHECK(stat(a->path, &st) == 0 && st.st_rdev == a->rdev, "rdev matches the path");

	ret = onenode_open_path(a->path, &b);
	CHECK_EQ(ret, 0, "open by path: %s", onenode_strerror(ret));
	CHECK(ret == 0 && !strcmp(b.driver, a->driver) && b.rdev == a->rdev &&
	      b.version_major == a->version_major && b.version_minor == a->version_minor,
	      "same identity by path");
	onenode_close(&b);

	ret = onenode_open_path_flags(a->path, O_RDONLY | O_NONBLOCK, &b);
	CHECK_EQ(ret, 0, "open read-only, non-blocking: %s", onenode_strerror(ret));
	CHECK(ret == 0 && (fcntl(b.fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) ==
	      (O_RDONLY | O_NONBLOCK), "open flags applied");
	onenode_close(&b);

	ret = onenode_device_from_fd(a->fd, &c);
	CHECK_EQ(ret, 0, "identify from fd: %s", onenode_strerror(ret));
	CHECK(ret == 0 && !c.owns_fd && !strcmp(c.path, a->path) && c.rdev == a->rdev,
	      "borrowed fd: same path and rdev, not owned");
	onenode_close(&c);
	CHECK(fcntl(a->fd, F_GETFD) >= 0, "closing the borrowed device kept the fd");
}

static void test_query_device(struct env *e)
{
	const struct drm_compute_query_device *d = &e->d;
	struct onenode_field f[ONENODE_DEVICE_NFIELDS];

	CHECK((d->features & ~(uint64_t)DRM_COMPUTE_FEATURES_KNOWN) == 0,
	      "only known feature bits (%#llx)", (unsigned long long)d->features);
	CHECK(d->features & DRM_COMPUTE_FEATURE_USERQ, "vcompute reports user queues");
	CHECK(d->vram_size > 0 && d->vram_bar_size <= d->vram_size,
	      "VRAM %llu bytes, BAR no larger", (unsigned long long)d->vram_size);
	CHECK(d->placements == (DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM),
	      "VRAM and system placements");
	CHECK(d->page_size >= 4096 && !(d->page_size & (d->page_size - 1)),
	      "page size %u is a power of two", d->page_size);
	CHECK(d->va_start < d->va_end && !(d->va_start % d->page_size) &&
	      d->va_start <= DATA_VA && QUEUE_VA + 4 * QUEUE_STRIDE <= d->va_end,
	      "VA range [%#llx, %#llx) holds this test's addresses",
	      (unsigned long long)d->va_start, (unsigned long long)d->va_end);
	CHECK_EQ(d->pad, 0, "pad comes back zero");
	CHECK(d->device_id != DRM_COMPUTE_SVM_LOCATION_SYSMEM &&
	      d->device_id != DRM_COMPUTE_SVM_LOCATION_UNDEFINED && d->device_id <= INT32_MAX,
	      "device id %u names a device", d->device_id);
	CHECK_EQ(d->pad2, 0, "pad2 comes back zero");
	CHECK_EQ(onenode_device_fields(d, f, ONENODE_DEVICE_NFIELDS), ONENODE_DEVICE_NFIELDS,
		 "fields listed");
}

static void test_query_userq(struct env *e)
{
	const struct drm_compute_query_userq *u = &e->u;
	struct onenode_field f[ONENODE_USERQ_NFIELDS];

	CHECK(u->caps & DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP, "vcompute asks for wake-ups");
	CHECK(!(u->caps & DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY), "and reads no wptr from memory");
	CHECK(u->max_queues > 0 && u->num_priorities > 0 &&
	      u->priority_default < u->priority_privileged &&
	      u->priority_privileged <= u->num_priorities, "queue limits and priorities "
	      "(%u queues, %u levels, default %u, privileged from %u)", u->max_queues,
	      u->num_priorities, u->priority_default, u->priority_privileged);
	CHECK(u->queue_formats & (1u << DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE), "vcompute format");
	CHECK(u->ring_size_min && !(u->ring_size_min & (u->ring_size_min - 1)) &&
	      u->ring_size_max >= u->ring_size_min &&
	      !(u->ring_size_max & (u->ring_size_max - 1)), "ring sizes %llu..%llu",
	      (unsigned long long)u->ring_size_min, (unsigned long long)u->ring_size_max);
	CHECK(u->doorbell_size >= sizeof(struct drm_compute_doorbell) && u->num_cus > 0,
	      "doorbell of %u bytes, %u CUs", u->doorbell_size, u->num_cus);
	CHECK(onenode_userq_fields(u, f, ONENODE_USERQ_NFIELDS) > 0, "fields listed");
}

/* Size probing, short reports and refused inputs of DRM_COMPUTE_OP_QUERY. */
static void test_query_rules(struct env *e)
{
	struct drm_compute_query_device d;
	struct drm_compute_query q;
	uint32_t size = 0;
	int ret;

	ret = onenode_query(&e->dev, DRM_COMPUTE_QUERY_DEVICE, NULL, &size);
	CHECK(ret == 0 && size == sizeof(d), "size probe: %u bytes", size);
	size = 0;
	ret = onenode_query(&e->dev, DRM_COMPUTE_QUERY_USERQ, NULL, &size);
	CHECK(ret == 0 && size == sizeof(e->u), "USERQ size probe: %u bytes", size);

	memset(&d, 0xa5, sizeof(d));
	size = 8;
	ret = onenode_query(&e->dev, DRM_COMPUTE_QUERY_DEVICE, &d, &size);
	CHECK(ret == 0 && size == 8 && d.features == e->d.features && d.vram_size != e->d.vram_size,
	      "a short report: only the bytes asked for");

	size = sizeof(d);
	CHECK_EQ(onenode_query(&e->dev, DRM_COMPUTE_QUERY_COUNT, &d, &size), -EINVAL,
		 "unknown query id");
	memset(&q, 0, sizeof(q));
	q.query = DRM_COMPUTE_QUERY_DEVICE;
	q.size = sizeof(d);
	q.data = (uintptr_t)&d;
	q.pad = 1;
	CHECK_EQ(onenode_compute_ioctl(&e->dev, DRM_COMPUTE_OP_QUERY, &q), -EINVAL, "non-zero pad");
	q.pad = 0;
	q.reserved = 1;
	CHECK_EQ(onenode_compute_ioctl(&e->dev, DRM_COMPUTE_OP_QUERY, &q), -EINVAL,
		 "non-zero reserved");
	q.reserved = 0;
	q.data = 0;
	CHECK_EQ(onenode_compute_ioctl(&e->dev, DRM_COMPUTE_OP_QUERY, &q), -EINVAL,
		 "NULL data with a size");
}

/* The same reports through a second, read-only file. */
static void test_query_other_file(struct env *e)
{
	struct drm_compute_query_device d;
	struct drm_compute_query_userq u;
	struct onenode_device b;
	int ret = onenode_open_path_flags(e->dev.path, O_RDONLY, &b);

	CHECK_EQ(ret, 0, "second, read-only file: %s", onenode_strerror(ret));
	if (ret)
		return;
	CHECK(onenode_query_device(&b, &d) == 0 && !memcmp(&d, &e->d, sizeof(d)),
	      "same DEVICE report");
	CHECK(onenode_query_userq(&b, &u) == 0 && !memcmp(&u, &e->u, sizeof(u)),
	      "same USERQ report");
	onenode_close(&b);
}

static void test_bo(struct env *e)
{
	uint64_t page = e->d.page_size, off;
	uint32_t h, sys;
	uint32_t *p;
	int zero = 1, ret;
	void *m;

	CHECK_EQ(onenode_bo_create(&e->dev, page + 1, DRM_COMPUTE_PLACEMENT_VRAM, &h), -EINVAL,
		 "unaligned size refused");
	CHECK_EQ(onenode_bo_create(&e->dev, page, DRM_COMPUTE_PLACEMENT_VRAM |
				   DRM_COMPUTE_PLACEMENT_SYSTEM, &h), -EINVAL, "two placements");
	CHECK_EQ(onenode_bo_mmap_offset(&e->dev, 0xfffff, &off), -ENOENT, "unknown handle");

	ret = onenode_bo_create(&e->dev, 2 * page, DRM_COMPUTE_PLACEMENT_SYSTEM, &sys);
	CHECK_EQ(ret, 0, "system buffer: %s", onenode_strerror(ret));
	if (ret)
		return;
	ret = onenode_bo_map(&e->dev, sys, 2 * page, &m);
	CHECK_EQ(ret, 0, "map it: %s", onenode_strerror(ret));
	if (!ret) {
		p = m;
		for (size_t i = 0; i < 2 * page / 4; i++)
			zero &= p[i] == 0;
		CHECK(zero, "a new buffer is zeroed");
		p[page / 4] = 0x12345678;
		munmap(m, 2 * page);
		ret = onenode_bo_map(&e->dev, sys, 2 * page, &m);
		CHECK(ret == 0 && ((uint32_t *)m)[page / 4] == 0x12345678,
		      "contents survive a second mapping");
		if (!ret)
			munmap(m, 2 * page);
	}
	CHECK_EQ(onenode_bo_close(&e->dev, sys), 0, "close");
	CHECK_EQ(onenode_bo_close(&e->dev, sys), -EINVAL, "closed handle is gone");
}

/*
 * A device without DRM_COMPUTE_FEATURE_SVM refuses both the VM flag and the
 * SVM operation with -EOPNOTSUPP, whatever the argument; one with SVM is
 * tested by IGT.
 */
static void test_svm_unsupported(struct env *e)
{
	struct drm_compute_svm_attr a = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 9 };
	struct drm_compute_svm args;
	uint32_t vm = 0;

	if (e->d.features & DRM_COMPUTE_FEATURE_SVM) {
		CHECK(1, "# SKIP the device has SVM");
		return;
	}
	CHECK_EQ(onenode_vm_create_flags(&e->dev, DRM_COMPUTE_VM_CREATE_SVM, &vm), -EOPNOTSUPP,
		 "no SVM VM without the feature");
	CHECK_EQ(vm, 0, "and no id");
	CHECK_EQ(onenode_vm_create_flags(&e->dev, 2, &vm), -EINVAL, "an unknown VM flag");
	CHECK_EQ(onenode_svm_set_attr(&e->dev, e->vm, DATA_VA, e->d.page_size, &a, 1),
		 -EOPNOTSUPP, "no SVM SET_ATTR without the feature");
	CHECK_EQ(onenode_svm_get_attr(&e->dev, e->vm, DATA_VA, e->d.page_size, &a, 1),
		 -EOPNOTSUPP, "no SVM GET_ATTR without the feature");
	CHECK(a.type == DRM_COMPUTE_SVM_ATTR_GRANULARITY && a.value == 9,
	      "the array is left alone");
	memset(&args, 0xff, sizeof(args));
	CHECK_EQ(onenode_compute_ioctl(&e->dev, DRM_COMPUTE_OP_SVM, &args), -EOPNOTSUPP,
		 "whatever the argument");
}

static void test_vm(struct env *e)
{
	uint64_t page = e->d.page_size;
	uint32_t vm, bo;
	int ret;

	ret = onenode_vm_create(&e->dev, &vm);
	CHECK(ret == 0 && vm != 0 && vm != e->vm, "second VM %u", vm);
	if (ret)
		return;
	ret = onenode_bo_create(&e->dev, 4 * page, DRM_COMPUTE_PLACEMENT_VRAM, &bo);
	CHECK_EQ(ret, 0, "buffer to bind");
	CHECK_EQ(onenode_vm_map(&e->dev, vm, bo, 0, DATA_VA, 4 * page, 0), 0, "map");
	CHECK_EQ(onenode_vm_map(&e->dev, vm, bo, 0, DATA_VA + page, page, 0), -EINVAL,
		 "overlapping map refused");
	CHECK_EQ(onenode_vm_map(&e->dev, vm, bo, 0, DATA_VA + 8 * page + 1, page, 0), -EINVAL,
		 "unaligned va refused");
	CHECK_EQ(onenode_vm_map(&e->dev, vm, bo, 2 * page, DATA_VA + 8 * page, 4 * page, 0),
		 -EINVAL, "range past the buffer refused");
	CHECK_EQ(onenode_vm_map(&e->dev, vm, bo, 0, e->d.va_start - page, page, 0), -EINVAL,
		 "va below va_start refused");
	CHECK_EQ(onenode_vm_unmap(&e->dev, vm, DATA_VA + page, page), 0, "unmap a middle page");
	CHECK_EQ(onenode_vm_map(&e->dev, vm, bo, 0, DATA_VA + page, page, 0), 0,
		 "the hole maps again");
	CHECK_EQ(onenode_vm_unmap(&e->dev, vm, DATA_VA, 4 * page), 0, "unmap everything");
	CHECK_EQ(onenode_vm_map(&e->dev, 0xffff, bo, 0, DATA_VA, page, 0), -ENOENT,
		 "unknown VM");
	onenode_bo_close(&e->dev, bo);
	CHECK_EQ(onenode_vm_destroy(&e->dev, vm), 0, "destroy");
	CHECK_EQ(onenode_vm_destroy(&e->dev, vm), -ENOENT, "destroyed VM is gone");
}

static void test_queue_layout(struct env *e, const struct onenode_queue *q, uint64_t va)
{
	uint64_t size = onenode_queue_va_size(&e->dev, 0);
	struct drm_compute_userq_state st;
	int ret;

	CHECK(q->rptr_va == va && q->fence_va == va + 8 &&
	      q->ctx_save_va == (e->u.ctx_save_size ? va + e->d.page_size : 0),
	      "state buffer at va: rptr, fence, then the context save area");
	CHECK(q->ring_size == 64 * 1024 && q->ring_va % q->ring_size == 0 &&
	      q->ring_va >= va + e->d.page_size && q->ring_va + q->ring_size <= va + size,
	      "64 KiB ring aligned to its size inside onenode_queue_va_size() (%llu bytes)",
	      (unsigned long long)size);
	CHECK(q->id != 0 && q->doorbell && q->ring && q->rptr && *q->rptr == 0 && q->wptr == 0,
	      "queue %u created and mapped", q->id);
	ret = onenode_userq_state(&e->dev, q->id, &st);
	CHECK(ret == 0 && st.status == DRM_COMPUTE_USERQ_STATUS_IDLE &&
	      st.priority == e->u.priority_default && st.rptr == 0 && st.fence == 0,
	      "idle at the default priority %u", st.priority);
}

/* WRITE_DATA, then a FENCE: the first round trip. */
static void test_write_fence(struct env *e, struct onenode_queue *q)
{
	static const uint32_t words[5] = { 1, 2, 3, 0xcafef00d, 5 };
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t *w = u32_at(e, OFF_WRITE);
	int ret;

	w[5] = 0xffffffff;
	emit(q, pkt, onenode_pkt_write_data(pkt, DATA_VA + OFF_WRITE, words, 5));
	ret = flush(q, 30 * SEC);
	CHECK_EQ(ret, 0, "WRITE_DATA + FENCE complete: %s", onenode_strerror(ret));
	CHECK(!memcmp(w, words, sizeof(words)) && w[5] == 0, "WRITE_DATA wrote 5 words and the pad");
	CHECK(*q->fence == q->fence_value && q->fence_value == 1, "fence slot holds 1");
	CHECK(*q->rptr == q->wptr, "read pointer written back (%llu)",
	      (unsigned long long)*q->rptr);
}


/* NOP, COPY, FILL, ATOMIC and DISPATCH of each kernel, in one batch. */
static void test_packets(struct env *e, struct onenode_queue *q)
{
	static const char crc_in[] = "123456789";
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t *a = u32_at(e, OFF_A), *b = u32_at(e, OFF_B), *c = u32_at(e, OFF_C);
	float fa = 1.5f, fb = 2.25f, fc;
	int ok_add = 1, ok_scale = 1, ok_fill = 1, ret;

	for (uint32_t i = 0; i < VADD_N; i++) {
		a[i] = i * 2654435761u;
		b[i] = ~i;
	}
	memcpy(e->map + OFF_CRC_IN, crc_in, 9);
	memcpy(e->map + OFF_F32, &fa, 4);
	memcpy(e->map + OFF_F32 + 4, &fb, 4);
	*u32_at(e, OFF_ATOMIC) = 40;
	*u64_at(e, OFF_ATOMIC + 16) = 7;

	emit(q, pkt, onenode_pkt_nop(pkt, 5));
	emit(q, pkt, onenode_pkt_copy(pkt, DATA_VA + OFF_COPY + 1, DATA_VA + OFF_WRITE, 19));
	emit(q, pkt, onenode_pkt_fill(pkt, DATA_VA + OFF_FILL, 64, 0xdeadbeef));
	emit(q, pkt, onenode_pkt_atomic(pkt, VCOMPUTE_ATOMIC_ADD_U32, DATA_VA + OFF_ATOMIC, 2, 0,
					DATA_VA + OFF_ATOMIC + 4));
	emit(q, pkt, onenode_pkt_atomic(pkt, VCOMPUTE_ATOMIC_CMPXCHG_U64,
					DATA_VA + OFF_ATOMIC + 16, 9, 7, DATA_VA + OFF_ATOMIC + 24));
	emit(q, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, VADD_N, 64,
					  DATA_VA + OFF_A, DATA_VA + OFF_B, DATA_VA + OFF_C));
	emit(q, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_F32, 1, 0, DATA_VA + OFF_F32,
					  DATA_VA + OFF_F32 + 4, DATA_VA + OFF_F32 + 8));
	emit(q, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_CRC32C, 9, 0, DATA_VA + OFF_CRC_IN,
					  DATA_VA + OFF_CRC_OUT, 0));
	/* SCALE_U32 in place over b: b[i] * 3. */
	emit(q, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_SCALE_U32, VADD_N, 128,
					  DATA_VA + OFF_B, DATA_VA + OFF_B, 3));
	ret = flush(q, 60 * SEC);
	CHECK_EQ(ret, 0, "NOP, COPY, FILL, ATOMIC x2, DISPATCH x4 complete: %s",
		 onenode_strerror(ret));

	CHECK(!memcmp(e->map + OFF_COPY + 1, e->map + OFF_WRITE, 19) &&
	      e->map[OFF_COPY] == 0 && e->map[OFF_COPY + 20] == 0, "COPY of 19 unaligned bytes");
	for (int i = 0; i < 16; i++)
		ok_fill &= u32_at(e, OFF_FILL)[i] == 0xdeadbeef;
	CHECK(ok_fill && u32_at(e, OFF_FILL)[16] == 0, "FILL of 64 bytes, not more");
	CHECK(*u32_at(e, OFF_ATOMIC) == 42 && *u32_at(e, OFF_ATOMIC + 4) == 40,
	      "ATOMIC ADD_U32: 40 + 2, old value returned");
	CHECK(*u64_at(e, OFF_ATOMIC + 16) == 9 && *u64_at(e, OFF_ATOMIC + 24) == 7,
	      "ATOMIC CMPXCHG_U64: 7 -> 9, old value returned");
	for (uint32_t i = 0; i < VADD_N; i++) {
		ok_add &= c[i] == a[i] + ~i;
		ok_scale &= b[i] == ~i * 3u;
	}
	CHECK(ok_add, "DISPATCH VADD_U32 over %d elements", VADD_N);
	CHECK(ok_scale, "DISPATCH SCALE_U32 in place");
	memcpy(&fc, e->map + OFF_F32 + 8, 4);
	CHECK(fc == 3.75f, "DISPATCH VADD_F32: 1.5 + 2.25 = %g", fc);
	CHECK(*u32_at(e, OFF_CRC_OUT) == onenode_crc32c(0, crc_in, 9) &&
	      *u32_at(e, OFF_CRC_OUT) == 0xe3069283, "DISPATCH CRC32C of \"123456789\": %#x",
	      *u32_at(e, OFF_CRC_OUT));
}

/* WAIT_MEM holds the queue until the CPU writes the awaited value. */
static void test_wait_mem(struct env *e, struct onenode_queue *q)
{
	static const uint32_t mark = 0x600d;
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS], v;
	struct drm_compute_userq_state st;
	int64_t t;
	int ret;

	*u32_at(e, OFF_WAIT) = 0;
	*u32_at(e, OFF_WAIT + 8) = 0;
	emit(q, pkt, onenode_pkt_wait_mem(pkt, DATA_VA + OFF_WAIT, VCOMPUTE_WAIT_EQ, 7, 0xff, 0, 0));
	emit(q, pkt, onenode_pkt_write_data(pkt, DATA_VA + OFF_WAIT + 8, &mark, 1));
	v = onenode_queue_fence(q);
	CHECK_EQ(onenode_queue_commit(q), 0, "commit WAIT_MEM, WRITE_DATA, FENCE");

	CHECK_EQ(onenode_queue_wait(q, v, 0), -ETIME, "timeout 0 polls once: not there yet");
	t = now_ns();
	ret = onenode_queue_wait(q, v, 200 * 1000 * 1000);
	t = now_ns() - t;
	CHECK(ret == -ETIME && t >= 190 * 1000 * 1000 && t < 20 * SEC,
	      "a 200 ms wait times out after %lld ms", (long long)(t / 1000000));
	CHECK(*u32_at(e, OFF_WAIT + 8) == 0, "nothing after WAIT_MEM ran");
	ret = onenode_userq_state(&e->dev, q->id, &st);
	CHECK(ret == 0 && st.status == DRM_COMPUTE_USERQ_STATUS_RUNNING && st.fence == v - 1,
	      "the queue is %s with fence %llu", onenode_status_name(st.status),
	      (unsigned long long)st.fence);

	__atomic_store_n(u32_at(e, OFF_WAIT), 0x107, __ATOMIC_RELEASE); /* masked: 7 */
	ret = onenode_queue_wait(q, v, 30 * SEC);
	CHECK_EQ(ret, 0, "the CPU's store releases it: %s", onenode_strerror(ret));
	CHECK(*u32_at(e, OFF_WAIT + 8) == mark, "the packet after WAIT_MEM ran");
}

/* A 4 KiB ring: wrapped several times, then filled until -ENOSPC. */
static void test_wrap(struct env *e, uint64_t va)
{
	struct onenode_queue_params p = { .va = va, .ring_size = 4096,
					  .priority = ONENODE_PRIORITY_DEFAULT };
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	struct onenode_queue q;
	int ok = 1, full = 0, ret;
	const uint32_t n = 800;

	ret = onenode_queue_init(&q, &e->dev, e->vm, &p);
	CHECK_EQ(ret, 0, "queue with a 4 KiB ring: %s", onenode_strerror(ret));
	if (ret)
		return;
	/*
	 * 24-byte packets in batches of 20 plus a 24-byte fence: 504 bytes,
	 * so packets straddle the ring's end; about 20 KiB in all.
	 */
	for (uint32_t i = 0; i < n && ok; i++) {
		uint32_t w[2] = { i, ~i };

		ok = !emit(&q, pkt, onenode_pkt_write_data(pkt, DATA_VA + OFF_WRAP + 8 * i, w, 2));
		if (ok && i % 20 == 19)
			ok = !flush(&q, 30 * SEC);
	}
	ok = ok && !flush(&q, 30 * SEC);
	CHECK(ok && q.wptr > 4 * q.ring_size,
	      "%u packets through a 4 KiB ring (wptr %llu)", n, (unsigned long long)q.wptr);
	for (uint32_t i = 0; i < n; i++)
		ok &= u32_at(e, OFF_WRAP + 8 * i)[0] == i && u32_at(e, OFF_WRAP + 8 * i)[1] == ~i;
	CHECK(ok, "every packet ran, the wrapped ones too");

	/* Without commits the ring fills up: 4096 bytes of NOPs, no more. */
	while (!onenode_queue_emit(&q, pkt, onenode_pkt_nop(pkt, 2)))
		full += 16;
	CHECK(full == 4096 && onenode_queue_emit(&q, pkt, 1) == -ENOSPC,
	      "-ENOSPC after %d bytes", full);
	CHECK_EQ(onenode_queue_commit(&q), 0, "commit the full ring");
	for (int i = 0; i < 3000 && *q.rptr != q.wptr; i++)
		usleep(10000);
	CHECK(*q.rptr == q.wptr, "the queue drained it");
	CHECK_EQ(flush(&q, 30 * SEC), 0, "and takes packets again");
	onenode_queue_fini(&q);
}

static long poll_idle_us(void)
{
	long v = -1;
	FILE *f = fopen("/sys/module/vcompute/parameters/poll_idle_us", "r");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* After poll_idle_us of nothing the engine sleeps; commit must wake it. */
static void test_need_wakeup(struct env *e, struct onenode_queue *q)
{
	static const uint32_t mark = 0xa11ce;
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS], before = q->wakeups;
	long idle = poll_idle_us();
	int ret;

	CHECK(idle >= 0, "poll_idle_us is %ld", idle);
	if (idle < 0)
		return;
	/* Twice the idle time and 100 ms for a slow VM. */
	usleep((useconds_t)(2 * idle + 100000));
	CHECK(__atomic_load_n(&q->doorbell->flags, __ATOMIC_ACQUIRE) &
	      DRM_COMPUTE_DOORBELL_NEED_WAKEUP, "the idle engine set NEED_WAKEUP");
	emit(q, pkt, onenode_pkt_write_data(pkt, DATA_VA + OFF_WAKE, &mark, 1));
	ret = flush(q, 30 * SEC);
	CHECK_EQ(ret, 0, "work after the engine slept completes: %s", onenode_strerror(ret));
	CHECK(q->wakeups == before + 1, "commit woke it once (wakeups %llu -> %llu)",
	      (unsigned long long)before, (unsigned long long)q->wakeups);
	CHECK(*u32_at(e, OFF_WAKE) == mark, "the woken queue ran the packet");
}

/* SUSPEND saves a vcompute_ctx_save record in the queue's save area. */
static void test_suspend(struct env *e, struct onenode_queue *q)
{
	size_t size = e->d.page_size * 2;
	struct drm_compute_userq_state st;
	struct vcompute_ctx_save save;
	void *m;
	int ret;

	ret = onenode_userq_control(&e->dev, q->id, DRM_COMPUTE_USERQ_OP_SUSPEND);
	CHECK_EQ(ret, 0, "suspend: %s", onenode_strerror(ret));
	ret = onenode_userq_state(&e->dev, q->id, &st);
	CHECK(ret == 0 && st.status == DRM_COMPUTE_USERQ_STATUS_SUSPENDED, "status %s",
	      onenode_status_name(st.status));
	ret = onenode_bo_map(&e->dev, q->state_handle, size, &m);
	CHECK_EQ(ret, 0, "map the state buffer");
	if (!ret) {
		memcpy(&save, (char *)m + e->d.page_size, sizeof(save));
		CHECK(save.magic == VCOMPUTE_CTX_SAVE_MAGIC &&
		      save.version == VCOMPUTE_CTX_SAVE_VERSION && save.rptr == *q->rptr &&
		      save.saves == 1, "context saved at ctx_save_va (rptr %llu)",
		      (unsigned long long)save.rptr);
		munmap(m, size);
	}
	CHECK_EQ(onenode_userq_control(&e->dev, q->id, DRM_COMPUTE_USERQ_OP_SUSPEND), -EINVAL,
		 "a second suspend is refused");
	CHECK_EQ(onenode_userq_control(&e->dev, q->id, DRM_COMPUTE_USERQ_OP_RESUME), 0, "resume");
	CHECK_EQ(flush(q, 30 * SEC), 0, "the resumed queue runs");
}

/* USERQ_SIGNAL on a binary syncobj, waited through DRM. */
static void test_signal(struct env *e, struct onenode_queue *q)
{
	uint32_t h;
	uint64_t v;
	int ret;

	if (drmSyncobjCreate(e->dev.fd, 0, &h)) {
		CHECK(0, "drmSyncobjCreate: %s", strerror(errno));
		return;
	}
	v = onenode_queue_fence(q);
	ret = onenode_userq_signal(&e->dev, q->id, v, h, 0);
	CHECK_EQ(ret, 0, "signal at fence %llu: %s", (unsigned long long)v, onenode_strerror(ret));
	CHECK_EQ(onenode_queue_commit(q), 0, "commit");
	ret = drmSyncobjWait(e->dev.fd, &h, 1, now_ns() + 30 * SEC,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	CHECK(ret == 0 && *q->fence >= v, "the syncobj signaled with the fence");
	CHECK_EQ(onenode_userq_signal(&e->dev, q->id, v, 0xffff, 0), -ENOENT, "unknown syncobj");
	drmSyncobjDestroy(e->dev.fd, h);
}

/* A write to a read-only mapping faults the queue; waiters get -EIO. */
static void test_fault(struct env *e, uint64_t va)
{
	struct onenode_queue_params p = { .va = va, .priority = ONENODE_PRIORITY_DEFAULT };
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS], v;
	struct drm_compute_userq_state st;
	static const uint32_t w = 1;
	struct onenode_queue q;
	int ret;

	ret = onenode_vm_map(&e->dev, e->vm, e->data, 0, RO_VA, e->d.page_size,
			     DRM_COMPUTE_VM_BIND_READONLY);
	CHECK_EQ(ret, 0, "read-only mapping: %s", onenode_strerror(ret));
	ret = onenode_queue_init(&q, &e->dev, e->vm, &p);
	CHECK_EQ(ret, 0, "a queue to fault");
	if (ret)
		return;
	emit(&q, pkt, onenode_pkt_write_data(pkt, RO_VA + 16, &w, 1));
	v = onenode_queue_fence(&q);
	onenode_queue_commit(&q);
	CHECK_EQ(onenode_queue_wait(&q, v, 30 * SEC), -EIO, "the wait ends with -EIO");
	ret = onenode_userq_state(&e->dev, q.id, &st);
	CHECK(ret == 0 && st.status == DRM_COMPUTE_USERQ_STATUS_FAULTED &&
	      st.fault_reason == DRM_COMPUTE_FAULT_WRITE && st.fault_va == RO_VA + 16,
	      "%s, fault %s at %#llx", onenode_status_name(st.status),
	      onenode_fault_name(st.fault_reason), (unsigned long long)st.fault_va);
	CHECK_EQ(onenode_userq_control(&e->dev, q.id, DRM_COMPUTE_USERQ_OP_WAKE), -EIO,
		 "a dead queue refuses WAKE");
	onenode_queue_fini(&q);
	onenode_vm_unmap(&e->dev, e->vm, RO_VA, e->d.page_size);
}

/* Inits that fail leave nothing behind: the same va works afterwards. */
static void test_init_failures(struct env *e, uint64_t va)
{
	struct onenode_queue_params p = { .va = va, .priority = e->u.num_priorities };
	struct onenode_queue q;
	int ret;

	CHECK_EQ(onenode_queue_init(&q, &e->dev, e->vm, &p), -EINVAL,
		 "priority %u (past the last level) refused by the kernel", p.priority);
	p.priority = ONENODE_PRIORITY_DEFAULT;
	p.ring_size = 3000;
	CHECK_EQ(onenode_queue_init(&q, &e->dev, e->vm, &p), -EINVAL, "ring of 3000 bytes");
	p.ring_size = 2 * e->u.ring_size_max;
	CHECK_EQ(onenode_queue_init(&q, &e->dev, e->vm, &p), -EINVAL, "ring above the maximum");
	p.ring_size = 0;
	p.va = va + 1;
	CHECK_EQ(onenode_queue_init(&q, &e->dev, e->vm, &p), -EINVAL, "unaligned va");
	p.va = va;
	CHECK_EQ(onenode_queue_init(&q, &e->dev, 0xffff, &p), -ENOENT, "unknown VM");
	ret = onenode_queue_init(&q, &e->dev, e->vm, &p);
	CHECK_EQ(ret, 0, "the same va after the failures: %s", onenode_strerror(ret));
	if (!ret) {
		CHECK_EQ(flush(&q, 30 * SEC), 0, "and the queue runs");
		onenode_queue_fini(&q);
	}
	CHECK(q.dev == NULL && q.id == 0, "fini resets the queue");
	onenode_queue_fini(&q);
}

static void test_queues(struct env *e)
{
	struct onenode_queue_params p = { .va = QUEUE_VA, .priority = ONENODE_PRIORITY_DEFAULT };
	struct onenode_queue q;
	uint32_t id;
	int ret;

	ret = onenode_queue_init(&q, &e->dev, e->vm, &p);
	CHECK_EQ(ret, 0, "queue at %#llx: %s", (unsigned long long)p.va, onenode_strerror(ret));
	if (ret)
		return;
	test_queue_layout(e, &q, p.va);
	test_write_fence(e, &q);
	test_packets(e, &q);
	test_wait_mem(e, &q);
	test_need_wakeup(e, &q);
	test_suspend(e, &q);
	test_signal(e, &q);
	CHECK_EQ(onenode_vm_destroy(&e->dev, e->vm), -EBUSY, "a VM with a queue stays");
	printf("# queue %u: %llu bytes submitted, %llu wake-ups\n", q.id,
	       (unsigned long long)q.wptr, (unsigned long long)q.wakeups);
	id = q.id;
	onenode_queue_fini(&q);
	CHECK_EQ(onenode_userq_destroy(&e->dev, id), -ENOENT, "fini destroyed the queue");

	test_wrap(e, QUEUE_VA + QUEUE_STRIDE);
	test_fault(e, QUEUE_VA + 2 * QUEUE_STRIDE);
	test_init_failures(e, QUEUE_VA + 3 * QUEUE_STRIDE);
}

static void test_vgem(void)
{
	struct onenode_device dev;
	struct drm_compute_query_device d;
	int ret = onenode_open_driver("vgem", NULL, &dev);

	if (ret == -ENOENT) {
		printf("# no vgem node: driver-without-compute check not run\n");
		return;
	}
	CHECK_EQ(ret, 0, "open vgem by name: %s", onenode_strerror(ret));
	if (ret)
		return;
	CHECK_EQ(onenode_query_device(&dev, &d), -EOPNOTSUPP, "vgem has no compute uapi");
	onenode_close(&dev);
}

/* The VM and the data buffer the queue tests use. */
static int env_setup(struct env *e)
{
	void *m;
	int ret;

	ret = onenode_vm_create(&e->dev, &e->vm);
	if (!ret)
		ret = onenode_bo_create(&e->dev, DATA_SIZE, DRM_COMPUTE_PLACEMENT_VRAM, &e->data);
	if (!ret)
		ret = onenode_vm_map(&e->dev, e->vm, e->data, 0, DATA_VA, DATA_SIZE, 0);
	if (!ret)
		ret = onenode_bo_map(&e->dev, e->data, DATA_SIZE, &m);
	if (!ret)
		e->map = m;
	CHECK_EQ(ret, 0, "VM %u with a VRAM buffer mapped for GPU and CPU: %s", e->vm,
		 onenode_strerror(ret));
	return ret;
}

int main(void)
{
	struct env e;
	int ret;

	memset(&e, 0, sizeof(e));
	ret = onenode_open_driver("vcompute", NULL, &e.dev);
	if (ret == -ENOENT) {
		printf("1..0 # SKIP no vcompute render node in %s\n", onenode_dri_dir());
		return 0;
	}
	CHECK_EQ(ret, 0, "open vcompute by driver name: %s", onenode_strerror(ret));
	if (ret)
		return tap_done();
	test_discovery(&e.dev);

	ret = onenode_query_device(&e.dev, &e.d);
	CHECK_EQ(ret, 0, "DEVICE query: %s", onenode_strerror(ret));
	if (!ret)
		ret = onenode_query_userq(&e.dev, &e.u);
	CHECK_EQ(ret, 0, "USERQ query: %s", onenode_strerror(ret));
	if (ret)
		return tap_done();
	test_query_device(&e);
	test_query_userq(&e);
	test_query_rules(&e);
	test_query_other_file(&e);
	test_bo(&e);
	test_vm(&e);
	test_svm_unsupported(&e);
	if (!env_setup(&e))
		test_queues(&e);
	if (e.map)
		munmap(e.map, DATA_SIZE);
	CHECK_EQ(onenode_vm_destroy(&e.dev, e.vm), 0, "destroy the VM");
	onenode_bo_close(&e.dev, e.data);
	onenode_close(&e.dev);
	test_vgem();
	return tap_done();
}
