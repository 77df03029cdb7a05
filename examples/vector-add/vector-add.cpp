// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-vector-add: c = a + b on a compute render node, submitted by
 * doorbell to a user queue, without a system call per submission.
 *
 * It opens the first render node whose DEVICE report has user queues
 * (vcompute in the VM; --device PATH to choose), allocates a, b and two
 * outputs in VRAM, binds them in a GPU VM, fills a and b through CPU
 * mappings and creates a queue. Then:
 *  1. DISPATCH VADD_U32 (a, b -> c) and a FENCE, waited with USERQ_WAIT on
 *     the queue's user fence;
 *  2. DISPATCH VADD_F32 (the same bits as floats -> d) and a FENCE, waited
 *     through a DRM timeline syncobj: USERQ_SIGNAL asks the kernel to add
 *     point 1 when the fence is reached, and drmSyncobjTimelineWait() with
 *     WAIT_FOR_SUBMIT sleeps until then.
 * Every element is checked: u32 sums exactly, f32 sums bit for bit against
 * the CPU's own float addition of the same inputs (a NaN sum only has to be
 * a NaN). The inputs include denormals, infinities, NaNs, overflows and
 * sums that round.
 *
 * Exit status: 0 when every element matches, 1 on a mismatch or error, 2
 * on a usage error, 77 when no render node has user queues.
 */
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <cstring>
#include <format>
#include <string>
#include <string_view>

#include <time.h>
#include <xf86drm.h>

#include "onenode.hpp"
#include "onenode_vcompute.h"

namespace {

constexpr std::int64_t wait_ns = 300LL * 1000 * 1000 * 1000; // TCG with KASAN is slow
constexpr std::uint64_t timeline_point = 1;

struct options {
	std::string device;
	std::uint64_t n = 1000000;
};

constexpr std::string_view usage_text =
	"usage: onenode-vector-add [--device PATH] [--n ELEMENTS]\n"
	"\n"
	"Add two vectors on a compute render node through a doorbell user queue.\n"
	"  --device PATH  use the DRM node at PATH (default: the first render node\n"
	"                 with user queues in $" ONENODE_DRI_DIR_ENV " or " ONENODE_DEFAULT_DRI_DIR ")\n"
	"  --n ELEMENTS   vector length (default 1000000)\n";

void say(const std::string &s)
{
	std::fputs(s.c_str(), stdout);
	std::fflush(stdout);
}

/* Returns -1 to exit with success (--help), 1 on a usage error, 0 to run. */
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
		} else if (arg == "--n" && has_value) {
			char *end;
			opt.n = std::strtoull(argv[++i], &end, 10);
			if (*end || opt.n == 0 || opt.n > (1ULL << 28)) {
				std::fputs("onenode-vector-add: --n takes 1 to 268435456\n", stderr);
				return 1;
			}
		} else {
			std::fputs(std::format("onenode-vector-add: bad argument '{}'\n", arg).c_str(),
				   stderr);
			return 1;
		}
	}
	return 0;
}

/* splitmix64: a small, fixed generator, so every run checks the same inputs. */
struct rng {
	std::uint64_t s = 0x6f6e656e6f6465ULL;
	std::uint64_t next()
	{
		std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	std::uint32_t u32() { return static_cast<std::uint32_t>(next() >> 32); }
};

constexpr std::uint32_t f32(std::uint32_t sign, std::uint32_t exp, std::uint32_t frac)
{
	return sign << 31 | (exp & 0xff) << 23 | (frac & 0x7fffff);
}

/*
 * Element @i of a and b. One element in 16 of each kind below; the rest are
 * random bit patterns (every class of float, and u32 sums that wrap).
 */
void make_inputs(rng &r, std::uint64_t i, std::uint32_t &a, std::uint32_t &b)
{
	std::uint32_t x = r.u32(), y = r.u32();
	std::uint32_t ea = 1 + (x >> 8) % 253;

	switch (i % 16) {
	case 0: // two denormals: a denormal or the smallest normals
		a = f32(x & 1, 0, x | 1);
		b = f32(y & 1, 0, y | 1);
		break;
	case 1: // infinity plus a finite value
		a = f32(x & 1, 0xff, 0);
		b = f32(y & 1, 1 + y % 254, y >> 9);
		break;
	case 2: // normals a few binades apart: the sum rounds
		a = f32(x & 1, ea, x >> 9);
		b = f32(y & 1, ea > 20 ? ea - y % 20 : ea, y >> 9);
		break;
	case 3: // near the largest float, same sign: overflow to infinity
		a = f32(x & 1, 254, x >> 9);
		b = f32(x & 1, 254, y >> 9);
		break;
	case 4: // x + -x: an exact zero
		a = x;
		b = x ^ 0x80000000u;
		if ((a & 0x7f800000u) == 0x7f800000u)
			a = b = 0;
		break;
	case 5: // inf - inf: the default NaN
		a = f32(0, 0xff, 0);
		b = f32(1, 0xff, 0);
		break;
	case 6: // a NaN operand, quiet or signalling
		a = f32(x & 1, 0xff, x | 1);
		b = y;
		break;
	case 7: // a denormal plus a small normal
		a = f32(x & 1, 0, x >> 9);
		b = f32(y & 1, 1 + y % 24, y >> 9);
		break;
	default:
		a = x;
		b = y;
	}
}

/* What the inputs covered, to show (and check) that each kind occurred. */
struct coverage {
	std::uint64_t denormal_inputs = 0, infinite_inputs = 0, nan_inputs = 0;
	std::uint64_t rounded = 0, overflowed = 0, denormal_sums = 0, nan_sums = 0;
	std::uint64_t u32_wraps = 0;

	void count(std::uint32_t a, std::uint32_t b, float fa, float fb, float sum)
	{
		for (float v : { fa, fb }) {
			denormal_inputs += std::fpclassify(v) == FP_SUBNORMAL;
			infinite_inputs += std::isinf(v);
			nan_inputs += std::isnan(v);
		}
		if (std::isfinite(fa) && std::isfinite(fb)) {
			rounded += std::isfinite(sum) &&
				   static_cast<double>(fa) + fb != static_cast<double>(sum);
			overflowed += std::isinf(sum);
		}
		denormal_sums += std::fpclassify(sum) == FP_SUBNORMAL;
		nan_sums += std::isnan(sum);
		u32_wraps += static_cast<std::uint32_t>(a + b) < a;
	}
};

/* Compares the device's outputs with the CPU's sums; 0 mismatches is a pass. */
struct checker {
	std::uint64_t u32_bad = 0, f32_bad = 0;
	coverage cov;

	void check(std::uint64_t i, std::uint32_t a, std::uint32_t b, std::uint32_t c,
		   std::uint32_t d)
	{
		float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
		float sum = fa + fb;
		std::uint32_t want = std::bit_cast<std::uint32_t>(sum);
		bool f32_ok = std::isnan(sum) ? std::isnan(std::bit_cast<float>(d)) : d == want;

		cov.count(a, b, fa, fb, sum);
		if (c != static_cast<std::uint32_t>(a + b) && u32_bad++ < 5)
			say(std::format("  u32 [{}]: {:#010x} + {:#010x} = {:#010x}, device {:#010x}\n",
					i, a, b, static_cast<std::uint32_t>(a + b), c));
		if (!f32_ok && f32_bad++ < 5)
			say(std::format("  f32 [{}]: {:#010x} + {:#010x} = {:#010x} ({} + {} = {}), "
					"device {:#010x}\n", i, a, b, want, fa, fb, sum, d));
	}
};

std::uint64_t align_up(std::uint64_t v, std::uint64_t a)
{
	return (v + a - 1) / a * a;
}

double ms_since(std::chrono::steady_clock::time_point t)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::int64_t monotonic_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

onenode::Device open_device(const options &opt)
{
	if (opt.device.empty())
		return onenode::Device::open_with_features(DRM_COMPUTE_FEATURE_USERQ);
	onenode::Device dev = onenode::Device::open_path(opt.device);
	if (!(dev.query_device().features & DRM_COMPUTE_FEATURE_USERQ))
		throw onenode::error(-EOPNOTSUPP, opt.device + " (" + dev.driver() +
				     ") has no user queues");
	return dev;
}

/* A DRM timeline syncobj, destroyed with its owner. */
struct syncobj {
	int fd;
	std::uint32_t handle = 0;
	explicit syncobj(int drm_fd) : fd(drm_fd)
	{
		if (drmSyncobjCreate(fd, 0, &handle))
			throw onenode::error(-errno, "drmSyncobjCreate");
	}
	syncobj(const syncobj &) = delete;
	syncobj &operator=(const syncobj &) = delete;
	~syncobj() { drmSyncobjDestroy(fd, handle); }
};

/* Step 1: VADD_U32, waited on the user fence (USERQ_WAIT). */
double run_u32(onenode::Queue &q, std::uint64_t n, std::uint64_t a, std::uint64_t b,
	       std::uint64_t c)
{
	std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	auto t = std::chrono::steady_clock::now();

	q.emit(pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, n, 0, a, b, c));
	std::uint64_t v = q.fence();
	q.commit();
	if (!q.wait(v, wait_ns))
		throw onenode::error(-ETIME, std::format("VADD_U32: fence {} not reached", v));
	double ms = ms_since(t);
	say(std::format("VADD_U32: {:.1f} ms, waited with USERQ_WAIT on fence {}\n", ms, v));
	return ms;
}

/* Step 2: VADD_F32, waited through a timeline syncobj (USERQ_SIGNAL). */
double run_f32(onenode::Device &dev, onenode::Queue &q, std::uint64_t n, std::uint64_t a,
	       std::uint64_t b, std::uint64_t d)
{
	std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS], point = timeline_point, got = 0;
	auto t = std::chrono::steady_clock::now();
	syncobj sync(dev.fd());

	q.emit(pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_F32, n, 0, a, b, d));
	std::uint64_t v = q.fence();
	q.signal(v, sync.handle, point);
	q.commit();
	if (drmSyncobjTimelineWait(dev.fd(), &sync.handle, &point, 1, monotonic_ns() + wait_ns,
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, nullptr))
		throw onenode::error(-errno, std::format("timeline wait for point {}", point));
	double ms = ms_since(t);
	if (drmSyncobjQuery(dev.fd(), &sync.handle, &got, 1))
		throw onenode::error(-errno, "drmSyncobjQuery");
	/* A dead queue signals its points too (with an error): ask the queue. */
	drm_compute_userq_state st = q.state();
	if (st.fence < v || st.status != DRM_COMPUTE_USERQ_STATUS_IDLE)
		throw onenode::error(-EIO, std::format("queue {} after the point: fence {}, {} ({})",
						       q.id(), st.fence,
						       onenode_status_name(st.status),
						       onenode_fault_name(st.fault_reason)));
	say(std::format("VADD_F32: {:.1f} ms, waited on timeline syncobj point {} (now {}), "
			"signaled at fence {}\n", ms, point, got, v));
	return ms;
}

int run(onenode::Device &dev, const options &opt)
{
	drm_compute_query_device info = dev.query_device();
	std::uint64_t bytes = align_up(opt.n * 4, info.page_size);
	std::uint64_t stride = align_up(bytes, 2 << 20), va = align_up(info.va_start, 2 << 20);

	say(std::format("onenode-vector-add: {} ({} {}.{}.{}), {} elements, 4 x {} KiB in VRAM\n",
			dev.path(), dev.driver(), dev.raw().version_major, dev.raw().version_minor,
			dev.raw().version_patchlevel, opt.n, bytes >> 10));
	if (4 * bytes > info.vram_size)
		throw onenode::error(-ENOSPC, std::format("{} bytes of VRAM", info.vram_size));

	onenode::Vm vm(dev);
	onenode::Bo a(dev, bytes, DRM_COMPUTE_PLACEMENT_VRAM), b(dev, bytes, DRM_COMPUTE_PLACEMENT_VRAM);
	onenode::Bo c(dev, bytes, DRM_COMPUTE_PLACEMENT_VRAM), d(dev, bytes, DRM_COMPUTE_PLACEMENT_VRAM);
	const std::uint64_t va_a = va, va_b = va + stride, va_c = va + 2 * stride;
	const std::uint64_t va_d = va + 3 * stride, va_q = va + 4 * stride;
	vm.map(a, va_a, DRM_COMPUTE_VM_BIND_READONLY | DRM_COMPUTE_VM_BIND_NOEXEC);
	vm.map(b, va_b, DRM_COMPUTE_VM_BIND_READONLY | DRM_COMPUTE_VM_BIND_NOEXEC);
	vm.map(c, va_c, DRM_COMPUTE_VM_BIND_NOEXEC);
	vm.map(d, va_d, DRM_COMPUTE_VM_BIND_NOEXEC);

	auto t = std::chrono::steady_clock::now();
	rng r;
	std::uint32_t *pa = a.data<std::uint32_t>(), *pb = b.data<std::uint32_t>();
	for (std::uint64_t i = 0; i < opt.n; i++)
		make_inputs(r, i, pa[i], pb[i]);
	say(std::format("filled a and b through CPU mappings: {:.1f} ms\n", ms_since(t)));

	onenode::Queue q(dev, vm, va_q);
	drm_compute_userq_state st = q.state();
	say(std::format("queue {}: priority {}, {} KiB ring at {:#x}, doorbell at user address {}\n",
			q.id(), st.priority, q.raw().ring_size >> 10, q.raw().ring_va,
			static_cast<const void *>(q.raw().doorbell)));

	run_u32(q, opt.n, va_a, va_b, va_c);
	run_f32(dev, q, opt.n, va_a, va_b, va_d);
	say(std::format("doorbell wake-ups needed (device idle at commit): {}\n", q.wakeups()));

	t = std::chrono::steady_clock::now();
	checker chk;
	const std::uint32_t *pc = c.data<std::uint32_t>(), *pd = d.data<std::uint32_t>();
	for (std::uint64_t i = 0; i < opt.n; i++)
		chk.check(i, pa[i], pb[i], pc[i], pd[i]);
	const coverage &cv = chk.cov;
	say(std::format("inputs: {} denormal, {} infinite, {} NaN operands; sums: {} rounded, "
			"{} overflowed, {} denormal, {} NaN; {} u32 sums wrapped\n",
			cv.denormal_inputs, cv.infinite_inputs, cv.nan_inputs, cv.rounded,
			cv.overflowed, cv.denormal_sums, cv.nan_sums, cv.u32_wraps));
	say(std::format("verified in {:.1f} ms: u32 {} of {} exact, f32 {} of {} bit-exact "
			"(NaN sums as NaN)\n", ms_since(t), opt.n - chk.u32_bad, opt.n,
			opt.n - chk.f32_bad, opt.n));
	bool covered = opt.n < 16 || (cv.denormal_inputs && cv.infinite_inputs && cv.rounded &&
				      cv.overflowed && cv.nan_sums);
	if (!covered)
		say("FAIL: the inputs missed a kind of float they are meant to cover\n");
	bool pass = !chk.u32_bad && !chk.f32_bad && covered;
	say(pass ? "PASS\n" : "FAIL\n");
	return pass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
	options opt;
	int ret = parse(argc, argv, opt);

	if (ret)
		return ret < 0 ? 0 : 2;
	std::optional<onenode::Device> dev;
	try {
		dev.emplace(open_device(opt));
	} catch (const onenode::error &e) {
		std::fputs(std::format("onenode-vector-add: {}\n", e.what()).c_str(), stderr);
		/* No device with user queues: a skip for the test suite. */
		return e.code() == -ENOENT && opt.device.empty() ? 77 : 1;
	}
	try {
		return run(*dev, opt);
	} catch (const onenode::error &e) {
		std::fputs(std::format("onenode-vector-add: {}\n", e.what()).c_str(), stderr);
		return 1;
	}
}
