// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */
#include "layout.hpp"

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "drm_compute.h"

namespace fuzz {
namespace {

#define F(type, field, kind, known) \
	Field { #field, offsetof(type, field), sizeof(((type *)nullptr)->field), Kind::kind, known }
#define FR(type, field, idx, kind) \
	Field { #field "[" #idx "]", offsetof(type, field) + (idx) * 8, 8, Kind::kind, 0 }

using Q = drm_compute_query;
constexpr Field query_f[] = {
	F(Q, query, Enum, DRM_COMPUTE_QUERY_COUNT - 1),
	F(Q, size, Size, 0),
	F(Q, data, Ptr, 0),
	F(Q, pad, Zero, 0),
	F(Q, reserved, Zero, 0),
};

using BC = drm_compute_bo_create;
constexpr Field bo_create_f[] = {
	F(BC, size, Size, 0),
	F(BC, placement, Flags, DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM),
	F(BC, flags, Flags, DRM_COMPUTE_BO_EXPORT_PREFER_P2P | DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P |
			    DRM_COMPUTE_BO_EXPORT_HOST_ONLY),
	F(BC, handle, Out, 0),
};

using BM = drm_compute_bo_mmap;
constexpr Field bo_mmap_f[] = {
	F(BM, handle, Handle, 0),
	F(BM, pad, Zero, 0),
	F(BM, offset, Out, 0),
};

using VC = drm_compute_vm_create;
constexpr Field vm_create_f[] = {
	F(VC, flags, Flags, DRM_COMPUTE_VM_CREATE_SVM),
	F(VC, vm_id, Out, 0),
};

using VD = drm_compute_vm_destroy;
constexpr Field vm_destroy_f[] = {
	F(VD, vm_id, VmId, 0),
	F(VD, pad, Zero, 0),
};

using VB = drm_compute_vm_bind;
constexpr Field vm_bind_f[] = {
	F(VB, vm_id, VmId, 0),
	F(VB, op, Enum, DRM_COMPUTE_VM_BIND_OP_UNMAP),
	F(VB, flags, Flags, DRM_COMPUTE_VM_BIND_READONLY | DRM_COMPUTE_VM_BIND_NOEXEC),
	F(VB, handle, Handle, 0),
	F(VB, pad, Zero, 0),
	F(VB, bo_offset, Size, 0),
	F(VB, va, Va, 0),
	F(VB, range, Size, 0),
};

using UC = drm_compute_userq_create;
constexpr Field userq_create_f[] = {
	F(UC, vm_id, VmId, 0),
	F(UC, format, Enum, DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4),
	F(UC, flags, Flags, 0),
	F(UC, priority, Value, 0),
	F(UC, cu_mask_ptr, Ptr, 0),
	F(UC, cu_mask_count, Value, 0),
	F(UC, pad, Zero, 0),
	F(UC, ring_va, Va, 0),
	F(UC, ring_size, Size, 0),
	F(UC, rptr_va, Va, 0),
	F(UC, wptr_va, Va, 0),
#ifdef DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY
	F(UC, fence_va, Va, 0),
#endif
	F(UC, ctx_save_va, Va, 0),
	F(UC, ctx_save_size, Size, 0),
	F(UC, queue_id, Out, 0),
	F(UC, doorbell_pos, Out, 0),
	F(UC, doorbell_offset, Out, 0),
};

using UD = drm_compute_userq_destroy;
constexpr Field userq_destroy_f[] = {
	F(UD, queue_id, QueueId, 0),
	F(UD, pad, Zero, 0),
};

using UCT = drm_compute_userq_control;
constexpr Field userq_control_f[] = {
	F(UCT, queue_id, QueueId, 0),
	F(UCT, op, Enum, DRM_COMPUTE_USERQ_OP_WAKE),
	F(UCT, flags, Flags, 0),
	F(UCT, pad, Zero, 0),
};

using US = drm_compute_userq_state;
constexpr Field userq_state_f[] = {
	F(US, queue_id, QueueId, 0),
	F(US, status, Out, 0),
	F(US, rptr, Out, 0),
	F(US, wptr, Out, 0),
	F(US, fence, Out, 0),
	F(US, fault_va, Out, 0),
	F(US, fault_reason, Out, 0),
	F(US, priority, Out, 0),
	FR(US, reserved, 0, Zero),
	FR(US, reserved, 1, Zero),
};

using UW = drm_compute_userq_wait;
constexpr Field userq_wait_f[] = {
	F(UW, queue_id, QueueId, 0),
	F(UW, flags, Flags, 0),
	F(UW, value, Value, 0),
	F(UW, timeout_nsec, Value, 0),
};

using USG = drm_compute_userq_signal;
constexpr Field userq_signal_f[] = {
	F(USG, queue_id, QueueId, 0),
	F(USG, handle, Syncobj, 0),
	F(USG, value, Value, 0),
	F(USG, point, Value, 0),
	F(USG, flags, Flags, 0),
	F(USG, pad, Zero, 0),
};

using SV = drm_compute_svm;
constexpr Field svm_f[] = {
	F(SV, vm_id, VmId, 0),
	F(SV, op, Enum, DRM_COMPUTE_SVM_OP_GET_ATTR),
	F(SV, start, Va, 0),
	F(SV, size, Size, 0),
	F(SV, attrs, Ptr, 0),
	F(SV, nattr, Value, 0),
	F(SV, flags, Flags, 0),
};

using PR = drm_compute_p2p_report;
constexpr Field p2p_report_f[] = {
	F(PR, handle, Handle, 0),
	F(PR, flags, Flags, 0),
	F(PR, attachments, Ptr, 0),
	F(PR, count, Value, 0),
	F(PR, export_flags, Out, 0),
	F(PR, placement, Out, 0),
	F(PR, reason, Out, 0),
	F(PR, moves, Out, 0),
	FR(PR, decided_by, 0, Out),
	FR(PR, decided_by, 1, Out),
	FR(PR, decided_by, 2, Out),
	FR(PR, decided_by, 3, Out),
	F(PR, refused, Out, 0),
	F(PR, refused_reason, Out, 0),
	F(PR, kernel_maps, Out, 0),
	F(PR, invalidations, Out, 0),
	F(PR, reserved, Zero, 0),
};

using CI = drm_compute_criu_info;
constexpr Field criu_info_f[] = {
	F(CI, flags, Flags, 0),
	F(CI, bos, Out, 0),
	F(CI, exports, Out, 0),
	F(CI, imports, Out, 0),
	F(CI, vms, Out, 0),
	F(CI, userqs, Out, 0),
	F(CI, svm_ranges, Out, 0),
	F(CI, unsaved, Out, 0),
	F(CI, syncobjs, Out, 0),
	F(CI, signals, Out, 0),
	F(CI, reserved, Zero, 0),
};

using CP = drm_compute_criu_pause;
constexpr Field criu_pause_f[] = {
	F(CP, op, Enum, DRM_COMPUTE_CRIU_OP_RESUME),
	F(CP, flags, Flags, 0),
	F(CP, userqs, Out, 0),
	F(CP, exports, Out, 0),
	FR(CP, reserved, 0, Zero),
	FR(CP, reserved, 1, Zero),
};

using CK = drm_compute_criu_checkpoint;
constexpr Field criu_checkpoint_f[] = {
	F(CK, op, Enum, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS),
	F(CK, flags, Flags, 0),
	F(CK, count, Value, 0),
	F(CK, id, Handle, 0),
	F(CK, ptr, Ptr, 0),
	F(CK, offset, Size, 0),
	F(CK, size, Size, 0),
	FR(CK, reserved, 0, Zero),
	FR(CK, reserved, 1, Zero),
};

using CR = drm_compute_criu_restore;
constexpr Field criu_restore_f[] = {
	F(CR, op, Enum, DRM_COMPUTE_CRIU_RESTORE_SIGNALS),
	F(CR, flags, Flags, DRM_COMPUTE_CRIU_RESTORE_END_PAUSED),
	F(CR, count, Value, 0),
	F(CR, id, Handle, 0),
	F(CR, ptr, Ptr, 0),
	F(CR, offset, Size, 0),
	F(CR, size, Size, 0),
	F(CR, session, Value, 0),
	F(CR, reserved, Zero, 0),
};

#undef F
#undef FR

#define L(op, name, type, fields) OpLayout { op, name, sizeof(type), fields }

const OpLayout table[] = {
	L(DRM_COMPUTE_OP_QUERY, "QUERY", Q, query_f),
	L(DRM_COMPUTE_OP_BO_CREATE, "BO_CREATE", BC, bo_create_f),
	L(DRM_COMPUTE_OP_BO_MMAP, "BO_MMAP", BM, bo_mmap_f),
	L(DRM_COMPUTE_OP_VM_CREATE, "VM_CREATE", VC, vm_create_f),
	L(DRM_COMPUTE_OP_VM_DESTROY, "VM_DESTROY", VD, vm_destroy_f),
	L(DRM_COMPUTE_OP_VM_BIND, "VM_BIND", VB, vm_bind_f),
	L(DRM_COMPUTE_OP_USERQ_CREATE, "USERQ_CREATE", UC, userq_create_f),
	L(DRM_COMPUTE_OP_USERQ_DESTROY, "USERQ_DESTROY", UD, userq_destroy_f),
	L(DRM_COMPUTE_OP_USERQ_CONTROL, "USERQ_CONTROL", UCT, userq_control_f),
	L(DRM_COMPUTE_OP_USERQ_STATE, "USERQ_STATE", US, userq_state_f),
	L(DRM_COMPUTE_OP_USERQ_WAIT, "USERQ_WAIT", UW, userq_wait_f),
	L(DRM_COMPUTE_OP_USERQ_SIGNAL, "USERQ_SIGNAL", USG, userq_signal_f),
	L(DRM_COMPUTE_OP_SVM, "SVM", SV, svm_f),
	L(DRM_COMPUTE_OP_P2P_REPORT, "P2P_REPORT", PR, p2p_report_f),
	L(DRM_COMPUTE_OP_CRIU_INFO, "CRIU_INFO", CI, criu_info_f),
	L(DRM_COMPUTE_OP_CRIU_PAUSE, "CRIU_PAUSE", CP, criu_pause_f),
	L(DRM_COMPUTE_OP_CRIU_CHECKPOINT, "CRIU_CHECKPOINT", CK, criu_checkpoint_f),
	L(DRM_COMPUTE_OP_CRIU_RESTORE, "CRIU_RESTORE", CR, criu_restore_f),
};

#undef L

static_assert(sizeof(table) / sizeof(table[0]) == DRM_COMPUTE_OP_COUNT,
	      "one layout per operation");

} // namespace

std::span<const OpLayout> layouts()
{
	return table;
}

const OpLayout &layout(unsigned op)
{
	if (op >= DRM_COMPUTE_OP_COUNT)
		throw std::out_of_range("no such compute operation");
	return table[op];
}

int field_index(const OpLayout &l, const char *name)
{
	for (size_t i = 0; i < l.fields.size(); i++)
		if (!strcmp(l.fields[i].name, name))
			return static_cast<int>(i);
	return -1;
}

uint64_t field_get(const uint8_t *arg, const Field &f)
{
	if (f.size == 4) {
		uint32_t v;

		memcpy(&v, arg + f.offset, 4);
		return v;
	}
	uint64_t v;

	memcpy(&v, arg + f.offset, 8);
	return v;
}

void field_set(uint8_t *arg, const Field &f, uint64_t v)
{
	if (f.size == 4) {
		uint32_t w = static_cast<uint32_t>(v);

		memcpy(arg + f.offset, &w, 4);
		return;
	}
	memcpy(arg + f.offset, &v, 8);
}

uint64_t get(const OpLayout &l, const uint8_t *arg, const char *name)
{
	int i = field_index(l, name);

	if (i < 0)
		throw std::invalid_argument(name);
	return field_get(arg, l.fields[i]);
}

void set(const OpLayout &l, uint8_t *arg, const char *name, uint64_t v)
{
	int i = field_index(l, name);

	if (i < 0)
		throw std::invalid_argument(name);
	field_set(arg, l.fields[i], v);
}

} // namespace fuzz
