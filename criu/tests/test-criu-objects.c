// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * Unit test of the objects image (onenode-criu-objects.h): records come
 * back as written; every truncation, every single-bit flip, a foreign file,
 * another version and another file id are refused with a reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onenode-criu-objects.h"

#include "../../lib/tests/tap.h"

#define ID 0x2a

static char dir[] = "/tmp/onenode-objects-XXXXXX";
static int dirfd_;

static const char *path(void)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/onenode-objects-%08x.img", dir, ID);
	return p;
}

/* A sample image: a table, data in two parts, END. Its bytes in *@img. */
static size_t sample(uint8_t **img)
{
	struct onenode_obj_writer w;
	struct onenode_obj_bo_data d = { .handle = 3, .offset = 4096 };
	uint32_t table[6] = { 1, 2, 3, 4, 5, 6 };
	uint8_t data[3000];
	struct stat st;
	int fd;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	unlink(path());
	CHECK_EQ(onenode_obj_create(dirfd_, ID, &w), 0, "create");
	CHECK_EQ(onenode_obj_create(dirfd_, ID, &(struct onenode_obj_writer){ 0 }), -EEXIST,
		 "an image is never overwritten");
	CHECK_EQ(onenode_obj_write(&w, ONENODE_OBJ_BOS, table, sizeof(table), NULL, 0), 0,
		 "a table");
	CHECK_EQ(onenode_obj_write(&w, ONENODE_OBJ_BO_DATA, &d, sizeof(d), data, sizeof(data)), 0,
		 "data");
	CHECK_EQ(onenode_obj_finish(&w), 0, "finish");
	fd = open(path(), O_RDONLY);
	fstat(fd, &st);
	*img = malloc((size_t)st.st_size);
	CHECK_EQ(read(fd, *img, (size_t)st.st_size), st.st_size, "read back");
	close(fd);
	return (size_t)st.st_size;
}

static void put(const uint8_t *img, size_t len)
{
	int fd = open(path(), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (write(fd, img, len) != (ssize_t)len)
		perror("write");
	close(fd);
}

/* Read the whole image: 0 when it ends with END, else the error. */
static int read_image(int records_want, char *why, size_t n)
{
	struct onenode_obj_reader r;
	const void *p;
	uint64_t len;
	uint32_t type;
	int ret, records = 0;

	ret = onenode_obj_open(dirfd_, ID, &r, why, n);
	if (ret)
		return ret;
	for (;;) {
		ret = onenode_obj_next(&r, &type, &p, &len, why, n);
		if (ret || type == ONENODE_OBJ_END)
			break;
		records++;
	}
	onenode_obj_close(&r);
	if (!ret && records_want >= 0 && records != records_want)
		return -ERANGE;
	return ret;
}

static void test_roundtrip(void)
{
	struct onenode_obj_reader r;
	const struct onenode_obj_bo_data *d;
	const uint8_t *bytes;
	const uint32_t *t;
	const void *p;
	uint8_t *img;
	uint64_t len;
	uint32_t type;
	char why[256];
	bool same = true;

	sample(&img);
	free(img);
	CHECK_EQ(onenode_obj_open(dirfd_, ID, &r, why, sizeof(why)), 0, "open");
	CHECK_EQ(onenode_obj_next(&r, &type, &p, &len, why, sizeof(why)), 0, "first record");
	t = p;
	CHECK(type == ONENODE_OBJ_BOS && len == 24 && t[0] == 1 && t[5] == 6, "the table");
	CHECK_EQ(onenode_obj_next(&r, &type, &p, &len, why, sizeof(why)), 0, "second record");
	d = p;
	bytes = (const uint8_t *)p + sizeof(*d);
	for (size_t i = 0; i < 3000; i++)
		same &= bytes[i] == (uint8_t)(i * 7);
	CHECK(type == ONENODE_OBJ_BO_DATA && len == sizeof(*d) + 3000 && d->handle == 3 &&
	      d->offset == 4096 && same, "the data record");
	/* The plugin copies one record's payload while it reads the next. */
	CHECK(t[0] == 1 && t[5] == 6, "the first record's payload outlives the second's read");
	CHECK_EQ(onenode_obj_next(&r, &type, &p, &len, why, sizeof(why)), 0, "END");
	CHECK_EQ(type, ONENODE_OBJ_END, "END last");
	onenode_obj_close(&r);
	CHECK_EQ(onenode_obj_open(dirfd_, ID + 1, &r, why, sizeof(why)), -ENOENT,
		 "no image: -ENOENT (another plugin's file)");
	/*
	 * XXH64 known answers (xxhsum -H64 of xxHash 0.8.1): the empty input,
	 * one short of a stripe, more than one stripe with a tail of each kind.
	 */
	CHECK(onenode_xxh64(0, "", 0) == 0xef46db3751d8e999ull, "XXH64 of \"\"");
	CHECK(onenode_xxh64(0, "abc", 3) == 0x44bc2cf5ad770999ull, "XXH64 of \"abc\"");
	CHECK(onenode_xxh64(0, "0123456789abcdef0123456789abcdefXYZ", 35) ==
	      0x654f6a2b39e4d8c1ull, "XXH64 of 35 bytes");
	{
		static uint8_t buf[1000];
		unsigned int differ = 0;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)(i * 7 + (i >> 5));
		CHECK(onenode_xxh64(0, buf, 61) == 0x78005187d0611391ull, "XXH64 of 61 bytes");
		CHECK(onenode_xxh64(0, buf, 1000) == 0xe2e6758f1bef7435ull, "XXH64 of 1000 bytes");
		/* In pieces of every size and alignment: what one call gives. */
		for (size_t cut = 0; cut <= 100; cut++)
			for (size_t step = 1; step <= 67; step += 3) {
				struct onenode_xxh64 x;
				size_t at = cut;

				onenode_xxh64_init(&x, 0);
				onenode_xxh64_update(&x, buf, cut);
				for (; at < sizeof(buf); at += step)
					onenode_xxh64_update(&x, buf + at, sizeof(buf) - at < step ?
								     sizeof(buf) - at : step);
				differ += onenode_xxh64_digest(&x) != 0xe2e6758f1bef7435ull;
			}
		CHECK_EQ(differ, 0u, "XXH64 in pieces agrees with one call");
	}
}

static void test_damage(void)
{
	uint8_t *img, *bad;
	size_t len = sample(&img), cut, bit;
	unsigned int refused = 0, flips = 0, cuts = 0;
	char why[256];

	bad = malloc(len);
	/* Every truncation. */
	for (cut = 0; cut < len; cut++) {
		put(img, cut);
		cuts++;
		refused += read_image(-1, why, sizeof(why)) != 0;
	}
	CHECK_EQ(refused, cuts, "each of %u truncations is refused", cuts);
	/* Every single-bit flip. */
	refused = 0;
	for (bit = 0; bit < len * 8; bit++) {
		memcpy(bad, img, len);
		bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		put(bad, len);
		flips++;
		refused += read_image(2, why, sizeof(why)) != 0;
	}
	CHECK_EQ(refused, flips, "each of %u bit flips is refused", flips);
	/* Foreign, newer, another file's. */
	memcpy(bad, img, len);
	memcpy(bad, "GARBAGE!", 8);
	put(bad, len);
	CHECK_EQ(read_image(2, why, sizeof(why)), -EINVAL, "foreign magic: %s", why);
	memcpy(bad, img, len);
	bad[8] = ONENODE_OBJ_VERSION + 1;
	put(bad, len);
	CHECK_EQ(read_image(2, why, sizeof(why)), -EPROTONOSUPPORT, "a newer version: %s", why);
	memcpy(bad, img, len);
	bad[12] ^= 1;
	put(bad, len);
	CHECK_EQ(read_image(2, why, sizeof(why)), -EINVAL, "another file id: %s", why);
	put(img, len);
	CHECK_EQ(read_image(2, why, sizeof(why)), 0, "the intact image reads");
	free(bad);
	free(img);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	test_roundtrip();
	test_damage();
	unlink(path());
	close(dirfd_);
	rmdir(dir);
	return tap_done();
}
