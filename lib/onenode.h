/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode: a small C library over the DRM compute uapi
 * (uapi/drm/drm_compute.h). It finds and opens the render node of a compute
 * driver, queries its &struct drm_compute_caps through that driver's CAPS
 * ioctl and names the feature bits. It is shared by the examples, the CRIU
 * plugin and libvkp2p.
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
 * onenode_caps_ioctl() - the CAPS ioctl request number of @driver.
 * @request: set to the request on success.
 *
 * Return: 0; -EINVAL for a bad argument; -EOPNOTSUPP when libonenode knows
 * no CAPS ioctl for that driver.
 */
int onenode_caps_ioctl(const char *driver, unsigned long *request);

/**
 * onenode_query_caps() - fill @caps through the driver's CAPS ioctl.
 *
 * The structure is zeroed before the call, as the uapi requires.
 *
 * Return: 0; -EINVAL for a bad argument; -EOPNOTSUPP for a driver without
 * a known CAPS ioctl; the ioctl's error otherwise; -EPROTO when the kernel
 * reports a layout version of 0.
 */
int onenode_query_caps(const struct onenode_device *dev,
		       struct drm_compute_caps *caps);

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
 * struct onenode_caps_field - one named field of &struct drm_compute_caps.
 * @name: the uapi field name, e.g. "vram_size".
 * @value: its value.
 * @is_bytes: the value is a size in bytes.
 * @offset: offsetof() the field in &struct drm_compute_caps.
 * @size: sizeof() the field (4 or 8), so a parser can store a value back.
 */
struct onenode_caps_field {
	const char *name;
	uint64_t value;
	int is_bytes;
	size_t offset;
	size_t size;
};

/** ONENODE_CAPS_NFIELDS - entries onenode_caps_fields() fills. */
#define ONENODE_CAPS_NFIELDS 7

/**
 * onenode_caps_fields() - list every defined (non-reserved) field of @caps
 * in uapi order, so printers and comparers need no field list of their own.
 * @out: room for at least ONENODE_CAPS_NFIELDS entries.
 *
 * Return: the number of entries (ONENODE_CAPS_NFIELDS), or -EINVAL.
 */
int onenode_caps_fields(const struct drm_compute_caps *caps,
			struct onenode_caps_field *out, size_t n);

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
