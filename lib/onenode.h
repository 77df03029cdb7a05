/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode: a small C library over the DRM compute uapi
 * (uapi/drm/drm_compute.h). It finds and opens the render node of a compute
 * driver, issues every compute operation through that driver's compute
 * base, and offers a ready-made user queue (ring, state, doorbell,
 * NEED_WAKEUP protocol). Packet builders for vcompute's queue format are in
 * onenode_vcompute.h. It is shared by the examples, the IGT tests, the CRIU
 * plugin and libvkp2p; onenode.hpp wraps it for C++.
 *
 * Conventions:
 *  - every function that can fail returns 0 (or a count) on success and a
 *    negative errno on failure; errno itself is left unspecified;
 *    onenode_strerror() turns the code into a message;
 *  - nothing is allocated on the heap behind the caller's back: a
 *    &struct onenode_device is a plain value owned by the caller;
 *  - the library keeps no global state and is thread-safe as long as two
 *    threads do not use one &struct onenode_device at the same time.
 */
#ifndef ONENODE_H
#define ONENODE_H

#include <stddef.h>
#include <stdint.h>

#include "drm_compute.h"
#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/** ONENODE_DRI_DIR_ENV - environment variable overriding "/dev/dri". */
#define ONENODE_DRI_DIR_ENV "ONENODE_DRI_DIR"
/** ONENODE_DEFAULT_DRI_DIR - where render nodes are looked for by default. */
#define ONENODE_DEFAULT_DRI_DIR "/dev/dri"

/** ONENODE_PATH_MAX - room for a node path in &struct onenode_device. */
#define ONENODE_PATH_MAX 256
/** ONENODE_NAME_MAX - room for a driver name (DRM names are short). */
#define ONENODE_NAME_MAX 64
/** ONENODE_DESC_MAX - room for a driver description. */
#define ONENODE_DESC_MAX 128

/**
 * struct onenode_device - an open DRM render node and its identity.
 * @fd: the open file descriptor (O_RDWR | O_CLOEXEC), or -1.
 * @owns_fd: true when onenode_close() must close @fd (open functions),
 *	false when the fd was borrowed (onenode_device_from_fd()).
 * @path: the node's path, or "" when unknown (borrowed fd whose
 *	/proc/self/fd link cannot be read).
 * @driver: driver name reported by DRM_IOCTL_VERSION, e.g. "vcompute".
 * @desc: driver description reported by DRM_IOCTL_VERSION (truncated to fit).
 * @version_major, @version_minor, @version_patchlevel: driver version.
 * @rdev: device number of the node (st_rdev), 0 when unknown.
 */
struct onenode_device {
	int fd;
	int owns_fd;
	char path[ONENODE_PATH_MAX];
	char driver[ONENODE_NAME_MAX];
	char desc[ONENODE_DESC_MAX];
	int version_major;
	int version_minor;
	int version_patchlevel;
	uint64_t rdev;
};

/**
 * onenode_dri_dir() - the directory searched for render nodes: the value of
 * $ONENODE_DRI_DIR when set and not empty, else "/dev/dri".
 */
const char *onenode_dri_dir(void);

/**
 * onenode_open_driver() - open the first render node driven by @driver.
 * @driver: DRM driver name, e.g. "vcompute"; must not be NULL or empty.
 * @dri_dir: directory to scan for renderD* nodes, NULL for onenode_dri_dir().
 * @dev: filled on success; on failure @dev->fd is -1.
 *
 * Nodes are tried in numeric order (renderD128, renderD129, ...).
 *
 * Return: 0; -EINVAL for a bad argument; -ENOENT when no render node of
 * that driver exists (or the directory does not exist); the error of the
 * last failed open() (e.g. -EACCES) when matching nodes may exist but none
 * could be opened.
 */
int onenode_open_driver(const char *driver, const char *dri_dir,
			struct onenode_device *dev);

/**
 * onenode_open_path() - open the DRM node at @path and identify its driver.
 *
 * Return: 0; -EINVAL for a bad argument; -ENOENT, -EACCES, ... from open();
 * -ENOTTY when @path is not a DRM device.
 */
int onenode_open_path(const char *path, struct onenode_device *dev);

/**
 * onenode_open_path_flags() - onenode_open_path() with chosen open flags.
 * @flags: O_RDONLY, O_WRONLY or O_RDWR, optionally with O_NONBLOCK; the
 *	library adds O_CLOEXEC and O_NOCTTY. Any other bit gives -EINVAL.
 *
 * Used by the CRIU plugin to reopen a node with the flags it was dumped with.
 */
int onenode_open_path_flags(const char *path, int flags, struct onenode_device *dev);

/**
 * onenode_device_from_fd() - identify the DRM node behind an fd the caller
 * already has, without taking ownership of it (onenode_close() will not
 * close it).
 *
 * Return: 0; -EBADF; -ENOTTY when @fd is not a DRM device.
 */
int onenode_device_from_fd(int fd, struct onenode_device *dev);

/** onenode_close() - close the fd if owned and reset @dev; NULL is a no-op. */
void onenode_close(struct onenode_device *dev);

/**
 * onenode_compute_base() - the DRM compute base of @driver: its compute
 * ioctls are DRM_COMPUTE_IOCTL_*(base) (uapi/drm/drm_compute.h).
 * @base: set on success.
 *
 * The one table of drivers that carry the uapi is in onenode.c: vcompute
 * (DRM_VCOMPUTE_COMPUTE_BASE) and amdgpu (DRM_AMDGPU_COMPUTE_BASE, kernels
 * with the onenode glue).
 *
 * Return: 0; -EINVAL for a bad argument; -EOPNOTSUPP when libonenode knows
 * no compute base for that driver.
 */
int onenode_compute_base(const char *driver, unsigned int *base);

/**
 * onenode_compute_ioctl() - issue compute operation @op on @dev.
 * @op: DRM_COMPUTE_OP_*; the request number (with @arg's size) is built
 *	from the device's compute base.
 * @arg: the operation's argument structure.
 *
 * Retries on EINTR/EAGAIN like drmIoctl(). Every wrapper below goes
 * through here; tests that send malformed arguments call it directly.
 *
 * Return: 0 or the ioctl's negative errno; -EINVAL for an unknown @op;
 * -EOPNOTSUPP for a driver without a compute base.
 */
int onenode_compute_ioctl(const struct onenode_device *dev, unsigned int op,
			  void *arg);

/**
 * onenode_compute_request() - the request number of compute operation @op
 * at @base (DRM_COMPUTE_IOCTL_*(@base)), or 0 for an unknown @op.
 */
unsigned long onenode_compute_request(unsigned int base, unsigned int op);

/**
 * onenode_query() - DRM_COMPUTE_OP_QUERY.
 * @query: DRM_COMPUTE_QUERY_*.
 * @data: where the report goes; may be NULL when *@size is 0.
 * @size: in, bytes at @data (0 asks for the report's size); out, bytes the
 *	kernel wrote (or the size it needs).
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP: the device does not answer
 * this query).
 */
int onenode_query(const struct onenode_device *dev, uint32_t query,
		  void *data, uint32_t *size);

/**
 * onenode_query_device() - the device report, zero-filled past what the
 * kernel wrote (an older kernel's shorter report).
 */
int onenode_query_device(const struct onenode_device *dev,
			 struct drm_compute_query_device *out);

/**
 * onenode_query_userq() - the user-queue report; -EOPNOTSUPP without
 * DRM_COMPUTE_FEATURE_USERQ.
 */
int onenode_query_userq(const struct onenode_device *dev,
			struct drm_compute_query_userq *out);

/**
 * onenode_feature_name() - short name of one DRM_COMPUTE_FEATURE_* bit
 * ("userq", "svm", "p2p-export", "criu"); NULL when @bit is not exactly one
 * known bit.
 */
const char *onenode_feature_name(uint64_t bit);

/**
 * onenode_features_string() - "userq,svm" style list of @features.
 *
 * Unknown bits are listed as "bitN". An empty set gives "none".
 *
 * Return: the length of the full string (like snprintf()), or -EINVAL when
 * @buf is NULL with a non-zero @len. The output is always NUL-terminated
 * when @len > 0 and is truncated when the return value is >= @len.
 */
int onenode_features_string(uint64_t features, char *buf, size_t len);

/**
 * struct onenode_field - one named field of a query report.
 * @name: the uapi field name, e.g. "vram_size".
 * @value: its value.
 * @is_bytes: the value is a size in bytes.
 * @offset: offsetof() the field in its report.
 * @size: sizeof() the field (4 or 8), so a parser can store a value back.
 */
struct onenode_field {
	const char *name;
	uint64_t value;
	int is_bytes;
	size_t offset;
	size_t size;
};

/** ONENODE_DEVICE_NFIELDS - entries onenode_device_fields() fills. */
#define ONENODE_DEVICE_NFIELDS 10
/** ONENODE_USERQ_NFIELDS - entries onenode_userq_fields() fills. */
#define ONENODE_USERQ_NFIELDS 12

/**
 * onenode_device_fields() - list every field of @d (padding excluded) in
 * uapi order, so printers and comparers need no field list of their own.
 * @out: room for at least ONENODE_DEVICE_NFIELDS entries.
 *
 * Return: the number of entries, or -EINVAL.
 */
int onenode_device_fields(const struct drm_compute_query_device *d,
			  struct onenode_field *out, size_t n);

/** onenode_userq_fields() - the same for a user-queue report. */
int onenode_userq_fields(const struct drm_compute_query_userq *u,
			 struct onenode_field *out, size_t n);

/* ---- buffers ---- */

/** onenode_bo_create() - DRM_COMPUTE_OP_BO_CREATE; *@handle on success. */
int onenode_bo_create(const struct onenode_device *dev, uint64_t size,
		      uint64_t placement, uint32_t *handle);
/**
 * onenode_bo_create_export() - DRM_COMPUTE_OP_BO_CREATE of a buffer made for
 * export to peer devices: @flags is one DRM_COMPUTE_BO_EXPORT_* flag
 * (PREFER_P2P and REQUIRE_P2P take VRAM, HOST_ONLY takes SYSTEM).
 */
int onenode_bo_create_export(const struct onenode_device *dev, uint64_t size,
			     uint64_t placement, uint32_t flags,
			     uint32_t *handle);
/**
 * onenode_p2p_report() - DRM_COMPUTE_OP_P2P_REPORT: where an export buffer
 * lives, why, and up to @count of its importers.
 * @rep: filled on success; rep->count is the number of importers now.
 * @att: room for @count entries, or NULL with @count 0.
 */
int onenode_p2p_report(const struct onenode_device *dev, uint32_t handle,
		       struct drm_compute_p2p_report *rep,
		       struct drm_compute_p2p_attachment *att, uint32_t count);
/**
 * onenode_criu_info() - DRM_COMPUTE_OP_CRIU_INFO: the compute objects a
 * checkpoint of @dev's file would save. Needs CAP_CHECKPOINT_RESTORE (or
 * CAP_SYS_ADMIN) and to be the file's owner or its ptrace tracer.
 * @info: filled on success.
 */
int onenode_criu_info(const struct onenode_device *dev,
		      struct drm_compute_criu_info *info);
/**
 * onenode_criu_pause() - DRM_COMPUTE_OP_CRIU_PAUSE: pause @dev's file for a
 * checkpoint (DRM_COMPUTE_CRIU_OP_PAUSE: its running queues suspended, its
 * exported buffers taken from their importers) or resume it
 * (DRM_COMPUTE_CRIU_OP_RESUME). The same rights as onenode_criu_info().
 * @out: filled on success (the queues and buffers paused or resumed); may
 * be NULL.
 */
int onenode_criu_pause(const struct onenode_device *dev, uint32_t op,
		       struct drm_compute_criu_pause *out);
/**
 * onenode_criu_checkpoint() - DRM_COMPUTE_OP_CRIU_CHECKPOINT with @args as
 * the caller filled them. The same rights as onenode_criu_info().
 */
int onenode_criu_checkpoint(const struct onenode_device *dev,
			    struct drm_compute_criu_checkpoint *args);
/**
 * onenode_criu_list() - a DRM_COMPUTE_CRIU_CKPT_LIST_* op of a paused file:
 * up to *@count entries written to @entries, *@count set to the number the
 * file has.
 */
int onenode_criu_list(const struct onenode_device *dev, uint32_t op, void *entries,
		      uint32_t *count);
/** onenode_criu_read_bo() - DRM_COMPUTE_CRIU_CKPT_READ_BO into @dst. */
int onenode_criu_read_bo(const struct onenode_device *dev, uint32_t handle,
			 uint64_t offset, void *dst, uint64_t size);
/**
 * onenode_criu_restore() - a DRM_COMPUTE_OP_CRIU_RESTORE op: BEGIN and END
 * with NULL @entries and @count, the array ops with *@count entries at
 * @entries, all of them made or none.
 */
int onenode_criu_restore(const struct onenode_device *dev, uint32_t op, void *entries,
			 uint32_t *count);
/**
 * onenode_criu_restore_ex() - onenode_criu_restore() with the call's @flags
 * (END: DRM_COMPUTE_CRIU_RESTORE_END_PAUSED) and @id (SVM_RANGES: the
 * checkpointed device's id).
 */
int onenode_criu_restore_ex(const struct onenode_device *dev, uint32_t op, uint32_t flags,
			    uint32_t id, void *entries, uint32_t *count);
/**
 * onenode_criu_session() - DRM_COMPUTE_CRIU_RESTORE_SESSION: open a restore
 * session owned by @dev's file, which shares the buffers listed with a
 * share id (drm_compute_criu_bo.share) across every file restored in it;
 * *@session set to its id. Closed with the file.
 */
int onenode_criu_session(const struct onenode_device *dev, uint64_t *session);
/**
 * onenode_criu_restore_bos() - DRM_COMPUTE_CRIU_RESTORE_BOS of *@count
 * entries at @bos in restore session @session (0: none). Entries whose
 * buffer the session had come back with DRM_COMPUTE_CRIU_BO_JOINED.
 */
int onenode_criu_restore_bos(const struct onenode_device *dev, uint64_t session,
			     struct drm_compute_criu_bo *bos, uint32_t *count);
/**
 * onenode_criu_dmabuf() - DRM_COMPUTE_CRIU_CKPT_DMABUF: which buffer of
 * @dev's file the dma-buf @dmabuf_fd is (-ENOENT: none of this file's).
 */
int onenode_criu_dmabuf(const struct onenode_device *dev, int dmabuf_fd,
			struct drm_compute_criu_share *out);
/**
 * onenode_criu_bo_share() - DRM_COMPUTE_CRIU_CKPT_BO_SHARE: how the buffer
 * @handle of @dev's file is shared (its share id, the files holding it).
 */
int onenode_criu_bo_share(const struct onenode_device *dev, uint32_t handle,
			  struct drm_compute_criu_share *out);
/** onenode_criu_write_bo() - DRM_COMPUTE_CRIU_RESTORE_WRITE_BO from @src. */
int onenode_criu_write_bo(const struct onenode_device *dev, uint32_t handle,
			  uint64_t offset, const void *src, uint64_t size);
/**
 * onenode_debugfs_path() - the path of a driver's debugfs file of @dev's
 * device: /sys/kernel/debug/dri/N/@file, for the N whose "name" names the
 * device (vcompute's vcompute_memory, vcompute_svm, ...). Mounts debugfs
 * when it is not. Returns 0, -ENOENT when no such file exists, -ENAMETOOLONG.
 */
int onenode_debugfs_path(const struct onenode_device *dev, const char *file,
			 char *out, size_t len);

/** onenode_p2p_reason_name() - "no-p2p-memory" for a DRM_COMPUTE_P2P_REASON_*. */
const char *onenode_p2p_reason_name(uint32_t reason);
/** onenode_bo_mmap_offset() - DRM_COMPUTE_OP_BO_MMAP. */
int onenode_bo_mmap_offset(const struct onenode_device *dev, uint32_t handle,
			   uint64_t *offset);
/**
 * onenode_bo_map() - mmap() @size bytes of a buffer, shared, read/write.
 * @ptr: set to the mapping; unmap it with munmap().
 */
int onenode_bo_map(const struct onenode_device *dev, uint32_t handle,
		   uint64_t size, void **ptr);
/** onenode_bo_close() - DRM_IOCTL_GEM_CLOSE. */
int onenode_bo_close(const struct onenode_device *dev, uint32_t handle);

/* ---- GPU VMs ---- */

/** onenode_vm_create() - DRM_COMPUTE_OP_VM_CREATE without flags. */
int onenode_vm_create(const struct onenode_device *dev, uint32_t *vm_id);
/**
 * onenode_vm_create_flags() - DRM_COMPUTE_OP_VM_CREATE with
 * DRM_COMPUTE_VM_CREATE_* @flags (DRM_COMPUTE_VM_CREATE_SVM: a VM that
 * mirrors the calling process's address space; -EOPNOTSUPP without
 * DRM_COMPUTE_FEATURE_SVM).
 */
int onenode_vm_create_flags(const struct onenode_device *dev, uint32_t flags,
			    uint32_t *vm_id);
/** onenode_vm_destroy() - DRM_COMPUTE_OP_VM_DESTROY. */
int onenode_vm_destroy(const struct onenode_device *dev, uint32_t vm_id);
/**
 * onenode_vm_map() - VM_BIND MAP of [@bo_offset, +@range) of @handle at
 * @va, with DRM_COMPUTE_VM_BIND_* @flags.
 */
int onenode_vm_map(const struct onenode_device *dev, uint32_t vm_id,
		   uint32_t handle, uint64_t bo_offset, uint64_t va,
		   uint64_t range, uint64_t flags);
/** onenode_vm_unmap() - VM_BIND UNMAP of [@va, @va + @range). */
int onenode_vm_unmap(const struct onenode_device *dev, uint32_t vm_id,
		     uint64_t va, uint64_t range);

/* ---- shared virtual memory ---- */

/**
 * onenode_svm_set_attr() - DRM_COMPUTE_OP_SVM, DRM_COMPUTE_SVM_OP_SET_ATTR:
 * apply the @nattr attributes at @attrs, in order, to [@start, @start +
 * @size) of the SVM VM @vm_id (KFD's types and values, uapi/drm/drm_compute.h).
 *
 * Return: 0; -EINVAL for a NULL @attrs or a zero @nattr; the ioctl's errors
 * (-EOPNOTSUPP without DRM_COMPUTE_FEATURE_SVM, -EINVAL, -ENOENT, -EPERM,
 * -EFAULT for a range without a mirrorable CPU mapping, ...), after which
 * nothing changed.
 */
int onenode_svm_set_attr(const struct onenode_device *dev, uint32_t vm_id,
			 uint64_t start, uint64_t size,
			 const struct drm_compute_svm_attr *attrs, uint32_t nattr);
/**
 * onenode_svm_get_attr() - DRM_COMPUTE_OP_SVM, DRM_COMPUTE_SVM_OP_GET_ATTR:
 * report each attribute of @attrs over the whole of [@start, @start +
 * @size); the kernel writes the answers into @attrs (for an access type,
 * the type becomes the device's access; for the others, the value).
 *
 * Return: as onenode_svm_set_attr(); @attrs is left as it was on an error
 * other than -EFAULT.
 */
int onenode_svm_get_attr(const struct onenode_device *dev, uint32_t vm_id,
			 uint64_t start, uint64_t size,
			 struct drm_compute_svm_attr *attrs, uint32_t nattr);

/**
 * struct onenode_residency - where the pages of a CPU range are, as
 * /proc/self/pagemap tells.
 */
struct onenode_residency {
	/** @sysmem: pages present in system memory. */
	uint64_t sysmem;
	/**
	 * @device: pages in device memory: non-present entries of the swap
	 * type, which is how the kernel shows a device-private page (SVM data
	 * migrated to a device); a page swapped out counts here too.
	 */
	uint64_t device;
	/** @none: pages with no memory yet (never touched). */
	uint64_t none;
};

/**
 * onenode_svm_residency() - where the pages of [@p, @p + @size) are.
 *
 * Return: 0 and *@r filled; -errno when /proc/self/pagemap cannot be read;
 * -EINVAL for a zero @size.
 */
int onenode_svm_residency(const void *p, uint64_t size, struct onenode_residency *r);

/**
 * onenode_thp_bytes() - bytes of the CPU mapping holding @p that are
 * transparent huge pages (its AnonHugePages in /proc/self/smaps).
 *
 * Return: 0 and *@bytes set (0 for a mapping smaps does not list);
 * -errno when /proc/self/smaps cannot be read.
 */
int onenode_thp_bytes(const void *p, uint64_t *bytes);

/* ---- user queues: the ioctls ---- */

/** onenode_userq_create() - DRM_COMPUTE_OP_USERQ_CREATE with @args as given. */
int onenode_userq_create(const struct onenode_device *dev,
			 struct drm_compute_userq_create *args);
/** onenode_userq_destroy() - DRM_COMPUTE_OP_USERQ_DESTROY. */
int onenode_userq_destroy(const struct onenode_device *dev, uint32_t queue_id);
/** onenode_userq_control() - DRM_COMPUTE_OP_USERQ_CONTROL, DRM_COMPUTE_USERQ_OP_*. */
int onenode_userq_control(const struct onenode_device *dev, uint32_t queue_id,
			  uint32_t op);
/** onenode_userq_state() - DRM_COMPUTE_OP_USERQ_STATE into @st. */
int onenode_userq_state(const struct onenode_device *dev, uint32_t queue_id,
			struct drm_compute_userq_state *st);
/**
 * onenode_userq_wait() - DRM_COMPUTE_OP_USERQ_WAIT.
 * @timeout_ns: relative, from now; 0 polls once; negative waits forever
 *	(converted to the absolute CLOCK_MONOTONIC time the uapi takes).
 */
int onenode_userq_wait(const struct onenode_device *dev, uint32_t queue_id,
		       uint64_t value, int64_t timeout_ns);
/** onenode_userq_signal() - DRM_COMPUTE_OP_USERQ_SIGNAL. */
int onenode_userq_signal(const struct onenode_device *dev, uint32_t queue_id,
			 uint64_t value, uint32_t syncobj, uint64_t point);

/** onenode_status_name() - "idle", "running", ... for DRM_COMPUTE_USERQ_STATUS_*. */
const char *onenode_status_name(uint32_t status);
/** onenode_fault_name() - "unmapped", "write", ... for DRM_COMPUTE_FAULT_*. */
const char *onenode_fault_name(uint32_t reason);

/* ---- user queues: a ready-made queue ---- */

/**
 * struct onenode_queue_params - what onenode_queue_init() sets up.
 * @va: GPU VA where the queue's ring and state buffers are bound (page
 *	aligned; the queue uses onenode_queue_va_size() bytes from there).
 * @ring_size: ring bytes, a power of two; 0 for 64 KiB.
 * @priority: queue priority; ONENODE_PRIORITY_DEFAULT for the device's
 *	default.
 * @cu_mask: CU mask words (bit n of word n / 32 for CU n), or NULL for
 *	every CU.
 * @cu_mask_count: bits in @cu_mask, a multiple of 32.
 */
struct onenode_queue_params {
	uint64_t va;
	uint64_t ring_size;
	uint32_t priority;
	const uint32_t *cu_mask;
	uint32_t cu_mask_count;
};

/** ONENODE_PRIORITY_DEFAULT - use the device's default priority. */
#define ONENODE_PRIORITY_DEFAULT UINT32_MAX

/**
 * struct onenode_queue - a user queue with everything it needs: a ring
 * buffer, a state buffer (read pointer, a fence slot, the context save
 * area), their bindings in a VM, the doorbell mapping and the CPU mappings
 * of the ring and read pointer. Filled by onenode_queue_init(); every
 * field is read-only for the caller.
 * @dev: the device (borrowed; must outlive the queue).
 * @vm_id: the VM the queue runs in (borrowed).
 * @id: the queue id.
 * @ring_handle, @state_handle: the two buffers.
 * @ring_va, @ring_size, @rptr_va, @fence_va, @ctx_save_va: their GPU VAs.
 * @ring: CPU mapping of the ring.
 * @rptr: CPU mapping of the read pointer the queue writes back.
 * @fence: CPU mapping of the fence slot that onenode_queue_fence() targets.
 * @doorbell: the queue's doorbell (mapped).
 * @doorbell_map, @doorbell_map_size: the doorbell mapping as mmap()ed.
 * @caps: the device's DRM_COMPUTE_USERQ_CAP_* bits, so that commit makes
 *	no system call.
 * @format: the queue's DRM_COMPUTE_QUEUE_FORMAT_*.
 * @wptr: the write pointer as written so far, in bytes (published by
 *	commit in the device's unit: bytes for vcompute, dwords for AMD).
 * @fence_value: the last value onenode_queue_fence() emitted.
 * @wakeups: times commit found NEED_WAKEUP set and called WAKE.
 */
struct onenode_queue {
	const struct onenode_device *dev;
	uint32_t vm_id;
	uint32_t id;
	uint32_t ring_handle;
	uint32_t state_handle;
	uint64_t ring_va;
	uint64_t ring_size;
	uint64_t rptr_va;
	uint64_t fence_va;
	uint64_t ctx_save_va;
	void *ring;
	volatile uint64_t *rptr;
	volatile uint64_t *fence;
	struct drm_compute_doorbell *doorbell;
	void *doorbell_map;
	size_t doorbell_map_size;
	uint64_t caps;
	uint32_t format;
	uint64_t wptr;
	uint64_t fence_value;
	uint64_t wakeups;
};

/**
 * onenode_queue_va_size() - GPU VA bytes a queue with @ring_size (0 for
 * the default) occupies from &onenode_queue_params.va.
 *
 * The layout from va (P: the GPU page size of the DEVICE report):
 *
 *  - va: the state buffer, bound no-exec. Its first page holds 8-byte
 *    words: [0] the read pointer the queue writes back (rptr_va), [1] the
 *    fence slot (fence_va; the queue's fence_va too on devices with
 *    DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY), [2] the write pointer in memory
 *    on devices with DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY; the rest of the
 *    page is unused.
 *    Pages 1.. are the context save area, the USERQ report's ctx_save_size
 *    rounded up to P (none when it is 0).
 *  - the ring buffer (system memory, executable), at the first address
 *    after the state buffer that is aligned to the ring size, as the uapi
 *    requires; the gap before it stays unmapped.
 *
 * The size returned holds for any page-aligned va: the state buffer, plus
 * ring_size - P of possible alignment gap, plus the ring (rounded up to
 * P). With va + state size aligned to the ring size there is no gap.
 *
 * Return: the size, or 0 when the device cannot be queried, has no user
 * queues or @ring_size is not a power of two.
 */
uint64_t onenode_queue_va_size(const struct onenode_device *dev,
			       uint64_t ring_size);

/**
 * onenode_queue_init() - create buffers, bind them, create the queue and
 * map its doorbell.
 *
 * Both buffers are in system memory when the device offers it (VRAM
 * otherwise), laid out as onenode_queue_va_size() says; the queue uses the
 * lowest packet format the device reports.
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP without
 * DRM_COMPUTE_FEATURE_USERQ; -EINVAL for a NULL argument, a va that is 0 or
 * not page aligned, or a ring size that is not a power of two; the ioctls'
 * errors); on failure nothing is left behind.
 */
int onenode_queue_init(struct onenode_queue *q, const struct onenode_device *dev,
		       uint32_t vm_id, const struct onenode_queue_params *p);

/** onenode_queue_fini() - destroy the queue and everything init made; NULL-safe. */
void onenode_queue_fini(struct onenode_queue *q);

/**
 * onenode_queue_emit() - copy a packet of @qwords 8-byte words into the
 * ring at the write pointer (wrapping), without publishing it.
 *
 * Return: 0; -ENOSPC when the ring has no room for it before the read
 * pointer (commit and wait, then retry); -EINVAL for a bad size.
 */
int onenode_queue_emit(struct onenode_queue *q, const void *pkt,
		       uint32_t qwords);

/**
 * onenode_queue_commit() - publish the emitted packets: store the write
 * pointer to the doorbell (release), full barrier, and call
 * DRM_COMPUTE_USERQ_OP_WAKE when the device asked for it
 * (DRM_COMPUTE_DOORBELL_NEED_WAKEUP). No system call otherwise.
 *
 * Return: 0 or the WAKE ioctl's error.
 */
int onenode_queue_commit(struct onenode_queue *q);

/**
 * onenode_queue_fence() - emit a FENCE packet writing ++fence_value to the
 * queue's fence slot (not committed). The packet is vcompute's
 * (DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE); other formats have no builder yet.
 *
 * Return: the fence value, or 0 when the ring is full or the queue's
 * format is not vcompute's (nothing emitted).
 */
uint64_t onenode_queue_fence(struct onenode_queue *q);

/**
 * onenode_queue_wait() - onenode_userq_wait() on this queue.
 */
int onenode_queue_wait(struct onenode_queue *q, uint64_t value,
		       int64_t timeout_ns);

/**
 * onenode_strerror() - message for a return value of this library.
 *
 * Takes the negative errno a function returned (a positive one is accepted
 * too). Codes with a libonenode-specific meaning get a specific message;
 * others get the C library's description. Never NULL, never allocated.
 */
const char *onenode_strerror(int err);

#if defined(__cplusplus)
}
#endif

#endif /* ONENODE_H */
