// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of hot-unplug on vcompute: an instance made through configfs
 * (/sys/kernel/config/vcompute/<name>) is unplugged under its clients by
 * writing 0 to its enabled attribute, the faux bus's only removal path,
 * and plugged again. Each subtest holds one kind of client when the device
 * goes: none, an idle open file, CPU mappings of buffers, queues running
 * work with a waiter, an exported dma-buf mapped by another process. The
 * clients must see -ENODEV, SIGBUS or -EIO, never a crash; the kernel log
 * must stay clean (the test batch's gate); and once every client is gone
 * the module's reference count is back where it was, so no file or
 * dma-buf leaked. Two subtests unplug under an importer whose fence never
 * signals, alone and while a checkpoint's pause waits for it: the waits
 * are bounded, so the unplug finishes. One subtest unbinds a PCI instance
 * (its BAR goes back as soon as no buffer is in it). The last subtest unloads and
 * reloads the module itself: refused while a file is open, done once it is
 * closed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks hot-unplug of a vcompute instance through "
		     "configfs under each kind of client (none, an open file, "
		     "CPU mappings, running queues and a waiter, an exported "
		     "dma-buf in another process), that a replugged device "
		     "works, that nothing leaks a module reference, and that "
		     "the module unloads only once its last file is closed.");

#define INSTANCE	"hp"
#define REFCNT		"/sys/module/vcompute/refcnt"

static long refcnt_base = -1;

static long module_refcnt(void)
{
	long n = -1;
	FILE *f = fopen(REFCNT, "r");

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static void plug(bool on)
{
	compute_instance_plug(INSTANCE, on);
}

/* Create the instance and open its render node into @cd. */
static void instance_up(struct compute_dev *cd)
{
	compute_instance_up(INSTANCE, 32, cd);
	igt_assert(cd->info.features & DRM_COMPUTE_FEATURE_USERQ);
}

/*
 * After every client is gone: remove the instance, check the refcount.
 * SVM device memory drops its hold on the module from a work item after
 * its last page went: allow it a few seconds.
 */
static void instance_gone(void)
{
	compute_instance_remove(INSTANCE);
	for (int i = 0; i < 50 && module_refcnt() != refcnt_base; i++)
		compute_sleep_ms(100);
	igt_assert_f(module_refcnt() == refcnt_base,
		     "module refcount %ld, was %ld: a file, dma-buf or device page leaked\n",
		     module_refcnt(), refcnt_base);
}

/* A device whose ioctls answer -ENODEV. */
static void assert_unplugged(const struct compute_dev *cd)
{
	struct drm_compute_query_device d;

	igt_assert_eq(onenode_query_device(&cd->dev, &d), -ENODEV);
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

/* Whether touching @p raises SIGBUS. */
static bool touch_faults(volatile uint32_t *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	bool faulted;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1) == 0) {
		(void)*p;
		faulted = false;
	} else {
		faulted = true;
	}
	sigaction(SIGBUS, &old, NULL);
	return faulted;
}

static void unplug_idle(void)
{
	struct compute_dev cd;

	instance_up(&cd);
	close(cd.fd);
	plug(false);
	/* Plugged again, a new device works. */
	instance_up(&cd);
	close(cd.fd);
	instance_gone();
}

static void unplug_open_file(void)
{
	struct compute_dev cd, again;
	uint32_t vm;

	instance_up(&cd);
	vm = compute_vm(&cd);
	plug(false);
	assert_unplugged(&cd);
	igt_assert_eq(onenode_vm_destroy(&cd.dev, vm), -ENODEV);
	close(cd.fd);
	instance_up(&again);
	compute_vm_destroy(&again, compute_vm(&again));
	close(again.fd);
	instance_gone();
}

static void unplug_mapped(uint64_t placement)
{
	struct compute_dev cd;
	uint32_t h;
	uint32_t *p;

	instance_up(&cd);
	h = compute_bo(&cd, 4 * COMPUTE_PAGE, placement);
	p = compute_bo_map(&cd, h, 4 * COMPUTE_PAGE);
	p[0] = 0xfeedf00d;
	igt_assert(!touch_faults(p));
	plug(false);
	igt_assert_f(touch_faults(p), "a mapping of an unplugged device still works\n");
	igt_assert_f(touch_faults(p + COMPUTE_PAGE / sizeof(*p)),
		     "an untouched page still maps\n");
	munmap(p, 4 * COMPUTE_PAGE);
	close(cd.fd);
	instance_gone();
}

static void unplug_queues(void)
{
	struct compute_dev cd;
	struct compute_queue cq[2];
	struct compute_buf flag;
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS], target;
	uint32_t vm;
	int i;

	instance_up(&cd);
	vm = compute_vm(&cd);
	compute_buf_init(&cd, vm, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM,
			 COMPUTE_BUF_VA(0), DRM_COMPUTE_VM_BIND_NOEXEC, &flag);
	for (i = 0; i < 2; i++) {
		struct onenode_queue_params p = {
			.va = COMPUTE_QUEUE_VA(i),
			.priority = ONENODE_PRIORITY_DEFAULT,
		};

		compute_queue_init(&cd, vm, &p, &cq[i]);
		/* A wait that nothing will satisfy, then a fence behind it. */
		compute_emit(&cq[i], pkt, onenode_pkt_wait_mem(pkt, flag.va, VCOMPUTE_WAIT_EQ,
							      1, ~0ull, 0, 0));
	}
	target = compute_submit(&cq[0]);
	compute_submit(&cq[1]);

	igt_fork(child, 1) {
		/* The waiter learns the queue is lost. */
		igt_assert_eq(onenode_userq_wait(&cd.dev, cq[0].q.id, target,
						 COMPUTE_TIMEOUT_MS * 1000000ll), -EIO);
	}
	compute_sleep_ms(300);
	plug(false);
	igt_waitchildren();
	assert_unplugged(&cd);

	igt_assert_eq(onenode_userq_destroy(&cd.dev, cq[0].q.id), -ENODEV);
	/*
	 * Userspace tears down what it made: its mappings go, the ioctls
	 * on the way fail with -ENODEV; the close frees the rest.
	 */
	for (i = 0; i < 2; i++)
		onenode_queue_fini(&cq[i].q);
	munmap(flag.cpu, flag.size);
	close(cd.fd);
	instance_gone();
}

static void unplug_exported(void)
{
	struct compute_dev cd;
	uint32_t h, *p;
	int dmabuf, ready[2], go[2];
	char c;

	instance_up(&cd);
	h = compute_bo(&cd, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_VRAM);
	p = compute_bo_map(&cd, h, COMPUTE_PAGE);
	p[0] = 0x5eed5eed;
	munmap(p, COMPUTE_PAGE);
	igt_assert_eq(drmPrimeHandleToFD(cd.fd, h, DRM_CLOEXEC | DRM_RDWR, &dmabuf), 0);
	igt_assert_eq(pipe(ready), 0);
	igt_assert_eq(pipe(go), 0);

	igt_fork(child, 1) {
		volatile uint32_t *m;

		/* Another process holds the dma-buf and maps it. */
		close(cd.fd);
		m = mmap(NULL, COMPUTE_PAGE, PROT_READ, MAP_SHARED, dmabuf, 0);
		igt_assert(m != MAP_FAILED);
		igt_assert_eq_u32(m[0], 0x5eed5eed);
		igt_assert_eq(write(ready[1], "r", 1), 1);
		igt_assert_eq(read(go[0], &c, 1), 1);
		igt_assert_f(touch_faults(m), "the importer's mapping outlived the device\n");
		munmap((void *)m, COMPUTE_PAGE);
		close(dmabuf);
	}
	igt_assert_eq(read(ready[0], &c, 1), 1);
	/* The exporter goes first: only the dma-buf holds the buffer. */
	close(dmabuf);
	close(cd.fd);
	plug(false);
	igt_assert_eq(write(go[1], "g", 1), 1);
	igt_waitchildren();
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	instance_gone();
}

/*
 * An SVM VM under a queue that mirrored process memory and waits on it:
 * unplug, then the process changes that memory (the MMU notifier of a
 * device that is gone) and tears down.
 */
static void unplug_svm(void)
{
	struct compute_dev cd;
	struct compute_queue cq;
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS], target;
	struct onenode_queue_params p = {
		.va = COMPUTE_QUEUE_VA(0),
		.priority = ONENODE_PRIORITY_DEFAULT,
	};
	uint32_t *mem, vm = 0;
	int ret;

	instance_up(&cd);
	ret = onenode_vm_create_flags(&cd.dev, DRM_COMPUTE_VM_CREATE_SVM, &vm);
	igt_require_f(ret != -EOPNOTSUPP, "no SVM on this device\n");
	igt_assert_eq(ret, 0);
	mem = mmap(NULL, 2 * COMPUTE_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(mem != MAP_FAILED);
	mem[0] = 0;
	compute_queue_init(&cd, vm, &p, &cq);
	/* The queue mirrors mem and waits for a value nothing writes. */
	compute_emit(&cq, pkt, onenode_pkt_wait_mem(pkt, (uintptr_t)mem, VCOMPUTE_WAIT_EQ,
						   1, ~0ull, 0, 0));
	target = compute_submit(&cq);
	compute_sleep_ms(300);
	plug(false);
	assert_unplugged(&cd);
	igt_assert_eq(onenode_userq_wait(&cd.dev, cq.q.id, target, 0), -ENODEV);
	/* The mirrored page changes and goes while the device is gone. */
	mem[0] = 1;
	igt_assert_eq(madvise(mem, 2 * COMPUTE_PAGE, MADV_DONTNEED), 0);
	munmap(mem, 2 * COMPUTE_PAGE);
	onenode_queue_fini(&cq.q);
	close(cd.fd);
	instance_gone();
}

/*
 * SVM data in the device's memory when the device goes: the CPU still
 * reads it (it migrates back through the pagemap, which outlives the
 * device), and everything is released once the process lets go.
 */
static void unplug_svm_device(void)
{
	const uint64_t size = 16 * COMPUTE_PAGE;
	struct onenode_residency r;
	struct drm_compute_svm_attr a = { .type = DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC };
	struct compute_dev cd;
	uint8_t *mem;
	uint32_t vm = 0;
	int ret;

	instance_up(&cd);
	ret = onenode_vm_create_flags(&cd.dev, DRM_COMPUTE_VM_CREATE_SVM, &vm);
	igt_require_f(ret != -EOPNOTSUPP, "no SVM on this device\n");
	igt_assert_eq(ret, 0);
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	igt_assert(mem != MAP_FAILED);
	compute_fill_pattern(mem, size, 40);
	a.value = cd.info.device_id;
	igt_assert_eq(onenode_svm_set_attr(&cd.dev, vm, (uintptr_t)mem, size, &a, 1), 0);
	igt_assert_eq(onenode_svm_residency(mem, size, &r), 0);
	igt_assert_eq_u64(r.device, size / COMPUTE_PAGE);

	plug(false);
	assert_unplugged(&cd);
	igt_assert(compute_check_pattern(mem, size, 40, NULL));
	igt_assert_eq(onenode_svm_residency(mem, size, &r), 0);
	igt_assert_eq_u64(r.sysmem, size / COMPUTE_PAGE);
	munmap(mem, size);
	close(cd.fd);
	instance_gone();
}

/* sw_sync (drivers/dma-buf/sw_sync.c), whose ioctls have no uapi header. */
struct sw_sync_create_fence_data {
	uint32_t value;
	char name[32];
	int32_t fence;
};

#define SW_SYNC_IOC_CREATE_FENCE	_IOWR('W', 0, struct sw_sync_create_fence_data)
#define SW_SYNC				"/sys/kernel/debug/sync/sw_sync"
#define HANG_MS				1000

static struct compute_param hang_timeout = {
	.module = "drm_compute_helper", .name = "hang_timeout_ms",
};

/*
 * An importer that never lets go: a write fence on @dmabuf that signals
 * only when the returned sw_sync timeline is closed.
 */
static int hung_importer(int dmabuf)
{
	struct sw_sync_create_fence_data f = { .value = 1, .name = "never" };
	struct dma_buf_import_sync_file imp = { .flags = DMA_BUF_SYNC_WRITE };
	int tl = open(SW_SYNC, O_RDWR | O_CLOEXEC);

	if (tl < 0) {
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		tl = open(SW_SYNC, O_RDWR | O_CLOEXEC);
	}
	igt_require_f(tl >= 0, "%s: %s\n", SW_SYNC, strerror(errno));
	igt_assert_eq(ioctl(tl, SW_SYNC_IOC_CREATE_FENCE, &f), 0);
	imp.fd = f.fence;
	igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp), 0);
	close(f.fence);
	return tl;
}

/* A buffer made for export, its dma-buf, and a hung importer's fence on it. */
static int hung_export(struct compute_dev *cd, uint32_t *h, int *dmabuf)
{
	igt_assert_eq(onenode_bo_create_export(&cd->dev, COMPUTE_PAGE,
					       DRM_COMPUTE_PLACEMENT_VRAM,
					       DRM_COMPUTE_BO_EXPORT_PREFER_P2P, h), 0);
	igt_assert_eq(drmPrimeHandleToFD(cd->fd, *h, DRM_CLOEXEC | DRM_RDWR, dmabuf), 0);
	return hung_importer(*dmabuf);
}

/* Unplug, and say how long it took. */
static uint64_t timed_unplug(void)
{
	uint64_t t0 = compute_now_ns();

	plug(false);
	return (compute_now_ns() - t0) / 1000000;
}

/*
 * The revocation at unplug waits for the importers' fences for at most the
 * hang timeout (it used to wait uninterruptibly and forever): the unplug
 * finishes, the importer keeps the memory until it lets go.
 */
static void unplug_hung_importer(void)
{
	struct compute_dev cd;
	uint64_t ms;
	uint32_t h;
	int dmabuf, tl;

	compute_param_set(&hang_timeout, HANG_MS);
	instance_up(&cd);
	tl = hung_export(&cd, &h, &dmabuf);
	ms = timed_unplug();
	igt_info("unplug under a hung importer took %" PRIu64 " ms\n", ms);
	igt_assert_f(ms < 20 * HANG_MS, "the unplug took %" PRIu64 " ms\n", ms);
	assert_unplugged(&cd);
	close(tl);
	close(dmabuf);
	close(cd.fd);
	compute_param_restore(&hang_timeout);
	instance_gone();
}

struct pause_arg {
	struct compute_dev *cd;
	int ret;
};

static void *pause_thread(void *p)
{
	struct pause_arg *a = p;

	a->ret = onenode_criu_pause(&a->cd->dev, DRM_COMPUTE_CRIU_OP_PAUSE, NULL);
	return NULL;
}

/*
 * A checkpoint's pause waits for an importer that never lets go, inside
 * the ioctl, which drm_dev_unplug() waits for: the wait is bounded
 * (-ETIMEDOUT, the file as it was), so the unplug finishes.
 */
static void unplug_pause_waiting(void)
{
	struct pause_arg a = { .ret = 1 };
	struct compute_dev cd;
	pthread_t t;
	uint64_t ms;
	uint32_t h;
	int dmabuf, tl;

	compute_param_set(&hang_timeout, HANG_MS);
	instance_up(&cd);
	a.cd = &cd;
	tl = hung_export(&cd, &h, &dmabuf);
	igt_assert_eq(pthread_create(&t, NULL, pause_thread, &a), 0);
	compute_sleep_ms(200);
	ms = timed_unplug();
	igt_assert_eq(pthread_join(t, NULL), 0);
	igt_info("unplug during the pause took %" PRIu64 " ms; the pause: %d\n", ms, a.ret);
	igt_assert_f(ms < 20 * HANG_MS, "the unplug took %" PRIu64 " ms\n", ms);
	igt_assert_f(a.ret == -ETIMEDOUT || a.ret == -ENODEV, "the pause: %d\n", a.ret);
	close(tl);
	close(dmabuf);
	close(cd.fd);
	compute_param_restore(&hang_timeout);
	instance_gone();
}

#define VCOMPUTE_PCI	"/sys/bus/pci/drivers/vcompute"

/* The last PCI function vcompute drives, as its name ("0000:03:00.0"). */
static bool pci_instance(char *bdf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "ls -1 %s | grep '^0000:' | tail -1", VCOMPUTE_PCI);
	f = popen(path, "r");
	if (!f)
		return false;
	if (fgets(bdf, len, f)) {
		bdf[strcspn(bdf, "\n")] = 0;
		found = bdf[0];
	}
	pclose(f);
	return found;
}

/* Open the render node of PCI function @bdf into @cd. */
static void pci_open(const char *bdf, struct compute_dev *cd)
{
	char cmd[PATH_MAX], name[64], node[80];
	FILE *f;
	int ret;

	snprintf(cmd, sizeof(cmd), "ls -1 /sys/bus/pci/devices/%s/drm | grep renderD", bdf);
	f = popen(cmd, "r");
	igt_assert(f);
	igt_assert_f(fgets(name, sizeof(name), f), "%s has no render node\n", bdf);
	pclose(f);
	name[strcspn(name, "\n")] = 0;
	snprintf(node, sizeof(node), "/dev/dri/%s", name);
	memset(cd, 0, sizeof(*cd));
	ret = onenode_open_path(node, &cd->dev);
	igt_assert_f(ret == 0, "%s: %s\n", node, onenode_strerror(ret));
	cd->fd = cd->dev.fd;
}

/*
 * Write @bdf to the driver's @what (bind, unbind) attribute in a child,
 * which first closes what it inherited: a copy of the parent's device file
 * would keep that file, and the buffers it holds, alive across the unbind.
 */
static pid_t pci_write_child(const char *bdf, const char *what)
{
	pid_t pid = fork();

	igt_assert(pid >= 0);
	if (pid == 0) {
		char path[PATH_MAX];
		int fd;

		syscall(SYS_close_range, 3, ~0U, 0);
		snprintf(path, sizeof(path), "%s/%s", VCOMPUTE_PCI, what);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		_exit(fd >= 0 && write(fd, bdf, strlen(bdf)) == (ssize_t)strlen(bdf) ? 0 : 1);
	}
	return pid;
}

/* Whether child @pid exits (status 0) within @ms. */
static bool child_done(pid_t pid, unsigned int ms)
{
	int status;

	for (unsigned int i = 0; i <= ms / 10; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		igt_assert(r >= 0);
		if (r == pid) {
			igt_assert_f(WIFEXITED(status) && WEXITSTATUS(status) == 0,
				     "the sysfs write failed\n");
			return true;
		}
		compute_sleep_ms(10);
	}
	return false;
}

static void pci_rebind(const char *bdf)
{
	pid_t pid = pci_write_child(bdf, "bind");

	igt_assert_f(child_done(pid, 10000), "binding %s again did not finish\n", bdf);
}

/*
 * A PCI instance's BAR goes back when nothing uses it: an unbind under a
 * file that holds no buffer in the BAR finishes at once; one under a file
 * with a buffer in it waits, and finishes when that file closes (after
 * unplug no ioctl, not even GEM_CLOSE, runs). The BAR used to be held
 * until the DRM device's last file closed, so the first unbind blocked
 * too (issue 23).
 */
static void unbind_bar(void)
{
	struct compute_dev cd, again;
	char bdf[64];
	uint32_t bo = 0;
	pid_t pid;

	igt_require_f(pci_instance(bdf, sizeof(bdf)), "vcompute drives no PCI function\n");
	igt_info("PCI instance %s\n", bdf);

	/* An open file, no buffer: the unbind does not wait for it. */
	pci_open(bdf, &cd);
	pid = pci_write_child(bdf, "unbind");
	if (!child_done(pid, 10000)) {
		close(cd.fd);	/* let the child finish before failing */
		igt_assert(child_done(pid, 60000));
		igt_assert_f(false, "the unbind waited for a file with no buffer in the BAR\n");
	}
	assert_unplugged(&cd);
	close(cd.fd);
	pci_rebind(bdf);

	/* A buffer in the BAR: the unbind waits until its file closes. */
	pci_open(bdf, &cd);
	igt_assert_eq(onenode_bo_create(&cd.dev, 64 * COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_VRAM,
					&bo), 0);
	pid = pci_write_child(bdf, "unbind");
	igt_assert_f(!child_done(pid, 1000),
		     "the unbind finished while a buffer was in the BAR\n");
	assert_unplugged(&cd);
	close(cd.fd);
	igt_assert_f(child_done(pid, 10000), "the unbind did not finish after the close\n");
	pci_rebind(bdf);

	pci_open(bdf, &again);
	compute_vm_destroy(&again, compute_vm(&again));
	close(again.fd);
}

static int delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static void module_cycle(void)
{
	const char *kbuild = getenv("ONENODE_KBUILD");
	char path[PATH_MAX], params[512] = "", pci[480] = "";
	struct compute_dev cd;
	FILE *f;
	int ko, ret;

	igt_require_f(kbuild, "ONENODE_KBUILD (set in the VM) names the kernel build\n");
	snprintf(path, sizeof(path), "%s/drivers/gpu/drm/vcompute/vcompute.ko", kbuild);
	ko = open(path, O_RDONLY | O_CLOEXEC);
	igt_require_f(ko >= 0, "%s: %s\n", path, strerror(errno));
	/* The KUnit module uses vcompute's symbols; it ran already. */
	ret = delete_module("vcompute_packet_test");
	igt_assert(ret == 0 || ret == -ENOENT);

	/* Loaded again as it was: with the PCI functions it was handed. */
	f = fopen("/sys/module/vcompute/parameters/pci_functions", "r");
	if (f) {
		if (fgets(pci, sizeof(pci), f) && strcmp(pci, "(null)\n")) {
			pci[strcspn(pci, "\n")] = 0;
			snprintf(params, sizeof(params), "pci_functions=%s", pci);
		}
		fclose(f);
	}
	compute_open(&cd);
	igt_assert_eq(delete_module("vcompute"), -EWOULDBLOCK);
	compute_close(&cd);
	igt_assert_eq(delete_module("vcompute"), 0);
	igt_assert(access("/sys/devices/faux/vcompute.0", F_OK));

	igt_assert_eq(syscall(SYS_finit_module, ko, params, 0), 0);
	close(ko);
	compute_open(&cd);
	compute_vm_destroy(&cd, compute_vm(&cd));
	compute_close(&cd);
}

igt_main
{
	igt_fixture {
		igt_require_f(access(COMPUTE_CONFIGFS, F_OK) == 0, "vcompute with configfs is loaded\n");
		/* A leftover of an earlier run. */
		if (access(COMPUTE_CONFIGFS "/" INSTANCE, F_OK) == 0) {
			plug(false);
			rmdir(COMPUTE_CONFIGFS "/" INSTANCE);
		}
		refcnt_base = module_refcnt();
		igt_assert(refcnt_base >= 0);
	}

	igt_describe("Unplug with no client; a replugged device works.");
	igt_subtest("unplug-idle")
		unplug_idle();

	igt_describe("Unplug under an idle open file: its ioctls fail with -ENODEV; "
		     "closing it frees everything.");
	igt_subtest("unplug-open-file")
		unplug_open_file();

	igt_describe("Unplug under CPU mappings of buffers: touching them raises "
		     "SIGBUS, touched and untouched pages alike.");
	igt_subtest_with_dynamic("unplug-mapped") {
		igt_dynamic("vram")
			unplug_mapped(DRM_COMPUTE_PLACEMENT_VRAM);
		igt_dynamic("system")
			unplug_mapped(DRM_COMPUTE_PLACEMENT_SYSTEM);
	}

	igt_describe("Unplug under two queues stalled in WAIT_MEM with a waiter in "
		     "USERQ_WAIT: the waiter returns -EIO, the queues' ioctls -ENODEV.");
	igt_subtest("unplug-running-queues")
		unplug_queues();

	igt_describe("Unplug while another process holds and maps an exported "
		     "dma-buf after the exporter closed: its mapping faults SIGBUS, "
		     "and its close releases the last reference.");
	igt_subtest("unplug-exported-dmabuf")
		unplug_exported();

	igt_describe("Unplug under an SVM VM whose queue waits on mirrored process "
		     "memory; the process then changes and unmaps that memory, "
		     "and tears down with -ENODEV on the way.");
	igt_subtest("unplug-svm")
		unplug_svm();

	igt_describe("Unplug while SVM data is in the device's memory: the CPU "
		     "still reads it (migrated back), and all is released after.");
	igt_subtest("unplug-svm-device")
		unplug_svm_device();

	igt_describe("Unplug while an importer's fence never signals (a sw_sync "
		     "fence on the exported buffer): the revocation's wait is "
		     "bounded by the hang timeout (lowered to 1 s), the unplug "
		     "finishes.");
	igt_subtest("unplug-hung-importer")
		unplug_hung_importer();

	igt_describe("Unplug while a checkpoint's pause waits, inside the "
		     "ioctl, for an importer that never lets go: the pause fails "
		     "with -ETIMEDOUT and the unplug finishes.");
	igt_subtest("unplug-pause-waiting")
		unplug_pause_waiting();

	igt_describe("A PCI instance's unbind finishes under an open file with no "
		     "buffer in the BAR, and waits for one with a buffer there "
		     "until that file closes; the function binds again and works.");
	igt_subtest("unbind-bar")
		unbind_bar();

	igt_describe("rmmod vcompute is refused while a file is open and succeeds "
		     "once it is closed; the reloaded module's device works.");
	igt_subtest("module-unload-reload")
		module_cycle();

	igt_fixture
		compute_param_restore(&hang_timeout);
}
