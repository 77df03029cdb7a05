// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of vcompute's packet decoding, WAIT_MEM conditions and the
 * VADD_F32 kernel's arithmetic.
 *
 * Copyright 2026 The onenode authors
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "../vcompute_drv.h"

static void header_rules(struct kunit *test)
{
	struct vcompute_pkt_header h = { .opcode = VCOMPUTE_PKT_NOP, .size_qw = 1 };

	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), 0);
	h.size_qw = VCOMPUTE_PKT_MAX_QWORDS;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), 0);
	h.size_qw = VCOMPUTE_PKT_MAX_QWORDS + 1;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);
	h.size_qw = 0;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);
	h.size_qw = 1;
	h.pad = 1;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);
	h.pad = 0;
	h.reserved = 0x80000000;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);
	h.reserved = 0;
	h.opcode = VCOMPUTE_PKT_DISPATCH + 1;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);
	h.opcode = 0xff;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);

	/* WRITE_DATA needs at least one data word. */
	h.opcode = VCOMPUTE_PKT_WRITE_DATA;
	h.size_qw = 2;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), DRM_COMPUTE_FAULT_PACKET);
	h.size_qw = 3;
	KUNIT_EXPECT_EQ(test, vcompute_pkt_header_check(&h), 0);
}

struct size_case {
	u8 opcode;
	u16 size_qw;
};

static const struct size_case sizes[] = {
	{ VCOMPUTE_PKT_COPY, 4 },
	{ VCOMPUTE_PKT_FILL, 4 },
	{ VCOMPUTE_PKT_ATOMIC, 6 },
	{ VCOMPUTE_PKT_WAIT_MEM, 6 },
	{ VCOMPUTE_PKT_FENCE, 3 },
	{ VCOMPUTE_PKT_DISPATCH, 8 },
};

/* Fixed-size packets take exactly their size, as the uapi says. */
static void header_fixed_sizes(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct vcompute_pkt_header h = {
			.opcode = sizes[i].opcode,
			.size_qw = sizes[i].size_qw,
		};

		KUNIT_EXPECT_EQ_MSG(test, vcompute_pkt_header_check(&h), 0,
				    "opcode %u", h.opcode);
		h.size_qw++;
		KUNIT_EXPECT_EQ_MSG(test, vcompute_pkt_header_check(&h),
				    DRM_COMPUTE_FAULT_PACKET, "opcode %u", h.opcode);
		h.size_qw -= 2;
		KUNIT_EXPECT_EQ_MSG(test, vcompute_pkt_header_check(&h),
				    DRM_COMPUTE_FAULT_PACKET, "opcode %u", h.opcode);
	}
	/* The structures and the table agree. */
	KUNIT_EXPECT_EQ(test, sizeof(struct vcompute_pkt_dispatch), 64u);
	KUNIT_EXPECT_EQ(test, sizeof(struct vcompute_pkt_atomic), 48u);
	KUNIT_EXPECT_EQ(test, sizeof(struct vcompute_pkt_wait_mem), 48u);
}

static int body(const void *pkt, u64 *va)
{
	return vcompute_pkt_body_check(pkt, va);
}

static void body_rules(struct kunit *test)
{
	struct vcompute_pkt_fill fill = {
		.header = { .opcode = VCOMPUTE_PKT_FILL, .size_qw = 4 },
		.dst_va = 0x10000, .size = 64,
	};
	struct vcompute_pkt_atomic at = {
		.header = { .opcode = VCOMPUTE_PKT_ATOMIC, .size_qw = 6 },
		.va = 0x10008, .op = VCOMPUTE_ATOMIC_ADD_U64,
	};
	struct vcompute_pkt_wait_mem w = {
		.header = { .opcode = VCOMPUTE_PKT_WAIT_MEM, .size_qw = 6 },
		.va = 0x10004, .func = VCOMPUTE_WAIT_GE,
	};
	struct vcompute_pkt_dispatch d = {
		.header = { .opcode = VCOMPUTE_PKT_DISPATCH, .size_qw = 8 },
		.kernel = VCOMPUTE_KERNEL_VADD_F32,
		.args = { 0x10000, 0x20000, 0x30000 },
	};
	u64 va = 0;

	KUNIT_EXPECT_EQ(test, body(&fill, &va), 0);
	fill.size = 62;
	KUNIT_EXPECT_EQ(test, body(&fill, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	fill.size = 64;
	fill.pad = 1;
	KUNIT_EXPECT_EQ(test, body(&fill, &va), DRM_COMPUTE_FAULT_PACKET);

	KUNIT_EXPECT_EQ(test, body(&at, &va), 0);
	at.va = 0x10004;
	KUNIT_EXPECT_EQ(test, body(&at, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x10004ULL);
	at.op = VCOMPUTE_ATOMIC_ADD_U32;
	KUNIT_EXPECT_EQ(test, body(&at, &va), 0);
	at.ret_va = 0x20002;
	KUNIT_EXPECT_EQ(test, body(&at, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x20002ULL);
	at.ret_va = 0;
	at.op = 0;
	KUNIT_EXPECT_EQ(test, body(&at, &va), DRM_COMPUTE_FAULT_PACKET);
	at.op = 5;
	KUNIT_EXPECT_EQ(test, body(&at, &va), DRM_COMPUTE_FAULT_PACKET);

	KUNIT_EXPECT_EQ(test, body(&w, &va), 0);
	w.flags = VCOMPUTE_WAIT_64BIT;
	KUNIT_EXPECT_EQ(test, body(&w, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	w.flags = 2;
	KUNIT_EXPECT_EQ(test, body(&w, &va), DRM_COMPUTE_FAULT_PACKET);
	w.flags = 0;
	w.func = VCOMPUTE_WAIT_LT + 1;
	KUNIT_EXPECT_EQ(test, body(&w, &va), DRM_COMPUTE_FAULT_PACKET);

	KUNIT_EXPECT_EQ(test, body(&d, &va), 0);
	d.args[1] = 0x20001;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x20001ULL);
	d.args[1] = 0x20000;
	d.group_size = 3;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_PACKET);
	d.group_size = 131072;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_PACKET);
	d.group_size = 65536;
	KUNIT_EXPECT_EQ(test, body(&d, &va), 0);
	d.kernel = 0;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_PACKET);
	/* CRC32C reads bytes: only its result is aligned. */
	d.kernel = VCOMPUTE_KERNEL_CRC32C;
	d.args[0] = 0x10001;
	KUNIT_EXPECT_EQ(test, body(&d, &va), 0);
	d.args[1] = 0x20002;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	/* SUM_U32 reads words and writes a 64-bit sum. */
	d.kernel = VCOMPUTE_KERNEL_SUM_U32;
	d.args[0] = 0x10004;
	d.args[1] = 0x20008;
	KUNIT_EXPECT_EQ(test, body(&d, &va), 0);
	d.args[1] = 0x20004;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x20004ULL);
	d.args[0] = 0x10002;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x10002ULL);
	/* LIST_SUM: the head and the result are 8-byte aligned. */
	d.kernel = VCOMPUTE_KERNEL_LIST_SUM;
	d.args[0] = 0x10008;
	d.args[1] = 0x20008;
	KUNIT_EXPECT_EQ(test, body(&d, &va), 0);
	d.args[0] = 0x10004;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x10004ULL);
	d.args[0] = 0x10008;
	d.args[1] = 0x20004;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_ALIGNMENT);
	KUNIT_EXPECT_EQ(test, va, 0x20004ULL);
	d.kernel = VCOMPUTE_KERNEL_LIST_SUM + 1;
	KUNIT_EXPECT_EQ(test, body(&d, &va), DRM_COMPUTE_FAULT_PACKET);
}

static void wait_conditions(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, vcompute_wait_cond(VCOMPUTE_WAIT_EQ, 5, 5));
	KUNIT_EXPECT_FALSE(test, vcompute_wait_cond(VCOMPUTE_WAIT_EQ, 5, 6));
	KUNIT_EXPECT_TRUE(test, vcompute_wait_cond(VCOMPUTE_WAIT_NE, 5, 6));
	KUNIT_EXPECT_TRUE(test, vcompute_wait_cond(VCOMPUTE_WAIT_GE, U64_MAX, 1));
	KUNIT_EXPECT_FALSE(test, vcompute_wait_cond(VCOMPUTE_WAIT_GE, 0, 1));
	KUNIT_EXPECT_TRUE(test, vcompute_wait_cond(VCOMPUTE_WAIT_LT, 0, 1));
	KUNIT_EXPECT_FALSE(test, vcompute_wait_cond(VCOMPUTE_WAIT_LT, 1, 1));
	KUNIT_EXPECT_FALSE(test, vcompute_wait_cond(0, 1, 1));
}

/* Results of SSE's addss on the same bits (x86-64, MXCSR default). */
static const u32 f32_cases[][3] = {
	{ 0x3f800000, 0x40000000, 0x40400000 },	/* 1 + 2 */
	{ 0x3dcccccd, 0x3e4ccccd, 0x3e99999a },	/* 0.1 + 0.2 */
	{ 0x7149f2ca, 0x3f800000, 0x7149f2ca },	/* 1e30 + 1 */
	{ 0x4b800000, 0x3f800000, 0x4b800000 },	/* 2^24 + 1: tie, to even */
	{ 0x4b800000, 0x40400000, 0x4b800002 },	/* 2^24 + 3: tie, to even */
	{ 0x00000001, 0x00000001, 0x00000002 },	/* denormals */
	{ 0x007fffff, 0x00000001, 0x00800000 },	/* denormal to normal */
	{ 0x00800000, 0x80000001, 0x007fffff },	/* normal to denormal */
	{ 0x3fc00000, 0xbfc00000, 0x00000000 },	/* x - x = +0 */
	{ 0x80000000, 0x80000000, 0x80000000 },	/* -0 + -0 */
	{ 0x80000000, 0x00000000, 0x00000000 },	/* -0 + 0 */
	{ 0x7f800000, 0xff800000, 0xffc00000 },	/* inf - inf */
	{ 0x7f800000, 0x3f800000, 0x7f800000 },	/* inf + 1 */
	{ 0x7fa00000, 0x7fc00001, 0x7fe00000 },	/* first NaN, quieted */
	{ 0x3f800000, 0xffa00000, 0xffe00000 },	/* the NaN, quieted */
	{ 0x7f7fffff, 0x7f7fffff, 0x7f800000 },	/* overflow */
	{ 0x7f7fffff, 0x73000000, 0x7f800000 },	/* max + half an ulp: up */
	{ 0x3f800000, 0xbf7fffff, 0x33800000 },	/* cancellation */
	{ 0xc0500000, 0x3f900000, 0xc0080000 },	/* -3.25 + 1.125 */
	{ 0x3f800001, 0x33800000, 0x3f800002 },	/* tie, odd: up */
	{ 0x3f800000, 0x33800000, 0x3f800000 },	/* tie, even: stays */
	{ 0x3f800003, 0x33800000, 0x3f800004 },	/* tie, odd: up */
};

static void f32_add_matches_sse(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f32_cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, vcompute_f32_add(f32_cases[i][0], f32_cases[i][1]),
				    f32_cases[i][2], "%08x + %08x", f32_cases[i][0],
				    f32_cases[i][1]);
}

static struct kunit_case vcompute_packet_tests[] = {
	KUNIT_CASE(header_rules),
	KUNIT_CASE(header_fixed_sizes),
	KUNIT_CASE(body_rules),
	KUNIT_CASE(wait_conditions),
	KUNIT_CASE(f32_add_matches_sse),
	{}
};

static struct kunit_suite vcompute_packet_suite = {
	.name = "vcompute_packet",
	.test_cases = vcompute_packet_tests,
};

kunit_test_suite(vcompute_packet_suite);

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_DESCRIPTION("KUnit tests for vcompute's packets and kernels");
MODULE_LICENSE("GPL");
