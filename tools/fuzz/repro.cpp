// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-fuzz-repro: minimal reproducers of what onenode-fuzz found, one
 * per subcommand, each a handful of calls through libonenode. Exit 0 when
 * the kernel behaves as the uapi says, 1 when the problem reproduces
 * (check the kernel log as well: several leave a WARNING there), 77
 * without a vcompute render node.
 *
 *   onenode-fuzz-repro unmap-twice   UNMAP over two mappings of one buffer,
 *                                    then VM_DESTROY of a VM that has them
 *   onenode-fuzz-repro huge-system   BO_CREATE of 2^47 bytes of system memory
 *   onenode-fuzz-repro vram-big      BO_CREATE of more VRAM than the device has
 *   onenode-fuzz-repro destroy-zero  USERQ_DESTROY of queue id 0, then USERQ_CREATE
 */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "onenode.h"

namespace {

constexpr uint64_t P = 4096;

int fail(const char *what, int ret)
{
	printf("REPRODUCED: %s: %s\n", what, onenode_strerror(ret));
	return 1;
}

/*
 * A buffer mapped twice in one VM: UNMAP of a range holding both mappings
 * fails with -EALREADY (drm_exec locks the buffer once per mapping without
 * DRM_EXEC_IGNORE_DUPLICATES), and destroying the VM hits the
 * drm_WARN_ON() in drm_compute_gpuvm_unmap_all() for the same reason.
 */
int unmap_twice(onenode_device *dev)
{
	uint32_t vm, bo;
	int ret, rc = 0;

	if ((ret = onenode_vm_create(dev, &vm)) ||
	    (ret = onenode_bo_create(dev, 2 * P, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo)) ||
	    (ret = onenode_vm_map(dev, vm, bo, 0, 1 << 20, 2 * P, 0)) ||
	    (ret = onenode_vm_map(dev, vm, bo, 0, (1 << 20) + 2 * P, 2 * P, 0))) {
		printf("setup failed: %s\n", onenode_strerror(ret));
		return 2;
	}
	ret = onenode_vm_unmap(dev, vm, 1 << 20, 4 * P);
	printf("UNMAP over both mappings: %s\n", ret ? onenode_strerror(ret) : "ok");
	if (ret)
		rc = fail("UNMAP of two mappings of one buffer", ret);
	/* Both mappings (still there after the failed UNMAP) go with the VM. */
	if (ret) {
		ret = onenode_vm_destroy(dev, vm);
		printf("VM_DESTROY with both mappings: %s (see the kernel log for a WARNING "
		       "in drm_compute_gpuvm_unmap_all)\n", ret ? onenode_strerror(ret) : "ok");
	}
	onenode_bo_close(dev, bo);
	return rc;
}

/* 2^47 bytes of system memory: the page array kvmalloc() warns about. */
int huge_system(onenode_device *dev)
{
	uint32_t bo;
	const int ret = onenode_bo_create(dev, 1ULL << 47, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo);

	printf("BO_CREATE 2^47 bytes SYSTEM: %s\n", ret ? onenode_strerror(ret) : "ok");
	if (!ret)
		onenode_bo_close(dev, bo);
	printf("check the kernel log for a WARNING in __kvmalloc_node_noprof\n");
	return ret == -ENOMEM || ret == -ENOSPC ? 0 : fail("2^47-byte system buffer", ret);
}

/* More VRAM than the device has: "exhausted" (-ENOSPC), not -EINVAL. */
int vram_big(onenode_device *dev)
{
	drm_compute_query_device d;
	uint32_t bo;
	int ret = onenode_query_device(dev, &d);

	if (ret)
		return 2;
	ret = onenode_bo_create(dev, d.vram_size + P, DRM_COMPUTE_PLACEMENT_VRAM, &bo);
	printf("BO_CREATE of vram_size + 4096 bytes of VRAM: %s\n",
	       ret ? onenode_strerror(ret) : "ok");
	if (!ret)
		onenode_bo_close(dev, bo);
	return ret == -ENOSPC || ret == -ENOMEM ? 0 :
	       fail("a VRAM buffer larger than the device (uapi: -ENOSPC)", ret);
}

/*
 * USERQ_DESTROY erases index 0 of the file's queue xarray, which
 * XA_FLAGS_ALLOC1 keeps busy with a zero entry while the array has a node:
 * it answers -ENOENT, but index 0 is free from then on and the next
 * USERQ_CREATE returns queue id 0 ("never 0", drm_compute.h).
 */
int destroy_zero(onenode_device *dev)
{
	onenode_queue a{}, b{};
	onenode_queue_params p{};
	uint32_t vm;
	int ret, rc = 0;

	if ((ret = onenode_vm_create(dev, &vm)))
		return 2;
	p.va = 1 << 20;
	p.priority = ONENODE_PRIORITY_DEFAULT;
	if ((ret = onenode_queue_init(&a, dev, vm, &p))) {
		printf("setup failed: %s\n", onenode_strerror(ret));
		return 2;
	}
	ret = onenode_userq_destroy(dev, 0);
	printf("queue %u created; USERQ_DESTROY of id 0: %s\n", a.id,
	       ret ? onenode_strerror(ret) : "ok");
	p.va = 1 << 24;
	if ((ret = onenode_queue_init(&b, dev, vm, &p))) {
		printf("second queue failed: %s\n", onenode_strerror(ret));
		rc = 2;
	} else {
		printf("next USERQ_CREATE: queue id %u\n", b.id);
		if (!b.id) {
			printf("REPRODUCED: a queue with id 0\n");
			rc = 1;
		}
		onenode_queue_fini(&b);
	}
	onenode_queue_fini(&a);
	onenode_vm_destroy(dev, vm);
	return rc;
}

} // namespace

int main(int argc, char **argv)
{
	onenode_device dev;
	const std::string what = argc > 1 ? argv[1] : "";
	int ret, rc;

	if (what != "unmap-twice" && what != "huge-system" && what != "vram-big" &&
	    what != "destroy-zero") {
		fprintf(stderr,
			"usage: onenode-fuzz-repro unmap-twice|huge-system|vram-big|destroy-zero\n");
		return 2;
	}
	if ((ret = onenode_open_driver("vcompute", nullptr, &dev))) {
		fprintf(stderr, "no vcompute render node: %s\n", onenode_strerror(ret));
		return 77;
	}
	rc = what == "unmap-twice" ? unmap_twice(&dev) :
	     what == "huge-system" ? huge_system(&dev) :
	     what == "vram-big" ? vram_big(&dev) : destroy_zero(&dev);
	onenode_close(&dev);
	return rc;
}
