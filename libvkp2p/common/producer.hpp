// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// The producer process the NIC-ingest test and example share: it stands in
// for the NIC, gets nothing but the dma-buf fd (passed with SCM_RIGHTS over
// a Unix socket, as ibv_reg_dmabuf_mr or a devmem/zcrx binding would), maps
// it and writes packets (packets.hpp). Also the host-side check of what
// the checksum shader wrote.
#pragma once

#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "packets.hpp"

namespace vkp2p_common {

// One byte with room for one SCM_RIGHTS fd: what send_fd and recv_fd exchange.
struct FdMessage {
	char byte;
	iovec iov{&byte, 1};
	alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int))] = {};
	msghdr msg{};

	explicit FdMessage(char b) : byte(b)
	{
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
	}
	FdMessage(const FdMessage &) = delete;
	FdMessage &operator=(const FdMessage &) = delete;
};

// Sends @fd over @sock with SCM_RIGHTS; true when the message went out.
inline bool send_fd(int sock, int fd)
{
	FdMessage m('F');
	cmsghdr *c = CMSG_FIRSTHDR(&m.msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m.msg, 0) == 1;
}

// Receives an fd sent by send_fd; -1 on failure or when none came with SCM_RIGHTS.
inline int recv_fd(int sock)
{
	FdMessage m(0);
	if (recvmsg(sock, &m.msg, 0) != 1)
		return -1;
	cmsghdr *c = CMSG_FIRSTHDR(&m.msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

// The "NIC", run in a forked child: receives the dma-buf fd over @sock,
// writes @count packets (produce_packets with @seed and @corrupt) through
// its own mapping of @bytes, then writes one byte back. Exit status: 0 done,
// 2 no fd, 3 mmap failed, 4 could not report back.
[[noreturn]] inline void producer(int sock, size_t bytes, uint32_t count, uint32_t seed, uint32_t corrupt)
{
	int fd = recv_fd(sock);
	if (fd < 0)
		_exit(2);
	void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(3);
	produce_packets(p, count, seed, corrupt);
	munmap(p, bytes);
	close(fd);
	char done = 'D';
	_exit(write(sock, &done, 1) == 1 ? 0 : 4);
}

// How many of the @count checksums the shader wrote (@results: damaged count,
// first damaged slot, then one word per slot) disagree with the host's
// recomputation from its own view @packets of the packet memory.
inline uint32_t checksum_mismatches(const uint32_t *results, const void *packets, uint32_t count)
{
	uint32_t wrong = 0;
	for (uint32_t i = 0; i < count; i++)
		wrong += results[2 + i] != packet_checksum(packets, i);
	return wrong;
}

} // namespace vkp2p_common
