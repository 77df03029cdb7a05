// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The objects image (onenode-criu-objects.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onenode-criu-objects.h"

struct obj_header {
	char magic[8];
	uint32_t version;
	uint32_t file_id;
};

struct obj_record {
	uint32_t type;
	uint32_t crc;
	uint64_t len;
};

/*
 * CRC-32C (Castagnoli, reflected 0x82f63b78), as iSCSI and ext4 use it.
 * Without SSE4.2 (QEMU's default CPU under TCG has none) eight bytes a
 * step through eight tables ("slicing by 8"): table k is the CRC of a byte
 * followed by k zero bytes.
 */
static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
					  crc_table[0][crc_table[k - 1][i] & 0xff];
}

static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint64_t v = 0;

		for (int k = 7; k >= 0; k--)
			v = v << 8 | p[k];
		v ^= crc;
		crc = crc_table[7][v & 0xff] ^ crc_table[6][(v >> 8) & 0xff] ^
		      crc_table[5][(v >> 16) & 0xff] ^ crc_table[4][(v >> 24) & 0xff] ^
		      crc_table[3][(v >> 32) & 0xff] ^ crc_table[2][(v >> 40) & 0xff] ^
		      crc_table[1][(v >> 48) & 0xff] ^ crc_table[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
/* SSE4.2 has CRC-32C in hardware: image checksums at memory speed. */
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

/* The tables made once; whether the CPU has CRC-32C. */
static int crc_setup(void)
{
	static int hw = -1;

	if (hw < 0) {
		crc_init();
#if defined(__x86_64__)
		hw = __builtin_cpu_supports("sse4.2");
#else
		hw = 0;
#endif
	}
	return hw;
}

uint32_t onenode_crc32c(uint32_t crc, const void *buf, size_t len)
{
	int hw = crc_setup();

	crc = ~crc;
#if defined(__x86_64__)
	if (hw)
		return ~crc_hw(crc, buf, len);
#endif
	(void)hw;
	return ~crc_soft(crc, buf, len);
}

uint32_t onenode_crc32c_table(uint32_t crc, const void *buf, size_t len)
{
	crc_setup();
	return ~crc_soft(~crc, buf, len);
}

static int image_name(uint32_t file_id, char *buf, size_t len)
{
	return snprintf(buf, len, "onenode-objects-%08x.img", file_id) < (int)len ? 0 : -ENOSPC;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int onenode_obj_create(int dirfd, uint32_t file_id, struct onenode_obj_writer *w)
{
	struct obj_header h = { .version = ONENODE_OBJ_VERSION, .file_id = file_id };
	char name[64];
	int ret;

	memcpy(h.magic, ONENODE_OBJ_MAGIC, sizeof(h.magic));
	ret = image_name(file_id, name, sizeof(name));
	if (ret)
		return ret;
	w->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (w->fd < 0)
		return -errno;
	w->dirfd = dirfd;
	w->file_id = file_id;
	w->bytes = sizeof(h);
	ret = write_all(w->fd, &h, sizeof(h));
	if (ret)
		onenode_obj_abort(w);
	return ret;
}

int onenode_obj_write(struct onenode_obj_writer *w, uint32_t type, const void *a,
		      size_t alen, const void *b, size_t blen)
{
	struct obj_record r = { .type = type, .len = alen + blen };
	int ret;

	if (r.len > ONENODE_OBJ_RECORD_MAX)
		return -E2BIG;
	r.crc = onenode_crc32c(0, &r.type, sizeof(r.type));
	r.crc = onenode_crc32c(r.crc, &r.len, sizeof(r.len));
	r.crc = onenode_crc32c(r.crc, a, alen);
	if (blen)
		r.crc = onenode_crc32c(r.crc, b, blen);
	ret = write_all(w->fd, &r, sizeof(r));
	if (!ret && alen)
		ret = write_all(w->fd, a, alen);
	if (!ret && blen)
		ret = write_all(w->fd, b, blen);
	if (!ret)
		w->bytes += sizeof(r) + r.len;
	return ret;
}

int onenode_obj_finish(struct onenode_obj_writer *w)
{
	int ret = onenode_obj_write(w, ONENODE_OBJ_END, NULL, 0, NULL, 0);

	if (close(w->fd) && !ret)
		ret = -errno;
	w->fd = -1;
	return ret;
}

void onenode_obj_abort(struct onenode_obj_writer *w)
{
	char name[64];

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (!image_name(w->file_id, name, sizeof(name)))
		unlinkat(w->dirfd, name, 0);
}

/* Read exactly @len bytes: 1 when done, 0 at a clean end of file, <0. */
static int read_all(int fd, void *buf, size_t len, bool *partial)
{
	char *p = buf;
	size_t got = 0;

	*partial = false;
	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n) {
			*partial = got > 0;
			return 0;
		}
		got += (size_t)n;
	}
	return 1;
}

int onenode_obj_open(int dirfd, uint32_t file_id, struct onenode_obj_reader *r,
		     char *why, size_t why_len)
{
	struct obj_header h;
	char name[64];
	bool partial;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = image_name(file_id, name, sizeof(name));
	if (ret)
		return ret;
	r->fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	ret = read_all(r->fd, &h, sizeof(h), &partial);
	if (ret < 0) {
		snprintf(why, why_len, "%s: read: %s", name, strerror(-ret));
		goto fail;
	}
	if (!ret || memcmp(h.magic, ONENODE_OBJ_MAGIC, sizeof(h.magic))) {
		snprintf(why, why_len, "%s: not an onenode objects image (%s)", name,
			 ret ? "wrong magic" : "shorter than its header");
		ret = -EINVAL;
		goto fail;
	}
	if (h.version != ONENODE_OBJ_VERSION) {
		snprintf(why, why_len, "%s: format version %u, this plugin reads %u%s", name,
			 h.version, ONENODE_OBJ_VERSION,
			 h.version > 0xffff ? " (written on a machine of another byte order?)" : "");
		ret = -EPROTONOSUPPORT;
		goto fail;
	}
	if (h.file_id != file_id) {
		snprintf(why, why_len, "%s: holds file %#x, not %#x", name, h.file_id, file_id);
		ret = -EINVAL;
		goto fail;
	}
	r->offset = sizeof(h);
	return 0;
fail:
	close(r->fd);
	r->fd = -1;
	return ret;
}

int onenode_obj_next(struct onenode_obj_reader *r, uint32_t *type, const void **payload,
		     uint64_t *len, char *why, size_t why_len)
{
	struct obj_record h;
	bool partial;
	uint32_t crc;
	int ret;

	ret = read_all(r->fd, &h, sizeof(h), &partial);
	if (ret <= 0) {
		if (ret < 0)
			snprintf(why, why_len, "byte %llu: read: %s",
				 (unsigned long long)r->offset, strerror(-ret));
		else
			snprintf(why, why_len, "byte %llu: the image ends %s its END record "
				 "(truncated)", (unsigned long long)r->offset,
				 partial ? "inside a record header, before" : "before");
		return ret < 0 ? ret : -EINVAL;
	}
	if (h.type < ONENODE_OBJ_BOS || h.type > ONENODE_OBJ_SIGNALS ||
	    h.len > ONENODE_OBJ_RECORD_MAX) {
		snprintf(why, why_len, "byte %llu: record of type %u and %llu bytes: %s",
			 (unsigned long long)r->offset, h.type, (unsigned long long)h.len,
			 h.len > ONENODE_OBJ_RECORD_MAX ? "longer than any record" : "unknown type");
		return -EINVAL;
	}
	if (h.len > r->cap) {
		void *more = realloc(r->buf, h.len);

		if (!more)
			return -ENOMEM;
		r->buf = more;
		r->cap = h.len;
	}
	if (h.len) {
		ret = read_all(r->fd, r->buf, h.len, &partial);
		if (ret <= 0) {
			snprintf(why, why_len, "byte %llu: record of %llu bytes %s",
				 (unsigned long long)r->offset, (unsigned long long)h.len,
				 ret < 0 ? strerror(-ret) : "cut short (truncated)");
			return ret < 0 ? ret : -EINVAL;
		}
	}
	crc = onenode_crc32c(0, &h.type, sizeof(h.type));
	crc = onenode_crc32c(crc, &h.len, sizeof(h.len));
	crc = onenode_crc32c(crc, r->buf, h.len);
	if (crc != h.crc) {
		snprintf(why, why_len, "byte %llu: record of type %u: checksum %#010x, the record "
			 "says %#010x (damaged)", (unsigned long long)r->offset, h.type, crc, h.crc);
		return -EINVAL;
	}
	r->offset += sizeof(h) + h.len;
	*type = h.type;
	*payload = r->buf;
	*len = h.len;
	return 0;
}

void onenode_obj_close(struct onenode_obj_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}
