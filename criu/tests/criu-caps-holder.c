// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The task criu-smoke.sh checkpoints: it opens the vcompute render node,
 * queries its DEVICE report, says it is ready, then waits for SIGUSR1 or
 * for a "go" file. When woken (after a restore, or after a dump that
 * failed) it checks, through the same fd number, that the fd is still a
 * vcompute render node with the same identity and flags and that the
 * DEVICE report is identical, and writes "PASS" or "FAIL: reason" to the
 * result file.
 *
 * It keeps no mapping of the node: the plugin does not save mappings yet.
 *
 * With CRIU_HOLDER_OBJECTS=1 in its environment it also creates a buffer,
 * a GPU VM and a user queue (whose CPU mappings it then drops: the plugin
 * refuses mappings of the node before it sees the file), which the plugin
 * cannot save: the dump must fail. When woken it then also checks that
 * they still exist, that the kernel still counts them for it as the file's
 * owner (DRM_COMPUTE_OP_CRIU_INFO), i.e. that criu's calls on the file did
 * not take it over, and that its queue is no longer suspended: the plugin
 * paused the file before it looked, and resumed it after the failed dump.
 *
 * Usage: criu-caps-holder --probe
 *        criu-caps-holder READY-FILE GO-FILE RESULT-FILE
 * --probe exits 0 when a vcompute node can be opened and queried, 77 when
 * there is none, 1 on any other error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "onenode.h"

static volatile sig_atomic_t woken;

static void on_usr1(int sig)
{
	(void)sig;
	woken = 1;
}

/* Write @text to @path through a rename, so a reader never sees half. */
static int write_file(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

static int probe(void)
{
	struct onenode_device dev;
	struct drm_compute_query_device d;
	int ret = onenode_open_driver("vcompute", NULL, &dev);

	if (ret == -ENOENT) {
		printf("no vcompute render node in %s\n", onenode_dri_dir());
		return 77;
	}
	if (!ret)
		ret = onenode_query_device(&dev, &d);
	onenode_close(&dev);
	if (ret) {
		printf("vcompute: %s\n", onenode_strerror(ret));
		return 1;
	}
	return 0;
}

/* Drop every mapping of the node at @path (the queue's ring, state, doorbell). */
static int unmap_node(const char *path)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	unsigned long start[16], end[16];
	char line[512];
	unsigned int n = 0;
	int ret = 0;

	if (!maps)
		return -errno;
	while (n < 16 && fgets(line, sizeof(line), maps)) {
		const char *p = strchr(line, '/');

		line[strcspn(line, "\n")] = 0;
		if (p && !strcmp(p, path) && sscanf(line, "%lx-%lx", &start[n], &end[n]) == 2)
			n++;
	}
	fclose(maps);
	while (n--)
		if (munmap((void *)start[n], end[n] - start[n]))
			ret = -errno;
	return ret;
}

/*
 * The buffer is still there (it has a mapping offset), the kernel counts
 * our buffers, VM and queue for us, the file's owner, and the queue runs
 * (idle, not suspended).
 */
static int check_objects(const struct onenode_device *dev, uint32_t bo,
			 const struct drm_compute_criu_info *before, uint32_t queue_id)
{
	struct drm_compute_userq_state st;
	struct drm_compute_criu_info info;
	uint64_t offset;
	int ret = onenode_criu_info(dev, &info);

	if (!ret && (info.bos != before->bos || info.vms != 1 || info.userqs != 1))
		ret = -ENOENT;
	if (!ret)
		ret = onenode_bo_mmap_offset(dev, bo, &offset);
	if (!ret)
		ret = onenode_userq_state(dev, queue_id, &st);
	if (!ret && st.status == DRM_COMPUTE_USERQ_STATUS_SUSPENDED)
		ret = -EBUSY;
	return ret;
}

int main(int argc, char **argv)
{
	struct onenode_device dev, again;
	struct drm_compute_query_device before, after;
	struct sigaction sa;
	struct stat st_before, st_after;
	char text[1024];
	int ret, fl_before, fdfl_before;
	struct drm_compute_criu_info counts = { 0 };
	struct onenode_queue queue = { 0 };
	uint32_t bo = 0, vm = 0;
	int obj_ret = 0;
	bool objects;

	if (argc == 2 && !strcmp(argv[1], "--probe"))
		return probe();
	if (argc != 4) {
		fprintf(stderr, "usage: %s --probe | READY-FILE GO-FILE RESULT-FILE\n", argv[0]);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	ret = onenode_open_driver("vcompute", NULL, &dev);
	if (!ret)
		ret = onenode_query_device(&dev, &before);
	if (ret) {
		snprintf(text, sizeof(text), "FAIL: before the checkpoint: %s\n",
			 onenode_strerror(ret));
		write_file(argv[3], text);
		return 1;
	}
	objects = getenv("CRIU_HOLDER_OBJECTS") && !strcmp(getenv("CRIU_HOLDER_OBJECTS"), "1");
	if (objects) {
		const struct onenode_queue_params params = {
			.va = 0x10000000ull, .priority = ONENODE_PRIORITY_DEFAULT,
		};

		ret = onenode_bo_create(&dev, 4096, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo);
		if (!ret)
			ret = onenode_vm_create_flags(&dev, 0, &vm);
		if (!ret)
			ret = onenode_queue_init(&queue, &dev, vm, &params);
		if (!ret)
			ret = unmap_node(dev.path);
		if (!ret)
			ret = onenode_criu_info(&dev, &counts);
		if (ret) {
			snprintf(text, sizeof(text), "FAIL: objects: %s\n", onenode_strerror(ret));
			write_file(argv[3], text);
			return 1;
		}
	}
	fstat(dev.fd, &st_before);
	fl_before = fcntl(dev.fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK);
	fdfl_before = fcntl(dev.fd, F_GETFD);

	snprintf(text, sizeof(text), "pid %d fd %d path %s\n", getpid(), dev.fd, dev.path);
	if (write_file(argv[1], text))
		return 1;

	/* CRIU may checkpoint and restore us anywhere in this loop. */
	while (!woken && access(argv[2], F_OK)) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}

	/*
	 * CRIU_INFO first: any other ioctl would make us the owner again,
	 * had criu's calls taken the file over.
	 */
	if (objects)
		obj_ret = check_objects(&dev, bo, &counts, queue.id);

	/* The same fd number, without reopening anything. */
	ret = onenode_device_from_fd(dev.fd, &again);
	if (ret) {
		snprintf(text, sizeof(text), "FAIL: fd %d is no DRM node any more: %s\n", dev.fd,
			 onenode_strerror(ret));
	} else if (strcmp(again.driver, "vcompute")) {
		snprintf(text, sizeof(text), "FAIL: fd %d is driven by %s\n", dev.fd, again.driver);
	} else if ((ret = onenode_query_device(&again, &after))) {
		snprintf(text, sizeof(text), "FAIL: DEVICE query on fd %d: %s\n", dev.fd,
			 onenode_strerror(ret));
	} else if (memcmp(&before, &after, sizeof(before))) {
		snprintf(text, sizeof(text), "FAIL: DEVICE report changed (vram %llu -> %llu, "
			 "features %#llx -> %#llx, page size %u -> %u)\n",
			 (unsigned long long)before.vram_size, (unsigned long long)after.vram_size,
			 (unsigned long long)before.features, (unsigned long long)after.features,
			 before.page_size, after.page_size);
	} else if (fstat(dev.fd, &st_after) || st_after.st_rdev != st_before.st_rdev) {
		snprintf(text, sizeof(text), "FAIL: fd %d is another node now\n", dev.fd);
	} else if ((fcntl(dev.fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) != fl_before ||
		   fcntl(dev.fd, F_GETFD) != fdfl_before) {
		snprintf(text, sizeof(text), "FAIL: fd %d flags changed\n", dev.fd);
	} else if (obj_ret) {
		snprintf(text, sizeof(text), "FAIL: the buffer, VM and queue after the failed "
			 "dump: %s%s\n", onenode_strerror(obj_ret),
			 obj_ret == -EBUSY ? " (the queue is still suspended)" : "");
	} else {
		snprintf(text, sizeof(text), "PASS: fd %d %s, DEVICE report identical%s\n", dev.fd,
			 again.path, objects ? ", buffer, VM and running queue kept" : "");
	}
	write_file(argv[3], text);
	return strncmp(text, "PASS", 4) ? 1 : 0;
}
