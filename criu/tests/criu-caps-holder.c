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
 * With CRIU_HOLDER_OBJECTS=1 in its environment it also creates a buffer,
 * which it exports (a PRIME fd it keeps open), a GPU VM and a user queue
 * (whose CPU mappings it then drops), and imports a buffer of vgem's; the
 * kernel cannot save an imported buffer: the dump must fail. When woken it then also checks that
 * they still exist, that the kernel still counts them for it as the file's
 * owner (DRM_COMPUTE_OP_CRIU_INFO), i.e. that criu's calls on the file did
 * not take it over, and that its queue is no longer suspended: the plugin
 * paused the file before it looked, and resumed it after the failed dump.
 *
 * With CRIU_HOLDER_OBJECTS=save it holds what the plugin saves: a 9 MiB
 * buffer in device memory (more than one of the plugin's copy chunks) that
 * it keeps mapped, a small system-memory buffer, a gap in its handles and
 * VM ids, and mappings of both buffers in a VM. When woken it checks that
 * the mapping still shows the bytes, that a write through it shows through
 * a fresh mapping of the same handle (the mapping maps the restored
 * buffer), the second buffer's bytes, and, listing its own paused file,
 * the same handles, VM id and mappings.
 *
 * The same mode keeps a user queue busy across the checkpoint, in a second
 * VM with a buffer of its own: its ring holds a LIST_SUM walk of
 * WALK_NODES nodes, then a WAIT_MEM on a flag only the task sets after the
 * restore, then a FENCE; the checkpoint finds it inside the wait (or the
 * walk). When woken the task checks the walk's sum, sets the flag through
 * its kept mapping, waits for the fence, then writes one more packet
 * through its kept ring and doorbell mappings, which must reach the
 * restored queue, and waits for that.
 *
 * Where the device has SVM, the same mode also makes an SVM VM with
 * attributes over a malloc'ed array (a granularity; a preferred and
 * prefetched device location where the device has memory) and a queue of
 * that VM waiting on a flag in malloc'ed memory before it sums the array
 * into malloc'ed memory. When woken the task checks the attributes (a
 * device location names the device restored onto), sets the flag and
 * checks the sum.
 *
 * With CRIU_HOLDER_OBJECTS=shared it shares a buffer with a child: it
 * fills and exports the buffer (keeping the dma-buf fd) and forks; the
 * child opens a render-node file of its own, imports the dma-buf and maps
 * it. When woken, the task checks the bytes, that the kept dma-buf fd
 * still imports as its own buffer's handle, and writes a new pattern; it
 * then wakes the child, which checks that its mapping shows the new
 * pattern (one buffer, shared again) and that the dma-buf imports as its
 * own handle too, and reports through its exit status. With
 * CRIU_HOLDER_OBJECTS=shared-outside the sharer is a grandchild, orphaned
 * at once, so outside the tree criu dumps: the dump must fail; when woken
 * the task checks its bytes and dma-buf fd, and ends the sharer; that
 * grandchild closes the task's render-node fd it inherited. With
 * CRIU_HOLDER_OBJECTS=shared-outside-fd it keeps only the dma-buf fd (no
 * render node, no handle), with shared-outside-map only a mapping of the
 * dma-buf (no fd at all), with shared-outside-file only the task's
 * render-node fd (the task's own file): the same.
 * With CRIU_HOLDER_MOVED=1 the restore is expected on another instance of
 * the device: the fd must then be another node, with a DEVICE report equal
 * but for the device id.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "onenode.h"
#include "onenode_vcompute.h"

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

#define BIG_SIZE	(9ull << 20)
#define SMALL_SIZE	8192ull
#define SAVE_VA		0x100000000ull

static uint8_t byte_at(uint32_t handle, uint64_t i)
{
	return (uint8_t)(handle * 29u + i * 13u + (i >> 12));
}

static void *map_bo(const struct onenode_device *dev, uint32_t handle, uint64_t size)
{
	uint64_t off;
	void *p;

	if (onenode_bo_mmap_offset(dev, handle, &off))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

/* The timeline point the walk's end signals. */
#define WALK_POINT	7
/* The busy queue's buffer: nodes, then the walk's sum, the flag, a word. */
#define WALK_NODES	(1ull << 16)
#define WORK_SIZE	4096ull
#define WORK_VA		0x200000000ull
#define WORK_SUM	64
#define WORK_FLAG	128
#define WORK_WORD	192
#define QUEUE_VA	0x10000000ull

/* Words of the malloc'ed array a queue of the SVM VM sums: 1 MiB. */
#define SVM_WORDS	(256u * 1024)

/* What CRIU_HOLDER_OBJECTS=save made. */
struct saved {
	uint32_t big, small, vm, qvm, work;
	uint8_t *keep;
	uint8_t *work_map;
	struct onenode_queue q;
	uint64_t walk_fence;
	/* Signaled when the walk's fence is reached: pending at the dump. */
	uint32_t walk_binary, walk_timeline;
	/* SVM: a VM mirroring this process, its array, flag and sum, its queue. */
	bool has_svm, svm_vram;
	uint32_t svm;
	uint32_t *arr;
	volatile uint32_t *svm_flag;
	volatile uint64_t *svm_sum;
	struct onenode_queue sq;
	uint64_t svm_fence;
};

/* A FENCE after what @q holds, all of it published; *@fence its value. */
static int commit_fenced(struct onenode_queue *q, uint64_t *fence)
{
	*fence = onenode_queue_fence(q);
	if (!*fence)
		return -ENOSPC;
	return onenode_queue_commit(q);
}

static int svm_attr(const struct onenode_device *dev, uint32_t vm, const void *p,
		    uint64_t size, uint32_t type, uint32_t *value, bool get)
{
	struct drm_compute_svm_attr a = { .type = type, .value = *value };
	int ret = get ? onenode_svm_get_attr(dev, vm, (uintptr_t)p, size, &a, 1) :
			onenode_svm_set_attr(dev, vm, (uintptr_t)p, size, &a, 1);

	*value = a.value;
	return ret;
}

/*
 * A queue of an SVM VM waits on a flag in malloc'ed memory, then sums a
 * malloc'ed array with attributes (a granularity; where the device has
 * memory, a preferred and prefetched device location) into malloc'ed
 * memory.
 */
static int svm_queue_setup(const struct onenode_device *dev, struct saved *sv)
{
	const struct onenode_queue_params params = {
		.va = QUEUE_VA, .priority = ONENODE_PRIORITY_DEFAULT,
	};
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	struct drm_compute_query_device d;
	uint32_t v;
	void *out;
	int ret;

	ret = onenode_query_device(dev, &d);
	if (ret || !(d.features & DRM_COMPUTE_FEATURE_SVM))
		return ret;
	sv->has_svm = true;
	sv->svm_vram = d.vram_size >= SVM_WORDS * 4ull;
	sv->arr = mmap(NULL, SVM_WORDS * 4ull, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	out = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sv->arr == MAP_FAILED || out == MAP_FAILED)
		return -ENOMEM;
	for (uint32_t i = 0; i < SVM_WORDS; i++)
		sv->arr[i] = i * 3 + 1;
	sv->svm_flag = out;
	sv->svm_sum = (volatile uint64_t *)((char *)out + 8);
	ret = onenode_vm_create_flags(dev, DRM_COMPUTE_VM_CREATE_SVM, &sv->svm);
	v = 6;
	if (!ret)
		ret = svm_attr(dev, sv->svm, sv->arr, SVM_WORDS * 4ull,
			       DRM_COMPUTE_SVM_ATTR_GRANULARITY, &v, false);
	v = d.device_id;
	if (!ret && sv->svm_vram)
		ret = svm_attr(dev, sv->svm, sv->arr, SVM_WORDS * 4ull,
			       DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, &v, false);
	v = d.device_id;
	if (!ret && sv->svm_vram)
		ret = svm_attr(dev, sv->svm, sv->arr, SVM_WORDS * 4ull,
			       DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, &v, false);
	if (!ret)
		ret = onenode_queue_init(&sv->sq, dev, sv->svm, &params);
	if (!ret)
		ret = onenode_queue_emit(&sv->sq, pkt,
					 onenode_pkt_wait_mem(pkt, (uintptr_t)sv->svm_flag,
							      VCOMPUTE_WAIT_EQ, 1, ~0ull, 0, 0));
	if (!ret)
		ret = onenode_queue_emit(&sv->sq, pkt,
					 onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_SUM_U32, SVM_WORDS,
							      0, (uintptr_t)sv->arr,
							      (uintptr_t)sv->svm_sum, 0));
	return ret ? ret : commit_fenced(&sv->sq, &sv->svm_fence);
}

/*
 * After the restore: the SVM VM has its attributes (a device location now
 * names the device restored onto), and its queue, let go by the flag,
 * sums the array through the mirror of the restored address space.
 */
static int svm_queue_check(const struct onenode_device *dev, struct saved *sv, char *why,
			   size_t len)
{
	const uint64_t want = 3ull * SVM_WORDS * (SVM_WORDS - 1) / 2 + SVM_WORDS;
	struct drm_compute_query_device d;
	uint32_t gran = 0, loc = 0;
	int ret;

	if (!sv->has_svm)
		return 0;
	ret = onenode_query_device(dev, &d);
	if (!ret)
		ret = svm_attr(dev, sv->svm, sv->arr, SVM_WORDS * 4ull,
			       DRM_COMPUTE_SVM_ATTR_GRANULARITY, &gran, true);
	if (!ret)
		ret = svm_attr(dev, sv->svm, sv->arr, SVM_WORDS * 4ull,
			       DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, &loc, true);
	if (ret || gran != 6 ||
	    loc != (sv->svm_vram ? d.device_id : DRM_COMPUTE_SVM_LOCATION_UNDEFINED)) {
		snprintf(why, len, "the SVM VM's attributes: %s, granularity %u, preferred "
			 "location %#x (device %u)", onenode_strerror(ret), gran, loc, d.device_id);
		return ret ? ret : -EIO;
	}
	if (*sv->svm_sum) {
		snprintf(why, len, "the SVM queue summed before its flag was set");
		return -EIO;
	}
	*sv->svm_flag = 1;
	ret = onenode_queue_wait(&sv->sq, sv->svm_fence, 60ll * 1000000000);
	if (ret) {
		snprintf(why, len, "the restored SVM queue did not finish: %s",
			 onenode_strerror(ret));
		return ret;
	}
	if (*sv->svm_sum != want) {
		snprintf(why, len, "the SVM queue summed %llu, not %llu",
			 (unsigned long long)*sv->svm_sum, (unsigned long long)want);
		return -EIO;
	}
	return 0;
}

/* The queue that is inside a packet when the checkpoint comes. */
static int busy_queue_setup(const struct onenode_device *dev, struct saved *sv)
{
	const struct onenode_queue_params params = {
		.va = QUEUE_VA, .priority = ONENODE_PRIORITY_DEFAULT,
	};
	struct vcompute_list_node *n;
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
	uint32_t filler;
	int ret;


	/* The first VM's id stays free: a hole before both VMs. */
	ret = onenode_vm_create_flags(dev, 0, &filler);
	if (!ret)
		ret = onenode_vm_create_flags(dev, 0, &sv->qvm);
	if (!ret)
		ret = onenode_vm_destroy(dev, filler);
	if (!ret)
		ret = onenode_bo_create(dev, WORK_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, &sv->work);
	if (!ret)
		ret = onenode_vm_map(dev, sv->qvm, sv->work, 0, WORK_VA, WORK_SIZE,
				     DRM_COMPUTE_VM_BIND_NOEXEC);
	if (!ret)
		ret = onenode_queue_init(&sv->q, dev, sv->qvm, &params);
	if (ret)
		return ret;
	sv->work_map = map_bo(dev, sv->work, WORK_SIZE);
	if (!sv->work_map)
		return -ENOMEM;
	n = (struct vcompute_list_node *)sv->work_map;
	n[0] = (struct vcompute_list_node){ .next = WORK_VA + sizeof(*n), .value = 1 };
	n[1] = (struct vcompute_list_node){ .next = WORK_VA, .value = 2 };
	ret = onenode_queue_emit(&sv->q, pkt,
				 onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_LIST_SUM, WALK_NODES, 0,
						      WORK_VA, WORK_VA + WORK_SUM, 0));
	if (!ret)
		ret = onenode_queue_emit(&sv->q, pkt,
					 onenode_pkt_wait_mem(pkt, WORK_VA + WORK_FLAG,
							      VCOMPUTE_WAIT_EQ, 1, ~0ull, 0, 0));
	if (!ret)
		ret = commit_fenced(&sv->q, &sv->walk_fence);
	/* Two signals the walk's end completes, pending across the dump. */
	if (!ret && (drmSyncobjCreate(dev->fd, 0, &sv->walk_binary) ||
		     drmSyncobjCreate(dev->fd, 0, &sv->walk_timeline)))
		ret = -errno;
	if (!ret)
		ret = onenode_userq_signal(dev, sv->q.id, sv->walk_fence, sv->walk_binary, 0);
	if (!ret)
		ret = onenode_userq_signal(dev, sv->q.id, sv->walk_fence, sv->walk_timeline,
					   WALK_POINT);
	return ret;
}

/* Whether the walk's signals are (@done) or are not yet in their sync objects. */
static int walk_signals_check(struct saved *sv, bool done, char *why, size_t len)
{
	const int fd = sv->q.dev->fd;
	uint64_t point = 0;
	uint32_t h = sv->walk_binary;
	int ret;

	/* Polled: -ETIME while no fence was added. */
	ret = drmSyncobjWait(fd, &h, 1, 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) ?
	      -errno : 0;
	if (done ? ret : ret != -ETIME) {
		snprintf(why, len, "the walk's binary sync object %s: %s",
			 done ? "not signaled after the walk" : "signaled before the walk ended",
			 onenode_strerror(ret));
		return done ? ret : -EIO;
	}
	if (drmSyncobjQuery(fd, &sv->walk_timeline, &point, 1)) {
		snprintf(why, len, "querying the walk's timeline: %s", onenode_strerror(-errno));
		return -errno;
	}
	if (point != (done ? WALK_POINT : 0)) {
		snprintf(why, len, "the walk's timeline at point %llu, %s",
			 (unsigned long long)point, done ? "not at its signal's" : "before the walk ended");
		return -EIO;
	}
	return 0;
}

/* After the restore: the queue finishes, then takes new work. 0 or @why. */
static int busy_queue_check(struct saved *sv, char *why, size_t len)
{
	const volatile struct vcompute_list_sum *sum =
		(const volatile void *)(sv->work_map + WORK_SUM);
	const uint32_t word = 0x600dcafe;
	uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS], v;
	struct drm_compute_userq_state st;
	int ret;

	/* Not yet: it waits for the flag. */
	ret = onenode_userq_state(sv->q.dev, sv->q.id, &st);
	if (ret || st.status != DRM_COMPUTE_USERQ_STATUS_RUNNING || st.fence >= sv->walk_fence) {
		snprintf(why, len, "the restored queue %u: %s, status %u, fence %llu of %llu",
			 sv->q.id, onenode_strerror(ret), st.status, (unsigned long long)st.fence,
			 (unsigned long long)sv->walk_fence);
		return ret ? ret : -EIO;
	}
	/* Its signals came back pending, in its restored sync objects. */
	ret = walk_signals_check(sv, false, why, len);
	if (ret)
		return ret;
	*(volatile uint32_t *)(sv->work_map + WORK_FLAG) = 1;
	ret = onenode_queue_wait(&sv->q, sv->walk_fence, 60ll * 1000000000);
	if (ret) {
		snprintf(why, len, "the restored queue never passed its wait: %s",
			 onenode_strerror(ret));
		return ret;
	}
	/* Completion lands a moment after the fence: wait for submit, then signal. */
	{
		uint32_t h[2] = { sv->walk_binary, sv->walk_timeline };
		uint64_t pts[2] = { 0, WALK_POINT };

		if (drmSyncobjTimelineWait(sv->q.dev->fd, h, pts, 2, INT64_MAX,
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
					   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL)) {
			snprintf(why, len, "the walk's restored signals never came: %s",
				 onenode_strerror(-errno));
			return -errno;
		}
	}
	ret = walk_signals_check(sv, true, why, len);
	if (ret)
		return ret;
	if (sum->nodes != WALK_NODES || sum->sum != WALK_NODES / 2 * 3) {
		snprintf(why, len, "the walk across the checkpoint summed %llu over %llu nodes",
			 (unsigned long long)sum->sum, (unsigned long long)sum->nodes);
		return -EIO;
	}
	/* New work through the kept ring and doorbell mappings. */
	ret = onenode_queue_emit(&sv->q, pkt,
				 onenode_pkt_write_data(pkt, WORK_VA + WORK_WORD, &word, 1));
	if (!ret)
		ret = commit_fenced(&sv->q, &v);
	if (!ret)
		ret = onenode_queue_wait(&sv->q, v, 60ll * 1000000000);
	if (!ret && *(volatile uint32_t *)(sv->work_map + WORK_WORD) != word)
		ret = -EIO;
	if (ret)
		snprintf(why, len, "a packet written after the restore: %s", onenode_strerror(ret));
	return ret;
}

static int save_setup(const struct onenode_device *dev, struct saved *sv)
{
	struct drm_compute_query_device d;
	uint32_t gap, vm0;
	uint64_t big_pl;
	uint8_t *p;
	int ret;

	ret = onenode_query_device(dev, &d);
	if (ret)
		return ret;
	big_pl = d.placements & DRM_COMPUTE_PLACEMENT_VRAM ? DRM_COMPUTE_PLACEMENT_VRAM :
							       DRM_COMPUTE_PLACEMENT_SYSTEM;
	ret = onenode_bo_create(dev, 4096, DRM_COMPUTE_PLACEMENT_SYSTEM, &gap);
	if (!ret)
		ret = onenode_bo_create(dev, BIG_SIZE, big_pl, &sv->big);
	if (!ret)
		ret = onenode_bo_create(dev, SMALL_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, &sv->small);
	if (!ret)
		ret = onenode_bo_close(dev, gap);
	if (!ret)
		ret = onenode_vm_create_flags(dev, 0, &vm0);
	if (!ret)
		ret = onenode_vm_create_flags(dev, 0, &sv->vm);
	if (!ret)
		ret = onenode_vm_destroy(dev, vm0);
	if (!ret)
		ret = onenode_vm_map(dev, sv->vm, sv->big, 0, SAVE_VA, BIG_SIZE,
					  DRM_COMPUTE_VM_BIND_READONLY);
	if (!ret)
		ret = onenode_vm_map(dev, sv->vm, sv->small, 0, SAVE_VA + BIG_SIZE, SMALL_SIZE, 0);
	if (ret)
		return ret;
	sv->keep = map_bo(dev, sv->big, BIG_SIZE);
	p = map_bo(dev, sv->small, SMALL_SIZE);
	if (!sv->keep || !p)
		return -ENOMEM;
	for (uint64_t i = 0; i < BIG_SIZE; i++)
		sv->keep[i] = byte_at(sv->big, i);
	for (uint64_t i = 0; i < SMALL_SIZE; i++)
		p[i] = byte_at(sv->small, i);
	munmap(p, SMALL_SIZE);
	ret = busy_queue_setup(dev, sv);
	return ret ? ret : svm_queue_setup(dev, sv);
}

/* After the restore: 0, or the reason in @why. */
static int save_check(const struct onenode_device *dev, struct saved *sv, char *why,
		      size_t len)
{
	struct drm_compute_criu_mapping maps[8], *m = maps;
	struct drm_compute_criu_vm vms[4];
	uint32_t nvms = 4, nmaps = 8, want_vms = sv->has_svm ? 3 : 2, found = 0;
	uint8_t *fresh, *p;
	int ret;

	ret = busy_queue_check(sv, why, len);
	if (!ret)
		ret = svm_queue_check(dev, sv, why, len);
	if (ret)
		return ret;

	for (uint64_t i = 0; i < BIG_SIZE; i++)
		if (sv->keep[i] != byte_at(sv->big, i)) {
			snprintf(why, len, "the kept mapping of buffer %u reads %#x at %llu",
				 sv->big, sv->keep[i], (unsigned long long)i);
			return -EIO;
		}
	fresh = map_bo(dev, sv->big, BIG_SIZE);
	if (!fresh) {
		snprintf(why, len, "buffer %u cannot be mapped by its handle", sv->big);
		return -ENOENT;
	}
	sv->keep[4097] ^= 0xff;
	ret = fresh[4097] == (uint8_t)(byte_at(sv->big, 4097) ^ 0xff) ? 0 : -EIO;
	munmap(fresh, BIG_SIZE);
	if (ret) {
		snprintf(why, len, "a write through the kept mapping does not reach buffer %u",
			 sv->big);
		return ret;
	}
	p = map_bo(dev, sv->small, SMALL_SIZE);
	for (uint64_t i = 0; p && i < SMALL_SIZE; i++)
		if (p[i] != byte_at(sv->small, i))
			ret = -EIO;
	if (p)
		munmap(p, SMALL_SIZE);
	if (!p || ret) {
		snprintf(why, len, "buffer %u lost its bytes", sv->small);
		return -EIO;
	}
	ret = onenode_criu_pause(dev, DRM_COMPUTE_CRIU_OP_PAUSE, NULL);
	if (!ret)
		ret = onenode_criu_list(dev, DRM_COMPUTE_CRIU_CKPT_LIST_VMS, vms, &nvms);
	if (!ret)
		ret = onenode_criu_list(dev, DRM_COMPUTE_CRIU_CKPT_LIST_MAPPINGS, maps, &nmaps);
	onenode_criu_pause(dev, DRM_COMPUTE_CRIU_OP_RESUME, NULL);
	if (ret) {
		snprintf(why, len, "listing the restored file: %s", onenode_strerror(ret));
		return ret;
	}
	/* VMs by id, mappings by VM and address: the saving VM's two in order. */
	while (nmaps && m < maps + 8 && m->vm_id != sv->vm) {
		m++;
		nmaps--;
	}
	/* The VMs by id (the SVM VM took the lowest free one), each with its flags. */
	for (uint32_t i = 0; i < nvms && i < 4; i++)
		if ((vms[i].id == sv->vm && !vms[i].flags) || (vms[i].id == sv->qvm && !vms[i].flags) ||
		    (sv->has_svm && vms[i].id == sv->svm &&
		     vms[i].flags == DRM_COMPUTE_VM_CREATE_SVM))
			found++;
	if (nvms != want_vms || found != want_vms || nmaps < 2 ||
	    m[0].vm_id != sv->vm || m[0].handle != sv->big || m[0].va != SAVE_VA ||
	    m[0].flags != DRM_COMPUTE_VM_BIND_READONLY || m[1].vm_id != sv->vm ||
	    m[1].handle != sv->small || m[1].va != SAVE_VA + BIG_SIZE ||
	    m[1].range != SMALL_SIZE) {
		snprintf(why, len, "VMs or mappings differ: %u VMs (%u as made), %u mappings",
			 nvms, found, nmaps);
		return -EIO;
	}
	return 0;
}

/*
 * The DEVICE reports match; after a restore on another instance (@moved),
 * but for the device id, which must then differ.
 */
/* A buffer of vgem's imported into @dev: a buffer the kernel cannot save. */
static int import_vgem(const struct onenode_device *dev, uint32_t *handle)
{
	struct drm_mode_create_dumb create = { .width = 64, .height = 16, .bpp = 32 };
	int vgem = drmOpenWithType("vgem", NULL, DRM_NODE_PRIMARY), fd = -1, ret = 0;

	if (vgem < 0)
		return -ENODEV;
	if (drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create) ||
	    drmPrimeHandleToFD(vgem, create.handle, DRM_CLOEXEC, &fd) ||
	    drmPrimeFDToHandle(dev->fd, fd, handle))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	close(vgem);
	return ret;
}

/* CRIU_HOLDER_OBJECTS=shared: the buffer the task shares with its child. */
#define SHARED_SIZE	(64ull << 10)

struct shared {
	uint32_t bo;
	int dmabuf;
	uint8_t *map;
	pid_t child;
	/* The sharer is a grandchild, outside the tree criu dumps. */
	bool outside;
	/* What the sharer keeps of the fds fork() passed on. */
	enum {
		KEEPS_ALL,	/* every fd; imports into a file of its own */
		KEEPS_DMABUF_IMPORT,	/* the dma-buf fd; imports it the same way */
		KEEPS_DMABUF,	/* the dma-buf fd alone: no render node, no handle */
		KEEPS_FILE,	/* the task's render-node fd alone: its very file */
		KEEPS_MAPPING,	/* a mapping of the dma-buf alone: no fd */
	} keeps;
};

static uint8_t shared_byte(uint64_t i, unsigned int round)
{
	return (uint8_t)(i * 7u + (i >> 12) + round * 101u);
}

/*
 * The child: a file of its own, the dma-buf imported and mapped; once
 * woken, the second pattern must show through the mapping, and the
 * dma-buf import as its handle. Exits 0 or 1.
 */
static void shared_child(int devfd, int dmabuf, int ready, const char *go, int keeps)
{
	struct onenode_device mine;
	uint32_t h, again;
	uint8_t *p;

	pid_t self = getpid();

	if (keeps == KEEPS_MAPPING &&
	    mmap(NULL, SHARED_SIZE, PROT_READ, MAP_SHARED, dmabuf, 0) == MAP_FAILED)
		_exit(1);
	/* Only what the sharer is meant to hold the buffer or file by. */
	if (keeps != KEEPS_ALL)
		for (int fd = 3; fd < 1024; fd++)
			if (fd != ready && (keeps == KEEPS_MAPPING ||
					    fd != (keeps == KEEPS_FILE ? devfd : dmabuf)))
				close(fd);
	if (keeps == KEEPS_DMABUF || keeps == KEEPS_FILE || keeps == KEEPS_MAPPING) {
		/* Holds them until killed. */
		if (write(ready, &self, sizeof(self)) != sizeof(self))
			_exit(1);
		close(ready);
		for (;;)
			pause();
	}
	if (onenode_open_driver("vcompute", NULL, &mine) ||
	    drmPrimeFDToHandle(mine.fd, dmabuf, &h) || !(p = map_bo(&mine, h, SHARED_SIZE)) ||
	    write(ready, &self, sizeof(self)) != sizeof(self))
		_exit(1);
	close(ready);
	while (!woken && access(go, F_OK)) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	for (uint64_t i = 0; i < SHARED_SIZE; i++)
		if (p[i] != shared_byte(i, 1))
			_exit(1);
	if (drmPrimeFDToHandle(mine.fd, dmabuf, &again) || again != h)
		_exit(1);
	_exit(0);
}

static int shared_setup(const struct onenode_device *dev, struct shared *sh, const char *go)
{
	int ret, ready[2];
	pid_t sharer;

	ret = onenode_bo_create(dev, SHARED_SIZE, DRM_COMPUTE_PLACEMENT_SYSTEM, &sh->bo);
	if (ret)
		return ret;
	sh->map = map_bo(dev, sh->bo, SHARED_SIZE);
	if (!sh->map)
		return -ENOMEM;
	for (uint64_t i = 0; i < SHARED_SIZE; i++)
		sh->map[i] = shared_byte(i, 0);
	if (drmPrimeHandleToFD(dev->fd, sh->bo, DRM_CLOEXEC | DRM_RDWR, &sh->dmabuf))
		return -errno;
	if (pipe(ready))
		return -errno;
	sh->child = fork();
	if (sh->child < 0)
		return -errno;
	if (!sh->child) {
		close(ready[0]);
		/* Outside: the child's child, orphaned at once, out of the tree. */
		if (sh->outside && fork())
			_exit(0);
		shared_child(dev->fd, sh->dmabuf, ready[1], go, sh->keeps);
	}
	/* Until the sharer holds the buffer: two files, one buffer. */
	close(ready[1]);
	ret = read(ready[0], &sharer, sizeof(sharer)) == sizeof(sharer) ? 0 : -ECHILD;
	close(ready[0]);
	if (sh->outside) {
		waitpid(sh->child, NULL, 0);
		sh->child = sharer;
	}
	return ret;
}

static int shared_check(const struct onenode_device *dev, struct shared *sh, char *why,
			size_t len)
{
	uint32_t probe;
	int status;

	for (uint64_t i = 0; i < SHARED_SIZE; i++) {
		if (sh->map[i] != shared_byte(i, 0)) {
			snprintf(why, len, "byte %llu of the shared buffer differs",
				 (unsigned long long)i);
			return -EIO;
		}
	}
	if (drmPrimeFDToHandle(dev->fd, sh->dmabuf, &probe) || probe != sh->bo) {
		snprintf(why, len, "the kept dma-buf fd imports as handle %u, not %u", probe,
			 sh->bo);
		return -EIO;
	}
	if (sh->outside) {
		/* The dump was refused: the sharer is not ours to wait for. */
		kill(sh->child, SIGKILL);
		return 0;
	}
	for (uint64_t i = 0; i < SHARED_SIZE; i++)
		sh->map[i] = shared_byte(i, 1);
	kill(sh->child, SIGUSR1);
	if (waitpid(sh->child, &status, 0) != sh->child || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		snprintf(why, len, "the child did not see the task's writes through its own "
			 "import of the dma-buf (status %#x)", status);
		return -EIO;
	}
	return 0;
}

static bool same_report(struct drm_compute_query_device a, struct drm_compute_query_device b,
			bool moved)
{
	if (moved) {
		if (a.device_id == b.device_id)
			return false;
		b.device_id = a.device_id;
	}
	return !memcmp(&a, &b, sizeof(a));
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
	struct saved sv = { 0 };
	struct shared sh = { .dmabuf = -1 };
	char why[256] = "";
	int obj_ret = 0;
	bool objects, save, moved, shared;

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
	save = getenv("CRIU_HOLDER_OBJECTS") && !strcmp(getenv("CRIU_HOLDER_OBJECTS"), "save");
	moved = getenv("CRIU_HOLDER_MOVED") && !strcmp(getenv("CRIU_HOLDER_MOVED"), "1");
	shared = getenv("CRIU_HOLDER_OBJECTS") && !strncmp(getenv("CRIU_HOLDER_OBJECTS"), "shared", 6);
	if (shared) {
		const char *o = getenv("CRIU_HOLDER_OBJECTS");

		sh.outside = strcmp(o, "shared") != 0;
		sh.keeps = !strcmp(o, "shared-outside-fd")   ? KEEPS_DMABUF :
			   !strcmp(o, "shared-outside-map")  ? KEEPS_MAPPING :
			   !strcmp(o, "shared-outside-file") ? KEEPS_FILE :
			   sh.outside			     ? KEEPS_DMABUF_IMPORT :
							       KEEPS_ALL;
	}
	if (shared) {
		ret = shared_setup(&dev, &sh, argv[2]);
		if (ret) {
			snprintf(text, sizeof(text), "FAIL: a buffer shared with a child: %s\n",
				 onenode_strerror(ret));
			write_file(argv[3], text);
			return 1;
		}
	}
	if (save) {
		ret = save_setup(&dev, &sv);
		if (ret) {
			snprintf(text, sizeof(text), "FAIL: objects to save: %s\n",
				 onenode_strerror(ret));
			write_file(argv[3], text);
			return 1;
		}
	}
	if (objects) {
		const struct onenode_queue_params params = {
			.va = 0x10000000ull, .priority = ONENODE_PRIORITY_DEFAULT,
		};

		int dmabuf = -1;
		uint32_t imported;

		ret = onenode_bo_create(&dev, 4096, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo);
		/*
		 * Exported, the dma-buf fd kept for the task's life (the kernel
		 * saves such a buffer), and a buffer of vgem's imported, which
		 * it cannot save.
		 */
		if (!ret && drmPrimeHandleToFD(dev.fd, bo, DRM_CLOEXEC, &dmabuf))
			ret = -errno;
		if (!ret)
			ret = import_vgem(&dev, &imported);
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
	if (save)
		obj_ret = save_check(&dev, &sv, why, sizeof(why));
	if (shared)
		obj_ret = shared_check(&dev, &sh, why, sizeof(why));

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
	} else if (!same_report(before, after, moved)) {
		snprintf(text, sizeof(text), "FAIL: DEVICE report changed (vram %llu -> %llu, "
			 "features %#llx -> %#llx, page size %u -> %u)\n",
			 (unsigned long long)before.vram_size, (unsigned long long)after.vram_size,
			 (unsigned long long)before.features, (unsigned long long)after.features,
			 before.page_size, after.page_size);
	} else if (fstat(dev.fd, &st_after) || (st_after.st_rdev != st_before.st_rdev) != moved) {
		snprintf(text, sizeof(text), "FAIL: fd %d is %s node now\n", dev.fd,
			 moved ? "the same" : "another");
	} else if ((fcntl(dev.fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) != fl_before ||
		   fcntl(dev.fd, F_GETFD) != fdfl_before) {
		snprintf(text, sizeof(text), "FAIL: fd %d flags changed\n", dev.fd);
	} else if (obj_ret && (save || shared)) {
		snprintf(text, sizeof(text), "FAIL: the saved objects: %s\n", why);
	} else if (obj_ret) {
		snprintf(text, sizeof(text), "FAIL: the buffer, VM and queue after the failed "
			 "dump: %s%s\n", onenode_strerror(obj_ret),
			 obj_ret == -EBUSY ? " (the queue is still suspended)" : "");
	} else {
		snprintf(text, sizeof(text), "PASS: fd %d %s, DEVICE report identical%s%s\n",
			 dev.fd, again.path, moved ? " but for the device id (another instance)" : "",
			 objects ? ", buffer, VM and running queue kept" :
			 shared && sh.outside ? ", the buffer shared outside the tree kept" :
			 shared ? ", the buffer shared with the child restored as one buffer: "
				  "bytes, the kept dma-buf fd, the child's import and mapping" :
			 save ? ", buffers (bytes, handles, kept mapping), VMs, mappings and a "
				"queue caught inside a packet restored; it finished the packet "
				"and took new work through its kept ring and doorbell; an SVM "
				"VM's attributes and its queue restored, which summed a malloc'ed "
				"array once let go" :
			 "");
	}
	write_file(argv[3], text);
	return strncmp(text, "PASS", 4) ? 1 : 0;
}
