// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
#include "exporter.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <xf86drm.h>

#include "onenode.h"
#include "state.hpp"
#include "topology.hpp"

namespace vkp2p {

ExportedBuffer::~ExportedBuffer()
{
	if (map)
		munmap(map, size);
	if (dmabuf_fd >= 0)
		close(dmabuf_fd);
	if (memfd >= 0)
		close(memfd);
	if (node_fd >= 0)
		close(node_fd); // the handle goes with the file
}

int ExportedBuffer::map_for_import()
{
	int fd = memfd >= 0 ? memfd : dmabuf_fd;
	void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	map = p;
	return 0;
}

const char *sysfs_root()
{
	const char *env = std::getenv("VKP2P_SYSFS_ROOT");
	return env && *env ? env : "/sys";
}

bool host_exporter_available()
{
	return access("/dev/udmabuf", R_OK | W_OK) == 0;
}

int HostExporter::allocate(size_t size, ExportedBuffer *out, std::string *why)
{
	out->size = size;
	out->placement = VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE;
	out->memfd = memfd_create("vkp2p-nic-memory", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (out->memfd < 0) {
		int e = errno;
		*why = std::string("memfd_create: ") + std::strerror(e);
		return -e;
	}
	if (ftruncate(out->memfd, static_cast<off_t>(size)) < 0 ||
	    fcntl(out->memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		int e = errno;
		*why = std::string("sizing the memfd: ") + std::strerror(e);
		return -e;
	}
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return 0; // usable by the device, not exportable: the caller reports it
	udmabuf_create create{};
	create.memfd = static_cast<__u32>(out->memfd);
	create.flags = UDMABUF_FLAGS_CLOEXEC;
	create.offset = 0;
	create.size = size;
	out->dmabuf_fd = ioctl(dev, UDMABUF_CREATE, &create);
	int e = errno;
	close(dev);
	if (out->dmabuf_fd < 0) {
		*why = std::string("UDMABUF_CREATE: ") + std::strerror(e);
		// udmabuf refuses buffers above its size_limit_mb parameter.
		unsigned long limit_mb = 0;
		if (FILE *f = std::fopen("/sys/module/udmabuf/parameters/size_limit_mb", "r")) {
			if (std::fscanf(f, "%lu", &limit_mb) != 1)
				limit_mb = 0;
			std::fclose(f);
		}
		if (e == EINVAL && limit_mb && size > (limit_mb << 20))
			*why += " (" + std::to_string(size >> 20) + " MiB is above udmabuf.size_limit_mb=" +
				std::to_string(limit_mb) + ")";
		return -e;
	}
	return 0;
}

int RenderNodeExporter::allocate(size_t size, ExportedBuffer *out, std::string *why)
{
	// What the node can do comes from its DEVICE query report (libonenode).
	onenode_device dev;
	int ret = onenode_open_path(node_.c_str(), &dev);
	if (ret) {
		*why = node_ + ": " + onenode_strerror(ret);
		return ret;
	}
	drm_compute_query_device report;
	ret = onenode_query_device(&dev, &report);
	const std::string name = node_ + " (" + dev.driver + ")";
	if (ret) {
		onenode_close(&dev);
		*why = name + ": no DRM compute DEVICE report: " + onenode_strerror(ret);
		return ret;
	}
	char features[128];
	onenode_features_string(report.features, features, sizeof(features));
	if (!(report.features & DRM_COMPUTE_FEATURE_P2P_EXPORT) ||
	    !(report.placements & DRM_COMPUTE_PLACEMENT_VRAM)) {
		onenode_close(&dev);
		*why = name + ": the device does not report p2p-export with device memory (features: " +
		       features + ")";
		return -EOPNOTSUPP;
	}
	if (size == 0) {
		onenode_close(&dev);
		return 0;
	}
	uint32_t handle = 0;
	const uint32_t flag = require_ ? DRM_COMPUTE_BO_EXPORT_REQUIRE_P2P : DRM_COMPUTE_BO_EXPORT_PREFER_P2P;
	ret = onenode_bo_create_export(&dev, size, DRM_COMPUTE_PLACEMENT_VRAM, flag, &handle);
	if (ret) {
		onenode_close(&dev);
		*why = name + ": allocating " + std::to_string(size) + " bytes of device memory: " +
		       onenode_strerror(ret);
		return ret;
	}
	int fd = -1;
	if (drmPrimeHandleToFD(dev.fd, handle, DRM_CLOEXEC | DRM_RDWR, &fd)) {
		ret = -errno;
		onenode_close(&dev);
		*why = name + ": exporting the buffer as a dma-buf: " + onenode_strerror(ret);
		return ret;
	}
	out->size = size;
	out->dmabuf_fd = fd;
	out->node_fd = dev.fd; // owned by @out from here on
	out->bo_handle = handle;
	out->placement = VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE;
	return 0;
}

int render_node_report(const ExportedBuffer &buf, VkNicMemoryPlacementONENODE *placement, std::string *text)
{
	onenode_device dev;
	int ret = onenode_device_from_fd(buf.node_fd, &dev);
	if (ret)
		return ret;
	drm_compute_p2p_attachment att[4] = {};
	drm_compute_p2p_report rep;
	ret = onenode_p2p_report(&dev, buf.bo_handle, &rep, att, 4);
	if (ret)
		return ret;
	const bool vram = rep.placement == DRM_COMPUTE_PLACEMENT_VRAM;
	*placement = vram ? VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE : VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE;
	std::string t = std::string("kernel: ") + (vram ? "device memory" : "system memory");
	if (!vram)
		t += std::string(" (moved for ") + rep.decided_by + ": " + onenode_p2p_reason_name(rep.reason) + ")";
	t += ", " + std::to_string(rep.count) + " importer(s)";
	for (uint32_t i = 0; i < rep.count && i < 4; i++)
		t += std::string(i ? ", " : ": ") + att[i].importer + " " +
		     (att[i].map == DRM_COMPUTE_P2P_MAP_PEER ? "p2p" : "host") +
		     (att[i].reason ? std::string(" (") + onenode_p2p_reason_name(att[i].reason) + ")" : "");
	if (rep.refused)
		t += ", " + std::to_string(rep.refused) + " refused (last: " +
		     onenode_p2p_reason_name(rep.refused_reason) + ")";
	*text = t;
	return 0;
}

DeviceExporterStatus device_exporter_status(InstanceData *inst, VkPhysicalDevice phys, const DriverCaps &caps)
{
	DeviceExporterStatus st;
	const std::string root = sysfs_root();
	std::string pci;
	if (caps.drm_props || caps.pci_bus_info) {
		VkPhysicalDeviceDrmPropertiesEXT drm{};
		drm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT;
		VkPhysicalDevicePCIBusInfoPropertiesEXT bus{};
		bus.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT;
		VkPhysicalDeviceProperties2 p2{};
		p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
		void **tail = &p2.pNext;
		if (caps.drm_props) {
			*tail = &drm;
			tail = &drm.pNext;
		}
		if (caps.pci_bus_info)
			*tail = &bus;
		inst->GetPhysicalDeviceProperties2(phys, &p2);
		if (drm.hasRender)
			st.render_node = "/dev/dri/renderD" + std::to_string(drm.renderMinor);
		if (caps.pci_bus_info)
			topology::pci_function_path(root, bus.pciDomain, bus.pciBus, bus.pciDevice,
						    bus.pciFunction, &pci);
		else if (drm.hasRender)
			topology::render_node_pci_path(root, static_cast<unsigned>(drm.renderMinor), &pci);
	}
	st.pci_path = pci;
	// A compute render node named by the user stands for the device's own
	// (a driver without VK_EXT_physical_device_drm, or a CPU implementation
	// paired with a compute device for testing).
	if (const char *node = std::getenv("VKP2P_RENDER_NODE"); node && *node)
		st.render_node = node;
	if (st.render_node.empty() && !pci.empty()) {
		// Bus info only: the render node is a child of the PCI function.
		if (DIR *d = opendir((pci + "/drm").c_str())) {
			while (dirent *e = readdir(d))
				if (!std::strncmp(e->d_name, "renderD", 7))
					st.render_node = std::string("/dev/dri/") + e->d_name;
			closedir(d);
		}
	}
	if (st.render_node.empty()) {
		st.reason = VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE;
		st.why = "the Vulkan physical device has no DRM render node "
			 "(no VK_EXT_physical_device_drm render node, e.g. a CPU implementation)";
		return st;
	}
	// Whether the node can allocate NIC memory: the exporter says why not.
	RenderNodeExporter exporter(st.render_node);
	ExportedBuffer probe;
	if (exporter.allocate(0, &probe, &st.why) == 0) {
		st.available = true;
		st.reason = VK_NIC_MEMORY_REASON_P2P_ONENODE;
		return st;
	}
	st.reason = VK_NIC_MEMORY_REASON_NO_DEVICE_EXPORTER_ONENODE;
	return st;
}

} // namespace vkp2p
