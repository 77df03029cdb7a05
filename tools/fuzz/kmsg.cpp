// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * kmsg.cpp: watch the kernel log while fuzzing. A line that the VM's
 * splat check would reject (the patterns of tools/lib.sh's SPLAT_RE) is
 * printed with the recent calls of every thread, so the call that caused
 * it can be found even when the kernel keeps running.
 */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fuzz.hpp"

namespace fuzz {
namespace {

const char *const patterns[] = {
	"WARNING:", "BUG:", "KASAN:", "UBSAN:", "Oops", "Kernel panic",
	"general protection fault", "possible circular locking", "possible recursive locking",
	"inconsistent lock state", "suspicious RCU usage", "DEBUG_LOCKS_WARN_ON",
	"lockdep is turned off", "Call Trace:", "INFO: task",
};

bool is_splat(const char *msg)
{
	for (const char *p : patterns)
		if (strstr(msg, p))
			return true;
	return false;
}

} // namespace

void kmsg_monitor(Run &run)
{
	const int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char buf[8192];
	bool dumped = false;

	if (fd < 0)
		return;
	lseek(fd, 0, SEEK_END);
	while (!run.stop.load()) {
		pollfd p{ fd, POLLIN, 0 };

		if (poll(&p, 1, 200) <= 0)
			continue;
		for (;;) {
			const ssize_t n = read(fd, buf, sizeof(buf) - 1);

			if (n < 0 && errno == EPIPE)
				continue; /* overwritten records: go on */
			if (n <= 0)
				break;
			buf[n] = 0;
			const char *msg = strchr(buf, ';');

			msg = msg ? msg + 1 : buf;
			if (!is_splat(msg))
				continue;
			std::string line(msg, strcspn(msg, "\n"));

			report().splat(line);
			fprintf(stderr, "KERNEL SPLAT at %.3f s: %s\n", now_s(), line.c_str());
			if (!dumped) {
				dumped = true;
				dump_every_thread(stderr);
			}
			fflush(stderr);
		}
	}
	close(fd);
}

} // namespace fuzz
