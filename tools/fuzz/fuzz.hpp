// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * fuzz.hpp: the state of a fuzz run. A Ctx is one open render node (a DRM
 * file) with its pool of live objects: buffers, CPU mappings, VMs with the
 * ranges they map, queues with their rings and doorbells, sync objects,
 * exported dma-bufs. The exclusive context belongs to one thread, which
 * therefore knows the file's state exactly and predicts answers from it;
 * the shared contexts are used by several threads at once, to race the
 * helper, and only the state-free rules of the uapi are asserted there.
 */
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mutate.hpp"
#include "onenode.h"
#include "packets.hpp"
#include "rng.hpp"
#include "rules.hpp"
#include "stats.hpp"

namespace fuzz {

/** Limits - hard caps that keep the VM alive whatever the fuzzer draws. */
struct Limits {
	uint64_t vram_bytes = 64ULL << 20;	/* live VRAM buffers, whole process */
	uint64_t system_bytes = 64ULL << 20;	/* live system buffers, whole process */
	uint64_t bo_max = 4ULL << 20;		/* one buffer made from the pool */
	unsigned bos_per_ctx = 192;
	unsigned queues_per_ctx = 24;
	unsigned syncobjs_per_ctx = 48;
	unsigned dmabufs_per_ctx = 16;
	uint64_t va_window = 1ULL << 30;	/* VA the pool allocates from, per VM */
	bool huge_bo = true;			/* try 2^47-byte buffers (fail fast) */
};

/** CpuMap - an mmap()ed range, unmapped when the last user lets go. */
struct CpuMap {
	void *p = MAP_FAILED;
	size_t len = 0;
	CpuMap() = default;
	CpuMap(const CpuMap &) = delete;
	CpuMap &operator=(const CpuMap &) = delete;
	~CpuMap();
	uint8_t *at(uint64_t off) const { return static_cast<uint8_t *>(p) + off; }
};

/** Bo - a GEM handle of the file. */
struct Bo {
	uint32_t handle = 0;
	uint64_t size = 0;
	uint64_t placement = 0;		/* 0: imported from another device */
	bool queue_part = false;	/* a ring, state or data buffer of a queue */
	bool accounted = false;		/* counted in the process's memory caps */
	std::shared_ptr<CpuMap> cpu;
};

/** Mapping - one VM_BIND MAP the model knows about. */
struct Mapping {
	uint64_t va = 0, range = 0, bo_offset = 0, flags = 0;
	uint32_t handle = 0;
};

/** Vm - a GPU VM: the model of its mappings (exact in the exclusive context). */
struct Vm {
	uint32_t id = 0;
	std::map<uint64_t, Mapping> maps;	/* by va */
	unsigned queues = 0;
	unsigned ghost_queues = 0;		/* queues on it whose id the fuzzer never saw */
	bool queues_unsure = false;		/* one of those may be gone */
	uint64_t next_va = 0;			/* bump allocator for queue regions */

	/** overlaps() - whether [va, va + range) touches a known mapping. */
	bool overlaps(uint64_t va, uint64_t range) const;
	/** unmap() - the model of an UNMAP (splits straddling mappings). */
	void unmap(uint64_t va, uint64_t range);
};

/** Queue - a user queue and, when the pool built it, its memory. */
struct Queue {
	uint32_t id = 0;
	uint32_t vm = 0;
	uint32_t priority = 0;
	bool built = false;		/* Targets and CPU mappings below are ours */
	Targets t;
	uint64_t ctx_va = 0;
	std::shared_ptr<CpuMap> ring, state, data, doorbell;	/* doorbell: its page */
	uint32_t db_pos = 0;
	uint64_t db_offset = 0;		/* the doorbell's mmap offset on its file */
	std::vector<uint32_t> handles;	/* ring, state, data */
	std::atomic<uint64_t> wptr{ 0 };	/* as written to the doorbell */
	/* model (exclusive context) */
	uint64_t fence = 0;		/* last fence value known written */
	uint64_t fence_next = 1;
	bool suspended = false;
	bool dead = false;		/* seen FAULTED/HUNG/LOST */
	uint32_t dead_status = 0, dead_reason = 0;
	bool broken = false;		/* its memory was unbound or tampered with */
	unsigned signals = 0;		/* pending signals (upper bound) */
	std::atomic<bool> tallied{ false };

	uint64_t *rptr_cpu() const;
	drm_compute_doorbell *db() const;
};

/** Ctx - one open DRM file and its pool. */
struct Ctx {
	std::string name;
	onenode_device dev{};
	unsigned base = 0;
	bool exclusive = false;
	std::mutex mu;				/* pool, shared contexts only */
	std::vector<std::shared_ptr<Bo>> bos;
	std::vector<std::shared_ptr<Vm>> vms;
	std::vector<std::shared_ptr<Queue>> queues;
	std::vector<uint32_t> syncobjs;
	std::vector<std::pair<int, bool>> dmabufs;	/* fd, of another device */
	std::vector<std::shared_ptr<CpuMap>> maps;	/* stray CPU mappings */
	std::deque<uint32_t> dead[4];		/* recently destroyed ids per id kind */
	bool ghosts[4] = {};			/* objects whose id the fuzzer never saw */
	unsigned ghost_vms = 0, ghost_queues = 0;
	int vm_limit = -1;			/* learnt from the first ENOSPC */

	int fd() const { return dev.fd; }
	~Ctx();
};

/** Run - what every thread shares. */
struct Run {
	uint64_t seed = 0;
	DevInfo info;
	Limits lim;
	std::string path;
	std::chrono::steady_clock::time_point deadline;
	uint64_t max_iterations = 0;		/* 0: no cap */
	std::atomic<uint64_t> iterations{ 0 };
	std::atomic<bool> stop{ false };
	std::atomic<uint64_t> vram_live{ 0 }, system_live{ 0 };
	std::vector<std::unique_ptr<Ctx>> ctxs;	/* [0] exclusive, then shared */
	FILE *trace = nullptr;
	std::mutex trace_mu;
	/* scratch memory the kernel may be pointed at */
	uint8_t *scratch = nullptr;		/* read/write, kScratch bytes */
	uint8_t *noaccess = nullptr;		/* PROT_NONE page */
	bool running() const;
};

constexpr size_t kScratch = 1 << 20;
/** kSlice - each thread's part of the scratch memory (its pointers point there). */
constexpr size_t kSlice = 64 << 10;

/** OpRecord - one call, for the recent-call ring of a thread. */
struct OpRecord {
	double t = 0;
	std::string op, mode, arg;
	unsigned long req = 0;
	int err = 0;
};

/** Expect - what the model predicts for one call. */
struct Expect {
	bool active = false;
	std::vector<int> errs;		/* allowed results, 0 for success */
	std::string why;

	static Expect any() { return {}; }
	static Expect of(std::initializer_list<int> e, std::string why)
	{
		Expect x;

		x.active = true;
		x.errs = e;
		x.why = std::move(why);
		return x;
	}
	bool allows(int err) const;
};

/** Call - one compute ioctl as issued: possibly of another size or direction. */
struct Call {
	unsigned op = 0;		/* DRM_COMPUTE_OP_*; >= COUNT: an unknown op number */
	unsigned dir = 3;		/* _IOC_WRITE | _IOC_READ bits */
	size_t usize = 0;		/* the size the request encodes */
	std::vector<uint8_t> arg;	/* usize bytes (at least the kernel's size) */
	std::string mode = "valid";
	bool proper() const;
};

class Thread;

/** The kernel's view of a call's argument (zero-filled or truncated). */
std::vector<uint8_t> view_of(const Call &c);

/** now_s() - seconds since the run started. */
double now_s();

/** Thread - one fuzzing thread: its random stream, stats and recent calls. */
class Thread {
public:
	Thread(Run &run, unsigned idx, Ctx &ctx);
	~Thread();

	Run &run;
	unsigned idx;
	Ctx &ctx;
	Rng rng;
	Stats stats;
	uint64_t iter = 0;

	/**
	 * issue() - send @c on @fd, check it against the static rules, the
	 * documented errors and @e, record it; returns 0 or a positive errno.
	 * @c.arg holds what the kernel copied back.
	 */
	int issue(int fd, Call &c, const Expect &e);
	/** issue_raw() - a non-compute ioctl, recorded under @name. */
	int issue_raw(int fd, const char *name, unsigned long req, void *arg, size_t size);
	void mismatch(const std::string &what);
	void dump_recent(FILE *f) const;
	IdSource ids() const;
	/** scratch() - this thread's slice of the scratch memory. */
	uint8_t *scratch() const { return run.scratch + (idx % (kScratch / kSlice)) * kSlice; }
	/** in_scratch() - whether [@p, @p + @len) lies in this thread's slice. */
	bool in_scratch(uint64_t p, uint64_t len) const
	{
		const uint64_t s = reinterpret_cast<uintptr_t>(scratch());

		return p >= s && len <= kSlice && p - s <= kSlice - len;
	}

private:
	void remember(const OpRecord &r);
	void arm(bool on);
	std::vector<OpRecord> recent_;
	size_t recent_pos_ = 0;
	mutable std::mutex recent_mu_;
	void *timer_ = nullptr;
	bool timer_ok_ = false;
};

/** dump_every_thread() - the recent calls of every live thread (on a splat, when stuck). */
void dump_every_thread(FILE *f);

/* ops.cpp: calls through the model, and one fuzz step of each kind */
Call make_call(unsigned op);
void put(Call &c, const char *field, uint64_t v);
uint64_t out(const Call &c, const char *field);
/** run_call() - issue @c with the model's prediction and learn from it; 0 or errno. */
int run_call(Thread &t, Call &c);
void step(Thread &t);

/* queue.cpp */
std::shared_ptr<Queue> build_queue(Thread &t, Ctx &c, const std::shared_ptr<Vm> &vm,
				   unsigned variant);
void destroy_queue(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q);
void submit_random(Thread &t, Ctx &c, const std::shared_ptr<Queue> &q);
void queue_state(Thread &t, Ctx &c, Queue &q, drm_compute_userq_state *out);
void run_probe(Thread &t, Ctx &c);
void tally_fault(Thread &t, Queue &q, const drm_compute_userq_state &st);

/* child.cpp */
int child_main(const std::string &path, const std::string &scenario, uint64_t seed,
	       int sock);
void spawner(Run &run, Stats &stats);

/* sanity.cpp */
bool sanity_check(const std::string &path, FILE *out);

/* kmsg.cpp */
void kmsg_monitor(Run &run);

} // namespace fuzz
