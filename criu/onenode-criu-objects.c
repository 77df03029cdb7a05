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
#include <sys/uio.h>
#include <unistd.h>

#include "onenode-criu-objects.h"

struct obj_header {
	char magic[8];
	uint32_t version;
	uint32_t file_id;
};

/* A record's header; @check covers it (with @check 0) and the payload. */
struct obj_record {
	uint32_t type;
	uint32_t pad;		/* zero */
	uint64_t len;
	uint64_t check;
};

/*
 * XXH64 (github.com/Cyan4973/xxHash, doc/xxhash_spec.md), written from its
 * specification: four lanes of 64-bit multiply-rotate rounds, so that it
 * runs at memory speed on any 64-bit CPU with no special instruction
 * (CRC-32C without SSE4.2, as under QEMU's TCG, ran at a sixth of memcpy
 * and was most of the plugin's time).
 */
#define XXH_P1	0x9e3779b185ebca87ull
#define XXH_P2	0xc2b2ae3d27d4eb4full
#define XXH_P3	0x165667b19e3779f9ull
#define XXH_P4	0x85ebca77c2b2ae63ull
#define XXH_P5	0x27d4eb2f165667c5ull

static inline uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
	return rotl64(acc + lane * XXH_P2, 31) * XXH_P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	return (acc ^ xxh_round(0, v)) * XXH_P1 + XXH_P4;
}

static void xxh_stripe(struct onenode_xxh64 *x, const uint8_t *p)
{
	for (int i = 0; i < 4; i++)
		x->v[i] = xxh_round(x->v[i], load64(p + 8 * i));
}

void onenode_xxh64_init(struct onenode_xxh64 *x, uint64_t seed)
{
	x->v[0] = seed + XXH_P1 + XXH_P2;
	x->v[1] = seed + XXH_P2;
	x->v[2] = seed;
	x->v[3] = seed - XXH_P1;
	x->seed = seed;
	x->total = 0;
	x->held = 0;
}

void onenode_xxh64_update(struct onenode_xxh64 *x, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	x->total += len;
	/* Bytes that do not make a 32-byte stripe wait in @mem. */
	if (x->held + len < sizeof(x->mem)) {
		if (len)
			memcpy(x->mem + x->held, p, len);
		x->held += (uint32_t)len;
		return;
	}
	if (x->held) {
		size_t fill = sizeof(x->mem) - x->held;

		memcpy(x->mem + x->held, p, fill);
		xxh_stripe(x, x->mem);
		p += fill;
		len -= fill;
		x->held = 0;
	}
	for (; len >= 32; p += 32, len -= 32)
		xxh_stripe(x, p);
	if (len)
		memcpy(x->mem, p, len);
	x->held = (uint32_t)len;
}

uint64_t onenode_xxh64_digest(const struct onenode_xxh64 *x)
{
	const uint8_t *p = x->mem, *end = p + x->held;
	uint64_t h;

	if (x->total >= 32) {
		h = rotl64(x->v[0], 1) + rotl64(x->v[1], 7) + rotl64(x->v[2], 12) +
		    rotl64(x->v[3], 18);
		for (int i = 0; i < 4; i++)
			h = xxh_merge(h, x->v[i]);
	} else {
		h = x->seed + XXH_P5;
	}
	h += x->total;
	for (; end - p >= 8; p += 8)
		h = rotl64(h ^ xxh_round(0, load64(p)), 27) * XXH_P1 + XXH_P4;
	if (end - p >= 4) {
		h = rotl64(h ^ (uint64_t)load32(p) * XXH_P1, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl64(h ^ *p * XXH_P5, 11) * XXH_P1;
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	return h ^ h >> 32;
}

uint64_t onenode_xxh64(uint64_t seed, const void *buf, size_t len)
{
	struct onenode_xxh64 x;

	onenode_xxh64_init(&x, seed);
	onenode_xxh64_update(&x, buf, len);
	return onenode_xxh64_digest(&x);
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

uint64_t onenode_obj_check(uint32_t type, const void *a, size_t alen, const void *b,
			   size_t blen)
{
	struct obj_record r = { .type = type, .len = alen + blen };
	struct onenode_xxh64 x;

	/* XXH64 of the header (its check 0) and the payload, in one stream. */
	onenode_xxh64_init(&x, 0);
	onenode_xxh64_update(&x, &r, sizeof(r));
	onenode_xxh64_update(&x, a, alen);
	onenode_xxh64_update(&x, b, blen);
	return onenode_xxh64_digest(&x);
}

int onenode_obj_write_checked(struct onenode_obj_writer *w, uint32_t type, uint64_t check,
			      const void *a, size_t alen, const void *b, size_t blen)
{
	struct obj_record r = { .type = type, .len = alen + blen, .check = check };
	struct iovec iov[3] = {
		{ &r, sizeof(r) }, { (void *)a, alen }, { (void *)b, blen },
	};
	struct iovec *v = iov;
	int n = 3;

	if (r.len > ONENODE_OBJ_RECORD_MAX)
		return -E2BIG;
	/* One system call for the header and the payload, as much as it takes. */
	while (n) {
		ssize_t done = writev(w->fd, v, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n && (size_t)done >= v->iov_len) {
			done -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n) {
			v->iov_base = (char *)v->iov_base + done;
			v->iov_len -= (size_t)done;
		}
	}
	w->bytes += sizeof(r) + r.len;
	return 0;
}

int onenode_obj_write(struct onenode_obj_writer *w, uint32_t type, const void *a,
		      size_t alen, const void *b, size_t blen)
{
	if (alen + blen > ONENODE_OBJ_RECORD_MAX)
		return -E2BIG;
	return onenode_obj_write_checked(w, type, onenode_obj_check(type, a, alen, b, blen), a,
					 alen, b, blen);
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
	uint64_t check;
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
	if (h.type < ONENODE_OBJ_BOS || h.type > ONENODE_OBJ_SIGNALS || h.pad ||
	    h.len > ONENODE_OBJ_RECORD_MAX) {
		snprintf(why, why_len, "byte %llu: record of type %u and %llu bytes: %s",
			 (unsigned long long)r->offset, h.type, (unsigned long long)h.len,
			 h.len > ONENODE_OBJ_RECORD_MAX ? "longer than any record" :
			 h.pad ? "its padding is not zero" : "unknown type");
		return -EINVAL;
	}
	/* The other buffer: the last record's payload stays where it was. */
	r->cur ^= 1;
	if (h.len > r->cap[r->cur]) {
		void *more = realloc(r->buf[r->cur], h.len);

		if (!more)
			return -ENOMEM;
		r->buf[r->cur] = more;
		r->cap[r->cur] = h.len;
	}
	if (h.len) {
		ret = read_all(r->fd, r->buf[r->cur], h.len, &partial);
		if (ret <= 0) {
			snprintf(why, why_len, "byte %llu: record of %llu bytes %s",
				 (unsigned long long)r->offset, (unsigned long long)h.len,
				 ret < 0 ? strerror(-ret) : "cut short (truncated)");
			return ret < 0 ? ret : -EINVAL;
		}
	}
	check = onenode_obj_check(h.type, r->buf[r->cur], h.len, NULL, 0);
	if (check != h.check) {
		snprintf(why, why_len, "byte %llu: record of type %u: checksum %#018llx, the record "
			 "says %#018llx (damaged)", (unsigned long long)r->offset, h.type,
			 (unsigned long long)check, (unsigned long long)h.check);
		return -EINVAL;
	}
	r->offset += sizeof(h) + h.len;
	*type = h.type;
	*payload = r->buf[r->cur];
	*len = h.len;
	return 0;
}

void onenode_obj_close(struct onenode_obj_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	for (int i = 0; i < 2; i++) {
		free(r->buf[i]);
		r->buf[i] = NULL;
		r->cap[i] = 0;
	}
}
