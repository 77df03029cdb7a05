// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */
#include "rules.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "layout.hpp"
#include "vcompute_drm.h"

namespace fuzz {

DevInfo vcompute_info()
{
	DevInfo d;

	d.dev.features = DRM_COMPUTE_FEATURE_USERQ;
	d.dev.vram_size = 256ULL << 20;
	d.dev.placements = DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM;
	d.dev.va_start = 64 << 10;
	d.dev.va_end = 1ULL << 47;
	d.dev.page_size = 4096;
	d.uq.caps = DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP;
	d.uq.max_queues = 64;
	d.uq.num_priorities = 16;
	d.uq.priority_default = 7;
	d.uq.priority_privileged = 12;
	d.uq.num_cus = 8;
	d.uq.queue_formats = 1u << DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE;
	d.uq.ring_size_min = 4096;
	d.uq.ring_size_max = 4 << 20;
	d.uq.ctx_save_size = 4096;
	d.uq.doorbell_size = 4096;
	d.uq.hang_timeout_ms = 10000;
	return d;
}

const char *tier1_field(unsigned op, const uint8_t *view)
{
	const OpLayout &l = layout(op);

	for (const Field &f : l.fields) {
		const uint64_t v = field_get(view, f);

		switch (f.kind) {
		case Kind::Zero:
		case Kind::Out:
			if (v)
				return f.name;
			break;
		case Kind::Flags:
			/* A placement is a choice, not flags: its rule is the struct's. */
			if (strcmp(f.name, "placement") && (v & ~f.known))
				return f.name;
			break;
		default:
			break;
		}
	}
	return nullptr;
}

namespace {

bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

bool aligned(uint64_t v, uint64_t a)
{
	return a && !(v % a);
}

/* The listed -EINVAL conditions of each structure; "" when none holds. */
std::string einval_rule(unsigned op, const uint8_t *a, const DevInfo &d,
			const MaskReader *mask, bool &cu_unreadable)
{
	const OpLayout &l = layout(op);
	auto g = [&](const char *name) { return get(l, a, name); };
	const uint64_t page = d.dev.page_size;

	cu_unreadable = false;
	switch (op) {
	case DRM_COMPUTE_OP_QUERY:
		if (g("query") >= DRM_COMPUTE_QUERY_COUNT)
			return "unknown query";
		if (g("size") && !g("data"))
			return "size without data";
		return "";
	case DRM_COMPUTE_OP_BO_CREATE: {
		const uint64_t p = g("placement");

		if (!g("size") || !aligned(g("size"), page))
			return "size zero or unaligned";
		if (std::popcount(p) != 1 || (p & ~d.dev.placements))
			return "placement not exactly one the device has";
		if (std::popcount(g("flags")) > 1)
			return "more than one export flag";
		if (g("flags") == DRM_COMPUTE_BO_EXPORT_HOST_ONLY && p != DRM_COMPUTE_PLACEMENT_SYSTEM)
			return "HOST_ONLY outside system memory";
		if (g("flags") && g("flags") != DRM_COMPUTE_BO_EXPORT_HOST_ONLY &&
		    p != DRM_COMPUTE_PLACEMENT_VRAM)
			return "a P2P export flag outside VRAM";
		return "";
	}
	case DRM_COMPUTE_OP_P2P_REPORT:
		if (g("count") && !g("attachments"))
			return "count without attachments";
		return "";
	case DRM_COMPUTE_OP_VM_BIND: {
		const uint64_t op_ = g("op"), va = g("va"), range = g("range");
		const uint64_t off = g("bo_offset");
		uint64_t end;

		if (op_ == DRM_COMPUTE_VM_BIND_OP_MAP) {
			if (__builtin_add_overflow(off, range, &end))
				return "bo_offset + range overflows";
		} else if (op_ == DRM_COMPUTE_VM_BIND_OP_UNMAP) {
			if (g("flags") || g("handle") || off)
				return "UNMAP with flags, handle or bo_offset";
		} else {
			return "unknown op";
		}
		if (!range)
			return "zero range";
		if (!aligned(va | range | off, page))
			return "unaligned va, range or bo_offset";
		if (__builtin_add_overflow(va, range, &end))
			return "va + range overflows";
		if (va < d.dev.va_start || end > d.dev.va_end)
			return "outside the VA range";
		return "";
	}
	case DRM_COMPUTE_OP_USERQ_CREATE: {
		const uint64_t fmt = g("format"), ring = g("ring_size");
		const uint64_t count = g("cu_mask_count");
		const bool wptr_mem = d.uq.caps & DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY;

		if (fmt >= 32 || !(d.uq.queue_formats & (1u << fmt)))
			return "unknown format";
		if (g("priority") >= d.uq.num_priorities)
			return "priority past the levels";
		if (!pow2(ring) || ring < d.uq.ring_size_min || ring > d.uq.ring_size_max)
			return "ring size";
		if (!g("ring_va") || !aligned(g("ring_va"), ring))
			return "ring_va zero or unaligned";
		if (!g("rptr_va") || !aligned(g("rptr_va"), 8))
			return "rptr_va zero or unaligned";
		if (wptr_mem ? !g("wptr_va") || !aligned(g("wptr_va"), 8) : g("wptr_va") != 0)
			return "wptr_va";
#ifdef DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY
		if (d.uq.caps & DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY ?
			    !g("fence_va") || !aligned(g("fence_va"), 8) : g("fence_va") != 0)
			return "fence_va";
#endif
		if (d.uq.ctx_save_size) {
			if (!g("ctx_save_va") || !aligned(g("ctx_save_va"), page) ||
			    g("ctx_save_size") < d.uq.ctx_save_size)
				return "ctx save area";
		} else if (g("ctx_save_va") || g("ctx_save_size")) {
			return "ctx save area given";
		}
		if (count % 32 || count > ((d.uq.num_cus + 31) / 32) * 32)
			return "cu_mask_count";
		if (count) {
			uint32_t words[2] = {};
			const size_t n = count / 32;

			if (!mask || !(*mask)(g("cu_mask_ptr"), words, n)) {
				cu_unreadable = true;
				return "";
			}
			bool any = false;

			for (uint64_t i = 0; i < count; i++) {
				if (!(words[i / 32] & (1u << (i % 32))))
					continue;
				if (i >= d.uq.num_cus)
					return "CU mask bit past the last CU";
				any = true;
			}
			if (!any)
				return "CU mask enables no CU";
		}
		return "";
	}
	case DRM_COMPUTE_OP_USERQ_CONTROL: {
		const uint64_t o = g("op");

		if (o < DRM_COMPUTE_USERQ_OP_SUSPEND || o > DRM_COMPUTE_USERQ_OP_WAKE)
			return "unknown op";
		return "";
	}
	case DRM_COMPUTE_OP_CRIU_PAUSE: {
		const uint64_t o = g("op");

		if (o != DRM_COMPUTE_CRIU_OP_PAUSE && o != DRM_COMPUTE_CRIU_OP_RESUME)
			return "unknown op";
		return "";
	}
	case DRM_COMPUTE_OP_CRIU_CHECKPOINT: {
		const uint64_t o = g("op");

		if (o < DRM_COMPUTE_CRIU_CKPT_LIST_BOS || o > DRM_COMPUTE_CRIU_CKPT_BO_SHARE)
			return "unknown op";
		return "";
	}
	case DRM_COMPUTE_OP_CRIU_RESTORE: {
		const uint64_t o = g("op");

		if (o < DRM_COMPUTE_CRIU_RESTORE_BEGIN || o > DRM_COMPUTE_CRIU_RESTORE_SESSION)
			return "unknown op";
		if (g("flags") && o != DRM_COMPUTE_CRIU_RESTORE_END)
			return "a flag on an op other than END";
		if (g("session") && o != DRM_COMPUTE_CRIU_RESTORE_BOS)
			return "a session on an op other than BOS";
		return "";
	}
	case DRM_COMPUTE_OP_SVM: {
		const uint64_t o = g("op"), start = g("start"), size = g("size");
		uint64_t end;

		if (o != DRM_COMPUTE_SVM_OP_SET_ATTR && o != DRM_COMPUTE_SVM_OP_GET_ATTR)
			return "unknown op";
		if (!g("nattr") || g("nattr") > DRM_COMPUTE_SVM_MAX_ATTRS)
			return "nattr out of 1..DRM_COMPUTE_SVM_MAX_ATTRS";
		if (!size || !aligned(start | size, page))
			return "zero size, or unaligned start or size";
		if (__builtin_add_overflow(start, size, &end))
			return "start + size overflows";
		if (start < d.dev.va_start || end > d.dev.va_end)
			return "outside the VA range";
		return "";
	}
	default:
		return "";
	}
}

/*
 * -EOPNOTSUPP where the uapi says so for the feature: before the other
 * rules for the SVM operation (it answers nothing else without the
 * feature), after them for VM_CREATE's SVM flag. "" when it does not apply.
 */
std::string unsupported(unsigned op, const uint8_t *a, const DevInfo &d, bool before_tier1)
{
	const bool svm = d.dev.features & DRM_COMPUTE_FEATURE_SVM;
	const bool p2p = d.dev.features & DRM_COMPUTE_FEATURE_P2P_EXPORT;

	if (before_tier1 && op == DRM_COMPUTE_OP_P2P_REPORT && !p2p)
		return "P2P_REPORT without DRM_COMPUTE_FEATURE_P2P_EXPORT";
	if (svm)
		return "";
	if (before_tier1 && op == DRM_COMPUTE_OP_SVM)
		return "SVM operation without DRM_COMPUTE_FEATURE_SVM";
	if (!before_tier1 && op == DRM_COMPUTE_OP_VM_CREATE &&
	    (get(layout(op), a, "flags") & DRM_COMPUTE_VM_CREATE_SVM))
		return "an SVM VM without DRM_COMPUTE_FEATURE_SVM";
	return "";
}

} // namespace

Verdict static_verdict(unsigned op, const uint8_t *view, const DevInfo &d,
		       bool ids_valid, const MaskReader *mask)
{
	Verdict v;
	bool cu_unreadable = false;

	v.why = unsupported(op, view, d, true);
	if (!v.why.empty()) {
		v.must_fail = true;
		v.errs = { EOPNOTSUPP };
		return v;
	}
	if (const char *f = tier1_field(op, view)) {
		v.must_fail = true;
		v.errs = { EINVAL };
		v.why = std::string("non-zero ") + f;
		return v;
	}
	v.why = unsupported(op, view, d, false);
	if (!v.why.empty()) {
		v.must_fail = true;
		v.errs = { EOPNOTSUPP };
		return v;
	}
	v.why = einval_rule(op, view, d, mask, cu_unreadable);
	if (v.why.empty()) {
		if (op == DRM_COMPUTE_OP_USERQ_CREATE && cu_unreadable &&
		    !get(layout(op), view, "cu_mask_ptr")) {
			/* A NULL mask is unreadable: -EFAULT by the text, -EINVAL by habit. */
			v.must_fail = true;
			v.errs = { EFAULT, EINVAL };
			if (!ids_valid)
				v.errs.push_back(ENOENT);
			v.why = "NULL cu_mask_ptr with a count";
		}
		if (op == DRM_COMPUTE_OP_BO_CREATE && get(layout(op), view, "flags") &&
		    !(d.dev.features & DRM_COMPUTE_FEATURE_P2P_EXPORT)) {
			v.must_fail = true;
			v.errs = { EOPNOTSUPP };
			v.why = "an export flag without DRM_COMPUTE_FEATURE_P2P_EXPORT";
		}
		return v;
	}
	/* A listed -EINVAL rule: other listed errors may take precedence. */
	v.must_fail = true;
	v.errs = { EINVAL };
	switch (op) {
	case DRM_COMPUTE_OP_QUERY:
		v.errs.push_back(EFAULT);
		break;
	case DRM_COMPUTE_OP_VM_BIND:
		if (!ids_valid)
			v.errs.push_back(ENOENT);
		v.errs.push_back(EOPNOTSUPP);
		break;
	case DRM_COMPUTE_OP_USERQ_CREATE:
		if (!ids_valid)
			v.errs.push_back(ENOENT);
		if (get(layout(op), view, "cu_mask_count"))
			v.errs.push_back(EFAULT);
		if (!d.privileged && get(layout(op), view, "priority") >= d.uq.priority_privileged)
			v.errs.push_back(EACCES);
		v.errs.push_back(ENOSPC);
		break;
	case DRM_COMPUTE_OP_USERQ_CONTROL:
		if (!ids_valid)
			v.errs.push_back(ENOENT);
		break;
	default:
		break;
	}
	return v;
}

static bool in(std::initializer_list<int> l, int err)
{
	return std::ranges::find(l, err) != l.end();
}

bool documented(unsigned op, int err)
{
	if (err == ENOMEM || err == EINTR)
		return true;
	switch (op) {
	case DRM_COMPUTE_OP_QUERY: return in({ EINVAL, EOPNOTSUPP, EFAULT }, err);
	case DRM_COMPUTE_OP_BO_CREATE: return in({ EINVAL, ENOSPC, EOPNOTSUPP }, err);
	case DRM_COMPUTE_OP_BO_MMAP: return in({ ENOENT, EINVAL }, err);
	case DRM_COMPUTE_OP_VM_CREATE: return in({ EINVAL, EOPNOTSUPP, ENOSPC }, err);
	case DRM_COMPUTE_OP_VM_DESTROY: return in({ ENOENT, EBUSY, EINVAL }, err);
	case DRM_COMPUTE_OP_VM_BIND: return in({ EINVAL, ENOENT, EOPNOTSUPP }, err);
	case DRM_COMPUTE_OP_USERQ_CREATE:
		return in({ ENOENT, EINVAL, EFAULT, EACCES, EPERM, ENOSPC, EBUSY }, err);
	case DRM_COMPUTE_OP_USERQ_DESTROY: return in({ ENOENT, EINVAL }, err);
	case DRM_COMPUTE_OP_USERQ_CONTROL: return in({ ENOENT, EINVAL, EIO, EBUSY }, err);
	case DRM_COMPUTE_OP_USERQ_STATE: return in({ ENOENT, EINVAL }, err);
	case DRM_COMPUTE_OP_USERQ_WAIT:
		return in({ ETIME, EIO, ECANCELED, ENOENT, EINVAL }, err);
	case DRM_COMPUTE_OP_USERQ_SIGNAL: return in({ ENOENT, EIO, ENOSPC, EINVAL }, err);
	case DRM_COMPUTE_OP_SVM:
		return in({ EOPNOTSUPP, EINVAL, ENOENT, EPERM, EFAULT }, err);
	case DRM_COMPUTE_OP_P2P_REPORT:
		return in({ EOPNOTSUPP, EINVAL, ENOENT, EFAULT }, err);
	case DRM_COMPUTE_OP_CRIU_INFO: return in({ EPERM, EACCES, EINVAL }, err);
	case DRM_COMPUTE_OP_CRIU_PAUSE:
		return in({ EPERM, EACCES, EINVAL, EALREADY, EBUSY }, err);
	case DRM_COMPUTE_OP_CRIU_CHECKPOINT:	/* EBADF: DMABUF's fd */
		return in({ EPERM, EACCES, EOPNOTSUPP, EINVAL, EBUSY, ENOENT, EFAULT, ENOMEM,
			    EINTR, EBADF }, err);
	case DRM_COMPUTE_OP_CRIU_RESTORE:
		return in({ EPERM, EACCES, EOPNOTSUPP, EINVAL, EBUSY, EEXIST, ENOENT, ENOSPC,
			    EFAULT, ENOMEM, EINTR }, err);
	default: return false;
	}
}

std::string errno_name(int err)
{
	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case EALREADY: return "EALREADY";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ENOTTY: return "ENOTTY";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case ETIME: return "ETIME";
	case EOVERFLOW: return "EOVERFLOW";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECANCELED: return "ECANCELED";
	case EDEADLK: return "EDEADLK";
	case E2BIG: return "E2BIG";
	case ESRCH: return "ESRCH";
	}
	return "E" + std::to_string(err);
}

} // namespace fuzz
