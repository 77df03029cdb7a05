// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * run_child: run a program (no shell) with an argument vector and extra
 * environment, collect its stdout and stderr (apart or merged into one
 * stream) under a time limit, and return how it ended. Shared by the
 * programs that drive IGT binaries in the meson tests.
 */
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace onenode::harness {

struct ChildOptions {
	// Set on top of the inherited environment (a name given twice: the last).
	std::vector<std::pair<std::string, std::string>> env;
	// Send stderr into the stdout stream instead of capturing it apart.
	bool merge_stderr = false;
	// Past it the child's process group is killed (SIGKILL) and
	// timed_out is set.
	std::chrono::milliseconds timeout{60'000};
};

struct ChildResult {
	int exit_code = -1;	// when the child exited
	int signal = 0;		// when a signal ended it
	bool timed_out = false;
	std::string out;	// stdout (with stderr when merged)
	std::string err;	// stderr when not merged
	std::chrono::milliseconds timeout{0};	// the limit it ran under

	bool exited_with(int code) const { return !timed_out && signal == 0 && exit_code == code; }
	// "exit 98", "killed by signal 11 (Segmentation fault)", "timed out after 60 s".
	std::string status() const;
};

// Runs argv[0] (a path, not looked up in PATH) with stdin from /dev/null,
// in a process group of its own; a SIGTERM, SIGINT or SIGHUP that reaches
// the caller meanwhile kills that group before it ends the caller. Returns
// once the child ended and its output reached EOF, or at the timeout.
// Throws std::system_error when the child cannot be started.
ChildResult run_child(const std::vector<std::string> &argv, const ChildOptions &opts = {});

// Lines of a child's output: split at '\n', without a trailing empty line.
std::vector<std::string> lines_of(const std::string &text);

} // namespace onenode::harness
