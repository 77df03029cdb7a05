// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * check_documented BINARY: checks, without a device, that an IGT binary
 * lists its subtests (--list-subtests) and that --describe gives each of
 * them, in the same order, a description of its own (igt_describe).
 * Exit status: 0 when all are documented, 1 otherwise, 2 on a usage error.
 */
#include <exception>
#include <format>
#include <iostream>
#include <string>
#include <vector>

#include "igt_output.h"
#include "run_child.h"

using namespace onenode::harness;

namespace {

// Runs BINARY OPTION; the child's stderr goes on to ours.
ChildResult run_option(const std::string &binary, const std::string &option)
{
	ChildOptions opts;
	opts.timeout = std::chrono::seconds(60);
	ChildResult r = run_child({binary, option}, opts);
	std::cerr << r.err;
	return r;
}

int check(const std::string &binary)
{
	const ChildResult listed = run_option(binary, "--list-subtests");
	const ChildResult described = run_option(binary, "--describe");
	std::vector<std::string> errors;
	if (!listed.exited_with(0) || !described.exited_with(0))
		errors.push_back(std::format("--list-subtests: {}, --describe: {} (want exit 0)",
					     listed.status(), described.status()));
	const std::vector<std::string> names = words(listed.out);
	if (names.empty())
		errors.push_back("no subtests listed");
	const std::vector<Described> blocks = describe_blocks(described.out);
	std::vector<std::string> block_names;
	for (const auto &b : blocks)
		block_names.push_back(b.name);
	if (block_names != names)
		errors.push_back(std::format("--describe lists [{}], --list-subtests [{}]",
					     join(block_names), join(names)));
	for (const auto &b : blocks)
		if (!documented(b))
			errors.push_back(b.name + ": no igt_describe");
	for (const auto &e : errors)
		std::cerr << binary << ": " << e << '\n';
	if (!errors.empty())
		return 1;
	std::cout << names.size() << " subtests, all documented\n";
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::cerr << "usage: check_documented IGT-BINARY\n";
		return 2;
	}
	try {
		return check(argv[1]);
	} catch (const std::exception &e) {
		std::cerr << "check_documented: " << e.what() << '\n';
		return 1;
	}
}
