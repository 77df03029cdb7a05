// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * pool.cpp: the pool's helpers: building calls, picking objects, and what
 * the exclusive context knows about ids.
 */
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "pool.hpp"
#include "vcompute_drm.h"

namespace fuzz {
namespace {

template <class T> std::shared_ptr<T> pick_or_null(Rng &r, std::vector<std::shared_ptr<T>> &v)
{
	return v.empty() ? nullptr : r.pick(v);
}

} // namespace

Call make_call(unsigned op)
{
	Call c;

	c.op = op;
	c.usize = layout(op).size;
	c.arg.assign(c.usize, 0);
	return c;
}

void put(Call &c, const char *f, uint64_t v)
{
	set(layout(c.op), c.arg.data(), f, v);
}

uint64_t out(const Call &c, const char *f)
{
	return get(layout(c.op), c.arg.data(), f);
}

uint64_t page(const Thread &t)
{
	return t.run.info.dev.page_size;
}

uint64_t mono_ns()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1'000'000'000ULL + ts.tv_nsec;
}

uint64_t vget(unsigned op, const std::vector<uint8_t> &view, const char *f)
{
	return get(layout(op), view.data(), f);
}

/* Whether the out field @f of @c came back to userspace. */
bool out_ok(const Call &c, const char *f)
{
	const OpLayout &l = layout(c.op);
	const Field &fd = l.fields[field_index(l, f)];

	return (c.dir & _IOC_READ) && fd.offset + fd.size <= c.usize;
}

void remember_dead(Ctx &c, int slot, uint32_t id)
{
	c.dead[slot].push_back(id);
	if (c.dead[slot].size() > 32)
		c.dead[slot].pop_front();
}

void forget_dead(Ctx &c, int slot, uint32_t id)
{
	std::erase(c.dead[slot], id);
}

Bo *find_bo(Ctx &c, uint32_t h)
{
	for (auto &b : c.bos)
		if (b->handle == h)
			return b.get();
	return nullptr;
}

Id certainty(Ctx &c, int slot, uint32_t id, bool live)
{
	if (live)
		return Id::Live;
	if (!id || id >= (1u << 20))
		return Id::Gone;
	if (c.ghosts[slot])
		return Id::Unsure;
	return std::ranges::find(c.dead[slot], id) != c.dead[slot].end() ? Id::Gone : Id::Unsure;
}

uint64_t scratch_ptr(Thread &t, size_t room)
{
	return reinterpret_cast<uintptr_t>(t.scratch()) + (t.rng.below(kSlice - room) & ~7ULL);
}

uint64_t random_va(Thread &t, uint64_t range)
{
	const DevInfo &d = t.run.info;
	const uint64_t p = page(t);

	if (t.rng.chance(1, 16)) {
		const uint64_t far[] = { d.dev.va_start, d.dev.va_end - range,
					 d.dev.va_end - 64 * p, 1ULL << 40, 1ULL << 46 };
		return t.rng.pick(far) & ~(p - 1);
	}
	return (d.dev.va_start + t.rng.below(t.run.lim.va_window / p) * p);
}

std::shared_ptr<Vm> pick_vm(Thread &t)
{
	lock g(t.ctx.mu);

	return pick_or_null(t.rng, t.ctx.vms);
}

std::shared_ptr<Queue> pick_queue(Thread &t)
{
	lock g(t.ctx.mu);

	return pick_or_null(t.rng, t.ctx.queues);
}

std::shared_ptr<Bo> pick_bo(Thread &t, bool mappable)
{
	lock g(t.ctx.mu);
	std::vector<std::shared_ptr<Bo>> v;

	for (auto &b : t.ctx.bos)
		if (!mappable || !b->queue_part)
			v.push_back(b);
	return pick_or_null(t.rng, v);
}

uint32_t pick_syncobj(Thread &t)
{
	lock g(t.ctx.mu);

	return t.ctx.syncobjs.empty() ? 0 : t.rng.pick(t.ctx.syncobjs);
}

} // namespace fuzz
