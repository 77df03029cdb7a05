// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * exec.cpp: issuing calls. Every compute ioctl goes through
 * Thread::issue(), which builds the raw request number (any size, any
 * direction), puts guard bytes after the argument, interrupts a call that
 * blocks with a per-thread timer, and checks what the uapi promises: the
 * static rules, the documented errors, an unchanged argument after a
 * rejected call, nothing written past the size, and the model's
 * prediction when there is one.
 */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fuzz.hpp"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

namespace fuzz {
namespace {

constexpr size_t kGuard = 64;
constexpr size_t kRecent = 48;
constexpr uint8_t kGuardByte = 0xa5;

std::mutex registry_mu;
std::vector<Thread *> registry;
const auto t0 = std::chrono::steady_clock::now();

std::string fmt(const char *f, auto... a)
{
	char b[512];

	snprintf(b, sizeof(b), f, a...);
	return b;
}

bool is_wait(unsigned op)
{
	return op == DRM_COMPUTE_OP_USERQ_WAIT;
}

} // namespace

double now_s()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool Run::running() const
{
	if (stop.load(std::memory_order_relaxed))
		return false;
	if (max_iterations && iterations.load(std::memory_order_relaxed) >= max_iterations)
		return false;
	return std::chrono::steady_clock::now() < deadline;
}

uint64_t *Queue::rptr_cpu() const
{
	return reinterpret_cast<uint64_t *>(state->at(0));
}

drm_compute_doorbell *Queue::db() const
{
	return doorbell ? reinterpret_cast<drm_compute_doorbell *>(doorbell->at(db_pos)) : nullptr;
}

bool Expect::allows(int err) const
{
	return !active || std::ranges::find(errs, err) != errs.end();
}

bool Call::proper() const
{
	return op < DRM_COMPUTE_OP_COUNT && dir == (_IOC_READ | _IOC_WRITE) &&
	       usize == layout(op).size;
}

std::vector<uint8_t> view_of(const Call &c)
{
	const size_t ksize = c.op < DRM_COMPUTE_OP_COUNT ? layout(c.op).size : 0;

	return kernel_view(c.arg.data(), c.usize, c.dir & _IOC_WRITE, ksize);
}

void dump_every_thread(FILE *f)
{
	std::lock_guard<std::mutex> g(registry_mu);

	for (Thread *t : registry)
		t->dump_recent(f);
}

static void on_timer(int)
{
}

Thread::Thread(Run &r, unsigned i, Ctx &c) : run(r), idx(i), ctx(c), rng(r.seed, i + 1)
{
	struct sigaction sa {};
	sigevent sev{};
	timer_t tm;

	recent_.resize(kRecent);
	sa.sa_handler = on_timer;	/* no SA_RESTART: a blocked call returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, nullptr);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev.sigev_notify_thread_id = static_cast<pid_t>(syscall(SYS_gettid));
	if (!timer_create(CLOCK_MONOTONIC, &sev, &tm)) {
		timer_ = tm;
		timer_ok_ = true;
	}
	std::lock_guard<std::mutex> g(registry_mu);
	registry.push_back(this);
}

Thread::~Thread()
{
	if (timer_ok_)
		timer_delete(static_cast<timer_t>(timer_));
	std::lock_guard<std::mutex> g(registry_mu);
	std::erase(registry, this);
}

void Thread::arm(bool on)
{
	itimerspec its{};

	if (!timer_ok_)
		return;
	if (on) {
		its.it_value.tv_nsec = 100'000'000;
		its.it_interval.tv_nsec = 20'000'000;
	}
	timer_settime(static_cast<timer_t>(timer_), 0, &its, nullptr);
}

void Thread::remember(const OpRecord &r)
{
	std::lock_guard<std::mutex> g(recent_mu_);

	recent_[recent_pos_++ % kRecent] = r;
}

void Thread::dump_recent(FILE *f) const
{
	std::lock_guard<std::mutex> g(recent_mu_);
	const size_t n = std::min(recent_pos_, kRecent);

	fprintf(f, "recent calls of thread %u (%s), oldest first:\n", idx, ctx.name.c_str());
	for (size_t i = 0; i < n; i++) {
		const OpRecord &r = recent_[(recent_pos_ - n + i) % kRecent];

		fprintf(f, "  %.3f %s [%s] req=%#lx -> %s: %s\n", r.t, r.op.c_str(),
			r.mode.c_str(), r.req, errno_name(r.err).c_str(), r.arg.c_str());
	}
}

void Thread::mismatch(const std::string &what)
{
	report().mismatch(fmt("seed %#llx thread %u (%s) iteration %llu: ",
			      static_cast<unsigned long long>(run.seed), idx, ctx.name.c_str(),
			      static_cast<unsigned long long>(iter)) + what);
}

IdSource Thread::ids() const
{
	IdSource s;

	for (const auto &c : run.ctxs) {
		std::lock_guard<std::mutex> g(c->mu);

		if (c.get() == &ctx) {
			for (int k = 0; k < 4; k++)
				s.destroyed[k].assign(c->dead[k].begin(), c->dead[k].end());
			continue;
		}
		for (const auto &b : c->bos)
			if (s.other[0].size() < 16)
				s.other[0].push_back(b->handle);
		for (const auto &v : c->vms)
			s.other[1].push_back(v->id);
		for (const auto &q : c->queues)
			if (s.other[2].size() < 16)
				s.other[2].push_back(q->id);
		for (uint32_t h : c->syncobjs)
			if (s.other[3].size() < 16)
				s.other[3].push_back(h);
	}
	return s;
}

int Thread::issue(int fd, Call &c, const Expect &e)
{
	const bool known = c.op < DRM_COMPUTE_OP_COUNT;
	const std::vector<uint8_t> view = view_of(c);
	std::vector<uint8_t> buf(c.usize + kGuard, kGuardByte);
	const unsigned long req = _IOC(c.dir, DRM_IOCTL_BASE, DRM_COMMAND_BASE + ctx.base + c.op,
				       c.usize);
	std::string name = known ? layout(c.op).name : "UNKNOWN_OP";
	int err;

	if (c.arg.size() < c.usize)
		c.arg.resize(c.usize, 0);
	if (c.usize)
		memcpy(buf.data(), c.arg.data(), c.usize);
	const std::vector<uint8_t> before(buf.begin(), buf.begin() + c.usize);

	if (known && !c.proper())
		name += c.usize != layout(c.op).size ? "/size" : "/dir";
	/*
	 * A restore's BEGIN refuses every other call on its file until END:
	 * only the exclusive file's thread, which ends it at once, may begin.
	 */
	if (!ctx.exclusive && c.op == DRM_COMPUTE_OP_CRIU_RESTORE && c.usize >= 4 &&
	    get(layout(c.op), view.data(), "op") == DRM_COMPUTE_CRIU_RESTORE_BEGIN) {
		stats.record(name + "/skipped", 0);
		return EBUSY;
	}
	if (is_wait(c.op))
		arm(true);
	err = ioctl(fd, req, buf.data()) ? errno : 0;
	if (is_wait(c.op))
		arm(false);
	stats.record(name, err);
	run.iterations.fetch_add(1, std::memory_order_relaxed);

	OpRecord rec{ now_s(), name, c.mode, hex(before.data(), std::min<size_t>(c.usize, 128)),
		      req, err };
	remember(rec);
	if (run.trace) {
		std::lock_guard<std::mutex> g(run.trace_mu);

		fprintf(run.trace, "%.6f t%u %s %s fd=%d req=%#lx arg=%s -> %s\n", rec.t, idx,
			name.c_str(), c.mode.c_str(), fd, req, rec.arg.c_str(),
			errno_name(err).c_str());
	}

	auto fail = [&](const std::string &why) {
		std::string m = name + " [" + c.mode + "] " +
				fmt("req=%#lx (dir %u, size %zu)", req, c.dir, c.usize) + " -> " +
				errno_name(err) + ": " + why + "; arg " + rec.arg;

		if (known)
			m += "; kernel view: " + describe(layout(c.op), view.data());
		mismatch(m);
	};

	if (std::any_of(buf.begin() + c.usize, buf.end(),
			[](uint8_t b) { return b != kGuardByte; }))
		fail("the kernel wrote past the size the request encodes");
	if (err && c.dir == (_IOC_READ | _IOC_WRITE) && c.usize &&
	    memcmp(buf.data(), before.data(), c.usize))
		fail("a rejected call changed its argument: after " +
		     hex(buf.data(), std::min<size_t>(c.usize, 128)));
	if (c.usize)
		memcpy(c.arg.data(), buf.data(), c.usize);

	if (!known) {
		if (!err)
			fail("an unknown operation number succeeded");
		return err;
	}
	/*
	 * A file left paused refuses new queues: resume it at once. The
	 * kernel's view decides (a shorter or write-only request may pause).
	 */
	if (!err && c.op == DRM_COMPUTE_OP_CRIU_PAUSE &&
	    get(layout(c.op), view.data(), "op") == DRM_COMPUTE_CRIU_OP_PAUSE) {
		drm_compute_criu_pause r{};
		int rerr;

		r.op = DRM_COMPUTE_CRIU_OP_RESUME;
		rerr = issue_raw(fd, "CRIU_PAUSE/resume",
				 DRM_IOWR(DRM_COMMAND_BASE + ctx.base + DRM_COMPUTE_OP_CRIU_PAUSE,
					  drm_compute_criu_pause), &r, sizeof(r));
		/* Another thread may have resumed a shared file first. */
		if (rerr && rerr != EALREADY)
			fail("the resume after the pause failed: " + errno_name(rerr));
	}
	/* A file left restoring refuses everything: end the restore at once. */
	if (!err && c.op == DRM_COMPUTE_OP_CRIU_RESTORE &&
	    get(layout(c.op), view.data(), "op") == DRM_COMPUTE_CRIU_RESTORE_BEGIN) {
		drm_compute_criu_restore r{};
		int rerr;

		r.op = DRM_COMPUTE_CRIU_RESTORE_END;
		rerr = issue_raw(fd, "CRIU_RESTORE/end",
				 DRM_IOWR(DRM_COMMAND_BASE + ctx.base + DRM_COMPUTE_OP_CRIU_RESTORE,
					  drm_compute_criu_restore), &r, sizeof(r));
		if (rerr)
			fail("the end after the restore's begin failed: " + errno_name(rerr));
	}
	MaskReader mask = [this](uint64_t p, uint32_t *w, size_t n) {
		if (!in_scratch(p, n * 4))
			return false;
		memcpy(w, reinterpret_cast<const void *>(p), n * 4);
		return true;
	};
	const Verdict v = static_verdict(c.op, view.data(), run.info, false, &mask);

	if (v.must_fail) {
		if (!err)
			fail("must fail (" + v.why + ") but succeeded");
		else if (!v.errs.empty() && std::ranges::find(v.errs, err) == v.errs.end())
			fail("must fail with " + errno_name(v.errs[0]) + " (" + v.why + ")");
		return err;
	}
	if (err && !documented(c.op, err))
		fail("an errno the uapi does not list for this operation");
	if (!e.allows(err)) {
		std::string want;

		for (int x : e.errs)
			want += (want.empty() ? "" : "|") + errno_name(x);
		fail("expected " + want + " (" + e.why + ")");
	}
	return err;
}

int Thread::issue_raw(int fd, const char *name, unsigned long req, void *arg, size_t size)
{
	const bool blocks = req == DRM_IOCTL_SYNCOBJ_WAIT || req == DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT;
	OpRecord rec{ now_s(), name, "raw", hex(static_cast<uint8_t *>(arg), std::min<size_t>(size, 64)),
		      req, 0 };
	int err;

	if (blocks)
		arm(true);
	err = ioctl(fd, req, arg) ? errno : 0;
	if (blocks)
		arm(false);
	rec.err = err;
	stats.record(name, err);
	run.iterations.fetch_add(1, std::memory_order_relaxed);
	remember(rec);
	if (run.trace) {
		std::lock_guard<std::mutex> g(run.trace_mu);

		fprintf(run.trace, "%.6f t%u %s fd=%d req=%#lx arg=%s -> %s\n", rec.t, idx, name, fd,
			req, rec.arg.c_str(), errno_name(err).c_str());
	}
	return err;
}

} // namespace fuzz
