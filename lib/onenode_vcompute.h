/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * onenode_vcompute.h: builders for vcompute's queue packets
 * (DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE, uapi/drm/vcompute_drm.h). Each fills
 * a caller buffer of at least the packet's size and returns the packet's
 * size in 8-byte words, ready for onenode_queue_emit(). Header-only, no
 * state; the uapi header defines the semantics.
 */
#ifndef ONENODE_VCOMPUTE_H
#define ONENODE_VCOMPUTE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vcompute_drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

static inline struct vcompute_pkt_header onenode_pkt_header(uint8_t opcode,
							    uint16_t size_qw)
{
	struct vcompute_pkt_header h;

	memset(&h, 0, sizeof(h));
	h.opcode = opcode;
	h.size_qw = size_qw;
	return h;
}

/** onenode_pkt_nop() - a NOP of @qwords words (at least 1). */
static inline uint32_t onenode_pkt_nop(uint64_t *buf, uint16_t qwords)
{
	struct vcompute_pkt_header h = onenode_pkt_header(VCOMPUTE_PKT_NOP, qwords);

	memset(buf, 0, (size_t)qwords * 8);
	memcpy(buf, &h, sizeof(h));
	return qwords;
}

/**
 * onenode_pkt_write_data() - write @ndw 32-bit words of @data to @dst_va;
 * an odd @ndw is padded with a zero word (written too).
 */
static inline uint32_t onenode_pkt_write_data(uint64_t *buf, uint64_t dst_va,
					      const uint32_t *data, uint32_t ndw)
{
	uint32_t qw = 2 + (ndw + 1) / 2;
	struct vcompute_pkt_header h = onenode_pkt_header(VCOMPUTE_PKT_WRITE_DATA,
							  (uint16_t)qw);

	memset(buf, 0, (size_t)qw * 8);
	memcpy(buf, &h, sizeof(h));
	buf[1] = dst_va;
	memcpy(&buf[2], data, (size_t)ndw * 4);
	return qw;
}

/** onenode_pkt_copy() - copy @size bytes from @src_va to @dst_va. */
static inline uint32_t onenode_pkt_copy(uint64_t *buf, uint64_t dst_va,
					uint64_t src_va, uint64_t size)
{
	struct vcompute_pkt_copy p;

	memset(&p, 0, sizeof(p));
	p.header = onenode_pkt_header(VCOMPUTE_PKT_COPY, sizeof(p) / 8);
	p.src_va = src_va;
	p.dst_va = dst_va;
	p.size = size;
	memcpy(buf, &p, sizeof(p));
	return sizeof(p) / 8;
}

/** onenode_pkt_fill() - fill @size bytes at @dst_va with @value. */
static inline uint32_t onenode_pkt_fill(uint64_t *buf, uint64_t dst_va,
					uint64_t size, uint32_t value)
{
	struct vcompute_pkt_fill p;

	memset(&p, 0, sizeof(p));
	p.header = onenode_pkt_header(VCOMPUTE_PKT_FILL, sizeof(p) / 8);
	p.dst_va = dst_va;
	p.size = size;
	p.value = value;
	memcpy(buf, &p, sizeof(p));
	return sizeof(p) / 8;
}

/** onenode_pkt_atomic() - VCOMPUTE_ATOMIC_* @op on @va; old value to @ret_va (or 0). */
static inline uint32_t onenode_pkt_atomic(uint64_t *buf, uint32_t op, uint64_t va,
					  uint64_t src, uint64_t cmp, uint64_t ret_va)
{
	struct vcompute_pkt_atomic p;

	memset(&p, 0, sizeof(p));
	p.header = onenode_pkt_header(VCOMPUTE_PKT_ATOMIC, sizeof(p) / 8);
	p.va = va;
	p.op = op;
	p.src = src;
	p.cmp = cmp;
	p.ret_va = ret_va;
	memcpy(buf, &p, sizeof(p));
	return sizeof(p) / 8;
}

/**
 * onenode_pkt_wait_mem() - stall until (*@va & @mask) @func @ref;
 * @flags VCOMPUTE_WAIT_64BIT for a 64-bit compare; @timeout_ns 0 for none.
 */
static inline uint32_t onenode_pkt_wait_mem(uint64_t *buf, uint64_t va,
					    uint32_t func, uint64_t ref,
					    uint64_t mask, uint32_t flags,
					    uint64_t timeout_ns)
{
	struct vcompute_pkt_wait_mem p;

	memset(&p, 0, sizeof(p));
	p.header = onenode_pkt_header(VCOMPUTE_PKT_WAIT_MEM, sizeof(p) / 8);
	p.va = va;
	p.ref = ref;
	p.mask = mask;
	p.func = func;
	p.flags = flags;
	p.timeout_ns = timeout_ns;
	memcpy(buf, &p, sizeof(p));
	return sizeof(p) / 8;
}

/** onenode_pkt_fence() - write @value to @va, make it the queue's fence. */
static inline uint32_t onenode_pkt_fence(uint64_t *buf, uint64_t va,
					 uint64_t value)
{
	struct vcompute_pkt_fence p;

	memset(&p, 0, sizeof(p));
	p.header = onenode_pkt_header(VCOMPUTE_PKT_FENCE, sizeof(p) / 8);
	p.va = va;
	p.value = value;
	memcpy(buf, &p, sizeof(p));
	return sizeof(p) / 8;
}

/**
 * onenode_pkt_dispatch() - run built-in kernel VCOMPUTE_KERNEL_* over
 * @count elements in workgroups of @group_size (0: 256), with up to five
 * arguments as the kernel defines them.
 */
static inline uint32_t onenode_pkt_dispatch(uint64_t *buf, uint32_t kernel,
					    uint64_t count, uint32_t group_size,
					    uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct vcompute_pkt_dispatch p;

	memset(&p, 0, sizeof(p));
	p.header = onenode_pkt_header(VCOMPUTE_PKT_DISPATCH, sizeof(p) / 8);
	p.kernel = kernel;
	p.group_size = group_size;
	p.count = count;
	p.args[0] = a0;
	p.args[1] = a1;
	p.args[2] = a2;
	memcpy(buf, &p, sizeof(p));
	return sizeof(p) / 8;
}

/**
 * onenode_crc32c() - CRC-32C (Castagnoli, reflected) of @n bytes at @data,
 * continued from @crc (0 to start): what a DISPATCH of
 * VCOMPUTE_KERNEL_CRC32C computes, for checking its result on the CPU.
 */
static inline uint32_t onenode_crc32c(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = (const uint8_t *)data;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

/** ONENODE_PKT_MAX_QWORDS - room a caller buffer needs for any fixed packet. */
#define ONENODE_PKT_MAX_QWORDS 8

#if defined(__cplusplus)
}
#endif

#endif /* ONENODE_VCOMPUTE_H */
