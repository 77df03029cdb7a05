// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * IGT test of DRM_COMPUTE_OP_CRIU_INFO (struct drm_compute_criu_info) and
 * of DRM core's access rule for checkpoint/restore ioctls
 * (DRM_CHECKPOINT_RESTORE): the counts of a file's buffers, exports,
 * imports, VMs, queues and SVM ranges; rejection of bad input; who may call
 * it (the owner, the owner's ptrace tracer, nobody without the capability)
 * and that a tracer's calls do not take the file over; calls racing object
 * creation and ownership changes.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

#include <xf86drm.h>

#include "compute_igt.h"

IGT_TEST_DESCRIPTION("Checks DRM_COMPUTE_OP_CRIU_INFO: the counts of a "
		     "file's compute objects, rejection of bad fields, DRM "
		     "core's checkpoint/restore access rule (capability; owner "
		     "or its ptrace tracer; no hand-over to the tracer), and "
		     "races with object churn and ownership changes.");

#define RACE_THREADS 2
#define RACE_ROUNDS 400

static struct compute_dev cd = { .fd = -1 };

/* The counts, in one line for failure messages. */
static void expect_counts(const struct compute_dev *dev, uint32_t bos, uint32_t exports,
			  uint32_t imports, uint32_t vms, uint32_t userqs, uint32_t svm_ranges)
{
	struct drm_compute_criu_info i;

	igt_assert_eq(onenode_criu_info(&dev->dev, &i), 0);
	igt_assert_f(i.bos == bos && i.exports == exports && i.imports == imports &&
		     i.vms == vms && i.userqs == userqs && i.svm_ranges == svm_ranges,
		     "counts bos %u exports %u imports %u vms %u userqs %u svm %u, "
		     "want %u %u %u %u %u %u\n", i.bos, i.exports, i.imports, i.vms,
		     i.userqs, i.svm_ranges, bos, exports, imports, vms, userqs, svm_ranges);
	igt_assert_eq_u32(i.flags, 0);
	/* What cannot be saved is among what is counted. */
	igt_assert_lte_u32(i.unsaved, i.bos + i.vms + i.userqs);
	igt_assert(!i.reserved);
}

/* A dumb buffer of vgem's, as a dma-buf fd; -1 without vgem. */
static int vgem_dmabuf(void)
{
	struct drm_mode_create_dumb create = { .width = 64, .height = 16, .bpp = 32 };
	int vgem = compute_open_vgem(), fd = -1;

	if (vgem < 0)
		return -1;
	if (!drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		igt_assert_eq(drmPrimeHandleToFD(vgem, create.handle, DRM_CLOEXEC, &fd), 0);
	close(vgem);
	return fd;
}

static void test_counts(void)
{
	struct compute_dev f;
	struct compute_queue q;
	uint32_t a, b, imp = 0, vm, svm, page = (uint32_t)COMPUTE_PAGE;
	struct drm_compute_svm_attr attr = {
		.type = DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC,
		.value = DRM_COMPUTE_SVM_LOCATION_SYSMEM,
	};
	bool has_import;
	void *mem;
	int dmabuf, vfd, ret;

	compute_open_file(&cd, &f);
	expect_counts(&f, 0, 0, 0, 0, 0, 0);

	a = compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	b = compute_bo(&f, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM);
	expect_counts(&f, 2, 0, 0, 0, 0, 0);

	/* An export: the buffer has a dma-buf while anybody holds it. */
	igt_assert_eq(drmPrimeHandleToFD(f.fd, b, DRM_CLOEXEC, &dmabuf), 0);
	expect_counts(&f, 2, 1, 0, 0, 0, 0);

	/* An import from another driver. */
	vfd = vgem_dmabuf();
	has_import = vfd >= 0;
	if (has_import) {
		igt_assert_eq(drmPrimeFDToHandle(f.fd, vfd, &imp), 0);
		close(vfd);
	} else {
		igt_info("no vgem: imports not counted here\n");
	}
	expect_counts(&f, 2 + has_import, 1, has_import, 0, 0, 0);

	vm = compute_vm(&f);
	expect_counts(&f, 2 + has_import, 1, has_import, 1, 0, 0);
	compute_queue_init_at(&f, vm, COMPUTE_QUEUE_VA(0), &q);
	/* The queue's ring and state are buffers of the file too. */
	{
		struct drm_compute_criu_info i;

		igt_assert_eq(onenode_criu_info(&f.dev, &i), 0);
		igt_assert_eq_u32(i.userqs, 1);
		igt_assert_eq_u32(i.vms, 1);
		igt_assert_lt_u32(2 + has_import, i.bos);
	}
	compute_queue_fini(&q);

	/* SVM ranges: two pages with different attributes are two ranges. */
	ret = onenode_vm_create_flags(&f.dev, DRM_COMPUTE_VM_CREATE_SVM, &svm);
	if (ret == -EOPNOTSUPP) {
		igt_info("no SVM: ranges not counted here\n");
	} else {
		igt_assert_eq(ret, 0);
		mem = mmap(NULL, 3 * COMPUTE_PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		igt_assert(mem != MAP_FAILED);
		igt_assert_eq(onenode_svm_set_attr(&f.dev, svm, (uintptr_t)mem, page,
						   &attr, 1), 0);
		attr.type = DRM_COMPUTE_SVM_ATTR_GRANULARITY;
		attr.value = 4;
		igt_assert_eq(onenode_svm_set_attr(&f.dev, svm, (uintptr_t)mem + 2 * page,
						   page, &attr, 1), 0);
		expect_counts(&f, 2 + has_import, 1, has_import, 2, 0, 2);
		compute_vm_destroy(&f, svm);
		munmap(mem, 3 * COMPUTE_PAGE);
	}
	expect_counts(&f, 2 + has_import, 1, has_import, 1, 0, 0);

	/*
	 * DRM core keeps an exported buffer's dma-buf while the buffer has a
	 * handle (a second export returns the same one): it stays an export
	 * after its fd is closed, until the handle goes.
	 */
	close(dmabuf);
	expect_counts(&f, 2 + has_import, 1, has_import, 1, 0, 0);
	compute_bo_close(&f, b);
	expect_counts(&f, 1 + has_import, 0, has_import, 1, 0, 0);
	compute_vm_destroy(&f, vm);
	compute_bo_close(&f, a);
	if (has_import)
		compute_bo_close(&f, imp);
	expect_counts(&f, 0, 0, 0, 0, 0, 0);

	/* Another file's objects are not counted here. */
	expect_counts(&cd, 0, 0, 0, 0, 0, 0);
	compute_close(&f);
}

static void test_invalid(void)
{
	struct drm_compute_criu_info ok = {}, bad;
	static const size_t outs[] = {
		offsetof(struct drm_compute_criu_info, bos),
		offsetof(struct drm_compute_criu_info, exports),
		offsetof(struct drm_compute_criu_info, imports),
		offsetof(struct drm_compute_criu_info, vms),
		offsetof(struct drm_compute_criu_info, userqs),
		offsetof(struct drm_compute_criu_info, svm_ranges),
		offsetof(struct drm_compute_criu_info, unsaved),
		offsetof(struct drm_compute_criu_info, syncobjs),
		offsetof(struct drm_compute_criu_info, signals),
	};
	unsigned int i;

	for (i = 0; i < 32; i++) {
		bad = ok;
		bad.flags = 1u << i;
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_CRIU_INFO, &bad, sizeof(bad), -EINVAL);
	}
	for (i = 0; i < COMPUTE_ARRAY_SIZE(outs); i++) {
		bad = ok;
		memset((char *)&bad + outs[i], 0xff, sizeof(uint32_t));
		compute_expect_rejected(&cd, DRM_COMPUTE_OP_CRIU_INFO, &bad, sizeof(bad), -EINVAL);
	}
	bad = ok;
	bad.reserved = 1ull << 63;
	compute_expect_rejected(&cd, DRM_COMPUTE_OP_CRIU_INFO, &bad, sizeof(bad), -EINVAL);
	igt_assert_eq(onenode_criu_info(&cd.dev, &bad), 0);
}

static void test_no_capability(void)
{
	igt_fork(child, 1) {
		struct compute_dev f;
		struct drm_compute_criu_info i;

		compute_open_file(&cd, &f);
		igt_assert_eq(onenode_criu_info(&f.dev, &i), 0);
		igt_assert(compute_drop_cap(CAP_CHECKPOINT_RESTORE));
		igt_assert(compute_drop_cap(CAP_SYS_ADMIN));
		/* The owner itself, but without the capability. */
		igt_assert_eq(onenode_criu_info(&f.dev, &i), -EPERM);
		compute_close(&f);
	}
	igt_waitchildren();
}

/*
 * A child that owns a file with one buffer and answers commands on a pipe:
 * 'i' asks for CRIU_INFO on its file (answer: the result, then bos), 'q'
 * ends it.
 */
struct owner {
	pid_t pid;
	int cmd;
	int ans;
	int fd; /* the parent's copy of the child's file */
};

/*
 * Runs in a plain forked child: no IGT assertion here (they would unwind
 * into the parent's subtest machinery); any failure ends the child, which
 * closes the answer pipe and fails the parent's read.
 */
static void owner_serve(int cmd, int ans)
{
	struct onenode_device dev;
	struct drm_compute_criu_info i;
	int32_t reply[2];
	uint32_t bo;
	int fd;
	char c;

	fd = open(cd.dev.path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || onenode_device_from_fd(fd, &dev) ||
	    onenode_bo_create(&dev, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo))
		_exit(1);
	reply[0] = fd;
	if (write(ans, reply, sizeof(reply[0])) != sizeof(reply[0]))
		_exit(1);
	while (read(cmd, &c, 1) == 1 && c == 'i') {
		reply[0] = onenode_criu_info(&dev, &i);
		reply[1] = (int32_t)i.bos;
		if (write(ans, reply, sizeof(reply)) != sizeof(reply))
			_exit(1);
	}
	close(fd);
}

static void owner_start(struct owner *o)
{
	int cmd[2], ans[2], pidfd, child_fd;

	igt_assert_eq(pipe(cmd), 0);
	igt_assert_eq(pipe(ans), 0);
	o->pid = fork();
	igt_assert(o->pid >= 0);
	if (!o->pid) {
		close(cmd[1]);
		close(ans[0]);
		owner_serve(cmd[0], ans[1]);
		_exit(0);
	}
	close(cmd[0]);
	close(ans[1]);
	o->cmd = cmd[1];
	o->ans = ans[0];
	igt_assert_eq(read(o->ans, &child_fd, sizeof(child_fd)), sizeof(child_fd));
	pidfd = syscall(SYS_pidfd_open, o->pid, 0);
	igt_assert_f(pidfd >= 0, "pidfd_open: %s\n", strerror(errno));
	o->fd = syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	igt_assert_f(o->fd >= 0, "pidfd_getfd: %s\n", strerror(errno));
	close(pidfd);
}

/* The child's own CRIU_INFO: the result, and the buffers it counted. */
static int owner_info(struct owner *o, uint32_t *bos)
{
	int32_t reply[2];

	igt_assert_eq(write(o->cmd, "i", 1), 1);
	igt_assert_eq(read(o->ans, reply, sizeof(reply)), sizeof(reply));
	*bos = (uint32_t)reply[1];
	return reply[0];
}

static void owner_stop(struct owner *o)
{
	int status;

	igt_assert_eq(write(o->cmd, "q", 1), 1);
	igt_assert_eq(waitpid(o->pid, &status, 0), o->pid);
	igt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(o->cmd);
	close(o->ans);
	close(o->fd);
}

/*
 * The parent's view of the child's file, made without an ioctl: any
 * ordinary ioctl would hand the file over to the parent.
 */
static void theirs_init(struct compute_dev *theirs, int fd)
{
	*theirs = cd;
	theirs->fd = fd;
	theirs->dev.fd = fd;
	theirs->dev.owns_fd = 0;
}

/* Seize and stop @pid the way CRIU does. */
static void seize(pid_t pid)
{
	int status;

	igt_assert_eq(ptrace(PTRACE_SEIZE, pid, NULL, NULL), 0);
	igt_assert_eq(ptrace(PTRACE_INTERRUPT, pid, NULL, NULL), 0);
	igt_assert_eq(waitpid(pid, &status, __WALL), pid);
	igt_assert(WIFSTOPPED(status));
}

static void test_tracer(void)
{
	struct compute_dev theirs;
	struct drm_compute_criu_info i;
	struct drm_compute_query_device d;
	struct owner o;
	uint32_t bos;

	owner_start(&o);
	theirs_init(&theirs, o.fd);

	/* Neither the owner nor its tracer: refused, and nothing handed over. */
	igt_assert_eq(onenode_criu_info(&theirs.dev, &i), -EACCES);
	igt_assert_eq(owner_info(&o, &bos), 0);
	igt_assert_eq_u32(bos, 1);

	/* As CRIU: seized and stopped, the file is readable to the tracer. */
	seize(o.pid);
	igt_assert_eq(onenode_criu_info(&theirs.dev, &i), 0);
	igt_assert_eq_u32(i.bos, 1);
	/* An ordinary ioctl of the tracer does not take the file either. */
	igt_assert_eq(onenode_query_device(&theirs.dev, &d), 0);
	igt_assert_eq(ptrace(PTRACE_DETACH, o.pid, NULL, NULL), 0);
	igt_assert_eq(owner_info(&o, &bos), 0);
	igt_assert_eq_u32(bos, 1);
	/* Once detached, the parent may not look any more. */
	igt_assert_eq(onenode_criu_info(&theirs.dev, &i), -EACCES);

	owner_stop(&o);
}

/*
 * A tracer that may not checkpoint (a debugger without
 * CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN) is an ordinary caller: its
 * ioctl takes the file over, as any process's would. Only a tracer that
 * may checkpoint (CRIU) looks without taking.
 */
static void test_debugger(void)
{
	igt_fork(child, 1) {
		struct compute_dev theirs;
		struct drm_compute_query_device d;
		struct owner o;
		uint32_t bos;

		owner_start(&o);
		theirs_init(&theirs, o.fd);
		igt_assert(compute_drop_cap(CAP_CHECKPOINT_RESTORE));
		igt_assert(compute_drop_cap(CAP_SYS_ADMIN));
		seize(o.pid);
		igt_assert_eq(onenode_query_device(&theirs.dev, &d), 0);
		igt_assert_eq(ptrace(PTRACE_DETACH, o.pid, NULL, NULL), 0);
		/* The debugger took it: the owner is the owner no more. */
		igt_assert_eq(owner_info(&o, &bos), -EACCES);
		owner_stop(&o);
	}
	igt_waitchildren();
}

static void test_handover(void)
{
	struct compute_dev theirs;
	struct drm_compute_criu_info i;
	struct drm_compute_query_device d;
	struct owner o;
	uint32_t bos;

	owner_start(&o);
	theirs_init(&theirs, o.fd);
	/*
	 * An ordinary ioctl from a process that does not trace the owner
	 * hands the file over (DRM core's rule for passed descriptors): the
	 * access rule follows.
	 */
	igt_assert_eq(onenode_query_device(&theirs.dev, &d), 0);
	igt_assert_eq(onenode_criu_info(&theirs.dev, &i), 0);
	igt_assert_eq_u32(i.bos, 1);
	igt_assert_eq(owner_info(&o, &bos), -EACCES);
	owner_stop(&o);
}

struct churn {
	struct compute_dev *dev;
	bool svm;
	atomic_bool stop;
	atomic_int errors;
};

/*
 * No IGT assertion in a thread (the shim tracks failures per process):
 * errors are counted and checked once the threads are joined. With SVM, a
 * VM of every other round is an SVM VM with one attribute range, so the
 * count walks SVM stores that are being torn down.
 */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	const struct onenode_device *dev = &c->dev->dev;
	struct drm_compute_svm_attr attr = {
		.type = DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC,
		.value = DRM_COMPUTE_SVM_LOCATION_SYSMEM,
	};
	void *page = mmap(NULL, COMPUTE_PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int round = 0;

	if (page == MAP_FAILED) {
		atomic_fetch_add(&c->errors, 1);
		return NULL;
	}
	while (!atomic_load(&c->stop)) {
		bool svm = c->svm && (round++ & 1);
		uint32_t bo, vm = 0;
		int ret;

		ret = onenode_bo_create(dev, COMPUTE_PAGE, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo);
		if (ret)
			break;
		ret = onenode_vm_create_flags(dev, svm ? DRM_COMPUTE_VM_CREATE_SVM : 0, &vm);
		if (!ret && svm)
			ret = onenode_svm_set_attr(dev, vm, (uintptr_t)page, COMPUTE_PAGE,
						   &attr, 1);
		if (vm && onenode_vm_destroy(dev, vm) && !ret)
			ret = -EIO;
		if (drmCloseBufferHandle(c->dev->fd, bo) && !ret)
			ret = -EIO;
		if (ret)
			break;
	}
	if (!atomic_load(&c->stop))
		atomic_fetch_add(&c->errors, 1);
	munmap(page, COMPUTE_PAGE);
	return NULL;
}

static void test_race_objects(void)
{
	struct compute_dev f;
	struct churn c = { .dev = &f };
	pthread_t th[RACE_THREADS];
	unsigned int n, seen = 0, bad = 0, started = 0;
	struct drm_compute_criu_info i, first_bad = {};
	int ret, bad_ret = 0;

	compute_open_file(&cd, &f);
	c.svm = f.info.features & DRM_COMPUTE_FEATURE_SVM;
	for (n = 0; n < RACE_THREADS; n++)
		started += !pthread_create(&th[n], NULL, churn_thread, &c);
	for (n = 0; n < RACE_ROUNDS && started == RACE_THREADS; n++) {
		ret = onenode_criu_info(&f.dev, &i);
		if (ret || i.bos > RACE_THREADS || i.vms > RACE_THREADS ||
		    i.svm_ranges > RACE_THREADS || i.userqs || i.exports || i.imports) {
			if (!bad++) {
				first_bad = i;
				bad_ret = ret;
			}
			continue;
		}
		seen += i.bos + i.vms + i.svm_ranges;
	}
	/* Stop and join before any assertion. */
	atomic_store(&c.stop, true);
	for (n = 0; n < started; n++)
		pthread_join(th[n], NULL);
	igt_assert_eq(started, RACE_THREADS);
	igt_assert_f(!bad, "%u bad answers; the first: %d, bos %u vms %u svm %u userqs %u\n",
		     bad, bad_ret, first_bad.bos, first_bad.vms, first_bad.svm_ranges,
		     first_bad.userqs);
	igt_assert_eq(atomic_load(&c.errors), 0);
	igt_info("%u objects seen over %u calls (SVM VMs: %s)\n", seen, RACE_ROUNDS,
		 c.svm ? "yes" : "no");
	expect_counts(&f, 0, 0, 0, 0, 0, 0);
	compute_close(&f);
}

static void test_race_owner(void)
{
	struct compute_dev f;
	int *go = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned int n, ok = 0, refused = 0;

	igt_assert(go != MAP_FAILED);
	compute_open_file(&cd, &f);
	/* A child takes the file over and over while the parent asks. */
	igt_fork(child, 1) {
		struct drm_compute_query_device d;

		while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
			igt_assert_eq(onenode_query_device(&f.dev, &d), 0);
	}
	for (n = 0; n < RACE_ROUNDS; n++) {
		struct drm_compute_criu_info i;
		struct drm_compute_query_device d;
		int ret;

		/* Take it back, then ask: either answer is right. */
		igt_assert_eq(onenode_query_device(&f.dev, &d), 0);
		ret = onenode_criu_info(&f.dev, &i);
		igt_assert_f(ret == 0 || ret == -EACCES, "round %u: %d\n", n, ret);
		if (ret)
			refused++;
		else
			ok++;
	}
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	igt_waitchildren();
	igt_info("%u answered, %u refused while the child held the file\n", ok, refused);
	compute_close(&f);
	munmap(go, 4096);
}

igt_main
{
	igt_fixture {
		compute_open(&cd);
		compute_require_userq(&cd);
	}

	igt_describe("A fresh file counts nothing; buffers, an export (until "
		     "its handle closes), an import from vgem, VMs, a queue and SVM "
		     "ranges are counted, and go from the counts with their "
		     "objects; another file's objects are not counted.");
	igt_subtest("counts")
		test_counts();

	igt_describe("Each flag bit, each out field, the padding and each "
		     "reserved word set: -EINVAL, the argument unchanged.");
	igt_subtest("invalid")
		test_invalid();

	igt_describe("DRM core's checkpoint/restore rule: the owner without "
		     "CAP_CHECKPOINT_RESTORE and CAP_SYS_ADMIN gets -EPERM; a "
		     "process that neither owns the file nor traces its owner "
		     "gets -EACCES, until it seizes the owner as CRIU does; the "
		     "tracer's calls leave the file with its owner; an ordinary "
		     "ioctl from another process hands the file over, and the "
		     "rule follows.");
	igt_subtest_with_dynamic("access") {
		igt_require_f(geteuid() == 0, "root (capabilities, pidfd_getfd, ptrace)\n");
		igt_dynamic("no-capability")
			test_no_capability();
		igt_dynamic("tracer")
			test_tracer();
		igt_dynamic("handover")
			test_handover();
		igt_dynamic("debugger")
			test_debugger();
	}

	igt_describe("Threads create and destroy buffers and VMs while the "
		     "file's counts are read: every answer within bounds, nothing "
		     "left; a child takes the file over again and again while "
		     "the parent asks: only answers or -EACCES.");
	igt_subtest_with_dynamic("race") {
		igt_dynamic("objects")
			test_race_objects();
		igt_dynamic("owner")
			test_race_owner();
	}

	igt_fixture {
		compute_close(&cd);
	}
}
