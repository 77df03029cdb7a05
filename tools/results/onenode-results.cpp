// SPDX-License-Identifier: MIT
// onenode-results: turns test logs into one "PASS|FAIL|SKIP|XFAIL stage/name"
// line per result, the input of ./onenode test's summary.
//
//   onenode-results meson STAGE testlog.json   meson's JSON-lines test log
//   onenode-results ktap STAGE dmesg.txt       KUnit's KTAP output in a kernel log
//   onenode-results igt STAGE DIR EXPECTED     upstream IGT binaries run by
//                                              igt-tests/upstream/run.sh
//
// A meson test counts once per IGT subtest ("Subtest X: SUCCESS|FAIL|SKIP",
// dynamic subtests separately) or GoogleTest case ("[       OK ] S.C") found
// in its output, else once; a test that failed without a failing case inside
// adds a FAIL of its own (a crash after the last case, a sanitizer report).
// KTAP counts leaf tests only: suites and parameterized parents aggregate.
//
// igt reads DIR/index.txt ("TEST EXIT-STATUS SECONDS" lines) and each
// DIR/TEST.txt, counted like a meson test's IGT output; a subtest that
// started and never reported fails (the binary crashed or was killed), so
// does one of DIR/TEST.list (the test's subtests, listed when it failed)
// that never started, and so does a test whose output says IGT opened no
// device; so does each subtest of DIR/TEST.notrun (those tests.txt does not
// run here), unless EXPECTED lists it. EXPECTED lists "TEST/SUBTEST skip|fail|flaky REASON": an expected
// skip counts as a SKIP with its reason, an expected failure as an XFAIL
// with its reason (the summary lists those on their own, never as skips); a
// listed result that passes, or skips where it should fail (or the
// reverse), fails, as does an entry that matches no result; "flaky" (timing
// under emulation) lets a result pass, or fail as an XFAIL with its reason.
// Any other skip fails: every test in the list is meant to run on vcompute.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Result {
	std::string verdict; // PASS, FAIL, SKIP
	std::string name;
	std::string note;    // printed after the name, in parentheses
};

void print(std::ostream &out, const Result &r)
{
	out << r.verdict << ' ' << r.name;
	if (!r.note.empty())
		out << " (" << r.note << ')';
	out << '\n';
}

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

// The cases in a test's output. With unfinished set, a subtest or dynamic
// subtest that started and never reported counts as a FAIL (the binary
// crashed or was killed in it).
std::vector<Result> cases_in_output(const std::string &test, const std::string &out,
				    bool unfinished = false)
{
	std::vector<Result> res;
	std::istringstream in(out);
	std::string line, subtest, name, verdict, open_subtest, open_dynamic;
	bool dynamic = false, dynamic_failed = false;
	auto close_open = [&] {
		if (!open_dynamic.empty())
			res.push_back({"FAIL", test + "/" + open_subtest + "@" + open_dynamic,
				       "started, no result"});
		else if (!open_subtest.empty())
			res.push_back({"FAIL", test + "/" + open_subtest,
				       "started, no result"});
		open_subtest.clear();
		open_dynamic.clear();
	};
	while (std::getline(in, line)) {
		if (starts_with(line, "Starting subtest: ")) {
			if (unfinished)
				close_open();
			subtest = trim(std::string_view(line).substr(18));
			open_subtest = subtest;
			dynamic = dynamic_failed = false;
		} else if (starts_with(line, "Starting dynamic subtest: ")) {
			open_dynamic = trim(std::string_view(line).substr(26));
		} else if (igt_line(line, "Dynamic subtest ", name, verdict)) {
			res.push_back({verdict, test + "/" + subtest + "@" + name, {}});
			dynamic = true;
			dynamic_failed |= verdict == "FAIL";
			open_dynamic.clear();
		} else if (igt_line(line, "Subtest ", name, verdict)) {
			// A parent counts only through its dynamic subtests, unless
			// it failed outside them.
			if (!dynamic || (verdict == "FAIL" && !dynamic_failed))
				res.push_back({verdict, test + "/" + name, {}});
			open_subtest.clear();
			open_dynamic.clear();
		} else if (gtest_line(line, name, verdict)) {
			res.push_back({verdict, test + "/" + name, {}});
		}
	}
	if (unfinished)
		close_open();
	return res;
}

// The results of one test: its cases, else the test itself by its outcome
// (ok, skip, else failed: what, e.g. "TIMEOUT"); a test that failed without
// a failing case adds a FAIL of its own. detailed (the igt mode) adds
// unfinished subtests and names what failed a test without cases.
void test_results(const std::string &test, const std::string &output, bool ok, bool skip,
		  const std::string &what, bool detailed, std::vector<Result> &res)
{
	auto cases = cases_in_output(test, output, detailed);
	bool case_failed = false;
	for (auto &c : cases) {
		case_failed |= c.verdict == "FAIL";
		if (c.note == "started, no result")
			c.note += "; the test: " + what;
		res.push_back(std::move(c));
	}
	if (cases.empty())
		res.push_back({ok ? "PASS" : skip ? "SKIP" : "FAIL", test,
			       ok || skip || !detailed ? std::string() : what});
	else if (!ok && !skip && !case_failed)
		res.push_back({"FAIL", test, what + " outside its cases"});
}

int meson(const std::string &stage, std::istream &in, std::ostream &out)
{
	std::string line;
	std::vector<Result> res;
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
		const bool ok = *result == "OK" || *result == "EXPECTEDFAIL";
		const bool skip = *result == "SKIP";
		test_results(stage + "/" + *name, json_string(line, "stdout").value_or(""), ok, skip,
			     *result, false, res);
	}
	for (const auto &r : res)
		print(out, r);
	if (n == 0) {
		out << "FAIL " << stage << "/no-tests-ran\n";
		return 1;
	}
	return 0;
}

struct Expectation {
	std::string verdict; // SKIP, FAIL, or FLAKY (PASS or FAIL)
	std::string reason;
	bool matched = false;
};

// Lines "TEST/SUBTEST skip|fail|flaky REASON"; '#' starts a comment line.
// On a malformed line, error says why and the map is incomplete.
std::map<std::string, Expectation> read_expected(std::istream &in, std::string &error)
{
	std::map<std::string, Expectation> exp;
	std::string line;
	for (int no = 1; std::getline(in, line); no++) {
		std::string_view l = trim(line);
		if (l.empty() || l.front() == '#')
			continue;
		std::istringstream fields{std::string(l)};
		std::string name, kind, reason;
		fields >> name >> kind;
		std::getline(fields, reason);
		reason = trim(reason);
		if ((kind != "skip" && kind != "fail" && kind != "flaky") || reason.empty() ||
		    exp.count(name)) {
			error = "line " + std::to_string(no) +
				": want 'TEST/SUBTEST skip|fail|flaky REASON', once per name";
			return exp;
		}
		exp[name] = {kind == "skip" ? "SKIP" : kind == "fail" ? "FAIL" : "FLAKY", reason};
	}
	return exp;
}

// IGT's messages when it found no device to open (lib/drmtest.c,
// lib/igt_device_scan.c, tests/core_hotunplug.c).
const char *const no_device_markers[] = {
	"No known gpu found", "No card matches the filter", "No known DRM device found",
	"No known DRM render device found", "Filter not valid",
};

int igt(const std::string &stage, const std::string &dir, std::istream &expected_in,
	std::ostream &out)
{
	std::string error;
	auto expected = read_expected(expected_in, error);
	if (!error.empty()) {
		out << "FAIL " << stage << "/expected-list (" << error << ")\n";
		return 1;
	}
	std::ifstream index(dir + "/index.txt");
	if (!index) {
		out << "FAIL " << stage << "/log-missing\n";
		std::cerr << "onenode-results: cannot read " << dir << "/index.txt\n";
		return 1;
	}
	std::vector<Result> res;
	std::string line;
	int n = 0;
	bool setup_failed = false;
	while (std::getline(index, line)) {
		std::istringstream fields(line);
		std::string test;
		int status = -1;
		if (line.empty() || line[0] == '#' || !(fields >> test >> status) ||
		    test.find('/') != std::string::npos)
			continue;
		n++;
		std::ifstream log(dir + "/" + test + ".txt");
		std::stringstream output;
		output << log.rdbuf();
		const std::string text = output.str();
		std::string what = "exit status " + std::to_string(status);
		if (status == 124 || status == 137)
			what += ", killed at the time limit";
		if (test == "setup") {
			// run.sh could not start: its reason instead of the tests.
			res.push_back({"FAIL", stage + "/setup", text.substr(0, text.find('\n'))});
			setup_failed = true;
			continue;
		}
		test_results(stage + "/" + test, text, status == 0, status == 77, what, true, res);
		// Subtests tests.txt keeps from running here (run.sh lists them in
		// TEST.notrun): each a failure, unless expected.txt gives its reason.
		std::ifstream notrun(dir + "/" + test + ".notrun");
		for (std::string sub; std::getline(notrun, sub);) {
			sub = trim(sub);
			if (!sub.empty())
				res.push_back({"FAIL", stage + "/" + test + "/" + sub,
					       "not run here (igt-tests/upstream/tests.txt)"});
		}
		// A test that exited early (an abort, a kill) never reached some
		// subtests: run.sh then lists them all in TEST.list.
		std::ifstream list(dir + "/" + test + ".list");
		for (std::string sub; std::getline(list, sub);) {
			sub = trim(sub);
			if (!sub.empty() && text.find("Starting subtest: " + sub + "\n") == std::string::npos &&
			    text.find("Subtest " + sub + ": ") == std::string::npos)
				res.push_back({"FAIL", stage + "/" + test + "/" + sub,
					       "not run: the test ended before it; " + what});
		}
		for (const char *m : no_device_markers) {
			size_t at = text.find(m);
			if (at == std::string::npos)
				continue;
			size_t end = text.find('\n', at);
			res.push_back({"FAIL", stage + "/" + test + "/device-open",
				       "IGT opened no device: " + text.substr(at, end - at)});
			break;
		}
	}
	const std::string prefix = stage + "/";
	for (auto &r : res) {
		auto e = expected.find(r.name.substr(prefix.size()));
		if (e == expected.end()) {
			if (r.verdict == "SKIP") {
				r.verdict = "FAIL";
				r.note = "unexpected skip: fix it, or list it with its reason in expected.txt";
			}
		} else {
			Expectation &x = e->second;
			const std::string kind = x.verdict == "SKIP" ? "skip" : "failure";
			x.matched = true;
			if (x.verdict == "FLAKY" && r.verdict != "SKIP") {
				// A pass counts as one; a failure is shown with its reason.
				if (r.verdict == "FAIL") {
					r.verdict = "XFAIL";
					r.note = "failed, listed as flaky: " + x.reason;
				}
			} else if (x.verdict == "FLAKY") {
				r.verdict = "FAIL";
				r.note = "skipped, but expected.txt lists it as flaky (passing or failing): " +
					 x.reason;
			} else if (r.verdict == x.verdict) {
				r.verdict = x.verdict == "SKIP" ? "SKIP" : "XFAIL";
				r.note = "expected " + kind + ": " + x.reason;
			} else if (r.verdict == "PASS") {
				r.verdict = "FAIL";
				r.note = "passes, but expected.txt expects a " + kind +
					 ": remove it from the list";
			} else {
				r.note = (r.verdict == "SKIP" ? "skipped" : "failed") +
					 std::string(", but expected.txt expects a ") + kind + ": " +
					 x.reason;
				r.verdict = "FAIL";
			}
		}
		print(out, r);
	}
	for (const auto &[name, x] : expected)
		if (!x.matched && !setup_failed)
			out << "FAIL " << prefix << name
			    << " (listed in expected.txt, but no such result: remove it from the list)\n";
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
	const std::string mode = argc > 1 ? argv[1] : "";
	if (argc != (mode == "igt" ? 5 : 4)) {
		std::cerr << "usage: onenode-results meson|ktap STAGE FILE\n"
			     "       onenode-results igt STAGE DIR EXPECTED\n";
		return 2;
	}
	const std::string stage = argv[2];
	std::ifstream in(argv[mode == "igt" ? 4 : 3]);
	if (!in) {
		std::cout << "FAIL " << stage << (mode == "igt" ? "/expected-list" : "/log-missing") << '\n';
		std::cerr << "onenode-results: cannot read " << argv[mode == "igt" ? 4 : 3] << '\n';
		return 1;
	}
	if (mode == "igt")
		return igt(stage, argv[3], in, std::cout);
	if (mode == "meson")
		return meson(stage, in, std::cout);
	if (mode == "ktap")
		return ktap(stage, in, std::cout);
	std::cerr << "onenode-results: unknown mode '" << mode << "'\n";
	return 2;
}
