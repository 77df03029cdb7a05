// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */
#include "stats.hpp"

#include <cctype>

#include "onenode.h"
#include "rules.hpp"

namespace fuzz {

void Stats::record(const std::string &op, int err)
{
	ops[op][err]++;
	calls++;
}

void Stats::merge(const Stats &o)
{
	for (const auto &[op, h] : o.ops)
		for (const auto &[e, n] : h)
			ops[op][e] += n;
	for (const auto &[r, n] : o.faults)
		faults[r] += n;
	for (const auto &[p, h] : o.probes)
		for (const auto &[k, n] : h)
			probes[p][k] += n;
	for (const auto &[k, n] : o.events)
		events[k] += n;
	calls += o.calls;
}

void Stats::print(FILE *f) const
{
	fprintf(f, "%-24s %9s  errno histogram\n", "operation", "calls");
	for (const auto &[op, h] : ops) {
		uint64_t total = 0;
		std::string line;

		for (const auto &[e, n] : h) {
			total += n;
			line += (line.empty() ? "" : ", ") + errno_name(e) + " " + std::to_string(n);
		}
		fprintf(f, "%-24s %9llu  %s\n", op.c_str(), static_cast<unsigned long long>(total),
			line.c_str());
	}
	fprintf(f, "queue faults by reason:");
	if (faults.empty())
		fprintf(f, " none");
	for (const auto &[r, n] : faults)
		fprintf(f, " %s %llu", onenode_fault_name(r), static_cast<unsigned long long>(n));
	fprintf(f, "\n");
	if (!probes.empty()) {
		fprintf(f, "probes (predicted single packets):\n");
		for (const auto &[p, h] : probes) {
			std::string line;

			for (const auto &[k, n] : h)
				line += (line.empty() ? "" : ", ") + k + " " + std::to_string(n);
			fprintf(f, "  %-22s %s\n", p.c_str(), line.c_str());
		}
	}
	if (!events.empty()) {
		fprintf(f, "events:");
		for (const auto &[k, n] : events)
			fprintf(f, " %s=%llu", k.c_str(), static_cast<unsigned long long>(n));
		fprintf(f, "\n");
	}
}

std::string mismatch_key(const std::string &what)
{
	std::string k;

	/* Past "seed S thread T (ctx) iteration N: " when it is there. */
	size_t i = what.find("iteration ");
	i = i == std::string::npos ? 0 : what.find(": ", i);
	i = i == std::string::npos ? 0 : i + 2;
	for (; i < what.size(); i++) {
		if (isdigit(static_cast<unsigned char>(what[i]))) {
			while (i + 1 < what.size() && (isxdigit(static_cast<unsigned char>(what[i + 1])) ||
						       what[i + 1] == 'x'))
				i++;
			k += '#';
			continue;
		}
		k += what[i];
	}
	return k.substr(0, 160);
}

void Report::mismatch(const std::string &what)
{
	std::lock_guard<std::mutex> g(mu_);
	const std::string key = mismatch_key(what);
	Group &grp = groups_[key];

	total_++;
	if (!grp.count++) {
		grp.first = what;
		order_.push_back(key);
	}
	if (grp.count <= 3) {
		fprintf(stderr, "MISMATCH: %s\n", what.c_str());
		fflush(stderr);
	}
}

void Report::splat(const std::string &line)
{
	std::lock_guard<std::mutex> g(mu_);

	if (splats_.size() < 50)
		splats_.push_back(line);
}

size_t Report::mismatches() const
{
	std::lock_guard<std::mutex> g(mu_);

	return total_;
}

size_t Report::splats() const
{
	std::lock_guard<std::mutex> g(mu_);

	return splats_.size();
}

void Report::print(FILE *f) const
{
	std::lock_guard<std::mutex> g(mu_);

	fprintf(f, "prediction mismatches: %zu (%zu kinds)\n", total_, order_.size());
	for (const auto &k : order_) {
		const Group &grp = groups_.at(k);

		fprintf(f, "  %zux %s\n", grp.count, grp.first.c_str());
	}
	fprintf(f, "kernel splats seen in /dev/kmsg: %zu\n", splats_.size());
	for (const auto &s : splats_)
		fprintf(f, "  %s\n", s.c_str());
}

Report &report()
{
	static Report r;

	return r;
}

} // namespace fuzz
