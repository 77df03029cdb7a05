// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * check_mutants COMPUTE_QUERY QUERY_MUTANTS_SO: runs compute_query under
 * each mutant of query_mutants.so (LD_PRELOAD, ONENODE_QUERY_MUTANT=name) and
 * requires the subtests meant to catch it to fail. Exit status: 0 when
 * every mutant is caught, 1 when one survives, 77 when the vcompute render
 * node is absent, 2 on a usage error.
 *
 * The test's own output is echoed behind "| " so that result parsers do not
 * count its (expected) FAIL lines as failures of this run.
 */
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <format>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "igt_output.h"
#include "run_child.h"

using namespace onenode::harness;

namespace {

struct Mutant {
	std::string name;
	std::vector<std::string> args;
	std::vector<std::string> must_fail;	// results that must be FAIL
};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string> &b)
{
	a.insert(a.end(), b.begin(), b.end());
	return a;
}

// The dynamic subtests that size-zero, size-short and size-long run per query.
const std::vector<std::string> per_query = {"device", "userq"};

const std::vector<Mutant> mutants = {
	{"accept-input", {"--run-subtest", "invalid-fields,unknown-query"},
	 {"invalid-fields", "pad", "reserved", "unknown-query"}},
	{"write-on-reject", {"--run-subtest", "invalid-fields,unknown-query,null-data"},
	 {"invalid-fields", "pad", "reserved", "unknown-query", "null-data"}},
	{"overrun", {"--run-subtest", "size-short"}, std::vector<std::string>{"size-short"} + per_query},
	{"size-zero-writes", {"--run-subtest", "size-zero"}, std::vector<std::string>{"size-zero"} + per_query},
	{"long-size-echo", {"--run-subtest", "size-long"}, std::vector<std::string>{"size-long"} + per_query},
	{"efault-ignored", {"--run-subtest", "bad-pointer"}, {"bad-pointer", "read-only", "unmapped"}},
	{"unknown-feature", {"--run-subtest", "basic-device"}, {"basic-device"}},
	{"bar-exceeds-vram", {"--run-subtest", "basic-device"}, {"basic-device"}},
	{"dirty-pad", {"--run-subtest", "basic-device"}, {"basic-device"}},
	{"bad-priorities", {"--run-subtest", "basic-userq"}, {"basic-userq"}},
	{"flaky", {"--run-subtest", "race-separate-fds"}, {"race-separate-fds"}},
};

int check_mutants(const std::string &test, const std::string &lib)
{
	const char *asan = std::getenv("ASAN_OPTIONS");
	std::vector<std::string> survivors;
	for (const auto &m : mutants) {
		std::vector<std::string> argv{test};
		argv.insert(argv.end(), m.args.begin(), m.args.end());
		const ChildResult r = run_child(argv, {
			.env = {{"ONENODE_QUERY_MUTANT", m.name},
				{"LD_PRELOAD", lib},
				// The ASan runtime would insist on coming first.
				{"ASAN_OPTIONS", std::string(asan ? asan : "") + ":verify_asan_link_order=0"}},
			.merge_stderr = true,
			.timeout = std::chrono::seconds(300),
		});
		const std::vector<std::string> lines = lines_of(r.out);
		for (const auto &line : lines)
			std::cout << "| " << line << '\n';
		if (r.exited_with(77)) {
			std::cout << "vcompute render node absent: skipping\n";
			return 77;
		}
		std::map<std::string, std::string> results;	// the last result of each name
		for (const auto &line : lines) {
			Result res;
			std::string_view rest;
			if (parse_result(line, res, rest))
				results[res.name] = res.verdict;
		}
		std::vector<std::string> missed;
		for (const auto &want : m.must_fail) {
			auto it = results.find(want);
			if (it == results.end() || it->second != "FAIL")
				missed.push_back(want);
		}
		const bool caught = r.exited_with(98) && missed.empty();
		std::cout << std::format("mutant {}: {} ({}{})\n", m.name, caught ? "caught" : "SURVIVED", r.status(),
					 missed.empty() ? "" : ", not failed: " + join(missed));
		if (!caught)
			survivors.push_back(m.name);
	}
	if (!survivors.empty()) {
		std::cout << "surviving mutants: " << join(survivors) << '\n';
		return 1;
	}
	std::cout << "all " << mutants.size() << " mutants caught\n";
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::cerr << "usage: check_mutants COMPUTE_QUERY QUERY_MUTANTS_SO\n";
		return 2;
	}
	try {
		return check_mutants(argv[1], std::filesystem::absolute(argv[2]).string());
	} catch (const std::exception &e) {
		std::cout.flush();
		std::cerr << "check_mutants: " << e.what() << '\n';
		return 1;
	}
}
