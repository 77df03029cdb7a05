// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/dma-resv.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include <drm/drm_compute.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>

#include "drm_compute_internal.h"

/**
 * DOC: GPU VMs
 *
 * A file has any number of GPU virtual address spaces, up to
 * &drm_compute_dev_info.max_vms, each named by an id the helper allocates.
 * The helper owns the ids, the references and every rule of
 * &struct drm_compute_vm_bind (drm_compute_bind_check()); the driver owns
 * the address space itself through &drm_compute_ops.vm_bind.
 *
 * A VM is not destroyed under a running queue: VM_DESTROY fails with
 * -EBUSY while a queue of the file runs on it, and a queue holds a
 * reference to its VM for its whole life.
 *
 * A VM created with %DRM_COMPUTE_VM_CREATE_SVM also mirrors its creator's
 * address space; the helper sets up and tears down its SVM part
 * (&drm_compute_vm.svm, drm_compute_svm.c) around the driver's
 * &drm_compute_ops.svm_vm_init and &drm_compute_ops.svm_vm_fini.
 *
 * Drivers whose GPU VM is a &struct drm_gpuvm (vcompute) implement
 * &drm_compute_ops.vm_bind with drm_compute_gpuvm_bind(), which is the
 * synchronous bind of pvr and msm: the VM's and the buffers' reservations
 * locked with drm_exec, the split/merge steps computed by drm_gpuvm, every
 * allocation made before the first page-table entry changes, and the
 * driver's &struct drm_compute_gpuvm_pt_ops writing the entries. A MAP
 * into a range that is not empty fails with -EINVAL, so a bind never
 * replaces a mapping behind a queue's back; an UNMAP splits the mappings
 * that straddle its ends.
 *
 * Locking: the VM's &drm_gpuvm.r_obj reservation protects the drm_gpuvm
 * tree (%DRM_GPUVM_RESV_PROTECTED); each buffer's reservation protects its
 * gpuva list. Queues never take these locks; they see mappings only
 * through the driver's page tables, which &drm_compute_gpuvm_pt_ops.unmap
 * must update so that no queue reaches an unmapped page once it returns.
 */

/**
 * drm_compute_vm_lookup - find a VM of a file by id
 * @cfile: the file
 * @id: the VM id
 *
 * Returns: the VM with a reference the caller puts, or NULL.
 */
struct drm_compute_vm *drm_compute_vm_lookup(struct drm_compute_file *cfile,
					     u32 id)
{
	struct drm_compute_vm *vm;

	rcu_read_lock();
	vm = xa_load(&cfile->vms, id);
	if (vm && !kref_get_unless_zero(&vm->ref))
		vm = NULL;
	rcu_read_unlock();
	return vm;
}

static void vm_release(struct kref *ref)
{
	struct drm_compute_vm *vm = container_of(ref, struct drm_compute_vm, ref);

	if (vm->flags & DRM_COMPUTE_VM_CREATE_SVM)
		drm_compute_svm_vm_fini(vm);
	vm->cdev->ops->vm_free(vm);
}

/**
 * drm_compute_vm_put - drop a reference to a VM
 * @vm: the VM
 *
 * The last reference frees the VM through &drm_compute_ops.vm_free.
 */
void drm_compute_vm_put(struct drm_compute_vm *vm)
{
	kref_put(&vm->ref, vm_release);
}
EXPORT_SYMBOL(drm_compute_vm_put);

/*
 * Create a VM with @flags (validated) at id *@id, or at a new id when *@id
 * is 0, which is then set.
 */
static int vm_create(struct drm_compute_file *cfile, u32 flags, u32 *id)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_vm *vm;
	int ret;

	mutex_lock(&cfile->lock);
	if (drm_compute_xa_count(&cfile->vms) >= cdev->info.max_vms) {
		ret = -ENOSPC;
		goto out;
	}
	vm = cdev->ops->vm_create(cfile);
	if (IS_ERR(vm)) {
		ret = PTR_ERR(vm);
		goto out;
	}
	vm->cdev = cdev;
	vm->cfile = cfile;
	vm->num_queues = 0;
	vm->flags = 0;
	kref_init(&vm->ref);
	if (flags & DRM_COMPUTE_VM_CREATE_SVM) {
		/* Sets vm->flags only once it succeeded. */
		ret = drm_compute_svm_vm_init(vm);
		if (ret) {
			drm_compute_vm_put(vm);
			goto out;
		}
	}
	if (*id) {
		vm->id = *id;
		ret = xa_insert(&cfile->vms, *id, vm, GFP_KERNEL);
		if (ret == -EBUSY)
			ret = -EEXIST;
	} else {
		ret = xa_alloc(&cfile->vms, &vm->id, vm, XA_LIMIT(1, U32_MAX),
			       GFP_KERNEL);
	}
	if (ret) {
		drm_compute_vm_put(vm);
		goto out;
	}
	*id = vm->id;
out:
	mutex_unlock(&cfile->lock);
	return ret;
}

/**
 * drm_compute_vm_create_ioctl - %DRM_COMPUTE_OP_VM_CREATE
 * @cfile: the file's compute state
 * @data: &struct drm_compute_vm_create
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_vm_create
 * documents.
 */
int drm_compute_vm_create_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_vm_create *args = data;

	if (!(cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if ((args->flags & ~DRM_COMPUTE_VM_CREATE_FLAGS_KNOWN) || args->vm_id)
		return -EINVAL;
	if ((args->flags & DRM_COMPUTE_VM_CREATE_SVM) &&
	    !(cdev->features & DRM_COMPUTE_FEATURE_SVM))
		return -EOPNOTSUPP;

	return vm_create(cfile, args->flags, &args->vm_id);
}
EXPORT_SYMBOL(drm_compute_vm_create_ioctl);

/**
 * drm_compute_vm_destroy_ioctl - %DRM_COMPUTE_OP_VM_DESTROY
 * @cfile: the file's compute state
 * @data: &struct drm_compute_vm_destroy
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_vm_destroy
 * documents.
 */
int drm_compute_vm_destroy_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_vm_destroy *args = data;
	struct drm_compute_vm *vm;
	int ret = 0;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	if (args->pad)
		return -EINVAL;

	mutex_lock(&cfile->lock);
	vm = xa_load(&cfile->vms, args->vm_id);
	if (!vm)
		ret = -ENOENT;
	else if (vm->num_queues)
		ret = -EBUSY;
	else
		xa_erase(&cfile->vms, args->vm_id);
	mutex_unlock(&cfile->lock);
	if (!ret)
		drm_compute_vm_put(vm);
	return ret;
}
EXPORT_SYMBOL(drm_compute_vm_destroy_ioctl);

/**
 * drm_compute_bind_check - check a VM_BIND argument against the uapi rules
 * @info: the device
 * @args: the argument
 * @bo_size: size of the buffer @args maps (MAP), or U64_MAX to check
 *	everything but the buffer's bounds
 *
 * Returns: 0 when every rule of &struct drm_compute_vm_bind holds,
 * -EINVAL otherwise.
 */
int drm_compute_bind_check(const struct drm_compute_dev_info *info,
			   const struct drm_compute_vm_bind *args,
			   u64 bo_size)
{
	u64 end, bo_end;

	if (args->pad)
		return -EINVAL;
	switch (args->op) {
	case DRM_COMPUTE_VM_BIND_OP_MAP:
		if (args->flags & ~DRM_COMPUTE_VM_BIND_FLAGS_KNOWN)
			return -EINVAL;
		if (check_add_overflow(args->bo_offset, args->range, &bo_end) ||
		    bo_end > bo_size)
			return -EINVAL;
		break;
	case DRM_COMPUTE_VM_BIND_OP_UNMAP:
		if (args->flags || args->handle || args->bo_offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (!args->range ||
	    !IS_ALIGNED(args->va | args->range | args->bo_offset, info->page_size))
		return -EINVAL;
	if (check_add_overflow(args->va, args->range, &end))
		return -EINVAL;
	if (args->va < info->va_start || end > info->va_end)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_bind_check);

static bool bo_bindable(struct drm_compute_device *cdev,
			struct drm_gem_object *obj)
{
	if (cdev->ops->bo_bindable)
		return cdev->ops->bo_bindable(obj);
	return obj->dev == cdev->drm && !drm_gem_is_imported(obj);
}

/**
 * drm_compute_vm_bind_ioctl - %DRM_COMPUTE_OP_VM_BIND
 * @cfile: the file's compute state
 * @data: &struct drm_compute_vm_bind
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_vm_bind
 * documents.
 */
int drm_compute_vm_bind_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_vm_bind *args = data;
	struct drm_compute_bind bind = {
		.op = args->op,
		.flags = args->flags,
		.bo_offset = args->bo_offset,
		.va = args->va,
		.range = args->range,
	};
	struct drm_compute_vm *vm;
	int ret;

	if (!(cdev->features & DRM_COMPUTE_FEATURE_USERQ))
		return -EOPNOTSUPP;
	/* Every rule but the buffer's bounds, before any lookup. */
	ret = drm_compute_bind_check(&cdev->info, args, U64_MAX);
	if (ret)
		return ret;

	vm = drm_compute_vm_lookup(cfile, args->vm_id);
	if (!vm)
		return -ENOENT;
	if (args->op == DRM_COMPUTE_VM_BIND_OP_MAP) {
		bind.obj = drm_gem_object_lookup(cfile->file, args->handle);
		if (!bind.obj) {
			ret = -ENOENT;
			goto out;
		}
		if (!bo_bindable(cdev, bind.obj)) {
			ret = -EOPNOTSUPP;
			goto out;
		}
		ret = drm_compute_bind_check(&cdev->info, args, bind.obj->size);
		if (ret)
			goto out;
	}
	ret = cdev->ops->vm_bind(vm, &bind);
out:
	if (bind.obj)
		drm_gem_object_put(bind.obj);
	drm_compute_vm_put(vm);
	return ret;
}
EXPORT_SYMBOL(drm_compute_vm_bind_ioctl);

static const struct drm_compute_gpuvm_pt_ops *pt_ops(struct drm_gpuvm *gpuvm)
{
	return &container_of(gpuvm->ops, struct drm_compute_gpuvm_funcs, gpuvm)->pt;
}

/*
 * A mapping's DRM_COMPUTE_VM_BIND_* flags live in its gpuva's user bits,
 * for a checkpoint to read back (drm_compute_gpuvm_criu_mappings()).
 */
#define GPUVA_BIND_SHIFT	ilog2(DRM_GPUVA_USERBITS)

static enum drm_gpuva_flags gpuva_flags(u64 bind_flags)
{
	return (enum drm_gpuva_flags)(bind_flags << GPUVA_BIND_SHIFT);
}

static u64 gpuva_bind_flags(const struct drm_gpuva *va)
{
	return ((u64)va->flags >> GPUVA_BIND_SHIFT) & DRM_COMPUTE_VM_BIND_FLAGS_KNOWN;
}

static int gpuvm_map(struct drm_gpuvm *gpuvm, const struct drm_compute_bind *bind)
{
	const struct drm_compute_gpuvm_pt_ops *pt = pt_ops(gpuvm);
	struct drm_gpuva_op_map op = {
		.va.addr = bind->va,
		.va.range = bind->range,
		.gem.obj = bind->obj,
		.gem.offset = bind->bo_offset,
	};
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *va;
	int ret;

	if (!drm_gpuvm_interval_empty(gpuvm, bind->va, bind->range))
		return -EINVAL;

	va = kzalloc_obj(*va);
	if (!va)
		return -ENOMEM;
	vm_bo = drm_gpuvm_bo_obtain_locked(gpuvm, bind->obj);
	if (IS_ERR(vm_bo)) {
		kfree(va);
		return PTR_ERR(vm_bo);
	}
	ret = pt->prepare(gpuvm, bind->va, bind->range);
	if (ret) {
		drm_gpuvm_bo_put(vm_bo);
		kfree(va);
		return ret;
	}

	/* Nothing below fails. */
	pt->map(gpuvm, bind->va, bind->range, bind->obj, bind->bo_offset,
		bind->flags);
	drm_gpuva_map(gpuvm, va, &op);
	va->flags = gpuva_flags(bind->flags);
	drm_gpuva_link(va, vm_bo);
	drm_gpuvm_bo_extobj_add(vm_bo);
	drm_gpuvm_bo_put(vm_bo);
	return 0;
}

static int gpuvm_unmap(struct drm_gpuvm *gpuvm, u64 addr, u64 range)
{
	const struct drm_compute_gpuvm_pt_ops *pt = pt_ops(gpuvm);
	struct drm_gpuva **spare, *old;
	struct drm_gpuva_ops *ops;
	struct drm_gpuva_op *op;
	unsigned int n = 0, used = 0, i;
	int ret = 0;

	ops = drm_gpuvm_sm_unmap_ops_create(gpuvm, addr, range);
	if (IS_ERR(ops))
		return PTR_ERR(ops);

	/* Every split keeps up to two outer parts: allocate them first. */
	drm_gpuva_for_each_op(op, ops)
		if (op->op == DRM_GPUVA_OP_REMAP)
			n += !!op->remap.prev + !!op->remap.next;
	spare = kcalloc(n ?: 1, sizeof(*spare), GFP_KERNEL);
	if (!spare) {
		ret = -ENOMEM;
		goto out_ops;
	}
	for (i = 0; i < n; i++) {
		spare[i] = kzalloc_obj(*spare[i]);
		if (!spare[i]) {
			ret = -ENOMEM;
			goto out_spare;
		}
	}

	/* Nothing below fails. */
	drm_gpuva_for_each_op(op, ops) {
		switch (op->op) {
		case DRM_GPUVA_OP_REMAP: {
			struct drm_gpuva *prev = NULL, *next = NULL;
			u64 start, len;

			old = op->remap.unmap->va;
			drm_gpuva_op_remap_to_unmap_range(&op->remap, &start, &len);
			pt->unmap(gpuvm, start, len);
			if (op->remap.prev)
				prev = spare[used++];
			if (op->remap.next)
				next = spare[used++];
			drm_gpuva_remap(prev, next, &op->remap);
			if (prev) {
				prev->flags = old->flags;
				drm_gpuva_link(prev, old->vm_bo);
			}
			if (next) {
				next->flags = old->flags;
				drm_gpuva_link(next, old->vm_bo);
			}
			drm_gpuva_unlink(old);
			kfree(old);
			break;
		}
		case DRM_GPUVA_OP_UNMAP:
			old = op->unmap.va;
			pt->unmap(gpuvm, old->va.addr, old->va.range);
			drm_gpuva_unlink(old);
			drm_gpuva_unmap(&op->unmap);
			kfree(old);
			break;
		default:
			break;
		}
	}
out_spare:
	for (i = used; i < n; i++)
		kfree(spare[i]);
	kfree(spare);
out_ops:
	drm_gpuva_ops_free(gpuvm, ops);
	return ret;
}

/**
 * drm_compute_gpuvm_bind - &drm_compute_ops.vm_bind for drivers on drm_gpuvm
 * @gpuvm: the driver's VM, initialized with the &drm_gpuvm_ops of a
 *	&struct drm_compute_gpuvm_funcs and %DRM_GPUVM_RESV_PROTECTED
 * @bind: the validated operation
 *
 * Locks the VM's reservation and those of every buffer the operation
 * touches, makes every allocation, then changes the tree and the page
 * tables in steps that cannot fail, so an error leaves the VM unchanged.
 *
 * Returns: 0, -EINVAL for a MAP into a range that is not empty, -ENOMEM,
 * or -EINTR/-ERESTARTSYS while waiting for a lock.
 */
int drm_compute_gpuvm_bind(struct drm_gpuvm *gpuvm,
			   const struct drm_compute_bind *bind)
{
	struct drm_exec exec;
	int ret;

	/* A buffer mapped at several places in the range is locked once. */
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT | DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_gpuvm_prepare_vm(gpuvm, &exec, 0);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			goto out;
		if (bind->op == DRM_COMPUTE_VM_BIND_OP_MAP)
			ret = drm_exec_lock_obj(&exec, bind->obj);
		else
			ret = drm_gpuvm_sm_unmap_exec_lock(gpuvm, &exec, bind->va,
							   bind->range);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			goto out;
	}

	if (bind->op == DRM_COMPUTE_VM_BIND_OP_MAP)
		ret = gpuvm_map(gpuvm, bind);
	else
		ret = gpuvm_unmap(gpuvm, bind->va, bind->range);
out:
	drm_exec_fini(&exec);
	return ret;
}
EXPORT_SYMBOL(drm_compute_gpuvm_bind);

/**
 * drm_compute_gpuvm_unmap_all - remove every mapping of a VM
 * @gpuvm: the VM, as for drm_compute_gpuvm_bind()
 *
 * For the driver's &drm_compute_ops.vm_free: clears the page tables and
 * drops the buffers' references without allocating, so teardown cannot
 * fail.
 */
void drm_compute_gpuvm_unmap_all(struct drm_gpuvm *gpuvm)
{
	const struct drm_compute_gpuvm_pt_ops *pt = pt_ops(gpuvm);
	struct drm_gpuva *va, *next;
	struct drm_exec exec;
	int ret;

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_gpuvm_prepare_vm(gpuvm, &exec, 0);
		drm_exec_retry_on_contention(&exec);
		if (!ret)
			ret = drm_gpuvm_sm_unmap_exec_lock(gpuvm, &exec,
							   gpuvm->mm_start,
							   gpuvm->mm_range);
		drm_exec_retry_on_contention(&exec);
	}
	/* Uninterruptible locking fails only on a bug. */
	drm_WARN_ON(gpuvm->drm, ret);

	drm_gpuvm_for_each_va_safe(va, next, gpuvm) {
		pt->unmap(gpuvm, va->va.addr, va->va.range);
		drm_gpuva_unlink(va);
		drm_gpuva_remove(va);
		kfree(va);
	}
	drm_exec_fini(&exec);
}
EXPORT_SYMBOL(drm_compute_gpuvm_unmap_all);

/**
 * drm_compute_vm_criu_count - the GPU VMs a checkpoint of a file would save
 * @cfile: the file's compute state
 *
 * Returns: the file's VMs.
 */
u32 drm_compute_vm_criu_count(struct drm_compute_file *cfile)
{
	return drm_compute_xa_count(&cfile->vms);
}

/**
 * drm_compute_gpuvm_criu_mappings - &drm_compute_ops.vm_criu_mappings for
 * drivers on drm_gpuvm
 * @gpuvm: the VM, as for drm_compute_gpuvm_bind()
 * @maps: filled with up to @max mappings, each with a reference on its
 *	  buffer
 * @max: entries of @maps
 * @n: set to the mappings the VM has
 *
 * Reads the drm_gpuvm tree under the VM's reservation, so it sees every
 * bind that returned.
 *
 * Returns: 0, or -EINTR while waiting for the reservation.
 */
int drm_compute_gpuvm_criu_mappings(struct drm_gpuvm *gpuvm,
				    struct drm_compute_criu_map *maps, u32 max,
				    u32 *n)
{
	struct drm_gpuva *va;
	u32 i = 0;
	int ret;

	ret = dma_resv_lock_interruptible(drm_gpuvm_resv(gpuvm), NULL);
	if (ret)
		return ret;
	drm_gpuvm_for_each_va(va, gpuvm) {
		if (!va->gem.obj)
			continue;
		if (i < max) {
			drm_gem_object_get(va->gem.obj);
			maps[i] = (struct drm_compute_criu_map) {
				.obj = va->gem.obj,
				.flags = gpuva_bind_flags(va),
				.bo_offset = va->gem.offset,
				.va = va->va.addr,
				.range = va->va.range,
			};
		}
		i++;
	}
	dma_resv_unlock(drm_gpuvm_resv(gpuvm));
	*n = i;
	return 0;
}
EXPORT_SYMBOL(drm_compute_gpuvm_criu_mappings);

/* The handle @obj has in @file, 0 for none. */
static u32 file_handle_of(struct drm_file *file, struct drm_gem_object *obj)
{
	struct drm_gem_object *o;
	int handle;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, o, handle)
		if (o == obj)
			break;
	spin_unlock(&file->table_lock);
	return o ? handle : 0;
}

/*
 * The mappings of @vm as checkpoint entries: *@out (kvfree()d by the
 * caller), *@n of them; *@unnamed counts those whose buffer has no handle
 * in the file, which a restore could not name (their entry has handle 0).
 */
static int vm_mappings(struct drm_compute_vm *vm,
		       struct drm_compute_criu_mapping **out, u32 *n,
		       u32 *unnamed)
{
	const struct drm_compute_ops *ops = vm->cdev->ops;
	struct drm_compute_criu_map *maps = NULL;
	struct drm_compute_criu_mapping *e;
	u32 max = 0, got, i;
	int ret;

	/* Size, then fill; a VM that grew in between is read again. */
	for (;;) {
		ret = ops->vm_criu_mappings(vm, maps, max, &got);
		if (ret || got <= max)
			break;
		for (i = 0; i < max; i++)
			drm_gem_object_put(maps[i].obj);
		kvfree(maps);
		max = got;
		maps = kvcalloc(max, sizeof(*maps), GFP_KERNEL);
		if (!maps)
			return -ENOMEM;
	}
	if (ret) {
		kvfree(maps);
		return ret;
	}
	e = kvcalloc(max(got, 1U), sizeof(*e), GFP_KERNEL);
	for (i = 0; i < got; i++) {
		if (e) {
			e[i] = (struct drm_compute_criu_mapping) {
				.vm_id = vm->id,
				.handle = file_handle_of(vm->cfile->file, maps[i].obj),
				.flags = maps[i].flags,
				.bo_offset = maps[i].bo_offset,
				.va = maps[i].va,
				.range = maps[i].range,
			};
			*unnamed += !e[i].handle;
		}
		drm_gem_object_put(maps[i].obj);
	}
	kvfree(maps);
	if (!e)
		return -ENOMEM;
	*out = e;
	*n = got;
	return 0;
}

/*
 * Each VM of @cfile in id order, referenced, up to @max: how many there
 * were (the file's users are frozen: none comes or goes).
 */
static u32 file_vms(struct drm_compute_file *cfile, struct drm_compute_vm **vms,
		    u32 max)
{
	struct drm_compute_vm *vm;
	unsigned long id;
	u32 n = 0;

	mutex_lock(&cfile->lock);
	xa_for_each(&cfile->vms, id, vm) {
		if (n < max) {
			kref_get(&vm->ref);
			vms[n] = vm;
		}
		n++;
	}
	mutex_unlock(&cfile->lock);
	return n;
}

static void vms_put(struct drm_compute_vm **vms, u32 n)
{
	while (n--)
		drm_compute_vm_put(vms[n]);
	kvfree(vms);
}

static int file_vms_get(struct drm_compute_file *cfile,
			struct drm_compute_vm ***vms, u32 *n)
{
	u32 max = drm_compute_xa_count(&cfile->vms);

	*vms = kvcalloc(max(max, 1U), sizeof(**vms), GFP_KERNEL);
	if (!*vms)
		return -ENOMEM;
	*n = min(file_vms(cfile, *vms, max), max);
	return 0;
}

/**
 * drm_compute_vm_criu_unsaved - the VMs and mappings a checkpoint cannot
 * save
 * @cfile: the file's compute state
 *
 * Mappings of a buffer the file has no handle to. (An SVM VM is saved:
 * its attribute ranges by drm_compute_svm_criu_list(), its memory with
 * the process's.)
 *
 * Context: process; takes &drm_compute_file.lock and each VM's
 * reservation.
 *
 * Returns: their number, every VM without %DRM_COMPUTE_FEATURE_CRIU, or a
 * negative errno.
 */
int drm_compute_vm_criu_unsaved(struct drm_compute_file *cfile)
{
	struct drm_compute_criu_mapping *e;
	struct drm_compute_vm **vms;
	u32 nvm, n, i, unsaved = 0;
	int ret;

	if (!(cfile->cdev->features & DRM_COMPUTE_FEATURE_CRIU))
		return drm_compute_xa_count(&cfile->vms);
	ret = file_vms_get(cfile, &vms, &nvm);
	if (ret)
		return ret;
	for (i = 0; i < nvm; i++) {
		ret = vm_mappings(vms[i], &e, &n, &unsaved);
		if (ret)
			break;
		kvfree(e);
	}
	vms_put(vms, nvm);
	return ret ?: unsaved;
}

/**
 * drm_compute_vm_criu_list - %DRM_COMPUTE_CRIU_CKPT_LIST_VMS and
 * %DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS
 * @cfile: the paused file, which holds nothing unsaved
 * @args: the call: up to @count entries written at @ptr, @count set to the
 *	  number the file has
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0, -EFAULT, -EINTR or -ENOMEM.
 */
int drm_compute_vm_criu_list(struct drm_compute_file *cfile,
			     struct drm_compute_criu_checkpoint *args)
{
	void __user *out = u64_to_user_ptr(args->ptr);
	struct drm_compute_criu_mapping *e;
	struct drm_compute_vm **vms;
	u32 nvm, n, i, total = 0, unnamed = 0, put;
	int ret;

	lockdep_assert_held(&cfile->criu_lock);
	ret = file_vms_get(cfile, &vms, &nvm);
	if (ret)
		return ret;
	for (i = 0; i < nvm && !ret; i++) {
		if (args->op == DRM_COMPUTE_CRIU_CKPT_LIST_VMS) {
			struct drm_compute_criu_vm v = {
				.id = vms[i]->id,
				.flags = vms[i]->flags,
			};

			if (total < args->count &&
			    copy_to_user(out + total * sizeof(v), &v, sizeof(v)))
				ret = -EFAULT;
			total++;
			continue;
		}
		ret = vm_mappings(vms[i], &e, &n, &unnamed);
		if (ret)
			break;
		put = min(n, args->count - min(total, args->count));
		if (copy_to_user(out + total * sizeof(*e), e, put * sizeof(*e)))
			ret = -EFAULT;
		total += n;
		kvfree(e);
	}
	vms_put(vms, nvm);
	if (!ret && unnamed)
		ret = -EOPNOTSUPP;
	if (!ret)
		args->count = total;
	return ret;
}

/*
 * All or nothing: take back the @made first entries of a failed call. An
 * unmap that fails for want of memory leaves its mapping to the file's
 * close, which a tool does after any failed restore.
 */
static void vm_criu_restore_undo(struct drm_compute_file *cfile,
				 struct drm_compute_criu_restore *args, u32 made)
{
	void __user *in = u64_to_user_ptr(args->ptr);
	struct drm_compute_criu_mapping m;
	struct drm_compute_vm_destroy d;
	struct drm_compute_vm_bind bind;
	struct drm_compute_criu_vm v;

	while (made--) {
		if (args->op == DRM_COMPUTE_CRIU_RESTORE_VMS) {
			if (copy_from_user(&v, in + made * sizeof(v), sizeof(v)))
				continue;
			d = (struct drm_compute_vm_destroy) { .vm_id = v.id };
			drm_compute_vm_destroy_ioctl(cfile, &d);
		} else {
			if (copy_from_user(&m, in + made * sizeof(m), sizeof(m)))
				continue;
			bind = (struct drm_compute_vm_bind) {
				.vm_id = m.vm_id,
				.op = DRM_COMPUTE_VM_BIND_OP_UNMAP,
				.va = m.va,
				.range = m.range,
			};
			drm_compute_vm_bind_ioctl(cfile, &bind);
		}
	}
}

/**
 * drm_compute_vm_criu_restore - %DRM_COMPUTE_CRIU_RESTORE_VMS and
 * %DRM_COMPUTE_CRIU_RESTORE_MAPPINGS
 * @cfile: the restoring file
 * @args: the call: @count entries at @ptr; @count set to those made
 *
 * VMs are created at the ids their entries name, mappings with the rules
 * and the driver path of &struct drm_compute_vm_bind. All or nothing: an
 * entry that fails takes back what the call made before it.
 *
 * Context: process; &drm_compute_file.criu_lock held.
 *
 * Returns: 0 or the first entry's error, as &struct
 * drm_compute_criu_restore documents.
 */
int drm_compute_vm_criu_restore(struct drm_compute_file *cfile,
				struct drm_compute_criu_restore *args)
{
	void __user *in = u64_to_user_ptr(args->ptr);
	int ret = 0;
	u32 i;

	lockdep_assert_held(&cfile->criu_lock);
	for (i = 0; i < args->count; i++) {
		if (args->op == DRM_COMPUTE_CRIU_RESTORE_VMS) {
			struct drm_compute_criu_vm v;
			u32 id;

			if (copy_from_user(&v, in + i * sizeof(v), sizeof(v))) {
				ret = -EFAULT;
				break;
			}
			if ((v.flags & DRM_COMPUTE_VM_CREATE_SVM) &&
			    !(cfile->cdev->features & DRM_COMPUTE_FEATURE_SVM)) {
				ret = -EOPNOTSUPP;
				break;
			}
			if (!v.id || v.reserved ||
			    (v.flags & ~DRM_COMPUTE_VM_CREATE_FLAGS_KNOWN)) {
				ret = -EINVAL;
				break;
			}
			id = v.id;
			ret = vm_create(cfile, v.flags, &id);
		} else {
			struct drm_compute_criu_mapping m;
			struct drm_compute_vm_bind bind;

			if (copy_from_user(&m, in + i * sizeof(m), sizeof(m))) {
				ret = -EFAULT;
				break;
			}
			if (m.reserved || !m.handle) {
				ret = -EINVAL;
				break;
			}
			bind = (struct drm_compute_vm_bind) {
				.vm_id = m.vm_id,
				.op = DRM_COMPUTE_VM_BIND_OP_MAP,
				.flags = m.flags,
				.handle = m.handle,
				.bo_offset = m.bo_offset,
				.va = m.va,
				.range = m.range,
			};
			ret = drm_compute_vm_bind_ioctl(cfile, &bind);
		}
		if (ret)
			break;
	}
	if (ret)
		vm_criu_restore_undo(cfile, args, i);
	return ret;
}
