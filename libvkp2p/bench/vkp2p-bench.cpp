// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// vkp2p-bench: what the layer costs and what NIC memory costs a shader,
// each measured side by side in one run and reported as ratios.
//
// 1. Per-call overhead: of intercepted entry points (vkAllocateMemory +
//    vkFreeMemory of plain memory, which the layer passes through when the
//    extension is enabled, and vkFreeMemory(VK_NULL_HANDLE), the dispatch
//    alone) and of one the layer does not intercept (vkCreateBuffer +
//    vkDestroyBuffer): no layer / layer loaded with the extension disabled
//    (the layer hands out the driver's pointers) / extension enabled. Rounds
//    alternate between the three so drift hits all alike.
// 2. Compute-shader read bandwidth: first the read shader's variants on
//    device-local memory (loads in flight per invocation, workgroups), the
//    best of which is the baseline and reads every other row; then plain
//    device-local memory, device-local host-visible memory (the same VRAM
//    through the CPU aperture: says nothing about a NIC), host memory, and
//    NIC memory from the layer under each policy and import path, as ratios
//    to device-local. Every source is filled first and every run's sums are
//    checked; a failed or wrong run fails the benchmark (exit 1) instead of
//    entering a result.
//
// A GPU left idle drops its clocks (an H100 ran the first rows at 345-420 MHz
// of 1980, reading ~1.8 TB/s instead of ~3.1): every bandwidth row therefore
// runs the same dispatches for --warm-ms of wall time before its timed runs,
// and --clock-cmd (a shell command printing the clocks, e.g. nvidia-smi's
// query) is sampled during the end of that warm-up and printed with the row.
//
// usage: vkp2p-bench [--size MiB] [--passes N] [--calls N] [--warm-ms N]
//                    [--clock-cmd CMD]
// The layer is found through VK_ADD_LAYER_PATH (bench/run.sh sets it).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ranges>
#include <string>
#include <vector>

#include "compute.hpp"
#include "nic_memory.hpp"
#include "vulkan/vk_onenode_nic_memory.h"

using namespace vkp2p_common;

namespace {

const uint32_t kReadSpv[] = {
#include "read_bandwidth.spv.inc"
};

double now_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct Options {
	size_t mib = 256;
	uint32_t passes = 8;
	uint32_t calls = 2000;
};

// How every bandwidth row warms the GPU up and reads its clock (--warm-ms,
// --clock-cmd): read by read_bandwidth(), whose callers are many.
struct Warm {
	uint32_t ms = 1000;
	std::string clock_cmd;
} warm;

// Starts the clock command; its output is read by clock_read() once the
// timed runs are over, so it samples the GPU while the row's work runs.
FILE *clock_start()
{
	return warm.clock_cmd.empty() ? nullptr : popen(warm.clock_cmd.c_str(), "r");
}

std::string clock_read(FILE *f)
{
	std::string text;
	char line[256];
	if (!f)
		return text;
	while (std::fgets(line, sizeof(line), f)) {
		std::string l(line);
		while (!l.empty() && (l.back() == '\n' || l.back() == '\r'))
			l.pop_back();
		text += (text.empty() ? "" : "; ") + l;
	}
	int status = pclose(f);
	if (status != 0)
		text += (text.empty() ? "" : "; ") + std::string("clock command failed");
	return text;
}

struct Instance {
	VkInstance instance = VK_NULL_HANDLE;
	VkPhysicalDevice phys = VK_NULL_HANDLE;
	uint32_t family = 0;

	bool create(bool with_layer)
	{
		VkApplicationInfo app{};
		app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
		app.pApplicationName = "vkp2p-bench";
		app.apiVersion = VK_API_VERSION_1_1;
		const char *layer = "VK_LAYER_ONENODE_vkp2p";
		VkInstanceCreateInfo ci{};
		ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
		ci.pApplicationInfo = &app;
		ci.enabledLayerCount = with_layer ? 1 : 0;
		ci.ppEnabledLayerNames = &layer;
		VkResult r = vkCreateInstance(&ci, nullptr, &instance);
		if (r != VK_SUCCESS) {
			std::fprintf(stderr, "vkp2p-bench: vkCreateInstance (%s layer): %d\n", with_layer ? "with" : "without",
				     r);
			return false;
		}
		uint32_t n = 1;
		r = vkEnumeratePhysicalDevices(instance, &n, &phys);
		if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n)
			return false;
		uint32_t nq = 0;
		vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
		std::vector<VkQueueFamilyProperties> qf(nq);
		vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf.data());
		for (family = 0; family < nq; family++)
			if (qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT)
				break;
		return family < nq;
	}

	VkDevice device(bool nic, VkQueue *queue = nullptr)
	{
		std::vector<const char *> exts;
		if (nic)
			exts.push_back(VK_ONENODE_NIC_MEMORY_EXTENSION_NAME);
		VkDevice d = VK_NULL_HANDLE;
		if (create_compute_device(phys, family, exts, &d, queue) != VK_SUCCESS)
			return VK_NULL_HANDLE;
		return d;
	}
};

// ns per vkAllocateMemory+vkFreeMemory pair, through the device's own
// dispatch (what vkGetDeviceProcAddr hands the application).
double alloc_free_ns(VkDevice d, uint32_t type, uint32_t calls, const void *pnext = nullptr)
{
	auto alloc = reinterpret_cast<PFN_vkAllocateMemory>(vkGetDeviceProcAddr(d, "vkAllocateMemory"));
	auto free_ = reinterpret_cast<PFN_vkFreeMemory>(vkGetDeviceProcAddr(d, "vkFreeMemory"));
	VkMemoryAllocateInfo ai{};
	ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	ai.pNext = pnext;
	ai.allocationSize = 4096;
	ai.memoryTypeIndex = type;
	double t0 = now_ns();
	for (uint32_t i = 0; i < calls; i++) {
		VkDeviceMemory m;
		if (alloc(d, &ai, nullptr, &m) != VK_SUCCESS)
			return -1;
		free_(d, m, nullptr);
	}
	return (now_ns() - t0) / calls;
}

// ns per vkFreeMemory(VK_NULL_HANDLE): a valid no-op for the driver, so
// what remains is the dispatch path (and the layer's lookup when it
// intercepts the command).
double free_null_ns(VkDevice d, uint32_t calls)
{
	auto free_ = reinterpret_cast<PFN_vkFreeMemory>(vkGetDeviceProcAddr(d, "vkFreeMemory"));
	double t0 = now_ns();
	for (uint32_t i = 0; i < calls; i++)
		free_(d, VK_NULL_HANDLE, nullptr);
	return (now_ns() - t0) / calls;
}

// ns per vkCreateBuffer+vkDestroyBuffer of 4 KiB: commands the layer never
// intercepts, so with the extension enabled they must cost what they cost
// without the layer.
double buffer_ns(VkDevice d, uint32_t calls)
{
	auto create = reinterpret_cast<PFN_vkCreateBuffer>(vkGetDeviceProcAddr(d, "vkCreateBuffer"));
	auto destroy = reinterpret_cast<PFN_vkDestroyBuffer>(vkGetDeviceProcAddr(d, "vkDestroyBuffer"));
	VkBufferCreateInfo bi{};
	bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
	bi.size = 4096;
	bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	double t0 = now_ns();
	for (uint32_t i = 0; i < calls; i++) {
		VkBuffer b;
		if (create(d, &bi, nullptr, &b) != VK_SUCCESS)
			return -1;
		destroy(d, b, nullptr);
	}
	return (now_ns() - t0) / calls;
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

struct Bandwidth {
	double gbs = 0;
	std::string note;
	std::string clock; // what --clock-cmd printed during the row's work
	bool failed = false; // a run failed or read wrong data: the benchmark fails
};

// How the read shader runs: loads in flight per invocation, workgroups.
struct ReadConfig {
	std::string name;
	uint32_t unroll;
	uint32_t groups;
};

// Reads a @bytes buffer bound to memory from @alloc @passes times with
// @cfg. The source is filled with @value first; after every run the
// workgroups' sums must add up to 4 * @value per 16 bytes read (mod 2^32):
// every element read exactly once. A failed or wrong run marks the result
// failed and ends the measurement.
template <typename AllocFn>
Bandwidth read_bandwidth(VkDevice d, VkPhysicalDevice phys, uint32_t family, VkQueue q, size_t bytes,
			 uint32_t passes, VkExternalMemoryHandleTypeFlagBits handle, const ReadConfig &cfg,
			 uint32_t value, AllocFn alloc)
{
	Bandwidth out;
	std::string err;
	BoundBuffer src, dst;
	VkMemoryRequirements req;
	auto failed = [&](const std::string &why) {
		out.failed = true;
		out.gbs = 0;
		out.note = why;
	};
	if (!src.create(d, bytes, handle, &req, &err)) {
		failed(err);
		return out;
	}
	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkResult r = alloc(req, &mem, &out.note);
	if (r != VK_SUCCESS || !src.bind(mem, &err)) {
		// An allocation the system cannot make is "unavailable", not a failure.
		if (out.note.empty())
			out.note = r != VK_SUCCESS ? vk_error("vkAllocateMemory", r) : err;
		out.failed = r == VK_SUCCESS;
		if (mem && !src.memory)
			vkFreeMemory(d, mem, nullptr);
		src.destroy();
		return out;
	}
	// One word per workgroup, read back by the host: host-visible, coherent.
	if (!dst.create(d, cfg.groups * 4, static_cast<VkExternalMemoryHandleTypeFlagBits>(0), &req, &err)) {
		failed(err);
		src.destroy();
		return out;
	}
	int dtype = find_memory_type(phys, req.memoryTypeBits,
				     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	VkMemoryAllocateInfo ai{};
	ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	ai.allocationSize = req.size;
	ai.memoryTypeIndex = static_cast<uint32_t>(dtype);
	VkDeviceMemory dmem = VK_NULL_HANDLE;
	uint32_t *sums = nullptr;
	if (dtype < 0 || (r = vkAllocateMemory(d, &ai, nullptr, &dmem)) != VK_SUCCESS) {
		failed(dtype < 0 ? "no host-visible memory for the sums" : vk_error("vkAllocateMemory (sums)", r));
		dst.destroy();
		src.destroy();
		return out;
	}
	if (!dst.bind(dmem, &err) ||
	    (r = vkMapMemory(d, dmem, 0, VK_WHOLE_SIZE, 0, reinterpret_cast<void **>(&sums))) != VK_SUCCESS) {
		failed(sums ? err : vk_error("vkMapMemory (sums)", r));
		dst.destroy();
		src.destroy();
		return out;
	}

	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(phys, &props);
	const VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
	const VkSpecializationInfo spec{1, &entry, sizeof(uint32_t), &cfg.unroll};
	const uint32_t count = static_cast<uint32_t>(bytes / 16);
	const uint32_t want = static_cast<uint32_t>(4ull * value * count);
	auto check = [&](const char *what) {
		uint32_t got = 0;
		for (uint32_t g = 0; g < cfg.groups; g++)
			got += sums[g];
		if (got != want)
			failed(std::string(what) + ": the shader read wrong data (sum " + std::to_string(got) +
			       ", want " + std::to_string(want) + ")");
		return got == want;
	};
	Compute c;
	if (!c.create(d, family, kReadSpv, sizeof(kReadSpv) / 4, 2, 4, &err, &spec) ||
	    (c.bind({src.buffer, dst.buffer}), !c.fill(q, src.buffer, value, &err))) {
		failed(err);
	} else if (std::memset(sums, 0, cfg.groups * 4),
		   !c.run(q, cfg.groups, &count, 4, &err, 1)) { // warm up: caches, page tables, pins
		failed(err);
	} else if (check("warm-up")) {
		// The same dispatches for warm.ms of wall time, so the GPU runs at
		// its working clock; the clock command starts 0.4 s before the end.
		const double t_warm = now_ns();
		FILE *clock = nullptr;
		bool warm_ok = true;
		for (;;) {
			const double spent = (now_ns() - t_warm) / 1e6;
			if (spent >= warm.ms)
				break;
			if (!clock && spent + 400 >= warm.ms)
				clock = clock_start();
			std::memset(sums, 0, cfg.groups * 4);
			if (!c.run(q, cfg.groups, &count, 4, &err, passes)) {
				failed(err);
				warm_ok = false;
				break;
			}
			if (!check("warm-up run")) {
				warm_ok = false;
				break;
			}
		}
		if (!clock && warm_ok)
			clock = clock_start();
		// Best of three timed runs: the machine may be busy with other work.
		for (int rep = 0; warm_ok && rep < 3; rep++) {
			double dev_ns = 0;
			std::memset(sums, 0, cfg.groups * 4);
			double t0 = now_ns();
			bool ok = c.run(q, cfg.groups, &count, 4, &err, passes, &dev_ns, props.limits.timestampPeriod);
			double wall = now_ns() - t0;
			if (!ok) {
				failed(err);
				break;
			}
			if (!check("timed run"))
				break;
			double ns = dev_ns > 0 ? dev_ns : wall;
			out.gbs = std::max(out.gbs, static_cast<double>(bytes) * passes / ns);
			if (dev_ns <= 0)
				out.note = "wall-clock time (no timestamps)";
		}
		out.clock = clock_read(clock);
	}
	c.destroy();
	vkUnmapMemory(d, dmem);
	dst.destroy();
	src.destroy();
	return out;
}

const char *placement_name(VkNicMemoryPlacementONENODE p)
{
	return p == VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE ? "device-local"
	       : p == VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE	 ? "host"
								 : "none";
}

int run(const Options &o)
{
	Instance with, without;
	if (!with.create(true) || !without.create(false))
		return 1;
	VkPhysicalDeviceProperties dp;
	vkGetPhysicalDeviceProperties(with.phys, &dp);
	VkPhysicalDeviceDriverProperties drv{};
	drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
	VkPhysicalDeviceProperties2 p2{};
	p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
	p2.pNext = &drv;
	vkGetPhysicalDeviceProperties2(with.phys, &p2);
	std::printf("device: %s; driver: %s %s; Vulkan %u.%u.%u\n", dp.deviceName, drv.driverName, drv.driverInfo,
		    VK_API_VERSION_MAJOR(dp.apiVersion), VK_API_VERSION_MINOR(dp.apiVersion),
		    VK_API_VERSION_PATCH(dp.apiVersion));

	// 1. Per-call overhead.
	VkDevice plain = without.device(false);
	VkDevice off = with.device(false);
	VkQueue q = VK_NULL_HANDLE;
	VkDevice on = with.device(true, &q);
	if (!plain || !off || !on) {
		std::fprintf(stderr, "vkp2p-bench: device creation failed (is the layer on VK_ADD_LAYER_PATH?)\n");
		return 1;
	}
	int host_type = find_memory_type(with.phys, ~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	std::vector<double> t_plain, t_off, t_on, n_plain, n_off, n_on, b_plain, b_off, b_on;
	for (int round = 0; round < 7; round++) {
		t_plain.push_back(alloc_free_ns(plain, static_cast<uint32_t>(host_type), o.calls));
		t_off.push_back(alloc_free_ns(off, static_cast<uint32_t>(host_type), o.calls));
		t_on.push_back(alloc_free_ns(on, static_cast<uint32_t>(host_type), o.calls));
		n_plain.push_back(free_null_ns(plain, o.calls * 100));
		n_off.push_back(free_null_ns(off, o.calls * 100));
		n_on.push_back(free_null_ns(on, o.calls * 100));
		b_plain.push_back(buffer_ns(plain, o.calls * 10));
		b_off.push_back(buffer_ns(off, o.calls * 10));
		b_on.push_back(buffer_ns(on, o.calls * 10));
	}
	// A failed call is a failed benchmark, not a number.
	for (const auto *v : {&t_plain, &t_off, &t_on, &b_plain, &b_off, &b_on})
		if (std::ranges::any_of(*v, [](double x) { return x < 0; })) {
			std::fprintf(stderr, "vkp2p-bench: a timed allocation or buffer creation failed\n");
			return 1;
		}
	auto rows = [](const char *what, const std::vector<double> &a, const std::vector<double> &b,
		       const std::vector<double> &c, bool intercepted = true) {
		double base = median(a);
		std::printf("%s\n", what);
		std::printf("  %-44s %12.1f ns   ratio 1.000\n", "no layer", base);
		std::printf("  %-44s %12.1f ns   ratio %.3f\n", "layer loaded, extension disabled", median(b),
			    median(b) / base);
		std::printf("  %-44s %12.1f ns   ratio %.3f\n",
			    intercepted ? "layer, extension enabled (intercepted)" : "layer, extension enabled",
			    median(c), median(c) / base);
	};
	std::printf("\nper-call overhead, 7 alternating rounds, median per call\n");
	rows("vkFreeMemory(VK_NULL_HANDLE) (dispatch cost alone):", n_plain, n_off, n_on);
	rows("vkAllocateMemory + vkFreeMemory of 4 KiB (plain memory, passed through):", t_plain, t_off, t_on);
	std::printf("  (disabled: vkGetDeviceProcAddr returned the driver's own pointer: %s)\n",
		    vkGetDeviceProcAddr(off, "vkAllocateMemory") == vkGetDeviceProcAddr(plain, "vkAllocateMemory")
			    ? "yes"
			    : "no");
	rows("vkCreateBuffer + vkDestroyBuffer of 4 KiB (not intercepted):", b_plain, b_off, b_on, false);
	std::printf("  (enabled: vkGetDeviceProcAddr returned the driver's own vkCreateBuffer: %s)\n",
		    vkGetDeviceProcAddr(on, "vkCreateBuffer") == vkGetDeviceProcAddr(plain, "vkCreateBuffer")
			    ? "yes"
			    : "no");
	vkDestroyDevice(off, nullptr);

	// 2. Read bandwidth, side by side.
	const size_t bytes = o.mib << 20;
	std::printf("\ncompute-shader read bandwidth: %zu MiB buffer, %u passes, best of 3, device timestamps,\n"
		    "each row after %u ms of the same dispatches (warm-up)%s\n",
		    o.mib, o.passes, warm.ms, warm.clock_cmd.empty() ? "" : "; [clock during the row's work]");
	auto plain_alloc = [&](VkDevice d, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
		return [&, d, want, avoid](const VkMemoryRequirements &req, VkDeviceMemory *mem, std::string *note) {
			int t = find_memory_type(with.phys, req.memoryTypeBits, want, avoid);
			if (t < 0) {
				*note = "no such memory type on this device";
				return VK_ERROR_OUT_OF_DEVICE_MEMORY;
			}
			VkMemoryAllocateInfo ai{};
			ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
			ai.allocationSize = req.size;
			ai.memoryTypeIndex = static_cast<uint32_t>(t);
			return vkAllocateMemory(d, &ai, nullptr, mem);
		};
	};
	const auto none = static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
	int failures = 0;
	uint32_t fill = 0x01020305u; // odd: a skipped or doubled element changes the sum

	// The read shader's variants on device-local memory; the best is the baseline.
	const ReadConfig variants[] = {
		{"1 load in flight per invocation, 8192 workgroups", 1, 8192},
		{"4 loads in flight per invocation, 8192 workgroups", 4, 8192},
		{"4 loads in flight per invocation, 2048 workgroups", 4, 2048},
		{"8 loads in flight per invocation, 8192 workgroups", 8, 8192},
		{"8 loads in flight per invocation, 1056 workgroups", 8, 1056},
		{"16 loads in flight per invocation, 1056 workgroups", 16, 1056},
		{"16 loads in flight per invocation, 264 workgroups", 16, 264},
	};
	std::vector<Bandwidth> vb;
	size_t best = 0;
	for (const ReadConfig &v : variants) {
		vb.push_back(read_bandwidth(on, with.phys, with.family, q, bytes, o.passes, none, v, fill += 2,
					    plain_alloc(on, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)));
		if (vb.back().failed || vb.back().gbs <= 0) {
			std::printf("  device-local, %s: FAILED: %s\n", v.name.c_str(), vb.back().note.c_str());
			return 1;
		}
		if (vb.back().gbs > vb[best].gbs)
			best = vb.size() - 1;
	}
	std::printf("  read shader variants on device-local memory (ratio to the best):\n");
	for (size_t i = 0; i < vb.size(); i++)
		std::printf("    %-62s %9.2f GB/s   ratio %.3f%s%s%s%s\n", variants[i].name.c_str(), vb[i].gbs,
			    vb[i].gbs / vb[best].gbs, i == best ? "  (baseline below)" : "",
			    vb[i].clock.empty() ? "" : "  [", vb[i].clock.c_str(), vb[i].clock.empty() ? "" : "]");
	const ReadConfig &cfg = variants[best];
	const Bandwidth &local = vb[best];
	auto row = [&](const std::string &name, const Bandwidth &b) {
		if (b.failed) {
			failures++;
			std::printf("  %-64s FAILED: %s\n", name.c_str(), b.note.c_str());
		} else if (b.gbs > 0) {
			std::printf("  %-64s %9.2f GB/s   ratio %.3f%s%s%s%s%s\n", name.c_str(), b.gbs, b.gbs / local.gbs,
				    b.note.empty() ? "" : "  ", b.note.c_str(), b.clock.empty() ? "" : "  [",
				    b.clock.c_str(), b.clock.empty() ? "" : "]");
		} else {
			std::printf("  %-64s unavailable: %s\n", name.c_str(), b.note.c_str());
		}
	};
	std::printf("  every row: %s, sums checked\n", cfg.name.c_str());
	row("device-local", local);
	row("device-local + host-visible (same VRAM via the CPU aperture, not NIC P2P)",
	    read_bandwidth(on, with.phys, with.family, q, bytes, o.passes, none, cfg, fill += 2,
			   plain_alloc(on, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0)));
	row("host-visible, not device-local (driver's host memory)",
	    read_bandwidth(on, with.phys, with.family, q, bytes, o.passes, none, cfg, fill += 2,
			   plain_alloc(on, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)));

	// NIC memory: every policy, on every import path this driver has.
	const char *saved = std::getenv("VKP2P_IMPORT");
	std::string saved_value = saved ? saved : "";
	for (const char *path : {"dmabuf", "host"}) {
		setenv("VKP2P_IMPORT", path, 1);
		VkQueue nq = VK_NULL_HANDLE;
		VkDevice nd = with.device(true, &nq);
		VkPhysicalDeviceNicMemoryPropertiesONENODE np{};
		np.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE;
		VkPhysicalDeviceProperties2 pp{};
		pp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
		pp.pNext = &np;
		vkGetPhysicalDeviceProperties2(with.phys, &pp);
		bool is_dmabuf = np.importHandleType == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
		if (!nd || !np.importHandleType || is_dmabuf != (std::string(path) == "dmabuf")) {
			std::printf("  NIC memory, %s import: not available on this system (%s)\n", path,
				    std::string(path) == "dmabuf" ? "needs VK_EXT_external_memory_dma_buf and /dev/udmabuf"
								  : "needs VK_EXT_external_memory_host");
			if (nd)
				vkDestroyDevice(nd, nullptr);
			continue;
		}
		auto support = reinterpret_cast<PFN_vkGetDeviceNicMemorySupportONENODE>(
			vkGetDeviceProcAddr(nd, "vkGetDeviceNicMemorySupportONENODE"));
		auto placement = reinterpret_cast<PFN_vkGetNicMemoryPlacementONENODE>(
			vkGetDeviceProcAddr(nd, "vkGetNicMemoryPlacementONENODE"));
		VkNicMemorySupportONENODE s{};
		s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
		support(nd, nullptr, &s);
		const std::pair<VkNicMemoryPolicyONENODE, const char *> policies[] = {
			{VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE, "require-p2p"},
			{VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, "prefer-p2p"},
			{VK_NIC_MEMORY_POLICY_HOST_ONENODE, "host"},
		};
		for (auto [policy, pname] : policies) {
			std::string placed;
			auto nic_alloc = [&, policy = policy](const VkMemoryRequirements &req, VkDeviceMemory *mem,
							      std::string *note) {
				int t = find_memory_type(with.phys, req.memoryTypeBits & s.memoryTypeBits, 0);
				if (t < 0) {
					*note = std::string("no memory type: ") + s.description;
					return VK_ERROR_OUT_OF_DEVICE_MEMORY;
				}
				VkResult r = allocate_nic_memory(nd, req.size, static_cast<uint32_t>(t), policy, nullptr, mem);
				if (r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE)
					*note = std::string("VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE: ") + s.description;
				if (r == VK_SUCCESS) {
					VkNicMemoryPlacementInfoONENODE pl{};
					pl.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
					placement(nd, *mem, &pl);
					placed = std::string(placement_name(pl.placement)) +
						 (pl.dmaBufExportable ? ", NIC-exportable" : ", not NIC-exportable");
				}
				return r;
			};
			Bandwidth b = read_bandwidth(nd, with.phys, with.family, nq, bytes, o.passes, np.importHandleType,
						     cfg, fill += 2, nic_alloc);
			row(std::string("NIC memory ") + pname + ", " + path + " import" +
				    (placed.empty() ? "" : " [" + placed + "]"),
			    b);
		}
		vkDestroyDevice(nd, nullptr);
	}
	if (saved)
		setenv("VKP2P_IMPORT", saved_value.c_str(), 1);
	else
		unsetenv("VKP2P_IMPORT");

	vkDestroyDevice(on, nullptr);
	vkDestroyDevice(plain, nullptr);
	vkDestroyInstance(with.instance, nullptr);
	vkDestroyInstance(without.instance, nullptr);
	if (failures)
		std::fprintf(stderr, "vkp2p-bench: %d measurement(s) failed\n", failures);
	return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	Options o;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (i + 1 < argc && a == "--clock-cmd") {
			warm.clock_cmd = argv[++i];
		} else if (i + 1 < argc && a == "--warm-ms") {
			char *end;
			unsigned long v = std::strtoul(argv[++i], &end, 0);
			if (*end || v > 600000) {
				std::fprintf(stderr, "vkp2p-bench: --warm-ms needs a number of milliseconds up to 600000\n");
				return 2;
			}
			warm.ms = static_cast<uint32_t>(v);
		} else if (i + 1 < argc && (a == "--size" || a == "--passes" || a == "--calls")) {
			char *end;
			unsigned long v = std::strtoul(argv[++i], &end, 0);
			if (*end || v == 0) {
				std::fprintf(stderr, "vkp2p-bench: %s needs a positive number\n", a.c_str());
				return 2;
			}
			if (a == "--size")
				o.mib = v;
			else if (a == "--passes")
				o.passes = static_cast<uint32_t>(v);
			else
				o.calls = static_cast<uint32_t>(v);
		} else {
			std::fprintf(stderr, "usage: vkp2p-bench [--size MiB] [--passes N] [--calls N] [--warm-ms N] "
					     "[--clock-cmd CMD]\n");
			return 2;
		}
	}
	return run(o);
}
