// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * layout.hpp: the argument structure of every DRM compute operation as a
 * table of fields (name, offset, width, kind), so that the mutator and the
 * rules work on any operation's bytes without per-structure code.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fuzz {

/** Kind - what a field is, for the mutator and the uapi rules. */
enum class Kind : uint8_t {
	Value,		/* an input with a meaning checked by the rules */
	Zero,		/* padding or reserved: must be zero on input */
	Out,		/* written by the kernel: must be zero on input */
	Flags,		/* a flags field; Field::known holds the defined bits */
	Enum,		/* an enumeration; Field::known holds the largest value */
	Handle,		/* a GEM handle of the file */
	VmId,		/* a VM id of the file */
	QueueId,	/* a queue id of the file */
	Syncobj,	/* a sync object handle of the file */
	Ptr,		/* a user pointer */
	Va,		/* a GPU virtual address */
	Size,		/* a byte count */
};

/** Field - one field of an argument structure. */
struct Field {
	const char *name;
	uint16_t offset;
	uint8_t size;	/* 4 or 8 */
	Kind kind;
	uint64_t known;	/* Flags: the defined bits; Enum: the largest value */
};

/** OpLayout - an operation (DRM_COMPUTE_OP_*) and its argument. */
struct OpLayout {
	unsigned op;
	const char *name;
	uint16_t size;
	std::span<const Field> fields;
};

/** layouts() - every operation up to DRM_COMPUTE_OP_COUNT, indexed by op. */
std::span<const OpLayout> layouts();

/** layout() - the layout of @op (< DRM_COMPUTE_OP_COUNT). */
const OpLayout &layout(unsigned op);

/** field_index() - index of the field @name in @l, or -1. */
int field_index(const OpLayout &l, const char *name);

/** field_get() - the value of @f in @arg (little-endian host). */
uint64_t field_get(const uint8_t *arg, const Field &f);

/** field_set() - store @v (truncated to the field's width) in @arg. */
void field_set(uint8_t *arg, const Field &f, uint64_t v);

/** get()/set() by name, for code that builds arguments. */
uint64_t get(const OpLayout &l, const uint8_t *arg, const char *name);
void set(const OpLayout &l, uint8_t *arg, const char *name, uint64_t v);

} // namespace fuzz
