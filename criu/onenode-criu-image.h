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
 *	onenode-criu-image 1
 *	file_id 0x0000000c
 *	driver vcompute
 *	driver_version 0.1.0
 *	path /dev/dri/renderD128
 *	rdev 226:128
 *	open_flags 0x2
 *	caps.flags 0x0
 *	caps.version 1
 *	...			(every field of onenode_caps_fields())
 *	end
 *
 * The first line carries the format version. A reader of version N takes
 * only version N images and requires every key exactly once, nothing else,
 * and the final "end" (a truncated image is refused).
 */
#ifndef ONENODE_CRIU_IMAGE_H
#define ONENODE_CRIU_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "onenode.h"

#define ONENODE_CRIU_IMAGE_MAGIC	"onenode-criu-image"
#define ONENODE_CRIU_IMAGE_VERSION	1
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
 * @caps: the caps the node reported at dump time.
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
	struct drm_compute_caps caps;
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
 * Return: 0; -EPROTONOSUPPORT for another format version; -EINVAL for any
 * other defect.
 */
int onenode_criu_image_parse(const char *text, size_t len,
			     struct onenode_criu_record *rec,
			     char *why, size_t why_len);

/**
 * onenode_criu_caps_compare() - check the caps of the node to restore onto
 * against the dumped ones. Every field must be equal: the first version
 * knows no field that may safely differ.
 * @why: on a difference, "vram_size: dumped 268435456, now 134217728"
 *	for each differing field.
 * Return: 0 when equal, -ESTALE when not.
 */
int onenode_criu_caps_compare(const struct drm_compute_caps *dumped,
			      const struct drm_compute_caps *now,
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
