// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-nic-ingest: a NIC writes packets into GPU memory it imported as a
 * dma-buf; a user queue checksums them in place; the kernel says where the
 * memory lives and why.
 *
 * The GPU is a vcompute PCI instance, whose device memory is a PCI BAR. The
 * NICs are the test VM's:
 *  - DMA-doing importers (vcompute_edu, QEMU's edu device:
 *    /dev/vcompute-edu-*), which write by bus address with a DMA engine;
 *  - an RDMA device (Soft-RoCE, rxe0), through the API RDMA applications
 *    use: the buffer is registered with ibv_reg_dmabuf_mr(), and a remote
 *    queue pair writes the packets into it with RDMA WRITE. rxe moves data
 *    with the CPU, so it maps the buffer in the kernel instead of importing
 *    it for DMA (the report counts a kernel mapping, not an importer).
 * For each NIC (or the one --nic names):
 *  1. the GPU allocates --packets packets of 1 KiB, made for export with
 *     DRM_COMPUTE_BO_EXPORT_PREFER_P2P, and exports them as a dma-buf;
 *  2. the NIC takes the dma-buf; the kernel decides, from the PCI topology,
 *     whether a DMA-doing NIC reaches the GPU's memory directly
 *     (peer-to-peer) or the buffer moves to system memory, and the program
 *     prints its report (DRM_COMPUTE_OP_P2P_REPORT);
 *  3. the NIC writes the packets;
 *  4. a user queue computes the CRC-32C of every packet where it lies
 *     (DISPATCH CRC32C), and the program checks each against the CRC the
 *     CPU computed over what it handed the NIC, and every byte through the
 *     GPU buffer's CPU mapping.
 *
 * Exit status: 0 when every packet is intact, 1 on a mismatch or error, 2
 * on a usage error, 77 when there is no vcompute PCI instance or no NIC.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <format>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onenode.hpp"
#include "onenode_rdma.h"
#include "onenode_vcompute.h"

namespace {

constexpr std::int64_t wait_ns = 300LL * 1000 * 1000 * 1000; // TCG with KASAN is slow
constexpr std::uint64_t packet_bytes = 1024;
constexpr std::uint64_t buf_va = 1ULL << 32, crc_va = 2ULL << 32;

struct options {
	std::string device;
	std::string nic;
	std::uint64_t packets = 16;
};

constexpr std::string_view usage_text =
	"usage: onenode-nic-ingest [--device PATH] [--nic PATH] [--packets N]\n"
	"\n"
	"A NIC writes packets into exported GPU memory; a queue checksums them in\n"
	"place; the kernel reports where the memory lives.\n"
	"  --device PATH  the GPU's render node (default: the first vcompute PCI instance)\n"
	"  --nic NIC      one NIC: /dev/vcompute-edu-* (DMA) or an RDMA device such\n"
	"                 as rxe0 (default: every edu, and the first RDMA device)\n"
	"  --packets N    packets of 1 KiB (default 16, at most 1024)\n";

void say(const std::string &s)
{
	std::fputs(s.c_str(), stdout);
	std::fflush(stdout);
}

int parse(int argc, char **argv, options &opt)
{
	for (int i = 1; i < argc; i++) {
		std::string_view arg = argv[i];
		bool has_value = i + 1 < argc && argv[i + 1][0];

		if (arg == "-h" || arg == "--help") {
			say(std::string(usage_text));
			return -1;
		} else if (arg == "--device" && has_value) {
			opt.device = argv[++i];
		} else if (arg == "--nic" && has_value) {
			opt.nic = argv[++i];
		} else if (arg == "--packets" && has_value) {
			char *end;
			opt.packets = std::strtoull(argv[++i], &end, 10);
			if (*end || !opt.packets || opt.packets > 1024) {
				std::fputs("onenode-nic-ingest: --packets takes 1 to 1024\n", stderr);
				return 1;
			}
		} else {
			std::fputs(std::format("onenode-nic-ingest: bad argument '{}'\n", arg).c_str(),
				   stderr);
			return 1;
		}
	}
	return 0;
}

/* The first vcompute render node (by number) whose device memory is a PCI BAR. */
onenode::Device open_gpu(const options &opt)
{
	if (!opt.device.empty())
		return onenode::Device::open_path(opt.device);
	return onenode::Device::open_vcompute_bar();
}

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

/* A NIC: takes a dma-buf of GPU memory, then writes packets into it. */
class Nic {
public:
	virtual ~Nic() = default;
	virtual std::string name() const = 0;
	/* How it writes, for the output. */
	virtual const char *how() const = 0;
	virtual void take(int dmabuf, std::uint64_t bytes) = 0;
	virtual void write(const std::vector<std::uint8_t> &src) = 0;
};

/* vcompute_edu: imports the dma-buf for DMA and writes by bus address. */
class EduNic : public Nic {
public:
	explicit EduNic(std::string path)
		: path_(std::move(path)), fd_(open(path_.c_str(), O_RDWR | O_CLOEXEC))
	{
		if (fd_.fd < 0)
			throw onenode::error(-errno, "open " + path_);
	}
	std::string name() const override { return path_; }
	const char *how() const override { return "by DMA"; }
	void take(int dmabuf, std::uint64_t) override
	{
		vcompute_edu_import imp{ dmabuf, 0 };
		if (ioctl(fd_.fd, VCOMPUTE_EDU_IOCTL_IMPORT, &imp))
			throw onenode::error(-errno, path_ + ": import the dma-buf");
	}
	void write(const std::vector<std::uint8_t> &src) override
	{
		vcompute_edu_write w{};
		w.size = src.size();
		w.data = reinterpret_cast<std::uintptr_t>(src.data());
		if (ioctl(fd_.fd, VCOMPUTE_EDU_IOCTL_WRITE, &w))
			throw onenode::error(-errno, path_ + ": DMA write");
	}

private:
	std::string path_;
	Fd fd_;
};

/* An RDMA device: the dma-buf is a memory region, a peer RDMA-WRITEs it. */
class RdmaNic : public Nic {
public:
	explicit RdmaNic(const char *dev)
	{
		onenode_rdma *r = nullptr;
		onenode::check(onenode_rdma_open(dev, &r),
			       std::string("open the RDMA device ") + (dev ? dev : "(first)"));
		loop_.reset(r);
	}
	~RdmaNic() override
	{
		if (dst_)
			ibv_dereg_mr(dst_);
		if (src_)
			ibv_dereg_mr(src_);
	}
	std::string name() const override { return onenode_rdma_name(loop_.get()); }
	const char *how() const override { return "by RDMA WRITE"; }
	void take(int dmabuf, std::uint64_t bytes) override
	{
		onenode::check(onenode_rdma_reg_dmabuf(loop_.get(), dmabuf, 0, bytes, &dst_),
			       name() + ": ibv_reg_dmabuf_mr");
	}
	void write(const std::vector<std::uint8_t> &src) override
	{
		/* The peer's packets, in its own registered host memory. */
		src_ = ibv_reg_mr(onenode_rdma_pd(loop_.get()),
				  const_cast<std::uint8_t *>(src.data()), src.size(),
				  IBV_ACCESS_LOCAL_WRITE);
		if (!src_)
			throw onenode::error(-errno, name() + ": ibv_reg_mr");
		int ret = onenode_rdma_write(loop_.get(), src_, 0, dst_, 0, src.size(),
					     packet_bytes);
		if (ret)
			throw onenode::error(ret, name() + ": RDMA WRITE (" +
					     onenode_rdma_last_status(loop_.get()) + ")");
	}

private:
	struct Close {
		void operator()(onenode_rdma *r) const { onenode_rdma_close(r); }
	};
	std::unique_ptr<onenode_rdma, Close> loop_;
	ibv_mr *dst_ = nullptr, *src_ = nullptr;
};

/* The NICs to use: --nic's, else every edu and the first RDMA device. */
std::vector<std::unique_ptr<Nic>> nics(const options &opt)
{
	std::vector<std::unique_ptr<Nic>> out;
	std::vector<std::string> edus;

	if (!opt.nic.empty()) {
		if (opt.nic.rfind("/dev/", 0) == 0)
			out.push_back(std::make_unique<EduNic>(opt.nic));
		else
			out.push_back(std::make_unique<RdmaNic>(opt.nic.c_str()));
		return out;
	}
	for (const auto &e : std::filesystem::directory_iterator("/dev"))
		if (e.path().filename().string().rfind("vcompute-edu-", 0) == 0)
			edus.push_back(e.path().string());
	std::sort(edus.begin(), edus.end());
	for (const auto &e : edus)
		out.push_back(std::make_unique<EduNic>(e));
	try {
		out.push_back(std::make_unique<RdmaNic>(nullptr));
	} catch (const onenode::error &e) {
		if (e.code() != -ENODEV)
			throw;
		say("  (no RDMA device: the RDMA path is not run)\n");
	}
	return out;
}

std::string report_text(onenode::Device &dev, std::uint32_t handle)
{
	drm_compute_p2p_attachment att[4] = {};
	drm_compute_p2p_report rep;

	onenode::check(onenode_p2p_report(dev.get(), handle, &rep, att, 4), "P2P report");
	std::string s = std::format("the buffer is in {} memory",
				    rep.placement == DRM_COMPUTE_PLACEMENT_VRAM ? "device" : "system");
	if (rep.moves)
		s += std::format(" (moved for {}: {})", rep.decided_by,
				 onenode_p2p_reason_name(rep.reason));
	for (std::uint32_t i = 0; i < rep.count && i < 4; i++)
		s += std::format("; importer {} maps it {} ({})", att[i].importer,
				 att[i].map == DRM_COMPUTE_P2P_MAP_PEER ? "peer-to-peer" : "in host memory",
				 onenode_p2p_reason_name(att[i].reason));
	if (rep.kernel_maps)
		s += std::format("; {} kernel mapping{} reach{} it with the CPU where it lies",
				 rep.kernel_maps, rep.kernel_maps > 1 ? "s" : "",
				 rep.kernel_maps > 1 ? "" : "es");
	return s;
}

/* One NIC's ingest; the number of bad packets. */
int ingest(onenode::Device &gpu, Nic &nic, const options &opt)
{
	const std::uint64_t bytes = opt.packets * packet_bytes;
	auto t = std::chrono::steady_clock::now();

	/* 1. GPU memory made for export, and its dma-buf. */
	onenode::Bo buf(gpu, bytes, DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_BO_EXPORT_PREFER_P2P);
	int dmabuf = -1;
	if (drmPrimeHandleToFD(gpu.fd(), buf.handle(), DRM_CLOEXEC | DRM_RDWR, &dmabuf))
		throw onenode::error(-errno, "export the buffer as a dma-buf");
	Fd dmabuf_fd(dmabuf);

	/* 2. The NIC takes it; the kernel decides and reports. */
	nic.take(dmabuf_fd.fd, bytes);
	say(std::format("  {}: {}\n", nic.name(), report_text(gpu, buf.handle())));

	/* 3. The NIC writes the packets. */
	std::vector<std::uint8_t> src(bytes);
	std::uint64_t x = 0x6e69632d696e67ULL;
	for (auto &b : src) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		b = static_cast<std::uint8_t>(x >> 56);
	}
	auto tw = std::chrono::steady_clock::now();
	nic.write(src);
	double write_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tw).count();

	/* 4. A queue checksums every packet where it lies. */
	onenode::Vm vm(gpu);
	onenode::Bo crcs(gpu, 4096 * ((opt.packets * 4 + 4095) / 4096), DRM_COMPUTE_PLACEMENT_SYSTEM);
	vm.map(buf, buf_va);
	vm.map(crcs, crc_va);
	onenode::Queue q(gpu, vm, 1ULL << 28);
	std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	for (std::uint64_t i = 0; i < opt.packets; i++)
		q.emit(pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_CRC32C, packet_bytes, 0,
						 buf_va + i * packet_bytes, crc_va + i * 4, 0));
	std::uint64_t v = q.fence();
	q.commit();
	if (!q.wait(v, wait_ns))
		throw onenode::error(-EIO, std::format("queue {}: {}", q.id(),
						       onenode_status_name(q.state().status)));

	int bad = 0;
	const std::uint32_t *got = crcs.data<std::uint32_t>();
	for (std::uint64_t i = 0; i < opt.packets; i++)
		bad += got[i] != onenode_crc32c(0, src.data() + i * packet_bytes, packet_bytes);
	bool bytes_ok = !std::memcmp(buf.data<std::uint8_t>(), src.data(), bytes);
	say(std::format("  {} packets {} in {:.0f} ms; CRC-32C on the queue: {} of {} match; "
			"every byte {}; {:.0f} ms in all\n", opt.packets, nic.how(), write_ms,
			opt.packets - bad, opt.packets, bytes_ok ? "intact" : "DIFFERENT",
			std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count()));
	return bad + !bytes_ok;
}

} // namespace

int main(int argc, char **argv)
{
	options opt;
	int ret = parse(argc, argv, opt);

	if (ret)
		return ret < 0 ? 0 : 2;
	std::optional<onenode::Device> gpu;
	std::vector<std::unique_ptr<Nic>> list;
	try {
		gpu.emplace(open_gpu(opt));
		list = nics(opt);
	} catch (const onenode::error &e) {
		std::fputs(std::format("onenode-nic-ingest: {}\n", e.what()).c_str(), stderr);
		return e.code() == -ENOENT && opt.device.empty() ? 77 : 1;
	} catch (const std::filesystem::filesystem_error &e) {
		std::fputs(std::format("onenode-nic-ingest: {}\n", e.what()).c_str(), stderr);
		return 1;
	}
	if (list.empty()) {
		std::fputs("onenode-nic-ingest: no NIC (/dev/vcompute-edu-*, RDMA device)\n", stderr);
		return 77;
	}
	say(std::format("onenode-nic-ingest: GPU {} ({}, {} MiB of device memory in a BAR), {} "
			"packets of {} bytes\n", gpu->path(), gpu->driver(),
			gpu->query_device().vram_bar_size >> 20, opt.packets, packet_bytes));
	int bad = 0;
	try {
		for (const auto &nic : list)
			bad += ingest(*gpu, *nic, opt);
	} catch (const onenode::error &e) {
		std::fputs(std::format("onenode-nic-ingest: {}\n", e.what()).c_str(), stderr);
		return 1;
	}
	say(bad ? "onenode-nic-ingest: FAILED\n" : "onenode-nic-ingest: every packet intact\n");
	return bad ? 1 : 0;
}
