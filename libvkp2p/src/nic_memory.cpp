// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// VK_ONENODE_nic_memory commands: the support query, allocation with a
// policy, dma-buf export, the placement report and dma-buf implicit sync.
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "chain.hpp"
#include "exporter.hpp"
#include "state.hpp"
#include "topology.hpp"

namespace vkp2p {

// One NIC allocation, linked into its device's list.
struct NicMemory {
	NicMemory *next = nullptr;
	VkDeviceMemory memory = VK_NULL_HANDLE;
	ExportedBuffer buffer;
	VkNicMemoryPlacementInfoONENODE placement{};
	// Device memory: the layer's part of the description, before the kernel's.
	char device_desc[VK_MAX_NIC_MEMORY_DESCRIPTION_SIZE_ONENODE] = {};
	const VkAllocationCallbacks *alloc = nullptr;
	VkAllocationCallbacks alloc_copy{};
};

namespace {

void copy_description(char (&dst)[VK_MAX_NIC_MEMORY_DESCRIPTION_SIZE_ONENODE], const std::string &s)
{
	std::snprintf(dst, sizeof(dst), "%s", s.c_str());
}

// Invalid usage: say what is wrong where a developer looks, return the
// validation error code.
VkResult invalid(const char *what)
{
	std::fprintf(stderr, "%s: invalid usage: %s\n", kLayerName, what);
	return VK_ERROR_VALIDATION_FAILED_EXT;
}

// The decision for one device and NIC, shared by the support query and
// allocation so that both always agree.
struct Decision {
	bool nic_named = false;
	bool nic_found = false;
	bool p2p = false; // device memory is possible
	VkNicMemoryReasonONENODE p2p_reason = VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE;
	std::string p2p_why;
	int distance = -1;
	std::string render_node;
};

Decision decide(DeviceData *dev, const VkNicIdentifierONENODE *nic)
{
	Decision d;
	const std::string root = sysfs_root();
	std::string nic_pci, nic_why;
	if (nic) {
		d.nic_named = true;
		d.nic_found = topology::nic_pci_path(root, *nic, &nic_pci, &nic_why) !=
			      topology::NicLookup::kNotFound;
	}
	if (d.nic_named && !d.nic_found) {
		d.p2p_reason = VK_NIC_MEMORY_REASON_NIC_NOT_FOUND_ONENODE;
		d.p2p_why = nic_why;
		return d;
	}
	DeviceExporterStatus st = device_exporter_status(dev->instance, dev->physical, dev->caps);
	d.render_node = st.render_node;
	// The distance is reported whenever both PCI functions are known.
	topology::Distance dist;
	if (d.nic_named && !nic_pci.empty() && !st.pci_path.empty()) {
		dist = topology::pci_distance(nic_pci, st.pci_path);
		d.distance = dist.hops;
	}
	if (!st.available) {
		d.p2p_reason = st.reason;
		d.p2p_why = st.why;
		return d;
	}
	if (d.nic_named) {
		if (nic_pci.empty()) {
			d.p2p_reason = VK_NIC_MEMORY_REASON_NOT_P2P_REACHABLE_ONENODE;
			d.p2p_why = nic_why;
			return d;
		}
		if (dist.hops < 0) {
			d.p2p_reason = VK_NIC_MEMORY_REASON_NOT_P2P_REACHABLE_ONENODE;
			d.p2p_why = "NIC and device: " + (dist.description.empty() ? std::string("PCI path of the device unknown")
										  : dist.description);
			return d;
		}
	}
	d.p2p = true;
	d.p2p_reason = VK_NIC_MEMORY_REASON_P2P_ONENODE;
	d.p2p_why = "device memory of " + st.render_node + ", exported as a dma-buf";
	return d;
}

// Memory types the driver accepts for @import_type, probed with a small
// allocation of the path's own kind.
uint32_t probe_memory_type_bits(DeviceData *dev)
{
	uint32_t bits = 0;
	if (dev->import_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) {
		HostExporter exp;
		ExportedBuffer probe;
		std::string why;
		if (exp.allocate(static_cast<size_t>(getpagesize()), &probe, &why) == 0 && probe.dmabuf_fd >= 0) {
			VkMemoryFdPropertiesKHR props{};
			props.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR;
			if (dev->GetMemoryFdPropertiesKHR(dev->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
							  probe.dmabuf_fd, &props) == VK_SUCCESS)
				bits = props.memoryTypeBits;
		}
	} else if (dev->import_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT) {
		// Probe with the same kind of mapping allocations import (memfd).
		HostExporter exp;
		ExportedBuffer probe;
		std::string why;
		size_t page = static_cast<size_t>(getpagesize());
		size_t size = (static_cast<size_t>(dev->host_import_alignment) + page - 1) / page * page;
		if (exp.allocate(size, &probe, &why) == 0 && probe.map_for_import() == 0) {
			VkMemoryHostPointerPropertiesEXT props{};
			props.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
			if (dev->GetMemoryHostPointerPropertiesEXT(dev->device,
								   VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
								   probe.map, &props) == VK_SUCCESS)
				bits = props.memoryTypeBits;
		}
	}
	return bits;
}

uint32_t memory_type_bits(DeviceData *dev)
{
	std::call_once(dev->type_bits_once, [dev] { dev->type_bits = dev->import_type ? probe_memory_type_bits(dev) : 0; });
	return dev->type_bits;
}

VkResult check_nic(const VkNicIdentifierONENODE *nic)
{
	if (!nic)
		return VK_SUCCESS;
	if (nic->sType != VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE)
		return invalid("VkNicIdentifierONENODE::sType is wrong");
	if (!memchr(nic->rdmaDeviceName, 0, sizeof(nic->rdmaDeviceName)) ||
	    !memchr(nic->netdevName, 0, sizeof(nic->netdevName)))
		return invalid("VkNicIdentifierONENODE names must be NUL-terminated");
	return VK_SUCCESS;
}

NicMemory *find_memory(DeviceData *dev, VkDeviceMemory memory)
{
	std::lock_guard<std::mutex> g(dev->lock);
	for (NicMemory *m = dev->memories; m; m = m->next)
		if (m->memory == memory)
			return m;
	return nullptr;
}

void destroy_record(NicMemory *m)
{
	// The callbacks live in the record: copy them out before freeing it.
	VkAllocationCallbacks cb{};
	bool have = m->alloc != nullptr;
	if (have)
		cb = *m->alloc;
	vk_delete(have ? &cb : nullptr, m);
}

} // namespace

VkExternalMemoryHandleTypeFlagBits choose_import_type(const DriverCaps &caps)
{
	const char *force = std::getenv("VKP2P_IMPORT");
	bool want_host = force && !std::strcmp(force, "host");
	bool want_dmabuf = force && !std::strcmp(force, "dmabuf");
	// dma-buf import needs a dma-buf to import: the host exporter's
	// udmabuf (the device exporter always exports dma-bufs).
	bool dmabuf_ok = caps.dmabuf_import && host_exporter_available();
	if (dmabuf_ok && !want_host)
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	if (caps.host_import && !want_dmabuf)
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	return static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
}

VKAPI_ATTR VkResult VKAPI_CALL GetDeviceNicMemorySupportONENODE(VkDevice device, const VkNicIdentifierONENODE *pNic,
								VkNicMemorySupportONENODE *pSupport)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	if (!dev || !pSupport || pSupport->sType != VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE)
		return invalid("vkGetDeviceNicMemorySupportONENODE: pSupport must be a VkNicMemorySupportONENODE");
	if (VkResult r = check_nic(pNic); r != VK_SUCCESS)
		return r;

	Decision d = decide(dev, pNic);
	pSupport->nicFound = d.nic_found;
	pSupport->pciDistance = d.distance;
	pSupport->memoryTypeBits = memory_type_bits(dev);
	std::string desc;
	if (d.nic_named && !d.nic_found) {
		pSupport->placement = VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE;
		pSupport->reason = d.p2p_reason;
		pSupport->dmaBufExportable = VK_FALSE;
		desc = d.p2p_why;
	} else if (!dev->import_type || !pSupport->memoryTypeBits) {
		pSupport->placement = VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE;
		pSupport->reason = VK_NIC_MEMORY_REASON_NO_IMPORT_ONENODE;
		pSupport->dmaBufExportable = VK_FALSE;
		desc = "the driver imports neither dma-bufs nor host pointers";
	} else if (d.p2p) {
		pSupport->placement = VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE;
		pSupport->reason = VK_NIC_MEMORY_REASON_P2P_ONENODE;
		pSupport->dmaBufExportable = VK_TRUE;
		desc = d.p2p_why;
	} else {
		pSupport->placement = VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE;
		pSupport->dmaBufExportable = host_exporter_available();
		pSupport->reason = d.p2p_reason;
		desc = "host memory: " + d.p2p_why;
		if (!pSupport->dmaBufExportable)
			desc += "; no /dev/udmabuf, so host memory cannot be exported to a NIC as a dma-buf";
	}
	copy_description(pSupport->description, desc);
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
					      const VkAllocationCallbacks *pAllocator, VkDeviceMemory *pMemory)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	auto *nic_info = find_in_chain<const VkNicMemoryAllocateInfoONENODE>(
		info->pNext, VK_STRUCTURE_TYPE_NIC_MEMORY_ALLOCATE_INFO_ONENODE);
	if (!nic_info)
		return dev->AllocateMemory(device, info, pAllocator, pMemory);

	// Valid usage of VkNicMemoryAllocateInfoONENODE.
	if (static_cast<uint32_t>(nic_info->policy) > static_cast<uint32_t>(VK_NIC_MEMORY_POLICY_HOST_ONENODE))
		return invalid("VkNicMemoryAllocateInfoONENODE::policy is not a VkNicMemoryPolicyONENODE");
	if (VkResult r = check_nic(nic_info->pNic); r != VK_SUCCESS)
		return r;
	if (find_in_chain(info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR) ||
	    find_in_chain(info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT) ||
	    find_in_chain(info->pNext, VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO))
		return invalid("NIC memory cannot be combined with another import or export");
	if (info->allocationSize == 0)
		return invalid("allocationSize must be greater than 0");
	uint32_t bits = memory_type_bits(dev);
	if (info->memoryTypeIndex >= 32 || !(bits & (1u << info->memoryTypeIndex)))
		return invalid("memoryTypeIndex is not in VkNicMemorySupportONENODE::memoryTypeBits");

	Decision d = decide(dev, nic_info->pNic);
	if (d.nic_named && !d.nic_found) {
		std::fprintf(stderr, "%s: NIC memory unavailable: %s\n", kLayerName, d.p2p_why.c_str());
		return VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE;
	}
	bool device_path = d.p2p && nic_info->policy != VK_NIC_MEMORY_POLICY_HOST_ONENODE;
	if (nic_info->policy == VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE && !d.p2p) {
		// Never a silent downgrade: the application asked for P2P.
		std::fprintf(stderr, "%s: P2P NIC memory unavailable: %s\n", kLayerName, d.p2p_why.c_str());
		return VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE;
	}

	const VkAllocationCallbacks *cb = pAllocator ? pAllocator : dev->alloc.get();
	auto *rec = vk_new<NicMemory>(cb, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
	if (!rec)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	if (cb) {
		rec->alloc_copy = *cb;
		rec->alloc = &rec->alloc_copy;
	}

	// Sizes: whole pages, and whole host-import alignment units.
	VkDeviceSize unit = dev->host_import_alignment;
	if (unit < static_cast<VkDeviceSize>(getpagesize()))
		unit = static_cast<VkDeviceSize>(getpagesize());
	VkDeviceSize size = (info->allocationSize + unit - 1) / unit * unit;

	std::string why;
	int err;
	if (device_path) {
		RenderNodeExporter exp(d.render_node,
				       nic_info->policy == VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE);
		err = exp.allocate(static_cast<size_t>(size), &rec->buffer, &why);
	} else {
		HostExporter exp;
		err = exp.allocate(static_cast<size_t>(size), &rec->buffer, &why);
	}
	if (err) {
		std::fprintf(stderr, "%s: NIC memory allocation failed: %s\n", kLayerName, why.c_str());
		destroy_record(rec);
		return err == -ENOMEM ? VK_ERROR_OUT_OF_HOST_MEMORY : VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE;
	}

	// Import into the driver below, with our structure out of the chain.
	InChainFilter chain(info->pNext, {VK_STRUCTURE_TYPE_NIC_MEMORY_ALLOCATE_INFO_ONENODE});
	VkImportMemoryFdInfoKHR fd_import{};
	VkImportMemoryHostPointerInfoEXT host_import{};
	int import_fd = -1;
	if (dev->import_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT) {
		if (rec->buffer.dmabuf_fd < 0) {
			// /dev/udmabuf went away since the device was created.
			std::fprintf(stderr, "%s: NIC memory allocation failed: no dma-buf to import\n", kLayerName);
			destroy_record(rec);
			return VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE;
		}
		import_fd = fcntl(rec->buffer.dmabuf_fd, F_DUPFD_CLOEXEC, 0);
		if (import_fd < 0) {
			destroy_record(rec);
			return VK_ERROR_TOO_MANY_OBJECTS;
		}
		fd_import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
		fd_import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
		fd_import.fd = import_fd;
		chain.prepend(reinterpret_cast<VkBaseInStructure *>(&fd_import));
	} else {
		if (int e = rec->buffer.map_for_import(); e < 0) {
			std::fprintf(stderr, "%s: mapping NIC memory: %s\n", kLayerName, std::strerror(-e));
			destroy_record(rec);
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		}
		host_import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
		host_import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
		host_import.pHostPointer = rec->buffer.map;
		chain.prepend(reinterpret_cast<VkBaseInStructure *>(&host_import));
	}
	VkMemoryAllocateInfo down = *info;
	down.pNext = chain.head();
	down.allocationSize = size;
	VkResult r = dev->AllocateMemory(device, &down, pAllocator, &rec->memory);
	if (r != VK_SUCCESS) {
		if (import_fd >= 0)
			close(import_fd); // ownership passes to the driver only on success
		destroy_record(rec);
		return r;
	}

	VkNicMemoryPlacementInfoONENODE &pl = rec->placement;
	pl.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
	pl.placement = rec->buffer.placement;
	pl.importHandleType = dev->import_type;
	pl.dmaBufExportable = rec->buffer.dmabuf_fd >= 0;
	const char *how = dev->import_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
				  ? "imported as a dma-buf"
				  : "imported as a host pointer";
	std::string desc;
	if (device_path) {
		pl.reason = VK_NIC_MEMORY_REASON_P2P_ONENODE;
		desc = d.p2p_why + ", " + how;
		copy_description(rec->device_desc, desc);
		std::string kernel;
		VkNicMemoryPlacementONENODE where;
		if (render_node_report(rec->buffer, &where, &kernel) == 0)
			desc += "; " + kernel;
	} else if (nic_info->policy == VK_NIC_MEMORY_POLICY_HOST_ONENODE) {
		pl.reason = VK_NIC_MEMORY_REASON_POLICY_HOST_ONENODE;
		desc = std::string("host memory (memfd) as the application asked, ") + how;
	} else {
		pl.reason = d.p2p_reason;
		desc = "host memory (memfd), " + std::string(how) + ", because " + d.p2p_why;
	}
	if (!pl.dmaBufExportable) {
		pl.reason = nic_info->policy == VK_NIC_MEMORY_POLICY_HOST_ONENODE
				    ? VK_NIC_MEMORY_REASON_NO_HOST_EXPORTER_ONENODE
				    : pl.reason;
		desc += "; not exportable to a NIC: no /dev/udmabuf";
	}
	copy_description(pl.description, desc);

	{
		std::lock_guard<std::mutex> g(dev->lock);
		rec->next = dev->memories;
		dev->memories = rec;
	}
	*pMemory = rec->memory;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *pAllocator)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	NicMemory *rec = nullptr;
	if (memory) {
		std::lock_guard<std::mutex> g(dev->lock);
		for (NicMemory **it = &dev->memories; *it; it = &(*it)->next) {
			if ((*it)->memory == memory) {
				rec = *it;
				*it = rec->next;
				break;
			}
		}
	}
	// The driver lets go of the import first; then the mapping and our
	// references go. A NIC (or anyone) holding an exported fd keeps the
	// pages alive through the dma-buf's own reference.
	dev->FreeMemory(device, memory, pAllocator);
	if (rec)
		destroy_record(rec);
}

void release_all_memories(DeviceData *dev)
{
	std::lock_guard<std::mutex> g(dev->lock);
	while (NicMemory *m = dev->memories) {
		dev->memories = m->next;
		destroy_record(m);
	}
}

VKAPI_ATTR VkResult VKAPI_CALL GetMemoryNicFdONENODE(VkDevice device, const VkMemoryGetNicFdInfoONENODE *info,
						     int *pFd)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	if (!info || info->sType != VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE || !pFd)
		return invalid("vkGetMemoryNicFdONENODE: pGetFdInfo must be a VkMemoryGetNicFdInfoONENODE");
	NicMemory *m = find_memory(dev, info->memory);
	if (!m)
		return invalid("vkGetMemoryNicFdONENODE: memory was not allocated as NIC memory");
	if (m->buffer.dmabuf_fd < 0) {
		std::fprintf(stderr, "%s: %s\n", kLayerName, m->placement.description);
		return VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE;
	}
	int fd = fcntl(m->buffer.dmabuf_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return VK_ERROR_TOO_MANY_OBJECTS;
	*pFd = fd;
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL GetNicMemoryPlacementONENODE(VkDevice device, VkDeviceMemory memory,
							VkNicMemoryPlacementInfoONENODE *pPlacement)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	if (!pPlacement || pPlacement->sType != VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE) {
		invalid("vkGetNicMemoryPlacementONENODE: pPlacement must be a VkNicMemoryPlacementInfoONENODE");
		return;
	}
	void *pnext = pPlacement->pNext;
	NicMemory *m = find_memory(dev, memory);
	if (!m) {
		invalid("vkGetNicMemoryPlacementONENODE: memory was not allocated as NIC memory");
		*pPlacement = VkNicMemoryPlacementInfoONENODE{};
		pPlacement->sType = VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE;
		pPlacement->pNext = pnext;
		copy_description(pPlacement->description, "not NIC memory");
		return;
	}
	*pPlacement = m->placement;
	pPlacement->pNext = pnext;
	// Device memory: where it lives now is the kernel's answer (an importer
	// that cannot reach device memory moves a PREFER_P2P buffer to host
	// memory, and a REQUIRE_P2P buffer refuses it).
	std::string kernel;
	VkNicMemoryPlacementONENODE where;
	if (m->buffer.node_fd >= 0 && render_node_report(m->buffer, &where, &kernel) == 0) {
		pPlacement->placement = where;
		copy_description(pPlacement->description, std::string(m->device_desc) + "; " + kernel);
	}
}

namespace {

VkResult sync_file_ioctl(DeviceData *dev, VkDeviceMemory memory, unsigned long req, void *arg)
{
	NicMemory *m = find_memory(dev, memory);
	if (!m)
		return invalid("sync file: memory was not allocated as NIC memory");
	if (m->buffer.dmabuf_fd < 0)
		return VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE;
	if (ioctl(m->buffer.dmabuf_fd, req, arg) < 0) {
		int e = errno;
		std::fprintf(stderr, "%s: dma-buf sync file ioctl: %s\n", kLayerName, std::strerror(e));
		return e == EBADF || e == EINVAL ? VK_ERROR_INVALID_EXTERNAL_HANDLE : VK_ERROR_UNKNOWN;
	}
	return VK_SUCCESS;
}

} // namespace

VKAPI_ATTR VkResult VKAPI_CALL ExportNicMemorySyncFileONENODE(VkDevice device, VkDeviceMemory memory,
							      VkBool32 write, int *pFd)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	if (!pFd)
		return invalid("vkExportNicMemorySyncFileONENODE: pFd is NULL");
	dma_buf_export_sync_file arg{};
	arg.flags = write ? DMA_BUF_SYNC_WRITE : DMA_BUF_SYNC_READ;
	arg.fd = -1;
	VkResult r = sync_file_ioctl(dev, memory, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &arg);
	if (r == VK_SUCCESS)
		*pFd = arg.fd;
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL ImportNicMemorySyncFileONENODE(VkDevice device, VkDeviceMemory memory,
							      VkBool32 write, int fd)
{
	DeviceData *dev = devices().find(dispatch_key(device));
	dma_buf_import_sync_file arg{};
	arg.flags = write ? DMA_BUF_SYNC_WRITE : DMA_BUF_SYNC_READ;
	arg.fd = fd;
	return sync_file_ioctl(dev, memory, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &arg);
}

} // namespace vkp2p
