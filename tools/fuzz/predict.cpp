// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * predict.cpp: the exclusive context's model at work. predict() says what
 * the kernel must answer to the view it gets of an argument, apply()
 * learns from a success (and checks the outputs), learn_failure() from an
 * error; run_call() puts a call through all of it.
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

/* The exclusive context's prediction, from the kernel's view @v. */
Expect predict(Thread &t, const Call &call, const std::vector<uint8_t> &v)
{
	Ctx &c = t.ctx;
	const unsigned op = call.op;
	const DevInfo &d = t.run.info;
	auto g = [&](const char *f) { return vget(op, v, f); };
	lock lk(c.mu);

	switch (op) {
	case DRM_COMPUTE_OP_QUERY: {
		const uint64_t data = g("data");

		if (!g("size") || t.in_scratch(data, 256))
			return Expect::of({ 0 }, "a known query into writable memory");
		return Expect::of({ 0, EFAULT }, "a known query");
	}
	case DRM_COMPUTE_OP_BO_CREATE:
		return Expect::of({ 0, ENOSPC, ENOMEM }, "valid size and placement");
	case DRM_COMPUTE_OP_BO_MMAP: {
		const Id id = certainty(c, 0, static_cast<uint32_t>(g("handle")),
					find_bo(c, static_cast<uint32_t>(g("handle"))));

		if (id == Id::Live)
			return Expect::of({ 0, ENOMEM }, "a live handle");
		if (id == Id::Gone)
			return Expect::of({ ENOENT }, "an unknown handle");
		return Expect::any();
	}
	case DRM_COMPUTE_OP_VM_CREATE: {
		const int n = static_cast<int>(c.vms.size() + c.ghost_vms);

		if (c.vm_limit >= 0 && n < c.vm_limit)
			return Expect::of({ 0, ENOMEM }, "below the VM limit seen");
		if (c.vm_limit >= 0)
			return Expect::of({ ENOSPC }, "at the VM limit seen");
		return Expect::of({ 0, ENOSPC, ENOMEM }, "a VM");
	}
	case DRM_COMPUTE_OP_VM_DESTROY: {
		Vm *vm = find_id(c.vms, static_cast<uint32_t>(g("vm_id")));
		const Id id = certainty(c, 1, static_cast<uint32_t>(g("vm_id")), vm);

		if (id == Id::Live && vm->queues_unsure)
			return Expect::any();
		if (id == Id::Live)
			return vm->queues ? Expect::of({ EBUSY }, "queues run on it") :
					    Expect::of({ 0 }, "a VM without queues");
		if (id == Id::Gone)
			return Expect::of({ ENOENT }, "an unknown VM");
		return Expect::any();
	}
	case DRM_COMPUTE_OP_VM_BIND: {
		Vm *vm = find_id(c.vms, static_cast<uint32_t>(g("vm_id")));
		const Id vid = certainty(c, 1, static_cast<uint32_t>(g("vm_id")), vm);
		std::vector<int> errs;
		bool unsure = vid == Id::Unsure;

		if (vid == Id::Gone)
			errs.push_back(ENOENT);
		if (g("op") == DRM_COMPUTE_VM_BIND_OP_MAP) {
			const uint32_t h = static_cast<uint32_t>(g("handle"));
			Bo *b = find_bo(c, h);
			const Id bid = certainty(c, 0, h, b);

			if (bid == Id::Gone)
				errs.push_back(ENOENT);
			unsure |= bid == Id::Unsure;
			if (b && !b->placement)
				errs.push_back(EOPNOTSUPP);
			if (b && g("bo_offset") + g("range") > b->size)
				errs.push_back(EINVAL);
			if (vm && vm->overlaps(g("va"), g("range")))
				errs.push_back(EINVAL);
		}
		if (unsure)
			return Expect::any();
		if (errs.empty())
			return Expect::of({ 0, ENOMEM }, "a valid bind on the model");
		Expect e = Expect::of({}, "the model says it fails");

		e.errs = errs;
		return e;
	}
	case DRM_COMPUTE_OP_USERQ_CREATE: {
		Vm *vm = find_id(c.vms, static_cast<uint32_t>(g("vm_id")));
		const Id vid = certainty(c, 1, static_cast<uint32_t>(g("vm_id")), vm);
		const uint64_t mp = g("cu_mask_ptr");
		const bool mask_ok = !g("cu_mask_count") || t.in_scratch(mp, 8);
		const bool full = c.queues.size() + c.ghost_queues >= d.uq.max_queues;

		if (vid == Id::Unsure || !mask_ok)
			return Expect::any();
		if (vid == Id::Gone)
			return Expect::of({ ENOENT }, "an unknown VM");
		if (!d.privileged && g("priority") >= d.uq.priority_privileged)
			return Expect::of({ EACCES }, "a privileged priority");
		return full ? Expect::of({ ENOSPC }, "max_queues reached") :
			      Expect::of({ 0, ENOMEM }, "valid queue arguments");
	}
	case DRM_COMPUTE_OP_USERQ_DESTROY:
	case DRM_COMPUTE_OP_USERQ_CONTROL:
	case DRM_COMPUTE_OP_USERQ_STATE:
	case DRM_COMPUTE_OP_USERQ_WAIT:
	case DRM_COMPUTE_OP_USERQ_SIGNAL: {
		const uint32_t qid = static_cast<uint32_t>(g("queue_id"));
		Queue *q = find_id(c.queues, qid);
		const Id id = certainty(c, 2, qid, q);

		if (id == Id::Gone)
			return Expect::of({ ENOENT }, "an unknown queue");
		if (id == Id::Unsure)
			return Expect::any();
		switch (op) {
		case DRM_COMPUTE_OP_USERQ_DESTROY:
		case DRM_COMPUTE_OP_USERQ_STATE:
			return Expect::of({ 0 }, "a live queue");
		case DRM_COMPUTE_OP_USERQ_CONTROL:
			switch (g("op")) {
			case DRM_COMPUTE_USERQ_OP_SUSPEND:
				if (q->suspended)
					return Expect::of({ EINVAL }, "suspend a suspended queue");
				/* dead: -EINVAL by OP_SUSPEND's text, -EIO by the struct's */
				return q->dead ? Expect::of({ EIO, EINVAL }, "suspend a dead queue") :
						 Expect::of({ 0, EIO }, "suspend an active queue");
			case DRM_COMPUTE_USERQ_OP_RESUME:
				if (q->suspended)
					return Expect::of({ 0 }, "resume a suspended queue");
				return Expect::of({ EINVAL, EIO }, "resume a queue not suspended");
			default:
				return q->dead ? Expect::of({ EIO }, "wake a dead queue") :
						 Expect::of({ 0, EIO }, "wake a queue");
			}
		case DRM_COMPUTE_OP_USERQ_WAIT: {
			const int64_t to = static_cast<int64_t>(g("timeout_nsec"));

			if (g("value") <= q->fence)
				return Expect::of({ 0 }, "the fence already reached the value");
			if (q->dead)
				return Expect::of({ EIO }, "a dead queue below the value");
			if (to <= static_cast<int64_t>(mono_ns()) && !q->broken)
				return Expect::of({ ETIME, 0, EIO }, "a poll below the value");
			return Expect::of({ 0, ETIME, EIO, EINTR }, "a wait");
		}
		default: {
			const uint32_t so = static_cast<uint32_t>(g("handle"));
			const bool live = std::ranges::find(c.syncobjs, so) != c.syncobjs.end();
			const Id sid = certainty(c, 3, so, live);

			if (sid == Id::Gone)
				return Expect::of({ ENOENT }, "an unknown sync object");
			if (sid == Id::Unsure)
				return Expect::any();
			if (q->dead)
				return Expect::of({ EIO }, "a dead queue");
			if (q->signals >= 1000)
				return Expect::any();
			return Expect::of({ 0, EIO, ENOMEM }, "a live queue and sync object");
		}
		}
	}
	case DRM_COMPUTE_OP_CRIU_INFO:
		/* Root, but a forked child may not be the file's owner. */
		return Expect::of({ 0, EACCES }, "root, the owner or not");
	case DRM_COMPUTE_OP_CRIU_PAUSE:
		/*
		 * A pause is resumed at once (Thread::issue()); another
		 * thread's pause or resume may come between on a shared file.
		 */
		return Expect::of({ 0, EACCES, EALREADY, EBUSY }, "root, the owner or not");
	case DRM_COMPUTE_OP_CRIU_CHECKPOINT:
	case DRM_COMPUTE_OP_CRIU_RESTORE:
		/*
		 * Depends on the file's pause, its objects and the entries
		 * behind ptr; a BEGIN is ended at once (Thread::issue()).
		 */
		return Expect::any();
	default:
		return Expect::any();
	}
}

/*
 * A queue's state: consistent in itself (every context), and with what the
 * model knows (exclusive context). Called with the pool locked.
 */
void state_outputs(Thread &t, const Call &call, Queue *q)
{
	if (!out_ok(call, "reserved[1]"))
		return;
	drm_compute_userq_state st;

	memcpy(&st, call.arg.data(), sizeof(st));
	const bool dead = st.status == DRM_COMPUTE_USERQ_STATUS_FAULTED ||
			  st.status == DRM_COMPUTE_USERQ_STATUS_HUNG ||
			  st.status == DRM_COMPUTE_USERQ_STATUS_LOST;
	std::string bad;

	if (st.status < DRM_COMPUTE_USERQ_STATUS_IDLE || st.status > DRM_COMPUTE_USERQ_STATUS_LOST)
		bad = "an unknown status";
	else if (st.reserved[0] || st.reserved[1])
		bad = "non-zero reserved";
	else if (st.status == DRM_COMPUTE_USERQ_STATUS_IDLE && st.rptr != st.wptr)
		bad = "IDLE with rptr != wptr";
	else if (st.status == DRM_COMPUTE_USERQ_STATUS_RUNNING && st.rptr == st.wptr)
		bad = "RUNNING with rptr == wptr";
	else if (!dead && st.fault_reason != DRM_COMPUTE_FAULT_NONE)
		bad = "a fault reason on a live queue";
	else if (st.status == DRM_COMPUTE_USERQ_STATUS_FAULTED &&
		 (st.fault_reason < DRM_COMPUTE_FAULT_UNMAPPED ||
		  (st.fault_reason > DRM_COMPUTE_FAULT_TIMEOUT &&
		   st.fault_reason != DRM_COMPUTE_FAULT_NOMIRROR &&
		   st.fault_reason != DRM_COMPUTE_FAULT_SVM_BUSY &&
		   st.fault_reason != DRM_COMPUTE_FAULT_JOB_TIMEOUT)))
		bad = "FAULTED with a reason that is not a fault";
	else if (st.status == DRM_COMPUTE_USERQ_STATUS_HUNG &&
		 st.fault_reason != DRM_COMPUTE_FAULT_HANG)
		bad = "HUNG without FAULT_HANG";
	else if (st.status == DRM_COMPUTE_USERQ_STATUS_LOST &&
		 st.fault_reason != DRM_COMPUTE_FAULT_LOST)
		bad = "LOST without FAULT_LOST";
	else if (q && t.ctx.exclusive && q->priority != st.priority)
		bad = "priority " + std::to_string(st.priority) + ", created with " +
		      std::to_string(q->priority);
	else if (q && t.ctx.exclusive && q->suspended && st.status != DRM_COMPUTE_USERQ_STATUS_SUSPENDED)
		bad = "not SUSPENDED after a SUSPEND";
	else if (q && t.ctx.exclusive && q->dead && q->dead_status &&
		 (st.status != q->dead_status || st.fault_reason != q->dead_reason))
		bad = "a dead queue changed state (was " + std::to_string(q->dead_status) + "/" +
		      std::to_string(q->dead_reason) + ")";
	else if (q && t.ctx.exclusive && !q->suspended &&
		 st.status == DRM_COMPUTE_USERQ_STATUS_SUSPENDED)
		bad = "SUSPENDED without a SUSPEND";
	if (!bad.empty())
		t.mismatch("USERQ_STATE of queue " + std::to_string(st.queue_id) + ": " + bad +
			   " (" + describe(layout(call.op), call.arg.data()) + ")");
	if (q && dead) {
		q->dead = true;
		if (!q->dead_status) {
			q->dead_status = st.status;
			q->dead_reason = st.fault_reason;
		}
		tally_fault(t, *q, st);
	}
}

/* What a successful call changed, in the pool; checks on its outputs. */
void apply(Thread &t, const Call &call, const std::vector<uint8_t> &v)
{
	Ctx &c = t.ctx;
	const unsigned op = call.op;
	auto g = [&](const char *f) { return vget(op, v, f); };
	lock lk(c.mu);

	switch (op) {
	case DRM_COMPUTE_OP_QUERY:
		break; /* checked in query_outputs() */
	case DRM_COMPUTE_OP_BO_CREATE: {
		const uint64_t size = g("size"), pl = g("placement");
		auto b = std::make_shared<Bo>();

		(pl == DRM_COMPUTE_PLACEMENT_VRAM ? t.run.vram_live : t.run.system_live) += size;
		if (!out_ok(call, "handle")) {
			c.ghosts[0] = true;
			t.stats.event("ghost-bo");
			break;
		}
		b->handle = static_cast<uint32_t>(out(call, "handle"));
		b->size = size;
		b->placement = pl;
		b->accounted = true;
		if (!b->handle || (c.exclusive && find_bo(c, b->handle)))
			t.mismatch("BO_CREATE returned handle " + std::to_string(b->handle) +
				   ", zero or already live");
		forget_dead(c, 0, b->handle);
		c.bos.push_back(b);
		break;
	}
	case DRM_COMPUTE_OP_BO_MMAP:
		if (out_ok(call, "offset")) {
			const uint64_t off = out(call, "offset");

			if (!off || off % page(t))
				t.mismatch("BO_MMAP gave offset " + std::to_string(off));
		}
		break;
	case DRM_COMPUTE_OP_VM_CREATE: {
		auto vm = std::make_shared<Vm>();

		if (!out_ok(call, "vm_id")) {
			c.ghosts[1] = true;
			c.ghost_vms++;
			break;
		}
		vm->id = static_cast<uint32_t>(out(call, "vm_id"));
		vm->next_va = t.run.info.dev.va_start + (1 << 20);
		if (!vm->id || (c.exclusive && find_id(c.vms, vm->id)))
			t.mismatch("VM_CREATE returned vm_id " + std::to_string(vm->id) +
				   ", zero or already live");
		forget_dead(c, 1, vm->id);
		c.vms.push_back(vm);
		break;
	}
	case DRM_COMPUTE_OP_VM_DESTROY: {
		const uint32_t id = static_cast<uint32_t>(g("vm_id"));

		if (std::erase_if(c.vms, [&](auto &x) { return x->id == id; }))
			remember_dead(c, 1, id);
		else if (c.ghost_vms)
			c.ghost_vms--;
		break;
	}
	case DRM_COMPUTE_OP_VM_BIND: {
		Vm *vm = find_id(c.vms, static_cast<uint32_t>(g("vm_id")));

		if (!vm)
			break;
		if (g("op") == DRM_COMPUTE_VM_BIND_OP_MAP)
			vm->maps[g("va")] = Mapping{ g("va"), g("range"), g("bo_offset"), g("flags"),
						     static_cast<uint32_t>(g("handle")) };
		else
			vm->unmap(g("va"), g("range"));
		/* A bind inside a queue's region changes what its probes would see. */
		for (auto &q : c.queues)
			if (q->vm == vm->id && q->built && g("va") < q->t.nx_va + q->t.nx_size &&
			    g("va") + g("range") > q->t.ring_va)
				q->broken = true;
		break;
	}
	case DRM_COMPUTE_OP_USERQ_CREATE: {
		auto q = std::make_shared<Queue>();
		Vm *vm = find_id(c.vms, static_cast<uint32_t>(g("vm_id")));

		if (vm)
			vm->queues++;
		if (!out_ok(call, "queue_id")) {
			c.ghosts[2] = true;
			c.ghost_queues++;
			if (vm)
				vm->ghost_queues++;
			t.stats.event("ghost-queue");
			break;
		}
		q->id = static_cast<uint32_t>(out(call, "queue_id"));
		q->vm = static_cast<uint32_t>(g("vm_id"));
		q->priority = static_cast<uint32_t>(g("priority"));
		q->broken = true; /* no memory of ours behind it */
		if (!q->id || (c.exclusive && find_id(c.queues, q->id)))
			t.mismatch("USERQ_CREATE [" + call.mode + "] returned queue_id " +
				   std::to_string(q->id) + ", zero or already live; argument after: " +
				   hex(call.arg.data(), call.usize));
		if (out_ok(call, "doorbell_offset")) {
			const uint64_t off = out(call, "doorbell_offset");
			const uint64_t pos = out(call, "doorbell_pos");

			if (!off || off % page(t) || pos % 8 ||
			    pos + 8 > t.run.info.uq.doorbell_size)
				t.mismatch("USERQ_CREATE doorbell offset " + std::to_string(off) +
					   " pos " + std::to_string(pos));
		}
		forget_dead(c, 2, q->id);
		c.queues.push_back(q);
		break;
	}
	case DRM_COMPUTE_OP_USERQ_DESTROY: {
		const uint32_t id = static_cast<uint32_t>(g("queue_id"));

		for (auto &q : c.queues)
			if (q->id == id)
				if (Vm *vm = find_id(c.vms, q->vm))
					vm->queues--;
		if (std::erase_if(c.queues, [&](auto &x) { return x->id == id; })) {
			remember_dead(c, 2, id);
		} else if (c.ghost_queues) {
			/* One of the queues never seen is gone: which VM it ran on is unknown. */
			c.ghost_queues--;
			for (auto &v : c.vms)
				if (v->ghost_queues)
					v->queues_unsure = true;
		}
		break;
	}
	case DRM_COMPUTE_OP_USERQ_CONTROL:
		if (Queue *q = find_id(c.queues, static_cast<uint32_t>(g("queue_id")))) {
			if (g("op") == DRM_COMPUTE_USERQ_OP_SUSPEND)
				q->suspended = true;
			else if (g("op") == DRM_COMPUTE_USERQ_OP_RESUME)
				q->suspended = false;
		}
		break;
	case DRM_COMPUTE_OP_USERQ_STATE:
		state_outputs(t, call, find_id(c.queues, static_cast<uint32_t>(g("queue_id"))));
		break;
	case DRM_COMPUTE_OP_USERQ_WAIT:
		if (Queue *q = find_id(c.queues, static_cast<uint32_t>(g("queue_id"))))
			q->fence = std::max(q->fence, g("value"));
		break;
	case DRM_COMPUTE_OP_USERQ_SIGNAL:
		if (Queue *q = find_id(c.queues, static_cast<uint32_t>(g("queue_id"))))
			if (g("value") > q->fence)
				q->signals++;
		break;
	default:
		break;
	}
}

/* A failed call can still teach the model something. */
void learn_failure(Thread &t, const Call &call, const std::vector<uint8_t> &v, int err)
{
	Ctx &c = t.ctx;
	lock lk(c.mu);

	if (call.op == DRM_COMPUTE_OP_VM_CREATE && err == ENOSPC && c.exclusive &&
	    c.vm_limit < 0 && !static_verdict(call.op, v.data(), t.run.info, true, nullptr).must_fail)
		c.vm_limit = static_cast<int>(c.vms.size() + c.ghost_vms);
	if (err == EIO && (call.op == DRM_COMPUTE_OP_USERQ_CONTROL ||
			   call.op == DRM_COMPUTE_OP_USERQ_WAIT ||
			   call.op == DRM_COMPUTE_OP_USERQ_SIGNAL))
		if (Queue *q = find_id(c.queues,
				       static_cast<uint32_t>(vget(call.op, v, "queue_id"))))
			q->dead = true;
}

/* The QUERY answer is the same report every time (state-free). */
void query_outputs(Thread &t, const Call &call, const std::vector<uint8_t> &v)
{
	const uint32_t q = static_cast<uint32_t>(vget(call.op, v, "query"));
	const uint32_t in = static_cast<uint32_t>(vget(call.op, v, "size"));
	const uint64_t data = vget(call.op, v, "data");
	const uint32_t full = q == DRM_COMPUTE_QUERY_DEVICE ? sizeof(drm_compute_query_device) :
							     sizeof(drm_compute_query_userq);
	const void *ref = q == DRM_COMPUTE_QUERY_DEVICE ? static_cast<const void *>(&t.run.info.dev) :
							  static_cast<const void *>(&t.run.info.uq);

	if (!out_ok(call, "size"))
		return;
	const uint32_t got = static_cast<uint32_t>(out(call, "size"));
	const uint32_t want = in ? std::min(in, full) : full;

	if (got != want) {
		t.mismatch("QUERY " + std::to_string(q) + " with size " + std::to_string(in) +
			   " answered size " + std::to_string(got) + ", not " + std::to_string(want));
		return;
	}
	if (!in || !t.in_scratch(data, 256))
		return;
	/* hang_timeout_ms is read when the query runs: compare what comes before it */
	const uint32_t cmp = q == DRM_COMPUTE_QUERY_USERQ ?
			     std::min<uint32_t>(got, offsetof(drm_compute_query_userq, hang_timeout_ms)) :
			     got;

	if (memcmp(reinterpret_cast<const void *>(data), ref, cmp))
		t.mismatch("QUERY " + std::to_string(q) + " report differs from the first one: " +
			   hex(reinterpret_cast<const uint8_t *>(data), got));
}

} // namespace

int run_call(Thread &t, Call &c)
{
	const std::vector<uint8_t> v = view_of(c);
	const Expect e = t.ctx.exclusive ? predict(t, c, v) : Expect::any();
	const int err = t.issue(t.ctx.fd(), c, e);

	if (err) {
		learn_failure(t, c, v, err);
		return err;
	}
	if (c.op == DRM_COMPUTE_OP_QUERY)
		query_outputs(t, c, v);
	apply(t, c, v);
	return 0;
}

} // namespace fuzz
