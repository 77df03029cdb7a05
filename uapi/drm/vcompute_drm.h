/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef _UAPI_VCOMPUTE_DRM_H_
#define _UAPI_VCOMPUTE_DRM_H_

#include <linux/const.h>

#include "drm.h"
#include "drm_compute.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: vcompute uapi
 *
 * vcompute is a hardware-free virtual compute device: a software GPU. Its
 * render node carries the DRM compute uapi (drm_compute.h) from command
 * %DRM_VCOMPUTE_COMPUTE_BASE of its driver range, so that every compute
 * ioctl runs end to end in a VM without a GPU. Its driver name, as
 * returned by DRM_IOCTL_VERSION, is "vcompute".
 *
 * Its user queues execute the packet format below
 * (%DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE), the contract userspace relies on.
 * Every address in a packet is a GPU virtual address, translated through
 * the queue's GPU VM like every other access of the engine; a packet the
 * engine cannot execute faults the queue (see DRM_COMPUTE_FAULT_* and
 * &struct drm_compute_userq_state) and never the kernel.
 *
 * A packet starts with &struct vcompute_pkt_header and is a whole number of
 * 8-byte words long, so the read pointer always stays 8-byte aligned. A
 * packet may wrap around the end of the ring. The read pointer moves past a
 * packet when the packet is complete; a FENCE packet writes the fence
 * value only after every earlier packet of the queue is complete.
 */

/** DRM_VCOMPUTE_COMPUTE_BASE - first command of the DRM compute uapi. */
#define DRM_VCOMPUTE_COMPUTE_BASE	0x00

/** VCOMPUTE_PKT_NOP - does nothing; any size of at least one word. */
#define VCOMPUTE_PKT_NOP		0x00
/** VCOMPUTE_PKT_WRITE_DATA - &struct vcompute_pkt_write_data. */
#define VCOMPUTE_PKT_WRITE_DATA		0x01
/** VCOMPUTE_PKT_COPY - &struct vcompute_pkt_copy. */
#define VCOMPUTE_PKT_COPY		0x02
/** VCOMPUTE_PKT_FILL - &struct vcompute_pkt_fill. */
#define VCOMPUTE_PKT_FILL		0x03
/** VCOMPUTE_PKT_ATOMIC - &struct vcompute_pkt_atomic. */
#define VCOMPUTE_PKT_ATOMIC		0x04
/** VCOMPUTE_PKT_WAIT_MEM - &struct vcompute_pkt_wait_mem. */
#define VCOMPUTE_PKT_WAIT_MEM		0x05
/** VCOMPUTE_PKT_FENCE - &struct vcompute_pkt_fence. */
#define VCOMPUTE_PKT_FENCE		0x06
/** VCOMPUTE_PKT_DISPATCH - &struct vcompute_pkt_dispatch. */
#define VCOMPUTE_PKT_DISPATCH		0x07

/** VCOMPUTE_PKT_MAX_QWORDS - the largest packet, in 8-byte words. */
#define VCOMPUTE_PKT_MAX_QWORDS		512

/**
 * struct vcompute_pkt_header - the first 8 bytes of every packet.
 */
struct vcompute_pkt_header {
	/** @opcode: VCOMPUTE_PKT_*; an unknown opcode faults the queue. */
	__u8 opcode;
	/** @pad: must be zero. */
	__u8 pad;
	/**
	 * @size_qw: the packet's size in 8-byte words, this header included:
	 * exactly the size of the packet's structure, except for NOP (at
	 * least 1) and WRITE_DATA (3 or more); at most
	 * %VCOMPUTE_PKT_MAX_QWORDS.
	 */
	__u16 size_qw;
	/** @reserved: must be zero. */
	__u32 reserved;
};

/**
 * struct vcompute_pkt_write_data - write the words that follow the packet's
 * fixed part to @dst_va.
 *
 * Writes (size_qw - 2) * 8 bytes. @dst_va is 4-byte aligned.
 */
struct vcompute_pkt_write_data {
	/** @header: opcode %VCOMPUTE_PKT_WRITE_DATA, size_qw >= 3. */
	struct vcompute_pkt_header header;
	/** @dst_va: destination. */
	__u64 dst_va;
	/* followed by the data, size_qw - 2 words */
};

/**
 * struct vcompute_pkt_copy - copy @size bytes from @src_va to @dst_va.
 *
 * Any alignment. Overlapping ranges give an unspecified result in the
 * overlap (like memcpy()).
 */
struct vcompute_pkt_copy {
	/** @header: opcode %VCOMPUTE_PKT_COPY, size_qw 4. */
	struct vcompute_pkt_header header;
	/** @src_va: source. */
	__u64 src_va;
	/** @dst_va: destination. */
	__u64 dst_va;
	/** @size: bytes. */
	__u64 size;
};

/**
 * struct vcompute_pkt_fill - fill @size bytes at @dst_va with the 32-bit
 * @value; @dst_va and @size are 4-byte aligned.
 */
struct vcompute_pkt_fill {
	/** @header: opcode %VCOMPUTE_PKT_FILL, size_qw 4. */
	struct vcompute_pkt_header header;
	/** @dst_va: destination. */
	__u64 dst_va;
	/** @size: bytes. */
	__u64 size;
	/** @value: the pattern. */
	__u32 value;
	/** @pad: must be zero. */
	__u32 pad;
};

/** VCOMPUTE_ATOMIC_ADD_U32 - *va += src, 32 bits. */
#define VCOMPUTE_ATOMIC_ADD_U32		1
/** VCOMPUTE_ATOMIC_ADD_U64 - *va += src, 64 bits. */
#define VCOMPUTE_ATOMIC_ADD_U64		2
/** VCOMPUTE_ATOMIC_CMPXCHG_U32 - if (*va == cmp) *va = src, 32 bits. */
#define VCOMPUTE_ATOMIC_CMPXCHG_U32	3
/** VCOMPUTE_ATOMIC_CMPXCHG_U64 - if (*va == cmp) *va = src, 64 bits. */
#define VCOMPUTE_ATOMIC_CMPXCHG_U64	4

/**
 * struct vcompute_pkt_atomic - an atomic read-modify-write of @va.
 *
 * Atomic with respect to the CPU's atomic operations on the same memory
 * and to every other queue. @va (and @ret_va when set) are aligned to the
 * operand size; 32-bit operations use the low halves of @src and @cmp.
 */
struct vcompute_pkt_atomic {
	/** @header: opcode %VCOMPUTE_PKT_ATOMIC, size_qw 6. */
	struct vcompute_pkt_header header;
	/** @va: the operand in memory. */
	__u64 va;
	/** @op: VCOMPUTE_ATOMIC_*. */
	__u32 op;
	/** @pad: must be zero. */
	__u32 pad;
	/** @src: the value added or stored. */
	__u64 src;
	/** @cmp: the value compared (CMPXCHG). */
	__u64 cmp;
	/** @ret_va: where the old value is written (operand size), or 0. */
	__u64 ret_va;
};

/** VCOMPUTE_WAIT_EQ - wait until (*va & mask) == ref. */
#define VCOMPUTE_WAIT_EQ		1
/** VCOMPUTE_WAIT_NE - wait until (*va & mask) != ref. */
#define VCOMPUTE_WAIT_NE		2
/** VCOMPUTE_WAIT_GE - wait until (*va & mask) >= ref, unsigned. */
#define VCOMPUTE_WAIT_GE		3
/** VCOMPUTE_WAIT_LT - wait until (*va & mask) < ref, unsigned. */
#define VCOMPUTE_WAIT_LT		4

/** VCOMPUTE_WAIT_64BIT - compare 64 bits (default: 32, low halves). */
#define VCOMPUTE_WAIT_64BIT		_BITUL(0)

/**
 * struct vcompute_pkt_wait_mem - stall the queue until a memory condition
 * holds.
 *
 * The engine polls @va (aligned to the operand size); the CPU, another
 * queue or a device may change it. Other queues keep running meanwhile.
 * With a non-zero @timeout_ns the queue faults with
 * %DRM_COMPUTE_FAULT_TIMEOUT when the condition still fails after that
 * long; with 0 it waits until hang detection resets it.
 */
struct vcompute_pkt_wait_mem {
	/** @header: opcode %VCOMPUTE_PKT_WAIT_MEM, size_qw 6. */
	struct vcompute_pkt_header header;
	/** @va: the polled value. */
	__u64 va;
	/** @ref: the reference value. */
	__u64 ref;
	/** @mask: ANDed with the value before the comparison. */
	__u64 mask;
	/** @func: VCOMPUTE_WAIT_EQ, _NE, _GE or _LT. */
	__u32 func;
	/** @flags: VCOMPUTE_WAIT_* bits. */
	__u32 flags;
	/** @timeout_ns: the packet's own timeout, 0 for none. */
	__u64 timeout_ns;
};

/**
 * struct vcompute_pkt_fence - write @value to @va (8-byte aligned) once
 * every earlier packet is complete, make it the queue's fence value
 * (&drm_compute_userq_state.fence) and wake its waiters.
 */
struct vcompute_pkt_fence {
	/** @header: opcode %VCOMPUTE_PKT_FENCE, size_qw 3. */
	struct vcompute_pkt_header header;
	/** @va: where the value is written. */
	__u64 va;
	/** @value: the fence value. */
	__u64 value;
};

/**
 * VCOMPUTE_KERNEL_VADD_U32 - c[i] = a[i] + b[i] over @count 32-bit unsigned
 * integers (wrapping); args: a, b, c (4-byte aligned).
 */
#define VCOMPUTE_KERNEL_VADD_U32	1
/**
 * VCOMPUTE_KERNEL_VADD_F32 - c[i] = a[i] + b[i] over @count IEEE-754
 * binary32 values, rounded to nearest even, denormals kept, a NaN operand
 * returned quieted (the first one when both are NaN); bit-identical to
 * SSE's addss. args: a, b, c (4-byte aligned).
 */
#define VCOMPUTE_KERNEL_VADD_F32	2
/**
 * VCOMPUTE_KERNEL_CRC32C - the CRC-32C (Castagnoli, as iSCSI and ext4 use
 * it) of @count bytes at args[0], continued from the CRC args[2] (0 to
 * start), written as a 32-bit value to args[1] (4-byte aligned). Runs as
 * one workgroup.
 */
#define VCOMPUTE_KERNEL_CRC32C		3
/**
 * VCOMPUTE_KERNEL_SCALE_U32 - dst[i] = src[i] * factor over @count 32-bit
 * unsigned integers (wrapping); args: src, dst, factor (low 32 bits). A
 * memory-bound kernel: factor 1 is a copy.
 */
#define VCOMPUTE_KERNEL_SCALE_U32	4
/**
 * VCOMPUTE_KERNEL_SUM_U32 - the sum of @count 32-bit unsigned integers at
 * args[0] (4-byte aligned), written as a 64-bit value to args[1] (8-byte
 * aligned). Runs as one workgroup.
 */
#define VCOMPUTE_KERNEL_SUM_U32		5
/**
 * VCOMPUTE_KERNEL_LIST_SUM - walk a singly linked list of
 * &struct vcompute_list_node from args[0] until a NULL @next or @count
 * nodes, summing their values. args[1] (8-byte aligned) receives a
 * &struct vcompute_list_sum, updated as the walk goes and final when the
 * packet completes. A pointer-chasing kernel: with shared virtual memory
 * the nodes are the process's own heap. Runs as one workgroup; a node
 * that is not 8-byte aligned faults the queue (%DRM_COMPUTE_FAULT_ALIGNMENT).
 */
#define VCOMPUTE_KERNEL_LIST_SUM	6

/**
 * struct vcompute_list_node - a node of %VCOMPUTE_KERNEL_LIST_SUM's list.
 */
struct vcompute_list_node {
	/** @next: the next node's GPU address, 0 at the end. */
	__u64 next;
	/** @value: what is summed. */
	__u64 value;
};

/**
 * struct vcompute_list_sum - what %VCOMPUTE_KERNEL_LIST_SUM writes.
 */
struct vcompute_list_sum {
	/** @sum: the values summed so far (wrapping). */
	__u64 sum;
	/** @nodes: the nodes visited so far. */
	__u64 nodes;
};

/**
 * struct vcompute_pkt_dispatch - run a built-in compute kernel over a grid.
 *
 * The grid of @count elements is cut into workgroups of @group_size
 * elements, and the workgroups are spread over the compute units the
 * queue's CU mask enables.
 */
struct vcompute_pkt_dispatch {
	/** @header: opcode %VCOMPUTE_PKT_DISPATCH, size_qw 8. */
	struct vcompute_pkt_header header;
	/** @kernel: VCOMPUTE_KERNEL_*. */
	__u32 kernel;
	/** @group_size: elements per workgroup, a power of two up to 65536; 0 for 256. */
	__u32 group_size;
	/** @count: grid size in elements (bytes for CRC32C). */
	__u64 count;
	/** @args: the kernel's arguments, as each kernel defines them. */
	__u64 args[5];
};

/** VCOMPUTE_CTX_SAVE_MAGIC - &vcompute_ctx_save.magic ("VCCS"). */
#define VCOMPUTE_CTX_SAVE_MAGIC		0x53434356
/** VCOMPUTE_CTX_SAVE_VERSION - &vcompute_ctx_save.version. */
#define VCOMPUTE_CTX_SAVE_VERSION	1

/**
 * struct vcompute_ctx_save - what vcompute writes to a queue's context save
 * area when the queue is suspended, and reads back when it resumes.
 *
 * A queue suspended in the middle of a long packet (COPY, FILL, DISPATCH,
 * WAIT_MEM) resumes it where it stopped. A record that does not read back
 * with the right magic and version at resume faults the queue
 * (%DRM_COMPUTE_FAULT_PACKET) instead of running from a made-up state.
 */
struct vcompute_ctx_save {
	/** @magic: %VCOMPUTE_CTX_SAVE_MAGIC. */
	__u32 magic;
	/** @version: %VCOMPUTE_CTX_SAVE_VERSION. */
	__u32 version;
	/** @rptr: the read pointer: the packet the queue is in. */
	__u64 rptr;
	/**
	 * @progress: how much of that packet is done: bytes for COPY and FILL
	 * and for a CRC32C DISPATCH, elements for SUM_U32, nodes for
	 * LIST_SUM, workgroups for the other DISPATCH kernels, 0 for the
	 * rest.
	 */
	__u64 progress;
	/**
	 * @state: packet-specific state: the running CRC of a CRC32C
	 * DISPATCH (not yet inverted), the running sum of SUM_U32, the next
	 * node of LIST_SUM, the nanoseconds a WAIT_MEM has waited.
	 */
	__u64 state;
	/** @saves: how many times this queue was suspended. */
	__u64 saves;
};

/*
 * vcompute_edu: the test VM's DMA-doing dma-buf importer (a driver for QEMU's
 * edu device, /dev/vcompute-edu-<PCI address>; see vcompute_edu.c). Not a
 * compute uapi: the test "NIC" of the P2P tests, examples and benchmark.
 */

/**
 * VCOMPUTE_EDU_IMPORT_PIN - pin the buffer and map it at once, and keep
 * the mapping until the import goes, as a pinned importer does (RDMA's
 * pinned dma-buf memory regions, devmem TCP).
 */
#define VCOMPUTE_EDU_IMPORT_PIN	_BITUL(0)

/**
 * struct vcompute_edu_import - %VCOMPUTE_EDU_IOCTL_IMPORT: attach a dma-buf
 * to the device, dynamically and with peer-to-peer allowed, replacing the
 * file's previous import (which goes even when the new one fails). Without
 * flags the buffer is mapped at the first write and given up whenever the
 * exporter asks.
 *
 * Errors: -EINVAL for an unknown bit in @flags; -EBADF for a bad @fd; what
 * the exporter's attach returns (-EBUSY for a REQUIRE_P2P buffer the device
 * cannot reach), and with %VCOMPUTE_EDU_IMPORT_PIN its pin or map.
 */
struct vcompute_edu_import {
	/** @fd: in, the dma-buf. */
	__s32 fd;
	/** @flags: in, VCOMPUTE_EDU_IMPORT_*. */
	__u32 flags;
};

/**
 * struct vcompute_edu_write - %VCOMPUTE_EDU_IOCTL_WRITE: the device writes
 * @size bytes from @data into the imported buffer at @offset with its DMA
 * engine, 4 KiB at a time, by the bus addresses the exporter mapped.
 *
 * Errors: -ENOENT without an import; -EINVAL for non-zero @flags or @pad,
 * an @offset that is not 4 KiB aligned, a zero @size or a range past the
 * buffer; -EFAULT for unreadable @data; -ETIMEDOUT when the device does
 * not finish a transfer; -ENODEV after the device went away; the
 * exporter's error from mapping the buffer (-EBUSY while a checkpoint has
 * it paused, -ENODEV once it is revoked).
 */
struct vcompute_edu_write {
	/** @offset: in, byte offset in the buffer, 4 KiB aligned. */
	__u64 offset;
	/** @size: in, bytes. */
	__u64 size;
	/** @data: in, user pointer to @size bytes. */
	__u64 data;
	/** @flags: in, none defined: must be zero. */
	__u32 flags;
	/** @pad: in, must be zero. */
	__u32 pad;
};

#define VCOMPUTE_EDU_IOCTL_IMPORT	_IOW('v', 0xe0, struct vcompute_edu_import)
#define VCOMPUTE_EDU_IOCTL_WRITE	_IOW('v', 0xe1, struct vcompute_edu_write)
/* Detach the file's import. */
#define VCOMPUTE_EDU_IOCTL_DETACH	_IO('v', 0xe2)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VCOMPUTE_DRM_H_ */
