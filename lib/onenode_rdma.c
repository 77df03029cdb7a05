// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * An RDMA loop over verbs: two RC queue pairs of one device connected to
 * each other (onenode_rdma.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "onenode_rdma.h"

/* Writes in flight at a time, and the completion queue's room. */
#define RDMA_DEPTH 32
#define RDMA_PORT 1

struct onenode_rdma {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
	enum ibv_wc_status last;
	char name[IBV_SYSFS_NAME_MAX];
};

/* verbs calls that return a positive errno, or -1 with errno set. */
static int verbs_err(int ret)
{
	if (ret > 0)
		return -ret;
	return errno ? -errno : -EIO;
}

static int pick_device(struct onenode_rdma *r, const char *name)
{
	struct ibv_device **list;
	int n, i, ret = -ENODEV;

	list = ibv_get_device_list(&n);
	if (!list)
		return errno == ENOSYS ? -ENODEV : verbs_err(-1);
	for (i = 0; i < n; i++) {
		if (name && strcmp(ibv_get_device_name(list[i]), name))
			continue;
		r->ctx = ibv_open_device(list[i]);
		if (!r->ctx) {
			ret = verbs_err(-1);
			break;
		}
		strncpy(r->name, ibv_get_device_name(list[i]), sizeof(r->name) - 1);
		ret = 0;
		break;
	}
	ibv_free_device_list(list);
	return ret;
}

/* The port's RoCE v2 GID with an IPv4 address (::ffff:a.b.c.d). */
static int pick_gid(struct onenode_rdma *r)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr port;
	struct ibv_gid_entry e;
	int i, ret;

	ret = ibv_query_port(r->ctx, RDMA_PORT, &port);
	if (ret)
		return verbs_err(ret);
	r->mtu = port.active_mtu;
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(r->ctx, RDMA_PORT, i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    memcmp(e.gid.raw, v4_prefix, sizeof(v4_prefix)))
			continue;
		r->gid = e.gid;
		r->gid_index = i;
		return 0;
	}
	return -ENODEV;
}

static struct ibv_qp *make_qp(struct onenode_rdma *r)
{
	struct ibv_qp_init_attr init = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.cap = { .max_send_wr = RDMA_DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(r->pd, &init);
}

/* Take @qp through INIT, RTR and RTS towards @remote_qpn on the same GID. */
static int connect_qp(struct onenode_rdma *r, struct ibv_qp *qp,
		      uint32_t remote_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = RDMA_PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return verbs_err(ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = r->mtu;
	a.dest_qp_num = remote_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = RDMA_PORT;
	a.ah_attr.grh.dgid = r->gid;
	a.ah_attr.grh.sgid_index = r->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return verbs_err(ret);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	return ret ? verbs_err(ret) : 0;
}

int onenode_rdma_open(const char *name, struct onenode_rdma **out)
{
	struct onenode_rdma *r;
	int ret;

	if (!out)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->last = IBV_WC_SUCCESS;
	ret = pick_device(r, name);
	if (!ret)
		ret = pick_gid(r);
	if (ret)
		goto err;
	r->pd = ibv_alloc_pd(r->ctx);
	r->cq = r->pd ? ibv_create_cq(r->ctx, 2 * RDMA_DEPTH, NULL, NULL, 0) : NULL;
	r->a = r->cq ? make_qp(r) : NULL;
	r->b = r->a ? make_qp(r) : NULL;
	if (!r->b) {
		ret = verbs_err(-1);
		goto err;
	}
	ret = connect_qp(r, r->a, r->b->qp_num);
	if (!ret)
		ret = connect_qp(r, r->b, r->a->qp_num);
	if (ret)
		goto err;
	*out = r;
	return 0;
err:
	onenode_rdma_close(r);
	return ret;
}

void onenode_rdma_close(struct onenode_rdma *r)
{
	if (!r)
		return;
	if (r->b)
		ibv_destroy_qp(r->b);
	if (r->a)
		ibv_destroy_qp(r->a);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r);
}

const char *onenode_rdma_name(const struct onenode_rdma *r)
{
	return r->name;
}

struct ibv_pd *onenode_rdma_pd(struct onenode_rdma *r)
{
	return r->pd;
}

int onenode_rdma_reg_dmabuf(struct onenode_rdma *r, int fd, uint64_t offset,
			    size_t len, struct ibv_mr **mr)
{
	/* iova = offset: the region's addr field is then its iova. */
	*mr = ibv_reg_dmabuf_mr(r->pd, offset, len, offset, fd,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE);
	return *mr ? 0 : verbs_err(-1);
}

static int in_region(const struct ibv_mr *mr, uint64_t off, uint64_t bytes)
{
	return off <= mr->length && bytes <= mr->length - off;
}

/* Wait for at least one completion; -EIO on one in error. */
static int reap(struct onenode_rdma *r, unsigned int *inflight)
{
	struct ibv_wc wc[RDMA_DEPTH];
	int n, i, ret = 0;

	do
		n = ibv_poll_cq(r->cq, RDMA_DEPTH, wc);
	while (n == 0);
	if (n < 0)
		return -EIO;
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			r->last = wc[i].status;
			ret = -EIO;
		}
	}
	*inflight -= n;
	return ret;
}

int onenode_rdma_write(struct onenode_rdma *r, struct ibv_mr *src,
		       uint64_t src_off, struct ibv_mr *dst, uint64_t dst_off,
		       uint64_t bytes, uint32_t chunk)
{
	uint64_t done = 0, saddr, daddr;
	unsigned int inflight = 0;
	int ret = 0;

	if (!chunk || chunk > (1u << 30) || !in_region(src, src_off, bytes) ||
	    !in_region(dst, dst_off, bytes))
		return -EINVAL;
	saddr = (uint64_t)(uintptr_t)src->addr + src_off;
	daddr = (uint64_t)(uintptr_t)dst->addr + dst_off;
	while (done < bytes && !ret) {
		uint32_t len = bytes - done < chunk ? (uint32_t)(bytes - done) : chunk;
		struct ibv_sge sge = {
			.addr = saddr + done, .length = len, .lkey = src->lkey,
		};
		struct ibv_send_wr wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = daddr + done, .rkey = dst->rkey },
		}, *bad;

		if (inflight == RDMA_DEPTH) {
			ret = reap(r, &inflight);
			continue;
		}
		ret = ibv_post_send(r->a, &wr, &bad);
		if (ret) {
			ret = verbs_err(ret);
			break;
		}
		inflight++;
		done += len;
	}
	while (inflight) {
		int err = reap(r, &inflight);

		if (err && !ret)
			ret = err;
	}
	return ret;
}

const char *onenode_rdma_last_status(const struct onenode_rdma *r)
{
	return ibv_wc_status_str(r->last);
}
