/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * The objects image: what a render-node file held at the checkpoint (its
 * buffers with their contents, GPU VMs, mappings, user queues and sync
 * objects), as the
 * kernel listed it (DRM_COMPUTE_OP_CRIU_CHECKPOINT), for the restore
 * (DRM_COMPUTE_OP_CRIU_RESTORE). One per CRIU file id,
 * "onenode-objects-<id, 8 hex digits>.img", beside the text image of the
 * file's identity (onenode-criu-image.h).
 *
 * Binary, in the byte order of the machine that wrote it (the reader
 * refuses another): a header, then typed records, each length-prefixed and
 * checksummed (XXH64 over its type, length and payload; version 5 on, CRC-32C
 * before), then an END record. A reader checks the header (magic, version, file id), every
 * record's checksum and length before it hands the record out, and that
 * END comes: a truncated, bit-flipped or foreign image, or one of another
 * version, is refused with a reason. Records, in the order the plugin writes them:
 *
 *	BOS		struct drm_compute_criu_bo[]
 *	VMS		struct drm_compute_criu_vm[]
 *	MAPPINGS	struct drm_compute_criu_mapping[]
 *	BO_DATA		struct onenode_obj_bo_data, then the bytes (repeated,
 *			at most ONENODE_OBJ_CHUNK bytes each)
 *	SYNCOBJS	struct drm_compute_criu_syncobj[] (version 2 on)
 *	SVM_RANGES	struct drm_compute_criu_svm_range[] (version 3 on):
 *			the attributes of the SVM VMs, whose memory is the
 *			process's; device ids are the dumped device's
 *			(DEVICE query in the identity image)
 *	QUEUES		struct drm_compute_criu_queue[] (version 2 on): made
 *			after the buffers are filled, since a queue continues
 *			from its ring and context save area
 *	SIGNALS		struct drm_compute_criu_signal[] (version 4 on): the
 *			sync-object signals pending on the queues, asked for
 *			again once the queues and sync objects exist
 *	END		empty
 *
 * The image of a dma-buf fd of the dumped processes (a CRIU file id of
 * its own) holds one record, then END:
 *
 *	DMABUF		struct onenode_obj_dmabuf: which buffer it is (the
 *			share id its holders' BOS list it with), how it was
 *			opened and on which device; its contents are in a
 *			holder's image
 *
 * Kept apart from the CRIU hooks so that it is unit-tested without CRIU.
 */
#ifndef ONENODE_CRIU_OBJECTS_H
#define ONENODE_CRIU_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#define ONENODE_OBJ_MAGIC	"ONNDOBJS"
#define ONENODE_OBJ_VERSION	5
/* The largest payload of a BO_DATA record: the plugin's copy unit. */
#define ONENODE_OBJ_CHUNK	(8u << 20)
/* The largest record a reader accepts (an object table of 64 Ki entries). */
#define ONENODE_OBJ_RECORD_MAX	(ONENODE_OBJ_CHUNK + 4096u)

enum onenode_obj_type {
	ONENODE_OBJ_BOS = 1,
	ONENODE_OBJ_VMS = 2,
	ONENODE_OBJ_MAPPINGS = 3,
	ONENODE_OBJ_BO_DATA = 4,
	ONENODE_OBJ_END = 5,
	ONENODE_OBJ_QUEUES = 6,
	ONENODE_OBJ_SYNCOBJS = 7,
	ONENODE_OBJ_SVM_RANGES = 8,
	ONENODE_OBJ_DMABUF = 9,
	ONENODE_OBJ_SIGNALS = 10,
};

/**
 * struct onenode_obj_dmabuf - the record of a dma-buf fd.
 * @share: the buffer's share id (drm_compute_criu_bo.share in its holders'
 *	   images).
 * @size: bytes.
 * @export_flags: the DRM_COMPUTE_BO_EXPORT_* flag it was made with.
 * @open_flags: O_ACCMODE bits of the fd.
 * @rdev: the render node of the device, at the dump.
 */
struct onenode_obj_dmabuf {
	uint64_t share;
	uint64_t size;
	uint32_t export_flags;
	uint32_t open_flags;
	uint64_t rdev;
};

/** struct onenode_obj_bo_data - where the bytes of a BO_DATA record go. */
struct onenode_obj_bo_data {
	uint32_t handle;
	uint32_t pad;
	uint64_t offset;
};

/**
 * struct onenode_xxh64 - XXH64 (the xxHash specification's 64-bit hash)
 * over data given in pieces: the checksum of every record.
 */
struct onenode_xxh64 {
	uint64_t v[4];
	uint64_t seed;
	uint64_t total;
	uint8_t mem[32];
	uint32_t held;
};

void onenode_xxh64_init(struct onenode_xxh64 *x, uint64_t seed);
void onenode_xxh64_update(struct onenode_xxh64 *x, const void *buf, size_t len);
uint64_t onenode_xxh64_digest(const struct onenode_xxh64 *x);
/** onenode_xxh64() - XXH64 of @len bytes with @seed, in one call. */
uint64_t onenode_xxh64(uint64_t seed, const void *buf, size_t len);

/** struct onenode_obj_writer - an image being written. */
struct onenode_obj_writer {
	int fd;
	int dirfd;
	uint32_t file_id;
	uint64_t bytes;
};

/**
 * onenode_obj_create() - create the image of @file_id in @dirfd (never
 * over an existing one) and write its header. Return: 0 or a negative errno.
 */
int onenode_obj_create(int dirfd, uint32_t file_id, struct onenode_obj_writer *w);
/**
 * onenode_obj_write() - one record of @type whose payload is @a (@alen
 * bytes) followed by @b (@blen bytes; NULL and 0 for none).
 */
int onenode_obj_write(struct onenode_obj_writer *w, uint32_t type, const void *a,
		      size_t alen, const void *b, size_t blen);
/**
 * onenode_obj_check() - the checksum onenode_obj_write() gives that record,
 * for a writer that computes it apart from the write (on another thread).
 */
uint64_t onenode_obj_check(uint32_t type, const void *a, size_t alen, const void *b,
			   size_t blen);
/** onenode_obj_write_checked() - onenode_obj_write() with its checksum given. */
int onenode_obj_write_checked(struct onenode_obj_writer *w, uint32_t type, uint64_t check,
			      const void *a, size_t alen, const void *b, size_t blen);
/** onenode_obj_finish() - write END and close; the image is complete. */
int onenode_obj_finish(struct onenode_obj_writer *w);
/** onenode_obj_abort() - close and remove an image that will not be finished. */
void onenode_obj_abort(struct onenode_obj_writer *w);

/**
 * struct onenode_obj_reader - an image being read.
 * @buf, @cap: two payload buffers, used in turn (@cur the last record's).
 */
struct onenode_obj_reader {
	int fd;
	void *buf[2];
	size_t cap[2];
	unsigned int cur;
	uint64_t offset;
};

/**
 * onenode_obj_open() - open and check the header of the image of @file_id.
 * Return: 0; -ENOENT when there is none; -EINVAL (@why says why) for a
 * foreign or damaged header, -EPROTONOSUPPORT for another version.
 */
int onenode_obj_open(int dirfd, uint32_t file_id, struct onenode_obj_reader *r,
		     char *why, size_t why_len);
/**
 * onenode_obj_next() - the next record: *@type, and *@payload of *@len
 * bytes, valid until the second call after this one (the payloads of two
 * records in a row live at once: one in the kernel's copy while the next
 * is read).
 * Return: 0; -EINVAL (@why says where and why) for a record that is
 * truncated, too long, of an unknown type or whose checksum is wrong, and
 * for an image that ends without END.
 */
int onenode_obj_next(struct onenode_obj_reader *r, uint32_t *type, const void **payload,
		     uint64_t *len, char *why, size_t why_len);
/** onenode_obj_close() - free the reader. */
void onenode_obj_close(struct onenode_obj_reader *r);

#endif /* ONENODE_CRIU_OBJECTS_H */
