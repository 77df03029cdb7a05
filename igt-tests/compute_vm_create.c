// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_VM_CREATE (struct drm_compute_vm_create): ids,
 * the per-file limit (vcompute: 16) and its -ENOSPC, ids per file,
 * rejection of bad input, closing a file with VMs, and concurrent creation.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_VM_CREATE: ids, the per-file "
		     "limit and -ENOSPC, ids per file, rejection of bad fields, "
		     "closing a file that has VMs with mappings, and concurrent "
		     "creation.");

/* vcompute's VMs per file (vcompute_drv.c); the uapi does not report it. */
#define VCOMPUTE_MAX_VMS 16
#define RACE_CHILDREN 4
#define RACE_SECONDS 2

static struct compute_dev cd = { .fd = -1 };

static int vm_create(const struct compute_dev *dev, uint32_t *vm)
{
	struct drm_compute_vm_create args = { 0 };
	int ret = compute_ioctl(dev, DRM_COMPUTE_OP_VM_CREATE, &args);

	if (ret == 0) {
		igt_assert_eq_u32(args.flags, 0);
		igt_assert_neq_u32(args.vm_id, 0);
		*vm = args.vm_id;
	}
	return ret;
}

/* Create VMs until -ENOSPC; returns how many were created. */
static unsigned int fill_vms(const struct compute_dev *dev, uint32_t *vms, unsigned int max)
{
	unsigned int n = 0;
	uint32_t vm;
	int ret;

	while ((ret = vm_create(dev, &vm)) == 0) {
		igt_assert_lt_u32(n, max);
		vms[n++] = vm;
	}
	igt_assert_eq(ret, -ENOSPC);
	return n;
}

static void destroy_all(const struct compute_dev *dev, const uint32_t *vms, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		compute_vm_destroy(dev, vms[i]);
}

/* The file must be able to create exactly its limit of VMs now. */
static void check_all_free(const struct compute_dev *dev)
{
	uint32_t vms[VCOMPUTE_MAX_VMS + 1];
	unsigned int n = fill_vms(dev, vms, COMPUTE_ARRAY_SIZE(vms));

	igt_assert_eq_u32(n, VCOMPUTE_MAX_VMS);
	destroy_all(dev, vms, n);
}

struct race_shared {
	unsigned int created[RACE_CHILDREN];
	int done[RACE_CHILDREN];
	int release;
	unsigned long rounds[RACE_CHILDREN];
};

static struct race_shared *shared;

static void race_limit(int child)
{
	uint32_t vms[VCOMPUTE_MAX_VMS + 1];
	uint64_t end;
	unsigned int n = fill_vms(&cd, vms, COMPUTE_ARRAY_SIZE(vms));

	__atomic_store_n(&shared->created[child], n, __ATOMIC_RELEASE);
	__atomic_store_n(&shared->done[child], 1, __ATOMIC_RELEASE);
	end = compute_now_ns() + COMPUTE_TIMEOUT_MS * 1000000ull;
	while (!__atomic_load_n(&shared->release, __ATOMIC_ACQUIRE))
		igt_assert(compute_now_ns() < end);
	destroy_all(&cd, vms, n);
}

static void race_churn(int child)
{
	uint64_t end = compute_now_ns() + RACE_SECONDS * 1000000000ull;
	unsigned long rounds = 0;

	while (compute_now_ns() < end) {
		uint32_t vm;
		int ret = vm_create(&cd, &vm);

		if (ret) {
			igt_assert_eq(ret, -ENOSPC);
			continue;
		}
		if (child & 1) {
			uint32_t h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

			compute_map(&cd, vm, h, 0, COMPUTE_BUF_VA(child), COMPUTE_PAGE, 0);
			compute_bo_close(&cd, h);
		}
		compute_vm_destroy(&cd, vm);
		rounds++;
	}
	shared->rounds[child] = rounds;
	igt_assert_lt(0, (int)rounds);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		igt_assert(shared != MAP_FAILED);
	}

	igt_describe("VM_CREATE returns distinct non-zero ids with flags left "
		     "zero; each VM takes mappings and is destroyed by its id.");
	igt_subtest("basic") {
		uint32_t vms[4];

		for (unsigned int i = 0; i < 4; i++) {
			igt_assert_eq(vm_create(&cd, &vms[i]), 0);
			for (unsigned int j = 0; j < i; j++)
				igt_assert_neq_u32(vms[i], vms[j]);
		}
		for (unsigned int i = 0; i < 4; i++) {
			uint32_t h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

			compute_map(&cd, vms[i], h, 0, COMPUTE_BUF_VA(0), COMPUTE_PAGE, 0);
			compute_bo_close(&cd, h);
		}
		destroy_all(&cd, vms, 4);
	}

	igt_describe("A file has at most vcompute's 16 VMs: the next VM_CREATE "
		     "fails with -ENOSPC and an unchanged argument; another file "
		     "still gets its own 16; destroying one VM makes room for "
		     "exactly one.");
	igt_subtest("max-vms") {
		static struct compute_dev other = { .fd = -1 };
		uint32_t vms[VCOMPUTE_MAX_VMS + 1], theirs[VCOMPUTE_MAX_VMS + 1];
		struct drm_compute_vm_create args = { 0 };
		unsigned int n;

		n = fill_vms(&cd, vms, COMPUTE_ARRAY_SIZE(vms));
		igt_assert_eq_u32(n, VCOMPUTE_MAX_VMS);
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_VM_CREATE, &args, sizeof(args),
					-ENOSPC);
		compute_open_file(&cd, &other);
		igt_assert_eq_u32(fill_vms(&other, theirs, COMPUTE_ARRAY_SIZE(theirs)),
				  VCOMPUTE_MAX_VMS);
		compute_close(&other);

		compute_vm_destroy(&cd, vms[5]);
		igt_assert_eq(vm_create(&cd, &vms[5]), 0);
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_VM_CREATE, &args, sizeof(args),
					-ENOSPC);
		destroy_all(&cd, vms, n);
		check_all_free(&cd);
	}

	igt_describe("VM ids are per file: two files use the same id for "
		     "different VMs, and an id only another file has is unknown "
		     "here (VM_DESTROY, VM_BIND -ENOENT) without harming that "
		     "file's VM.");
	igt_subtest("ids-per-file") {
		static struct compute_dev a = { .fd = -1 }, b = { .fd = -1 };
		uint32_t va[1], vb[4], h;

		compute_open_file(&cd, &a);
		compute_open_file(&cd, &b);
		igt_assert_eq(vm_create(&a, &va[0]), 0);
		for (unsigned int i = 0; i < 4; i++)
			igt_assert_eq(vm_create(&b, &vb[i]), 0);
		h = compute_bo(&a, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		for (unsigned int i = 0; i < 4; i++) {
			if (vb[i] == va[0])
				continue;
			igt_assert_eq(onenode_vm_destroy(&a.dev, vb[i]), -ENOENT);
			igt_assert_eq(onenode_vm_map(&a.dev, vb[i], h, 0, COMPUTE_BUF_VA(0),
						     COMPUTE_PAGE, 0), -ENOENT);
		}
		/* b's VMs are all still there. */
		for (unsigned int i = 0; i < 4; i++) {
			uint32_t hb = compute_bo(&b, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);

			compute_map(&b, vb[i], hb, 0, COMPUTE_BUF_VA(0), COMPUTE_PAGE, 0);
			compute_bo_close(&b, hb);
		}
		destroy_all(&b, vb, 4);
		compute_bo_close(&a, h);
		compute_close(&a);
		compute_close(&b);
	}

	igt_describe("Every bit of flags but DRM_COMPUTE_VM_CREATE_SVM is rejected "
		     "with -EINVAL, alone or with SVM; SVM itself with -EOPNOTSUPP "
		     "on a device without DRM_COMPUTE_FEATURE_SVM; the argument "
		     "unchanged, and nothing is created.");
	igt_subtest("invalid-flags") {
		const bool svm = cd.info.features & DRM_COMPUTE_FEATURE_SVM;

		for (unsigned int bit = 0; bit < 32; bit++) {
			struct drm_compute_vm_create args = { .flags = 1u << bit };

			if (args.flags == DRM_COMPUTE_VM_CREATE_SVM) {
				if (!svm)
					compute_expect_rejected(&cd, DRM_COMPUTE_OP_VM_CREATE,
								&args, sizeof(args),
								-EOPNOTSUPP);
				continue;
			}
			compute_expect_rejected(&cd, DRM_COMPUTE_OP_VM_CREATE, &args,
						sizeof(args), -EINVAL);
			args.flags |= DRM_COMPUTE_VM_CREATE_SVM;
			compute_expect_rejected(&cd, DRM_COMPUTE_OP_VM_CREATE, &args,
						sizeof(args), -EINVAL);
		}
		check_all_free(&cd);
	}

	igt_describe("A non-zero vm_id (an out field) on input is rejected with "
		     "-EINVAL, the argument unchanged, also with an existing id.");
	igt_subtest("invalid-vm-id") {
		uint32_t existing = compute_vm(&cd);
		const uint32_t values[] = { 1, existing, existing + 1, 0x80000000, 0xffffffff };

		for (unsigned int i = 0; i < COMPUTE_ARRAY_SIZE(values); i++) {
			struct drm_compute_vm_create args = { .vm_id = values[i] };

			compute_expect_rejected(&cd, DRM_COMPUTE_OP_VM_CREATE, &args,
						sizeof(args), -EINVAL);
		}
		compute_vm_destroy(&cd, existing);
		check_all_free(&cd);
	}

	igt_describe("Closing a file with its 16 VMs, each mapping one shared "
		     "buffer, releases them; the buffer, exported to another file "
		     "first, keeps its contents.");
	igt_subtest("close-with-vms") {
		static struct compute_dev e = { .fd = -1 };
		uint32_t vms[VCOMPUTE_MAX_VMS + 1], h, imported;
		int fd;
		void *m;
		size_t bad;

		compute_open_file(&cd, &e);
		h = compute_bo(&e, 4 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
		m = compute_bo_map(&e, h, 4 * COMPUTE_PAGE);
		compute_fill_pattern(m, 4 * COMPUTE_PAGE, 99);
		munmap(m, 4 * COMPUTE_PAGE);
		igt_assert_eq(fill_vms(&e, vms, COMPUTE_ARRAY_SIZE(vms)), VCOMPUTE_MAX_VMS);
		for (unsigned int i = 0; i < VCOMPUTE_MAX_VMS; i++)
			for (unsigned int j = 0; j < 4; j++)
				compute_map(&e, vms[i], h, j * COMPUTE_PAGE,
					    COMPUTE_BUF_VA(j) + i * COMPUTE_PAGE, COMPUTE_PAGE,
					    j & 1 ? DRM_COMPUTE_VM_BIND_READONLY : 0);
		igt_assert_eq(drmPrimeHandleToFD(e.fd, h, DRM_CLOEXEC, &fd), 0);
		compute_close(&e);
		igt_assert_eq(drmPrimeFDToHandle(cd.fd, fd, &imported), 0);
		close(fd);
		m = compute_bo_map(&cd, imported, 4 * COMPUTE_PAGE);
		igt_assert(compute_check_pattern(m, 4 * COMPUTE_PAGE, 99, &bad));
		munmap(m, 4 * COMPUTE_PAGE);
		compute_bo_close(&cd, imported);
	}

	igt_describe("Processes sharing one file create VMs all at once until "
		     "-ENOSPC: together they get exactly the limit of 16.");
	igt_subtest("race-create-limit") {
		unsigned int total = 0;
		bool all;

		memset(shared, 0, sizeof(*shared));
		igt_fork(child, RACE_CHILDREN)
			race_limit(child);
		all = compute_wait_flags(shared->done, RACE_CHILDREN);
		for (unsigned int i = 0; i < RACE_CHILDREN; i++)
			total += shared->created[i];
		__atomic_store_n(&shared->release, 1, __ATOMIC_RELEASE);
		igt_waitchildren();
		igt_assert(all);
		igt_assert_eq_u32(total, VCOMPUTE_MAX_VMS);
		check_all_free(&cd);
	}

	igt_describe("Processes sharing one file create, map into and destroy "
		     "VMs in a loop for 2 s: every creation succeeds or fails "
		     "with -ENOSPC, and afterwards all 16 VMs are free again.");
	igt_subtest("race-create-destroy") {
		memset(shared, 0, sizeof(*shared));
		igt_fork(child, RACE_CHILDREN)
			race_churn(child);
		igt_waitchildren();
		for (unsigned int i = 0; i < RACE_CHILDREN; i++)
			igt_info("child %u: %lu VMs\n", i, shared->rounds[i]);
		check_all_free(&cd);
	}

	igt_fixture {
		compute_close(&cd);
	}
}
