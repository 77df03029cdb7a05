// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// VK_LAYER_ONENODE_vkp2p on a real driver (lavapipe in the Debian 13 tree),
// with VK_LAYER_KHRONOS_validation below it: any validation message fails
// the test. Paths that need /dev/udmabuf (dma-buf export) run where it
// exists and skip with the reason elsewhere.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "nic_memory.hpp"
#include "vk_env.hpp"

using namespace vkp2p_test;

namespace {

bool have_udmabuf()
{
	return access("/dev/udmabuf", R_OK | W_OK) == 0;
}

struct Procs {
	PFN_vkGetDeviceNicMemorySupportONENODE support = nullptr;
	PFN_vkGetMemoryNicFdONENODE get_fd = nullptr;
	PFN_vkGetNicMemoryPlacementONENODE placement = nullptr;
	PFN_vkExportNicMemorySyncFileONENODE export_sync = nullptr;
	PFN_vkImportNicMemorySyncFileONENODE import_sync = nullptr;

	void load(const Env &env)
	{
		support = env.proc<PFN_vkGetDeviceNicMemorySupportONENODE>("vkGetDeviceNicMemorySupportONENODE");
		get_fd = env.proc<PFN_vkGetMemoryNicFdONENODE>("vkGetMemoryNicFdONENODE");
		placement = env.proc<PFN_vkGetNicMemoryPlacementONENODE>("vkGetNicMemoryPlacementONENODE");
		export_sync = env.proc<PFN_vkExportNicMemorySyncFileONENODE>("vkExportNicMemorySyncFileONENODE");
		import_sync = env.proc<PFN_vkImportNicMemorySyncFileONENODE>("vkImportNicMemorySyncFileONENODE");
	}
};

class Layer : public ::testing::Test {
protected:
	Env env;
	Procs p;
	VkPhysicalDeviceNicMemoryPropertiesONENODE props{};

	void SetUp() override
	{
		g_messages = 0;
		ASSERT_TRUE(env.create_instance({kLayer, kValidation})) << env.error;
		props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE;
		VkPhysicalDeviceProperties2 p2{};
		p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
		p2.pNext = &props;
		vkGetPhysicalDeviceProperties2(env.phys, &p2);
	}
	void TearDown() override
	{
		env.destroy();
		EXPECT_EQ(g_messages.load(), 0) << "validation messages (see stderr)";
	}

	void open_nic_device()
	{
		ASSERT_EQ(env.create_device(true), VK_SUCCESS);
		p.load(env);
		ASSERT_NE(p.support, nullptr);
	}

	VkNicMemorySupportONENODE query(const VkNicIdentifierONENODE *nic = nullptr)
	{
		VkNicMemorySupportONENODE s{};
		s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
		EXPECT_EQ(p.support(env.device, nic, &s), VK_SUCCESS);
		return s;
	}

	VkResult alloc(VkNicMemoryPolicyONENODE policy, VkDeviceSize size, VkDeviceMemory *mem,
		       const VkNicIdentifierONENODE *nic = nullptr, int type = -1,
		       const VkAllocationCallbacks *cb = nullptr)
	{
		if (type < 0)
			type = pick_type(env.phys, query().memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
		return vkp2p_common::allocate_nic_memory(env.device, size, static_cast<uint32_t>(type), policy, nic, mem,
							 cb);
	}

	VkNicMemoryPlacementInfoONENODE placement(VkDeviceMemory mem)
	{
		VkNicMemoryPlacementInfoONENODE pl{};
		pl.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
		p.placement(env.device, mem, &pl);
		return pl;
	}
};

VkNicIdentifierONENODE rdma_nic(const char *name)
{
	VkNicIdentifierONENODE nic{};
	nic.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
	std::snprintf(nic.rdmaDeviceName, sizeof(nic.rdmaDeviceName), "%s", name);
	return nic;
}

bool listed(const std::vector<VkExtensionProperties> &v, const char *name)
{
	for (auto &e : v)
		if (!std::strcmp(e.extensionName, name))
			return true;
	return false;
}

} // namespace

TEST_F(Layer, AdvertisesExtensionWhenDriverLacksIt)
{
	uint32_t n = 0;
	ASSERT_EQ(vkEnumerateDeviceExtensionProperties(env.phys, nullptr, &n, nullptr), VK_SUCCESS);
	std::vector<VkExtensionProperties> all(n);
	ASSERT_EQ(vkEnumerateDeviceExtensionProperties(env.phys, nullptr, &n, all.data()), VK_SUCCESS);
	EXPECT_TRUE(listed(all, VK_ONENODE_NIC_MEMORY_EXTENSION_NAME));

	n = 0;
	ASSERT_EQ(vkEnumerateDeviceExtensionProperties(env.phys, kLayer, &n, nullptr), VK_SUCCESS);
	ASSERT_EQ(n, 1u);
	VkExtensionProperties own{};
	ASSERT_EQ(vkEnumerateDeviceExtensionProperties(env.phys, kLayer, &n, &own), VK_SUCCESS);
	EXPECT_STREQ(own.extensionName, VK_ONENODE_NIC_MEMORY_EXTENSION_NAME);
	EXPECT_EQ(own.specVersion, VK_ONENODE_NIC_MEMORY_SPEC_VERSION);

	// A short array: VK_INCOMPLETE and no overrun.
	std::vector<VkExtensionProperties> few(2);
	uint32_t two = 2;
	EXPECT_EQ(vkEnumerateDeviceExtensionProperties(env.phys, nullptr, &two, few.data()), VK_INCOMPLETE);
	EXPECT_EQ(two, 2u);
}

TEST(LayerAbsent, DriverAloneDoesNotHaveTheExtension)
{
	g_messages = 0;
	Env env;
	ASSERT_TRUE(env.create_instance({kValidation})) << env.error;
	uint32_t n = 0;
	vkEnumerateDeviceExtensionProperties(env.phys, nullptr, &n, nullptr);
	std::vector<VkExtensionProperties> all(n);
	vkEnumerateDeviceExtensionProperties(env.phys, nullptr, &n, all.data());
	EXPECT_FALSE(listed(all, VK_ONENODE_NIC_MEMORY_EXTENSION_NAME));
	EXPECT_EQ(env.create_device(true), VK_ERROR_EXTENSION_NOT_PRESENT);
	// The loader reports the unsupported extension: that is this test's
	// expected outcome, not a validation failure.
	EXPECT_GT(g_messages.load(), 0);
	g_messages = 0;
	env.destroy();
	EXPECT_EQ(g_messages.load(), 0);
}

TEST_F(Layer, FeatureAndPropertiesAnswerAndAreStripped)
{
	// Our structure in the middle of a chain the validation layer checks.
	VkPhysicalDeviceVulkan12Features v12{};
	v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
	VkPhysicalDeviceNicMemoryFeaturesONENODE nic{};
	nic.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE;
	nic.pNext = &v12;
	VkPhysicalDeviceVulkan11Features v11{};
	v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
	v11.pNext = &nic;
	VkPhysicalDeviceFeatures2 f2{};
	f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
	f2.pNext = &v11;
	vkGetPhysicalDeviceFeatures2(env.phys, &f2);
	EXPECT_EQ(nic.nicMemory, VK_TRUE);
	EXPECT_EQ(v11.pNext, &nic) << "chain restored";
	EXPECT_EQ(nic.pNext, &v12);
	EXPECT_EQ(v12.timelineSemaphore, VK_TRUE) << "the driver still filled the structure after ours";

	EXPECT_EQ(props.hostMemoryExportable, have_udmabuf() ? VK_TRUE : VK_FALSE);
	EXPECT_EQ(props.deviceMemoryExportable, VK_FALSE) << "lavapipe has no render node";
	EXPECT_EQ(props.importHandleType, have_udmabuf() ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
							 : VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT);

	// Enabling the feature at device creation: stripped before the driver.
	nic.pNext = nullptr;
	nic.nicMemory = VK_TRUE;
	VkPhysicalDeviceFeatures2 enable{};
	enable.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
	enable.pNext = &nic;
	ASSERT_EQ(env.create_device(true, &enable), VK_SUCCESS);
	EXPECT_EQ(enable.pNext, &nic) << "the application's chain is untouched";
}

TEST_F(Layer, DisabledExtensionCostsNothing)
{
	ASSERT_EQ(env.create_device(false), VK_SUCCESS);
	EXPECT_EQ(vkGetDeviceProcAddr(env.device, "vkGetDeviceNicMemorySupportONENODE"), nullptr);
	EXPECT_EQ(vkGetDeviceProcAddr(env.device, "vkGetMemoryNicFdONENODE"), nullptr);

	// Without the extension the layer hands out the next layer's pointers:
	// the same functions a chain without this layer resolves to.
	Env plain;
	ASSERT_TRUE(plain.create_instance({kValidation})) << plain.error;
	ASSERT_EQ(plain.create_device(false), VK_SUCCESS);
	for (const char *name : {"vkAllocateMemory", "vkFreeMemory", "vkQueueSubmit", "vkCmdDispatch"})
		EXPECT_EQ(vkGetDeviceProcAddr(env.device, name), vkGetDeviceProcAddr(plain.device, name)) << name;
	plain.destroy();
}

TEST_F(Layer, EnabledExtensionInterceptsOnlyWhatItNeeds)
{
	open_nic_device();
	EXPECT_NE(p.get_fd, nullptr);
	EXPECT_NE(p.placement, nullptr);
	EXPECT_NE(p.export_sync, nullptr);
	EXPECT_NE(p.import_sync, nullptr);
	Env plain;
	ASSERT_TRUE(plain.create_instance({kValidation})) << plain.error;
	ASSERT_EQ(plain.create_device(false), VK_SUCCESS);
	EXPECT_NE(vkGetDeviceProcAddr(env.device, "vkAllocateMemory"),
		  vkGetDeviceProcAddr(plain.device, "vkAllocateMemory"));
	EXPECT_EQ(vkGetDeviceProcAddr(env.device, "vkQueueSubmit"), vkGetDeviceProcAddr(plain.device, "vkQueueSubmit"));
	plain.destroy();
}

TEST_F(Layer, SupportWithoutNic)
{
	open_nic_device();
	VkNicMemorySupportONENODE s = query();
	EXPECT_EQ(s.nicFound, VK_FALSE);
	EXPECT_EQ(s.placement, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE);
	EXPECT_EQ(s.reason, VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE);
	EXPECT_NE(s.memoryTypeBits, 0u);
	EXPECT_EQ(s.pciDistance, -1);
	EXPECT_EQ(s.dmaBufExportable, have_udmabuf() ? VK_TRUE : VK_FALSE);
	EXPECT_NE(std::strstr(s.description, "render node"), nullptr) << s.description;
}

TEST_F(Layer, SupportWithMissingNic)
{
	open_nic_device();
	VkNicIdentifierONENODE nic = rdma_nic("mlx5_404");
	VkNicMemorySupportONENODE s = query(&nic);
	EXPECT_EQ(s.nicFound, VK_FALSE);
	EXPECT_EQ(s.placement, VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE);
	EXPECT_EQ(s.reason, VK_NIC_MEMORY_REASON_NIC_NOT_FOUND_ONENODE);
	EXPECT_NE(std::strstr(s.description, "mlx5_404"), nullptr) << s.description;

	VkNicIdentifierONENODE net{};
	net.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
	net.netdevIfindex = 0x7ffffff0;
	s = query(&net);
	EXPECT_EQ(s.reason, VK_NIC_MEMORY_REASON_NIC_NOT_FOUND_ONENODE);

	VkDeviceMemory mem = VK_NULL_HANDLE;
	EXPECT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, 65536, &mem, &nic), VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE);
	EXPECT_EQ(mem, VK_NULL_HANDLE);
}

TEST_F(Layer, SupportWithLoopbackIsNotPci)
{
	if (access("/sys/class/net/lo/ifindex", R_OK) != 0)
		GTEST_SKIP() << "no loopback interface in sysfs";
	open_nic_device();
	VkNicIdentifierONENODE lo{};
	lo.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
	std::snprintf(lo.netdevName, sizeof(lo.netdevName), "lo");
	VkNicMemorySupportONENODE s = query(&lo);
	EXPECT_EQ(s.nicFound, VK_TRUE);
	EXPECT_EQ(s.placement, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE);
}

// A NIC on PCI in a fake sysfs tree (VKP2P_SYSFS_ROOT): found by RDMA name
// and by ifindex; lavapipe has no PCI function, so still host memory.
TEST_F(Layer, SupportWithNicInFakeSysfs)
{
	char tmpl[] = "/tmp/vkp2p-layer-sysfs-XXXXXX";
	ASSERT_NE(mkdtemp(tmpl), nullptr);
	std::string root = tmpl;
	std::string fn = root + "/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	std::string ib = fn + "/infiniband/mlx5_0", net = fn + "/net/eth9";
	ASSERT_EQ(system(("mkdir -p " + ib + " " + net + " " + root + "/class/infiniband " + root + "/class/net").c_str()), 0);
	ASSERT_EQ(symlink(fn.c_str(), (ib + "/device").c_str()), 0);
	ASSERT_EQ(symlink(fn.c_str(), (net + "/device").c_str()), 0);
	ASSERT_EQ(system(("echo 1 >" + ib + "/node_type; echo 9 >" + net + "/ifindex").c_str()), 0);
	ASSERT_EQ(symlink(ib.c_str(), (root + "/class/infiniband/mlx5_0").c_str()), 0);
	ASSERT_EQ(symlink(net.c_str(), (root + "/class/net/eth9").c_str()), 0);
	setenv("VKP2P_SYSFS_ROOT", root.c_str(), 1);

	open_nic_device();
	VkNicIdentifierONENODE nic = rdma_nic("mlx5_0");
	VkNicMemorySupportONENODE s = query(&nic);
	EXPECT_EQ(s.nicFound, VK_TRUE) << s.description;
	EXPECT_EQ(s.placement, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE);
	EXPECT_EQ(s.reason, VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE);
	VkNicIdentifierONENODE by_index{};
	by_index.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
	by_index.netdevIfindex = 9;
	EXPECT_EQ(query(&by_index).nicFound, VK_TRUE);
	VkDeviceMemory mem = VK_NULL_HANDLE;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, 4096, &mem, &nic), VK_SUCCESS);
	EXPECT_EQ(placement(mem).placement, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE);
	vkFreeMemory(env.device, mem, nullptr);

	unsetenv("VKP2P_SYSFS_ROOT");
	EXPECT_EQ(query(&nic).nicFound, access("/sys/class/infiniband/mlx5_0", F_OK) == 0 ? VK_TRUE : VK_FALSE);
	EXPECT_EQ(system(("rm -rf " + root).c_str()), 0);
}

TEST_F(Layer, PolicyRequireP2PFailsWithReason)
{
	open_nic_device();
	VkDeviceMemory mem = VK_NULL_HANDLE;
	testing::internal::CaptureStderr();
	EXPECT_EQ(alloc(VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE, 1 << 20, &mem), VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE);
	std::string err = testing::internal::GetCapturedStderr();
	EXPECT_EQ(mem, VK_NULL_HANDLE);
	EXPECT_NE(err.find("render node"), std::string::npos) << err;
}

TEST_F(Layer, PolicyPreferP2PFallsBackToHostAndSaysWhy)
{
	open_nic_device();
	VkDeviceMemory mem = VK_NULL_HANDLE;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, 1 << 20, &mem), VK_SUCCESS);
	VkNicMemoryPlacementInfoONENODE pl = placement(mem);
	EXPECT_EQ(pl.placement, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE);
	EXPECT_EQ(pl.reason, VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE);
	EXPECT_EQ(pl.importHandleType, props.importHandleType);
	EXPECT_EQ(pl.dmaBufExportable, have_udmabuf() ? VK_TRUE : VK_FALSE);
	EXPECT_NE(std::strstr(pl.description, "host memory"), nullptr) << pl.description;
	vkFreeMemory(env.device, mem, nullptr);
}

TEST_F(Layer, PolicyHost)
{
	open_nic_device();
	VkDeviceMemory mem = VK_NULL_HANDLE;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, 12345, &mem), VK_SUCCESS);
	VkNicMemoryPlacementInfoONENODE pl = placement(mem);
	EXPECT_EQ(pl.placement, VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE);
	EXPECT_EQ(pl.reason, have_udmabuf() ? VK_NIC_MEMORY_REASON_POLICY_HOST_ONENODE
					    : VK_NIC_MEMORY_REASON_NO_HOST_EXPORTER_ONENODE);
	// Mappable, and what the CPU writes stays.
	void *ptr = nullptr;
	ASSERT_EQ(vkMapMemory(env.device, mem, 0, VK_WHOLE_SIZE, 0, &ptr), VK_SUCCESS);
	std::memset(ptr, 0x5a, 12345);
	EXPECT_EQ(static_cast<unsigned char *>(ptr)[12344], 0x5a);
	vkUnmapMemory(env.device, mem);
	vkFreeMemory(env.device, mem, nullptr);
}

TEST_F(Layer, ExportGivesTheBytesTheDeviceSees)
{
	open_nic_device();
	VkDeviceMemory mem = VK_NULL_HANDLE;
	const size_t size = 1 << 16;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, size, &mem), VK_SUCCESS);
	VkMemoryGetNicFdInfoONENODE gi{};
	gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
	gi.memory = mem;
	int fd = -1;
	if (!have_udmabuf()) {
		EXPECT_EQ(p.get_fd(env.device, &gi, &fd), VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE);
		EXPECT_EQ(fd, -1);
		vkFreeMemory(env.device, mem, nullptr);
		GTEST_SKIP() << "no /dev/udmabuf here: host memory is not exportable (checked that export says so)";
	}
	ASSERT_EQ(p.get_fd(env.device, &gi, &fd), VK_SUCCESS);
	ASSERT_GE(fd, 0);
	EXPECT_GE(lseek(fd, 0, SEEK_END), static_cast<off_t>(size));
	auto *nic_view = static_cast<unsigned char *>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	ASSERT_NE(nic_view, MAP_FAILED);
	for (size_t i = 0; i < size; i++)
		nic_view[i] = static_cast<unsigned char>(i * 7 + 1);
	void *ptr = nullptr;
	ASSERT_EQ(vkMapMemory(env.device, mem, 0, VK_WHOLE_SIZE, 0, &ptr), VK_SUCCESS);
	EXPECT_EQ(std::memcmp(ptr, nic_view, size), 0);
	vkUnmapMemory(env.device, mem);

	// dma-buf implicit sync: nothing pending, the sync file is signaled.
	int sync = -1;
	ASSERT_EQ(p.export_sync(env.device, mem, VK_FALSE, &sync), VK_SUCCESS);
	ASSERT_GE(sync, 0);
	EXPECT_EQ(p.import_sync(env.device, mem, VK_TRUE, sync), VK_SUCCESS);
	close(sync);

	munmap(nic_view, size);
	close(fd);
	vkFreeMemory(env.device, mem, nullptr);
}

// udmabuf refuses buffers above its size_limit_mb: the allocation fails
// with the reason instead of handing out memory the NIC cannot import.
TEST_F(Layer, AboveTheUdmabufLimitFailsWithReason)
{
	FILE *f = std::fopen("/sys/module/udmabuf/parameters/size_limit_mb", "r");
	unsigned long limit_mb = 0;
	if (f) {
		if (std::fscanf(f, "%lu", &limit_mb) != 1)
			limit_mb = 0;
		std::fclose(f);
	}
	if (!have_udmabuf() || !limit_mb || limit_mb > 1024)
		GTEST_SKIP() << "needs /dev/udmabuf with a size limit of at most 1 GiB";
	open_nic_device();
	VkDeviceMemory mem = VK_NULL_HANDLE;
	testing::internal::CaptureStderr();
	EXPECT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, (limit_mb + 1) << 20, &mem),
		  VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE);
	std::string err = testing::internal::GetCapturedStderr();
	EXPECT_NE(err.find("size_limit_mb"), std::string::npos) << err;
	EXPECT_EQ(mem, VK_NULL_HANDLE);
}

TEST_F(Layer, BufferBindsAndCopies)
{
	open_nic_device();
	const VkDeviceSize size = 1 << 16;
	VkExternalMemoryBufferCreateInfo ext{};
	ext.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
	ext.handleTypes = props.importHandleType;
	VkBufferCreateInfo bi{};
	bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
	bi.pNext = &ext;
	bi.size = size;
	bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	VkBuffer buf = VK_NULL_HANDLE;
	ASSERT_EQ(vkCreateBuffer(env.device, &bi, nullptr, &buf), VK_SUCCESS);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(env.device, buf, &req);
	int type = pick_type(env.phys, req.memoryTypeBits & query().memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	ASSERT_GE(type, 0);
	VkDeviceMemory mem = VK_NULL_HANDLE;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, req.size, &mem, nullptr, type), VK_SUCCESS);
	ASSERT_EQ(vkBindBufferMemory(env.device, buf, mem, 0), VK_SUCCESS);

	// The device writes the buffer (vkCmdFillBuffer), the CPU reads it.
	VkCommandPoolCreateInfo pi{};
	pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
	pi.queueFamilyIndex = env.queue_family;
	VkCommandPool pool;
	ASSERT_EQ(vkCreateCommandPool(env.device, &pi, nullptr, &pool), VK_SUCCESS);
	VkCommandBufferAllocateInfo cai{};
	cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
	cai.commandPool = pool;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 1;
	VkCommandBuffer cmd;
	ASSERT_EQ(vkAllocateCommandBuffers(env.device, &cai, &cmd), VK_SUCCESS);
	VkCommandBufferBeginInfo begin{};
	begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
	vkBeginCommandBuffer(cmd, &begin);
	vkCmdFillBuffer(cmd, buf, 0, size, 0xC0FFEE11u);
	VkMemoryBarrier mb{};
	mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
	mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr,
			     0, nullptr);
	vkEndCommandBuffer(cmd);
	VkSubmitInfo si{};
	si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cmd;
	ASSERT_EQ(vkQueueSubmit(env.queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
	ASSERT_EQ(vkQueueWaitIdle(env.queue), VK_SUCCESS);
	uint32_t *words = nullptr;
	ASSERT_EQ(vkMapMemory(env.device, mem, 0, VK_WHOLE_SIZE, 0, reinterpret_cast<void **>(&words)), VK_SUCCESS);
	for (size_t i = 0; i < size / 4; i++)
		ASSERT_EQ(words[i], 0xC0FFEE11u) << i;
	vkUnmapMemory(env.device, mem);

	vkDestroyCommandPool(env.device, pool, nullptr);
	vkDestroyBuffer(env.device, buf, nullptr);
	vkFreeMemory(env.device, mem, nullptr);
}

TEST_F(Layer, InvalidUsageIsRejected)
{
	open_nic_device();
	VkDeviceMemory mem = VK_NULL_HANDLE;
	testing::internal::CaptureStderr();
	EXPECT_EQ(alloc(static_cast<VkNicMemoryPolicyONENODE>(7), 4096, &mem), VK_ERROR_VALIDATION_FAILED_EXT);
	uint32_t bits = query().memoryTypeBits;
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(env.phys, &mp);
	for (uint32_t t = 0; t < 32; t++)
		if (!(bits & (1u << t))) {
			EXPECT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, 4096, &mem, nullptr, static_cast<int>(t)),
				  VK_ERROR_VALIDATION_FAILED_EXT);
			break;
		}
	VkNicIdentifierONENODE bad = rdma_nic("mlx5_0");
	bad.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
	EXPECT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, 4096, &mem, &bad), VK_ERROR_VALIDATION_FAILED_EXT);
	VkNicMemorySupportONENODE s{};
	s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
	EXPECT_EQ(p.support(env.device, &bad, &s), VK_ERROR_VALIDATION_FAILED_EXT);
	VkNicIdentifierONENODE unterminated = rdma_nic("");
	std::memset(unterminated.rdmaDeviceName, 'x', sizeof(unterminated.rdmaDeviceName));
	EXPECT_EQ(p.support(env.device, &unterminated, &s), VK_ERROR_VALIDATION_FAILED_EXT);
	EXPECT_EQ(mem, VK_NULL_HANDLE);

	// Export and placement of memory that is not NIC memory.
	VkMemoryAllocateInfo plain{};
	plain.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	plain.allocationSize = 4096;
	plain.memoryTypeIndex = 0;
	VkDeviceMemory other = VK_NULL_HANDLE;
	ASSERT_EQ(vkAllocateMemory(env.device, &plain, nullptr, &other), VK_SUCCESS);
	VkMemoryGetNicFdInfoONENODE gi{};
	gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
	gi.memory = other;
	int fd = -1;
	EXPECT_EQ(p.get_fd(env.device, &gi, &fd), VK_ERROR_VALIDATION_FAILED_EXT);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(placement(other).placement, VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE);
	std::string err = testing::internal::GetCapturedStderr();
	EXPECT_NE(err.find("invalid usage"), std::string::npos);
	vkFreeMemory(env.device, other, nullptr);
}

TEST_F(Layer, DestroyOrdering)
{
	open_nic_device();
	VkDeviceMemory a = VK_NULL_HANDLE, b = VK_NULL_HANDLE;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, 8192, &a), VK_SUCCESS);
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, 8192, &b), VK_SUCCESS);
	int fd = -1;
	if (have_udmabuf()) {
		VkMemoryGetNicFdInfoONENODE gi{};
		gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
		gi.memory = b;
		ASSERT_EQ(p.get_fd(env.device, &gi, &fd), VK_SUCCESS);
		void *ptr = nullptr;
		ASSERT_EQ(vkMapMemory(env.device, b, 0, VK_WHOLE_SIZE, 0, &ptr), VK_SUCCESS);
		std::memset(ptr, 0xab, 8192);
		vkUnmapMemory(env.device, b);
	}
	// Free in allocation order (not reverse), then destroy the device:
	// an exported fd outlives both, as a NIC's registration would.
	vkFreeMemory(env.device, a, nullptr);
	vkFreeMemory(env.device, b, nullptr);
	vkFreeMemory(env.device, VK_NULL_HANDLE, nullptr);
	vkDestroyDevice(env.device, nullptr);
	env.device = VK_NULL_HANDLE;
	if (fd >= 0) {
		auto *view = static_cast<unsigned char *>(mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0));
		ASSERT_NE(view, MAP_FAILED);
		EXPECT_EQ(view[0], 0xab);
		EXPECT_EQ(view[8191], 0xab);
		munmap(view, 8192);
		close(fd);
	}
}

// Counts live allocations made through the callbacks.
struct CountingAllocator {
	std::mutex lock;
	std::map<void *, size_t> live;
	size_t total = 0;

	static void *alloc(void *ud, size_t size, size_t align, VkSystemAllocationScope)
	{
		auto *self = static_cast<CountingAllocator *>(ud);
		void *p = std::aligned_alloc(align, (size + align - 1) / align * align);
		std::lock_guard<std::mutex> g(self->lock);
		self->live[p] = size;
		self->total++;
		return p;
	}
	static void *realloc(void *ud, void *old, size_t size, size_t align, VkSystemAllocationScope s)
	{
		auto *self = static_cast<CountingAllocator *>(ud);
		void *p = alloc(ud, size, align, s);
		if (old) {
			size_t n;
			{
				std::lock_guard<std::mutex> g(self->lock);
				n = self->live[old];
			}
			std::memcpy(p, old, n < size ? n : size);
			free(ud, old);
		}
		return p;
	}
	static void free(void *ud, void *p)
	{
		if (!p)
			return;
		auto *self = static_cast<CountingAllocator *>(ud);
		{
			std::lock_guard<std::mutex> g(self->lock);
			self->live.erase(p);
		}
		std::free(p);
	}
	VkAllocationCallbacks callbacks()
	{
		VkAllocationCallbacks cb{};
		cb.pUserData = this;
		cb.pfnAllocation = alloc;
		cb.pfnReallocation = realloc;
		cb.pfnFree = free;
		return cb;
	}
};

TEST_F(Layer, UsesTheApplicationsAllocator)
{
	CountingAllocator counter;
	VkAllocationCallbacks cb = counter.callbacks();
	ASSERT_EQ(env.create_device(true, nullptr, &cb), VK_SUCCESS);
	p.load(env);
	size_t after_device = counter.total;
	EXPECT_GT(after_device, 0u);
	VkDeviceMemory mem = VK_NULL_HANDLE;
	ASSERT_EQ(alloc(VK_NIC_MEMORY_POLICY_HOST_ONENODE, 4096, &mem, nullptr, -1, &cb), VK_SUCCESS);
	EXPECT_GT(counter.total, after_device) << "the NIC allocation record came from the callbacks";
	vkFreeMemory(env.device, mem, &cb);
	vkDestroyDevice(env.device, &cb);
	env.device = VK_NULL_HANDLE;
	EXPECT_TRUE(counter.live.empty()) << counter.live.size() << " allocations left";
}
