// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-bench-queues: user-queue benchmarks on a compute render node,
 * each reported as a ratio of two paths measured side by side in one run
 * (absolute numbers under TCG mean little; ratios do).
 *
 *  1. Submissions per second: a job (WRITE_DATA + FENCE) published by a
 *     doorbell store, against the same job published with one ioctl
 *     (DRM_COMPUTE_USERQ_OP_WAKE, the only way a job reaches the device
 *     through a system call here, standing for a command-submission
 *     ioctl). Both pipelined: submit N jobs (the ring holds them all),
 *     then wait for the last. The submission rate is N over the time the
 *     submitting thread took to publish them; jobs completed per second
 *     (N over the time to the last fence) is printed beside it, without a
 *     goal: it measures the device, here the emulated engine, not the
 *     submission path.
 *  2. Submit-to-completion latency, one job at a time: doorbell store and
 *     a poll of the fence value in memory (a user fence), against the
 *     WAKE ioctl and the USERQ_WAIT ioctl (a kernel fence wait).
 *  3. COPY packet bandwidth against memcpy() of the same bytes by the CPU,
 *     both between the same two device-memory buffers through their CPU
 *     mappings (memcpy) and their GPU mappings (COPY).
 *
 * Rounds alternate the two paths of each pair; the median of each is
 * reported and their ratio. Every job's result is checked; a wrong or
 * failed one fails the run.
 */

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <sys/mman.h>

extern "C" {
#include "onenode.h"
#include "onenode_vcompute.h"
}

namespace {

using clk = std::chrono::steady_clock;

[[noreturn]] void die(const char *what, int err)
{
	std::fprintf(stderr, "bench-queues: %s: %s\n", what, onenode_strerror(err));
	std::exit(1);
}

void check(const char *what, int err)
{
	if (err)
		die(what, err);
}

double seconds_since(clk::time_point t0)
{
	return std::chrono::duration<double>(clk::now() - t0).count();
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

struct Options {
	std::string device;
	unsigned jobs = 2000;
	unsigned rounds = 5;
	uint64_t copy_mib = 64;
};

Options parse(int argc, char **argv)
{
	Options o;

	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		auto value = [&]() -> const char * {
			if (i + 1 >= argc) {
				std::fprintf(stderr, "bench-queues: %s needs a value\n", argv[i]);
				std::exit(2);
			}
			return argv[++i];
		};
		if (a == "--device")
			o.device = value();
		else if (a == "--jobs")
			o.jobs = std::strtoul(value(), nullptr, 0);
		else if (a == "--rounds")
			o.rounds = std::strtoul(value(), nullptr, 0);
		else if (a == "--copy-mib")
			o.copy_mib = std::strtoull(value(), nullptr, 0);
		else {
			std::fprintf(stderr,
				     "usage: onenode-bench-queues [--device PATH] [--jobs N] "
				     "[--rounds N] [--copy-mib N]\n");
			std::exit(2);
		}
	}
	if (!o.jobs || !o.rounds || !o.copy_mib)
		die("arguments", -EINVAL);
	return o;
}

/* A device, a VM, one queue and a small target buffer for the jobs. */
struct Setup {
	onenode_device dev{};
	uint32_t vm = 0;
	onenode_queue q{};
	uint32_t target = 0;
	uint64_t target_va = 0;
	volatile uint32_t *target_map = nullptr;
	uint64_t page = 4096;
	uint64_t ring_full = 0;	/* times emit_job() had to wait for room */
};

constexpr uint64_t kQueueVa = 0x100000000ULL;
constexpr uint64_t kTargetVa = 0x200000000ULL;
constexpr uint64_t kSrcVa = 0x300000000ULL;
constexpr uint64_t kDstVa = 0x400000000ULL;

void open_device(Setup &s, const Options &o)
{
	drm_compute_query_device d{};

	check("open", o.device.empty() ? onenode_open_driver("vcompute", nullptr, &s.dev) :
					 onenode_open_path(o.device.c_str(), &s.dev));
	check("query", onenode_query_device(&s.dev, &d));
	if (!(d.features & DRM_COMPUTE_FEATURE_USERQ))
		die("device", -EOPNOTSUPP);
	s.page = d.page_size;
	check("vm create", onenode_vm_create(&s.dev, &s.vm));

	onenode_queue_params p{};
	p.va = kQueueVa;
	p.ring_size = 1 << 20;
	p.priority = ONENODE_PRIORITY_DEFAULT;
	check("queue", onenode_queue_init(&s.q, &s.dev, s.vm, &p));

	void *map;
	check("target bo", onenode_bo_create(&s.dev, s.page, DRM_COMPUTE_PLACEMENT_SYSTEM,
					     &s.target));
	check("target map", onenode_vm_map(&s.dev, s.vm, s.target, 0, kTargetVa, s.page,
					   DRM_COMPUTE_VM_BIND_NOEXEC));
	check("target mmap", onenode_bo_map(&s.dev, s.target, s.page, &map));
	s.target_map = static_cast<volatile uint32_t *>(map);
	s.target_va = kTargetVa;
}

/* Emit one job: write @value to the target, then a fence. */
uint64_t emit_job(Setup &s, uint32_t value)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t n = onenode_pkt_write_data(pkt, s.target_va, &value, 1);

	for (;;) {
		int ret = onenode_queue_emit(&s.q, pkt, n);

		if (!ret)
			break;
		if (ret != -ENOSPC)
			die("emit", ret);
		/* Ring full: let the queue drain what is there. */
		s.ring_full++;
		check("commit", onenode_queue_commit(&s.q));
		check("wait", onenode_queue_wait(&s.q, s.q.fence_value, 10'000'000'000LL));
	}
	uint64_t f = onenode_queue_fence(&s.q);

	if (!f) {
		s.ring_full++;
		check("commit", onenode_queue_commit(&s.q));
		check("wait", onenode_queue_wait(&s.q, s.q.fence_value, 10'000'000'000LL));
		f = onenode_queue_fence(&s.q);
		if (!f)
			die("fence", -ENOSPC);
	}
	return f;
}

/* The ioctl path's submission: one system call per job. */
void submit_ioctl(Setup &s)
{
	/* Store the write pointer without the doorbell protocol's check... */
	__atomic_store_n(&s.q.doorbell->wptr, s.q.wptr, __ATOMIC_RELEASE);
	/* ...and always enter the kernel, as a submission ioctl would. */
	check("wake", onenode_userq_control(&s.dev, s.q.id, DRM_COMPUTE_USERQ_OP_WAKE));
}

void verify_target(Setup &s, uint32_t want, const char *path)
{
	if (s.target_map[0] != want) {
		std::fprintf(stderr, "bench-queues: %s: target holds %u, want %u\n", path,
			     s.target_map[0], want);
		std::exit(1);
	}
}

void wait_fence_user(Setup &s, uint64_t f)
{
	auto t0 = clk::now();

	while (__atomic_load_n(s.q.fence, __ATOMIC_ACQUIRE) < f) {
		if (seconds_since(t0) > 30)
			die("fence poll", -ETIME);
	}
}

/* 1. N pipelined jobs: submissions and completions per second. */
struct Rates {
	double submitted, completed;
};

Rates throughput(Setup &s, unsigned jobs, bool doorbell, uint32_t tag)
{
	uint64_t f = 0, ring_full = s.ring_full;
	auto t0 = clk::now();

	for (unsigned i = 0; i < jobs; i++) {
		f = emit_job(s, tag + i);
		if (doorbell)
			check("commit", onenode_queue_commit(&s.q));
		else
			submit_ioctl(s);
	}
	double ts = seconds_since(t0);

	check("wait", onenode_queue_wait(&s.q, f, 60'000'000'000LL));
	double tc = seconds_since(t0);

	verify_target(s, tag + jobs - 1, doorbell ? "doorbell" : "ioctl");
	/* A full ring would have timed the device, not the submissions. */
	if (s.ring_full != ring_full)
		die("ring full during a throughput round (use fewer --jobs)", -ENOSPC);
	return {jobs / ts, jobs / tc};
}

/* 2. One job at a time; returns the median latency in microseconds. */
double latency(Setup &s, unsigned jobs, bool doorbell, uint32_t tag)
{
	std::vector<double> us;

	for (unsigned i = 0; i < jobs; i++) {
		auto t0 = clk::now();
		uint64_t f = emit_job(s, tag + i);

		if (doorbell) {
			check("commit", onenode_queue_commit(&s.q));
			wait_fence_user(s, f);
		} else {
			submit_ioctl(s);
			check("wait", onenode_queue_wait(&s.q, f, 60'000'000'000LL));
		}
		us.push_back(seconds_since(t0) * 1e6);
		verify_target(s, tag + i, doorbell ? "doorbell" : "ioctl");
	}
	return median(us);
}

/* 3. COPY packet vs memcpy of the same bytes; returns GB/s of each. */
struct CopyBufs {
	uint32_t src = 0, dst = 0;
	uint32_t *src_map = nullptr, *dst_map = nullptr;
	uint64_t size = 0;
};

CopyBufs copy_setup(Setup &s, uint64_t size)
{
	CopyBufs c;
	void *m;

	c.size = size;
	check("copy src", onenode_bo_create(&s.dev, size, DRM_COMPUTE_PLACEMENT_VRAM, &c.src));
	check("copy dst", onenode_bo_create(&s.dev, size, DRM_COMPUTE_PLACEMENT_VRAM, &c.dst));
	check("bind src", onenode_vm_map(&s.dev, s.vm, c.src, 0, kSrcVa, size,
					 DRM_COMPUTE_VM_BIND_NOEXEC | DRM_COMPUTE_VM_BIND_READONLY));
	check("bind dst", onenode_vm_map(&s.dev, s.vm, c.dst, 0, kDstVa, size,
					 DRM_COMPUTE_VM_BIND_NOEXEC));
	check("map src", onenode_bo_map(&s.dev, c.src, size, &m));
	c.src_map = static_cast<uint32_t *>(m);
	check("map dst", onenode_bo_map(&s.dev, c.dst, size, &m));
	c.dst_map = static_cast<uint32_t *>(m);
	for (uint64_t i = 0; i < size / 4; i++)
		c.src_map[i] = static_cast<uint32_t>(i * 2654435761u);
	return c;
}

void copy_verify(const CopyBufs &c, const char *path)
{
	if (std::memcmp(c.src_map, c.dst_map, c.size)) {
		std::fprintf(stderr, "bench-queues: %s copy differs from its source\n", path);
		std::exit(1);
	}
	std::memset(c.dst_map, 0, c.size);
}

double copy_gpu(Setup &s, const CopyBufs &c)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	uint32_t n = onenode_pkt_copy(pkt, kDstVa, kSrcVa, c.size);
	auto t0 = clk::now();

	check("emit copy", onenode_queue_emit(&s.q, pkt, n));
	uint64_t f = onenode_queue_fence(&s.q);

	check("commit", onenode_queue_commit(&s.q));
	check("wait", onenode_queue_wait(&s.q, f, 600'000'000'000LL));
	double gbs = c.size / seconds_since(t0) / 1e9;

	copy_verify(c, "COPY packet");
	return gbs;
}

double copy_cpu(const CopyBufs &c)
{
	auto t0 = clk::now();

	std::memcpy(c.dst_map, c.src_map, c.size);
	double gbs = c.size / seconds_since(t0) / 1e9;

	copy_verify(c, "memcpy");
	return gbs;
}

} // namespace

int main(int argc, char **argv)
{
	Options o = parse(argc, argv);
	Setup s;

	open_device(s, o);
	std::printf("device %s (%s), queue %u; %u jobs x %u rounds, COPY %llu MiB\n",
		    s.dev.path, s.dev.driver, s.q.id, o.jobs, o.rounds,
		    static_cast<unsigned long long>(o.copy_mib));

	std::vector<double> tp_db, tp_io, done_db, done_io, lat_db, lat_io, bw_gpu, bw_cpu;
	uint32_t tag = 1;
	unsigned lat_jobs = std::max(1u, o.jobs / 10);
	CopyBufs c = copy_setup(s, o.copy_mib << 20);

	for (unsigned r = 0; r < o.rounds; r++) {
		/* Alternate which path goes first, so drift hits both alike. */
		bool db_first = r % 2 == 0;

		for (int k = 0; k < 2; k++) {
			bool db = (k == 0) == db_first;

			Rates rt = throughput(s, o.jobs, db, tag);

			(db ? tp_db : tp_io).push_back(rt.submitted);
			(db ? done_db : done_io).push_back(rt.completed);
			tag += o.jobs;
			(db ? lat_db : lat_io).push_back(latency(s, lat_jobs, db, tag));
			tag += lat_jobs;
		}
		if (db_first) {
			bw_gpu.push_back(copy_gpu(s, c));
			bw_cpu.push_back(copy_cpu(c));
		} else {
			bw_cpu.push_back(copy_cpu(c));
			bw_gpu.push_back(copy_gpu(s, c));
		}
	}

	double tdb = median(tp_db), tio = median(tp_io);
	double cdb = median(done_db), cio = median(done_io);
	double ldb = median(lat_db), lio = median(lat_io);
	double bg = median(bw_gpu), bc = median(bw_cpu);

	std::printf("submissions/s      doorbell %10.0f   ioctl per job %10.0f   ratio %.2f (goal >= 3)\n",
		    tdb, tio, tdb / tio);
	std::printf("completed jobs/s   doorbell %10.0f   ioctl per job %10.0f   ratio %.2f (the engine's rate)\n",
		    cdb, cio, cdb / cio);
	std::printf("latency (us)       doorbell %10.1f   ioctl per job %10.1f   ratio %.2f (goal >= 3)\n",
		    ldb, lio, lio / ldb);
	std::printf("copy (GB/s)        COPY     %10.3f   memcpy        %10.3f   ratio %.2f (goal >= 0.7)\n",
		    bg, bc, bg / bc);
	std::printf("doorbell wake-ups needed: %llu\n",
		    static_cast<unsigned long long>(s.q.wakeups));

	munmap(c.src_map, c.size);
	munmap(c.dst_map, c.size);
	munmap(const_cast<uint32_t *>(s.target_map), s.page);
	onenode_queue_fini(&s.q);
	onenode_close(&s.dev);
	return 0;
}
