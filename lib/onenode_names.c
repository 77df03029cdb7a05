// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode: names of feature bits, queue statuses and fault reasons, the
 * field lists of the query reports, and error messages. No I/O. See
 * onenode.h for the contract of every function.
 */
#define _GNU_SOURCE
#include "onenode.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	uint64_t bit;
	const char *name;
} feature_names[] = {
	{ DRM_COMPUTE_FEATURE_USERQ, "userq" },
	{ DRM_COMPUTE_FEATURE_SVM, "svm" },
	{ DRM_COMPUTE_FEATURE_P2P_EXPORT, "p2p-export" },
	{ DRM_COMPUTE_FEATURE_CRIU, "criu" },
};

/* Indexed by DRM_COMPUTE_USERQ_STATUS_* (0 is no status). */
static const char *const status_names[] = {
	[DRM_COMPUTE_USERQ_STATUS_IDLE] = "idle",
	[DRM_COMPUTE_USERQ_STATUS_RUNNING] = "running",
	[DRM_COMPUTE_USERQ_STATUS_SUSPENDED] = "suspended",
	[DRM_COMPUTE_USERQ_STATUS_FAULTED] = "faulted",
	[DRM_COMPUTE_USERQ_STATUS_HUNG] = "hung",
	[DRM_COMPUTE_USERQ_STATUS_LOST] = "lost",
};

/* Indexed by DRM_COMPUTE_FAULT_*. */
static const char *const fault_names[] = {
	[DRM_COMPUTE_FAULT_NONE] = "none",
	[DRM_COMPUTE_FAULT_UNMAPPED] = "unmapped",
	[DRM_COMPUTE_FAULT_WRITE] = "write",
	[DRM_COMPUTE_FAULT_EXEC] = "exec",
	[DRM_COMPUTE_FAULT_ALIGNMENT] = "alignment",
	[DRM_COMPUTE_FAULT_PACKET] = "packet",
	[DRM_COMPUTE_FAULT_WPTR] = "wptr",
	[DRM_COMPUTE_FAULT_TIMEOUT] = "timeout",
	[DRM_COMPUTE_FAULT_HANG] = "hang",
	[DRM_COMPUTE_FAULT_LOST] = "lost",
	[DRM_COMPUTE_FAULT_NOMIRROR] = "nomirror",
	[DRM_COMPUTE_FAULT_SVM_BUSY] = "svm-busy",
	[DRM_COMPUTE_FAULT_JOB_TIMEOUT] = "job-timeout",
};

static const char *const p2p_reason_names[] = {
	[DRM_COMPUTE_P2P_REASON_NONE] = "p2p",
	[DRM_COMPUTE_P2P_REASON_HOST_ONLY] = "host-only",
	[DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_P2P] = "importer-not-p2p",
	[DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY] = "no-p2p-memory",
	[DRM_COMPUTE_P2P_REASON_IMPORTER_NOT_PCI] = "importer-not-pci",
	[DRM_COMPUTE_P2P_REASON_NO_PCI_PATH] = "no-pci-path",
	[DRM_COMPUTE_P2P_REASON_ACS_REDIRECT] = "acs-redirect",
	[DRM_COMPUTE_P2P_REASON_IOMMU] = "iommu",
	[DRM_COMPUTE_P2P_REASON_DMA_MASK] = "dma-mask",
	[DRM_COMPUTE_P2P_REASON_BAR] = "bar",
	[DRM_COMPUTE_P2P_REASON_DRIVER] = "driver",
	[DRM_COMPUTE_P2P_REASON_PINNED] = "pinned",
};

const char *onenode_feature_name(uint64_t bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(feature_names); i++)
		if (feature_names[i].bit == bit)
			return feature_names[i].name;
	return NULL;
}

int onenode_features_string(uint64_t features, char *buf, size_t len)
{
	size_t used = 0;
	int bit;

	if (!buf && len)
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	if (!features)
		return snprintf(buf, len, "none");

	for (bit = 0; bit < 64; bit++) {
		uint64_t mask = 1ULL << bit;
		const char *name;
		char unknown[8];
		int n;

		if (!(features & mask))
			continue;
		name = onenode_feature_name(mask);
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%d", bit);
			name = unknown;
		}
		n = snprintf(used < len ? buf + used : NULL,
			     used < len ? len - used : 0, "%s%s",
			     used ? "," : "", name);
		if (n < 0)
			return -EINVAL;
		used += (size_t)n;
	}
	return used > INT_MAX ? -EOVERFLOW : (int)used;
}

/* "unknown" for a value without a name, so that callers can print it. */
const char *onenode_status_name(uint32_t status)
{
	if (status < ARRAY_SIZE(status_names) && status_names[status])
		return status_names[status];
	return "unknown";
}

const char *onenode_p2p_reason_name(uint32_t reason)
{
	if (reason < ARRAY_SIZE(p2p_reason_names) && p2p_reason_names[reason])
		return p2p_reason_names[reason];
	return "unknown";
}

const char *onenode_fault_name(uint32_t reason)
{
	if (reason < ARRAY_SIZE(fault_names) && fault_names[reason])
		return fault_names[reason];
	return "unknown";
}

/* One entry of a field list: name, value, unit, offset and size. */
#define FIELD(type, ptr, f, bytes) { #f, (ptr) ? (uint64_t)(ptr)->f : 0, bytes,	\
		offsetof(type, f), sizeof(((type *)0)->f) }

int onenode_device_fields(const struct drm_compute_query_device *d,
			  struct onenode_field *out, size_t n)
{
#define DEV_FIELD(f, bytes) FIELD(struct drm_compute_query_device, d, f, bytes)
	const struct onenode_field fields[] = {
		DEV_FIELD(features, 0),
		DEV_FIELD(vram_size, 1),
		DEV_FIELD(vram_bar_size, 1),
		DEV_FIELD(placements, 0),
		DEV_FIELD(va_start, 0),
		DEV_FIELD(va_end, 0),
		DEV_FIELD(page_size, 1),
		DEV_FIELD(device_id, 0),
		DEV_FIELD(svm_flags, 0),
		DEV_FIELD(semantics, 0),
	};
#undef DEV_FIELD
	_Static_assert(ARRAY_SIZE(fields) == ONENODE_DEVICE_NFIELDS,
		       "ONENODE_DEVICE_NFIELDS");

	if (!d || !out || n < ONENODE_DEVICE_NFIELDS)
		return -EINVAL;
	memcpy(out, fields, sizeof(fields));
	return (int)ARRAY_SIZE(fields);
}

int onenode_userq_fields(const struct drm_compute_query_userq *u,
			 struct onenode_field *out, size_t n)
{
#define UQ_FIELD(f, bytes) FIELD(struct drm_compute_query_userq, u, f, bytes)
	const struct onenode_field fields[] = {
		UQ_FIELD(caps, 0),
		UQ_FIELD(max_queues, 0),
		UQ_FIELD(num_priorities, 0),
		UQ_FIELD(priority_default, 0),
		UQ_FIELD(priority_privileged, 0),
		UQ_FIELD(num_cus, 0),
		UQ_FIELD(queue_formats, 0),
		UQ_FIELD(ring_size_min, 1),
		UQ_FIELD(ring_size_max, 1),
		UQ_FIELD(ctx_save_size, 1),
		UQ_FIELD(doorbell_size, 1),
		UQ_FIELD(hang_timeout_ms, 0),
	};
#undef UQ_FIELD
	_Static_assert(ARRAY_SIZE(fields) == ONENODE_USERQ_NFIELDS,
		       "ONENODE_USERQ_NFIELDS");

	if (!u || !out || n < ONENODE_USERQ_NFIELDS)
		return -EINVAL;
	memcpy(out, fields, sizeof(fields));
	return (int)ARRAY_SIZE(fields);
}
#undef FIELD

const char *onenode_strerror(int err)
{
	const char *desc;

	if (err == INT_MIN)
		return "unknown error";
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case ENOENT:
		return "no such DRM render node (or compute object)";
	case ENOTTY:
		return "not a DRM device";
	case EOPNOTSUPP:
		return "driver has no DRM compute uapi known to libonenode, "
		       "or the device does not support this";
	case EPROTO:
		return "kernel returned an invalid DRM compute report";
	}
	desc = strerrordesc_np(err);
	return desc ? desc : "unknown error";
}
