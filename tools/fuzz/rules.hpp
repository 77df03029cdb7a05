// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * rules.hpp: what the uapi (drm_compute.h) promises about an argument
 * without knowing any state: the rules of the file header (padding,
 * reserved, out fields and unknown flag bits must be zero, else -EINVAL),
 * each structure's listed -EINVAL conditions, and the errors each
 * operation documents. Only these promises become assertions, so the
 * fuzzer never reports a behaviour the uapi leaves open.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "drm_compute.h"

namespace fuzz {

/** DevInfo - the device's two reports, read once at start. */
struct DevInfo {
	drm_compute_query_device dev{};
	drm_compute_query_userq uq{};
	bool privileged = false;	/* CAP_SYS_NICE: privileged priorities allowed */
};

/** vcompute_info() - the reports of a default vcompute device (for tests). */
DevInfo vcompute_info();

/**
 * MaskReader - reads @n words of a CU mask at user pointer @ptr into
 * @words; false when the fuzzer does not know that memory (it may be
 * unreadable).
 */
using MaskReader = std::function<bool(uint64_t ptr, uint32_t *words, size_t n)>;

/** Verdict - what the static rules say about one argument. */
struct Verdict {
	bool must_fail = false;
	/** errnos (positive) the call may fail with; empty: any documented one. */
	std::vector<int> errs;
	/** the rule broken, for the report */
	std::string why;
};

/**
 * static_verdict() - judge the kernel's view of an argument of @op.
 * @ids_valid: every id in the argument is known to exist in the file,
 *	so -ENOENT cannot be the answer.
 * @mask: reads the CU mask of USERQ_CREATE; may be null.
 */
Verdict static_verdict(unsigned op, const uint8_t *view, const DevInfo &d,
		       bool ids_valid, const MaskReader *mask);

/**
 * tier1_field() - name of the first must-be-zero field (padding, reserved,
 * out, unknown flag bit) that is not zero, or nullptr.
 */
const char *tier1_field(unsigned op, const uint8_t *view);

/**
 * documented() - whether @op lists errno @err (positive) among its errors;
 * ENOMEM and EINTR (a signal while the call waited) are always allowed.
 */
bool documented(unsigned op, int err);

/** errno_name() - "EINVAL", ... or "E<n>"; "ok" for 0. */
std::string errno_name(int err);

} // namespace fuzz
