// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Removing the layer's structures from pNext chains; the object registry.
#include <gtest/gtest.h>

#include "../src/chain.hpp"
#include "../src/state.hpp"
#include "vulkan/vk_onenode_nic_memory.h"

using namespace vkp2p;

namespace {

std::vector<VkStructureType> types(const void *chain)
{
	std::vector<VkStructureType> v;
	for (auto *s = static_cast<const VkBaseInStructure *>(chain); s; s = s->pNext)
		v.push_back(s->sType);
	return v;
}

const VkStructureType kOurs = VK_STRUCTURE_TYPE_NIC_MEMORY_ALLOCATE_INFO_ONENODE;

} // namespace

TEST(InChainFilter, CopiesKnownPredecessorsAndLeavesTheChainAlone)
{
	VkMemoryDedicatedAllocateInfo tail{};
	tail.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
	VkNicMemoryAllocateInfoONENODE ours{};
	ours.sType = kOurs;
	ours.pNext = &tail;
	VkMemoryAllocateFlagsInfo flags{};
	flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
	flags.pNext = &ours;
	flags.deviceMask = 0x5;
	{
		InChainFilter f(&flags, {kOurs});
		EXPECT_EQ(types(f.head()), (std::vector<VkStructureType>{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
									 VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO}));
		EXPECT_NE(f.head(), &flags) << "the predecessor is a copy";
		EXPECT_EQ(static_cast<const VkMemoryAllocateFlagsInfo *>(f.head())->deviceMask, 0x5u);
		EXPECT_EQ(flags.pNext, &ours) << "the application's chain is not modified";
		// Prepending puts a structure of ours in front.
		VkImportMemoryFdInfoKHR imp{};
		imp.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
		f.prepend(reinterpret_cast<VkBaseInStructure *>(&imp));
		EXPECT_EQ(types(f.head()).size(), 3u);
		EXPECT_EQ(f.head(), &imp);
	}
	EXPECT_EQ(flags.pNext, &ours);
}

TEST(InChainFilter, FirstAndOnly)
{
	VkNicMemoryAllocateInfoONENODE ours{};
	ours.sType = kOurs;
	InChainFilter f(&ours, {kOurs});
	EXPECT_EQ(f.head(), nullptr);
	InChainFilter none(nullptr, {kOurs});
	EXPECT_EQ(none.head(), nullptr);
}

TEST(InChainFilter, UnknownPredecessorUnlinksInPlaceAndRestores)
{
	VkNicMemoryAllocateInfoONENODE ours2{};
	ours2.sType = kOurs;
	VkNicMemoryAllocateInfoONENODE ours{};
	ours.sType = kOurs;
	ours.pNext = &ours2;
	VkBaseInStructure unknown{};
	unknown.sType = static_cast<VkStructureType>(1234567);
	unknown.pNext = reinterpret_cast<const VkBaseInStructure *>(&ours);
	{
		InChainFilter f(&unknown, {kOurs});
		EXPECT_EQ(f.head(), &unknown);
		EXPECT_EQ(unknown.pNext, nullptr) << "both of ours skipped in place";
	}
	EXPECT_EQ(unknown.pNext, reinterpret_cast<const VkBaseInStructure *>(&ours)) << "restored";
	EXPECT_EQ(ours.pNext, &ours2);
}

TEST(OutChainUnlink, RemovesForTheScope)
{
	VkPhysicalDeviceVulkan12Features v12{};
	v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
	VkPhysicalDeviceNicMemoryFeaturesONENODE ours{};
	ours.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE;
	ours.pNext = &v12;
	VkPhysicalDeviceFeatures2 f2{};
	f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
	f2.pNext = &ours;
	{
		OutChainUnlink u(&f2, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE});
		EXPECT_EQ(f2.pNext, &v12);
	}
	EXPECT_EQ(f2.pNext, &ours);
	EXPECT_EQ(ours.pNext, &v12);
}

namespace {
struct FakeObject {
	void *key = nullptr;
	FakeObject *next_in_registry = nullptr;
};
} // namespace

// More live objects than the lock-free table holds: the overflow list
// serves the rest, and removal from either leaves the others findable.
TEST(Registry, TableAndOverflow)
{
	Registry<FakeObject> r;
	std::vector<FakeObject> objs(80);
	for (size_t i = 0; i < objs.size(); i++) {
		objs[i].key = reinterpret_cast<void *>(0x1000 + i * 16);
		r.add(&objs[i]);
	}
	for (auto &o : objs)
		EXPECT_EQ(r.find(o.key), &o);
	EXPECT_EQ(r.find(reinterpret_cast<void *>(0x42)), nullptr);
	for (size_t i = 0; i < objs.size(); i += 3)
		EXPECT_EQ(r.remove(objs[i].key), &objs[i]);
	for (size_t i = 0; i < objs.size(); i++)
		EXPECT_EQ(r.find(objs[i].key), i % 3 ? &objs[i] : nullptr) << i;
	// Freed slots are reused.
	FakeObject extra;
	extra.key = reinterpret_cast<void *>(0x9999);
	r.add(&extra);
	EXPECT_EQ(r.find(extra.key), &extra);
	EXPECT_EQ(r.remove(extra.key), &extra);
	EXPECT_EQ(r.remove(extra.key), nullptr);
}
