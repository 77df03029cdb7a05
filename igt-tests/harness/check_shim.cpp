// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * check_shim SHIM_SELFTEST: drives lib/tests/shim_selftest.c with various
 * options and checks the IGT-API shim's observable behaviour: the result
 * lines and their order, the messages, the exit status and the
 * command-line options. Exit status: 0 when every check holds, 1 otherwise,
 * 2 on a usage error.
 */
#include <exception>
#include <format>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "igt_output.h"
#include "run_child.h"

using namespace onenode::harness;

namespace {

using Results = std::vector<Result>;

Result sub(std::string name, std::string verdict)
{
	return {false, std::move(name), std::move(verdict)};
}

Result dyn(std::string name, std::string verdict)
{
	return {true, std::move(name), std::move(verdict)};
}

std::string to_string(const Results &rs)
{
	std::vector<std::string> items;
	for (const auto &r : rs)
		items.push_back(std::format("{} {} {}", r.dynamic ? "dyn" : "sub", r.name, r.verdict));
	return "[" + join(items) + "]";
}

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

// A whole result line as the shim prints it, time included: what
// parse_result() reads, then " (D+.DDDs)".
bool result_line(std::string_view s, Result &r)
{
	if (!parse_result(s, r, s))
		return false;
	if (!s.starts_with(" ("))
		return false;
	s.remove_prefix(2);
	size_t n = 0;
	while (n < s.size() && is_digit(s[n]))
		n++;
	if (n == 0)
		return false;
	s.remove_prefix(n);
	if (!s.starts_with(".") || s.size() != 6)
		return false;
	s.remove_prefix(1);
	return is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && s.substr(3) == "s)";
}

class Checker {
public:
	explicit Checker(std::string binary) : binary_(std::move(binary)) {}

	void check(bool ok, const std::string &what)
	{
		if (ok)
			return;
		failures_++;
		std::cerr << "CHECK FAILED: " << what << '\n';
	}

	// Runs the self-test with ARGS and checks its exit status, its result
	// lines (all of them, in order) and strings its output must or must not
	// contain. Returns its stdout.
	std::string expect(const std::string &name, const std::vector<std::string> &args, int code,
			   const Results &want, const std::vector<std::string> &stdout_has = {},
			   const std::vector<std::string> &stdout_lacks = {},
			   const std::vector<std::string> &stderr_has = {})
	{
		std::vector<std::string> argv{binary_};
		argv.insert(argv.end(), args.begin(), args.end());
		ChildOptions opts;
		opts.timeout = std::chrono::seconds(60);
		const ChildResult r = run_child(argv, opts);
		const Results got = results(name, r.out);
		check(r.exited_with(code),
		      std::format("{}: {}, want exit {}\n{}\n{}", name, r.status(), code, r.out, r.err));
		check(got == want,
		      std::format("{}: results\n got {}\nwant {}", name, to_string(got), to_string(want)));
		for (const auto &s : stdout_has)
			check(r.out.find(s) != std::string::npos, std::format("{}: stdout lacks '{}'", name, s));
		for (const auto &s : stdout_lacks)
			check(r.out.find(s) == std::string::npos, std::format("{}: stdout has '{}'", name, s));
		for (const auto &s : stderr_has)
			check(r.err.find(s) != std::string::npos,
			      std::format("{}: stderr lacks '{}'\n{}", name, s, r.err));
		return r.out;
	}

	int failures() const { return failures_; }

private:
	// The result lines of STDOUT in order; checks that every "Starting"
	// line is followed by the result of the same (dynamic) subtest.
	Results results(const std::string &name, const std::string &stdout_text)
	{
		Results out;
		std::vector<std::string> started;
		for (const auto &line : lines_of(stdout_text)) {
			std::string n;
			Result r;
			if (parse_starting(line, n)) {
				started.push_back(n);
			} else if (result_line(line, r)) {
				out.push_back(r);
				if (!started.empty() && started.back() == r.name)
					started.pop_back();
			}
		}
		check(started.empty(), std::format("{}: started but never finished: [{}]", name, join(started)));
		return out;
	}

	std::string binary_;
	int failures_ = 0;
};

int check_shim(const std::string &b)
{
	Checker c(b);
	const Results full = {
		sub("pass", "SUCCESS"),
		sub("fail-assert", "FAIL"),
		sub("fail-assert-eq", "FAIL"),
		sub("fail-explicit", "FAIL"),
		sub("skip-require", "SKIP"),
		sub("skip-on", "SKIP"),
		sub("ioctl-wrappers", "SUCCESS"),
		sub("ioctl-wrappers-fail", "FAIL"),
		sub("formatted-0", "SUCCESS"),
		sub("formatted-1", "SUCCESS"),
		dyn("dyn-pass", "SUCCESS"),
		dyn("dyn-fail", "FAIL"),
		dyn("dyn-skip", "SKIP"),
		dyn("dyn-f0", "SUCCESS"),
		dyn("dyn-f1", "SUCCESS"),
		sub("dynamic-mixed", "FAIL"),
		dyn("only", "SUCCESS"),
		sub("dynamic-pass", "SUCCESS"),
		dyn("skipped", "SKIP"),
		sub("dynamic-none", "SKIP"),
		sub("fork-pass", "SUCCESS"),
		sub("fork-fail", "FAIL"),
		sub("group-skipped", "SKIP"),
		sub("group-member", "SUCCESS"),
		sub("after-groups", "SUCCESS"),
	};
	std::vector<std::string> names;
	for (const auto &r : full)
		if (!r.dynamic)
			names.push_back(r.name);
	auto all = [&](const std::string &verdict) {
		Results rs;
		for (const auto &n : names)
			rs.push_back(sub(n, verdict));
		return rs;
	};

	c.expect("full run", {}, 98, full,
		 {"IGT-Version: ", "fixture: top", "fixture: bottom", "info line",
		  "Test requirement: !(1)", "expected skip", "No dynamic tests executed.",
		  "child 1 failed with exit status 98"},
		 {"debug line"},
		 {"Test assertion failure function", "Failed assertion: 0", "expected failure 42",
		  "error: 1 != 2", "Last errno: 25", "child 1 fails"});

	std::string out = c.expect("list", {"--list-subtests"}, 0, {}, {}, {"fixture:", "IGT-Version"});
	c.check(words(out) == names, std::format("list: got [{}]", join(words(out))));

	c.expect("fixture skip", {"--fixture-skip"}, 77, all("SKIP"), {}, {"fixture: bottom"});
	c.expect("fixture fail", {"--fixture-fail"}, 98, all("FAIL"), {}, {"fixture: bottom"},
		 {"fixture asked to fail"});

	c.expect("single pass", {"--run-subtest", "pass"}, 0, {sub("pass", "SUCCESS")},
		 {"Starting subtest: pass"});
	c.expect("single skip", {"--run-subtest", "skip-require"}, 77, {sub("skip-require", "SKIP")});
	c.expect("single fail", {"--run-subtest", "fail-assert"}, 98, {sub("fail-assert", "FAIL")});
	c.expect("glob", {"--run-subtest", "formatted-*"}, 0,
		 {sub("formatted-0", "SUCCESS"), sub("formatted-1", "SUCCESS")});
	c.expect("glob exclusion", {"--run-subtest", "formatted-*,!*-1"}, 0,
		 {sub("formatted-0", "SUCCESS")});
	c.expect("unknown subtest", {"--run-subtest", "no-such"}, 79, {}, {}, {},
		 {"Unknown subtest: no-such"});
	c.expect("dynamic filter", {"--run-subtest", "dynamic-mixed", "--dynamic-subtest", "dyn-f[0-9]"}, 0,
		 {dyn("dyn-f0", "SUCCESS"), dyn("dyn-f1", "SUCCESS"), sub("dynamic-mixed", "SUCCESS")},
		 {"Starting dynamic subtest: dyn-f0"});
	c.expect("dynamic filter none", {"--run-subtest", "dynamic-pass", "--dynamic-subtest", "nothing"}, 77,
		 {sub("dynamic-pass", "SKIP")});
	c.expect("group fixtures are local", {"--group-fail", "--run-subtest", "group-*,after-groups"}, 98,
		 {sub("group-skipped", "SKIP"), sub("group-member", "FAIL"), sub("after-groups", "SUCCESS")},
		 {}, {}, {"group fixture fails"});
	c.expect("failed group fixture fails the run", {"--group-fail", "--run-subtest", "pass"}, 98,
		 {sub("pass", "SUCCESS")});

	out = c.expect("describe", {"--describe"}, 0, {}, {}, {"fixture:"});
	const std::vector<std::string> lines = lines_of(out);
	c.check(!lines.empty() && lines[0] == "Self-test of the IGT-API shim.",
		std::format("describe: first line '{}'", lines.empty() ? "" : lines[0]));
	std::vector<std::string> sub_names;
	for (const auto &l : lines) {
		if (!l.starts_with("SUB "))
			continue;
		std::vector<std::string> w = words(l);
		sub_names.push_back(w.size() > 1 ? w[1] : "");
	}
	c.check(sub_names == names, std::format("describe: SUB lines name [{}]", join(sub_names)));
	const std::vector<Described> blocks = describe_blocks(out);
	// NAME's block has the location FILE:LINE: (FILE ending with
	// FILE_SUFFIX) and TEXT as its first line.
	auto described = [&](std::string_view name, std::string_view file_suffix, std::string_view text) {
		for (const auto &d : blocks)
			if (d.name == name && is_location(d.location, file_suffix) &&
			    !d.text.empty() && d.text[0] == text)
				return true;
		return false;
	};
	c.check(described("pass", "shim_selftest.c", "  always passes"), "describe: pass");
	c.check(described("fail-assert", {}, "  NO DOCUMENTATION!"), "describe: undocumented");
	c.check(described("group-skipped", {}, "  a group whose fixture skips"), "describe: group description");
	c.check(described("group-member", {}, "  NO DOCUMENTATION!"), "describe: group scope ends");
	// SUB lines listed by a SUB-prefix test, not only those that parse.
	auto sub_lines = [](const std::string &text) {
		std::vector<std::string> subs;
		for (const auto &l : lines_of(text))
			if (l.starts_with("SUB "))
				subs.push_back(l);
		return subs;
	};
	c.check(sub_lines(out).size() == blocks.size(),
		std::format("describe: {} SUB lines, {} well-formed blocks", sub_lines(out).size(), blocks.size()));
	out = c.expect("describe one", {"--describe=pass"}, 0, {});
	const std::vector<Described> one = describe_blocks(out);
	c.check(sub_lines(out).size() == 1 && one.size() == 1 && one[0].name == "pass" && documented(one[0]),
		std::format("describe=pass: want one documented SUB block for pass\n{}", out));

	c.expect("help", {"--help"}, 0, {}, {"--run-subtest"});
	c.expect("bad option", {"--no-such-option"}, 79, {});

	if (c.failures()) {
		std::cerr << c.failures() << " check(s) failed\n";
		return 1;
	}
	std::cout << "all shim checks passed\n";
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::cerr << "usage: check_shim SHIM_SELFTEST\n";
		return 2;
	}
	try {
		return check_shim(argv[1]);
	} catch (const std::exception &e) {
		std::cerr << "check_shim: " << e.what() << '\n';
		return 1;
	}
}
