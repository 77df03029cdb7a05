// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-bench-nic: NIC ingest into GPU memory, zero-copy against a bounce
 * through host memory, measured side by side in one run.
 *
 * The GPU is a vcompute PCI instance (its device memory is a PCI BAR), the
 * NIC the test VM's RDMA device (Soft-RoCE) through rdma-core: a remote
 * queue pair writes the data with RDMA WRITE into a dma-buf memory region
 * (ibv_reg_dmabuf_mr()), and a user queue consumes it (CRC-32C of all of
 * it, checked against the CPU's).
 *
 *  zero-copy  the NIC writes into a PREFER_P2P buffer in device memory; the
 *             queue checksums it in place.
 *  bounce     the NIC writes into a HOST_ONLY buffer (system memory); the
 *             queue COPYs it into a device-memory buffer and checksums it
 *             there: what a stack does when the NIC cannot reach GPU memory.
 *
 * Each path's time runs from the first RDMA WRITE to the queue's fence,
 * and is split at the last write's completion: the NIC's part and the
 * queue's part (the bounce's copy is in the latter). The split says how
 * large a ratio the NIC allows at all: with a NIC slower than the copy,
 * the copy a zero-copy path saves is a small part of the whole.
 * Rounds alternate the paths; the medians and their ratio (bounce time over
 * zero-copy time, i.e. the zero-copy throughput over the bounce
 * throughput) are printed, with the goal 1.8. Host-memory traffic is
 * counted per path, not assumed: the bytes the NIC wrote into a buffer the
 * kernel reports in system memory (DRM_COMPUTE_OP_P2P_REPORT), and the
 * bytes the device's engine read from system memory (vcompute's debugfs
 * counter sysmem_read, which its page tables feed).
 *
 * Every round's CRC is checked; a failed round fails the run (exit 1).
 */
#include <fcntl.h>
#include <xf86drm.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <format>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "onenode.hpp"
#include "onenode_rdma.h"
#include "onenode_vcompute.h"

namespace {

using clk = std::chrono::steady_clock;

constexpr std::int64_t wait_ns = 600LL * 1000 * 1000 * 1000;
constexpr std::uint64_t data_va = 1ULL << 32, dev_va = 2ULL << 32, crc_va = 3ULL << 32;
constexpr double goal = 1.8;

struct options {
	std::string device;
	std::string nic;
	std::uint64_t mib = 4;
	std::uint32_t packet = 4096;
	unsigned rounds = 5;
};

[[noreturn]] void usage()
{
	std::fputs("usage: onenode-bench-nic [--device PATH] [--nic RDMA-DEVICE] [--mib N] "
		   "[--packet BYTES] [--rounds N]\n", stderr);
	std::exit(2);
}

options parse(int argc, char **argv)
{
	options o;

	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (a == "--device")
			o.device = v;
		else if (a == "--nic")
			o.nic = v;
		else if (a == "--mib")
			o.mib = std::strtoull(v, nullptr, 0);
		else if (a == "--packet")
			o.packet = static_cast<std::uint32_t>(std::strtoul(v, nullptr, 0));
		else if (a == "--rounds")
			o.rounds = static_cast<unsigned>(std::strtoul(v, nullptr, 0));
		else
			usage();
	}
	if (!o.mib || o.mib > 12 || !o.packet || o.packet > (1u << 20) || !o.rounds)
		usage();
	return o;
}

/* The first vcompute render node whose device memory is a PCI BAR. */
onenode::Device open_gpu(const options &o)
{
	if (!o.device.empty())
		return onenode::Device::open_path(o.device);
	return onenode::Device::open_vcompute_bar();
}

/* debugfs vcompute_memory of @gpu's device: its sysmem_read counter. */
class EngineCounter {
public:
	explicit EngineCounter(const onenode::Device &gpu)
	{
		char path[PATH_MAX];

		onenode::check(onenode_debugfs_path(gpu.get(), "vcompute_memory", path,
						    sizeof(path)),
			       "debugfs vcompute_memory of " + gpu.path());
		path_ = path;
	}
	std::uint64_t sysmem_read() const
	{
		std::ifstream f(path_);
		std::string key;
		std::uint64_t v;
		while (f >> key >> v)
			if (key == "sysmem_read:")
				return v;
		throw onenode::error(-EPROTO, path_ + ": no sysmem_read");
	}

private:
	std::string path_;
};

struct Fd {
	int fd = -1;
	explicit Fd(int f) : fd(f) {}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd()
	{
		if (fd >= 0)
			close(fd);
	}
};

struct MrDeleter {
	void operator()(ibv_mr *mr) const { ibv_dereg_mr(mr); }
};
using Mr = std::unique_ptr<ibv_mr, MrDeleter>;

/* A buffer made for export and registered with the NIC as a memory region. */
struct Target {
	onenode::Bo bo;
	Fd dmabuf;
	Mr mr;

	Target(onenode::Device &gpu, onenode_rdma *nic, std::uint64_t bytes,
	       std::uint64_t placement, std::uint32_t flag)
		: bo(gpu, bytes, placement, flag), dmabuf(export_fd(gpu, bo))
	{
		ibv_mr *m = nullptr;
		onenode::check(onenode_rdma_reg_dmabuf(nic, dmabuf.fd, 0, bytes, &m),
			       "ibv_reg_dmabuf_mr");
		mr.reset(m);
	}
	static int export_fd(onenode::Device &gpu, onenode::Bo &bo)
	{
		int fd = -1;
		if (drmPrimeHandleToFD(gpu.fd(), bo.handle(), DRM_CLOEXEC | DRM_RDWR, &fd))
			throw onenode::error(-errno, "export a dma-buf");
		return fd;
	}
	/* Where the kernel says the buffer lies. */
	bool in_host(onenode::Device &gpu)
	{
		drm_compute_p2p_report r;
		onenode::check(onenode_p2p_report(gpu.get(), bo.handle(), &r, nullptr, 0),
			       "P2P report");
		return r.placement == DRM_COMPUTE_PLACEMENT_SYSTEM;
	}
};

struct Result {
	double seconds;
	/* Of which the NIC's writes, up to their last completion. */
	double nic_seconds;
	std::uint64_t nic_host_bytes;
	std::uint64_t engine_host_bytes;
};

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

class Bench {
public:
	Bench(const options &o)
		: o_(o), bytes_(o.mib << 20), gpu_(open_gpu(o)), counter_(gpu_)
	{
		onenode_rdma *r = nullptr;
		onenode::check(onenode_rdma_open(o.nic.empty() ? nullptr : o.nic.c_str(), &r),
			       "open the RDMA device");
		nic_.reset(r);
		src_.resize(bytes_);
		src_mr_.reset(ibv_reg_mr(onenode_rdma_pd(nic_.get()), src_.data(), bytes_,
					 IBV_ACCESS_LOCAL_WRITE));
		if (!src_mr_)
			throw onenode::error(-errno, "ibv_reg_mr");
	}

	void run()
	{
		std::vector<double> zc, bounce, zc_nic, bounce_nic;
		Result last_zc{}, last_bounce{};

		std::printf("onenode-bench-nic: GPU %s (vcompute, %llu MiB of device memory in a BAR), "
			    "NIC %s; %llu MiB per round in RDMA WRITEs of %u bytes, %u rounds\n",
			    gpu_.path().c_str(),
			    static_cast<unsigned long long>(gpu_.query_device().vram_bar_size >> 20),
			    onenode_rdma_name(nic_.get()), static_cast<unsigned long long>(o_.mib),
			    o_.packet, o_.rounds);
		for (unsigned r = 0; r < o_.rounds; r++) {
			/* Alternate which path goes first. */
			for (int k = 0; k < 2; k++) {
				if ((k == 0) == (r % 2 == 0)) {
					last_zc = round(false, r);
					zc.push_back(last_zc.seconds);
					zc_nic.push_back(last_zc.nic_seconds);
				} else {
					last_bounce = round(true, r);
					bounce.push_back(last_bounce.seconds);
					bounce_nic.push_back(last_bounce.nic_seconds);
				}
			}
		}
		const double tz = median(zc), tb = median(bounce), mb = static_cast<double>(bytes_) / (1 << 20);
		std::printf("%-34s %14s %14s %9s %6s\n", "measure", "zero-copy", "bounce", "ratio", "goal");
		std::printf("%-34s %10.1f MiB/s %10.1f MiB/s %9.2f %6s\n", "ingest throughput (NIC to consumed)",
			    mb / tz, mb / tb, tb / tz, ">= 1.8");
		/* Where the time goes: the NIC's writes, then the queue's work. */
		const double nz = median(zc_nic), nb = median(bounce_nic);
		std::printf("%-34s %11.1f ms %11.1f ms\n", "  of which the NIC's writes", nz * 1e3,
			    nb * 1e3);
		std::printf("%-34s %11.1f ms %11.1f ms\n", "  of which the queue (copy, CRC)",
			    (tz - nz) * 1e3, (tb - nb) * 1e3);
		std::printf("%-34s %14llu %14llu\n", "bytes the NIC wrote to host memory",
			    static_cast<unsigned long long>(last_zc.nic_host_bytes),
			    static_cast<unsigned long long>(last_bounce.nic_host_bytes));
		std::printf("%-34s %14llu %14llu\n", "bytes the GPU read from host memory",
			    static_cast<unsigned long long>(last_zc.engine_host_bytes),
			    static_cast<unsigned long long>(last_bounce.engine_host_bytes));
		std::printf("onenode-bench-nic: ratio %.2f (goal %.1f: %s); every round's CRC-32C matched\n",
			    tb / tz, goal, tb / tz >= goal ? "met" : "NOT met");
	}

private:
	/* One path, one round: the seconds from the first write to the fence. */
	Result round(bool bounce, unsigned r)
	{
		std::uint64_t x = 0x62656e63686e6963ULL + r * 2 + bounce;
		for (auto &b : src_) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			b = static_cast<std::uint8_t>(x >> 56);
		}
		const std::uint32_t want = onenode_crc32c(0, src_.data(), bytes_);

		/* The NIC's target, and where the queue reads from. */
		Target t(gpu_, nic_.get(), bytes_,
			 bounce ? DRM_COMPUTE_PLACEMENT_SYSTEM : DRM_COMPUTE_PLACEMENT_VRAM,
			 bounce ? DRM_COMPUTE_BO_EXPORT_HOST_ONLY : DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
		std::unique_ptr<onenode::Bo> dev;
		onenode::Bo crc(gpu_, 4096, DRM_COMPUTE_PLACEMENT_SYSTEM);
		onenode::Vm vm(gpu_);
		vm.map(t.bo, data_va);
		vm.map(crc, crc_va);
		if (bounce) {
			dev = std::make_unique<onenode::Bo>(gpu_, bytes_, DRM_COMPUTE_PLACEMENT_VRAM);
			vm.map(*dev, dev_va);
		}
		onenode::Queue q(gpu_, vm, 1ULL << 28);
		std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
		const std::uint64_t engine0 = counter_.sysmem_read();

		auto t0 = clk::now();
		int ret = onenode_rdma_write(nic_.get(), src_mr_.get(), 0, t.mr.get(), 0, bytes_,
					     o_.packet);
		if (ret)
			throw onenode::error(ret, std::string("RDMA WRITE: ") +
					     onenode_rdma_last_status(nic_.get()));
		const auto t1 = clk::now();
		if (bounce)
			q.emit(pkt, onenode_pkt_copy(pkt, dev_va, data_va, bytes_));
		q.emit(pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_CRC32C, bytes_, 0,
						 bounce ? dev_va : data_va, crc_va, 0));
		std::uint64_t v = q.fence();
		q.commit();
		if (!q.wait(v, wait_ns))
			throw onenode::error(-ETIME, "the queue");
		const double s = std::chrono::duration<double>(clk::now() - t0).count();

		const std::uint32_t got = *crc.data<std::uint32_t>();
		if (got != want)
			throw onenode::error(-EIO, std::format("{} round {}: CRC-32C {:08x}, expected {:08x}",
							       bounce ? "bounce" : "zero-copy", r, got, want));
		return { s, std::chrono::duration<double>(t1 - t0).count(),
			 t.in_host(gpu_) ? bytes_ : 0, counter_.sysmem_read() - engine0 };
	}

	struct Close {
		void operator()(onenode_rdma *r) const { onenode_rdma_close(r); }
	};

	options o_;
	std::uint64_t bytes_;
	onenode::Device gpu_;
	EngineCounter counter_;
	std::unique_ptr<onenode_rdma, Close> nic_;
	std::vector<std::uint8_t> src_;
	Mr src_mr_;
};

} // namespace

int main(int argc, char **argv)
{
	const options o = parse(argc, argv);

	try {
		Bench b(o);
		b.run();
	} catch (const onenode::error &e) {
		std::fprintf(stderr, "onenode-bench-nic: %s\n", e.what());
		return 1;
	} catch (const std::filesystem::filesystem_error &e) {
		std::fprintf(stderr, "onenode-bench-nic: %s\n", e.what());
		return 1;
	}
	return 0;
}
