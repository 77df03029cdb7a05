// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Removing the layer's own structures from pNext chains before calling down.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <initializer_list>

namespace vkp2p {

// Size of the structures that may precede one of ours in the input chains
// the layer filters (VkDeviceCreateInfo, VkMemoryAllocateInfo), 0 if unknown.
size_t known_struct_size(VkStructureType type);

// An input chain with some structure types dropped. Structures before the
// last dropped one are copied (their pNext must change and the application's
// chain is const); the rest of the chain is shared. If a structure that must
// be copied has a type this layer does not know the size of, the chain is
// unlinked in place and restored by the destructor instead: correct for
// every caller that does not read the same chain from another thread during
// the call, which is the documented limitation of this fallback.
class InChainFilter {
public:
	InChainFilter(const void *chain, std::initializer_list<VkStructureType> drop);
	~InChainFilter();
	InChainFilter(const InChainFilter &) = delete;
	InChainFilter &operator=(const InChainFilter &) = delete;

	// The chain to pass down.
	const void *head() const { return head_; }
	// Prepends @s (whose pNext is overwritten) to the filtered chain.
	void prepend(VkBaseInStructure *s)
	{
		s->pNext = static_cast<const VkBaseInStructure *>(head_);
		head_ = s;
	}

private:
	static constexpr size_t kMaxCopies = 32;
	static constexpr size_t kCopyBytes = 4096;
	const void *head_ = nullptr;
	alignas(16) unsigned char storage_[kCopyBytes];
	size_t used_ = 0;
	// In-place fallback: (struct, original pNext) pairs to restore.
	std::array<std::pair<VkBaseInStructure *, const VkBaseInStructure *>, kMaxCopies> restore_{};
	size_t nrestore_ = 0;
};

// Removes the structures of given types from an output chain for the scope
// of the object; output chains belong to the caller for the duration of the
// command, so unlinking and relinking them is safe.
class OutChainUnlink {
public:
	OutChainUnlink(void *owner, std::initializer_list<VkStructureType> drop);
	~OutChainUnlink();
	OutChainUnlink(const OutChainUnlink &) = delete;
	OutChainUnlink &operator=(const OutChainUnlink &) = delete;

private:
	static constexpr size_t kMax = 8;
	std::array<std::pair<VkBaseOutStructure *, VkBaseOutStructure *>, kMax> restore_{};
	size_t n_ = 0;
};

} // namespace vkp2p
