// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-bench-criu: the checkpoint/restore copy of device memory against
 * memcpy() of the same bytes, measured side by side in one run (absolute
 * numbers under TCG mean little; ratios do).
 *
 * For each size and placement, one buffer filled with a pattern:
 *  - dump: the file paused, the buffer's bytes read in 8 MiB pieces
 *    (DRM_COMPUTE_CRIU_CKPT_READ_BO, as the CRIU plugin reads them) into
 *    one 8 MiB buffer of the process; against memcpy() of as many bytes
 *    from a buffer of the process into the same 8 MiB buffer;
 *  - restore: a fresh file in the restoring state, the buffer created
 *    (DRM_COMPUTE_CRIU_RESTORE_BOS) and filled in 8 MiB pieces
 *    (WRITE_BO); against mapping fresh anonymous memory of the same size
 *    and memcpy() of the bytes into it, so that both sides allocate and
 *    zero their pages.
 * Rounds alternate the two sides; the medians and their ratio are printed.
 * Every restored buffer is read back and compared. The image file's write
 * and read, and criu itself, are not in it: it measures the device-memory
 * path the kernel adds.
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
}

namespace {

using clk = std::chrono::steady_clock;

constexpr uint64_t chunk = 8ull << 20;

[[noreturn]] void die(const std::string &what, int err)
{
	std::fprintf(stderr, "bench-criu: %s: %s\n", what.c_str(), onenode_strerror(err));
	std::exit(1);
}

void check(const std::string &what, int err)
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

uint8_t pattern(uint64_t i)
{
	return static_cast<uint8_t>(i * 131 + (i >> 12));
}

struct Options {
	std::vector<uint64_t> mib = { 16, 64, 112, 256 };
	unsigned rounds = 5;
};

/* A file of the node: the device open once more, owned here. */
struct File {
	onenode_device dev{};

	explicit File(const char *path) { check("open", onenode_open_path(path, &dev)); }
	~File() { onenode_close(&dev); }
	File(const File &) = delete;
	File &operator=(const File &) = delete;
};

void *map_bo(const onenode_device *dev, uint32_t handle, uint64_t size)
{
	uint64_t off;

	check("BO_MMAP", onenode_bo_mmap_offset(dev, handle, &off));
	void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		       static_cast<off_t>(off));
	if (p == MAP_FAILED)
		die("mmap", -errno);
	return p;
}

double gbps(uint64_t bytes, double s)
{
	return static_cast<double>(bytes) / s / 1e9;
}

void run(const char *path, uint64_t placement, const char *pname, uint64_t mib,
	 const Options &opt)
{
	const uint64_t size = mib << 20;
	std::vector<double> dump, dump_memcpy, rest, rest_memcpy;
	std::vector<uint8_t> src(size), piece(chunk);
	File f(path);
	uint32_t h;

	for (uint64_t i = 0; i < size; i++)
		src[i] = pattern(i);
	check("BO_CREATE", onenode_bo_create(&f.dev, size, placement, &h));
	{
		auto *p = static_cast<uint8_t *>(map_bo(&f.dev, h, size));
		std::memcpy(p, src.data(), size);
		munmap(p, size);
	}
	check("pause", onenode_criu_pause(&f.dev, DRM_COMPUTE_CRIU_OP_PAUSE, nullptr));
	for (unsigned r = 0; r < opt.rounds; r++) {
		auto t0 = clk::now();
		for (uint64_t off = 0; off < size; off += chunk)
			check("READ_BO", onenode_criu_read_bo(&f.dev, h, off, piece.data(),
							      std::min(chunk, size - off)));
		dump.push_back(seconds_since(t0));
		const uint64_t last = (size - 1) / chunk * chunk;
		if (std::memcmp(piece.data(), src.data() + last, size - last))
			die("dump: the last piece read differs", -EIO);
		t0 = clk::now();
		for (uint64_t off = 0; off < size; off += chunk)
			std::memcpy(piece.data(), src.data() + off, std::min(chunk, size - off));
		dump_memcpy.push_back(seconds_since(t0));

		File g(path);
		drm_compute_criu_bo bo{};
		uint32_t n = 1;

		bo.handle = h;
		bo.size = size;
		bo.placement = placement;
		t0 = clk::now();
		check("RESTORE BEGIN", onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_BEGIN,
							    nullptr, nullptr));
		check("RESTORE BOS", onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_BOS, &bo,
							  &n));
		for (uint64_t off = 0; off < size; off += chunk)
			check("WRITE_BO", onenode_criu_write_bo(&g.dev, h, off, src.data() + off,
								std::min(chunk, size - off)));
		check("RESTORE END", onenode_criu_restore(&g.dev, DRM_COMPUTE_CRIU_RESTORE_END,
							  nullptr, nullptr));
		rest.push_back(seconds_since(t0));

		t0 = clk::now();
		void *dst = mmap(nullptr, size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (dst == MAP_FAILED)
			die("mmap", -errno);
		for (uint64_t off = 0; off < size; off += chunk)
			std::memcpy(static_cast<uint8_t *>(dst) + off, src.data() + off,
				    std::min(chunk, size - off));
		rest_memcpy.push_back(seconds_since(t0));
		munmap(dst, size);

		auto *p = static_cast<uint8_t *>(map_bo(&g.dev, h, size));
		bool same = !std::memcmp(p, src.data(), size);
		munmap(p, size);
		if (!same)
			die("restore: the restored buffer differs", -EIO);
	}
	check("resume", onenode_criu_pause(&f.dev, DRM_COMPUTE_CRIU_OP_RESUME, nullptr));

	const double d = median(dump), dm = median(dump_memcpy);
	const double r = median(rest), rm = median(rest_memcpy);
	std::printf("%-6s %5llu MiB | dump %7.2f GB/s  memcpy %7.2f GB/s  ratio %.2f | "
		    "restore %7.2f GB/s  memcpy %7.2f GB/s  ratio %.2f\n",
		    pname, static_cast<unsigned long long>(mib), gbps(size, d), gbps(size, dm),
		    dm / d, gbps(size, r), gbps(size, rm), rm / r);
}

} // namespace

int main(int argc, char **argv)
{
	Options opt;

	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];

		if (a == "--mib" && i + 1 < argc) {
			opt.mib.clear();
			for (std::string_view s = argv[++i]; !s.empty();) {
				auto comma = s.find(',');
				opt.mib.push_back(std::strtoull(std::string(s.substr(0, comma)).c_str(),
								nullptr, 10));
				s = comma == s.npos ? std::string_view() : s.substr(comma + 1);
			}
		} else if (a == "--rounds" && i + 1 < argc) {
			opt.rounds = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
		} else {
			std::fputs("usage: onenode-bench-criu [--mib N,N,...] [--rounds N]\n", stderr);
			return 2;
		}
	}
	if (!opt.rounds || opt.mib.empty() ||
	    std::ranges::any_of(opt.mib, [](uint64_t m) { return !m || m > 4096; })) {
		std::fputs("bench-criu: --mib takes sizes of 1 to 4096, --rounds at least 1\n", stderr);
		return 2;
	}

	onenode_device dev{};
	drm_compute_query_device q{};
	if (onenode_open_driver("vcompute", nullptr, &dev) || onenode_query_device(&dev, &q) ||
	    !(q.features & DRM_COMPUTE_FEATURE_CRIU)) {
		std::fputs("bench-criu: no vcompute node with DRM_COMPUTE_FEATURE_CRIU\n", stderr);
		return 77;
	}
	const std::string path = dev.path;
	onenode_close(&dev);

	std::printf("onenode-bench-criu: %s, %u rounds, medians; ratio = memcpy time / "
		    "device path time (>= 0.8 is the goal)\n", path.c_str(), opt.rounds);
	for (uint64_t mib : opt.mib) {
		for (uint64_t pl : { DRM_COMPUTE_PLACEMENT_VRAM, DRM_COMPUTE_PLACEMENT_SYSTEM }) {
			if (!(q.placements & pl))
				continue;
			/* The dumped buffer and the restored one live at once. */
			if (pl == DRM_COMPUTE_PLACEMENT_VRAM && (mib << 21) > q.vram_size / 8 * 7) {
				std::printf("vram   %5llu MiB | skipped: twice that is more than 7/8 of "
					    "the device's %llu MiB\n", static_cast<unsigned long long>(mib),
					    static_cast<unsigned long long>(q.vram_size >> 20));
				continue;
			}
			run(path.c_str(), pl, pl == DRM_COMPUTE_PLACEMENT_VRAM ? "vram" : "system", mib,
			    opt);
		}
	}
	return 0;
}
