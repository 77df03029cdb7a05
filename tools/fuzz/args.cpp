// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * args.cpp: the arguments of one compute call: valid from the pool, one
 * field mutated, random bytes, or another size or direction; and the
 * safety filters that keep the kernel from writing into the fuzzer or
 * allocating beyond the memory caps.
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

void wrong_size(Thread &t, Call &c)
{
	const size_t k = layout(c.op).size;
	static constexpr int delta[] = { -8, -4, -1, 1, 4, 8, 64 };
	size_t n;

	switch (t.rng.below(4)) {
	case 0: n = 0; break;
	case 1: n = t.rng.below(k); break;
	case 2: n = k + t.rng.below(4096); break;
	default: n = static_cast<size_t>(std::max<long>(0, static_cast<long>(k) + t.rng.pick(delta)));
	}
	n = std::min<size_t>(n, (1 << _IOC_SIZEBITS) - 1);
	c.arg.resize(std::max(n, k), 0);
	if (n > k)
		t.rng.fill(c.arg.data() + k, n - k);
	c.usize = n;
	if (t.rng.chance(1, 4))
		c.dir = static_cast<unsigned>(t.rng.below(3)); /* none, write, read */
	c.mode += "+size" + std::to_string(n) + "/dir" + std::to_string(c.dir);
}

void apply_mode(Thread &t, Call &c)
{
	const OpLayout &l = layout(c.op);
	const unsigned m = static_cast<unsigned>(t.rng.below(100));

	if (m < 50) {
		c.mode = "valid";
	} else if (m < 82) {
		IdSource ids = t.ids();
		Mutation mu = mutate_one(c.arg.data(), l, page(t), t.rng, &ids);

		c.mode = std::string("mut:") + l.fields[mu.field].name + ":" + boundary_name(mu.cls);
	} else if (m < 92) {
		random_arg(c.arg.data(), l, t.rng);
		c.mode = "random";
	} else {
		c.mode = "valid";
	}
	if (t.rng.chance(1, 12))
		wrong_size(t, c);
}

/* ---- safety: nothing the kernel may do to us or to the VM ---- */

bool canonical_user(uint64_t p)
{
	return p < (1ULL << 47);
}

/* Keep pointers the kernel writes through away from the fuzzer's memory. */
void safe_query(Thread &t, Call &c)
{
	const std::vector<uint8_t> v = view_of(c);
	const uint64_t data = vget(c.op, v, "data");
	const uint64_t na = reinterpret_cast<uintptr_t>(t.run.noaccess);

	if (!vget(c.op, v, "size") || !data || !canonical_user(data))
		return;
	if (t.in_scratch(data, 256))
		return;
	if (data >= na && data < na + 4096)
		return;
	const Field &df = layout(c.op).fields[field_index(layout(c.op), "data")];

	if (static_cast<size_t>(df.offset) + 8 <= c.usize)
		put(c, "data", na);
	else
		c.arg.assign(c.arg.size(), 0); /* cannot reach: keep a harmless zero view */
}

/*
 * A GET writes its answers through attrs: keep that away from the fuzzer's
 * memory too (only a device with SVM ever writes there).
 */
void safe_svm(Thread &t, Call &c)
{
	const std::vector<uint8_t> v = view_of(c);
	const uint64_t attrs = vget(c.op, v, "attrs");
	const uint64_t n = std::min<uint64_t>(vget(c.op, v, "nattr"), DRM_COMPUTE_SVM_MAX_ATTRS);
	const uint64_t na = reinterpret_cast<uintptr_t>(t.run.noaccess);

	if (vget(c.op, v, "op") != DRM_COMPUTE_SVM_OP_GET_ATTR || !attrs || !canonical_user(attrs))
		return;
	if (t.in_scratch(attrs, n * sizeof(drm_compute_svm_attr)))
		return;
	if (attrs >= na && attrs < na + 4096)
		return;
	const Field &af = layout(c.op).fields[field_index(layout(c.op), "attrs")];

	if (static_cast<size_t>(af.offset) + 8 <= c.usize)
		put(c, "attrs", na);
	else
		c.arg.assign(c.arg.size(), 0);
}

/* A buffer the kernel would really allocate must fit the memory caps. */
void safe_bo_create(Thread &t, Call &c)
{
	const std::vector<uint8_t> v = view_of(c);
	const uint64_t size = vget(c.op, v, "size"), pl = vget(c.op, v, "placement");
	const Limits &lim = t.run.lim;
	bool dangerous;

	if (static_verdict(c.op, v.data(), t.run.info, true, nullptr).must_fail)
		return;
	if (pl == DRM_COMPUTE_PLACEMENT_VRAM)
		dangerous = size <= t.run.info.dev.vram_size &&
			    t.run.vram_live.load() + size > lim.vram_bytes;
	else
		dangerous = size >= (1ULL << 40) ? !lim.huge_bo :
			    t.run.system_live.load() + size > lim.system_bytes;
	if (!dangerous)
		return;
	if (c.usize >= 8 && (c.dir & _IOC_WRITE))
		put(c, "size", page(t));
	else
		c.arg.assign(c.arg.size(), 0);
	c.mode += "+capped";
}

/* ---- valid arguments from the pool ---- */

void fill_valid(Thread &t, Call &c)
{
	Rng &r = t.rng;
	const DevInfo &d = t.run.info;
	const uint64_t p = page(t);

	switch (c.op) {
	case DRM_COMPUTE_OP_QUERY: {
		static constexpr uint32_t sizes[] = { 0, 1, 8, 56, 64, 80, 128, 256 };

		put(c, "query", r.below(DRM_COMPUTE_QUERY_COUNT));
		put(c, "size", r.pick(sizes));
		put(c, "data", scratch_ptr(t, 256));
		break;
	}
	case DRM_COMPUTE_OP_BO_CREATE: {
		static constexpr uint64_t pages[] = { 1, 1, 2, 3, 4, 16, 64, 256, 1024 };

		put(c, "size", r.pick(pages) * p);
		put(c, "placement", r.chance(1, 2) ? DRM_COMPUTE_PLACEMENT_VRAM :
						     DRM_COMPUTE_PLACEMENT_SYSTEM);
		/* Now and then a buffer made for export, with its placement. */
		if (r.chance(1, 4)) {
			const bool vram = get(layout(c.op), c.arg.data(), "placement") ==
					  DRM_COMPUTE_PLACEMENT_VRAM;

			put(c, "flags", !vram ? DRM_COMPUTE_BO_EXPORT_HOST_ONLY :
				       r.chance(1, 2) ? DRM_COMPUTE_BO_EXPORT_PREFER_P2P :
							DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P);
		}
		break;
	}
	case DRM_COMPUTE_OP_P2P_REPORT: {
		static constexpr uint32_t counts[] = { 0, 1, 4 };
		const uint32_t n = r.pick(counts);

		if (auto b = pick_bo(t, false))
			put(c, "handle", b->handle);
		put(c, "count", n);
		put(c, "attachments", n ? scratch_ptr(t, n * sizeof(drm_compute_p2p_attachment)) : 0);
		break;
	}
	case DRM_COMPUTE_OP_BO_MMAP:
		if (auto b = pick_bo(t, false))
			put(c, "handle", b->handle);
		break;
	case DRM_COMPUTE_OP_VM_DESTROY:
	case DRM_COMPUTE_OP_VM_CREATE:
		if (auto v = pick_vm(t); v && c.op == DRM_COMPUTE_OP_VM_DESTROY)
			put(c, "vm_id", v->id);
		break;
	case DRM_COMPUTE_OP_VM_BIND: {
		auto v = pick_vm(t);

		if (v)
			put(c, "vm_id", v->id);
		if (r.chance(3, 5)) {
			auto b = pick_bo(t, true);
			const uint64_t size = b ? b->size : p;
			const uint64_t off = r.below(size / p) * p;
			const uint64_t range = (1 + r.below((size - off) / p)) * p;

			put(c, "op", DRM_COMPUTE_VM_BIND_OP_MAP);
			put(c, "handle", b ? b->handle : 0);
			put(c, "bo_offset", off);
			put(c, "range", range);
			put(c, "va", random_va(t, range));
			put(c, "flags", r.below(4));
		} else {
			uint64_t va = random_va(t, p), range = (1 + r.below(64)) * p;

			if (v && r.chance(3, 4)) {
				lock g(t.ctx.mu);

				if (!v->maps.empty()) {
					auto it = v->maps.begin();

					std::advance(it, r.below(v->maps.size()));
					va = it->second.va;
					range = it->second.range;
					if (r.chance(1, 3) && range > p) {
						va += p;
						range -= p;
					} else if (r.chance(1, 3)) {
						range += p * r.below(16);
					}
				}
			}
			put(c, "op", DRM_COMPUTE_VM_BIND_OP_UNMAP);
			put(c, "va", va);
			put(c, "range", range);
		}
		break;
	}
	case DRM_COMPUTE_OP_USERQ_CREATE: {
		static constexpr uint64_t rings[] = { 4096, 8192, 65536, 1 << 20, 4 << 20 };
		auto v = pick_vm(t);
		const uint64_t ring = r.pick(rings);
		const uint64_t base = d.dev.va_start + (r.below(t.run.lim.va_window / ring) + 1) * ring;

		if (v)
			put(c, "vm_id", v->id);
		put(c, "format", DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE);
		put(c, "priority", r.below(d.uq.num_priorities));
		if (r.chance(1, 3)) {
			uint64_t ptr = scratch_ptr(t, 8);
			const uint32_t all = d.uq.num_cus >= 32 ? ~0u : (1u << d.uq.num_cus) - 1;
			uint32_t w = static_cast<uint32_t>(r.range(1, all));

			memcpy(reinterpret_cast<void *>(ptr), &w, 4);
			put(c, "cu_mask_ptr", ptr);
			put(c, "cu_mask_count", 32);
		}
		put(c, "ring_va", base);
		put(c, "ring_size", ring);
		put(c, "rptr_va", base + ring + p);
		put(c, "ctx_save_va", base + ring + 2 * p);
		put(c, "ctx_save_size", d.uq.ctx_save_size);
		break;
	}
	case DRM_COMPUTE_OP_SVM: {
		static constexpr uint32_t types[] = {
			DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC,
			DRM_COMPUTE_SVM_ATTR_ACCESS, DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE,
			DRM_COMPUTE_SVM_ATTR_NO_ACCESS, DRM_COMPUTE_SVM_ATTR_SET_FLAGS,
			DRM_COMPUTE_SVM_ATTR_CLR_FLAGS, DRM_COMPUTE_SVM_ATTR_GRANULARITY,
		};
		const uint32_t n = static_cast<uint32_t>(r.range(1, 8));
		const uint64_t ptr = scratch_ptr(t, n * sizeof(drm_compute_svm_attr));
		const uint64_t size = (1 + r.below(16)) * p;
		auto v = pick_vm(t);

		/* Mostly sensible attributes: this device, system memory, known flags. */
		for (uint32_t i = 0; i < n; i++) {
			drm_compute_svm_attr a{ r.pick(types), 0 };

			switch (a.type) {
			case DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC:
			case DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC:
				a.value = r.chance(1, 2) ? d.dev.device_id :
					  DRM_COMPUTE_SVM_LOCATION_SYSMEM;
				break;
			case DRM_COMPUTE_SVM_ATTR_SET_FLAGS:
			case DRM_COMPUTE_SVM_ATTR_CLR_FLAGS:
				a.value = static_cast<uint32_t>(r.below(DRM_COMPUTE_SVM_FLAGS_KNOWN + 1));
				break;
			case DRM_COMPUTE_SVM_ATTR_GRANULARITY:
				a.value = static_cast<uint32_t>(r.below(10));
				break;
			default:
				a.value = d.dev.device_id;
				break;
			}
			memcpy(reinterpret_cast<void *>(ptr + i * sizeof(a)), &a, sizeof(a));
		}
		if (v)
			put(c, "vm_id", v->id);
		put(c, "op", r.chance(1, 2) ? DRM_COMPUTE_SVM_OP_SET_ATTR : DRM_COMPUTE_SVM_OP_GET_ATTR);
		put(c, "start", random_va(t, size));
		put(c, "size", size);
		put(c, "attrs", ptr);
		put(c, "nattr", n);
		break;
	}
	case DRM_COMPUTE_OP_USERQ_DESTROY:
	case DRM_COMPUTE_OP_USERQ_CONTROL:
	case DRM_COMPUTE_OP_USERQ_STATE:
	case DRM_COMPUTE_OP_USERQ_WAIT:
	case DRM_COMPUTE_OP_USERQ_SIGNAL: {
		auto q = pick_queue(t);

		if (q)
			put(c, "queue_id", q->id);
		if (c.op == DRM_COMPUTE_OP_USERQ_CONTROL)
			put(c, "op", r.range(DRM_COMPUTE_USERQ_OP_SUSPEND, DRM_COMPUTE_USERQ_OP_WAKE));
		if (c.op == DRM_COMPUTE_OP_USERQ_WAIT) {
			const uint64_t f = q ? q->fence : 0;

			put(c, "value", r.chance(1, 2) ? f : f + r.range(1, 3));
			switch (r.below(4)) {
			case 0: put(c, "timeout_nsec", 0); break;
			case 1: put(c, "timeout_nsec", mono_ns() - 1000); break;
			case 2: put(c, "timeout_nsec", mono_ns() + r.below(1'000'000)); break;
			default: put(c, "timeout_nsec", mono_ns() + r.below(20'000'000)); break;
			}
		}
		if (c.op == DRM_COMPUTE_OP_USERQ_SIGNAL) {
			const uint64_t f = q ? q->fence : 0;

			put(c, "handle", pick_syncobj(t));
			put(c, "value", r.chance(1, 2) ? f : f + r.range(1, 4));
			put(c, "point", r.chance(1, 2) ? 0 : r.range(1, 1 << 20));
		}
		break;
	}
	default:
		break;
	}
}

} // namespace

/** compute_op() - one call of @op with an argument of a random mode. */
void compute_op(Thread &t, unsigned op)
{
	Call c = make_call(op);

	fill_valid(t, c);
	apply_mode(t, c);
	if (op == DRM_COMPUTE_OP_QUERY)
		safe_query(t, c);
	if (op == DRM_COMPUTE_OP_BO_CREATE)
		safe_bo_create(t, c);
	if (op == DRM_COMPUTE_OP_SVM)
		safe_svm(t, c);
	run_call(t, c);
}

} // namespace fuzz
