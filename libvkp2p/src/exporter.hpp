// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Where NIC memory comes from: the one small interface behind which
// allocation lives. Each exporter hands out a dma-buf a NIC can import
// (ibv_reg_dmabuf_mr, devmem TCP bind, io_uring zcrx area) and that the
// Vulkan driver imports, either as a dma-buf or through a CPU mapping.
//
// - HostExporter: memfd pages, exported as a dma-buf through udmabuf when
//   /dev/udmabuf exists (the host path).
// - RenderNodeExporter: device memory of the render node that belongs to
//   the Vulkan physical device (the P2P path), made for export through the
//   DRM compute uapi (DRM_COMPUTE_BO_EXPORT_* flags, PRIME export) where the
//   node reports p2p-export. Where the buffer lives and why is the kernel's
//   answer (DRM_COMPUTE_OP_P2P_REPORT), read again at every query: the
//   layer never guesses it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <string>

#include "vulkan/vk_onenode_nic_memory.h"

namespace vkp2p {

struct InstanceData;
struct DriverCaps;

// Memory one exporter allocated. Owns its file descriptors and mapping.
struct ExportedBuffer {
	int dmabuf_fd = -1; // what the NIC imports; -1 when there is no exporter
	int memfd = -1;	    // backing of host memory, -1 for device memory
	void *map = nullptr; // CPU mapping when the driver imports a host pointer
	int node_fd = -1;    // render node of device memory, -1 for host memory
	uint32_t bo_handle = 0; // the buffer in @node_fd, for the kernel's report
	size_t size = 0;
	VkNicMemoryPlacementONENODE placement = VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE;

	ExportedBuffer() = default;
	ExportedBuffer(const ExportedBuffer &) = delete;
	ExportedBuffer &operator=(const ExportedBuffer &) = delete;
	~ExportedBuffer();

	// Maps the memory for host-pointer import; 0 or -errno.
	int map_for_import();
};

class MemoryExporter {
public:
	virtual ~MemoryExporter() = default;
	virtual const char *name() const = 0;
	// Allocates @size bytes (a multiple of the page size). Returns 0, or
	// -errno with @why set.
	virtual int allocate(size_t size, ExportedBuffer *out, std::string *why) = 0;
};

class HostExporter final : public MemoryExporter {
public:
	const char *name() const override { return "memfd+udmabuf"; }
	int allocate(size_t size, ExportedBuffer *out, std::string *why) override;
};

// Device memory of a render node with the p2p-export feature.
// allocate() returns -EOPNOTSUPP (or the error of opening or querying the
// node) with @why naming the node, its driver and the reason; a @size of 0
// only checks that the node can allocate. @require: the kernel refuses
// importers that cannot reach device memory (REQUIRE_P2P) instead of moving
// the buffer to host memory (PREFER_P2P).
class RenderNodeExporter final : public MemoryExporter {
public:
	explicit RenderNodeExporter(std::string render_node, bool require = false)
		: node_(std::move(render_node)), require_(require)
	{
	}
	const char *name() const override { return "render node"; }
	int allocate(size_t size, ExportedBuffer *out, std::string *why) override;

private:
	std::string node_;
	bool require_;
};

// The kernel's report on device memory from a RenderNodeExporter: where it
// lives and, in words, why and who imports it. 0 or -errno.
int render_node_report(const ExportedBuffer &buf, VkNicMemoryPlacementONENODE *placement,
		       std::string *text);

// Whether host memory can be exported to a NIC as a dma-buf here.
bool host_exporter_available();

// Where the device's own NIC memory would come from, and why not.
struct DeviceExporterStatus {
	bool available = false;
	VkNicMemoryReasonONENODE reason = VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE;
	std::string render_node; // /dev/dri/renderDN, empty when none
	std::string pci_path;	 // sysfs path of the device's PCI function, or empty
	std::string why;
};

DeviceExporterStatus device_exporter_status(InstanceData *inst, VkPhysicalDevice phys, const DriverCaps &caps);

// The sysfs root used for topology queries ("/sys"; VKP2P_SYSFS_ROOT overrides
// it for tests with a fake tree).
const char *sysfs_root();

} // namespace vkp2p
