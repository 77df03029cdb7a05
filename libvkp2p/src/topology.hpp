// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// PCI topology from sysfs: which PCI function a NIC or a GPU is, and how far
// apart two functions are, in the spirit of the kernel's
// pci_p2pdma_distance(): peer-to-peer traffic that stays below a common
// switch or root port avoids the root complex, which may not forward it.
// Every function takes the sysfs root so tests can use a fake tree.
#pragma once

#include <string>

#include "vulkan/vk_onenode_nic_memory.h"

namespace vkp2p::topology {

// Resolves a NIC, named as RDMA or netdev users name it, to the canonical
// sysfs path of its PCI function (…/devices/pci0000:00/…/0000:03:00.0).
// Anything but kPci comes with @why set.
enum class NicLookup { kPci, kNotPci, kNotFound };
NicLookup nic_pci_path(const std::string &root, const VkNicIdentifierONENODE &nic, std::string *path,
		  std::string *why);

// The PCI function of DRM render node renderD@minor, or false.
bool render_node_pci_path(const std::string &root, unsigned minor, std::string *path);

// The PCI function at domain:bus:device.function, or false.
bool pci_function_path(const std::string &root, unsigned domain, unsigned bus, unsigned dev, unsigned fn,
		       std::string *path);

struct Distance {
	// Hops from each function up to their closest common upstream port,
	// summed; 0 for the same function; -1 when not peer-to-peer reachable
	// without the root complex (different host bridges, or a common
	// ancestor that is only the host bridge).
	int hops = -1;
	bool same_host_bridge = false;
	std::string description;
};

Distance pci_distance(const std::string &a, const std::string &b);

} // namespace vkp2p::topology
