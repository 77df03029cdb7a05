// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// vk-nic-ingest: NIC ingest through VK_ONENODE_nic_memory.
//
// 1. asks the layer whether NIC-importable memory exists for this device
//    and the NIC named on the command line, and why it is where it is;
// 2. allocates the packet ring with the chosen policy and exports it as a
//    dma-buf;
// 3. a producer process (standing in for the NIC: it gets nothing but the
//    fd, as ibv_reg_dmabuf_mr or a devmem/zcrx binding would) writes
//    packets through its own mapping of the dma-buf;
// 4. after the dma-buf's fences signal, a compute shader checksums every
//    packet in place; the example checks the result against the packet
//    headers and prints where the memory lives.
//
// Exit status: 0 verified, 1 failure, 2 usage, 77 when this system cannot
// export NIC memory (the reason is printed).
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compute.hpp"
#include "nic_memory.hpp"
#include "packets.hpp"
#include "producer.hpp"
#include "vulkan/vk_onenode_nic_memory.h"

using namespace vkp2p_common;

namespace {

const uint32_t kChecksumSpv[] = {
#include "checksum.spv.inc"
};

// Seed of the packet payloads, whichever process writes them.
constexpr uint32_t kPacketSeed = 0xC0FFEEu;

struct Options {
	VkNicMemoryPolicyONENODE policy = VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE;
	std::string rdma, netdev;
	uint32_t packets = 4096;
	uint32_t corrupt = 1000;
	bool validate = false;
	bool local_producer = false;
};

void usage()
{
	std::fprintf(stderr,
		     "usage: vk-nic-ingest [--policy require-p2p|prefer-p2p|host] [--rdma NAME] [--netdev NAME]\n"
		     "                     [--packets N] [--corrupt SLOT|none] [--validate] [--local-producer]\n"
		     "  --local-producer: where the memory cannot be exported (no udmabuf), write the\n"
		     "                    packets through vkMapMemory in this process instead\n");
}

bool parse(int argc, char **argv, Options *o)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&](const char *name) -> const char * {
			if (i + 1 >= argc) {
				std::fprintf(stderr, "vk-nic-ingest: %s needs a value\n", name);
				return nullptr;
			}
			return argv[++i];
		};
		const char *v = nullptr;
		if (a == "--policy") {
			if (!(v = value("--policy")))
				return false;
			std::string p = v;
			if (p == "require-p2p")
				o->policy = VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE;
			else if (p == "prefer-p2p")
				o->policy = VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE;
			else if (p == "host")
				o->policy = VK_NIC_MEMORY_POLICY_HOST_ONENODE;
			else {
				std::fprintf(stderr, "vk-nic-ingest: unknown policy '%s'\n", v);
				return false;
			}
		} else if (a == "--rdma") {
			if (!(v = value("--rdma")))
				return false;
			o->rdma = v;
		} else if (a == "--netdev") {
			if (!(v = value("--netdev")))
				return false;
			o->netdev = v;
		} else if (a == "--packets") {
			if (!(v = value("--packets")))
				return false;
			char *end;
			unsigned long n = std::strtoul(v, &end, 0);
			if (*end || n == 0 || n > (1u << 20)) {
				std::fprintf(stderr, "vk-nic-ingest: --packets must be 1..%u\n", 1u << 20);
				return false;
			}
			o->packets = static_cast<uint32_t>(n);
		} else if (a == "--corrupt") {
			if (!(v = value("--corrupt")))
				return false;
			o->corrupt = std::string(v) == "none" ? UINT32_MAX
							       : static_cast<uint32_t>(std::strtoul(v, nullptr, 0));
		} else if (a == "--validate") {
			o->validate = true;
		} else if (a == "--local-producer") {
			o->local_producer = true;
		} else {
			usage();
			return false;
		}
	}
	if (o->rdma.size() >= VK_MAX_NIC_NAME_SIZE_ONENODE || o->netdev.size() >= VK_MAX_NIC_NAME_SIZE_ONENODE) {
		std::fprintf(stderr, "vk-nic-ingest: NIC names are at most %u bytes\n",
			     VK_MAX_NIC_NAME_SIZE_ONENODE - 1);
		return false;
	}
	return true;
}

bool has_layer(const char *name)
{
	uint32_t n = 0;
	vkEnumerateInstanceLayerProperties(&n, nullptr);
	std::vector<VkLayerProperties> v(n);
	vkEnumerateInstanceLayerProperties(&n, v.data());
	for (auto &l : v)
		if (!std::strcmp(l.layerName, name))
			return true;
	return false;
}

const char *placement_name(VkNicMemoryPlacementONENODE p)
{
	switch (p) {
	case VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE:
		return "device-local (P2P)";
	case VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE:
		return "host memory";
	default:
		return "none";
	}
}

int run(const Options &o)
{
	std::vector<const char *> layers;
	if (has_layer("VK_LAYER_ONENODE_vkp2p"))
		layers.push_back("VK_LAYER_ONENODE_vkp2p");
	if (o.validate)
		layers.push_back("VK_LAYER_KHRONOS_validation");
	VkApplicationInfo app{};
	app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
	app.pApplicationName = "vk-nic-ingest";
	app.apiVersion = VK_API_VERSION_1_1;
	VkInstanceCreateInfo ici{};
	ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
	ici.pApplicationInfo = &app;
	ici.enabledLayerCount = static_cast<uint32_t>(layers.size());
	ici.ppEnabledLayerNames = layers.data();
	VkInstance instance;
	VkResult r = vkCreateInstance(&ici, nullptr, &instance);
	if (r != VK_SUCCESS) {
		std::fprintf(stderr, "vk-nic-ingest: %s\n", vk_error("vkCreateInstance", r).c_str());
		return 1;
	}
	uint32_t n = 1;
	VkPhysicalDevice phys;
	r = vkEnumeratePhysicalDevices(instance, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n) {
		std::fprintf(stderr, "vk-nic-ingest: no Vulkan device\n");
		return 1;
	}
	VkPhysicalDeviceProperties dp;
	vkGetPhysicalDeviceProperties(phys, &dp);
	std::printf("device: %s\n", dp.deviceName);

	VkPhysicalDeviceNicMemoryFeaturesONENODE feat{};
	feat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE;
	VkPhysicalDeviceFeatures2 f2{};
	f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
	f2.pNext = &feat;
	vkGetPhysicalDeviceFeatures2(phys, &f2);
	if (!feat.nicMemory) {
		std::fprintf(stderr, "vk-nic-ingest: %s is not available (is VK_LAYER_ONENODE_vkp2p installed?)\n",
			     VK_ONENODE_NIC_MEMORY_EXTENSION_NAME);
		vkDestroyInstance(instance, nullptr);
		return 77;
	}
	VkPhysicalDeviceNicMemoryPropertiesONENODE props{};
	props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE;
	VkPhysicalDeviceProperties2 p2{};
	p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
	p2.pNext = &props;
	vkGetPhysicalDeviceProperties2(phys, &p2);

	uint32_t nq = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
	std::vector<VkQueueFamilyProperties> qf(nq);
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf.data());
	uint32_t family = 0;
	while (family < nq && !(qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
		family++;
	VkDevice dev;
	VkQueue queue;
	if ((r = create_compute_device(phys, family, {VK_ONENODE_NIC_MEMORY_EXTENSION_NAME}, &dev, &queue)) !=
	    VK_SUCCESS) {
		std::fprintf(stderr, "vk-nic-ingest: %s\n", vk_error("vkCreateDevice", r).c_str());
		return 1;
	}
	auto support = reinterpret_cast<PFN_vkGetDeviceNicMemorySupportONENODE>(
		vkGetDeviceProcAddr(dev, "vkGetDeviceNicMemorySupportONENODE"));
	auto get_fd = reinterpret_cast<PFN_vkGetMemoryNicFdONENODE>(vkGetDeviceProcAddr(dev, "vkGetMemoryNicFdONENODE"));
	auto placement = reinterpret_cast<PFN_vkGetNicMemoryPlacementONENODE>(
		vkGetDeviceProcAddr(dev, "vkGetNicMemoryPlacementONENODE"));
	auto export_sync = reinterpret_cast<PFN_vkExportNicMemorySyncFileONENODE>(
		vkGetDeviceProcAddr(dev, "vkExportNicMemorySyncFileONENODE"));

	VkNicIdentifierONENODE nic{};
	nic.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
	std::snprintf(nic.rdmaDeviceName, sizeof(nic.rdmaDeviceName), "%s", o.rdma.c_str());
	std::snprintf(nic.netdevName, sizeof(nic.netdevName), "%s", o.netdev.c_str());
	const VkNicIdentifierONENODE *pnic = o.rdma.empty() && o.netdev.empty() ? nullptr : &nic;

	VkNicMemorySupportONENODE s{};
	s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
	support(dev, pnic, &s);
	std::printf("support: nic %s, best placement %s (reason %d), P2P distance %d, dma-buf export %s\n"
		    "         %s\n",
		    pnic ? (s.nicFound ? "found" : "NOT found") : "not named", placement_name(s.placement),
		    static_cast<int>(s.reason), s.pciDistance, s.dmaBufExportable ? "yes" : "no", s.description);

	int status = 1;
	const size_t bytes = static_cast<size_t>(o.packets) * kPacketBytes;
	std::string err;
	BoundBuffer packets, results;
	VkMemoryRequirements req;
	Compute c;
	int type = -1;
	if (!packets.create(dev, bytes, props.importHandleType, &req, &err))
		goto out;
	type = find_memory_type(phys, req.memoryTypeBits & s.memoryTypeBits, 0);
	if (type < 0) {
		std::fprintf(stderr, "vk-nic-ingest: no memory type for NIC memory: %s\n", s.description);
		goto out;
	}
	{
		VkDeviceMemory mem;
		r = allocate_nic_memory(dev, req.size, static_cast<uint32_t>(type), o.policy, pnic, &mem);
		if (r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE) {
			std::printf("allocation: unavailable for this policy: %s\n", s.description);
			status = 77;
			goto out;
		}
		if (r != VK_SUCCESS || !packets.bind(mem, &err)) {
			if (r == VK_SUCCESS)
				vkFreeMemory(dev, mem, nullptr);
			std::fprintf(stderr, "vk-nic-ingest: %s\n",
				     r != VK_SUCCESS ? vk_error("vkAllocateMemory", r).c_str() : err.c_str());
			goto out;
		}
	}
	{
		VkNicMemoryPlacementInfoONENODE pl{};
		pl.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
		placement(dev, packets.memory, &pl);
		std::printf("placement: %s, imported as %s, reason %d\n           %s\n",
			    placement_name(pl.placement),
			    pl.importHandleType == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT ? "dma-buf"
												  : "host pointer",
			    static_cast<int>(pl.reason), pl.description);
	}

	{
		VkMemoryGetNicFdInfoONENODE gi{};
		gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
		gi.memory = packets.memory;
		int fd = -1;
		r = get_fd(dev, &gi, &fd);
		if (r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE && o.local_producer) {
			void *p = nullptr;
			if (vkMapMemory(dev, packets.memory, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
				goto out;
			produce_packets(p, o.packets, kPacketSeed, o.corrupt);
			vkUnmapMemory(dev, packets.memory);
			std::printf("producer: no dma-buf export here; wrote %u packets through vkMapMemory "
				    "(--local-producer)\n",
				    o.packets);
			goto dispatch;
		}
		if (r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE) {
			std::printf("export: this memory cannot be handed to a NIC here (see placement)\n");
			status = 77;
			goto out;
		}
		if (r != VK_SUCCESS) {
			std::fprintf(stderr, "vk-nic-ingest: %s\n", vk_error("vkGetMemoryNicFdONENODE", r).c_str());
			goto out;
		}
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			close(fd);
			goto out;
		}
		pid_t pid = fork();
		if (pid == 0) {
			close(sv[0]);
			producer(sv[1], bytes, o.packets, kPacketSeed, o.corrupt);
		}
		close(sv[1]);
		int wstatus = 0;
		char done = 0;
		bool ok = pid > 0 && send_fd(sv[0], fd) && read(sv[0], &done, 1) == 1;
		close(fd);
		close(sv[0]);
		if (pid > 0)
			waitpid(pid, &wstatus, 0);
		if (!ok || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
			std::fprintf(stderr, "vk-nic-ingest: the producer failed (status %d)\n", wstatus);
			goto out;
		}
		std::printf("producer: wrote %u packets (%zu KiB) through the dma-buf\n", o.packets, bytes / 1024);

		// Wait for whatever the "NIC" left on the dma-buf's reservation.
		int sync = -1;
		if (export_sync(dev, packets.memory, VK_FALSE, &sync) == VK_SUCCESS) {
			pollfd pfd{sync, POLLIN, 0};
			poll(&pfd, 1, -1);
			close(sync);
		}
	}

dispatch:
	{
		const VkDeviceSize rbytes = 8 + static_cast<VkDeviceSize>(o.packets) * 4;
		if (!results.create(dev, rbytes, static_cast<VkExternalMemoryHandleTypeFlagBits>(0), &req, &err))
			goto out;
		int rtype = find_memory_type(phys, req.memoryTypeBits,
					     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
		VkMemoryAllocateInfo rai{};
		rai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
		rai.allocationSize = req.size;
		rai.memoryTypeIndex = static_cast<uint32_t>(rtype);
		VkDeviceMemory rmem;
		if (rtype < 0 || vkAllocateMemory(dev, &rai, nullptr, &rmem) != VK_SUCCESS ||
		    !results.bind(rmem, &err))
			goto out;
		uint32_t *res = nullptr;
		vkMapMemory(dev, rmem, 0, VK_WHOLE_SIZE, 0, reinterpret_cast<void **>(&res));
		res[0] = 0;
		res[1] = UINT32_MAX;
		if (!c.create(dev, family, kChecksumSpv, sizeof(kChecksumSpv) / 4, 2, 4, &err)) {
			std::fprintf(stderr, "vk-nic-ingest: %s\n", err.c_str());
			goto out;
		}
		c.bind({packets.buffer, results.buffer});
		if (!c.run(queue, (o.packets + 63) / 64, &o.packets, 4, &err)) {
			std::fprintf(stderr, "vk-nic-ingest: %s\n", err.c_str());
			goto out;
		}
		// The host recomputes from its own view of the same memory.
		void *view = nullptr;
		vkMapMemory(dev, packets.memory, 0, VK_WHOLE_SIZE, 0, &view);
		const uint32_t wrong = checksum_mismatches(res, view, o.packets);
		vkUnmapMemory(dev, packets.memory);
		uint32_t expect_bad = o.corrupt < o.packets ? 1 : 0;
		std::printf("shader: %u packets checksummed in place, %u damaged (first %d), %u disagree with the host\n",
			    o.packets, res[0], res[0] ? static_cast<int>(res[1]) : -1, wrong);
		if (wrong == 0 && res[0] == expect_bad && (!expect_bad || res[1] == o.corrupt)) {
			std::printf("verified\n");
			status = 0;
		} else {
			std::printf("MISMATCH\n");
		}
	}
out:
	c.destroy();
	results.destroy();
	packets.destroy();
	vkDestroyDevice(dev, nullptr);
	vkDestroyInstance(instance, nullptr);
	return status;
}

} // namespace

int main(int argc, char **argv)
{
	Options o;
	if (!parse(argc, argv, &o))
		return 2;
	return run(o);
}
