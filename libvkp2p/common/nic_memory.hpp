// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// NIC memory from VK_ONENODE_nic_memory, as the libvkp2p tests, example and
// benchmark allocate it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vulkan/vk_onenode_nic_memory.h"

namespace vkp2p_common {

// vkAllocateMemory of @size bytes of memory type @type with
// VkNicMemoryAllocateInfoONENODE{@policy, @nic} chained; @nic may be null.
inline VkResult allocate_nic_memory(VkDevice device, VkDeviceSize size, uint32_t type,
				    VkNicMemoryPolicyONENODE policy, const VkNicIdentifierONENODE *nic,
				    VkDeviceMemory *mem, const VkAllocationCallbacks *alloc = nullptr)
{
	VkNicMemoryAllocateInfoONENODE ni{};
	ni.sType = VK_STRUCTURE_TYPE_NIC_MEMORY_ALLOCATE_INFO_ONENODE;
	ni.policy = policy;
	ni.pNic = nic;
	VkMemoryAllocateInfo ai{};
	ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
	ai.pNext = &ni;
	ai.allocationSize = size;
	ai.memoryTypeIndex = type;
	return vkAllocateMemory(device, &ai, alloc, mem);
}

} // namespace vkp2p_common
