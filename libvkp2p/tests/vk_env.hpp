// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// A Vulkan instance and device for the libvkp2p tests: the layer, then the
// Khronos validation layer below it (the loader orders explicit layers as
// enabled: the first is closest to the application). Every validation
// message of warning or error severity is counted and printed; tests fail
// when the count is not zero.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "compute.hpp"
#include "vulkan/vk_onenode_nic_memory.h"

namespace vkp2p_test {

inline std::atomic<int> g_messages{0};

inline VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
						 VkDebugUtilsMessageTypeFlagsEXT,
						 const VkDebugUtilsMessengerCallbackDataEXT *data, void *)
{
	if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
		g_messages++;
		std::fprintf(stderr, "debug-utils message: %s\n", data->pMessage);
	}
	return VK_FALSE;
}

struct Env {
	VkInstance instance = VK_NULL_HANDLE;
	VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
	VkPhysicalDevice phys = VK_NULL_HANDLE;
	VkDevice device = VK_NULL_HANDLE;
	VkQueue queue = VK_NULL_HANDLE;
	uint32_t queue_family = 0;
	std::string error;

	// @layers: explicit layers, closest to the application first.
	bool create_instance(const std::vector<const char *> &layers, const VkAllocationCallbacks *alloc = nullptr)
	{
		VkApplicationInfo app{};
		app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
		app.pApplicationName = "vkp2p-test";
		app.apiVersion = VK_API_VERSION_1_3;
		VkDebugUtilsMessengerCreateInfoEXT dbg{};
		dbg.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
		dbg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
				      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
		dbg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
				  VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
				  VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
		dbg.pfnUserCallback = on_message;
		const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
		VkInstanceCreateInfo ci{};
		ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
		ci.pNext = &dbg;
		ci.pApplicationInfo = &app;
		ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
		ci.ppEnabledLayerNames = layers.data();
		ci.enabledExtensionCount = 1;
		ci.ppEnabledExtensionNames = &ext;
		VkResult r = vkCreateInstance(&ci, alloc, &instance);
		if (r != VK_SUCCESS) {
			error = "vkCreateInstance: " + std::to_string(r);
			return false;
		}
		auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
			vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
		create_messenger(instance, &dbg, nullptr, &messenger);
		uint32_t n = 1;
		r = vkEnumeratePhysicalDevices(instance, &n, &phys);
		if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
			error = "no physical device";
			return false;
		}
		uint32_t nq = 0;
		vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
		std::vector<VkQueueFamilyProperties> qf(nq);
		vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf.data());
		for (uint32_t i = 0; i < nq; i++)
			if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
				queue_family = i;
				break;
			}
		return true;
	}

	VkResult create_device(bool nic, const void *pnext = nullptr, const VkAllocationCallbacks *alloc = nullptr,
			       std::vector<const char *> extra = {})
	{
		std::vector<const char *> exts = extra;
		if (nic)
			exts.push_back(VK_ONENODE_NIC_MEMORY_EXTENSION_NAME);
		return vkp2p_common::create_compute_device(phys, queue_family, exts, &device, &queue, pnext, alloc);
	}

	template <typename Fn> Fn proc(const char *name) const
	{
		return reinterpret_cast<Fn>(vkGetDeviceProcAddr(device, name));
	}

	void destroy(const VkAllocationCallbacks *dev_alloc = nullptr, const VkAllocationCallbacks *inst_alloc = nullptr)
	{
		if (device)
			vkDestroyDevice(device, dev_alloc);
		device = VK_NULL_HANDLE;
		if (messenger) {
			auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
				vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
			destroy_messenger(instance, messenger, nullptr);
		}
		messenger = VK_NULL_HANDLE;
		if (instance)
			vkDestroyInstance(instance, inst_alloc);
		instance = VK_NULL_HANDLE;
	}
};

inline constexpr const char *kLayer = "VK_LAYER_ONENODE_vkp2p";
inline constexpr const char *kValidation = "VK_LAYER_KHRONOS_validation";

// First memory type index in @bits that has @flags.
inline int pick_type(VkPhysicalDevice phys, uint32_t bits, VkMemoryPropertyFlags flags)
{
	return vkp2p_common::find_memory_type(phys, bits, flags);
}

} // namespace vkp2p_test
