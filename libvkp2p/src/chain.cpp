// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
#include "chain.hpp"

#include <algorithm>
#include <cstring>

namespace vkp2p {

size_t known_struct_size(VkStructureType type)
{
	switch (type) {
#define S(T, name) \
	case T:    \
		return sizeof(name)
		// VkDeviceCreateInfo
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, VkPhysicalDeviceFeatures2);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, VkPhysicalDeviceVulkan11Features);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, VkPhysicalDeviceVulkan12Features);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, VkPhysicalDeviceVulkan13Features);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES, VkPhysicalDeviceVulkan14Features);
		S(VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO, VkDeviceGroupDeviceCreateInfo);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
		  VkPhysicalDeviceSynchronization2Features);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		  VkPhysicalDeviceTimelineSemaphoreFeatures);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES,
		  VkPhysicalDeviceBufferDeviceAddressFeatures);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES, VkPhysicalDevice8BitStorageFeatures);
		S(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, VkPhysicalDevice16BitStorageFeatures);
		// VkMemoryAllocateInfo
		S(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, VkMemoryDedicatedAllocateInfo);
		S(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, VkMemoryAllocateFlagsInfo);
		S(VK_STRUCTURE_TYPE_MEMORY_OPAQUE_CAPTURE_ADDRESS_ALLOCATE_INFO,
		  VkMemoryOpaqueCaptureAddressAllocateInfo);
		S(VK_STRUCTURE_TYPE_MEMORY_PRIORITY_ALLOCATE_INFO_EXT, VkMemoryPriorityAllocateInfoEXT);
		S(VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, VkExportMemoryAllocateInfo);
		S(VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, VkImportMemoryFdInfoKHR);
		S(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT, VkImportMemoryHostPointerInfoEXT);
#undef S
	default:
		return 0;
	}
}

InChainFilter::InChainFilter(const void *chain, std::initializer_list<VkStructureType> drop)
{
	auto dropped = [&](const VkBaseInStructure *s) {
		return std::find(drop.begin(), drop.end(), s->sType) != drop.end();
	};
	// Find the last structure to drop: everything after it is shared.
	const VkBaseInStructure *last = nullptr;
	for (auto *s = static_cast<const VkBaseInStructure *>(chain); s; s = s->pNext)
		if (dropped(s))
			last = s;
	if (!last) {
		head_ = chain;
		return;
	}

	// Can every kept structure before @last be copied?
	bool copyable = true;
	size_t need = 0;
	for (auto *s = static_cast<const VkBaseInStructure *>(chain); s != last; s = s->pNext) {
		if (dropped(s))
			continue;
		size_t sz = known_struct_size(s->sType);
		need += (sz + 15) & ~size_t(15);
		if (!sz)
			copyable = false;
	}
	if (copyable && need <= kCopyBytes) {
		// Rebuild the prefix from copies, then attach the shared tail.
		VkBaseInStructure *prev = nullptr;
		const VkBaseInStructure *tail = last->pNext;
		for (auto *s = static_cast<const VkBaseInStructure *>(chain); s != last; s = s->pNext) {
			if (dropped(s))
				continue;
			size_t sz = known_struct_size(s->sType);
			auto *copy = reinterpret_cast<VkBaseInStructure *>(storage_ + used_);
			std::memcpy(copy, s, sz);
			used_ += (sz + 15) & ~size_t(15);
			if (prev)
				prev->pNext = copy;
			else
				head_ = copy;
			prev = copy;
		}
		if (prev)
			prev->pNext = tail;
		else
			head_ = tail;
		return;
	}

	// Fallback: unlink in place, restored (in reverse) by the destructor.
	const void *head = chain;
	VkBaseInStructure *prev = nullptr;
	for (auto *s = static_cast<const VkBaseInStructure *>(chain); s;) {
		const VkBaseInStructure *next = s->pNext;
		if (!dropped(s)) {
			prev = const_cast<VkBaseInStructure *>(s);
		} else if (!prev) {
			head = next;
		} else if (nrestore_ < kMaxCopies) {
			restore_[nrestore_++] = {prev, prev->pNext};
			prev->pNext = next;
		}
		s = next;
	}
	head_ = head;
}

InChainFilter::~InChainFilter()
{
	while (nrestore_ > 0) {
		auto &r = restore_[--nrestore_];
		r.first->pNext = r.second;
	}
}

OutChainUnlink::OutChainUnlink(void *owner, std::initializer_list<VkStructureType> drop)
{
	auto *prev = static_cast<VkBaseOutStructure *>(owner);
	while (prev && prev->pNext) {
		VkBaseOutStructure *s = prev->pNext;
		if (std::find(drop.begin(), drop.end(), s->sType) != drop.end() && n_ < kMax) {
			restore_[n_++] = {prev, s};
			prev->pNext = s->pNext;
			continue;
		}
		prev = s;
	}
}

OutChainUnlink::~OutChainUnlink()
{
	while (n_ > 0) {
		auto &r = restore_[--n_];
		r.first->pNext = r.second;
	}
}

} // namespace vkp2p
