// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * queue.cpp: queues with memory behind them. build_queue() makes the
 * buffers, binds a ring, a state page (read pointer, fence slot, context
 * save area), a data buffer with an unmapped page after it and read-only
 * and no-exec aliases, maps them and the doorbell for the CPU, and creates
 * the queue, every step a checked call. submit_random() feeds random and
 * mutated packets with random write pointers, and races suspend, resume,
 * destroy and unbind with the work. run_probe() (exclusive context only)
 * submits one packet whose outcome the uapi fixes and checks it.
 */
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "fuzz.hpp"
#include "onenode_vcompute.h"

namespace fuzz {
namespace {

using lock = std::lock_guard<std::mutex>;
constexpr uint64_t P = 4096;

uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Create a buffer through the model; 0 on failure. */
uint32_t make_bo(Thread &t, uint64_t size)
{
	Call c = make_call(DRM_COMPUTE_OP_BO_CREATE);
	const bool vram = t.rng.chance(1, 2) &&
			  t.run.vram_live.load() + size <= t.run.lim.vram_bytes;

	if (!vram && t.run.system_live.load() + size > t.run.lim.system_bytes)
		return 0;
	put(c, "size", size);
	put(c, "placement", vram ? DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM);
	c.mode = "queue";
	return run_call(t, c) ? 0 : static_cast<uint32_t>(out(c, "handle"));
}

int bind(Thread &t, uint32_t vm, uint32_t op, uint32_t handle, uint64_t off, uint64_t va,
	 uint64_t range, uint64_t flags)
{
	Call c = make_call(DRM_COMPUTE_OP_VM_BIND);

	put(c, "vm_id", vm);
	put(c, "op", op);
	put(c, "handle", handle);
	put(c, "bo_offset", off);
	put(c, "va", va);
	put(c, "range", range);
	put(c, "flags", flags);
	c.mode = "queue";
	return run_call(t, c);
}

std::shared_ptr<CpuMap> cpu_map(Thread &t, Ctx &c, uint32_t handle, uint64_t size)
{
	Call call = make_call(DRM_COMPUTE_OP_BO_MMAP);
	auto m = std::make_shared<CpuMap>();

	put(call, "handle", handle);
	call.mode = "queue";
	if (run_call(t, call))
		return nullptr;
	m->p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd(),
		    static_cast<off_t>(out(call, "offset")));
	t.stats.record("mmap", m->p == MAP_FAILED ? errno : 0);
	if (m->p == MAP_FAILED)
		return nullptr;
	m->len = size;
	return m;
}

void close_bo(Thread &t, Ctx &c, uint32_t handle)
{
	drm_gem_close a{};
	std::shared_ptr<Bo> b;

	{
		lock g(c.mu);
		for (auto &x : c.bos)
			if (x->handle == handle)
				b = x;
		if (!b)
			return;
		std::erase(c.bos, b);
	}
	a.handle = handle;
	if (t.issue_raw(c.fd(), "GEM_CLOSE", DRM_IOCTL_GEM_CLOSE, &a, sizeof(a)))
		return;
	lock g(c.mu);
	c.dead[0].push_back(handle);
	if (c.dead[0].size() > 32)
		c.dead[0].pop_front();
	if (b->accounted)
		(b->placement == DRM_COMPUTE_PLACEMENT_VRAM ? t.run.vram_live :
							      t.run.system_live) -= b->size;
}

/* Reserve a free VA region of @span bytes aligned to @align in @vm. */
uint64_t reserve(Thread &t, Ctx &c, Vm &vm, uint64_t span, uint64_t align)
{
	lock g(c.mu);
	const uint64_t end = t.run.info.dev.va_start + t.run.lim.va_window;

	for (int tries = 0; tries < 8; tries++) {
		uint64_t va = align_up(vm.next_va, align);

		if (va + span > end) {
			/* Start over at the bottom: the model knows what is still there. */
			vm.next_va = t.run.info.dev.va_start + (1 << 20);
			va = align_up(vm.next_va, align);
			t.stats.event("va-wrap");
		}
		vm.next_va = align_up(va + span + 16 * P, 64 << 10);
		if (!c.exclusive || !vm.overlaps(va, span))
			return va;
	}
	return 0;
}

/* Publish a write pointer the io_uring SQPOLL way: store, full barrier, flags. */
void ring_doorbell(Thread &t, Queue &q, uint64_t wptr, bool force_wake)
{
	drm_compute_doorbell *db = q.db();

	if (!db)
		return;
	q.wptr.store(wptr);
	__atomic_store_n(&db->wptr, wptr, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (force_wake ||
	    (__atomic_load_n(&db->flags, __ATOMIC_RELAXED) & DRM_COMPUTE_DOORBELL_NEED_WAKEUP)) {
		Call c = make_call(DRM_COMPUTE_OP_USERQ_CONTROL);

		put(c, "queue_id", q.id);
		put(c, "op", DRM_COMPUTE_USERQ_OP_WAKE);
		c.mode = "doorbell";
		run_call(t, c);
	}
}

/*
 * Copy @w words into the ring at byte position @pos, wrapping. The write
 * pointer may be anything the fuzzer published (unaligned, random): the
 * words go to the 8-byte slots it points into.
 */
void ring_write(Queue &q, uint64_t pos, const std::vector<uint64_t> &w)
{
	for (size_t i = 0; i < w.size(); i++) {
		const uint64_t off = (pos + i * 8) & (q.t.ring_size - 1) & ~7ULL;

		__atomic_store_n(reinterpret_cast<uint64_t *>(q.ring->at(off)), w[i],
				 __ATOMIC_RELAXED);
	}
}

int control(Thread &t, Queue &q, uint32_t op, const char *mode)
{
	Call c = make_call(DRM_COMPUTE_OP_USERQ_CONTROL);

	put(c, "queue_id", q.id);
	put(c, "op", op);
	c.mode = mode;
	return run_call(t, c);
}

} // namespace

void tally_fault(Thread &t, Queue &q, const drm_compute_userq_state &st)
{
	if (!q.tallied.exchange(true))
		t.stats.faults[st.fault_reason]++;
}

void queue_state(Thread &t, Ctx &, Queue &q, drm_compute_userq_state *st)
{
	Call c = make_call(DRM_COMPUTE_OP_USERQ_STATE);

	put(c, "queue_id", q.id);
	c.mode = "poll";
	memset(st, 0, sizeof(*st));
	if (!run_call(t, c))
		memcpy(st, c.arg.data(), sizeof(*st));
}

std::shared_ptr<Queue> build_queue(Thread &t, Ctx &c, const std::shared_ptr<Vm> &vm,
				   unsigned variant)
{
	static constexpr uint64_t rings[] = { 4096, 8192, 16384, 65536, 65536, 262144 };
	const DevInfo &d = t.run.info;
	const uint64_t ring = t.rng.pick(rings), data = t.rng.chance(1, 4) ? 32 * P : 16 * P;
	const uint64_t span = ring + 2 * P + 2 * P + data + P + 2 * P + 2 * P + 2 * P + 4 * P;
	auto q = std::make_shared<Queue>();
	Targets &tg = q->t;
	uint32_t ring_h = 0, state_h = 0, data_h = 0;
	bool ok = false;

	const uint64_t base = reserve(t, c, *vm, span, std::max<uint64_t>(ring, 64 << 10));
	if (!base) {
		t.stats.event("queue-no-va");
		return nullptr;
	}
	tg.ring_va = base;
	tg.ring_size = ring;
	tg.state_va = base + ring + P;
	q->ctx_va = tg.state_va + P;
	tg.data_va = tg.state_va + 3 * P;
	tg.data_size = data;
	tg.hole_va = tg.data_va + data;
	tg.ro_va = tg.hole_va + 2 * P;
	tg.ro_size = 2 * P;
	tg.nx_va = tg.ro_va + 3 * P;
	tg.nx_size = 2 * P;

	const char *why = "caps";

	ring_h = make_bo(t, ring);
	state_h = make_bo(t, 2 * P);
	data_h = make_bo(t, data);
	do {
		if (!ring_h || !state_h || !data_h)
			break;
		why = "bind";
		/* The ring is read-only to the GPU: no packet rewrites it. */
		if (bind(t, vm->id, DRM_COMPUTE_VM_BIND_OP_MAP, ring_h, 0, tg.ring_va, ring,
			 DRM_COMPUTE_VM_BIND_READONLY |
				 (variant == 0 ? DRM_COMPUTE_VM_BIND_NOEXEC : 0)) ||
		    bind(t, vm->id, DRM_COMPUTE_VM_BIND_OP_MAP, state_h, 0, tg.state_va,
			 variant == 2 ? P : 2 * P,
			 DRM_COMPUTE_VM_BIND_NOEXEC |
				 (variant == 1 ? DRM_COMPUTE_VM_BIND_READONLY : 0)) ||
		    bind(t, vm->id, DRM_COMPUTE_VM_BIND_OP_MAP, data_h, 0, tg.data_va, data, 0) ||
		    bind(t, vm->id, DRM_COMPUTE_VM_BIND_OP_MAP, data_h, 0, tg.ro_va, tg.ro_size,
			 DRM_COMPUTE_VM_BIND_READONLY) ||
		    bind(t, vm->id, DRM_COMPUTE_VM_BIND_OP_MAP, data_h, 0, tg.nx_va, tg.nx_size,
			 DRM_COMPUTE_VM_BIND_NOEXEC))
			break;
		why = "mmap";
		q->ring = cpu_map(t, c, ring_h, ring);
		q->state = cpu_map(t, c, state_h, 2 * P);
		q->data = cpu_map(t, c, data_h, data);
		if (!q->ring || !q->state || !q->data)
			break;

		Call cr = make_call(DRM_COMPUTE_OP_USERQ_CREATE);
		static constexpr uint32_t prios[] = { 0, 3, 7, 7, 7, 11, 12, 15 };

		q->priority = t.rng.pick(prios) % d.uq.num_priorities;
		put(cr, "vm_id", vm->id);
		put(cr, "format", DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE);
		put(cr, "priority", q->priority);
		if (t.rng.chance(1, 3)) {
			const uint32_t all = d.uq.num_cus >= 32 ? ~0u : (1u << d.uq.num_cus) - 1;
			const uint32_t w = static_cast<uint32_t>(t.rng.range(1, all));
			uint8_t *p = t.scratch() + kSlice - 64;

			memcpy(p, &w, 4);
			put(cr, "cu_mask_ptr", reinterpret_cast<uintptr_t>(p));
			put(cr, "cu_mask_count", 32);
		}
		put(cr, "ring_va", tg.ring_va);
		put(cr, "ring_size", ring);
		put(cr, "rptr_va", tg.state_va);
		put(cr, "ctx_save_va", q->ctx_va);
		put(cr, "ctx_save_size", d.uq.ctx_save_size);
		cr.mode = "queue";
		why = "create";
		if (run_call(t, cr))
			break;
		q->id = static_cast<uint32_t>(out(cr, "queue_id"));
		q->vm = vm->id;
		auto db = std::make_shared<CpuMap>();
		const uint64_t pos = out(cr, "doorbell_pos");

		db->p = mmap(nullptr, d.uq.doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd(),
			     static_cast<off_t>(out(cr, "doorbell_offset")));
		t.stats.record("mmap/doorbell", db->p == MAP_FAILED ? errno : 0);
		if (db->p != MAP_FAILED) {
			db->len = d.uq.doorbell_size;
			if (pos + sizeof(drm_compute_doorbell) <= db->len) {
				q->doorbell = db;
				q->db_pos = static_cast<uint32_t>(pos);
				q->db_offset = out(cr, "doorbell_offset");
			}
		}
		ok = true;
	} while (false);

	if (!ok) {
		for (uint32_t h : { ring_h, state_h, data_h })
			if (h)
				close_bo(t, c, h);
		t.stats.event(std::string("queue-build-failed-") + why);
		return nullptr;
	}
	t.stats.event("queue-built");
	/* apply() put a bare queue in the pool: make it this one. */
	lock g(c.mu);
	for (auto &h : { ring_h, state_h, data_h })
		for (auto &b : c.bos)
			if (b->handle == h)
				b->queue_part = true;
	q->handles = { ring_h, state_h, data_h };
	q->built = true;
	q->broken = variant < 3;
	for (auto &x : c.queues) {
		if (x->id == q->id) {
			x = q;
			return q;
		}
	}
	return nullptr;
}

/* ---- random work (shared contexts) ---- */

namespace {

void tamper_ctx_save(Thread &t, Queue &q)
{
	auto *rec = reinterpret_cast<vcompute_ctx_save *>(q.state->at(P));

	switch (t.rng.below(6)) {
	case 0: t.rng.fill(rec, sizeof(*rec)); break;
	case 1: rec->magic ^= 1u << t.rng.below(32); break;
	case 2: rec->rptr = t.rng.chance(1, 2) ? t.rng.next() : rec->rptr + 8 * t.rng.range(1, 64); break;
	case 3:
		rec->progress = t.rng.chance(1, 2) ? t.rng.next() : rec->progress + t.rng.below(1 << 20);
		break;
	case 4: rec->state = t.rng.next(); break;
	default: rec->saves = t.rng.next(); break;
	}
	t.stats.event("ctx-save-tampered");
}

} // namespace

void submit_random(Thread &t, Ctx &c, const std::shared_ptr<Queue> &qp)
{
	Queue &q = *qp;
	Rng &r = t.rng;
	std::vector<uint64_t> w;
	const unsigned n = static_cast<unsigned>(r.range(1, 6));

	if (q.dead && r.chance(1, 2)) {
		destroy_queue(t, c, qp);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		std::vector<uint64_t> p;
		const unsigned k = static_cast<unsigned>(r.below(20));

		if (k < 18)
			p = gen_packet(r, q.t);
		else
			p = gen_garbage(r, r.range(1, 8));
		if (k >= 13 && k < 18)
			mutate_packet(p, r);
		w.insert(w.end(), p.begin(), p.end());
	}
	if (w.size() * 8 > q.t.ring_size)
		w.resize(q.t.ring_size / 8);
	make_safe(w, r);

	const uint64_t old = q.wptr.load();
	uint64_t wptr = old + w.size() * 8;

	ring_write(q, old, w);
	switch (r.below(30)) {
	case 0: wptr = old + r.range(1, 7); t.stats.event("wptr-unaligned"); break;
	case 1: wptr = old - 8 * r.range(1, 4); t.stats.event("wptr-behind"); break;
	case 2: wptr = old + q.t.ring_size + 8; t.stats.event("wptr-past-ring"); break;
	case 3: wptr = r.next(); t.stats.event("wptr-random"); break;
	default: break;
	}
	ring_doorbell(t, q, wptr, r.chance(1, 10));

	/* Race the work just submitted. */
	switch (r.below(30)) {
	case 0:
		t.stats.event("destroy-running");
		destroy_queue(t, c, qp);
		break;
	case 1:
	case 2: {
		const bool ring = r.chance(1, 3);
		const uint64_t va = ring ? q.t.ring_va : q.t.data_va + P * r.below(q.t.data_size / P);
		const uint64_t range = ring ? q.t.ring_size : P * r.range(1, 4);

		t.stats.event("unbind-running");
		bind(t, q.vm, DRM_COMPUTE_VM_BIND_OP_UNMAP, 0, 0, va, range, 0);
		break;
	}
	case 3:
	case 4:
		if (!control(t, q, DRM_COMPUTE_USERQ_OP_SUSPEND, "race")) {
			if (r.chance(1, 2))
				tamper_ctx_save(t, q);
			control(t, q, DRM_COMPUTE_USERQ_OP_RESUME, "race");
		}
		break;
	case 5: {
		drm_compute_userq_state st;

		queue_state(t, c, q, &st);
		break;
	}
	default:
		break;
	}
}

void destroy_queue(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q)
{
	drm_compute_userq_state st;
	Call d = make_call(DRM_COMPUTE_OP_USERQ_DESTROY);

	queue_state(t, c, *q, &st);
	put(d, "queue_id", q->id);
	d.mode = "destroy";
	if (run_call(t, d) || !q->built)
		return;
	if (!c.exclusive && t.rng.chance(1, 8))
		return; /* leave its buffers and mappings to the pool */
	Call u = make_call(DRM_COMPUTE_OP_VM_BIND);

	put(u, "vm_id", q->vm);
	put(u, "op", DRM_COMPUTE_VM_BIND_OP_UNMAP);
	put(u, "va", q->t.ring_va);
	put(u, "range", q->t.nx_va + q->t.nx_size - q->t.ring_va);
	u.mode = "destroy";
	run_call(t, u);
	for (uint32_t h : q->handles)
		if (h)
			close_bo(t, c, h);
}

} // namespace fuzz
