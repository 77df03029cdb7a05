// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of vcompute's packet engine through user queues: each packet's
 * semantics (WRITE_DATA, COPY, FILL, ATOMIC, WAIT_MEM, FENCE, DISPATCH of
 * the built-in kernels against CPU references), bad packets faulting the
 * queue with the documented reason while other queues keep running,
 * priorities, CU masks, and hang detection.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks vcompute's packets through user queues: "
		     "WRITE_DATA, COPY, FILL, ATOMIC, WAIT_MEM, FENCE and the "
		     "DISPATCH kernels against CPU references, bad packets "
		     "faulting only their queue with the documented reason, "
		     "priorities, CU masks and hang detection.");

#define MIB (1ull << 20)
#define BUF_SIZE (2 * MIB)
#define UNMAPPED COMPUTE_BUF_VA(9)
#define CANARY 0xa5
#define MS 1000000ull

static struct compute_dev cd = { .fd = -1 };
static uint32_t vm, vm_other;
static struct compute_queue q, bystander;
static struct compute_buf x, y, z;	/* VRAM (or system), system, VRAM */
static struct compute_param hang_timeout = {
	.module = "drm_compute_helper", .name = "hang_timeout_ms",
};
static struct compute_param job_timeout = { .module = "vcompute", .name = "job_timeout_ms" };

static uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];

/* A new queue in place of q (after a fault, or with other parameters). */
static void fresh_queue(const struct onenode_queue_params *params)
{
	const struct onenode_queue_params def = {
		.va = COMPUTE_QUEUE_VA(0),
		.priority = ONENODE_PRIORITY_DEFAULT,
	};

	compute_queue_fini(&q);
	compute_queue_init(&cd, vm, params ? params : &def, &q);
}

static void run(void)
{
	compute_sync(&q, compute_submit(&q));
}

static void emit(uint32_t qw)
{
	compute_emit(&q, pkt, qw);
}

static uint64_t default_placement(void)
{
	return cd.info.placements & DRM_COMPUTE_PLACEMENT_VRAM ? DRM_COMPUTE_PLACEMENT_VRAM :
								  DRM_COMPUTE_PLACEMENT_SYSTEM;
}

/* @size bytes at @p equal @c, or report the first that does not. */
static void check_bytes(const void *p, size_t size, unsigned char c, const char *what)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < size; i++)
		igt_assert_f(b[i] == c, "%s: byte %zu is %#x, want %#x\n", what, i, b[i], c);
}

/* ---- CPU references ---- */

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* SSE's addss on the CPU: the reference of VADD_F32. */
static uint32_t f32_add(uint32_t a, uint32_t b)
{
	volatile float fa = bits_f32(a), fb = bits_f32(b);

	return f32_bits(fa + fb);
}

static bool f32_is_nan(uint32_t u)
{
	return (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu);
}

/* A mix of ordinary, denormal, special and cancelling operands. */
static uint32_t f32_operand(uint64_t *seed, uint32_t other)
{
	static const uint32_t specials[] = {
		0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
		0x7f800001, 0x7fbfffff, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff,
		0xff7fffff, 0x3f800000, 0x33800000, 0x34000000,
	};
	uint32_t r = compute_rand32(seed);

	switch (r % 5) {
	case 0:
		return compute_rand32(seed);
	case 1:
		return (r & 0x80000000u) | (compute_rand32(seed) & 0x007fffffu);
	case 2:
		return specials[compute_rand32(seed) % COMPUTE_ARRAY_SIZE(specials)];
	case 3:
		/* Nearly -other: heavy cancellation. */
		return (other ^ 0x80000000u) + (compute_rand32(seed) % 5) - 2;
	default:
		return (other & 0xff800000u) | (compute_rand32(seed) & 0x007fffffu);
	}
}

static uint32_t crc_table[256];

static uint32_t crc32c_sw(uint32_t seed, const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t crc = ~seed;

	if (!crc_table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
			crc_table[i] = c;
		}
	}
	for (size_t i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- faults ---- */

/* What a bad-packet case expects; fault_va RING means the packet's address. */
#define RING (UINT64_MAX - 1)

struct bad_case {
	const char *name;
	uint32_t reason;
	uint64_t fault_va;
	uint32_t (*build)(uint64_t *p);	/* returns the words to emit */
	uint32_t commit_qw;		/* words to publish, 0 for all */
};

static uint32_t hdr(uint64_t *p, uint8_t opcode, uint16_t size_qw)
{
	struct vcompute_pkt_header h = onenode_pkt_header(opcode, size_qw);

	memset(p, 0, size_qw * 8ull);
	memcpy(p, &h, sizeof(h));
	return size_qw;
}

static uint32_t b_opcode(uint64_t *p) { return hdr(p, 8, 1); }
static uint32_t b_opcode_ff(uint64_t *p) { return hdr(p, 0xff, 4); }
static uint32_t b_pad(uint64_t *p) { hdr(p, VCOMPUTE_PKT_NOP, 1); ((uint8_t *)p)[1] = 1; return 1; }
static uint32_t b_reserved(uint64_t *p)
{
	hdr(p, VCOMPUTE_PKT_NOP, 1);
	((uint32_t *)p)[1] = 0x80000000u;
	return 1;
}
static uint32_t b_size0(uint64_t *p) { hdr(p, VCOMPUTE_PKT_NOP, 1); ((uint16_t *)p)[1] = 0; return 1; }
static uint32_t b_size_max(uint64_t *p)
{
	hdr(p, VCOMPUTE_PKT_NOP, 1);
	((uint16_t *)p)[1] = VCOMPUTE_PKT_MAX_QWORDS + 1;
	return 1;
}
static uint32_t b_copy_size(uint64_t *p)
{
	uint32_t qw = onenode_pkt_copy(p, y.va, x.va, 8);

	((uint16_t *)p)[1] = qw + 1;
	p[qw] = 0;
	return qw + 1;
}
static uint32_t b_fence_size(uint64_t *p)
{
	onenode_pkt_fence(p, y.va, 1);
	((uint16_t *)p)[1] = 2;
	return 2;
}
static uint32_t b_write_short(uint64_t *p) { hdr(p, VCOMPUTE_PKT_WRITE_DATA, 2); p[1] = y.va; return 2; }
static uint32_t b_fill_pad(uint64_t *p)
{
	struct vcompute_pkt_fill *f = (void *)p;
	uint32_t qw = onenode_pkt_fill(p, y.va, 64, 1);

	f->pad = 1;
	return qw;
}
static uint32_t b_atomic_op(uint64_t *p) { return onenode_pkt_atomic(p, 0, y.va, 1, 0, 0); }
static uint32_t b_atomic_op5(uint64_t *p) { return onenode_pkt_atomic(p, 5, y.va, 1, 0, 0); }
static uint32_t b_atomic_pad(uint64_t *p)
{
	uint32_t qw = onenode_pkt_atomic(p, VCOMPUTE_ATOMIC_ADD_U32, y.va, 1, 0, 0);

	((struct vcompute_pkt_atomic *)p)->pad = 1;
	return qw;
}
static uint32_t b_wait_func(uint64_t *p) { return onenode_pkt_wait_mem(p, y.va, 0, 0, ~0ull, 0, 0); }
static uint32_t b_wait_func5(uint64_t *p) { return onenode_pkt_wait_mem(p, y.va, 5, 0, ~0ull, 0, 0); }
static uint32_t b_wait_flags(uint64_t *p)
{
	return onenode_pkt_wait_mem(p, y.va, VCOMPUTE_WAIT_EQ, 0, ~0ull, 2, 0);
}
static uint32_t b_kernel(uint64_t *p) { return onenode_pkt_dispatch(p, 0, 16, 0, x.va, y.va, z.va); }
static uint32_t b_kernel_unknown(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_LIST_SUM + 1, 16, 0, x.va, y.va, z.va);
}
static uint32_t b_sum_dst(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_SUM_U32, 16, 0, x.va, y.va + 4, 0);
}
static uint32_t b_list_head(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_LIST_SUM, 16, 0, y.va + 4, z.va, 0);
}
/* A list whose second node is misaligned, and one whose next is unmapped. */
static uint32_t b_list_node(uint64_t *p)
{
	struct vcompute_list_node *n = y.cpu;

	n[0] = (struct vcompute_list_node){ .next = y.va + 4, .value = 1 };
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_LIST_SUM, 16, 0, y.va, z.va, 0);
}
static uint32_t b_list_unmapped(uint64_t *p)
{
	struct vcompute_list_node *n = y.cpu;

	n[0] = (struct vcompute_list_node){ .next = UNMAPPED, .value = 1 };
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_LIST_SUM, 16, 0, y.va, z.va, 0);
}
static uint32_t b_group3(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_VADD_U32, 16, 3, x.va, y.va, z.va);
}
static uint32_t b_group_big(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_VADD_U32, 16, 131072, x.va, y.va, z.va);
}
static uint32_t b_past_wptr(uint64_t *p) { return onenode_pkt_copy(p, y.va, x.va, 8); }

static uint32_t b_write_misaligned(uint64_t *p)
{
	uint32_t d[2] = { 1, 2 };

	return onenode_pkt_write_data(p, y.va + 2, d, 2);
}
static uint32_t b_fill_dst(uint64_t *p) { return onenode_pkt_fill(p, y.va + 1, 64, 0); }
static uint32_t b_fill_size(uint64_t *p) { return onenode_pkt_fill(p, y.va, 6, 0); }
static uint32_t b_atomic32(uint64_t *p)
{
	return onenode_pkt_atomic(p, VCOMPUTE_ATOMIC_ADD_U32, y.va + 2, 1, 0, 0);
}
static uint32_t b_atomic64(uint64_t *p)
{
	return onenode_pkt_atomic(p, VCOMPUTE_ATOMIC_CMPXCHG_U64, y.va + 4, 1, 0, 0);
}
static uint32_t b_atomic_ret(uint64_t *p)
{
	return onenode_pkt_atomic(p, VCOMPUTE_ATOMIC_ADD_U64, y.va, 1, 0, y.va + 12);
}
static uint32_t b_wait32(uint64_t *p)
{
	return onenode_pkt_wait_mem(p, y.va + 2, VCOMPUTE_WAIT_EQ, 0, ~0ull, 0, 0);
}
static uint32_t b_wait64(uint64_t *p)
{
	return onenode_pkt_wait_mem(p, y.va + 4, VCOMPUTE_WAIT_EQ, 0, ~0ull,
				    VCOMPUTE_WAIT_64BIT, 0);
}
static uint32_t b_fence_va(uint64_t *p) { return onenode_pkt_fence(p, y.va + 4, 1); }
static uint32_t b_vadd_arg(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_VADD_F32, 16, 0, x.va, y.va + 2, z.va);
}
static uint32_t b_crc_arg(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_CRC32C, 16, 0, x.va, y.va + 1, 0);
}
static uint32_t b_scale_arg(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_SCALE_U32, 16, 0, x.va + 2, y.va, 3);
}

static uint32_t b_write_unmapped(uint64_t *p)
{
	uint32_t d[2] = { 1, 2 };

	return onenode_pkt_write_data(p, UNMAPPED + 8, d, 2);
}
static uint32_t b_copy_src(uint64_t *p) { return onenode_pkt_copy(p, y.va, UNMAPPED + 4, 64); }
static uint32_t b_copy_dst(uint64_t *p) { return onenode_pkt_copy(p, UNMAPPED + 4, y.va, 64); }
static uint32_t b_copy_across(uint64_t *p)
{
	/* From the last page of y into the unmapped page after it. */
	return onenode_pkt_copy(p, x.va, y.va + BUF_SIZE - 16, 64);
}
static uint32_t b_atomic_unmapped(uint64_t *p)
{
	return onenode_pkt_atomic(p, VCOMPUTE_ATOMIC_ADD_U32, UNMAPPED, 1, 0, 0);
}
static uint32_t b_dispatch_out(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_VADD_U32, 16, 0, x.va, y.va, UNMAPPED);
}
/* A count near 2^64 once wrapped to zero workgroups and divided by zero. */
static uint32_t b_dispatch_count_max(uint64_t *p)
{
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_VADD_U32, UINT64_MAX, 0, x.va, y.va,
				    UNMAPPED);
}
static uint32_t b_fence_unmapped(uint64_t *p) { return onenode_pkt_fence(p, UNMAPPED, 1); }

static const struct bad_case bad_cases[] = {
	{ "opcode-unknown", DRM_COMPUTE_FAULT_PACKET, RING, b_opcode, 0 },
	{ "opcode-ff", DRM_COMPUTE_FAULT_PACKET, RING, b_opcode_ff, 0 },
	{ "header-pad", DRM_COMPUTE_FAULT_PACKET, RING, b_pad, 0 },
	{ "header-reserved", DRM_COMPUTE_FAULT_PACKET, RING, b_reserved, 0 },
	{ "size-zero", DRM_COMPUTE_FAULT_PACKET, RING, b_size0, 0 },
	{ "size-over-max", DRM_COMPUTE_FAULT_PACKET, RING, b_size_max, 0 },
	{ "copy-size", DRM_COMPUTE_FAULT_PACKET, RING, b_copy_size, 0 },
	{ "fence-size", DRM_COMPUTE_FAULT_PACKET, RING, b_fence_size, 0 },
	{ "write-data-short", DRM_COMPUTE_FAULT_PACKET, RING, b_write_short, 0 },
	{ "fill-pad", DRM_COMPUTE_FAULT_PACKET, RING, b_fill_pad, 0 },
	{ "atomic-op-0", DRM_COMPUTE_FAULT_PACKET, RING, b_atomic_op, 0 },
	{ "atomic-op-5", DRM_COMPUTE_FAULT_PACKET, RING, b_atomic_op5, 0 },
	{ "atomic-pad", DRM_COMPUTE_FAULT_PACKET, RING, b_atomic_pad, 0 },
	{ "wait-func-0", DRM_COMPUTE_FAULT_PACKET, RING, b_wait_func, 0 },
	{ "wait-func-5", DRM_COMPUTE_FAULT_PACKET, RING, b_wait_func5, 0 },
	{ "wait-flags", DRM_COMPUTE_FAULT_PACKET, RING, b_wait_flags, 0 },
	{ "dispatch-kernel-0", DRM_COMPUTE_FAULT_PACKET, RING, b_kernel, 0 },
	{ "dispatch-kernel-unknown", DRM_COMPUTE_FAULT_PACKET, RING, b_kernel_unknown, 0 },
	{ "dispatch-group-3", DRM_COMPUTE_FAULT_PACKET, RING, b_group3, 0 },
	{ "dispatch-group-131072", DRM_COMPUTE_FAULT_PACKET, RING, b_group_big, 0 },
	{ "past-wptr", DRM_COMPUTE_FAULT_PACKET, RING, b_past_wptr, 2 },
	{ "write-data-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 0, b_write_misaligned, 0 },
	{ "fill-dst-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 1, b_fill_dst, 0 },
	{ "fill-size-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 2, b_fill_size, 0 },
	{ "atomic32-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 3, b_atomic32, 0 },
	{ "atomic64-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 4, b_atomic64, 0 },
	{ "atomic-ret-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 5, b_atomic_ret, 0 },
	{ "wait32-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 6, b_wait32, 0 },
	{ "wait64-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 7, b_wait64, 0 },
	{ "fence-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 8, b_fence_va, 0 },
	{ "vadd-arg-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 9, b_vadd_arg, 0 },
	{ "crc-dst-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 10, b_crc_arg, 0 },
	{ "scale-src-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 11, b_scale_arg, 0 },
	{ "sum-dst-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 4, b_sum_dst, 0 },
	{ "list-head-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 4, b_list_head, 0 },
	{ "list-node-misaligned", DRM_COMPUTE_FAULT_ALIGNMENT, 4, b_list_node, 0 },
	{ "list-next-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED, b_list_unmapped, 0 },
	{ "write-data-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED + 8, b_write_unmapped, 0 },
	{ "copy-src-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED + 4, b_copy_src, 0 },
	{ "copy-dst-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED + 4, b_copy_dst, 0 },
	{ "copy-runs-off-mapping", DRM_COMPUTE_FAULT_UNMAPPED, 12, b_copy_across, 0 },
	{ "atomic-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED, b_atomic_unmapped, 0 },
	{ "dispatch-out-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED, b_dispatch_out, 0 },
	{ "dispatch-count-max", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED, b_dispatch_count_max, 0 },
	{ "fence-unmapped", DRM_COMPUTE_FAULT_UNMAPPED, UNMAPPED, b_fence_unmapped, 0 },
};

/* The fault address of a case, resolved against the buffers. */
static uint64_t case_fault_va(const struct bad_case *c, uint64_t pkt_va)
{
	const uint64_t misaligned[] = {
		y.va + 2, y.va + 1, y.va, y.va + 2, y.va + 4, y.va + 12, y.va + 2, y.va + 4,
		y.va + 4, y.va + 2, y.va + 1, x.va + 2, y.va + BUF_SIZE,
	};

	if (c->fault_va == RING)
		return pkt_va;
	if (c->fault_va < COMPUTE_ARRAY_SIZE(misaligned))
		return misaligned[c->fault_va];
	return c->fault_va;
}

/*
 * Run a case on a fresh queue after a FENCE that completes: the queue
 * faults with the reason at the address, the read pointer stays at the
 * bad packet (in the state and in memory), and the bystander still runs.
 */
static void run_bad_case(const struct bad_case *c)
{
	struct drm_compute_userq_state st;
	uint64_t at, pkt_va;
	uint32_t qw;

	fresh_queue(NULL);
	run();
	at = q.q.wptr;
	pkt_va = q.q.ring_va + (at & (q.q.ring_size - 1));
	qw = c->build(pkt);
	if (c->commit_qw) {
		compute_emit(&q, pkt, c->commit_qw);
		compute_commit(&q);
	} else {
		emit(qw);
		compute_submit(&q);
	}
	compute_assert_fault(&cd, q.q.id, c->reason, case_fault_va(c, pkt_va), at);
	igt_assert_eq_u64(*q.q.rptr, at);
	compute_state(&cd, q.q.id, &st);
	igt_assert_eq_u64(st.fence, q.q.fence_value - (c->commit_qw ? 0 : 1));
	compute_check_alive(&bystander);
}

/* Publish @wptr by hand and expect DRM_COMPUTE_FAULT_WPTR, rptr at @rptr. */
static void run_bad_wptr(uint64_t wptr, uint64_t rptr)
{
	int ret;

	q.q.doorbell->wptr = wptr;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* The device may have seen it and faulted the queue already: -EIO. */
	ret = onenode_userq_control(&cd.dev, q.q.id, DRM_COMPUTE_USERQ_OP_WAKE);
	igt_assert_f(ret == 0 || ret == -EIO, "WAKE: %d\n", ret);
	compute_assert_fault(&cd, q.q.id, DRM_COMPUTE_FAULT_WPTR, 0, rptr);
	compute_check_alive(&bystander);
}

/* ---- dispatch helpers ---- */

static void dispatch(uint32_t kernel, uint64_t count, uint32_t group, uint64_t a0,
		     uint64_t a1, uint64_t a2)
{
	emit(onenode_pkt_dispatch(pkt, kernel, count, group, a0, a1, a2));
	run();
}

static void random_words(void *p, size_t n, uint64_t seed)
{
	uint32_t *w = p;

	seed |= 1;
	for (size_t i = 0; i < n; i++)
		w[i] = compute_rand32(&seed);
}

/* ---- the engine's bounds (issue 23) ---- */

/*
 * A job that never ends and always makes progress: LIST_SUM around a
 * two-node cycle at @nodes_va (in @nodes), counting to 2^64 - 1.
 */
static uint32_t endless_job(uint64_t *p, void *nodes, uint64_t nodes_va, uint64_t out_va)
{
	struct vcompute_list_node *n = nodes;

	n[0] = (struct vcompute_list_node){ .next = nodes_va + sizeof(*n), .value = 1 };
	n[1] = (struct vcompute_list_node){ .next = nodes_va, .value = 2 };
	return onenode_pkt_dispatch(p, VCOMPUTE_KERNEL_LIST_SUM, UINT64_MAX, 0, nodes_va,
				    out_va, 0);
}

#define ENDLESS_NODES	24576	/* offset in y: the two nodes */
#define ENDLESS_OUT	24640	/* offset in y: the running sum */

/*
 * A job that runs past job_timeout_ms is stopped: its queue FAULTED with
 * JOB_TIMEOUT at the packet, its waiter woken with -EIO. Hang detection
 * alone never stops it (its progress moves), so before the job limit the
 * queue ran until it was destroyed.
 */
static void test_job_timeout(void)
{
	static struct compute_queue jq;
	struct drm_compute_userq_state st;
	uint64_t value, t0, pkt_va;

	compute_param_set(&job_timeout, 500);
	compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(5), &jq);
	pkt_va = jq.q.ring_va + (jq.q.wptr & (jq.q.ring_size - 1));
	compute_emit(&jq, pkt, endless_job(pkt, (char *)y.cpu + ENDLESS_NODES,
					   y.va + ENDLESS_NODES, y.va + ENDLESS_OUT));
	value = compute_submit(&jq);
	t0 = compute_now_ns();
	igt_fork(child, 1)
		igt_assert_eq(onenode_queue_wait(&jq.q, value, COMPUTE_TIMEOUT_MS * 1000000ll),
			      -EIO);
	igt_assert_f(compute_poll_status(&cd, jq.q.id, DRM_COMPUTE_USERQ_STATUS_FAULTED,
					 20000, &st),
		     "the endless job still runs after 20 s: %s\n",
		     onenode_status_name(st.status));
	igt_info("stopped after %.0f ms (limit 500 ms of engine time)\n",
		 (compute_now_ns() - t0) / 1e6);
	igt_assert_f(st.fault_reason == DRM_COMPUTE_FAULT_JOB_TIMEOUT, "fault %s\n",
		     onenode_fault_name(st.fault_reason));
	igt_assert_eq_u64(st.fault_va, pkt_va);
	igt_waitchildren();
	compute_queue_fini(&jq);
	compute_param_restore(&job_timeout);
	compute_check_alive(&bystander);
}

/* Batches of four 256 KiB FILLs @cq completes in @ms milliseconds. */
static unsigned int fill_batches(struct compute_queue *cq, uint64_t va, unsigned int ms)
{
	uint64_t end = compute_now_ns() + ms * MS;
	unsigned int n = 0;

	while (compute_now_ns() < end) {
		for (unsigned int i = 0; i < 4; i++)
			compute_emit(cq, pkt, onenode_pkt_fill(pkt, va, 256 * 1024, n + i));
		compute_sync(cq, compute_submit(cq));
		n++;
	}
	return n;
}

/*
 * Another client's queue that never stops (job limit off) takes no more
 * than its share of the engine: a client at the same priority keeps at
 * least 0.3 of the throughput it has alone (0.5 is an even split; the rest
 * is margin for TCG). With one step per turn, whatever a step cost, the
 * endless LIST_SUM's long steps took nearly all of it. The two are measured
 * side by side, three times (the endless queue suspended, then resumed),
 * and the best round counts: the guest's two CPUs are shared with the test
 * itself, and one preempted round is noise, not unfairness.
 */
static void test_fair_share(void)
{
	static struct compute_queue victim, hostile;
	static struct compute_buf vbuf;
	struct drm_compute_userq_state st;
	struct compute_dev other;
	unsigned int alone, shared;
	double ratio, best = 0;
	uint32_t ovm;

	compute_param_set(&job_timeout, 0);
	compute_open_file(&cd, &other);
	ovm = compute_vm(&other);
	compute_buf_init(&other, ovm, 256 * 1024, DRM_COMPUTE_PLACEMENT_SYSTEM,
			 COMPUTE_BUF_VA(0), DRM_COMPUTE_VM_BIND_NOEXEC, &vbuf);
	compute_queue_init_at(&other, ovm, COMPUTE_QUEUE_VA(0), &victim);
	fill_batches(&victim, vbuf.va, 200);	/* warm up */

	compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(5), &hostile);
	compute_emit(&hostile, pkt, endless_job(pkt, (char *)y.cpu + ENDLESS_NODES,
						y.va + ENDLESS_NODES, y.va + ENDLESS_OUT));
	igt_assert_eq(onenode_userq_control(&cd.dev, hostile.q.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
	compute_submit(&hostile);
	for (int round = 0; round < 3; round++) {
		alone = fill_batches(&victim, vbuf.va, 700);
		igt_assert_eq(onenode_userq_control(&cd.dev, hostile.q.id, DRM_COMPUTE_USERQ_OP_RESUME), 0);
		shared = fill_batches(&victim, vbuf.va, 700);
		compute_check_alive(&victim);
		compute_state(&cd, hostile.q.id, &st);
		igt_assert_f(st.status == DRM_COMPUTE_USERQ_STATUS_RUNNING,
			     "the endless job: %s\n", onenode_status_name(st.status));
		igt_assert_eq(onenode_userq_control(&cd.dev, hostile.q.id, DRM_COMPUTE_USERQ_OP_SUSPEND), 0);
		ratio = (double)shared / alone;
		igt_info("round %d, batches in 0.7 s: %u alone, %u beside an endless job: %.2f\n",
			 round, alone, shared, ratio);
		if (ratio > best)
			best = ratio;
	}
	compute_queue_fini(&hostile);
	compute_param_restore(&job_timeout);
	compute_queue_fini(&victim);
	compute_buf_fini(&other, &vbuf);
	compute_vm_destroy(&other, ovm);
	compute_close(&other);
	igt_assert_f(best >= 0.3, "a client kept at best %.2f of its throughput\n", best);
}

/*
 * The engine thread's CPU time, from /proc: about none while no queue has
 * work, and little while a queue waits (WAIT_MEM) for two seconds; the
 * polling backs off instead of waking every few tens of microseconds.
 */
static void test_engine_cpu(void)
{
	static struct compute_queue wq;
	volatile uint32_t *flag = (uint32_t *)((char *)y.cpu + ENDLESS_OUT + 64);
	int pid = compute_engine_pid(&cd);
	uint64_t c0, c1, value;
	double idle, waiting;

	igt_require_f(pid > 0, "no engine thread found for the device\n");
	compute_sleep_ms(100);
	c0 = compute_task_cpu_ns(pid);
	compute_sleep_ms(2000);
	c1 = compute_task_cpu_ns(pid);
	idle = (c1 - c0) / 2e9;

	*flag = 0;
	compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(5), &wq);
	compute_emit(&wq, pkt, onenode_pkt_wait_mem(pkt, y.va + ENDLESS_OUT + 64,
						    VCOMPUTE_WAIT_EQ, 1, ~0ull, 0, 0));
	value = compute_submit(&wq);
	compute_sleep_ms(100);
	c0 = compute_task_cpu_ns(pid);
	compute_sleep_ms(2000);
	c1 = compute_task_cpu_ns(pid);
	waiting = (c1 - c0) / 2e9;
	*flag = 1;
	compute_sync(&wq, value);
	compute_queue_fini(&wq);
	igt_info("engine CPU: %.1f%% idle, %.1f%% with a queue waiting\n", idle * 100,
		 waiting * 100);
	igt_assert_f(idle <= 0.02, "the idle engine used %.1f%% of a CPU\n", idle * 100);
	igt_assert_f(waiting <= 0.15, "the engine used %.1f%% of a CPU polling a wait\n",
		     waiting * 100);
}

/*
 * CU masks: CU_REPEAT DISPATCHes of VADD_U32 over whole buffers on a queue
 * whose mask enables @cu_a and @cu_b (the same CU: one). Every workgroup
 * must run on an enabled unit, the groups shared evenly, and only the
 * enabled units' worker threads may have used CPU: the scheduler's clock,
 * not the driver's counts, says where the work ran.
 */
#define CU_REPEAT	32

static void test_cu_mask(uint32_t cu_a, uint32_t cu_b, uint64_t *wall_ns)
{
	static struct compute_queue cq;
	static uint64_t before[64], after[64], cpu[64];
	static int pids[64];
	const uint32_t ncu = cd.uq.num_cus;
	const uint64_t count = BUF_SIZE / 4, groups = CU_REPEAT * count / 256;
	uint32_t mask[2] = { 0, 0 };
	struct onenode_queue_params p = {
		.va = COMPUTE_QUEUE_VA(4),
		.priority = ONENODE_PRIORITY_DEFAULT,
		.cu_mask = mask,
		.cu_mask_count = 32 * ((ncu + 31) / 32),
	};
	uint64_t busy = 0, t0, value;

	mask[cu_a / 32] |= 1u << (cu_a % 32);
	mask[cu_b / 32] |= 1u << (cu_b % 32);
	compute_queue_init(&cd, vm, &p, &cq);
	for (unsigned int i = 0; i < CU_REPEAT; i++)
		compute_emit(&cq, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, count,
							    256, x.va, y.va, z.va));
	igt_assert_eq(compute_cus(&cd, before, pids, 64), (int)ncu);
	for (uint32_t cu = 0; cu < ncu; cu++) {
		igt_assert_f(pids[cu] > 0 && !kill(pids[cu], 0), "CU %u: no worker thread\n", cu);
		cpu[cu] = compute_task_cpu_ns(pids[cu]);
	}
	t0 = compute_now_ns();
	value = compute_submit(&cq);
	compute_sync(&cq, value);
	*wall_ns = compute_now_ns() - t0;
	for (uint32_t cu = 0; cu < ncu; cu++)
		cpu[cu] = compute_task_cpu_ns(pids[cu]) - cpu[cu];
	igt_assert_eq(compute_cus(&cd, after, NULL, 64), (int)ncu);
	compute_queue_fini(&cq);

	for (uint32_t cu = 0; cu < ncu; cu++) {
		bool on = cu == cu_a || cu == cu_b;
		uint64_t want = !on ? 0 : cu_a == cu_b ? groups : groups / 2;

		igt_assert_f(after[cu] - before[cu] == want,
			     "CU %u ran %" PRIu64 " groups, want %" PRIu64 "\n", cu,
			     after[cu] - before[cu], want);
		if (on)
			busy += cpu[cu];
	}
	igt_info("%" PRIu64 " groups in %.1f ms; worker CPU: %.1f ms\n", groups, *wall_ns / 1e6,
		 busy / 1e6);
	igt_assert_f(busy > 0, "the enabled units' workers used no CPU\n");
	for (uint32_t cu = 0; cu < ncu; cu++) {
		bool on = cu == cu_a || cu == cu_b;

		if (!on)
			igt_assert_f(cpu[cu] <= busy / 50,
				     "CU %u is not in the mask but its worker used %.1f ms of CPU (the enabled ones %.1f ms)\n",
				     cu, cpu[cu] / 1e6, busy / 1e6);
		else if (cu_a != cu_b)
			igt_assert_f(cpu[cu] >= busy / 4,
				     "CU %u did %.0f%% of the work, want about half\n", cu,
				     100.0 * cpu[cu] / busy);
	}
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		vm = compute_vm(&cd);
		vm_other = compute_vm(&cd);
		compute_buf_init(&cd, vm, BUF_SIZE, default_placement(), COMPUTE_BUF_VA(0),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &x);
		compute_buf_init(&cd, vm, BUF_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM,
				 COMPUTE_BUF_VA(1), DRM_COMPUTE_VM_BIND_NOEXEC, &y);
		compute_buf_init(&cd, vm, BUF_SIZE, default_placement(), COMPUTE_BUF_VA(2),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &z);
		fresh_queue(NULL);
		compute_queue_init_at(&cd, vm_other, COMPUTE_QUEUE_VA(1), &bystander);
	}

	igt_describe("WRITE_DATA writes exactly its data words (an odd count "
		     "padded with a zero word) at 4-byte aligned addresses, across "
		     "pages, up to the largest packet, and nothing around them.");
	igt_subtest_with_dynamic("write-data") {
		const struct {
			const char *name;
			uint64_t offset;
			uint32_t ndw;
		} cases[] = {
			{ "two-words", 64, 2 },
			{ "odd-words", 128, 3 },
			{ "dword-aligned", 260, 6 },
			{ "page-crossing", COMPUTE_PAGE - 12, 8 },
			{ "largest", 8192, 2 * (VCOMPUTE_PKT_MAX_QWORDS - 2) },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				static uint32_t data[2 * VCOMPUTE_PKT_MAX_QWORDS];
				uint32_t n = cases[i].ndw, written = (n + 1) & ~1u;
				char *dst = (char *)y.cpu + cases[i].offset;

				random_words(data, n, i + 1);
				memset(dst - 64, CANARY, written * 4 + 128);
				emit(onenode_pkt_write_data(pkt, y.va + cases[i].offset, data, n));
				run();
				igt_assert(memcmp(dst, data, n * 4) == 0);
				if (written != n)
					igt_assert_eq_u32(((uint32_t *)dst)[n], 0);
				check_bytes(dst - 64, 64, CANARY, "before");
				check_bytes(dst + written * 4, 64, CANARY, "after");
			}
		}
	}

	igt_describe("COPY copies exactly size bytes at any alignment, across "
		     "pages and chunks, between placements, from a packet that "
		     "wraps around the end of the ring; size 0 copies nothing.");
	igt_subtest_with_dynamic("copy") {
		const struct {
			const char *name;
			struct compute_buf *src, *dst;
			uint64_t src_off, dst_off, size;
			bool wrap;
		} cases[] = {
			{ "aligned", &x, &z, 0, 0, 4096, false },
			{ "unaligned", &x, &z, 1, 3, 1001, false },
			{ "page-crossing", &x, &z, COMPUTE_PAGE - 5, 2 * COMPUTE_PAGE - 7, 3 * COMPUTE_PAGE, false },
			{ "multi-chunk", &x, &z, 8, 16, 3 * MIB / 2, false },
			{ "vram-to-system", &x, &y, 100, 200, 70000, false },
			{ "system-to-vram", &y, &x, 200, 100, 70000, false },
			{ "zero-size", &x, &z, 0, 0, 0, false },
			{ "wrapping-ring", &x, &z, 12, 20, 777, true },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				char *src = (char *)cases[i].src->cpu + cases[i].src_off;
				char *dst = (char *)cases[i].dst->cpu + cases[i].dst_off;
				uint64_t size = cases[i].size;
				static unsigned char ref[2 * MIB];

				random_words(cases[i].src->cpu, BUF_SIZE / 4, 100 + i);
				memcpy(ref, src, size);
				memset(cases[i].dst->cpu, CANARY, BUF_SIZE);
				if (cases[i].wrap) {
					const struct onenode_queue_params p = {
						.va = COMPUTE_QUEUE_VA(0),
						.ring_size = 4096,
						.priority = ONENODE_PRIORITY_DEFAULT,
					};
					uint64_t left;

					fresh_queue(&p);
					/*
					 * A NOP, then run()'s FENCE (24 bytes), leave the
					 * write pointer 16 bytes before the ring's end:
					 * the COPY's second half lies at the ring's start.
					 */
					left = q.q.ring_size - 16 - 24 - (q.q.wptr & (q.q.ring_size - 1));
					emit(onenode_pkt_nop(pkt, left / 8));
					run();
					igt_assert_eq_u64(q.q.wptr & (q.q.ring_size - 1),
							  q.q.ring_size - 16);
				}
				emit(onenode_pkt_copy(pkt, cases[i].dst->va + cases[i].dst_off,
						      cases[i].src->va + cases[i].src_off, size));
				run();
				igt_assert(memcmp(dst, ref, size) == 0);
				check_bytes(cases[i].dst->cpu, cases[i].dst_off, CANARY, "before");
				check_bytes(dst + size, 256, CANARY, "after");
				if (cases[i].wrap)
					fresh_queue(NULL);
			}
		}
	}

	igt_describe("FILL writes its 32-bit value over exactly size bytes, "
		     "across pages and chunks, both placements; size 0 writes "
		     "nothing.");
	igt_subtest_with_dynamic("fill") {
		const struct {
			const char *name;
			struct compute_buf *dst;
			uint64_t off, size;
			uint32_t value;
		} cases[] = {
			{ "small", &y, 64, 64, 0xdeadbeef },
			{ "page-crossing", &y, COMPUTE_PAGE - 8, 32, 0x01020304 },
			{ "multi-chunk", &x, 4, 3 * MIB / 2, 0xfffffffe },
			{ "zero-size", &y, 64, 0, 0x11111111 },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				uint32_t *d = (uint32_t *)((char *)cases[i].dst->cpu + cases[i].off);

				memset(cases[i].dst->cpu, CANARY, BUF_SIZE);
				emit(onenode_pkt_fill(pkt, cases[i].dst->va + cases[i].off,
						      cases[i].size, cases[i].value));
				run();
				for (uint64_t w = 0; w < cases[i].size / 4; w++)
					igt_assert_f(d[w] == cases[i].value, "word %" PRIu64 ": %#x\n",
						     w, d[w]);
				check_bytes(cases[i].dst->cpu, cases[i].off, CANARY, "before");
				check_bytes((char *)d + cases[i].size, 256, CANARY, "after");
			}
		}
	}

	igt_describe("ATOMIC: 32- and 64-bit add (wrapping, the 32-bit one using "
		     "the low half of src) and compare-exchange (matching and not), "
		     "each writing the old value of the operand size to ret_va "
		     "(or nowhere with ret_va 0).");
	igt_subtest_with_dynamic("atomic") {
		const struct {
			const char *name;
			uint32_t op, size;
			uint64_t init, src, cmp, after;
		} cases[] = {
			{ "add-u32", VCOMPUTE_ATOMIC_ADD_U32, 4, 0xfffffff0, 0xabcd00000020ull, 0,
			  0x10 },
			{ "add-u64", VCOMPUTE_ATOMIC_ADD_U64, 8, 1ull << 40, 5, 0, (1ull << 40) + 5 },
			{ "add-u64-wrap", VCOMPUTE_ATOMIC_ADD_U64, 8, ~0ull, 2, 0, 1 },
			{ "cmpxchg-u32-match", VCOMPUTE_ATOMIC_CMPXCHG_U32, 4, 7, 0x99, 0xffff00000007ull,
			  0x99 },
			{ "cmpxchg-u32-miss", VCOMPUTE_ATOMIC_CMPXCHG_U32, 4, 7, 0x99, 8, 7 },
			{ "cmpxchg-u64-match", VCOMPUTE_ATOMIC_CMPXCHG_U64, 8, 1ull << 33, 3,
			  1ull << 33, 3 },
			{ "cmpxchg-u64-miss", VCOMPUTE_ATOMIC_CMPXCHG_U64, 8, 1ull << 33, 3, 1, 1ull << 33 },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				uint64_t *w = (uint64_t *)((char *)y.cpu + 256);
				uint64_t *ret = (uint64_t *)((char *)y.cpu + 512);
				uint64_t keep_high = 0x5555555500000000ull;

				*w = cases[i].size == 4 ? keep_high | cases[i].init : cases[i].init;
				*ret = ~0ull;
				emit(onenode_pkt_atomic(pkt, cases[i].op, y.va + 256, cases[i].src,
							cases[i].cmp, y.va + 512));
				/* And once more without a return address. */
				emit(onenode_pkt_atomic(pkt, cases[i].op, y.va + 1024, cases[i].src,
							cases[i].cmp, 0));
				run();
				if (cases[i].size == 4) {
					igt_assert_eq_u64(*w, keep_high | cases[i].after);
					igt_assert_eq_u64(*ret, 0xffffffff00000000ull | cases[i].init);
				} else {
					igt_assert_eq_u64(*w, cases[i].after);
					igt_assert_eq_u64(*ret, cases[i].init);
				}
			}
		}
		igt_dynamic("against-cpu") {
			volatile uint32_t *w32 = (uint32_t *)((char *)y.cpu + 2048);
			volatile uint64_t *w64 = (uint64_t *)((char *)y.cpu + 2056);
			const unsigned int batches = 8, per = 250;

			*w32 = 0;
			*w64 = 0;
			igt_fork(child, 1) {
				for (unsigned int n = 0; n < batches * per; n++) {
					__atomic_fetch_add(w32, 3, __ATOMIC_SEQ_CST);
					__atomic_fetch_add(w64, 1ull << 32, __ATOMIC_SEQ_CST);
				}
			}
			for (unsigned int b = 0; b < batches; b++) {
				for (unsigned int n = 0; n < per; n++) {
					emit(onenode_pkt_atomic(pkt, VCOMPUTE_ATOMIC_ADD_U32,
								y.va + 2048, 1, 0, 0));
					emit(onenode_pkt_atomic(pkt, VCOMPUTE_ATOMIC_ADD_U64,
								y.va + 2056, 1, 0, 0));
				}
				run();
			}
			igt_waitchildren();
			igt_assert_eq_u32(*w32, batches * per * 4);
			igt_assert_eq_u64(*w64, (uint64_t)batches * per * ((1ull << 32) + 1));
		}
	}

	igt_describe("WAIT_MEM stalls the queue (RUNNING, read pointer at the "
		     "packet) until its condition holds for each function, on the "
		     "masked low 32 bits or on 64 bits with VCOMPUTE_WAIT_64BIT, and "
		     "then completes; with a timeout of its own that expires the "
		     "queue faults with DRM_COMPUTE_FAULT_TIMEOUT at the address.");
	igt_subtest_with_dynamic("wait-mem") {
		const struct {
			const char *name;
			uint32_t func, flags;
			uint64_t ref, mask, before, after;
		} cases[] = {
			{ "eq", VCOMPUTE_WAIT_EQ, 0, 0x1234, 0xffff, 0xdead0000ffff1230ull,
			  0xbeef00000ff1234ull },
			{ "ne", VCOMPUTE_WAIT_NE, 0, 5, 0xffffffff, 0x1234567800000005ull, 6 },
			{ "ge", VCOMPUTE_WAIT_GE, 0, 0x80000000, 0xffffffff, 0xffffffff7fffffffull,
			  0x80000000 },
			{ "lt", VCOMPUTE_WAIT_LT, 0, 0x10, 0xff, 0x10, 0x10f },
			{ "eq-64", VCOMPUTE_WAIT_EQ, VCOMPUTE_WAIT_64BIT, 0x100000001ull, ~0ull, 1,
			  0x100000001ull },
			{ "ge-64", VCOMPUTE_WAIT_GE, VCOMPUTE_WAIT_64BIT, 1ull << 63, ~0ull,
			  (1ull << 63) - 1, 1ull << 63 },
			{ "lt-64", VCOMPUTE_WAIT_LT, VCOMPUTE_WAIT_64BIT, 1ull << 40, ~0ull,
			  1ull << 40, (1ull << 40) - 1 },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				volatile uint64_t *w = (uint64_t *)((char *)y.cpu + 4096);
				struct drm_compute_userq_state st;
				uint64_t at, value;

				*w = cases[i].before;
				at = q.q.wptr;
				emit(onenode_pkt_wait_mem(pkt, y.va + 4096, cases[i].func,
							  cases[i].ref, cases[i].mask,
							  cases[i].flags, 0));
				value = compute_submit(&q);
				compute_sleep_ms(COMPUTE_SHORT_MS);
				compute_state(&cd, q.q.id, &st);
				igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_RUNNING);
				igt_assert_eq_u64(st.rptr, at);
				*w = cases[i].after;
				compute_sync(&q, value);
			}
		}
		igt_dynamic("own-timeout") {
			volatile uint32_t *w = (uint32_t *)((char *)y.cpu + 4096);
			uint64_t at = q.q.wptr, t0 = compute_now_ns();

			*w = 0;
			emit(onenode_pkt_wait_mem(pkt, y.va + 4096, VCOMPUTE_WAIT_EQ, 1, ~0ull, 0,
						  100 * MS));
			compute_submit(&q);
			compute_assert_fault(&cd, q.q.id, DRM_COMPUTE_FAULT_TIMEOUT, y.va + 4096, at);
			igt_assert_lte_u64(100 * MS, compute_now_ns() - t0);
			compute_check_alive(&bystander);
			fresh_queue(NULL);
		}
	}

	igt_describe("FENCE writes its value to memory only after every earlier "
		     "packet is complete (the data of a long COPY is all there when "
		     "the value appears) and becomes the queue's fence.");
	igt_subtest("fence-ordering") {
		volatile uint64_t *slot = (uint64_t *)((char *)y.cpu + 8192);
		struct drm_compute_userq_state st;
		uint64_t end;

		random_words(x.cpu, BUF_SIZE / 4, 55);
		memset(z.cpu, 0, BUF_SIZE);
		*slot = 0;
		emit(onenode_pkt_copy(pkt, z.va, x.va, BUF_SIZE));
		emit(onenode_pkt_fence(pkt, y.va + 8192, 0x77));
		compute_commit(&q);
		end = compute_now_ns() + COMPUTE_TIMEOUT_MS * MS;
		while (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != 0x77)
			igt_assert(compute_now_ns() < end);
		igt_assert(memcmp(z.cpu, x.cpu, BUF_SIZE) == 0);
		compute_assert_status(&cd, q.q.id, DRM_COMPUTE_USERQ_STATUS_IDLE, &st);
		igt_assert_eq_u64(st.fence, 0x77);
		fresh_queue(NULL);
	}

	igt_describe("DISPATCH of VADD_U32 matches the CPU (wrapping adds) for "
		     "random inputs, several group sizes and counts that are not "
		     "a multiple of the group size.");
	igt_subtest_with_dynamic("vadd-u32") {
		const struct {
			uint32_t group;
			uint64_t count;
		} cases[] = {
			{ 0, 100000 }, { 1, 1000 }, { 64, 4097 }, { 256, 257 }, { 65536, 200000 },
			{ 256, 1 }, { 256, 0 }, { 0, 0 },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic_f("group-%u-count-%" PRIu64, cases[i].group, cases[i].count) {
				const uint32_t *a = x.cpu, *b = y.cpu, *c = z.cpu;
				uint64_t n = cases[i].count;

				random_words(x.cpu, n, 2 * i + 1);
				random_words(y.cpu, n, 2 * i + 2);
				memset(z.cpu, CANARY, (n + 64) * 4);
				dispatch(VCOMPUTE_KERNEL_VADD_U32, n, cases[i].group, x.va, y.va, z.va);
				for (uint64_t e = 0; e < n; e++)
					igt_assert_f(c[e] == a[e] + b[e], "element %" PRIu64 "\n", e);
				check_bytes(c + n, 256, CANARY, "after");
			}
		}
	}

	igt_describe("DISPATCH of VADD_F32 is bit-exact with the CPU's IEEE-754 "
		     "addition (SSE addss, round to nearest even, denormals kept) "
		     "on random operands including denormals, infinities, zeros "
		     "of both signs and cancellation; a NaN result is a NaN.");
	igt_subtest("vadd-f32") {
		const uint64_t n = 100000;
		uint32_t *a = x.cpu, *b = y.cpu, *c = z.cpu;
		uint64_t seed = 2024, nans = 0, denorms = 0;

		for (uint64_t e = 0; e < n; e++) {
			a[e] = f32_operand(&seed, 0x3f800000u);
			b[e] = f32_operand(&seed, a[e]);
		}
		dispatch(VCOMPUTE_KERNEL_VADD_F32, n, 0, x.va, y.va, z.va);
		for (uint64_t e = 0; e < n; e++) {
			uint32_t want = f32_add(a[e], b[e]);

			if (f32_is_nan(want)) {
				igt_assert_f(f32_is_nan(c[e]), "%#x + %#x: %#x, want a NaN\n",
					     a[e], b[e], c[e]);
				nans++;
				continue;
			}
			denorms += (want & 0x7f800000u) == 0 && (want & 0x007fffffu);
			igt_assert_f(c[e] == want, "%#x + %#x: %#x, want %#x\n", a[e], b[e],
				     c[e], want);
		}
		igt_info("%" PRIu64 " sums, %" PRIu64 " NaN, %" PRIu64 " denormal\n", n, nans,
			 denorms);
		igt_assert(nans > 0 && denorms > 0);
	}

	igt_describe("DISPATCH of CRC32C equals a software CRC-32C (the check "
		     "value of \"123456789\" too) for lengths 0 to over a MiB at "
		     "any alignment, and chaining through the seed equals the CRC "
		     "of the concatenation.");
	igt_subtest_with_dynamic("crc32c") {
		const struct {
			uint64_t off, len;
			uint32_t seed;
		} cases[] = {
			{ 0, 0, 0 }, { 0, 0, 0x12345678 }, { 0, 1, 0 }, { 1, 7, 0 },
			{ 3, 4099, 0xffffffff }, { 5, MIB + 13, 0xcafe },
		};
		uint32_t *out = (uint32_t *)((char *)y.cpu + 64);

		igt_dynamic("check-value") {
			memcpy(x.cpu, "123456789", 9);
			igt_assert_eq_u32(crc32c_sw(0, "123456789", 9), 0xe3069283);
			*out = 0;
			dispatch(VCOMPUTE_KERNEL_CRC32C, 9, 0, x.va, y.va + 64, 0);
			igt_assert_eq_u32(*out, 0xe3069283);
		}
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic_f("len-%" PRIu64 "-off-%" PRIu64 "-seed-%x", cases[i].len,
				      cases[i].off, cases[i].seed) {
				random_words(x.cpu, BUF_SIZE / 4, 300 + i);
				*out = 0xdeadbeef;
				dispatch(VCOMPUTE_KERNEL_CRC32C, cases[i].len, 0, x.va + cases[i].off,
					 y.va + 64, cases[i].seed);
				igt_assert_eq_u32(*out, crc32c_sw(cases[i].seed,
								  (char *)x.cpu + cases[i].off,
								  cases[i].len));
			}
		}
		igt_dynamic("chained") {
			const uint64_t first = 300001, second = 200003;
			uint32_t whole, part;

			random_words(x.cpu, BUF_SIZE / 4, 77);
			whole = crc32c_sw(0, x.cpu, first + second);
			emit(onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_CRC32C, first, 0, x.va,
						  y.va + 64, 0));
			run();
			part = *out;
			dispatch(VCOMPUTE_KERNEL_CRC32C, second, 0, x.va + first, y.va + 64, part);
			igt_assert_eq_u32(*out, whole);
		}
	}

	igt_describe("DISPATCH of SCALE_U32 multiplies by the low 32 bits of the "
		     "factor, wrapping: factors 0, 1 (a copy), 3 and 0xffffffff.");
	igt_subtest_with_dynamic("scale-u32") {
		const uint64_t factors[] = { 0, 1, 3, 0xffffffff, 0x700000005ull };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(factors); i++) {
			igt_dynamic_f("factor-%#" PRIx64, factors[i]) {
				const uint64_t n = 65537;
				const uint32_t *s = x.cpu, *d = z.cpu;

				random_words(x.cpu, n, 500 + i);
				memset(z.cpu, CANARY, (n + 64) * 4);
				dispatch(VCOMPUTE_KERNEL_SCALE_U32, n, 128, x.va, z.va, factors[i]);
				for (uint64_t e = 0; e < n; e++)
					igt_assert_f(d[e] == s[e] * (uint32_t)factors[i],
						     "element %" PRIu64 "\n", e);
				check_bytes(d + n, 256, CANARY, "after");
			}
		}
	}

	igt_describe("DISPATCH of SUM_U32 writes the 64-bit sum of the words: no "
		     "word, one, a page-crossing count, and more than one round.");
	igt_subtest_with_dynamic("sum-u32") {
		const uint64_t counts[] = { 0, 1, 65537, BUF_SIZE / 4 };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(counts); i++) {
			igt_dynamic_f("count-%" PRIu64, counts[i]) {
				const uint32_t *w = x.cpu;
				uint64_t *out = z.cpu, want = 0;

				random_words(x.cpu, BUF_SIZE / 4, 700 + i);
				for (uint64_t e = 0; e < counts[i]; e++)
					want += w[e];
				memset(z.cpu, CANARY, 64);
				dispatch(VCOMPUTE_KERNEL_SUM_U32, counts[i], 0, x.va, z.va, 0);
				igt_assert_eq_u64(out[0], want);
				check_bytes(out + 1, 56, CANARY, "after");
			}
		}
	}

	igt_describe("DISPATCH of LIST_SUM walks a list of nodes linked in "
		     "shuffled order through the GPU's addresses: to its end, "
		     "stopped by the count, around a cycle (bounded by the "
		     "count), and a list long enough for several rounds.");
	igt_subtest_with_dynamic("list-sum") {
		static const struct {
			const char *name;
			uint64_t len, count;
			bool cycle;
		} cases[] = {
			{ "to-the-end", 100, 1000, false },
			{ "bounded", 100, 40, false },
			{ "cycle", 50, 175, true },
			{ "several-rounds", 20000, 1 << 20, false },
		};

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(cases); i++) {
			igt_dynamic(cases[i].name) {
				struct vcompute_list_node *n = y.cpu;
				struct vcompute_list_sum *out = z.cpu;
				uint64_t len = cases[i].len, *order, seed = 900 + i, want = 0, k;

				igt_assert(len * sizeof(*n) <= BUF_SIZE);
				order = malloc(len * sizeof(*order));
				igt_assert(order);
				for (k = 0; k < len; k++)
					order[k] = k;
				for (k = len - 1; k > 0; k--) {	/* Fisher-Yates */
					uint64_t j, t;

					seed = seed * 6364136223846793005ull + 1442695040888963407ull;
					j = (seed >> 33) % (k + 1);
					t = order[k];
					order[k] = order[j];
					order[j] = t;
				}
				for (k = 0; k < len; k++) {
					uint64_t next = k + 1 < len ? y.va + order[k + 1] * sizeof(*n) :
						cases[i].cycle ? y.va + order[0] * sizeof(*n) : 0;

					n[order[k]].next = next;
					n[order[k]].value = k * 0x9e3779b97f4a7c15ull;
				}
				for (k = 0; k < cases[i].count && (cases[i].cycle || k < len); k++)
					want += (k % len) * 0x9e3779b97f4a7c15ull;
				memset(z.cpu, CANARY, 64);
				dispatch(VCOMPUTE_KERNEL_LIST_SUM, cases[i].count, 0,
					 y.va + order[0] * sizeof(*n), z.va, 0);
				igt_assert_eq_u64(out->nodes, k);
				igt_assert_eq_u64(out->sum, want);
				check_bytes(out + 1, 48, CANARY, "after");
				free(order);
			}
		}
	}

	igt_describe("A bad packet faults its queue with the documented reason "
		     "and address (PACKET at the packet for bad fields and sizes, "
		     "ALIGNMENT at the misaligned address, UNMAPPED at the first "
		     "unmapped byte), the read pointer stays at the packet, the "
		     "fence stays at the last completed one, and a queue in "
		     "another VM keeps completing work.");
	igt_subtest_with_dynamic("bad-packet") {
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(bad_cases); i++)
			igt_dynamic(bad_cases[i].name)
				run_bad_case(&bad_cases[i]);
		fresh_queue(NULL);
	}

	igt_describe("A bad write pointer faults the queue with "
		     "DRM_COMPUTE_FAULT_WPTR and leaves the read pointer: one not "
		     "8-byte aligned, one behind the read pointer, one more than a "
		     "ring ahead; other queues keep running.");
	igt_subtest_with_dynamic("bad-wptr") {
		igt_dynamic("misaligned") {
			fresh_queue(NULL);
			run();
			run_bad_wptr(q.q.wptr + 4, q.q.wptr);
		}
		igt_dynamic("behind-rptr") {
			fresh_queue(NULL);
			run();
			run_bad_wptr(q.q.wptr - 8, q.q.wptr);
		}
		igt_dynamic("past-ring") {
			fresh_queue(NULL);
			run();
			run_bad_wptr(q.q.wptr + q.q.ring_size + 8, q.q.wptr);
		}
		fresh_queue(NULL);
	}

	igt_describe("Priorities: a high-priority queue (11) and a low one (2) "
		     "released at the same instant with the same SCALE_U32 job: "
		     "the high one finishes first in most of 5 trials, as an "
		     "atomic counter each bumps at its end shows.");
	igt_subtest("priority") {
		static struct compute_queue hi, lo;
		static struct compute_buf src, dst_hi, dst_lo;
		const uint64_t n = (1u << 20);
		volatile uint32_t *gate = (uint32_t *)((char *)y.cpu + 12288);
		uint32_t *ret_hi = (uint32_t *)((char *)y.cpu + 12296);
		uint32_t *ret_lo = (uint32_t *)((char *)y.cpu + 12300);
		unsigned int hi_first = 0;
		const struct onenode_queue_params phi = {
			.va = COMPUTE_QUEUE_VA(2), .priority = 11,
		}, plo = {
			.va = COMPUTE_QUEUE_VA(3), .priority = 2,
		};

		igt_require(cd.uq.num_priorities > 11);
		compute_buf_init(&cd, vm, n * 4, default_placement(), COMPUTE_BUF_VA(3),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &src);
		compute_buf_init(&cd, vm, n * 4, default_placement(), COMPUTE_BUF_VA(4),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &dst_hi);
		compute_buf_init(&cd, vm, n * 4, default_placement(), COMPUTE_BUF_VA(5),
				 DRM_COMPUTE_VM_BIND_NOEXEC, &dst_lo);
		compute_queue_init(&cd, vm, &plo, &lo);
		compute_queue_init(&cd, vm, &phi, &hi);
		for (unsigned int t = 0; t < 5; t++) {
			struct compute_queue *qs[2] = { &lo, &hi };
			uint64_t values[2];

			*gate = 0;
			*(volatile uint32_t *)((char *)y.cpu + 12292) = 0;
			for (unsigned int k = 0; k < 2; k++) {
				struct compute_queue *cq = qs[k];
				uint32_t qw;

				qw = onenode_pkt_wait_mem(pkt, y.va + 12288, VCOMPUTE_WAIT_EQ, t + 1,
							  ~0ull, 0, 0);
				compute_emit(cq, pkt, qw);
				qw = onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_SCALE_U32, n, 0, src.va,
							  k ? dst_hi.va : dst_lo.va, 3);
				compute_emit(cq, pkt, qw);
				qw = onenode_pkt_atomic(pkt, VCOMPUTE_ATOMIC_ADD_U32, y.va + 12292, 1,
							0, y.va + (k ? 12296 : 12300));
				compute_emit(cq, pkt, qw);
				values[k] = compute_submit(cq);
			}
			compute_sleep_ms(20);
			*gate = t + 1;
			compute_sync(&lo, values[0]);
			compute_sync(&hi, values[1]);
			igt_assert_eq_u32(*ret_hi + *ret_lo, 1);
			hi_first += *ret_hi == 0;
			igt_info("trial %u: %s priority first\n", t, *ret_hi == 0 ? "high" : "low");
		}
		compute_queue_fini(&hi);
		compute_queue_fini(&lo);
		compute_buf_fini(&cd, &src);
		compute_buf_fini(&cd, &dst_hi);
		compute_buf_fini(&cd, &dst_lo);
		igt_assert_f(hi_first >= 4, "the high-priority queue finished first in %u of 5\n",
			     hi_first);
	}

	igt_describe("CU masks: a DISPATCH runs only on the compute units its "
		     "queue's mask enables: with one CU every workgroup runs "
		     "there, with two they are shared half and half. Checked "
		     "twice: the units' workgroup counts (debugfs vcompute_cu) "
		     "and the CPU time the scheduler charged each unit's worker "
		     "thread (the others get none); the wall times of both "
		     "runs are printed.");
	igt_subtest_with_dynamic("cu-mask") {
		static uint64_t wall[2];

		/* vcompute has it; the old single-thread engine had no units to show. */
		igt_assert_f(compute_cus(&cd, NULL, NULL, 0) > 0, "no debugfs vcompute_cu\n");
		igt_require(cd.uq.num_cus >= 2 && cd.uq.num_cus <= 64);
		for (unsigned int m = 0; m < 2; m++)
			igt_dynamic_f("%s", m ? "two-cus" : "one-cu")
				test_cu_mask(cd.uq.num_cus - 1, m ? 0 : cd.uq.num_cus - 1,
					     &wall[m]);
		if (wall[0] && wall[1])
			igt_info("one CU: %.1f ms, two CUs: %.1f ms (%.2fx)\n", wall[0] / 1e6,
				 wall[1] / 1e6, (double)wall[0] / wall[1]);
	}

	igt_describe("Hang detection (hang_timeout_ms lowered to 300, restored "
		     "after): a queue stuck in a WAIT_MEM without a timeout of its "
		     "own becomes HUNG with DRM_COMPUTE_FAULT_HANG and its waiter "
		     "gets -EIO, while a queue running long jobs all the time "
		     "(progress moving) is never reset and completes every job.");
	igt_subtest("hang-detection") {
		static struct compute_queue hung, busy;
		static struct compute_buf scratch;
		struct drm_compute_userq_state st;
		struct drm_compute_query_userq uq;
		const uint64_t n = 512 * 1024;
		volatile uint32_t *w = (uint32_t *)((char *)y.cpu + 16384);
		uint64_t value, end;
		unsigned int jobs = 0;

		compute_param_set(&hang_timeout, 300);
		igt_assert_eq(onenode_query_userq(&cd.dev, &uq), 0);
		igt_assert_eq_u32(uq.hang_timeout_ms, 300);
		compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(5), &hung);
		compute_queue_init_at(&cd, vm_other, COMPUTE_QUEUE_VA(6), &busy);
		/* The busy queue's jobs write a buffer of its own VM. */
		compute_buf_init(&cd, vm_other, 4096, DRM_COMPUTE_PLACEMENT_SYSTEM,
				 COMPUTE_BUF_VA(0), DRM_COMPUTE_VM_BIND_NOEXEC, &scratch);
		*w = 0;
		compute_emit(&hung, pkt, onenode_pkt_wait_mem(pkt, y.va + 16384, VCOMPUTE_WAIT_EQ,
							      1, ~0ull, 0, 0));
		value = compute_submit(&hung);
		igt_fork(child, 1)
			igt_assert_eq(onenode_queue_wait(&hung.q, value,
							 COMPUTE_TIMEOUT_MS * 1000000ll), -EIO);
		end = compute_now_ns() + 3000 * MS;
		while (compute_now_ns() < end) {
			for (unsigned int i = 0; i < 4; i++)
				compute_emit(&busy, pkt, onenode_pkt_fill(pkt, scratch.va, 4096, i));
			compute_sync(&busy, compute_submit(&busy));
			jobs++;
			compute_state(&cd, busy.q.id, &st);
			igt_assert_eq_u32(st.status, DRM_COMPUTE_USERQ_STATUS_IDLE);
		}
		compute_state(&cd, hung.q.id, &st);
		igt_assert_f(st.status == DRM_COMPUTE_USERQ_STATUS_HUNG,
			     "stuck queue: %s\n", onenode_status_name(st.status));
		igt_assert_eq_u32(st.fault_reason, DRM_COMPUTE_FAULT_HANG);
		igt_waitchildren();

		/* A long job keeps progressing: never reset. */
		random_words(x.cpu, n, 9);
		compute_queue_fini(&hung);
		compute_queue_fini(&busy);
		compute_buf_fini(&cd, &scratch);
		{
			/* The job runs in vm, where x and z are. */
			static struct compute_queue longq;
			uint64_t t0 = compute_now_ns();

			compute_queue_init_at(&cd, vm, COMPUTE_QUEUE_VA(5), &longq);
			compute_emit(&longq, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_SCALE_U32,
								       n, 1, x.va, z.va, 1));
			compute_sync(&longq, compute_submit(&longq));
			igt_info("%u short jobs meanwhile; the long job took %.0f ms\n", jobs,
				 (compute_now_ns() - t0) / 1e6);
			igt_assert(memcmp(x.cpu, z.cpu, n * 4) == 0);
			compute_queue_fini(&longq);
		}
		compute_param_restore(&hang_timeout);
		compute_check_alive(&bystander);
	}

	igt_describe("Job limit (job_timeout_ms lowered to 500, restored after): "
		     "a LIST_SUM around a cycle, counting to 2^64, which hang "
		     "detection never stops, is stopped: FAULTED with "
		     "JOB_TIMEOUT at the packet, its waiter gets -EIO, the "
		     "bystander queue keeps running.");
	igt_subtest("job-timeout")
		test_job_timeout();

	igt_describe("Fair share: a client's FILL throughput beside another "
		     "client's endless job (job limit off) is at least 0.3 of "
		     "what it is alone.");
	igt_subtest("fair-share")
		test_fair_share();

	igt_describe("The engine thread uses at most 2% of a CPU while no queue "
		     "has work and at most 15% while a queue waits in WAIT_MEM "
		     "(the scheduler's CPU clock of the thread, over 2 s each).");
	igt_subtest("engine-cpu")
		test_engine_cpu();

	igt_fixture {
		compute_param_restore(&hang_timeout);
		compute_param_restore(&job_timeout);
		compute_queue_fini(&bystander);
		compute_queue_fini(&q);
		compute_buf_fini(&cd, &z);
		compute_buf_fini(&cd, &y);
		compute_buf_fini(&cd, &x);
		compute_close(&cd);
	}
}
