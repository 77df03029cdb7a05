// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * ops.cpp: one fuzz step: a weighted choice among the compute operations,
 * the calls around them, queue building and feeding, and (exclusive
 * context) probes.
 */
#include <algorithm>

#include "pool.hpp"

namespace fuzz {

/* ---- the step ---- */

namespace {

struct Weighted {
	unsigned w;
	void (*fn)(Thread &);
};

template <unsigned Op> void op_fn(Thread &t)
{
	compute_op(t, Op);
}

void queue_build(Thread &t)
{
	Ctx &c = t.ctx;
	std::shared_ptr<Vm> vm = pick_vm(t);

	{
		lock g(c.mu);
		if (std::ranges::count_if(c.queues, [](auto &q) { return q->built; }) >=
		    t.run.lim.queues_per_ctx)
			return;
	}
	if (vm)
		build_queue(t, c, vm, static_cast<unsigned>(t.rng.below(16)));
}

/*
 * Destroy a queue id this thread never saw: the one the file would hand
 * out next, racing another thread's USERQ_CREATE (which still writes the
 * id back after the queue became visible).
 */
void queue_destroy_guess(Thread &t)
{
	uint32_t next = 1;
	Call c = make_call(DRM_COMPUTE_OP_USERQ_DESTROY);

	{
		lock g(t.ctx.mu);
		for (auto &q : t.ctx.queues)
			next = std::max(next, q->id + 1);
	}
	put(c, "queue_id", next + static_cast<uint32_t>(t.rng.below(3)));
	c.mode = "guess";
	run_call(t, c);
}

void queue_destroy(Thread &t)
{
	if (auto q = pick_queue(t))
		destroy_queue(t, t.ctx, q);
}

void queue_submit(Thread &t)
{
	auto q = pick_queue(t);

	if (q && q->built)
		submit_random(t, t.ctx, q);
}

void bo_make(Thread &t)
{
	{
		lock g(t.ctx.mu);
		if (t.ctx.bos.size() >= t.run.lim.bos_per_ctx)
			return;
	}
	compute_op(t, DRM_COMPUTE_OP_BO_CREATE);
}

void vm_create(Thread &t)
{
	{
		lock g(t.ctx.mu);
		if (t.ctx.vms.size() >= 12 && !t.ctx.exclusive)
			return;
	}
	compute_op(t, DRM_COMPUTE_OP_VM_CREATE);
}

void probe(Thread &t)
{
	run_probe(t, t.ctx);
}

constexpr Weighted shared_steps[] = {
	{ 3, op_fn<DRM_COMPUTE_OP_QUERY> },
	{ 8, bo_make },
	{ 4, op_fn<DRM_COMPUTE_OP_BO_MMAP> },
	{ 3, vm_create },
	{ 2, op_fn<DRM_COMPUTE_OP_VM_DESTROY> },
	{ 12, op_fn<DRM_COMPUTE_OP_VM_BIND> },
	{ 3, op_fn<DRM_COMPUTE_OP_USERQ_CREATE> },
	{ 2, op_fn<DRM_COMPUTE_OP_USERQ_DESTROY> },
	{ 6, op_fn<DRM_COMPUTE_OP_USERQ_CONTROL> },
	{ 6, op_fn<DRM_COMPUTE_OP_USERQ_STATE> },
	{ 4, op_fn<DRM_COMPUTE_OP_USERQ_WAIT> },
	{ 4, op_fn<DRM_COMPUTE_OP_USERQ_SIGNAL> },
	{ 2, op_fn<DRM_COMPUTE_OP_SVM> },
	{ 5, queue_build },
	{ 2, queue_destroy },
	{ 2, queue_destroy_guess },
	{ 14, queue_submit },
	{ 4, gem_close },
	{ 3, bo_cpu_map },
	{ 4, syncobj_op },
	{ 3, prime_op },
	{ 2, unknown_op },
};

constexpr Weighted exclusive_steps[] = {
	{ 3, op_fn<DRM_COMPUTE_OP_QUERY> },
	{ 6, bo_make },
	{ 3, op_fn<DRM_COMPUTE_OP_BO_MMAP> },
	{ 2, vm_create },
	{ 2, op_fn<DRM_COMPUTE_OP_VM_DESTROY> },
	{ 10, op_fn<DRM_COMPUTE_OP_VM_BIND> },
	{ 3, op_fn<DRM_COMPUTE_OP_USERQ_CREATE> },
	{ 2, op_fn<DRM_COMPUTE_OP_USERQ_DESTROY> },
	{ 5, op_fn<DRM_COMPUTE_OP_USERQ_CONTROL> },
	{ 5, op_fn<DRM_COMPUTE_OP_USERQ_STATE> },
	{ 4, op_fn<DRM_COMPUTE_OP_USERQ_WAIT> },
	{ 4, op_fn<DRM_COMPUTE_OP_USERQ_SIGNAL> },
	{ 2, op_fn<DRM_COMPUTE_OP_SVM> },
	{ 3, queue_build },
	{ 2, queue_destroy },
	{ 3, gem_close },
	{ 2, bo_cpu_map },
	{ 3, syncobj_op },
	{ 2, prime_op },
	{ 2, unknown_op },
	{ 10, probe },
};

template <size_t N> void run_weighted(Thread &t, const Weighted (&tab)[N])
{
	unsigned total = 0;

	for (const auto &w : tab)
		total += w.w;
	unsigned x = static_cast<unsigned>(t.rng.below(total));

	for (const auto &w : tab) {
		if (x < w.w) {
			w.fn(t);
			return;
		}
		x -= w.w;
	}
}

} // namespace

void step(Thread &t)
{
	bool no_vm;

	{
		lock g(t.ctx.mu);
		no_vm = t.ctx.vms.empty();
	}
	if (no_vm && t.rng.chance(1, 2))
		compute_op(t, DRM_COMPUTE_OP_VM_CREATE);
	if (t.ctx.exclusive)
		run_weighted(t, exclusive_steps);
	else
		run_weighted(t, shared_steps);
	t.iter++;
}

} // namespace fuzz
