// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * sanity.cpp: after the fuzzing, the device must still work: a fresh fd,
 * a VM, a queue made by libonenode, a VADD_U32 over a few thousand
 * elements and a FENCE, and the result checked element by element.
 */
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "fuzz.hpp"
#include "onenode_vcompute.h"

namespace fuzz {

bool sanity_check(const std::string &path, FILE *out)
{
	constexpr uint32_t n = 4096;
	constexpr uint64_t queue_va = 1ULL << 20, data_va = 1ULL << 28;
	const uint64_t size = ((3ULL * n * 4) + 4095) & ~4095ULL;
	onenode_device dev;
	onenode_queue q{};
	onenode_queue_params p{};
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t vm = 0, bo = 0;
	void *map = nullptr;
	bool ok = false;
	int ret;
	const char *step = "open";

	if ((ret = onenode_open_path(path.c_str(), &dev))) {
		fprintf(out, "sanity: open %s: %s\n", path.c_str(), onenode_strerror(ret));
		return false;
	}
	do {
		step = "VM_CREATE";
		if ((ret = onenode_vm_create(&dev, &vm)))
			break;
		step = "queue";
		p.va = queue_va;
		p.priority = ONENODE_PRIORITY_DEFAULT;
		if ((ret = onenode_queue_init(&q, &dev, vm, &p)))
			break;
		step = "data buffer";
		if ((ret = onenode_bo_create(&dev, size, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo)) ||
		    (ret = onenode_bo_map(&dev, bo, size, &map)) ||
		    (ret = onenode_vm_map(&dev, vm, bo, 0, data_va, size, 0)))
			break;
		auto *a = static_cast<uint32_t *>(map);
		uint32_t *b = a + n, *c = a + 2 * n;

		for (uint32_t i = 0; i < n; i++) {
			a[i] = i * 7 + 1;
			b[i] = 0xfffffff0u - i * 3;
			c[i] = 0;
		}
		step = "submit";
		if ((ret = onenode_queue_emit(&q, pkt,
					      onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, n, 64,
								   data_va, data_va + n * 4,
								   data_va + 2 * n * 4))))
			break;
		const uint64_t v = onenode_queue_fence(&q);

		ret = -EIO;
		if (!v || (ret = onenode_queue_commit(&q)))
			break;
		step = "wait";
		if ((ret = onenode_queue_wait(&q, v, 120LL * 1000 * 1000 * 1000)))
			break;
		step = "verify";
		ok = true;
		for (uint32_t i = 0; i < n && ok; i++) {
			if (c[i] == a[i] + b[i])
				continue;
			fprintf(out, "sanity: c[%u] = %#x, expected %#x\n", i, c[i], a[i] + b[i]);
			ok = false;
		}
	} while (false);

	if (ok)
		fprintf(out, "sanity: VADD_U32 over %u elements + FENCE on a fresh fd: ok\n", n);
	else if (!strcmp(step, "verify"))
		fprintf(out, "sanity: VADD_U32 result wrong\n");
	else
		fprintf(out, "sanity: %s failed: %s\n", step, onenode_strerror(ret));
	if (map)
		munmap(map, size);
	onenode_queue_fini(&q);
	if (bo)
		onenode_bo_close(&dev, bo);
	if (vm)
		onenode_vm_destroy(&dev, vm);
	onenode_close(&dev);
	return ok;
}

} // namespace fuzz
