// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// radv_nic_memory_test: VK_ONENODE_nic_memory as RADV implements it natively
// (mesa-patches/), on the device the loader gives us: the RADV null device
// (RADV_FORCE_FAMILY) on a machine without an AMD GPU, where no shader runs
// and no memory can be allocated, or a real AMD GPU.
//
//   radv_nic_memory_test [--layer] [--expect-absent] [--kernel RDMA_DEVICE]
//
// Checks: the extension is listed once; the feature and property structs
// chain (between two core structs) and read back; the five entry points
// resolve through vkGetDeviceProcAddr on a device with the extension enabled
// and not on one without it; the support query answers from the driver.
// With --layer, VK_LAYER_ONENODE_vkp2p is enabled (found through the loader's
// layer path, e.g. VK_ADD_LAYER_PATH), must be loaded, and must step aside: the answers then still come from RADV ("radv: ..."
// descriptions), not from the layer.
// With --expect-absent (RADV's real amdgpu winsys over a kernel without the
// onenode uapi, e.g. Mesa's amdgpu drm-shim), RADV must not advertise the
// extension; with --layer too, the layer must offer it instead.
// With --kernel (RADV over the drm-shim, its NIC memory on a real kernel
// through onenode_compute_shim.c's kernel mode, e.g. vcompute in the test
// VM), NIC memory also goes to a NIC: RDMA_DEVICE (Soft-RoCE) registers the
// exported dma-buf and an RDMA WRITE lands in it; the CPU mapping RADV gave
// reads what the NIC wrote, and the placement query follows the kernel's
// report as the importer comes and goes.
#include <cstdio>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vk_onenode_nic_memory.h>

#include "onenode_rdma.h"

namespace {

int failures = 0;
int checks = 0;
const char *kernel_rdma; // --kernel: the RDMA device that imports NIC memory

void check(bool ok, const std::string &what)
{
	++checks;
	std::printf("%s %d - %s\n", ok ? "ok" : "not ok", checks, what.c_str());
	if (!ok)
		++failures;
}

const char *kCommands[] = {
	"vkGetDeviceNicMemorySupportONENODE", "vkGetMemoryNicFdONENODE", "vkGetNicMemoryPlacementONENODE",
	"vkExportNicMemorySyncFileONENODE", "vkImportNicMemorySyncFileONENODE",
};

bool has_ext(const std::vector<VkExtensionProperties> &exts, const char *name)
{
	for (auto &e : exts)
		if (!std::strcmp(e.extensionName, name))
			return true;
	return false;
}

VkDevice make_device(VkPhysicalDevice phys, bool with_extension, void *features,
		     const std::vector<VkExtensionProperties> &exts)
{
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q{};
	q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
	q.queueFamilyIndex = 0;
	q.queueCount = 1;
	q.pQueuePriorities = &prio;
	// The extension, and what imports its dma-bufs back where the driver has it.
	std::vector<const char *> names;
	if (with_extension) {
		names.push_back(VK_ONENODE_NIC_MEMORY_EXTENSION_NAME);
		for (const char *e : {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME})
			if (has_ext(exts, e))
				names.push_back(e);
	}
	VkDeviceCreateInfo ci{};
	ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
	ci.pNext = with_extension ? features : nullptr;
	ci.queueCreateInfoCount = 1;
	ci.pQueueCreateInfos = &q;
	ci.enabledExtensionCount = static_cast<uint32_t>(names.size());
	ci.ppEnabledExtensionNames = names.data();
	VkDevice dev = VK_NULL_HANDLE;
	VkResult r = vkCreateDevice(phys, &ci, nullptr, &dev);
	check(r == VK_SUCCESS, std::string("vkCreateDevice ") + (with_extension ? "with" : "without") +
				       " the extension (VkResult " + std::to_string(r) + ")");
	return r == VK_SUCCESS ? dev : VK_NULL_HANDLE;
}

// Allocation, export, import and placement: only where the device has NIC
// memory (a GPU on the onenode kernel, or the fake kernel of
// onenode_compute_shim.c over Mesa's amdgpu drm-shim).
struct NicProcs {
	PFN_vkGetDeviceNicMemorySupportONENODE support;
	PFN_vkGetMemoryNicFdONENODE fd;
	PFN_vkGetNicMemoryPlacementONENODE placement;
};

NicProcs nic_procs(VkDevice dev)
{
	return NicProcs{
		reinterpret_cast<PFN_vkGetDeviceNicMemorySupportONENODE>(
			vkGetDeviceProcAddr(dev, "vkGetDeviceNicMemorySupportONENODE")),
		reinterpret_cast<PFN_vkGetMemoryNicFdONENODE>(vkGetDeviceProcAddr(dev, "vkGetMemoryNicFdONENODE")),
		reinterpret_cast<PFN_vkGetNicMemoryPlacementONENODE>(
			vkGetDeviceProcAddr(dev, "vkGetNicMemoryPlacementONENODE")),
	};
}

VkResult alloc(VkDevice dev, uint32_t type, VkDeviceSize size, const void *next, VkDeviceMemory *mem)
{
	VkMemoryAllocateInfo ai{};
	ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	ai.pNext = next;
	ai.allocationSize = size;
	ai.memoryTypeIndex = type;
	*mem = VK_NULL_HANDLE;
	return vkAllocateMemory(dev, &ai, nullptr, mem);
}

VkResult alloc_nic(VkDevice dev, uint32_t type, VkNicMemoryPolicyONENODE policy, const VkNicIdentifierONENODE *nic,
		   VkDeviceMemory *mem)
{
	VkNicMemoryAllocateInfoONENODE info{};
	info.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_ALLOCATE_INFO_ONENODE;
	info.policy = policy;
	info.pNic = nic;
	return alloc(dev, type, 1u << 20, &info, mem);
}

VkNicMemoryPlacementInfoONENODE placement_of(const NicProcs &p, VkDevice dev, VkDeviceMemory mem)
{
	VkNicMemoryPlacementInfoONENODE info{};
	info.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
	info.placement = static_cast<VkNicMemoryPlacementONENODE>(0x55);
	p.placement(dev, mem, &info);
	std::printf("#   placement %d reason %d importHandleType 0x%x dmaBufExportable %u: \"%s\"\n", info.placement,
		    info.reason, info.importHandleType, info.dmaBufExportable, info.description);
	return info;
}

VkNicIdentifierONENODE netdev(const char *name)
{
	VkNicIdentifierONENODE nic{};
	nic.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
	std::snprintf(nic.netdevName, sizeof(nic.netdevName), "%s", name);
	return nic;
}

void nic_memory_checks(VkDevice dev, VkPhysicalDevice pd, const VkPhysicalDeviceMemoryProperties &mp,
		       uint32_t type_bits, bool native)
{
	const NicProcs p = nic_procs(dev);
	if (!p.support || !p.fd || !p.placement)
		return;
	(void)pd;
	const uint32_t type = static_cast<uint32_t>(__builtin_ctz(type_bits));
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
					   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	check(__builtin_popcount(type_bits) == 1, "NIC memory has one memory type (" + std::to_string(type) + ")");
	if (native) {
		check(type == mp.memoryTypeCount - 1, "it is the last type: every other type keeps its index");
		check(mp.memoryTypes[type].propertyFlags == want,
		      "it is DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT (VRAM in the BAR)");
	}

	// Buffers may use it, images not.
	VkExternalMemoryBufferCreateInfo ext{};
	ext.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
	ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	VkBufferCreateInfo bci{};
	bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
	bci.pNext = &ext;
	bci.size = 1u << 20;
	bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	VkBuffer buf = VK_NULL_HANDLE;
	VkMemoryRequirements breq{};
	if (vkCreateBuffer(dev, &bci, nullptr, &buf) == VK_SUCCESS)
		vkGetBufferMemoryRequirements(dev, buf, &breq);
	check(breq.memoryTypeBits & (1u << type), "a dma-buf buffer may be bound to it");
	if (native) {
		VkImageCreateInfo ici{};
		ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
		ici.imageType = VK_IMAGE_TYPE_2D;
		ici.format = VK_FORMAT_R8G8B8A8_UNORM;
		ici.extent = {64, 64, 1};
		ici.mipLevels = ici.arrayLayers = 1;
		ici.samples = VK_SAMPLE_COUNT_1_BIT;
		ici.tiling = VK_IMAGE_TILING_OPTIMAL;
		ici.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
		VkImage img = VK_NULL_HANDLE;
		VkMemoryRequirements ireq{};
		if (vkCreateImage(dev, &ici, nullptr, &img) == VK_SUCCESS) {
			vkGetImageMemoryRequirements(dev, img, &ireq);
			vkDestroyImage(dev, img, nullptr);
		}
		check(ireq.memoryTypeBits && !(ireq.memoryTypeBits & (1u << type)), "an image may not");
	}

	VkDeviceMemory req = VK_NULL_HANDLE;
	VkResult r = alloc_nic(dev, type, VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE, nullptr, &req);
	check(r == VK_SUCCESS, "REQUIRE_P2P NIC memory allocates (VkResult " + std::to_string(r) + ")");
	if (r == VK_SUCCESS) {
		void *ptr = nullptr;
		r = vkMapMemory(dev, req, 0, VK_WHOLE_SIZE, 0, &ptr);
		bool same = false;
		if (r == VK_SUCCESS && ptr) {
			auto *u = static_cast<uint32_t *>(ptr);
			for (uint32_t i = 0; i < (1u << 18); i++)
				u[i] = i * 2654435761u;
			same = true;
			for (uint32_t i = 0; i < (1u << 18); i++)
				same &= u[i] == i * 2654435761u;
			vkUnmapMemory(dev, req);
		}
		check(same, "it maps, and the CPU reads back what it wrote");
		if (buf)
			check(vkBindBufferMemory(dev, buf, req, 0) == VK_SUCCESS, "the dma-buf buffer binds to it");

		VkNicMemoryPlacementInfoONENODE pl = placement_of(p, dev, req);
		check(pl.placement == VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE &&
			      pl.reason == VK_NIC_MEMORY_REASON_P2P_ONENODE,
		      "placement: DEVICE_LOCAL, reason P2P");
		check(pl.importHandleType == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT && pl.dmaBufExportable,
		      "placement: dma-buf exportable, import handle type DMA_BUF");
		if (native)
			check(std::string_view(pl.description).starts_with("kernel P2P report"),
			      "the placement comes from the kernel's P2P report");

		VkMemoryGetNicFdInfoONENODE gi{};
		gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
		gi.memory = req;
		int fd = -1, fd2 = -1;
		r = p.fd(dev, &gi, &fd);
		VkResult r2 = p.fd(dev, &gi, &fd2);
		check(r == VK_SUCCESS && fd >= 0 && r2 == VK_SUCCESS && fd2 >= 0 && fd2 != fd,
		      "vkGetMemoryNicFdONENODE returns a new dma-buf fd each call");
		if (fd >= 0) {
			off_t size = lseek(fd, 0, SEEK_END);
			check(size >= (1 << 20), "the dma-buf covers the allocation (" + std::to_string(size) + " bytes)");
			auto props_fn = reinterpret_cast<PFN_vkGetMemoryFdPropertiesKHR>(
				vkGetDeviceProcAddr(dev, "vkGetMemoryFdPropertiesKHR"));
			VkMemoryFdPropertiesKHR fp{};
			fp.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR;
			r = props_fn ? props_fn(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd, &fp)
				     : VK_ERROR_EXTENSION_NOT_PRESENT;
			check(r == VK_SUCCESS && fp.memoryTypeBits == (1u << type),
			      "vkGetMemoryFdPropertiesKHR maps the dma-buf back to the NIC type only (0x" +
				      [&] {
					      char b[16];
					      std::snprintf(b, sizeof(b), "%x", fp.memoryTypeBits);
					      return std::string(b);
				      }() +
				      ")");
			VkImportMemoryFdInfoKHR imp{};
			imp.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
			imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
			imp.fd = fd; // the driver owns it on success
			VkDeviceMemory back = VK_NULL_HANDLE;
			r = alloc(dev, type, 1u << 20, &imp, &back);
			check(r == VK_SUCCESS, "the dma-buf imports back into the NIC type");
			if (r == VK_SUCCESS) {
				fd = -1;
				VkNicMemoryPlacementInfoONENODE bp = placement_of(p, dev, back);
				check(bp.placement == VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE,
				      "the imported memory is still NIC memory in VRAM");
				vkFreeMemory(dev, back, nullptr);
			}
		}
		if (fd >= 0)
			close(fd);
		if (fd2 >= 0)
			close(fd2);
	}

	VkDeviceMemory host = VK_NULL_HANDLE;
	r = alloc_nic(dev, type, VK_NIC_MEMORY_POLICY_HOST_ONENODE, nullptr, &host);
	check(r == VK_SUCCESS, "HOST NIC memory allocates");
	if (r == VK_SUCCESS) {
		VkNicMemoryPlacementInfoONENODE pl = placement_of(p, dev, host);
		check(pl.placement == VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE &&
			      pl.reason == VK_NIC_MEMORY_REASON_POLICY_HOST_ONENODE,
		      "placement: HOST, reason POLICY_HOST");
		vkFreeMemory(dev, host, nullptr);
	}

	VkDeviceMemory prefer = VK_NULL_HANDLE;
	r = alloc_nic(dev, type, VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, nullptr, &prefer);
	check(r == VK_SUCCESS, "PREFER_P2P NIC memory allocates");
	if (r == VK_SUCCESS)
		vkFreeMemory(dev, prefer, nullptr);

	// A NIC that is no PCI device (loopback) and one that does not exist.
	VkNicIdentifierONENODE lo = netdev("lo"), none = netdev("onenode-no-such-nic0");
	VkNicMemorySupportONENODE s{};
	s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
	p.support(dev, &lo, &s);
	std::printf("# support (lo): nicFound %u placement %d reason %d pciDistance %d\n#   \"%s\"\n", s.nicFound,
		    s.placement, s.reason, s.pciDistance, s.description);
	check(s.nicFound && s.pciDistance == -1 && s.placement == VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE &&
		      s.reason == VK_NIC_MEMORY_REASON_NOT_P2P_REACHABLE_ONENODE,
	      "support for lo: found, not P2P reachable, PREFER_P2P would end in host memory");
	VkDeviceMemory m = VK_NULL_HANDLE;
	r = alloc_nic(dev, type, VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE, &lo, &m);
	check(r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE,
	      "REQUIRE_P2P for lo fails with VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE (" + std::to_string(r) + ")");
	if (m)
		vkFreeMemory(dev, m, nullptr);
	r = alloc_nic(dev, type, VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, &none, &m);
	check(r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE, "a NIC that does not exist fails the allocation");
	if (m)
		vkFreeMemory(dev, m, nullptr);

	if (native) {
		uint32_t other = type == 0 ? 1 : 0;
		r = alloc_nic(dev, other, VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, nullptr, &m);
		check(r == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE, "NIC memory from another memory type fails");
		if (m)
			vkFreeMemory(dev, m, nullptr);
		r = alloc(dev, other, 1u << 20, nullptr, &m);
		if (r == VK_SUCCESS) {
			VkNicMemoryPlacementInfoONENODE pl = placement_of(p, dev, m);
			check(pl.placement == VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE, "ordinary memory: placement NONE");
			VkMemoryGetNicFdInfoONENODE gi{};
			gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
			gi.memory = m;
			int fd = -1;
			check(p.fd(dev, &gi, &fd) == VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE,
			      "ordinary memory: no NIC fd");
			vkFreeMemory(dev, m, nullptr);
		}
	}
	if (buf)
		vkDestroyBuffer(dev, buf, nullptr);
	if (req)
		vkFreeMemory(dev, req, nullptr);
}

// --kernel: NIC memory from RADV, a NIC writing into it, the CPU reading it.
void kernel_nic_checks(VkDevice dev, uint32_t type_bits)
{
	const NicProcs p = nic_procs(dev);
	const uint32_t type = static_cast<uint32_t>(__builtin_ctz(type_bits));
	const std::size_t size = 1u << 20, words = size / 4;
	if (!p.fd || !p.placement)
		return;

	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkResult r = alloc_nic(dev, type, VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE, nullptr, &mem);
	check(r == VK_SUCCESS, "kernel: PREFER_P2P NIC memory allocates from the kernel");
	if (r != VK_SUCCESS)
		return;
	void *ptr = nullptr;
	r = vkMapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, &ptr);
	check(r == VK_SUCCESS && ptr, "kernel: it maps");
	auto *u = static_cast<volatile uint32_t *>(ptr);
	if (u)
		for (std::size_t i = 0; i < words; i++)
			u[i] = 0xdead0000u | (i & 0xffffu);
	VkNicMemoryPlacementInfoONENODE pl = placement_of(p, dev, mem);
	check(std::string_view(pl.description).starts_with("kernel P2P report") &&
		      std::string_view(pl.description).find(" 0 importer(s)") != std::string_view::npos,
	      "kernel: before any NIC, the kernel reports no importer");

	VkMemoryGetNicFdInfoONENODE gi{};
	gi.sType = VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE;
	gi.memory = mem;
	int fd = -1;
	r = p.fd(dev, &gi, &fd);
	check(r == VK_SUCCESS && fd >= 0, "kernel: vkGetMemoryNicFdONENODE exports the kernel's dma-buf");

	struct onenode_rdma *nic = nullptr;
	int err = onenode_rdma_open(kernel_rdma, &nic);
	check(!err, std::string("kernel: RDMA device ") + kernel_rdma + " opens (" + std::strerror(-err) + ")");
	std::vector<uint32_t> src(words);
	for (std::size_t i = 0; i < words; i++)
		src[i] = static_cast<uint32_t>(i * 2654435761u) ^ 0x5a5a5a5au;
	ibv_mr *src_mr = nullptr, *dst_mr = nullptr;
	if (nic && fd >= 0 && u) {
		src_mr = ibv_reg_mr(onenode_rdma_pd(nic), src.data(), size, IBV_ACCESS_LOCAL_WRITE);
		err = onenode_rdma_reg_dmabuf(nic, fd, 0, size, &dst_mr);
		check(src_mr && !err && dst_mr,
		      "kernel: the NIC registers the dma-buf as a memory region (" + std::string(std::strerror(-err)) + ")");
	}
	if (dst_mr) {
		VkNicMemoryPlacementInfoONENODE held = placement_of(p, dev, mem);
		std::string_view d(held.description);
		bool host = held.placement == VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE;
		// A NIC attaches as an importer; Soft-RoCE maps the buffer in the
		// kernel instead (its CPU does the DMA), which pins it where it is.
		check((d.find(" 1 importer(s)") != std::string_view::npos) !=
			      (d.find(" 1 kernel mapping(s)") != std::string_view::npos),
		      "kernel: with the region registered, the kernel reports the NIC's hold on it "
		      "(one importer or one kernel mapping)");
		check(host == (d.find("system memory") != std::string_view::npos) &&
			      (host ? held.reason == VK_NIC_MEMORY_REASON_NOT_P2P_REACHABLE_ONENODE
				    : held.reason == VK_NIC_MEMORY_REASON_P2P_ONENODE),
		      "kernel: the placement and its reason are the kernel's report translated");
		err = onenode_rdma_write(nic, src_mr, 0, dst_mr, 0, size, 64u << 10);
		check(!err, std::string("kernel: an RDMA WRITE of 1 MiB into it completes (") +
				    onenode_rdma_last_status(nic) + ")");
		std::size_t bad = 0;
		for (std::size_t i = 0; i < words; i++)
			bad += u[i] != src[i];
		check(!err && !bad, "kernel: the CPU mapping RADV gave reads every word the NIC wrote (" +
					    std::to_string(bad) + " differ)");
		ibv_dereg_mr(dst_mr);
		VkNicMemoryPlacementInfoONENODE after = placement_of(p, dev, mem);
		check(std::string_view(after.description).find(" 0 importer(s)") != std::string_view::npos &&
			      std::string_view(after.description).find("kernel mapping") == std::string_view::npos,
		      "kernel: after the NIC lets go, no importer or kernel mapping is left");
		std::size_t still = 0;
		for (std::size_t i = 0; i < words; i++)
			still += u[i] == src[i];
		check(still == words, "kernel: the data is still there after the NIC let go");
	}
	if (src_mr)
		ibv_dereg_mr(src_mr);
	if (nic)
		onenode_rdma_close(nic);
	if (fd >= 0)
		close(fd);
	if (u)
		vkUnmapMemory(dev, mem);
	vkFreeMemory(dev, mem, nullptr);
}

} // namespace

int main(int argc, char **argv)
{
	bool layer = false, absent = false;
	for (int i = 1; i < argc; i++) {
		layer |= std::string_view(argv[i]) == "--layer";
		absent |= std::string_view(argv[i]) == "--expect-absent";
		if (std::string_view(argv[i]) == "--kernel" && i + 1 < argc)
			kernel_rdma = argv[++i];
	}
	// Who must answer the extension's calls: RADV, or the layer over it.
	bool native = !absent;
	const char *layer_name = "VK_LAYER_ONENODE_vkp2p";

	VkApplicationInfo app{};
	app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
	app.pApplicationName = "radv_nic_memory_test";
	app.apiVersion = VK_API_VERSION_1_3;
	VkInstanceCreateInfo ici{};
	ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
	ici.pApplicationInfo = &app;
	ici.enabledLayerCount = layer ? 1 : 0;
	ici.ppEnabledLayerNames = layer ? &layer_name : nullptr;
	VkInstance inst = VK_NULL_HANDLE;
	VkResult r = vkCreateInstance(&ici, nullptr, &inst);
	check(r == VK_SUCCESS, std::string("vkCreateInstance") + (layer ? " with VK_LAYER_ONENODE_vkp2p" : "") +
				       " (VkResult " + std::to_string(r) + ")");
	if (r != VK_SUCCESS)
		return 1;
	if (layer) {
		// The layer is in the process, so stepping aside is its choice.
		bool mapped = false;
		if (FILE *maps = std::fopen("/proc/self/maps", "r")) {
			char line[4096];
			while (!mapped && std::fgets(line, sizeof(line), maps))
				mapped = std::strstr(line, "libVkLayer_onenode_vkp2p.so") != nullptr;
			std::fclose(maps);
		}
		check(mapped, "libVkLayer_onenode_vkp2p.so is loaded");
	}

	uint32_t n = 0;
	vkEnumeratePhysicalDevices(inst, &n, nullptr);
	std::vector<VkPhysicalDevice> phys(n);
	vkEnumeratePhysicalDevices(inst, &n, phys.data());
	VkPhysicalDevice pd = VK_NULL_HANDLE;
	VkPhysicalDeviceDriverProperties driver{};
	driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
	VkPhysicalDeviceProperties2 p2{};
	p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
	p2.pNext = &driver;
	for (VkPhysicalDevice p : phys) {
		vkGetPhysicalDeviceProperties2(p, &p2);
		if (driver.driverID == VK_DRIVER_ID_MESA_RADV) {
			pd = p;
			break;
		}
	}
	check(pd != VK_NULL_HANDLE, "a RADV physical device is enumerated");
	if (!pd)
		return 1;
	std::printf("# device: %s, %s %s\n", p2.properties.deviceName, driver.driverName, driver.driverInfo);

	uint32_t count = 0;
	vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr);
	std::vector<VkExtensionProperties> exts(count);
	vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, exts.data());
	int listed = 0;
	uint32_t spec_version = 0;
	for (auto &e : exts) {
		if (!std::strcmp(e.extensionName, VK_ONENODE_NIC_MEMORY_EXTENSION_NAME)) {
			++listed;
			spec_version = e.specVersion;
		}
	}
	VkPhysicalDeviceMemoryProperties mem{};
	vkGetPhysicalDeviceMemoryProperties(pd, &mem);
	std::printf("# memory types: %u\n", mem.memoryTypeCount);

	if (absent && !layer) {
		check(listed == 0, "VK_ONENODE_nic_memory is not listed: this kernel has no P2P export uapi");
		check(mem.memoryTypeCount > 0, "the device has memory types (a real winsys)");
		float prio = 1.0f;
		VkDeviceQueueCreateInfo q{};
		q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
		q.queueCount = 1;
		q.pQueuePriorities = &prio;
		const char *ext = VK_ONENODE_NIC_MEMORY_EXTENSION_NAME;
		VkDeviceCreateInfo ci{};
		ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
		ci.queueCreateInfoCount = 1;
		ci.pQueueCreateInfos = &q;
		ci.enabledExtensionCount = 1;
		ci.ppEnabledExtensionNames = &ext;
		VkDevice d = VK_NULL_HANDLE;
		r = vkCreateDevice(pd, &ci, nullptr, &d);
		check(r == VK_ERROR_EXTENSION_NOT_PRESENT,
		      "enabling it fails with VK_ERROR_EXTENSION_NOT_PRESENT (VkResult " + std::to_string(r) + ")");
		if (d)
			vkDestroyDevice(d, nullptr);
		vkDestroyInstance(inst, nullptr);
		std::printf("# %d checks, %d failed\n", checks, failures);
		return failures ? 1 : 0;
	}
	check(listed == 1, std::string("VK_ONENODE_nic_memory is listed exactly once") +
				   (native ? "" : ", by the layer") + " (listed " + std::to_string(listed) + ")");
	check(spec_version == VK_ONENODE_NIC_MEMORY_SPEC_VERSION, "its spec version is 1");

	// Features: the NIC struct between two core structs, pre-filled with a
	// sentinel, so that both the write and the walk past it show.
	VkPhysicalDeviceVulkan11Features v11{};
	v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
	VkPhysicalDeviceNicMemoryFeaturesONENODE nicf{};
	nicf.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE;
	nicf.pNext = &v11;
	nicf.nicMemory = 0xabu;
	VkPhysicalDeviceVulkan12Features v12{};
	v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
	v12.pNext = &nicf;
	VkPhysicalDeviceFeatures2 f2{};
	f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
	f2.pNext = &v12;
	vkGetPhysicalDeviceFeatures2(pd, &f2);
	check(nicf.nicMemory == VK_TRUE || nicf.nicMemory == VK_FALSE,
	      "VkPhysicalDeviceNicMemoryFeaturesONENODE is written (nicMemory " + std::to_string(nicf.nicMemory) + ")");
	check(v11.storageBuffer16BitAccess == VK_TRUE && v12.bufferDeviceAddress == VK_TRUE,
	      "the core structs around it are filled too");
	check(nicf.pNext == &v11 && v12.pNext == &nicf, "the chain is left as it was");

	VkPhysicalDeviceVulkan11Properties p11{};
	p11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
	VkPhysicalDeviceNicMemoryPropertiesONENODE nicp{};
	nicp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE;
	nicp.pNext = &p11;
	nicp.importHandleType = static_cast<VkExternalMemoryHandleTypeFlagBits>(0x7777);
	nicp.hostMemoryExportable = nicp.deviceMemoryExportable = nicp.syncFdSemaphores = 0xabu;
	VkPhysicalDeviceProperties2 pp{};
	pp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
	pp.pNext = &nicp;
	vkGetPhysicalDeviceProperties2(pd, &pp);
	std::printf("# properties: importHandleType 0x%x hostMemoryExportable %u deviceMemoryExportable %u "
		    "syncFdSemaphores %u\n",
		    nicp.importHandleType, nicp.hostMemoryExportable, nicp.deviceMemoryExportable,
		    nicp.syncFdSemaphores);
	// RADV binds NIC memory as a dma-buf; the layer may use host pointers.
	check(nicp.importHandleType == 0 || nicp.importHandleType == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT ||
		      (!native && nicp.importHandleType == VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT),
	      std::string("VkPhysicalDeviceNicMemoryPropertiesONENODE is written (importHandleType 0 or DMA_BUF") +
		      (native ? ")" : " or HOST_ALLOCATION)"));
	check(nicp.hostMemoryExportable <= 1 && nicp.deviceMemoryExportable <= 1 && nicp.syncFdSemaphores <= 1,
	      "its booleans are written");
	check((nicp.importHandleType != 0) == (nicf.nicMemory == VK_TRUE),
	      "importHandleType is set exactly when nicMemory is true");
	check(p11.deviceUUID[0] || p11.deviceUUID[1] || p11.deviceUUID[15] || p11.subgroupSize,
	      "the core properties struct after it is filled too");

	VkPhysicalDeviceNicMemoryFeaturesONENODE enable{};
	enable.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE;
	enable.nicMemory = nicf.nicMemory;
	VkDevice dev = make_device(pd, true, &enable, exts);
	VkDevice plain = make_device(pd, false, nullptr, exts);

	if (dev) {
		for (const char *c : kCommands)
			check(vkGetDeviceProcAddr(dev, c) != nullptr,
			      std::string(c) + " resolves with the extension enabled");
	}
	if (plain) {
		for (const char *c : kCommands)
			check(vkGetDeviceProcAddr(plain, c) == nullptr,
			      std::string(c) + " is NULL without the extension");
	}

	if (dev) {
		auto support_fn = reinterpret_cast<PFN_vkGetDeviceNicMemorySupportONENODE>(
			vkGetDeviceProcAddr(dev, "vkGetDeviceNicMemorySupportONENODE"));
		VkNicMemorySupportONENODE s{};
		s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
		s.memoryTypeBits = 0xdeadbeef;
		r = support_fn ? support_fn(dev, nullptr, &s) : VK_ERROR_UNKNOWN;
		std::printf("# support (no NIC): placement %d reason %d pciDistance %d memoryTypeBits 0x%x "
			    "dmaBufExportable %u\n#   \"%s\"\n",
			    s.placement, s.reason, s.pciDistance, s.memoryTypeBits, s.dmaBufExportable, s.description);
		check(r == VK_SUCCESS, "vkGetDeviceNicMemorySupportONENODE succeeds");
		if (native)
			check(std::string_view(s.description).starts_with("radv:"),
			      "the support answer comes from RADV itself" +
				      std::string(layer ? " (the layer stepped aside)" : ""));
		else
			check(!std::string_view(s.description).starts_with("radv:") && s.description[0],
			      "the support answer comes from the layer, not RADV");
		check(s.memoryTypeBits != 0xdeadbeef && (s.memoryTypeBits >> mem.memoryTypeCount) == 0,
		      "memoryTypeBits names existing memory types only");
		check((s.memoryTypeBits != 0) == (nicf.nicMemory == VK_TRUE),
		      "memoryTypeBits is non-zero exactly when nicMemory is true");
		if (native && !nicf.nicMemory)
			check(s.placement == VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE &&
				      (s.reason == VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE ||
				       s.reason == VK_NIC_MEMORY_REASON_NO_DEVICE_EXPORTER_ONENODE),
			      "without NIC memory: placement NONE, reason NO_DRM_DEVICE or NO_DEVICE_EXPORTER");

		VkNicIdentifierONENODE nic{};
		nic.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
		std::snprintf(nic.netdevName, sizeof(nic.netdevName), "onenode-no-such-nic0");
		s = VkNicMemorySupportONENODE{};
		s.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE;
		r = support_fn ? support_fn(dev, &nic, &s) : VK_ERROR_UNKNOWN;
		std::printf("# support (missing NIC): nicFound %u placement %d reason %d\n#   \"%s\"\n", s.nicFound,
			    s.placement, s.reason, s.description);
		check(r == VK_SUCCESS && s.nicFound == VK_FALSE && s.placement == VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE,
		      "a NIC that does not exist is not found and gets no placement");
		// The layer's own NIC memory (when RADV lacks the extension) is
		// libvkp2p's tests' business.
		if (native && nicf.nicMemory)
			nic_memory_checks(dev, pd, mem, s.memoryTypeBits, native);
		if (kernel_rdma) {
			check(native && nicf.nicMemory, "kernel: RADV offers NIC memory on the kernel's uapi");
			if (native && nicf.nicMemory)
				kernel_nic_checks(dev, s.memoryTypeBits);
		}
		vkDestroyDevice(dev, nullptr);
	}
	if (plain)
		vkDestroyDevice(plain, nullptr);
	vkDestroyInstance(inst, nullptr);

	std::printf("# %d checks, %d failed%s\n", checks, failures,
		    !native ? " (NIC memory from the layer: its allocations are libvkp2p's tests' business)"
		    : nicf.nicMemory ? ""
				     : " (no NIC memory on this device: allocation, export and placement not run)");
	return failures ? 1 : 0;
}
