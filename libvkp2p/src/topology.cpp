// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
#include "topology.hpp"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

namespace vkp2p::topology {

namespace {

bool realpath_of(const std::string &p, std::string *out)
{
	char buf[PATH_MAX];
	if (!::realpath(p.c_str(), buf))
		return false;
	*out = buf;
	return true;
}

bool is_pci_function_name(const std::string &s)
{
	unsigned d, b, dev, fn;
	char tail;
	return std::sscanf(s.c_str(), "%x:%x:%x.%x%c", &d, &b, &dev, &fn, &tail) == 4;
}

// Splits ".../devices/pci0000:00/0000:00:01.0/0000:01:00.0" into the host
// bridge ("pci0000:00") and the PCI functions below it, top first.
bool split_pci_path(const std::string &path, std::string *host_bridge, std::vector<std::string> *funcs)
{
	size_t pos = path.find("/devices/pci");
	if (pos == std::string::npos)
		return false;
	std::string rest = path.substr(pos + std::strlen("/devices/"));
	size_t start = 0;
	bool first = true;
	funcs->clear();
	while (start <= rest.size()) {
		size_t end = rest.find('/', start);
		if (end == std::string::npos)
			end = rest.size();
		std::string part = rest.substr(start, end - start);
		if (first) {
			*host_bridge = part;
			first = false;
		} else if (is_pci_function_name(part)) {
			funcs->push_back(part);
		} else {
			break; // below the PCI function (net/, infiniband/, ...)
		}
		start = end + 1;
	}
	return !funcs->empty();
}

// The PCI function that a class device (…/class/net/eth0) sits on.
bool class_device_pci_path(const std::string &class_dir, std::string *path, std::string *why)
{
	std::string real;
	if (!realpath_of(class_dir + "/device", &real)) {
		*why = class_dir + " has no parent device (a virtual interface?)";
		return false;
	}
	std::string hb;
	std::vector<std::string> funcs;
	if (!split_pci_path(real, &hb, &funcs)) {
		*why = class_dir + " is not on a PCI device (" + real + ")";
		return false;
	}
	// Cut the path after its last PCI function.
	size_t at = real.rfind(funcs.back());
	*path = real.substr(0, at + funcs.back().size());
	return true;
}

bool exists(const std::string &p)
{
	std::ifstream f(p);
	return f.good();
}

} // namespace

NicLookup nic_pci_path(const std::string &root, const VkNicIdentifierONENODE &nic, std::string *path,
		  std::string *why)
{
	std::string rdma(nic.rdmaDeviceName, strnlen(nic.rdmaDeviceName, sizeof(nic.rdmaDeviceName)));
	std::string netdev(nic.netdevName, strnlen(nic.netdevName, sizeof(nic.netdevName)));
	if (rdma.find('/') != std::string::npos || netdev.find('/') != std::string::npos || rdma == "." ||
	    rdma == ".." || netdev == "." || netdev == "..") {
		*why = "invalid NIC name";
		return NicLookup::kNotFound;
	}
	if (!rdma.empty()) {
		std::string dir = root + "/class/infiniband/" + rdma;
		if (!exists(dir + "/uevent") && !exists(dir + "/node_type")) {
			*why = "no RDMA device '" + rdma + "' in " + root + "/class/infiniband";
			return NicLookup::kNotFound;
		}
		return class_device_pci_path(dir, path, why) ? NicLookup::kPci : NicLookup::kNotPci;
	}
	if (netdev.empty() && nic.netdevIfindex) {
		DIR *d = opendir((root + "/class/net").c_str());
		if (d) {
			while (dirent *e = readdir(d)) {
				if (e->d_name[0] == '.')
					continue;
				std::ifstream f(root + "/class/net/" + e->d_name + "/ifindex");
				unsigned idx = 0;
				if (f >> idx && idx == nic.netdevIfindex) {
					netdev = e->d_name;
					break;
				}
			}
			closedir(d);
		}
		if (netdev.empty()) {
			*why = "no network interface with index " + std::to_string(nic.netdevIfindex);
			return NicLookup::kNotFound;
		}
	}
	if (!netdev.empty()) {
		std::string dir = root + "/class/net/" + netdev;
		if (!exists(dir + "/ifindex")) {
			*why = "no network interface '" + netdev + "' in " + root + "/class/net";
			return NicLookup::kNotFound;
		}
		return class_device_pci_path(dir, path, why) ? NicLookup::kPci : NicLookup::kNotPci;
	}
	*why = "the NIC identifier names no RDMA device and no network interface";
	return NicLookup::kNotFound;
}

bool render_node_pci_path(const std::string &root, unsigned minor, std::string *path)
{
	std::string why;
	return class_device_pci_path(root + "/class/drm/renderD" + std::to_string(minor), path, &why);
}

bool pci_function_path(const std::string &root, unsigned domain, unsigned bus, unsigned dev, unsigned fn,
		       std::string *path)
{
	char name[32];
	std::snprintf(name, sizeof(name), "%04x:%02x:%02x.%x", domain, bus, dev, fn);
	std::string real;
	if (!realpath_of(root + "/bus/pci/devices/" + name, &real))
		return false;
	*path = real;
	return true;
}

Distance pci_distance(const std::string &a, const std::string &b)
{
	Distance d;
	std::string hba, hbb;
	std::vector<std::string> fa, fb;
	if (!split_pci_path(a, &hba, &fa) || !split_pci_path(b, &hbb, &fb)) {
		d.description = "not both PCI functions";
		return d;
	}
	if (hba != hbb) {
		d.description = "different host bridges (" + hba + ", " + hbb + ")";
		return d;
	}
	d.same_host_bridge = true;
	size_t common = 0;
	while (common < fa.size() && common < fb.size() && fa[common] == fb[common])
		common++;
	if (common == fa.size() && common == fb.size()) {
		d.hops = 0;
		d.description = "same PCI function " + fa.back();
		return d;
	}
	if (common == 0) {
		d.description = "common upstream is the host bridge " + hba +
				": peer-to-peer only if the root complex forwards it";
		return d;
	}
	d.hops = static_cast<int>((fa.size() - common) + (fb.size() - common));
	d.description = "common upstream port " + fa[common - 1] + ", " + std::to_string(d.hops) + " hops";
	return d;
}

} // namespace vkp2p::topology
