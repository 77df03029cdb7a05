// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-bench-svm: shared virtual memory on a compute render node, each
 * result a ratio of two paths measured side by side in one run (absolute
 * numbers under TCG mean little; ratios do).
 *
 *  1. Migration bandwidth: --mib MiB of anonymous memory prefetched to
 *     device memory (SVM attribute PREFETCH_LOC = the device) and back
 *     (PREFETCH_LOC = SYSMEM), each against memcpy() of the same bytes
 *     between two resident buffers. Goal: >= 0.7 of memcpy. Twice: memory
 *     in 4 KiB pages, and memory in transparent huge pages (MADV_HUGEPAGE),
 *     which drm_pagemap moves as 2 MiB folios. Upstream lib/test_hmm.c's
 *     dmirror migrates the same 4 KiB pages in the same rounds
 *     (HMM_DMIRROR_MIGRATE_TO_DEV and _TO_SYS, the core mm's migrate_vma
 *     with a copy into system pages): what the core mm's per-page work
 *     costs any driver on this machine.
 *  2. GPU fault service: a queue reads --mib MiB that the CPU just wrote,
 *     in a fresh SVM VM (every range faults). The service time is the
 *     kernel's own count (fault_ns of debugfs vcompute_svm: the time in
 *     drm_compute_svm_mirror_fault()); the difference from a second run
 *     (nothing faults) is printed beside it, since it carries the noise of
 *     two queue runs. The same pattern through upstream lib/test_hmm.c's
 *     dmirror (HMM_DMIRROR_READ on a fresh open of /dev/hmm_dmirror0, then
 *     again; the difference is its fault service, steady because a READ
 *     is one ioctl), the kernel's own HMM reference. Reported as pages
 *     mirrored per second of fault service, and their ratio; faults
 *     counted by each driver (debugfs vcompute_svm, the command's own).
 *  3. Invalidation: mprotect() of 2 MiB that a running queue keeps reading
 *     (every call zaps the device's entries and waits for the engine's
 *     access in flight: vcompute's preemption on invalidation) against the
 *     same mprotect() of 2 MiB no device mirrors.
 *  4. The emulation's share (--only kernel-work needs no device, so it
 *     also runs on the build machine: ./onenode bench svm --host): kernel
 *     work on 4 KiB pages that no driver is in, against memcpy() of the
 *     same bytes. MADV_COLLAPSE of 4 KiB pages into transparent huge pages
 *     does a migration's per-page work (isolate, lock, unmap, copy, free)
 *     with no device; mprotect() to read-only and back walks the page
 *     table and flushes the TLB. Under TCG and under hardware
 *     virtualization on the same CPU, they tell whether the emulation
 *     slows the core mm's per-page work more than a memcpy (then TCG
 *     understates a 4 KiB migration's ratio) or less (then it flatters
 *     it).
 *
 * Rounds alternate the paths of each pair; medians are reported. Data is
 * checked after every migration and every read; a wrong result fails the
 * run (exit 1). Exit 77 without a render node with user queues and SVM.
 */

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <format>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <linux/ioctl.h>
#include <linux/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "onenode.hpp"
#include "onenode_vcompute.h"

namespace {

/*
 * lib/test_hmm_uapi.h (Linux 7.3): the command of the HMM test driver's
 * READ ioctl. The header is not installed; its layout is the kernel's.
 */
struct hmm_dmirror_cmd {
	__u64 addr;
	__u64 ptr;
	__u64 npages;
	__u64 cpages;
	__u64 faults;
};
#define HMM_DMIRROR_READ _IOWR('H', 0x00, struct hmm_dmirror_cmd)
#define HMM_DMIRROR_MIGRATE_TO_DEV _IOWR('H', 0x02, struct hmm_dmirror_cmd)
#define HMM_DMIRROR_MIGRATE_TO_SYS _IOWR('H', 0x03, struct hmm_dmirror_cmd)

using clk = std::chrono::steady_clock;
constexpr std::int64_t wait_ns = 300LL * 1000 * 1000 * 1000;
constexpr std::uint64_t two_mib = 2 << 20;

struct options {
	std::uint64_t mib = 16;
	unsigned int rounds = 5;
	std::string dmirror = "/dev/hmm_dmirror0";
	/* --only: migration, faults, invalidation or kernel-work. */
	std::string only;
};

void say(const std::string &s)
{
	std::fputs(s.c_str(), stdout);
	std::fflush(stdout);
}

[[noreturn]] void fail(const std::string &what)
{
	std::fputs(("bench-svm: " + what + "\n").c_str(), stderr);
	std::exit(1);
}

double secs(clk::time_point a, clk::time_point b)
{
	return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

std::uint64_t addr(const void *p)
{
	return reinterpret_cast<std::uintptr_t>(p);
}

/* Anonymous private memory, 2 MiB aligned, unmapped with its owner. */
struct anon {
	std::uint8_t *p = nullptr;
	std::uint64_t size, raw;
	explicit anon(std::uint64_t bytes) : size(bytes), raw(bytes + two_mib)
	{
		void *m = mmap(nullptr, raw, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (m == MAP_FAILED)
			fail("mmap");
		base = static_cast<std::uint8_t *>(m);
		p = reinterpret_cast<std::uint8_t *>((addr(m) + two_mib - 1) & ~(two_mib - 1));
	}
	anon(const anon &) = delete;
	anon &operator=(const anon &) = delete;
	~anon() { munmap(base, raw); }
	std::uint8_t *base;
};

void fill(std::uint8_t *p, std::uint64_t bytes, std::uint32_t seed)
{
	auto *w = reinterpret_cast<std::uint32_t *>(p);
	for (std::uint64_t i = 0; i < bytes / 4; i++)
		w[i] = static_cast<std::uint32_t>(i * 2654435761u) ^ seed;
}

std::uint64_t expected_sum(std::uint64_t bytes, std::uint32_t seed)
{
	std::uint64_t s = 0;
	for (std::uint64_t i = 0; i < bytes / 4; i++)
		s += static_cast<std::uint32_t>(i * 2654435761u) ^ seed;
	return s;
}

bool check(const std::uint8_t *p, std::uint64_t bytes, std::uint32_t seed)
{
	const auto *w = reinterpret_cast<const std::uint32_t *>(p);
	for (std::uint64_t i = 0; i < bytes / 4; i++)
		if (w[i] != (static_cast<std::uint32_t>(i * 2654435761u) ^ seed))
			return false;
	return true;
}

/* debugfs vcompute_svm of @dev's device: "name: value" lines. */
std::optional<std::uint64_t> svm_stat(const onenode::Device &dev, const char *name)
{
	char path[PATH_MAX];

	if (onenode_debugfs_path(dev.get(), "vcompute_svm", path, sizeof(path)))
		return std::nullopt;
	FILE *f = std::fopen(path, "re");
	if (!f)
		return std::nullopt;
	std::optional<std::uint64_t> v;
	char key[64];
	unsigned long long n;
	while (std::fscanf(f, "%63[^:]: %llu\n", key, &n) == 2)
		if (!std::strcmp(key, name))
			v = n;
	std::fclose(f);
	return v;
}

/* An SVM VM with one queue in a reserved hole. */
struct svm_queue {
	onenode::Vm vm;
	onenode::VaHole h;
	onenode::Queue q;
	svm_queue(onenode::Device &dev)
		: vm(dev, DRM_COMPUTE_VM_CREATE_SVM), h(dev.queue_va_size(0)), q(dev, vm, h.va())
	{
	}

	void run(const std::uint64_t *pkt, std::uint32_t qw, const char *what)
	{
		q.emit(pkt, qw);
		std::uint64_t v = q.fence();
		q.commit();
		if (!q.wait(v, wait_ns)) {
			drm_compute_userq_state st = q.state();
			fail(std::format("{}: {} ({} at {:#x})", what, onenode_status_name(st.status),
					 onenode_fault_name(st.fault_reason), st.fault_va));
		}
	}

	/* SUM_U32 over @bytes at @p into *@out; its seconds. */
	double sum(const void *p, std::uint64_t bytes, std::uint64_t *out)
	{
		std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		auto t = clk::now();
		run(pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_SUM_U32, bytes / 4, 0, addr(p),
					      addr(out), 0),
		    "SUM_U32");
		return secs(t, clk::now());
	}
};

void prefetch(onenode::Vm &vm, const void *p, std::uint64_t bytes, std::uint32_t where)
{
	const drm_compute_svm_attr a[] = {
		{ .type = DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, .value = where },
	};
	vm.svm_set_attr(addr(p), bytes, a);
}

/* Bytes of [@p, +@bytes) backed by transparent huge pages. */
std::uint64_t thp_bytes(const void *p, std::uint64_t bytes)
{
	std::uint64_t huge = 0;

	if (onenode_thp_bytes(p, &huge))
		return 0;
	return std::min(huge, bytes);
}

/* /dev/hmm_dmirror0 open, or -1 (test_hmm.ko not loaded: said once). */
int dmirror_open(const options &opt, const char *what)
{
	int fd = open(opt.dmirror.c_str(), O_RDWR | O_CLOEXEC);

	if (fd < 0)
		say(std::format("{}: no {} (insmod lib/test_hmm.ko): {}\n", what, opt.dmirror,
				std::strerror(errno)));
	return fd;
}

/* One dmirror command over @pages pages at @p; its seconds. */
double dmirror_cmd(int fd, unsigned long req, const void *p, void *bounce, std::uint64_t pages,
		   const char *what)
{
	hmm_dmirror_cmd cmd = { .addr = addr(p), .ptr = addr(bounce), .npages = pages,
				.cpages = 0, .faults = 0 };
	auto t = clk::now();
	int ret = ioctl(fd, req, &cmd);
	double d = secs(t, clk::now());

	if (ret)
		fail(std::format("dmirror {}: {}", what, std::strerror(errno)));
	if (req != HMM_DMIRROR_MIGRATE_TO_SYS && cmd.cpages != pages)
		fail(std::format("dmirror {}: {} of {} pages", what, cmd.cpages, pages));
	return d;
}

/*
 * The same round trip of 4 KiB pages through dmirror. Its MIGRATE_TO_DEV
 * ends by reading every page back into @bounce (for its selftests); that
 * read, timed alone right after as a READ of the same device-resident
 * pages, is taken off. Adds the two times to @to_dev and @to_ram.
 */
void dmirror_round_trip(int fd, anon &mem, std::uint8_t *bounce, std::uint64_t bytes,
			std::uint32_t seed, std::vector<double> &to_dev,
			std::vector<double> &to_ram)
{
	const std::uint64_t pages = bytes / sysconf(_SC_PAGESIZE);
	double dev = dmirror_cmd(fd, HMM_DMIRROR_MIGRATE_TO_DEV, mem.p, bounce, pages,
				 "MIGRATE_TO_DEV");
	double read = dmirror_cmd(fd, HMM_DMIRROR_READ, mem.p, bounce, pages, "READ");
	onenode_residency res = onenode::residency(mem.p, bytes);

	if (res.device != pages)
		fail(std::format("dmirror moved {} of {} pages to its device memory", res.device,
				 pages));
	if (!check(bounce, bytes, seed))
		fail("dmirror read wrong data from its device memory");
	double ram = dmirror_cmd(fd, HMM_DMIRROR_MIGRATE_TO_SYS, mem.p, bounce, pages,
				 "MIGRATE_TO_SYS");
	res = onenode::residency(mem.p, bytes);
	if (res.sysmem != pages)
		fail(std::format("dmirror brought back {} of {} pages", res.sysmem, pages));
	if (!check(mem.p, bytes, seed))
		fail("data changed by dmirror's migration round trip");
	to_dev.push_back(std::max(dev - read, 1e-9));
	to_ram.push_back(ram);
}

/*
 * 1. Migration bandwidth against memcpy, of memory in 4 KiB pages and of
 * memory in transparent huge pages (MADV_HUGEPAGE; drm_pagemap moves each
 * as one 2 MiB folio), and dmirror's migration of 4 KiB pages, the four
 * alternated in every round.
 */
void bench_migration(onenode::Device &dev, const options &opt)
{
	const std::uint64_t bytes = opt.mib << 20, pages = bytes / sysconf(_SC_PAGESIZE);
	const std::uint32_t id = dev.query_device().device_id;
	svm_queue sq(dev);
	anon small(bytes), huge(bytes), src(bytes), dst(bytes), dmem(bytes);
	struct kind {
		const char *name;
		anon &mem;
		std::uint32_t seed;
		std::vector<double> to_dev, to_ram;
		std::uint64_t thp_min = UINT64_MAX;
	} kinds[] = { { "4 KiB pages", small, 1, {}, {} },
		      { "2 MiB huge pages", huge, 6, {}, {} } };
	std::vector<double> cpy, dm_dev, dm_ram;
	const bool thp = !madvise(huge.p, bytes, MADV_HUGEPAGE);
	const int dm = dmirror_open(opt, "dmirror migration");
	std::vector<std::uint8_t> bounce(dm >= 0 ? bytes : 0);

	for (kind &k : kinds)
		fill(k.mem.p, bytes, k.seed);
	fill(dmem.p, bytes, 7);
	fill(src.p, bytes, 2);
	std::memset(dst.p, 0, bytes);
	for (unsigned int r = 0; r < opt.rounds; r++) {
		for (kind &k : kinds) {
			if (&k.mem == &huge && !thp)
				continue;
			k.thp_min = std::min(k.thp_min, thp_bytes(k.mem.p, bytes));
			auto t0 = clk::now();
			prefetch(sq.vm, k.mem.p, bytes, id);
			auto t1 = clk::now();
			onenode_residency res = onenode::residency(k.mem.p, bytes);
			if (res.device != pages)
				fail(std::format("prefetch to the device moved {} of {} pages ({})",
						 res.device, pages, k.name));
			prefetch(sq.vm, k.mem.p, bytes, DRM_COMPUTE_SVM_LOCATION_SYSMEM);
			auto t2 = clk::now();
			res = onenode::residency(k.mem.p, bytes);
			if (res.sysmem != pages)
				fail(std::format("prefetch to system memory brought back {} of {} "
						 "pages ({})", res.sysmem, pages, k.name));
			if (!check(k.mem.p, bytes, k.seed))
				fail(std::format("data changed by the migration round trip ({})",
						 k.name));
			k.to_dev.push_back(secs(t0, t1));
			k.to_ram.push_back(secs(t1, t2));
		}
		if (dm >= 0)
			dmirror_round_trip(dm, dmem, bounce.data(), bytes, 7, dm_dev, dm_ram);
		auto m0 = clk::now();
		std::memcpy(dst.p, src.p, bytes);
		cpy.push_back(secs(m0, clk::now()));
		if (std::memcmp(dst.p, src.p, bytes))
			fail("memcpy");
	}
	if (dm >= 0)
		close(dm);
	const double mib = static_cast<double>(opt.mib), m = mib / median(cpy);
	say(std::format("migration, {} MiB x {} rounds (medians; memcpy {:.1f} MiB/s):\n", opt.mib,
			opt.rounds, m));
	for (const kind &k : kinds) {
		if (k.to_dev.empty()) {
			say(std::format("  {}: not measured (no transparent huge pages)\n", k.name));
			continue;
		}
		double d = mib / median(k.to_dev), s2 = mib / median(k.to_ram);
		say(std::format("  {} ({} of {} MiB in huge pages at the start of a round, at "
				"least):\n", k.name, k.thp_min >> 20, opt.mib));
		say(std::format("    system -> device: {:8.1f} MiB/s   ratio {:.2f} (goal >= 0.7)\n",
				d, d / m));
		say(std::format("    device -> system: {:8.1f} MiB/s   ratio {:.2f} (goal >= 0.7)\n",
				s2, s2 / m));
	}
	if (dm_dev.empty())
		return;
	/* Upstream's reference: the same 4 KiB pages through dmirror. */
	const double gd = mib / median(kinds[0].to_dev), gr = mib / median(kinds[0].to_ram);
	const double hd = mib / median(dm_dev), hr = mib / median(dm_ram);
	say("  4 KiB pages through test_hmm dmirror (upstream's reference driver):\n");
	say(std::format("    system -> device: {:8.1f} MiB/s   ratio to memcpy {:.2f}   vcompute / "
			"dmirror {:.2f}\n", hd, hd / m, gd / hd));
	say(std::format("    device -> system: {:8.1f} MiB/s   ratio to memcpy {:.2f}   vcompute / "
			"dmirror {:.2f}\n", hr, hr / m, gr / hr));
}

/* 2. First-touch fault service: vcompute's GPU against test_hmm's dmirror. */
void bench_faults(onenode::Device &dev, const options &opt)
{
	const std::uint64_t bytes = opt.mib << 20, pages = bytes / sysconf(_SC_PAGESIZE);
	const std::uint64_t want = expected_sum(bytes, 3);
	std::vector<double> gpu, gpu_diff, dm;
	std::uint64_t gpu_faults = 0, dm_faults = 0;
	auto out = std::make_unique<std::uint64_t>();
	std::vector<std::uint8_t> bounce(bytes);

	int probe = dmirror_open(opt, "fault service");
	if (probe < 0)
		return;
	close(probe);
	if (!svm_stat(dev, "fault_ns"))
		fail("debugfs vcompute_svm has no fault_ns (mounted debugfs? this kernel?)");
	for (unsigned int r = 0; r < opt.rounds; r++) {
		/* vcompute: a fresh VM mirrors nothing; first read faults every range. */
		{
			anon a(bytes);
			fill(a.p, bytes, 3);
			svm_queue sq(dev);
			auto f0 = svm_stat(dev, "faults"), ns0 = svm_stat(dev, "fault_ns");
			double first = sq.sum(a.p, bytes, out.get());
			auto f1 = svm_stat(dev, "faults"), ns1 = svm_stat(dev, "fault_ns");
			if (*out != want)
				fail("SUM_U32 over fresh memory is wrong");
			double again = sq.sum(a.p, bytes, out.get());
			if (*out != want)
				fail("SUM_U32 over mirrored memory is wrong");
			if (!f0 || !f1 || !ns0 || !ns1 || *f1 == *f0 || *ns1 <= *ns0)
				fail("the first read took no fault, or no fault time was counted");
			gpu.push_back(static_cast<double>(*ns1 - *ns0) * 1e-9);
			gpu_diff.push_back(std::max(first - again, 1e-9));
			gpu_faults += *f1 - *f0;
		}
		/* dmirror: a fresh open mirrors nothing; READ copies into @bounce. */
		{
			anon a(bytes);
			fill(a.p, bytes, 3);
			int fd = open(opt.dmirror.c_str(), O_RDWR | O_CLOEXEC);
			if (fd < 0)
				fail("open " + opt.dmirror);
			hmm_dmirror_cmd cmd = { .addr = addr(a.p), .ptr = addr(bounce.data()),
						.npages = pages, .cpages = 0, .faults = 0 };
			auto t0 = clk::now();
			int ret = ioctl(fd, HMM_DMIRROR_READ, &cmd);
			auto t1 = clk::now();
			std::uint64_t faults = cmd.faults;
			cmd.cpages = cmd.faults = 0;
			int ret2 = ioctl(fd, HMM_DMIRROR_READ, &cmd);
			auto t2 = clk::now();
			close(fd);
			if (ret || ret2 || cmd.cpages != pages || !check(bounce.data(), bytes, 3))
				fail("HMM_DMIRROR_READ failed or read wrong data");
			dm.push_back(std::max(secs(t0, t1) - secs(t1, t2), 1e-9));
			dm_faults += faults;
		}
	}
	double g = pages / median(gpu), gd = pages / median(gpu_diff), h = pages / median(dm);
	say(std::format("first-touch fault service, {} MiB x {} rounds (medians):\n", opt.mib,
			opt.rounds));
	say(std::format("  vcompute GPU: {:10.0f} pages/s of the kernel's fault time ({} faults/"
			"round)\n", g, gpu_faults / opt.rounds));
	say(std::format("  test_hmm dmirror: {:10.0f} pages/s ({} faults/round)\n", h,
			dm_faults / opt.rounds));
	say(std::format("  ratio vcompute / dmirror: {:.2f} (goal >= 1.0)\n", g / h));
	say(std::format("  (vcompute by the difference of two queue runs: {:.0f} pages/s, ratio "
			"{:.2f}; the runs' noise)\n", gd, gd / h));
}

/* 3. The cost of an invalidation that a running queue must yield to. */
void bench_invalidation(onenode::Device &dev, const options &opt)
{
	constexpr int copies = 512, toggles = 64;
	svm_queue sq(dev);
	anon busy(two_mib), dst(two_mib), idle(two_mib);
	std::vector<double> with, without;
	std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS];

	fill(busy.p, two_mib, 4);
	fill(idle.p, two_mib, 5);
	for (unsigned int r = 0; r < opt.rounds; r++) {
		for (int i = 0; i < copies; i++)
			sq.q.emit(pkt, onenode_pkt_copy(pkt, addr(dst.p), addr(busy.p), two_mib));
		std::uint64_t v = sq.q.fence();
		sq.q.commit();
		double a = 0, b = 0;
		for (int i = 0; i < toggles; i++) {
			auto t0 = clk::now();
			mprotect(busy.p, two_mib, PROT_READ);
			mprotect(busy.p, two_mib, PROT_READ | PROT_WRITE);
			auto t1 = clk::now();
			mprotect(idle.p, two_mib, PROT_READ);
			mprotect(idle.p, two_mib, PROT_READ | PROT_WRITE);
			auto t2 = clk::now();
			a += secs(t0, t1);
			b += secs(t1, t2);
			/*
			 * Let the queue refault and go on: back to back, the
			 * invalidations would starve it (it gives up with
			 * SVM_BUSY after a bounded number of services).
			 */
			usleep(2000);
		}
		if (!sq.q.wait(v, wait_ns)) {
			drm_compute_userq_state st = sq.q.state();
			fail(std::format("the busy queue did not finish: {} ({})",
					 onenode_status_name(st.status),
					 onenode_fault_name(st.fault_reason)));
		}
		if (std::memcmp(dst.p, busy.p, two_mib))
			fail("the busy queue's copy is wrong");
		with.push_back(a / toggles);
		without.push_back(b / toggles);
	}
	double w = median(with) * 1e6, wo = median(without) * 1e6;
	say(std::format("invalidation of 2 MiB (mprotect RO+RW, {} x {} rounds, medians):\n",
			toggles, opt.rounds));
	say(std::format("  under a reading queue: {:.1f} us   not mirrored: {:.1f} us   ratio {:.2f}\n",
			w, wo, w / wo));
}

/* 4. Kernel work per 4 KiB page with no device, against memcpy. */
void bench_kernel_work(const options &opt)
{
	const std::uint64_t bytes = opt.mib << 20;
	anon src(bytes), dst(bytes), prot(bytes);
	std::vector<double> cpy, collapse, mprot;
	bool can_collapse = true;

	fill(src.p, bytes, 8);
	std::memset(dst.p, 0, bytes);
	fill(prot.p, bytes, 9);
	for (unsigned int r = 0; r < opt.rounds; r++) {
		if (can_collapse) {
			/* Written in 4 KiB pages, then collapsed. */
			anon c(bytes);
			if (madvise(c.p, bytes, MADV_NOHUGEPAGE))
				fail("MADV_NOHUGEPAGE");
			fill(c.p, bytes, 10);
			if (thp_bytes(c.p, bytes))
				fail("huge pages under MADV_NOHUGEPAGE");
			auto t = clk::now();
			if (madvise(c.p, bytes, MADV_HUGEPAGE) || madvise(c.p, bytes, MADV_COLLAPSE)) {
				say(std::format("kernel work: no MADV_COLLAPSE here: {}\n",
						std::strerror(errno)));
				can_collapse = false;
			} else {
				collapse.push_back(secs(t, clk::now()));
				if (thp_bytes(c.p, bytes) != bytes)
					fail("MADV_COLLAPSE left 4 KiB pages");
				if (!check(c.p, bytes, 10))
					fail("data changed by MADV_COLLAPSE");
			}
		}
		auto t0 = clk::now();
		if (mprotect(prot.p, bytes, PROT_READ) ||
		    mprotect(prot.p, bytes, PROT_READ | PROT_WRITE))
			fail("mprotect");
		mprot.push_back(secs(t0, clk::now()));
		auto m0 = clk::now();
		std::memcpy(dst.p, src.p, bytes);
		cpy.push_back(secs(m0, clk::now()));
		if (std::memcmp(dst.p, src.p, bytes))
			fail("memcpy");
	}
	const double mib = static_cast<double>(opt.mib), m = median(cpy);
	say(std::format("kernel work on 4 KiB pages, no device, {} MiB x {} rounds (medians; "
			"memcpy {:.1f} MiB/s); ratio: memcpy's time over the work's:\n",
			opt.mib, opt.rounds, mib / m));
	if (!collapse.empty())
		say(std::format("  MADV_COLLAPSE into huge pages: {:8.1f} MiB/s   ratio {:.2f}\n",
				mib / median(collapse), m / median(collapse)));
	say(std::format("  mprotect read-only and back:   {:8.1f} MiB/s   ratio {:.2f}\n",
			mib / median(mprot), m / median(mprot)));
}

} // namespace

int main(int argc, char **argv)
{
	options opt;

	for (int i = 1; i < argc; i++) {
		std::string_view arg = argv[i];
		if (arg == "--mib" && i + 1 < argc)
			opt.mib = std::strtoull(argv[++i], nullptr, 10);
		else if (arg == "--rounds" && i + 1 < argc)
			opt.rounds = static_cast<unsigned int>(std::strtoul(argv[++i], nullptr, 10));
		else if (arg == "--dmirror" && i + 1 < argc)
			opt.dmirror = argv[++i];
		else if (arg == "--only" && i + 1 < argc)
			opt.only = argv[++i];
		else {
			std::fputs("usage: onenode-bench-svm [--mib N] [--rounds N] [--dmirror DEV] "
				   "[--only migration|faults|invalidation|kernel-work]\n",
				   stderr);
			return 2;
		}
	}
	if (!opt.mib || opt.mib > 1024 || !opt.rounds)
		fail("--mib takes 1 to 1024, --rounds at least 1");
	if (!opt.only.empty() && opt.only != "migration" && opt.only != "faults" &&
	    opt.only != "invalidation" && opt.only != "kernel-work")
		fail("--only takes migration, faults, invalidation or kernel-work");
	auto runs = [&](const char *what) { return opt.only.empty() || opt.only == what; };
	if (opt.only == "kernel-work") {
		/* No device: also for the build machine (--host). */
		bench_kernel_work(opt);
		return 0;
	}
	std::optional<onenode::Device> dev;
	try {
		dev.emplace(onenode::Device::open_with_features(DRM_COMPUTE_FEATURE_USERQ |
								DRM_COMPUTE_FEATURE_SVM));
	} catch (const onenode::error &e) {
		std::fprintf(stderr, "bench-svm: %s\n", e.what());
		return 77;
	}
	try {
		say(std::format("onenode-bench-svm: {} ({})\n", dev->path(), dev->driver()));
		if (runs("migration"))
			bench_migration(*dev, opt);
		if (runs("faults"))
			bench_faults(*dev, opt);
		if (runs("invalidation"))
			bench_invalidation(*dev, opt);
		if (runs("kernel-work"))
			bench_kernel_work(opt);
	} catch (const onenode::error &e) {
		fail(e.what());
	}
	return 0;
}
