// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-criu-migrate: checkpoint a GPU job with CRIU and restore it, on
 * the same device and on another one, through the render node alone.
 *
 * The job (this program run with --job DIR) holds, on a vcompute node:
 *  1. a user queue inside a long job: a LIST_SUM walk over a cyclic list
 *     of 65,536 nodes, then a WAIT_MEM on a flag only the restored job sets,
 *     then a fence that signals point 1 of a timeline sync object (the
 *     request pending across the checkpoint), which the restored job waits
 *     on as a Vulkan timeline semaphore would;
 *  2. an SVM VM whose queue waits on a flag in malloc'ed memory, then sums
 *     a malloc'ed array of 1 MiB (with a preferred device location where
 *     the device has memory);
 *  3. a buffer shared with a child: the job exports it as a dma-buf and
 *     forks; the child imports the dma-buf into a render-node file of its
 *     own and maps it;
 *  4. where the node is a PCI instance with an edu "NIC" beside it, a
 *     buffer made for export to the NIC (PREFER_P2P): the NIC writes
 *     packets into it by DMA, and the job keeps its dma-buf fd. CRIU cannot
 *     save a NIC's import (a DMA mapping, an RDMA memory region), so the
 *     job lets the NIC go before it says it is ready; the restored job
 *     gives the restored dma-buf to the NIC again, which writes more
 *     packets, and prints where the kernel placed the buffer this time.
 *
 * The driver (no --job) starts the job, dumps it with `criu dump` and the
 * onenode plugin (criu kills the job), restores it on the same node, wakes
 * it and reads its verdict: the walk's sum, the SVM sum, the child's view
 * of the job's writes, the NIC's packets, every byte checked. Then it
 * restores the same images onto another vcompute node with the same DEVICE
 * report (ONENODE_CRIU_RESTORE_NODE tells the plugin which), and checks
 * again. Shaders do not run: vcompute's engine executes the packets.
 *
 * --dump-to DIR and --restore-from DIR split the two halves, as a job that
 * moves between machines: the dump into DIR in one boot, the restore from
 * DIR in the next (./onenode migrate runs both VM boots). criu restores a
 * task at its pid, which must be free there: the dump starts the job a few
 * hundred pids after the driver.
 *
 * Needs root, criu and criu_plugin_onenode.so (--plugin-dir; by default
 * the build's criu/ directory next to this program's). The job's queues
 * wait across the checkpoint for longer than the helper's hang timeout:
 * the driver turns hang detection off for the run and back on after.
 *
 * Exit status: 0 when both restores pass, 1 on a failure, 2 on a usage
 * error, 77 when something it needs is missing.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xf86drm.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <format>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "onenode.hpp"
#include "onenode_vcompute.h"

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t walk_nodes = 1ULL << 16;
constexpr std::uint64_t work_size = 4096, work_va = 0x200000000ULL, queue_va = 0x10000000ULL;
constexpr std::uint64_t work_sum = 64, work_flag = 128;
constexpr std::uint32_t svm_words = 256 * 1024;
constexpr std::uint64_t shared_size = 64 << 10, nic_size = 16 << 10;
constexpr std::int64_t wait_ns = 120LL * 1000 * 1000 * 1000;

volatile sig_atomic_t woken;

void on_usr1(int) { woken = 1; }

[[noreturn]] void fail(const std::string &why)
{
	throw onenode::error(-EIO, why);
}

void check(int ret, const std::string &what)
{
	onenode::check(ret, what);
}

std::uint8_t pattern(std::uint64_t i, unsigned round)
{
	return static_cast<std::uint8_t>(i * 7U + (i >> 12) + round * 101U);
}

void *map_bo(const onenode_device *dev, std::uint32_t handle, std::uint64_t size)
{
	void *p = nullptr;

	check(onenode_bo_map(dev, handle, size, &p), "map a buffer");
	return p;
}

/* CLOCK_MONOTONIC @rel_ns from now, as DRM's sync-object waits take it. */
std::int64_t abs_deadline(std::int64_t rel_ns)
{
	timespec ts{};

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec + rel_ns;
}

std::uint64_t commit_fenced(onenode_queue *q)
{
	std::uint64_t fence = onenode_queue_fence(q);

	if (!fence)
		fail("the ring is full");
	check(onenode_queue_commit(q), "commit");
	return fence;
}

void emit(onenode_queue *q, std::uint64_t *pkt, std::uint32_t qwords)
{
	check(onenode_queue_emit(q, pkt, qwords), "emit a packet");
}

/* 1. A queue inside a long job when the checkpoint comes. */
struct Walk {
	std::uint32_t vm = 0, work = 0;
	std::uint8_t *map = nullptr;
	onenode_queue q{};
	std::uint64_t fence = 0;
	std::uint32_t timeline = 0;

	void setup(const onenode_device *dev)
	{
		onenode_queue_params params{};
		params.va = queue_va;
		params.priority = ONENODE_PRIORITY_DEFAULT;
		std::uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];

		check(onenode_vm_create_flags(dev, 0, &vm), "create a VM");
		check(onenode_bo_create(dev, work_size, DRM_COMPUTE_PLACEMENT_SYSTEM, &work),
		      "create the walk's buffer");
		check(onenode_vm_map(dev, vm, work, 0, work_va, work_size,
				     DRM_COMPUTE_VM_BIND_NOEXEC), "map the walk's buffer");
		check(onenode_queue_init(&q, dev, vm, &params), "create the walk's queue");
		map = static_cast<std::uint8_t *>(map_bo(dev, work, work_size));
		auto *n = reinterpret_cast<vcompute_list_node *>(map);
		n[0] = vcompute_list_node{ .next = work_va + sizeof(*n), .value = 1 };
		n[1] = vcompute_list_node{ .next = work_va, .value = 2 };
		emit(&q, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_LIST_SUM, walk_nodes, 0,
						   work_va, work_va + work_sum, 0));
		emit(&q, pkt, onenode_pkt_wait_mem(pkt, work_va + work_flag, VCOMPUTE_WAIT_EQ, 1,
						   ~0ULL, 0, 0));
		fence = commit_fenced(&q);
		check(drmSyncobjCreate(dev->fd, 0, &timeline) ? -errno : 0,
		      "create the walk's timeline");
		check(onenode_userq_signal(dev, q.id, fence, timeline, 1),
		      "ask for the walk's timeline point");
	}

	std::string finish()
	{
		const volatile auto *sum =
			reinterpret_cast<const volatile vcompute_list_sum *>(map + work_sum);
		std::uint64_t point = 1;

		*reinterpret_cast<volatile std::uint32_t *>(map + work_flag) = 1;
		/* The signal asked for before the checkpoint, restored with the queue. */
		check(drmSyncobjTimelineWait(q.dev->fd, &timeline, &point, 1, abs_deadline(wait_ns),
					     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, nullptr) ?
		      -errno : 0, "wait for the walk's timeline point");
		check(onenode_queue_wait(&q, fence, 0), "the walk's queue past its fence");
		const std::uint64_t nodes = sum->nodes, total = sum->sum;

		if (nodes != walk_nodes || total != walk_nodes / 2 * 3)
			fail(std::format("the walk summed {} over {} nodes", total, nodes));
		return std::format("the queue walked {} nodes across the checkpoint, sum {}, "
				   "and signaled its timeline", nodes, total);
	}
};

/* 2. An SVM VM's queue sums a malloc'ed array once a malloc'ed flag is set. */
struct Svm {
	bool on = false;
	std::uint32_t vm = 0;
	std::uint32_t *arr = nullptr;
	volatile std::uint32_t *flag = nullptr;
	volatile std::uint64_t *sum = nullptr;
	onenode_queue q{};
	std::uint64_t fence = 0;

	void setup(const onenode_device *dev)
	{
		onenode_queue_params params{};
		params.va = queue_va;
		params.priority = ONENODE_PRIORITY_DEFAULT;
		std::uint64_t pkt[VCOMPUTE_PKT_MAX_QWORDS];
		drm_compute_query_device d;

		check(onenode_query_device(dev, &d), "DEVICE query");
		if (!(d.features & DRM_COMPUTE_FEATURE_SVM))
			return;
		on = true;
		/* Heap memory; page-aligned, as SVM attribute ranges are. */
		arr = static_cast<std::uint32_t *>(std::aligned_alloc(4096, svm_words * 4ULL));
		auto *out = static_cast<std::uint64_t *>(std::calloc(2, 8));
		if (!arr || !out)
			fail("out of memory");
		for (std::uint32_t i = 0; i < svm_words; i++)
			arr[i] = i * 3 + 1;
		flag = reinterpret_cast<volatile std::uint32_t *>(out);
		sum = out + 1;
		check(onenode_vm_create_flags(dev, DRM_COMPUTE_VM_CREATE_SVM, &vm),
		      "create an SVM VM");
		if (d.vram_size >= svm_words * 4ULL) {
			drm_compute_svm_attr a{ DRM_COMPUTE_SVM_ATTR_PREFERRED_LOC, d.device_id };

			check(onenode_svm_set_attr(dev, vm, reinterpret_cast<std::uintptr_t>(arr),
						   svm_words * 4ULL, &a, 1), "SVM attributes");
		}
		check(onenode_queue_init(&q, dev, vm, &params), "create the SVM queue");
		emit(&q, pkt, onenode_pkt_wait_mem(pkt, reinterpret_cast<std::uintptr_t>(flag),
						   VCOMPUTE_WAIT_EQ, 1, ~0ULL, 0, 0));
		emit(&q, pkt, onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_SUM_U32, svm_words, 0,
						   reinterpret_cast<std::uintptr_t>(arr),
						   reinterpret_cast<std::uintptr_t>(sum), 0));
		fence = commit_fenced(&q);
	}

	std::string finish()
	{
		const std::uint64_t want = 3ULL * svm_words * (svm_words - 1) / 2 + svm_words;

		if (!on)
			return "no SVM on this device";
		*flag = 1;
		check(onenode_queue_wait(&q, fence, wait_ns), "wait for the SVM queue");
		const std::uint64_t got = *sum;

		if (got != want)
			fail(std::format("the SVM queue summed {}, not {}", got, want));
		return std::format("the SVM queue summed the malloc'ed array: {}", want);
	}
};

/* 3. A buffer shared with a child, through a dma-buf and the child's own file. */
struct Shared {
	std::uint32_t bo = 0;
	int dmabuf = -1;
	std::uint8_t *map = nullptr;
	pid_t child = -1;

	/*
	 * The child: a file of its own on the same node (on another device,
	 * the import would attach as a foreign importer, which a checkpoint
	 * cannot save), woken only by the job once it has written again.
	 */
	[[noreturn]] static void child_main(int dmabuf, int ready, const std::string &node)
	{
		onenode_device mine;
		std::uint32_t h, again;
		std::uint8_t *p = nullptr;

		/* Never outlive the job: it is the one that wakes us. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1 ||
		    onenode_open_path(node.c_str(), &mine) ||
		    drmPrimeFDToHandle(mine.fd, dmabuf, &h) ||
		    onenode_bo_map(&mine, h, shared_size, reinterpret_cast<void **>(&p)) ||
		    write(ready, "1", 1) != 1)
			_exit(1);
		close(ready);
		while (!woken)
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
		for (std::uint64_t i = 0; i < shared_size; i++)
			if (p[i] != pattern(i, 1))
				_exit(1);
		if (drmPrimeFDToHandle(mine.fd, dmabuf, &again) || again != h)
			_exit(1);
		_exit(0);
	}

	void setup(const onenode_device *dev)
	{
		int ready[2];
		char c;

		check(onenode_bo_create(dev, shared_size, DRM_COMPUTE_PLACEMENT_SYSTEM, &bo),
		      "create the shared buffer");
		map = static_cast<std::uint8_t *>(map_bo(dev, bo, shared_size));
		for (std::uint64_t i = 0; i < shared_size; i++)
			map[i] = pattern(i, 0);
		if (drmPrimeHandleToFD(dev->fd, bo, DRM_CLOEXEC | DRM_RDWR, &dmabuf) || pipe(ready))
			fail("export the shared buffer");
		child = fork();
		if (child < 0)
			fail("fork");
		if (!child) {
			close(ready[0]);
			child_main(dmabuf, ready[1], dev->path);
		}
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			fail("the child could not import the shared buffer");
		close(ready[0]);
	}

	std::string finish(const onenode_device *dev)
	{
		std::uint32_t again = 0;
		int status = 0;

		for (std::uint64_t i = 0; i < shared_size; i++)
			if (map[i] != pattern(i, 0))
				fail(std::format("byte {} of the shared buffer differs", i));
		if (drmPrimeFDToHandle(dev->fd, dmabuf, &again) || again != bo)
			fail("the kept dma-buf fd is not the shared buffer's any more");
		for (std::uint64_t i = 0; i < shared_size; i++)
			map[i] = pattern(i, 1);
		kill(child, SIGUSR1);
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail("the child did not see the job's writes through its own import");
		return "the buffer shared with the child is one buffer again: the child sees the "
		       "job's writes";
	}
};

/* 4. The NIC: an edu that writes into an exported buffer by DMA. */
struct Nic {
	std::string path;
	std::uint32_t bo = 0;
	int dmabuf = -1;

	static std::optional<std::string> find()
	{
		for (const auto &e : fs::directory_iterator("/dev"))
			if (e.path().filename().string().starts_with("vcompute-edu-"))
				return e.path().string();
		return std::nullopt;
	}

	/* The NIC imports the dma-buf and writes @round's packets; then lets go. */
	void write(unsigned round) const
	{
		std::vector<std::uint8_t> src(nic_size);
		int edu = open(path.c_str(), O_RDWR | O_CLOEXEC);

		for (std::uint64_t i = 0; i < nic_size; i++)
			src[i] = pattern(i, round + 7);
		vcompute_edu_import imp{ dmabuf, 0 };
		vcompute_edu_write w{};
		w.size = src.size();
		w.data = reinterpret_cast<std::uintptr_t>(src.data());
		if (edu < 0 || ioctl(edu, VCOMPUTE_EDU_IOCTL_IMPORT, &imp) ||
		    ioctl(edu, VCOMPUTE_EDU_IOCTL_WRITE, &w))
			fail(path + ": import and DMA write");
		close(edu);
	}

	std::string placement(const onenode_device *dev) const
	{
		drm_compute_p2p_report rep;

		check(onenode_p2p_report(dev, bo, &rep, nullptr, 0), "P2P report");
		return std::format("{} memory{}",
				   rep.placement == DRM_COMPUTE_PLACEMENT_VRAM ? "device" : "system",
				   rep.moves ? std::string(" (moved: ") +
						       onenode_p2p_reason_name(rep.reason) + ")" :
					       "");
	}

	void verify(const onenode_device *dev, unsigned round) const
	{
		auto *p = static_cast<std::uint8_t *>(map_bo(dev, bo, nic_size));

		for (std::uint64_t i = 0; i < nic_size; i++)
			if (p[i] != pattern(i, round + 7))
				fail(std::format("NIC packet byte {} differs (round {})", i, round));
		munmap(p, nic_size);
	}

	std::string setup(const onenode_device *dev)
	{
		auto found = find();

		if (!found)
			return "no NIC (no edu device): the NIC part is not run";
		path = *found;
		check(onenode_bo_create_export(dev, nic_size, DRM_COMPUTE_PLACEMENT_VRAM,
					       DRM_COMPUTE_BO_EXPORT_PREFER_P2P, &bo),
		      "create the NIC buffer");
		if (drmPrimeHandleToFD(dev->fd, bo, DRM_CLOEXEC | DRM_RDWR, &dmabuf))
			fail("export the NIC buffer");
		write(0);
		verify(dev, 0);
		return std::format("{} wrote {} bytes by DMA into {}, then let go", path, nic_size,
				   placement(dev));
	}

	std::string finish(const onenode_device *dev) const
	{
		if (path.empty())
			return "no NIC";
		verify(dev, 0);
		write(1);
		verify(dev, 1);
		return std::format("{} took the restored dma-buf and wrote again; placed in {}",
				   path, placement(dev));
	}
};

void put(const fs::path &p, const std::string &text)
{
	std::ofstream(p) << text;
}

/* Write @p whole or not at all: a reader polling for it never sees half. */
void put_whole(const fs::path &p, const std::string &text)
{
	fs::path tmp = p;
	std::error_code ec;

	tmp += ".tmp";
	std::ofstream(tmp) << text;
	fs::rename(tmp, p, ec);
}

/* The job: set up, say ready, wait to be woken (after a restore), check. */
int job(const fs::path &dir)
{
	struct sigaction sa {};
	std::string out;

	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, nullptr);
	try {
		const char *node = std::getenv("ONENODE_JOB_NODE");
		auto dev = node ? onenode::Device::open_path(node) :
				  onenode::Device::open_driver("vcompute");
		Walk walk;
		Svm svm;
		Shared shared;
		Nic nic;

		walk.setup(dev.get());
		svm.setup(dev.get());
		shared.setup(dev.get());
		std::string nic_text = nic.setup(dev.get());
		put_whole(dir / "ready", std::format("pid {} on {}; {}\n", getpid(), dev.path(),
					       nic_text));
		while (!woken && !fs::exists(dir / "go"))
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
		/* The node the fd is now: after a move, not the one it was opened on. */
		struct stat st {};
		fstat(dev.fd(), &st);
		out = std::format("PASS on /dev/dri/renderD{}: ", minor(st.st_rdev)) + walk.finish() +
		      "; " + svm.finish() + "; " +
		      shared.finish(dev.get()) + "; " + nic.finish(dev.get()) + "\n";
	} catch (const std::exception &e) {
		out = std::string("FAIL: ") + e.what() + "\n";
	}
	put_whole(dir / "result", out);
	return out.starts_with("PASS") ? 0 : 1;
}

/* Run a shell command; its exit status. */
int sh(const std::string &cmd)
{
	int st = std::system(cmd.c_str());

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

bool wait_for(const fs::path &p, int seconds)
{
	for (int i = 0; i < seconds * 10 && !fs::exists(p); i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	return fs::exists(p);
}

std::string slurp(const fs::path &p)
{
	std::ifstream f(p);
	std::stringstream s;

	s << f.rdbuf();
	return s.str();
}

double since(std::chrono::steady_clock::time_point t)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/* Another vcompute node whose DEVICE report equals @from's but for its id. */
std::optional<std::string> other_node(const onenode::Device &from)
{
	auto want = from.query_device();

	for (const auto &e : fs::directory_iterator(onenode_dri_dir())) {
		if (!e.path().filename().string().starts_with("renderD") ||
		    e.path() == from.path())
			continue;
		try {
			auto d = onenode::Device::open_path(e.path().string());
			auto q = d.query_device();

			q.device_id = want.device_id;
			if (d.driver() == "vcompute" && !std::memcmp(&q, &want, sizeof(q)))
				return e.path().string();
		} catch (const onenode::error &) {
		}
	}
	return std::nullopt;
}

/* One restore of @img, onto @node or the dumped one; the job's verdict. */
bool restore(const fs::path &work, const fs::path &img, const std::string &plugin_dir,
	     const std::string &node)
{
	auto t = std::chrono::steady_clock::now();
	std::string env = node.empty() ? "" : "ONENODE_CRIU_RESTORE_NODE=" + node + " ";

	fs::remove(work / "result");
	fs::remove(work / "go");
	fs::remove(work / "restored.pid");	/* criu does not overwrite it */
	if (sh(env + "timeout 300 criu restore -D " + img.string() + " --shell-job -d --libdir " +
	       plugin_dir + " -v4 -o restore.log --pidfile " + (work / "restored.pid").string())) {
		std::printf("  criu restore failed: see %s/restore.log\n", img.c_str());
		return false;
	}
	std::printf("  restored in %.1f s%s\n", since(t),
		    node.empty() ? "" : (" onto " + node).c_str());
	put(work / "go", "");
	kill(std::stoi(slurp(work / "restored.pid")), SIGUSR1);
	std::printf("  woke the restored job; waiting for its verdict\n");
	if (!wait_for(work / "result", 180)) {
		std::printf("  the restored job wrote no verdict\n");
		return false;
	}
	std::printf("  job: %s", slurp(work / "result").c_str());
	/* Gone before the next restore, which needs its pid free. */
	pid_t job_pid = std::stoi(slurp(work / "restored.pid"));
	for (int i = 0; i < 300 && kill(job_pid, 0) == 0; i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	return slurp(work / "result").starts_with("PASS");
}

/* What the driver does: both halves, or one (a dump in one boot, the restore in the next). */
enum class Mode { both, dump_only, restore_only };

/* Start the job in @work and dump it into @work/img; the job's pid or -1. */
pid_t start_and_dump(const std::string &self, const fs::path &work, const std::string &plugin_dir,
		     const onenode::Device &dev, Mode mode)
{
	const fs::path img = work / "img";

	fs::create_directories(img);
	/*
	 * criu restores a task at its pid. Restored in another boot, the job's
	 * pid must be free there: the processes that run the restore start
	 * from about the same pid as this driver, so the job starts well after.
	 */
	for (int i = 0; mode == Mode::dump_only && i < 300; i++) {
		pid_t p = fork();

		if (!p)
			_exit(0);
		waitpid(p, nullptr, 0);
	}
	pid_t pid = fork();
	if (!pid) {
		/* Files only: criu saves them; a pipe to us would be external to the dump. */
		int null = open("/dev/null", O_RDWR);
		int log = open((work / "job.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setenv("ONENODE_JOB_NODE", dev.path().c_str(), 1);
		dup2(null, 0);
		dup2(log, 1);
		dup2(log, 2);
		close(null);
		close(log);
		execl(self.c_str(), self.c_str(), "--job", work.c_str(), nullptr);
		_exit(127);
	}
	if (!wait_for(work / "ready", 120)) {
		std::printf("the job never got ready: %s", slurp(work / "result").c_str());
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		return -1;
	}
	std::printf("job: %s", slurp(work / "ready").c_str());
	std::printf("criu dump of the job (pid %d) and its child\n", pid);
	auto t = std::chrono::steady_clock::now();
	int ret = sh("timeout 300 criu dump -t " + std::to_string(pid) + " --shell-job -D " +
		     img.string() + " --libdir " + plugin_dir + " -v4 -o dump.log");
	if (ret) {
		/* A failed dump leaves the job running: it finishes where it is. */
		std::printf("criu dump failed: see %s/dump.log\n", img.c_str());
		put(work / "go", "");
		kill(pid, SIGUSR1);
		if (wait_for(work / "result", 180))
			std::printf("the job, still running: %s", slurp(work / "result").c_str());
		else
			kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		return -1;
	}
	waitpid(pid, nullptr, 0);
	std::printf("dumped in %.1f s; criu killed the job\n", since(t));
	return pid;
}

int driver(const std::string &self, const std::string &plugin_dir, Mode mode, fs::path work)
{
	const fs::path hang = "/sys/module/drm_compute_helper/parameters/hang_timeout_ms";
	char tmpl[] = "/tmp/onenode-criu-migrate.XXXXXX";

	if (geteuid() != 0 || sh("command -v criu >/dev/null 2>&1")) {
		std::fputs("onenode-criu-migrate: needs root and criu\n", stderr);
		return 77;
	}
	if (!fs::exists(fs::path(plugin_dir) / "criu_plugin_onenode.so")) {
		std::fprintf(stderr, "onenode-criu-migrate: no criu_plugin_onenode.so in %s\n",
			     plugin_dir.c_str());
		return 77;
	}
	std::optional<onenode::Device> dev;
	try {
		dev = Nic::find() ? onenode::Device::open_vcompute_bar() :
				    onenode::Device::open_driver("vcompute");
	} catch (const onenode::error &e) {
		std::fprintf(stderr, "onenode-criu-migrate: %s\n", e.what());
		return 77;
	}
	if (work.empty())
		work = mkdtemp(tmpl);
	/* Hang detection back as it was, however the run ends. */
	struct Restore {
		fs::path path;
		std::string value;
		~Restore() { put(path, value); }
	} hang_back{ hang, slurp(hang) };
	put(hang, "0");

	bool ok = true;
	if (mode != Mode::restore_only) {
		std::printf("checkpoint a GPU job on %s with CRIU (hang detection off for the "
			    "run)\n", dev->path().c_str());
		fs::remove_all(work / "img");
		ok = start_and_dump(self, work, plugin_dir, *dev, mode) > 0;
	}
	if (ok && mode == Mode::restore_only) {
		std::printf("restore the job dumped in %s (another boot):\n", work.c_str());
		ok = restore(work, work / "img", plugin_dir, "");
	}
	if (ok && mode == Mode::both) {
		std::printf("restore on the same node:\n");
		ok = restore(work, work / "img", plugin_dir, "");
		auto other = ok ? other_node(*dev) : std::nullopt;
		if (ok && other) {
			std::printf("restore the same images on another instance:\n");
			ok = restore(work, work / "img", plugin_dir, *other);
		} else if (ok) {
			std::printf("no other vcompute node with the same DEVICE report: the move "
				    "is not shown\n");
		}
	}
	if (ok && mode == Mode::both)
		fs::remove_all(work);
	else if (!ok)
		std::printf("images and logs kept in %s\n", work.c_str());
	std::printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
	std::setvbuf(stdout, nullptr, _IOLBF, 0);	/* lines as they come, in a log too */
	std::string self = fs::canonical("/proc/self/exe").string();
	std::string plugin_dir = (fs::path(self).parent_path() / ".." / ".." / "criu").string();

	Mode mode = Mode::both;
	fs::path work;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "--job" && i + 1 < argc)
			return job(argv[i + 1]);
		if (a == "--plugin-dir" && i + 1 < argc) {
			plugin_dir = argv[++i];
		} else if ((a == "--dump-to" || a == "--restore-from") && i + 1 < argc) {
			mode = a == "--dump-to" ? Mode::dump_only : Mode::restore_only;
			work = argv[++i];
		} else {
			std::fputs("usage: onenode-criu-migrate [--plugin-dir DIR] "
				   "[--dump-to DIR | --restore-from DIR]\n", stderr);
			return 2;
		}
	}
	try {
		return driver(self, fs::weakly_canonical(plugin_dir).string(), mode, work);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "onenode-criu-migrate: %s\n", e.what());
		return 1;
	}
}
