/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __VCOMPUTE_DRV_H__
#define __VCOMPUTE_DRV_H__

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/gpu_buddy.h>
#include <linux/kthread.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_compute.h>
#include <drm/drm_compute_svm_mirror.h>
#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpusvm.h>
#include <drm/drm_gpuvm.h>
#include <uapi/drm/vcompute_drm.h>

struct iov_iter;
struct faux_device;
struct vcompute_pagemap;
struct task_struct;

/** VCOMPUTE_NAME_MAX - room for an instance name, NUL included. */
#define VCOMPUTE_NAME_MAX	32

/**
 * struct vcompute_config - what one vcompute instance is made of.
 *
 * Filled from the module parameters for the instances the module creates
 * at load ("0", "1", ...), and from configfs attributes for the instances
 * userspace creates (vcompute_configfs.c).
 */
struct vcompute_config {
	/** @name: instance name, the N of the faux device "vcompute.N". */
	char name[VCOMPUTE_NAME_MAX];
	/** @vram_size: bytes of emulated device memory. */
	u64 vram_size;
	/** @num_cus: emulated compute units. */
	unsigned int num_cus;
};

struct vcompute_engine;

/**
 * struct vcompute_cu - one emulated compute unit.
 *
 * A worker thread (``vcompute.<instance>.cu<N>``) that runs the workgroups
 * the engine hands it. The engine gives each unit at most one share of a
 * DISPATCH at a time and waits for all of them (vcompute_engine.c), so the
 * share's fields below belong to the engine until it queues @work and to
 * the unit until the unit completes &vcompute_engine.cu_done.
 */
struct vcompute_cu {
	/** @worker: the unit's thread. */
	struct kthread_worker *worker;
	/** @work: the share being run. */
	struct kthread_work work;
	/** @engine: the engine the unit reports to. */
	struct vcompute_engine *engine;
	/** @run: runs the share. */
	void (*run)(struct vcompute_cu *cu);
	/** @q: the queue of the share. */
	struct vcompute_queue *q;
	/** @arg: what @run works on (a packet or a kernel's operands). */
	const void *arg;
	/** @first: the first workgroup of the share. */
	u64 first;
	/** @end: the end (exclusive) of the share's workgroups. */
	u64 end;
	/** @fault: DRM_COMPUTE_FAULT_* the share raised, or 0. */
	int fault;
	/** @fault_va: the address that faulted. */
	u64 fault_va;
	/** @fault_group: the workgroup that faulted. */
	u64 fault_group;
	/** @done: the share finished its packet (a reduction). */
	bool done;
	/** @groups: workgroups the unit ran (debugfs). */
	atomic64_t groups;
	/** @pid: the worker thread's pid (debugfs; stays after the engine stops). */
	pid_t pid;
};

/**
 * struct vcompute_engine - the packet engine of one device.
 *
 * One kernel thread runs every started queue of the device, a bounded
 * chunk at a time, highest priority first; the workgroups of a DISPATCH
 * run on the compute units (&vcompute_cu) its queue's CU mask enables.
 * While some queue has work it polls their doorbells; after
 * ``poll_idle_us`` with nothing to do it sets
 * %DRM_COMPUTE_DOORBELL_NEED_WAKEUP in every doorbell, checks them once
 * more and sleeps until vcompute_engine_kick().
 */
struct vcompute_engine {
	/** @thread: the engine thread. */
	struct task_struct *thread;
	/**
	 * @lock: protects @queues and every queue's engine state
	 * (&struct vcompute_queue fields marked "engine"). The thread holds it
	 * while it runs a round, so holding it means no queue is executing.
	 * Taken inside &drm_compute_userq.ctl_lock and outside a buffer's
	 * reservation lock (a move, vcompute_p2p.c); the helper's
	 * &drm_compute_userq.lock nests inside it.
	 */
	struct mutex lock;
	/** @queues: started queues, by priority (highest first). */
	struct list_head queues;
	/** @wq: where the idle thread sleeps. */
	wait_queue_head_t wq;
	/** @kicked: work may have arrived; set by vcompute_engine_kick(). */
	atomic_t kicked;
	/**
	 * @cus: the compute units, &vcompute_config.num_cus of them; the
	 * array lives as long as the DRM device, their threads as long as the
	 * engine.
	 */
	struct vcompute_cu *cus;
	/** @cu_pending: shares handed to units and not yet finished. */
	atomic_t cu_pending;
	/** @cu_done: completed by the unit that finishes the last share. */
	struct completion cu_done;
};

/**
 * struct vcompute_device - one virtual compute device.
 */
struct vcompute_device {
	/** @drm: the DRM device. */
	struct drm_device drm;
	/** @faux: the faux bus device @drm hangs off, NULL for a PCI instance. */
	struct faux_device *faux;
	/** @pdev: the PCI function of a PCI instance (vcompute_pci.c), or NULL. */
	struct pci_dev *pdev;
	/**
	 * @bar_va: kernel address of a PCI instance's device memory, its
	 * BAR taken whole as P2P memory; NULL on the faux bus, and once the
	 * BAR went back (@bar_refs).
	 */
	void *bar_va;
	/**
	 * @bar_refs: holders of a PCI instance's BAR: the device until it is
	 * unplugged, and each buffer in it until the buffer is freed (after
	 * its last handle, mapping, dma-buf and importer). The last one gives
	 * the BAR back to the P2P pool (vcompute_pci_bar_put()), so that an
	 * unbind waits only for buffers in the BAR, not for every open file.
	 */
	refcount_t bar_refs;
	/** @config: what the instance was made from. */
	struct vcompute_config config;
	/** @compute: the DRM compute helpers' state. */
	struct drm_compute_device compute;
	/** @vram_lock: protects @vram. */
	struct mutex vram_lock;
	/** @vram: allocator of the emulated device memory's addresses. */
	struct gpu_buddy vram;
	/** @engine: the packet engine. */
	struct vcompute_engine engine;
	/**
	 * @pagemap_lock: protects @pagemap; taken under the SVM lock and the
	 * mmap lock, never in an MMU notifier.
	 */
	struct mutex pagemap_lock;
	/**
	 * @pagemap: the SVM device memory (vcompute_pagemap.c), while some
	 * VM or migrated page holds it; NULL before the first migration.
	 */
	struct vcompute_pagemap *pagemap;
	/**
	 * @own_pages: system pages the driver allocated for buffers (a faux
	 * instance's device memory, buffers moved to system memory) and has
	 * not freed; debugfs ``vcompute_memory``.
	 */
	atomic_long_t own_pages;
	/**
	 * @exports: the buffers made for export, by &vcompute_bo.export_id;
	 * a device reset tells their importers (vcompute_reset()). The
	 * xarray's lock is held from lookup to reference, and a buffer leaves
	 * before it is freed.
	 */
	struct xarray exports;
	/**
	 * @sysmem_read: bytes the engine read from system memory for packet
	 * operands (not ring fetches); debugfs ``vcompute_memory``. What a
	 * bounce through host memory costs, counted where it happens.
	 */
	atomic64_t sysmem_read;
	/** @svm_stats: SVM counters (debugfs ``vcompute_svm``). */
	struct {
		/** @svm_stats.to_device: pages copied to device memory. */
		atomic64_t to_device;
		/** @svm_stats.to_ram: pages copied back to system memory. */
		atomic64_t to_ram;
		/**
		 * @svm_stats.mirror: faults, ranges mapped ahead and failed
		 * migrations, counted by the helper's mirror.
		 */
		struct drm_compute_svm_stats mirror;
	} svm_stats;
};

static inline struct vcompute_device *to_vcompute(struct drm_device *drm)
{
	return container_of(drm, struct vcompute_device, drm);
}

/**
 * struct vcompute_file - per-file state.
 */
struct vcompute_file {
	/** @compute: the DRM compute helpers' state. */
	struct drm_compute_file compute;
};

/**
 * struct vcompute_bo - a buffer object.
 *
 * Its pages are allocated at creation and stay until it is freed, so a
 * mapping in a GPU VM, a CPU mapping and an export all see the same pages.
 * An imported buffer has @sgt instead and is never mapped in a GPU VM.
 */
struct vcompute_bo {
	/** @base: the GEM object. */
	struct drm_gem_object base;
	/** @placement: DRM_COMPUTE_PLACEMENT_*, 0 for an import. */
	u64 placement;
	/** @pages: size >> PAGE_SHIFT pages (not for an import). */
	struct page **pages;
	/** @blocks: the device-memory blocks backing a VRAM buffer. */
	struct list_head blocks;
	/** @shmem: @pages come from shmem (system memory at creation). */
	bool shmem;
	/** @in_bar: its pages are a PCI instance's BAR; holds &vcompute_device.bar_refs. */
	bool in_bar;
	/**
	 * @export: the export state of a buffer made with a
	 * DRM_COMPUTE_BO_EXPORT_* flag (vcompute_bo_is_export()).
	 */
	struct drm_compute_p2p_export export;
	/** @export_id: its index in &vcompute_device.exports. */
	u32 export_id;
};

static inline struct vcompute_bo *to_vcompute_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vcompute_bo, base);
}

/* vcompute_drv.c */
struct vcompute_device *vcompute_create_pci(struct pci_dev *pdev,
					    const struct vcompute_config *cfg);

/* vcompute_pci.c */
#if IS_ENABLED(CONFIG_PCI_P2PDMA)
int vcompute_pci_bar_init(struct vcompute_device *vdev);
bool vcompute_pci_bar_get(struct vcompute_device *vdev);
void vcompute_pci_bar_put(struct vcompute_device *vdev);
u64 vcompute_pci_bar_end(struct vcompute_device *vdev);
int vcompute_pci_register(void);
void vcompute_pci_unregister(void);
#else
static inline int vcompute_pci_bar_init(struct vcompute_device *vdev)
{
	return -ENODEV;
}

static inline bool vcompute_pci_bar_get(struct vcompute_device *vdev)
{
	return false;
}

static inline void vcompute_pci_bar_put(struct vcompute_device *vdev)
{
}

static inline u64 vcompute_pci_bar_end(struct vcompute_device *vdev)
{
	return 0;
}

static inline int vcompute_pci_register(void)
{
	return 0;
}

static inline void vcompute_pci_unregister(void)
{
}
#endif

/* vcompute_bo.c */
extern const struct drm_gem_object_funcs vcompute_export_bo_funcs;
extern atomic_long_t vcompute_all_own_pages;

/*
 * Counts @n system pages the driver allocated (negative: freed) for @vdev's
 * buffers, and for the module as a whole: a buffer may outlive its device.
 */
static inline void vcompute_own_pages_add(struct vcompute_device *vdev, long n)
{
	atomic_long_add(n, &vdev->own_pages);
	atomic_long_add(n, &vcompute_all_own_pages);
}

/* Whether @obj is a vcompute buffer made for export to peers. */
static inline bool vcompute_bo_is_export(struct drm_gem_object *obj)
{
	return obj->funcs == &vcompute_export_bo_funcs;
}

int vcompute_p2p_bo_create(struct drm_compute_file *cfile, u64 size,
			   u64 placement, u32 flags, u32 *handle);
void vcompute_bo_release_pages(struct vcompute_device *vdev,
			       struct page **pages, unsigned long n,
			       struct list_head *blocks);

/* vcompute_p2p.c */
struct dma_buf *vcompute_p2p_export(struct drm_gem_object *obj, int flags);
struct drm_compute_p2p_export *vcompute_p2p_export_state(struct drm_gem_object *obj);
int vcompute_p2p_move_to_host(struct drm_gem_object *obj,
			      struct dma_buf *dmabuf);
u32 vcompute_p2p_check(struct drm_gem_object *obj,
		       struct dma_buf_attachment *attach);
struct drm_gem_object *vcompute_gem_prime_import(struct drm_device *drm,
						 struct dma_buf *dmabuf);

struct vcompute_bo *vcompute_bo_create(struct vcompute_device *vdev,
				       u64 size, u64 placement);
int vcompute_bo_create_handle(struct drm_compute_file *cfile, u64 size,
			      u64 placement, u32 *handle);
bool vcompute_bo_bindable(struct drm_gem_object *obj);
u64 vcompute_bo_criu_placement(struct drm_gem_object *obj);
int vcompute_bo_criu_copy(struct drm_gem_object *obj, u64 offset,
			  struct iov_iter *iter);
int vcompute_dumb_create(struct drm_file *file, struct drm_device *drm,
			 struct drm_mode_create_dumb *args);
struct vcompute_bo *vcompute_bo_import_alloc(struct drm_device *drm,
					     size_t size);
int vcompute_vram_init(struct vcompute_device *vdev);

/* Page-table entry bits of the emulated GPU. */
#define VCOMPUTE_PTE_VALID	BIT_ULL(0)
#define VCOMPUTE_PTE_WRITE	BIT_ULL(1)
#define VCOMPUTE_PTE_EXEC	BIT_ULL(2)
/* The page is system memory, not the device's (counted: debugfs vcompute_memory). */
#define VCOMPUTE_PTE_SYSMEM	BIT_ULL(3)
/*
 * A read-only copy (SVM's GPU_READ_MOSTLY): a write is not a permission
 * fault but a miss, which the SVM fault service answers with a writable
 * mapping.
 */
#define VCOMPUTE_PTE_RO_COPY	BIT_ULL(4)
#define VCOMPUTE_PTE_FLAGS	(VCOMPUTE_PTE_VALID | VCOMPUTE_PTE_WRITE | \
				 VCOMPUTE_PTE_EXEC | VCOMPUTE_PTE_SYSMEM | \
				 VCOMPUTE_PTE_RO_COPY)

/* Engine access kinds, checked against the PTE bits. */
enum vcompute_access {
	VCOMPUTE_READ,
	VCOMPUTE_WRITE,
	VCOMPUTE_EXEC,
};

/**
 * struct vcompute_svm - the mirror of an SVM VM (vcompute_svm.c).
 *
 * The helper's mirror (drm_compute_svm_mirror.c), whose SVM lock is
 * &drm_compute_vm_svm.lock; vcompute supplies its page-table callbacks.
 */
struct vcompute_svm {
	/** @mirror: the ranges, their pages, the garbage collector. */
	struct drm_compute_svm_mirror mirror;
};

/**
 * struct vcompute_vm - a GPU VM: drm_gpuvm plus emulated page tables.
 *
 * The page tables have four levels of 512 entries over a 48-bit address
 * space, 4 KiB pages, like x86-64's. A leaf entry holds a page frame number
 * and VCOMPUTE_PTE_* bits. Tables are allocated by the bind path before it
 * changes anything, under @pt_alloc_lock and never under @pt_lock, and freed
 * with the VM.
 */
struct vcompute_vm {
	/** @compute: the helper's part. */
	struct drm_compute_vm compute;
	/** @gpuvm: the address space. */
	struct drm_gpuvm gpuvm;
	/**
	 * @pt_lock: protects the page-table entries. The engine takes it for
	 * reading around each translation and access; binds take it for
	 * writing, so an unmapped page is unreachable once the bind returns.
	 * Nothing allocates memory while holding it: it may be taken for
	 * writing from reclaim (lockdep is told so when the VM is made).
	 */
	struct rw_semaphore pt_lock;
	/**
	 * @pt_alloc_lock: serialises the creation of tables, which happens
	 * without @pt_lock; a new table is published complete
	 * (smp_store_release()), so a walk sees no table or a zeroed one.
	 */
	struct mutex pt_alloc_lock;
	/** @root: the top-level table. */
	u64 *root;
	/**
	 * @svm_enabled: made with %DRM_COMPUTE_VM_CREATE_SVM and @svm set up;
	 * set before the VM is published, cleared when it is freed.
	 */
	bool svm_enabled;
	/** @svm: the mirror, when @svm_enabled. */
	struct vcompute_svm svm;
};

static inline struct vcompute_vm *to_vcompute_vm(struct drm_compute_vm *vm)
{
	return container_of(vm, struct vcompute_vm, compute);
}

/* vcompute_vm.c */
struct drm_compute_vm *vcompute_vm_create(struct drm_compute_file *cfile);
void vcompute_vm_free(struct drm_compute_vm *vm);
int vcompute_vm_bind(struct drm_compute_vm *vm,
		     const struct drm_compute_bind *bind);
int vcompute_vm_criu_mappings(struct drm_compute_vm *cvm,
			      struct drm_compute_criu_map *maps, u32 max, u32 *n);

/**
 * typedef vcompute_access_fn - called for each piece of an access
 * @kaddr: kernel address of the piece
 * @len: bytes in the piece (never crossing a page)
 * @arg: the caller's argument
 */
typedef void (*vcompute_access_fn)(void *kaddr, size_t len, void *arg);

int vcompute_vm_access(struct vcompute_vm *vm, u64 va, u64 len,
		       enum vcompute_access access, vcompute_access_fn fn,
		       void *arg, u64 *fault_va);
int vcompute_vm_translate(struct vcompute_vm *vm, u64 va,
			  enum vcompute_access access, struct page **page);
int vcompute_vm_translate_fault(struct vcompute_vm *vm, u64 va,
				enum vcompute_access access, struct page **page,
				bool *relocked, bool *sysmem);
int vcompute_vm_pt_prepare(struct vcompute_vm *vm, u64 va, u64 range);
void vcompute_vm_pt_set(struct vcompute_vm *vm, u64 va, unsigned long pfn,
			u64 bits);
void vcompute_vm_pt_zap(struct vcompute_vm *vm, u64 va, u64 range);
void vcompute_vm_pt_repoint(struct drm_gpuvm *gpuvm, u64 va, u64 range,
			    struct page **pages);

/**
 * VCOMPUTE_SVM_FLAGS - the SVM flags vcompute honours (DOC: Shared virtual
 * memory in vcompute_svm.c).
 */
#define VCOMPUTE_SVM_FLAGS	(DRM_COMPUTE_SVM_FLAG_HOST_ACCESS | \
				 DRM_COMPUTE_SVM_FLAG_COHERENT | \
				 DRM_COMPUTE_SVM_FLAG_EXT_COHERENT | \
				 DRM_COMPUTE_SVM_FLAG_GPU_RO | \
				 DRM_COMPUTE_SVM_FLAG_GPU_EXEC | \
				 DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY | \
				 DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED)

/**
 * VCOMPUTE_SVM_MAX_REFAULTS - serviced faults one translation may take
 * before it gives up with %DRM_COMPUTE_FAULT_SVM_BUSY (each service can be
 * undone by an invalidation before the translation is retried).
 */
#define VCOMPUTE_SVM_MAX_REFAULTS	8

/* vcompute_svm.c */
#if IS_ENABLED(CONFIG_DRM_VCOMPUTE_SVM)
int vcompute_svm_vm_init(struct drm_compute_vm *cvm);
void vcompute_svm_vm_fini(struct drm_compute_vm *cvm);
void vcompute_svm_attr_set(struct drm_compute_vm *cvm, u64 start, u64 size,
			   const struct drm_compute_svm_attr *attrs, u32 nattr);
void vcompute_svm_sync(struct drm_compute_vm *cvm);

/* vcompute_pagemap.c */
struct drm_pagemap *vcompute_pagemap_get(struct vcompute_device *vdev);
struct page *vcompute_pagemap_backing(struct page *page);
void vcompute_pagemap_flush_released(struct vcompute_device *vdev);
void vcompute_pagemap_exit(void);

/**
 * vcompute_pagemap_owner - the owner of a device's device-private pages
 * @vdev: the device
 *
 * HMM hands a device the device-private pages of its own owner as they
 * are and migrates the others to system memory first.
 *
 * Returns: the owner, the device itself: no two devices share pages.
 */
static inline void *vcompute_pagemap_owner(struct vcompute_device *vdev)
{
	return vdev;
}

void vcompute_svm_bind_prepare(struct vcompute_vm *vm, u64 va, u64 range);
int vcompute_svm_fault(struct vcompute_vm *vm, u64 va,
		       enum vcompute_access access);
#else
static inline void vcompute_pagemap_exit(void)
{
}

static inline void vcompute_pagemap_flush_released(struct vcompute_device *vdev)
{
}

static inline struct page *vcompute_pagemap_backing(struct page *page)
{
	return page;
}

static inline void vcompute_svm_bind_prepare(struct vcompute_vm *vm, u64 va,
					     u64 range)
{
}

static inline int vcompute_svm_fault(struct vcompute_vm *vm, u64 va,
				     enum vcompute_access access)
{
	return DRM_COMPUTE_FAULT_UNMAPPED;
}
#endif

/**
 * struct vcompute_queue - a user queue of vcompute.
 */
struct vcompute_queue {
	/** @base: the helper's part. */
	struct drm_compute_userq base;
	/** @vdev: the device. */
	struct vcompute_device *vdev;
	/** @vm: the queue's VM (the helper holds the reference). */
	struct vcompute_vm *vm;
	/** @ring_va: ring base. */
	u64 ring_va;
	/** @ring_size: ring bytes. */
	u64 ring_size;
	/** @rptr_va: where the read pointer is written back. */
	u64 rptr_va;
	/** @ctx_save_va: context save area. */
	u64 ctx_save_va;
	/** @cus: the enabled CUs, in order. */
	u32 *cus;
	/** @num_cus: entries in @cus. */
	u32 num_cus;
	/** @doorbell: the doorbell buffer (one page, no handle). */
	struct vcompute_bo *doorbell;
	/** @link: in &vcompute_engine.queues (engine). */
	struct list_head link;
	/** @started: in the engine's list (engine). */
	bool started;
	/** @suspended: not run until resumed (engine). */
	bool suspended;
	/** @dead: faulted, not run any more (engine). */
	bool dead;
	/**
	 * @rptr: read pointer (engine; read locklessly for the state, with
	 * acquire semantics: it is published after @fence_done).
	 */
	u64 rptr;
	/** @fence_done: value of the last FENCE completed (engine; lockless). */
	u64 fence_done;
	/** @wptr: write pointer last read (engine; read locklessly). */
	u64 wptr;
	/** @progress: forward-progress counter (engine; read locklessly). */
	u64 progress;
	/** @pkt_progress: bytes/elements/groups of the current packet done (engine). */
	u64 pkt_progress;
	/** @pkt_state: partial result of the current packet (engine). */
	u64 pkt_state;
	/** @wait_start: when the current WAIT_MEM started, ns (engine). */
	u64 wait_start;
	/**
	 * @job_ns: engine time the current packet has taken so far, waiting
	 * not counted (engine); checked against ``job_timeout_ms``.
	 */
	u64 job_ns;
	/** @saves: suspensions so far (engine). */
	u64 saves;
	/** @pkt: the packet being executed, copied from the ring (engine). */
	u64 pkt[VCOMPUTE_PKT_MAX_QWORDS];
};

static inline struct vcompute_queue *to_vcompute_queue(struct drm_compute_userq *q)
{
	return container_of(q, struct vcompute_queue, base);
}

/* vcompute_userq.c */
struct drm_compute_userq *vcompute_userq_create(struct drm_compute_file *cfile,
						const struct drm_compute_userq_args *args,
						u64 *doorbell_offset,
						u32 *doorbell_pos);
void vcompute_userq_start(struct drm_compute_userq *q);
void vcompute_userq_stop(struct drm_compute_userq *q);
void vcompute_userq_free(struct drm_compute_userq *q);
int vcompute_userq_suspend(struct drm_compute_userq *q);
int vcompute_userq_resume(struct drm_compute_userq *q);
void vcompute_userq_hw_state(struct drm_compute_userq *q,
			     struct drm_compute_userq_hw *hw);
void vcompute_userq_wake(struct drm_compute_userq *q);
int vcompute_userq_criu_restore(struct drm_compute_userq *q,
				const struct drm_compute_userq_hw *hw);
struct drm_compute_doorbell *vcompute_doorbell(struct vcompute_queue *q);

/* vcompute_drv.c */
struct vcompute_device *vcompute_create(const struct vcompute_config *cfg);
void vcompute_destroy(struct vcompute_device *vdev);
int vcompute_config_check(const struct vcompute_config *cfg);

/* vcompute_configfs.c */
int vcompute_configfs_register(void);
void vcompute_configfs_unregister(void);

/* vcompute_engine.c */
int vcompute_engine_init(struct vcompute_device *vdev);
void vcompute_engine_fini(struct vcompute_device *vdev);
void vcompute_engine_kick(struct vcompute_device *vdev);
void vcompute_engine_reset(struct vcompute_device *vdev);

/* vcompute_packet.c: packet checks and kernel arithmetic, also for KUnit. */
int vcompute_pkt_header_check(const struct vcompute_pkt_header *h);
int vcompute_pkt_body_check(const u64 *pkt, u64 *fault_va);
int vcompute_pkt_atomic_size(u32 op);
bool vcompute_wait_cond(u32 func, u64 value, u64 ref);
u32 vcompute_f32_add(u32 a, u32 b);

#endif /* __VCOMPUTE_DRV_H__ */
