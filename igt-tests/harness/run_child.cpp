// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * run_child: posix_spawn() with pipes for stdout/stderr, in a process group
 * of its own, then one poll() loop over the pipes and a pidfd of the child
 * until both pipes reach EOF and the child is reaped, or the deadline
 * passes (then the group is killed).
 */
#include "run_child.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <format>
#include <iterator>
#include <optional>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace onenode::harness {

namespace {

[[noreturn]] void fail(int err, const std::string &what)
{
	throw std::system_error(err, std::generic_category(), what);
}

// A file descriptor closed when it goes out of scope.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd() { reset(); }
	int get() const { return fd_; }
	void reset(int fd = -1)
	{
		if (fd_ >= 0)
			close(fd_);
		fd_ = fd;
	}

private:
	int fd_ = -1;
};

struct Pipe {
	Fd read, write;
	Pipe()
	{
		int fds[2];
		if (pipe2(fds, O_CLOEXEC) != 0)
			fail(errno, "pipe2");
		read.reset(fds[0]);
		write.reset(fds[1]);
	}
};

class SpawnActions {
public:
	SpawnActions()
	{
		if (int e = posix_spawn_file_actions_init(&fa_))
			fail(e, "posix_spawn_file_actions_init");
	}
	SpawnActions(const SpawnActions &) = delete;
	SpawnActions &operator=(const SpawnActions &) = delete;
	~SpawnActions() { posix_spawn_file_actions_destroy(&fa_); }
	posix_spawn_file_actions_t *get() { return &fa_; }
	void open(int fd, const char *path, int flags)
	{
		if (int e = posix_spawn_file_actions_addopen(&fa_, fd, path, flags, 0))
			fail(e, "posix_spawn_file_actions_addopen");
	}
	void dup2(int from, int to)
	{
		if (int e = posix_spawn_file_actions_adddup2(&fa_, from, to))
			fail(e, "posix_spawn_file_actions_adddup2");
	}

private:
	posix_spawn_file_actions_t fa_;
};

// The inherited environment with OVERRIDES set on top.
std::vector<std::string> child_env(const std::vector<std::pair<std::string, std::string>> &overrides)
{
	std::vector<std::string> env;
	for (char **e = environ; e && *e; e++) {
		std::string_view entry(*e);
		bool replaced = false;
		for (const auto &[name, value] : overrides)
			replaced |= entry.starts_with(name + "=");
		if (!replaced)
			env.emplace_back(entry);
	}
	for (size_t i = 0; i < overrides.size(); i++) {
		bool later = false;
		for (size_t j = i + 1; j < overrides.size(); j++)
			later |= overrides[j].first == overrides[i].first;
		if (!later)
			env.push_back(overrides[i].first + "=" + overrides[i].second);
	}
	return env;
}

std::vector<char *> c_strings(std::vector<std::string> &v)
{
	std::vector<char *> p;
	for (auto &s : v)
		p.push_back(s.data());
	p.push_back(nullptr);
	return p;
}

// The child's process group while one runs: a timeout kills the whole
// group (an IGT test forks), and so does a SIGTERM, SIGINT or SIGHUP sent
// to us (meson's own timeout) before it ends us.
volatile sig_atomic_t child_group;

extern "C" void forward_and_die(int sig)
{
	if (child_group > 0)
		kill(-child_group, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

class SignalForwarding {
public:
	SignalForwarding()
	{
		struct sigaction sa = {};
		sa.sa_handler = forward_and_die;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < std::size(signals); i++)
			sigaction(signals[i], &sa, &old_[i]);
	}
	SignalForwarding(const SignalForwarding &) = delete;
	SignalForwarding &operator=(const SignalForwarding &) = delete;
	~SignalForwarding()
	{
		child_group = 0;
		for (size_t i = 0; i < std::size(signals); i++)
			sigaction(signals[i], &old_[i], nullptr);
	}

private:
	static constexpr int signals[] = {SIGTERM, SIGINT, SIGHUP};
	struct sigaction old_[std::size(signals)];
};

class SpawnAttr {
public:
	SpawnAttr()
	{
		if (int e = posix_spawnattr_init(&attr_))
			fail(e, "posix_spawnattr_init");
		// A process group of its own (pgid 0: the child's pid).
		if (int e = posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP))
			fail(e, "posix_spawnattr_setflags");
		if (int e = posix_spawnattr_setpgroup(&attr_, 0))
			fail(e, "posix_spawnattr_setpgroup");
	}
	SpawnAttr(const SpawnAttr &) = delete;
	SpawnAttr &operator=(const SpawnAttr &) = delete;
	~SpawnAttr() { posix_spawnattr_destroy(&attr_); }
	posix_spawnattr_t *get() { return &attr_; }

private:
	posix_spawnattr_t attr_;
};

// Appends what FD has now; false at EOF (or a read error).
bool drain(int fd, std::string &into)
{
	char buf[65536];
	for (;;) {
		ssize_t n = ::read(fd, buf, sizeof(buf));
		if (n > 0) {
			into.append(buf, static_cast<size_t>(n));
			if (static_cast<size_t>(n) < sizeof(buf))
				return true;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

} // namespace

std::string ChildResult::status() const
{
	if (timed_out)
		return std::format("timed out after {} s", timeout.count() / 1000.0);
	if (signal)
		return std::format("killed by signal {} ({})", signal, strsignal(signal));
	return std::format("exit {}", exit_code);
}

ChildResult run_child(const std::vector<std::string> &argv, const ChildOptions &opts)
{
	if (argv.empty())
		fail(EINVAL, "run_child: empty argument vector");
	ChildResult res;
	res.timeout = opts.timeout;

	Pipe out;
	std::optional<Pipe> err;
	if (!opts.merge_stderr)
		err.emplace();
	SpawnActions fa;
	fa.open(STDIN_FILENO, "/dev/null", O_RDONLY);
	fa.dup2(out.write.get(), STDOUT_FILENO);
	fa.dup2(err ? err->write.get() : out.write.get(), STDERR_FILENO);

	std::vector<std::string> args(argv.begin(), argv.end());
	std::vector<std::string> env = child_env(opts.env);
	std::vector<char *> argp = c_strings(args), envp = c_strings(env);
	SpawnAttr attr;
	SignalForwarding forwarding;
	pid_t pid;
	if (int e = posix_spawn(&pid, argp[0], fa.get(), attr.get(), argp.data(), envp.data()))
		fail(e, "cannot run " + argv[0]);
	child_group = pid;
	out.write.reset();
	if (err)
		err->write.reset();

	// The raw system call: glibc 2.41's <sys/pidfd.h> lacks C++ linkage.
	Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
	if (pidfd.get() < 0) {
		int e = errno;
		kill(-pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		fail(e, "pidfd_open");
	}
	for (Fd *fd : {&out.read, err ? &err->read : nullptr})
		if (fd)
			fcntl(fd->get(), F_SETFL, fcntl(fd->get(), F_GETFL) | O_NONBLOCK);

	const auto deadline = std::chrono::steady_clock::now() + opts.timeout;
	bool reaped = false;
	int wstatus = 0;
	while (out.read.get() >= 0 || (err && err->read.get() >= 0) || !reaped) {
		auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
		if (left.count() <= 0) {
			res.timed_out = true;
			break;
		}
		pollfd fds[3];
		nfds_t n = 0;
		auto add = [&](int fd) {
			if (fd >= 0)
				fds[n++] = {fd, POLLIN, 0};
		};
		add(out.read.get());
		add(err ? err->read.get() : -1);
		add(reaped ? -1 : pidfd.get());
		int ready = poll(fds, n, static_cast<int>(std::min<long long>(left.count(), 60'000)));
		if (ready < 0 && errno != EINTR) {
			int e = errno;
			kill(-pid, SIGKILL);
			if (!reaped)
				waitpid(pid, nullptr, 0);
			fail(e, "poll");
		}
		for (nfds_t i = 0; ready > 0 && i < n; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == pidfd.get()) {
				while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
					;
				reaped = true;
			} else if (fds[i].fd == out.read.get()) {
				if (!drain(out.read.get(), res.out))
					out.read.reset();
			} else if (!drain(err->read.get(), res.err)) {
				err->read.reset();
			}
		}
	}
	// On a timeout, the child and whatever it started that is still in its
	// group (a process group outlives its leader while it has members).
	if (res.timed_out)
		kill(-pid, SIGKILL);
	if (!reaped) {
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
	}
	// What was written before a timeout still helps to explain it.
	if (out.read.get() >= 0)
		drain(out.read.get(), res.out);
	if (err && err->read.get() >= 0)
		drain(err->read.get(), res.err);

	if (WIFEXITED(wstatus))
		res.exit_code = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		res.signal = WTERMSIG(wstatus);
	return res;
}

std::vector<std::string> lines_of(const std::string &text)
{
	std::vector<std::string> lines;
	size_t start = 0;
	while (start < text.size()) {
		size_t nl = text.find('\n', start);
		if (nl == std::string::npos)
			nl = text.size();
		lines.push_back(text.substr(start, nl - start));
		start = nl + 1;
	}
	return lines;
}

} // namespace onenode::harness
