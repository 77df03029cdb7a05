// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode.hpp: a thin C++20 RAII wrapper over libonenode (onenode.h).
 * Header-only. Each class owns one libonenode object and releases it in its
 * destructor; all are move-only. Errors are thrown as onenode::error, which
 * carries the negative errno and onenode_strerror()'s text; the one
 * expected outcome that is not an error, a wait that times out, is a
 * return value.
 *
 * Lifetimes: a Bo, Vm or Queue borrows its Device (and a Queue its Vm),
 * which must outlive it; moving a Device keeps them valid. Destroy a Queue
 * before its Vm (declare it after), as the kernel refuses to destroy a VM
 * a queue runs on.
 */
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "onenode.h"

namespace onenode {

/** error - a libonenode failure: @code() is the negative errno. */
class error : public std::runtime_error {
public:
	error(int code, const std::string &what)
		: std::runtime_error(what + ": " + onenode_strerror(code)),
		  code_(code < 0 ? code : -code)
	{
	}
	int code() const noexcept { return code_; }

private:
	int code_;
};

/** check() - throw error(@ret, @what) when @ret is negative; else @ret. */
inline int check(int ret, const std::string &what)
{
	if (ret < 0)
		throw error(ret, what);
	return ret;
}

/** Device - an open DRM render node (owns the fd). */
class Device {
public:
	/** The first render node of @driver in @dri_dir (NULL: onenode_dri_dir()). */
	static Device open_driver(const std::string &driver, const char *dri_dir = nullptr)
	{
		Device d;
		check(onenode_open_driver(driver.c_str(), dri_dir, d.dev_.get()),
		      "open a " + driver + " render node");
		return d;
	}

	/** The DRM node at @path. */
	static Device open_path(const std::string &path)
	{
		Device d;
		check(onenode_open_path(path.c_str(), d.dev_.get()), "open " + path);
		return d;
	}

	/**
	 * The first render node (in numeric order) whose DEVICE report has
	 * every bit of @features; -ENOENT when none has.
	 */
	static Device open_with_features(std::uint64_t features, const char *dri_dir = nullptr)
	{
		std::string dir = dri_dir ? dri_dir : onenode_dri_dir();
		auto d = first_node(dir, [features](const Device &, const drm_compute_query_device &q) {
			return (q.features & features) == features;
		});
		if (d)
			return std::move(*d);
		char names[128];
		onenode_features_string(features, names, sizeof(names));
		throw error(-ENOENT, std::string("no render node with ") + names + " in " + dir);
	}

	/**
	 * The first vcompute render node (in numeric order) whose device
	 * memory is a PCI BAR that it exports to peers (P2P_EXPORT): a PCI
	 * instance, whose buffers a peer's DMA reaches; -ENOENT when none is.
	 */
	static Device open_vcompute_bar(const char *dri_dir = nullptr)
	{
		std::string dir = dri_dir ? dri_dir : onenode_dri_dir();
		auto d = first_node(dir, [](const Device &dev, const drm_compute_query_device &q) {
			return dev.driver() == "vcompute" && q.vram_bar_size &&
			       (q.features & DRM_COMPUTE_FEATURE_P2P_EXPORT);
		});
		if (d)
			return std::move(*d);
		throw error(-ENOENT, "no vcompute PCI instance (a render node with a BAR) in " + dir);
	}

	Device(Device &&) noexcept = default;
	Device &operator=(Device &&o) noexcept
	{
		if (this != &o) {
			release();
			dev_ = std::move(o.dev_);
		}
		return *this;
	}
	~Device() { release(); }

	const onenode_device &raw() const { return *dev_; }
	const onenode_device *get() const { return dev_.get(); }
	int fd() const { return dev_->fd; }
	std::string path() const { return dev_->path; }
	std::string driver() const { return dev_->driver; }

	drm_compute_query_device query_device() const
	{
		drm_compute_query_device q;
		check(onenode_query_device(get(), &q), "DEVICE query");
		return q;
	}

	drm_compute_query_userq query_userq() const
	{
		drm_compute_query_userq q;
		check(onenode_query_userq(get(), &q), "USERQ query");
		return q;
	}

	/** GPU VA bytes a Queue with @ring_size (0: default) occupies. */
	std::uint64_t queue_va_size(std::uint64_t ring_size = 0) const
	{
		std::uint64_t n = onenode_queue_va_size(get(), ring_size);
		if (!n)
			throw error(-EINVAL, "queue VA size");
		return n;
	}

private:
	// On the heap, so that Bo, Vm and Queue may keep its address.
	Device() : dev_(std::make_unique<onenode_device>()) { dev_->fd = -1; }

	void release()
	{
		if (dev_)
			onenode_close(dev_.get());
	}

	/* The first render node in @dir (numeric order) whose DEVICE report @match takes. */
	template <typename Match>
	static std::optional<Device> first_node(const std::string &dir, Match match)
	{
		for (long minor : render_minors(dir)) {
			Device d;
			drm_compute_query_device q;
			std::string path = dir + "/renderD" + std::to_string(minor);

			if (onenode_open_path(path.c_str(), d.dev_.get()) ||
			    onenode_query_device(d.dev_.get(), &q))
				continue;
			if (match(d, q))
				return d;
		}
		return std::nullopt;
	}

	static std::vector<long> render_minors(const std::string &dir)
	{
		std::vector<long> minors;
		std::error_code ec;
		for (const auto &e : std::filesystem::directory_iterator(dir, ec)) {
			std::string name = e.path().filename();
			char *end;
			if (name.rfind("renderD", 0) || name.size() == 7)
				continue;
			long m = std::strtol(name.c_str() + 7, &end, 10);
			if (!*end && m >= 0)
				minors.push_back(m);
		}
		std::sort(minors.begin(), minors.end());
		return minors;
	}

	std::unique_ptr<onenode_device> dev_;
};

/** Bo - a buffer object (owns the handle and its optional CPU mapping). */
class Bo {
public:
	/**
	 * @size bytes (a multiple of the GPU page) in DRM_COMPUTE_PLACEMENT_*
	 * @placement; with a DRM_COMPUTE_BO_EXPORT_* @export_flag, a buffer
	 * made for export to peer devices.
	 */
	Bo(const Device &dev, std::uint64_t size, std::uint64_t placement,
	   std::uint32_t export_flag = 0)
		: dev_(dev.get()), size_(size)
	{
		check(export_flag ? onenode_bo_create_export(dev_, size, placement, export_flag, &handle_)
				  : onenode_bo_create(dev_, size, placement, &handle_),
		      "create a buffer");
	}
	Bo(Bo &&o) noexcept
		: dev_(o.dev_), handle_(std::exchange(o.handle_, 0)), size_(o.size_),
		  map_(std::exchange(o.map_, nullptr))
	{
	}
	Bo &operator=(Bo &&o) noexcept
	{
		if (this != &o) {
			release();
			dev_ = o.dev_;
			handle_ = std::exchange(o.handle_, 0);
			size_ = o.size_;
			map_ = std::exchange(o.map_, nullptr);
		}
		return *this;
	}
	~Bo() { release(); }

	std::uint32_t handle() const { return handle_; }
	std::uint64_t size() const { return size_; }

	/** The CPU mapping of the whole buffer (made on first use). */
	void *map()
	{
		if (!map_)
			check(onenode_bo_map(dev_, handle_, size_, &map_), "map a buffer");
		return map_;
	}
	template <typename T> T *data() { return static_cast<T *>(map()); }

private:
	void release()
	{
		if (map_)
			munmap(map_, size_);
		if (handle_)
			onenode_bo_close(dev_, handle_);
		map_ = nullptr;
		handle_ = 0;
	}

	const onenode_device *dev_;
	std::uint32_t handle_ = 0;
	std::uint64_t size_;
	void *map_ = nullptr;
};

/** Vm - a GPU virtual address space (destroyed with its mappings). */
class Vm {
public:
	/** A VM with DRM_COMPUTE_VM_CREATE_* @flags (SVM: it mirrors this process). */
	explicit Vm(const Device &dev, std::uint32_t flags = 0) : dev_(dev.get())
	{
		check(onenode_vm_create_flags(dev_, flags, &id_), "create a GPU VM");
	}
	Vm(Vm &&o) noexcept : dev_(o.dev_), id_(std::exchange(o.id_, 0)) {}
	Vm &operator=(Vm &&o) noexcept
	{
		if (this != &o) {
			release();
			dev_ = o.dev_;
			id_ = std::exchange(o.id_, 0);
		}
		return *this;
	}
	~Vm() { release(); }

	std::uint32_t id() const { return id_; }

	/** Map @range bytes (0: the whole buffer) of @bo from @bo_offset at @va. */
	void map(const Bo &bo, std::uint64_t va, std::uint64_t flags = 0,
		 std::uint64_t bo_offset = 0, std::uint64_t range = 0)
	{
		check(onenode_vm_map(dev_, id_, bo.handle(), bo_offset, va,
				     range ? range : bo.size() - bo_offset, flags),
		      "map a buffer in the GPU VM");
	}
	void unmap(std::uint64_t va, std::uint64_t range)
	{
		check(onenode_vm_unmap(dev_, id_, va, range), "unmap from the GPU VM");
	}

	/** SVM VMs: apply @attrs, in order, to [@start, @start + @size). */
	void svm_set_attr(std::uint64_t start, std::uint64_t size,
			  std::span<const drm_compute_svm_attr> attrs)
	{
		check(onenode_svm_set_attr(dev_, id_, start, size, attrs.data(),
					   static_cast<std::uint32_t>(attrs.size())),
		      "set SVM attributes");
	}
	/** SVM VMs: @attrs answered in place over [@start, @start + @size). */
	void svm_get_attr(std::uint64_t start, std::uint64_t size,
			  std::span<drm_compute_svm_attr> attrs) const
	{
		check(onenode_svm_get_attr(dev_, id_, start, size, attrs.data(),
					   static_cast<std::uint32_t>(attrs.size())),
		      "get SVM attributes");
	}

private:
	void release()
	{
		if (id_)
			onenode_vm_destroy(dev_, id_);
		id_ = 0;
	}

	const onenode_device *dev_;
	std::uint32_t id_ = 0;
};

/**
 * VaHole - a reserved hole of this process's address space (PROT_NONE,
 * 2 MiB aligned, unmapped with its owner): in an SVM VM, where the queue's
 * own buffers can be bound with no CPU mapping ever landing under them.
 */
class VaHole {
public:
	explicit VaHole(std::uint64_t bytes) : size_(bytes + align_)
	{
		p_ = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0);
		if (p_ == MAP_FAILED)
			throw error(-errno, "reserve a hole in the address space");
	}
	VaHole(const VaHole &) = delete;
	VaHole &operator=(const VaHole &) = delete;
	~VaHole() { munmap(p_, size_); }

	/** The first 2 MiB-aligned address of the hole. */
	std::uint64_t va() const
	{
		return (reinterpret_cast<std::uintptr_t>(p_) + align_ - 1) & ~(align_ - 1);
	}

private:
	static constexpr std::uint64_t align_ = 2 << 20;
	void *p_;
	std::uint64_t size_;
};

/** residency() - onenode_svm_residency() of [@p, @p + @bytes), or throw. */
inline onenode_residency residency(const void *p, std::uint64_t bytes)
{
	onenode_residency r;

	check(onenode_svm_residency(p, bytes, &r), "read /proc/self/pagemap");
	return r;
}

/** Queue - a ready-made user queue (onenode_queue_init() and friends). */
class Queue {
public:
	Queue(const Device &dev, const Vm &vm, const onenode_queue_params &p)
		: q_(std::make_unique<onenode_queue>())
	{
		check(onenode_queue_init(q_.get(), dev.get(), vm.id(), &p), "create a user queue");
	}
	/** A queue at @va with a ring of @ring_size bytes (0: default). */
	Queue(const Device &dev, const Vm &vm, std::uint64_t va, std::uint64_t ring_size = 0,
	      std::uint32_t priority = ONENODE_PRIORITY_DEFAULT)
		: Queue(dev, vm, onenode_queue_params{ va, ring_size, priority, nullptr, 0 })
	{
	}
	Queue(Queue &&) noexcept = default;
	Queue &operator=(Queue &&o) noexcept
	{
		if (this != &o) {
			release();
			q_ = std::move(o.q_);
		}
		return *this;
	}
	~Queue() { release(); }

	const onenode_queue &raw() const { return *q_; }
	std::uint32_t id() const { return q_->id; }
	std::uint64_t wakeups() const { return q_->wakeups; }

	/** Copy a packet into the ring (-ENOSPC thrown when full). */
	void emit(const void *pkt, std::uint32_t qwords)
	{
		check(onenode_queue_emit(q_.get(), pkt, qwords), "emit a packet");
	}
	/** Publish what was emitted (doorbell, WAKE when asked). */
	void commit() { check(onenode_queue_commit(q_.get()), "commit"); }
	/** Emit a FENCE packet; its value. */
	std::uint64_t fence()
	{
		std::uint64_t v = onenode_queue_fence(q_.get());
		if (!v)
			throw error(-ENOSPC, "emit a fence");
		return v;
	}
	/**
	 * Wait until the queue's fence reaches @value, at most @timeout_ns
	 * (negative: forever). Returns false on a timeout.
	 */
	bool wait(std::uint64_t value, std::int64_t timeout_ns)
	{
		int ret = onenode_queue_wait(q_.get(), value, timeout_ns);
		if (ret == -ETIME)
			return false;
		check(ret, "wait for fence " + std::to_string(value));
		return true;
	}
	/** Signal @syncobj (at timeline @point, 0: binary) when the fence reaches @value. */
	void signal(std::uint64_t value, std::uint32_t syncobj, std::uint64_t point)
	{
		check(onenode_userq_signal(q_->dev, q_->id, value, syncobj, point),
		      "signal a sync object");
	}
	drm_compute_userq_state state() const
	{
		drm_compute_userq_state st;
		check(onenode_userq_state(q_->dev, q_->id, &st), "queue state");
		return st;
	}

private:
	void release()
	{
		if (q_)
			onenode_queue_fini(q_.get());
	}

	std::unique_ptr<onenode_queue> q_;
};

} // namespace onenode
