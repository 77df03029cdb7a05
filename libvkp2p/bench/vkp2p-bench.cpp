// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// vkp2p-bench: what the layer costs and what NIC memory costs a shader,
// each measured side by side in one run and reported as ratios.
//
// 1. Per-call overhead of an intercepted entry point (vkAllocateMemory +
//    vkFreeMemory of plain memory, which the layer passes through when the
//    extension is enabled): no layer / layer loaded with the extension
//    disabled (the layer hands out the driver's pointers) / extension
//    enabled. Rounds alternate between the three so drift hits all alike.
// 2. Compute-shader read bandwidth of a buffer in plain device-local
//    memory, device-local host-visible memory (the kind a NIC could reach
//    through a BAR), and NIC memory from the layer under each policy and
//    each import path the driver has, as ratios to device-local.
//
// usage: vkp2p-bench [--size MiB] [--passes N] [--calls N]
// The layer is found through VK_ADD_LAYER_PATH (bench/run.sh sets it).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

struct Bandwidth {
	double gbs = 0;
	std::string note;
};

// Reads a @bytes buffer bound to memory from @alloc @passes times.
template <typename AllocFn>
Bandwidth read_bandwidth(VkDevice d, VkPhysicalDevice phys, uint32_t family, VkQueue q, size_t bytes,
			 uint32_t passes, VkExternalMemoryHandleTypeFlagBits handle, AllocFn alloc)
{
	Bandwidth out;
	std::string err;
	BoundBuffer src, dst;
	VkMemoryRequirements req;
	if (!src.create(d, bytes, handle, &req, &err)) {
		out.note = err;
		return out;
	}
	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkResult r = alloc(req, &mem, &out.note);
	if (r != VK_SUCCESS || !src.bind(mem, &err)) {
		if (out.note.empty())
			out.note = r != VK_SUCCESS ? vk_error("vkAllocateMemory", r) : err;
		if (mem)
			vkFreeMemory(d, mem, nullptr);
		src.destroy();
		return out;
	}
	const uint32_t groups = 8192, threads = groups * 256;
	if (!dst.create(d, threads * 4, static_cast<VkExternalMemoryHandleTypeFlagBits>(0), &req, &err)) {
		out.note = err;
		src.destroy();
		return out;
	}
	VkMemoryAllocateInfo ai{};
	ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	ai.allocationSize = req.size;
	ai.memoryTypeIndex = static_cast<uint32_t>(find_memory_type(phys, req.memoryTypeBits, 0));
	VkDeviceMemory dmem;
	vkAllocateMemory(d, &ai, nullptr, &dmem);
	dst.bind(dmem, &err);

	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(phys, &props);
	Compute c;
	if (!c.create(d, family, kReadSpv, sizeof(kReadSpv) / 4, 2, 4, &err)) {
		out.note = err;
	} else {
		c.bind({src.buffer, dst.buffer});
		uint32_t count = static_cast<uint32_t>(bytes / 16);
		c.run(q, groups, &count, 4, &err, 1); // warm up: caches, page tables, pins
		// Best of three timed runs: the machine may be busy with other work.
		for (int rep = 0; rep < 3; rep++) {
			double dev_ns = 0;
			double t0 = now_ns();
			bool ok = c.run(q, groups, &count, 4, &err, passes, &dev_ns, props.limits.timestampPeriod);
			double wall = now_ns() - t0;
			if (!ok) {
				out.note = err;
				out.gbs = 0;
				break;
			}
			double ns = dev_ns > 0 ? dev_ns : wall;
			out.gbs = std::max(out.gbs, static_cast<double>(bytes) * passes / ns);
			if (dev_ns <= 0)
				out.note = "wall-clock time (no timestamps)";
		}
	}
	c.destroy();
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
	std::vector<double> t_plain, t_off, t_on, n_plain, n_off, n_on;
	for (int round = 0; round < 7; round++) {
		t_plain.push_back(alloc_free_ns(plain, static_cast<uint32_t>(host_type), o.calls));
		t_off.push_back(alloc_free_ns(off, static_cast<uint32_t>(host_type), o.calls));
		t_on.push_back(alloc_free_ns(on, static_cast<uint32_t>(host_type), o.calls));
		n_plain.push_back(free_null_ns(plain, o.calls * 100));
		n_off.push_back(free_null_ns(off, o.calls * 100));
		n_on.push_back(free_null_ns(on, o.calls * 100));
	}
	auto rows = [](const char *what, const std::vector<double> &a, const std::vector<double> &b,
		       const std::vector<double> &c) {
		double base = median(a);
		std::printf("%s\n", what);
		std::printf("  %-44s %12.1f ns   ratio 1.000\n", "no layer", base);
		std::printf("  %-44s %12.1f ns   ratio %.3f\n", "layer loaded, extension disabled", median(b),
			    median(b) / base);
		std::printf("  %-44s %12.1f ns   ratio %.3f\n", "layer, extension enabled (intercepted)", median(c),
			    median(c) / base);
	};
	std::printf("\nper-call overhead, 7 alternating rounds, median per call\n");
	rows("vkFreeMemory(VK_NULL_HANDLE) (dispatch cost alone):", n_plain, n_off, n_on);
	rows("vkAllocateMemory + vkFreeMemory of 4 KiB (plain memory, passed through):", t_plain, t_off, t_on);
	std::printf("  (disabled: vkGetDeviceProcAddr returned the driver's own pointer: %s)\n",
		    vkGetDeviceProcAddr(off, "vkAllocateMemory") == vkGetDeviceProcAddr(plain, "vkAllocateMemory")
			    ? "yes"
			    : "no");
	vkDestroyDevice(off, nullptr);

	// 2. Read bandwidth, side by side.
	const size_t bytes = o.mib << 20;
	std::printf("\ncompute-shader read bandwidth: %zu MiB buffer, %u passes, best of 3, device timestamps\n", o.mib, o.passes);
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
	Bandwidth local = read_bandwidth(on, with.phys, with.family, q, bytes, o.passes, none,
					 plain_alloc(on, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0));
	if (local.gbs <= 0) {
		std::printf("  device-local: %s\n", local.note.c_str());
		return 1;
	}
	auto row = [&](const std::string &name, const Bandwidth &b) {
		if (b.gbs > 0)
			std::printf("  %-64s %9.2f GB/s   ratio %.3f%s%s\n", name.c_str(), b.gbs, b.gbs / local.gbs,
				    b.note.empty() ? "" : "  ", b.note.c_str());
		else
			std::printf("  %-64s unavailable: %s\n", name.c_str(), b.note.c_str());
	};
	row("device-local", local);
	row("device-local + host-visible (BAR-reachable kind)",
	    read_bandwidth(on, with.phys, with.family, q, bytes, o.passes, none,
			   plain_alloc(on, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0)));
	row("host-visible, not device-local (driver's host memory)",
	    read_bandwidth(on, with.phys, with.family, q, bytes, o.passes, none,
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
						     nic_alloc);
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
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	Options o;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (i + 1 < argc && (a == "--size" || a == "--passes" || a == "--calls")) {
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
			std::fprintf(stderr, "usage: vkp2p-bench [--size MiB] [--passes N] [--calls N]\n");
			return 2;
		}
	}
	return run(o);
}
