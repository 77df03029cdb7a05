// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * criu_plugin_onenode.so: CRIU plugin for files of compute render nodes
 * (today: vcompute).
 *
 * CRIU dumps no DRM file by itself: for a character device it does not know
 * it calls every plugin's DUMP_EXT_FILE hook with its own copy of the fd,
 * and fails the dump when no plugin takes the file. This plugin takes the
 * files of render nodes whose driver it supports and saves, per file, the
 * node's identity and its DEVICE query report (onenode-criu-image.h). On
 * restore, RESTORE_EXT_FILE reopens the node in the restored task, refuses
 * a node whose driver or DEVICE report differs, and returns the fd; CRIU
 * then puts it at the task's fd number.
 *
 * Before criu dumps any task, the plugin pauses every supported file of the
 * dumped tasks (CHECKPOINT_DEVICES; DRM_COMPUTE_OP_CRIU_PAUSE: running
 * queues suspended, exported buffers taken from their importers), so that
 * buffers several files share are saved at one moment; a buffer an
 * importer pinned fails the pause and the dump. The files it paused are
 * resumed when criu finishes (exit()), before criu lets the tasks go.
 *
 * Saved (onenode-criu-objects.h): every buffer with its handle, placement,
 * mmap offset and contents, every GPU VM with its id and its mappings, and
 * every user queue (where the device restores queues: stopped by the pause,
 * mid-packet if need be, its context in its save area) and every DRM sync
 * object (no fence, or a signaled one at its timeline point), as the kernel
 * lists them (DRM_COMPUTE_OP_CRIU_CHECKPOINT). The kernel says what it cannot
 * save yet (DRM_COMPUTE_OP_CRIU_INFO's unsaved count: imported buffers,
 * buffers with an importer attached, dead queues, queues with sync-object
 * signals pending, sync objects with a pending fence);
 * a file holding any fails the dump and the process goes on running.
 * Buffers shared between files, and dma-buf fds, carry a share id: a
 * dma-buf fd is saved as which buffer it is, and at restore each shared
 * buffer is made once, in the node's restore session, and taken by every
 * file that held it; a buffer a process outside the dump also holds fails
 * the dump. On restore the objects are
 * rebuilt in the reopened file, in the restoring state that refuses every
 * other call, at the same handles and ids (DRM_COMPUTE_OP_CRIU_RESTORE);
 * a damaged image, or a device that cannot hold them, fails the restore,
 * and closing the file frees whatever was made.
 *
 * Mappings of the node: HANDLE_DEVICE_VMA takes them (criu saves no
 * contents; the buffers hold them), UPDATE_VMA_MAP moves each to the
 * restored buffer's, or the restored queue's doorbell's, mmap offset and
 * hands criu the restored file to map. The restored queues continue when
 * the restore of their file ends; a doorbell's write pointer comes back
 * with the queue, so what the task writes there next reaches it.
 *
 * Everything is logged into CRIU's log with the prefix "onenode: ".
 *
 * Environment: ONENODE_CRIU_FAULT=dump makes the dump of a supported file
 * fail, to test that a failed dump leaves the task running;
 * ONENODE_CRIU_RESTORE_NODE=PATH restores every file onto that node (of the
 * dumped driver, with a DEVICE report equal but for its id) instead of the
 * dumped one: a move to another device, or a render minor that differs
 * between machines.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/kcmp.h>
#include <linux/magic.h>

#include <xf86drm.h>

#include "onenode.h"
#include "onenode-criu-image.h"
#include "onenode-criu-objects.h"
#include "onenode-criu-plugin-abi.h"
#include "onenode-criu-pump.h"

#define PLUGIN_NAME "onenode"
/* The character major of every DRM node on Linux (DRM_MAJOR in the kernel). */
#define DRM_CHAR_MAJOR 226

#define log_info(fmt, ...) print_on_level(CRIU_LOG_INFO, "onenode: " fmt "\n", ##__VA_ARGS__)
#define log_warn(fmt, ...) print_on_level(CRIU_LOG_WARN, "onenode: " fmt "\n", ##__VA_ARGS__)
#define log_err(fmt, ...) print_on_level(CRIU_LOG_ERROR, "onenode: error: " fmt "\n", ##__VA_ARGS__)

/*
 * Drivers whose render-node files this plugin saves. amdgpu is not listed:
 * its render-node files stay with CRIU's own amdgpu plugin until the amdgpu
 * glue carries the CRIU helper.
 */
static const char *const supported_drivers[] = { "vcompute" };

static int stage = -1;
/* Restore: the dump used this plugin (its inventory lists it). */
static bool restore_enabled;
static bool in_inventory;
static bool fault_dump;
/* Dump: render-node fds seen in the tasks, files saved. */
static unsigned int nr_fds_seen, nr_files_dumped;

/*
 * Dump: a file this plugin paused, on a copy of criu's fd, until exit():
 * every supported render file of the dumped tasks, paused together at
 * CHECKPOINT_DEVICES, so that buffers several files share are saved at one
 * moment. @shares caches the share ids its buffers are listed with
 * (LIST_BOS), @nr_shares of them, -1 until listed.
 */
struct paused_file {
	int id;
	struct onenode_device dev;
	uint64_t *shares;
	int nr_shares;
};

static struct paused_file *paused;
static unsigned int nr_paused;

/*
 * Dump: the processes criu dumps, as CHECKPOINT_DEVICES names them (with
 * or without a render node), until exit(): a dma-buf fd or mapping in any
 * other process shares a buffer the dump saves (struct outside_holds).
 */
static pid_t *tree_pids;
static unsigned int nr_tree_pids;

/**
 * struct outside_holds - what processes outside the dump hold
 *
 * Read from /proc once per dump, at the first check that needs it
 * (scan_outside()), and dropped at exit(). The dumped processes are frozen
 * by then; the others are not, and a walk per check would be no less
 * racy, only slower: one walk of every process's fds and mappings per
 * shared buffer and per file. What /proc cannot show (an fd in flight in
 * a unix socket) is not there.
 */
static struct outside_holds {
	/** @scanned: the walk ran (whatever it found). */
	bool scanned;
	/** @dmabufs: dma-bufs held, by fd or mapping, and who holds them. */
	struct outside_dmabuf {
		uint64_t ino;
		pid_t pid;
		bool mapped;
	} *dmabufs;
	unsigned int nr_dmabufs;
	/** @drm_fds: fds on DRM character devices, for kcmp(). */
	struct outside_drm_fd {
		pid_t pid;
		int fd;
	} *drm_fds;
	unsigned int nr_drm_fds;
} outside;

/* Forget what scan_outside() read: at the dump's end, or after a failed walk. */
static void free_outside(void)
{
	free(outside.dmabufs);
	free(outside.drm_fds);
	memset(&outside, 0, sizeof(outside));
}

/*
 * Restore: a buffer or a queue's doorbell page restored by any task, for
 * UPDATE_VMA_MAP: mappings at [@old_offset, @old_offset + @size) of the
 * node the dump called @src_path move to @new_offset on @rdev's node
 * (mmap offsets are per device: two dumped nodes can have used the same).
 * The file that holds it is the one in
 * which buffer @handle has the mmap offset @key_offset: the buffer itself,
 * or for a doorbell (@queue_id non-zero) a buffer of the same file.
 * @ready is set last (release), so a task never reads a half-written entry.
 */
struct restored_bo {
	uint32_t ready;
	char src_path[64];
	uint64_t rdev;
	uint32_t handle;
	uint64_t key_offset;
	uint32_t queue_id;
	uint64_t old_offset;
	uint64_t new_offset;
	uint64_t size;
};

/*
 * The restored buffers of every task, in memory shared by all of them:
 * criu's main process maps it at init, before it forks the tasks. A child
 * inherits its parent's mappings of a file the parent restored (fork()
 * copies them), so the task that maps is not always the one that restored.
 * Entries are appended with an atomic count and never removed.
 */
struct restored_table {
	uint32_t count;
	uint32_t cap;
	struct restored_bo e[];
};

#define RESTORED_TABLE_BYTES	(4u << 20)

static struct restored_table *restored;

/* Map the shared table of restored buffers (init, in criu's main process). */
static int restored_table_init(void)
{
	void *p = mmap(NULL, RESTORED_TABLE_BYTES, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	restored = p;
	restored->cap = (RESTORED_TABLE_BYTES - sizeof(*restored)) / sizeof(restored->e[0]);
	return 0;
}

/*
 * Restore: a restore session per supported render node, opened in criu's
 * main process before it forks the tasks (so every task's plugin knows
 * the ids) and held there until exit(): buffers the dump listed with a
 * share id are made once and shared again by every file that held them.
 */
struct restore_session {
	uint64_t rdev;
	uint64_t id;
	struct onenode_device dev;
};

static struct restore_session *sessions;
static unsigned int nr_sessions;

static const char *stage_name(int s)
{
	switch (s) {
	case CRIU_STAGE_DUMP:
		return "dump";
	case CRIU_STAGE_PRE_DUMP:
		return "pre-dump";
	case CRIU_STAGE_RESTORE:
		return "restore";
	}
	return "unknown";
}

static bool driver_supported(const char *driver)
{
	for (size_t i = 0; i < sizeof(supported_drivers) / sizeof(supported_drivers[0]); i++)
		if (!strcmp(driver, supported_drivers[i]))
			return true;
	return false;
}

/*
 * Identify @fd as a render node of a supported driver. Returns 0 when it is
 * one, -ENOTSUP when it is anything else (not ours: CRIU asks the next
 * plugin), another negative errno when the check itself failed.
 */
static int identify(int fd, struct onenode_device *dev)
{
	struct stat st;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != DRM_CHAR_MAJOR)
		return -ENOTSUP;
	ret = onenode_device_from_fd(fd, dev);
	if (ret == -ENOTTY)
		return -ENOTSUP;
	if (ret)
		return ret;
	if (!driver_supported(dev->driver) || drmGetNodeTypeFromFd(fd) != DRM_NODE_RENDER) {
		onenode_close(dev);
		return -ENOTSUP;
	}
	return 0;
}

/* Open a restore session on every render node of a supported driver. */
static void open_sessions(void)
{
	const char *dir = onenode_dri_dir();
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		log_warn("cannot list %s: %s: no restore session, shared buffers will not "
			 "restore", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		char path[ONENODE_PATH_MAX];
		struct restore_session *more, r;
		int ret;

		if (strncmp(de->d_name, "renderD", 7) ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (onenode_open_path(path, &r.dev))
			continue;
		if (!driver_supported(r.dev.driver)) {
			onenode_close(&r.dev);
			continue;
		}
		ret = onenode_criu_session(&r.dev, &r.id);
		more = ret ? NULL : realloc(sessions, (nr_sessions + 1) * sizeof(*sessions));
		if (!more) {
			log_warn("%s: no restore session (%s): its shared buffers will not restore",
				 path, ret ? onenode_strerror(ret) : "out of memory");
			onenode_close(&r.dev);
			continue;
		}
		r.rdev = r.dev.rdev;
		sessions = more;
		sessions[nr_sessions++] = r;
		log_info("%s: restore session %llu", path, (unsigned long long)r.id);
	}
	closedir(d);
}

/* The restore session of the node @rdev, 0 for none. */
static uint64_t session_of(uint64_t rdev)
{
	for (unsigned int i = 0; i < nr_sessions; i++)
		if (sessions[i].rdev == rdev)
			return sessions[i].id;
	return 0;
}

static void close_sessions(void)
{
	for (unsigned int i = 0; i < nr_sessions; i++)
		onenode_close(&sessions[i].dev);
	free(sessions);
	sessions = NULL;
	nr_sessions = 0;
}

static int onenode_init(int s)
{
	const char *fault = getenv("ONENODE_CRIU_FAULT");

	if (s != CRIU_STAGE_DUMP && s != CRIU_STAGE_PRE_DUMP && s != CRIU_STAGE_RESTORE) {
		/* An unknown stage means this criu speaks another plugin ABI. */
		log_err("criu called init with unknown stage %d: plugin ABI mismatch "
			"(built for CRIU plugin ABI %#x, criu 4.1.1)", s, CRIU_ABI_VERSION_4_1_1);
		return -1;
	}
	stage = s;
	fault_dump = fault && !strcmp(fault, "dump");
	if (s == CRIU_STAGE_RESTORE) {
		restore_enabled = check_and_remove_inventory_plugin(PLUGIN_NAME,
								    strlen(PLUGIN_NAME) + 1);
		log_info("plugin loaded for restore (CRIU plugin ABI %#x)%s",
			 CRIU_ABI_VERSION_4_1_1,
			 restore_enabled ? "" : "; the dump did not use it, staying idle");
		if (restore_enabled) {
			int ret = restored_table_init();

			if (ret) {
				log_err("cannot map the table of restored buffers: %s",
					strerror(-ret));
				return -1;
			}
			open_sessions();
		}
		return 0;
	}
	log_info("plugin loaded for %s (CRIU plugin ABI %#x)%s", stage_name(s),
		 CRIU_ABI_VERSION_4_1_1, fault_dump ? "; ONENODE_CRIU_FAULT=dump set" : "");
	return 0;
}

/*
 * Resume every file the dump paused. criu calls exit() before it lets the
 * tasks go (alive after a failed dump or with --leave-running, killed
 * otherwise), so it is still their tracer. Resuming is right whatever
 * becomes of the tasks: a task left running goes on with its queues and
 * importers, a killed one frees them.
 */
static void resume_paused(void)
{
	struct drm_compute_criu_pause out;

	for (unsigned int i = 0; i < nr_paused; i++) {
		struct paused_file *p = &paused[i];
		int ret = onenode_criu_pause(&p->dev, DRM_COMPUTE_CRIU_OP_RESUME, &out);

		if (ret)
			log_err("file %#x: %s: the resume failed: %s; its queues may stay "
				"suspended", p->id, p->dev.path, onenode_strerror(ret));
		else
			log_info("file %#x: resumed: %u queues, %u exported buffers",
				 p->id, out.userqs, out.exports);
		close(p->dev.fd);
		free(p->shares);
	}
	free(paused);
	paused = NULL;
	nr_paused = 0;
}

/*
 * Pause the file of @dev (@name in messages) for the dump and keep a copy
 * of its fd until exit(). A pinned buffer fails the pause, which changes
 * nothing. @id is criu's id of the file, 0 while unknown.
 */
static int pause_file(int id, const char *name, const struct onenode_device *dev)
{
	struct drm_compute_criu_pause out;
	struct paused_file *more;
	int ret, fd;

	more = realloc(paused, (nr_paused + 1) * sizeof(*paused));
	if (!more)
		return -ENOMEM;
	paused = more;
	fd = fcntl(dev->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		log_err("%s: cannot keep a copy of fd %d: %s", name, dev->fd, strerror(errno));
		return ret;
	}
	ret = onenode_criu_pause(dev, DRM_COMPUTE_CRIU_OP_PAUSE, &out);
	if (ret) {
		close(fd);
		if (ret == -EPERM)
			log_err("%s: %s: the kernel refused the pause (%s): criu needs "
				"CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN", name, dev->path,
				onenode_strerror(ret));
		else if (ret == -EBUSY)
			log_err("%s: %s (%s): a buffer of the file is held by an importer "
				"that cannot let go (a pinned importer such as an RDMA memory "
				"region, a kernel mapping, or another device attached to a buffer "
				"exported without an export flag; DRM_COMPUTE_OP_P2P_REPORT names "
				"the importers); failing the dump, the process keeps running",
				name, dev->path, dev->driver);
		else
			log_err("%s: %s: the pause failed: %s", name, dev->path,
				onenode_strerror(ret));
		return ret;
	}
	paused[nr_paused].id = id;
	paused[nr_paused].dev = *dev;
	paused[nr_paused].dev.fd = fd;
	paused[nr_paused].dev.owns_fd = 0;
	paused[nr_paused].shares = NULL;
	paused[nr_paused].nr_shares = -1;
	nr_paused++;
	log_info("%s: paused: %u queues suspended, %u exported buffers taken from "
		 "their importers", name, out.userqs, out.exports);
	return 0;
}

static void onenode_exit(int s, int ret)
{
	if (s == CRIU_STAGE_DUMP) {
		resume_paused();
		free(tree_pids);
		tree_pids = NULL;
		nr_tree_pids = 0;
		free_outside();
		log_info("dump finished (criu status %d): %u render-node fds seen, %u files saved",
			 ret, nr_fds_seen, nr_files_dumped);
		/*
		 * Render-node fds in the tasks but no file saved: this criu did
		 * not route them through DUMP_EXT_FILE, so the images lack them.
		 */
		if (!ret && nr_fds_seen && !nr_files_dumped)
			log_err("criu never called DUMP_EXT_FILE for the %u render-node fds it "
				"dumped: these images will not restore them", nr_fds_seen);
	} else {
		close_sessions();
		log_info("%s finished (criu status %d)", stage_name(s), ret);
	}
}

/* The paused file @fd (criu's copy) is, or NULL when none is. */
static struct paused_file *find_paused(int fd)
{
	pid_t self = getpid();

	for (unsigned int i = 0; i < nr_paused; i++)
		if (!syscall(SYS_kcmp, self, self, KCMP_FILE, fd, paused[i].dev.fd))
			return &paused[i];
	return NULL;
}

/*
 * The next entry of @d, a listing of /proc/PID/fd at @dir, with its /proc
 * path in @path; NULL at the end.
 */
static struct dirent *next_fd(DIR *d, const char *dir, char *path, size_t len)
{
	struct dirent *de;

	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && snprintf(path, len, "%s/%s", dir, de->d_name) < (int)len)
			return de;
	return NULL;
}

/* Whether @path (a /proc/PID/fd entry) is open on a DRM character device. */
static bool is_drm_fd(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == DRM_CHAR_MAJOR;
}

/* next_fd(), for fds open on a DRM character device only. */
static struct dirent *next_drm_fd(DIR *d, const char *dir, char *path, size_t len)
{
	struct dirent *de;

	while ((de = next_fd(d, dir, path, len)))
		if (is_drm_fd(path))
			return de;
	return NULL;
}

/*
 * Before criu dumps any task: pause every supported render file of @pid,
 * through a copy of its fd (pidfd_getfd(), taken only for DRM character
 * devices), once per open file however many fds or tasks hold it. All the
 * tree's files are paused before anything is saved: buffers they share are
 * saved at one moment, and the holders of each can be counted
 * (check_shared()). Counts the fds for the check in exit().
 */
static int onenode_checkpoint_devices(int pid)
{
	char dir[64], path[64 + sizeof(((struct dirent *)0)->d_name)];
	struct dirent *de;
	unsigned int n = 0;
	int pidfd, ret = 0;
	pid_t *more;
	DIR *d;

	more = realloc(tree_pids, (nr_tree_pids + 1) * sizeof(*tree_pids));
	if (!more)
		return -ENOMEM;
	tree_pids = more;
	tree_pids[nr_tree_pids++] = pid;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d) {
		log_warn("cannot list %s: %s", dir, strerror(errno));
		return -ENOTSUP;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		ret = -errno;
		log_err("task %d: pidfd_open failed: %s", pid, strerror(-ret));
		closedir(d);
		return ret;
	}
	while (!ret && (de = next_drm_fd(d, dir, path, sizeof(path)))) {
		struct onenode_device dev;
		char name[64 + sizeof(de->d_name)];
		int fd;

		fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
		if (fd < 0)
			continue;	/* closed since the listing */
		if (identify(fd, &dev)) {
			close(fd);
			continue;
		}
		n++;
		snprintf(name, sizeof(name), "task %d fd %s", pid, de->d_name);
		log_info("%s: %s render node", name, dev.driver);
		if (!find_paused(fd))
			ret = pause_file(0, name, &dev);
		onenode_close(&dev);
		close(fd);
	}
	closedir(d);
	close(pidfd);
	nr_fds_seen += n;
	/*
	 * CRIU stops at the first plugin that answers anything but -ENOTSUP:
	 * a task without this plugin's files is left to the others (CUDA's).
	 */
	return ret ? ret : n ? 0 : -ENOTSUP;
}

static int list_all(const struct onenode_device *dev, uint32_t op, size_t size, void **out,
		    uint32_t *n);

/* The share ids of the buffers of paused file @p, listed once. */
static int paused_shares(struct paused_file *p)
{
	struct drm_compute_criu_bo *bos;
	uint32_t n;
	int ret;

	if (p->nr_shares >= 0)
		return 0;
	ret = list_all(&p->dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, sizeof(*bos), (void **)&bos, &n);
	if (ret)
		return ret;
	p->shares = malloc((n ? n : 1) * sizeof(*p->shares));
	if (!p->shares) {
		free(bos);
		return -ENOMEM;
	}
	p->nr_shares = 0;
	for (uint32_t i = 0; i < n; i++)
		if (bos[i].share)
			p->shares[p->nr_shares++] = bos[i].share;
	free(bos);
	return 0;
}

/*
 * The paused files of the node @rdev that hold the buffer with share id
 * @share; a negative errno when one of them cannot be listed.
 */
static int tree_holders(uint64_t rdev, uint64_t share)
{
	int n = 0, ret;

	for (unsigned int i = 0; i < nr_paused; i++) {
		struct paused_file *p = &paused[i];

		if (p->dev.rdev != rdev)
			continue;
		ret = paused_shares(p);
		if (ret) {
			log_err("%s: a file of the dumped processes cannot be listed: %s",
				p->dev.path, onenode_strerror(ret));
			return ret;
		}
		for (int j = 0; j < p->nr_shares; j++)
			n += p->shares[j] == share;
	}
	return n;
}

/* Add @b to outside.dmabufs; -ENOMEM. */
static int add_dmabuf(const struct outside_dmabuf *b)
{
	struct outside_dmabuf *more = realloc(outside.dmabufs,
					      (outside.nr_dmabufs + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	more[outside.nr_dmabufs++] = *b;
	outside.dmabufs = more;
	return 0;
}

/* Add @f to outside.drm_fds; -ENOMEM. */
static int add_drm_fd(const struct outside_drm_fd *f)
{
	struct outside_drm_fd *more = realloc(outside.drm_fds,
					      (outside.nr_drm_fds + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	more[outside.nr_drm_fds++] = *f;
	outside.drm_fds = more;
	return 0;
}

/* Process @pid's fds: the dma-bufs (named "/dmabuf:NAME") and DRM fds. */
static int scan_fds(pid_t pid)
{
	char dir[64], path[64 + sizeof(((struct dirent *)0)->d_name)], link[16];
	struct dirent *de;
	struct stat st;
	int ret = 0;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d)
		return 0;	/* gone, or a kernel thread */
	while (!ret && (de = next_fd(d, dir, path, sizeof(path)))) {
		n = readlink(path, link, sizeof(link));
		if (n >= 8 && !memcmp(link, "/dmabuf:", 8)) {
			struct outside_dmabuf b = { .pid = pid };

			if (stat(path, &st))
				continue;
			b.ino = (uint64_t)st.st_ino;
			ret = add_dmabuf(&b);
		} else if (is_drm_fd(path)) {
			struct outside_drm_fd f = { .pid = pid, .fd = atoi(de->d_name) };

			ret = add_drm_fd(&f);
		}
	}
	closedir(d);
	return ret;
}

/* Process @pid's mappings of dma-bufs. */
static int scan_maps(pid_t pid)
{
	char path[64], line[512];
	unsigned long long inode;
	int name, ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		struct outside_dmabuf b = { .pid = pid, .mapped = true };

		name = 0;
		if (sscanf(line, "%*x-%*x %*s %*x %*x:%*x %llu %n", &inode, &name) != 1 || !name ||
		    strncmp(line + name, "/dmabuf:", 8))
			continue;
		b.ino = inode;
		ret = add_dmabuf(&b);
	}
	fclose(f);
	return ret;
}

/*
 * Walk /proc once for this dump (struct outside_holds): every process but
 * criu itself (a copy of each fd it dumps) and the dumped ones. Returns 0,
 * also when /proc cannot be listed (warned: nothing outside is then
 * checked), or -ENOMEM.
 */
static int scan_outside(void)
{
	pid_t self = getpid(), pid;
	unsigned int procs = 0;
	struct dirent *de;
	int ret = 0;
	bool ours;
	DIR *d;

	if (outside.scanned)
		return 0;
	outside.scanned = true;
	d = opendir("/proc");
	if (!d) {
		log_warn("cannot list /proc: %s; dma-buf and render-node fds of processes "
			 "outside the dump not checked", strerror(errno));
		return 0;
	}
	while (!ret && (de = readdir(d))) {
		pid = (pid_t)atoi(de->d_name);
		if (pid <= 0 || pid == self)
			continue;
		ours = false;
		for (unsigned int i = 0; i < nr_tree_pids && !ours; i++)
			ours = tree_pids[i] == pid;
		if (ours)
			continue;
		procs++;
		ret = scan_fds(pid);
		if (!ret)
			ret = scan_maps(pid);
	}
	closedir(d);
	if (ret) {
		/* Nothing half-read is kept: a later check walks again. */
		log_err("no memory to list what processes outside the dump hold");
		free_outside();
	} else {
		log_info("read /proc once for this dump: %u processes outside it hold %u dma-buf "
			 "fds or mappings and %u render-node fds", procs, outside.nr_dmabufs,
			 outside.nr_drm_fds);
	}
	return ret;
}

/* The command name of process @pid, for messages; "?" when unreadable. */
static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	else
		snprintf(buf, len, "?");
	fclose(f);
}

/*
 * A buffer shared with a file or process the dump does not hold: refuse,
 * naming it. Returns 0 when every file that holds the buffer (@sh->files,
 * the kernel's count) is among the dumped processes' files and no other
 * process holds its dma-buf (@sh->dmabuf_ino) by fd or mapping.
 */
static int check_holders(const char *what, const struct onenode_device *dev,
			 const struct drm_compute_criu_share *sh)
{
	int in_tree = tree_holders(dev->rdev, sh->share), ret;
	const struct outside_dmabuf *b = NULL;
	char comm[64] = "?";

	if (in_tree < 0)
		return in_tree;
	if ((uint32_t)in_tree < sh->files) {
		log_err("%s: buffer %#llx of %s is held by %u files of the device, %d of them in "
			"the dumped processes: a process outside the dump shares it; failing the "
			"dump, the process keeps running", what, (unsigned long long)sh->share,
			dev->path, sh->files, in_tree);
		return -EBUSY;
	}
	if (!sh->dmabuf_ino)
		return 0;
	ret = scan_outside();
	if (ret)
		return ret;
	for (unsigned int i = 0; i < outside.nr_dmabufs && !b; i++)
		if (outside.dmabufs[i].ino == sh->dmabuf_ino)
			b = &outside.dmabufs[i];
	if (!b)
		return 0;
	read_comm(b->pid, comm, sizeof(comm));
	log_err("%s: buffer %#llx of %s: its dma-buf (inode %llu) is held by process %d (%s), "
		"outside the dumped processes, through %s: it shares the buffer; failing the "
		"dump, the process keeps running", what, (unsigned long long)sh->share, dev->path,
		(unsigned long long)sh->dmabuf_ino, b->pid, comm,
		b->mapped ? "a mapping" : "an fd");
	return -EBUSY;
}

/*
 * Fail the dump of a file that holds objects the kernel cannot save: a
 * restore without them would lose the process's GPU state.
 */
static int check_objects(int id, const struct onenode_device *dev,
			 struct drm_compute_criu_info *info)
{
	int ret = onenode_criu_info(dev, info);

	if (ret == -EPERM) {
		log_err("file %#x: %s: the kernel refused the checkpoint check (%s): "
			"criu needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN", id, dev->path,
			onenode_strerror(ret));
		return ret;
	}
	if (ret) {
		log_err("file %#x: %s: cannot tell what the file holds: CRIU_INFO failed: %s",
			id, dev->path, onenode_strerror(ret));
		return ret;
	}
	if (info->unsaved) {
		log_err("file %#x: %s (%s) holds %u compute objects the kernel cannot save yet, "
			"among %u buffers (%u exported, %u imported), %u GPU VMs, %u user "
			"queues, %u SVM ranges; failing the dump, the process keeps running",
			id, dev->path, dev->driver, info->unsaved, info->bos, info->exports,
			info->imports, info->vms, info->userqs, info->svm_ranges);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* A LIST_* op of the paused file into a new array: *@n entries of @size. */
static int list_all(const struct onenode_device *dev, uint32_t op, size_t size, void **out,
		    uint32_t *n)
{
	uint32_t want, got;
	int ret;

	*out = NULL;
	for (;;) {
		want = 0;	/* size the list: no entries */
		ret = onenode_criu_list(dev, op, NULL, &want);
		if (ret)
			return ret;
		free(*out);
		*out = calloc(want ? want : 1, size);
		if (!*out)
			return -ENOMEM;
		got = want;
		ret = onenode_criu_list(dev, op, *out, &got);
		if (ret || got <= want)
			break;
		/* Grew in between: size it again. */
	}
	*n = got;
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One piece of a buffer's contents on its way to the image: read from the
 * kernel into @buf and checksummed on the pump's worker, written by the
 * plugin's thread while the worker reads the next piece into the other.
 */
struct dump_piece {
	const struct onenode_device *dev;
	struct onenode_obj_bo_data d;
	void *buf;
	uint64_t len;
	uint64_t check;
};

static int read_piece(void *arg)
{
	struct dump_piece *c = arg;
	int ret;

	ret = onenode_criu_read_bo(c->dev, c->d.handle, c->d.offset, c->buf, c->len);
	if (!ret)
		c->check = onenode_obj_check(ONENODE_OBJ_BO_DATA, &c->d, sizeof(c->d), c->buf, c->len);
	return ret;
}

/*
 * The copy unit: small enough that the piece just copied is still in the
 * CPU's cache when it is checksummed and written, large enough that a
 * system call per piece costs nothing; an image may hold pieces of up to
 * ONENODE_OBJ_CHUNK bytes.
 */
#define DUMP_PIECE	(2u << 20)
_Static_assert(DUMP_PIECE <= ONENODE_OBJ_CHUNK, "a piece fits a BO_DATA record");

/* The piece after (*@i, *@off), in @bos' order: false after the last. */
static bool next_piece(const struct drm_compute_criu_bo *bos, uint32_t nbos, uint32_t *i,
		       uint64_t *off)
{
	*off += DUMP_PIECE;
	while (*i < nbos && *off >= bos[*i].size) {
		++*i;
		*off = 0;
	}
	return *i < nbos;
}

/* Piece (*@i, *@off) into @c; moves to the next: false when it was the last. */
static bool take_piece(struct dump_piece *c, const struct drm_compute_criu_bo *bos,
		       uint32_t nbos, uint32_t *i, uint64_t *off)
{
	c->d = (struct onenode_obj_bo_data){ .handle = bos[*i].handle, .offset = *off };
	c->len = bos[*i].size - *off < DUMP_PIECE ? bos[*i].size - *off : DUMP_PIECE;
	return next_piece(bos, nbos, i, off);
}

/*
 * The buffers' contents, in DUMP_PIECE pieces through two buffers
 * of the plugin: the kernel's copy of the next piece (and its checksum)
 * overlaps the image's write of the last one (onenode-criu-pump.h).
 */
static int dump_contents(int id, const struct onenode_device *dev,
			 const struct drm_compute_criu_bo *bos, uint32_t nbos,
			 struct onenode_obj_writer *w, uint64_t *bytes)
{
	struct dump_piece pc[2] = { { .dev = dev }, { .dev = dev } };
	struct onenode_pump pump;
	uint32_t i = 0;
	uint64_t off = 0;
	unsigned int k = 0;
	bool more, last;
	int ret;

	/* The first piece: at the start of the first buffer with any bytes. */
	if (!nbos || (!bos[0].size && !next_piece(bos, nbos, &i, &off)))
		return 0;
	pc[0].buf = malloc(DUMP_PIECE);
	pc[1].buf = malloc(DUMP_PIECE);
	if (!pc[0].buf || !pc[1].buf) {
		free(pc[0].buf);
		free(pc[1].buf);
		return -ENOMEM;
	}
	onenode_pump_start(&pump);
	more = take_piece(&pc[0], bos, nbos, &i, &off);
	onenode_pump_submit(&pump, read_piece, &pc[0]);
	for (;;) {
		/* pc[k] is being read on the worker. */
		last = !more;
		ret = onenode_pump_wait(&pump);
		if (ret) {
			log_err("file %#x: reading buffer %u at %llu: %s", id, pc[k].d.handle,
				(unsigned long long)pc[k].d.offset, onenode_strerror(ret));
			break;
		}
		if (more) {
			more = take_piece(&pc[k ^ 1], bos, nbos, &i, &off);
			onenode_pump_submit(&pump, read_piece, &pc[k ^ 1]);
		}
		/* Meanwhile pc[k], read, goes to the image. */
		ret = onenode_obj_write_checked(w, ONENODE_OBJ_BO_DATA, pc[k].check, &pc[k].d,
						sizeof(pc[k].d), pc[k].buf, pc[k].len);
		*bytes += pc[k].len;
		if (ret || last)
			break;
		k ^= 1;
	}
	onenode_pump_stop(&pump);
	free(pc[0].buf);
	free(pc[1].buf);
	return ret;
}

/*
 * Save the paused file's buffers, VMs and mappings, and the buffers'
 * contents (dump_contents()).
 */
static int dump_objects(int id, const struct onenode_device *dev)
{
	struct drm_compute_criu_mapping *maps = NULL;
	struct drm_compute_criu_vm *vms = NULL;
	struct drm_compute_criu_syncobj *syncobjs = NULL;
	struct drm_compute_criu_queue *queues = NULL;
	struct drm_compute_criu_svm_range *svm = NULL;
	struct drm_compute_criu_signal *signals = NULL;
	struct drm_compute_criu_bo *bos = NULL;
	struct onenode_obj_writer w = { .fd = -1 };
	uint32_t nbos = 0, nvms = 0, nmaps = 0, nqueues = 0, nsyncobjs = 0, nsvm = 0;
	uint32_t nsignals = 0;
	uint64_t bytes = 0;
	double t0 = now_s();
	int ret;

	ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_BOS, sizeof(*bos), (void **)&bos, &nbos);
	if (!ret)
		ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_VMS, sizeof(*vms), (void **)&vms,
			       &nvms);
	if (!ret)
		ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS, sizeof(*maps),
			       (void **)&maps, &nmaps);
	if (!ret)
		ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_QUEUES, sizeof(*queues),
			       (void **)&queues, &nqueues);
	if (!ret)
		ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_SYNCOBJS, sizeof(*syncobjs),
			       (void **)&syncobjs, &nsyncobjs);
	if (!ret)
		ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_SVM_RANGES, sizeof(*svm),
			       (void **)&svm, &nsvm);
	if (!ret)
		ret = list_all(dev, DRM_COMPUTE_CRIU_CKPT_LIST_SIGNALS, sizeof(*signals),
			       (void **)&signals, &nsignals);
	if (ret) {
		log_err("file %#x: %s: the kernel did not list the file's objects: %s", id,
			dev->path, onenode_strerror(ret));
		goto out;
	}
	/* A buffer shared with a file the dump does not hold is not saved. */
	for (uint32_t i = 0; i < nbos; i++) {
		struct drm_compute_criu_share sh;
		char what[32];

		if (!bos[i].share)
			continue;
		ret = onenode_criu_bo_share(dev, bos[i].handle, &sh);
		if (ret) {
			log_err("file %#x: buffer %u: BO_SHARE failed: %s", id, bos[i].handle,
				onenode_strerror(ret));
			goto out;
		}
		snprintf(what, sizeof(what), "file %#x", id);
		ret = check_holders(what, dev, &sh);
		if (ret)
			goto out;
	}
	ret = onenode_obj_create(criu_get_image_dir(), (uint32_t)id, &w);
	if (ret) {
		log_err("file %#x: cannot create its objects image: %s", id, strerror(-ret));
		goto out;
	}
	ret = onenode_obj_write(&w, ONENODE_OBJ_BOS, bos, nbos * sizeof(*bos), NULL, 0);
	if (!ret)
		ret = onenode_obj_write(&w, ONENODE_OBJ_VMS, vms, nvms * sizeof(*vms), NULL, 0);
	if (!ret)
		ret = onenode_obj_write(&w, ONENODE_OBJ_MAPPINGS, maps, nmaps * sizeof(*maps),
					NULL, 0);
	if (!ret)
		ret = dump_contents(id, dev, bos, nbos, &w, &bytes);
	if (!ret && nsyncobjs)
		ret = onenode_obj_write(&w, ONENODE_OBJ_SYNCOBJS, syncobjs,
					nsyncobjs * sizeof(*syncobjs), NULL, 0);
	if (!ret && nsvm)
		ret = onenode_obj_write(&w, ONENODE_OBJ_SVM_RANGES, svm, nsvm * sizeof(*svm),
					NULL, 0);
	/* After the contents: a restored queue continues from its buffers. */
	if (!ret && nqueues)
		ret = onenode_obj_write(&w, ONENODE_OBJ_QUEUES, queues, nqueues * sizeof(*queues),
					NULL, 0);
	/* After the queues and sync objects they join. */
	if (!ret && nsignals)
		ret = onenode_obj_write(&w, ONENODE_OBJ_SIGNALS, signals,
					nsignals * sizeof(*signals), NULL, 0);
	if (!ret)
		ret = onenode_obj_finish(&w);
	if (ret) {
		log_err("file %#x: writing its objects image failed: %s", id, strerror(-ret));
		onenode_obj_abort(&w);
		goto out;
	}
	log_info("file %#x: saved %u buffers (%llu bytes of contents in %.3f s), %u GPU VMs, "
		 "%u mappings, %u user queues, %u sync objects, %u pending signals, %u SVM "
		 "ranges", id, nbos, (unsigned long long)bytes, now_s() - t0, nvms, nmaps,
		 nqueues, nsyncobjs, nsignals, nsvm);
	for (uint32_t i = 0; i < nqueues; i++)
		log_info("file %#x: queue %u %s at read pointer %llu, fence %llu", id,
			 queues[i].queue_id, queues[i].status ? "suspended by its user" :
			 "paused", (unsigned long long)queues[i].rptr,
			 (unsigned long long)queues[i].fence);
out:
	free(signals);
	free(svm);
	free(syncobjs);
	free(queues);
	free(bos);
	free(vms);
	free(maps);
	return ret;
}

/* Add the plugin to the dump's inventory, once, for the restore to find. */
static int mark_inventory(void)
{
	if (in_inventory)
		return 0;
	if (add_inventory_plugin(PLUGIN_NAME)) {
		log_err("cannot add the plugin to the inventory image");
		return -ENOMEM;
	}
	in_inventory = true;
	return 0;
}

/*
 * A dma-buf fd: save which buffer it is (its share id), if one of the
 * dumped processes' paused files holds it and no file outside them does;
 * the buffer and its contents are saved with those files. Another device's
 * dma-buf, or one no dumped file holds (an exporter that closed its handle,
 * or a process outside the dump), is left to other plugins (-ENOTSUP).
 */
static int dump_dmabuf(int fd, int id)
{
	struct onenode_obj_writer w = { .fd = -1 };
	struct onenode_obj_dmabuf rec = { 0 };
	struct drm_compute_criu_share sh;
	struct paused_file *holder = NULL;
	char what[32];
	int ret, fl;

	for (unsigned int i = 0; i < nr_paused && !holder; i++) {
		ret = onenode_criu_dmabuf(&paused[i].dev, fd, &sh);
		if (!ret)
			holder = &paused[i];
		else if (ret != -ENOENT)
			log_warn("file %#x: %s: DMABUF failed: %s", id, paused[i].dev.path,
				 onenode_strerror(ret));
	}
	if (!holder) {
		log_warn("file %#x: a dma-buf that no render-node file of the dumped processes "
			 "holds (another device's, or one whose exporter closed its handle or is "
			 "not dumped): not this plugin's", id);
		return -ENOTSUP;
	}
	snprintf(what, sizeof(what), "file %#x (dma-buf)", id);
	ret = check_holders(what, &holder->dev, &sh);
	if (ret)
		return ret;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		ret = -errno;
		log_err("file %#x: F_GETFL: %s", id, strerror(errno));
		return ret;
	}
	rec.share = sh.share;
	rec.size = sh.size;
	rec.export_flags = sh.flags;
	rec.open_flags = (uint32_t)(fl & O_ACCMODE);
	rec.rdev = holder->dev.rdev;
	ret = onenode_obj_create(criu_get_image_dir(), (uint32_t)id, &w);
	if (!ret)
		ret = onenode_obj_write(&w, ONENODE_OBJ_DMABUF, &rec, sizeof(rec), NULL, 0);
	if (!ret)
		ret = onenode_obj_finish(&w);
	if (ret) {
		log_err("file %#x: writing its dma-buf image failed: %s", id, strerror(-ret));
		onenode_obj_abort(&w);
		return ret;
	}
	ret = mark_inventory();
	if (!ret)
		log_info("dumped file %#x: a dma-buf of buffer %#llx (%llu bytes) of %s, held by "
			 "%u dumped files", id, (unsigned long long)sh.share,
			 (unsigned long long)sh.size, holder->dev.path, sh.files);
	return ret;
}

/*
 * Refuse a file that a process outside the dump holds too, naming it: a
 * copy of the fd passed on by fork() or SCM_RIGHTS. The file is one to the
 * kernel, so no count of files shows it; kcmp() against criu's fd does.
 */
static int check_file_holders(int id, int fd, const struct onenode_device *dev)
{
	const struct outside_drm_fd *f = NULL;
	pid_t self = getpid();
	char comm[64] = "?";
	int ret = scan_outside();

	if (ret)
		return ret;
	for (unsigned int i = 0; i < outside.nr_drm_fds && !f; i++)
		if (!syscall(SYS_kcmp, self, outside.drm_fds[i].pid, KCMP_FILE, fd,
			     outside.drm_fds[i].fd))
			f = &outside.drm_fds[i];
	if (!f)
		return 0;
	read_comm(f->pid, comm, sizeof(comm));
	log_err("file %#x: %s is open in process %d (%s), outside the dumped processes, as the "
		"same open file (an fd passed on by fork() or SCM_RIGHTS): after a restore that "
		"process would keep the old file; failing the dump, the process keeps running",
		id, dev->path, f->pid, comm);
	return -EBUSY;
}

static int onenode_dump_ext_file(int fd, int id)
{
	struct drm_compute_criu_info info;
	struct onenode_criu_record rec;
	struct onenode_device dev;
	struct paused_file *p;
	struct statfs sfs;
	char features[128], name[32];
	int ret, fl;

	ret = identify(fd, &dev);
	if (ret == -ENOTSUP && !fstatfs(fd, &sfs) && sfs.f_type == DMA_BUF_MAGIC)
		return dump_dmabuf(fd, id);
	if (ret == -ENOTSUP)
		return ret;
	if (ret) {
		log_err("file %#x: cannot identify fd %d: %s", id, fd, onenode_strerror(ret));
		return ret;
	}
	if (fault_dump) {
		log_err("file %#x: failing the dump of %s as ONENODE_CRIU_FAULT=dump asks",
			id, dev.path);
		onenode_close(&dev);
		return -ECANCELED;
	}

	/* Paused with the whole tree at CHECKPOINT_DEVICES; otherwise now. */
	p = find_paused(fd);
	if (p) {
		p->id = id;
	} else {
		snprintf(name, sizeof(name), "file %#x", id);
		ret = pause_file(id, name, &dev);
		if (ret)
			goto out;
	}
	ret = check_objects(id, &dev, &info);
	if (ret)
		goto out;
	/* Only where the kernel saves (unsaved is 0 on such a file). */
	if (info.bos || info.vms || info.userqs || info.syncobjs) {
		ret = check_file_holders(id, fd, &dev);
		if (!ret)
			ret = dump_objects(id, &dev);
		if (ret)
			goto out;
	}

	memset(&rec, 0, sizeof(rec));
	rec.file_id = (uint32_t)id;
	ret = onenode_query_device(&dev, &rec.device);
	if (ret) {
		log_err("file %#x: %s (%s): DEVICE query failed: %s", id, dev.path, dev.driver,
			onenode_strerror(ret));
		goto out;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		ret = -errno;
		log_err("file %#x: F_GETFL: %s", id, strerror(errno));
		goto out;
	}
	rec.open_flags = fl & (O_ACCMODE | O_NONBLOCK);
	strcpy(rec.driver, dev.driver);
	strcpy(rec.path, dev.path);
	rec.version_major = dev.version_major;
	rec.version_minor = dev.version_minor;
	rec.version_patchlevel = dev.version_patchlevel;
	rec.rdev = dev.rdev;

	ret = onenode_criu_image_write(criu_get_image_dir(), &rec);
	if (ret) {
		log_err("file %#x: cannot write its image: %s", id, strerror(-ret));
		goto out;
	}
	ret = mark_inventory();
	if (ret)
		goto out;
	nr_files_dumped++;
	onenode_features_string(rec.device.features, features, sizeof(features));
	log_info("dumped file %#x: %s %d.%d.%d at %s, image version %d, features %s, "
		 "vram %llu bytes", id, rec.driver, rec.version_major, rec.version_minor,
		 rec.version_patchlevel, rec.path, ONENODE_CRIU_IMAGE_VERSION, features,
		 (unsigned long long)rec.device.vram_size);
out:
	onenode_close(&dev);
	return ret;
}

/* Append @b to the shared table; -ENOSPC when it is full. */
static int remember(const struct restored_bo *b)
{
	uint32_t i;

	if (!restored)
		return -ENOMEM;
	i = __atomic_fetch_add(&restored->count, 1, __ATOMIC_ACQ_REL);
	if (i >= restored->cap) {
		log_err("more than %u restored buffers and doorbells: their mappings cannot move",
			restored->cap);
		return -ENOSPC;
	}
	restored->e[i] = *b;
	restored->e[i].ready = 0;
	__atomic_store_n(&restored->e[i].ready, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The key of a shared buffer in a node's restore session: its share id
 * (an mmap offset in pages, below 2^32) with the dumped node's minor
 * above it, so that two dumped devices restored onto one node never take
 * each other's buffers.
 */
static uint64_t share_key(uint64_t share, uint64_t src_rdev)
{
	return share | (uint64_t)minor((dev_t)src_rdev) << 32;
}

/* @b's source node, as the dump named it; -ENAMETOOLONG past the room. */
static int set_src(struct restored_bo *b, const char *src_path)
{
	if (snprintf(b->src_path, sizeof(b->src_path), "%s", src_path) >=
	    (int)sizeof(b->src_path)) {
		log_err("the dumped node %s: a path too long to find its mappings", src_path);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int remember_bos(const struct onenode_device *dev, const char *src_path,
			const struct drm_compute_criu_bo *bos, const uint64_t *old_offsets,
			uint32_t n)
{
	int ret = 0;

	for (uint32_t i = 0; i < n && !ret; i++) {
		struct restored_bo b = {
			.rdev = dev->rdev, .handle = bos[i].handle,
			.key_offset = bos[i].mmap_offset,
			.old_offset = old_offsets[i], .new_offset = bos[i].mmap_offset,
			.size = bos[i].size,
		};

		if (!old_offsets[i])
			continue;	/* never mapped: no mapping to move */
		ret = set_src(&b, src_path);
		if (!ret)
			ret = remember(&b);
	}
	return ret;
}

/* The doorbell pages of restored queues; @key names a buffer of their file. */
static int remember_doorbells(const struct onenode_device *dev, const char *src_path,
			      const struct drm_compute_criu_queue *queues,
			      const uint64_t *old_offsets, uint32_t n,
			      const struct drm_compute_criu_bo *key)
{
	long page = sysconf(_SC_PAGESIZE);
	int ret = 0;

	for (uint32_t i = 0; i < n && !ret; i++) {
		struct restored_bo b = {
			.rdev = dev->rdev, .handle = key->handle,
			.key_offset = key->mmap_offset, .queue_id = queues[i].queue_id,
			.old_offset = old_offsets[i], .new_offset = queues[i].doorbell_offset,
			.size = (uint64_t)page,
		};

		ret = set_src(&b, src_path);
		if (!ret)
			ret = remember(&b);
	}
	return ret;
}

/* Entries of @size in a record of @len bytes, or -1 when it is not a whole number. */
static long entries(uint64_t len, size_t size)
{
	return len % size ? -1 : (long)(len / size);
}

/*
 * An image record that is an array of @size-byte entries, made by restore
 * op @op: *@cnt set to its entries (-1 for a length that is no whole
 * number of them, and nothing done), *@made raised by those made.
 */
static int restore_array(const struct onenode_device *dev, uint32_t op, size_t size,
			 const void *p, uint64_t len, long *cnt, uint32_t *made)
{
	uint32_t n;
	int ret;

	*cnt = entries(len, size);
	if (*cnt < 0)
		return 0;
	n = (uint32_t)*cnt;
	ret = onenode_criu_restore(dev, op, (void *)p, &n);
	*made += n;
	return ret;
}

/*
 * One BO_DATA record on its way into its buffer: the kernel's copy runs on
 * the pump's worker while the plugin reads and checks the next record (the
 * reader keeps this one's payload until the call after next).
 */
struct restore_piece {
	const struct onenode_device *dev;
	const struct onenode_obj_bo_data *d;
	uint64_t len;
};

static int write_piece(void *arg)
{
	const struct restore_piece *c = arg;

	return onenode_criu_write_bo(c->dev, c->d->handle, c->d->offset, c->d + 1, c->len);
}

/*
 * Make file @id's objects in @dev from its objects image (@src is the
 * identity the dump recorded: its node's path and rdev, its device id):
 * the file is put in the restoring state, the records are applied as they
 * are read (each checked against its checksum first), and the state ends
 * at END. On any error the caller closes the file, which frees what was
 * made.
 */
static int restore_objects(int id, const struct onenode_device *dev,
			   const struct onenode_criu_record *src)
{
	const uint32_t old_dev_id = src->device.device_id;
	struct onenode_obj_reader r;
	uint64_t len, bytes = 0, *old = NULL, *old_db = NULL;
	uint32_t type, n, nbos = 0, nvms = 0, nmaps = 0, nqueues = 0, nsyncobjs = 0, nsvm = 0;
	uint32_t nsignals = 0;
	uint32_t *joined = NULL, nj = 0;
	struct drm_compute_criu_bo key = { 0 };
	struct restore_piece piece = { .dev = dev };
	struct onenode_pump pump;
	double t0 = now_s();
	const void *p;
	char why[256];
	int ret;
	long cnt;

	ret = onenode_obj_open(criu_get_image_dir(), (uint32_t)id, &r, why, sizeof(why));
	if (ret == -ENOENT)
		return 0;	/* the file held no objects */
	if (ret) {
		log_err("file %#x: bad objects image: %s", id, why);
		return ret;
	}
	ret = onenode_criu_restore(dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL);
	if (ret) {
		log_err("file %#x: %s: the kernel refused to begin the restore: %s", id,
			dev->path, onenode_strerror(ret));
		goto out;
	}
	onenode_pump_start(&pump);
	for (;;) {
		ret = onenode_obj_next(&r, &type, &p, &len, why, sizeof(why));
		if (ret) {
			log_err("file %#x: bad objects image: %s", id, why);
			break;
		}
		/*
		 * The contents go in while the next record is read; every
		 * other record waits for them (a queue continues from its
		 * buffers).
		 */
		ret = onenode_pump_wait(&pump);
		if (ret) {
			log_err("file %#x: %s (%s) refused the contents of buffer %u at %llu: %s",
				id, dev->path, dev->driver, piece.d->handle,
				(unsigned long long)piece.d->offset, onenode_strerror(ret));
			break;
		}
		if (type == ONENODE_OBJ_END) {
			/*
			 * Paused: no queue runs, and no SVM VM mirrors, until
			 * the task's memory is in place (RESUME_DEVICES_LATE).
			 */
			ret = onenode_criu_restore_ex(dev, DRM_COMPUTE_CRIU_RESTORE_END,
						      DRM_COMPUTE_CRIU_RESTORE_END_PAUSED, 0,
						      NULL, NULL);
			break;
		}
		switch (type) {
		case ONENODE_OBJ_BOS: {
			struct drm_compute_criu_bo *bos = (void *)p;
			uint64_t session = session_of(dev->rdev);

			cnt = entries(len, sizeof(*bos));
			if (cnt < 0)
				break;
			free(old);
			free(joined);
			old = malloc((cnt ? cnt : 1) * sizeof(*old));
			joined = calloc(cnt ? cnt : 1, sizeof(*joined));
			if (!old || !joined) {
				ret = -ENOMEM;
				break;
			}
			nj = 0;
			for (long i = 0; i < cnt; i++) {
				old[i] = bos[i].mmap_offset;
				bos[i].mmap_offset = 0;
				if (bos[i].share)
					bos[i].share = share_key(bos[i].share, src->rdev);
				if (bos[i].share && !session) {
					log_err("file %#x: buffer %u is shared, and %s has no restore "
						"session", id, bos[i].handle, dev->path);
					ret = -ENODEV;
				}
			}
			if (ret)
				break;
			n = (uint32_t)cnt;
			ret = onenode_criu_restore_bos(dev, session, bos, &n);
			if (!ret)
				ret = remember_bos(dev, src->path, bos, old, n);
			if (!ret && n)
				key = bos[0];
			/* Another file made it: its maker writes the contents. */
			for (uint32_t i = 0; !ret && i < n; i++)
				if (bos[i].flags & DRM_COMPUTE_CRIU_BO_JOINED)
					joined[nj++] = bos[i].handle;
			nbos += n;
			break;
		}
		case ONENODE_OBJ_SVM_RANGES:
			cnt = entries(len, sizeof(struct drm_compute_criu_svm_range));
			if (cnt < 0)
				break;
			n = (uint32_t)cnt;
			/* Attributes naming the dumped device name this one. */
			ret = onenode_criu_restore_ex(dev, DRM_COMPUTE_CRIU_RESTORE_SVM_RANGES, 0,
						      old_dev_id, (void *)p, &n);
			nsvm += n;
			break;
		case ONENODE_OBJ_SYNCOBJS:
			ret = restore_array(dev, DRM_COMPUTE_CRIU_RESTORE_SYNCOBJS,
					    sizeof(struct drm_compute_criu_syncobj), p, len, &cnt,
					    &nsyncobjs);
			break;
		case ONENODE_OBJ_QUEUES: {
			struct drm_compute_criu_queue *queues = (void *)p;

			cnt = entries(len, sizeof(*queues));
			if (cnt < 0)
				break;
			if (!key.handle) {
				/* A queue's ring and state are buffers: never without. */
				log_err("file %#x: bad objects image: queues but no buffers", id);
				ret = -EINVAL;
				break;
			}
			free(old_db);
			old_db = malloc((cnt ? cnt : 1) * sizeof(*old_db));
			if (!old_db) {
				ret = -ENOMEM;
				break;
			}
			for (long i = 0; i < cnt; i++) {
				old_db[i] = queues[i].doorbell_offset;
				queues[i].doorbell_offset = 0;
			}
			n = (uint32_t)cnt;
			ret = onenode_criu_restore(dev, DRM_COMPUTE_CRIU_RESTORE_QUEUES, queues, &n);
			if (!ret)
				ret = remember_doorbells(dev, src->path, queues, old_db, n, &key);
			nqueues += n;
			break;
		}
		case ONENODE_OBJ_VMS:
			ret = restore_array(dev, DRM_COMPUTE_CRIU_RESTORE_VMS,
					    sizeof(struct drm_compute_criu_vm), p, len, &cnt, &nvms);
			break;
		case ONENODE_OBJ_MAPPINGS:
			ret = restore_array(dev, DRM_COMPUTE_CRIU_RESTORE_MAPPINGS,
					    sizeof(struct drm_compute_criu_mapping), p, len, &cnt,
					    &nmaps);
			break;
		case ONENODE_OBJ_SIGNALS:
			ret = restore_array(dev, DRM_COMPUTE_CRIU_RESTORE_SIGNALS,
					    sizeof(struct drm_compute_criu_signal), p, len, &cnt,
					    &nsignals);
			break;
		case ONENODE_OBJ_DMABUF:
			log_err("file %#x: bad objects image: a dma-buf record in a file's image", id);
			ret = -EINVAL;
			break;
		default: {	/* ONENODE_OBJ_BO_DATA */
			const struct onenode_obj_bo_data *d = p;
			bool skip = false;

			cnt = len > sizeof(*d) ? 0 : -1;
			if (cnt < 0)
				break;
			for (uint32_t i = 0; i < nj; i++)
				skip |= joined[i] == d->handle;
			if (skip)
				break;
			piece.d = d;
			piece.len = len - sizeof(*d);
			onenode_pump_submit(&pump, write_piece, &piece);
			bytes += piece.len;
			break;
		}
		}
		if (cnt < 0) {
			log_err("file %#x: bad objects image: a record of type %u has %llu bytes, "
				"no whole number of entries", id, type, (unsigned long long)len);
			ret = -EINVAL;
		}
		if (ret) {
			if (ret != -EINVAL || cnt >= 0)
				log_err("file %#x: %s (%s) refused to restore the image's record of "
					"type %u: %s", id, dev->path, dev->driver, type,
					onenode_strerror(ret));
			break;
		}
	}
	if (!ret)
		log_info("file %#x: restored %u buffers (%llu bytes of contents in %.3f s), "
			 "%u GPU VMs, %u mappings, %u user queues, %u sync objects, %u pending "
			 "signals, %u SVM ranges, at their handles and ids; the file stays paused "
			 "until the task's memory is in place", id, nbos, (unsigned long long)bytes,
			 now_s() - t0, nvms, nmaps, nqueues, nsyncobjs, nsignals, nsvm);
	/* A failed restore's last copy, if any, ends before its buffer is freed. */
	onenode_pump_stop(&pump);
out:
	free(joined);
	free(old_db);
	free(old);
	onenode_obj_close(&r);
	return ret;
}

/*
 * Open @path, or the first node of the dumped driver, with the dumped flags;
 * ONENODE_CRIU_RESTORE_NODE in criu's environment names the node instead
 * (a restore onto another device, a render minor that differs).
 */
static int reopen(const struct onenode_criu_record *rec, struct onenode_device *dev)
{
	const char *node = getenv("ONENODE_CRIU_RESTORE_NODE");
	int ret;

	if (node && *node) {
		ret = onenode_open_path_flags(node, rec->open_flags, dev);
		if (ret) {
			log_err("ONENODE_CRIU_RESTORE_NODE=%s: %s", node, onenode_strerror(ret));
			return ret;
		}
		if (strcmp(dev->driver, rec->driver)) {
			log_err("ONENODE_CRIU_RESTORE_NODE=%s is driven by %s, the dump's node by %s",
				node, dev->driver, rec->driver);
			onenode_close(dev);
			return -ENODEV;
		}
		log_info("restoring onto %s (ONENODE_CRIU_RESTORE_NODE), dumped from %s", node,
			 rec->path);
		return 0;
	}
	ret = onenode_open_path_flags(rec->path, rec->open_flags, dev);

	if (!ret && !strcmp(dev->driver, rec->driver))
		return 0;
	if (!ret) {
		log_warn("%s is now driven by %s, not %s: looking for another node",
			 rec->path, dev->driver, rec->driver);
		onenode_close(dev);
	} else {
		log_warn("cannot open %s: %s: looking for another %s node", rec->path,
			 onenode_strerror(ret), rec->driver);
	}
	ret = onenode_open_driver(rec->driver, NULL, dev);
	if (ret)
		return ret;
	if (rec->open_flags != O_RDWR) {
		char path[ONENODE_PATH_MAX];

		strcpy(path, dev->path);
		onenode_close(dev);
		ret = onenode_open_path_flags(path, rec->open_flags, dev);
	}
	return ret;
}

/*
 * The image of a file that holds the buffer with share id @share on the
 * node the dump called @rdev: its identity *@rec and its BOS entry *@e.
 * Returns 0, -ENOENT when no image lists it.
 */
static int find_share(int self, uint64_t share, uint64_t rdev, struct onenode_criu_record *rec,
		      struct drm_compute_criu_bo *e)
{
	/* Its own open file: a dup() would share CRIU's directory offset. */
	int dirfd = openat(criu_get_image_dir(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = -ENOENT;
	struct dirent *de;
	DIR *d;

	if (dirfd < 0)
		return -errno;
	d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return -errno;
	}
	while (ret == -ENOENT && (de = readdir(d))) {
		struct onenode_obj_reader r;
		const struct drm_compute_criu_bo *bos;
		char why[256];
		uint64_t len;
		uint32_t type;
		unsigned int fid;
		const void *p;
		long cnt;

		if (sscanf(de->d_name, "onenode-objects-%8x.img", &fid) != 1 ||
		    (int)fid == self)
			continue;
		if (onenode_criu_image_read(criu_get_image_dir(), fid, rec, why, sizeof(why)) ||
		    rec->rdev != rdev)
			continue;
		if (onenode_obj_open(criu_get_image_dir(), fid, &r, why, sizeof(why)))
			continue;
		if (!onenode_obj_next(&r, &type, &p, &len, why, sizeof(why)) &&
		    type == ONENODE_OBJ_BOS && (cnt = entries(len, sizeof(*bos))) >= 0) {
			bos = p;
			for (long i = 0; i < cnt; i++) {
				if (bos[i].share == share) {
					*e = bos[i];
					ret = 0;
					break;
				}
			}
		}
		onenode_obj_close(&r);
	}
	closedir(d);
	return ret;
}

/* Write buffer @handle of @dev from its BO_DATA records in file @fid's image. */
static int fill_from_image(const struct onenode_device *dev, uint32_t fid, uint32_t handle)
{
	struct onenode_obj_reader r;
	char why[256];
	uint64_t len;
	uint32_t type;
	const void *p;
	int ret;

	ret = onenode_obj_open(criu_get_image_dir(), fid, &r, why, sizeof(why));
	while (!ret) {
		const struct onenode_obj_bo_data *d;

		ret = onenode_obj_next(&r, &type, &p, &len, why, sizeof(why));
		if (ret || type == ONENODE_OBJ_END)
			break;
		d = p;
		if (type != ONENODE_OBJ_BO_DATA || len <= sizeof(*d) || d->handle != handle)
			continue;
		ret = onenode_criu_write_bo(dev, handle, d->offset, d + 1, len - sizeof(*d));
	}
	if (ret == -EINVAL)
		log_err("file %#x: bad objects image: %s", fid, why);
	onenode_obj_close(&r);
	return ret;
}

/*
 * A dma-buf fd: make its buffer in a file of this process's own, in the
 * node's restore session (the first to name the buffer makes it, its
 * contents from a holder's image; the holders' own restores then take the
 * same buffer, before or after this), export it with PRIME as the fd was
 * opened, and close the file: the dma-buf and the session hold the buffer.
 */
static int restore_dmabuf(int id, struct onenode_obj_reader *r)
{
	struct onenode_obj_dmabuf rec;
	struct onenode_criu_record holder;
	struct drm_compute_criu_bo e;
	struct onenode_device dev;
	uint64_t len, session;
	const void *p;
	uint32_t type, n = 1;
	char why[256];
	int ret, fd = -1;

	ret = onenode_obj_next(r, &type, &p, &len, why, sizeof(why));
	if (!ret && (type != ONENODE_OBJ_DMABUF || len != sizeof(rec))) {
		snprintf(why, sizeof(why), "a record of type %u and %llu bytes where the dma-buf's "
			 "belongs (no identity image onenode-%08x.img either)", type,
			 (unsigned long long)len, (unsigned int)id);
		ret = -EINVAL;
	}
	if (!ret) {
		memcpy(&rec, p, sizeof(rec));
		ret = onenode_obj_next(r, &type, &p, &len, why, sizeof(why));
		if (!ret && type != ONENODE_OBJ_END) {
			snprintf(why, sizeof(why), "a record of type %u after the dma-buf's", type);
			ret = -EINVAL;
		}
	}
	if (ret) {
		log_err("file %#x: bad dma-buf image: %s", id, why);
		return ret;
	}
	ret = find_share(id, rec.share, rec.rdev, &holder, &e);
	if (ret) {
		log_err("file %#x: a dma-buf of buffer %#llx: no image of the dump holds the buffer",
			id, (unsigned long long)rec.share);
		return -ENOENT;
	}
	ret = reopen(&holder, &dev);
	if (ret) {
		log_err("file %#x: no %s render node for the dma-buf's buffer: %s", id,
			holder.driver, onenode_strerror(ret));
		return ret;
	}
	session = session_of(dev.rdev);
	if (!session) {
		log_err("file %#x: %s has no restore session for the dma-buf's buffer", id,
			dev.path);
		ret = -ENODEV;
		goto out;
	}
	e.mmap_offset = 0;
	e.flags &= ~DRM_COMPUTE_CRIU_BO_JOINED;
	e.share = share_key(e.share, holder.rdev);
	ret = onenode_criu_restore(&dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN, NULL, NULL);
	if (!ret)
		ret = onenode_criu_restore_bos(&dev, session, &e, &n);
	if (!ret && !(e.flags & DRM_COMPUTE_CRIU_BO_JOINED))
		ret = fill_from_image(&dev, holder.file_id, e.handle);
	if (!ret)
		ret = onenode_criu_restore(&dev, DRM_COMPUTE_CRIU_RESTORE_END, NULL, NULL);
	if (!ret && drmPrimeHandleToFD(dev.fd, e.handle,
				       DRM_CLOEXEC | (rec.open_flags == O_RDWR ? DRM_RDWR : 0),
				       &fd))
		ret = -errno;
	if (ret) {
		log_err("file %#x: the dma-buf of buffer %#llx: %s (%s) refused: %s", id,
			(unsigned long long)rec.share, dev.path, dev.driver, onenode_strerror(ret));
		goto out;
	}
	log_info("restored file %#x: a dma-buf of buffer %#llx (%llu bytes, %s), %s", id,
		 (unsigned long long)rec.share, (unsigned long long)rec.size,
		 e.flags & DRM_COMPUTE_CRIU_BO_JOINED ? "the session had it" :
		 "made here, contents from the image of its holder", dev.path);
out:
	onenode_close(&dev);
	return ret ? ret : fd;
}

static int onenode_restore_ext_file(int id)
{
	struct onenode_criu_record rec;
	struct drm_compute_query_device now;
	struct onenode_device dev;
	char why[512];
	int ret;

	if (!restore_enabled)
		return -ENOTSUP;
	ret = onenode_criu_image_read(criu_get_image_dir(), (uint32_t)id, &rec, why, sizeof(why));
	if (ret == -ENOENT) {
		struct onenode_obj_reader r;

		/* No identity: a dma-buf fd's image, or another plugin's file. */
		ret = onenode_obj_open(criu_get_image_dir(), (uint32_t)id, &r, why, sizeof(why));
		if (ret == -ENOENT)
			return -ENOTSUP;
		if (ret) {
			log_err("file %#x: bad dma-buf image: %s", id, why);
			return ret;
		}
		ret = restore_dmabuf(id, &r);
		onenode_obj_close(&r);
		return ret;
	}
	if (ret) {
		log_err("file %#x: bad image: %s", id, why);
		return ret;
	}

	ret = reopen(&rec, &dev);
	if (ret) {
		log_err("file %#x: no %s render node to restore onto (dumped from %s, "
			"looked in %s): %s", id, rec.driver, rec.path, onenode_dri_dir(),
			onenode_strerror(ret));
		return ret == -ENOTSUP ? -ENODEV : ret;
	}
	ret = onenode_query_device(&dev, &now);
	if (ret) {
		log_err("file %#x: %s (%s): DEVICE query failed: %s", id, dev.path, dev.driver,
			onenode_strerror(ret));
		goto fail;
	}
	ret = onenode_criu_device_compare(&rec.device, &now, why, sizeof(why));
	if (ret) {
		log_err("file %#x: %s (%s) does not match the dumped device: %s", id, dev.path,
			dev.driver, why);
		goto fail;
	}
	if (dev.version_major != rec.version_major || dev.version_minor != rec.version_minor ||
	    dev.version_patchlevel != rec.version_patchlevel)
		log_warn("file %#x: driver %s is %d.%d.%d, was %d.%d.%d at dump; the device "
			 "report matches",
			 id, dev.driver, dev.version_major, dev.version_minor,
			 dev.version_patchlevel, rec.version_major, rec.version_minor,
			 rec.version_patchlevel);
	ret = restore_objects(id, &dev, &rec);
	if (ret)
		goto fail;
	log_info("restored file %#x: %s %d.%d.%d at %s as fd %d, device report matches the dump", id,
		 dev.driver, dev.version_major, dev.version_minor, dev.version_patchlevel,
		 dev.path, dev.fd);
	/* The fd now belongs to CRIU, which installs it in the task. */
	return dev.fd;
fail:
	onenode_close(&dev);
	return ret == -ENOTSUP ? -EINVAL : ret;
}

/*
 * Mappings of a supported node: criu saves no contents of them (the
 * buffers' contents are in the objects image) and asks UPDATE_VMA_MAP at
 * restore where they go. A file whose objects cannot be saved fails its
 * dump in DUMP_EXT_FILE.
 */
static int onenode_handle_device_vma(int fd, const struct stat *st)
{
	struct onenode_device dev;
	int ret;

	if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != DRM_CHAR_MAJOR)
		return -ENOTSUP;
	ret = identify(fd, &dev);
	if (ret)
		return -ENOTSUP;
	log_info("a mapping of %s (%s): its buffer is saved with the file", dev.path, dev.driver);
	onenode_close(&dev);
	return 0;
}

/* A restored file of this task holding @b: an fd of it for criu, or -1. */
static int restored_file_fd(const struct restored_bo *b)
{
	struct dirent *de;
	int found = -1;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return -1;
	while (found < 0 && (de = readdir(d))) {
		struct onenode_device dev;
		struct stat st;
		uint64_t off;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd == dirfd(d) || fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != b->rdev)
			continue;
		if (onenode_device_from_fd(fd, &dev))
			continue;
		/* Mmap offsets are the device's: only the file holding it answers this one. */
		if (!onenode_bo_mmap_offset(&dev, b->handle, &off) && off == b->key_offset)
			found = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		onenode_close(&dev);
	}
	closedir(d);
	return found;
}

static int onenode_update_vma_map(const char *path, const uint64_t addr,
				  const uint64_t old_pgoff, uint64_t *new_pgoff, int *plugin_fd)
{
	bool held = false, ours = false;
	struct stat st;
	uint32_t n;

	if (!restore_enabled)
		return -ENOTSUP;
	/*
	 * Every task's restored buffers, a mapping inherited across fork()
	 * too, by the node the dump named: that path need not exist here
	 * (ONENODE_CRIU_RESTORE_NODE, another machine).
	 */
	n = restored ? __atomic_load_n(&restored->count, __ATOMIC_ACQUIRE) : 0;
	if (restored && n > restored->cap)
		n = restored->cap;
	for (uint32_t i = 0; i < n; i++) {
		const struct restored_bo *b = &restored->e[i];
		int fd;

		if (!__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE) || strcmp(b->src_path, path))
			continue;
		ours = true;
		if (old_pgoff < b->old_offset || old_pgoff - b->old_offset >= b->size)
			continue;
		/*
		 * A buffer several files share has an entry per file: the
		 * one whose file this task holds.
		 */
		fd = restored_file_fd(b);
		if (fd < 0) {
			held = true;
			continue;
		}
		*new_pgoff = b->new_offset + (old_pgoff - b->old_offset);
		*plugin_fd = fd;
		if (b->queue_id)
			log_info("the mapping at %#llx of %s moves from offset %#llx to %#llx "
				 "(the doorbell of queue %u)", (unsigned long long)addr, path,
				 (unsigned long long)old_pgoff, (unsigned long long)*new_pgoff,
				 b->queue_id);
		else
			log_info("the mapping at %#llx of %s moves from offset %#llx to %#llx "
				 "(buffer %u)", (unsigned long long)addr, path,
				 (unsigned long long)old_pgoff, (unsigned long long)*new_pgoff,
				 b->handle);
		return 1;
	}
	/* Not a node this plugin restored a file of: another plugin's, or none. */
	if (!ours && (stat(path, &st) || !S_ISCHR(st.st_mode) ||
		      major(st.st_rdev) != DRM_CHAR_MAJOR))
		return -ENOTSUP;
	log_err("the mapping at %#llx of %s (offset %#llx) maps %s", (unsigned long long)addr, path,
		(unsigned long long)old_pgoff, held ? "a restored buffer no file of this task holds" :
		"no buffer this plugin restored");
	return -ENOENT;
}

/*
 * RESUME_DEVICES_LATE, in criu after the restorer has rebuilt the task's
 * memory and before the task runs (criu still traces it): every file this
 * plugin restored ended paused; resume each, through a copy of the task's
 * fd (pidfd_getfd()), taken only for fds that are DRM character devices
 * (a copy of a socket or a network file would have side effects). A file
 * the task holds twice, or shares with another task, answers -EALREADY
 * after its first resume; a file with no objects was never paused and
 * answers the same.
 *
 * CRIU stops at the first plugin whose hook returns anything but -ENOTSUP:
 * a task with none of this plugin's files gets -ENOTSUP, so that another
 * plugin's late hook (amdgpu's, for /dev/kfd) still runs for it. A task
 * that holds files of both cannot be served by both; CRIU's hook gives no
 * way to.
 */
static int onenode_resume_devices_late(int pid)
{
	unsigned int resumed = 0, queues = 0;
	char dir[64], path[64 + sizeof(((struct dirent *)0)->d_name)];
	struct dirent *de;
	int pidfd, ret = 0, err;
	DIR *d;

	if (stage != CRIU_STAGE_RESTORE || !restore_enabled)
		return -ENOTSUP;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d) {
		err = -errno;
		log_err("task %d: cannot list %s: %s: its restored files stay paused", pid, dir,
			strerror(-err));
		return err;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		err = -errno;
		log_err("task %d: pidfd_open failed: %s: its restored files stay paused", pid,
			strerror(-err));
		closedir(d);
		return err;
	}
	while ((de = next_drm_fd(d, dir, path, sizeof(path)))) {
		struct drm_compute_criu_pause out;
		struct onenode_device dev;
		int fd;

		fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
		if (fd < 0) {
			err = -errno;
			if (err != -EBADF) {	/* EBADF: closed since the listing */
				log_err("task %d fd %s: pidfd_getfd failed: %s: the file stays "
					"paused", pid, de->d_name, strerror(-err));
				ret = ret ?: err;
			}
			continue;
		}
		if (identify(fd, &dev)) {
			close(fd);
			continue;
		}
		err = onenode_criu_pause(&dev, DRM_COMPUTE_CRIU_OP_RESUME, &out);
		if (!err) {
			resumed++;
			queues += out.userqs;
			log_info("task %d fd %s: %s resumed, %u user queues continue", pid,
				 de->d_name, dev.path, out.userqs);
		} else if (err != -EALREADY) {
			log_err("task %d fd %s: %s: the resume failed: %s", pid, de->d_name,
				dev.path, onenode_strerror(err));
			ret = ret ?: err;
		}
		/* identify() borrows the fd: the copy is closed here. */
		onenode_close(&dev);
		close(fd);
	}
	closedir(d);
	close(pidfd);
	if (resumed)
		log_info("task %d: %u restored files resumed, %u user queues continue", pid,
			 resumed, queues);
	return ret ? ret : resumed ? 0 : -ENOTSUP;
}

/* Each hook has exactly the type CRIU calls it with. */
#define HOOK_TYPE_IS(fn, type) _Generic(&(fn), type *: 1, default: 0)
_Static_assert(HOOK_TYPE_IS(onenode_dump_ext_file, criu_dump_ext_file_fn), "DUMP_EXT_FILE");
_Static_assert(HOOK_TYPE_IS(onenode_restore_ext_file, criu_restore_ext_file_fn),
	       "RESTORE_EXT_FILE");
_Static_assert(HOOK_TYPE_IS(onenode_handle_device_vma, criu_handle_device_vma_fn),
	       "HANDLE_DEVICE_VMA");
_Static_assert(HOOK_TYPE_IS(onenode_checkpoint_devices, criu_checkpoint_devices_fn),
	       "CHECKPOINT_DEVICES");
_Static_assert(HOOK_TYPE_IS(onenode_update_vma_map, criu_update_vma_map_fn), "UPDATE_VMA_MAP");
_Static_assert(HOOK_TYPE_IS(onenode_resume_devices_late, criu_resume_devices_late_fn),
	       "RESUME_DEVICES_LATE");

__attribute__((visibility("default")))
struct criu_plugin_desc CR_PLUGIN_DESC = {
	.name = PLUGIN_NAME,
	.init = onenode_init,
	.exit = onenode_exit,
	.version = CRIU_ABI_VERSION_4_1_1,
	.max_hooks = CRIU_HOOK_COUNT_4_1_1,
	.hooks = {
		[CRIU_HOOK_DUMP_EXT_FILE] = (void *)onenode_dump_ext_file,
		[CRIU_HOOK_RESTORE_EXT_FILE] = (void *)onenode_restore_ext_file,
		[CRIU_HOOK_HANDLE_DEVICE_VMA] = (void *)onenode_handle_device_vma,
		[CRIU_HOOK_CHECKPOINT_DEVICES] = (void *)onenode_checkpoint_devices,
		[CRIU_HOOK_UPDATE_VMA_MAP] = (void *)onenode_update_vma_map,
		[CRIU_HOOK_RESUME_DEVICES_LATE] = (void *)onenode_resume_devices_late,
	},
};
