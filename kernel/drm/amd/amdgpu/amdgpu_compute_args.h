/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 */
#ifndef __AMDGPU_COMPUTE_ARGS_H__
#define __AMDGPU_COMPUTE_ARGS_H__

/*
 * The part of amdgpu's DRM compute glue that needs no device: how the
 * helper's arguments become amdgpu's. Static inline and free of amdgpu.h,
 * so that the KUnit suite (drivers/gpu/drm/tests/amdgpu_compute_test.c)
 * builds into the kernel while amdgpu is a module, and so that a built-in
 * amdgpu and a built-in test never define the same symbol twice.
 */

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/jiffies.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <drm/drm_compute.h>
#include <drm/drm_pagemap.h>
#include <uapi/drm/amdgpu_drm.h>

/* Queue priority levels of the DRM compute uapi (KFD's 0..15). */
#define AMDGPU_COMPUTE_NUM_PRIORITIES		16
/* KFD's and ROCm's normal level (HSA_QUEUE_PRIORITY_NORMAL). */
#define AMDGPU_COMPUTE_PRIORITY_DEFAULT		7
/* From here on amdgpu's HIGH bucket, which needs CAP_SYS_NICE or master. */
#define AMDGPU_COMPUTE_PRIORITY_PRIVILEGED	12

/* Bytes of one queue's EOP buffer (GFX11_MEC_HPD_SIZE, amdgpu_userq's check). */
#define AMDGPU_COMPUTE_EOP_SIZE			2048
/* A doorbell is 64 bits (amdgpu_userq_get_doorbell_index()). */
#define AMDGPU_COMPUTE_DOORBELL_SIZE		8
/*
 * Compute queues one file may have: each has a doorbell in the file's
 * doorbell page and an EOP buffer in the file's EOP window.
 */
#define AMDGPU_COMPUTE_MAX_QUEUES		64
/* GPU VA kept below the end of the low half for the EOP buffers. */
#define AMDGPU_COMPUTE_EOP_WINDOW		SZ_2M

/**
 * amdgpu_compute_va_end - end of the VA range VM_BIND offers
 * @hole_start: AMDGPU_GMC_HOLE_START, where the VA hole begins
 * @vm_size: the VM's size less AMDGPU_VA_RESERVED_TOP, as
 *	amdgpu_gem_va_check() computes it
 *
 * The uapi's range is one interval, so it ends at the VA hole (the upper
 * half is reachable only through sign-extended addresses) or at the
 * reserved top of a smaller VM, less %AMDGPU_COMPUTE_EOP_WINDOW, where
 * the glue maps the files' EOP buffers (amdgpu_compute_eop_va()).
 *
 * Returns: the end (exclusive), which is also the EOP window's base.
 */
static inline u64 amdgpu_compute_va_end(u64 hole_start, u64 vm_size)
{
	return min(hole_start, vm_size) - AMDGPU_COMPUTE_EOP_WINDOW;
}

/**
 * amdgpu_compute_domain - the GEM domain of a uapi placement
 * @placement: %DRM_COMPUTE_PLACEMENT_VRAM or %DRM_COMPUTE_PLACEMENT_SYSTEM
 *
 * Returns: AMDGPU_GEM_DOMAIN_VRAM or AMDGPU_GEM_DOMAIN_GTT (system memory
 * the GPU reaches through the GART).
 */
static inline u32 amdgpu_compute_domain(u64 placement)
{
	return placement == DRM_COMPUTE_PLACEMENT_VRAM ?
	       AMDGPU_GEM_DOMAIN_VRAM : AMDGPU_GEM_DOMAIN_GTT;
}

/**
 * amdgpu_compute_priority_flags - the DRM_AMDGPU_USERQ priority of a level
 * @priority: the DRM compute level, 0 .. %AMDGPU_COMPUTE_NUM_PRIORITIES - 1
 *
 * amdgpu has four levels where KFD has sixteen. The buckets keep KFD's
 * meaning of the numbers (ROCm maps its HSA priorities -3..3 to 0, 3, 5,
 * 7, 9, 11 and 15): below normal is LOW, normal (7, 8) amdgpu's default
 * NORMAL_LOW, above normal NORMAL_HIGH, and from
 * %AMDGPU_COMPUTE_PRIORITY_PRIVILEGED on HIGH, the level that
 * amdgpu_userq_priority_permit() reserves for CAP_SYS_NICE or DRM master.
 *
 * Returns: an AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_* value, already
 * shifted into the flags field.
 */
static inline u32 amdgpu_compute_priority_flags(u32 priority)
{
	u32 level;

	if (priority >= AMDGPU_COMPUTE_PRIORITY_PRIVILEGED)
		level = AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_HIGH;
	else if (priority >= 9)
		level = AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_HIGH;
	else if (priority >= AMDGPU_COMPUTE_PRIORITY_DEFAULT)
		level = AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_NORMAL_LOW;
	else
		level = AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_LOW;
	return (level << AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_SHIFT) &
	       AMDGPU_USERQ_CREATE_FLAGS_QUEUE_PRIORITY_MASK;
}

/**
 * amdgpu_compute_hqd_queue_priority - the MQD's queue priority of a level
 * @priority: the DRM compute level
 *
 * CP_HQD_QUEUE_PRIORITY runs from 0 to 15 (AMDGPU_GFX_QUEUE_PRIORITY_MINIMUM
 * to _MAXIMUM), the same scale as the uapi level, which is also how KFD
 * fills it.
 *
 * Returns: the register value.
 */
static inline u32 amdgpu_compute_hqd_queue_priority(u32 priority)
{
	return min_t(u32, priority, AMDGPU_COMPUTE_NUM_PRIORITIES - 1);
}

/**
 * amdgpu_compute_vm_flags - amdgpu page flags of a VM_BIND map
 * @bind_flags: DRM_COMPUTE_VM_BIND_* bits
 *
 * Every mapping is readable; %DRM_COMPUTE_VM_BIND_READONLY drops
 * AMDGPU_VM_PAGE_WRITEABLE and %DRM_COMPUTE_VM_BIND_NOEXEC drops
 * AMDGPU_VM_PAGE_EXECUTABLE (amdgpu_vm_bo_update() and the GMC's
 * get_vm_pte() turn them into PTE bits).
 *
 * Returns: AMDGPU_VM_PAGE_* flags for amdgpu_vm_bo_map().
 */
static inline u32 amdgpu_compute_vm_flags(u64 bind_flags)
{
	u32 flags = AMDGPU_VM_PAGE_READABLE;

	if (!(bind_flags & DRM_COMPUTE_VM_BIND_READONLY))
		flags |= AMDGPU_VM_PAGE_WRITEABLE;
	if (!(bind_flags & DRM_COMPUTE_VM_BIND_NOEXEC))
		flags |= AMDGPU_VM_PAGE_EXECUTABLE;
	return flags;
}

/**
 * amdgpu_compute_bind_flags - VM_BIND flags of an amdgpu mapping
 * @vm_flags: AMDGPU_VM_PAGE_* flags of the mapping, as
 *	      amdgpu_compute_vm_flags() made them
 *
 * The inverse of amdgpu_compute_vm_flags(), for a checkpoint.
 *
 * Returns: DRM_COMPUTE_VM_BIND_* bits.
 */
static inline u64 amdgpu_compute_bind_flags(u64 vm_flags)
{
	u64 flags = 0;

	if (!(vm_flags & AMDGPU_VM_PAGE_WRITEABLE))
		flags |= DRM_COMPUTE_VM_BIND_READONLY;
	if (!(vm_flags & AMDGPU_VM_PAGE_EXECUTABLE))
		flags |= DRM_COMPUTE_VM_BIND_NOEXEC;
	return flags;
}

/**
 * amdgpu_compute_criu_bo_flags_ok - whether a restore can make a buffer
 * with these creation flags and domains again
 * @flags: &amdgpu_bo.flags (AMDGPU_GEM_CREATE_*)
 * @domains: &amdgpu_bo.preferred_domains (AMDGPU_GEM_DOMAIN_*)
 *
 * BO_CREATE makes its buffers in VRAM or GTT alone, with
 * %AMDGPU_GEM_CREATE_VRAM_CLEARED, to which amdgpu_gem_object_create()
 * adds %AMDGPU_GEM_CREATE_VRAM_WIPE_ON_RELEASE; amdgpu later adds
 * %AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED on its own (a CPU fault or a
 * pin). A buffer with exactly those is the buffer a restore through
 * BO_CREATE makes, whoever made it; one DRM_AMDGPU_GEM_CREATE made with
 * any other flag (NO_CPU_ACCESS, VM_ALWAYS_VALID, EXPLICIT_SYNC, USWC, ...)
 * or domain (GDS, OA, VRAM and GTT both, ...) would come back without it:
 * a checkpoint must count it as unsaved.
 *
 * Returns: true for the flags and domains of a buffer BO_CREATE makes.
 */
static inline bool amdgpu_compute_criu_bo_flags_ok(u64 flags, u32 domains)
{
	const u64 made = AMDGPU_GEM_CREATE_VRAM_CLEARED |
			 AMDGPU_GEM_CREATE_VRAM_WIPE_ON_RELEASE;

	if (domains != AMDGPU_GEM_DOMAIN_VRAM && domains != AMDGPU_GEM_DOMAIN_GTT)
		return false;
	return (flags & ~(u64)AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED) == made;
}

/**
 * amdgpu_compute_cu_mask_words - the helper's CU bitmap as amdgpu's CU mask
 * @words: room for DIV_ROUND_UP(@num_cus, 32) words
 * @mask: bitmap of @num_cus bits, bit n for CU n
 * @num_cus: compute units
 *
 * amdgpu_gfx_mqd_symmetrically_map_cu_mask() reads bit n of word n / 32
 * for CU n and counts its mask in 32-bit words
 * (&amdgpu_mqd_prop.cu_mask_count), where the helper keeps an unsigned
 * long bitmap of @num_cus bits. A mask that enables every CU is no mask:
 * the MQD then keeps amdgpu's default.
 *
 * Returns: the number of words written, for &amdgpu_mqd_prop.cu_mask_count;
 * 0 (nothing written) when every CU is enabled.
 */
static inline u32 amdgpu_compute_cu_mask_words(u32 *words,
					       const unsigned long *mask,
					       u32 num_cus)
{
	if (bitmap_full(mask, num_cus))
		return 0;
	bitmap_to_arr32(words, mask, num_cus);
	return DIV_ROUND_UP(num_cus, 32);
}

/**
 * amdgpu_compute_eop_va - GPU VA of a queue slot's EOP buffer
 * @eop_base: GPU VA where the file's EOP buffer is mapped
 * @slot: the queue's slot, which is also its doorbell's index
 *
 * Returns: the address of slot @slot's %AMDGPU_COMPUTE_EOP_SIZE bytes.
 */
static inline u64 amdgpu_compute_eop_va(u64 eop_base, u32 slot)
{
	return eop_base + (u64)slot * AMDGPU_COMPUTE_EOP_SIZE;
}

/**
 * amdgpu_compute_userq_in - DRM_AMDGPU_USERQ arguments of a compute queue
 * @in: filled: what amdgpu_userq_create_queue() reads
 * @mqd: filled: the compute MQD fields of the queue
 * @args: the helper's validated creation arguments
 * @slot: the queue's doorbell index in the file's doorbell page
 * @eop_va: GPU VA of the queue's EOP buffer
 *
 * The DRM compute uapi has no EOP buffer and no doorbell object of its
 * own; amdgpu's glue provides both per queue slot. The doorbell handle
 * stays 0: the queue gets its doorbell object directly.
 */
static inline void
amdgpu_compute_userq_in(struct drm_amdgpu_userq_in *in,
			struct drm_amdgpu_userq_mqd_compute_gfx11 *mqd,
			const struct drm_compute_userq_args *args, u32 slot,
			u64 eop_va)
{
	*mqd = (struct drm_amdgpu_userq_mqd_compute_gfx11) {
		.eop_va = eop_va,
	};
	*in = (struct drm_amdgpu_userq_in) {
		.op = AMDGPU_USERQ_OP_CREATE,
		.ip_type = AMDGPU_HW_IP_COMPUTE,
		.doorbell_offset = slot,
		.flags = amdgpu_compute_priority_flags(args->priority),
		.queue_va = args->ring_va,
		.queue_size = args->ring_size,
		.rptr_va = args->rptr_va,
		.wptr_va = args->wptr_va,
		.mqd_size = sizeof(*mqd),
	};
}

/**
 * amdgpu_compute_rptr - a queue's read pointer in the units of its write pointer
 * @wptr: the write pointer userspace stored, in dwords, counting up from 0
 * @rptr: what the CP reported at rptr_va: the ring offset in dwords (32 bits
 *	on GC 11 and 12, see gfx_v11_0_ring_get_rptr_compute())
 * @ring_size: the ring's size in bytes, a power of two
 *
 * The CP reports where it reads in the ring, the write pointer counts
 * without wrapping, and the helper compares the two. The read pointer is
 * the last position at or before @wptr with @rptr's ring offset (the write
 * pointer never runs a ring or more ahead), so the two are equal exactly
 * when the queue has consumed everything.
 *
 * Returns: the read pointer, in dwords, never above @wptr.
 */
static inline u64 amdgpu_compute_rptr(u64 wptr, u32 rptr, u64 ring_size)
{
	u64 mask = ring_size / 4 - 1;

	return wptr - ((wptr - rptr) & mask);
}

/**
 * struct amdgpu_compute_ring_regs - the ring registers of a compute MQD
 * (&struct v11_compute_mqd, and GC 12's at the same dword offsets)
 * @pq_rptr: CP_HQD_PQ_RPTR: the ring offset the CP reads next, in dwords
 * @pq_wptr_lo: CP_HQD_PQ_WPTR_LO: the write pointer's low 32 bits, in dwords
 * @pq_wptr_hi: CP_HQD_PQ_WPTR_HI: its high 32 bits
 */
struct amdgpu_compute_ring_regs {
	u32 pq_rptr;
	u32 pq_wptr_lo;
	u32 pq_wptr_hi;
};

/**
 * amdgpu_compute_ring_regs - where a restored queue's MQD puts its ring
 * @rptr: the checkpointed read pointer, in dwords, as amdgpu_compute_rptr()
 *	  gave it
 * @wptr: the checkpointed write pointer, in dwords
 * @ring_size: the ring's size in bytes, a power of two
 * @regs: set to the registers that make the CP read on from @rptr
 *
 * The inverse of amdgpu_compute_rptr(): the CP reports @regs->pq_rptr
 * back, and amdgpu_compute_rptr(@wptr, that, @ring_size) is @rptr again.
 *
 * Returns: 0, or -EINVAL for @rptr past @wptr or a ring or more behind it
 * (no checkpoint of this queue can say so: the image is damaged).
 */
static inline int amdgpu_compute_ring_regs(u64 rptr, u64 wptr, u64 ring_size,
					   struct amdgpu_compute_ring_regs *regs)
{
	u64 mask = ring_size / 4 - 1;

	if (rptr > wptr || wptr - rptr > mask)
		return -EINVAL;
	regs->pq_rptr = rptr & mask;
	regs->pq_wptr_lo = lower_32_bits(wptr);
	regs->pq_wptr_hi = upper_32_bits(wptr);
	return 0;
}

/**
 * amdgpu_compute_hang_timeout_ms - the compute job timeout as the helper's
 * hang timeout
 * @timeout: amdgpu's compute timeout (&amdgpu_device.compute_timeout), in
 *	jiffies; MAX_SCHEDULE_TIMEOUT where amdgpu waits forever
 *
 * Returns: milliseconds, at least 1 (0 would ask for the helper's
 * default); U32_MAX, about 49 days, for "forever".
 */
static inline u32 amdgpu_compute_hang_timeout_ms(long timeout)
{
	if (timeout == MAX_SCHEDULE_TIMEOUT)
		return U32_MAX;
	return max(jiffies_to_msecs(timeout), 1u);
}

/**
 * struct amdgpu_compute_span_cut - what an UNMAP does to one mapping the
 * compute VM made
 * @clear_start: start of the part to clear in the file's VM
 * @clear_end: its end (exclusive); equal to @clear_start when the UNMAP
 *	misses the mapping
 * @keep_start: starts of the parts the compute VM still maps
 * @keep_end: their ends (exclusive)
 * @keep: entries of @keep_start and @keep_end: 0 (all cleared), 1, or 2
 *	(the UNMAP cut a hole in the middle)
 */
struct amdgpu_compute_span_cut {
	u64 clear_start;
	u64 clear_end;
	u64 keep_start[2];
	u64 keep_end[2];
	unsigned int keep;
};

/**
 * amdgpu_compute_span_cut - cut an UNMAP out of one compute mapping
 * @start: the mapping's start
 * @end: its end (exclusive)
 * @va: the UNMAP's start
 * @va_end: its end (exclusive)
 * @c: the answer
 *
 * The compute VM shares the file's amdgpu VM with DRM_AMDGPU_GEM_VA, so
 * the glue clears only what compute VM_BINDs mapped, one recorded span at a
 * time: the part of [@start, @end) inside [@va, @va_end), keeping the
 * rest.
 */
static inline void amdgpu_compute_span_cut(u64 start, u64 end, u64 va, u64 va_end,
					   struct amdgpu_compute_span_cut *c)
{
	c->clear_start = max(start, va);
	c->clear_end = min(end, va_end);
	c->keep = 0;
	if (c->clear_start >= c->clear_end) {
		c->clear_start = 0;
		c->clear_end = 0;
		c->keep_start[0] = start;
		c->keep_end[0] = end;
		c->keep = 1;
		return;
	}
	if (start < c->clear_start) {
		c->keep_start[c->keep] = start;
		c->keep_end[c->keep++] = c->clear_start;
	}
	if (c->clear_end < end) {
		c->keep_start[c->keep] = c->clear_end;
		c->keep_end[c->keep++] = end;
	}
}

/**
 * amdgpu_compute_svm_page_flags - amdgpu page flags of SVM memory
 * @map_flags: DRM_COMPUTE_SVM_MAP_* of the helper's plan
 *	(drm_compute_svm_fault_decide())
 *
 * KFD's rules for system memory (svm_range_get_pte_flags()), as the plan
 * states them: always readable; writable with %DRM_COMPUTE_SVM_MAP_WRITE;
 * executable with %DRM_COMPUTE_SVM_MAP_EXEC; uncached (UC) with
 * %DRM_COMPUTE_SVM_MAP_COHERENT, else non-coherent (NC) and snooped. A
 * read-only copy (%DRM_COMPUTE_SVM_MAP_COPY) is a read-only mapping, whose
 * write fault the helper answers with a writable one.
 *
 * Returns: AMDGPU_VM_PAGE_* and AMDGPU_VM_MTYPE_* flags for the GMC's
 * get_vm_pte().
 */
static inline u32 amdgpu_compute_svm_page_flags(u32 map_flags)
{
	u32 flags = AMDGPU_VM_PAGE_READABLE;

	if (map_flags & DRM_COMPUTE_SVM_MAP_WRITE)
		flags |= AMDGPU_VM_PAGE_WRITEABLE;
	if (map_flags & DRM_COMPUTE_SVM_MAP_EXEC)
		flags |= AMDGPU_VM_PAGE_EXECUTABLE;
	if (map_flags & DRM_COMPUTE_SVM_MAP_COHERENT)
		flags |= AMDGPU_VM_MTYPE_UC;
	else
		flags |= AMDGPU_VM_MTYPE_NC;
	return flags;
}

/* drm_pagemap_addr protocol of amdgpu's own VRAM (device_map() of the pagemap). */
#define AMDGPU_INTERCONNECT_VRAM	DRM_INTERCONNECT_DRIVER

/**
 * struct amdgpu_compute_svm_run - pages of a range written by one PTE update
 * @first: index of the first page in the range
 * @npages: pages in the run
 * @vram: the run is in this device's VRAM, physically contiguous
 * @vram_offset: with @vram, VRAM byte offset of the first page
 */
struct amdgpu_compute_svm_run {
	unsigned long first;
	unsigned long npages;
	bool vram;
	u64 vram_offset;
};

/**
 * amdgpu_compute_svm_next_run - the next run of a range's device addresses
 * @src: &drm_gpusvm_pages.dma_addr: packed, one entry per mapping of
 *	2^order pages
 * @npages: pages in the range
 * @pos: cursor: index in @src of the next entry, 0 to start
 * @page: cursor: page index of that entry, 0 to start
 * @run: set to the run found
 * @dma: room for @npages addresses indexed by page: filled for the pages
 *	of a system-memory run (what amdgpu_vm_update_range() reads through
 *	its pages_addr argument)
 *
 * A run is either system memory (any DMA addresses) or VRAM that is
 * contiguous, so that one amdgpu_vm_update_range() maps it: with
 * pages_addr for the former, with an offset and vram_base_offset for the
 * latter (which keeps fragments and huge pages).
 *
 * Returns: 1 with @run set, 0 at the end, -EINVAL for an entry of another
 * protocol or whose order runs past @npages.
 */
static inline int amdgpu_compute_svm_next_run(const struct drm_pagemap_addr *src,
					      unsigned long npages,
					      unsigned long *pos, unsigned long *page,
					      struct amdgpu_compute_svm_run *run,
					      dma_addr_t *dma)
{
	unsigned long j = *pos, i = *page, n, k;

	if (i >= npages)
		return 0;

	run->first = i;
	run->npages = 0;
	run->vram = src[j].proto == AMDGPU_INTERCONNECT_VRAM;
	run->vram_offset = run->vram ? src[j].addr : 0;

	while (i < npages) {
		const struct drm_pagemap_addr *a = &src[j];
		bool vram = a->proto == AMDGPU_INTERCONNECT_VRAM;

		if (!vram && a->proto != DRM_INTERCONNECT_SYSTEM)
			return -EINVAL;
		/* The next run starts here; its own call checks the entry. */
		if (vram != run->vram ||
		    (vram && a->addr != run->vram_offset + ((u64)run->npages << PAGE_SHIFT)))
			break;
		n = 1UL << a->order;
		if (n > npages - i)
			return -EINVAL;
		if (!vram) {
			for (k = 0; k < n; k++)
				dma[i + k] = a->addr + ((dma_addr_t)k << PAGE_SHIFT);
		}
		run->npages += n;
		i += n;
		j++;
	}
	*pos = j;
	*page = i;
	return 1;
}

/**
 * struct amdgpu_compute_copy_batch - one SDMA copy of a migration
 * @first: index of its first page in the copy callback's arrays
 * @npages: pages (all of them contiguous in VRAM)
 * @vram_offset: VRAM byte offset of the first page
 */
struct amdgpu_compute_copy_batch {
	unsigned long first;
	unsigned long npages;
	u64 vram_offset;
};

/**
 * struct amdgpu_compute_copy_iter - cursor of amdgpu_compute_copy_next()
 * @i: index of the entry being batched
 * @k: pages of entry @i already batched
 *
 * Zero it to start.
 */
struct amdgpu_compute_copy_iter {
	unsigned long i;
	unsigned long k;
};

/**
 * amdgpu_compute_copy_next - the next SDMA copy of a drm_pagemap copy callback
 * @addr: the callback's system addresses, indexed by page: an entry of
 *	order k covers 2^k pages and the entries it covers are not filled
 *	in; an entry without address has nothing to copy
 * @npages: entries in @addr
 * @vram_offset: VRAM byte offset of the device page at index i (that of
 *	the callback's pages[i]), U64_MAX where there is none
 * @arg: for @vram_offset
 * @max_pages: most pages per copy (one GART window), at least 1
 * @it: the cursor
 * @b: set to the copy found
 * @dma: room for @max_pages addresses: the system address of each page of
 *	@b, to map through the GART window
 *
 * Copies are contiguous in VRAM and at most @max_pages long; an entry
 * larger than the window is split. The VRAM of the pages an entry of
 * order k covers is that of its head page onwards (a device folio).
 *
 * Returns: true with @b set, false when nothing is left.
 */
static inline bool
amdgpu_compute_copy_next(const struct drm_pagemap_addr *addr, unsigned long npages,
			 u64 (*vram_offset)(const void *arg, unsigned long i),
			 const void *arg, unsigned long max_pages,
			 struct amdgpu_compute_copy_iter *it,
			 struct amdgpu_compute_copy_batch *b, dma_addr_t *dma)
{
	unsigned long i = it->i, k = it->k;
	u64 base;

	/* Entries with nothing to copy, whole. */
	while (!k && i < npages &&
	       (!addr[i].addr || vram_offset(arg, i) == U64_MAX))
		i += min(1UL << addr[i].order, npages - i);
	if (i >= npages) {
		it->i = npages;
		it->k = 0;
		return false;
	}

	base = vram_offset(arg, i) + ((u64)k << PAGE_SHIFT);
	b->first = i + k;
	b->npages = 0;
	b->vram_offset = base;
	while (i < npages && b->npages < max_pages) {
		unsigned long n = min(1UL << addr[i].order, npages - i);
		u64 off;

		if (!addr[i].addr)
			break;
		off = vram_offset(arg, i);
		if (off == U64_MAX ||
		    off + ((u64)k << PAGE_SHIFT) != base + ((u64)b->npages << PAGE_SHIFT))
			break;
		while (k < n && b->npages < max_pages) {
			dma[b->npages++] = addr[i].addr + ((dma_addr_t)k << PAGE_SHIFT);
			k++;
		}
		if (k < n)
			break;	/* the window is full in the middle of the entry */
		i += n;
		k = 0;
	}
	it->i = i;
	it->k = k;
	return true;
}

#endif /* __AMDGPU_COMPUTE_ARGS_H__ */
