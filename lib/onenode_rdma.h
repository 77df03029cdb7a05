/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * onenode_rdma: the RDMA side of the NIC tests, over rdma-core's verbs. An
 * RDMA loop is two connected RC queue pairs on one RDMA device (Soft-RoCE
 * in the test VM, whose loopback path carries the traffic): queue pair A
 * writes from its memory region into a region of queue pair B, as a remote
 * peer would, with RDMA WRITE. The memory regions are the caller's: host
 * memory (ibv_reg_mr()) or a dma-buf (ibv_reg_dmabuf_mr(), GPU memory the
 * render node exported). Same conventions as libonenode: 0 or a negative
 * errno; no global state.
 */
#ifndef ONENODE_RDMA_H
#define ONENODE_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#if defined(__cplusplus)
extern "C" {
#endif

struct onenode_rdma;

/**
 * onenode_rdma_open() - an RDMA loop on a device.
 * @name: the RDMA device (e.g. "rxe0"), or NULL for the first one.
 * @out: set to the loop.
 *
 * The device needs a RoCE v2 GID with an IPv4 address on port 1 (Soft-RoCE
 * over a netdev that has one).
 *
 * Return: 0; -ENODEV without an RDMA device (or without that one, or
 * without such a GID); another negative errno from verbs.
 */
int onenode_rdma_open(const char *name, struct onenode_rdma **out);

/** onenode_rdma_close() - destroy the loop (NULL is fine); MRs go first. */
void onenode_rdma_close(struct onenode_rdma *r);

/** onenode_rdma_name() - the loop's RDMA device name. */
const char *onenode_rdma_name(const struct onenode_rdma *r);

/** onenode_rdma_pd() - the protection domain to register regions in. */
struct ibv_pd *onenode_rdma_pd(struct onenode_rdma *r);

/**
 * onenode_rdma_reg_dmabuf() - register @len bytes of the dma-buf @fd from
 * @offset, for local writes and remote reads and writes.
 * @r: the loop.
 * @fd: the dma-buf.
 * @offset: where the region starts in the buffer (also its iova).
 * @len: bytes.
 * @mr: set to the region.
 *
 * Return: 0, or the negative errno of ibv_reg_dmabuf_mr() (-EOPNOTSUPP
 * where the device or its provider has no dma-buf regions).
 */
int onenode_rdma_reg_dmabuf(struct onenode_rdma *r, int fd, uint64_t offset,
			    size_t len, struct ibv_mr **mr);

/**
 * onenode_rdma_write() - RDMA WRITE @bytes from @src to @dst, in writes of
 * @chunk bytes, and wait until every one completed.
 * @r: the loop.
 * @src: a region of @r's protection domain, the local side (queue pair A).
 * @src_off: where the data starts in @src, from its start.
 * @dst: a region of @r's protection domain, the remote side (queue pair B).
 * @dst_off: where the data lands in @dst, from its start.
 * @bytes: bytes to write.
 * @chunk: bytes per write (at most 1 GiB); @bytes need not be a multiple.
 *
 * Several writes are in flight at a time.
 *
 * Return: 0; -EINVAL for a range outside a region or a zero @chunk; -EIO
 * when a write completes in error (onenode_rdma_last_status() says which);
 * another negative errno from verbs.
 */
int onenode_rdma_write(struct onenode_rdma *r, struct ibv_mr *src,
		       uint64_t src_off, struct ibv_mr *dst, uint64_t dst_off,
		       uint64_t bytes, uint32_t chunk);

/**
 * onenode_rdma_last_status() - the status of the last completion in error,
 * as ibv_wc_status_str() names it ("success" when none).
 */
const char *onenode_rdma_last_status(const struct onenode_rdma *r);

#if defined(__cplusplus)
}
#endif

#endif /* ONENODE_RDMA_H */
