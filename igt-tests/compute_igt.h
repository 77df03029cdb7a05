/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * compute_igt.h - helpers shared by the IGT tests of the DRM compute uapi
 * (compute_*.c). They sit on the upstream IGT API (igt_core.h) and on
 * libonenode (lib/onenode.h): libonenode issues every ioctl and sets up
 * ordinary queues; these helpers turn its errors into IGT assertions and
 * add what only tests need (a queue with a layout the test chooses, fault
 * checks, sync-object status, debugfs and module parameters).
 *
 * Conventions: functions named compute_*() assert and fail the current
 * subtest on any unexpected result; functions named __compute_*() return
 * 0 or a negative errno instead. Waits use long timeouts because the tests
 * run under TCG with KASAN and lockdep, where everything is slow.
 */
#ifndef COMPUTE_IGT_H
#define COMPUTE_IGT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onenode.h"
#include "onenode_vcompute.h"

/* Upper bound for work that must complete: TCG + KASAN is slow. */
#define COMPUTE_TIMEOUT_MS	60000
/* A window in which something that must not happen would have happened. */
#define COMPUTE_SHORT_MS	200

#define COMPUTE_PAGE		4096ull

/* GPU VA slots the tests use: a queue per 16 MiB slot, buffers above. */
#define COMPUTE_QUEUE_VA(n)	(0x10000000ull + (uint64_t)(n) * 0x1000000ull)
#define COMPUTE_BUF_VA(n)	(0x100000000ull + (uint64_t)(n) * 0x10000000ull)

#define COMPUTE_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct compute_dev - an open file of the vcompute render node and what
 * the device reports.
 * @fd: the file descriptor.
 * @dev: libonenode's view of it (the fd is borrowed).
 * @info: the DRM_COMPUTE_QUERY_DEVICE report.
 * @uq: the DRM_COMPUTE_QUERY_USERQ report (zero without the USERQ feature).
 */
struct compute_dev {
	int fd;
	struct onenode_device dev;
	struct drm_compute_query_device info;
	struct drm_compute_query_userq uq;
};

/**
 * struct compute_placement - a buffer placement of the uapi, named
 * @name: the dynamic subtest name ("vram", "system")
 * @placement: DRM_COMPUTE_PLACEMENT_*
 */
struct compute_placement {
	const char *name;
	uint64_t placement;
};

/* Every placement, for tests that run once per placement the device has. */
extern const struct compute_placement compute_placements[2];

bool compute_has_placement(const struct compute_dev *cd, uint64_t placement);
int compute_vram_full_errno(const struct compute_dev *cd);

void compute_open(struct compute_dev *cd);
void compute_from_fd(struct compute_dev *cd, int fd);

/* vcompute instances made through configfs (vcompute_configfs.c). */
#define COMPUTE_CONFIGFS	"/sys/kernel/config/vcompute"
void compute_instance_attr(const char *name, const char *attr, const char *value);
void compute_instance_node(const char *name, char *node, size_t len);
void compute_instance_plug(const char *name, bool on);
void compute_instance_up(const char *name, unsigned int vram_mib, struct compute_dev *cd);
void compute_instance_remove(const char *name);
void compute_open_file(const struct compute_dev *cd, struct compute_dev *other);
void compute_close(struct compute_dev *cd);
int compute_open_card(bool (*accept)(int fd, void *arg), void *arg);
int compute_open_vgem(void);
bool compute_find_edu(char *dev, size_t len);
int compute_edu_import(const char *dev, int dmabuf);
int compute_edu_write(int efd, const void *src, uint64_t size);
void compute_require_userq(const struct compute_dev *cd);

int compute_ioctl(const struct compute_dev *cd, unsigned int op, void *arg);
void compute_expect_rejected(const struct compute_dev *cd, unsigned int op,
			     const void *arg, size_t size, int err);

uint64_t compute_now_ns(void);
int64_t compute_abs_timeout(uint64_t rel_ns);
void compute_sleep_ms(unsigned int ms);
bool compute_wait_flags(const int *flags, unsigned int n);

/* ---- buffers and VMs ---- */

uint32_t compute_bo(const struct compute_dev *cd, uint64_t size, uint64_t placement);
void *compute_bo_map(const struct compute_dev *cd, uint32_t handle, uint64_t size);
void compute_bo_close(const struct compute_dev *cd, uint32_t handle);
uint32_t compute_vm(const struct compute_dev *cd);
void compute_vm_destroy(const struct compute_dev *cd, uint32_t vm);
void compute_map(const struct compute_dev *cd, uint32_t vm, uint32_t handle,
		 uint64_t bo_offset, uint64_t va, uint64_t range, uint64_t flags);
void compute_unmap(const struct compute_dev *cd, uint32_t vm, uint64_t va,
		   uint64_t range);

/**
 * struct compute_buf - a buffer with a CPU mapping, optionally bound.
 * @handle: GEM handle.
 * @size: bytes.
 * @vm: the VM it is bound in, 0 for none.
 * @va: its GPU VA there.
 * @cpu: CPU mapping (MAP_SHARED).
 */
struct compute_buf {
	uint32_t handle;
	uint64_t size;
	uint32_t vm;
	uint64_t va;
	void *cpu;
};

void compute_buf_init(const struct compute_dev *cd, uint32_t vm, uint64_t size,
		      uint64_t placement, uint64_t va, uint64_t flags,
		      struct compute_buf *buf);
void compute_buf_fini(const struct compute_dev *cd, struct compute_buf *buf);

/* ---- queues set up by libonenode ---- */

/**
 * struct compute_queue - a libonenode queue and the device it runs on.
 */
struct compute_queue {
	const struct compute_dev *cd;
	struct onenode_queue q;
};

void compute_queue_init(const struct compute_dev *cd, uint32_t vm,
			const struct onenode_queue_params *params,
			struct compute_queue *cq);
void compute_queue_init_at(const struct compute_dev *cd, uint32_t vm,
			   uint64_t va, struct compute_queue *cq);
void compute_queue_fini(struct compute_queue *cq);
void compute_emit(struct compute_queue *cq, const uint64_t *pkt, uint32_t qwords);
void compute_commit(struct compute_queue *cq);
uint64_t compute_submit(struct compute_queue *cq);
void compute_sync(struct compute_queue *cq, uint64_t value);
void compute_check_alive(struct compute_queue *cq);

/* ---- queue state ---- */

void compute_state(const struct compute_dev *cd, uint32_t queue_id,
		   struct drm_compute_userq_state *st);
bool compute_poll_status(const struct compute_dev *cd, uint32_t queue_id,
			 uint32_t status, unsigned int timeout_ms,
			 struct drm_compute_userq_state *st);
void compute_assert_status(const struct compute_dev *cd, uint32_t queue_id,
			   uint32_t status, struct drm_compute_userq_state *st);
void compute_assert_fault(const struct compute_dev *cd, uint32_t queue_id,
			  uint32_t reason, uint64_t fault_va, uint64_t rptr);

/* ---- queues with a layout the test chooses ---- */

/* State buffer of a raw queue: rptr at 0, fence at 8, scratch, ctx save. */
#define RAWQ_RPTR_OFF		0
#define RAWQ_FENCE_OFF		8
#define RAWQ_SCRATCH_OFF	64
#define RAWQ_CTX_OFF		COMPUTE_PAGE
#define RAWQ_STATE_SIZE		(2 * COMPUTE_PAGE)

/**
 * struct compute_rawq - a queue whose ring and state buffers the test lays
 * out itself: the ring at @ring.va (bound with the flags the test gives),
 * then the state buffer (read pointer, fence slot, context save area at
 * RAWQ_*_OFF). @args is the creation argument; a test may change a copy
 * of it to send malformed input, or change it before compute_rawq_create().
 * Packets are written straight into the ring and published through the
 * doorbell with the NEED_WAKEUP protocol.
 */
struct compute_rawq {
	const struct compute_dev *cd;
	uint32_t vm;
	struct compute_buf ring;
	struct compute_buf state;
	struct drm_compute_userq_create args;
	uint32_t id;
	uint64_t db_offset;
	void *db_map;
	struct drm_compute_doorbell *db;
	uint64_t wptr;
	uint64_t fence;
};

void compute_rawq_setup(const struct compute_dev *cd, uint32_t vm, uint64_t va,
			uint64_t ring_size, uint64_t ring_flags,
			struct compute_rawq *rq);
void compute_rawq_create(struct compute_rawq *rq);
void compute_rawq_destroy(struct compute_rawq *rq);
void compute_rawq_teardown(struct compute_rawq *rq);
void compute_rawq_emit(struct compute_rawq *rq, const uint64_t *pkt, uint32_t qwords);
void compute_rawq_commit(struct compute_rawq *rq);
uint64_t compute_rawq_submit(struct compute_rawq *rq);
void compute_rawq_sync(struct compute_rawq *rq, uint64_t value);
void *compute_rawq_ctx(struct compute_rawq *rq);
uint64_t compute_rawq_va_size(uint64_t ring_size);

/* ---- races ---- */

#define COMPUTE_RACE_MAX_CHILDREN	16
#define COMPUTE_RACE_SLOTS		8

/**
 * compute_race_rounds - race @children processes (igt_fork) against each
 * other @rounds times: before each round the parent runs @setup, which
 * may store values for the children in @slot (shared memory); then every
 * child runs @fn at once and its return value is collected; then the
 * parent runs @check with the results (indexed by child).
 */
void compute_race_rounds(unsigned int children, unsigned int rounds,
			 void (*setup)(unsigned int round, uint64_t *slot),
			 int (*fn)(int child, unsigned int round, const uint64_t *slot),
			 void (*check)(unsigned int round, const int *results, uint64_t *slot));

/* ---- sync objects ---- */

int compute_fence_status(int fd, uint32_t syncobj, uint64_t point);

/* ---- the system ---- */

int compute_read_param(const char *module, const char *param, unsigned long long *value);
int compute_write_param(const char *module, const char *param, unsigned long long value);

/**
 * struct compute_param - a module parameter a test changes and restores
 * @module: the module ("vcompute", "drm_compute_helper")
 * @name: the parameter
 * @saved: its value before the first compute_param_set()
 * @held: @saved is set and not restored yet
 */
struct compute_param {
	const char *module;
	const char *name;
	unsigned long long saved;
	bool held;
};

void compute_param_set(struct compute_param *p, unsigned long long value);
void compute_param_restore(struct compute_param *p);
int compute_cus(const struct compute_dev *cd, uint64_t *groups, int *pids, unsigned int max);
int compute_memory(const struct compute_dev *cd, uint64_t *vram_used, int64_t *own_pages);
void compute_assert_memory(const struct compute_dev *cd, uint64_t used, int64_t pages,
			   const char *when);
int compute_prime_fd(const struct compute_dev *cd, uint32_t handle);
int compute_engine_pid(const struct compute_dev *cd);
uint64_t compute_task_cpu_ns(int pid);
int64_t compute_all_own_pages(const struct compute_dev *cd);
int64_t compute_svm_stat(const struct compute_dev *cd, const char *key);
int compute_svm_set(const struct compute_dev *cd, uint32_t vm, const void *p, uint64_t size,
		    uint32_t type, uint32_t value);
uint32_t compute_svm_get(const struct compute_dev *cd, uint32_t vm, const void *p, uint64_t size,
			 uint32_t type, uint32_t in);
int compute_reset(const struct compute_dev *cd);
bool compute_drop_cap(unsigned int cap);

/* ---- memory ---- */

uint32_t compute_rand32(uint64_t *state);
void compute_fill_pattern(void *dst, size_t size, uint32_t seed);
bool compute_check_pattern(const void *src, size_t size, uint32_t seed, size_t *bad);

#endif /* COMPUTE_IGT_H */
