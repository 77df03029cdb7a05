// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: amdgpu compute glue
 *
 * amdgpu's side of the DRM compute helpers (drivers/gpu/drm/drm_compute*.c):
 * the render node's compute uapi (include/uapi/drm/drm_compute.h, at
 * %DRM_AMDGPU_COMPUTE_BASE) on amdgpu's own objects. The helper owns the
 * uapi rules, ids, lifetimes, the queue state machine and hang detection;
 * this file only translates, and every operation is a call into existing
 * amdgpu code:
 *
 * - buffers: amdgpu_gem_object_create() (VRAM, cleared, or GTT), as
 *   DRM_AMDGPU_GEM_CREATE does, and a GEM handle; buffers made for export
 *   to peers (DRM_COMPUTE_BO_EXPORT_*) are placed by the DRM compute P2P
 *   helper through amdgpu's dma-buf callbacks (amdgpu_compute_p2p.c,
 *   DOC: amdgpu compute export to peers);
 * - VMs: amdgpu has one VM per file (&amdgpu_fpriv.vm), so a file has at
 *   most one compute VM (&drm_compute_dev_info.max_vms = 1), a small
 *   wrapper of that VM. VM_BIND maps with amdgpu_vm_bo_map() and unmaps
 *   with amdgpu_vm_bo_clear_mappings() (which splits mappings straddling
 *   the range, as the uapi wants), after amdgpu_gem_va_check(), then
 *   writes the page tables (amdgpu_vm_clear_freed(), amdgpu_vm_bo_update(),
 *   amdgpu_vm_update_pdes()) and waits for the update fence, which carries
 *   the TLB flush on devices with user queues;
 * - SVM VMs (%DRM_COMPUTE_VM_CREATE_SVM): a drm_gpusvm mirror of the
 *   process over the file's VM, fed by amdgpu's retry faults
 *   (amdgpu_compute_svm.c, DOC: amdgpu compute SVM), where the device
 *   recovers from faults;
 * - user queues: amdgpu's MES user queues (amdgpu_userq.c), created with
 *   amdgpu_userq_create_queue() as a kernel-owned compute queue with the
 *   uapi's ring, rptr and wptr, priority and CU mask, suspended and resumed
 *   with amdgpu_userq_suspend_queue() and amdgpu_userq_resume_queue(), and
 *   stopped through amdgpu_userq's destroy path. The queue format is PM4
 *   (%DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4): amdgpu's DRM user queues have no
 *   AQL mode (mes_userq_map() never sets is_aql_queue);
 * - checkpoint/restore of buffers, the VM's compute mappings and their
 *   flags (%DRM_COMPUTE_FEATURE_CRIU): a buffer's placement is its
 *   preferred domain, its bytes go page by page through ttm_bo_access()
 *   (SDMA or MMIO for VRAM: correct, synchronous per page, not the
 *   fenced multi-MiB SDMA copy the hardware deserves), and the mappings are
 *   read back from amdgpu's VM over the compute spans. Queues are saved
 *   between packets: without CWSR a queue with running waves can only be
 *   drained, not saved mid-wave, so the checkpoint's suspend waits for its
 *   waves (amdgpu_userq_suspend_queue()), and the restore makes the queue
 *   again and gives its MQD the ring pointers of the checkpoint
 *   (amdgpu_compute_queue_criu_restore()); its rptr/wptr/fence slots are
 *   the process's buffers, written back with them. What
 *   amdgpu's own ioctls made is not saved either, and counts as unsaved so
 *   that a checkpoint refuses the file rather than lose it: a buffer
 *   DRM_AMDGPU_GEM_CREATE made with flags BO_CREATE does not give
 *   (amdgpu_compute_criu_bo_flags_ok()) and every DRM_AMDGPU_GEM_VA
 *   mapping of the file's VM outside the compute spans (RADV's).
 *
 * The user-queue operations are set only where amdgpu has MES user queues
 * for compute (adev->userq_funcs[AMDGPU_HW_IP_COMPUTE]: GC 11.0.0/2/3 and
 * 12.0.0/1 with new enough firmware, unless amdgpu.user_queue=0);
 * elsewhere the helper gets no operations, so the DEVICE query reports the
 * memory sizes and no feature.
 *
 * What amdgpu's path lacks, and therefore the device reports:
 *
 * - no context save area (&drm_compute_query_userq.ctx_save_size 0): 7.3's
 *   DRM user queues have no compute CWSR (no save area in the MQD, no trap
 *   handler), so a suspend waits until the queue's running waves are done
 *   and fails if MES cannot preempt within its timeout (the queue is then
 *   HUNG in amdgpu's sense);
 * - no wake-up: the CP watches its doorbells itself, and MES reads the
 *   write pointer from memory (%DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY).
 *
 * - the fence is a memory slot (%DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY): the
 *   queue's own RELEASE_MEM packets write &drm_compute_userq_create.fence_va,
 *   and the helper reads it (during waits and while sync-object signals are
 *   pending, every millisecond), since amdgpu delivers no per-queue
 *   completion event the glue could report (the end-of-pipe interrupt names
 *   the doorbell and serves amdgpu's own seq64 fences).
 *
 * Rules amdgpu adds to the uapi's
 * (%DRM_COMPUTE_SEMANTICS_QUEUE_BUFFER_RULES; an argument that breaks them
 * fails with -EINVAL): the ring, rptr, wptr and fence slot must each lie in one
 * mapping; the buffers that hold rptr, wptr and the fence are at most one
 * page each (MES's rule for the wptr) and are pinned in GTT for the queue's
 * life, so that they are read without sleeping (hence not an export buffer
 * the P2P helper keeps in VRAM). Pointers are in dwords, as
 * the CP counts them, in the doorbell as in the state report.
 *
 * Where amdgpu's semantics differ from the uapi, by design of the glue
 * (each one userspace can observe is reported as a DRM_COMPUTE_SEMANTICS_*
 * bit of the DEVICE query):
 *
 * - the compute VM *is* the file's amdgpu VM (%DRM_COMPUTE_SEMANTICS_SHARED_VA):
 *   mappings made there with DRM_AMDGPU_GEM_VA are visible (a MAP over
 *   them fails), but a compute UNMAP and a compute VM's end clear only what
 *   compute MAPs mapped (the glue records their spans), so RADV's mappings
 *   survive both; and closing a buffer's last handle in the file unmaps it
 *   (amdgpu_gem_object_close(); %DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS),
 *   where the uapi keeps a mapping's buffer alive;
 * - the end of the low VA half, %AMDGPU_COMPUTE_EOP_WINDOW bytes, holds
 *   the queues' EOP buffers (the uapi has none; amdgpu's compute MQD needs
 *   one) and is not offered to VM_BIND: the reported VA range ends before it;
 * - amdgpu reports a full VRAM as -ENOMEM, not -ENOSPC (TTM without
 *   TTM_ALLOCATION_PROPAGATE_ENOSPC; %DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM);
 *   the glue passes errors through.
 *
 * Only hardware exercises: everything below that talks to MES or the page
 * tables, i.e. queue creation, mapping, preemption and destruction, the
 * rptr/wptr report, the CU mask and priorities as the CP applies them, and
 * the VM updates. The argument translation is tested by KUnit
 * (drivers/gpu/drm/tests/amdgpu_compute_test.c). Not reported to the
 * helper, because amdgpu does not deliver them per queue: faults (a VM
 * fault names the PASID, not the queue); a faulted queue is caught by hang
 * detection (%DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT).
 *
 * Hang detection is the helper's watchdog with MES as the judge: a queue
 * with pending work whose read pointer stood still for amdgpu's own
 * compute job timeout of the device (&amdgpu_device.compute_timeout,
 * amdgpu.lockup_timeout, the time a job on amdgpu's kernel compute rings
 * gets) is preempted through MES (&drm_compute_ops.userq_hang_check); a
 * queue that preempts runs a long dispatch and continues, and only one
 * whose preemption fails, MES's own definition of hung, is reset. A long
 * kernel is therefore not killed for reading no new packet. amdgpu's userq
 * hang detection does not see these queues: it is armed by its own fences,
 * which they do not use.
 */

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>
#include <drm/ttm/ttm_bo.h>

#include "amdgpu.h"
#include "amdgpu_compute.h"
#include "amdgpu_compute_args.h"
#include "amdgpu_compute_p2p.h"
#include "amdgpu_gem.h"
#include "amdgpu_userq.h"
#include "amdgpu_vm.h"
#include "v11_structs.h"

/*
 * The file's amdgpu VM, as compute VM wrappers see it. The file has one
 * compute VM at a time (@gen counts them), but a destroyed one can outlive
 * the next, and even the file: hang detection may hold the last reference
 * to a queue, which holds its VM. Only the current wrapper binds and
 * clears; @vm is NULL from the file's teardown on.
 */
struct amdgpu_compute_vm_link {
	struct kref ref;
	struct mutex lock;		/* protects the fields below and binds */
	struct amdgpu_vm *vm;
	u64 gen;			/* of the current wrapper */
	struct list_head spans;		/* what compute MAPs mapped, by address */
};

/*
 * A range of the file's VM that compute VM_BINDs mapped. The compute VM
 * shares that VM with DRM_AMDGPU_GEM_VA (RADV's mappings), so UNMAP and a
 * compute VM's end clear only these, never the whole compute VA range.
 */
struct amdgpu_compute_span {
	struct list_head link;
	u64 start;
	u64 end;
};

/* A compute VM: the file's amdgpu VM. */
struct amdgpu_compute_vm {
	struct drm_compute_vm base;
	struct amdgpu_device *adev;
	struct amdgpu_compute_vm_link *link;
	u64 gen;
	struct amdgpu_compute_svm *svm;	/* SVM VMs: the mirror */
};

/* A compute queue: an amdgpu user queue and what the glue pinned for it. */
struct amdgpu_compute_queue {
	struct drm_compute_userq base;
	struct amdgpu_device *adev;
	/* amdgpu's queue, with the glue's reference; NULL once stopped. */
	struct amdgpu_usermode_queue *queue;
	u32 qid;			/* in the file's amdgpu_userq_mgr */
	u32 slot;			/* doorbell index, EOP buffer */
	u64 ring_size;
	struct amdgpu_bo *rptr_bo;	/* pinned, mapped */
	struct amdgpu_bo *wptr_bo;	/* pinned, mapped */
	struct amdgpu_bo *fence_bo;	/* pinned, mapped */
	const __le32 *rptr;		/* CP's ring offset, dwords */
	const __le64 *wptr;		/* userspace's write pointer, dwords */
	const __le64 *fence;		/* the queue's fence slot */
};

static struct amdgpu_compute_file *to_afile(struct drm_compute_file *cfile)
{
	return container_of(cfile, struct amdgpu_compute_file, base);
}

static struct amdgpu_compute_vm *to_cvm(struct drm_compute_vm *vm)
{
	return container_of(vm, struct amdgpu_compute_vm, base);
}

static struct amdgpu_compute_queue *to_aq(struct drm_compute_userq *q)
{
	return container_of(q, struct amdgpu_compute_queue, base);
}

static struct amdgpu_device *cfile_adev(struct drm_compute_file *cfile)
{
	return drm_to_adev(cfile->cdev->drm);
}

static struct amdgpu_fpriv *cfile_fpriv(struct drm_compute_file *cfile)
{
	return cfile->file->driver_priv;
}

/* Buffers */

static int amdgpu_compute_bo_new(struct drm_compute_file *cfile, u64 size,
				 u64 placement, u32 *handle)
{
	struct amdgpu_fpriv *fpriv = cfile_fpriv(cfile);
	struct drm_gem_object *gobj;
	int r;

	if (size > ULONG_MAX)
		return -ENOMEM;
	r = amdgpu_gem_object_create(cfile_adev(cfile), size, 0,
				     amdgpu_compute_domain(placement),
				     AMDGPU_GEM_CREATE_VRAM_CLEARED,
				     ttm_bo_type_device, NULL, &gobj,
				     fpriv->xcp_id + 1);
	if (r)
		return r;
	r = drm_gem_handle_create(cfile->file, gobj, handle);
	drm_gem_object_put(gobj);
	return r;
}

/*
 * Every GEM object a file of an amdgpu device names is an amdgpu BO,
 * imported dma-bufs included (amdgpu_gem_prime_import() makes one), and
 * amdgpu's VM maps them all, as DRM_AMDGPU_GEM_VA does.
 */
static bool amdgpu_compute_bo_bindable(struct drm_gem_object *obj)
{
	return true;
}

/*
 * Checkpoint: a buffer's placement is the domain it was made for, which a
 * restore asks for again (where it lives now may be an eviction's choice).
 */
static u64 amdgpu_compute_bo_criu_placement(struct drm_gem_object *obj)
{
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);

	/* DRM_AMDGPU_GEM_CREATE's flags or domains: a restore would lose them. */
	if (!amdgpu_compute_criu_bo_flags_ok(bo->flags, bo->preferred_domains))
		return 0;
	return bo->preferred_domains & AMDGPU_GEM_DOMAIN_VRAM ?
	       DRM_COMPUTE_PLACEMENT_VRAM : DRM_COMPUTE_PLACEMENT_SYSTEM;
}

/*
 * Checkpoint and restore of a buffer's bytes, one page at a time through
 * ttm_bo_access() (the path a debugger's access to a mapping takes:
 * kmap for system memory, amdgpu_ttm_access_memory() for VRAM, by SDMA or
 * MMIO) and a bounce page. Correct, and synchronous per page; the copy
 * the helper's contract asks for on hardware, by SDMA in multi-MiB fenced
 * chunks through a transfer buffer, needs a GPU to be written and measured.
 */
static int amdgpu_compute_bo_criu_copy(struct drm_gem_object *obj, u64 offset,
				       struct iov_iter *iter)
{
	struct amdgpu_bo *bo = gem_to_amdgpu_bo(obj);
	bool out = iov_iter_rw(iter) == ITER_DEST;
	size_t len;
	void *page;
	int r = 0;

	page = (void *)__get_free_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	while (iov_iter_count(iter)) {
		len = min_t(size_t, PAGE_SIZE - offset_in_page(offset), iov_iter_count(iter));
		if (!out && copy_from_iter(page, len, iter) != len) {
			r = -EFAULT;
			break;
		}
		r = ttm_bo_access(&bo->tbo, offset, page, len, !out);
		if (r < 0)
			break;
		r = 0;
		if (out && copy_to_iter(page, len, iter) != len) {
			r = -EFAULT;
			break;
		}
		offset += len;
		cond_resched();
	}
	free_page((unsigned long)page);
	return r;
}

/* VMs */

/*
 * Write the page tables for what changed in @vm (and @bo_va's mappings)
 * and wait until the GPU sees them. An evicted VM is updated by the
 * restore path before any of the file's queues runs again
 * (amdgpu_gem_va_update_vm() skips it the same way).
 */
static int amdgpu_compute_vm_update(struct amdgpu_device *adev,
				    struct amdgpu_vm *vm,
				    struct amdgpu_bo_va *bo_va)
{
	int r;

	if (!amdgpu_vm_ready(vm))
		return 0;
	r = amdgpu_vm_clear_freed(adev, vm, &vm->last_update);
	if (!r && bo_va)
		r = amdgpu_vm_bo_update(adev, bo_va, false);
	if (!r)
		r = amdgpu_vm_update_pdes(adev, vm, false);
	if (r)
		return r;
	dma_fence_wait(vm->last_update, false);
	if (bo_va)
		dma_fence_wait(bo_va->last_pt_update, false);
	return 0;
}

/* Lock @vm's page directory, and @bo when there is one. */
static int amdgpu_compute_vm_lock(struct drm_exec *exec, struct amdgpu_vm *vm,
				  struct amdgpu_bo *bo, bool intr)
{
	int r = 0;

	drm_exec_init(exec, (intr ? DRM_EXEC_INTERRUPTIBLE_WAIT : 0) |
		      DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(exec) {
		if (bo) {
			r = drm_exec_lock_obj(exec, &bo->tbo.base);
			drm_exec_retry_on_contention(exec);
			if (r)
				break;
		}
		r = amdgpu_vm_lock_pd(vm, exec, 2);
		drm_exec_retry_on_contention(exec);
		if (r)
			break;
	}
	if (r)
		drm_exec_fini(exec);
	return r;
}

/*
 * Map @size bytes of the BO behind @bo_va at @va. Fails with -EINVAL on
 * any mapping in the range; a failed update takes the mapping back.
 */
static int amdgpu_compute_map(struct amdgpu_device *adev, struct amdgpu_vm *vm,
			      struct amdgpu_bo_va *bo_va, u64 va, u64 offset,
			      u64 size, u32 flags)
{
	int r;

	r = amdgpu_vm_bo_map(adev, bo_va, va, offset, size, flags);
	if (r)
		return r;
	r = amdgpu_compute_vm_update(adev, vm, bo_va);
	if (r) {
		amdgpu_vm_bo_unmap(adev, bo_va, va);
		amdgpu_compute_vm_update(adev, vm, NULL);
	}
	return r;
}

/* Forget the spans: the file's VM, or the device, is gone with them. */
static void amdgpu_compute_spans_free(struct amdgpu_compute_vm_link *link)
{
	struct amdgpu_compute_span *s, *tmp;

	lockdep_assert_held(&link->lock);
	list_for_each_entry_safe(s, tmp, &link->spans, link) {
		list_del(&s->link);
		kfree(s);
	}
}

static void amdgpu_compute_link_release(struct kref *ref)
{
	struct amdgpu_compute_vm_link *link =
		container_of(ref, struct amdgpu_compute_vm_link, ref);

	mutex_lock(&link->lock);
	amdgpu_compute_spans_free(link);
	mutex_unlock(&link->lock);
	mutex_destroy(&link->lock);
	kfree(link);
}

/*
 * Clear what compute MAPs mapped in [@va, @va_end), and nothing else of
 * the file's VM: GEM_VA mappings there stay. The spans follow what was
 * cleared, even when a clear fails part of the way; a failed page-table
 * update leaves the cleared entries to the next update of the VM, as
 * DRM_AMDGPU_GEM_VA does. Called with the link's lock and the VM's
 * reservation held.
 */
static int amdgpu_compute_spans_unmap(struct amdgpu_device *adev,
				      struct amdgpu_compute_vm_link *link,
				      u64 va, u64 va_end)
{
	struct amdgpu_compute_span *s, *tmp, *spare;
	struct amdgpu_compute_span_cut c;
	bool cleared = false;
	int r = 0;

	lockdep_assert_held(&link->lock);
	/* At most one span is split in two: its second half is ready. */
	spare = kmalloc_obj(*spare);
	if (!spare)
		return -ENOMEM;
	list_for_each_entry_safe(s, tmp, &link->spans, link) {
		if (s->start >= va_end)
			break;
		amdgpu_compute_span_cut(s->start, s->end, va, va_end, &c);
		if (c.clear_start == c.clear_end)
			continue;
		r = amdgpu_vm_bo_clear_mappings(adev, link->vm, c.clear_start,
						c.clear_end - c.clear_start);
		if (r)
			break;
		cleared = true;
		if (!c.keep) {
			list_del(&s->link);
			kfree(s);
			continue;
		}
		s->start = c.keep_start[0];
		s->end = c.keep_end[0];
		if (c.keep == 2) {
			spare->start = c.keep_start[1];
			spare->end = c.keep_end[1];
			list_add(&spare->link, &s->link);
			spare = NULL;
			break;	/* a hole inside one span: nothing after it is hit */
		}
	}
	kfree(spare);
	if (cleared) {
		int u = amdgpu_compute_vm_update(adev, link->vm, NULL);

		r = r ?: u;
	}
	return r;
}

/* Record a compute MAP; @s is allocated beforehand. */
static void amdgpu_compute_span_add(struct amdgpu_compute_vm_link *link,
				    struct amdgpu_compute_span *s)
{
	struct amdgpu_compute_span *pos;

	lockdep_assert_held(&link->lock);
	/* MAPs never overlap (amdgpu_vm_bo_map() refuses): keep them sorted. */
	list_for_each_entry(pos, &link->spans, link)
		if (pos->start > s->start)
			break;
	list_add_tail(&s->link, &pos->link);
}

/*
 * Clear what the current compute VM mapped, so that the next one starts
 * empty; the GEM_VA mappings of the file's VM stay. On an unplugged
 * device nothing is written (the page tables go with the file's VM): the
 * spans are only forgotten. Called with the link's lock held.
 */
static int amdgpu_compute_vm_clear(struct amdgpu_device *adev,
				   struct amdgpu_compute_vm_link *link)
{
	struct drm_exec exec;
	int r, idx;

	lockdep_assert_held(&link->lock);
	if (!link->vm || list_empty(&link->spans))
		return 0;
	if (!drm_dev_enter(adev_to_drm(adev), &idx)) {
		amdgpu_compute_spans_free(link);
		return 0;
	}
	r = amdgpu_compute_vm_lock(&exec, link->vm, NULL, false);
	if (!r) {
		r = amdgpu_compute_spans_unmap(adev, link, 0, U64_MAX);
		drm_exec_fini(&exec);
	}
	drm_dev_exit(idx);
	return r;
}

/*
 * Under the file's lock, like every VM_CREATE, and only when the file has
 * no compute VM (max_vms 1); what a destroyed one that outlived its id
 * left mapped goes now.
 */
static struct drm_compute_vm *amdgpu_compute_vm_new(struct drm_compute_file *cfile)
{
	struct amdgpu_compute_file *afile = to_afile(cfile);
	struct amdgpu_device *adev = cfile_adev(cfile);
	struct amdgpu_compute_vm_link *link = afile->link;
	struct amdgpu_compute_vm *cvm;
	int r;

	if (!link) {
		link = kzalloc_obj(*link);
		if (!link)
			return ERR_PTR(-ENOMEM);
		kref_init(&link->ref);
		mutex_init(&link->lock);
		INIT_LIST_HEAD(&link->spans);
		link->vm = &cfile_fpriv(cfile)->vm;
		afile->link = link;
	}
	cvm = kzalloc_obj(*cvm);
	if (!cvm)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&link->lock);
	r = amdgpu_compute_vm_clear(adev, link);
	if (!r)
		cvm->gen = ++link->gen;
	mutex_unlock(&link->lock);
	if (r) {
		kfree(cvm);
		return ERR_PTR(r);
	}
	kref_get(&link->ref);
	cvm->link = link;
	cvm->adev = adev;
	return &cvm->base;
}

/*
 * The last reference is gone: unless a newer compute VM replaced this one
 * or the file is gone, clear what it mapped.
 */
static void amdgpu_compute_vm_free(struct drm_compute_vm *vm)
{
	struct amdgpu_compute_vm *cvm = to_cvm(vm);
	struct amdgpu_compute_vm_link *link = cvm->link;

	mutex_lock(&link->lock);
	if (cvm->gen == link->gen && amdgpu_compute_vm_clear(cvm->adev, link))
		drm_dbg_driver(adev_to_drm(cvm->adev),
			       "compute: VM teardown left page-table updates pending\n");
	mutex_unlock(&link->lock);
	kref_put(&link->ref, amdgpu_compute_link_release);
	kfree_rcu(cvm, base.rcu);	/* lookups by id run under RCU */
}

/*
 * Checkpoint: what compute MAPs mapped, span by span, as the VM's mappings
 * record it (GEM_VA mappings of the file's VM are RADV's, not saved here).
 */
static int amdgpu_compute_vm_criu_mappings(struct drm_compute_vm *vm,
					   struct drm_compute_criu_map *maps,
					   u32 max, u32 *n)
{
	struct amdgpu_compute_vm *cvm = to_cvm(vm);
	struct amdgpu_compute_vm_link *link = cvm->link;
	struct amdgpu_device *adev = cvm->adev;	/* amdgpu_gmc_sign_extend() */
	struct amdgpu_bo_va_mapping *m;
	struct amdgpu_compute_span *s;
	struct drm_exec exec;
	u32 i = 0;
	u64 addr;
	int r;

	mutex_lock(&link->lock);
	if (cvm->gen != link->gen || !link->vm) {
		r = 0;
		goto out;
	}
	r = amdgpu_compute_vm_lock(&exec, link->vm, NULL, true);
	if (r)
		goto out;
	list_for_each_entry(s, &link->spans, link) {
		for (addr = s->start; addr < s->end;) {
			m = amdgpu_vm_bo_lookup_mapping(link->vm, addr / AMDGPU_GPU_PAGE_SIZE);
			if (!m) {
				addr += AMDGPU_GPU_PAGE_SIZE;
				continue;
			}
			if (i < max && m->bo_va && m->bo_va->base.bo) {
				struct drm_gem_object *obj = &m->bo_va->base.bo->tbo.base;

				drm_gem_object_get(obj);
				maps[i] = (struct drm_compute_criu_map) {
					.obj = obj,
					.flags = amdgpu_compute_bind_flags(m->flags),
					.bo_offset = m->offset,
					.va = amdgpu_gmc_sign_extend(m->start *
								     AMDGPU_GPU_PAGE_SIZE),
					.range = (m->last - m->start + 1) * AMDGPU_GPU_PAGE_SIZE,
				};
			}
			i++;
			addr = (m->last + 1) * AMDGPU_GPU_PAGE_SIZE;
		}
	}
	drm_exec_fini(&exec);
out:
	mutex_unlock(&link->lock);
	*n = i;
	return r;
}

/* Whether what compute MAPs mapped covers [@start, @end). */
static bool amdgpu_compute_spans_cover(struct amdgpu_compute_vm_link *link,
				       u64 start, u64 end)
{
	struct amdgpu_compute_span *s;

	lockdep_assert_held(&link->lock);
	list_for_each_entry(s, &link->spans, link) {
		if (s->start > start)
			break;
		if (s->end >= end)
			return true;
	}
	return false;
}

/*
 * Checkpoint: every mapping of the file's VM the helper does not list,
 * DRM_AMDGPU_GEM_VA's (RADV's, PRT ones included) outside the compute
 * spans, is unsaved: a restore would come back without it. The mappings
 * amdgpu makes itself (the CSA and seq64 at open, the queues' EOP window)
 * are made again by the restored file.
 */
static int amdgpu_compute_file_criu_unsaved(struct drm_compute_file *cfile)
{
	struct amdgpu_compute_file *afile = to_afile(cfile);
	struct amdgpu_fpriv *fpriv = cfile_fpriv(cfile);
	struct amdgpu_compute_vm_link *link;
	struct amdgpu_bo_va_mapping *m;
	struct drm_exec exec;
	struct rb_node *node;
	int n = 0, r;

	mutex_lock(&cfile->lock);
	link = afile->link;
	if (link)
		kref_get(&link->ref);
	mutex_unlock(&cfile->lock);

	if (link)
		mutex_lock(&link->lock);
	r = amdgpu_compute_vm_lock(&exec, &fpriv->vm, NULL, true);
	if (r)
		goto out;
	for (node = rb_first_cached(&fpriv->vm.va); node; node = rb_next(node)) {
		m = rb_entry(node, struct amdgpu_bo_va_mapping, rb);
		if (m->bo_va && (m->bo_va == fpriv->csa_va ||
				 m->bo_va == fpriv->seq64_va ||
				 m->bo_va == afile->eop_va))
			continue;
		if (link && link->vm &&
		    amdgpu_compute_spans_cover(link, m->start * AMDGPU_GPU_PAGE_SIZE,
					       (m->last + 1) * AMDGPU_GPU_PAGE_SIZE))
			continue;
		n++;
	}
	drm_exec_fini(&exec);
out:
	if (link) {
		mutex_unlock(&link->lock);
		kref_put(&link->ref, amdgpu_compute_link_release);
	}
	return r ?: n;
}

static int amdgpu_compute_bind(struct drm_compute_vm *vm,
			       const struct drm_compute_bind *bind)
{
	struct amdgpu_compute_vm *cvm = to_cvm(vm);
	struct amdgpu_compute_vm_link *link = cvm->link;
	struct amdgpu_device *adev = cvm->adev;
	struct amdgpu_compute_span *span = NULL;
	struct amdgpu_bo *bo = NULL;
	struct amdgpu_bo_va *bo_va;
	struct drm_exec exec;
	u64 va = bind->va;
	int r;

	r = amdgpu_gem_va_check(adev, &va, bind->range);
	if (r)
		return r;
	if (bind->op == DRM_COMPUTE_VM_BIND_OP_MAP) {
		bo = gem_to_amdgpu_bo(bind->obj);
		span = kmalloc_obj(*span);
		if (!span)
			return -ENOMEM;
		span->start = va;
		span->end = va + bind->range;
	}

	mutex_lock(&link->lock);
	/* A VM destroyed while this call held it is no longer the file's. */
	if (cvm->gen != link->gen || !link->vm) {
		r = -ENOENT;
		goto out;
	}
	/* SVM: faults wait, and the MAP's interval is no SVM range's. */
	if (cvm->svm) {
		mutex_lock(&vm->svm.lock);
		if (bo)
			amdgpu_compute_svm_bind_prepare(cvm->svm, va, bind->range);
	}
	r = amdgpu_compute_vm_lock(&exec, link->vm, bo, true);
	if (r)
		goto out_svm;
	if (!bo) {
		r = amdgpu_compute_spans_unmap(adev, link, va, va + bind->range);
	} else {
		/* Made when the file got its handle (amdgpu_gem_object_open()). */
		bo_va = amdgpu_vm_bo_find(link->vm, bo);
		r = bo_va ? amdgpu_compute_map(adev, link->vm, bo_va, va,
					       bind->bo_offset, bind->range,
					       amdgpu_compute_vm_flags(bind->flags)) :
			    -ENOENT;
		if (!r) {
			amdgpu_compute_span_add(link, span);
			span = NULL;
		}
	}
	drm_exec_fini(&exec);
out_svm:
	if (cvm->svm)
		mutex_unlock(&vm->svm.lock);
out:
	mutex_unlock(&link->lock);
	kfree(span);
	return r;
}

/* Per-file queue resources */

/* The file's doorbell page, mmap()able by the file only. */
static int amdgpu_compute_doorbell_new(struct amdgpu_device *adev,
				       struct amdgpu_compute_file *afile)
{
	struct drm_compute_file *cfile = &afile->base;
	struct drm_gem_object *gobj;
	int r;

	r = amdgpu_gem_object_create(adev, PAGE_SIZE, 0,
				     AMDGPU_GEM_DOMAIN_DOORBELL, 0,
				     ttm_bo_type_device, NULL, &gobj,
				     cfile_fpriv(cfile)->xcp_id + 1);
	if (r)
		return r;
	r = drm_gem_create_mmap_offset(gobj);
	if (!r)
		r = drm_vma_node_allow(&gobj->vma_node, cfile->file);
	if (r) {
		drm_gem_object_put(gobj);
		return r;
	}
	afile->doorbell = gobj;
	return 0;
}

/* The file's EOP buffers, mapped at the EOP window of its VM. */
static int amdgpu_compute_eop_new(struct amdgpu_device *adev,
				  struct amdgpu_compute_file *afile)
{
	struct amdgpu_vm *vm = &cfile_fpriv(&afile->base)->vm;
	const u64 size = AMDGPU_COMPUTE_MAX_QUEUES * AMDGPU_COMPUTE_EOP_SIZE;
	struct drm_exec exec;
	int r;

	r = amdgpu_bo_create_kernel(adev, size, PAGE_SIZE,
				    AMDGPU_GEM_DOMAIN_GTT, &afile->eop, NULL,
				    &afile->eop_cpu);
	if (r)
		return r;
	r = amdgpu_compute_vm_lock(&exec, vm, afile->eop, true);
	if (r)
		goto err_free;
	afile->eop_va = amdgpu_vm_bo_add(adev, vm, afile->eop);
	if (!afile->eop_va) {
		r = -ENOMEM;
	} else {
		r = amdgpu_compute_map(adev, vm, afile->eop_va,
				       adev->compute.info.va_end, 0, size,
				       AMDGPU_VM_PAGE_READABLE |
				       AMDGPU_VM_PAGE_WRITEABLE);
		if (r) {
			amdgpu_vm_bo_del(adev, afile->eop_va);
			afile->eop_va = NULL;
		}
	}
	drm_exec_fini(&exec);
	if (r)
		goto err_free;
	return 0;

err_free:
	amdgpu_bo_free_kernel(&afile->eop, NULL, &afile->eop_cpu);
	return r;
}

static void amdgpu_compute_eop_free(struct amdgpu_device *adev,
				    struct amdgpu_compute_file *afile,
				    struct amdgpu_vm *vm)
{
	struct drm_exec exec;

	if (amdgpu_compute_vm_lock(&exec, vm, afile->eop, false)) {
		/* Still mapped: the buffer stays until the VM goes. */
		drm_warn(adev_to_drm(adev), "compute: EOP buffers left mapped\n");
		return;
	}
	amdgpu_vm_bo_del(adev, afile->eop_va);
	afile->eop_va = NULL;
	/* No compute queue of the file runs any more: clear the window now. */
	amdgpu_compute_vm_update(adev, vm, NULL);
	drm_exec_fini(&exec);
	amdgpu_bo_free_kernel(&afile->eop, NULL, &afile->eop_cpu);
}

/* User queues */

/*
 * Pin the BO mapped at @va (at most a page) in GTT and map it for the CPU,
 * so that the queue's pointers can be read without sleeping.
 */
static int amdgpu_compute_pin_ptr(struct amdgpu_vm *vm, u64 va,
				  struct amdgpu_bo **bo_out, const void **ptr)
{
	struct amdgpu_bo_va_mapping *mapping;
	struct amdgpu_bo *bo = NULL;
	u64 offset = 0;
	void *kptr;
	int r;

	r = amdgpu_bo_reserve(vm->root.bo, false);
	if (r)
		return r;
	mapping = amdgpu_vm_bo_lookup_mapping(vm, va >> AMDGPU_GPU_PAGE_SHIFT);
	if (mapping && mapping->bo_va && mapping->bo_va->base.bo) {
		bo = amdgpu_bo_ref(mapping->bo_va->base.bo);
		offset = mapping->offset + va -
			 (mapping->start << AMDGPU_GPU_PAGE_SHIFT);
	}
	amdgpu_bo_unreserve(vm->root.bo);
	if (!bo)
		return -EINVAL;

	r = -EINVAL;
	if (amdgpu_bo_size(bo) > PAGE_SIZE)
		goto err_unref;
	r = amdgpu_bo_reserve(bo, false);
	if (r)
		goto err_unref;
	/* Not an export buffer the P2P helper keeps in VRAM. */
	r = amdgpu_compute_p2p_may_pin_gtt(bo) ?
	    amdgpu_bo_pin(bo, AMDGPU_GEM_DOMAIN_GTT) : -EINVAL;
	if (!r) {
		r = amdgpu_bo_kmap(bo, &kptr);
		if (r)
			amdgpu_bo_unpin(bo);
	}
	amdgpu_bo_unreserve(bo);
	if (r)
		goto err_unref;
	*bo_out = bo;
	*ptr = kptr + offset;
	return 0;

err_unref:
	amdgpu_bo_unref(&bo);
	return r;
}

/* The mapping stays: amdgpu_bo_kunmap() would pull it from other users. */
static void amdgpu_compute_unpin_ptr(struct amdgpu_bo **bo)
{
	if (!*bo)
		return;
	if (!amdgpu_bo_reserve(*bo, true)) {
		amdgpu_bo_unpin(*bo);
		amdgpu_bo_unreserve(*bo);
	}
	amdgpu_bo_unref(bo);
}

/* Make the amdgpu queue: arguments translated, CU mask as words. */
static int amdgpu_compute_queue_make(struct drm_compute_file *cfile,
				     struct amdgpu_compute_queue *aq,
				     const struct drm_compute_userq_args *args)
{
	struct amdgpu_compute_file *afile = to_afile(cfile);
	u32 num_cus = cfile->cdev->info.num_cus;
	struct drm_amdgpu_userq_mqd_compute_gfx11 mqd;
	struct amdgpu_userq_create_args cargs;
	struct drm_amdgpu_userq_in in;
	u32 *words;
	int r;

	words = kcalloc(DIV_ROUND_UP(num_cus, 32), sizeof(*words), GFP_KERNEL);
	if (!words)
		return -ENOMEM;
	amdgpu_compute_userq_in(&in, &mqd, args, aq->slot,
				amdgpu_compute_eop_va(cfile->cdev->info.va_end,
						      aq->slot));
	cargs = (struct amdgpu_userq_create_args) {
		.in = &in,
		.mqd = &mqd,
		.db_obj = gem_to_amdgpu_bo(afile->doorbell),
		.cu_mask = words,
		.cu_mask_count = amdgpu_compute_cu_mask_words(words, args->cu_mask,
							      num_cus),
		.hqd_queue_priority = amdgpu_compute_hqd_queue_priority(args->priority),
		.kernel_owned = true,
		/* Placed by amdgpu_compute_queue_criu_restore(), then resumed. */
		.suspended = args->restore,
	};
	memset(afile->eop_cpu + aq->slot * AMDGPU_COMPUTE_EOP_SIZE, 0,
	       AMDGPU_COMPUTE_EOP_SIZE);
	r = amdgpu_userq_create_queue(cfile->file, &cargs, &aq->queue, &aq->qid);
	kfree(words);
	return r;
}

static struct drm_compute_userq *
amdgpu_compute_queue_new(struct drm_compute_file *cfile,
			 const struct drm_compute_userq_args *args,
			 u64 *doorbell_offset, u32 *doorbell_pos)
{
	struct amdgpu_compute_file *afile = to_afile(cfile);
	struct amdgpu_device *adev = cfile_adev(cfile);
	struct amdgpu_vm *vm = &cfile_fpriv(cfile)->vm;
	struct amdgpu_compute_queue *aq;
	const void *ptr;
	int r;

	/* The helper holds the file's lock: the first queue sets up alone. */
	if (!afile->doorbell) {
		r = amdgpu_compute_doorbell_new(adev, afile);
		if (r)
			return ERR_PTR(r);
	}
	if (!afile->eop) {
		r = amdgpu_compute_eop_new(adev, afile);
		if (r)
			return ERR_PTR(r);
	}

	aq = kzalloc_obj(*aq);
	if (!aq)
		return ERR_PTR(-ENOMEM);
	aq->adev = adev;
	aq->ring_size = args->ring_size;
	r = ida_alloc_max(&afile->slots, AMDGPU_COMPUTE_MAX_QUEUES - 1,
			  GFP_KERNEL);
	if (r < 0)
		goto err_free;
	aq->slot = r;

	r = amdgpu_compute_pin_ptr(vm, args->rptr_va, &aq->rptr_bo, &ptr);
	if (r)
		goto err_slot;
	aq->rptr = ptr;
	r = amdgpu_compute_pin_ptr(vm, args->wptr_va, &aq->wptr_bo, &ptr);
	if (r)
		goto err_unpin;
	aq->wptr = ptr;
	r = amdgpu_compute_pin_ptr(vm, args->fence_va, &aq->fence_bo, &ptr);
	if (r)
		goto err_unpin;
	aq->fence = ptr;

	r = amdgpu_compute_queue_make(cfile, aq, args);
	if (r)
		goto err_unpin;

	*doorbell_offset = drm_vma_node_offset_addr(&afile->doorbell->vma_node);
	*doorbell_pos = aq->slot * AMDGPU_COMPUTE_DOORBELL_SIZE;
	return &aq->base;

err_unpin:
	amdgpu_compute_unpin_ptr(&aq->fence_bo);
	amdgpu_compute_unpin_ptr(&aq->wptr_bo);
	amdgpu_compute_unpin_ptr(&aq->rptr_bo);
err_slot:
	ida_free(&afile->slots, aq->slot);
err_free:
	kfree(aq);
	return ERR_PTR(r);
}

/*
 * amdgpu_userq's destroy path, as AMDGPU_USERQ_OP_FREE takes it: the queue
 * leaves the file's queue manager and the last reference unmaps it from
 * MES and frees it. The helper calls this while the file lives.
 */
static void amdgpu_compute_queue_stop(struct drm_compute_userq *q)
{
	struct amdgpu_compute_queue *aq = to_aq(q);
	struct amdgpu_usermode_queue *queue = aq->queue;
	struct xarray *xa = &queue->userq_mgr->userq_xa;
	bool listed;

	xa_lock(xa);
	listed = xa_load(xa, aq->qid) == queue;
	if (listed)
		__xa_erase(xa, aq->qid);
	xa_unlock(xa);
	if (listed)
		amdgpu_userq_put(queue);
	amdgpu_userq_put(queue);
	aq->queue = NULL;
	ida_free(&to_afile(q->cfile)->slots, aq->slot);
}

static void amdgpu_compute_queue_free(struct drm_compute_userq *q)
{
	struct amdgpu_compute_queue *aq = to_aq(q);

	amdgpu_compute_unpin_ptr(&aq->fence_bo);
	amdgpu_compute_unpin_ptr(&aq->wptr_bo);
	amdgpu_compute_unpin_ptr(&aq->rptr_bo);
	kfree_rcu(aq, base.rcu);	/* lookups by id run under RCU */
}

/* A control ioctl may reach a queue that a destroy just stopped. */
static int amdgpu_compute_queue_suspend(struct drm_compute_userq *q)
{
	struct amdgpu_compute_queue *aq = to_aq(q);

	return aq->queue ? amdgpu_userq_suspend_queue(aq->queue) : -EIO;
}

static int amdgpu_compute_queue_resume(struct drm_compute_userq *q)
{
	struct amdgpu_compute_queue *aq = to_aq(q);

	return aq->queue ? amdgpu_userq_resume_queue(aq->queue) : -EIO;
}

/*
 * CRIU: userq_create made the queue off the hardware (args->restore, so it
 * never ran) and its MQD gets the checkpoint's ring pointers, which MES
 * loads when the helper's resume maps the queue
 * (amdgpu_userq_resume_queue()). GC 11's and GC 12's compute MQDs have
 * CP_HQD_PQ_RPTR and CP_HQD_PQ_WPTR_LO/HI at the same dword offsets (138,
 * 182, 183). Compile-only here: that the CP continues from these on a map
 * needs hardware to be shown.
 */
static int amdgpu_compute_queue_criu_restore(struct drm_compute_userq *q,
					     const struct drm_compute_userq_hw *hw)
{
	struct amdgpu_compute_queue *aq = to_aq(q);
	struct amdgpu_compute_ring_regs regs;
	struct v11_compute_mqd *mqd;
	int r;

	lockdep_assert_held(&q->cfile->criu_lock);
	lockdep_assert_held(&q->cfile->lock);
	r = amdgpu_compute_ring_regs(hw->rptr, hw->wptr, aq->ring_size, &regs);
	if (r)
		return r;
	if (!aq->queue)
		return -EIO;
	mqd = aq->queue->mqd.cpu_ptr;
	WRITE_ONCE(mqd->cp_hqd_pq_rptr, regs.pq_rptr);
	WRITE_ONCE(mqd->cp_hqd_pq_wptr_lo, regs.pq_wptr_lo);
	WRITE_ONCE(mqd->cp_hqd_pq_wptr_hi, regs.pq_wptr_hi);
	return 0;
}

/*
 * MES's own signal: a queue it can preempt (saving its waves into the
 * queue's context save area) is running a long dispatch, not hung, and is
 * put back at once; one whose preemption fails is what MES reports as hung
 * (amdgpu_gfx_reset_mes_compute() finds hung queues the same way), and
 * the helper resets it. Asked once per hang timeout of standing still.
 */
static bool amdgpu_compute_queue_hang_check(struct drm_compute_userq *q)
{
	struct amdgpu_compute_queue *aq = to_aq(q);

	if (!aq->queue || amdgpu_userq_suspend_queue(aq->queue))
		return true;
	return amdgpu_userq_resume_queue(aq->queue) != 0;
}

/*
 * From the pinned pointers: valid from creation to free, stopped queues
 * included. The read pointer is the progress counter: it moves whenever
 * the CP consumes a packet.
 */
static void amdgpu_compute_queue_hw_state(struct drm_compute_userq *q,
					  struct drm_compute_userq_hw *hw)
{
	struct amdgpu_compute_queue *aq = to_aq(q);
	u64 wptr = le64_to_cpu(READ_ONCE(*aq->wptr));
	u32 rptr = le32_to_cpu(READ_ONCE(*aq->rptr));

	hw->wptr = wptr;
	hw->rptr = amdgpu_compute_rptr(wptr, rptr, aq->ring_size);
	hw->progress = hw->rptr;
	hw->fence = le64_to_cpu(READ_ONCE(*aq->fence));
}

#if IS_ENABLED(CONFIG_DRM_COMPUTE_SVM)
/* SVM: the mirror is amdgpu_compute_svm.c's, over the file's VM. */
static int amdgpu_compute_svm_vm_init(struct drm_compute_vm *vm)
{
	struct amdgpu_compute_vm *cvm = to_cvm(vm);
	struct amdgpu_compute_vm_link *link = cvm->link;
	int r = -ENOENT;

	mutex_lock(&link->lock);
	if (cvm->gen == link->gen && link->vm)
		r = amdgpu_compute_svm_init(cvm->adev, vm, link->vm, &cvm->svm);
	mutex_unlock(&link->lock);
	return r;
}

static void amdgpu_compute_svm_vm_fini(struct drm_compute_vm *vm)
{
	struct amdgpu_compute_vm *cvm = to_cvm(vm);

	amdgpu_compute_svm_fini(cvm->svm);
	cvm->svm = NULL;
}

static void amdgpu_compute_svm_set(struct drm_compute_vm *vm, u64 start, u64 size,
				   const struct drm_compute_svm_attr *attrs, u32 nattr)
{
	amdgpu_compute_svm_attr_set(to_cvm(vm)->svm, start, size, attrs, nattr);
}

static void amdgpu_compute_svm_vm_sync(struct drm_compute_vm *vm)
{
	amdgpu_compute_svm_sync(to_cvm(vm)->svm);
}
#endif

#define AMDGPU_COMPUTE_OPS						\
	.bo_create = amdgpu_compute_bo_new,				\
	.bo_bindable = amdgpu_compute_bo_bindable,			\
	.vm_create = amdgpu_compute_vm_new,				\
	.vm_free = amdgpu_compute_vm_free,				\
	.vm_bind = amdgpu_compute_bind,					\
	.userq_create = amdgpu_compute_queue_new,			\
	/* No userq_start: the queue is mapped on MES at creation. */	\
	.userq_stop = amdgpu_compute_queue_stop,			\
	.userq_free = amdgpu_compute_queue_free,			\
	.userq_suspend = amdgpu_compute_queue_suspend,			\
	.userq_resume = amdgpu_compute_queue_resume,			\
	.userq_hw_state = amdgpu_compute_queue_hw_state,		\
	.userq_hang_check = amdgpu_compute_queue_hang_check,		\
	.p2p_bo_create = amdgpu_compute_p2p_bo_create,			\
	.p2p_export = amdgpu_compute_p2p_export,			\
	.p2p_move_to_host = amdgpu_compute_p2p_move_to_host,		\
	.p2p_check = amdgpu_compute_p2p_check,				\
	.p2p_interconnect = amdgpu_compute_p2p_interconnect,		\
	.bo_criu_placement = amdgpu_compute_bo_criu_placement,		\
	.bo_criu_copy = amdgpu_compute_bo_criu_copy,			\
	.vm_criu_mappings = amdgpu_compute_vm_criu_mappings,		\
	.file_criu_unsaved = amdgpu_compute_file_criu_unsaved,		\
	.userq_criu_restore = amdgpu_compute_queue_criu_restore

static const struct drm_compute_ops amdgpu_compute_ops = {
	AMDGPU_COMPUTE_OPS,
};

#if IS_ENABLED(CONFIG_DRM_COMPUTE_SVM)
/* Where the device recovers from faults: SVM too (the helper reports it). */
static const struct drm_compute_ops amdgpu_compute_svm_ops = {
	AMDGPU_COMPUTE_OPS,
	.svm_vm_init = amdgpu_compute_svm_vm_init,
	.svm_vm_fini = amdgpu_compute_svm_vm_fini,
	.svm_attr_set = amdgpu_compute_svm_set,
	.svm_sync = amdgpu_compute_svm_vm_sync,
};
#endif

/* A device without MES compute queues: the query only. */
static const struct drm_compute_ops amdgpu_compute_no_ops;

/* Device */

/*
 * Whether amdgpu runs compute user queues here and they fit the glue:
 * amdgpu sets the compute user-queue functions only where MES user queues
 * work (GC 11.0.0/2/3 and 12.0.0/1, firmware checked, not disabled).
 */
static bool amdgpu_compute_userq_supported(struct amdgpu_device *adev,
					   u64 va_start, u64 va_end)
{
	struct amdgpu_gfx_shadow_info shadow;
	u64 va = va_start;

	if (!adev->userq_funcs[AMDGPU_HW_IP_COMPUTE] || !adev->gfx.cu_info.number)
		return false;
	if (!adev->gfx.funcs->get_gfx_shadow_info ||
	    adev->gfx.funcs->get_gfx_shadow_info(adev, &shadow, true) ||
	    shadow.eop_size > AMDGPU_COMPUTE_EOP_SIZE || !shadow.eop_alignment ||
	    AMDGPU_COMPUTE_EOP_SIZE % shadow.eop_alignment)
		return false;
	/* The range and the EOP window pass amdgpu's own VA rules. */
	return va_start < va_end &&
	       !amdgpu_gem_va_check(adev, &va, va_end - va_start +
				    AMDGPU_COMPUTE_EOP_WINDOW) &&
	       va == va_start;
}

static void amdgpu_compute_userq_info(struct amdgpu_device *adev,
				      struct drm_compute_dev_info *info)
{
	info->placements = DRM_COMPUTE_PLACEMENT_SYSTEM;
	if (adev->gmc.real_vram_size)
		info->placements |= DRM_COMPUTE_PLACEMENT_VRAM;
	info->page_size = max_t(u32, PAGE_SIZE, AMDGPU_GPU_PAGE_SIZE);
	info->max_vms = 1;
	info->max_queues = AMDGPU_COMPUTE_MAX_QUEUES;
	info->num_priorities = AMDGPU_COMPUTE_NUM_PRIORITIES;
	info->priority_default = AMDGPU_COMPUTE_PRIORITY_DEFAULT;
	info->priority_privileged = AMDGPU_COMPUTE_PRIORITY_PRIVILEGED;
	info->num_cus = adev->gfx.cu_info.number;
	info->queue_formats = BIT(DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4);
	info->doorbell_size = PAGE_SIZE;
	/*
	 * The queue's RELEASE_MEM packets write its fence slot; the glue has
	 * no end-of-pipe event of its own to report it with (amdgpu's fence
	 * driver keys interrupts by doorbell, for its own seq64 slots), so
	 * the helper reads the slot.
	 */
	info->userq_caps = DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY |
			   DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY;
	/* amdgpu_userq's smallest ring; its queue_size is a u32 of bytes. */
	info->ring_size_min = AMDGPU_GPU_PAGE_SIZE;
	info->ring_size_max = SZ_2G;
	info->ctx_save_size = 0;
	/*
	 * amdgpu_compute_svm.c keeps device memory device-private (one copy,
	 * the CPU's access migrates it back) and maps with the flags'
	 * permissions and MTYPE (amdgpu_compute_svm_page_flags(): UC for
	 * either coherence); it has no hive placement, read-mostly copies or
	 * always-mapped ranges.
	 */
	info->svm_flags = DRM_COMPUTE_SVM_FLAG_HOST_ACCESS | DRM_COMPUTE_SVM_FLAG_COHERENT |
			  DRM_COMPUTE_SVM_FLAG_EXT_COHERENT | DRM_COMPUTE_SVM_FLAG_GPU_RO |
			  DRM_COMPUTE_SVM_FLAG_GPU_EXEC;
	/*
	 * One rule on the device: a compute queue that stands still for
	 * amdgpu's own compute job timeout (amdgpu.lockup_timeout, per device)
	 * is hung, as a job of amdgpu's kernel compute rings would be.
	 */
	info->hang_timeout_ms = amdgpu_compute_hang_timeout_ms(adev->compute_timeout);
	/* Where amdgpu departs from the uapi (DOC above), for userspace to read. */
	info->semantics = DRM_COMPUTE_SEMANTICS_HANDLE_CLOSE_UNMAPS |
			  DRM_COMPUTE_SEMANTICS_SHARED_VA |
			  DRM_COMPUTE_SEMANTICS_VRAM_FULL_ENOMEM |
			  DRM_COMPUTE_SEMANTICS_QUEUE_BUFFER_RULES |
			  DRM_COMPUTE_SEMANTICS_NO_FAULT_REPORT;
}

/**
 * amdgpu_compute_device_init - describe the device to the DRM compute helpers
 * @adev: the device, initialized (amdgpu_device_init())
 *
 * Registers the user-queue operations where amdgpu has MES compute user
 * queues, and no operation elsewhere; the helper derives the feature bits
 * from that. Called before the DRM device is registered; cannot fail (a
 * description the helper rejects falls back to the query alone).
 */
void amdgpu_compute_device_init(struct amdgpu_device *adev)
{
	struct drm_device *drm = adev_to_drm(adev);
	u64 vm_size = adev->vm_manager.max_pfn * AMDGPU_GPU_PAGE_SIZE -
		      AMDGPU_VA_RESERVED_TOP;
	struct drm_compute_dev_info info = {
		.vram_size = adev->gmc.real_vram_size,
		.vram_bar_size = amdgpu_compute_vram_bar_size(adev->gmc.visible_vram_size,
							      adev->gmc.real_vram_size,
							      adev->flags & AMD_IS_APU),
		.va_start = AMDGPU_VA_RESERVED_BOTTOM,
		.va_end = amdgpu_compute_va_end(AMDGPU_GMC_HOLE_START, vm_size),
	};

	BUILD_BUG_ON(AMDGPU_COMPUTE_MAX_QUEUES * AMDGPU_COMPUTE_EOP_SIZE >
		     AMDGPU_COMPUTE_EOP_WINDOW);
	BUILD_BUG_ON(AMDGPU_COMPUTE_MAX_QUEUES * AMDGPU_COMPUTE_DOORBELL_SIZE >
		     PAGE_SIZE);
	BUILD_BUG_ON(AMDGPU_COMPUTE_NUM_PRIORITIES - 1 !=
		     AMDGPU_GFX_QUEUE_PRIORITY_MAXIMUM);

	if (amdgpu_compute_userq_supported(adev, info.va_start, info.va_end)) {
		const struct drm_compute_ops *ops = &amdgpu_compute_ops;

#if IS_ENABLED(CONFIG_DRM_COMPUTE_SVM)
		if (amdgpu_compute_svm_supported(adev))
			ops = &amdgpu_compute_svm_ops;
#endif
		amdgpu_compute_userq_info(adev, &info);
		if (!drm_compute_device_init(&adev->compute, drm, &info, ops)) {
			if (adev->compute.features & DRM_COMPUTE_FEATURE_SVM)
				amdgpu_compute_pagemap_init(adev);
			return;
		}
	}
	info = (struct drm_compute_dev_info) {
		.vram_size = info.vram_size,
		.vram_bar_size = info.vram_bar_size,
	};
	if (drm_compute_device_init(&adev->compute, drm, &info,
				    &amdgpu_compute_no_ops))
		drm_err(drm, "compute: no DRM compute state\n");
}

/**
 * amdgpu_compute_device_unplug - the device is going away
 * @adev: the device, after drm_dev_unplug() and before its hardware stops
 *
 * Stops every compute queue (through amdgpu_userq's destroy path, while
 * MES still answers) and marks it LOST for the files that stay open, then
 * brings SVM data in VRAM back to system memory while SDMA still runs.
 */
void amdgpu_compute_device_unplug(struct amdgpu_device *adev)
{
	if (adev->compute.drm)
		drm_compute_device_unplug(&adev->compute);
	amdgpu_compute_pagemap_unplug(adev);
}

/**
 * amdgpu_compute_device_reset - the device was reset
 * @adev: the device, running again after a GPU reset
 *
 * Called from GPU recovery, after amdgpu_userq_post_reset(): a compute
 * queue has no context save area on amdgpu (no CWSR for render-node
 * queues), so every active one lost its waves, whether or not VRAM
 * survived; each is marked HUNG for its owner at once, and touched by no
 * MES call here (drm_compute_device_reset()): the helper stops it (the MES
 * unmap) from its reset work once recovery is over. amdgpu remaps its user
 * queues when VRAM survived, so until then such a queue may run again, in
 * its own VM, for an owner already told it is HUNG.
 */
void amdgpu_compute_device_reset(struct amdgpu_device *adev)
{
	unsigned int n;

	if (!adev->compute.drm)
		return;
	n = drm_compute_device_reset(&adev->compute);
	if (n)
		drm_info(adev_to_drm(adev), "compute: %u queues reset\n", n);
}

/**
 * amdgpu_compute_device_fini - tear down the compute state of the device
 * @adev: the device, whose last file is closed
 */
void amdgpu_compute_device_fini(struct amdgpu_device *adev)
{
	if (!adev->compute.drm)
		return;
	drm_compute_device_fini(&adev->compute);
	adev->compute.drm = NULL;
}

/**
 * amdgpu_compute_file_init - set up the compute state of a new file
 * @adev: the device
 * @fpriv: the file's amdgpu state, its VM and queue manager initialized
 * @file: the DRM file
 */
void amdgpu_compute_file_init(struct amdgpu_device *adev,
			      struct amdgpu_fpriv *fpriv,
			      struct drm_file *file)
{
	struct amdgpu_compute_file *afile = &fpriv->compute;

	drm_compute_file_init(&afile->base, &adev->compute, file);
	ida_init(&afile->slots);
}

/**
 * amdgpu_compute_file_release - stop the compute work of a closing file
 * @fpriv: the file's amdgpu state
 *
 * Called when the file is released, before amdgpu tears down the file's
 * user queues (its compute queues are among them) and VM, while the file's
 * GEM handles are still open. Stops and frees every compute queue and VM of
 * the file (drm_compute_file_release()), then the doorbell page and EOP
 * buffers. What a checkpoint left paused is dealt with at postclose, once
 * the handles are closed (amdgpu_compute_file_fini()). Calling it again
 * does nothing.
 */
void amdgpu_compute_file_release(struct amdgpu_fpriv *fpriv)
{
	struct amdgpu_compute_file *afile = &fpriv->compute;
	struct amdgpu_compute_vm_link *link = afile->link;
	struct drm_file *file = afile->base.file;
	struct amdgpu_device *adev;

	if (!afile->base.cdev)
		return;
	adev = cfile_adev(&afile->base);
	drm_compute_file_release(&afile->base);
	/* A compute VM that outlives the file stops mirroring into its VM. */
	amdgpu_compute_svm_detach(&fpriv->vm);

	if (link) {
		mutex_lock(&link->lock);
		link->vm = NULL;
		mutex_unlock(&link->lock);
		kref_put(&link->ref, amdgpu_compute_link_release);
		afile->link = NULL;
	}
	if (afile->eop)
		amdgpu_compute_eop_free(adev, afile, &fpriv->vm);
	if (afile->doorbell) {
		drm_vma_node_revoke(&afile->doorbell->vma_node, file);
		drm_gem_object_put(afile->doorbell);
		afile->doorbell = NULL;
	}
}

/**
 * amdgpu_compute_file_fini - tear down the compute state of a closed file
 * @fpriv: the file's amdgpu state
 *
 * Called at postclose, after the DRM core closed the file's GEM handles (and
 * alone when the open failed after amdgpu_compute_file_init()): revokes the
 * export buffers a checkpoint paused that no other file holds
 * (drm_compute_file_fini(): revoke-on-close needs the handle counts without
 * this file's), after amdgpu_compute_file_release() if release did not run.
 */
void amdgpu_compute_file_fini(struct amdgpu_fpriv *fpriv)
{
	struct amdgpu_compute_file *afile = &fpriv->compute;

	if (!afile->base.cdev)
		return;
	amdgpu_compute_file_release(fpriv);
	drm_compute_file_fini(&afile->base);
	afile->base.cdev = NULL;
	ida_destroy(&afile->slots);
}
