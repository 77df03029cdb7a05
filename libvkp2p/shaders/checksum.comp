// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Checksums packets in place, one invocation per packet slot. A slot is
// PACKET_WORDS 32-bit words: magic, sequence number, payload bytes, FNV-1a
// of the payload words, then the payload. The shader writes every computed
// checksum and counts slots whose header is malformed or whose checksum
// does not match.
#version 450

layout(local_size_x = 64) in;

const uint PACKET_WORDS = 512u;
const uint HEADER_WORDS = 4u;
const uint MAGIC = 0x4E4F4E45u; // "ENON"

layout(std430, binding = 0) readonly buffer Packets { uint words[]; } packets;
layout(std430, binding = 1) buffer Results {
	uint bad;
	uint first_bad;
	uint computed[];
} results;

layout(push_constant) uniform Params { uint count; } params;

void main()
{
	uint slot = gl_GlobalInvocationID.x;
	if (slot >= params.count)
		return;
	uint base = slot * PACKET_WORDS;
	uint len = packets.words[base + 2u];
	uint h = 2166136261u;
	bool ok = packets.words[base] == MAGIC && packets.words[base + 1u] == slot &&
		  len % 4u == 0u && len <= (PACKET_WORDS - HEADER_WORDS) * 4u;
	if (ok) {
		for (uint i = 0u; i < len / 4u; i++) {
			h ^= packets.words[base + HEADER_WORDS + i];
			h *= 16777619u;
		}
		ok = h == packets.words[base + 3u];
	}
	results.computed[slot] = h;
	if (!ok) {
		atomicAdd(results.bad, 1u);
		atomicMin(results.first_bad, slot);
	}
}
