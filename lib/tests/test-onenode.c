// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * libonenode without a device: feature, status and fault naming, the
 * compute-base table and every request number, the report field lists,
 * argument checking (with /dev/null posing as a compute node), the queue's
 * ring arithmetic and commit protocol over plain memory, error messages,
 * and discovery in a fake /dev/dri made of regular files, links and
 * /dev/null, where no node may ever match.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onenode.h"
#include "vcompute_drm.h"
#include "tap.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

static void test_feature_names(void)
{
	char buf[64];
	int n;

	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_USERQ), "userq", "userq bit named");
	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_SVM), "svm", "svm bit named");
	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_P2P_EXPORT), "p2p-export",
		  "p2p-export bit named");
	CHECK_STR(onenode_feature_name(DRM_COMPUTE_FEATURE_CRIU), "criu", "criu bit named");
	CHECK(onenode_feature_name(0) == NULL, "no name for 0");
	CHECK(onenode_feature_name(DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM) == NULL,
	      "no name for two bits");
	CHECK(onenode_feature_name(1ULL << 63) == NULL, "no name for an unknown bit");

	/* Every known bit has a distinct name: a new bit needs a name too. */
	for (int bit = 0; bit < 64; bit++) {
		uint64_t m = 1ULL << bit;

		if (!(DRM_COMPUTE_FEATURES_KNOWN & m))
			continue;
		CHECK(onenode_feature_name(m) != NULL, "known bit %d has a name", bit);
	}

	n = onenode_features_string(0, buf, sizeof(buf));
	CHECK_STR(buf, "none", "empty set prints none");
	CHECK_EQ(n, 4, "length of none");

	n = onenode_features_string(DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_CRIU,
				    buf, sizeof(buf));
	CHECK_STR(buf, "userq,criu", "two bits in bit order");
	CHECK_EQ(n, 10, "length of userq,criu");

	n = onenode_features_string(DRM_COMPUTE_FEATURES_KNOWN | (1ULL << 40) | (1ULL << 63),
				    buf, sizeof(buf));
	CHECK_STR(buf, "userq,svm,p2p-export,criu,bit40,bit63", "unknown bits as bitN");
	CHECK_EQ(n, (int)strlen("userq,svm,p2p-export,criu,bit40,bit63"), "full length returned");

	n = onenode_features_string(DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM, buf, 4);
	CHECK_STR(buf, "use", "truncated output is terminated");
	CHECK_EQ(n, 9, "truncation still returns the full length");

	n = onenode_features_string(DRM_COMPUTE_FEATURE_SVM, NULL, 0);
	CHECK_EQ(n, 3, "NULL buffer of length 0 measures");
	CHECK_EQ(onenode_features_string(1, NULL, 8), -EINVAL, "NULL buffer with a length");
}

static void test_compute_bases(void)
{
	unsigned int base = 1234;

	CHECK_EQ(onenode_compute_base("vcompute", &base), 0, "vcompute has a compute base");
	CHECK_EQ(base, DRM_VCOMPUTE_COMPUTE_BASE, "vcompute's is DRM_VCOMPUTE_COMPUTE_BASE");
	CHECK_EQ(onenode_compute_base("amdgpu", &base), 0, "amdgpu has a compute base");
	CHECK_EQ(base, 0x40, "amdgpu's is 0x40 (the onenode glue)");
	CHECK_EQ(onenode_compute_base("vgem", &base), -EOPNOTSUPP, "vgem has none");
	CHECK_EQ(onenode_compute_base("vcomput", &base), -EOPNOTSUPP, "prefix is no match");
	CHECK_EQ(onenode_compute_base("vcomputex", &base), -EOPNOTSUPP, "longer name is no match");
	CHECK_EQ(onenode_compute_base(NULL, &base), -EINVAL, "NULL driver");
	CHECK_EQ(onenode_compute_base("vcompute", NULL), -EINVAL, "NULL base");
}

/* Each op's request from the uapi's own macro, at two bases. */
static void test_compute_requests(void)
{
#define REQ(name, type) { DRM_COMPUTE_OP_##name, #name, sizeof(struct type) }
	static const struct {
		unsigned int op;
		const char *name;
		size_t size;
	} ops[] = {
		REQ(QUERY, drm_compute_query),
		REQ(BO_CREATE, drm_compute_bo_create),
		REQ(BO_MMAP, drm_compute_bo_mmap),
		REQ(VM_CREATE, drm_compute_vm_create),
		REQ(VM_DESTROY, drm_compute_vm_destroy),
		REQ(VM_BIND, drm_compute_vm_bind),
		REQ(USERQ_CREATE, drm_compute_userq_create),
		REQ(USERQ_DESTROY, drm_compute_userq_destroy),
		REQ(USERQ_CONTROL, drm_compute_userq_control),
		REQ(USERQ_STATE, drm_compute_userq_state),
		REQ(USERQ_WAIT, drm_compute_userq_wait),
		REQ(USERQ_SIGNAL, drm_compute_userq_signal),
		REQ(SVM, drm_compute_svm),
		REQ(P2P_REPORT, drm_compute_p2p_report),
		REQ(CRIU_INFO, drm_compute_criu_info),
		REQ(CRIU_PAUSE, drm_compute_criu_pause),
		REQ(CRIU_CHECKPOINT, drm_compute_criu_checkpoint),
		REQ(CRIU_RESTORE, drm_compute_criu_restore),
	};
#undef REQ
	static const unsigned int bases[] = { DRM_VCOMPUTE_COMPUTE_BASE, 0x40 };

	CHECK_EQ(sizeof(ops) / sizeof(ops[0]), DRM_COMPUTE_OP_COUNT, "every op is listed here");
	for (size_t b = 0; b < 2; b++) {
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			unsigned long req = onenode_compute_request(bases[b], ops[i].op);

			CHECK(req == _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE,
					  DRM_COMMAND_BASE + bases[b] + ops[i].op, ops[i].size) &&
			      _IOC_NR(req) == DRM_COMMAND_BASE + bases[b] + i,
			      "base %#x op %s: nr, size and direction", bases[b], ops[i].name);
		}
		CHECK(onenode_compute_request(bases[b], DRM_COMPUTE_OP_COUNT) == 0 &&
		      onenode_compute_request(bases[b], DRM_COMPUTE_OP_MAX) == 0 &&
		      onenode_compute_request(bases[b], ~0u) == 0,
		      "base %#x: unknown ops have no request", bases[b]);
	}
	/* And against the uapi's macros by name, where a typo would show. */
	CHECK(onenode_compute_request(0, DRM_COMPUTE_OP_QUERY) == DRM_COMPUTE_IOCTL_QUERY(0) &&
	      onenode_compute_request(0x40, DRM_COMPUTE_OP_VM_BIND) == DRM_COMPUTE_IOCTL_VM_BIND(0x40) &&
	      onenode_compute_request(0, DRM_COMPUTE_OP_USERQ_SIGNAL) ==
	      DRM_COMPUTE_IOCTL_USERQ_SIGNAL(0) &&
	      onenode_compute_request(0x40, DRM_COMPUTE_OP_SVM) == DRM_COMPUTE_IOCTL_SVM(0x40),
	      "matches DRM_COMPUTE_IOCTL_*()");
}

/*
 * The SVM structures: sizes, offsets (no hidden padding, 8-byte fields
 * aligned) and KFD's values for the attribute types, locations and flags,
 * which userspace ported from /dev/kfd relies on.
 */
static void test_svm_layout(void)
{
	CHECK_EQ(sizeof(struct drm_compute_svm), 40u, "drm_compute_svm is 40 bytes");
	CHECK(offsetof(struct drm_compute_svm, vm_id) == 0 &&
	      offsetof(struct drm_compute_svm, op) == 4 &&
	      offsetof(struct drm_compute_svm, start) == 8 &&
	      offsetof(struct drm_compute_svm, size) == 16 &&
	      offsetof(struct drm_compute_svm, attrs) == 24 &&
	      offsetof(struct drm_compute_svm, nattr) == 32 &&
	      offsetof(struct drm_compute_svm, flags) == 36, "drm_compute_svm offsets");
	CHECK_EQ(sizeof(struct drm_compute_svm_attr), 8u, "an attribute is 8 bytes");
	CHECK(DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC == 0 && DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC == 1 &&
	      DRM_COMPUTE_SVM_ATTR_ACCESS == 2 && DRM_COMPUTE_SVM_ATTR_ACCESS_IN_PLACE == 3 &&
	      DRM_COMPUTE_SVM_ATTR_NO_ACCESS == 4 && DRM_COMPUTE_SVM_ATTR_SET_FLAGS == 5 &&
	      DRM_COMPUTE_SVM_ATTR_CLR_FLAGS == 6 && DRM_COMPUTE_SVM_ATTR_GRANULARITY == 7,
	      "attribute types are KFD's");
	CHECK(DRM_COMPUTE_SVM_LOCATION_SYSMEM == 0 &&
	      DRM_COMPUTE_SVM_LOCATION_UNDEFINED == 0xffffffffu, "locations are KFD's");
	CHECK(DRM_COMPUTE_SVM_FLAG_HOST_ACCESS == 0x1 && DRM_COMPUTE_SVM_FLAG_COHERENT == 0x2 &&
	      DRM_COMPUTE_SVM_FLAG_HIVE_LOCAL == 0x4 && DRM_COMPUTE_SVM_FLAG_GPU_RO == 0x8 &&
	      DRM_COMPUTE_SVM_FLAG_GPU_EXEC == 0x10 && DRM_COMPUTE_SVM_FLAG_GPU_READ_MOSTLY == 0x20 &&
	      DRM_COMPUTE_SVM_FLAG_GPU_ALWAYS_MAPPED == 0x40 &&
	      DRM_COMPUTE_SVM_FLAG_EXT_COHERENT == 0x80 && DRM_COMPUTE_SVM_FLAGS_KNOWN == 0xff,
	      "flags are KFD's");
	CHECK(DRM_COMPUTE_VM_CREATE_SVM == 1, "VM_CREATE_SVM is bit 0");
	CHECK_EQ(offsetof(struct drm_compute_query_device, device_id), 56u,
		 "device_id where it was");
	CHECK_EQ(offsetof(struct drm_compute_query_device, svm_flags), 64u,
		 "svm_flags after device_id's padding");
	CHECK_EQ(offsetof(struct drm_compute_query_device, semantics), 72u,
		 "semantics at the end of the DEVICE report");
	CHECK_EQ(sizeof(struct drm_compute_query_device), 80u, "the DEVICE report is 80 bytes");
}

/* Read field @f of a report back through its offset and size. */
static uint64_t field_at(const void *report, const struct onenode_field *f)
{
	const unsigned char *p = (const unsigned char *)report + f->offset;
	uint32_t v32;
	uint64_t v = 0;

	if (f->size == 4) {
		memcpy(&v32, p, 4);
		v = v32;
	} else if (f->size == 8) {
		memcpy(&v, p, 8);
	}
	return v;
}

/*
 * Fields in uapi order, each found at its offset with its value, no two
 * overlapping, and together covering @covered bytes of the report: a field
 * added to the uapi without an entry fails here.
 */
static void check_fields(const char *what, const void *report, size_t covered,
			 const struct onenode_field *f, int n,
			 const char *const *names, const char *const *bytes)
{
	size_t sum = 0;

	for (int i = 0; i < n; i++) {
		int is_bytes = 0;

		for (const char *const *b = bytes; *b; b++)
			is_bytes |= !strcmp(*b, f[i].name);
		CHECK_STR(f[i].name, names[i], "%s field %d name", what, i);
		CHECK(field_at(report, &f[i]) == f[i].value && f[i].value != 0,
		      "%s.%s found at its offset", what, f[i].name);
		CHECK_EQ(f[i].is_bytes, is_bytes, "%s.%s unit", what, f[i].name);
		CHECK(i == 0 || f[i].offset >= f[i - 1].offset + f[i - 1].size,
		      "%s.%s after the previous field", what, f[i].name);
		sum += f[i].size;
	}
	CHECK_EQ(sum, covered, "%s fields cover the report", what);
}

static void test_fields(void)
{
	struct drm_compute_query_device d = {
		.features = 5, .vram_size = 1ULL << 28, .vram_bar_size = 1ULL << 20,
		.placements = 3, .va_start = 1ULL << 16, .va_end = 1ULL << 47,
		.page_size = 4096, .device_id = 7, .svm_flags = 0x1b, .semantics = 0x3,
	};
	struct drm_compute_query_userq u = {
		.caps = 1, .max_queues = 64, .num_priorities = 16, .priority_default = 7,
		.priority_privileged = 12, .num_cus = 8, .queue_formats = 2,
		.ring_size_min = 4096, .ring_size_max = 1 << 22, .ctx_save_size = 4096,
		.doorbell_size = 4096, .hang_timeout_ms = 10000,
	};
	static const char *const dnames[] = {
		"features", "vram_size", "vram_bar_size", "placements", "va_start", "va_end",
		"page_size", "device_id", "svm_flags", "semantics",
	};
	static const char *const dbytes[] = { "vram_size", "vram_bar_size", "page_size", NULL };
	static const char *const unames[] = {
		"caps", "max_queues", "num_priorities", "priority_default",
		"priority_privileged", "num_cus", "queue_formats", "ring_size_min",
		"ring_size_max", "ctx_save_size", "doorbell_size", "hang_timeout_ms",
	};
	static const char *const ubytes[] = {
		"ring_size_min", "ring_size_max", "ctx_save_size", "doorbell_size", NULL,
	};
	struct onenode_field f[ONENODE_USERQ_NFIELDS + ONENODE_DEVICE_NFIELDS];
	int n;

	n = onenode_device_fields(&d, f, ONENODE_DEVICE_NFIELDS);
	CHECK_EQ(n, ONENODE_DEVICE_NFIELDS, "every DEVICE field listed");
	if (n == ONENODE_DEVICE_NFIELDS)
		check_fields("device", &d,
			     sizeof(d) - sizeof(d.pad) - sizeof(d.pad2) - sizeof(d.pad3), f, n,
			     dnames, dbytes);
	CHECK_EQ(onenode_device_fields(&d, f, ONENODE_DEVICE_NFIELDS - 1), -EINVAL,
		 "too small an array");
	CHECK_EQ(onenode_device_fields(NULL, f, ONENODE_DEVICE_NFIELDS), -EINVAL, "NULL report");
	CHECK_EQ(onenode_device_fields(&d, NULL, ONENODE_DEVICE_NFIELDS), -EINVAL, "NULL out");

	n = onenode_userq_fields(&u, f, ONENODE_USERQ_NFIELDS);
	CHECK_EQ(n, (int)(sizeof(unames) / sizeof(unames[0])), "every USERQ field listed");
	CHECK(n <= ONENODE_USERQ_NFIELDS, "ONENODE_USERQ_NFIELDS is room enough");
	if (n == (int)(sizeof(unames) / sizeof(unames[0])))
		check_fields("userq", &u, sizeof(u), f, n, unames, ubytes);
	CHECK_EQ(onenode_userq_fields(&u, f, ONENODE_USERQ_NFIELDS - 1), -EINVAL,
		 "too small an array");
	CHECK_EQ(onenode_userq_fields(NULL, f, ONENODE_USERQ_NFIELDS), -EINVAL, "NULL report");
}

static void test_status_fault_names(void)
{
	static const char *const statuses[] = {
		[DRM_COMPUTE_USERQ_STATUS_IDLE] = "idle",
		[DRM_COMPUTE_USERQ_STATUS_RUNNING] = "running",
		[DRM_COMPUTE_USERQ_STATUS_SUSPENDED] = "suspended",
		[DRM_COMPUTE_USERQ_STATUS_FAULTED] = "faulted",
		[DRM_COMPUTE_USERQ_STATUS_HUNG] = "hung",
		[DRM_COMPUTE_USERQ_STATUS_LOST] = "lost",
	};
	static const char *const faults[] = {
		[DRM_COMPUTE_FAULT_NONE] = "none",
		[DRM_COMPUTE_FAULT_UNMAPPED] = "unmapped",
		[DRM_COMPUTE_FAULT_WRITE] = "write",
		[DRM_COMPUTE_FAULT_EXEC] = "exec",
		[DRM_COMPUTE_FAULT_ALIGNMENT] = "alignment",
		[DRM_COMPUTE_FAULT_PACKET] = "packet",
		[DRM_COMPUTE_FAULT_WPTR] = "wptr",
		[DRM_COMPUTE_FAULT_TIMEOUT] = "timeout",
		[DRM_COMPUTE_FAULT_HANG] = "hang",
		[DRM_COMPUTE_FAULT_LOST] = "lost",
		[DRM_COMPUTE_FAULT_NOMIRROR] = "nomirror",
		[DRM_COMPUTE_FAULT_SVM_BUSY] = "svm-busy",
		[DRM_COMPUTE_FAULT_JOB_TIMEOUT] = "job-timeout",
	};

	for (uint32_t s = DRM_COMPUTE_USERQ_STATUS_IDLE; s <= DRM_COMPUTE_USERQ_STATUS_LOST; s++)
		CHECK_STR(onenode_status_name(s), statuses[s], "status %u", s);
	CHECK_STR(onenode_status_name(0), "unknown", "status 0 has no name");
	CHECK_STR(onenode_status_name(DRM_COMPUTE_USERQ_STATUS_LOST + 1), "unknown",
		  "status past the last");
	for (uint32_t r = DRM_COMPUTE_FAULT_NONE; r <= DRM_COMPUTE_FAULT_JOB_TIMEOUT; r++)
		CHECK_STR(onenode_fault_name(r), faults[r], "fault %u", r);
	CHECK_STR(onenode_fault_name(DRM_COMPUTE_FAULT_JOB_TIMEOUT + 1), "unknown", "fault past the last");
	CHECK_STR(onenode_fault_name(UINT32_MAX), "unknown", "fault UINT32_MAX");
	CHECK_STR(onenode_p2p_reason_name(DRM_COMPUTE_P2P_REASON_NONE), "p2p", "p2p reason none");
	CHECK_STR(onenode_p2p_reason_name(DRM_COMPUTE_P2P_REASON_NO_P2P_MEMORY), "no-p2p-memory",
		  "p2p reason no memory");
	CHECK_STR(onenode_p2p_reason_name(DRM_COMPUTE_P2P_REASON_PINNED), "pinned", "p2p reason last");
	CHECK_STR(onenode_p2p_reason_name(DRM_COMPUTE_P2P_REASON_PINNED + 1), "unknown",
		  "p2p reason past the last");
}

static void test_strerror(void)
{
	CHECK_STR(onenode_strerror(0), "success", "0 is success");
	CHECK(!strncmp(onenode_strerror(-ENOENT), "no such DRM render node", 23), "-ENOENT");
	CHECK_STR(onenode_strerror(ENOENT), onenode_strerror(-ENOENT), "sign does not matter");
	CHECK_STR(onenode_strerror(-ENOTTY), "not a DRM device", "-ENOTTY");
	CHECK(strstr(onenode_strerror(-EOPNOTSUPP), "no DRM compute uapi known to libonenode") &&
	      strstr(onenode_strerror(-EOPNOTSUPP), "device does not support"), "-EOPNOTSUPP");
	CHECK(strstr(onenode_strerror(-EPROTO), "invalid DRM compute report") != NULL, "-EPROTO");
	CHECK_STR(onenode_strerror(-EACCES), "Permission denied", "others from libc");
	CHECK_STR(onenode_strerror(-99999), "unknown error", "out of range");
	CHECK_STR(onenode_strerror(INT_MIN), "unknown error", "INT_MIN");
}

static void test_open_path(const char *tmp)
{
	struct onenode_device dev;
	char path[PATH_MAX], longpath[ONENODE_PATH_MAX + 16];
	int fds = count_fds();

	dev.fd = 1234;
	CHECK_EQ(onenode_open_path(NULL, &dev), -EINVAL, "open_path(NULL)");
	CHECK_EQ(dev.fd, -1, "fd reset on failure");
	CHECK_EQ(onenode_open_path("", &dev), -EINVAL, "open_path(\"\")");
	CHECK_EQ(onenode_open_path("/dev/null", NULL), -EINVAL, "open_path NULL dev");
	CHECK_EQ(onenode_open_path_flags("/dev/null", O_RDWR | O_CREAT, &dev), -EINVAL,
		 "open flags beyond access mode and O_NONBLOCK");
	CHECK_EQ(onenode_open_path_flags("/dev/null", O_ACCMODE, &dev), -EINVAL,
		 "invalid access mode");
	CHECK_EQ(onenode_open_path_flags("/dev/null", O_RDONLY | O_NONBLOCK, &dev), -ENOTTY,
		 "read-only non-blocking open reaches the DRM check");

	snprintf(path, sizeof(path), "%s/missing", tmp);
	CHECK_EQ(onenode_open_path(path, &dev), -ENOENT, "missing path");
	snprintf(path, sizeof(path), "%s/renderD128", tmp);
	CHECK_EQ(onenode_open_path(path, &dev), -ENOTTY, "regular file is not DRM");
	CHECK_EQ(onenode_open_path("/dev/null", &dev), -ENOTTY, "/dev/null is not DRM");
	CHECK_EQ(dev.fd, -1, "fd reset after -ENOTTY");

	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK_EQ(onenode_open_path(longpath, &dev), -ENAMETOOLONG, "path too long");

	CHECK_EQ(count_fds(), fds, "no fd leaked by failed opens");
	onenode_close(&dev);
	onenode_close(NULL);
}

static void test_from_fd(void)
{
	struct onenode_device dev;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	CHECK_EQ(onenode_device_from_fd(-1, &dev), -EBADF, "from_fd(-1)");
	CHECK_EQ(onenode_device_from_fd(fd, NULL), -EINVAL, "from_fd NULL dev");
	CHECK_EQ(onenode_device_from_fd(fd, &dev), -ENOTTY, "from_fd(/dev/null)");
	CHECK(fcntl(fd, F_GETFD) >= 0, "borrowed fd left open on failure");

	/* A hand-made borrowed device: close must not close the fd. */
	memset(&dev, 0, sizeof(dev));
	dev.fd = fd;
	dev.owns_fd = 0;
	onenode_close(&dev);
	CHECK(fcntl(fd, F_GETFD) >= 0, "close does not close a borrowed fd");
	CHECK_EQ(dev.fd, -1, "close resets the device");
	close(fd);
}

/* /dev/null posing as a node of @driver: every ioctl fails with -ENOTTY. */
static void fake_device(struct onenode_device *dev, int fd, const char *driver)
{
	memset(dev, 0, sizeof(*dev));
	dev->fd = fd;
	strcpy(dev->driver, driver);
}

static void test_compute_args(void)
{
	struct onenode_device dev;
	struct drm_compute_query_device d;
	struct drm_compute_query_userq u;
	struct drm_compute_userq_state st;
	struct drm_compute_vm_create vc = { 0 };
	struct drm_compute_svm_attr attr = { DRM_COMPUTE_SVM_ATTR_GRANULARITY, 9 };
	uint32_t size = 4, handle;
	uint64_t offset;
	void *ptr;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	fake_device(&dev, -1, "vcompute");
	CHECK_EQ(onenode_compute_ioctl(NULL, DRM_COMPUTE_OP_VM_CREATE, &vc), -EINVAL, "NULL dev");
	CHECK_EQ(onenode_compute_ioctl(&dev, DRM_COMPUTE_OP_VM_CREATE, &vc), -EINVAL, "closed dev");
	CHECK_EQ(onenode_query_device(&dev, &d), -EINVAL, "query on a closed dev");

	fake_device(&dev, fd, "vcompute");
	CHECK_EQ(onenode_compute_ioctl(&dev, DRM_COMPUTE_OP_VM_CREATE, NULL), -EINVAL, "NULL arg");
	CHECK_EQ(onenode_compute_ioctl(&dev, DRM_COMPUTE_OP_COUNT, &vc), -EINVAL, "unknown op");
	CHECK_EQ(onenode_compute_ioctl(&dev, DRM_COMPUTE_OP_VM_CREATE, &vc), -ENOTTY,
		 "the ioctl reaches the fd");
	CHECK_EQ(onenode_query(&dev, DRM_COMPUTE_QUERY_DEVICE, NULL, NULL), -EINVAL, "NULL size");
	CHECK_EQ(onenode_query(&dev, DRM_COMPUTE_QUERY_DEVICE, NULL, &size), -EINVAL,
		 "NULL data with a size");
	CHECK_EQ(onenode_query_device(&dev, NULL), -EINVAL, "NULL report");
	CHECK_EQ(onenode_query_device(&dev, &d), -ENOTTY, "DEVICE query on /dev/null");
	CHECK_EQ(onenode_query_userq(&dev, &u), -ENOTTY, "USERQ query on /dev/null");
	CHECK_EQ(onenode_bo_create(&dev, 4096, DRM_COMPUTE_PLACEMENT_VRAM, NULL), -EINVAL,
		 "bo_create NULL handle");
	CHECK_EQ(onenode_bo_create(&dev, 4096, DRM_COMPUTE_PLACEMENT_VRAM, &handle), -ENOTTY,
		 "bo_create reaches the fd");
	CHECK_EQ(onenode_bo_mmap_offset(&dev, 1, NULL), -EINVAL, "bo_mmap_offset NULL offset");
	CHECK_EQ(onenode_bo_mmap_offset(&dev, 1, &offset), -ENOTTY, "bo_mmap_offset");
	CHECK_EQ(onenode_bo_map(&dev, 1, 0, &ptr), -EINVAL, "bo_map of 0 bytes");
	CHECK_EQ(onenode_bo_map(&dev, 1, 4096, NULL), -EINVAL, "bo_map NULL ptr");
	CHECK_EQ(onenode_vm_create(&dev, NULL), -EINVAL, "vm_create NULL id");
	CHECK_EQ(onenode_vm_create_flags(&dev, DRM_COMPUTE_VM_CREATE_SVM, NULL), -EINVAL,
		 "vm_create_flags NULL id");
	CHECK_EQ(onenode_vm_create_flags(&dev, DRM_COMPUTE_VM_CREATE_SVM, &handle), -ENOTTY,
		 "vm_create_flags reaches the fd");
	CHECK_EQ(onenode_svm_set_attr(&dev, 1, 1 << 20, 4096, NULL, 1), -EINVAL,
		 "svm_set_attr NULL attrs");
	CHECK_EQ(onenode_svm_set_attr(&dev, 1, 1 << 20, 4096, &attr, 0), -EINVAL,
		 "svm_set_attr no attribute");
	CHECK_EQ(onenode_svm_set_attr(&dev, 1, 1 << 20, 4096, &attr, 1), -ENOTTY,
		 "svm_set_attr reaches the fd");
	CHECK_EQ(onenode_svm_get_attr(&dev, 1, 1 << 20, 4096, NULL, 1), -EINVAL,
		 "svm_get_attr NULL attrs");
	CHECK_EQ(onenode_svm_get_attr(&dev, 1, 1 << 20, 4096, &attr, 0), -EINVAL,
		 "svm_get_attr no attribute");
	CHECK_EQ(onenode_svm_get_attr(&dev, 1, 1 << 20, 4096, &attr, 1), -ENOTTY,
		 "svm_get_attr reaches the fd");
	CHECK(attr.type == DRM_COMPUTE_SVM_ATTR_GRANULARITY && attr.value == 9,
	      "a failed get leaves the array alone");
	CHECK_EQ(onenode_vm_map(&dev, 1, 1, 0, 1 << 16, 4096, 0), -ENOTTY, "vm_map");
	CHECK_EQ(onenode_userq_state(&dev, 1, NULL), -EINVAL, "userq_state NULL state");
	CHECK_EQ(onenode_userq_state(&dev, 1, &st), -ENOTTY, "userq_state");
	CHECK_EQ(onenode_userq_wait(&dev, 1, 1, -1), -ENOTTY, "userq_wait forever");
	CHECK_EQ(onenode_userq_wait(&dev, 1, 1, INT64_MAX), -ENOTTY, "userq_wait, huge timeout");
	CHECK_EQ(onenode_userq_signal(&dev, 1, 1, 1, 1), -ENOTTY, "userq_signal");
	CHECK_EQ(onenode_userq_control(&dev, 1, DRM_COMPUTE_USERQ_OP_WAKE), -ENOTTY,
		 "userq_control");

	strcpy(dev.driver, "vgem");
	CHECK_EQ(onenode_query_device(&dev, &d), -EOPNOTSUPP, "driver without a compute base");
	CHECK_EQ(onenode_userq_destroy(&dev, 1), -EOPNOTSUPP, "every op needs the base");
	CHECK_EQ(onenode_svm_get_attr(&dev, 1, 1 << 20, 4096, &attr, 1), -EOPNOTSUPP,
		 "the SVM op needs the base too");
	close(fd);
}

/* A queue over plain memory: the ring arithmetic and commit without a device. */
struct fake_queue {
	struct onenode_queue q;
	struct onenode_device dev;
	uint64_t ring[8];	/* 64 bytes */
	uint64_t state[3];	/* rptr, fence, wptr (onenode.h) */
	struct drm_compute_doorbell db;
};

static void fake_queue_init(struct fake_queue *f, int fd, uint64_t caps)
{
	memset(f, 0, sizeof(*f));
	fake_device(&f->dev, fd, "vcompute");
	f->q.dev = &f->dev;
	f->q.id = 1;
	f->q.ring = f->ring;
	f->q.ring_size = sizeof(f->ring);
	f->q.rptr = &f->state[0];
	f->q.fence = &f->state[1];
	f->q.fence_va = 0x10008;
	f->q.doorbell = &f->db;
	f->q.caps = caps;
	f->q.format = DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE;
}

static void test_queue_emit(void)
{
	struct fake_queue f;
	uint64_t pkt[8];
	int ok = 1;

	fake_queue_init(&f, -1, 0);
	for (int i = 0; i < 8; i++)
		pkt[i] = 0x1111111111111111ULL * (uint64_t)(i + 1);
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 0), -EINVAL, "empty packet");
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 9), -EINVAL, "packet larger than the ring");
	CHECK_EQ(onenode_queue_emit(&f.q, NULL, 1), -EINVAL, "NULL packet");
	CHECK_EQ(onenode_queue_emit(NULL, pkt, 1), -EINVAL, "NULL queue");

	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 5), 0, "5 words into an empty ring of 8");
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 4), -ENOSPC, "4 more do not fit");
	CHECK_EQ(f.q.wptr, 40, "a refused packet leaves wptr");
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 3), 0, "3 more fill the ring exactly");
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 1), -ENOSPC, "a full ring takes nothing");

	/* The queue read 6 words: a 4-word packet wraps from word 0 of the ring. */
	f.state[0] = 48;
	memset(f.ring, 0, sizeof(f.ring));
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 4), 0, "4 words after the read pointer moved");
	CHECK_EQ(f.q.wptr, 96, "wptr counts up without wrapping");
	for (int i = 0; i < 4; i++)
		ok &= f.ring[i] == pkt[i];
	CHECK(ok, "the packet starts at the ring offset wptr %% size");

	/* A packet that straddles the end: 2 words at the end, 1 at the start. */
	fake_queue_init(&f, -1, 0);
	f.q.wptr = f.state[0] = 48;
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 3), 0, "3 words from offset 48 of 64");
	CHECK(f.ring[6] == pkt[0] && f.ring[7] == pkt[1] && f.ring[0] == pkt[2] &&
	      f.ring[1] == 0, "the packet wraps in two parts");

	/* A read pointer ahead of the write pointer is garbage: no room. */
	fake_queue_init(&f, -1, 0);
	f.state[0] = 8;
	CHECK_EQ(onenode_queue_emit(&f.q, pkt, 1), -ENOSPC, "rptr past wptr refused");
}

static void test_queue_commit(void)
{
	struct fake_queue f;
	uint64_t pkt[2] = { 0 };
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* Without NEED_WAKEUP the word after the wptr is never read. */
	fake_queue_init(&f, fd, 0);
	onenode_queue_emit(&f.q, pkt, 1);
	f.db.flags = DRM_COMPUTE_DOORBELL_NEED_WAKEUP;
	CHECK_EQ(onenode_queue_commit(&f.q), 0, "commit without the capability");
	CHECK_EQ(f.db.wptr, 8, "wptr published to the doorbell");
	CHECK_EQ(f.q.wakeups, 0, "flags ignored without DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP");
	CHECK_EQ(f.state[2], 0, "no wptr in memory without WPTR_MEMORY");

	/* With it: a clear flag costs nothing, a set flag calls WAKE. */
	fake_queue_init(&f, fd, DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP);
	onenode_queue_emit(&f.q, pkt, 1);
	CHECK_EQ(onenode_queue_commit(&f.q), 0, "no flag: no system call");
	CHECK_EQ(f.q.wakeups, 0, "no wake-up");
	f.db.flags = DRM_COMPUTE_DOORBELL_NEED_WAKEUP;
	CHECK_EQ(onenode_queue_commit(&f.q), -ENOTTY, "flag set: WAKE issued (fails on /dev/null)");
	CHECK_EQ(f.q.wakeups, 1, "the wake-up is counted");

	fake_queue_init(&f, fd, DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY);
	onenode_queue_emit(&f.q, pkt, 1);
	onenode_queue_emit(&f.q, pkt, 1);
	CHECK_EQ(onenode_queue_commit(&f.q), 0, "commit with WPTR_MEMORY");
	CHECK(f.state[2] == 16 && f.db.wptr == 16, "wptr in memory and in the doorbell");

	/* AMD's CP counts dwords: 16 bytes are published as 4. */
	fake_queue_init(&f, fd, DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY);
	f.q.format = DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4;
	onenode_queue_emit(&f.q, pkt, 2);
	CHECK_EQ(onenode_queue_commit(&f.q), 0, "commit in dwords");
	CHECK(f.state[2] == 4 && f.db.wptr == 4, "AMD pointers are in dwords");
	CHECK_EQ(onenode_queue_commit(NULL), -EINVAL, "commit NULL");
	close(fd);
}

static void test_queue_fence(void)
{
	struct vcompute_pkt_fence p;
	struct fake_queue f;

	fake_queue_init(&f, -1, 0);
	CHECK_EQ(onenode_queue_fence(&f.q), 1, "first fence is 1");
	CHECK_EQ(onenode_queue_fence(&f.q), 2, "then 2");
	memcpy(&p, (char *)f.ring + sizeof(p), sizeof(p));
	CHECK(p.header.opcode == VCOMPUTE_PKT_FENCE && p.header.size_qw == 3 &&
	      p.va == 0x10008 && p.value == 2, "a vcompute FENCE packet at the fence slot");
	CHECK_EQ(f.q.wptr, 2 * sizeof(p), "two packets emitted");
	CHECK_EQ(onenode_queue_fence(&f.q), 0, "ring full: no fence");
	CHECK_EQ(f.q.fence_value, 2, "fence_value unchanged");

	fake_queue_init(&f, -1, 0);
	f.q.format = DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4;
	CHECK_EQ(onenode_queue_fence(&f.q), 0, "no fence packet for other formats");
	CHECK_EQ(f.q.wptr, 0, "nothing emitted");
}

static void test_queue_args(void)
{
	struct onenode_queue_params p = { .va = 1 << 20 };
	struct onenode_device dev;
	struct onenode_queue q;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int fds = count_fds();

	fake_device(&dev, fd, "vcompute");
	CHECK_EQ(onenode_queue_init(NULL, &dev, 1, &p), -EINVAL, "NULL queue");
	CHECK_EQ(onenode_queue_init(&q, NULL, 1, &p), -EINVAL, "NULL device");
	CHECK_EQ(onenode_queue_init(&q, &dev, 1, NULL), -EINVAL, "NULL params");
	p.va = 0;
	CHECK_EQ(onenode_queue_init(&q, &dev, 1, &p), -EINVAL, "va 0");
	p.va = 1 << 20;
	CHECK_EQ(onenode_queue_init(&q, &dev, 1, &p), -ENOTTY, "the device query fails first");
	CHECK(q.dev == NULL && q.id == 0 && q.ring == NULL, "a failed init leaves a zeroed queue");
	onenode_queue_fini(&q);
	onenode_queue_fini(NULL);
	CHECK_EQ(onenode_queue_va_size(&dev, 0), 0, "no VA size without a device");
	CHECK_EQ(onenode_queue_wait(NULL, 1, 0), -EINVAL, "wait on NULL");
	CHECK_EQ(count_fds(), fds, "no fd leaked");
	close(fd);
}

static void test_open_driver(const char *tmp)
{
	struct onenode_device dev;
	char path[PATH_MAX], empty[PATH_MAX];
	int fds = count_fds();

	CHECK_EQ(onenode_open_driver(NULL, tmp, &dev), -EINVAL, "NULL driver");
	CHECK_EQ(onenode_open_driver("", tmp, &dev), -EINVAL, "empty driver");
	CHECK_EQ(onenode_open_driver("vcompute", tmp, NULL), -EINVAL, "NULL dev");

	snprintf(path, sizeof(path), "%s/nonexistent", tmp);
	CHECK_EQ(onenode_open_driver("vcompute", path, &dev), -ENOENT, "missing directory");
	snprintf(path, sizeof(path), "%s/renderD128", tmp);
	CHECK_EQ(onenode_open_driver("vcompute", path, &dev), -ENOENT, "a file as directory");

	snprintf(empty, sizeof(empty), "%s/empty", tmp);
	CHECK(mkdir(empty, 0755) == 0, "mkdir %s", empty);
	CHECK_EQ(onenode_open_driver("vcompute", empty, &dev), -ENOENT, "empty directory");

	/* tmp holds renderD128 (file), renderD129 -> /dev/null, card0, renderDx. */
	CHECK_EQ(onenode_open_driver("vcompute", tmp, &dev), -ENOENT,
		 "only fake nodes: nothing matches");
	CHECK_EQ(dev.fd, -1, "fd reset when nothing matches");

	/* The environment variable stands in for /dev/dri. */
	CHECK(setenv(ONENODE_DRI_DIR_ENV, empty, 1) == 0, "setenv");
	CHECK_STR(onenode_dri_dir(), empty, "dri dir from the environment");
	CHECK_EQ(onenode_open_driver("vcompute", NULL, &dev), -ENOENT,
		 "NULL dri_dir uses the environment");
	CHECK(setenv(ONENODE_DRI_DIR_ENV, "", 1) == 0, "setenv empty");
	CHECK_STR(onenode_dri_dir(), ONENODE_DEFAULT_DRI_DIR, "empty variable means default");
	unsetenv(ONENODE_DRI_DIR_ENV);
	CHECK_STR(onenode_dri_dir(), ONENODE_DEFAULT_DRI_DIR, "default /dev/dri");

	/* A node that cannot be opened may hide a match: its error wins. */
	snprintf(path, sizeof(path), "%s/renderD130", tmp);
	CHECK(symlink("renderD130", path) == 0, "self-referencing link");
	CHECK_EQ(onenode_open_driver("vcompute", tmp, &dev), -ELOOP,
		 "unopenable node reported instead of -ENOENT");
	unlink(path);

	CHECK_EQ(count_fds(), fds, "no fd leaked by discovery");
}

/* onenode_svm_residency() on memory whose state the test makes itself. */
static void test_residency(void)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct onenode_residency r;
	char *p = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap 8 pages");
	if (p == MAP_FAILED)
		return;
	CHECK_EQ(onenode_svm_residency(p, 8 * page, &r), 0, "residency of fresh memory");
	CHECK(r.sysmem == 0 && r.device == 0 && r.none == 8, "fresh memory has no pages");
	p[0] = 1;
	p[3 * page] = 1;
	p[7 * page + page - 1] = 1;
	CHECK_EQ(onenode_svm_residency(p + 1, 8 * page - 1, &r), 0, "unaligned range");
	CHECK(r.sysmem == 3 && r.device == 0 && r.none == 5, "three touched pages present");
	CHECK_EQ(onenode_svm_residency(p + 3 * page, 1, &r), 0, "one byte");
	CHECK(r.sysmem == 1 && r.none == 0, "the byte's page counted once");
	CHECK_EQ(onenode_svm_residency(p, 0, &r), -EINVAL, "zero size rejected");
	munmap(p, 8 * page);
}

int main(void)
{
	char tmp[] = "/tmp/onenode-test-XXXXXX", path[PATH_MAX];
	int fd;

	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s/renderD128", tmp);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/renderD129", tmp);
	if (symlink("/dev/null", path))
		perror("symlink");
	snprintf(path, sizeof(path), "%s/card0", tmp);
	if (symlink("/dev/null", path))
		perror("symlink");
	snprintf(path, sizeof(path), "%s/renderDx", tmp);
	if (symlink("/nonexistent", path))
		perror("symlink");

	test_feature_names();
	test_compute_bases();
	test_compute_requests();
	test_svm_layout();
	test_residency();
	test_fields();
	test_status_fault_names();
	test_strerror();
	test_open_path(tmp);
	test_from_fd();
	test_compute_args();
	test_queue_emit();
	test_queue_commit();
	test_queue_fence();
	test_queue_args();
	test_open_driver(tmp);

	/* Clean up the fake directory. */
	static const char *const made[] = {
		"renderD128", "renderD129", "card0", "renderDx", "empty",
	};
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, made[i]);
		if (remove(path))
			perror(path);
	}
	if (rmdir(tmp))
		perror(tmp);
	return tap_done();
}
