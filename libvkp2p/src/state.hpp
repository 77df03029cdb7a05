// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Per-instance and per-device state of the layer, keyed by the loader's
// dispatch table pointer (the first word of every dispatchable handle), and
// allocated with the application's allocation callbacks.
#pragma once

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>

#include "vulkan/vk_onenode_nic_memory.h"

namespace vkp2p {

inline constexpr const char *kLayerName = "VK_LAYER_ONENODE_vkp2p";

// The dispatch key of a dispatchable handle.
template <typename Handle> inline void *dispatch_key(Handle h)
{
	return *reinterpret_cast<void **>(h);
}

// Objects allocated through VkAllocationCallbacks when the application gave
// some, through operator new otherwise.
template <typename T, typename... Args>
T *vk_new(const VkAllocationCallbacks *cb, VkSystemAllocationScope scope, Args &&...args)
{
	void *p = cb ? cb->pfnAllocation(cb->pUserData, sizeof(T), alignof(T), scope)
		     : ::operator new(sizeof(T), std::align_val_t(alignof(T)), std::nothrow);
	if (!p)
		return nullptr;
	return new (p) T(std::forward<Args>(args)...);
}

template <typename T> void vk_delete(const VkAllocationCallbacks *cb, T *obj)
{
	if (!obj)
		return;
	obj->~T();
	if (cb)
		cb->pfnFree(cb->pUserData, obj);
	else
		::operator delete(obj, std::align_val_t(alignof(T)));
}

// Copy of an application's allocator (the pointer may not outlive the call).
struct Allocator {
	VkAllocationCallbacks cb{};
	bool set = false;

	void assign(const VkAllocationCallbacks *p)
	{
		set = p != nullptr;
		if (p)
			cb = *p;
	}
	const VkAllocationCallbacks *get() const { return set ? &cb : nullptr; }
};

struct InstanceData {
	void *key = nullptr;
	InstanceData *next_in_registry = nullptr;
	VkInstance instance = VK_NULL_HANDLE;
	uint32_t api_version = VK_API_VERSION_1_0;
	Allocator alloc;

	PFN_vkGetInstanceProcAddr GetInstanceProcAddr = nullptr;
	PFN_vkDestroyInstance DestroyInstance = nullptr;
	PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties = nullptr;
	PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2 = nullptr;
	PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2 = nullptr;
	PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties = nullptr;
	PFN_vkGetPhysicalDeviceExternalSemaphoreProperties GetPhysicalDeviceExternalSemaphoreProperties = nullptr;
};

struct NicMemory;

// What the driver below offers for NIC memory on one physical device.
struct DriverCaps {
	bool has_own_extension = false; // the driver implements VK_ONENODE_nic_memory itself
	bool dmabuf_import = false;	// VK_EXT_external_memory_dma_buf + _fd
	bool host_import = false;	// VK_EXT_external_memory_host
	bool drm_props = false;		// VK_EXT_physical_device_drm
	bool pci_bus_info = false;	// VK_EXT_pci_bus_info
	bool sync_fd = false;		// VK_KHR_external_semaphore_fd
};

struct DeviceData {
	void *key = nullptr;
	DeviceData *next_in_registry = nullptr;
	VkDevice device = VK_NULL_HANDLE;
	VkPhysicalDevice physical = VK_NULL_HANDLE;
	InstanceData *instance = nullptr;
	Allocator alloc;
	bool nic_enabled = false; // the application enabled VK_ONENODE_nic_memory
	DriverCaps caps;
	VkExternalMemoryHandleTypeFlagBits import_type{};
	VkDeviceSize host_import_alignment = 4096;

	PFN_vkGetDeviceProcAddr GetDeviceProcAddr = nullptr;
	PFN_vkDestroyDevice DestroyDevice = nullptr;
	PFN_vkAllocateMemory AllocateMemory = nullptr;
	PFN_vkFreeMemory FreeMemory = nullptr;
	PFN_vkGetMemoryFdPropertiesKHR GetMemoryFdPropertiesKHR = nullptr;
	PFN_vkGetMemoryHostPointerPropertiesEXT GetMemoryHostPointerPropertiesEXT = nullptr;

	// Memory types NIC memory can use, probed once (nic_memory.cpp).
	std::once_flag type_bits_once;
	uint32_t type_bits = 0;

	std::mutex lock; // protects the list below
	NicMemory *memories = nullptr;
};

// The registry of live instances or devices, keyed by dispatch pointer.
// Lookups happen on every intercepted call and take no lock: a fixed table
// of (key, object) slots read with acquire loads. Adding and removing take
// a mutex; a slot's key is cleared before its object is freed, and a valid
// application does not use a device while destroying it. Beyond the table
// (more than kSlots live objects) an intrusive list under the mutex serves.
template <typename T> class Registry {
public:
	void add(T *obj)
	{
		std::lock_guard<std::mutex> g(lock_);
		for (size_t i = 0; i < kSlots; i++) {
			if (!keys_[i].load(std::memory_order_relaxed)) {
				objs_[i].store(obj, std::memory_order_relaxed);
				keys_[i].store(obj->key, std::memory_order_release);
				return;
			}
		}
		obj->next_in_registry = overflow_;
		overflow_ = obj;
	}
	T *find(void *key)
	{
		for (size_t i = 0; i < kSlots; i++)
			if (keys_[i].load(std::memory_order_acquire) == key)
				return objs_[i].load(std::memory_order_relaxed);
		std::lock_guard<std::mutex> g(lock_);
		for (T *it = overflow_; it; it = it->next_in_registry)
			if (it->key == key)
				return it;
		return nullptr;
	}
	T *remove(void *key)
	{
		std::lock_guard<std::mutex> g(lock_);
		for (size_t i = 0; i < kSlots; i++) {
			if (keys_[i].load(std::memory_order_relaxed) == key) {
				keys_[i].store(nullptr, std::memory_order_release);
				return objs_[i].exchange(nullptr, std::memory_order_relaxed);
			}
		}
		for (T **it = &overflow_; *it; it = &(*it)->next_in_registry) {
			if ((*it)->key == key) {
				T *found = *it;
				*it = found->next_in_registry;
				return found;
			}
		}
		return nullptr;
	}

private:
	static constexpr size_t kSlots = 32;
	std::array<std::atomic<void *>, kSlots> keys_{};
	std::array<std::atomic<T *>, kSlots> objs_{};
	std::mutex lock_;
	T *overflow_ = nullptr;
};

Registry<InstanceData> &instances();
Registry<DeviceData> &devices();

// Finds the first structure of type @type in a pNext chain.
template <typename T = VkBaseOutStructure> T *find_in_chain(const void *chain, VkStructureType type)
{
	for (auto *p = static_cast<const VkBaseInStructure *>(chain); p; p = p->pNext)
		if (p->sType == type)
			return reinterpret_cast<T *>(const_cast<VkBaseInStructure *>(p));
	return nullptr;
}

// Driver capabilities of @phys, read through the next layer.
DriverCaps query_driver_caps(InstanceData *inst, VkPhysicalDevice phys);

// The import handle type NIC memory uses on a device with @caps.
VkExternalMemoryHandleTypeFlagBits choose_import_type(const DriverCaps &caps);

// Fills the extension's feature and property structures.
void fill_features(InstanceData *inst, VkPhysicalDevice phys,
		   VkPhysicalDeviceNicMemoryFeaturesONENODE *f);
void fill_properties(InstanceData *inst, VkPhysicalDevice phys,
		     VkPhysicalDeviceNicMemoryPropertiesONENODE *p);

// Entry points of the extension and the core commands it intercepts
// (nic_memory.cpp).
VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
					      const VkAllocationCallbacks *pAllocator,
					      VkDeviceMemory *pMemory);
VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory,
				      const VkAllocationCallbacks *pAllocator);
VKAPI_ATTR VkResult VKAPI_CALL GetDeviceNicMemorySupportONENODE(VkDevice device,
								const VkNicIdentifierONENODE *pNic,
								VkNicMemorySupportONENODE *pSupport);
VKAPI_ATTR VkResult VKAPI_CALL GetMemoryNicFdONENODE(VkDevice device,
						     const VkMemoryGetNicFdInfoONENODE *info, int *pFd);
VKAPI_ATTR void VKAPI_CALL GetNicMemoryPlacementONENODE(VkDevice device, VkDeviceMemory memory,
							VkNicMemoryPlacementInfoONENODE *pPlacement);
VKAPI_ATTR VkResult VKAPI_CALL ExportNicMemorySyncFileONENODE(VkDevice device, VkDeviceMemory memory,
							      VkBool32 write, int *pFd);
VKAPI_ATTR VkResult VKAPI_CALL ImportNicMemorySyncFileONENODE(VkDevice device, VkDeviceMemory memory,
							      VkBool32 write, int fd);

// Releases what is left of NIC allocations when a device is destroyed.
void release_all_memories(DeviceData *dev);

} // namespace vkp2p
