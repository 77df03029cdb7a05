// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * rng.hpp: the fuzzer's random numbers. xoshiro256** seeded through
 * splitmix64, so one 64-bit seed (printed at start) replays every stream:
 * each thread or child gets the stream (seed, index).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace fuzz {

/** splitmix64() - advance @x and return the next splitmix64 output. */
constexpr uint64_t splitmix64(uint64_t &x)
{
	uint64_t z = (x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/** Rng - a deterministic generator: same (seed, stream), same sequence. */
class Rng {
public:
	explicit Rng(uint64_t seed = 0, uint64_t stream = 0)
	{
		uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL + stream);

		for (auto &w : s_)
			w = splitmix64(x);
	}

	/** next() - 64 random bits. */
	uint64_t next()
	{
		const uint64_t result = rotl(s_[1] * 5, 7) * 9;
		const uint64_t t = s_[1] << 17;

		s_[2] ^= s_[0];
		s_[3] ^= s_[1];
		s_[1] ^= s_[2];
		s_[0] ^= s_[3];
		s_[2] ^= t;
		s_[3] = rotl(s_[3], 45);
		return result;
	}

	/** below() - uniform in [0, @n); 0 when @n is 0. */
	uint64_t below(uint64_t n) { return n ? next() % n : 0; }

	/** range() - uniform in [@lo, @hi] (inclusive). */
	uint64_t range(uint64_t lo, uint64_t hi)
	{
		return hi <= lo ? lo : lo + below(hi - lo + 1);
	}

	/** chance() - true with probability @num / @den. */
	bool chance(unsigned num, unsigned den) { return below(den) < num; }

	/** pick() - a random element of a non-empty indexable container. */
	template <class C> auto &pick(C &c) { return c[below(std::size(c))]; }

	/** fill() - @n random bytes at @p. */
	void fill(void *p, size_t n)
	{
		auto *b = static_cast<unsigned char *>(p);

		while (n) {
			uint64_t v = next();
			size_t k = n < 8 ? n : 8;

			memcpy(b, &v, k);
			b += k;
			n -= k;
		}
	}

private:
	static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
	uint64_t s_[4];
};

} // namespace fuzz
