// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * model.cpp: the model of a GPU VM's mappings, as VM_BIND's text defines
 * them: MAP needs an empty range, UNMAP removes whatever lies in its range
 * and splits the mappings that straddle its ends.
 */
#include <unistd.h>

#include <iterator>

#include "fuzz.hpp"

namespace fuzz {

CpuMap::~CpuMap()
{
	if (p != MAP_FAILED)
		munmap(p, len);
}

Ctx::~Ctx()
{
	for (const auto &d : dmabufs)
		close(d.first);
	queues.clear();
	bos.clear();
	maps.clear();
	onenode_close(&dev);
}

bool Vm::overlaps(uint64_t va, uint64_t range) const
{
	auto it = maps.upper_bound(va);

	if (it != maps.begin()) {
		auto p = std::prev(it);

		if (p->second.va + p->second.range > va)
			return true;
	}
	return it != maps.end() && it->second.va < va + range;
}

void Vm::unmap(uint64_t va, uint64_t range)
{
	const uint64_t end = va + range;
	std::vector<Mapping> keep;

	for (auto it = maps.begin(); it != maps.end();) {
		const Mapping m = it->second;
		const uint64_t mend = m.va + m.range;

		if (mend <= va || m.va >= end) {
			++it;
			continue;
		}
		if (m.va < va) {
			Mapping l = m;

			l.range = va - m.va;
			keep.push_back(l);
		}
		if (mend > end) {
			Mapping r = m;

			r.va = end;
			r.range = mend - end;
			r.bo_offset = m.bo_offset + (end - m.va);
			keep.push_back(r);
		}
		it = maps.erase(it);
	}
	for (const Mapping &m : keep)
		maps[m.va] = m;
}

} // namespace fuzz
