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
	CHECK_EQ(onenode_obj_next(&r, &type, &p, &len, why, sizeof(why)), 0, "END");
	CHECK_EQ(type, ONENODE_OBJ_END, "END last");
	onenode_obj_close(&r);
	CHECK_EQ(onenode_obj_open(dirfd_, ID + 1, &r, why, sizeof(why)), -ENOENT,
		 "no image: -ENOENT (another plugin's file)");
	/* Known CRC-32C check value, with and without the CPU's instruction. */
	CHECK_EQ(onenode_crc32c(0, "123456789", 9), 0xe3069283u, "CRC-32C of \"123456789\"");
	CHECK_EQ(onenode_crc32c_table(0, "123456789", 9), 0xe3069283u,
		 "table CRC-32C of \"123456789\"");
	{
		static uint8_t buf[4200];
		unsigned int differ = 0;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)(i * 2654435761u >> 13);
		/* Every length to 4104 at every alignment to 8, in two pieces too. */
		for (size_t off = 0; off < 8; off++)
			for (size_t len = 0; len + off <= 4104 + 8 && len <= 4104; len += 1 + len / 64) {
				uint32_t a = onenode_crc32c(0, buf + off, len);
				uint32_t b = onenode_crc32c_table(0, buf + off, len);
				uint32_t c = onenode_crc32c_table(onenode_crc32c_table(0, buf + off,
										   len / 3),
								  buf + off + len / 3, len - len / 3);

				differ += a != b || a != c;
			}
		CHECK_EQ(differ, 0u, "table CRC-32C agrees with the default one");
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
