// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/export.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include <drm/drm_compute.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "drm_compute_internal.h"

/**
 * DOC: Export to peer devices: the placement helper
 *
 * A buffer made with a DRM_COMPUTE_BO_EXPORT_* flag carries a
 * &struct drm_compute_p2p_export. The driver's dma-buf operations hand
 * every attach, detach, pin and unpin to this helper, which decides, for
 * each importer, whether it reaches the buffer in device memory directly
 * (peer-to-peer through the exporter's BAR) or in system memory, and keeps
 * the answer with its reason for %DRM_COMPUTE_OP_P2P_REPORT.
 *
 * The decision (drm_compute_p2p_decide()) takes the first of these that
 * rules device memory out, in this order: the buffer is HOST_ONLY; the
 * importer did not attach dynamically with allow_peer2peer; the exporter has
 * no device memory behind a PCI BAR (&drm_compute_dev_info.vram_bar_size);
 * the importer is not a PCI device; pci_p2pdma_distance() finds no path
 * (explained as an ACS redirect when the two share a switch, and as a host
 * bridge without peer-to-peer support otherwise); the path crosses the host
 * bridge while the importer's IOMMU translates; the driver's own
 * conditions (&drm_compute_ops.p2p_check: DMA mask, BAR room, hardware
 * constraints). The PCI core decides the path; the helper only explains
 * its answer. An importer the driver reaches over its own link
 * (&drm_compute_ops.p2p_interconnect: XGMI) skips the BAR, path and IOMMU
 * checks; only the driver's own conditions apply to it.
 *
 * The placement is per buffer. While the buffer is in device memory, a
 * peer-to-peer importer maps it there. An importer that cannot reach it
 * either moves the buffer to system memory (PREFER_P2P), or is refused with
 * -EBUSY (REQUIRE_P2P, or a buffer pinned by someone else), which the report
 * counts with its reason. A move follows dma-buf's rule for exporters: every
 * importer is told first (dma_buf_invalidate_mappings()), the fences of the
 * reservation object are waited for, and only then does
 * &drm_compute_ops.p2p_move_to_host copy the data; importers map system
 * memory from then on. Nothing moves the buffer back.
 *
 * A kernel CPU mapping of the buffer (dma_buf_vmap(), which needs no
 * attachment: a software RDMA device's memory region, for instance) is no
 * importer. It reaches the buffer where it lies, device memory through the
 * BAR included, pins it there, and the report counts it.
 *
 * A device that goes away revokes its buffers (drm_compute_p2p_revoke(),
 * as vfio-pci does with its dma-bufs): every importer is told, the fences
 * are waited for, and no attach, pin or map succeeds afterwards (-ENODEV).
 *
 * Every wait for an importer's fences is bounded by the hang timeout
 * (``hang_timeout_ms`` of drm_compute_helper; a fence that never signals is
 * an importer that hangs) and ends on a signal (p2p_fence_wait()): a pause
 * (an ioctl, inside drm_dev_enter(), which drm_dev_unplug() waits for)
 * fails with -ETIMEDOUT, and a revocation (unplug, a paused file's close)
 * goes on, logged, leaving the memory to the importer until it lets go.
 * Dynamic importers drop their mappings when told; a pinned importer that
 * implements &dma_buf_attach_ops.invalidate_mappings takes it as a
 * permanent revocation (dma_buf_attach_revocable()). A pinned importer
 * without it, and a kernel CPU mapping, cannot be told: they keep the
 * buffer's memory, which stays allocated until they let go, so nothing they
 * hold points at freed pages.
 *
 * A checkpoint pauses the export buffers of the file it saves
 * (drm_compute_p2p_pause()): the importers are told and held off (-EBUSY)
 * until the resume, so that none writes into a buffer while it is saved;
 * a pinned buffer cannot be paused. A file closed while paused (the
 * process was checkpointed and went away) revokes them: the restored
 * process has buffers of its own, and an importer must not write into the
 * old ones.
 *
 * Locking: every field of &struct drm_compute_p2p_export is protected by
 * the buffer's reservation lock. dma-buf attach and detach run without it
 * and the helper takes it; pin, unpin and map run with it held by the
 * dma-buf core. The report is copied out after the lock is dropped.
 */

/*
 * One importer of an export buffer: the exporter's private data of its
 * &dma_buf_attachment (&dma_buf_attachment.priv).
 */
struct drm_compute_p2p_importer {
	/* On &drm_compute_p2p_export.importers. */
	struct list_head link;
	/* The export state whose list this is. */
	struct drm_compute_p2p_export *exp;
	/* The attachment, for the dynamic flag. */
	struct dma_buf_attachment *attach;
	/* What the report shows. */
	char name[32];
	u32 map;
	u32 reason;
	u32 pins;
};

/**
 * drm_compute_p2p_export_init - set up the export state of a new buffer
 * @exp: the state, embedded in the driver's buffer
 * @flags: the DRM_COMPUTE_BO_EXPORT_* flag
 * @placement: where the buffer was created (VRAM, or SYSTEM for HOST_ONLY)
 */
void drm_compute_p2p_export_init(struct drm_compute_p2p_export *exp,
				 u32 flags, u64 placement)
{
	memset(exp, 0, sizeof(*exp));
	exp->flags = flags;
	exp->placement = placement;
	if (flags & DRM_COMPUTE_BO_EXPORT_HOST_ONLY)
		exp->reason = DRM_COMPUTE_P2P_REASON_HOST_ONLY;
	INIT_LIST_HEAD(&exp->importers);
}
EXPORT_SYMBOL(drm_compute_p2p_export_init);

/**
 * drm_compute_p2p_decide - where one importer may reach a buffer
 * @f: the facts about the buffer, the two devices and the path
 *
 * Context: any.
 *
 * Returns: %DRM_COMPUTE_P2P_REASON_NONE when the importer may map device
 * memory peer-to-peer, otherwise the first reason that rules it out.
 */
u32 drm_compute_p2p_decide(const struct drm_compute_p2p_facts *f)
{
	if (f->host_only)
		return DRM_COMPUTE_P2P_REASON_HOST_ONLY;
	if (!f->importer_p2p)
		return DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P;
	if (f->interconnect)
		return f->driver_reason;
	if (!f->exporter_bar)
		return DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY;
	if (!f->importer_pci)
		return DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_PCI;
	if (f->distance < 0)
		return f->common_switch ? DRM_COMPUTE_P2P_REASON_ACS_REDIRECT :
					  DRM_COMPUTE_P2P_REASON_NO_PCI_PATH;
	if (!f->common_switch && f->iommu_translates)
		return DRM_COMPUTE_P2P_REASON_IOMMU;
	return f->driver_reason;
}
EXPORT_SYMBOL_IF_KUNIT(drm_compute_p2p_decide);

/* Whether @a and @b share an upstream bridge below the root ports. */
static bool p2p_common_switch(struct pci_dev *a, struct pci_dev *b)
{
	struct pci_dev *up_a, *up_b;

	for (up_a = pci_upstream_bridge(a); up_a;
	     up_a = pci_upstream_bridge(up_a)) {
		if (pci_is_pcie(up_a) &&
		    pci_pcie_type(up_a) == PCI_EXP_TYPE_ROOT_PORT)
			break;
		for (up_b = pci_upstream_bridge(b); up_b;
		     up_b = pci_upstream_bridge(up_b))
			if (up_a == up_b)
				return true;
	}
	return false;
}

static void p2p_facts(struct drm_compute_device *cdev,
		      struct drm_compute_p2p_export *exp,
		      struct drm_gem_object *obj,
		      struct dma_buf_attachment *attach,
		      struct drm_compute_p2p_facts *f)
{
	struct device *edev = cdev->drm->dev, *idev = attach->dev;

	memset(f, 0, sizeof(*f));
	f->distance = -1;
	f->host_only = exp->flags & DRM_COMPUTE_BO_EXPORT_HOST_ONLY;
	f->importer_p2p = attach->peer2peer;
	f->exporter_bar = dev_is_pci(edev) && cdev->info.vram_bar_size;
	f->importer_pci = dev_is_pci(idev);
	f->interconnect = cdev->ops->p2p_interconnect &&
			  cdev->ops->p2p_interconnect(obj, attach);
	if (f->exporter_bar && f->importer_pci && !f->interconnect) {
		struct iommu_domain *domain = iommu_get_domain_for_dev(idev);

		f->distance = pci_p2pdma_distance(to_pci_dev(edev), idev, false);
		f->common_switch = p2p_common_switch(to_pci_dev(edev),
						     to_pci_dev(idev));
		f->iommu_translates = domain &&
				      domain->type != IOMMU_DOMAIN_IDENTITY;
	}
	if (cdev->ops->p2p_check)
		f->driver_reason = cdev->ops->p2p_check(obj, attach);
	else if (obj->size > cdev->info.vram_bar_size)
		f->driver_reason = DRM_COMPUTE_P2P_REASON_BAR;
}

/*
 * Wait for the fences of @resv, interruptibly and for at most the hang
 * timeout (unbounded only where hang detection is off). Returns what
 * dma_resv_wait_timeout() does, with -ETIMEDOUT for the timeout.
 */
static long p2p_fence_wait(struct dma_resv *resv)
{
	unsigned int ms = drm_compute_hang_timeout_ms();
	long ret;

	ret = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_BOOKKEEP, true,
				    ms ? msecs_to_jiffies(ms) : MAX_SCHEDULE_TIMEOUT);
	return ret ? ret : -ETIMEDOUT;
}

/*
 * Move @obj to system memory for a new importer of @dmabuf, the way dma-buf
 * asks of an exporter: tell the importers, wait until nothing uses the old
 * memory, then move. Importers remap under the reservation lock, which is
 * held throughout, so they find system memory.
 */
static int p2p_move(struct drm_compute_device *cdev, struct drm_gem_object *obj,
		    struct dma_buf *dmabuf)
{
	long ret;

	dma_resv_assert_held(obj->resv);
	dma_buf_invalidate_mappings(dmabuf);
	cdev->ops->p2p_export(obj)->invalidations++;
	ret = p2p_fence_wait(obj->resv);
	if (ret < 0)
		return ret;
	return cdev->ops->p2p_move_to_host(obj, dmabuf);
}

/**
 * drm_compute_p2p_may_move - whether an importer would move the buffer now
 * @cdev: the exporting device
 * @obj: the buffer
 * @attach: an attachment drm_compute_p2p_attach() has not seen yet
 *
 * A hint for a driver that prepares a move before it calls
 * drm_compute_p2p_attach() with its own locks held (waiting for the
 * buffer's fences first, with no lock held, for instance). The answer may
 * be stale by then; drm_compute_p2p_attach() decides again.
 *
 * Context: process; takes the reservation lock of @obj.
 *
 * Returns: true when the buffer is in device memory, PREFER_P2P and not
 * pinned, and @attach cannot reach it there.
 */
bool drm_compute_p2p_may_move(struct drm_compute_device *cdev,
			      struct drm_gem_object *obj,
			      struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_export *exp = cdev->ops->p2p_export(obj);
	struct drm_compute_p2p_facts f;
	bool move;

	if (!exp)
		return false;
	dma_resv_lock(obj->resv, NULL);
	move = exp->placement == DRM_COMPUTE_PLACEMENT_VRAM &&
	       !(exp->flags & DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P) &&
	       !exp->pinned;
	if (move) {
		p2p_facts(cdev, exp, obj, attach, &f);
		move = drm_compute_p2p_decide(&f) != DRM_COMPUTE_P2P_REASON_NONE;
	}
	dma_resv_unlock(obj->resv);
	return move;
}
EXPORT_SYMBOL(drm_compute_p2p_may_move);

/**
 * drm_compute_p2p_attach - decide an importer's placement; &dma_buf_ops.attach
 * @cdev: the exporting device
 * @obj: the buffer (&dma_buf.priv); its driver's &drm_compute_ops.p2p_export
 *	 gives its export state
 * @attach: the new attachment; &dma_buf_attachment.priv becomes the
 *	    helper's, and &dma_buf_attachment.peer2peer is cleared unless the
 *	    importer maps device memory
 *
 * Moves the buffer to system memory when it is PREFER_P2P, in device
 * memory, and the importer cannot reach it there.
 *
 * Context: process; takes the reservation lock of @obj.
 *
 * Returns: 0; -EBUSY when the importer cannot reach the buffer and the
 * buffer cannot move (REQUIRE_P2P, or pinned), with the refusal recorded;
 * -ENODEV once the buffer is revoked; -EBUSY while a checkpoint has it
 * paused; -ENOMEM, or what the driver's move returns.
 */
int drm_compute_p2p_attach(struct drm_compute_device *cdev,
			   struct drm_gem_object *obj,
			   struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_export *exp = cdev->ops->p2p_export(obj);
	struct drm_compute_p2p_importer *imp, *other;
	struct drm_compute_p2p_facts f;
	bool refused = false;
	u32 reason;
	int ret = 0;

	if (WARN_ON(!exp))
		return -EINVAL;
	imp = kzalloc_obj(*imp);
	if (!imp)
		return -ENOMEM;
	imp->attach = attach;
	imp->exp = exp;
	strscpy(imp->name, dev_name(attach->dev));

	dma_resv_lock(obj->resv, NULL);
	p2p_facts(cdev, exp, obj, attach, &f);
	reason = drm_compute_p2p_decide(&f);
	if (exp->revoked) {
		ret = -ENODEV;
	} else if (exp->pauses) {
		ret = -EBUSY;
	} else if (exp->placement != DRM_COMPUTE_PLACEMENT_VRAM) {
		imp->map = DRM_COMPUTE_P2P_MAP_HOST;
		imp->reason = reason ?: exp->reason;
	} else if (reason == DRM_COMPUTE_P2P_REASON_NONE) {
		imp->map = DRM_COMPUTE_P2P_MAP_PEER;
	} else if ((exp->flags & DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P) ||
		   exp->pinned) {
		exp->refused++;
		refused = true;
		/* REQUIRE_P2P refuses for the importer's reason, pinned or not. */
		exp->refused_reason = (exp->flags & DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P) ?
				      reason : DRM_COMPUTE_P2P_REASON_PINNED;
		ret = -EBUSY;
	} else {
		ret = p2p_move(cdev, obj, attach->dmabuf);
		if (!ret) {
			exp->placement = DRM_COMPUTE_PLACEMENT_SYSTEM;
			exp->reason = reason;
			exp->moves++;
			strscpy(exp->decided_by, imp->name);
			list_for_each_entry(other, &exp->importers, link) {
				other->map = DRM_COMPUTE_P2P_MAP_HOST;
				other->reason = reason;
				other->attach->peer2peer = false;
			}
			imp->map = DRM_COMPUTE_P2P_MAP_HOST;
			imp->reason = reason;
		}
	}
	if (!ret) {
		if (imp->map != DRM_COMPUTE_P2P_MAP_PEER)
			attach->peer2peer = false;
		attach->priv = imp;
		list_add_tail(&imp->link, &exp->importers);
	}
	dma_resv_unlock(obj->resv);
	if (refused)
		drm_dbg_driver(cdev->drm, "p2p: %s refused: reason %u\n",
			       imp->name, exp->refused_reason);
	if (ret)
		kfree(imp);
	return ret;
}
EXPORT_SYMBOL(drm_compute_p2p_attach);

/**
 * drm_compute_p2p_detach - forget an importer; &dma_buf_ops.detach
 * @obj: the buffer
 * @attach: an attachment drm_compute_p2p_attach() accepted
 *
 * Context: process; takes the reservation lock of @obj.
 */
void drm_compute_p2p_detach(struct drm_gem_object *obj,
			    struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_importer *imp = attach->priv;

	dma_resv_lock(obj->resv, NULL);
	list_del(&imp->link);
	/*
	 * An importer unpins before it detaches; one that did not must not
	 * leave the buffer pinned for good.
	 */
	if (WARN_ON(imp->pins))
		imp->exp->pinned -= min(imp->exp->pinned, imp->pins);
	dma_resv_unlock(obj->resv);
	attach->priv = NULL;
	kfree(imp);
}
EXPORT_SYMBOL(drm_compute_p2p_detach);

/**
 * drm_compute_p2p_pin - count a pin; from &dma_buf_ops.pin
 * @exp: the buffer's export state
 * @attach: the attachment, or NULL for a kernel mapping of the exporter
 *
 * A pinned buffer does not move: an attach that would need the move fails.
 *
 * Context: the buffer's reservation lock held.
 *
 * Returns: 0; -ENODEV once the buffer is revoked, -EBUSY while a
 * checkpoint has it paused (nothing counted).
 */
int drm_compute_p2p_pin(struct drm_compute_p2p_export *exp,
			struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_importer *imp = attach ? attach->priv : NULL;

	if (attach)
		dma_resv_assert_held(attach->dmabuf->resv);
	if (exp->revoked)
		return -ENODEV;
	if (exp->pauses)
		return -EBUSY;
	exp->pinned++;
	if (imp)
		imp->pins++;
	else
		exp->kernel_maps++;
	return 0;
}
EXPORT_SYMBOL(drm_compute_p2p_pin);

/**
 * drm_compute_p2p_unpin - drop a pin drm_compute_p2p_pin() counted
 * @exp: the buffer's export state
 * @attach: as given to drm_compute_p2p_pin()
 *
 * Context: the buffer's reservation lock held.
 */
void drm_compute_p2p_unpin(struct drm_compute_p2p_export *exp,
			   struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_importer *imp = attach ? attach->priv : NULL;

	if (WARN_ON(!exp->pinned))
		return;
	exp->pinned--;
	if (imp && !WARN_ON(!imp->pins))
		imp->pins--;
	else if (!imp && !WARN_ON(!exp->kernel_maps))
		exp->kernel_maps--;
}
EXPORT_SYMBOL(drm_compute_p2p_unpin);

/**
 * drm_compute_p2p_is_peer - whether an attachment maps device memory
 * @attach: an attachment drm_compute_p2p_attach() accepted
 *
 * Context: the buffer's reservation lock held (a map_dma_buf callback).
 *
 * Returns: true when the importer maps the buffer's device memory by bus
 * address, false when it maps system memory.
 */
bool drm_compute_p2p_is_peer(struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_importer *imp = attach->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	return imp->map == DRM_COMPUTE_P2P_MAP_PEER;
}
EXPORT_SYMBOL(drm_compute_p2p_is_peer);

/**
 * drm_compute_p2p_map_check - whether an importer may map the buffer now
 * @attach: an attachment drm_compute_p2p_attach() accepted
 *
 * The driver's &dma_buf_ops.map_dma_buf calls it first.
 *
 * Context: the buffer's reservation lock held.
 *
 * Returns: 0; -ENODEV once the buffer is revoked; -EBUSY while a
 * checkpoint has it paused (a dynamic importer tries again after the
 * resume).
 */
int drm_compute_p2p_map_check(struct dma_buf_attachment *attach)
{
	struct drm_compute_p2p_importer *imp = attach->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (imp->exp->revoked)
		return -ENODEV;
	return imp->exp->pauses ? -EBUSY : 0;
}
EXPORT_SYMBOL(drm_compute_p2p_map_check);

/**
 * drm_compute_p2p_invalidate - tell a buffer's importers to map it again
 * @exp: the buffer's export state
 *
 * For a driver whose device memory changed under the buffer without a move
 * the helper made (a device reset): every importer is told
 * (dma_buf_invalidate_mappings()), and the report counts it. Nothing to do
 * without importers.
 *
 * Context: the buffer's reservation lock held.
 */
void drm_compute_p2p_invalidate(struct drm_compute_p2p_export *exp)
{
	struct drm_compute_p2p_importer *imp;

	imp = list_first_entry_or_null(&exp->importers,
				       struct drm_compute_p2p_importer, link);
	if (!imp)
		return;
	dma_resv_assert_held(imp->attach->dmabuf->resv);
	dma_buf_invalidate_mappings(imp->attach->dmabuf);
	exp->invalidations++;
}
EXPORT_SYMBOL(drm_compute_p2p_invalidate);

/**
 * drm_compute_p2p_revoke - take a buffer from its importers for good
 * @exp: the buffer's export state
 * @resv: the buffer's reservation object
 *
 * For a device that goes away (hot-unplug), before its memory does: every
 * importer is told (dma_buf_invalidate_mappings()) and the fences of @resv
 * are waited for, so a dynamic importer, or a pinned one that is revocable
 * (dma_buf_attach_revocable()), has stopped using its mapping or is about to
 * unmap it; from then on drm_compute_p2p_attach() and drm_compute_p2p_pin()
 * fail with -ENODEV, and the driver's map must too. The report counts the
 * invalidation. Calling it again does nothing.
 *
 * Importers that cannot be told (static or pinned without
 * &dma_buf_attach_ops.invalidate_mappings) and kernel CPU mappings keep what
 * they mapped until they let go; the driver keeps the memory behind it
 * allocated until then.
 *
 * The wait for the fences is bounded and ends on a signal
 * (p2p_fence_wait()): an importer whose fences do not signal keeps the
 * memory it may still write until it detaches, and the log says so, but
 * the unplug or close that revokes goes on.
 *
 * Context: process; takes @resv's lock.
 */
void drm_compute_p2p_revoke(struct drm_compute_p2p_export *exp,
			    struct dma_resv *resv)
{
	long wait = 1;

	dma_resv_lock(resv, NULL);
	if (!exp->revoked) {
		exp->revoked = true;
		drm_compute_p2p_invalidate(exp);
		wait = p2p_fence_wait(resv);
	}
	dma_resv_unlock(resv);
	if (wait < 0)
		pr_warn_ratelimited("drm_compute: revoking a buffer: its importers' fences did not signal (%ld); it stays allocated until they detach\n",
				    wait);
}
EXPORT_SYMBOL(drm_compute_p2p_revoke);

/**
 * drm_compute_p2p_pause - take a buffer from its importers until a resume
 * @exp: the buffer's export state
 * @resv: the buffer's reservation object
 *
 * For a checkpoint (%DRM_COMPUTE_OP_CRIU_PAUSE): every importer is told
 * (dma_buf_invalidate_mappings()) and the fences of @resv are waited for,
 * so that no importer writes into the buffer while its contents are saved;
 * until drm_compute_p2p_resume(), no attach, pin or map succeeds (-EBUSY).
 * A pinned buffer cannot be taken: a pinned importer, or a kernel CPU
 * mapping, is not told to let go. The report counts the invalidation.
 *
 * Pauses count: a buffer with handles in several files (a PRIME import on
 * the same device) may be paused by each, and stays paused until each has
 * resumed it. A revoked buffer is paused with nothing to tell.
 *
 * Context: process; takes @resv's lock, and waits interruptibly with it
 * held, for at most the hang timeout.
 *
 * Returns: 0; -EBUSY when the buffer is pinned; -EINTR or -ERESTARTSYS on
 * a signal, -ETIMEDOUT when the importers' fences did not signal in time,
 * with the buffer not paused by this call.
 */
int drm_compute_p2p_pause(struct drm_compute_p2p_export *exp,
			  struct dma_resv *resv)
{
	long wait;
	int ret;

	ret = dma_resv_lock_interruptible(resv, NULL);
	if (ret)
		return ret;
	if (!exp->revoked && exp->pinned) {
		ret = -EBUSY;
		goto out;
	}
	/* A second pause finds the importers told and waited for. */
	if (exp->pauses++ || exp->revoked)
		goto out;
	drm_compute_p2p_invalidate(exp);
	wait = p2p_fence_wait(resv);
	if (wait < 0) {
		exp->pauses--;
		ret = wait;
	}
out:
	dma_resv_unlock(resv);
	return ret;
}
EXPORT_SYMBOL(drm_compute_p2p_pause);

/**
 * drm_compute_p2p_resume - give a paused buffer back to its importers
 * @exp: the buffer's export state
 * @resv: the buffer's reservation object
 *
 * Ends one drm_compute_p2p_pause(); after the last, importers attach, pin
 * and map again (a dynamic importer maps on its next use, as after any
 * invalidation).
 *
 * Context: process; takes @resv's lock.
 */
void drm_compute_p2p_resume(struct drm_compute_p2p_export *exp,
			    struct dma_resv *resv)
{
	dma_resv_lock(resv, NULL);
	if (!WARN_ON(!exp->pauses))
		exp->pauses--;
	dma_resv_unlock(resv);
}
EXPORT_SYMBOL(drm_compute_p2p_resume);

/* Out fields and reserved words: from export_flags to the end. */
#define P2P_REPORT_OUT	offsetof(struct drm_compute_p2p_report, export_flags)

/**
 * drm_compute_p2p_report_ioctl - %DRM_COMPUTE_OP_P2P_REPORT
 * @cfile: the file's compute state
 * @data: &struct drm_compute_p2p_report
 *
 * Returns: 0 or a negative errno, as &struct drm_compute_p2p_report
 * documents.
 */
int drm_compute_p2p_report_ioctl(struct drm_compute_file *cfile, void *data)
{
	struct drm_compute_device *cdev = cfile->cdev;
	struct drm_compute_p2p_report *args = data, rep = *args;
	struct drm_compute_p2p_attachment *out = NULL;
	struct drm_compute_p2p_importer *imp;
	struct drm_compute_p2p_export *exp;
	struct drm_gem_object *obj;
	u32 n = 0, want = args->count;
	int ret = 0;

	if (!(cdev->features & DRM_COMPUTE_FEATURE_P2P_EXPORT))
		return -EOPNOTSUPP;
	if (args->flags || (want && !args->attachments) ||
	    !drm_compute_args_zero(args, P2P_REPORT_OUT,
				   sizeof(*args) - P2P_REPORT_OUT))
		return -EINVAL;
	obj = drm_gem_object_lookup(cfile->file, args->handle);
	if (!obj)
		return -ENOENT;
	exp = cdev->ops->p2p_export(obj);
	if (!exp) {
		ret = -EINVAL;
		goto out_put;
	}

	dma_resv_lock(obj->resv, NULL);
	list_for_each_entry(imp, &exp->importers, link)
		n++;
	if (want && n) {
		/* Allocation under a reservation lock is allowed (TTM does). */
		out = kvcalloc(min(want, n), sizeof(*out), GFP_KERNEL);
		if (!out) {
			dma_resv_unlock(obj->resv);
			ret = -ENOMEM;
			goto out_put;
		}
	}
	if (out) {
		u32 i = 0;

		list_for_each_entry(imp, &exp->importers, link) {
			if (i == min(want, n))
				break;
			strscpy(out[i].importer, imp->name);
			out[i].map = imp->map;
			out[i].reason = imp->reason;
			if (imp->attach->importer_ops)
				out[i].flags |= DRM_COMPUTE_P2P_ATTACH_DYNAMIC;
			if (imp->pins)
				out[i].flags |= DRM_COMPUTE_P2P_ATTACH_PINNED;
			i++;
		}
	}
	rep.count = n;
	rep.export_flags = exp->flags;
	rep.placement = exp->placement;
	rep.reason = exp->reason;
	rep.moves = exp->moves;
	strscpy(rep.decided_by, exp->decided_by);
	rep.refused = exp->refused;
	rep.refused_reason = exp->refused_reason;
	rep.kernel_maps = exp->kernel_maps;
	rep.invalidations = exp->invalidations;
	dma_resv_unlock(obj->resv);

	/* Outside the lock: a fault here takes mmap_lock, which nests outside. */
	if (out && copy_to_user(u64_to_user_ptr(args->attachments), out,
				array_size(min(want, n), sizeof(*out))))
		ret = -EFAULT;
	else
		*args = rep;	/* a failed call leaves the argument as it was */
	kvfree(out);
out_put:
	drm_gem_object_put(obj);
	return ret;
}
EXPORT_SYMBOL(drm_compute_p2p_report_ioctl);
