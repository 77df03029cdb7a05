// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * child.cpp: processes that leave with work in flight. The spawner thread
 * starts this program again (fork, exec) as a child running one scenario
 * on a render node of its own: it makes a queue busy with long packets and
 * then exits, closes its fd, destroys the queue, unbinds the memory under
 * it, or is killed by the parent at a random moment; one scenario hands a
 * dma-buf of its memory to the parent, which imports it while the child
 * goes away. The child uses libonenode's ready-made queue, so the library
 * is exercised too.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "fuzz.hpp"
#include "onenode_vcompute.h"

namespace fuzz {
namespace {

constexpr uint64_t kQueueVa = 1ULL << 24;
constexpr uint64_t kDataVa = 1ULL << 30;

const char *const scenarios[] = {
	"exit-busy", "close-busy", "destroy-busy", "unbind-busy", "killed", "dmabuf", "many-queues",
};

int send_fd(int sock, int fd)
{
	char c = 'x';
	iovec iov{ &c, 1 };
	char ctl[CMSG_SPACE(sizeof(int))] = {};
	msghdr m{};

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

int recv_fd(int sock)
{
	char c;
	iovec iov{ &c, 1 };
	char ctl[CMSG_SPACE(sizeof(int))] = {};
	msghdr m{};
	int fd = -1;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsghdr *h = CMSG_FIRSTHDR(&m);

	if (h && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

/* Long work on @q over the data buffer at kDataVa (@size bytes). */
void busy(onenode_queue *q, Rng &r, uint64_t size, unsigned rounds)
{
	uint64_t pkt[ONENODE_PKT_MAX_QWORDS];

	for (unsigned i = 0; i < rounds; i++) {
		uint32_t qw;

		switch (r.below(4)) {
		case 0:
			qw = onenode_pkt_fill(pkt, kDataVa, size, static_cast<uint32_t>(r.next()));
			break;
		case 1:
			qw = onenode_pkt_copy(pkt, kDataVa + size / 2, kDataVa, size / 2);
			break;
		case 2:
			qw = onenode_pkt_wait_mem(pkt, kDataVa, VCOMPUTE_WAIT_EQ, 1, ~0ULL, 0,
						  r.range(1'000'000, WAIT_MAX_NS));
			break;
		default:
			qw = onenode_pkt_dispatch(pkt, VCOMPUTE_KERNEL_VADD_U32, size / 12, 1, kDataVa,
						  kDataVa + size / 3, kDataVa + 2 * (size / 3));
			break;
		}
		if (onenode_queue_emit(q, pkt, qw))
			break;
	}
	onenode_queue_fence(q);
	onenode_queue_commit(q);
}

} // namespace

int child_main(const std::string &path, const std::string &scenario, uint64_t seed, int sock)
{
	Rng r(seed, 0x5eed);
	onenode_device dev;
	onenode_queue q;
	onenode_queue_params p{};
	uint32_t vm, data;
	const uint64_t size = (1 + r.below(4)) << 20;
	void *map;

	if (onenode_open_path(path.c_str(), &dev))
		return 10;
	if (onenode_vm_create(&dev, &vm))
		return 11;
	if (scenario == "many-queues") {
		/* As many VMs and queues as the file may have, then exit holding them. */
		uint32_t more;
		onenode_queue qs[64];
		unsigned n = 0;

		while (!onenode_vm_create(&dev, &more))
			;
		for (; n < 64; n++) {
			p.va = kQueueVa + n * onenode_queue_va_size(&dev, 4096) * 2;
			p.ring_size = 4096;
			p.priority = ONENODE_PRIORITY_DEFAULT;
			if (onenode_queue_init(&qs[n], &dev, vm, &p))
				break;
			busy(&qs[n], r, 0, 0);
		}
		_exit(n ? 0 : 12);
	}
	if (onenode_bo_create(&dev, size, r.chance(1, 2) ? DRM_COMPUTE_PLACEMENT_VRAM :
							   DRM_COMPUTE_PLACEMENT_SYSTEM, &data) ||
	    onenode_vm_map(&dev, vm, data, 0, kDataVa, size, 0) ||
	    onenode_bo_map(&dev, data, size, &map))
		return 13;
	p.va = kQueueVa;
	p.ring_size = 65536;
	p.priority = static_cast<uint32_t>(r.below(12));
	if (onenode_queue_init(&q, &dev, vm, &p))
		return 14;
	if (scenario == "dmabuf") {
		int fd = -1;
		drm_prime_handle a{};

		a.handle = data;
		a.flags = DRM_CLOEXEC | DRM_RDWR;
		if (!ioctl(dev.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &a))
			fd = a.fd;
		if (fd < 0 || send_fd(sock, fd))
			return 15;
	}
	busy(&q, r, size, static_cast<unsigned>(r.range(4, 32)));
	{
		/* Signals still pending when the file goes: they complete with an error. */
		drm_syncobj_create sc{};
		drm_syncobj_handle sh{};

		sc.flags = 0;
		if (!ioctl(dev.fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
			onenode_userq_signal(&dev, q.id, q.fence_value + 1000, sc.handle, 0);
			onenode_userq_signal(&dev, q.id, q.fence_value + 1, sc.handle, 5);
			sh.handle = sc.handle;
			if (scenario == "dmabuf" && !ioctl(dev.fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh))
				send_fd(sock, sh.fd);
		}
	}
	if (scenario == "close-busy") {
		close(dev.fd);
	} else if (scenario == "destroy-busy") {
		onenode_userq_destroy(&dev, q.id);
		onenode_vm_destroy(&dev, vm);
	} else if (scenario == "unbind-busy") {
		onenode_vm_unmap(&dev, vm, kDataVa, size);
		std::this_thread::sleep_for(std::chrono::milliseconds(r.below(20)));
	} else if (scenario == "killed") {
		for (;;)
			busy(&q, r, size, 4);
	}
	_exit(0);
}

void spawner(Run &run, Stats &stats)
{
	Ctx *target = run.ctxs.size() > 1 ? run.ctxs[1].get() : nullptr;
	Thread t(run, 100, *target);
	char self[4096];
	const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	unsigned k = 0;

	if (n <= 0 || !target)
		return;
	self[n] = 0;
	while (run.running()) {
		const std::string sc = t.rng.pick(scenarios);
		const uint64_t seed = t.rng.next();
		int sv[2] = { -1, -1 };
		char seed_s[32], sock_s[16];

		std::this_thread::sleep_for(std::chrono::milliseconds(t.rng.range(200, 2000)));
		if (!run.running())
			break;
		if (sc == "dmabuf" && socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			continue;
		snprintf(seed_s, sizeof(seed_s), "%#llx", static_cast<unsigned long long>(seed));
		snprintf(sock_s, sizeof(sock_s), "%d", sv[1]);
		const pid_t pid = fork();

		if (pid < 0)
			continue;
		if (!pid) {
			execl(self, self, "--child", sc.c_str(), "--seed", seed_s, "--device",
			      run.path.c_str(), "--sock", sock_s, static_cast<char *>(nullptr));
			_exit(127);
		}
		k++;
		t.stats.event("child-" + sc);
		if (sv[1] >= 0)
			close(sv[1]);
		if (sc == "dmabuf") {
			const int fd = recv_fd(sv[0]);

			if (fd >= 0) {
				drm_prime_handle a{};

				/* Import while the exporter's file goes away. */
				a.fd = fd;
				if (!t.issue_raw(target->fd(), "PRIME_FD_TO_HANDLE/child", DRM_IOCTL_PRIME_FD_TO_HANDLE,
						 &a, sizeof(a))) {
					std::lock_guard<std::mutex> g(target->mu);
					auto b = std::make_shared<Bo>();

					b->handle = a.handle;
					const off_t size = lseek(fd, 0, SEEK_END);

					b->size = size > 0 ? static_cast<uint64_t>(size) : 0;
					b->placement = DRM_COMPUTE_PLACEMENT_SYSTEM;
					if (b->size)
						target->bos.push_back(b);
				}
				close(fd);
			}
			const int so = recv_fd(sv[0]);

			if (so >= 0) {
				drm_syncobj_handle h{};

				/* A sync object whose signals die with the child's file. */
				h.fd = so;
				if (!t.issue_raw(target->fd(), "SYNCOBJ_FD_TO_HANDLE/child",
						 DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h, sizeof(h))) {
					std::lock_guard<std::mutex> g(target->mu);
					target->syncobjs.push_back(h.handle);
				}
				close(so);
			}
			close(sv[0]);
		}
		if (sc == "killed") {
			std::this_thread::sleep_for(std::chrono::milliseconds(t.rng.below(100)));
			kill(pid, SIGKILL);
		}
		int status = 0;
		const double end = now_s() + 60;

		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (now_s() > end) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				t.mismatch("child " + sc + " did not exit within 60 s (killed)");
				break;
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
			t.stats.event("child-" + sc + "-signal-" + std::to_string(WTERMSIG(status)));
		else if (WIFEXITED(status) && WEXITSTATUS(status))
			t.stats.event("child-" + sc + "-exit-" + std::to_string(WEXITSTATUS(status)));
	}
	t.stats.event("children", k);
	stats.merge(t.stats);
}

} // namespace fuzz
