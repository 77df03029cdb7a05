// SPDX-License-Identifier: MIT
// onenode-results: turns test logs into one "PASS|FAIL|SKIP stage/name" line
// per result, the input of ./onenode test's summary.
//
//   onenode-results meson STAGE testlog.json   meson's JSON-lines test log
//   onenode-results ktap STAGE dmesg.txt       KUnit's KTAP output in a kernel log
//
// A meson test counts once per IGT subtest ("Subtest X: SUCCESS|FAIL|SKIP",
// dynamic subtests separately) or GoogleTest case ("[       OK ] S.C") found
// in its output, else once; a test that failed without a failing case inside
// adds a FAIL of its own (a crash after the last case, a sanitizer report).
// KTAP counts leaf tests only: suites and parameterized parents aggregate.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Result {
	std::string verdict; // PASS, FAIL, SKIP
	std::string name;
};

// Minimal reader for the string fields of one flat JSON object per line.
std::optional<std::string> json_string(std::string_view line, std::string_view key)
{
	const std::string pat = "\"" + std::string(key) + "\":";
	size_t p = line.find(pat);
	if (p == std::string_view::npos)
		return std::nullopt;
	p += pat.size();
	while (p < line.size() && line[p] == ' ')
		p++;
	if (p >= line.size() || line[p] != '"')
		return std::nullopt;
	std::string out;
	for (p++; p < line.size(); p++) {
		char c = line[p];
		if (c == '"')
			return out;
		if (c != '\\') {
			out += c;
			continue;
		}
		if (++p >= line.size())
			break;
		switch (line[p]) {
		case 'n': out += '\n'; break;
		case 't': out += '\t'; break;
		case 'r': out += '\r'; break;
		case 'b': out += '\b'; break;
		case 'f': out += '\f'; break;
		case 'u':
			// Control characters only in practice; keep a placeholder.
			out += '?';
			p += 4;
			break;
		default: out += line[p]; break;
		}
	}
	return std::nullopt;
}

bool starts_with(std::string_view s, std::string_view p)
{
	return s.substr(0, p.size()) == p;
}

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return s;
}

// "Subtest NAME: VERDICT (...)" after PREFIX; false when the line is not one.
bool igt_line(std::string_view line, std::string_view prefix, std::string &name, std::string &verdict)
{
	if (!starts_with(line, prefix))
		return false;
	line.remove_prefix(prefix.size());
	size_t colon = line.find(": ");
	if (colon == std::string_view::npos || colon == 0)
		return false;
	std::string_view v = line.substr(colon + 2);
	v = v.substr(0, v.find(' '));
	if (v == "SUCCESS")
		verdict = "PASS";
	else if (v == "SKIP")
		verdict = "SKIP";
	else if (v == "FAIL" || v == "CRASH" || v == "TIMEOUT")
		verdict = "FAIL";
	else
		return false;
	name = line.substr(0, colon);
	return true;
}

// "[       OK ] Suite.Case (N ms)"; the closing summary's "[  FAILED  ] S.C"
// lines (no time) repeat failed cases and are not results.
bool gtest_line(std::string_view line, std::string &name, std::string &verdict)
{
	if (!starts_with(line, "["))
		return false;
	size_t close = line.find("] ");
	if (close == std::string_view::npos)
		return false;
	std::string_view tag = trim(line.substr(1, close - 1));
	std::string_view rest = line.substr(close + 2);
	std::string_view n = rest.substr(0, rest.find(' '));
	if (n.find('.') == std::string_view::npos || rest.find(" ms)") == std::string_view::npos)
		return false;
	if (tag == "OK")
		verdict = "PASS";
	else if (tag == "FAILED")
		verdict = "FAIL";
	else if (tag == "SKIPPED")
		verdict = "SKIP";
	else
		return false;
	name = n;
	return true;
}

std::vector<Result> cases_in_output(const std::string &test, const std::string &out)
{
	std::vector<Result> res;
	std::istringstream in(out);
	std::string line, subtest, name, verdict;
	bool dynamic = false, dynamic_failed = false;
	while (std::getline(in, line)) {
		if (starts_with(line, "Starting subtest: ")) {
			subtest = trim(std::string_view(line).substr(18));
			dynamic = dynamic_failed = false;
		} else if (igt_line(line, "Dynamic subtest ", name, verdict)) {
			res.push_back({verdict, test + "/" + subtest + "@" + name});
			dynamic = true;
			dynamic_failed |= verdict == "FAIL";
		} else if (igt_line(line, "Subtest ", name, verdict)) {
			// A parent counts only through its dynamic subtests, unless
			// it failed outside them.
			if (!dynamic || (verdict == "FAIL" && !dynamic_failed))
				res.push_back({verdict, test + "/" + name});
		} else if (gtest_line(line, name, verdict)) {
			res.push_back({verdict, test + "/" + name});
		}
	}
	return res;
}

int meson(const std::string &stage, std::istream &in, std::ostream &out)
{
	std::string line;
	int n = 0;
	while (std::getline(in, line)) {
		auto name = json_string(line, "name");
		auto result = json_string(line, "result");
		if (!name || !result)
			continue;
		n++;
		// meson names a test "project:suite / name": keep the name.
		if (size_t sep = name->rfind(" / "); sep != std::string::npos)
			name->erase(0, sep + 3);
		const std::string test = stage + "/" + *name;
		auto cases = cases_in_output(test, json_string(line, "stdout").value_or(""));
		bool case_failed = false;
		for (const auto &c : cases) {
			out << c.verdict << ' ' << c.name << '\n';
			case_failed |= c.verdict == "FAIL";
		}
		const bool ok = *result == "OK" || *result == "EXPECTEDFAIL";
		const bool skip = *result == "SKIP";
		if (cases.empty())
			out << (ok ? "PASS" : skip ? "SKIP" : "FAIL") << ' ' << test << '\n';
		else if (!ok && !skip && !case_failed)
			out << "FAIL " << test << " (" << *result << " outside its cases)\n";
	}
	if (n == 0) {
		out << "FAIL " << stage << "/no-tests-ran\n";
		return 1;
	}
	return 0;
}

// One KTAP result line: "<indent>ok|not ok N name [# DIRECTIVE ...]".
struct KtapResult {
	size_t depth;
	bool ok;
	bool skip;
	std::string name;
};

std::optional<KtapResult> ktap_result(std::string_view line)
{
	size_t indent = line.find_first_not_of(' ');
	if (indent == std::string_view::npos)
		return std::nullopt;
	std::string_view rest = line.substr(indent);
	KtapResult r{indent / 4, true, false, {}};
	if (starts_with(rest, "not ok ")) {
		r.ok = false;
		rest.remove_prefix(7);
	} else if (starts_with(rest, "ok ")) {
		rest.remove_prefix(3);
	} else {
		return std::nullopt;
	}
	size_t digits = rest.find_first_not_of("0123456789");
	if (digits == 0 || digits == std::string_view::npos || rest[digits] != ' ')
		return std::nullopt;
	rest.remove_prefix(digits + 1);
	size_t hash = rest.find('#');
	if (hash != std::string_view::npos) {
		r.skip = starts_with(trim(rest.substr(hash + 1)), "SKIP");
		rest = rest.substr(0, hash);
	}
	r.name = trim(rest);
	return r;
}

int ktap(const std::string &stage, std::istream &in, std::ostream &out)
{
	std::vector<std::string> path;	// suite names by depth, [0] unused
	std::vector<bool> had_child(16, false);
	std::string raw;
	int n = 0;
	while (std::getline(in, raw)) {
		std::string_view line = raw;
		// Drop the kernel log's "[   12.345678] " prefix; indentation is the depth.
		if (starts_with(line, "[")) {
			size_t close = line.find("] ");
			if (close != std::string_view::npos)
				line.remove_prefix(close + 2);
			else if ((close = line.find(']')) != std::string_view::npos)
				line.remove_prefix(close + 1);
		}
		size_t indent = line.find_first_not_of(' ');
		if (indent != std::string_view::npos && starts_with(line.substr(indent), "# Subtest: ")) {
			size_t depth = indent / 4;
			path.resize(depth);
			path.emplace_back(trim(line.substr(indent + 11)));
			if (depth + 1 < had_child.size())
				had_child[depth + 1] = false;
			continue;
		}
		auto r = ktap_result(line);
		if (!r || r->depth + 1 >= had_child.size())
			continue;
		const bool leaf = !had_child[r->depth + 1];
		had_child[r->depth + 1] = false;
		had_child[r->depth] = true;
		if (!leaf)
			continue;
		// "# Subtest: X" at depth d names the results at depth d.
		std::string name;
		for (size_t i = 1; i <= r->depth && i < path.size(); i++)
			name += path[i] + ".";
		name += r->name;
		out << (!r->ok ? "FAIL" : r->skip ? "SKIP" : "PASS") << ' ' << stage << '/' << name << '\n';
		n++;
	}
	if (n == 0) {
		out << "FAIL " << stage << "/no-kunit-results\n";
		return 1;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 4) {
		std::cerr << "usage: onenode-results meson|ktap STAGE FILE\n";
		return 2;
	}
	const std::string mode = argv[1], stage = argv[2];
	std::ifstream in(argv[3]);
	if (!in) {
		std::cout << "FAIL " << stage << "/log-missing\n";
		std::cerr << "onenode-results: cannot read " << argv[3] << '\n';
		return 1;
	}
	if (mode == "meson")
		return meson(stage, in, std::cout);
	if (mode == "ktap")
		return ktap(stage, in, std::cout);
	std::cerr << "onenode-results: unknown mode '" << mode << "'\n";
	return 2;
}
