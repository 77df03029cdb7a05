// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// A minimal compute dispatcher for the libvkp2p tests, example and
// benchmark: one pipeline over N storage buffers and a push constant block.
// Errors are reported as strings; nothing here knows about the layer.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vkp2p_common {

inline std::string vk_error(const char *what, VkResult r)
{
	return std::string(what) + " failed: VkResult " + std::to_string(static_cast<int>(r));
}

// Creates a device with one queue of @family and @exts enabled (@pnext
// chained to VkDeviceCreateInfo); on success *@queue, if asked for, is that
// queue.
inline VkResult create_compute_device(VkPhysicalDevice phys, uint32_t family, const std::vector<const char *> &exts,
				      VkDevice *device, VkQueue *queue = nullptr, const void *pnext = nullptr,
				      const VkAllocationCallbacks *alloc = nullptr)
{
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q{};
	q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
	q.queueFamilyIndex = family;
	q.queueCount = 1;
	q.pQueuePriorities = &prio;
	VkDeviceCreateInfo ci{};
	ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
	ci.pNext = pnext;
	ci.queueCreateInfoCount = 1;
	ci.pQueueCreateInfos = &q;
	ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
	ci.ppEnabledExtensionNames = exts.data();
	VkResult r = vkCreateDevice(phys, &ci, alloc, device);
	if (r == VK_SUCCESS && queue)
		vkGetDeviceQueue(*device, family, 0, queue);
	return r;
}

class Compute {
public:
	~Compute() { destroy(); }

	// @spirv: words; @nbuffers storage buffers at bindings 0..n-1.
	// @spec: specialization constants of the shader, or null.
	bool create(VkDevice device, uint32_t queue_family, const uint32_t *spirv, size_t words, uint32_t nbuffers,
		    uint32_t push_bytes, std::string *err, const VkSpecializationInfo *spec = nullptr)
	{
		dev_ = device;
		std::vector<VkDescriptorSetLayoutBinding> b(nbuffers);
		for (uint32_t i = 0; i < nbuffers; i++) {
			b[i] = {};
			b[i].binding = i;
			b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
			b[i].descriptorCount = 1;
			b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
		}
		VkDescriptorSetLayoutCreateInfo dl{};
		dl.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
		dl.bindingCount = nbuffers;
		dl.pBindings = b.data();
		VkResult r = vkCreateDescriptorSetLayout(dev_, &dl, nullptr, &dsl_);
		if (r != VK_SUCCESS)
			return fail(err, "vkCreateDescriptorSetLayout", r);
		VkPushConstantRange pc{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
		VkPipelineLayoutCreateInfo pli{};
		pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
		pli.setLayoutCount = 1;
		pli.pSetLayouts = &dsl_;
		pli.pushConstantRangeCount = push_bytes ? 1 : 0;
		pli.pPushConstantRanges = &pc;
		if ((r = vkCreatePipelineLayout(dev_, &pli, nullptr, &layout_)) != VK_SUCCESS)
			return fail(err, "vkCreatePipelineLayout", r);
		VkShaderModuleCreateInfo sm{};
		sm.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
		sm.codeSize = words * 4;
		sm.pCode = spirv;
		VkShaderModule module;
		if ((r = vkCreateShaderModule(dev_, &sm, nullptr, &module)) != VK_SUCCESS)
			return fail(err, "vkCreateShaderModule", r);
		VkComputePipelineCreateInfo cp{};
		cp.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
		cp.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
		cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
		cp.stage.module = module;
		cp.stage.pName = "main";
		cp.stage.pSpecializationInfo = spec;
		cp.layout = layout_;
		r = vkCreateComputePipelines(dev_, VK_NULL_HANDLE, 1, &cp, nullptr, &pipe_);
		vkDestroyShaderModule(dev_, module, nullptr);
		if (r != VK_SUCCESS)
			return fail(err, "vkCreateComputePipelines", r);
		VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nbuffers};
		VkDescriptorPoolCreateInfo dp{};
		dp.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
		dp.maxSets = 1;
		dp.poolSizeCount = 1;
		dp.pPoolSizes = &ps;
		if ((r = vkCreateDescriptorPool(dev_, &dp, nullptr, &dpool_)) != VK_SUCCESS)
			return fail(err, "vkCreateDescriptorPool", r);
		VkDescriptorSetAllocateInfo da{};
		da.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
		da.descriptorPool = dpool_;
		da.descriptorSetCount = 1;
		da.pSetLayouts = &dsl_;
		if ((r = vkAllocateDescriptorSets(dev_, &da, &set_)) != VK_SUCCESS)
			return fail(err, "vkAllocateDescriptorSets", r);
		VkCommandPoolCreateInfo cpi{};
		cpi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
		cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
		cpi.queueFamilyIndex = queue_family;
		if ((r = vkCreateCommandPool(dev_, &cpi, nullptr, &cpool_)) != VK_SUCCESS)
			return fail(err, "vkCreateCommandPool", r);
		VkCommandBufferAllocateInfo ca{};
		ca.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
		ca.commandPool = cpool_;
		ca.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		ca.commandBufferCount = 1;
		if ((r = vkAllocateCommandBuffers(dev_, &ca, &cmd_)) != VK_SUCCESS)
			return fail(err, "vkAllocateCommandBuffers", r);
		VkFenceCreateInfo fi{};
		fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
		if ((r = vkCreateFence(dev_, &fi, nullptr, &fence_)) != VK_SUCCESS)
			return fail(err, "vkCreateFence", r);
		return true;
	}

	void bind(const std::vector<VkBuffer> &buffers)
	{
		std::vector<VkDescriptorBufferInfo> info(buffers.size());
		std::vector<VkWriteDescriptorSet> w(buffers.size());
		for (size_t i = 0; i < buffers.size(); i++) {
			info[i] = {buffers[i], 0, VK_WHOLE_SIZE};
			w[i] = {};
			w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
			w[i].dstSet = set_;
			w[i].dstBinding = static_cast<uint32_t>(i);
			w[i].descriptorCount = 1;
			w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
			w[i].pBufferInfo = &info[i];
		}
		vkUpdateDescriptorSets(dev_, static_cast<uint32_t>(w.size()), w.data(), 0, nullptr);
	}

	// Records @repeat dispatches of @groups workgroups, waits for them. When
	// @timestamps is non-null and the queue has timestamps, the device time
	// of the dispatches (ns) is stored there.
	bool run(VkQueue queue, uint32_t groups, const void *push, uint32_t push_bytes, std::string *err,
		 uint32_t repeat = 1, double *device_ns = nullptr, float timestamp_period = 0.0f,
		 VkSemaphore wait = VK_NULL_HANDLE)
	{
		VkQueryPool qp = VK_NULL_HANDLE;
		if (device_ns && timestamp_period > 0.0f) {
			VkQueryPoolCreateInfo qi{};
			qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
			qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
			qi.queryCount = 2;
			if (vkCreateQueryPool(dev_, &qi, nullptr, &qp) != VK_SUCCESS)
				qp = VK_NULL_HANDLE;
		}
		vkResetCommandBuffer(cmd_, 0);
		VkCommandBufferBeginInfo bi{};
		bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		vkBeginCommandBuffer(cmd_, &bi);
		if (qp) {
			vkCmdResetQueryPool(cmd_, qp, 0, 2);
			vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
		}
		vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipe_);
		vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
		if (push_bytes)
			vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
		VkMemoryBarrier mb{};
		mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
		for (uint32_t i = 0; i < repeat; i++) {
			if (i) {
				mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
				mb.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
				vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
						     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0,
						     nullptr);
			}
			vkCmdDispatch(cmd_, groups, 1, 1);
		}
		if (qp)
			vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
		mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
		mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
				     0, nullptr, 0, nullptr);
		vkEndCommandBuffer(cmd_);
		VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
		VkSubmitInfo si{};
		si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
		si.waitSemaphoreCount = wait ? 1 : 0;
		si.pWaitSemaphores = &wait;
		si.pWaitDstStageMask = &stage;
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cmd_;
		vkResetFences(dev_, 1, &fence_);
		VkResult r = vkQueueSubmit(queue, 1, &si, fence_);
		if (r == VK_SUCCESS)
			r = vkWaitForFences(dev_, 1, &fence_, VK_TRUE, UINT64_MAX);
		if (r == VK_SUCCESS && qp) {
			uint64_t ts[2] = {};
			if (vkGetQueryPoolResults(dev_, qp, 0, 2, sizeof(ts), ts, sizeof(uint64_t),
						  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS)
				*device_ns = static_cast<double>(ts[1] - ts[0]) * timestamp_period;
		}
		if (qp)
			vkDestroyQueryPool(dev_, qp, nullptr);
		if (r != VK_SUCCESS)
			return fail(err, "vkQueueSubmit/vkWaitForFences", r);
		return true;
	}

	// Fills @buffer with the 32-bit @value (vkCmdFillBuffer) and waits.
	bool fill(VkQueue queue, VkBuffer buffer, uint32_t value, std::string *err)
	{
		vkResetCommandBuffer(cmd_, 0);
		VkCommandBufferBeginInfo bi{};
		bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VkResult r = vkBeginCommandBuffer(cmd_, &bi);
		if (r != VK_SUCCESS)
			return fail(err, "vkBeginCommandBuffer", r);
		vkCmdFillBuffer(cmd_, buffer, 0, VK_WHOLE_SIZE, value);
		VkMemoryBarrier mb{};
		mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
		mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
		vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
				     &mb, 0, nullptr, 0, nullptr);
		if ((r = vkEndCommandBuffer(cmd_)) != VK_SUCCESS)
			return fail(err, "vkEndCommandBuffer", r);
		VkSubmitInfo si{};
		si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cmd_;
		vkResetFences(dev_, 1, &fence_);
		r = vkQueueSubmit(queue, 1, &si, fence_);
		if (r == VK_SUCCESS)
			r = vkWaitForFences(dev_, 1, &fence_, VK_TRUE, UINT64_MAX);
		if (r != VK_SUCCESS)
			return fail(err, "fill: vkQueueSubmit/vkWaitForFences", r);
		return true;
	}

	void destroy()
	{
		if (!dev_)
			return;
		if (fence_)
			vkDestroyFence(dev_, fence_, nullptr);
		if (cpool_)
			vkDestroyCommandPool(dev_, cpool_, nullptr);
		if (dpool_)
			vkDestroyDescriptorPool(dev_, dpool_, nullptr);
		if (pipe_)
			vkDestroyPipeline(dev_, pipe_, nullptr);
		if (layout_)
			vkDestroyPipelineLayout(dev_, layout_, nullptr);
		if (dsl_)
			vkDestroyDescriptorSetLayout(dev_, dsl_, nullptr);
		*this = Compute();
	}

	Compute() = default;
	Compute(const Compute &) = delete;
	Compute &operator=(const Compute &) = delete;
	Compute &operator=(Compute &&o) noexcept
	{
		dev_ = o.dev_;
		dsl_ = o.dsl_;
		layout_ = o.layout_;
		pipe_ = o.pipe_;
		dpool_ = o.dpool_;
		set_ = o.set_;
		cpool_ = o.cpool_;
		cmd_ = o.cmd_;
		fence_ = o.fence_;
		return *this;
	}

private:
	bool fail(std::string *err, const char *what, VkResult r)
	{
		*err = vk_error(what, r);
		return false;
	}

	VkDevice dev_ = VK_NULL_HANDLE;
	VkDescriptorSetLayout dsl_ = VK_NULL_HANDLE;
	VkPipelineLayout layout_ = VK_NULL_HANDLE;
	VkPipeline pipe_ = VK_NULL_HANDLE;
	VkDescriptorPool dpool_ = VK_NULL_HANDLE;
	VkDescriptorSet set_ = VK_NULL_HANDLE;
	VkCommandPool cpool_ = VK_NULL_HANDLE;
	VkCommandBuffer cmd_ = VK_NULL_HANDLE;
	VkFence fence_ = VK_NULL_HANDLE;
};

// A buffer bound to memory it owns, or to memory it was given.
struct BoundBuffer {
	VkDevice dev = VK_NULL_HANDLE;
	VkBuffer buffer = VK_NULL_HANDLE;
	VkDeviceMemory memory = VK_NULL_HANDLE;
	VkDeviceSize size = 0;

	// Creates the buffer; @handle_type non-zero adds VkExternalMemoryBufferCreateInfo.
	bool create(VkDevice device, VkDeviceSize bytes, VkExternalMemoryHandleTypeFlagBits handle_type,
		    VkMemoryRequirements *req, std::string *err)
	{
		dev = device;
		size = bytes;
		VkExternalMemoryBufferCreateInfo ext{};
		ext.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
		ext.handleTypes = handle_type;
		VkBufferCreateInfo bi{};
		bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
		bi.pNext = handle_type ? &ext : nullptr;
		bi.size = bytes;
		bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
			   VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
		VkResult r = vkCreateBuffer(dev, &bi, nullptr, &buffer);
		if (r != VK_SUCCESS) {
			*err = vk_error("vkCreateBuffer", r);
			return false;
		}
		vkGetBufferMemoryRequirements(dev, buffer, req);
		return true;
	}

	bool bind(VkDeviceMemory mem, std::string *err)
	{
		memory = mem;
		VkResult r = vkBindBufferMemory(dev, buffer, mem, 0);
		if (r != VK_SUCCESS) {
			*err = vk_error("vkBindBufferMemory", r);
			return false;
		}
		return true;
	}

	// Destroys the buffer and frees its memory.
	void destroy()
	{
		if (buffer)
			vkDestroyBuffer(dev, buffer, nullptr);
		if (memory)
			vkFreeMemory(dev, memory, nullptr);
		buffer = VK_NULL_HANDLE;
		memory = VK_NULL_HANDLE;
	}
};

// First memory type in @bits with all of @flags, -1 if none.
inline int find_memory_type(VkPhysicalDevice phys, uint32_t bits, VkMemoryPropertyFlags flags,
			    VkMemoryPropertyFlags avoid = 0)
{
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags &&
		    !(mp.memoryTypes[i].propertyFlags & avoid))
			return static_cast<int>(i);
	return -1;
}

} // namespace vkp2p_common
