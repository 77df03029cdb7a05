// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The onenode CRIU image: format, strict parser, device comparison, file I/O.
 * See onenode-criu-image.h for the format.
 */
#define _GNU_SOURCE
#include "onenode-criu-image.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define OPEN_FLAGS_KEPT (O_ACCMODE | O_NONBLOCK)

/* The identity keys, in the order they are written. */
enum {
	KEY_FILE_ID,
	KEY_DRIVER,
	KEY_DRIVER_VERSION,
	KEY_PATH,
	KEY_RDEV,
	KEY_OPEN_FLAGS,
	KEY_DEVICE_FIRST,	/* then one key per DEVICE report field */
	KEY_COUNT = KEY_DEVICE_FIRST + ONENODE_DEVICE_NFIELDS,
};

/* Prefix of the DEVICE report's keys. */
#define DEVICE_PREFIX "device."

static const char *const key_names[KEY_DEVICE_FIRST] = {
	"file_id", "driver", "driver_version", "path", "rdev", "open_flags",
};

int onenode_criu_image_name(uint32_t file_id, char *buf, size_t len)
{
	int n = snprintf(buf, len, "onenode-%08" PRIx32 ".img", file_id);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* snprintf() that appends at *used and remembers running out of room. */
static void appendf(char *buf, size_t len, size_t *used, bool *full,
		    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		*full = true;
	else
		*used += (size_t)n;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Bit sets and addresses read best in hex. */
static bool hex_field(const char *name)
{
	return !strcmp(name, "features") || !strcmp(name, "placements") ||
	       !strcmp(name, "va_start") || !strcmp(name, "va_end");
}

int onenode_criu_image_format(const struct onenode_criu_record *rec,
			      char *buf, size_t len)
{
	struct onenode_field f[ONENODE_DEVICE_NFIELDS];
	size_t used = 0;
	bool full = false;
	int i, n;

	if (!rec || !buf || !len)
		return -EINVAL;
	if (!rec->driver[0] || !rec->path[0] || !printable(rec->driver) ||
	    !printable(rec->path) || (rec->open_flags & ~OPEN_FLAGS_KEPT))
		return -EINVAL;
	n = onenode_device_fields(&rec->device, f, ONENODE_DEVICE_NFIELDS);
	if (n < 0)
		return n;

	appendf(buf, len, &used, &full, "%s %d\n", ONENODE_CRIU_IMAGE_MAGIC,
		ONENODE_CRIU_IMAGE_VERSION);
	appendf(buf, len, &used, &full, "file_id %#010" PRIx32 "\n", rec->file_id);
	appendf(buf, len, &used, &full, "driver %s\n", rec->driver);
	appendf(buf, len, &used, &full, "driver_version %d.%d.%d\n",
		rec->version_major, rec->version_minor, rec->version_patchlevel);
	appendf(buf, len, &used, &full, "path %s\n", rec->path);
	appendf(buf, len, &used, &full, "rdev %u:%u\n", major(rec->rdev), minor(rec->rdev));
	appendf(buf, len, &used, &full, "open_flags %#x\n", (unsigned int)rec->open_flags);
	for (i = 0; i < n; i++)
		appendf(buf, len, &used, &full, hex_field(f[i].name) ?
			DEVICE_PREFIX "%s %#" PRIx64 "\n" : DEVICE_PREFIX "%s %" PRIu64 "\n",
			f[i].name, f[i].value);
	appendf(buf, len, &used, &full, "end\n");
	return full ? -ENOSPC : (int)used;
}

/* A whole unsigned number (decimal, 0x hex or 0 octal), nothing else. */
static bool parse_u64(const char *s, char stop, const char **end, uint64_t *out)
{
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &e, 0);
	if (errno || *e != stop)
		return false;
	if (end)
		*end = e;
	return true;
}

static bool parse_int(const char *s, char stop, const char **end, int *out)
{
	uint64_t v;

	if (!parse_u64(s, stop, end, &v) || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

static bool parse_string(const char *s, char *out, size_t len)
{
	if (!s[0] || strlen(s) >= len || !printable(s))
		return false;
	strcpy(out, s);
	return true;
}

static void set_field(struct drm_compute_query_device *d, const struct onenode_field *f,
		      uint64_t v)
{
	unsigned char *p = (unsigned char *)d + f->offset;

	if (f->size == 4) {
		uint32_t v32 = (uint32_t)v;

		memcpy(p, &v32, sizeof(v32));
	} else {
		memcpy(p, &v, sizeof(v));
	}
}

/* Store the value of key @k from @value; false when it does not parse. */
static bool parse_value(struct onenode_criu_record *rec, int k, const char *value,
			const struct onenode_field *fields)
{
	const char *p;
	uint64_t v;
	unsigned int maj, min;

	switch (k) {
	case KEY_FILE_ID:
		if (!parse_u64(value, '\0', NULL, &v) || v > UINT32_MAX)
			return false;
		rec->file_id = (uint32_t)v;
		return true;
	case KEY_DRIVER:
		return parse_string(value, rec->driver, sizeof(rec->driver));
	case KEY_DRIVER_VERSION:
		return parse_int(value, '.', &p, &rec->version_major) &&
		       parse_int(p + 1, '.', &p, &rec->version_minor) &&
		       parse_int(p + 1, '\0', NULL, &rec->version_patchlevel);
	case KEY_PATH:
		return value[0] == '/' && parse_string(value, rec->path, sizeof(rec->path));
	case KEY_RDEV:
		if (!parse_u64(value, ':', &p, &v) || v > UINT_MAX)
			return false;
		maj = (unsigned int)v;
		if (!parse_u64(p + 1, '\0', NULL, &v) || v > UINT_MAX)
			return false;
		min = (unsigned int)v;
		rec->rdev = makedev(maj, min);
		return true;
	case KEY_OPEN_FLAGS:
		if (!parse_u64(value, '\0', NULL, &v) || (v & ~(uint64_t)OPEN_FLAGS_KEPT) ||
		    (v & O_ACCMODE) == O_ACCMODE)
			return false;
		rec->open_flags = (int)v;
		return true;
	default: {
		const struct onenode_field *f = &fields[k - KEY_DEVICE_FIRST];

		if (!parse_u64(value, '\0', NULL, &v) || (f->size == 4 && v > UINT32_MAX))
			return false;
		set_field(&rec->device, f, v);
		return true;
	}
	}
}

static int key_index(const char *key, const struct onenode_field *fields)
{
	const size_t plen = strlen(DEVICE_PREFIX);
	int i;

	for (i = 0; i < KEY_DEVICE_FIRST; i++)
		if (!strcmp(key, key_names[i]))
			return i;
	if (!strncmp(key, DEVICE_PREFIX, plen))
		for (i = 0; i < ONENODE_DEVICE_NFIELDS; i++)
			if (!strcmp(key + plen, fields[i].name))
				return KEY_DEVICE_FIRST + i;
	return -1;
}

int onenode_criu_image_parse(const char *text, size_t len,
			     struct onenode_criu_record *rec,
			     char *why, size_t why_len)
{
	struct onenode_field fields[ONENODE_DEVICE_NFIELDS];
	struct drm_compute_query_device zero = { 0 };
	char buf[ONENODE_CRIU_IMAGE_MAX + 1], *line, *next;
	bool seen[KEY_COUNT] = { false }, ended = false;
	int lineno = 0, version, i;

#define FAIL(err, ...) do {							\
	if (why && why_len)							\
		snprintf(why, why_len, __VA_ARGS__);				\
	return (err);								\
} while (0)

	if (!text || !rec)
		FAIL(-EINVAL, "no image");
	if (len > ONENODE_CRIU_IMAGE_MAX)
		FAIL(-EINVAL, "image of %zu bytes is too large", len);
	if (memchr(text, '\0', len))
		FAIL(-EINVAL, "image contains a NUL byte");
	memcpy(buf, text, len);
	buf[len] = '\0';
	memset(rec, 0, sizeof(*rec));
	onenode_device_fields(&zero, fields, ONENODE_DEVICE_NFIELDS);

	for (line = buf; *line; line = next) {
		char *value;
		int k;

		next = strchr(line, '\n');
		if (!next)
			FAIL(-EINVAL, "line %d: not terminated (truncated image?)", lineno + 1);
		*next++ = '\0';
		lineno++;

		if (ended)
			FAIL(-EINVAL, "line %d: text after \"end\"", lineno);
		if (lineno == 1) {
			if (strncmp(line, ONENODE_CRIU_IMAGE_MAGIC " ",
				    strlen(ONENODE_CRIU_IMAGE_MAGIC " ")) ||
			    !parse_int(line + strlen(ONENODE_CRIU_IMAGE_MAGIC " "), '\0', NULL,
				       &version))
				FAIL(-EINVAL, "line 1: not an onenode CRIU image");
			if (version < ONENODE_CRIU_IMAGE_VERSION)
				FAIL(-EPROTONOSUPPORT,
				     "image format version %d is older than the version %d this "
				     "plugin reads: dumped by an older plugin", version,
				     ONENODE_CRIU_IMAGE_VERSION);
			if (version > ONENODE_CRIU_IMAGE_VERSION)
				FAIL(-EPROTONOSUPPORT,
				     "image format version %d is newer than the version %d this "
				     "plugin reads: restore with the plugin that dumped it",
				     version, ONENODE_CRIU_IMAGE_VERSION);
			continue;
		}
		if (!strcmp(line, "end")) {
			ended = true;
			continue;
		}
		value = strchr(line, ' ');
		if (!value)
			FAIL(-EINVAL, "line %d: expected \"key value\"", lineno);
		*value++ = '\0';
		k = key_index(line, fields);
		if (k < 0)
			FAIL(-EINVAL, "line %d: unknown key '%s'", lineno, line);
		if (seen[k])
			FAIL(-EINVAL, "line %d: key '%s' repeated", lineno, line);
		seen[k] = true;
		if (!parse_value(rec, k, value, fields))
			FAIL(-EINVAL, "line %d: bad value '%s' for '%s'", lineno, value, line);
	}
	if (lineno == 0)
		FAIL(-EINVAL, "empty image");
	if (!ended)
		FAIL(-EINVAL, "no \"end\" line (truncated image?)");
	for (i = 0; i < KEY_COUNT; i++)
		if (!seen[i])
			FAIL(-EINVAL, "key '%s%s' missing", i < KEY_DEVICE_FIRST ? "" : DEVICE_PREFIX,
			     i < KEY_DEVICE_FIRST ? key_names[i] : fields[i - KEY_DEVICE_FIRST].name);
	return 0;
#undef FAIL
}

int onenode_criu_device_compare(const struct drm_compute_query_device *dumped,
				const struct drm_compute_query_device *now,
				char *why, size_t why_len)
{
	struct onenode_field a[ONENODE_DEVICE_NFIELDS], b[ONENODE_DEVICE_NFIELDS];
	size_t used = 0;
	bool full = false;
	int i, ret = 0;

	if (!dumped || !now)
		return -EINVAL;
	onenode_device_fields(dumped, a, ONENODE_DEVICE_NFIELDS);
	onenode_device_fields(now, b, ONENODE_DEVICE_NFIELDS);
	if (why && why_len)
		why[0] = '\0';
	for (i = 0; i < ONENODE_DEVICE_NFIELDS; i++) {
		/* An instance's name, not what it can do (see the header). */
		if (a[i].value == b[i].value || !strcmp(a[i].name, "device_id"))
			continue;
		ret = -ESTALE;
		if (why && why_len)
			appendf(why, why_len, &used, &full, "%s%s: dumped %" PRIu64 ", now %" PRIu64,
				used ? "; " : "", a[i].name, a[i].value, b[i].value);
	}
	/* Padding is zero by the uapi; a non-zero one is a change too. */
	if (dumped->pad != now->pad || dumped->pad2 != now->pad2 || dumped->pad3 != now->pad3) {
		ret = -ESTALE;
		if (why && why_len)
			appendf(why, why_len, &used, &full, "%spadding differs", used ? "; " : "");
	}
	return ret;
}

int onenode_criu_image_write(int dirfd, const struct onenode_criu_record *rec)
{
	char name[32], text[ONENODE_CRIU_IMAGE_MAX];
	int fd, len, ret = 0;
	ssize_t n;

	len = onenode_criu_image_format(rec, text, sizeof(text));
	if (len < 0)
		return len;
	ret = onenode_criu_image_name(rec->file_id, name, sizeof(name));
	if (ret)
		return ret;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = write(fd, text, (size_t)len);
	if (n != len)
		ret = n < 0 ? -errno : -EIO;
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, name, 0);
	return ret;
}

int onenode_criu_image_read(int dirfd, uint32_t file_id,
			    struct onenode_criu_record *rec,
			    char *why, size_t why_len)
{
	char name[32], text[ONENODE_CRIU_IMAGE_MAX + 1];
	size_t len = 0;
	ssize_t n;
	int fd, ret;

	if (why && why_len)
		why[0] = '\0';
	ret = onenode_criu_image_name(file_id, name, sizeof(name));
	if (ret)
		return ret;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (why && why_len)
			snprintf(why, why_len, "%s: %s", name, strerror(-ret));
		return ret;
	}
	/* One byte more than the limit, to tell "too large" from "full". */
	while (len < sizeof(text) && (n = read(fd, text + len, sizeof(text) - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			close(fd);
			if (why && why_len)
				snprintf(why, why_len, "%s: %s", name, strerror(-ret));
			return ret;
		}
		len += (size_t)n;
	}
	close(fd);
	ret = onenode_criu_image_parse(text, len, rec, why, why_len);
	if (!ret && rec->file_id != file_id) {
		if (why && why_len)
			snprintf(why, why_len, "%s holds file id %#x", name, rec->file_id);
		return -EINVAL;
	}
	return ret;
}
