// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */
#include "igt_output.h"

#include "run_child.h"

namespace onenode::harness {

namespace {

bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool has_space(std::string_view s)
{
	for (char c : s)
		if (is_space(c))
			return true;
	return false;
}

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool is_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' ||
	       c == '-';
}

// Takes [A-Za-z0-9_-]+ off the front of S into NAME.
bool take_name(std::string_view &s, std::string &name)
{
	size_t n = 0;
	while (n < s.size() && is_name_char(s[n]))
		n++;
	if (n == 0)
		return false;
	name = s.substr(0, n);
	s.remove_prefix(n);
	return true;
}

bool take(std::string_view &s, std::string_view prefix)
{
	if (!s.starts_with(prefix))
		return false;
	s.remove_prefix(prefix.size());
	return true;
}

} // namespace

bool parse_result(std::string_view s, Result &r, std::string_view &rest)
{
	if (take(s, "Dynamic subtest "))
		r.dynamic = true;
	else if (take(s, "Subtest "))
		r.dynamic = false;
	else
		return false;
	if (!take_name(s, r.name) || !take(s, ": "))
		return false;
	for (std::string_view v : {"SUCCESS", "FAIL", "SKIP"}) {
		if (take(s, v)) {
			r.verdict = v;
			rest = s;
			return true;
		}
	}
	return false;
}

bool parse_starting(std::string_view s, std::string &name)
{
	if (!take(s, "Starting dynamic subtest: ") && !take(s, "Starting subtest: "))
		return false;
	return take_name(s, name) && s.empty();
}

bool is_location(std::string_view loc, std::string_view file_suffix)
{
	if (has_space(loc) || !loc.ends_with(':'))
		return false;
	loc.remove_suffix(1);
	size_t digits = 0;
	while (digits < loc.size() && is_digit(loc[loc.size() - 1 - digits]))
		digits++;
	if (digits == 0)
		return false;
	loc.remove_suffix(digits);
	if (!loc.ends_with(':'))
		return false;
	loc.remove_suffix(1);
	return file_suffix.empty() ? !loc.empty() : loc.ends_with(file_suffix);
}

std::vector<Described> describe_blocks(const std::string &out)
{
	std::vector<Described> blocks;
	const std::vector<std::string> lines = lines_of(out);
	for (size_t i = 0; i < lines.size(); i++) {
		std::string_view line = lines[i];
		if (!line.starts_with("SUB "))
			continue;
		line.remove_prefix(4);
		size_t sp = line.find(' ');
		std::string_view name = line.substr(0, sp);
		if (sp == std::string_view::npos || name.empty() || has_space(name) ||
		    !is_location(line.substr(sp + 1)))
			continue;
		Described d{std::string(name), std::string(line.substr(sp + 1)), {}};
		while (i + 1 < lines.size() && (lines[i + 1].empty() || lines[i + 1].starts_with("  ")))
			d.text.push_back(lines[++i]);
		blocks.push_back(std::move(d));
	}
	return blocks;
}

bool documented(const Described &d)
{
	bool any = false;
	for (const auto &l : d.text) {
		if (l.find("NO DOCUMENTATION!") != std::string::npos)
			return false;
		for (char c : l)
			any |= !is_space(c);
	}
	return any;
}

std::vector<std::string> words(std::string_view text)
{
	std::vector<std::string> w;
	size_t i = 0;
	while (i < text.size()) {
		while (i < text.size() && is_space(text[i]))
			i++;
		size_t start = i;
		while (i < text.size() && !is_space(text[i]))
			i++;
		if (i > start)
			w.emplace_back(text.substr(start, i - start));
	}
	return w;
}

std::string join(const std::vector<std::string> &items)
{
	std::string s;
	for (size_t i = 0; i < items.size(); i++)
		s += (i ? ", " : "") + items[i];
	return s;
}

} // namespace onenode::harness
