// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of buffers made for export to peer devices
 * (DRM_COMPUTE_BO_EXPORT_* flags of DRM_COMPUTE_OP_BO_CREATE) and of
 * DRM_COMPUTE_OP_P2P_REPORT: each flag and its placement, the kernel's
 * placement decision per importer with its reason, the move of a
 * PREFER_P2P buffer to system memory under a live CPU mapping and a GPU VM
 * mapping, REQUIRE_P2P refusing importers, every close order, an unplugged
 * exporter, invalid input and a race of imports against reports.
 *
 * Importers: vgem (a static importer: it cannot take peer memory) and a
 * second vcompute instance (a dynamic importer that allows peer-to-peer).
 * vcompute on the faux bus has no PCI BAR, so no importer gets device
 * memory there: what is checked is that the kernel says so, and why.
 *
 * The PCI topology: vcompute also drives QEMU's ivshmem functions, whose
 * BAR is their device memory. The test VM has three (tools/lib.sh): two
 * behind one PCIe switch and one on a root port of its own. For every
 * ordered pair, one exports and the other imports; the kernel must decide
 * peer-to-peer exactly for the pair that shares a switch (read here from
 * sysfs: the two functions' grandparent is the same switch upstream port)
 * and report "no PCI path" for the others. Two QEMU edu functions (one
 * behind the switch, one on its own root port) are DMA-doing importers
 * (vcompute_edu): their writes land in the BAR where the kernel decided
 * peer-to-peer and in system memory where it did not, and the exporter sees
 * the bytes either way.
 *
 * RDMA: the test VM's Soft-RoCE device (rxe, the rdma patch of the kernel
 * series) registers exported buffers as dma-buf memory regions through
 * rdma-core (ibv_reg_dmabuf_mr()), and a queue pair of its RDMA loop writes
 * into them with RDMA WRITE. rxe is a CPU importer: it maps the buffer with
 * dma_buf_vmap() and no attachment, so the report shows a kernel mapping
 * that pins the buffer where it lies (device memory too), not an importer.
 *
 * io_uring zcrx: a PCI NIC (QEMU e1000e, one behind the switch, one on a
 * root port of its own) registers a REQUIRE_P2P buffer as a zero-copy
 * receive area. With the kernel's net patch zcrx attaches as a pinned importer
 * that takes peer memory, so the exporter decides from the PCI topology:
 * peer-to-peer behind the switch (before the patch, a static attach was
 * refused there as "importer not P2P-capable"), "no PCI path" across root
 * ports. e1000e has no queue API, so the registration itself fails after
 * the attach; the report says what the attach got.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <libgen.h>
#include <net/if.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <xf86drm.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"
#include "onenode_igt.h"
#include "onenode_rdma.h"
#include "io_uring_zcrx.h"

IGT_TEST_DESCRIPTION("Checks buffers made for export to peer devices: the "
		     "export flags, the kernel's placement decision per "
		     "importer and its reason (DRM_COMPUTE_OP_P2P_REPORT), the "
		     "move of a PREFER_P2P buffer under live mappings, "
		     "REQUIRE_P2P refusals, close orders, unplug and bad input.");

#define SIZE (16 * COMPUTE_PAGE)
#define RACE_CHILDREN 3
#define RACE_ROUNDS 40

static struct compute_dev cd = { .fd = -1 }, peer = { .fd = -1 };
static int vgem = -1;
static struct onenode_rdma *rdma;
static int rdma_err = -ENODEV;

static const struct {
	const char *name;
	uint32_t flag;
	uint64_t placement;
} flags[] = {
	{ "prefer-p2p", DRM_COMPUTE_BO_EXPORT_PREFER_P2P, DRM_COMPUTE_PLACEMENT_VRAM },
	{ "require-p2p", DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P, DRM_COMPUTE_PLACEMENT_VRAM },
	{ "host-only", DRM_COMPUTE_BO_EXPORT_HOST_ONLY, DRM_COMPUTE_PLACEMENT_SYSTEM },
};

/* ---- the PCI instances ---- */

#define MAX_PCI 8

struct pci_node {
	struct compute_dev cd;
	char pci[32];		/* PCI address, what the importer name shows */
	char up2[PATH_MAX];	/* sysfs path of the function's grandparent */
};

static struct pci_node pcis[MAX_PCI];
static int npci;

/* The edu importers: their misc device and PCI position. */
struct edu_node {
	char dev[PATH_MAX];
	char pci[32];
	char up2[PATH_MAX];
};

static struct edu_node edus[MAX_PCI];
static int nedu;

/* PCI NICs (e1000e): the netdev and its PCI position. */
struct nic_node {
	char ifname[32];
	int ifindex;
	char pci[32];
	char up2[PATH_MAX];
};

static struct nic_node nics[MAX_PCI];
static int nnic;

static void find_nics(void)
{
	DIR *dir = opendir("/sys/class/net");
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)) && nnic < MAX_PCI) {
		char link[PATH_MAX], real[PATH_MAX], drv[PATH_MAX];
		struct nic_node *n = &nics[nnic];

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/sys/class/net/%s/device/driver", e->d_name);
		if (!realpath(link, drv) || strcmp(basename(drv), "e1000e"))
			continue;
		snprintf(link, sizeof(link), "/sys/class/net/%s/device", e->d_name);
		if (!realpath(link, real))
			continue;
		snprintf(n->ifname, sizeof(n->ifname), "%.31s", e->d_name);
		n->ifindex = (int)if_nametoindex(e->d_name);
		snprintf(n->pci, sizeof(n->pci), "%s", basename(real));
		snprintf(n->up2, sizeof(n->up2), "%s", dirname(dirname(real)));
		if (n->ifindex > 0)
			nnic++;
	}
	closedir(dir);
}

static void find_edus(void)
{
	DIR *dir = opendir("/sys/class/misc");
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)) && nedu < MAX_PCI) {
		char link[PATH_MAX], real[PATH_MAX];
		struct edu_node *n = &edus[nedu];

		if (strncmp(e->d_name, "vcompute-edu-", 13))
			continue;
		snprintf(link, sizeof(link), "/sys/class/misc/%s/device", e->d_name);
		if (!realpath(link, real))
			continue;
		snprintf(n->dev, sizeof(n->dev), "/dev/%s", e->d_name);
		snprintf(n->pci, sizeof(n->pci), "%s", basename(real));
		snprintf(n->up2, sizeof(n->up2), "%s", dirname(dirname(real)));
		nedu++;
	}
	closedir(dir);
}

/* The vcompute render nodes whose device is a PCI function. */
static void find_pci_nodes(void)
{
	DIR *dir = opendir("/dev/dri");
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)) && npci < MAX_PCI) {
		char path[PATH_MAX], link[PATH_MAX], real[PATH_MAX];
		struct pci_node *n = &pcis[npci];
		int fd;

		if (strncmp(e->d_name, "renderD", 7))
			continue;
		snprintf(link, sizeof(link), "/sys/class/drm/%s/device", e->d_name);
		if (!realpath(link, real) || !strstr(real, "/pci"))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!onenode_fd_is_driver(fd, "vcompute")) {
			close(fd);
			continue;
		}
		compute_from_fd(&n->cd, fd);
		snprintf(n->pci, sizeof(n->pci), "%s", basename(real));
		snprintf(n->up2, sizeof(n->up2), "%s", dirname(dirname(real)));
		npci++;
	}
	closedir(dir);
}

/* Whether two functions sit behind one switch (not the root complex). */
static bool same_switch_path(const char *a_up2, const char *b_up2)
{
	const char *last = strrchr(a_up2, '/');

	/* Functions on root ports have the root complex ("pci0000:00") there. */
	return !strcmp(a_up2, b_up2) && last && strncmp(last + 1, "pci", 3);
}

static bool same_switch(const struct pci_node *a, const struct pci_node *b)
{
	return same_switch_path(a->up2, b->up2);
}

static uint32_t export_bo(const struct compute_dev *dev, uint64_t size,
			  uint64_t placement, uint32_t flag)
{
	uint32_t handle = 0;

	igt_assert_eq(onenode_bo_create_export(&dev->dev, size, placement, flag, &handle), 0);
	igt_assert_neq_u32(handle, 0);
	return handle;
}

/* Import @fd into the DRM file @fd_dev: 0 and *@handle, or -errno. */
static int import(int fd_dev, int fd, uint32_t *handle)
{
	return drmPrimeFDToHandle(fd_dev, fd, handle) ? -errno : 0;
}

static void report(const struct compute_dev *dev, uint32_t handle,
		   struct drm_compute_p2p_report *rep,
		   struct drm_compute_p2p_attachment *att, uint32_t count)
{
	igt_assert_eq(onenode_p2p_report(&dev->dev, handle, rep, att, count), 0);
}

static void assert_reason(uint32_t got, uint32_t want, const char *what)
{
	igt_assert_f(got == want, "%s: reason %s, expected %s\n", what,
		     onenode_p2p_reason_name(got), onenode_p2p_reason_name(want));
}

/* The device name vcompute instance @name's importer shows. */
static void instance_dev_name(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "vcompute.%s", name);
}

/* A GPU copy of @size bytes from @src_va to @dst_va in @vm. */
static void gpu_copy(const struct compute_dev *dev, uint32_t vm, uint64_t dst_va,
		     uint64_t src_va, uint64_t size)
{
	const struct onenode_queue_params params = {
		.va = COMPUTE_QUEUE_VA(0),
		.priority = ONENODE_PRIORITY_DEFAULT,
	};
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	struct compute_queue q;

	compute_queue_init(dev, vm, &params, &q);
	compute_emit(&q, pkt, onenode_pkt_copy(pkt, dst_va, src_va, size));
	compute_sync(&q, compute_submit(&q));
	compute_queue_fini(&q);
}

/* @x exports a buffer made with @flag, @y imports it: what the kernel decides. */
static void pci_pair(struct pci_node *x, struct pci_node *y, uint32_t flag)
{
	struct drm_compute_p2p_attachment att[1];
	struct drm_compute_p2p_report r;
	const bool p2p = same_switch(x, y);
	uint32_t h, imp = 0;
	size_t bad = 0;
	void *m;
	int fd, ret;

	igt_info("%s -> %s: %s\n", x->pci, y->pci, p2p ? "one switch" : "separate root ports");
	h = export_bo(&x->cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, flag);
	m = compute_bo_map(&x->cd, h, SIZE);
	compute_fill_pattern(m, SIZE, 101);
	fd = compute_prime_fd(&x->cd, h);
	ret = import(y->cd.fd, fd, &imp);
	memset(att, 0, sizeof(att));
	report(&x->cd, h, &r, att, 1);
	if (p2p) {
		igt_assert_eq(ret, 0);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
		assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_NONE, "the buffer");
		igt_assert_eq_u32(r.moves, 0);
		igt_assert_eq_u32(r.count, 1);
		igt_assert_f(!strcmp(att[0].importer, y->pci), "importer '%s'\n", att[0].importer);
		igt_assert_eq_u32(att[0].map, DRM_COMPUTE_P2P_MAP_PEER);
		assert_reason(att[0].reason, DRM_COMPUTE_P2P_REASON_NONE, "the attachment");
	} else if (flag == DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P) {
		igt_assert_eq(ret, -EBUSY);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
		igt_assert_eq_u32(r.refused, 1);
		assert_reason(r.refused_reason, DRM_COMPUTE_P2P_REASON_NO_PCI_PATH, "the refusal");
		igt_assert_eq_u32(r.count, 0);
	} else {
		igt_assert_eq(ret, 0);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
		assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_NO_PCI_PATH, "the buffer");
		igt_assert_f(!strcmp(r.decided_by, y->pci), "decided by '%s'\n", r.decided_by);
		igt_assert_eq_u32(att[0].map, DRM_COMPUTE_P2P_MAP_HOST);
	}
	/* Wherever it is now, the data is the same through the old mapping. */
	igt_assert_f(compute_check_pattern(m, SIZE, 101, &bad), "bad at byte %zu\n", bad);
	munmap(m, SIZE);
	if (!ret)
		compute_bo_close(&y->cd, imp);
	close(fd);
	compute_bo_close(&x->cd, h);
}

/* A queue of a PCI instance copies between two buffers in its BAR memory. */
static void pci_queue(struct pci_node *x)
{
	uint32_t vm = compute_vm(&x->cd);
	struct compute_buf a, b;
	size_t bad = 0;

	compute_buf_init(&x->cd, vm, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, COMPUTE_BUF_VA(0), 0, &a);
	compute_buf_init(&x->cd, vm, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, COMPUTE_BUF_VA(1), 0, &b);
	compute_fill_pattern(a.cpu, SIZE, 111);
	gpu_copy(&x->cd, vm, b.va, a.va, SIZE);
	igt_assert_f(compute_check_pattern(b.cpu, SIZE, 111, &bad), "bad at byte %zu\n", bad);
	compute_buf_fini(&x->cd, &b);
	compute_buf_fini(&x->cd, &a);
	compute_vm_destroy(&x->cd, vm);
}

/*
 * @x exports a PREFER_P2P buffer, the edu @e imports it and writes a
 * pattern with its DMA engine; the exporter must see the pattern, in its
 * BAR when the kernel decided peer-to-peer, in system memory otherwise.
 */
/* Opens edu @e and imports dma-buf @fd into it; returns the edu's file. */
static int edu_import(const struct edu_node *e, int fd)
{
	return compute_edu_import(e->dev, fd);
}

/*
 * The edu of @efd DMA-writes pattern @seed, made in @src, over the first
 * SIZE bytes of its import; @w is left describing that write.
 */
static void edu_write_pattern(int efd, uint8_t *src, uint32_t seed,
			      struct vcompute_edu_write *w)
{
	compute_fill_pattern(src, SIZE, seed);
	memset(w, 0, sizeof(*w));
	w->size = SIZE;
	w->data = (uintptr_t)src;
	igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_WRITE, w), 0);
}

static void edu_pair(struct pci_node *x, const struct edu_node *e)
{
	struct drm_compute_p2p_attachment att[1];
	struct drm_compute_p2p_report r;
	const bool p2p = same_switch_path(x->up2, e->up2);
	uint8_t *src = malloc(SIZE);
	struct vcompute_edu_write w;
	size_t bad = 0;
	uint32_t h;
	int fd, efd;
	void *m;

	igt_info("%s -> edu %s: %s\n", x->pci, e->pci, p2p ? "one switch" : "separate root ports");
	igt_assert(src);
	h = export_bo(&x->cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	m = compute_bo_map(&x->cd, h, SIZE);
	fd = compute_prime_fd(&x->cd, h);
	efd = edu_import(e, fd);

	memset(att, 0, sizeof(att));
	report(&x->cd, h, &r, att, 1);
	igt_assert_eq_u32(r.count, 1);
	igt_assert_f(!strcmp(att[0].importer, e->pci), "importer '%s'\n", att[0].importer);
	igt_assert_eq_u32(att[0].flags, DRM_COMPUTE_P2P_ATTACH_DYNAMIC);
	if (p2p) {
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
		igt_assert_eq_u32(att[0].map, DRM_COMPUTE_P2P_MAP_PEER);
	} else {
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
		assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_NO_PCI_PATH, "the buffer");
		igt_assert_eq_u32(att[0].map, DRM_COMPUTE_P2P_MAP_HOST);
	}

	/* The device writes; the exporter's CPU mapping must show it. */
	edu_write_pattern(efd, src, 121, &w);
	igt_assert_f(compute_check_pattern(m, SIZE, 121, &bad),
		     "DMA by %s into %s's buffer: bad at byte %zu\n", e->pci, x->pci, bad);
	if (p2p && vgem >= 0) {
		uint32_t iv = 0;

		/*
		 * A static importer moves the buffer to system memory: the
		 * edu, which kept its mapping of the BAR, is told, maps again,
		 * and its next write lands in the new pages.
		 */
		igt_assert_eq(import(vgem, fd, &iv), 0);
		report(&x->cd, h, &r, NULL, 0);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
		igt_assert_lte_u32(1, r.invalidations);
		edu_write_pattern(efd, src, 122, &w);
		igt_assert_f(compute_check_pattern(m, SIZE, 122, &bad),
			     "DMA by %s after the move: bad at byte %zu\n", e->pci, bad);
		igt_assert_eq(drmCloseBufferHandle(vgem, iv), 0);
	}
	/* Bad input to the importer: unaligned, past the end, unknown flags. */
	w.offset = 1;
	igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_WRITE, &w), -1);
	igt_assert_eq(errno, EINVAL);
	w.offset = 4096;
	igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_WRITE, &w), -1);
	igt_assert_eq(errno, EINVAL);
	w.offset = 0;
	w.flags = 1;
	igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_WRITE, &w), -1);
	igt_assert_eq(errno, EINVAL);

	/* The importer goes first; the report forgets it. */
	close(efd);
	report(&x->cd, h, &r, NULL, 0);
	igt_assert_eq_u32(r.count, 0);
	munmap(m, SIZE);
	close(fd);
	compute_bo_close(&x->cd, h);
	free(src);
}

static void pci_pairs(uint32_t flag)
{
	int shared = 0, apart = 0;

	for (int i = 0; i < npci; i++)
		for (int j = 0; j < npci; j++)
			if (i != j)
				*(same_switch(&pcis[i], &pcis[j]) ? &shared : &apart) += 1;
	igt_require_f(shared && apart, "PCI instances behind one switch and apart (%d found)\n",
		      npci);
	for (int i = 0; i < npci; i++)
		for (int j = 0; j < npci; j++)
			if (i != j)
				pci_pair(&pcis[i], &pcis[j], flag);
}

static void create_invalid(void)
{
	struct drm_compute_bo_create c = {
		.size = SIZE,
		.placement = DRM_COMPUTE_PLACEMENT_VRAM,
	};

	c.flags = DRM_COMPUTE_BO_EXPORT_HOST_ONLY << 1;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
	c.flags = DRM_COMPUTE_BO_EXPORT_PREFER_P2P | DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
	c.flags = DRM_COMPUTE_BO_EXPORT_HOST_ONLY;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
	c.placement = DRM_COMPUTE_PLACEMENT_SYSTEM;
	c.flags = DRM_COMPUTE_BO_EXPORT_PREFER_P2P;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
	c.flags = DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
	c.flags = DRM_COMPUTE_BO_EXPORT_HOST_ONLY;
	c.size = SIZE + 1;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
	c.size = SIZE;
	c.handle = 1;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_BO_CREATE, &c, sizeof(c), -EINVAL);
}

static void report_invalid(void)
{
	struct drm_compute_p2p_report r;
	uint32_t plain = compute_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM);
	uint32_t h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM,
			       DRM_COMPUTE_BO_EXPORT_HOST_ONLY);
	void *ro;

#define BAD(field, value, err) do {					\
		memset(&r, 0, sizeof(r));				\
		r.handle = h;						\
		r.field = value;					\
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_P2P_REPORT, &r, sizeof(r), err); \
	} while (0)
	BAD(handle, plain, -EINVAL);
	BAD(handle, 0, -ENOENT);
	BAD(handle, 0xdeadbeef, -ENOENT);
	BAD(flags, 1, -EINVAL);
	BAD(count, 1, -EINVAL);		/* a count without a pointer */
	BAD(export_flags, 1, -EINVAL);
	BAD(placement, DRM_COMPUTE_PLACEMENT_SYSTEM, -EINVAL);
	BAD(reason, 1, -EINVAL);
	BAD(moves, 1, -EINVAL);
	BAD(decided_by[31], 'x', -EINVAL);
	BAD(refused, 1, -EINVAL);
	BAD(refused_reason, 1, -EINVAL);
	BAD(kernel_maps, 1, -EINVAL);
	BAD(invalidations, 1, -EINVAL);
	BAD(reserved, 1, -EINVAL);
#undef BAD

	/* With an importer, an unwritable array faults and the argument stays. */
	{
		int fd = compute_prime_fd(&cd, h);
		uint32_t imp = 0;

		igt_assert_eq(import(peer.fd, fd, &imp), 0);
		ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		igt_assert(ro != MAP_FAILED);
		memset(&r, 0, sizeof(r));
		r.handle = h;
		r.count = 1;
		r.attachments = (uintptr_t)ro;
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_P2P_REPORT, &r, sizeof(r), -EFAULT);
		munmap(ro, 4096);
		/* A count of 0 learns the number without writing. */
		report(&cd, h, &r, NULL, 0);
		igt_assert_eq_u32(r.count, 1);
		compute_bo_close(&peer, imp);
		close(fd);
	}
	compute_bo_close(&cd, h);
	compute_bo_close(&cd, plain);
}

/* A PREFER_P2P buffer with data, bound and mapped; @importer_fd imports it. */
static void prefer_moves(int importer_fd, uint32_t want_reason, const char *want_name,
			 uint32_t want_flags)
{
	struct drm_compute_p2p_attachment att[2];
	struct drm_compute_p2p_report r;
	uint32_t vm = compute_vm(&cd), h, imp = 0;
	struct compute_buf out;
	size_t bad = 0;
	void *cpu;
	int fd;

	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	cpu = compute_bo_map(&cd, h, SIZE);
	compute_fill_pattern(cpu, SIZE, 71);
	compute_map(&cd, vm, h, 0, COMPUTE_BUF_VA(0), SIZE, 0);
	compute_buf_init(&cd, vm, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, COMPUTE_BUF_VA(1), 0, &out);

	report(&cd, h, &r, att, 2);
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_NONE, "before export");
	igt_assert_eq_u32(r.count, 0);

	fd = compute_prime_fd(&cd, h);
	igt_assert_eq(import(importer_fd, fd, &imp), 0);

	report(&cd, h, &r, att, 2);
	igt_assert_eq_u32(r.export_flags, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
	assert_reason(r.reason, want_reason, "the buffer");
	igt_assert_eq_u32(r.moves, 1);
	igt_assert_eq_u32(r.refused, 0);
	igt_assert_eq_u32(r.count, 1);
	igt_assert_f(!strcmp(r.decided_by, want_name), "decided by '%s', expected '%s'\n",
		     r.decided_by, want_name);
	igt_assert_f(!strcmp(att[0].importer, want_name), "importer '%s'\n", att[0].importer);
	igt_assert_eq_u32(att[0].map, DRM_COMPUTE_P2P_MAP_HOST);
	assert_reason(att[0].reason, want_reason, "the attachment");
	igt_assert_eq_u32(att[0].flags, want_flags);

	/* The CPU mapping made before the move sees the data, and writes stick. */
	igt_assert_f(compute_check_pattern(cpu, SIZE, 71, &bad),
		     "CPU mapping after the move: bad at byte %zu\n", bad);
	/* The GPU VM mapping followed the move: a queue copies the data out. */
	gpu_copy(&cd, vm, out.va, COMPUTE_BUF_VA(0), SIZE);
	igt_assert_f(compute_check_pattern(out.cpu, SIZE, 71, &bad),
		     "GPU read after the move: bad at byte %zu\n", bad);
	/* And GPU writes land where the CPU looks. */
	compute_fill_pattern(out.cpu, SIZE, 72);
	gpu_copy(&cd, vm, COMPUTE_BUF_VA(0), out.va, SIZE);
	igt_assert_f(compute_check_pattern(cpu, SIZE, 72, &bad),
		     "CPU read of a GPU write after the move: bad at byte %zu\n", bad);

	munmap(cpu, SIZE);
	compute_unmap(&cd, vm, COMPUTE_BUF_VA(0), SIZE);
	compute_buf_fini(&cd, &out);
	close(fd);
	igt_assert_eq(drmCloseBufferHandle(importer_fd, imp), 0);
	report(&cd, h, &r, att, 2);
	igt_assert_eq_u32(r.count, 0);
	/* Nothing moves the buffer back. */
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
	compute_bo_close(&cd, h);
	compute_vm_destroy(&cd, vm);
}

static void require_refuses(void)
{
	struct drm_compute_p2p_report r;
	uint32_t h, imp = 0;
	size_t bad = 0;
	void *cpu;
	int fd;

	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P);
	cpu = compute_bo_map(&cd, h, SIZE);
	compute_fill_pattern(cpu, SIZE, 81);
	fd = compute_prime_fd(&cd, h);

	igt_assert_eq(import(vgem, fd, &imp), -EBUSY);
	report(&cd, h, &r, NULL, 0);
	igt_assert_eq_u32(r.refused, 1);
	assert_reason(r.refused_reason, DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P, "vgem refused");

	igt_assert_eq(import(peer.fd, fd, &imp), -EBUSY);
	report(&cd, h, &r, NULL, 0);
	igt_assert_eq_u32(r.refused, 2);
	assert_reason(r.refused_reason, DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY, "vcompute refused");

	/* Still in device memory, untouched, no importer, nothing moved. */
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_NONE, "the buffer");
	igt_assert_eq_u32(r.count, 0);
	igt_assert_eq_u32(r.moves, 0);
	igt_assert_f(compute_check_pattern(cpu, SIZE, 81, &bad), "bad at byte %zu\n", bad);
	munmap(cpu, SIZE);
	close(fd);
	compute_bo_close(&cd, h);
}

static void host_only_importers(void)
{
	struct drm_compute_p2p_attachment att[2];
	struct drm_compute_p2p_report r;
	uint32_t h, iv = 0, ip = 0;
	char name[64];
	int fd;

	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, DRM_COMPUTE_BO_EXPORT_HOST_ONLY);
	fd = compute_prime_fd(&cd, h);
	igt_assert_eq(import(vgem, fd, &iv), 0);
	igt_assert_eq(import(peer.fd, fd, &ip), 0);

	/* One entry asked for, two importers there. */
	memset(att, 0, sizeof(att));
	report(&cd, h, &r, att, 1);
	igt_assert_eq_u32(r.count, 2);
	igt_assert_eq(att[1].importer[0], 0);
	report(&cd, h, &r, att, 2);
	igt_assert_eq_u32(r.export_flags, DRM_COMPUTE_BO_EXPORT_HOST_ONLY);
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
	assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_HOST_ONLY, "the buffer");
	igt_assert_eq_u32(r.moves, 0);
	igt_assert_eq(r.decided_by[0], 0);
	/* Oldest first: vgem (static; it maps only on use), then the peer. */
	igt_assert_f(!strcmp(att[0].importer, "vgem"), "first importer '%s'\n", att[0].importer);
	igt_assert_eq_u32(att[0].flags, 0);
	instance_dev_name("p2ppeer", name, sizeof(name));
	igt_assert_f(!strcmp(att[1].importer, name), "second importer '%s'\n", att[1].importer);
	igt_assert_eq_u32(att[1].flags, DRM_COMPUTE_P2P_ATTACH_DYNAMIC);
	for (int i = 0; i < 2; i++) {
		igt_assert_eq_u32(att[i].map, DRM_COMPUTE_P2P_MAP_HOST);
		assert_reason(att[i].reason, DRM_COMPUTE_P2P_REASON_HOST_ONLY, "an attachment");
	}
	igt_assert_eq(drmCloseBufferHandle(vgem, iv), 0);
	compute_bo_close(&peer, ip);
	close(fd);
	compute_bo_close(&cd, h);
}

/* @order 0: importer closes first; 1: exporter closes first. */
static void close_order(int order)
{
	struct drm_compute_p2p_report r;
	uint32_t h, imp = 0;
	size_t bad = 0;
	uint64_t used;
	int64_t pages;
	void *m;
	int fd;

	igt_assert_eq(compute_memory(&cd, &used, &pages), 0);
	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	m = compute_bo_map(&cd, h, SIZE);
	compute_fill_pattern(m, SIZE, 91 + order);
	munmap(m, SIZE);
	fd = compute_prime_fd(&cd, h);
	igt_assert_eq(import(peer.fd, fd, &imp), 0);
	close(fd);
	if (order == 0) {
		compute_bo_close(&peer, imp);
		report(&cd, h, &r, NULL, 0);
		igt_assert_eq_u32(r.count, 0);
		m = compute_bo_map(&cd, h, SIZE);
		igt_assert_f(compute_check_pattern(m, SIZE, 91, &bad), "bad at %zu\n", bad);
		munmap(m, SIZE);
		compute_bo_close(&cd, h);
	} else {
		compute_bo_close(&cd, h);
		/* The importer keeps the buffer alive and reads it through its exporter. */
		m = compute_bo_map(&peer, imp, SIZE);
		igt_assert_f(compute_check_pattern(m, SIZE, 92, &bad), "bad at %zu\n", bad);
		munmap(m, SIZE);
		compute_bo_close(&peer, imp);
	}
	/* Moved to system memory for the importer, freed with the last user. */
	compute_assert_memory(&cd, used, pages, "after both closed");
}

/*
 * The exporter's device is unplugged while another device imports its
 * buffer and, with @e, an edu keeps a mapping of it: the edu's mapping is
 * revoked (its next write fails instead of landing in the old pages), the
 * pages stay while the importers hold the buffer, and are all freed once
 * they close.
 */
static void unplug_exporter(const struct edu_node *e)
{
	struct compute_dev gone = { .fd = -1 };
	struct vcompute_edu_write w = { 0 };
	uint8_t *src = malloc(SIZE);
	int64_t pages0, pages;
	uint32_t h, imp = 0;
	size_t bad = 0;
	int fd, efd = -1;
	void *m;

	igt_assert(src);
	pages0 = compute_all_own_pages(&cd);
	igt_assert_f(pages0 >= 0, "debugfs all_own_pages: %" PRId64 "\n", pages0);
	compute_instance_up("p2pgone", 16, &gone);
	h = export_bo(&gone, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	fd = compute_prime_fd(&gone, h);
	igt_assert_eq(import(cd.fd, fd, &imp), 0);
	if (e) {
		efd = edu_import(e, fd);
		/* The edu maps the buffer and keeps the mapping. */
		edu_write_pattern(efd, src, 131, &w);
		m = compute_bo_map(&gone, h, SIZE);
		igt_assert_f(compute_check_pattern(m, SIZE, 131, &bad), "bad at %zu\n", bad);
		munmap(m, SIZE);
	}
	close(fd);
	/* The exporter's handle closes too: only the importers hold the buffer. */
	compute_bo_close(&gone, h);
	pages = compute_all_own_pages(&cd);
	igt_assert_f(pages >= pages0 + (int64_t)(SIZE / COMPUTE_PAGE),
		     "%" PRId64 " pages held by the buffer's importers, %" PRId64 " before\n",
		     pages, pages0);

	compute_instance_remove("p2pgone");
	if (e) {
		/* Revoked: a new mapping is refused, the old one is gone. */
		igt_assert_eq(ioctl(efd, VCOMPUTE_EDU_IOCTL_WRITE, &w), -1);
		igt_assert_eq(errno, ENODEV);
	}
	/* Still held, not freed under the importers. */
	igt_assert_eq(compute_all_own_pages(&cd), pages);
	if (e)
		close(efd);
	/* The exporter's file still works for closing; the import goes cleanly. */
	compute_bo_close(&cd, imp);
	compute_close(&gone);
	igt_assert_f(compute_all_own_pages(&cd) == pages0,
		     "%" PRId64 " pages left after every user closed, %" PRId64 " before\n",
		     compute_all_own_pages(&cd), pages0);
	free(src);
}

/* Children import and close while the parent reads reports. */
static void race_import_report(void)
{
	struct drm_compute_p2p_attachment att[RACE_CHILDREN + 1];
	struct drm_compute_p2p_report r;
	uint32_t h;
	int fd;

	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, DRM_COMPUTE_BO_EXPORT_HOST_ONLY);
	fd = compute_prime_fd(&cd, h);
	igt_fork(child, RACE_CHILDREN) {
		for (int i = 0; i < RACE_ROUNDS; i++) {
			uint32_t imp = 0;

			igt_assert_eq(import(peer.fd, fd, &imp), 0);
			/* Children share the peer file: a handle may already be closed. */
			onenode_bo_close(&peer.dev, imp);
		}
	}
	for (int i = 0; i < RACE_ROUNDS; i++) {
		report(&cd, h, &r, att, RACE_CHILDREN + 1);
		/*
		 * A handle closed by one child is out of PRIME's lookup before
		 * its object is freed and detached, so another child's import
		 * may attach anew meanwhile: at most one attachment per child.
		 */
		igt_assert_lte(r.count, RACE_CHILDREN);
		assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_HOST_ONLY, "racing");
	}
	igt_waitchildren();
	report(&cd, h, &r, att, RACE_CHILDREN + 1);
	igt_assert_eq_u32(r.count, 0);
	close(fd);
	compute_bo_close(&cd, h);
}

/*
 * The exporter @x is reset while the edu @e, behind the same switch, has a
 * peer-to-peer attachment of its buffer and a queue of @x waits: the queue
 * is reset (HUNG), the importer is told to map again (the report counts
 * it), the buffer stays in device memory with its data, the importer's next
 * write lands, and nothing is left allocated afterwards.
 */
static void device_reset(struct pci_node *x, const struct edu_node *e)
{
	const struct onenode_queue_params params = {
		.va = COMPUTE_QUEUE_VA(0),
		.priority = ONENODE_PRIORITY_DEFAULT,
	};
	struct drm_compute_p2p_attachment att[1];
	struct vcompute_edu_write w;
	struct drm_compute_userq_state st;
	struct drm_compute_p2p_report r;
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	uint8_t *src = malloc(SIZE);
	struct compute_buf flag;
	struct compute_queue q;
	uint64_t used;
	int64_t pages;
	size_t bad = 0;
	uint32_t h, vm;
	int fd, efd;
	void *m;

	igt_info("reset %s under edu %s\n", x->pci, e->pci);
	igt_assert(src);
	igt_assert_eq(compute_memory(&x->cd, &used, &pages), 0);
	h = export_bo(&x->cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	m = compute_bo_map(&x->cd, h, SIZE);
	fd = compute_prime_fd(&x->cd, h);
	efd = edu_import(e, fd);
	edu_write_pattern(efd, src, 161, &w);

	/* A queue that waits for nothing that comes: running at the reset. */
	vm = compute_vm(&x->cd);
	compute_buf_init(&x->cd, vm, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM,
			 COMPUTE_BUF_VA(0), DRM_COMPUTE_VM_BIND_NOEXEC, &flag);
	compute_queue_init(&x->cd, vm, &params, &q);
	compute_emit(&q, pkt, onenode_pkt_wait_mem(pkt, flag.va, VCOMPUTE_WAIT_EQ, 1,
						  ~0ull, 0, 0));
	compute_submit(&q);

	report(&x->cd, h, &r, att, 1);
	igt_assert_eq_u32(r.invalidations, 0);
	igt_assert_eq(compute_reset(&x->cd), 0);

	igt_assert(compute_poll_status(&x->cd, q.q.id, DRM_COMPUTE_USERQ_STATUS_HUNG,
				       COMPUTE_TIMEOUT_MS, &st));
	igt_assert_eq_u32(st.fault_reason, DRM_COMPUTE_FAULT_HANG);
	memset(att, 0, sizeof(att));
	report(&x->cd, h, &r, att, 1);
	igt_assert_eq_u32(r.invalidations, 1);
	igt_assert_eq_u32(r.count, 1);
	igt_assert_eq_u32(att[0].map, DRM_COMPUTE_P2P_MAP_PEER);
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	igt_assert_f(compute_check_pattern(m, SIZE, 161, &bad),
		     "data across the reset: bad at byte %zu\n", bad);
	/* The importer maps again and its DMA lands. */
	edu_write_pattern(efd, src, 162, &w);
	igt_assert_f(compute_check_pattern(m, SIZE, 162, &bad),
		     "DMA after the reset: bad at byte %zu\n", bad);

	compute_queue_fini(&q);
	compute_buf_fini(&x->cd, &flag);
	compute_vm_destroy(&x->cd, vm);
	close(efd);
	munmap(m, SIZE);
	close(fd);
	compute_bo_close(&x->cd, h);
	compute_assert_memory(&x->cd, used, pages, "after the reset and every close");
	free(src);
}

/* ---- io_uring zcrx: a NIC's zero-copy receive area ---- */

/*
 * @x exports a REQUIRE_P2P buffer; the NIC @n's queue 0 takes it as an
 * io_uring zcrx area. The attach is peer-to-peer behind one switch and
 * refused (-EBUSY, "no PCI path") across root ports.
 */
static void zcrx_pair(struct pci_node *x, const struct nic_node *n)
{
	struct io_uring_params params = {
		.flags = IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_CQE32,
	};
	const bool p2p = same_switch_path(x->up2, n->up2);
	struct io_uring_zcrx_area_reg area = { 0 };
	struct io_uring_zcrx_ifq_reg reg = { 0 };
	struct io_uring_region_desc rd = { 0 };
	struct drm_compute_p2p_report r;
	int ring, fd, ret;
	uint32_t h;

	igt_info("%s -> %s (%s): %s\n", x->pci, n->ifname, n->pci,
		 p2p ? "one switch" : "separate root ports");
	ring = syscall(__NR_io_uring_setup, 8, &params);
	igt_assert_f(ring >= 0, "io_uring_setup: %s\n", strerror(errno));
	h = export_bo(&x->cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P);
	fd = compute_prime_fd(&x->cd, h);
	area.len = SIZE;
	area.flags = IORING_ZCRX_AREA_DMABUF;
	area.dmabuf_fd = fd;
	rd.size = 4096;
	reg.if_idx = n->ifindex;
	reg.if_rxq = 0;
	reg.rq_entries = 64;
	reg.area_ptr = (uintptr_t)&area;
	reg.region_ptr = (uintptr_t)&rd;
	ret = syscall(__NR_io_uring_register, ring, IORING_REGISTER_ZCRX_IFQ, &reg, 1) ?
	      -errno : 0;
	report(&x->cd, h, &r, NULL, 0);
	igt_info("  registration: %s; refused %u (%s)\n", ret ? strerror(-ret) : "done",
		 r.refused, onenode_p2p_reason_name(r.refused_reason));
	if (p2p) {
		/* The attach went through; e1000e's missing queue API ends it later. */
		igt_assert_neq(ret, -EBUSY);
		igt_assert_eq_u32(r.refused, 0);
	} else {
		igt_assert_eq(ret, -EBUSY);
		igt_assert_eq_u32(r.refused, 1);
		assert_reason(r.refused_reason, DRM_COMPUTE_P2P_REASON_NO_PCI_PATH, "the refusal");
	}
	/* Either way the area is gone, and with it the attachment and its pin. */
	igt_assert_eq_u32(r.count, 0);
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	close(ring);
	close(fd);
	compute_bo_close(&x->cd, h);
}

/* ---- RDMA: rxe's dma-buf memory regions ---- */

static void rdma_require(void)
{
	igt_require_f(rdma, "an RDMA device with a RoCE v2 IPv4 GID (Soft-RoCE): %s\n",
		      strerror(-rdma_err));
}

/*
 * UVERBS_METHOD_ADVISE_MR straight to the kernel: rdma-core's rxe provider
 * has no advise_mr, so ibv_advise_mr() would answer EOPNOTSUPP itself.
 * Returns 0 or -errno.
 */
static int rdma_advise_raw(struct ibv_mr *mr, uint32_t advice, uint32_t flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr, .length = COMPUTE_PAGE, .lkey = mr->lkey,
	};
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[4];
	} cmd = {
		.hdr = {
			.length = sizeof(cmd),
			.object_id = UVERBS_OBJECT_MR,
			.method_id = UVERBS_METHOD_ADVISE_MR,
			.num_attrs = 4,
			.driver_id = RDMA_DRIVER_RXE,
		},
		.attrs = {
			/* An object attribute carries the handle, no length. */
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_PD_HANDLE,
			  .data = mr->pd->handle },
			/* A constant is 64 bits, flags 32 or 64. */
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_ADVICE,
			  .len = sizeof(uint64_t), .data = advice },
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_FLAGS,
			  .len = sizeof(uint32_t), .data = flags },
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_SGE_LIST,
			  .len = sizeof(sge), .data = (uintptr_t)&sge },
		},
	};

	return ioctl(mr->context->cmd_fd, RDMA_VERBS_IOCTL, &cmd) ? -errno : 0;
}

/* A host memory region of @size bytes filled with @seed's pattern. */
static struct ibv_mr *rdma_host_mr(size_t size, uint32_t seed, void **mem)
{
	struct ibv_mr *mr;

	*mem = aligned_alloc(COMPUTE_PAGE, size);
	igt_assert(*mem);
	compute_fill_pattern(*mem, size, seed);
	mr = ibv_reg_mr(onenode_rdma_pd(rdma), *mem, size,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	igt_assert_f(mr, "ibv_reg_mr: %s\n", strerror(errno));
	return mr;
}

/*
 * rxe registers a PREFER_P2P buffer of @dev in device memory as a dma-buf
 * memory region and RDMA-writes a pattern into it: the buffer stays where
 * it is, pinned by the kernel mapping, the CPU and a queue read the bytes,
 * a static importer that would move it is refused (PINNED), and once the
 * region is gone the buffer can move and nothing is left allocated.
 */
static void rdma_mr(struct compute_dev *dev)
{
	struct drm_compute_p2p_report r;
	struct ibv_mr *src_mr, *mr;
	uint32_t vm, h, imp = 0;
	struct compute_buf out;
	uint64_t used;
	int64_t pages;
	size_t bad = 0;
	void *src, *m;
	int fd;

	igt_assert_eq(compute_memory(dev, &used, &pages), 0);
	h = export_bo(dev, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	m = compute_bo_map(dev, h, SIZE);
	fd = compute_prime_fd(dev, h);
	igt_assert_eq(onenode_rdma_reg_dmabuf(rdma, fd, 0, SIZE, &mr), 0);
	report(dev, h, &r, NULL, 0);
	igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_NONE, "with a memory region");
	igt_assert_eq_u32(r.kernel_maps, 1);
	igt_assert_eq_u32(r.count, 0);

	/* The peer queue pair writes; the bytes are in the GPU's buffer. */
	src_mr = rdma_host_mr(SIZE, 141, &src);
	igt_assert_f(!onenode_rdma_write(rdma, src_mr, 0, mr, 0, SIZE, 4096),
		     "RDMA WRITE: %s\n", onenode_rdma_last_status(rdma));
	igt_assert_f(compute_check_pattern(m, SIZE, 141, &bad),
		     "CPU read after RDMA WRITE: bad at byte %zu\n", bad);
	vm = compute_vm(dev);
	compute_map(dev, vm, h, 0, COMPUTE_BUF_VA(0), SIZE, 0);
	compute_buf_init(dev, vm, SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, COMPUTE_BUF_VA(1), 0, &out);
	gpu_copy(dev, vm, out.va, COMPUTE_BUF_VA(0), SIZE);
	igt_assert_f(compute_check_pattern(out.cpu, SIZE, 141, &bad),
		     "GPU read after RDMA WRITE: bad at byte %zu\n", bad);
	/* A write at an offset, in odd-sized pieces, lands where it should. */
	compute_fill_pattern(src, SIZE, 142);
	igt_assert_eq(onenode_rdma_write(rdma, src_mr, 0, mr, 3 * COMPUTE_PAGE + 5,
					 5 * COMPUTE_PAGE, 1000), 0);
	igt_assert_eq(memcmp((char *)m + 3 * COMPUTE_PAGE + 5, src, 5 * COMPUTE_PAGE), 0);

	/* Pinned where it lies: a static importer cannot move it. */
	if (vgem >= 0) {
		igt_assert_eq(import(vgem, fd, &imp), -EBUSY);
		report(dev, h, &r, NULL, 0);
		igt_assert_eq_u32(r.refused, 1);
		assert_reason(r.refused_reason, DRM_COMPUTE_P2P_REASON_PINNED, "the refusal");
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	}

	igt_assert_eq(ibv_dereg_mr(mr), 0);
	report(dev, h, &r, NULL, 0);
	igt_assert_eq_u32(r.kernel_maps, 0);
	if (vgem >= 0) {
		/* Unpinned: now the importer moves it, data and mappings along. */
		igt_assert_eq(import(vgem, fd, &imp), 0);
		report(dev, h, &r, NULL, 0);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_SYSTEM);
		assert_reason(r.reason, DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P, "the move");
		igt_assert_eq(memcmp((char *)m + 3 * COMPUTE_PAGE + 5, src, 5 * COMPUTE_PAGE), 0);
		igt_assert_eq(drmCloseBufferHandle(vgem, imp), 0);
	}
	igt_assert_eq(ibv_dereg_mr(src_mr), 0);
	free(src);
	munmap(m, SIZE);
	compute_unmap(dev, vm, COMPUTE_BUF_VA(0), SIZE);
	compute_buf_fini(dev, &out);
	compute_vm_destroy(dev, vm);
	close(fd);
	compute_bo_close(dev, h);
	compute_assert_memory(dev, used, pages, "every reference dropped");
}

/* Bad registrations fail with the errno verbs gives and register nothing. */
static void rdma_invalid(void)
{
	struct ibv_pd *pd = onenode_rdma_pd(rdma);
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct drm_compute_p2p_report r;
	uint32_t h;
	int fd, null;

#define REG_FAILS(call, err) do {					\
		struct ibv_mr *bad_mr_ = (call);			\
		igt_assert_f(!bad_mr_, #call " registered\n");		\
		igt_assert_f(errno == (err), #call ": errno %d (%s), expected %d\n", \
			     errno, strerror(errno), (err));		\
	} while (0)
	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P);
	fd = compute_prime_fd(&cd, h);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	igt_assert_fd(null);
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 0, SIZE, 0, -1, rw), EBADF);
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 0, SIZE, 0, null, rw), EINVAL);	/* not a dma-buf */
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 0, SIZE + COMPUTE_PAGE, 0, fd, rw), EINVAL);
	REG_FAILS(ibv_reg_dmabuf_mr(pd, SIZE, COMPUTE_PAGE, SIZE, fd, rw), EINVAL);
	REG_FAILS(ibv_reg_dmabuf_mr(pd, COMPUTE_PAGE, UINT64_MAX - 100, COMPUTE_PAGE, fd, rw), EINVAL);
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 1, COMPUTE_PAGE, 2, fd, rw), EINVAL);	/* page offsets differ */
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 0, SIZE, UINT64_MAX - 100, fd, rw), EINVAL);	/* iova wraps */
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 0, SIZE, 0, fd, rw | IBV_ACCESS_ON_DEMAND), EINVAL);
	/* Nothing persistent behind another driver's buffer to flush to. */
	REG_FAILS(ibv_reg_dmabuf_mr(pd, 0, SIZE, 0, fd, rw | IBV_ACCESS_FLUSH_GLOBAL), EINVAL);
#undef REG_FAILS
	report(&cd, h, &r, NULL, 0);
	igt_assert_eq_u32(r.kernel_maps, 0);
	/* REQUIRE_P2P takes it: the CPU reaches device memory, no bounce. */
	{
		struct ibv_mr *mr;

		igt_assert_eq(onenode_rdma_reg_dmabuf(rdma, fd, COMPUTE_PAGE, 2 * COMPUTE_PAGE, &mr), 0);
		report(&cd, h, &r, NULL, 0);
		igt_assert_eq_u32(r.kernel_maps, 1);
		igt_assert_eq_u32(r.refused, 0);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
		/* No pages to prefetch: refused, synchronously or not. */
		igt_assert_eq(rdma_advise_raw(mr, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					      IB_UVERBS_ADVISE_MR_FLAG_FLUSH), -EOPNOTSUPP);
		igt_assert_eq(rdma_advise_raw(mr, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH, 0),
			      -EOPNOTSUPP);
		igt_assert_eq(ibv_dereg_mr(mr), 0);
	}
	close(null);
	close(fd);
	compute_bo_close(&cd, h);
}

/*
 * The exporter lets go first: its handle, its dma-buf fd and its whole file
 * close while the memory region lives. The region keeps the buffer; a write
 * still lands; deregistering frees the device memory.
 */
static void rdma_exporter_first(void)
{
	struct compute_dev own = { .fd = -1 };
	struct ibv_mr *src_mr, *mr;
	uint64_t used;
	int64_t pages;
	void *src;
	uint32_t h;
	int fd;

	igt_assert_eq(compute_memory(&cd, &used, &pages), 0);
	compute_open_file(&cd, &own);
	h = export_bo(&own, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	fd = compute_prime_fd(&own, h);
	igt_assert_eq(onenode_rdma_reg_dmabuf(rdma, fd, 0, SIZE, &mr), 0);
	close(fd);
	compute_bo_close(&own, h);
	compute_close(&own);
	src_mr = rdma_host_mr(SIZE, 151, &src);
	igt_assert_eq(onenode_rdma_write(rdma, src_mr, 0, mr, 0, SIZE, 4096), 0);
	igt_assert_eq(ibv_dereg_mr(mr), 0);
	igt_assert_eq(ibv_dereg_mr(src_mr), 0);
	free(src);
	compute_assert_memory(&cd, used, pages, "after the last region went");
}

/*
 * Children register and deregister regions of one dma-buf, each with its
 * own RDMA loop, while the exporter reads reports: the count of kernel
 * mappings stays within what the children can hold, and ends at zero.
 */
static void rdma_race(void)
{
	struct drm_compute_p2p_report r;
	uint32_t h;
	int fd;

	h = export_bo(&cd, SIZE, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	fd = compute_prime_fd(&cd, h);
	igt_fork(child, RACE_CHILDREN) {
		struct onenode_rdma *own;

		/* A verbs context does not survive fork(): each child opens its own. */
		igt_assert_eq(onenode_rdma_open(onenode_rdma_name(rdma), &own), 0);
		for (int i = 0; i < RACE_ROUNDS / 4; i++) {
			struct ibv_mr *mr;

			igt_assert_eq(onenode_rdma_reg_dmabuf(own, fd, COMPUTE_PAGE * child,
							      COMPUTE_PAGE, &mr), 0);
			igt_assert_eq(ibv_dereg_mr(mr), 0);
		}
		onenode_rdma_close(own);
	}
	for (int i = 0; i < RACE_ROUNDS; i++) {
		report(&cd, h, &r, NULL, 0);
		igt_assert_lte(r.kernel_maps, RACE_CHILDREN);
		igt_assert_eq_u64(r.placement, DRM_COMPUTE_PLACEMENT_VRAM);
	}
	igt_waitchildren();
	report(&cd, h, &r, NULL, 0);
	igt_assert_eq_u32(r.kernel_maps, 0);
	close(fd);
	compute_bo_close(&cd, h);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		igt_require_f(cd.info.features & DRM_COMPUTE_FEATURE_P2P_EXPORT,
			      "the device reports P2P_EXPORT\n");
		compute_instance_up("p2ppeer", 16, &peer);
		vgem = compute_open_vgem();
		find_pci_nodes();
		find_edus();
		find_nics();
		rdma_err = onenode_rdma_open(NULL, &rdma);
	}

	igt_describe("Each export flag creates a buffer in the placement it takes; "
		     "the report gives the flag, the placement and why, with no "
		     "importer yet.");
	igt_subtest_with_dynamic("create-flags") {
		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(flags); i++) {
			igt_dynamic(flags[i].name) {
				struct drm_compute_p2p_report r;
				uint32_t h = export_bo(&cd, SIZE, flags[i].placement, flags[i].flag);

				report(&cd, h, &r, NULL, 0);
				igt_assert_eq_u32(r.export_flags, flags[i].flag);
				igt_assert_eq_u64(r.placement, flags[i].placement);
				assert_reason(r.reason,
					      flags[i].flag == DRM_COMPUTE_BO_EXPORT_HOST_ONLY ?
					      DRM_COMPUTE_P2P_REASON_HOST_ONLY :
					      DRM_COMPUTE_P2P_REASON_NONE, flags[i].name);
				igt_assert_eq_u32(r.count, 0);
				igt_assert_eq_u32(r.moves, 0);
				igt_assert_eq_u32(r.refused, 0);
				compute_bo_close(&cd, h);
			}
		}
	}

	igt_describe("Unknown export flags, two flags, a flag with a placement it "
		     "does not take, a bad size and a non-zero handle fail with "
		     "-EINVAL and leave the argument as it was.");
	igt_subtest("create-invalid")
		create_invalid();

	igt_describe("The report refuses buffers made without an export flag, "
		     "unknown handles, non-zero flags, out and reserved fields, a "
		     "count without a pointer, and an unwritable array (-EFAULT), "
		     "leaving the argument as it was.");
	igt_subtest("report-invalid")
		report_invalid();

	igt_describe("A PREFER_P2P buffer in device memory that a static importer "
		     "(vgem) imports moves to system memory: the report names vgem "
		     "and 'importer not P2P-capable'; CPU and GPU mappings made "
		     "before the move see the same data afterwards.");
	igt_subtest("prefer-static-importer-moves") {
		igt_require_f(vgem >= 0, "vgem is loaded\n");
		prefer_moves(vgem, DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P, "vgem", 0);
	}

	igt_describe("A dynamic importer that allows peer-to-peer (a second "
		     "vcompute) still cannot reach device memory on the faux bus: "
		     "the buffer moves and the report says the exporter has no "
		     "P2P memory.");
	igt_subtest("prefer-dynamic-importer-moves") {
		char name[64];

		instance_dev_name("p2ppeer", name, sizeof(name));
		prefer_moves(peer.fd, DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY, name,
			     DRM_COMPUTE_P2P_ATTACH_DYNAMIC);
	}

	igt_describe("A REQUIRE_P2P buffer refuses importers that cannot reach "
		     "device memory with -EBUSY, counts each refusal with its "
		     "reason, and stays in device memory with its data.");
	igt_subtest("require-p2p-refuses") {
		igt_require_f(vgem >= 0, "vgem is loaded\n");
		require_refuses();
	}

	igt_describe("A HOST_ONLY buffer lists every importer, oldest first, with "
		     "its device, its flags (static or dynamic) and the reason; "
		     "a short array gets the first entries and the full count.");
	igt_subtest("host-only-importers") {
		igt_require_f(vgem >= 0, "vgem is loaded\n");
		host_only_importers();
	}

	igt_describe("The importer closes first (the report forgets it, the "
		     "exporter's data is intact), or the exporter closes first "
		     "(the import keeps the buffer and reads it); either way no "
		     "device memory or system page is left once both closed.");
	igt_subtest_with_dynamic("close-order") {
		igt_dynamic("importer-first")
			close_order(0);
		igt_dynamic("exporter-first")
			close_order(1);
	}

	igt_describe("The exporting device is unplugged while another device "
		     "imports its buffer (and an edu keeps a mapping of it): the "
		     "import is revoked (the edu's next write fails with -ENODEV), "
		     "the pages stay while importers hold the buffer, and every "
		     "page is freed once they close.");
	igt_subtest_with_dynamic("unplug-exporter") {
		igt_dynamic("gem-importer")
			unplug_exporter(NULL);
		if (nedu)
			igt_dynamic("edu-importer")
				unplug_exporter(&edus[0]);
	}

	igt_describe("vcompute functions on q35: for every ordered pair a "
		     "PREFER_P2P buffer of one imported by the other stays in "
		     "device memory, mapped peer-to-peer, exactly when the two "
		     "share a PCIe switch; across root ports it moves to system "
		     "memory with 'no PCI path'. The kernel's topology code "
		     "decides.");
	igt_subtest("pci-topology-prefer")
		pci_pairs(DRM_COMPUTE_BO_EXPORT_PREFER_P2P);

	igt_describe("The same pairs with REQUIRE_P2P: across root ports the "
		     "import fails with -EBUSY and the refusal says 'no PCI "
		     "path'; behind one switch it maps peer-to-peer.");
	igt_subtest("pci-topology-require")
		pci_pairs(DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P);

	igt_describe("An edu function, a DMA-doing importer, writes into a "
		     "PREFER_P2P buffer of every PCI instance: peer-to-peer into "
		     "the BAR behind one switch, into system memory (after the "
		     "move, 'no PCI path') across root ports; the exporter reads "
		     "every byte back, and bad writes fail with -EINVAL.");
	igt_subtest("edu-dma") {
		igt_require_f(npci && nedu, "vcompute PCI instances and edu importers\n");
		for (int i = 0; i < npci; i++)
			for (int j = 0; j < nedu; j++)
				edu_pair(&pcis[i], &edus[j]);
	}

	igt_describe("Each PCI instance reports its BAR as device memory "
		     "reachable by peers, and its queues run on buffers in it.");
	igt_subtest("pci-bar-memory") {
		igt_require_f(npci, "a vcompute PCI instance\n");
		for (int i = 0; i < npci; i++) {
			igt_assert_eq_u64(pcis[i].cd.info.vram_bar_size, pcis[i].cd.info.vram_size);
			igt_assert_lt_u64(0, pcis[i].cd.info.vram_bar_size);
			pci_queue(&pcis[i]);
		}
	}

	igt_describe("Processes import and close one dma-buf while the exporter "
		     "reads reports: every report is consistent and the last one "
		     "has no importer.");
	igt_subtest("race-import-report")
		race_import_report();

	igt_describe("A PCI instance is reset (as a GPU reset would: debugfs "
		     "vcompute_reset) while an edu behind the same switch has a "
		     "peer-to-peer attachment of its buffer and one of its queues "
		     "waits: the queue becomes HUNG, the importer is told to map "
		     "again (the report counts it), the buffer keeps its place and "
		     "data, the next DMA lands, and nothing stays allocated.");
	igt_subtest("device-reset") {
		struct pci_node *x = NULL;
		const struct edu_node *e = NULL;

		for (int i = 0; i < npci && !e; i++)
			for (int j = 0; j < nedu && !e; j++)
				if (same_switch_path(pcis[i].up2, edus[j].up2)) {
					x = &pcis[i];
					e = &edus[j];
				}
		igt_require_f(e, "a PCI instance and an edu behind one switch\n");
		device_reset(x, e);
	}

	igt_describe("A PCI NIC (e1000e) takes a REQUIRE_P2P buffer of every "
		     "PCI instance as an io_uring zcrx area: zcrx attaches as a "
		     "pinned importer that takes peer memory (kernel patch "
		     "0005), so behind one switch the attach is peer-to-peer, "
		     "and across root ports it is refused with 'no PCI path'; "
		     "nothing stays attached after the registration ends.");
	igt_subtest("zcrx-attach") {
		igt_require_f(npci && nnic, "vcompute PCI instances and e1000e NICs\n");
		for (int i = 0; i < npci; i++)
			for (int j = 0; j < nnic; j++)
				zcrx_pair(&pcis[i], &nics[j]);
	}

	igt_describe("Soft-RoCE registers a PREFER_P2P buffer in device memory "
		     "as a dma-buf memory region (ibv_reg_dmabuf_mr) on the faux "
		     "device and on every PCI instance (BAR memory, I/O to the "
		     "CPU); RDMA WRITEs land in it, whole and at odd offsets; the "
		     "report shows one kernel mapping and the buffer in device "
		     "memory; a static importer is refused (PINNED) until the "
		     "region goes, then moves it; nothing stays allocated.");
	igt_subtest_with_dynamic("rdma-dmabuf-mr") {
		rdma_require();
		igt_dynamic("faux")
			rdma_mr(&cd);
		for (int i = 0; i < npci; i++) {
			char name[40];

			/* A dynamic subtest name has no ':' or '.'. */
			snprintf(name, sizeof(name), "pci-%s", pcis[i].pci);
			for (char *c = name; *c; c++)
				if (*c == ':' || *c == '.')
					*c = '-';
			igt_dynamic(name)
				rdma_mr(&pcis[i].cd);
		}
	}

	igt_describe("Registrations of a bad fd, a file that is no dma-buf, a "
		     "range past the buffer or wrapping, offset and iova in "
		     "different page positions, on-demand paging and FLUSH "
		     "access fail and leave no kernel mapping; a REQUIRE_P2P "
		     "buffer is taken in device memory, refusing nothing, and "
		     "a prefetch advice on the region is refused.");
	igt_subtest("rdma-dmabuf-invalid") {
		rdma_require();
		rdma_invalid();
	}

	igt_describe("The exporter's handle, dma-buf fd and file close while "
		     "the memory region lives: a write still lands, and "
		     "deregistering frees the device memory.");
	igt_subtest("rdma-exporter-first") {
		rdma_require();
		rdma_exporter_first();
	}

	igt_describe("Processes register and deregister regions of one dma-buf "
		     "while the exporter reads reports: the kernel mappings "
		     "counted stay within bounds and end at zero.");
	igt_subtest("rdma-race") {
		rdma_require();
		rdma_race();
	}

	igt_fixture {
		onenode_rdma_close(rdma);
		for (int i = 0; i < npci; i++)
			compute_close(&pcis[i].cd);
		if (vgem >= 0)
			close(vgem);
		compute_close(&peer);
		compute_instance_remove("p2ppeer");
		compute_close(&cd);
	}
}
