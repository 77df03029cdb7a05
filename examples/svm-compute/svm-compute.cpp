// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-svm-compute: a compute queue works on the process's own memory
 * through shared virtual memory (SVM), with no buffer object and no copy.
 *
 * It opens the first render node with user queues and SVM (vcompute in the
 * VM; --device PATH to choose) and makes an SVM VM, which mirrors this
 * process's address space. Then:
 *  1. an array of --n 32-bit values in memory from operator new (malloc)
 *     and a linked list of --nodes nodes, each its own heap allocation and
 *     linked in shuffled order, are built by the CPU;
 *  2. a queue sums the array (DISPATCH SUM_U32) and walks the list
 *     (DISPATCH LIST_SUM), given the CPU's own pointers; the results land
 *     in a heap variable the CPU reads;
 *  3. the array is prefetched to device memory (SVM attribute
 *     PREFETCH_LOC), /proc/self/pagemap shows where its pages went, and
 *     the queue sums it again there;
 *  4. the CPU reads the array, which brings it back to system memory.
 * The queue's own ring and fences are buffer objects, mapped in a hole of
 * the CPU address space that this program reserves (mmap PROT_NONE), so
 * that no CPU mapping can ever land under them.
 *
 * Exit status: 0 when every sum matches, 1 on a mismatch or error, 2 on a
 * usage error, 77 when no render node has user queues and SVM.
 */
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <format>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


#include "onenode.hpp"
#include "onenode_vcompute.h"

namespace {

constexpr std::int64_t wait_ns = 300LL * 1000 * 1000 * 1000; // TCG with KASAN is slow

struct options {
	std::string device;
	std::uint64_t n = 1 << 20;
	std::uint64_t nodes = 10000;
};

constexpr std::string_view usage_text =
	"usage: onenode-svm-compute [--device PATH] [--n ELEMENTS] [--nodes NODES]\n"
	"\n"
	"Sum a heap array and a heap linked list on a compute queue through SVM.\n"
	"  --device PATH  use the DRM node at PATH (default: the first render node\n"
	"                 with user queues and SVM in $" ONENODE_DRI_DIR_ENV " or " ONENODE_DEFAULT_DRI_DIR ")\n"
	"  --n ELEMENTS   array length (default 1048576)\n"
	"  --nodes NODES  list length (default 10000)\n";

void say(const std::string &s)
{
	std::fputs(s.c_str(), stdout);
	std::fflush(stdout);
}

bool number(const char *s, std::uint64_t max, std::uint64_t &v)
{
	char *end;

	v = std::strtoull(s, &end, 10);
	return !*end && v && v <= max;
}

/* Returns -1 to exit with success (--help), 1 on a usage error, 0 to run. */
int parse(int argc, char **argv, options &opt)
{
	for (int i = 1; i < argc; i++) {
		std::string_view arg = argv[i];
		bool has_value = i + 1 < argc && argv[i + 1][0];

		if (arg == "-h" || arg == "--help") {
			say(std::string(usage_text));
			return -1;
		} else if (arg == "--device" && has_value) {
			opt.device = argv[++i];
		} else if (arg == "--n" && has_value) {
			if (!number(argv[++i], 1ULL << 26, opt.n)) {
				std::fputs("onenode-svm-compute: --n takes 1 to 67108864\n", stderr);
				return 1;
			}
		} else if (arg == "--nodes" && has_value) {
			if (!number(argv[++i], 1ULL << 22, opt.nodes)) {
				std::fputs("onenode-svm-compute: --nodes takes 1 to 4194304\n", stderr);
				return 1;
			}
		} else {
			std::fputs(std::format("onenode-svm-compute: bad argument '{}'\n", arg).c_str(),
				   stderr);
			return 1;
		}
	}
	return 0;
}

/* splitmix64: a small, fixed generator, so every run checks the same data. */
struct rng {
	std::uint64_t s = 0x73766d73756dULL;
	std::uint64_t next()
	{
		std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
};

double ms_since(std::chrono::steady_clock::time_point t)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::uint64_t addr(const void *p)
{
	return reinterpret_cast<std::uintptr_t>(p);
}

struct list_node : vcompute_list_node {};

onenode::Device open_device(const options &opt)
{
	constexpr std::uint64_t need = DRM_COMPUTE_FEATURE_USERQ | DRM_COMPUTE_FEATURE_SVM;

	if (opt.device.empty())
		return onenode::Device::open_with_features(need);
	onenode::Device dev = onenode::Device::open_path(opt.device);
	if ((dev.query_device().features & need) != need)
		throw onenode::error(-EOPNOTSUPP, opt.device + " (" + dev.driver() +
				     ") has no user queues with SVM");
	return dev;
}

/* One DISPATCH, fenced and waited for; its time in ms. */
double dispatch(onenode::Queue &q, std::uint32_t kernel, std::uint64_t count,
		std::uint64_t a0, std::uint64_t a1, const char *what)
{
	std::uint64_t pkt[ONENODE_PKT_MAX_QWORDS];
	auto t = std::chrono::steady_clock::now();

	q.emit(pkt, onenode_pkt_dispatch(pkt, kernel, count, 0, a0, a1, 0));
	std::uint64_t v = q.fence();
	q.commit();
	if (!q.wait(v, wait_ns)) {
		drm_compute_userq_state st = q.state();
		throw onenode::error(-EIO, std::format("{}: queue {} {} ({} at {:#x})", what, q.id(),
						       onenode_status_name(st.status),
						       onenode_fault_name(st.fault_reason),
						       st.fault_va));
	}
	return ms_since(t);
}

int run(onenode::Device &dev, const options &opt)
{
	drm_compute_query_device info = dev.query_device();
	int bad = 0;

	say(std::format("onenode-svm-compute: {} ({}), device id {}, {} elements, {} list nodes\n",
			dev.path(), dev.driver(), info.device_id, opt.n, opt.nodes));

	/* 1. The CPU's data: plain heap memory. */
	auto t = std::chrono::steady_clock::now();
	rng r;
	std::unique_ptr<std::uint32_t[]> array(new std::uint32_t[opt.n]);
	std::uint64_t want_array = 0;
	for (std::uint64_t i = 0; i < opt.n; i++) {
		array[i] = static_cast<std::uint32_t>(r.next());
		want_array += array[i];
	}
	std::vector<std::unique_ptr<list_node>> nodes;
	std::uint64_t want_list = 0;
	for (std::uint64_t i = 0; i < opt.nodes; i++) {
		nodes.push_back(std::make_unique<list_node>());
		nodes.back()->value = r.next();
		want_list += nodes.back()->value;
	}
	std::vector<std::uint64_t> order(opt.nodes);
	std::iota(order.begin(), order.end(), 0);
	for (std::uint64_t i = opt.nodes - 1; i > 0; i--) // Fisher-Yates, fixed seed
		std::swap(order[i], order[r.next() % (i + 1)]);
	for (std::uint64_t i = 0; i < opt.nodes; i++)
		nodes[order[i]]->next = i + 1 < opt.nodes ? addr(nodes[order[i + 1]].get()) : 0;
	const list_node *head = nodes[order[0]].get();
	auto results = std::make_unique<std::array<std::uint64_t, 4>>();
	say(std::format("built on the heap: array at {:#x}, list head at {:#x}: {:.1f} ms\n",
			addr(array.get()), addr(head), ms_since(t)));

	/* 2. An SVM VM and a queue in a reserved hole; the queue sums both. */
	onenode::Vm vm(dev, DRM_COMPUTE_VM_CREATE_SVM);
	onenode::VaHole gpu_only(dev.queue_va_size(0));
	onenode::Queue q(dev, vm, gpu_only.va());

	std::uint64_t *sum = &(*results)[0];
	vcompute_list_sum *ls = reinterpret_cast<vcompute_list_sum *>(&(*results)[2]);
	double ms = dispatch(q, VCOMPUTE_KERNEL_SUM_U32, opt.n, addr(array.get()), addr(sum),
			     "SUM_U32");
	bool ok = *sum == want_array;
	bad += !ok;
	say(std::format("SUM_U32 over the heap array: {} ({}), {:.1f} ms\n", *sum,
			ok ? "correct" : std::format("WRONG, want {}", want_array), ms));
	ms = dispatch(q, VCOMPUTE_KERNEL_LIST_SUM, opt.nodes + 1, addr(head), addr(ls),
		      "LIST_SUM");
	ok = ls->sum == want_list && ls->nodes == opt.nodes;
	bad += !ok;
	say(std::format("LIST_SUM over {} heap nodes: {} ({}), {:.1f} ms\n", ls->nodes, ls->sum,
			ok ? "correct" : std::format("WRONG, want {} over {}", want_list, opt.nodes),
			ms));

	/* 3. Prefetch the array to device memory (whole pages); sum it there. */
	const std::uint64_t bytes = opt.n * 4, page = info.page_size;
	const std::uint64_t first = addr(array.get()) & ~(page - 1);
	const std::uint64_t last = (addr(array.get()) + bytes + page - 1) & ~(page - 1);
	const drm_compute_svm_attr to_device[] = {
		{ .type = DRM_COMPUTE_SVM_ATTR_PREFETCH_LOC, .value = info.device_id },
	};
	t = std::chrono::steady_clock::now();
	vm.svm_set_attr(first, last - first, to_device);
	double prefetch_ms = ms_since(t);
	onenode_residency pl = onenode::residency(array.get(), bytes);
	say(std::format("prefetch to device memory: {:.1f} ms; array pages: {} in device memory, "
			"{} in system memory\n", prefetch_ms, pl.device, pl.sysmem));
	*sum = 0;
	ms = dispatch(q, VCOMPUTE_KERNEL_SUM_U32, opt.n, addr(array.get()), addr(sum), "SUM_U32");
	ok = *sum == want_array;
	bad += !ok;
	say(std::format("SUM_U32 over the array in device memory: {} ({}), {:.1f} ms\n", *sum,
			ok ? "correct" : std::format("WRONG, want {}", want_array), ms));

	/* 4. The CPU reads it: back to system memory. */
	t = std::chrono::steady_clock::now();
	std::uint64_t cpu_sum = 0;
	for (std::uint64_t i = 0; i < opt.n; i++)
		cpu_sum += array[i];
	ms = ms_since(t);
	pl = onenode::residency(array.get(), bytes);
	ok = cpu_sum == want_array && pl.device == 0;
	bad += !ok;
	say(std::format("the CPU's read: {:.1f} ms, sum {}; array pages: {} in device memory, {} in "
			"system memory ({})\n", ms, cpu_sum, pl.device, pl.sysmem,
			ok ? "back" : "WRONG"));
	say(bad ? "onenode-svm-compute: FAILED\n" : "onenode-svm-compute: every result correct\n");
	return bad ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	options opt;
	int ret = parse(argc, argv, opt);

	if (ret)
		return ret < 0 ? 0 : 2;
	std::optional<onenode::Device> dev;
	try {
		dev.emplace(open_device(opt));
	} catch (const onenode::error &e) {
		std::fputs(std::format("onenode-svm-compute: {}\n", e.what()).c_str(), stderr);
		/* No device with user queues and SVM: a skip for the test suite. */
		return e.code() == -ENOENT && opt.device.empty() ? 77 : 1;
	}
	try {
		return run(*dev, opt);
	} catch (const onenode::error &e) {
		std::fputs(std::format("onenode-svm-compute: {}\n", e.what()).c_str(), stderr);
		return 1;
	}
}
