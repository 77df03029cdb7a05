// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * pool.hpp: helpers shared by the files that make calls (args.cpp,
 * predict.cpp, aux.cpp, ops.cpp): picking objects from a context's pool
 * (under its lock), recording destroyed ids, and the exclusive context's
 * certainty about an id.
 */
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "fuzz.hpp"

namespace fuzz {

using lock = std::lock_guard<std::mutex>;

/** page() - the GPU page size of the device. */
uint64_t page(const Thread &t);

/** mono_ns() - CLOCK_MONOTONIC in ns (the clock of USERQ_WAIT's timeout). */
uint64_t mono_ns();

/** vget() - field @f of the kernel's view @view of an argument of @op. */
uint64_t vget(unsigned op, const std::vector<uint8_t> &view, const char *f);

/** out_ok() - whether the out field @f of @c came back to userspace. */
bool out_ok(const Call &c, const char *f);

/** remember_dead()/forget_dead() - the recently destroyed ids of a kind (id_slot()). */
void remember_dead(Ctx &c, int slot, uint32_t id);
void forget_dead(Ctx &c, int slot, uint32_t id);

/** find_id() - the object with @id in a pool vector, or nullptr (pool locked). */
template <class T> T *find_id(std::vector<std::shared_ptr<T>> &v, uint32_t id)
{
	for (auto &p : v)
		if (p->id == id)
			return p.get();
	return nullptr;
}

/** find_bo() - the buffer with handle @h, or nullptr (pool locked). */
Bo *find_bo(Ctx &c, uint32_t h);

/** Id - what the exclusive context knows of an id. */
enum class Id { Live, Gone, Unsure };

/**
 * certainty() - Live when the pool has it, Gone when no object of the file
 * can have that id (0, never handed out, destroyed since), else Unsure.
 */
Id certainty(Ctx &c, int slot, uint32_t id, bool live);

/* Random objects of the thread's context; null when there is none. */
std::shared_ptr<Vm> pick_vm(Thread &t);
std::shared_ptr<Queue> pick_queue(Thread &t);
std::shared_ptr<Bo> pick_bo(Thread &t, bool mappable);
uint32_t pick_syncobj(Thread &t);

/** scratch_ptr() - a pointer into the thread's scratch slice with @room bytes. */
uint64_t scratch_ptr(Thread &t, size_t room);

/** random_va() - a page-aligned GPU VA for @range bytes, mostly in the VA window. */
uint64_t random_va(Thread &t, uint64_t range);

/* args.cpp */
/** compute_op() - one call of @op with an argument of a random mode. */
void compute_op(Thread &t, unsigned op);

/* aux.cpp */
void gem_close(Thread &t);
void bo_cpu_map(Thread &t);
void syncobj_op(Thread &t);
void prime_op(Thread &t);
void unknown_op(Thread &t);

} // namespace fuzz
