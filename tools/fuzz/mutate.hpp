// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * mutate.hpp: argument mutation. A valid argument gets one field replaced
 * by a value of a boundary class (0, 1, page - 1, page + 1, 2^32 - 1, 2^47,
 * 2^63, U64_MAX, a flipped bit, another file's id, a destroyed id, an
 * unknown flag or enumeration value, random bits); or the whole argument is
 * random bytes. kernel_view() gives what the kernel sees of an argument
 * sent with a request of another size (the DRM core copies the size the
 * request encodes and zero-fills the rest).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "layout.hpp"
#include "rng.hpp"

namespace fuzz {

/** Boundary - the class of a mutated field value. */
enum class Boundary : uint8_t {
	Zero,
	One,
	PageMinus1,
	PagePlus1,
	U32Max,
	Pow47,
	Pow63,
	U64Max,
	BitFlip,
	OtherFileId,
	DestroyedId,
	UnknownFlag,
	UnknownEnum,
	Random,
	Count,
};

/** boundary_name() - short name of a class, for logs and tests. */
const char *boundary_name(Boundary b);

/**
 * IdSource - ids the mutator may use for the id classes: another file's
 * ids and ids destroyed in this file, per kind. Empty lists make those
 * classes unavailable.
 */
struct IdSource {
	std::vector<uint32_t> other[4];		/* Handle, VmId, QueueId, Syncobj */
	std::vector<uint32_t> destroyed[4];
};

/** id_slot() - index of an id kind in &IdSource, or -1. */
int id_slot(Kind k);

/** Mutation - what mutate_one() did. */
struct Mutation {
	int field = -1;
	Boundary cls = Boundary::Count;
	uint64_t before = 0;
	uint64_t after = 0;
};

/**
 * classes_for() - the boundary classes that make sense for a field: a
 * must-be-zero field only gets non-zero classes, flags get unknown bits,
 * enumerations unknown values, ids the id classes, and every class fits
 * the field's width.
 */
std::vector<Boundary> classes_for(const Field &f, const IdSource *ids);

/**
 * boundary_value() - a value of class @b for field @f whose valid value is
 * @orig; @page is the GPU page size. For the id classes @ids must offer
 * one (see classes_for()).
 */
uint64_t boundary_value(Boundary b, const Field &f, uint64_t orig, uint64_t page,
			Rng &r, const IdSource *ids);

/**
 * mutate_one() - replace one random field of @arg (laid out as @l) by a
 * boundary value; @field >= 0 picks the field. The value always differs
 * from the original.
 */
Mutation mutate_one(uint8_t *arg, const OpLayout &l, uint64_t page, Rng &r,
		    const IdSource *ids, int field = -1);

/** random_arg() - @size random bytes, some fields zeroed so parts stay plausible. */
void random_arg(uint8_t *arg, const OpLayout &l, Rng &r);

/**
 * kernel_view() - the @ksize bytes the kernel's handler sees when
 * userspace passes @user with a request encoding @usize bytes and the
 * IOC_IN direction bit @in: the first min(@usize, @ksize) bytes when @in,
 * zero elsewhere.
 */
std::vector<uint8_t> kernel_view(const uint8_t *user, size_t usize, bool in, size_t ksize);

/** hex() - bytes as "0011aabb ..." (groups of 8 bytes). */
std::string hex(const uint8_t *p, size_t n);

/** describe() - "field=0x.. field=0x.." of an argument, for reports. */
std::string describe(const OpLayout &l, const uint8_t *arg);

} // namespace fuzz
