// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * packets.hpp: vcompute queue packets for the fuzzer (vcompute_drm.h):
 * random and mutated packets for the rings, the safety filter that keeps
 * every WAIT_MEM on a short timeout of its own, and probes: single packets
 * whose outcome the uapi fixes (completion with a known memory effect, or
 * a fault with a known reason), checked by the fuzzer's exclusive thread.
 */
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "rng.hpp"

namespace fuzz {

/** WAIT_MAX_NS - the longest WAIT_MEM timeout the fuzzer ever submits (50 ms). */
constexpr uint64_t WAIT_MAX_NS = 50'000'000;

/** WAIT_HEADER - the one header word that makes a WAIT_MEM the engine runs. */
constexpr uint64_t WAIT_HEADER = 0x05 | (6ULL << 16);

/**
 * Targets - the GPU addresses a queue's packets may use: its data buffer
 * (read/write), a read-only and a no-exec alias of that buffer's first
 * pages, an unmapped page, the ring and the state page (read pointer at
 * +0, fence slot at +8, then free words).
 */
struct Targets {
	uint64_t data_va = 0, data_size = 0;
	uint64_t ro_va = 0, ro_size = 0;
	uint64_t nx_va = 0, nx_size = 0;
	uint64_t hole_va = 0;
	uint64_t ring_va = 0, ring_size = 0;
	uint64_t state_va = 0;
};

/** gen_packet() - a well-formed packet of a random opcode over @t's addresses. */
std::vector<uint64_t> gen_packet(Rng &r, const Targets &t);

/** mutate_packet() - break one thing in @pkt: a header field, a field, a bit, its length. */
void mutate_packet(std::vector<uint64_t> &pkt, Rng &r);

/** gen_garbage() - @qwords random words. */
std::vector<uint64_t> gen_garbage(Rng &r, size_t qwords);

/**
 * make_safe() - rewrite every WAIT_MEM the engine could run from @q so its
 * own timeout is 1 ns..WAIT_MAX_NS: a WAIT_MEM header whose timeout word
 * lies in @q gets a short timeout, one whose timeout word lies past @q
 * gets a reserved bit (the engine faults it instead). Returns the number
 * of words changed.
 */
unsigned make_safe(std::span<uint64_t> q, Rng &r);

/** is_safe() - no WAIT_MEM in @q could wait longer than WAIT_MAX_NS. */
bool is_safe(std::span<const uint64_t> q);

/** Bytes - a run of bytes at a GPU address. */
using Bytes = std::pair<uint64_t, std::vector<uint8_t>>;

/**
 * Probe - one submission with a predicted outcome.
 * @pkt: the packet words (may be empty for a pure write-pointer probe).
 * @setup: bytes the CPU writes to the data buffer first.
 * @expect: bytes the data buffer must hold once the packet completed.
 * @fault: the DRM_COMPUTE_FAULT_* expected, 0 for completion.
 * @fault_va: the faulting address expected when @check_va.
 * @wptr_extra: added to the write pointer after the packet (a bad one).
 * @fence: the packet is a FENCE writing @fence_value to the fence slot.
 */
struct Probe {
	const char *name = "";
	std::vector<uint64_t> pkt;
	std::vector<Bytes> setup;
	std::vector<Bytes> expect;
	uint32_t fault = 0;
	bool check_va = false;
	uint64_t fault_va = 0;
	int64_t wptr_extra = 0;
	bool fence = false;
	uint64_t fence_value = 0;
};

/** gen_probe() - a random probe over @t; @fence_next is the next fence value. */
Probe gen_probe(Rng &r, const Targets &t, uint64_t fence_next);


/** f32_add() - the VADD_F32 element: IEEE-754 binary32 a + b as SSE's addss. */
uint32_t f32_add(uint32_t a, uint32_t b);

} // namespace fuzz
