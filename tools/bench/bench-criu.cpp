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
 *    (DRM_COMPUTE_CRIU_CKPT_READ_BO, as the CRIU plugin reads them, in
 *    2 MiB pieces since it double-buffers) into
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
 *
 * With --downtime LIBDIR (the directory of criu_plugin_onenode.so), the
 * process's downtime instead: a holder process (this program, --hold)
 * keeps --mib MiB either in a device-memory buffer it mapped, or in
 * ordinary anonymous memory, filled with a pattern; criu dump (which kills
 * it) then criu restore -d of it, timed from the dump's start to the
 * restored process running, and the holder checks every byte once woken.
 * The two kinds alternate, after one round of each that is not counted
 * (the first criu run of a boot is slower); the ratio is the anonymous
 * memory's downtime over the device memory's: what CRIU itself takes for
 * the same bytes against what the render node adds (goal >= 0.8). criu runs
 * at -v3 for both kinds, so that the plugin's own time for the contents
 * (its "bytes of contents in X s" lines) is printed beside the total.
 */

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	/* --downtime: where criu finds the plugin; empty for the copy bench. */
	std::string libdir;
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

/*
 * The holder (--hold KIND MIB DIR): MIB MiB in a mapped VRAM buffer
 * (KIND "device") or anonymous memory ("anon"), filled; DIR/ready once
 * done; on SIGUSR1 (after the restore) every byte checked, DIR/result
 * says PASS or FAIL.
 */
volatile sig_atomic_t woken;

int hold(std::string_view kind, uint64_t mib, const std::string &dir)
{
	const uint64_t size = mib << 20;
	onenode_device dev{};
	uint8_t *p;

	signal(SIGUSR1, [](int) { woken = 1; });
	if (kind == "device") {
		uint32_t bo;

		check("open", onenode_open_driver("vcompute", nullptr, &dev));
		check("BO_CREATE", onenode_bo_create(&dev, size, DRM_COMPUTE_PLACEMENT_VRAM, &bo));
		p = static_cast<uint8_t *>(map_bo(&dev, bo, size));
	} else {
		void *m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (m == MAP_FAILED)
			die("mmap", -errno);
		p = static_cast<uint8_t *>(m);
	}
	for (uint64_t i = 0; i < size; i++)
		p[i] = pattern(i);
	FILE *f = std::fopen((dir + "/ready").c_str(), "w");
	if (!f)
		return 1;
	std::fclose(f);
	while (!woken)
		pause();
	uint64_t bad = 0, first = size;
	for (uint64_t i = 0; i < size; i++) {
		if (p[i] != pattern(i)) {
			first = std::min(first, i);
			bad++;
		}
	}
	/* Written aside and renamed: the bench reads it as soon as it exists. */
	f = std::fopen((dir + "/result.part").c_str(), "w");
	if (!f)
		return 1;
	if (bad)
		std::fprintf(f, "FAIL: %llu bytes differ, the first at %#llx (%#x, not %#x)\n",
			     static_cast<unsigned long long>(bad),
			     static_cast<unsigned long long>(first), p[first], pattern(first));
	else
		std::fputs("PASS\n", f);
	if (std::fclose(f) || rename((dir + "/result.part").c_str(), (dir + "/result").c_str()))
		return 1;
	return bad ? 1 : 0;
}

/* Wait up to @secs for @path to appear. */
bool wait_for(const std::string &path, double secs)
{
	auto t0 = clk::now();

	while (!std::filesystem::exists(path)) {
		if (seconds_since(t0) > secs)
			return false;
		usleep(10000);
	}
	return true;
}

int shell(const std::string &cmd)
{
	int st = std::system(cmd.c_str());

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * The seconds the plugin logged for a buffer's contents ("... bytes of
 * contents in X s"), summed over the files of one criu log: its part of
 * the downtime. 0 without such a line (anonymous memory).
 */
double plugin_seconds(const std::string &log)
{
	static constexpr std::string_view key = "bytes of contents in ";
	std::ifstream in(log);
	std::string line;
	double sum = 0;

	while (std::getline(in, line)) {
		auto at = line.find(key);
		if (at != line.npos)
			sum += std::strtod(line.c_str() + at + key.size(), nullptr);
	}
	return sum;
}

struct Round {
	double total;		/* from the dump's start to the restored process running */
	double dump;		/* criu dump, until it exited */
	double plugin_dump;	/* of which the plugin saving contents */
	double plugin_restore;	/* of the restore: the plugin filling buffers */
	uint64_t image_bytes;
};

/* One dump and restore of a fresh holder of @kind. */
Round downtime_round(const char *self, const char *kind, uint64_t mib, const Options &opt)
{
	char tmpl[] = "/tmp/onenode-bench-criu-XXXXXX";
	const std::string dir = mkdtemp(tmpl) ? tmpl : "", img = dir + "/img";
	const std::string m = std::to_string(mib);
	Round res{};

	if (dir.empty() || mkdir(img.c_str(), 0700))
		die("mkdtemp", -errno);
	std::fflush(nullptr);
	pid_t pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (!pid) {
		/* Nothing of ours: criu would have to restore our pipes. */
		int null = open("/dev/null", O_RDWR);
		int out = open((dir + "/holder.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(null, 0);
		dup2(out, 1);
		dup2(out, 2);
		for (int fd = 3; fd < 256; fd++)
			close(fd);
		execl("/proc/self/exe", self, "--hold", kind, m.c_str(), dir.c_str(), nullptr);
		_exit(127);
	}
	if (!wait_for(dir + "/ready", 300)) {
		kill(pid, SIGKILL);
		std::fprintf(stderr, "bench-criu: the %s holder never got ready\n", kind);
		std::exit(1);
	}
	/* -v3: the plugin's info lines, with its own timings, for both kinds. */
	const std::string criu = " -D " + img + " --shell-job --libdir " + opt.libdir + " -v3";
	const std::string quiet = " >" + dir + "/criu.out 2>&1";
	auto t0 = clk::now();
	int rc = shell("timeout 600 criu dump -t " + std::to_string(pid) + criu + " -o dump.log" +
		       quiet);
	waitpid(pid, nullptr, 0);
	res.dump = seconds_since(t0);
	if (rc == 0)
		rc = shell("timeout 600 criu restore -d" + criu + " -o restore.log --pidfile " + dir +
			   "/pid" + quiet);
	res.total = seconds_since(t0);
	if (rc) {
		std::fprintf(stderr, "bench-criu: criu failed (%d) for the %s holder; logs in %s\n",
			     rc, kind, img.c_str());
		std::exit(1);
	}
	FILE *f = std::fopen((dir + "/pid").c_str(), "r");
	int restored = 0;
	if (!f || std::fscanf(f, "%d", &restored) != 1 || restored <= 0) {
		std::fprintf(stderr, "bench-criu: no restored pid in %s\n", dir.c_str());
		std::exit(1);
	}
	std::fclose(f);
	for (const auto &e : std::filesystem::recursive_directory_iterator(img))
		if (e.is_regular_file())
			res.image_bytes += e.file_size();
	res.plugin_dump = plugin_seconds(img + "/dump.log");
	res.plugin_restore = plugin_seconds(img + "/restore.log");
	kill(restored, SIGUSR1);
	std::string verdict;
	if (wait_for(dir + "/result", 300))
		std::getline(std::ifstream(dir + "/result"), verdict);
	if (verdict != "PASS") {
		kill(restored, SIGKILL);
		std::fprintf(stderr, "bench-criu: the restored %s holder found its memory changed: "
			     "%s; logs in %s\n", kind, verdict.empty() ? "no verdict" : verdict.c_str(),
			     img.c_str());
		std::exit(1);
	}
	std::filesystem::remove_all(dir);
	return res;
}

void downtime(const char *self, const Options &opt)
{
	std::printf("onenode-bench-criu --downtime: criu dump + restore -d of a process holding "
		    "the bytes, %u rounds, medians; ratio = anonymous memory's downtime / "
		    "device memory's (>= 0.8 is the goal); \"plugin\": the plugin's copy of the "
		    "contents, dump + restore\n", opt.rounds);
	for (uint64_t mib : opt.mib) {
		std::vector<double> dev, anon, dev_dump, anon_dump, plugin;
		Round d{}, a{};

		/* One round of each first, not counted: criu's and the plugin's first run. */
		downtime_round(self, "device", mib, opt);
		downtime_round(self, "anon", mib, opt);
		for (unsigned r = 0; r < opt.rounds; r++) {
			d = downtime_round(self, "device", mib, opt);
			a = downtime_round(self, "anon", mib, opt);
			dev.push_back(d.total);
			dev_dump.push_back(d.dump);
			plugin.push_back(d.plugin_dump + d.plugin_restore);
			anon.push_back(a.total);
			anon_dump.push_back(a.dump);
			std::printf("%5llu MiB | round %u: device memory %.2f s (dump %.2f s; plugin "
				    "%.2f s + %.2f s), anonymous memory %.2f s (dump %.2f s)\n",
				    static_cast<unsigned long long>(mib), r + 1, d.total, d.dump,
				    d.plugin_dump, d.plugin_restore, a.total, a.dump);
			std::fflush(stdout);
		}
		double dm = median(dev), am = median(anon);
		std::printf("%5llu MiB | device memory %7.2f s (image %llu MiB; dump %.2f s; plugin "
			    "%.2f s) | anonymous memory %7.2f s (image %llu MiB; dump %.2f s) | "
			    "ratio %.2f\n", static_cast<unsigned long long>(mib), dm,
			    static_cast<unsigned long long>(d.image_bytes >> 20), median(dev_dump),
			    median(plugin), am, static_cast<unsigned long long>(a.image_bytes >> 20),
			    median(anon_dump), am / dm);
		std::fflush(stdout);
	}
}

} // namespace

int main(int argc, char **argv)
{
	Options opt;

	if (argc == 5 && std::string_view(argv[1]) == "--hold")
		return hold(argv[2], std::strtoull(argv[3], nullptr, 10), argv[4]);

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
		} else if (a == "--downtime" && i + 1 < argc) {
			opt.libdir = argv[++i];
		} else {
			std::fputs("usage: onenode-bench-criu [--mib N,N,...] [--rounds N] "
				   "[--downtime PLUGIN_DIR]\n", stderr);
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
	if (!opt.libdir.empty()) {
		if (std::ranges::any_of(opt.mib, [&](uint64_t m) { return (m << 21) > q.vram_size; })) {
			std::fputs("bench-criu: --downtime needs twice each size in device memory\n",
				   stderr);
			return 2;
		}
		downtime(argv[0], opt);
		return 0;
	}

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
