// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The plugin as CRIU 4.1.1 sees it, without CRIU and without a device.
 * This program stands in for the criu binary: it exports the functions a
 * plugin may call (print_on_level, criu_get_image_dir, the inventory
 * calls), dlopen()s criu_plugin_onenode.so, checks the descriptor the way
 * CRIU's loader does (symbol, ABI version, hook count, hook slots) and
 * drives the hooks with files that are not ours and with images that
 * name a missing device. The real dump/restore runs in the VM
 * (criu-smoke.sh).
 *
 * Usage: test-criu-plugin-abi PATH-TO-criu_plugin_onenode.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onenode-criu-plugin-abi.h"
#include "onenode-criu-image.h"
#include "../../lib/tests/tap.h"

/* ---- what the criu binary exports ---- */

static char criu_log[16384];
static size_t criu_log_len;
static int image_dirfd = -1;
static const char *inventory_lists;	/* plugin named in the dump's inventory */
static int inventory_added;

__attribute__((visibility("default")))
void print_on_level(unsigned int level, const char *format, ...)
{
	va_list ap;
	int n;

	(void)level;
	va_start(ap, format);
	n = vsnprintf(criu_log + criu_log_len, sizeof(criu_log) - criu_log_len, format, ap);
	va_end(ap);
	if (n > 0)
		criu_log_len += (size_t)n < sizeof(criu_log) - criu_log_len ?
				(size_t)n : sizeof(criu_log) - criu_log_len - 1;
}

__attribute__((visibility("default")))
int criu_get_image_dir(void)
{
	return image_dirfd;
}

__attribute__((visibility("default")))
int add_inventory_plugin(const char *name)
{
	(void)name;
	inventory_added++;
	return 0;
}

__attribute__((visibility("default")))
_Bool check_and_remove_inventory_plugin(const char *name, size_t n)
{
	return inventory_lists && !strncmp(name, inventory_lists, n);
}

/* ---- the test ---- */

static void log_reset(void)
{
	criu_log_len = 0;
	criu_log[0] = '\0';
}

/* The plugin logged @text; on failure the log is shown as TAP comments. */
#define CHECK_LOG(text) do {						\
	bool found_ = strstr(criu_log, text) != NULL;			\
	CHECK(found_, "log says \"%s\"", text);			\
	if (!found_)							\
		show_log();						\
} while (0)

static void show_log(void)
{
	for (const char *p = criu_log; *p;) {
		const char *nl = strchrnul(p, '\n');

		printf("#   log: %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/* Every line the plugin logged starts with "onenode: ". */
static bool log_prefixed(void)
{
	const char *line = criu_log;

	while (*line) {
		const char *nl = strchr(line, '\n');

		if (strncmp(line, "onenode: ", 9))
			return false;
		if (!nl)
			return false;
		line = nl + 1;
	}
	return true;
}

static void write_image(const char *tmp, const char *driver, uint32_t id)
{
	struct onenode_criu_record rec;
	int ret;

	memset(&rec, 0, sizeof(rec));
	rec.file_id = id;
	rec.open_flags = O_RDWR;
	snprintf(rec.driver, sizeof(rec.driver), "%s", driver);
	snprintf(rec.path, sizeof(rec.path), "%s/renderD128", tmp);
	rec.device.page_size = 4096;
	ret = onenode_criu_image_write(image_dirfd, &rec);
	if (ret)
		printf("# cannot write image %#x: %s\n", id, strerror(-ret));
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/onenode-criu-abi-XXXXXX", empty[64], name[32];
	struct criu_plugin_desc *d;
	criu_dump_ext_file_fn *dump;
	criu_restore_ext_file_fn *restore;
	criu_handle_device_vma_fn *vma;
	criu_checkpoint_devices_fn *checkpoint;
	criu_update_vma_map_fn *update_vma;
	struct stat st;
	void *h;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-criu_plugin_onenode.so\n", argv[0]);
		return 2;
	}
	if (!mkdtemp(tmp))
		return 1;
	snprintf(empty, sizeof(empty), "%s/dri", tmp);
	mkdir(empty, 0755);
	/* No real render node may be touched: an empty /dev/dri. */
	setenv(ONENODE_DRI_DIR_ENV, empty, 1);
	image_dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	/* The loader: RTLD_LAZY, then the descriptor symbol. */
	h = dlopen(argv[1], RTLD_LAZY);
	CHECK(h != NULL, "dlopen: %s", h ? "ok" : dlerror());
	if (!h)
		return tap_done();
	d = dlsym(h, CRIU_PLUGIN_DESC_SYMBOL);
	CHECK(d != NULL, "descriptor symbol %s exported", CRIU_PLUGIN_DESC_SYMBOL);
	if (!d)
		return tap_done();
	CHECK_STR(d->name, "onenode", "plugin name (recorded in the inventory)");
	CHECK_EQ(d->version, 0x200, "ABI version 0.2.0 (CRIU 4.1.1)");
	CHECK(d->max_hooks <= 12, "hook count within CRIU 4.1.1's 12 (%u)", d->max_hooks);
	CHECK(d->init && d->exit, "init and exit set");
	for (unsigned int i = 0; i < d->max_hooks; i++) {
		bool want = i == CRIU_HOOK_DUMP_EXT_FILE || i == CRIU_HOOK_RESTORE_EXT_FILE ||
			    i == CRIU_HOOK_HANDLE_DEVICE_VMA || i == CRIU_HOOK_CHECKPOINT_DEVICES ||
			    i == CRIU_HOOK_UPDATE_VMA_MAP || i == CRIU_HOOK_RESUME_DEVICES_LATE;

		CHECK(!!d->hooks[i] == want, "hook %u %s", i, want ? "set" : "unset");
	}
	CHECK(dlsym(h, "onenode_dump_ext_file") == NULL && dlsym(h, "onenode_open_path") == NULL,
	      "nothing but the descriptor exported");
	dump = (criu_dump_ext_file_fn *)d->hooks[CRIU_HOOK_DUMP_EXT_FILE];
	restore = (criu_restore_ext_file_fn *)d->hooks[CRIU_HOOK_RESTORE_EXT_FILE];
	vma = (criu_handle_device_vma_fn *)d->hooks[CRIU_HOOK_HANDLE_DEVICE_VMA];
	checkpoint = (criu_checkpoint_devices_fn *)d->hooks[CRIU_HOOK_CHECKPOINT_DEVICES];
	update_vma = (criu_update_vma_map_fn *)d->hooks[CRIU_HOOK_UPDATE_VMA_MAP];
	/* Outside a restore that used the plugin, the late hook does nothing. */
	CHECK_EQ(((criu_resume_devices_late_fn *)d->hooks[CRIU_HOOK_RESUME_DEVICES_LATE])(getpid()),
		 -ENOTSUP, "RESUME_DEVICES_LATE outside a restore: -ENOTSUP");

	/* An unknown stage is an ABI mismatch, refused loudly. */
	log_reset();
	CHECK(d->init(7) != 0, "init refuses an unknown stage");
	CHECK_LOG("ABI mismatch");

	/* Dump: files that are not render nodes of ours are left to others. */
	log_reset();
	CHECK_EQ(d->init(CRIU_STAGE_DUMP), 0, "init(dump)");
	CHECK(strstr(criu_log, "onenode: plugin loaded for dump") != NULL, "dump init logged");
	fd = open("/dev/null", O_RDWR);
	CHECK_EQ(dump(fd, 1), -ENOTSUP, "/dev/null is not ours");
	CHECK(fstat(fd, &st) == 0 && vma(fd, &st) == -ENOTSUP, "a /dev/null mapping is not ours");
	close(fd);
	fd = open(argv[1], O_RDONLY);
	CHECK_EQ(dump(fd, 2), -ENOTSUP, "a regular file is not ours");
	CHECK(fstat(fd, &st) == 0 && vma(fd, &st) == -ENOTSUP, "a file mapping is not ours");
	close(fd);
	/* CRIU runs the next plugin's hook only after an -ENOTSUP. */
	CHECK_EQ(checkpoint(getpid()), -ENOTSUP,
		 "checkpoint_devices of a task without nodes: -ENOTSUP, left to other plugins");
	CHECK_EQ(inventory_added, 0, "nothing dumped: not in the inventory");
	onenode_criu_image_name(1, name, sizeof(name));
	CHECK(faccessat(image_dirfd, name, F_OK, 0) != 0, "no image written");
	d->exit(CRIU_STAGE_DUMP, 0);
	CHECK(strstr(criu_log, "0 render-node fds seen, 0 files saved") != NULL,
	      "exit reports the counts");
	CHECK(log_prefixed(), "every dump log line has the onenode: prefix");

	/* Restore of a dump that did not use the plugin: idle. */
	log_reset();
	write_image(tmp, "vcompute", 5);
	inventory_lists = NULL;
	CHECK_EQ(d->init(CRIU_STAGE_RESTORE), 0, "init(restore)");
	CHECK(strstr(criu_log, "staying idle") != NULL, "idle when not in the inventory");
	CHECK_EQ(restore(5), -ENOTSUP, "an idle plugin restores nothing");
	d->exit(CRIU_STAGE_RESTORE, 0);

	/* Restore with the plugin in the inventory. */
	log_reset();
	inventory_lists = "onenode";
	CHECK_EQ(d->init(CRIU_STAGE_RESTORE), 0, "init(restore) listed");
	CHECK(strstr(criu_log, "staying idle") == NULL, "active when in the inventory");
	CHECK_EQ(restore(6), -ENOTSUP, "no image for that id: not ours");
	{
		uint64_t pgoff = 0;
		int pfd = -1;

		CHECK_EQ(update_vma("/dev/null", 0x1000, 0, &pgoff, &pfd), -ENOTSUP,
			 "a mapping of another file is not ours");
		CHECK_EQ(pfd, -1, "and no fd handed over");
	}

	log_reset();
	CHECK(restore(5) < 0 && restore(5) != -ENOTSUP, "vcompute image, no vcompute node: fails");
	CHECK_LOG("no vcompute render node to restore onto");

	log_reset();
	write_image(tmp, "vgem", 7);
	CHECK(restore(7) < 0 && restore(7) != -ENOTSUP, "missing driver fails");

	log_reset();
	onenode_criu_image_name(8, name, sizeof(name));
	fd = openat(image_dirfd, name, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, "onenode-criu-image 9\n", 21) == 21, "write a future image");
	close(fd);
	CHECK(restore(8) < 0 && restore(8) != -ENOTSUP, "future image version fails");
	CHECK_LOG("bad image: image format version 9 is newer");

	/* A version 1 image (the CAPS report, before the query uapi). */
	log_reset();
	onenode_criu_image_name(9, name, sizeof(name));
	fd = openat(image_dirfd, name, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, "onenode-criu-image 1\n", 21) == 21, "write an old image");
	close(fd);
	CHECK(restore(9) < 0 && restore(9) != -ENOTSUP, "old image version fails");
	CHECK_LOG("bad image: image format version 1 is older");
	d->exit(CRIU_STAGE_RESTORE, -1);
	CHECK(log_prefixed(), "every restore log line has the onenode: prefix");

	for (uint32_t id = 5; id <= 9; id++) {
		onenode_criu_image_name(id, name, sizeof(name));
		unlinkat(image_dirfd, name, 0);
	}
	close(image_dirfd);
	rmdir(empty);
	CHECK(rmdir(tmp) == 0, "temporary images dir cleaned");
	dlclose(h);
	return tap_done();
}
