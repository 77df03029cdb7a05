/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef _UAPI_DRM_COMPUTE_H_
#define _UAPI_DRM_COMPUTE_H_

#include <linux/const.h>

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: DRM compute uapi
 *
 * Structures shared by every DRM driver that implements GPU compute on its
 * render node through the DRM compute helpers (drivers/gpu/drm/drm_compute*.c).
 *
 * Each operation has one offset, defined once below (DRM_COMPUTE_OP_*). A
 * driver reserves %DRM_COMPUTE_OP_MAX commands of its own command range
 * starting at a base it publishes in its uapi header (vcompute:
 * %DRM_VCOMPUTE_COMPUTE_BASE, amdgpu: DRM_AMDGPU_COMPUTE_BASE) and exposes
 * operation N as ioctl number DRM_COMMAND_BASE + base + N. The
 * DRM_COMPUTE_IOCTL_*() macros build the request numbers from a base, so
 * userspace needs only {driver name, base} per driver and never copies a
 * number by hand. The argument structures, their rules and their semantics
 * are the same on every driver, because the helper implements them.
 *
 * What a device can do is learnt from %DRM_COMPUTE_OP_QUERY, never from the
 * driver's name: %DRM_COMPUTE_QUERY_DEVICE reports feature bits, and each
 * feature brings its own query id.
 *
 * Rules that hold for every structure in this file:
 *
 * - pointers travel as __u64;
 * - every padding, reserved field and unknown flag bit must be zero on input,
 *   or the ioctl fails with -EINVAL; so must every "out" field of an
 *   argument that is both read and written;
 * - a rejected call changes nothing, neither in the kernel nor in the
 *   argument (the DRM core copies the argument back whatever the result);
 * - structures only grow at their end, and every later input is gated by a
 *   new flag bit that an older kernel rejects;
 * - objects are per file: a handle, VM id or queue id of another file is
 *   unknown (-ENOENT) here, whatever its number.
 */

/*
 * Operation offsets within a driver's compute command range. 0x0e..0x1f
 * are for checkpoint/restore.
 */
/** DRM_COMPUTE_OP_QUERY - offset of the query operation (&struct drm_compute_query). */
#define DRM_COMPUTE_OP_QUERY		0x00
/** DRM_COMPUTE_OP_BO_CREATE - offset of &struct drm_compute_bo_create. */
#define DRM_COMPUTE_OP_BO_CREATE	0x01
/** DRM_COMPUTE_OP_BO_MMAP - offset of &struct drm_compute_bo_mmap. */
#define DRM_COMPUTE_OP_BO_MMAP		0x02
/** DRM_COMPUTE_OP_VM_CREATE - offset of &struct drm_compute_vm_create. */
#define DRM_COMPUTE_OP_VM_CREATE	0x03
/** DRM_COMPUTE_OP_VM_DESTROY - offset of &struct drm_compute_vm_destroy. */
#define DRM_COMPUTE_OP_VM_DESTROY	0x04
/** DRM_COMPUTE_OP_VM_BIND - offset of &struct drm_compute_vm_bind. */
#define DRM_COMPUTE_OP_VM_BIND		0x05
/** DRM_COMPUTE_OP_USERQ_CREATE - offset of &struct drm_compute_userq_create. */
#define DRM_COMPUTE_OP_USERQ_CREATE	0x06
/** DRM_COMPUTE_OP_USERQ_DESTROY - offset of &struct drm_compute_userq_destroy. */
#define DRM_COMPUTE_OP_USERQ_DESTROY	0x07
/** DRM_COMPUTE_OP_USERQ_CONTROL - offset of &struct drm_compute_userq_control. */
#define DRM_COMPUTE_OP_USERQ_CONTROL	0x08
/** DRM_COMPUTE_OP_USERQ_STATE - offset of &struct drm_compute_userq_state. */
#define DRM_COMPUTE_OP_USERQ_STATE	0x09
/** DRM_COMPUTE_OP_USERQ_WAIT - offset of &struct drm_compute_userq_wait. */
#define DRM_COMPUTE_OP_USERQ_WAIT	0x0a
/** DRM_COMPUTE_OP_USERQ_SIGNAL - offset of &struct drm_compute_userq_signal. */
#define DRM_COMPUTE_OP_USERQ_SIGNAL	0x0b
/** DRM_COMPUTE_OP_SVM - offset of &struct drm_compute_svm. */
#define DRM_COMPUTE_OP_SVM		0x0c
/** DRM_COMPUTE_OP_P2P_REPORT - offset of &struct drm_compute_p2p_report. */
#define DRM_COMPUTE_OP_P2P_REPORT	0x0d
/** DRM_COMPUTE_OP_CRIU_INFO - offset of &struct drm_compute_criu_info. */
#define DRM_COMPUTE_OP_CRIU_INFO	0x0e
/** DRM_COMPUTE_OP_CRIU_PAUSE - offset of &struct drm_compute_criu_pause. */
#define DRM_COMPUTE_OP_CRIU_PAUSE	0x0f
/**
 * DRM_COMPUTE_OP_CRIU_CHECKPOINT - offset of
 * &struct drm_compute_criu_checkpoint.
 */
#define DRM_COMPUTE_OP_CRIU_CHECKPOINT	0x10
/** DRM_COMPUTE_OP_CRIU_RESTORE - offset of &struct drm_compute_criu_restore. */
#define DRM_COMPUTE_OP_CRIU_RESTORE	0x11
/** DRM_COMPUTE_OP_COUNT - number of operations defined so far. */
#define DRM_COMPUTE_OP_COUNT		0x12
/** DRM_COMPUTE_OP_MAX - commands a driver reserves for the compute uapi. */
#define DRM_COMPUTE_OP_MAX		0x20

/* Request numbers, from a driver's base. */
#define DRM_COMPUTE_IOCTL_QUERY(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_QUERY, \
		 struct drm_compute_query)
#define DRM_COMPUTE_IOCTL_BO_CREATE(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_BO_CREATE, \
		 struct drm_compute_bo_create)
#define DRM_COMPUTE_IOCTL_BO_MMAP(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_BO_MMAP, \
		 struct drm_compute_bo_mmap)
#define DRM_COMPUTE_IOCTL_VM_CREATE(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_VM_CREATE, \
		 struct drm_compute_vm_create)
#define DRM_COMPUTE_IOCTL_VM_DESTROY(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_VM_DESTROY, \
		 struct drm_compute_vm_destroy)
#define DRM_COMPUTE_IOCTL_VM_BIND(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_VM_BIND, \
		 struct drm_compute_vm_bind)
#define DRM_COMPUTE_IOCTL_USERQ_CREATE(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_USERQ_CREATE, \
		 struct drm_compute_userq_create)
#define DRM_COMPUTE_IOCTL_USERQ_DESTROY(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_USERQ_DESTROY, \
		 struct drm_compute_userq_destroy)
#define DRM_COMPUTE_IOCTL_USERQ_CONTROL(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_USERQ_CONTROL, \
		 struct drm_compute_userq_control)
#define DRM_COMPUTE_IOCTL_USERQ_STATE(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_USERQ_STATE, \
		 struct drm_compute_userq_state)
#define DRM_COMPUTE_IOCTL_USERQ_WAIT(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_USERQ_WAIT, \
		 struct drm_compute_userq_wait)
#define DRM_COMPUTE_IOCTL_USERQ_SIGNAL(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_USERQ_SIGNAL, \
		 struct drm_compute_userq_signal)
#define DRM_COMPUTE_IOCTL_SVM(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_SVM, \
		 struct drm_compute_svm)
#define DRM_COMPUTE_IOCTL_P2P_REPORT(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_P2P_REPORT, \
		 struct drm_compute_p2p_report)
#define DRM_COMPUTE_IOCTL_CRIU_INFO(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_CRIU_INFO, \
		 struct drm_compute_criu_info)
#define DRM_COMPUTE_IOCTL_CRIU_PAUSE(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_CRIU_PAUSE, \
		 struct drm_compute_criu_pause)
#define DRM_COMPUTE_IOCTL_CRIU_CHECKPOINT(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_CRIU_CHECKPOINT, \
		 struct drm_compute_criu_checkpoint)
#define DRM_COMPUTE_IOCTL_CRIU_RESTORE(base) \
	DRM_IOWR(DRM_COMMAND_BASE + (base) + DRM_COMPUTE_OP_CRIU_RESTORE, \
		 struct drm_compute_criu_restore)

/* ------------------------------------------------------------------------
 * Query
 */

/** DRM_COMPUTE_FEATURE_USERQ - buffers, GPU VMs and compute user queues. */
#define DRM_COMPUTE_FEATURE_USERQ	_BITULL(0)
/**
 * DRM_COMPUTE_FEATURE_SVM - shared virtual memory: GPU VMs that mirror the
 * process's address space (%DRM_COMPUTE_VM_CREATE_SVM) and the attributes
 * of %DRM_COMPUTE_OP_SVM. Only with %DRM_COMPUTE_FEATURE_USERQ.
 */
#define DRM_COMPUTE_FEATURE_SVM		_BITULL(1)
/**
 * DRM_COMPUTE_FEATURE_P2P_EXPORT - buffers made for export to peer devices
 * (the DRM_COMPUTE_BO_EXPORT_* flags of &struct drm_compute_bo_create), a
 * placement decided by the kernel for each importer, and its report
 * (%DRM_COMPUTE_OP_P2P_REPORT). Whether a peer-to-peer placement is
 * possible at all depends on the topology: the report says why not.
 * Only with %DRM_COMPUTE_FEATURE_USERQ.
 */
#define DRM_COMPUTE_FEATURE_P2P_EXPORT	_BITULL(2)
/**
 * DRM_COMPUTE_FEATURE_CRIU - checkpoint/restore of render-node state
 * (%DRM_COMPUTE_OP_CRIU_CHECKPOINT, %DRM_COMPUTE_OP_CRIU_RESTORE): buffers
 * with their contents and handles, GPU VMs with their mappings. What a
 * file holds that the device cannot save yet is counted in
 * &drm_compute_criu_info.unsaved. Only with %DRM_COMPUTE_FEATURE_USERQ.
 */
#define DRM_COMPUTE_FEATURE_CRIU	_BITULL(3)
/** DRM_COMPUTE_FEATURES_KNOWN - every feature bit this uapi defines. */
#define DRM_COMPUTE_FEATURES_KNOWN	(DRM_COMPUTE_FEATURE_USERQ | \
					 DRM_COMPUTE_FEATURE_SVM | \
					 DRM_COMPUTE_FEATURE_P2P_EXPORT | \
					 DRM_COMPUTE_FEATURE_CRIU)

/**
 * DRM_COMPUTE_QUERY_DEVICE - &struct drm_compute_query_device; every
 * device answers it.
 */
#define DRM_COMPUTE_QUERY_DEVICE	0
/**
 * DRM_COMPUTE_QUERY_USERQ - &struct drm_compute_query_userq; answered
 * where %DRM_COMPUTE_FEATURE_USERQ is reported, -EOPNOTSUPP elsewhere.
 */
#define DRM_COMPUTE_QUERY_USERQ		1
/** DRM_COMPUTE_QUERY_COUNT - number of query ids defined so far. */
#define DRM_COMPUTE_QUERY_COUNT		2

/**
 * struct drm_compute_query - read one report of the device (xe style).
 *
 * With @size 0 the kernel only sets @size to the size of its report and
 * writes nothing else. Otherwise it copies min(@size, its size) bytes of
 * the report to @data and sets @size to the number of bytes copied, so
 * older userspace (a shorter structure) reads the leading fields it knows
 * and newer userspace learns from @size how much an older kernel filled.
 * Reports only grow at their end.
 *
 * Errors: -EINVAL for an unknown @query, a non-zero @pad or @reserved, or a
 * zero @data with a non-zero @size; -EOPNOTSUPP for a query the device
 * does not answer (its feature is absent); -EFAULT when @data is not
 * writable.
 */
struct drm_compute_query {
	/** @query: in, DRM_COMPUTE_QUERY_*. */
	__u32 query;
	/** @size: in/out, bytes at @data; see above. */
	__u32 size;
	/** @data: in, user pointer the report is written to. */
	__u64 data;
	/** @pad: in, must be zero. */
	__u32 pad;
	/** @reserved: in, must be zero. */
	__u32 reserved;
};

/** DRM_COMPUTE_PLACEMENT_VRAM - device memory. */
#define DRM_COMPUTE_PLACEMENT_VRAM	_BITULL(0)
/** DRM_COMPUTE_PLACEMENT_SYSTEM - system memory the device reaches. */
#define DRM_COMPUTE_PLACEMENT_SYSTEM	_BITULL(1)

/**
 * struct drm_compute_query_device - what the device is (%DRM_COMPUTE_QUERY_DEVICE).
 *
 * A feature bit is set only when the driver implements that part of the
 * uapi on this device, so userspace needs no list of drivers.
 */
struct drm_compute_query_device {
	/** @features: DRM_COMPUTE_FEATURE_* bits. */
	__u64 features;
	/** @vram_size: bytes of device memory (0 for none). */
	__u64 vram_size;
	/**
	 * @vram_bar_size: bytes of device memory that a peer device can reach
	 * through a PCI BAR; never more than @vram_size; an upper bound for
	 * peer-to-peer placement.
	 */
	__u64 vram_bar_size;
	/**
	 * @placements: DRM_COMPUTE_PLACEMENT_* bits that
	 * &struct drm_compute_bo_create accepts (0 without
	 * %DRM_COMPUTE_FEATURE_USERQ).
	 */
	__u64 placements;
	/**
	 * @va_start: lowest GPU virtual address &struct drm_compute_vm_bind
	 * accepts (0 without %DRM_COMPUTE_FEATURE_USERQ).
	 */
	__u64 va_start;
	/**
	 * @va_end: end (exclusive) of the GPU virtual address range
	 * &struct drm_compute_vm_bind accepts.
	 */
	__u64 va_end;
	/**
	 * @page_size: GPU page size in bytes: the alignment of every address,
	 * offset and size in &struct drm_compute_vm_bind and
	 * &struct drm_compute_svm, and of buffer sizes.
	 */
	__u32 page_size;
	/** @pad: zero. */
	__u32 pad;
	/**
	 * @device_id: the device's id among the compute devices of the
	 * system, what SVM attributes name a device by
	 * (&struct drm_compute_svm_attr). Never 0
	 * (%DRM_COMPUTE_SVM_LOCATION_SYSMEM) nor 0xffffffff
	 * (%DRM_COMPUTE_SVM_LOCATION_UNDEFINED); two devices present at once
	 * never share one, and an id is not handed out again before the id
	 * space wraps (2^31 devices later). It holds while the device is
	 * present, not across reboots, module reloads or a hot-unplug. Every
	 * device reports it (0 from a kernel that predates it: the report is
	 * shorter).
	 */
	__u32 device_id;
	/** @pad2: zero. */
	__u32 pad2;
	/**
	 * @svm_flags: the DRM_COMPUTE_SVM_FLAG_* bits this device honours,
	 * with %DRM_COMPUTE_FEATURE_SVM (0 without it, and from a kernel that
	 * predates the field). It always holds %DRM_COMPUTE_SVM_FLAG_HOST_ACCESS
	 * and %DRM_COMPUTE_SVM_FLAG_COHERENT, the flags of memory never set;
	 * setting a flag outside it fails with -EOPNOTSUPP
	 * (&struct drm_compute_svm).
	 */
	__u32 svm_flags;
	/** @pad3: zero. */
	__u32 pad3;
	/**
	 * @semantics: DRM_COMPUTE_SEMANTICS_* bits, each a documented place
	 * where this device departs from the uapi's rules (0 where it keeps
	 * every one, and from a kernel that predates the field). Portable
	 * userspace and tests read them instead of a list of drivers.
	 */
	__u64 semantics;
};

/**
 * DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS - closing a buffer's last GEM
 * handle in the file unmaps it from the file's VMs (amdgpu: the buffer's
 * mappings belong to the file's handle), where the uapi keeps a mapped
 * buffer alive until its mappings go.
 */
#define DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS	_BITULL(0)
/**
 * DRM_COMPUTE_SEMANTICS_SHARED_VA - a file's compute VM is the address
 * space the driver's own VA ioctl maps into (amdgpu: DRM_AMDGPU_GEM_VA,
 * RADV's): a MAP over such a mapping fails with -EINVAL; UNMAP and the
 * VM's end leave those mappings alone. A file has one compute VM at a
 * time: a second VM_CREATE fails with -ENOSPC, the error of any VM limit.
 */
#define DRM_COMPUTE_SEMANTICS_SHARED_VA			_BITULL(1)
/**
 * DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM - a buffer that does not fit in
 * device memory fails with -ENOMEM, not -ENOSPC (amdgpu's TTM gives no
 * way to tell the two).
 */
#define DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM		_BITULL(2)
/**
 * DRM_COMPUTE_SEMANTICS_QUEUE_BUFFER_RULES - more rules for a queue's
 * buffers, breaking one fails with -EINVAL: the ring, the read and write
 * pointers and the fence slot each lie in one mapping, and the buffers of
 * the pointers and the fence are at most one page each and pinned in
 * system memory for the queue's life (so not export buffers).
 */
#define DRM_COMPUTE_SEMANTICS_QUEUE_BUFFER_RULES	_BITULL(3)
/**
 * DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT - a queue's faults are not
 * reported: a faulting queue stops and becomes HUNG by hang detection
 * (%DRM_COMPUTE_FAULT_HANG), not FAULTED with the reason and address.
 */
#define DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT		_BITULL(4)

/**
 * DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP - the device may go idle and set
 * %DRM_COMPUTE_DOORBELL_NEED_WAKEUP in a queue's doorbell page; userspace
 * then wakes it with %DRM_COMPUTE_USERQ_OP_WAKE (see
 * &struct drm_compute_doorbell).
 */
#define DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP	_BITULL(0)
/**
 * DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY - the device reads a queue's write
 * pointer from memory (&drm_compute_userq_create.wptr_va, AMD's MQD
 * wptr address) as well as from the doorbell; userspace stores it in both
 * places, memory first.
 */
#define DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY	_BITULL(1)
/**
 * DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY - a queue's fence is a memory slot
 * given at creation (&drm_compute_userq_create.fence_va) that the format's
 * own packets write (AMD: RELEASE_MEM); the kernel reads it there to
 * complete waits and sync-object signals. Without it the format has a
 * fence packet that names its address (vcompute's FENCE) and the device
 * reports each one.
 */
#define DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY	_BITULL(2)
/**
 * DRM_COMPUTE_USERQ_CAP_CRIU - a checkpoint saves the device's user queues
 * and a restore makes them again, each continuing where it stopped, from
 * its context save area (&struct drm_compute_criu_queue). Set by the
 * kernel on devices with %DRM_COMPUTE_FEATURE_CRIU that can restore a
 * queue; elsewhere a file's queues count as unsaved.
 */
#define DRM_COMPUTE_USERQ_CAP_CRIU		_BITULL(3)

/** DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE - vcompute packets (vcompute_drm.h). */
#define DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE	1
/** DRM_COMPUTE_QUEUE_FORMAT_AMD_AQL - AMD AQL packets, as under /dev/kfd. */
#define DRM_COMPUTE_QUEUE_FORMAT_AMD_AQL	2
/** DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4 - AMD PM4 compute packets. */
#define DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4	3

/**
 * struct drm_compute_query_userq - user-queue limits (%DRM_COMPUTE_QUERY_USERQ).
 */
struct drm_compute_query_userq {
	/** @caps: DRM_COMPUTE_USERQ_CAP_* bits. */
	__u64 caps;
	/** @max_queues: user queues one file may have at once. */
	__u32 max_queues;
	/**
	 * @num_priorities: priority levels; &drm_compute_userq_create.priority
	 * runs from 0 (lowest) to @num_priorities - 1, with the meaning of
	 * KFD's queue priority (0..15).
	 */
	__u32 num_priorities;
	/** @priority_default: the level a normal queue should use. */
	__u32 priority_default;
	/**
	 * @priority_privileged: the lowest level that needs CAP_SYS_NICE (or
	 * DRM master); equal to @num_priorities when none does.
	 */
	__u32 priority_privileged;
	/**
	 * @num_cus: compute units; the width of the CU mask of
	 * &struct drm_compute_userq_create.
	 */
	__u32 num_cus;
	/** @queue_formats: bit (1 << DRM_COMPUTE_QUEUE_FORMAT_*) per format. */
	__u32 queue_formats;
	/** @ring_size_min: smallest ring in bytes (a power of two). */
	__u64 ring_size_min;
	/** @ring_size_max: largest ring in bytes (a power of two). */
	__u64 ring_size_max;
	/**
	 * @ctx_save_size: bytes the context save area of a queue needs; 0
	 * when the device saves queue context elsewhere.
	 */
	__u64 ctx_save_size;
	/** @doorbell_size: bytes to mmap() at a queue's doorbell offset. */
	__u32 doorbell_size;
	/**
	 * @hang_timeout_ms: a queue with pending work that makes no progress
	 * for this long is reset (%DRM_COMPUTE_USERQ_STATUS_HUNG); 0 when hang
	 * detection is off. The device's own timeout where its driver has one
	 * (amdgpu: its compute job timeout, ``amdgpu.lockup_timeout``), else
	 * the helper's default. Read when the query runs; it can change.
	 */
	__u32 hang_timeout_ms;
};

/* ------------------------------------------------------------------------
 * Buffers
 */

/**
 * struct drm_compute_bo_create - allocate a buffer object.
 *
 * The buffer is zeroed. Errors: -EINVAL for a zero or unaligned @size
 * (see &drm_compute_query_device.page_size), not exactly one known
 * placement bit, a placement the device lacks, unknown @flags, more than
 * one export flag, an export flag with a placement it does not take,
 * non-zero out fields; -EOPNOTSUPP for an export flag on a device without
 * %DRM_COMPUTE_FEATURE_P2P_EXPORT; -ENOSPC when device memory is
 * exhausted; -ENOMEM.
 */
struct drm_compute_bo_create {
	/** @size: in, bytes, a multiple of the GPU page size. */
	__u64 size;
	/** @placement: in, exactly one DRM_COMPUTE_PLACEMENT_* bit. */
	__u64 placement;
	/**
	 * @flags: in, at most one DRM_COMPUTE_BO_EXPORT_* bit (a buffer made
	 * for export to peer devices, with a placement report); zero for a
	 * buffer without one.
	 */
	__u32 flags;
	/** @handle: out (zero on input), GEM handle of the new buffer. */
	__u32 handle;
};

/**
 * DOC: Export to peer devices
 *
 * A buffer made with one of the DRM_COMPUTE_BO_EXPORT_* flags is meant for
 * a peer device: a NIC (RDMA, devmem TCP, io_uring zcrx) or another
 * accelerator that imports its dma-buf (PRIME export, DRM_IOCTL_PRIME_
 * HANDLE_TO_FD). When a peer attaches, the kernel decides whether the
 * peer reaches the buffer's device memory directly (peer-to-peer, through
 * the exporting device's PCI BAR) or not, from the PCI topology
 * (pci_p2pdma_distance()), the importer's abilities and the device's own
 * limits, and records the answer and its reason. Where the buffer lives
 * and why is read with %DRM_COMPUTE_OP_P2P_REPORT at any time.
 *
 * The placement is one per buffer, as it is one set of pages: a buffer in
 * device memory that an importer cannot reach either moves to system
 * memory (%DRM_COMPUTE_BO_EXPORT_PREFER_P2P), which every importer then
 * uses, or refuses that importer (%DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P). A
 * buffer never moves back by itself; it never moves while an importer has
 * it pinned or the kernel has it mapped, and the attach that would need the
 * move fails instead (-EBUSY, the dma-buf convention for "not accessible
 * to this device and cannot be moved"). Queues and CPU mappings of the
 * buffer follow a move without seeing it.
 */

/**
 * DRM_COMPUTE_BO_EXPORT_PREFER_P2P - device memory (placement
 * %DRM_COMPUTE_PLACEMENT_VRAM) that peers reach directly where the topology
 * allows; the first importer that cannot moves the buffer to system
 * memory, and the report names it and its reason.
 */
#define DRM_COMPUTE_BO_EXPORT_PREFER_P2P	_BITUL(0)
/**
 * DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P - device memory (placement
 * %DRM_COMPUTE_PLACEMENT_VRAM) that stays there: an importer that cannot
 * reach it directly fails to attach with -EBUSY, and the report counts the
 * refusal and gives its reason. Never a silent copy through host memory.
 */
#define DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P	_BITUL(1)
/**
 * DRM_COMPUTE_BO_EXPORT_HOST_ONLY - system memory (placement
 * %DRM_COMPUTE_PLACEMENT_SYSTEM) for every importer, with the same report:
 * the explicit host path, for comparison or for importers that must not
 * use peer memory.
 */
#define DRM_COMPUTE_BO_EXPORT_HOST_ONLY		_BITUL(2)

/*
 * Why a buffer or an attachment is where it is (&drm_compute_p2p_report
 * .reason, &drm_compute_p2p_attachment.reason). The checks run in this
 * order and the first that fails is the reason.
 */
/** DRM_COMPUTE_P2P_REASON_NONE - peer-to-peer: nothing ruled it out. */
#define DRM_COMPUTE_P2P_REASON_NONE		0
/** DRM_COMPUTE_P2P_REASON_HOST_ONLY - the buffer was made HOST_ONLY. */
#define DRM_COMPUTE_P2P_REASON_HOST_ONLY	1
/**
 * DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P - the importer did not attach
 * dynamically with peer-to-peer allowed (dma_buf_attach_ops
 * .allow_peer2peer): it can only take system memory.
 */
#define DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P	2
/**
 * DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY - the exporting device has no device
 * memory a peer can reach: not a PCI device, or no BAR over its memory
 * (&drm_compute_query_device.vram_bar_size is 0).
 */
#define DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY	3
/** DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_PCI - the importer is not a PCI device. */
#define DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_PCI	4
/**
 * DRM_COMPUTE_P2P_REASON_NO_PCI_PATH - no common PCI switch and the host
 * bridge is not known to forward peer-to-peer traffic (the p2pdma
 * whitelist).
 */
#define DRM_COMPUTE_P2P_REASON_NO_PCI_PATH	5
/**
 * DRM_COMPUTE_P2P_REASON_ACS_REDIRECT - a common switch exists, but ACS
 * redirects peer traffic up to the root complex.
 */
#define DRM_COMPUTE_P2P_REASON_ACS_REDIRECT	6
/**
 * DRM_COMPUTE_P2P_REASON_IOMMU - the path crosses the host bridge and the
 * importer's IOMMU translates, which the exporting driver cannot map for.
 */
#define DRM_COMPUTE_P2P_REASON_IOMMU		7
/**
 * DRM_COMPUTE_P2P_REASON_DMA_MASK - the importer's DMA mask does not reach
 * the BAR's bus addresses.
 */
#define DRM_COMPUTE_P2P_REASON_DMA_MASK		8
/**
 * DRM_COMPUTE_P2P_REASON_BAR - the buffer is not in the part of device
 * memory the BAR exposes (a small BAR without resizable BAR).
 */
#define DRM_COMPUTE_P2P_REASON_BAR		9
/** DRM_COMPUTE_P2P_REASON_DRIVER - the exporting driver's own constraint. */
#define DRM_COMPUTE_P2P_REASON_DRIVER		10
/**
 * DRM_COMPUTE_P2P_REASON_PINNED - the buffer had to move for this importer
 * but could not: another importer has it pinned or the kernel has it
 * mapped (only in &drm_compute_p2p_report.refused_reason).
 */
#define DRM_COMPUTE_P2P_REASON_PINNED		11

/**
 * DRM_COMPUTE_P2P_MAP_PEER - the importer reaches device memory by bus
 * address, through the exporting device's BAR.
 */
#define DRM_COMPUTE_P2P_MAP_PEER	1
/** DRM_COMPUTE_P2P_MAP_HOST - the importer reaches the buffer in system memory. */
#define DRM_COMPUTE_P2P_MAP_HOST	2

/** DRM_COMPUTE_P2P_ATTACH_DYNAMIC - the importer attached dynamically. */
#define DRM_COMPUTE_P2P_ATTACH_DYNAMIC	_BITUL(0)
/** DRM_COMPUTE_P2P_ATTACH_PINNED - the importer has the buffer pinned. */
#define DRM_COMPUTE_P2P_ATTACH_PINNED	_BITUL(1)

/**
 * struct drm_compute_p2p_attachment - one importer of a buffer, as
 * %DRM_COMPUTE_OP_P2P_REPORT reports it.
 */
struct drm_compute_p2p_attachment {
	/**
	 * @importer: the importing device's name (its PCI address for a PCI
	 * device), NUL-terminated, truncated to fit.
	 */
	char importer[32];
	/** @map: DRM_COMPUTE_P2P_MAP_*. */
	__u32 map;
	/** @reason: DRM_COMPUTE_P2P_REASON_*, why @map is what it is. */
	__u32 reason;
	/** @flags: DRM_COMPUTE_P2P_ATTACH_* bits. */
	__u32 flags;
	/** @pad: zero. */
	__u32 pad;
};

/**
 * struct drm_compute_p2p_report - where an export buffer lives, why, and
 * who imports it.
 *
 * Answers for a buffer made with a DRM_COMPUTE_BO_EXPORT_* flag. The
 * kernel writes up to @count entries to @attachments (in attach order,
 * oldest first) and sets @count to the number of importers it has now, so
 * a call with @count 0 learns the number. The report is one snapshot.
 *
 * Errors: -EOPNOTSUPP without %DRM_COMPUTE_FEATURE_P2P_EXPORT; -ENOENT for
 * an unknown @handle; -EINVAL for a buffer made without an export flag, or
 * for non-zero @flags, @pad, @reserved or out fields; -EFAULT when
 * @attachments is not writable.
 */
struct drm_compute_p2p_report {
	/** @handle: in, GEM handle of the buffer. */
	__u32 handle;
	/** @flags: in, none defined: must be zero. */
	__u32 flags;
	/**
	 * @attachments: in, user pointer to @count
	 * &struct drm_compute_p2p_attachment (may be 0 when @count is 0).
	 */
	__u64 attachments;
	/** @count: in, entries at @attachments; out, importers now. */
	__u32 count;
	/** @export_flags: out, the buffer's DRM_COMPUTE_BO_EXPORT_* flag. */
	__u32 export_flags;
	/** @placement: out, DRM_COMPUTE_PLACEMENT_* where the buffer lives now. */
	__u64 placement;
	/**
	 * @reason: out, DRM_COMPUTE_P2P_REASON_* why it lives there: NONE
	 * while in device memory, otherwise the reason of the importer that
	 * moved it (or HOST_ONLY).
	 */
	__u32 reason;
	/** @moves: out, times the buffer moved to system memory (0 or 1). */
	__u32 moves;
	/**
	 * @decided_by: out, the name of the importer whose attach moved the
	 * buffer (empty when none did), as in
	 * &drm_compute_p2p_attachment.importer.
	 */
	char decided_by[32];
	/** @refused: out, attaches refused so far. */
	__u32 refused;
	/** @refused_reason: out, DRM_COMPUTE_P2P_REASON_* of the last refusal. */
	__u32 refused_reason;
	/**
	 * @kernel_maps: out, kernel CPU mappings of the buffer now
	 * (dma_buf_vmap(): the memory region of a software RDMA device such
	 * as rxe, for example). Such a user is no importer and is not in the
	 * list: it reaches the buffer with the CPU where it lies, device
	 * memory included (through the BAR), and holds it there as a pin does.
	 */
	__u32 kernel_maps;
	/**
	 * @invalidations: out, times the importers were told to map the
	 * buffer again (dma_buf_invalidate_mappings()): its move to system
	 * memory, a device reset.
	 */
	__u32 invalidations;
	/** @reserved: in, must be zero. */
	__u64 reserved;
};

/**
 * struct drm_compute_bo_mmap - the fake offset to mmap() a buffer at.
 *
 * Errors: -ENOENT for an unknown handle; -EINVAL for non-zero @pad or
 * @offset.
 */
struct drm_compute_bo_mmap {
	/** @handle: in, GEM handle. */
	__u32 handle;
	/** @pad: in, must be zero. */
	__u32 pad;
	/** @offset: out (zero on input), the offset for mmap() on this fd. */
	__u64 offset;
};

/* ------------------------------------------------------------------------
 * GPU virtual memory
 */

/**
 * DRM_COMPUTE_VM_CREATE_SVM - the VM mirrors the address space of the
 * process that creates it (shared virtual memory), on devices that report
 * %DRM_COMPUTE_FEATURE_SVM.
 *
 * Every address of [&drm_compute_query_device.va_start, va_end) that no
 * VM_BIND mapping covers is the process's memory at the same address: a
 * queue reaches there what the CPU sees (any pointer of the process), under
 * the attributes set with %DRM_COMPUTE_OP_SVM; an address with no CPU
 * mapping, or with one that cannot be mirrored, faults the queue. VM_BIND
 * works as in any VM, and a buffer mapping takes precedence over the
 * process's memory where it lies.
 *
 * The VM belongs to the creating process's address space (its mm): in
 * another process, a child that inherited the file across fork() included,
 * USERQ_CREATE on it and %DRM_COMPUTE_OP_SVM on it fail with -EPERM; that
 * process creates its own VM.
 */
#define DRM_COMPUTE_VM_CREATE_SVM	_BITUL(0)

/**
 * struct drm_compute_vm_create - create a GPU virtual address space.
 *
 * Errors: -EINVAL for unknown @flags or a non-zero @vm_id; -EOPNOTSUPP for
 * %DRM_COMPUTE_VM_CREATE_SVM on a device without %DRM_COMPUTE_FEATURE_SVM;
 * -ENOSPC when the file has as many VMs as the driver allows; -ENOMEM.
 */
struct drm_compute_vm_create {
	/** @flags: in, DRM_COMPUTE_VM_CREATE_* bits. */
	__u32 flags;
	/** @vm_id: out (zero on input), the VM's id in this file (never 0). */
	__u32 vm_id;
};

/**
 * struct drm_compute_vm_destroy - destroy a GPU VM and its mappings.
 *
 * Errors: -ENOENT for an unknown @vm_id; -EBUSY while a user queue of this
 * file runs on the VM; -EINVAL for a non-zero @pad.
 */
struct drm_compute_vm_destroy {
	/** @vm_id: in. */
	__u32 vm_id;
	/** @pad: in, must be zero. */
	__u32 pad;
};

/** DRM_COMPUTE_VM_BIND_OP_MAP - map @handle's pages at [va, va + range). */
#define DRM_COMPUTE_VM_BIND_OP_MAP	1
/** DRM_COMPUTE_VM_BIND_OP_UNMAP - unmap whatever lies in [va, va + range). */
#define DRM_COMPUTE_VM_BIND_OP_UNMAP	2

/** DRM_COMPUTE_VM_BIND_READONLY - the GPU may not write the mapping. */
#define DRM_COMPUTE_VM_BIND_READONLY	_BITULL(0)
/** DRM_COMPUTE_VM_BIND_NOEXEC - the GPU may not fetch queue packets from it. */
#define DRM_COMPUTE_VM_BIND_NOEXEC	_BITULL(1)

/**
 * struct drm_compute_vm_bind - map or unmap a buffer range in a GPU VM.
 *
 * Synchronous: when the ioctl returns, the GPU sees the new mapping, and
 * an unmapped range is no longer reachable by any queue (a queue that
 * touches it afterwards faults, %DRM_COMPUTE_FAULT_UNMAPPED).
 *
 * MAP: @va, @range and @bo_offset are multiples of the GPU page size,
 * @range is not zero, [@va, @va + @range) lies inside
 * [&drm_compute_query_device.va_start, va_end) and is entirely unmapped,
 * and [@bo_offset, @bo_offset + @range) lies inside the buffer. The
 * mapping holds a reference on the buffer until it is unmapped.
 *
 * UNMAP: @handle, @bo_offset and @flags are zero; @va and @range as for
 * MAP, except that the range may hold any number of mappings (or none);
 * mappings that straddle its ends are split and keep their outer parts.
 *
 * Errors: -EINVAL for any rule above broken (nothing is changed); -ENOENT
 * for an unknown @vm_id or @handle; -EOPNOTSUPP for a buffer the device
 * cannot map (an imported dma-buf of another device); -ENOMEM.
 */
struct drm_compute_vm_bind {
	/** @vm_id: in, the VM. */
	__u32 vm_id;
	/** @op: in, DRM_COMPUTE_VM_BIND_OP_*. */
	__u32 op;
	/** @flags: in, DRM_COMPUTE_VM_BIND_* bits (MAP only). */
	__u64 flags;
	/** @handle: in, the buffer (MAP), zero (UNMAP). */
	__u32 handle;
	/** @pad: in, must be zero. */
	__u32 pad;
	/** @bo_offset: in, offset into the buffer (MAP), zero (UNMAP). */
	__u64 bo_offset;
	/** @va: in, GPU virtual address. */
	__u64 va;
	/** @range: in, bytes. */
	__u64 range;
};

/* ------------------------------------------------------------------------
 * User queues
 */

/**
 * DRM_COMPUTE_DOORBELL_NEED_WAKEUP - set by the kernel in
 * &drm_compute_doorbell.flags when the device stopped watching the
 * doorbell.
 */
#define DRM_COMPUTE_DOORBELL_NEED_WAKEUP	_BITUL(0)

/**
 * struct drm_compute_doorbell - a queue's doorbell.
 *
 * Userspace maps &drm_compute_userq_create.doorbell_offset (read/write,
 * &drm_compute_query_userq.doorbell_size bytes), finds the doorbell at
 * &drm_compute_userq_create.doorbell_pos and submits work without a system
 * call: it writes packets into the ring, then stores the new write pointer
 * to @wptr. @flags exists only on devices that report
 * %DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP; elsewhere a doorbell is the 8-byte
 * @wptr alone and the next 8 bytes may be another queue's doorbell.
 *
 * The protocol is io_uring's SQPOLL one: after storing @wptr, userspace
 * issues a full memory barrier and reads @flags; when
 * %DRM_COMPUTE_DOORBELL_NEED_WAKEUP is set, it calls the USERQ_CONTROL
 * ioctl with %DRM_COMPUTE_USERQ_OP_WAKE. The kernel sets the flag, issues a
 * full barrier and reads @wptr once more before it stops watching, so a
 * write pointer stored before the flag became visible is never missed.
 * Devices without %DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP never set the flag.
 */
struct drm_compute_doorbell {
	/**
	 * @wptr: written by userspace: the ring's write pointer, counting up
	 * from 0 without wrapping in the unit of the queue's format (bytes
	 * for %DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE, dwords for the AMD formats,
	 * as AMD's CP counts); the ring offset is @wptr modulo the ring size
	 * in that unit. It never runs ahead of the read pointer by more than
	 * the ring size. Read pointers use the same unit.
	 */
	__u64 wptr;
	/** @flags: written by the kernel, DRM_COMPUTE_DOORBELL_* bits. */
	__u32 flags;
	/** @pad: zero. */
	__u32 pad;
};

/**
 * struct drm_compute_userq_create - create a compute user queue.
 *
 * The queue fetches packets (in the device's format, @format) from the ring
 * at @ring_va through the GPU VM @vm_id, and writes its read pointer, in
 * the units of &drm_compute_doorbell.wptr, to the 8 bytes at @rptr_va after
 * each packet. Work starts when userspace advances the doorbell's write
 * pointer.
 *
 * Errors: -ENOENT for an unknown @vm_id; -EINVAL for an unknown @format,
 * unknown @flags, a @priority at or past the device's number of levels, a
 * ring size that is not a power of two within the device's limits, a
 * misaligned or zero @ring_va (ring-size alignment) or @rptr_va (8 bytes),
 * a @wptr_va or @fence_va that is zero or misaligned where the device
 * reads that pointer or fence from memory or non-zero where it does not, a
 * context save area
 * missing, misaligned (page) or smaller than
 * &drm_compute_query_userq.ctx_save_size where the device needs one (or
 * given where it needs none), a CU mask whose @cu_mask_count is not a
 * multiple of 32 or is larger than the device's CU count rounded up to 32,
 * that is not zero with a zero @cu_mask_ptr,
 * which sets a bit past the last CU or which enables no CU, non-zero @pad
 * or out fields; -EFAULT for an unreadable @cu_mask_ptr; -EACCES for a
 * privileged priority without CAP_SYS_NICE; -EPERM for a VM made with
 * %DRM_COMPUTE_VM_CREATE_SVM by another process (another address space);
 * -ENOSPC when the file has &drm_compute_query_userq.max_queues queues;
 * -EBUSY while a checkpoint has the file paused (%DRM_COMPUTE_OP_CRIU_PAUSE).
 */
struct drm_compute_userq_create {
	/** @vm_id: in, the GPU VM the queue runs in. */
	__u32 vm_id;
	/** @format: in, DRM_COMPUTE_QUEUE_FORMAT_*, one the device reports. */
	__u32 format;
	/** @flags: in, none defined yet: must be zero. */
	__u32 flags;
	/**
	 * @priority: in, 0 (lowest) to &drm_compute_query_userq.num_priorities
	 * - 1, KFD's meaning.
	 */
	__u32 priority;
	/**
	 * @cu_mask_ptr: in, user pointer to @cu_mask_count / 32 __u32 words;
	 * bit n of word n / 32 enables CU n for the queue's work (KFD's and
	 * AMD's CU mask). Ignored when @cu_mask_count is 0.
	 */
	__u64 cu_mask_ptr;
	/** @cu_mask_count: in, bits in the mask; 0 enables every CU. */
	__u32 cu_mask_count;
	/** @pad: in, must be zero. */
	__u32 pad;
	/** @ring_va: in, GPU VA of the ring, aligned to @ring_size. */
	__u64 ring_va;
	/** @ring_size: in, bytes, a power of two. */
	__u64 ring_size;
	/** @rptr_va: in, GPU VA of the 8-byte read pointer the queue writes. */
	__u64 rptr_va;
	/**
	 * @wptr_va: in, GPU VA of the 8-byte write pointer the device reads,
	 * where it reports %DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY; must be 0
	 * elsewhere.
	 */
	__u64 wptr_va;
	/**
	 * @fence_va: in, GPU VA of the queue's 8-byte fence slot, where the
	 * device reports %DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY; must be 0
	 * elsewhere.
	 */
	__u64 fence_va;
	/**
	 * @ctx_save_va: in, GPU VA of the context save area (the CWSR area on
	 * AMD): where the device saves the queue's context when it is
	 * suspended; 0 where the device needs none.
	 */
	__u64 ctx_save_va;
	/** @ctx_save_size: in, bytes of the context save area. */
	__u64 ctx_save_size;
	/** @queue_id: out (zero on input), the queue's id in this file (never 0). */
	__u32 queue_id;
	/**
	 * @doorbell_pos: out (zero on input), byte offset of the queue's
	 * &struct drm_compute_doorbell in the page at @doorbell_offset (a
	 * device may keep several queues' doorbells in one page).
	 */
	__u32 doorbell_pos;
	/**
	 * @doorbell_offset: out (zero on input), the offset for mmap() on this
	 * fd of the page holding the queue's doorbell
	 * (&drm_compute_query_userq.doorbell_size bytes, read/write).
	 */
	__u64 doorbell_offset;
};

/**
 * struct drm_compute_userq_destroy - destroy a user queue.
 *
 * The queue stops at once (work in flight is abandoned), waiters on its
 * fence return -ECANCELED, syncobj points still pending on it are added in
 * the error state, and its doorbell mapping stops being a doorbell.
 *
 * Errors: -ENOENT for an unknown @queue_id; -EINVAL for a non-zero @pad.
 */
struct drm_compute_userq_destroy {
	/** @queue_id: in. */
	__u32 queue_id;
	/** @pad: in, must be zero. */
	__u32 pad;
};

/**
 * DRM_COMPUTE_USERQ_OP_SUSPEND - stop the queue at a point it can resume
 * from, saving its context (to the context save area where it has one);
 * when the ioctl returns the queue touches no memory. Fails with -EINVAL
 * on a queue that is already suspended, -EIO on a dead one.
 */
#define DRM_COMPUTE_USERQ_OP_SUSPEND	1
/**
 * DRM_COMPUTE_USERQ_OP_RESUME - continue a suspended queue from its saved
 * context. Fails with -EINVAL on an active queue, -EIO on a dead one.
 */
#define DRM_COMPUTE_USERQ_OP_RESUME	2
/**
 * DRM_COMPUTE_USERQ_OP_WAKE - make the device look at the doorbell again
 * after it set %DRM_COMPUTE_DOORBELL_NEED_WAKEUP; harmless at any time.
 */
#define DRM_COMPUTE_USERQ_OP_WAKE	3

/**
 * struct drm_compute_userq_control - suspend, resume or wake a queue.
 *
 * Errors: -ENOENT for an unknown @queue_id; -EINVAL for an unknown @op, a
 * non-zero @flags or @pad, or an @op the queue's state forbids; -EIO for
 * a dead queue (faulted, hung or lost); -EBUSY to resume a queue while a
 * checkpoint has its file paused (%DRM_COMPUTE_OP_CRIU_PAUSE).
 */
struct drm_compute_userq_control {
	/** @queue_id: in. */
	__u32 queue_id;
	/** @op: in, DRM_COMPUTE_USERQ_OP_*. */
	__u32 op;
	/** @flags: in, none defined yet: must be zero. */
	__u32 flags;
	/** @pad: in, must be zero. */
	__u32 pad;
};

/** DRM_COMPUTE_USERQ_STATUS_IDLE - no pending work (rptr == wptr). */
#define DRM_COMPUTE_USERQ_STATUS_IDLE		1
/** DRM_COMPUTE_USERQ_STATUS_RUNNING - pending work being executed. */
#define DRM_COMPUTE_USERQ_STATUS_RUNNING	2
/** DRM_COMPUTE_USERQ_STATUS_SUSPENDED - stopped by %DRM_COMPUTE_USERQ_OP_SUSPEND. */
#define DRM_COMPUTE_USERQ_STATUS_SUSPENDED	3
/** DRM_COMPUTE_USERQ_STATUS_FAULTED - stopped by a fault; see @fault_reason. */
#define DRM_COMPUTE_USERQ_STATUS_FAULTED	4
/** DRM_COMPUTE_USERQ_STATUS_HUNG - reset after making no progress. */
#define DRM_COMPUTE_USERQ_STATUS_HUNG		5
/** DRM_COMPUTE_USERQ_STATUS_LOST - the device went away (unplug). */
#define DRM_COMPUTE_USERQ_STATUS_LOST		6

/** DRM_COMPUTE_FAULT_NONE - no fault. */
#define DRM_COMPUTE_FAULT_NONE		0
/** DRM_COMPUTE_FAULT_UNMAPPED - an access to an address with no mapping. */
#define DRM_COMPUTE_FAULT_UNMAPPED	1
/** DRM_COMPUTE_FAULT_WRITE - a write to a read-only mapping. */
#define DRM_COMPUTE_FAULT_WRITE		2
/** DRM_COMPUTE_FAULT_EXEC - a packet fetch from a no-exec mapping. */
#define DRM_COMPUTE_FAULT_EXEC		3
/** DRM_COMPUTE_FAULT_ALIGNMENT - a misaligned address, size or packet. */
#define DRM_COMPUTE_FAULT_ALIGNMENT	4
/** DRM_COMPUTE_FAULT_PACKET - an invalid packet (opcode, size, field). */
#define DRM_COMPUTE_FAULT_PACKET	5
/**
 * DRM_COMPUTE_FAULT_WPTR - a write pointer behind the read pointer, more than
 * a ring ahead of it, or not 8-byte aligned.
 */
#define DRM_COMPUTE_FAULT_WPTR		6
/** DRM_COMPUTE_FAULT_TIMEOUT - a wait packet's own timeout expired. */
#define DRM_COMPUTE_FAULT_TIMEOUT	7
/** DRM_COMPUTE_FAULT_HANG - reset by hang detection (status HUNG). */
#define DRM_COMPUTE_FAULT_HANG		8
/** DRM_COMPUTE_FAULT_LOST - the device went away (status LOST). */
#define DRM_COMPUTE_FAULT_LOST		9
/**
 * DRM_COMPUTE_FAULT_NOMIRROR - an access, in a VM made with
 * %DRM_COMPUTE_VM_CREATE_SVM, to an address whose CPU mapping cannot be
 * mirrored: a VM_IO or VM_PFNMAP mapping, such as the CPU mapping of a
 * buffer object. Bind the buffer into the VM to use it from a queue.
 */
#define DRM_COMPUTE_FAULT_NOMIRROR	10
/**
 * DRM_COMPUTE_FAULT_SVM_BUSY - an access, in a VM made with
 * %DRM_COMPUTE_VM_CREATE_SVM, whose fault could not be serviced within the
 * driver's retry bound: the CPU mapping kept changing (invalidated again
 * and again) or its pages could not be faulted in time.
 */
#define DRM_COMPUTE_FAULT_SVM_BUSY	11
/**
 * DRM_COMPUTE_FAULT_JOB_TIMEOUT - one packet (a job) ran on the device for
 * longer than the device's job time limit and was stopped, as a GPU's job
 * timeout stops a shader that never ends; the fault address is the packet's
 * place in the ring. Time spent waiting (WAIT_MEM) does not count. The
 * limit is the driver's (vcompute: its ``job_timeout_ms`` parameter).
 */
#define DRM_COMPUTE_FAULT_JOB_TIMEOUT	12

/**
 * struct drm_compute_userq_state - read a queue's state.
 *
 * Errors: -ENOENT for an unknown @queue_id; -EINVAL for non-zero @pad,
 * out or reserved fields.
 */
struct drm_compute_userq_state {
	/** @queue_id: in. */
	__u32 queue_id;
	/** @status: out (zero on input), DRM_COMPUTE_USERQ_STATUS_*. */
	__u32 status;
	/** @rptr: out (zero on input), the read pointer. */
	__u64 rptr;
	/** @wptr: out (zero on input), the write pointer last seen. */
	__u64 wptr;
	/** @fence: out (zero on input), the value of the last fence the queue wrote. */
	__u64 fence;
	/** @fault_va: out (zero on input), the address of a fault, if any. */
	__u64 fault_va;
	/** @fault_reason: out (zero on input), DRM_COMPUTE_FAULT_*. */
	__u32 fault_reason;
	/** @priority: out (zero on input), the queue's priority. */
	__u32 priority;
	/** @reserved: in must be zero, out zero. */
	__u64 reserved[2];
};

/**
 * struct drm_compute_userq_wait - wait until a queue's fence reaches a value.
 *
 * Returns 0 as soon as the last fence value the queue wrote is at least
 * @value (at once if it already is). Errors: -ETIME when @timeout_nsec
 * passes first; -EIO when the queue faults, hangs or is lost first;
 * -ECANCELED when it is destroyed first; -ERESTARTSYS on a signal;
 * -ENOENT for an unknown @queue_id; -EINVAL for a non-zero @flags or @pad.
 */
struct drm_compute_userq_wait {
	/** @queue_id: in. */
	__u32 queue_id;
	/** @flags: in, none defined yet: must be zero. */
	__u32 flags;
	/** @value: in, the fence value to wait for. */
	__u64 value;
	/**
	 * @timeout_nsec: in, absolute CLOCK_MONOTONIC time in ns, as for
	 * DRM_IOCTL_SYNCOBJ_WAIT (0 polls once).
	 */
	__s64 timeout_nsec;
};

/**
 * struct drm_compute_userq_signal - have a sync object signaled when a
 * queue's fence reaches a value.
 *
 * When the queue's fence is (or becomes) at least @value, the kernel adds
 * an already-signaled fence to the sync object @handle: at timeline point
 * @point, or as its fence when @point is 0. No fence that waits on
 * userspace is ever published, as dma-buf.rst demands for long-running
 * work: a Vulkan or other driver's wait on the point (with
 * DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT) sleeps until the work is done. If
 * the queue dies first, the fence added carries -EIO (-ECANCELED when the
 * queue is destroyed).
 *
 * Errors: -ENOENT for an unknown @queue_id or @handle; -EIO for a dead
 * queue; -ENOSPC when the queue has too many pending signals (1024);
 * -EINVAL for a non-zero @flags or @pad; -ENOMEM.
 */
struct drm_compute_userq_signal {
	/** @queue_id: in. */
	__u32 queue_id;
	/** @handle: in, a sync object of this file. */
	__u32 handle;
	/** @value: in, the queue fence value that completes the signal. */
	__u64 value;
	/** @point: in, timeline point, or 0 for a binary sync object. */
	__u64 point;
	/** @flags: in, none defined yet: must be zero. */
	__u32 flags;
	/** @pad: in, must be zero. */
	__u32 pad;
};

/* ------------------------------------------------------------------------
 * Shared virtual memory
 */

/** DRM_COMPUTE_SVM_OP_SET_ATTR - set attributes on a range. */
#define DRM_COMPUTE_SVM_OP_SET_ATTR	1
/** DRM_COMPUTE_SVM_OP_GET_ATTR - report attributes over a range. */
#define DRM_COMPUTE_SVM_OP_GET_ATTR	2

/** DRM_COMPUTE_SVM_MAX_ATTRS - the most attributes one call takes. */
#define DRM_COMPUTE_SVM_MAX_ATTRS	64

/*
 * Attribute types (&drm_compute_svm_attr.type) and values: those of KFD's
 * AMDKFD_IOC_SVM (kfd_ioctl.h), so that its users carry them unchanged.
 */
/**
 * DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC - where the data should live: a
 * device id (&drm_compute_query_device.device_id),
 * %DRM_COMPUTE_SVM_LOCATION_SYSMEM or %DRM_COMPUTE_SVM_LOCATION_UNDEFINED
 * (no preference, the default). Guides migration when a device or the CPU
 * touches the data.
 */
#define DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC	0
/**
 * DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC - migrate the data to this location now
 * (SET), as for %DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC; a prefetch that cannot
 * place the data leaves it where it is and is not an error. The location is
 * recorded and reported back (GET).
 */
#define DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC	1
/**
 * DRM_COMPUTE_SVM_ATTR_ACCESS - the device whose id is the value maps the
 * range, and the data may migrate to it. Every device has this access
 * where no attribute named it.
 */
#define DRM_COMPUTE_SVM_ATTR_ACCESS		2
/**
 * DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE - the device maps the data where it
 * is, without migrating it.
 */
#define DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE	3
/**
 * DRM_COMPUTE_SVM_ATTR_NO_ACCESS - the device does not map the range: a
 * queue of it that touches the range faults (%DRM_COMPUTE_FAULT_UNMAPPED).
 */
#define DRM_COMPUTE_SVM_ATTR_NO_ACCESS		4
/** DRM_COMPUTE_SVM_ATTR_SET_FLAGS - DRM_COMPUTE_SVM_FLAG_* bits to set. */
#define DRM_COMPUTE_SVM_ATTR_SET_FLAGS		5
/** DRM_COMPUTE_SVM_ATTR_CLR_FLAGS - DRM_COMPUTE_SVM_FLAG_* bits to clear. */
#define DRM_COMPUTE_SVM_ATTR_CLR_FLAGS		6
/**
 * DRM_COMPUTE_SVM_ATTR_GRANULARITY - the migration granularity, log2 of CPU
 * pages: from 0 to 63 - log2(CPU page size) (51 with 4 KiB pages); 9 (2 MiB
 * with 4 KiB pages) where never set. A device may migrate in smaller
 * chunks than this.
 */
#define DRM_COMPUTE_SVM_ATTR_GRANULARITY	7

/** DRM_COMPUTE_SVM_LOCATION_SYSMEM - location: system memory. */
#define DRM_COMPUTE_SVM_LOCATION_SYSMEM		0
/** DRM_COMPUTE_SVM_LOCATION_UNDEFINED - location: none chosen. */
#define DRM_COMPUTE_SVM_LOCATION_UNDEFINED	0xffffffffu

/*
 * The flags are KFD's. A device honours some of them
 * (&drm_compute_query_device.svm_flags, always the two of memory never
 * set) and refuses to set the others with -EOPNOTSUPP.
 */

/**
 * DRM_COMPUTE_SVM_FLAG_HOST_ACCESS - the CPU can always reach the data:
 * where a device keeps it in memory the CPU cannot address, a CPU access
 * brings it back (device-private memory).
 */
#define DRM_COMPUTE_SVM_FLAG_HOST_ACCESS	_BITUL(0)
/**
 * DRM_COMPUTE_SVM_FLAG_COHERENT - fine-grained coherence: device accesses
 * to system memory are coherent with the CPU's without a flush (snooped),
 * and data in device memory has one copy.
 */
#define DRM_COMPUTE_SVM_FLAG_COHERENT		_BITUL(1)
/**
 * DRM_COMPUTE_SVM_FLAG_HIVE_LOCAL - the data may live in any device of the
 * preferred device's hive (AMD's XGMI); only devices in a hive honour it.
 */
#define DRM_COMPUTE_SVM_FLAG_HIVE_LOCAL		_BITUL(2)
/** DRM_COMPUTE_SVM_FLAG_GPU_RO - devices only read the range. */
#define DRM_COMPUTE_SVM_FLAG_GPU_RO		_BITUL(3)
/**
 * DRM_COMPUTE_SVM_FLAG_GPU_EXEC - devices may execute from the range
 * (fetch queue packets from it).
 */
#define DRM_COMPUTE_SVM_FLAG_GPU_EXEC		_BITUL(4)
/**
 * DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY - devices mostly read the range: a
 * device's read never migrates it, even to a preferred location; the
 * device reads it where it is or from a read-only copy of its own, which a
 * write by anyone invalidates. A device's write maps it writable, migrating
 * it first where the preferred location asks.
 */
#define DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY	_BITUL(5)
/**
 * DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED - keep device mappings valid: the
 * device maps the range when the flag is set and again after every
 * invalidation, so its queues take no fault there.
 */
#define DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED	_BITUL(6)
/**
 * DRM_COMPUTE_SVM_FLAG_EXT_COHERENT - coherence extended to device-scope
 * atomics: they are visible to the CPU and other devices as they happen
 * (AMD's MTYPE_UC).
 */
#define DRM_COMPUTE_SVM_FLAG_EXT_COHERENT	_BITUL(7)
/** DRM_COMPUTE_SVM_FLAGS_KNOWN - every DRM_COMPUTE_SVM_FLAG_* bit. */
#define DRM_COMPUTE_SVM_FLAGS_KNOWN		(DRM_COMPUTE_SVM_FLAG_HOST_ACCESS | \
						 DRM_COMPUTE_SVM_FLAG_COHERENT | \
						 DRM_COMPUTE_SVM_FLAG_HIVE_LOCAL | \
						 DRM_COMPUTE_SVM_FLAG_GPU_RO | \
						 DRM_COMPUTE_SVM_FLAG_GPU_EXEC | \
						 DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY | \
						 DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED | \
						 DRM_COMPUTE_SVM_FLAG_EXT_COHERENT)

/**
 * struct drm_compute_svm_attr - one attribute of %DRM_COMPUTE_OP_SVM, KFD's
 * type/value pair.
 */
struct drm_compute_svm_attr {
	/**
	 * @type: in, DRM_COMPUTE_SVM_ATTR_*. Out (GET, the three access
	 * types): the access the device has over the whole range.
	 */
	__u32 type;
	/**
	 * @value: SET: in, the value (a location, a device id for the access
	 * types, flags, a granularity). GET: for the access types in, the
	 * device id; for the others out, the value over the range (its input
	 * is ignored).
	 */
	__u32 value;
};

/**
 * struct drm_compute_svm - set or get the SVM attributes of an address
 * range of a VM made with %DRM_COMPUTE_VM_CREATE_SVM.
 *
 * The attributes (DRM_COMPUTE_SVM_ATTR_*) say how devices treat the
 * process's memory in the range: where its data should live, which devices
 * map it and how, what they may do with it, in what chunks it migrates.
 * Where nothing was set, an address has no preferred or prefetch location
 * (%DRM_COMPUTE_SVM_LOCATION_UNDEFINED), the flags
 * %DRM_COMPUTE_SVM_FLAG_HOST_ACCESS and %DRM_COMPUTE_SVM_FLAG_COHERENT,
 * granularity 9 and %DRM_COMPUTE_SVM_ATTR_ACCESS for every device.
 * Attributes belong to the memory: when the process unmaps memory, its
 * attributes go with it, and memory mapped there later starts from those
 * defaults.
 *
 * SET applies @attrs in order to every address of the range, which may
 * cover any number of earlier settings; a later location, granularity or
 * access of the same device replaces an earlier one, flags are set and
 * cleared in turn. Addresses outside the range keep theirs.
 *
 * GET reports each attribute of @attrs over the whole range, KFD's rules:
 * a location if it is the same everywhere, else
 * %DRM_COMPUTE_SVM_LOCATION_UNDEFINED; SET_FLAGS the flags set everywhere,
 * CLR_FLAGS the flags clear everywhere; the smallest granularity; for an
 * access type, the type is replaced by the device's access if it is the
 * same everywhere, else by %DRM_COMPUTE_SVM_ATTR_NO_ACCESS. The answers are
 * written to @attrs once every check passed; an array that cannot be
 * written then gives -EFAULT, possibly with a part of it written.
 *
 * Every address of the range must have a CPU mapping that can be mirrored:
 * not VM_IO or VM_PFNMAP, which an mmap() of a GEM buffer is (map buffers
 * with VM_BIND instead).
 *
 * A device id in an attribute: for the access types, any compute device
 * present that reports %DRM_COMPUTE_FEATURE_SVM; for the locations, the
 * VM's own device, if it has device memory. One VM keeps the access of at
 * most 16 devices over its life.
 *
 * Errors (nothing changes on any of them, in the kernel or in the
 * argument, which is only read): -EOPNOTSUPP on a device without
 * %DRM_COMPUTE_FEATURE_SVM, for any argument, and for a SET that sets a
 * flag the device does not honour (outside
 * &drm_compute_query_device.svm_flags; clearing one is allowed); -EINVAL
 * for an unknown @op, non-zero @flags, @nattr 0 or
 * above %DRM_COMPUTE_SVM_MAX_ATTRS, a @start or @size that is not a
 * multiple of &drm_compute_query_device.page_size, a zero @size, a range
 * that wraps or leaves [&drm_compute_query_device.va_start, va_end), a VM
 * made without %DRM_COMPUTE_VM_CREATE_SVM, an attribute of unknown type, a
 * flag outside %DRM_COMPUTE_SVM_FLAGS_KNOWN, a granularity too large, a
 * device id the rules above do not allow, or a 17th device; -ENOENT for an
 * unknown @vm_id; -EPERM for a VM made by another process; -EFAULT for an
 * @attrs array that cannot be read (or, for GET, written), or an address of
 * the range without a CPU mapping or in one that cannot be mirrored;
 * -EINTR when a fatal signal interrupts the wait for the address-space
 * lock; -ENOMEM.
 */
struct drm_compute_svm {
	/** @vm_id: in, a VM of this file made with %DRM_COMPUTE_VM_CREATE_SVM. */
	__u32 vm_id;
	/** @op: in, DRM_COMPUTE_SVM_OP_*. */
	__u32 op;
	/** @start: in, first CPU (and GPU) virtual address of the range. */
	__u64 start;
	/** @size: in, bytes of the range. */
	__u64 size;
	/**
	 * @attrs: in, user pointer to @nattr &struct drm_compute_svm_attr,
	 * read (and for GET written back).
	 */
	__u64 attrs;
	/** @nattr: in, entries at @attrs: 1 to %DRM_COMPUTE_SVM_MAX_ATTRS. */
	__u32 nattr;
	/** @flags: in, none defined yet: must be zero. */
	__u32 flags;
};

/* ------------------------------------------------------------------------
 * Checkpoint/restore
 */

/**
 * struct drm_compute_criu_info - what a checkpoint of a file would save.
 *
 * The first step of a checkpoint: a checkpoint/restore tool (CRIU, through
 * its onenode plugin) learns the compute objects a file of the render node
 * holds, and how many of them the device cannot save (@unsaved). A tool
 * that finds any of those fails the checkpoint, and the process goes on as
 * before, rather than restore the file without them. Every driver with
 * this uapi has the operation; it needs no feature bit.
 *
 * Who may call it is DRM core's rule for checkpoint/restore ioctls
 * (DRM_CHECKPOINT_RESTORE in include/drm/drm_ioctl.h), the same on every
 * driver: CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN, else -EPERM; the process
 * that owns the file or its ptrace tracer (CRIU once it has seized it),
 * else -EACCES. The call does not make the caller the file's owner.
 *
 * Each count is a snapshot; the objects may change while a tool looks,
 * unless it has frozen their users, as CRIU has.
 *
 * Errors: -EPERM, -EACCES as above; -EINVAL for non-zero @flags, out fields
 * or @reserved; -EINTR on a signal while a VM's mappings are looked at;
 * -ENOMEM; -ENODEV once the device is unplugged.
 */
struct drm_compute_criu_info {
	/** @flags: in, none defined: must be zero. */
	__u32 flags;
	/** @bos: out, GEM handles of the file, imported buffers included. */
	__u32 bos;
	/**
	 * @exports: out, of @bos, buffers of this device exported as a
	 * dma-buf. DRM core keeps a buffer's dma-buf while the buffer has a
	 * handle (a second export returns the same one), so a buffer counts
	 * from its first export until its last handle closes, whoever holds
	 * the dma-buf.
	 */
	__u32 exports;
	/**
	 * @imports: out, of @bos, buffers of another device imported from a
	 * dma-buf. A dma-buf of this device imported into another of its
	 * files is the same buffer there: it counts under @exports.
	 */
	__u32 imports;
	/** @vms: out, GPU VMs of the file. */
	__u32 vms;
	/** @userqs: out, user queues of the file, in any state. */
	__u32 userqs;
	/**
	 * @svm_ranges: out, ranges with SVM attributes other than the
	 * defaults, over every SVM VM of the file (a checkpoint saves them:
	 * &struct drm_compute_criu_svm_range).
	 */
	__u32 svm_ranges;
	/**
	 * @unsaved: out, of the objects above, those a checkpoint of this
	 * device cannot save yet: every one without
	 * %DRM_COMPUTE_FEATURE_CRIU; with it, user queues of a device that
	 * cannot restore them (&drm_compute_query_userq.caps has no
	 * %DRM_COMPUTE_USERQ_CAP_CRIU), faulted, hung or lost queues,
	 * sync-object signals pending on a handle that no longer names their
	 * sync object, SVM VMs that mirror another
	 * process than the file's owner or have more than
	 * %DRM_COMPUTE_CRIU_SVM_RANGES_MAX ranges, exported and imported
	 * buffers, buffers mapped in a VM of the file without a handle in
	 * it, sync objects whose fence is pending or failed, and what the
	 * driver's own ioctls made that it cannot save. A tool must not
	 * dump a file with any: %DRM_COMPUTE_OP_CRIU_CHECKPOINT refuses it.
	 */
	__u32 unsaved;
	/**
	 * @syncobjs: out, DRM sync objects of the file (DRM core's, which a
	 * checkpoint saves too: &struct drm_compute_criu_syncobj). One whose
	 * fence has not signaled, or signaled an error, or that is shared
	 * beyond its handle (an fd, another handle or file), counts in
	 * @unsaved.
	 */
	__u32 syncobjs;
	/**
	 * @signals: out, sync-object signals pending on the file's queues
	 * (%DRM_COMPUTE_OP_USERQ_SIGNAL requests whose value the queue has
	 * not reached), which a checkpoint saves too (&struct
	 * drm_compute_criu_signal). One whose handle no longer names its
	 * sync object counts in @unsaved. Zero in.
	 */
	__u32 signals;
	/** @reserved: must be zero; room for later counts. */
	__u64 reserved;
};

/**
 * DRM_COMPUTE_CRIU_OP_PAUSE - stop the file's GPU work and take its
 * exported buffers from their importers, for a checkpoint.
 */
#define DRM_COMPUTE_CRIU_OP_PAUSE	1
/** DRM_COMPUTE_CRIU_OP_RESUME - undo %DRM_COMPUTE_CRIU_OP_PAUSE. */
#define DRM_COMPUTE_CRIU_OP_RESUME	2

/**
 * struct drm_compute_criu_pause - pause a file for a checkpoint, or resume it.
 *
 * The phase of a checkpoint that comes before anything is saved, after
 * KFD's: %DRM_COMPUTE_CRIU_OP_PAUSE suspends every running user queue of
 * the file, so that nothing the GPU does changes memory while it is saved,
 * and takes every buffer of the file made for export (a
 * DRM_COMPUTE_BO_EXPORT_* flag) and exported as a dma-buf from the devices
 * that imported it: each importer is told to drop its mapping
 * (move_notify), its pending work is waited for, and until the resume no
 * attach, pin or map of the buffer succeeds (-EBUSY). The data of the
 * file's SVM VMs that lives in device memory is brought back to system
 * memory, where the checkpoint tool reads the process's memory (best
 * effort: a page that stays is brought back when the tool touches it).
 * An ordinary buffer exported as a dma-buf must have no importer on
 * another device at the pause; one that attaches later is not held off. No user queue can be
 * created on the file meanwhile (-EBUSY), nor resumed by its user
 * (%DRM_COMPUTE_USERQ_OP_RESUME: -EBUSY). %DRM_COMPUTE_CRIU_OP_RESUME
 * continues exactly the queues the pause suspended and gives the buffers
 * back; queues their user had suspended stay as they were. On a file a
 * restore ended paused (%DRM_COMPUTE_CRIU_RESTORE_END_PAUSED) it first
 * has the SVM VMs watch the address space and drop the attributes of what
 * is not mapped, then continues the restored queues that ran at the
 * checkpoint; if the SVM VMs cannot (-ENOMEM), the file stays paused and
 * the resume may be tried again.
 *
 * If the file is closed while paused (the process was checkpointed and
 * went away), its paused buffers are revoked, but for those another file
 * still has a handle to: importers that still hold them are told, and
 * their next map fails with -ENODEV; the memory is freed when they let go.
 * A restored process has buffers of its own. A buffer with handles in
 * several files (a PRIME import on the same device) may be paused through
 * each, and stays paused until each has resumed.
 *
 * The pause fails, and leaves the file as it was (queues running, buffers
 * with their importers), when a buffer cannot be taken: an importer pinned
 * it (a static importer, or one that pins, as RDMA's pinned memory regions
 * do) or a kernel CPU mapping holds it (%DRM_COMPUTE_OP_P2P_REPORT shows
 * which), or an ordinary buffer, exported without a DRM_COMPUTE_BO_EXPORT_*
 * flag, has an importer on another device (which cannot be told). Buffers
 * imported from other devices are the exporter's to pause, not this file's.
 * A rejected call leaves the structure as it came.
 *
 * Who may call it is DRM core's rule for checkpoint/restore ioctls, as for
 * &struct drm_compute_criu_info. CRIU's onenode plugin pauses every file it
 * dumps before it looks at what the file holds, and resumes the file when
 * the dump fails or the process is left running.
 *
 * Errors: -EPERM, -EACCES as for &struct drm_compute_criu_info; -EINVAL for
 * an unknown @op, non-zero @flags, out fields or @reserved;
 * -EALREADY to pause a paused file or resume one that is not; -EBUSY when
 * a buffer is pinned, as above; -EINTR on a signal while waiting for an
 * importer, -ETIMEDOUT when an importer's fences did not signal within the
 * helper's hang timeout, each with the file as it was; -ENOMEM; the
 * driver's error from
 * suspending or resuming a queue (the pause undone; the resume carries on
 * with the other queues and buffers).
 */
struct drm_compute_criu_pause {
	/** @op: in, DRM_COMPUTE_CRIU_OP_*. */
	__u32 op;
	/** @flags: in, none defined: must be zero. */
	__u32 flags;
	/**
	 * @userqs: out, the queues the call suspended (PAUSE) or continued
	 * (RESUME).
	 */
	__u32 userqs;
	/**
	 * @exports: out, the exported buffers the call took from their
	 * importers (PAUSE) or gave back (RESUME), with or without importers.
	 */
	__u32 exports;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * struct drm_compute_criu_bo - one buffer in a checkpoint.
 *
 * Written by %DRM_COMPUTE_CRIU_CKPT_LIST_BOS, read by
 * %DRM_COMPUTE_CRIU_RESTORE_BOS.
 */
struct drm_compute_criu_bo {
	/** @handle: the buffer's GEM handle in its file. */
	__u32 handle;
	/**
	 * @flags: the DRM_COMPUTE_BO_EXPORT_* flag it was made with, or 0,
	 * and %DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY and
	 * %DRM_COMPUTE_CRIU_BO_JOINED as they say. A buffer made for export
	 * is saved while nothing but its file holds its dma-buf, if it has
	 * one; a restore makes it again with its
	 * flag, where the flag puts a new buffer
	 * (%DRM_COMPUTE_PLACEMENT_VRAM for PREFER_P2P even when @placement
	 * says it had moved to system memory), and its next importer decides
	 * its placement again, reported by %DRM_COMPUTE_OP_P2P_REPORT.
	 */
	__u32 flags;
	/** @size: bytes. */
	__u64 size;
	/** @placement: the DRM_COMPUTE_PLACEMENT_* bit it lives in now. */
	__u64 placement;
	/**
	 * @mmap_offset: checkpoint: the buffer's mmap offset, 0 where it has
	 * none; CPU mappings of the file at this offset map this buffer.
	 * Restore: in, zero; out, the restored buffer's mmap offset, which
	 * mappings made at the old offset move to.
	 */
	__u64 mmap_offset;
	/**
	 * @share: checkpoint: 0 for a buffer only this file holds; for one
	 * something else holds too (a handle in another file of the device,
	 * a dma-buf fd), an id of the buffer on its device, the same in every
	 * file that holds it and in %DRM_COMPUTE_CRIU_CKPT_DMABUF's answer.
	 * Restore: in, 0 for a buffer of this file alone; otherwise the id,
	 * and the call names a restore session
	 * (&drm_compute_criu_restore.session): the first entry of the
	 * session with this id makes the buffer, every later one, in any
	 * file of the device, takes that same buffer
	 * (%DRM_COMPUTE_CRIU_BO_JOINED).
	 */
	__u64 share;
};

/**
 * DRM_COMPUTE_CRIU_BO_JOINED - set by %DRM_COMPUTE_CRIU_RESTORE_BOS in
 * &drm_compute_criu_bo.flags of an entry that took a buffer of the restore
 * session (&drm_compute_criu_bo.share) whose contents another entry
 * writes: the entry's handle now names that buffer; the caller writes
 * none. The first entry to get a buffer, the one that makes it, comes
 * back without the flag and its caller writes the contents; if that
 * entry's call fails, the buffer stays in the session and the next entry
 * of its id, in a retry or in another file, comes back without the flag
 * instead. Never set on input.
 */
#define DRM_COMPUTE_CRIU_BO_JOINED	(1u << 31)

/**
 * DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY - in &drm_compute_criu_bo.flags of a
 * shared entry (&drm_compute_criu_bo.share): the buffer's dma-buf is
 * read-only, as its first PRIME export without %DRM_RDWR made it, and so is
 * every fd of it. Set by %DRM_COMPUTE_CRIU_CKPT_LIST_BOS; given to
 * %DRM_COMPUTE_CRIU_RESTORE_BOS, the restore session exports the buffer's
 * dma-buf read-only again (otherwise read-write). -EINVAL on an entry
 * without a share id.
 */
#define DRM_COMPUTE_CRIU_BO_DMABUF_RDONLY	(1u << 30)

/**
 * struct drm_compute_criu_share - what %DRM_COMPUTE_CRIU_CKPT_DMABUF and
 * %DRM_COMPUTE_CRIU_CKPT_BO_SHARE say of a buffer: how it is shared.
 */
struct drm_compute_criu_share {
	/**
	 * @share: the buffer's id on its device, as
	 * &drm_compute_criu_bo.share lists it in every file that holds it.
	 */
	__u64 share;
	/** @size: bytes. */
	__u64 size;
	/** @handle: the buffer's handle in the file asked. */
	__u32 handle;
	/** @flags: the DRM_COMPUTE_BO_EXPORT_* flag it was made with, or 0. */
	__u32 flags;
	/**
	 * @files: the files of the device that hold a handle to it; a tool
	 * that finds fewer of them in what it saves knows that a process it
	 * does not save shares the buffer.
	 */
	__u32 files;
	/** @pad: zero. */
	__u32 pad;
	/**
	 * @dmabuf_ino: the inode number of the buffer's dma-buf (what
	 * fstat() of its fd gives in st_ino, and /proc/PID/maps shows for a
	 * mapping of it) while the buffer has one, 0 when it has none. A
	 * dma-buf fd or mapping holds the buffer without a handle: a tool
	 * that finds one in a process it does not save knows that process
	 * shares the buffer, which @files cannot tell.
	 */
	__u64 dmabuf_ino;
};

/**
 * struct drm_compute_criu_vm - one GPU VM in a checkpoint.
 */
struct drm_compute_criu_vm {
	/** @id: the VM's id in its file. */
	__u32 id;
	/** @flags: the DRM_COMPUTE_VM_CREATE_* flags it was created with. */
	__u32 flags;
	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * struct drm_compute_criu_mapping - one buffer mapping of a GPU VM in a
 * checkpoint, as &struct drm_compute_vm_bind made it.
 */
struct drm_compute_criu_mapping {
	/** @vm_id: the VM. */
	__u32 vm_id;
	/** @handle: the buffer's handle in the same file. */
	__u32 handle;
	/** @flags: DRM_COMPUTE_VM_BIND_* bits. */
	__u64 flags;
	/** @bo_offset: offset into the buffer. */
	__u64 bo_offset;
	/** @va: GPU virtual address. */
	__u64 va;
	/** @range: bytes. */
	__u64 range;
	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED - the sync object holds a fence that
 * has signaled: a binary one, or a timeline's points up to
 * &drm_compute_criu_syncobj.point.
 */
#define DRM_COMPUTE_CRIU_SYNCOBJ_SIGNALED	_BITUL(0)
/** DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE - the fence is a timeline point. */
#define DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE	_BITUL(1)

/**
 * struct drm_compute_criu_syncobj - one DRM sync object in a checkpoint.
 *
 * Written by %DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS, read by
 * %DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS. A sync object is saved when it holds
 * no fence, or one that signaled without an error; its restore holds a
 * signaled fence again (at the same timeline point), so waits and queries
 * answer as before. One whose fence is still pending names work the
 * checkpoint cannot save, and one shared beyond its handle would come
 * back as a private copy: both count as unsaved.
 */
struct drm_compute_criu_syncobj {
	/** @handle: the sync object's handle in its file. */
	__u32 handle;
	/** @flags: DRM_COMPUTE_CRIU_SYNCOBJ_* bits; 0 for no fence. */
	__u32 flags;
	/**
	 * @point: with %DRM_COMPUTE_CRIU_SYNCOBJ_TIMELINE, the timeline's
	 * last point (every point up to it signaled, never 0); 0 otherwise.
	 */
	__u64 point;
	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * struct drm_compute_criu_signal - a pending sync-object signal of a user
 * queue in a checkpoint: a %DRM_COMPUTE_OP_USERQ_SIGNAL request whose
 * value the queue's fence has not reached, so the sync object holds
 * nothing of it yet.
 *
 * Written by %DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS, read by
 * %DRM_COMPUTE_CRIU_RESTORE_SIGNALS.
 */
struct drm_compute_criu_signal {
	/** @queue_id: the queue whose fence completes it. */
	__u32 queue_id;
	/** @handle: the sync object it signals, by its handle in the file. */
	__u32 handle;
	/** @value: the queue fence value that completes it. */
	__u64 value;
	/** @point: the timeline point it adds, or 0 for a binary signal. */
	__u64 point;
	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * DRM_COMPUTE_CRIU_SVM_ATTRS - room for the attributes of one SVM range in a
 * checkpoint: the two locations, the flags set and cleared, the
 * granularity, and an access type for each device a store keeps (16).
 */
#define DRM_COMPUTE_CRIU_SVM_ATTRS	24
/**
 * DRM_COMPUTE_CRIU_SVM_RANGES_MAX - the most ranges one SVM VM may have to
 * be checkpointed (one RESTORE_SVM_RANGES call brings back all of a VM's);
 * a VM with more counts in &drm_compute_criu_info.unsaved.
 */
#define DRM_COMPUTE_CRIU_SVM_RANGES_MAX	65536

/**
 * struct drm_compute_criu_svm_range - the attributes of one range of an SVM
 * VM in a checkpoint.
 *
 * Written by %DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES, read by
 * %DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES. The ranges of a VM are the pieces
 * of its address space whose attributes differ from the defaults, each
 * with the list of attributes that %DRM_COMPUTE_SVM_OP_SET_ATTR, given on
 * memory that has the defaults, turns into the range's. The memory itself
 * is the process's, which the checkpoint tool saves: the pause brings what
 * lives in device memory home first (&struct drm_compute_criu_pause).
 */
struct drm_compute_criu_svm_range {
	/** @vm_id: the SVM VM. */
	__u32 vm_id;
	/** @nattr: entries of @attrs in use, 1 to %DRM_COMPUTE_CRIU_SVM_ATTRS. */
	__u32 nattr;
	/** @start: first address, aligned to the device's page size. */
	__u64 start;
	/** @size: bytes, aligned to the device's page size, not 0. */
	__u64 size;
	/** @attrs: the attributes, as &struct drm_compute_svm takes them. */
	struct drm_compute_svm_attr attrs[DRM_COMPUTE_CRIU_SVM_ATTRS];
	/** @reserved: must be zero. */
	__u64 reserved;
};

/** DRM_COMPUTE_CRIU_CU_MASK_WORDS - room for a CU mask in a checkpoint. */
#define DRM_COMPUTE_CRIU_CU_MASK_WORDS	16

/**
 * struct drm_compute_criu_queue - one user queue in a checkpoint.
 *
 * Written by %DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES, read by
 * %DRM_COMPUTE_CRIU_RESTORE_QUEUES. A queue's ring, read and write
 * pointers, fence slot and context save area are memory of its VM, saved
 * with the buffers that hold them; this is the rest: how the queue was
 * created (&struct drm_compute_userq_create's fields), where it stands,
 * and its doorbell. The pause saved the context of a queue that was
 * running into its context save area, mid-packet if need be, and a
 * restored queue continues from there.
 */
struct drm_compute_criu_queue {
	/** @queue_id: the queue's id in its file. */
	__u32 queue_id;
	/** @vm_id: the GPU VM it runs in. */
	__u32 vm_id;
	/** @format: DRM_COMPUTE_QUEUE_FORMAT_*. */
	__u32 format;
	/** @priority: its creation priority. */
	__u32 priority;
	/** @ring_va: GPU VA of the ring. */
	__u64 ring_va;
	/** @ring_size: bytes of the ring. */
	__u64 ring_size;
	/** @rptr_va: GPU VA of the read pointer the queue writes. */
	__u64 rptr_va;
	/** @wptr_va: GPU VA of the write pointer, or 0. */
	__u64 wptr_va;
	/** @fence_va: GPU VA of the fence slot, or 0. */
	__u64 fence_va;
	/** @ctx_save_va: GPU VA of the context save area, or 0. */
	__u64 ctx_save_va;
	/** @ctx_save_size: bytes of the context save area. */
	__u64 ctx_save_size;
	/**
	 * @rptr: the read pointer, in bytes, where the queue stands (the
	 * packet it is in, for a queue stopped inside one).
	 */
	__u64 rptr;
	/**
	 * @wptr: the write pointer as the device last read it; a restore
	 * puts it back into a doorbell that holds it
	 * (&struct drm_compute_doorbell).
	 */
	__u64 wptr;
	/**
	 * @fence: the last fence value the queue completed: after a restore,
	 * waits for it or less return at once.
	 */
	__u64 fence;
	/**
	 * @status: 0 for a queue that ran until the checkpoint paused it, and
	 * runs again when the restore ends; %DRM_COMPUTE_USERQ_STATUS_SUSPENDED
	 * for one its user had suspended, which stays suspended.
	 */
	__u32 status;
	/** @cu_mask_count: bits of @cu_mask: the device's compute units. */
	__u32 cu_mask_count;
	/** @cu_mask: bit n of word n / 32 enables CU n, as at creation. */
	__u32 cu_mask[DRM_COMPUTE_CRIU_CU_MASK_WORDS];
	/**
	 * @doorbell_offset: checkpoint: the mmap offset of the queue's
	 * doorbell page; CPU mappings of the file at this offset map it.
	 * Restore: in, zero; out, the restored queue's, which mappings made at
	 * the old offset move to.
	 */
	__u64 doorbell_offset;
	/**
	 * @doorbell_pos: byte offset of the doorbell in its page. A restore
	 * fails with -ENXIO when the device cannot put the restored queue's
	 * doorbell at the same place.
	 */
	__u32 doorbell_pos;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_BOS - the file's buffers, as
 * &struct drm_compute_criu_bo, in ascending handle order.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_BOS		1
/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_VMS - the file's GPU VMs, as
 * &struct drm_compute_criu_vm, in ascending id order.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_VMS		2
/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS - the buffer mappings of every VM of
 * the file, as &struct drm_compute_criu_mapping, by VM and address.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS	3
/**
 * DRM_COMPUTE_CRIU_CKPT_READ_BO - copy a buffer's contents into memory of
 * the caller.
 */
#define DRM_COMPUTE_CRIU_CKPT_READ_BO		4
/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES - the file's user queues, as
 * &struct drm_compute_criu_queue, in ascending id order.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES	5
/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS - the file's DRM sync objects, as
 * &struct drm_compute_criu_syncobj, in ascending handle order.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS	6
/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES - the attribute ranges of the
 * file's SVM VMs, as &struct drm_compute_criu_svm_range, by VM and address.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES	7
/**
 * DRM_COMPUTE_CRIU_CKPT_DMABUF - which buffer of the file the dma-buf with
 * fd @id is, as &struct drm_compute_criu_share at @ptr: how a tool that
 * saves a process's dma-buf fds names their buffers. Works on any file,
 * paused or not, and changes nothing the process can see (the share id is
 * the buffer's mmap offset, allocated here if it had none). -ENOENT when the file has no handle
 * to the dma-buf's buffer (a buffer of another device, or of no file of
 * this one), -EBADF for @id not an open fd, -EINVAL for an fd that is no
 * dma-buf.
 */
#define DRM_COMPUTE_CRIU_CKPT_DMABUF		8
/**
 * DRM_COMPUTE_CRIU_CKPT_BO_SHARE - how the buffer with handle @id is
 * shared, as &struct drm_compute_criu_share at @ptr (its share id even
 * while only this file holds it). Works on any file, paused or not, and
 * changes nothing the process can see, as DMABUF. -ENOENT for an unknown handle or an import.
 */
#define DRM_COMPUTE_CRIU_CKPT_BO_SHARE		9
/**
 * DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS - the sync-object signals pending on
 * the file's queues, as &struct drm_compute_criu_signal, by queue id and,
 * in a queue, in the order it completes them.
 */
#define DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS	10

/**
 * struct drm_compute_criu_checkpoint - save what a paused file holds.
 *
 * The phase after %DRM_COMPUTE_OP_CRIU_PAUSE: the file's queues are
 * stopped, so nothing the device does changes what is read. A tool lists
 * the file's objects and copies each buffer's contents, in pieces of any
 * size, straight into its own memory (the copy goes from the device's
 * memory to the caller's pages; no staging copy in the kernel). The file
 * goes on unchanged: its objects stay where they are, for the resume.
 *
 * LIST_* ops write up to @count entries to @ptr and set @count to the
 * number the file has, all of them, so a call with @count 0 sizes the
 * array. READ_BO copies @size bytes from offset @offset of the buffer with
 * handle @id to @ptr. DMABUF and BO_SHARE say how a buffer is shared.
 *
 * Who may call it is DRM core's rule for checkpoint/restore ioctls, as for
 * &struct drm_compute_criu_info.
 *
 * Errors: -EPERM, -EACCES as for &struct drm_compute_criu_info;
 * -EOPNOTSUPP without %DRM_COMPUTE_FEATURE_CRIU, or while the file holds
 * an object the device cannot save (&drm_compute_criu_info.unsaved);
 * -EINVAL for an unknown @op, non-zero @flags or @reserved, a
 * non-zero @id, @offset or @size with a LIST_* op, a non-zero @count with
 * READ_BO, or a READ_BO range
 * outside the buffer, a non-zero @count, @offset or @size with DMABUF or
 * BO_SHARE; -EBUSY unless the file is paused (DMABUF and BO_SHARE
 * excepted); -ENOENT for an
 * unknown handle; -EFAULT for memory at @ptr the call cannot write;
 * -ENOMEM; DMABUF's and BO_SHARE's own errors as their ops say.
 */
struct drm_compute_criu_checkpoint {
	/** @op: in, DRM_COMPUTE_CRIU_CKPT_*. */
	__u32 op;
	/** @flags: in, none defined: must be zero. */
	__u32 flags;
	/** @count: in/out, LIST_* entries at @ptr; zero otherwise. */
	__u32 count;
	/**
	 * @id: in, READ_BO and BO_SHARE: the buffer's handle; DMABUF: the
	 * dma-buf's fd; zero otherwise.
	 */
	__u32 id;
	/** @ptr: in, user pointer the call writes to. */
	__u64 ptr;
	/** @offset: in, READ_BO: byte offset into the buffer. */
	__u64 offset;
	/** @size: in, READ_BO: bytes to copy. */
	__u64 size;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * DRM_COMPUTE_CRIU_RESTORE_BEGIN - put a file that holds nothing in the
 * restoring state.
 */
#define DRM_COMPUTE_CRIU_RESTORE_BEGIN		1
/**
 * DRM_COMPUTE_CRIU_RESTORE_BOS - create @count buffers of
 * &struct drm_compute_criu_bo at @ptr, each at the handle it names,
 * zeroed, and write each one's new mmap offset into its entry.
 */
#define DRM_COMPUTE_CRIU_RESTORE_BOS		2
/**
 * DRM_COMPUTE_CRIU_RESTORE_WRITE_BO - copy @size bytes from @ptr into the
 * buffer @id at @offset.
 */
#define DRM_COMPUTE_CRIU_RESTORE_WRITE_BO	3
/**
 * DRM_COMPUTE_CRIU_RESTORE_VMS - create @count GPU VMs of
 * &struct drm_compute_criu_vm at @ptr, each at the id it names.
 */
#define DRM_COMPUTE_CRIU_RESTORE_VMS		4
/**
 * DRM_COMPUTE_CRIU_RESTORE_MAPPINGS - map @count buffer mappings of
 * &struct drm_compute_criu_mapping at @ptr.
 */
#define DRM_COMPUTE_CRIU_RESTORE_MAPPINGS	5
/**
 * DRM_COMPUTE_CRIU_RESTORE_END - leave the restoring state: the file is an
 * ordinary file again.
 */
#define DRM_COMPUTE_CRIU_RESTORE_END		6
/**
 * DRM_COMPUTE_CRIU_RESTORE_QUEUES - create @count user queues of
 * &struct drm_compute_criu_queue at @ptr, each at the id it names, stopped
 * where the checkpoint found them, and write each one's new doorbell
 * offset into its entry. They continue from their context save areas when
 * the restore ends (END), or, for a queue its user had suspended, when it
 * is resumed; so the buffers that hold their rings and save areas are
 * written first.
 */
#define DRM_COMPUTE_CRIU_RESTORE_QUEUES		7
/**
 * DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS - create @count DRM sync objects of
 * &struct drm_compute_criu_syncobj at @ptr, each at the handle it names,
 * holding a signaled fence where the entry says so.
 */
#define DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS	8
/**
 * DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES - give the SVM VMs the attribute
 * ranges of @count &struct drm_compute_criu_svm_range at @ptr (at most
 * %DRM_COMPUTE_CRIU_SVM_RANGES_MAX). @id is the id the checkpointed device
 * had (&drm_compute_query_device.device_id), or 0: an attribute that names
 * it names this device. All of a VM's ranges come in one call, in address
 * order and not overlapping, to a VM that has no attributes yet: the VMs
 * of a restore are fresh, and a failed call then leaves them as they were
 * without allocating (-EEXIST for a VM that has attributes). The
 * attributes are stored with &struct drm_compute_svm's rules, but the
 * process's memory need not be mapped yet (a restore tool rebuilds it
 * after the file), and nothing migrates for a prefetch location: the data
 * is placed again as the device faults on it. The VM starts watching the
 * address space, and so drops the attributes of memory unmapped, at END,
 * or with %DRM_COMPUTE_CRIU_RESTORE_END_PAUSED at the resume.
 */
#define DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES	9
/**
 * DRM_COMPUTE_CRIU_RESTORE_SESSION - open a restore session, owned by this
 * file, whose id comes back in &drm_compute_criu_restore.session: the
 * buffers a checkpoint listed with a &drm_compute_criu_bo.share id are
 * made once per session and shared again by every file that names them
 * (in any process: a restore tool runs one process per restored process).
 * The session holds its buffers until the file that owns it is closed;
 * only callers with the checkpoint/restore right, and the opener's
 * effective uid in the opener's user namespace, find it. The file need
 * not be restoring; a file owns at most one session.
 */
#define DRM_COMPUTE_CRIU_RESTORE_SESSION	10
/**
 * DRM_COMPUTE_CRIU_RESTORE_SIGNALS - ask again for @count pending
 * sync-object signals of &struct drm_compute_criu_signal at @ptr, on the
 * restored queues and sync objects (so after QUEUES and SYNCOBJS), as
 * %DRM_COMPUTE_OP_USERQ_SIGNAL would: one whose value the queue's fence
 * has reached completes at once. -ENOENT for a queue or sync object the
 * file does not have, -EIO for a dead queue, -ENOSPC beyond a queue's
 * 1024 pending signals, -EINVAL for non-zero reserved.
 */
#define DRM_COMPUTE_CRIU_RESTORE_SIGNALS	11

/**
 * DRM_COMPUTE_CRIU_RESTORE_END_PAUSED - flag of END: the file leaves the
 * restoring state paused, as %DRM_COMPUTE_CRIU_OP_PAUSE leaves a file: its
 * restored queues do not run, and its SVM VMs do not watch the address
 * space, until %DRM_COMPUTE_CRIU_OP_RESUME. A tool that rebuilds the
 * process's memory after its files (CRIU) ends so and resumes the file
 * once the memory is in place (CRIU's RESUME_DEVICES_LATE), so that no
 * queue runs on, and no SVM VM mirrors, an address space being rebuilt.
 */
#define DRM_COMPUTE_CRIU_RESTORE_END_PAUSED	_BITUL(0)

/**
 * struct drm_compute_criu_restore - rebuild a checkpointed file's objects.
 *
 * A tool opens the render node afresh and, before anything else, puts the
 * file in the restoring state (BEGIN). From then until END, every other
 * ioctl on the file fails with -EBUSY, those of DRM core (GEM close, PRIME,
 * sync objects) included, so no concurrent call can see a half-restored
 * file or take a handle the image names. The tool creates the buffers at
 * their handles, fills them, creates the VMs at their ids, maps the
 * buffers in them, gives the SVM VMs their attribute ranges and creates the
 * queues at their ids, then ends; a tool that rebuilds the process's memory
 * after the file ends it paused (%DRM_COMPUTE_CRIU_RESTORE_END_PAUSED) and
 * resumes the file once the memory is in place. The file
 * knows nothing of the image: a
 * handle or id already in use fails with -EEXIST, and a tool that gives up
 * closes the file, which frees everything it made.
 *
 * Buffers are created with &drm_compute_bo_create's rules (size, one
 * placement the device has), mappings with &drm_compute_vm_bind's and
 * queues with &drm_compute_userq_create's (the CU mask must fit the
 * device, a high priority needs the same privilege), so a restore onto a
 * device that cannot hold the state fails as creating it would have.
 *
 * Who may call it is DRM core's rule for checkpoint/restore ioctls, as for
 * &struct drm_compute_criu_info.
 *
 * Errors: -EPERM, -EACCES as for &struct drm_compute_criu_info; -EOPNOTSUPP
 * without %DRM_COMPUTE_FEATURE_CRIU, for queues on a device that cannot
 * restore them, for an SVM VM or SVM ranges on a device without
 * %DRM_COMPUTE_FEATURE_SVM, or an SVM flag the device does not honour;
 * -EPERM for SVM ranges of a VM made by another process (another address
 * space); -EINVAL for an unknown @op, @flags other than
 * %DRM_COMPUTE_CRIU_RESTORE_END_PAUSED on END, non-zero @reserved or a field
 * the op does not use, a handle or id of 0, an entry that breaks the rules
 * of creation or binding, a shared entry without a session, or one whose
 * size or export flag differs from the session's buffer of that id; -EBUSY
 * for BEGIN on a file that holds objects or is restoring, for SESSION on a
 * file that owns one, and for any other op on a file that is not restoring;
 * -EEXIST for a handle or id in use; -ENOENT for a handle or VM the file
 * does not have, or a session the device does not have or that a caller
 * with another effective uid or user namespace opened; -ENOSPC when the
 * device's memory is full or the file has &drm_compute_dev_info.max_vms VMs,
 * or QUEUES has more entries than the device's queue limit; -EFAULT;
 * -ENOMEM. An array op makes all of its entries or none: the first entry
 * that fails takes back those the call made before it, and the argument and
 * the entries come back as they went.
 */
struct drm_compute_criu_restore {
	/** @op: in, DRM_COMPUTE_CRIU_RESTORE_*. */
	__u32 op;
	/**
	 * @flags: in, END: %DRM_COMPUTE_CRIU_RESTORE_END_PAUSED or 0; zero
	 * for every other op.
	 */
	__u32 flags;
	/**
	 * @count: in, entries at @ptr (BOS, VMS, MAPPINGS, QUEUES,
	 * SYNCOBJS, SVM_RANGES, SIGNALS); zero otherwise.
	 */
	__u32 count;
	/**
	 * @id: in, WRITE_BO: the buffer's handle; SVM_RANGES: the
	 * checkpointed device's id, or 0; zero otherwise.
	 */
	__u32 id;
	/** @ptr: in, user pointer to the entries, or to the bytes to write. */
	__u64 ptr;
	/** @offset: in, WRITE_BO: byte offset into the buffer. */
	__u64 offset;
	/** @size: in, WRITE_BO: bytes to copy. */
	__u64 size;
	/**
	 * @session: SESSION: out, the new session's id; BOS: in, the session
	 * whose shared buffers the entries with a non-zero
	 * &drm_compute_criu_bo.share make or take, or 0 when none has one;
	 * zero otherwise.
	 */
	__u64 session;
	/** @reserved: must be zero. */
	__u64 reserved;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_DRM_COMPUTE_H_ */
