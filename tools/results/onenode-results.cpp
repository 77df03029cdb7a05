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
#include <regex>
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

std::vector<Result> cases_in_output(const std::string &test, const std::string &out)
{
	static const std::regex igt(R"(^(Dynamic subtest|Subtest) (\S+): (SUCCESS|FAIL|SKIP|CRASH|TIMEOUT))");
	static const std::regex gtest(R"(^\[\s+(OK|FAILED|SKIPPED)\s+\] (\S+\.\S+))");
	std::vector<Result> res;
	std::istringstream in(out);
	std::string line, subtest;
	bool dynamic = false, dynamic_failed = false;
	std::smatch m;
	while (std::getline(in, line)) {
		if (line.rfind("Starting subtest: ", 0) == 0) {
			subtest = line.substr(18);
			dynamic = dynamic_failed = false;
			continue;
		}
		if (std::regex_search(line, m, igt)) {
			const std::string v = m[3] == "SUCCESS" ? "PASS" : m[3] == "SKIP" ? "SKIP" : "FAIL";
			if (m[1] == "Dynamic subtest") {
				res.push_back({v, test + "/" + subtest + "@" + m[2].str()});
				dynamic = true;
				dynamic_failed |= v == "FAIL";
			} else if (!dynamic || (v == "FAIL" && !dynamic_failed)) {
				// A parent counts only through its dynamic subtests, unless
				// it failed outside them.
				res.push_back({v, test + "/" + m[2].str()});
			}
			continue;
		}
		if (std::regex_search(line, m, gtest)) {
			// gtest's closing summary lists failed cases again, without a time.
			if (m[1] == "FAILED" && line.find(" ms)") == std::string::npos)
				continue;
			const std::string v = m[1] == "OK" ? "PASS" : m[1] == "SKIPPED" ? "SKIP" : "FAIL";
			res.push_back({v, test + "/" + m[2].str()});
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

int ktap(const std::string &stage, std::istream &in, std::ostream &out)
{
	// "[   12.345678] " prefixes are dropped; indentation gives the depth.
	static const std::regex prefix(R"(^\[\s*[0-9.]+\]\s?)");
	static const std::regex res(R"(^( *)(not ok|ok) [0-9]+ ([^#]*?)\s*(#\s*(\S+).*)?$)");
	static const std::regex subtest(R"(^( *)# Subtest: (\S+))");
	std::vector<std::string> path;	// suite names by depth, [0] unused
	std::vector<bool> had_child(16, false);
	std::string line;
	int n = 0;
	std::smatch m;
	while (std::getline(in, line)) {
		line = std::regex_replace(line, prefix, "");
		if (std::regex_search(line, m, subtest)) {
			size_t depth = m[1].length() / 4;
			path.resize(depth);
			path.push_back(m[2]);
			if (depth + 1 < had_child.size())
				had_child[depth + 1] = false;
			continue;
		}
		if (!std::regex_match(line, m, res))
			continue;
		size_t depth = m[1].length() / 4;
		if (depth + 1 >= had_child.size())
			continue;
		const bool leaf = !had_child[depth + 1];
		had_child[depth + 1] = false;
		had_child[depth] = true;
		if (!leaf)
			continue;
		std::string name;
		// "# Subtest: X" at depth d names the results at depth d.
		for (size_t i = 1; i <= depth && i < path.size(); i++)
			name += path[i] + ".";
		name += m[3];
		const bool skip = m[5] == "SKIP";
		out << (m[2] == "not ok" ? "FAIL" : skip ? "SKIP" : "PASS") << ' ' << stage << '/' << name << '\n';
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
