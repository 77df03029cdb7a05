/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * VK_ONENODE_nic_memory: memory a network interface can DMA into.
 *
 * A provisional, project-owned device extension. It is implemented by the
 * VK_LAYER_ONENODE_vkp2p layer over any Vulkan driver; see
 * libvkp2p/spec/VK_ONENODE_nic_memory.adoc for the specification and
 * libvkp2p/spec/vk_onenode_nic_memory.xml for the registry fragment.
 *
 * Enumerant values: the extension takes the unregistered extension number
 * 900001, so every value follows the Vulkan rule
 * 1000000000 + (900001 - 1) * 1000 + offset = 1900000000 + offset
 * (negated for error codes). Khronos has assigned numbers below 1000 so far;
 * the value is provisional and changes if the extension is ever registered.
 */
#ifndef VK_ONENODE_NIC_MEMORY_H_
#define VK_ONENODE_NIC_MEMORY_H_

#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VK_ONENODE_nic_memory 1
#define VK_ONENODE_NIC_MEMORY_SPEC_VERSION 1
#define VK_ONENODE_NIC_MEMORY_EXTENSION_NAME "VK_ONENODE_nic_memory"
#define VK_ONENODE_NIC_MEMORY_EXTENSION_NUMBER 900001

#define VK_MAX_NIC_NAME_SIZE_ONENODE 64U
#define VK_MAX_NIC_MEMORY_DESCRIPTION_SIZE_ONENODE 256U

#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_FEATURES_ONENODE ((VkStructureType)1900000000)
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_NIC_MEMORY_PROPERTIES_ONENODE ((VkStructureType)1900000001)
#define VK_STRUCTURE_TYPE_NIC_IDENTIFIER_ONENODE ((VkStructureType)1900000002)
#define VK_STRUCTURE_TYPE_NIC_MEMORY_SUPPORT_ONENODE ((VkStructureType)1900000003)
#define VK_STRUCTURE_TYPE_NIC_MEMORY_ALLOCATE_INFO_ONENODE ((VkStructureType)1900000004)
#define VK_STRUCTURE_TYPE_MEMORY_GET_NIC_FD_INFO_ONENODE ((VkStructureType)1900000005)
#define VK_STRUCTURE_TYPE_NIC_MEMORY_PLACEMENT_INFO_ONENODE ((VkStructureType)1900000006)

/* Returned by vkAllocateMemory and vkGetMemoryNicFdONENODE when no path can
 * satisfy the request; the reason is reported by
 * vkGetDeviceNicMemorySupportONENODE. */
#define VK_ERROR_NIC_MEMORY_UNAVAILABLE_ONENODE ((VkResult)-1900000000)

typedef enum VkNicMemoryPolicyONENODE {
	/* Device memory reachable by the NIC through PCIe peer-to-peer, or fail. */
	VK_NIC_MEMORY_POLICY_REQUIRE_P2P_ONENODE = 0,
	/* Device memory if possible, else host memory; the placement says which. */
	VK_NIC_MEMORY_POLICY_PREFER_P2P_ONENODE = 1,
	/* Host memory. */
	VK_NIC_MEMORY_POLICY_HOST_ONENODE = 2,
	VK_NIC_MEMORY_POLICY_MAX_ENUM_ONENODE = 0x7FFFFFFF
} VkNicMemoryPolicyONENODE;

typedef enum VkNicMemoryPlacementONENODE {
	VK_NIC_MEMORY_PLACEMENT_NONE_ONENODE = 0,
	/* Memory of the device itself, which the NIC reaches peer-to-peer. */
	VK_NIC_MEMORY_PLACEMENT_DEVICE_LOCAL_ONENODE = 1,
	/* System memory; the device reads it over PCIe. */
	VK_NIC_MEMORY_PLACEMENT_HOST_ONENODE = 2,
	VK_NIC_MEMORY_PLACEMENT_MAX_ENUM_ONENODE = 0x7FFFFFFF
} VkNicMemoryPlacementONENODE;

typedef enum VkNicMemoryReasonONENODE {
	/* Device memory from the device's own exporter, P2P reachable. */
	VK_NIC_MEMORY_REASON_P2P_ONENODE = 0,
	/* The application asked for host memory. */
	VK_NIC_MEMORY_REASON_POLICY_HOST_ONENODE = 1,
	/* The physical device has no DRM render node (e.g. a CPU implementation). */
	VK_NIC_MEMORY_REASON_NO_DRM_DEVICE_ONENODE = 2,
	/* The render node cannot allocate NIC-importable device memory. */
	VK_NIC_MEMORY_REASON_NO_DEVICE_EXPORTER_ONENODE = 3,
	/* The NIC named by the application does not exist. */
	VK_NIC_MEMORY_REASON_NIC_NOT_FOUND_ONENODE = 4,
	/* NIC and device are not peer-to-peer reachable in the PCI topology. */
	VK_NIC_MEMORY_REASON_NOT_P2P_REACHABLE_ONENODE = 5,
	/* The driver imports neither dma-bufs nor host pointers. */
	VK_NIC_MEMORY_REASON_NO_IMPORT_ONENODE = 6,
	/* No dma-buf exporter for host memory (no /dev/udmabuf): the memory can
	 * be used by the device but cannot be handed to a NIC as a dma-buf. */
	VK_NIC_MEMORY_REASON_NO_HOST_EXPORTER_ONENODE = 7,
	VK_NIC_MEMORY_REASON_MAX_ENUM_ONENODE = 0x7FFFFFFF
} VkNicMemoryReasonONENODE;

typedef struct VkPhysicalDeviceNicMemoryFeaturesONENODE {
	VkStructureType sType;
	void *pNext;
	VkBool32 nicMemory;
} VkPhysicalDeviceNicMemoryFeaturesONENODE;

typedef struct VkPhysicalDeviceNicMemoryPropertiesONENODE {
	VkStructureType sType;
	void *pNext;
	/* The handle type NIC memory is imported into the driver with; buffers
	 * bound to NIC memory name it in VkExternalMemoryBufferCreateInfo. */
	VkExternalMemoryHandleTypeFlagBits importHandleType;
	/* A dma-buf exporter for host memory exists (NIC export on the host path). */
	VkBool32 hostMemoryExportable;
	/* The render node of this device can allocate P2P NIC memory. */
	VkBool32 deviceMemoryExportable;
	/* SYNC_FD semaphores (VK_KHR_external_semaphore_fd) are available. */
	VkBool32 syncFdSemaphores;
} VkPhysicalDeviceNicMemoryPropertiesONENODE;

typedef struct VkNicIdentifierONENODE {
	VkStructureType sType;
	const void *pNext;
	/* RDMA device name as ibv_get_device_name() returns it, or "". */
	char rdmaDeviceName[VK_MAX_NIC_NAME_SIZE_ONENODE];
	/* Network interface name, or "". */
	char netdevName[VK_MAX_NIC_NAME_SIZE_ONENODE];
	/* Network interface index, or 0. */
	uint32_t netdevIfindex;
} VkNicIdentifierONENODE;

typedef struct VkNicMemorySupportONENODE {
	VkStructureType sType;
	void *pNext;
	/* A NIC was named and found (VK_FALSE when none was named). */
	VkBool32 nicFound;
	/* Placement an allocation with PREFER_P2P would get. */
	VkNicMemoryPlacementONENODE placement;
	VkNicMemoryReasonONENODE reason;
	/* PCI hops between NIC and device through their closest common
	 * upstream port, -1 when unknown or not reachable. */
	int32_t pciDistance;
	/* Memory types valid for NIC memory allocations on this device. */
	uint32_t memoryTypeBits;
	/* The memory can be exported to the NIC as a dma-buf. */
	VkBool32 dmaBufExportable;
	char description[VK_MAX_NIC_MEMORY_DESCRIPTION_SIZE_ONENODE];
} VkNicMemorySupportONENODE;

typedef struct VkNicMemoryAllocateInfoONENODE {
	VkStructureType sType;
	const void *pNext;
	VkNicMemoryPolicyONENODE policy;
	/* The NIC that will import the memory, or NULL. */
	const VkNicIdentifierONENODE *pNic;
} VkNicMemoryAllocateInfoONENODE;

typedef struct VkMemoryGetNicFdInfoONENODE {
	VkStructureType sType;
	const void *pNext;
	VkDeviceMemory memory;
} VkMemoryGetNicFdInfoONENODE;

typedef struct VkNicMemoryPlacementInfoONENODE {
	VkStructureType sType;
	void *pNext;
	VkNicMemoryPlacementONENODE placement;
	VkNicMemoryReasonONENODE reason;
	VkExternalMemoryHandleTypeFlagBits importHandleType;
	VkBool32 dmaBufExportable;
	char description[VK_MAX_NIC_MEMORY_DESCRIPTION_SIZE_ONENODE];
} VkNicMemoryPlacementInfoONENODE;

typedef VkResult (VKAPI_PTR *PFN_vkGetDeviceNicMemorySupportONENODE)(
	VkDevice device, const VkNicIdentifierONENODE *pNic,
	VkNicMemorySupportONENODE *pSupport);
typedef VkResult (VKAPI_PTR *PFN_vkGetMemoryNicFdONENODE)(
	VkDevice device, const VkMemoryGetNicFdInfoONENODE *pGetFdInfo, int *pFd);
typedef void (VKAPI_PTR *PFN_vkGetNicMemoryPlacementONENODE)(
	VkDevice device, VkDeviceMemory memory,
	VkNicMemoryPlacementInfoONENODE *pPlacement);
/* dma-buf implicit synchronization with the NIC (DMA_BUF_IOCTL_EXPORT_SYNC_FILE
 * and DMA_BUF_IOCTL_IMPORT_SYNC_FILE on the exported dma-buf). */
typedef VkResult (VKAPI_PTR *PFN_vkExportNicMemorySyncFileONENODE)(
	VkDevice device, VkDeviceMemory memory, VkBool32 write, int *pFd);
typedef VkResult (VKAPI_PTR *PFN_vkImportNicMemorySyncFileONENODE)(
	VkDevice device, VkDeviceMemory memory, VkBool32 write, int fd);

#ifndef VK_NO_PROTOTYPES
VKAPI_ATTR VkResult VKAPI_CALL vkGetDeviceNicMemorySupportONENODE(
	VkDevice device, const VkNicIdentifierONENODE *pNic,
	VkNicMemorySupportONENODE *pSupport);
VKAPI_ATTR VkResult VKAPI_CALL vkGetMemoryNicFdONENODE(
	VkDevice device, const VkMemoryGetNicFdInfoONENODE *pGetFdInfo, int *pFd);
VKAPI_ATTR void VKAPI_CALL vkGetNicMemoryPlacementONENODE(
	VkDevice device, VkDeviceMemory memory,
	VkNicMemoryPlacementInfoONENODE *pPlacement);
VKAPI_ATTR VkResult VKAPI_CALL vkExportNicMemorySyncFileONENODE(
	VkDevice device, VkDeviceMemory memory, VkBool32 write, int *pFd);
VKAPI_ATTR VkResult VKAPI_CALL vkImportNicMemorySyncFileONENODE(
	VkDevice device, VkDeviceMemory memory, VkBool32 write, int fd);
#endif

#ifdef __cplusplus
}
#endif

#endif /* VK_ONENODE_NIC_MEMORY_H_ */
