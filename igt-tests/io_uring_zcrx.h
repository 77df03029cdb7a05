/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * The io_uring zero-copy receive (zcrx) interface the P2P test registers a
 * dma-buf area with. Linux has it since 6.15 (dma-buf areas since 6.16) in
 * <linux/io_uring/zcrx.h>; a C library whose kernel headers predate it
 * (Debian 13's are 6.12's) gets the layout here, as the kernel defines it.
 */
#ifndef ONENODE_IO_URING_ZCRX_H
#define ONENODE_IO_URING_ZCRX_H

#include <linux/io_uring.h>
#include <linux/types.h>

#if __has_include(<linux/io_uring/zcrx.h>)
#include <linux/io_uring/zcrx.h>
#else
#define IORING_REGISTER_ZCRX_IFQ 32
#define IORING_ZCRX_AREA_DMABUF 1

struct io_uring_zcrx_offsets {
	__u32 head;
	__u32 tail;
	__u32 rqes;
	__u32 __resv2;
	__u64 __resv[2];
};

struct io_uring_zcrx_area_reg {
	__u64 addr;
	__u64 len;
	__u64 rq_area_token;
	__u32 flags;
	__u32 dmabuf_fd;
	__u64 __resv2[2];
};

struct io_uring_zcrx_ifq_reg {
	__u32 if_idx;
	__u32 if_rxq;
	__u32 rq_entries;
	__u32 flags;
	__u64 area_ptr;
	__u64 region_ptr;
	struct io_uring_zcrx_offsets offsets;
	__u32 zcrx_id;
	__u32 rx_buf_len;
	__u64 event_desc;
	__u64 __resv[2];
};

/* Older than zcrx, newer than 6.12: with zcrx.h, <linux/io_uring.h> has it. */
struct io_uring_region_desc {
	__u64 user_addr;
	__u64 size;
	__u32 flags;
	__u32 id;
	__u64 mmap_offset;
	__u64 __resv[4];
};
#endif

#endif /* ONENODE_IO_URING_ZCRX_H */
