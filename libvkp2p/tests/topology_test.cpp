// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// PCI topology from a fake sysfs tree:
//
//   pci0000:00 ── 00:01.0 (root port) ── 01:00.0 (switch upstream)
//                                          ├─ 02:01.0 ── 03:00.0  GPU  (renderD128)
//                                          └─ 02:02.0 ── 04:00.0  NIC  (mlx5_0, eth0)
//              └─ 00:02.0 (root port) ── 05:00.0  NIC  (mlx5_1, eth1)
//   pci0000:80 ── 80:01.0 ── 81:00.0  NIC  (mlx5_2)
//   virtual: lo (no device link)
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "../src/topology.hpp"

namespace fs = std::filesystem;
using namespace vkp2p::topology;

namespace {

class FakeSysfs : public ::testing::Test {
protected:
	std::string root;

	void SetUp() override
	{
		char tmpl[] = "/tmp/vkp2p-sysfs-XXXXXX";
		ASSERT_NE(mkdtemp(tmpl), nullptr);
		root = tmpl;
		const std::string sw = "/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
		pci(sw + "/0000:02:01.0/0000:03:00.0");
		pci(sw + "/0000:02:02.0/0000:04:00.0");
		pci("/devices/pci0000:00/0000:00:02.0/0000:05:00.0");
		pci("/devices/pci0000:80/0000:80:01.0/0000:81:00.0");
		class_dev("drm", "renderD128", sw + "/0000:02:01.0/0000:03:00.0", "dev");
		class_dev("infiniband", "mlx5_0", sw + "/0000:02:02.0/0000:04:00.0", "node_type");
		class_dev("net", "eth0", sw + "/0000:02:02.0/0000:04:00.0", "ifindex", "2");
		class_dev("infiniband", "mlx5_1", "/devices/pci0000:00/0000:00:02.0/0000:05:00.0", "node_type");
		class_dev("net", "eth1", "/devices/pci0000:00/0000:00:02.0/0000:05:00.0", "ifindex", "3");
		class_dev("infiniband", "mlx5_2", "/devices/pci0000:80/0000:80:01.0/0000:81:00.0", "node_type");
		fs::create_directories(root + "/class/net/lo");
		write(root + "/class/net/lo/ifindex", "1");
	}
	void TearDown() override { fs::remove_all(root); }

	void write(const std::string &path, const std::string &text)
	{
		std::ofstream f(path);
		f << text << "\n";
	}
	void pci(const std::string &path)
	{
		fs::create_directories(root + path);
		std::string name = fs::path(path).filename();
		fs::create_directories(root + "/bus/pci/devices");
		fs::create_directory_symlink(root + path, root + "/bus/pci/devices/" + name);
	}
	// A class device below a PCI function, with its "device" link.
	void class_dev(const std::string &cls, const std::string &name, const std::string &parent,
		       const std::string &attr, const std::string &value = "1")
	{
		std::string dir = root + parent + "/" + cls + "/" + name;
		fs::create_directories(dir);
		fs::create_directory_symlink(root + parent, dir + "/device");
		write(dir + "/" + attr, value);
		fs::create_directories(root + "/class/" + cls);
		fs::create_directory_symlink(dir, root + "/class/" + cls + "/" + name);
	}
	VkNicIdentifierONENODE nic(const char *rdma, const char *netdev = "", uint32_t ifindex = 0)
	{
		VkNicIdentifierONENODE n{};
		n.sType = VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE;
		std::snprintf(n.rdmaDeviceName, sizeof(n.rdmaDeviceName), "%s", rdma);
		std::snprintf(n.netdevName, sizeof(n.netdevName), "%s", netdev);
		n.netdevIfindex = ifindex;
		return n;
	}
	std::string gpu()
	{
		std::string p;
		EXPECT_TRUE(render_node_pci_path(root, 128, &p));
		return p;
	}
};

} // namespace

TEST_F(FakeSysfs, FindsTheGpuByRenderNodeAndByBusInfo)
{
	std::string by_node = gpu();
	EXPECT_EQ(fs::path(by_node).filename(), "0000:03:00.0");
	std::string by_bus;
	ASSERT_TRUE(pci_function_path(root, 0, 3, 0, 0, &by_bus));
	EXPECT_EQ(by_bus, by_node);
	std::string none;
	EXPECT_FALSE(render_node_pci_path(root, 129, &none));
	EXPECT_FALSE(pci_function_path(root, 0, 0x42, 0, 0, &none));
}

TEST_F(FakeSysfs, NicByRdmaNameNetdevAndIfindexAgree)
{
	std::string a, b, c, why;
	ASSERT_EQ(nic_pci_path(root, nic("mlx5_0"), &a, &why), NicLookup::kPci) << why;
	ASSERT_EQ(nic_pci_path(root, nic("", "eth0"), &b, &why), NicLookup::kPci) << why;
	ASSERT_EQ(nic_pci_path(root, nic("", "", 2), &c, &why), NicLookup::kPci) << why;
	EXPECT_EQ(fs::path(a).filename(), "0000:04:00.0");
	EXPECT_EQ(a, b);
	EXPECT_EQ(a, c);
}

TEST_F(FakeSysfs, MissingAndVirtualNics)
{
	std::string p, why;
	EXPECT_EQ(nic_pci_path(root, nic("mlx5_9"), &p, &why), NicLookup::kNotFound);
	EXPECT_NE(why.find("mlx5_9"), std::string::npos) << why;
	EXPECT_EQ(nic_pci_path(root, nic("", "eth7"), &p, &why), NicLookup::kNotFound);
	EXPECT_EQ(nic_pci_path(root, nic("", "", 99), &p, &why), NicLookup::kNotFound);
	EXPECT_EQ(nic_pci_path(root, nic(""), &p, &why), NicLookup::kNotFound);
	EXPECT_EQ(nic_pci_path(root, nic("../../etc"), &p, &why), NicLookup::kNotFound);
	EXPECT_EQ(nic_pci_path(root, nic("", "lo"), &p, &why), NicLookup::kNotPci);
	EXPECT_EQ(nic_pci_path(root, nic("", "", 1), &p, &why), NicLookup::kNotPci);
}

TEST_F(FakeSysfs, DistanceBelowACommonSwitch)
{
	std::string n, why;
	ASSERT_EQ(nic_pci_path(root, nic("mlx5_0"), &n, &why), NicLookup::kPci);
	Distance d = pci_distance(gpu(), n);
	EXPECT_EQ(d.hops, 4); // 03:00.0 -> 02:01.0 -> 01:00.0 <- 02:02.0 <- 04:00.0
	EXPECT_TRUE(d.same_host_bridge);
	EXPECT_NE(d.description.find("0000:01:00.0"), std::string::npos) << d.description;
	EXPECT_EQ(pci_distance(n, gpu()).hops, 4) << "symmetric";
	EXPECT_EQ(pci_distance(gpu(), gpu()).hops, 0);
}

TEST_F(FakeSysfs, OnlyTheHostBridgeInCommon)
{
	std::string n, why;
	ASSERT_EQ(nic_pci_path(root, nic("mlx5_1"), &n, &why), NicLookup::kPci);
	Distance d = pci_distance(gpu(), n);
	EXPECT_EQ(d.hops, -1);
	EXPECT_TRUE(d.same_host_bridge);
	EXPECT_NE(d.description.find("root complex"), std::string::npos) << d.description;
}

TEST_F(FakeSysfs, DifferentHostBridges)
{
	std::string n, why;
	ASSERT_EQ(nic_pci_path(root, nic("mlx5_2"), &n, &why), NicLookup::kPci);
	Distance d = pci_distance(gpu(), n);
	EXPECT_EQ(d.hops, -1);
	EXPECT_FALSE(d.same_host_bridge);
	EXPECT_NE(d.description.find("pci0000:80"), std::string::npos) << d.description;
}

TEST(Topology, NotPciPaths)
{
	EXPECT_EQ(pci_distance("/sys/devices/virtual/net/lo", "/sys/devices/pci0000:00/0000:00:01.0").hops, -1);
}
