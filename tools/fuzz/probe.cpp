// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * probe.cpp: predicted submissions on the exclusive context's queues. A
 * probe is one packet (packets.cpp) whose result the uapi fixes: it
 * completes with a known memory effect, or faults with a known reason (and
 * address); or a suspend/resume whose context save record vcompute_drm.h
 * describes. Outcomes are counted per probe; a wrong one is a mismatch.
 * A probe that neither completes nor faults within the deadline is only
 * reported ("stall"): the uapi promises no timing.
 */
#include <algorithm>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "fuzz.hpp"
#include "onenode_vcompute.h"

namespace fuzz {
namespace {

using lock = std::lock_guard<std::mutex>;
constexpr uint64_t P = 4096;
constexpr double kDeadline = 20.0;

std::string x64(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%#llx", static_cast<unsigned long long>(v));
	return b;
}

bool dead(const drm_compute_userq_state &st)
{
	return st.status == DRM_COMPUTE_USERQ_STATUS_FAULTED ||
	       st.status == DRM_COMPUTE_USERQ_STATUS_HUNG ||
	       st.status == DRM_COMPUTE_USERQ_STATUS_LOST;
}

/* Poll the state until the queue is idle at @wptr or dead; false on the deadline. */
bool await(Thread &t, Ctx &c, Queue &q, uint64_t wptr, drm_compute_userq_state *st)
{
	const double end = now_s() + kDeadline;
	unsigned us = 50;

	for (;;) {
		queue_state(t, c, q, st);
		if (!st->status || dead(*st))
			return st->status != 0;
		if (st->status == DRM_COMPUTE_USERQ_STATUS_IDLE && st->rptr == wptr)
			return true;
		if (now_s() > end)
			return false;
		std::this_thread::sleep_for(std::chrono::microseconds(us));
		us = std::min(us * 2, 5000u);
	}
}

void publish(Thread &t, Queue &q, uint64_t wptr)
{
	drm_compute_doorbell *db = q.db();

	if (!db)
		return;
	q.wptr.store(wptr);
	__atomic_store_n(&db->wptr, wptr, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&db->flags, __ATOMIC_RELAXED) & DRM_COMPUTE_DOORBELL_NEED_WAKEUP) {
		Call c = make_call(DRM_COMPUTE_OP_USERQ_CONTROL);

		put(c, "queue_id", q.id);
		put(c, "op", DRM_COMPUTE_USERQ_OP_WAKE);
		c.mode = "probe";
		run_call(t, c);
	}
}

void write_ring(Queue &q, uint64_t pos, const std::vector<uint64_t> &w)
{
	for (size_t i = 0; i < w.size(); i++)
		memcpy(q.ring->at((pos + i * 8) & (q.t.ring_size - 1) & ~7ULL), &w[i], 8);
}

uint8_t *data_at(Queue &q, uint64_t va)
{
	return q.data->at(va - q.t.data_va);
}

int control(Thread &t, Queue &q, uint32_t op)
{
	Call c = make_call(DRM_COMPUTE_OP_USERQ_CONTROL);

	put(c, "queue_id", q.id);
	put(c, "op", op);
	c.mode = "probe";
	return run_call(t, c);
}

void outcome(Thread &t, const char *name, const std::string &o)
{
	t.stats.probes[name][o]++;
}

/*
 * Compare what happened with what the probe predicted; returns the outcome
 * label. @st is the final state, @ok false after the deadline.
 */
std::string judge(Thread &t, Queue &q, const Probe &p, uint64_t wptr, bool ok,
		  const drm_compute_userq_state &st)
{
	const std::string head = std::string("probe ") + p.name + " on queue " +
				 std::to_string(q.id) + ": ";

	if (!ok) {
		fprintf(stderr, "STALL: %s no result in %.0f s (status %u rptr %s wptr %s)\n",
			head.c_str(), kDeadline, st.status, x64(st.rptr).c_str(), x64(wptr).c_str());
		return "stall";
	}
	if (st.status == DRM_COMPUTE_USERQ_STATUS_HUNG || st.status == DRM_COMPUTE_USERQ_STATUS_LOST) {
		fprintf(stderr, "STALL: %s reset as %s\n", head.c_str(),
			onenode_status_name(st.status));
		return "hung";
	}
	if (p.fault) {
		if (st.status != DRM_COMPUTE_USERQ_STATUS_FAULTED || st.fault_reason != p.fault) {
			t.mismatch(head + "expected fault " + onenode_fault_name(p.fault) + ", got " +
				   onenode_status_name(st.status) + "/" +
				   onenode_fault_name(st.fault_reason) + " at " + x64(st.fault_va));
			return "mismatch";
		}
		if (p.check_va && st.fault_va != p.fault_va) {
			t.mismatch(head + "fault " + onenode_fault_name(p.fault) + " at " +
				   x64(st.fault_va) + ", expected at " + x64(p.fault_va));
			return "mismatch";
		}
		return "ok";
	}
	if (st.status != DRM_COMPUTE_USERQ_STATUS_IDLE) {
		t.mismatch(head + "expected completion, got " + onenode_status_name(st.status) + "/" +
			   onenode_fault_name(st.fault_reason) + " at " + x64(st.fault_va));
		return "mismatch";
	}
	if (*q.rptr_cpu() != wptr) {
		t.mismatch(head + "the read pointer written back is " + x64(*q.rptr_cpu()) +
			   ", not " + x64(wptr));
		return "mismatch";
	}
	for (const auto &[va, bytes] : p.expect) {
		const uint8_t *m = data_at(q, va);

		for (size_t i = 0; i < bytes.size(); i++) {
			if (m[i] == bytes[i])
				continue;
			t.mismatch(head + "byte " + std::to_string(i) + " at " + x64(va) + " is " +
				   x64(m[i]) + ", expected " + x64(bytes[i]) + " (" +
				   std::to_string(bytes.size()) + " bytes checked)");
			return "mismatch";
		}
	}
	if (p.fence) {
		uint64_t mem;

		memcpy(&mem, q.state->at(8), 8);
		if (st.fence != p.fence_value || mem != p.fence_value) {
			t.mismatch(head + "fence " + x64(st.fence) + " in the state, " + x64(mem) +
				   " in memory, expected " + x64(p.fence_value));
			return "mismatch";
		}
	}
	return "ok";
}

std::shared_ptr<Queue> healthy_queue(Thread &t, Ctx &c)
{
	lock g(c.mu);
	std::vector<std::shared_ptr<Queue>> v;

	for (auto &q : c.queues)
		if (q->built && !q->broken && !q->dead && !q->suspended && q->db())
			v.push_back(q);
	return v.empty() ? nullptr : t.rng.pick(v);
}

void packet_probe(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q)
{
	const Probe p = gen_probe(t.rng, q->t, q->fence_next);
	const uint64_t old = q->wptr.load();
	const uint64_t wptr = old + 8 * p.pkt.size() + static_cast<uint64_t>(p.wptr_extra);
	drm_compute_userq_state st;

	for (const auto &[va, bytes] : p.setup)
		memcpy(data_at(*q, va), bytes.data(), bytes.size());
	write_ring(*q, old, p.pkt);
	publish(t, *q, wptr);
	const bool ok = await(t, c, *q, wptr, &st);
	const std::string o = judge(t, *q, p, wptr, ok, st);

	outcome(t, p.name, o);
	if (o == "ok" && p.fence) {
		Call w = make_call(DRM_COMPUTE_OP_USERQ_WAIT);

		{
			lock g(c.mu);
			q->fence = p.fence_value;
			q->fence_next = p.fence_value + 1 + t.rng.below(3);
		}
		put(w, "queue_id", q->id);
		put(w, "value", p.fence_value);
		w.mode = "probe";
		run_call(t, w); /* the model expects 0: the fence reached the value */
	}
	if (dead(st) || !ok)
		destroy_queue(t, c, q);
}

/* SUSPEND writes the record vcompute_drm.h describes; RESUME reads it back. */
void ctx_save_probe(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q)
{
	drm_compute_userq_state st;
	const auto *rec = reinterpret_cast<const vcompute_ctx_save *>(q->state->at(P));
	const bool corrupt = t.rng.chance(1, 3);

	queue_state(t, c, *q, &st);
	if (st.status != DRM_COMPUTE_USERQ_STATUS_IDLE || control(t, *q, DRM_COMPUTE_USERQ_OP_SUSPEND))
		return;
	if (rec->magic != VCOMPUTE_CTX_SAVE_MAGIC || rec->version != VCOMPUTE_CTX_SAVE_VERSION ||
	    rec->rptr != st.rptr || !rec->saves) {
		t.mismatch("ctx-save probe on queue " + std::to_string(q->id) + ": record magic " +
			   x64(rec->magic) + " version " + std::to_string(rec->version) + " rptr " +
			   x64(rec->rptr) + " (queue at " + x64(st.rptr) + ") saves " +
			   std::to_string(rec->saves));
		outcome(t, "ctx-save", "mismatch");
	}
	if (corrupt) {
		auto *w = reinterpret_cast<vcompute_ctx_save *>(q->state->at(P));

		if (t.rng.chance(1, 2))
			w->magic ^= 1u << t.rng.below(32);
		else
			w->version ^= 1u << t.rng.below(32);
	}
	control(t, *q, DRM_COMPUTE_USERQ_OP_RESUME); /* the model expects 0 */
	queue_state(t, c, *q, &st);
	if (corrupt) {
		const bool good = st.status == DRM_COMPUTE_USERQ_STATUS_FAULTED &&
				  st.fault_reason == DRM_COMPUTE_FAULT_PACKET;

		if (!good)
			t.mismatch("ctx-save probe: resume from a bad record left queue " +
				   std::to_string(q->id) + " " + onenode_status_name(st.status) + "/" +
				   onenode_fault_name(st.fault_reason) + ", not faulted/packet");
		outcome(t, "ctx-save-corrupt", good ? "ok" : "mismatch");
		destroy_queue(t, c, q);
		return;
	}
	outcome(t, "ctx-save", "ok");
}

/*
 * A long DISPATCH suspended in the middle: the record names the packet
 * (its start or the next one) and its progress in workgroups; resumed, the
 * result is complete and right.
 */
void suspend_mid_probe(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q)
{
	static constexpr uint64_t sizes[] = { 1, 1, 2, 16 };
	const uint64_t n = (q->t.data_size / 12) & ~63ULL, gs = t.rng.pick(sizes);
	const uint64_t a = q->t.data_va, b = a + n * 4, cc = a + 2 * n * 4;
	const uint64_t old = q->wptr.load();
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	const uint32_t qw = onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, n,
						 static_cast<uint32_t>(gs), a, b, cc);
	const uint64_t wptr = old + qw * 8;
	std::vector<uint32_t> va(n), vb(n);
	drm_compute_userq_state st;
	Probe p;

	for (uint64_t i = 0; i < n; i++) {
		va[i] = static_cast<uint32_t>(t.rng.next());
		vb[i] = static_cast<uint32_t>(t.rng.next());
	}
	memcpy(data_at(*q, a), va.data(), n * 4);
	memcpy(data_at(*q, b), vb.data(), n * 4);
	memset(data_at(*q, cc), 0, n * 4);
	write_ring(*q, old, std::vector<uint64_t>(pkt, pkt + qw));
	publish(t, *q, wptr);
	std::this_thread::sleep_for(std::chrono::microseconds(t.rng.below(3000)));
	if (!control(t, *q, DRM_COMPUTE_USERQ_OP_SUSPEND)) {
		const auto *rec = reinterpret_cast<const vcompute_ctx_save *>(q->state->at(P));
		const auto *c32 = reinterpret_cast<const uint32_t *>(data_at(*q, cc));
		const bool mid = rec->rptr == old;
		uint64_t done = 0;

		/* Suspended, the queue touches no memory: count the elements written. */
		while (done < n && c32[done] == va[done] + vb[done])
			done++;
		if (rec->rptr != old && rec->rptr != wptr)
			t.mismatch("suspend-mid probe: record rptr " + x64(rec->rptr) +
				   " is neither the packet (" + x64(old) + ") nor the next (" +
				   x64(wptr) + ")");
		else if (mid && std::min<uint64_t>(rec->progress * gs, n) != done)
			t.mismatch("suspend-mid probe: DISPATCH of " + std::to_string(n) +
				   " elements in groups of " + std::to_string(gs) +
				   " suspended with " + std::to_string(done) +
				   " elements written, but the record's progress is " +
				   std::to_string(rec->progress) +
				   " (vcompute_ctx_save.progress: workgroups done)");
		outcome(t, "suspend-mid", mid ? "suspended-inside" : "suspended-after");
		control(t, *q, DRM_COMPUTE_USERQ_OP_RESUME);
	}
	const bool ok = await(t, c, *q, wptr, &st);

	std::vector<uint32_t> vc(n);
	for (uint64_t i = 0; i < n; i++)
		vc[i] = va[i] + vb[i];
	p.name = "suspend-mid-result";
	p.expect = { { cc, std::vector<uint8_t>(reinterpret_cast<uint8_t *>(vc.data()),
						reinterpret_cast<uint8_t *>(vc.data()) + n * 4) } };
	const std::string o = judge(t, *q, p, wptr, ok, st);

	outcome(t, p.name, o);
	if (dead(st) || !ok)
		destroy_queue(t, c, q);
}

/* Queues built broken on purpose: a no-exec ring, a read-only rptr, no save area. */
void special_probe(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q, unsigned variant)
{
	drm_compute_userq_state st;
	Probe p;
	bool ok;

	if (!q->db()) {
		destroy_queue(t, c, q);
		return;
	}
	if (variant == 2) {
		p.name = "suspend-no-save-area";
		p.fault = DRM_COMPUTE_FAULT_UNMAPPED;
		p.check_va = true;
		p.fault_va = q->ctx_va;
		control(t, *q, DRM_COMPUTE_USERQ_OP_SUSPEND);
		queue_state(t, c, *q, &st);
		ok = true;
	} else {
		uint64_t nop[1];

		onenode_pkt_nop(nop, 1);
		p.name = variant == 0 ? "ring-noexec" : "rptr-readonly";
		p.fault = variant == 0 ? DRM_COMPUTE_FAULT_EXEC : DRM_COMPUTE_FAULT_WRITE;
		p.check_va = true;
		p.fault_va = variant == 0 ? q->t.ring_va : q->t.state_va;
		write_ring(*q, 0, { nop[0] });
		publish(t, *q, 8);
		ok = await(t, c, *q, 8, &st);
	}
	outcome(t, p.name, judge(t, *q, p, 8, ok, st));
	destroy_queue(t, c, q);
}

} // namespace

void run_probe(Thread &t, Ctx &c)
{
	const unsigned special = static_cast<unsigned>(t.rng.below(16));
	std::shared_ptr<Queue> q = special < 3 ? nullptr : healthy_queue(t, c);

	if (!q) {
		std::shared_ptr<Vm> vm;
		std::shared_ptr<Queue> old;

		{
			lock g(c.mu);
			if (!c.vms.empty())
				vm = t.rng.pick(c.vms);
			if (c.queues.size() >= t.run.lim.queues_per_ctx)
				old = c.queues.front();
		}
		if (old)
			destroy_queue(t, c, old);
		if (!vm)
			return;
		q = build_queue(t, c, vm, special < 3 ? special : 3 + static_cast<unsigned>(t.rng.below(13)));
		if (!q)
			return;
		if (special < 3) {
			special_probe(t, c, q, special);
			return;
		}
	}
	switch (t.rng.below(12)) {
	case 0:
		ctx_save_probe(t, c, q);
		break;
	case 1:
		suspend_mid_probe(t, c, q);
		break;
	default:
		packet_probe(t, c, q);
		break;
	}
}

} // namespace fuzz
