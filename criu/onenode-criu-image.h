/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * The onenode CRIU image: what the plugin saves for one render-node file,
 * and the checks made before a restored task gets a node back. Kept apart
 * from the CRIU hooks so that it is unit-tested without CRIU.
 *
 * One image per CRIU file id, "onenode-<id, 8 hex digits>.img" in the
 * images directory. Text, one "key value" line each, so that a person can
 * read it and a test can edit it:
 *
 *	onenode-criu-image 3
 *	file_id 0x0000000c
 *	driver vcompute
 *	driver_version 0.2.0
 *	path /dev/dri/renderD128
 *	rdev 226:128
 *	open_flags 0x2
 *	device.features 0x1
 *	device.vram_size 268435456
 *	...			(every field of onenode_device_fields())
 *	end
 *
 * The first line carries the format version. A reader of version N takes
 * only version N images and requires every key exactly once, nothing else,
 * and the final "end" (a truncated image is refused). Older versions are
 * refused as older, with a message that says so: version 1 (the CAPS
 * ioctl's report, "caps.*" keys) and version 2 (a DEVICE report without
 * device_id).
 */
#ifndef ONENODE_CRIU_IMAGE_H
#define ONENODE_CRIU_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "onenode.h"

#define ONENODE_CRIU_IMAGE_MAGIC	"onenode-criu-image"
#define ONENODE_CRIU_IMAGE_VERSION	4
/* An image is a few hundred bytes; anything larger is not ours. */
#define ONENODE_CRIU_IMAGE_MAX		4096

/**
 * struct onenode_criu_record - the saved identity of one render-node file.
 * @file_id: CRIU's id of the file.
 * @open_flags: O_ACCMODE and O_NONBLOCK bits of the open file.
 * @driver: DRM driver name.
 * @version_major, @version_minor, @version_patchlevel: driver version.
 * @path: node path at dump time.
 * @rdev: device number at dump time.
 * @device: the DEVICE query report of the node at dump time.
 */
struct onenode_criu_record {
	uint32_t file_id;
	int open_flags;
	char driver[ONENODE_NAME_MAX];
	int version_major;
	int version_minor;
	int version_patchlevel;
	char path[ONENODE_PATH_MAX];
	uint64_t rdev;
	struct drm_compute_query_device device;
};

/** onenode_criu_image_name() - "onenode-%08x.img"; 0 or -ENOSPC. */
int onenode_criu_image_name(uint32_t file_id, char *buf, size_t len);

/**
 * onenode_criu_image_format() - the image text of @rec.
 * Return: its length, or -ENOSPC when @len is too small, -EINVAL when @rec
 * holds a value the format cannot carry (a newline in a string).
 */
int onenode_criu_image_format(const struct onenode_criu_record *rec,
			      char *buf, size_t len);

/**
 * onenode_criu_image_parse() - parse image text into @rec.
 * @why: on failure, a one-line reason ("line 3: unknown key 'x'").
 * Return: 0; -EPROTONOSUPPORT for another format version (@why says
 * whether the image is older or newer than this reader); -EINVAL for any
 * other defect.
 */
int onenode_criu_image_parse(const char *text, size_t len,
			     struct onenode_criu_record *rec,
			     char *why, size_t why_len);

/**
 * onenode_criu_device_compare() - check the DEVICE report of the node to
 * restore onto against the dumped one. Every field must be equal, padding
 * included, except device_id: that names the device instance (it changes
 * with a module reload or another instance of the same device), it says
 * nothing the restored file relies on, as no SVM attribute, the one thing
 * that names devices, is saved yet.
 * @why: on a difference, "vram_size: dumped 268435456, now 134217728"
 *	for each differing field.
 * Return: 0 when equal, -ESTALE when not.
 */
int onenode_criu_device_compare(const struct drm_compute_query_device *dumped,
				const struct drm_compute_query_device *now,
				char *why, size_t why_len);

/**
 * onenode_criu_image_write() - write @rec as its image into @dirfd,
 * refusing to overwrite an existing image. Return: 0 or a negative errno.
 */
int onenode_criu_image_write(int dirfd, const struct onenode_criu_record *rec);

/**
 * onenode_criu_image_read() - read and parse the image of @file_id.
 * Return: 0; -ENOENT when there is no image for that id (the file is not
 * ours); the parse error otherwise, explained in @why.
 */
int onenode_criu_image_read(int dirfd, uint32_t file_id,
			    struct onenode_criu_record *rec,
			    char *why, size_t why_len);

#endif /* ONENODE_CRIU_IMAGE_H */
