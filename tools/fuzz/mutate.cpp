// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */
#include "mutate.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace fuzz {

const char *boundary_name(Boundary b)
{
	switch (b) {
	case Boundary::Zero: return "zero";
	case Boundary::One: return "one";
	case Boundary::PageMinus1: return "page-1";
	case Boundary::PagePlus1: return "page+1";
	case Boundary::U32Max: return "u32-max";
	case Boundary::Pow47: return "2^47";
	case Boundary::Pow63: return "2^63";
	case Boundary::U64Max: return "u64-max";
	case Boundary::BitFlip: return "bit-flip";
	case Boundary::OtherFileId: return "other-file-id";
	case Boundary::DestroyedId: return "destroyed-id";
	case Boundary::UnknownFlag: return "unknown-flag";
	case Boundary::UnknownEnum: return "unknown-enum";
	case Boundary::Random: return "random";
	case Boundary::Count: break;
	}
	return "?";
}

int id_slot(Kind k)
{
	switch (k) {
	case Kind::Handle: return 0;
	case Kind::VmId: return 1;
	case Kind::QueueId: return 2;
	case Kind::Syncobj: return 3;
	default: return -1;
	}
}

static uint64_t width_mask(const Field &f)
{
	return f.size == 8 ? ~0ULL : (1ULL << (f.size * 8)) - 1;
}

std::vector<Boundary> classes_for(const Field &f, const IdSource *ids)
{
	using B = Boundary;
	std::vector<B> c;
	const int slot = id_slot(f.kind);

	switch (f.kind) {
	case Kind::Zero:
	case Kind::Out:
		c = { B::One, B::PageMinus1, B::PagePlus1, B::U32Max, B::Pow47,
		      B::Pow63, B::U64Max, B::BitFlip, B::Random };
		break;
	case Kind::Flags:
		c = { B::Zero, B::One, B::U32Max, B::U64Max, B::BitFlip,
		      B::UnknownFlag, B::Random };
		break;
	case Kind::Enum:
		c = { B::Zero, B::One, B::U32Max, B::BitFlip, B::UnknownEnum,
		      B::Random };
		break;
	case Kind::Handle:
	case Kind::VmId:
	case Kind::QueueId:
	case Kind::Syncobj:
		c = { B::Zero, B::One, B::U32Max, B::BitFlip, B::Random };
		if (ids && !ids->other[slot].empty())
			c.push_back(B::OtherFileId);
		if (ids && !ids->destroyed[slot].empty())
			c.push_back(B::DestroyedId);
		break;
	default:
		c = { B::Zero, B::One, B::PageMinus1, B::PagePlus1, B::U32Max,
		      B::Pow47, B::Pow63, B::U64Max, B::BitFlip, B::Random };
		break;
	}
	if (f.size == 4)
		std::erase_if(c, [](B b) {
			return b == B::Pow47 || b == B::Pow63 || b == B::U64Max;
		});
	return c;
}

uint64_t boundary_value(Boundary b, const Field &f, uint64_t orig, uint64_t page,
			Rng &r, const IdSource *ids)
{
	const uint64_t mask = width_mask(f);
	const int slot = id_slot(f.kind);
	uint64_t v = 0;

	switch (b) {
	case Boundary::Zero: v = 0; break;
	case Boundary::One: v = 1; break;
	case Boundary::PageMinus1: v = page - 1; break;
	case Boundary::PagePlus1: v = page + 1; break;
	case Boundary::U32Max: v = 0xffffffffULL; break;
	case Boundary::Pow47: v = 1ULL << 47; break;
	case Boundary::Pow63: v = 1ULL << 63; break;
	case Boundary::U64Max: v = ~0ULL; break;
	case Boundary::BitFlip: v = orig ^ (1ULL << r.below(f.size * 8)); break;
	case Boundary::OtherFileId: v = r.pick(ids->other[slot]); break;
	case Boundary::DestroyedId: v = r.pick(ids->destroyed[slot]); break;
	case Boundary::UnknownFlag: {
		const uint64_t unknown = mask & ~f.known;
		uint64_t bit;

		if (!unknown)
			return orig ^ 1;
		do
			bit = 1ULL << r.below(f.size * 8);
		while (!(bit & unknown));
		v = orig | bit;
		break;
	}
	case Boundary::UnknownEnum:
		switch (r.below(3)) {
		case 0: v = f.known + 1; break;
		case 1: v = f.known + 1 + r.below(64); break;
		default: v = f.known + 1 + r.below(mask - f.known); break;
		}
		break;
	case Boundary::Random:
	case Boundary::Count:
		v = r.next();
		break;
	}
	return v & mask;
}

Mutation mutate_one(uint8_t *arg, const OpLayout &l, uint64_t page, Rng &r,
		    const IdSource *ids, int field)
{
	Mutation m;

	m.field = field >= 0 ? field : static_cast<int>(r.below(l.fields.size()));
	const Field &f = l.fields[m.field];
	const std::vector<Boundary> cls = classes_for(f, ids);

	m.before = field_get(arg, f);
	for (int tries = 0; tries < 32; tries++) {
		m.cls = r.pick(cls);
		m.after = boundary_value(m.cls, f, m.before, page, r, ids);
		if (m.after != m.before)
			break;
	}
	if (m.after == m.before) {
		m.cls = Boundary::BitFlip;
		m.after = m.before ^ 1;
	}
	field_set(arg, f, m.after);
	return m;
}

void random_arg(uint8_t *arg, const OpLayout &l, Rng &r)
{
	r.fill(arg, l.size);
	if (r.chance(1, 2))
		return;
	/* Keep the must-be-zero fields zero, so the rest gets looked at. */
	for (const Field &f : l.fields)
		if (f.kind == Kind::Zero || f.kind == Kind::Out ||
		    (f.kind == Kind::Flags && !f.known))
			field_set(arg, f, 0);
}

std::vector<uint8_t> kernel_view(const uint8_t *user, size_t usize, bool in, size_t ksize)
{
	std::vector<uint8_t> k(ksize, 0);

	if (in && usize && ksize)
		memcpy(k.data(), user, std::min(usize, ksize));
	return k;
}

std::string hex(const uint8_t *p, size_t n)
{
	std::string s;
	char b[4];

	for (size_t i = 0; i < n; i++) {
		if (i && !(i % 8))
			s += ' ';
		snprintf(b, sizeof(b), "%02x", p[i]);
		s += b;
	}
	return s;
}

std::string describe(const OpLayout &l, const uint8_t *arg)
{
	std::string s;
	char b[64];

	for (const Field &f : l.fields) {
		snprintf(b, sizeof(b), "%s%s=%#llx", s.empty() ? "" : " ", f.name,
			 static_cast<unsigned long long>(field_get(arg, f)));
		s += b;
	}
	return s;
}

} // namespace fuzz
