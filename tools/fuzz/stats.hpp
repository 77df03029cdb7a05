// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * stats.hpp: what a fuzz run counts (calls and errno histograms per
 * operation, queue faults per reason, probe outcomes) and the mismatch
 * log: every answer the uapi predicts that came out otherwise.
 */
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fuzz {

/** mismatch_key() - @what without its numbers, to group alike mismatches. */
std::string mismatch_key(const std::string &what);

/** Stats - counters of one thread; merged at the end. */
struct Stats {
	std::map<std::string, std::map<int, uint64_t>> ops;	/* op -> errno -> calls */
	std::map<uint32_t, uint64_t> faults;			/* DRM_COMPUTE_FAULT_* -> queues */
	std::map<std::string, std::map<std::string, uint64_t>> probes; /* name -> outcome */
	std::map<std::string, uint64_t> events;			/* anything else worth a number */
	uint64_t calls = 0;

	void record(const std::string &op, int err);
	void event(const std::string &what, uint64_t n = 1) { events[what] += n; }
	void merge(const Stats &o);
	/** print() - the summary tables. */
	void print(FILE *f) const;
};

/**
 * Report - the run's mismatches and splats, shared by every thread.
 * Mismatches are grouped by their text with the numbers taken out; the
 * first few of each group are printed in full as they happen.
 */
class Report {
public:
	/** mismatch() - log one prediction that failed. */
	void mismatch(const std::string &what);
	/** splat() - the kernel log holds a splat (from the kmsg monitor). */
	void splat(const std::string &line);
	size_t mismatches() const;
	size_t splats() const;
	void print(FILE *f) const;

private:
	struct Group {
		std::string first;
		size_t count = 0;
	};
	mutable std::mutex mu_;
	std::map<std::string, Group> groups_;
	std::vector<std::string> order_;
	size_t total_ = 0;
	std::vector<std::string> splats_;
};

/** report() - the process's report. */
Report &report();

} // namespace fuzz
