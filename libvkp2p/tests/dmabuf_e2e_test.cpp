// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// The NIC-memory path end to end (suite 'vm': needs /dev/udmabuf): memory
// from the layer is exported as a dma-buf, a second process (standing in
// for the NIC) receives the fd over a Unix socket, maps it and writes
// packets; a compute shader then checksums the packets in place. One packet
// is damaged on purpose: the shader must find exactly that one.
//
// VKP2P_IMPORT selects the import path under test: unset = dma-buf import
// (lavapipe has it), "host" = the same udmabuf memory imported through
// VK_EXT_external_memory_host.
//
// A second case pairs lavapipe with the vcompute render node
// (VKP2P_RENDER_NODE): REQUIRE_P2P memory is then device memory of vcompute,
// made for export by the kernel (DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P), and
// its placement report is the kernel's.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "compute.hpp"
#include "nic_memory.hpp"
#include "onenode.h"
#include "packets.hpp"
#include "producer.hpp"
#include "vk_env.hpp"

using namespace vkp2p_test;
using namespace vkp2p_common;

namespace {

const uint32_t kChecksumSpv[] = {
#include "checksum.spv.inc"
};

} // namespace

// NIC memory of @policy, written by a second process, checksummed by a
// shader; the layer must report @want as its placement, with @text in its
// description when not NULL.
static void ingest(VkNicMemoryPolicyONENODE policy, VkNicMemoryPlacementONENODE want, const char *text)
{
	const char *force = std::getenv("VKP2P_IMPORT");
	const bool host_import = force && !std::strcmp(force, "host");

	g_messages = 0;
	Env env;
	ASSERT_TRUE(env.create_instance({kLayer, kValidation})) << env.error;
	VkPhysicalDeviceNicMemoryPropertiesONENODE props{};
	props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE;
	VkPhysicalDeviceProperties2 p2{};
	p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
	p2.pNext = &props;
	vkGetPhysicalDeviceProperties2(env.phys, &p2);
	ASSERT_EQ(props.importHandleType, host_import ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
						      : VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
	ASSERT_EQ(props.hostMemoryExportable, VK_TRUE);
	ASSERT_EQ(env.create_device(true), VK_SUCCESS);
	auto support = env.proc<PFN_vkGetDeviceNicMemorySupportONENODE>("vkGetDeviceNicMemorySupportONENODE");
	auto get_fd = env.proc<PFN_vkGetMemoryNicFdONENODE>("vkGetMemoryNicFdONENODE");
	auto placement = env.proc<PFN_vkGetNicMemoryPlacementONENODE>("vkGetNicMemoryPlacementONENODE");
	auto export_sync = env.proc<PFN_vkExportNicMemorySyncFileONENODE>("vkExportNicMemorySyncFileONENODE");

	const uint32_t count = 1024, corrupt = 37;
	const size_t bytes = count * kPacketBytes;
	std::string err;

	// Packet buffer in NIC memory.
	VkNicMemorySupportONENODE s{};
	s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
	ASSERT_EQ(support(env.device, nullptr, &s), VK_SUCCESS);
	ASSERT_EQ(s.dmaBufExportable, VK_TRUE) << s.description;
	BoundBuffer packets;
	VkMemoryRequirements req;
	ASSERT_TRUE(packets.create(env.device, bytes, props.importHandleType, &req, &err)) << err;
	int type = find_memory_type(env.phys, req.memoryTypeBits & s.memoryTypeBits, 0);
	ASSERT_GE(type, 0);
	VkDeviceMemory mem;
	ASSERT_EQ(allocate_nic_memory(env.device, req.size, static_cast<uint32_t>(type), policy, nullptr, &mem),
		  VK_SUCCESS);
	ASSERT_TRUE(packets.bind(mem, &err)) << err;

	VkNicMemoryPlacementInfoONENODE pl{};
	pl.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
	placement(env.device, mem, &pl);
	EXPECT_EQ(pl.placement, want) << pl.description;
	if (text) {
		EXPECT_NE(std::strstr(pl.description, text), nullptr) << pl.description;
	}
	EXPECT_EQ(pl.importHandleType, props.importHandleType);
	EXPECT_EQ(pl.dmaBufExportable, VK_TRUE);
	std::printf("placement: %s\n", pl.description);

	// Results in ordinary host-visible memory.
	BoundBuffer results;
	const VkDeviceSize rbytes = 8 + count * 4;
	ASSERT_TRUE(results.create(env.device, rbytes, static_cast<VkExternalMemoryHandleTypeFlagBits>(0), &req, &err))
		<< err;
	int rtype = find_memory_type(env.phys, req.memoryTypeBits,
				     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	ASSERT_GE(rtype, 0);
	VkMemoryAllocateInfo rai{};
	rai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	rai.allocationSize = req.size;
	rai.memoryTypeIndex = static_cast<uint32_t>(rtype);
	VkDeviceMemory rmem;
	ASSERT_EQ(vkAllocateMemory(env.device, &rai, nullptr, &rmem), VK_SUCCESS);
	ASSERT_TRUE(results.bind(rmem, &err)) << err;
	uint32_t *r = nullptr;
	ASSERT_EQ(vkMapMemory(env.device, rmem, 0, VK_WHOLE_SIZE, 0, reinterpret_cast<void **>(&r)), VK_SUCCESS);
	r[0] = 0;
	r[1] = 0xffffffffu;

	// The NIC: another process, given only the fd.
	VkMemoryGetNicFdInfoONENODE gi{};
	gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
	gi.memory = mem;
	int fd = -1;
	ASSERT_EQ(get_fd(env.device, &gi, &fd), VK_SUCCESS);
	int sv[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		producer(sv[1], bytes, count, 0x1234567u, corrupt);
	}
	close(sv[1]);
	ASSERT_TRUE(send_fd(sv[0], fd));
	close(fd);
	char done = 0;
	ASSERT_EQ(read(sv[0], &done, 1), 1);
	int status = 0;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "producer status " << status;
	close(sv[0]);

	// Synchronize with the "NIC" through the dma-buf's implicit fences.
	int sync = -1;
	ASSERT_EQ(export_sync(env.device, mem, VK_FALSE, &sync), VK_SUCCESS);
	pollfd pfd{sync, POLLIN, 0};
	ASSERT_EQ(poll(&pfd, 1, 5000), 1) << "NIC fences did not signal";
	close(sync);

	Compute c;
	ASSERT_TRUE(c.create(env.device, env.queue_family, kChecksumSpv, sizeof(kChecksumSpv) / 4, 2, 4, &err)) << err;
	c.bind({packets.buffer, results.buffer});
	ASSERT_TRUE(c.run(env.queue, (count + 63) / 64, &count, 4, &err)) << err;

	// What the shader saw must be what the producer wrote: recompute on the
	// CPU from an independent mapping of the dma-buf.
	gi.memory = mem;
	ASSERT_EQ(get_fd(env.device, &gi, &fd), VK_SUCCESS);
	void *view = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(view, MAP_FAILED);
	EXPECT_EQ(r[0], 1u) << "exactly one damaged packet";
	EXPECT_EQ(r[1], corrupt);
	EXPECT_EQ(checksum_mismatches(r, view, count), 0u);
	munmap(view, bytes);
	close(fd);

	c.destroy();
	vkUnmapMemory(env.device, rmem);
	results.destroy();
	packets.destroy();
	env.destroy();
	EXPECT_EQ(g_messages.load(), 0) << "validation messages (see stderr)";
}

TEST(NicIngest, SecondProcessWritesShaderVerifies)
{
	if (access("/dev/udmabuf", R_OK | W_OK) != 0)
		GTEST_SKIP() << "needs /dev/udmabuf (the test VM has it)";
	// lavapipe has no device memory: the layer takes host memory.
	ingest(VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE, nullptr);
}

TEST(NicIngest, RenderNodeDeviceMemory)
{
	const char *force = std::getenv("VKP2P_IMPORT");
	if (force && !std::strcmp(force, "host"))
		GTEST_SKIP() << "device memory is imported as a dma-buf only";
	if (access("/dev/udmabuf", R_OK | W_OK) != 0)
		GTEST_SKIP() << "needs /dev/udmabuf (the test VM has it)";
	onenode_device dev;
	if (onenode_open_driver("vcompute", nullptr, &dev))
		GTEST_SKIP() << "needs a vcompute render node (the test VM has one)";
	const std::string node = dev.path;
	onenode_close(&dev);
	ASSERT_EQ(setenv("VKP2P_RENDER_NODE", node.c_str(), 1), 0);
	ingest(VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE, VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE,
	       "kernel: device memory");
	unsetenv("VKP2P_RENDER_NODE");
}
