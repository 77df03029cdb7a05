// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: Packet decoding and kernel arithmetic
 *
 * The pure part of the engine, kept apart so that KUnit checks it without
 * a device: vcompute_pkt_check() decides whether a packet's fixed fields
 * are well formed (opcode, size, reserved bits, alignment, enumerations)
 * and which fault it raises when not; vcompute_f32_add() is the
 * single-precision addition of the VADD_F32 kernel, done in integer
 * arithmetic so that it needs no FPU in the kernel and gives the same bits
 * on every architecture.
 */

#include <linux/bits.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/minmax.h>

#include <kunit/visibility.h>

#include "vcompute_drv.h"

/* The exact size of each opcode's packet, in 8-byte words; 0: variable. */
static const u16 pkt_qwords[] = {
	[VCOMPUTE_PKT_NOP] = 0,
	[VCOMPUTE_PKT_WRITE_DATA] = 0,
	[VCOMPUTE_PKT_COPY] = sizeof(struct vcompute_pkt_copy) / 8,
	[VCOMPUTE_PKT_FILL] = sizeof(struct vcompute_pkt_fill) / 8,
	[VCOMPUTE_PKT_ATOMIC] = sizeof(struct vcompute_pkt_atomic) / 8,
	[VCOMPUTE_PKT_WAIT_MEM] = sizeof(struct vcompute_pkt_wait_mem) / 8,
	[VCOMPUTE_PKT_FENCE] = sizeof(struct vcompute_pkt_fence) / 8,
	[VCOMPUTE_PKT_DISPATCH] = sizeof(struct vcompute_pkt_dispatch) / 8,
};

/**
 * vcompute_pkt_header_check - check a packet header
 * @h: the header
 *
 * Returns: 0, or %DRM_COMPUTE_FAULT_PACKET for an unknown opcode, a
 * non-zero pad or reserved field, or a size that does not fit the opcode.
 */
int vcompute_pkt_header_check(const struct vcompute_pkt_header *h)
{
	if (h->opcode >= ARRAY_SIZE(pkt_qwords) || h->pad || h->reserved)
		return DRM_COMPUTE_FAULT_PACKET;
	if (!h->size_qw || h->size_qw > VCOMPUTE_PKT_MAX_QWORDS)
		return DRM_COMPUTE_FAULT_PACKET;
	switch (h->opcode) {
	case VCOMPUTE_PKT_NOP:
		return 0;
	case VCOMPUTE_PKT_WRITE_DATA:
		return h->size_qw >= 3 ? 0 : DRM_COMPUTE_FAULT_PACKET;
	default:
		return h->size_qw == pkt_qwords[h->opcode] ? 0 : DRM_COMPUTE_FAULT_PACKET;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vcompute_pkt_header_check);

static int atomic_size(u32 op)
{
	switch (op) {
	case VCOMPUTE_ATOMIC_ADD_U32:
	case VCOMPUTE_ATOMIC_CMPXCHG_U32:
		return 4;
	case VCOMPUTE_ATOMIC_ADD_U64:
	case VCOMPUTE_ATOMIC_CMPXCHG_U64:
		return 8;
	}
	return 0;
}

/**
 * vcompute_pkt_atomic_size - operand size of an ATOMIC packet's operation
 * @op: VCOMPUTE_ATOMIC_*
 *
 * Returns: 4 or 8, or 0 for an unknown operation.
 */
int vcompute_pkt_atomic_size(u32 op)
{
	return atomic_size(op);
}

/**
 * vcompute_pkt_body_check - check the fixed fields of a whole packet
 * @pkt: the packet, header first, size_qw words, header already checked
 * @fault_va: set to the offending address for an alignment fault
 *
 * Returns: 0, %DRM_COMPUTE_FAULT_PACKET for a bad enumeration or a
 * non-zero pad, %DRM_COMPUTE_FAULT_ALIGNMENT for a misaligned address or
 * size.
 */
int vcompute_pkt_body_check(const u64 *pkt, u64 *fault_va)
{
	const struct vcompute_pkt_header *h = (const void *)pkt;

	switch (h->opcode) {
	case VCOMPUTE_PKT_WRITE_DATA: {
		const struct vcompute_pkt_write_data *p = (const void *)pkt;

		*fault_va = p->dst_va;
		return p->dst_va & 3 ? DRM_COMPUTE_FAULT_ALIGNMENT : 0;
	}
	case VCOMPUTE_PKT_FILL: {
		const struct vcompute_pkt_fill *p = (const void *)pkt;

		if (p->pad)
			return DRM_COMPUTE_FAULT_PACKET;
		*fault_va = p->dst_va;
		return (p->dst_va | p->size) & 3 ? DRM_COMPUTE_FAULT_ALIGNMENT : 0;
	}
	case VCOMPUTE_PKT_ATOMIC: {
		const struct vcompute_pkt_atomic *p = (const void *)pkt;
		int size = atomic_size(p->op);

		if (!size || p->pad)
			return DRM_COMPUTE_FAULT_PACKET;
		*fault_va = p->va & (size - 1) ? p->va : p->ret_va;
		return (p->va | p->ret_va) & (size - 1) ? DRM_COMPUTE_FAULT_ALIGNMENT : 0;
	}
	case VCOMPUTE_PKT_WAIT_MEM: {
		const struct vcompute_pkt_wait_mem *p = (const void *)pkt;
		u64 size = p->flags & VCOMPUTE_WAIT_64BIT ? 8 : 4;

		if (p->func < VCOMPUTE_WAIT_EQ || p->func > VCOMPUTE_WAIT_LT ||
		    p->flags & ~VCOMPUTE_WAIT_64BIT)
			return DRM_COMPUTE_FAULT_PACKET;
		*fault_va = p->va;
		return p->va & (size - 1) ? DRM_COMPUTE_FAULT_ALIGNMENT : 0;
	}
	case VCOMPUTE_PKT_FENCE: {
		const struct vcompute_pkt_fence *p = (const void *)pkt;

		*fault_va = p->va;
		return p->va & 7 ? DRM_COMPUTE_FAULT_ALIGNMENT : 0;
	}
	case VCOMPUTE_PKT_DISPATCH: {
		const struct vcompute_pkt_dispatch *p = (const void *)pkt;
		u32 gs = p->group_size ?: 256;

		if (!is_power_of_2(gs) || gs > 65536)
			return DRM_COMPUTE_FAULT_PACKET;
		switch (p->kernel) {
		case VCOMPUTE_KERNEL_VADD_U32:
		case VCOMPUTE_KERNEL_VADD_F32:
			*fault_va = (p->args[0] & 3) ? p->args[0] :
				    (p->args[1] & 3) ? p->args[1] : p->args[2];
			return (p->args[0] | p->args[1] | p->args[2]) & 3 ?
			       DRM_COMPUTE_FAULT_ALIGNMENT : 0;
		case VCOMPUTE_KERNEL_CRC32C:
			*fault_va = p->args[1];
			return p->args[1] & 3 ? DRM_COMPUTE_FAULT_ALIGNMENT : 0;
		case VCOMPUTE_KERNEL_SCALE_U32:
			*fault_va = (p->args[0] & 3) ? p->args[0] : p->args[1];
			return (p->args[0] | p->args[1]) & 3 ?
			       DRM_COMPUTE_FAULT_ALIGNMENT : 0;
		case VCOMPUTE_KERNEL_SUM_U32:
			*fault_va = (p->args[0] & 3) ? p->args[0] : p->args[1];
			return (p->args[0] & 3) || (p->args[1] & 7) ?
			       DRM_COMPUTE_FAULT_ALIGNMENT : 0;
		case VCOMPUTE_KERNEL_LIST_SUM:
			*fault_va = (p->args[0] & 7) ? p->args[0] : p->args[1];
			return (p->args[0] | p->args[1]) & 7 ?
			       DRM_COMPUTE_FAULT_ALIGNMENT : 0;
		}
		return DRM_COMPUTE_FAULT_PACKET;
	}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vcompute_pkt_body_check);

/**
 * vcompute_wait_cond - whether a WAIT_MEM condition holds
 * @func: VCOMPUTE_WAIT_*
 * @value: the value read, masked
 * @ref: the reference
 *
 * Returns: the condition's truth.
 */
bool vcompute_wait_cond(u32 func, u64 value, u64 ref)
{
	switch (func) {
	case VCOMPUTE_WAIT_EQ:
		return value == ref;
	case VCOMPUTE_WAIT_NE:
		return value != ref;
	case VCOMPUTE_WAIT_GE:
		return value >= ref;
	case VCOMPUTE_WAIT_LT:
		return value < ref;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(vcompute_wait_cond);

#define F32_SIGN	0x80000000u
#define F32_EXP		0x7f800000u
#define F32_FRAC	0x007fffffu
#define F32_QUIET	0x00400000u
#define F32_INDEFINITE	0xffc00000u	/* x86's default NaN */

static bool f32_is_nan(u32 x)
{
	return (x & F32_EXP) == F32_EXP && (x & F32_FRAC);
}

/**
 * vcompute_f32_add - IEEE-754 binary32 addition, round to nearest even
 * @a: first operand's bits
 * @b: second operand's bits
 *
 * Denormals are kept (no flush to zero). NaNs follow SSE's addss: a NaN
 * operand is returned quieted, the first one when both are NaN, and
 * inf - inf gives the x86 default NaN (0xffc00000). An exact zero sum of
 * operands with different signs is +0.
 *
 * Returns: the sum's bits.
 */
u32 vcompute_f32_add(u32 a, u32 b)
{
	u32 sa = a >> 31, sb = b >> 31, mant, rem, s, t;
	int ea = (a & F32_EXP) >> 23, eb = (b & F32_EXP) >> 23, e, d;
	u64 A, B, R;

	if (f32_is_nan(a))
		return a | F32_QUIET;
	if (f32_is_nan(b))
		return b | F32_QUIET;
	if (ea == 0xff) {
		if (eb == 0xff && sa != sb)
			return F32_INDEFINITE;
		return a;
	}
	if (eb == 0xff)
		return b;

	/* Significands with the hidden bit, 8 extra low bits for rounding. */
	A = (u64)((a & F32_FRAC) | (ea ? 0x800000 : 0)) << 8;
	B = (u64)((b & F32_FRAC) | (eb ? 0x800000 : 0)) << 8;
	ea = ea ?: 1;
	eb = eb ?: 1;
	/* Make |a| >= |b|. */
	if (eb > ea || (eb == ea && B > A)) {
		swap(A, B);
		swap(ea, eb);
		swap(sa, sb);
	}
	d = ea - eb;
	if (d >= 40)
		B = B != 0;
	else if (d)
		B = (B >> d) | ((B & ((1ULL << d) - 1)) != 0);	/* sticky */

	R = sa == sb ? A + B : A - B;
	s = sa;
	e = ea;
	if (!R)
		return sa == sb ? sa << 31 : 0;
	if (R >> 32) {		/* carry out of the hidden bit */
		R = (R >> 1) | (R & 1);
		e++;
	}
	while (!(R & BIT_ULL(31)) && e > 1) {	/* cancellation */
		R <<= 1;
		e--;
	}

	mant = R >> 8;
	rem = R & 0xff;
	if (rem > 0x80 || (rem == 0x80 && (mant & 1))) {
		mant++;
		if (mant == 0x1000000) {
			mant >>= 1;
			e++;
		}
	}
	if (e >= 0xff)
		return (s << 31) | F32_EXP;
	/* Without the hidden bit the result is denormal: exponent field 0. */
	t = mant & 0x800000 ? e : 0;
	return (s << 31) | (t << 23) | (mant & F32_FRAC);
}
EXPORT_SYMBOL_IF_KUNIT(vcompute_f32_add);
