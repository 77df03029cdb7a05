// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// VK_LAYER_ONENODE_vkp2p: the loader interface (version 2), instance and
// device creation, extension advertisement and the feature and property
// queries of VK_ONENODE_nic_memory. The memory commands are in nic_memory.cpp.
//
// Rules this file follows (Vulkan-Loader LoaderLayerInterface.md):
// - vkGetDeviceProcAddr returns the layer's functions only for commands the
//   device enabled; every other name resolves to the next layer's pointer,
//   so a device without the extension pays nothing;
// - the extension is advertised only when the driver below lacks it, and
//   its name and structures never reach the next layer;
// - state is keyed by the dispatch table pointer and allocated with the
//   application's allocator.
#include <cstring>
#include <vector>

#include "chain.hpp"
#include "exporter.hpp"
#include "state.hpp"

namespace vkp2p {

Registry<InstanceData> &instances()
{
	static Registry<InstanceData> r;
	return r;
}

Registry<DeviceData> &devices()
{
	static Registry<DeviceData> r;
	return r;
}

namespace {

const VkExtensionProperties kExtension = {VK_ONENODE_NIC_MEMORY_EXTENSION_NAME,
					  VK_ONENODE_NIC_MEMORY_SPEC_VERSION};

template <typename Fn> Fn next_proc(PFN_vkGetInstanceProcAddr gipa, VkInstance inst, const char *name)
{
	return reinterpret_cast<Fn>(gipa(inst, name));
}

VkLayerInstanceCreateInfo *instance_link(const VkInstanceCreateInfo *ci)
{
	for (auto *p = static_cast<const VkLayerInstanceCreateInfo *>(ci->pNext); p;
	     p = static_cast<const VkLayerInstanceCreateInfo *>(p->pNext))
		if (p->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && p->function == VK_LAYER_LINK_INFO)
			return const_cast<VkLayerInstanceCreateInfo *>(p);
	return nullptr;
}

VkLayerDeviceCreateInfo *device_link(const VkDeviceCreateInfo *ci)
{
	for (auto *p = static_cast<const VkLayerDeviceCreateInfo *>(ci->pNext); p;
	     p = static_cast<const VkLayerDeviceCreateInfo *>(p->pNext))
		if (p->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && p->function == VK_LAYER_LINK_INFO)
			return const_cast<VkLayerDeviceCreateInfo *>(p);
	return nullptr;
}

std::vector<VkExtensionProperties> driver_extensions(InstanceData *inst, VkPhysicalDevice phys)
{
	uint32_t n = 0;
	std::vector<VkExtensionProperties> v;
	if (inst->EnumerateDeviceExtensionProperties(phys, nullptr, &n, nullptr) != VK_SUCCESS)
		return v;
	v.resize(n);
	if (inst->EnumerateDeviceExtensionProperties(phys, nullptr, &n, v.data()) < VK_SUCCESS)
		n = 0;
	v.resize(n);
	return v;
}

bool has_extension(const std::vector<VkExtensionProperties> &v, const char *name)
{
	for (auto &e : v)
		if (!std::strcmp(e.extensionName, name))
			return true;
	return false;
}

// The extension needs Vulkan 1.1 (external memory capabilities in core).
bool can_offer(InstanceData *inst, const DriverCaps &caps)
{
	return !caps.has_own_extension && inst->api_version >= VK_API_VERSION_1_1 &&
	       inst->GetPhysicalDeviceFeatures2 && inst->GetPhysicalDeviceProperties2;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *ci,
					      const VkAllocationCallbacks *pAllocator, VkInstance *pInstance)
{
	VkLayerInstanceCreateInfo *link = instance_link(ci);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	auto create = next_proc<PFN_vkCreateInstance>(gipa, VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;

	auto *data = vk_new<InstanceData>(pAllocator, VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
	if (!data)
		return VK_ERROR_OUT_OF_HOST_MEMORY;

	// The loader expects each layer to advance the link for the next one.
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	VkResult r = create(ci, pAllocator, pInstance);
	if (r != VK_SUCCESS) {
		vk_delete(pAllocator, data);
		return r;
	}

	VkInstance inst = *pInstance;
	data->key = dispatch_key(inst);
	data->instance = inst;
	data->alloc.assign(pAllocator);
	data->api_version = ci->pApplicationInfo && ci->pApplicationInfo->apiVersion
				    ? ci->pApplicationInfo->apiVersion
				    : VK_API_VERSION_1_0;
	data->GetInstanceProcAddr = gipa;
	data->DestroyInstance = next_proc<PFN_vkDestroyInstance>(gipa, inst, "vkDestroyInstance");
	data->EnumerateDeviceExtensionProperties = next_proc<PFN_vkEnumerateDeviceExtensionProperties>(
		gipa, inst, "vkEnumerateDeviceExtensionProperties");
	data->GetPhysicalDeviceMemoryProperties = next_proc<PFN_vkGetPhysicalDeviceMemoryProperties>(
		gipa, inst, "vkGetPhysicalDeviceMemoryProperties");
	if (data->api_version >= VK_API_VERSION_1_1) {
		data->GetPhysicalDeviceFeatures2 =
			next_proc<PFN_vkGetPhysicalDeviceFeatures2>(gipa, inst, "vkGetPhysicalDeviceFeatures2");
		data->GetPhysicalDeviceProperties2 = next_proc<PFN_vkGetPhysicalDeviceProperties2>(
			gipa, inst, "vkGetPhysicalDeviceProperties2");
		data->GetPhysicalDeviceExternalSemaphoreProperties =
			next_proc<PFN_vkGetPhysicalDeviceExternalSemaphoreProperties>(
				gipa, inst, "vkGetPhysicalDeviceExternalSemaphoreProperties");
	}
	instances().add(data);
	return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks *pAllocator)
{
	if (!instance)
		return;
	InstanceData *data = instances().remove(dispatch_key(instance));
	if (!data)
		return;
	data->DestroyInstance(instance, pAllocator);
	vk_delete(pAllocator, data);
}

VKAPI_ATTR VkResult VKAPI_CALL EnumerateDeviceExtensionProperties(VkPhysicalDevice phys, const char *pLayerName,
								  uint32_t *pCount,
								  VkExtensionProperties *pProps)
{
	InstanceData *inst = instances().find(dispatch_key(phys));
	if (!inst)
		return VK_ERROR_INITIALIZATION_FAILED;

	if (pLayerName && !std::strcmp(pLayerName, kLayerName)) {
		if (!pProps) {
			*pCount = 1;
			return VK_SUCCESS;
		}
		if (*pCount < 1)
			return VK_INCOMPLETE;
		pProps[0] = kExtension;
		*pCount = 1;
		return VK_SUCCESS;
	}
	if (pLayerName)
		return inst->EnumerateDeviceExtensionProperties(phys, pLayerName, pCount, pProps);

	std::vector<VkExtensionProperties> exts = driver_extensions(inst, phys);
	DriverCaps caps = query_driver_caps(inst, phys);
	if (can_offer(inst, caps))
		exts.push_back(kExtension);
	uint32_t total = static_cast<uint32_t>(exts.size());
	if (!pProps) {
		*pCount = total;
		return VK_SUCCESS;
	}
	uint32_t n = *pCount < total ? *pCount : total;
	std::memcpy(pProps, exts.data(), n * sizeof(VkExtensionProperties));
	*pCount = n;
	return n < total ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFeatures2(VkPhysicalDevice phys, VkPhysicalDeviceFeatures2 *pFeatures)
{
	InstanceData *inst = instances().find(dispatch_key(phys));
	auto *ours = find_in_chain<VkPhysicalDeviceNicMemoryFeaturesONENODE>(
		pFeatures->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE);
	// A driver with the extension fills its own structure.
	if (ours && query_driver_caps(inst, phys).has_own_extension) {
		inst->GetPhysicalDeviceFeatures2(phys, pFeatures);
		return;
	}
	{
		OutChainUnlink strip(pFeatures, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE});
		inst->GetPhysicalDeviceFeatures2(phys, pFeatures);
	}
	if (ours)
		fill_features(inst, phys, ours);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice phys,
							 VkPhysicalDeviceProperties2 *pProperties)
{
	InstanceData *inst = instances().find(dispatch_key(phys));
	auto *ours = find_in_chain<VkPhysicalDeviceNicMemoryPropertiesONENODE>(
		pProperties->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE);
	if (ours && query_driver_caps(inst, phys).has_own_extension) {
		inst->GetPhysicalDeviceProperties2(phys, pProperties);
		return;
	}
	{
		OutChainUnlink strip(pProperties, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE});
		inst->GetPhysicalDeviceProperties2(phys, pProperties);
	}
	if (ours)
		fill_properties(inst, phys, ours);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char *pName);

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks *pAllocator)
{
	if (!device)
		return;
	DeviceData *dev = devices().remove(dispatch_key(device));
	if (!dev)
		return;
	dev->DestroyDevice(device, pAllocator);
	// Valid applications freed their memory already; do not leak if not.
	release_all_memories(dev);
	Allocator alloc = dev->alloc; // lives in @dev
	vk_delete(alloc.get(), dev);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
					    const VkAllocationCallbacks *pAllocator, VkDevice *pDevice)
{
	InstanceData *inst = instances().find(dispatch_key(phys));
	VkLayerDeviceCreateInfo *link = device_link(ci);
	if (!inst || !link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	auto create = next_proc<PFN_vkCreateDevice>(gipa, inst->instance, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;

	bool wants_nic = false;
	for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
		if (!std::strcmp(ci->ppEnabledExtensionNames[i], VK_ONENODE_NIC_MEMORY_EXTENSION_NAME))
			wants_nic = true;

	DriverCaps caps = query_driver_caps(inst, phys);
	if (wants_nic && !can_offer(inst, caps) && !caps.has_own_extension)
		return VK_ERROR_EXTENSION_NOT_PRESENT;
	// A driver that implements the extension itself gets the request as is.
	bool layered = wants_nic && !caps.has_own_extension;

	auto *dev = vk_new<DeviceData>(pAllocator, VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
	if (!dev)
		return VK_ERROR_OUT_OF_HOST_MEMORY;

	// Our name out, the driver extensions the paths need in.
	std::vector<const char *> names;
	VkDeviceCreateInfo down = *ci;
	InChainFilter features(ci->pNext, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE});
	if (layered) {
		auto add = [&](const char *n) {
			for (const char *have : names)
				if (!std::strcmp(have, n))
					return;
			names.push_back(n);
		};
		for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
			if (std::strcmp(ci->ppEnabledExtensionNames[i], VK_ONENODE_NIC_MEMORY_EXTENSION_NAME))
				add(ci->ppEnabledExtensionNames[i]);
		if (caps.dmabuf_import) {
			add(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
			add(VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
		}
		if (caps.host_import)
			add(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
		down.enabledExtensionCount = static_cast<uint32_t>(names.size());
		down.ppEnabledExtensionNames = names.data();
		down.pNext = features.head();
	}

	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	VkResult r = create(phys, &down, pAllocator, pDevice);
	if (r != VK_SUCCESS) {
		vk_delete(pAllocator, dev);
		return r;
	}

	VkDevice d = *pDevice;
	dev->key = dispatch_key(d);
	dev->device = d;
	dev->physical = phys;
	dev->instance = inst;
	dev->alloc.assign(pAllocator);
	dev->nic_enabled = layered;
	dev->caps = caps;
	dev->GetDeviceProcAddr = gdpa;
	dev->DestroyDevice = reinterpret_cast<PFN_vkDestroyDevice>(gdpa(d, "vkDestroyDevice"));
	if (layered) {
		dev->AllocateMemory = reinterpret_cast<PFN_vkAllocateMemory>(gdpa(d, "vkAllocateMemory"));
		dev->FreeMemory = reinterpret_cast<PFN_vkFreeMemory>(gdpa(d, "vkFreeMemory"));
		dev->import_type = choose_import_type(caps);
		if (caps.dmabuf_import)
			dev->GetMemoryFdPropertiesKHR = reinterpret_cast<PFN_vkGetMemoryFdPropertiesKHR>(
				gdpa(d, "vkGetMemoryFdPropertiesKHR"));
		if (caps.host_import) {
			dev->GetMemoryHostPointerPropertiesEXT =
				reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
					gdpa(d, "vkGetMemoryHostPointerPropertiesEXT"));
			VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{};
			host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
			VkPhysicalDeviceProperties2 p2{};
			p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
			p2.pNext = &host;
			inst->GetPhysicalDeviceProperties2(phys, &p2);
			if (host.minImportedHostPointerAlignment)
				dev->host_import_alignment = host.minImportedHostPointerAlignment;
		}
	}
	devices().add(dev);
	return VK_SUCCESS;
}

struct NamedProc {
	const char *name;
	PFN_vkVoidFunction fn;
};

#define PROC(name, fn) {name, reinterpret_cast<PFN_vkVoidFunction>(fn)}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char *pName);

// Commands of a device that enabled VK_ONENODE_nic_memory.
const NamedProc kNicDeviceProcs[] = {
	PROC("vkAllocateMemory", AllocateMemory),
	PROC("vkFreeMemory", FreeMemory),
	PROC("vkGetDeviceNicMemorySupportONENODE", GetDeviceNicMemorySupportONENODE),
	PROC("vkGetMemoryNicFdONENODE", GetMemoryNicFdONENODE),
	PROC("vkGetNicMemoryPlacementONENODE", GetNicMemoryPlacementONENODE),
	PROC("vkExportNicMemorySyncFileONENODE", ExportNicMemorySyncFileONENODE),
	PROC("vkImportNicMemorySyncFileONENODE", ImportNicMemorySyncFileONENODE),
};

const char *const kOwnCommands[] = {
	"vkGetDeviceNicMemorySupportONENODE", "vkGetMemoryNicFdONENODE", "vkGetNicMemoryPlacementONENODE",
	"vkExportNicMemorySyncFileONENODE",   "vkImportNicMemorySyncFileONENODE",
};

const NamedProc kInstanceProcs[] = {
	PROC("vkGetInstanceProcAddr", GetInstanceProcAddr),
	PROC("vkCreateInstance", CreateInstance),
	PROC("vkDestroyInstance", DestroyInstance),
	PROC("vkEnumerateDeviceExtensionProperties", EnumerateDeviceExtensionProperties),
	PROC("vkCreateDevice", CreateDevice),
	PROC("vkGetDeviceProcAddr", GetDeviceProcAddr),
};

// Intercepted only when the instance can offer the extension (1.1+).
const NamedProc kInstanceQueryProcs[] = {
	PROC("vkGetPhysicalDeviceFeatures2", GetPhysicalDeviceFeatures2),
	PROC("vkGetPhysicalDeviceFeatures2KHR", GetPhysicalDeviceFeatures2),
	PROC("vkGetPhysicalDeviceProperties2", GetPhysicalDeviceProperties2),
	PROC("vkGetPhysicalDeviceProperties2KHR", GetPhysicalDeviceProperties2),
};

template <size_t N> PFN_vkVoidFunction lookup(const NamedProc (&table)[N], const char *name)
{
	for (const NamedProc &p : table)
		if (!std::strcmp(p.name, name))
			return p.fn;
	return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char *pName)
{
	if (!device || !pName)
		return nullptr;
	if (!std::strcmp(pName, "vkGetDeviceProcAddr"))
		return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
	if (!std::strcmp(pName, "vkDestroyDevice"))
		return reinterpret_cast<PFN_vkVoidFunction>(DestroyDevice);
	DeviceData *dev = devices().find(dispatch_key(device));
	if (!dev)
		return nullptr;
	if (dev->nic_enabled) {
		if (PFN_vkVoidFunction fn = lookup(kNicDeviceProcs, pName))
			return fn;
	} else {
		for (const char *own : kOwnCommands)
			if (!std::strcmp(own, pName) && !dev->caps.has_own_extension)
				return nullptr;
	}
	return dev->GetDeviceProcAddr(device, pName);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char *pName)
{
	if (!pName)
		return nullptr;
	if (PFN_vkVoidFunction fn = lookup(kInstanceProcs, pName))
		return fn;
	if (!instance)
		return nullptr;
	InstanceData *inst = instances().find(dispatch_key(instance));
	if (!inst)
		return nullptr;
	if (inst->api_version >= VK_API_VERSION_1_1 && inst->GetPhysicalDeviceFeatures2)
		if (PFN_vkVoidFunction fn = lookup(kInstanceQueryProcs, pName))
			return fn;
	return inst->GetInstanceProcAddr(instance, pName);
}

#undef PROC

} // namespace

DriverCaps query_driver_caps(InstanceData *inst, VkPhysicalDevice phys)
{
	DriverCaps caps;
	std::vector<VkExtensionProperties> exts = driver_extensions(inst, phys);
	caps.has_own_extension = has_extension(exts, VK_ONENODE_NIC_MEMORY_EXTENSION_NAME);
	caps.dmabuf_import = has_extension(exts, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) &&
			     has_extension(exts, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
	caps.host_import = has_extension(exts, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	caps.drm_props = has_extension(exts, VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME);
	caps.pci_bus_info = has_extension(exts, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
	if (has_extension(exts, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) &&
	    inst->GetPhysicalDeviceExternalSemaphoreProperties) {
		VkPhysicalDeviceExternalSemaphoreInfo info{};
		info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
		info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
		VkExternalSemaphoreProperties props{};
		props.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
		inst->GetPhysicalDeviceExternalSemaphoreProperties(phys, &info, &props);
		const VkExternalSemaphoreFeatureFlags both = VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT |
							     VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
		caps.sync_fd = (props.externalSemaphoreFeatures & both) == both;
	}
	return caps;
}

void fill_features(InstanceData *inst, VkPhysicalDevice phys, VkPhysicalDeviceNicMemoryFeaturesONENODE *f)
{
	DriverCaps caps = query_driver_caps(inst, phys);
	f->nicMemory = can_offer(inst, caps) && choose_import_type(caps) != 0;
}

void fill_properties(InstanceData *inst, VkPhysicalDevice phys, VkPhysicalDeviceNicMemoryPropertiesONENODE *p)
{
	DriverCaps caps = query_driver_caps(inst, phys);
	p->importHandleType = choose_import_type(caps);
	p->hostMemoryExportable = host_exporter_available();
	p->deviceMemoryExportable = device_exporter_status(inst, phys, caps).available;
	p->syncFdSemaphores = caps.sync_fd;
}

} // namespace vkp2p

// The only symbol the layer exports: the loader negotiates interface
// version 2 and takes both GetProcAddr functions from here.
extern "C" __attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *pVersionStruct)
{
	if (!pVersionStruct || pVersionStruct->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
	    pVersionStruct->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	pVersionStruct->loaderLayerInterfaceVersion = 2;
	pVersionStruct->pfnGetInstanceProcAddr = vkp2p::GetInstanceProcAddr;
	pVersionStruct->pfnGetDeviceProcAddr = vkp2p::GetDeviceProcAddr;
	pVersionStruct->pfnGetPhysicalDeviceProcAddr = nullptr;
	return VK_SUCCESS;
}
