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

int RenderNodeExporter::allocate(size_t, ExportedBuffer *, std::string *why)
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
	onenode_close(&dev);
	if (ret) {
		*why = name + ": no DRM compute DEVICE report: " + onenode_strerror(ret);
		return ret;
	}
	char features[128];
	onenode_features_string(report.features, features, sizeof(features));
	if (!(report.features & DRM_COMPUTE_FEATURE_P2P_EXPORT))
		*why = name + ": the device does not report p2p-export (features: " + features + ")";
	else
		*why = name + ": reports p2p-export, but libvkp2p has no allocation path for it yet";
	return -EOPNOTSUPP;
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
	// The allocation uapi is later kernel work: the exporter says why.
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
