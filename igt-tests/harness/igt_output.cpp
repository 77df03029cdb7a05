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

} // namespace

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
