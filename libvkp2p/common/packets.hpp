// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// The packet slots the NIC-ingest test and example exchange, as the
// checksum.comp shader reads them: 2 KiB per slot, a 16-byte header
// (magic, sequence, payload bytes, FNV-1a of the payload words) and the
// payload. A producer process plays the NIC.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vkp2p_common {

inline constexpr uint32_t kPacketWords = 512;
inline constexpr size_t kPacketBytes = kPacketWords * 4;
inline constexpr uint32_t kHeaderWords = 4;
inline constexpr uint32_t kPacketMagic = 0x4E4F4E45u;

inline uint32_t fnv1a_words(const uint32_t *w, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 16777619u;
	}
	return h;
}

// Writes @count packets with pseudo-random payloads derived from @seed.
// Slot @corrupt (if < count) gets one payload word changed after its
// checksum was computed, as a damaged packet would.
inline void produce_packets(void *base, uint32_t count, uint32_t seed, uint32_t corrupt)
{
	auto *words = static_cast<uint32_t *>(base);
	uint32_t x = seed | 1u;
	for (uint32_t slot = 0; slot < count; slot++) {
		uint32_t *p = words + static_cast<size_t>(slot) * kPacketWords;
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		uint32_t payload_words = 1 + x % (kPacketWords - kHeaderWords);
		for (uint32_t i = 0; i < payload_words; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			p[kHeaderWords + i] = x;
		}
		p[0] = kPacketMagic;
		p[1] = slot;
		p[2] = payload_words * 4;
		p[3] = fnv1a_words(p + kHeaderWords, payload_words);
		if (slot == corrupt)
			p[kHeaderWords + payload_words / 2] ^= 0x00100000u;
	}
}

// The checksum the shader must compute for slot @slot (of a well-formed header).
inline uint32_t packet_checksum(const void *base, uint32_t slot)
{
	auto *p = static_cast<const uint32_t *>(base) + static_cast<size_t>(slot) * kPacketWords;
	return fnv1a_words(p + kHeaderWords, p[2] / 4);
}

} // namespace vkp2p_common
