// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-fuzz: an ioctl and packet fuzzer for the DRM compute uapi
 * (uapi/drm/drm_compute.h, vcompute_drm.h). For a bounded time it drives
 * every compute operation with valid, mutated and random arguments and
 * requests of wrong sizes, feeds queues random and mutated packets, and
 * races it all across threads, two files and child processes. It fails
 * (exit 1) on any answer the uapi predicts otherwise, on a kernel splat it
 * sees in /dev/kmsg, or when the device no longer runs a VADD_U32 after.
 *
 *   onenode-fuzz [--seconds N] [--seed S] [--device PATH] [--iterations N]
 *                [--threads N] [--no-children] [--no-huge-bo] [--trace FILE]
 *
 * The seed is printed first; the same seed replays every thread's random
 * stream (the interleaving of threads, and the engine's timing, differ).
 */
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "fuzz.hpp"

using namespace fuzz;

namespace {

struct Options {
	double seconds = 60;
	bool seconds_set = false;
	uint64_t seed = 0;
	bool seed_set = false;
	std::string device;
	uint64_t iterations = 0;
	unsigned threads = 4;
	bool children = true;
	bool huge_bo = true;
	std::string trace;
	std::string child;
	int sock = -1;
};

[[noreturn]] void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: onenode-fuzz [--seconds N] [--seed S] [--device PATH] [--iterations N]\n"
		"                    [--threads N] [--no-children] [--no-huge-bo] [--trace FILE]\n"
		"  --seconds N     fuzz for N seconds (default 60, or $ONENODE_FUZZ_SECONDS)\n"
		"  --seed S        random seed (default: from the clock; always printed)\n"
		"  --device PATH   render node (default: the first vcompute node)\n"
		"  --iterations N  stop after N calls in all\n"
		"  --threads N     fuzzing threads: 1 exclusive + N-1 on shared files (default 4)\n"
		"  --no-children   no child processes that exit with work in flight\n"
		"  --no-huge-bo    no 2^40+ byte system buffers (they fail fast, but warn)\n"
		"  --trace FILE    log every call\n");
	exit(code);
}

Options parse(int argc, char **argv)
{
	Options o;

	for (int i = 1; i < argc; i++) {
		const std::string a = argv[i];
		auto val = [&]() -> const char * {
			if (i + 1 >= argc)
				usage(2);
			return argv[++i];
		};

		if (a == "--seconds") {
			o.seconds = strtod(val(), nullptr);
			o.seconds_set = true;
		} else if (a == "--seed") {
			o.seed = strtoull(val(), nullptr, 0);
			o.seed_set = true;
		} else if (a == "--device") {
			o.device = val();
		} else if (a == "--iterations") {
			o.iterations = strtoull(val(), nullptr, 0);
		} else if (a == "--threads") {
			o.threads = static_cast<unsigned>(strtoul(val(), nullptr, 0));
		} else if (a == "--no-children") {
			o.children = false;
		} else if (a == "--no-huge-bo") {
			o.huge_bo = false;
		} else if (a == "--trace") {
			o.trace = val();
		} else if (a == "--child") {
			o.child = val();
		} else if (a == "--sock") {
			o.sock = atoi(val());
		} else if (a == "--help" || a == "-h") {
			usage(0);
		} else {
			usage(2);
		}
	}
	if (!o.seconds_set)
		if (const char *e = getenv("ONENODE_FUZZ_SECONDS"); e && *e)
			o.seconds = strtod(e, nullptr);
	if (o.threads < 1 || o.threads > 16)
		usage(2);
	return o;
}

std::unique_ptr<Ctx> open_ctx(const std::string &path, const char *name, bool exclusive)
{
	auto c = std::make_unique<Ctx>();
	int ret;

	c->name = name;
	c->exclusive = exclusive;
	if ((ret = onenode_open_path(path.c_str(), &c->dev)) ||
	    (ret = onenode_compute_base(c->dev.driver, &c->base))) {
		fprintf(stderr, "onenode-fuzz: %s: %s\n", path.c_str(), onenode_strerror(ret));
		return nullptr;
	}
	return c;
}

/* Destroy what the pools hold, so that teardown by ioctl is exercised too. */
void teardown(Run &run, Stats &stats)
{
	for (auto &c : run.ctxs) {
		Thread t(run, 200, *c);
		std::vector<std::shared_ptr<Queue>> qs;

		{
			std::lock_guard<std::mutex> g(c->mu);
			qs = c->queues;
		}
		for (auto &q : qs) {
			drm_compute_userq_state st;

			queue_state(t, *c, *q, &st);
			Call d = make_call(DRM_COMPUTE_OP_USERQ_DESTROY);

			put(d, "queue_id", q->id);
			d.mode = "teardown";
			run_call(t, d);
		}
		stats.merge(t.stats);
	}
	run.ctxs.clear(); /* closes every file: the kernel frees the rest */
}

} // namespace

int main(int argc, char **argv)
{
	Options o = parse(argc, argv);
	Run run;

	setvbuf(stdout, nullptr, _IOLBF, 0);
	if (!o.seed_set)
		o.seed = static_cast<uint64_t>(
				 std::chrono::system_clock::now().time_since_epoch().count()) ^
			 (static_cast<uint64_t>(getpid()) << 32);
	if (!o.child.empty())
		return child_main(o.device, o.child, o.seed, o.sock);
	printf("onenode-fuzz: seed %#llx\n", static_cast<unsigned long long>(o.seed));
	fflush(stdout);

	if (o.device.empty()) {
		onenode_device d;
		int ret = onenode_open_driver("vcompute", nullptr, &d);

		if (ret) {
			fprintf(stderr, "onenode-fuzz: no vcompute render node: %s\n",
				onenode_strerror(ret));
			return ret == -ENOENT ? 77 : 1;
		}
		o.device = d.path;
		onenode_close(&d);
	}
	run.seed = o.seed;
	run.path = o.device;
	run.lim.huge_bo = o.huge_bo;
	run.max_iterations = o.iterations;
	run.deadline = std::chrono::steady_clock::now() +
		       std::chrono::milliseconds(static_cast<long>(o.seconds * 1000));
	run.scratch = static_cast<uint8_t *>(mmap(nullptr, kScratch, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	run.noaccess = static_cast<uint8_t *>(mmap(nullptr, 4096, PROT_NONE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	if (run.scratch == MAP_FAILED || run.noaccess == MAP_FAILED)
		return 1;
	if (!o.trace.empty())
		run.trace = fopen(o.trace.c_str(), "we");

	const char *names[] = { "exclusive", "shared-a", "shared-b" };
	for (int i = 0; i < 3; i++) {
		auto c = open_ctx(o.device, names[i], i == 0);

		if (!c)
			return 1;
		run.ctxs.push_back(std::move(c));
	}
	if (onenode_query_device(&run.ctxs[0]->dev, &run.info.dev) ||
	    onenode_query_userq(&run.ctxs[0]->dev, &run.info.uq)) {
		fprintf(stderr, "onenode-fuzz: %s reports no user queues\n", o.device.c_str());
		return 77;
	}
	run.info.privileged = geteuid() == 0;
	printf("onenode-fuzz: %s (%s), %.0f s, %u threads%s, hang timeout %u ms\n",
	       o.device.c_str(), run.ctxs[0]->dev.driver, o.seconds, o.threads,
	       o.children ? " + children" : "", run.info.uq.hang_timeout_ms);

	std::thread kmsg(kmsg_monitor, std::ref(run));
	std::vector<std::unique_ptr<Thread>> threads(o.threads);
	std::vector<std::thread> workers;
	Stats total, spawned;
	std::atomic<bool> finished{ false };
	const double t0 = now_s();

	/* Past the deadline by far: say where every thread is, and give up. */
	std::thread watchdog([&] {
		const double limit = o.seconds + 240;

		while (!finished.load() && now_s() - t0 < limit)
			std::this_thread::sleep_for(std::chrono::milliseconds(200));
		if (finished.load())
			return;
		fprintf(stderr, "onenode-fuzz: stuck %.0f s past the deadline; seed %#llx\n",
			limit - o.seconds, static_cast<unsigned long long>(o.seed));
		dump_every_thread(stderr);
		fflush(stderr);
		_exit(3);
	});

	for (unsigned i = 0; i < o.threads; i++) {
		Ctx &c = i == 0 ? *run.ctxs[0] : *run.ctxs[1 + (i - 1) % 2];

		workers.emplace_back([&, i, cp = &c] {
			threads[i] = std::make_unique<Thread>(run, i, *cp);
			while (run.running())
				step(*threads[i]);
		});
	}
	std::thread children;

	if (o.children)
		children = std::thread(spawner, std::ref(run), std::ref(spawned));
	for (auto &w : workers)
		w.join();
	if (children.joinable())
		children.join();
	const double secs = now_s() - t0;

	for (auto &t : threads)
		total.merge(t->stats);
	total.merge(spawned);
	threads.clear();
	teardown(run, total);

	/* The device must still work. */
	const bool sane = sanity_check(o.device, stdout);

	std::this_thread::sleep_for(std::chrono::milliseconds(500));
	run.stop = true;
	kmsg.join();
	finished = true;
	watchdog.join();

	printf("\nsummary: %llu calls in %.1f s, %u threads, seed %#llx\n",
	       static_cast<unsigned long long>(total.calls), secs, o.threads,
	       static_cast<unsigned long long>(o.seed));
	total.print(stdout);
	report().print(stdout);
	const bool pass = sane && !report().mismatches() && !report().splats();

	printf("result: %s\n", pass ? "PASS" : "FAIL");
	if (run.trace)
		fclose(run.trace);
	return pass ? 0 : 1;
}
