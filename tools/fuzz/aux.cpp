// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * aux.cpp: the calls around the compute uapi that its objects meet: GEM
 * close, CPU mappings (and a doorbell through another file), sync objects,
 * PRIME export and import (udmabuf for another device's buffers), and
 * operation numbers the uapi does not define.
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

/* ---- non-compute calls around the uapi: GEM, PRIME, sync objects ---- */

void gem_close(Thread &t)
{
	Ctx &c = t.ctx;
	drm_gem_close a{};
	std::shared_ptr<Bo> b;

	{
		lock g(c.mu);

		for (int i = 0; i < 4 && !c.bos.empty(); i++) {
			b = t.rng.pick(c.bos);
			if (!b->queue_part || t.rng.chance(1, 8))
				break;
			b = nullptr;
		}
		if (b)
			std::erase(c.bos, b);
	}
	if (b)
		a.handle = b->handle;
	else if (!c.exclusive)
		a.handle = static_cast<uint32_t>(t.rng.below(1 << 12));
	else
		a.handle = t.rng.chance(1, 2) ? 0 : (1u << 20) + static_cast<uint32_t>(t.rng.below(99));
	const int err = t.issue_raw(c.fd(), "GEM_CLOSE", DRM_IOCTL_GEM_CLOSE, &a, sizeof(a));

	lock g(c.mu);
	if (b && !err) {
		remember_dead(c, 0, b->handle);
		if (b->accounted)
			(b->placement == DRM_COMPUTE_PLACEMENT_VRAM ? t.run.vram_live :
								      t.run.system_live) -= b->size;
	} else if (b && c.exclusive) {
		t.mismatch("GEM_CLOSE of live handle " + std::to_string(b->handle) + " failed: " +
			   errno_name(err));
	}
}

/*
 * A doorbell is for its own file only: the exclusive thread maps one of its
 * live queues' doorbells through a shared file, which must fail (its queue
 * lives on, so no other object can have taken the offset).
 */
static void foreign_doorbell(Thread &t)
{
	std::shared_ptr<Queue> q;

	if (!t.ctx.exclusive || t.run.ctxs.size() < 2)
		return;
	{
		lock g(t.ctx.mu);
		for (auto &x : t.ctx.queues)
			if (x->db_offset && (!q || t.rng.chance(1, 4)))
				q = x;
	}
	if (!q)
		return;
	Ctx &other = *t.run.ctxs[1 + t.rng.below(t.run.ctxs.size() - 1)];
	void *p = mmap(nullptr, t.run.info.uq.doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       other.fd(), static_cast<off_t>(q->db_offset));

	t.stats.record("mmap/doorbell-other-file", p == MAP_FAILED ? errno : 0);
	if (p == MAP_FAILED)
		return;
	munmap(p, t.run.info.uq.doorbell_size);
	t.mismatch("the doorbell of queue " + std::to_string(q->id) + " (offset " +
		   std::to_string(q->db_offset) + ") mapped through another file, " + other.name);
}

void bo_cpu_map(Thread &t)
{
	Ctx &c = t.ctx;

	if (t.rng.chance(1, 8)) {
		foreign_doorbell(t);
		return;
	}
	auto b = pick_bo(t, false);
	Call call = make_call(DRM_COMPUTE_OP_BO_MMAP);

	if (!b)
		return;
	put(call, "handle", b->handle);
	if (t.issue(c.fd(), call, Expect::any()))
		return;
	const uint64_t off = out(call, "offset");
	const bool priv = t.rng.chance(1, 16), big = t.rng.chance(1, 16);
	const size_t len = big ? b->size + page(t) : b->size;
	auto m = std::make_shared<CpuMap>();

	m->p = mmap(nullptr, len, PROT_READ | PROT_WRITE, priv ? MAP_PRIVATE : MAP_SHARED, c.fd(),
		    static_cast<off_t>(off));
	t.stats.record(priv ? "mmap/private" : big ? "mmap/too-long" : "mmap",
		       m->p == MAP_FAILED ? errno : 0);
	if (m->p == MAP_FAILED)
		return;
	m->len = len;
	if (!big) {
		volatile uint8_t *p = static_cast<uint8_t *>(m->p);

		p[0] = p[0] + 1;
		p[len - 1] = p[len - 1];
	}
	if (c.exclusive && !big && !priv && b->size > page(t) && b->placement) {
		/* A second mapping from a page inside the object sees the same memory. */
		const uint64_t k = t.rng.range(1, b->size / page(t) - 1);
		const size_t plen = b->size - k * page(t);
		void *q = mmap(nullptr, plen, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd(),
			       static_cast<off_t>(off + k * page(t)));

		t.stats.record("mmap/inside", q == MAP_FAILED ? errno : 0);
		if (q != MAP_FAILED) {
			auto *full = static_cast<uint8_t *>(m->p) + k * page(t);
			auto *part = static_cast<uint8_t *>(q);
			const uint64_t tag = t.rng.next();

			memcpy(full, &tag, 8);
			if (memcmp(part, &tag, 8))
				t.mismatch("BO " + std::to_string(b->handle) + " mapped from page " +
					   std::to_string(k) + " shows other memory than page " +
					   std::to_string(k) + " of its full mapping");
			munmap(q, plen);
		}
	}
	lock g(c.mu);
	if (c.maps.size() > 64)
		c.maps.erase(c.maps.begin());
	c.maps.push_back(m);
}

void syncobj_op(Thread &t)
{
	Ctx &c = t.ctx;

	switch (t.rng.below(4)) {
	case 0: {
		drm_syncobj_create a{};

		a.flags = t.rng.chance(1, 4) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
		{
			lock g(c.mu);
			if (c.syncobjs.size() >= t.run.lim.syncobjs_per_ctx)
				return;
		}
		if (!t.issue_raw(c.fd(), "SYNCOBJ_CREATE", DRM_IOCTL_SYNCOBJ_CREATE, &a, sizeof(a))) {
			lock g(c.mu);
			c.syncobjs.push_back(a.handle);
			forget_dead(c, 3, a.handle);
		}
		break;
	}
	case 1: {
		drm_syncobj_destroy a{};

		{
			lock g(c.mu);
			if (c.syncobjs.empty())
				return;
			a.handle = t.rng.pick(c.syncobjs);
			std::erase(c.syncobjs, a.handle);
		}
		if (!t.issue_raw(c.fd(), "SYNCOBJ_DESTROY", DRM_IOCTL_SYNCOBJ_DESTROY, &a,
				 sizeof(a))) {
			lock g(c.mu);
			remember_dead(c, 3, a.handle);
		}
		break;
	}
	default: {
		uint32_t h = pick_syncobj(t);
		uint64_t point = t.rng.below(1 << 20);
		drm_syncobj_timeline_wait a{};

		if (!h)
			return;
		a.handles = reinterpret_cast<uintptr_t>(&h);
		a.points = reinterpret_cast<uintptr_t>(&point);
		a.count_handles = 1;
		a.timeout_nsec = static_cast<int64_t>(mono_ns() + t.rng.below(5'000'000));
		a.flags = t.rng.chance(1, 2) ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT : 0;
		t.issue_raw(c.fd(), "SYNCOBJ_TIMELINE_WAIT", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &a,
			    sizeof(a));
		break;
	}
	}
}

static Ctx *other_ctx(Thread &t)
{
	std::vector<Ctx *> v;

	for (auto &c : t.run.ctxs)
		if (c.get() != &t.ctx && !c->exclusive)
			v.push_back(c.get());
	return v.empty() ? nullptr : t.rng.pick(v);
}

/* A dma-buf of another device: udmabuf over a memfd; -1 without /dev/udmabuf. */
static int udmabuf_make(Thread &t)
{
	const size_t size = (1 + t.rng.below(16)) * 4096;
	udmabuf_create a{};
	int dev, mfd, buf;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	mfd = memfd_create("onenode-fuzz", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, static_cast<off_t>(size)) ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		if (mfd >= 0)
			close(mfd);
		close(dev);
		return -1;
	}
	a.memfd = static_cast<uint32_t>(mfd);
	a.flags = UDMABUF_FLAGS_CLOEXEC;
	a.size = size;
	buf = ioctl(dev, UDMABUF_CREATE, &a);
	t.stats.record("UDMABUF_CREATE", buf < 0 ? errno : 0);
	close(mfd);
	close(dev);
	return buf;
}

void prime_op(Thread &t)
{
	Ctx &c = t.ctx;

	if (t.rng.chance(1, 2)) {
		auto b = pick_bo(t, true);
		drm_prime_handle a{};

		if (!b)
			return;
		a.handle = b->handle;
		a.flags = DRM_CLOEXEC | (t.rng.chance(1, 2) ? DRM_RDWR : 0);
		if (t.issue_raw(c.fd(), "PRIME_HANDLE_TO_FD", DRM_IOCTL_PRIME_HANDLE_TO_FD, &a,
				sizeof(a)))
			return;
		lock g(c.mu);
		if (c.dmabufs.size() >= t.run.lim.dmabufs_per_ctx) {
			close(c.dmabufs.front().first);
			c.dmabufs.erase(c.dmabufs.begin());
		}
		/* An imported buffer exports the dma-buf it came from. */
		c.dmabufs.emplace_back(a.fd, !b->placement);
		return;
	}
	/* Import one of ours (same file), another shared context's, or a foreign one. */
	Ctx *src = t.rng.chance(1, 2) ? &c : other_ctx(t);
	drm_prime_handle a{};
	bool foreign = false;
	int fd = -1;

	if (t.rng.chance(1, 4)) {
		fd = udmabuf_make(t);
		foreign = fd >= 0;
	}
	if (fd < 0) {
		if (!src)
			return;
		lock g(src->mu);
		if (src->dmabufs.empty())
			return;
		const auto &d = t.rng.pick(src->dmabufs);

		fd = dup(d.first);
		foreign = d.second;
	}
	if (fd < 0)
		return;
	const off_t size = lseek(fd, 0, SEEK_END);

	a.fd = fd;
	const int err = t.issue_raw(c.fd(), foreign ? "PRIME_FD_TO_HANDLE/udmabuf" :
						      "PRIME_FD_TO_HANDLE",
				    DRM_IOCTL_PRIME_FD_TO_HANDLE, &a, sizeof(a));
	close(fd);
	if (err || size <= 0)
		return;
	lock g(c.mu);
	if (find_bo(c, a.handle) || c.bos.size() >= t.run.lim.bos_per_ctx)
		return; /* the same object: GEM gives its existing handle */
	auto b = std::make_shared<Bo>();

	b->handle = a.handle;
	b->size = static_cast<uint64_t>(size);
	b->placement = foreign ? 0 : DRM_COMPUTE_PLACEMENT_SYSTEM;
	forget_dead(c, 0, a.handle);
	c.bos.push_back(b);
}

/* ---- malformed requests ---- */

void unknown_op(Thread &t)
{
	Call c;

	c.op = static_cast<unsigned>(t.rng.range(DRM_COMPUTE_OP_COUNT, DRM_COMPUTE_OP_MAX - 1));
	c.usize = t.rng.below(257);
	c.arg.resize(c.usize);
	t.rng.fill(c.arg.data(), c.usize);
	c.dir = static_cast<unsigned>(t.rng.below(4));
	c.mode = "unknown-op";
	t.issue(t.ctx.fd(), c, Expect::any());
}

} // namespace fuzz
