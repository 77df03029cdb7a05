// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * igt_output: readers for what an IGT binary prints, shared by the programs
 * that check it.
 */
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace onenode::harness {

// One subtest of --describe output: the line "SUB NAME FILE:LINE:" and the
// lines under it (indented by two spaces, or empty).
struct Described {
	std::string name;
	std::string location;
	std::vector<std::string> text;
};

// One result line: "Subtest NAME: VERDICT (S.MMMs)" or "Dynamic subtest ...".
struct Result {
	bool dynamic;
	std::string name;	// [A-Za-z0-9_-]+, as IGT allows
	std::string verdict;	// SUCCESS, FAIL or SKIP
	bool operator==(const Result &) const = default;
};

// Reads "(Dynamic subtest|Subtest) NAME: VERDICT" off the front of LINE into
// R and leaves in REST what follows the verdict (" (0.001s)" from IGT).
// False when LINE does not start that way.
bool parse_result(std::string_view line, Result &r, std::string_view &rest);

// The whole line is "Starting (dynamic subtest|subtest): NAME".
bool parse_starting(std::string_view line, std::string &name);

// Every "SUB" block of --describe output, in order.
std::vector<Described> describe_blocks(const std::string &out);

// A description that is neither empty nor IGT's "NO DOCUMENTATION!".
bool documented(const Described &d);

// FILE:LINE: with no white space, FILE non-empty (and ending with
// FILE_SUFFIX when one is given).
bool is_location(std::string_view loc, std::string_view file_suffix = {});

// Whitespace-separated words of TEXT.
std::vector<std::string> words(std::string_view text);

// Joins ITEMS with ", " (for messages).
std::string join(const std::vector<std::string> &items);

} // namespace onenode::harness
