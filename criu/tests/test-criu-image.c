// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The onenode CRIU image without CRIU: format and parse agree, the parser
 * refuses every kind of defect with a reason (older and newer format
 * versions included), the DEVICE report comparison names the differing
 * fields, and files are written once and read back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "onenode-criu-image.h"
#include "../../lib/tests/tap.h"

static void sample(struct onenode_criu_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->file_id = 0xc;
	rec->open_flags = O_RDWR | O_NONBLOCK;
	strcpy(rec->driver, "vcompute");
	rec->version_major = 0;
	rec->version_minor = 2;
	rec->version_patchlevel = 0;
	strcpy(rec->path, "/dev/dri/renderD128");
	rec->rdev = makedev(226, 128);
	rec->device.features = DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_CRIU;
	rec->device.vram_size = 256ULL << 20;
	rec->device.vram_bar_size = 64ULL << 20;
	rec->device.placements = DRM_COMPUTE_PLACEMENT_VRAM | DRM_COMPUTE_PLACEMENT_SYSTEM;
	rec->device.va_start = 1ULL << 16;
	rec->device.va_end = 1ULL << 47;
	rec->device.page_size = 4096;
	rec->device.device_id = 7;
	rec->device.svm_flags = 0x1b;
}

/* Replace the first occurrence of @from in @text by @to. */
static void edit(char *text, size_t len, const char *from, const char *to)
{
	char *p = strstr(text, from), tail[ONENODE_CRIU_IMAGE_MAX];

	if (!p) {
		printf("# edit: '%s' not found\n", from);
		abort();
	}
	snprintf(tail, sizeof(tail), "%s", p + strlen(from));
	snprintf(p, len - (size_t)(p - text), "%s%s", to, tail);
}

static int parse(const char *text, struct onenode_criu_record *rec, char *why, size_t n)
{
	return onenode_criu_image_parse(text, strlen(text), rec, why, n);
}

static void test_roundtrip(void)
{
	struct onenode_criu_record a, b;
	char text[ONENODE_CRIU_IMAGE_MAX], why[256];
	int n;

	sample(&a);
	n = onenode_criu_image_format(&a, text, sizeof(text));
	CHECK(n > 0 && (size_t)n == strlen(text), "format returns the length (%d)", n);
	CHECK(!strncmp(text, "onenode-criu-image 4\nfile_id 0x0000000c\ndriver vcompute\n", 55),
	      "header, file id and driver first");
	CHECK(strstr(text, "\nrdev 226:128\n") && strstr(text, "\ndevice.vram_size 268435456\n") &&
	      strstr(text, "\ndevice.features 0x9\n") && strstr(text, "\nopen_flags 0x802\n") &&
	      strstr(text, "\ndevice.va_end 0x800000000000\n") &&
	      strstr(text, "\ndevice.page_size 4096\n") &&
	      strstr(text, "\ndevice.device_id 7\n") &&
	      !strcmp(text + n - 4, "end\n"), "readable values, end last");
	CHECK_EQ(parse(text, &b, why, sizeof(why)), 0, "parse what was formatted: %s", why);
	CHECK(!memcmp(&a, &b, sizeof(a)), "parse(format(x)) == x");

	CHECK_EQ(onenode_criu_image_format(&a, text, 40), -ENOSPC, "too small a buffer");
	strcpy(a.path, "/dev/dri/render\nD128");
	CHECK_EQ(onenode_criu_image_format(&a, text, sizeof(text)), -EINVAL, "newline in a path");
	sample(&a);
	a.open_flags = O_RDWR | O_APPEND;
	CHECK_EQ(onenode_criu_image_format(&a, text, sizeof(text)), -EINVAL, "unknown open flag");

	sample(&a);
	a.file_id = 0;
	a.open_flags = O_RDONLY;
	n = onenode_criu_image_format(&a, text, sizeof(text));
	CHECK_EQ(parse(text, &b, why, sizeof(why)), 0, "zero id and O_RDONLY parse: %s", why);
	CHECK(!memcmp(&a, &b, sizeof(a)), "zero values survive");
}

/* Each defect of a good image, with the error and the reason expected. */
static void test_defects(void)
{
	static const struct {
		const char *from, *to;
		int err;
		const char *why;
	} cases[] = {
		{ "onenode-criu-image 4", "onenode-criu-image 5", -EPROTONOSUPPORT,
		  "version 5 is newer than the version 4" },
		{ "onenode-criu-image 4", "onenode-criu-image 3", -EPROTONOSUPPORT,
		  "version 3 is older than the version 4" },
		{ "onenode-criu-image 4", "onenode-criu-image 1", -EPROTONOSUPPORT,
		  "version 1 is older than the version 4" },
		{ "onenode-criu-image 4", "onenode-criu-image x", -EINVAL, "not an onenode" },
		{ "onenode-criu-image 4", "ONENODE 4", -EINVAL, "not an onenode" },
		{ "driver vcompute\n", "", -EINVAL, "key 'driver' missing" },
		{ "device.page_size 4096\n", "", -EINVAL, "'device.page_size' missing" },
		{ "device.device_id 7\n", "", -EINVAL, "'device.device_id' missing" },
		{ "end\n", "", -EINVAL, "no \"end\"" },
		{ "end\n", "end", -EINVAL, "not terminated" },
		{ "end\n", "end\nend\n", -EINVAL, "after \"end\"" },
		{ "driver vcompute\n", "driver vcompute\ndriver vgem\n", -EINVAL, "repeated" },
		{ "driver vcompute\n", "colour blue\n", -EINVAL, "unknown key 'colour'" },
		{ "driver vcompute\n", "driver\n", -EINVAL, "expected \"key value\"" },
		{ "driver vcompute\n", "driver \n", -EINVAL, "bad value" },
		{ "device.vram_size 268435456", "device.vram_size -1", -EINVAL, "bad value" },
		{ "device.vram_size 268435456", "device.vram_size 12abc", -EINVAL, "bad value" },
		{ "device.vram_size 268435456", "device.vram_size  1", -EINVAL, "bad value" },
		{ "device.page_size 4096", "device.page_size 4294967296", -EINVAL, "bad value" },
		{ "device.vram_size 268435456", "device.vram_size 99999999999999999999", -EINVAL,
		  "bad value" },
		{ "file_id 0x0000000c", "file_id 0x100000000", -EINVAL, "bad value" },
		{ "open_flags 0x802", "open_flags 0x3", -EINVAL, "bad value" },
		{ "open_flags 0x802", "open_flags 0x402", -EINVAL, "bad value" },
		{ "driver_version 0.2.0", "driver_version 0.2", -EINVAL, "bad value" },
		{ "driver_version 0.2.0", "driver_version 0.2.0.4", -EINVAL, "bad value" },
		{ "rdev 226:128", "rdev 226", -EINVAL, "bad value" },
		{ "path /dev/dri/renderD128", "path dev/dri/renderD128", -EINVAL, "bad value" },
		{ "device.features", "device.pad", -EINVAL, "unknown key 'device.pad'" },
		{ "device.features 0x9", "caps.features 0x9", -EINVAL,
		  "unknown key 'caps.features'" },
	};
	struct onenode_criu_record rec;
	char good[ONENODE_CRIU_IMAGE_MAX], text[ONENODE_CRIU_IMAGE_MAX], why[256];

	sample(&rec);
	onenode_criu_image_format(&rec, good, sizeof(good));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		strcpy(text, good);
		edit(text, sizeof(text), cases[i].from, cases[i].to);
		why[0] = '\0';
		ret = parse(text, &rec, why, sizeof(why));
		CHECK(ret == cases[i].err && strstr(why, cases[i].why),
		      "defect %zu refused with \"%s\"", i, cases[i].why);
		if (ret != cases[i].err || !strstr(why, cases[i].why))
			printf("#   got %d: %s\n", ret, why);
	}

	CHECK_EQ(parse("", &rec, why, sizeof(why)), -EINVAL, "empty image");
	CHECK_EQ(onenode_criu_image_parse("a\0b\n", 4, &rec, why, sizeof(why)), -EINVAL,
		 "NUL byte refused");
	CHECK_EQ(onenode_criu_image_parse(good, ONENODE_CRIU_IMAGE_MAX + 1, &rec, why,
					  sizeof(why)), -EINVAL, "oversized image refused");
	CHECK_EQ(onenode_criu_image_parse(NULL, 0, &rec, NULL, 0), -EINVAL, "NULL text");
}

static void test_compare(void)
{
	struct onenode_criu_record a, b;
	char why[256];

	sample(&a);
	sample(&b);
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), 0,
		 "equal reports");
	CHECK_STR(why, "", "no reason when equal");

	b.device.vram_size = 128ULL << 20;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), -ESTALE,
		 "smaller VRAM refused");
	CHECK_STR(why, "vram_size: dumped 268435456, now 134217728", "names the field");

	b.device.features = 0;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), -ESTALE,
		 "two differences");
	CHECK_STR(why, "features: dumped 9, now 0; vram_size: dumped 268435456, now 134217728",
		  "names both fields in uapi order");

	sample(&b);
	b.device.pad = 1;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), -ESTALE,
		 "the padding differs");
	CHECK_STR(why, "padding differs", "padding difference named");

	sample(&b);
	b.device.pad2 = 1;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), -ESTALE,
		 "the second padding differs");

	sample(&b);
	b.device.pad3 = 1;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), -ESTALE,
		 "the third padding differs");

	/* Honoured SVM flags and documented differences are what the device does. */
	sample(&b);
	b.device.semantics = 1;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), -ESTALE,
		 "other semantics refused");

	/* Another instance of the same device: its id does not matter. */
	sample(&b);
	b.device.device_id = 8;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, why, sizeof(why)), 0,
		 "another device id is no difference");

	sample(&b);
	b.device.page_size = 65536;
	CHECK_EQ(onenode_criu_device_compare(&a.device, &b.device, NULL, 0), -ESTALE,
		 "page size differs; no reason buffer");
}

static void test_files(void)
{
	char tmp[] = "/tmp/onenode-criu-image-XXXXXX", name[32], why[256];
	struct onenode_criu_record a, b;
	int dirfd, fd;

	if (!mkdtemp(tmp)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	sample(&a);

	CHECK_EQ(onenode_criu_image_name(0xc, name, sizeof(name)), 0, "image name");
	CHECK_STR(name, "onenode-0000000c.img", "name from the file id");
	CHECK_EQ(onenode_criu_image_name(0xc, name, 8), -ENOSPC, "name buffer too small");

	CHECK_EQ(onenode_criu_image_read(dirfd, 0xc, &b, why, sizeof(why)), -ENOENT,
		 "no image yet: not ours");
	CHECK_EQ(onenode_criu_image_write(dirfd, &a), 0, "write");
	CHECK_EQ(onenode_criu_image_write(dirfd, &a), -EEXIST, "never overwrite an image");
	CHECK_EQ(onenode_criu_image_read(dirfd, 0xc, &b, why, sizeof(why)), 0, "read back: %s",
		 why);
	CHECK(!memcmp(&a, &b, sizeof(a)), "read(write(x)) == x");

	/* An image under another id's name is refused. */
	CHECK(renameat(dirfd, "onenode-0000000c.img", dirfd, "onenode-0000000d.img") == 0,
	      "rename");
	CHECK_EQ(onenode_criu_image_read(dirfd, 0xd, &b, why, sizeof(why)), -EINVAL,
		 "id inside differs from the name");
	CHECK(strstr(why, "holds file id 0xc") != NULL, "reason: %s", why);
	unlinkat(dirfd, "onenode-0000000d.img", 0);

	/* An oversized file is not parsed. */
	fd = openat(dirfd, "onenode-0000000e.img", O_WRONLY | O_CREAT, 0600);
	for (int i = 0; i < ONENODE_CRIU_IMAGE_MAX / 8 + 1; i++)
		if (write(fd, "xxxxxxxx", 8) != 8)
			break;
	close(fd);
	CHECK_EQ(onenode_criu_image_read(dirfd, 0xe, &b, why, sizeof(why)), -EINVAL,
		 "oversized file refused: %s", why);
	unlinkat(dirfd, "onenode-0000000e.img", 0);

	close(dirfd);
	CHECK(rmdir(tmp) == 0, "images dir left empty");
}

int main(void)
{
	test_roundtrip();
	test_defects();
	test_compare();
	test_files();
	return tap_done();
}
