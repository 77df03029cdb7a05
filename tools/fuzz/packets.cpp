// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 */
#include "packets.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "onenode_vcompute.h"
#include "drm_compute.h"

namespace fuzz {
namespace {

constexpr uint64_t PAGE = 4096;

uint64_t align_down(uint64_t v, uint64_t a)
{
	return v & ~(a - 1);
}

/* An address for @len bytes aligned to @align: mostly inside the data buffer. */
uint64_t pick_addr(Rng &r, const Targets &t, uint64_t len, uint64_t align)
{
	auto inside = [&](uint64_t base, uint64_t size) {
		uint64_t room = size > len ? size - len : 0;

		return align_down(base + r.below(room + 1), align);
	};

	switch (r.below(14)) {
	case 0: case 1: case 2: case 3: case 4: case 5: case 6:
		return inside(t.data_va, t.data_size);
	case 7: return inside(t.ro_va, t.ro_size);
	case 8: return inside(t.nx_va, t.nx_size);
	case 9: return inside(t.hole_va, PAGE);
	case 10: return inside(t.ring_va, t.ring_size);
	case 11: return align_down(t.state_va + 16 + r.below(PAGE - 24), align);
	case 12: return align_down(t.data_va + t.data_size - std::min(len, t.data_size) / 2,
				   align);
	default: {
		static constexpr uint64_t edge[] = {
			0, 1ULL << 47, (1ULL << 47) - 8, 1ULL << 48, ~0ULL - 7,
			1ULL << 63, 64 << 10,
		};
		return align_down(r.pick(edge), align);
	}
	}
}

uint64_t pick_len(Rng &r, const Targets &t)
{
	switch (r.below(6)) {
	case 0: return r.below(64);
	case 1: return r.below(PAGE + 1);
	case 2: return r.range(PAGE, 4 * PAGE);
	case 3: return r.below(t.data_size + 1);
	case 4: return t.data_size;
	default: return r.below(1024);
	}
}

std::vector<uint64_t> words(const uint64_t *buf, uint32_t qw)
{
	return std::vector<uint64_t>(buf, buf + qw);
}

} // namespace

std::vector<uint64_t> gen_packet(Rng &r, const Targets &t)
{
	uint64_t b[VCOMPUTE_PKT_MAX_QWORDS];
	uint32_t qw = 0;

	switch (r.below(8)) {
	case VCOMPUTE_PKT_NOP:
		qw = onenode_pkt_nop(b, static_cast<uint16_t>(r.range(1, 8)));
		break;
	case VCOMPUTE_PKT_WRITE_DATA: {
		uint32_t data[32];
		uint32_t n = static_cast<uint32_t>(r.range(1, 32));

		r.fill(data, sizeof(data));
		qw = onenode_pkt_write_data(b, pick_addr(r, t, n * 4, 4), data, n);
		break;
	}
	case VCOMPUTE_PKT_COPY: {
		uint64_t len = pick_len(r, t);

		qw = onenode_pkt_copy(b, pick_addr(r, t, len, 1), pick_addr(r, t, len, 1), len);
		break;
	}
	case VCOMPUTE_PKT_FILL: {
		uint64_t len = align_down(pick_len(r, t), 4);

		qw = onenode_pkt_fill(b, pick_addr(r, t, len, 4), len,
				      static_cast<uint32_t>(r.next()));
		break;
	}
	case VCOMPUTE_PKT_ATOMIC: {
		uint32_t op = static_cast<uint32_t>(r.range(1, 4));
		uint64_t sz = op == VCOMPUTE_ATOMIC_ADD_U64 || op == VCOMPUTE_ATOMIC_CMPXCHG_U64 ? 8 : 4;

		qw = onenode_pkt_atomic(b, op, pick_addr(r, t, sz, sz), r.next(), r.next(),
					r.chance(1, 2) ? 0 : pick_addr(r, t, sz, sz));
		break;
	}
	case VCOMPUTE_PKT_WAIT_MEM: {
		bool wide = r.chance(1, 2);

		qw = onenode_pkt_wait_mem(b, pick_addr(r, t, 8, wide ? 8 : 4),
					  static_cast<uint32_t>(r.range(VCOMPUTE_WAIT_EQ, VCOMPUTE_WAIT_LT)),
					  r.chance(1, 2) ? 0 : r.next(),
					  r.chance(1, 2) ? ~0ULL : r.next(),
					  wide ? VCOMPUTE_WAIT_64BIT : 0,
					  r.range(1, r.chance(1, 4) ? WAIT_MAX_NS : 2'000'000));
		break;
	}
	case VCOMPUTE_PKT_FENCE:
		qw = onenode_pkt_fence(b, r.chance(1, 2) ? t.state_va + 8 : pick_addr(r, t, 8, 8),
				       r.next() >> r.below(64));
		break;
	default: {
		static constexpr uint32_t gs[] = { 0, 1, 2, 64, 256, 1024, 65536 };
		uint64_t third = align_down(t.data_size / 3, 4);
		/* The edges too: no workgroups, and a count that wraps a round-up. */
		uint64_t count = r.chance(1, 16) ? 0 :
				 r.chance(1, 16) ? ~0ULL - r.below(65536) :
				 r.below(third / 4 + 2);
		uint32_t kernel = static_cast<uint32_t>(r.range(VCOMPUTE_KERNEL_VADD_U32,
							       VCOMPUTE_KERNEL_LIST_SUM));

		qw = onenode_pkt_dispatch(b, kernel, count, r.pick(gs),
					  r.chance(3, 4) ? t.data_va : pick_addr(r, t, count * 4, 4),
					  r.chance(3, 4) ? t.data_va + third : pick_addr(r, t, count * 4, 4),
					  kernel == VCOMPUTE_KERNEL_SCALE_U32 ||
						  kernel == VCOMPUTE_KERNEL_CRC32C ?
						  r.next() & 0xffffffff : t.data_va + 2 * third);
		break;
	}
	}
	return words(b, qw);
}

void mutate_packet(std::vector<uint64_t> &pkt, Rng &r)
{
	auto *h = reinterpret_cast<uint8_t *>(pkt.data());

	switch (r.below(9)) {
	case 0: /* opcode */
		h[0] = r.chance(1, 2) ? static_cast<uint8_t>(r.range(8, 255)) :
					static_cast<uint8_t>(r.below(8));
		break;
	case 1: /* pad */
		h[1] = static_cast<uint8_t>(r.range(1, 255));
		break;
	case 2: { /* size_qw */
		static constexpr uint16_t sizes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 511, 512, 513,
						      0xffff };
		uint16_t s = r.chance(3, 4) ? r.pick(sizes) : static_cast<uint16_t>(r.next());

		memcpy(h + 2, &s, 2);
		break;
	}
	case 3: { /* reserved */
		uint32_t v = static_cast<uint32_t>(r.next()) | 1;

		memcpy(h + 4, &v, 4);
		break;
	}
	case 4: /* a field word */
		if (pkt.size() > 1) {
			static constexpr uint64_t edge[] = {
				0, 1, 4095, 4097, 0xffffffff, 1ULL << 47, 1ULL << 63, ~0ULL,
			};
			pkt[r.range(1, pkt.size() - 1)] = r.chance(1, 2) ? r.pick(edge) : r.next();
		}
		break;
	case 5: /* a bit */
		pkt[r.below(pkt.size())] ^= 1ULL << r.below(64);
		break;
	case 6: /* shorter than its header says */
		if (pkt.size() > 1)
			pkt.resize(r.range(1, pkt.size() - 1));
		break;
	case 7: /* longer */
		pkt.resize(pkt.size() + r.range(1, 8), r.next());
		break;
	default: /* an address field off by a little: misalignment */
		if (pkt.size() > 1)
			pkt[r.range(1, pkt.size() - 1)] += r.range(1, 7);
		break;
	}
}

std::vector<uint64_t> gen_garbage(Rng &r, size_t qwords)
{
	std::vector<uint64_t> g(qwords);

	for (auto &w : g)
		w = r.chance(1, 8) ? (r.next() & 0xffff00ff) : r.next();
	return g;
}

unsigned make_safe(std::span<uint64_t> q, Rng &r)
{
	unsigned fixed = 0;

	for (size_t i = 0; i < q.size(); i++) {
		if (q[i] != WAIT_HEADER)
			continue;
		if (i + 5 < q.size()) {
			if (q[i + 5] && q[i + 5] <= WAIT_MAX_NS)
				continue;
			q[i + 5] = r.range(1, WAIT_MAX_NS);
		} else {
			q[i] |= 1ULL << 40; /* reserved: a PACKET fault */
		}
		fixed++;
	}
	return fixed;
}

bool is_safe(std::span<const uint64_t> q)
{
	for (size_t i = 0; i < q.size(); i++)
		if (q[i] == WAIT_HEADER &&
		    (i + 5 >= q.size() || !q[i + 5] || q[i + 5] > WAIT_MAX_NS))
			return false;
	return true;
}

uint32_t f32_add(uint32_t a, uint32_t b)
{
	constexpr uint32_t exp = 0x7f800000, frac = 0x007fffff, quiet = 0x00400000;
	auto nan = [](uint32_t x) { return (x & exp) == exp && (x & frac); };
	auto inf = [](uint32_t x) { return (x & 0x7fffffff) == exp; };

	/*
	 * NaNs by the text of VCOMPUTE_KERNEL_VADD_F32 (SSE's rule), not by
	 * this CPU: an emulated one (QEMU's TCG) may propagate them otherwise.
	 */
	if (nan(a))
		return a | quiet;
	if (nan(b))
		return b | quiet;
	if (inf(a) && inf(b) && (a ^ b) >> 31)
		return 0xffc00000; /* x86's default NaN */
	/* Everything else is plain IEEE-754 round-to-nearest-even. */
	volatile float fa = std::bit_cast<float>(a), fb = std::bit_cast<float>(b);
	const float c = fa + fb;

	return std::bit_cast<uint32_t>(c);
}

namespace {

std::vector<uint8_t> rand_bytes(Rng &r, size_t n)
{
	std::vector<uint8_t> v(n);

	r.fill(v.data(), n);
	return v;
}

template <class T> std::vector<uint8_t> bytes_of(const T *p, size_t n)
{
	const auto *b = reinterpret_cast<const uint8_t *>(p);

	return std::vector<uint8_t>(b, b + n * sizeof(T));
}

/* A float bit pattern, specials included. */
uint32_t f32_pattern(Rng &r)
{
	static constexpr uint32_t special[] = {
		0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
		0xffc00001, 0x00000001, 0x807fffff, 0x7f7fffff, 0x3f800000, 0xbf800000,
	};
	return r.chance(1, 4) ? r.pick(special) : static_cast<uint32_t>(r.next());
}

void header_fault(Probe &p, uint64_t *b, uint32_t &qw, Rng &r)
{
	auto *h = reinterpret_cast<uint8_t *>(b);

	p.fault = DRM_COMPUTE_FAULT_PACKET;
	switch (r.below(5)) {
	case 0:
		p.name = "unknown-opcode";
		qw = onenode_pkt_nop(b, 2);
		h[0] = static_cast<uint8_t>(r.range(8, 255));
		break;
	case 1:
		p.name = "header-pad";
		qw = onenode_pkt_nop(b, 1);
		h[1] = static_cast<uint8_t>(r.range(1, 255));
		break;
	case 2:
		p.name = "header-reserved";
		qw = onenode_pkt_nop(b, 1);
		h[4 + r.below(4)] = static_cast<uint8_t>(r.range(1, 255));
		break;
	case 3:
		p.name = "size-zero";
		qw = onenode_pkt_nop(b, 1);
		h[2] = h[3] = 0;
		break;
	default: {
		p.name = "fence-wrong-size";
		qw = onenode_pkt_fence(b, 0, 0);
		b[qw++] = 0;
		uint16_t s = static_cast<uint16_t>(qw);

		memcpy(h + 2, &s, 2);
		break;
	}
	}
}

} // namespace

Probe gen_probe(Rng &r, const Targets &t, uint64_t fence_next)
{
	Probe p;
	uint64_t b[VCOMPUTE_PKT_MAX_QWORDS] = {};
	uint32_t qw = 0;
	const uint64_t half = t.data_size / 2;
	/* A place for @len bytes in the data buffer's first half. */
	auto at = [&](uint64_t len, uint64_t align) {
		return t.data_va + align_down(r.below(half - len), align);
	};

	switch (r.below(24)) {
	case 0: {
		uint32_t d[32];
		const uint32_t n = static_cast<uint32_t>(r.range(1, 32));
		const uint64_t va = at(n * 4 + 4, 4);
		std::vector<uint8_t> e(((n + 1) / 2) * 8, 0);

		p.name = "write-data";
		r.fill(d, sizeof(d));
		qw = onenode_pkt_write_data(b, va, d, n);
		memcpy(e.data(), d, n * 4);
		p.expect = { { va, e } };
		break;
	}
	case 1: {
		const uint64_t va = t.ro_va + align_down(r.below(t.ro_size - 8), 4);
		uint32_t d[2] = { 1, 2 };

		p.name = "write-readonly";
		qw = onenode_pkt_write_data(b, va, d, 2);
		p.fault = DRM_COMPUTE_FAULT_WRITE;
		p.check_va = true;
		p.fault_va = va;
		break;
	}
	case 2: {
		const uint64_t va = t.hole_va + align_down(r.below(PAGE - 8), 4);
		uint32_t d[2] = { 3, 4 };

		p.name = "write-unmapped";
		qw = onenode_pkt_write_data(b, va, d, 2);
		p.fault = DRM_COMPUTE_FAULT_UNMAPPED;
		p.check_va = true;
		p.fault_va = va;
		break;
	}
	case 3: {
		const uint64_t va = at(16, 4) + r.range(1, 3);
		uint32_t d[2] = { 5, 6 };

		p.name = "write-misaligned";
		qw = onenode_pkt_write_data(b, va, d, 2);
		p.fault = DRM_COMPUTE_FAULT_ALIGNMENT;
		p.check_va = true;
		p.fault_va = va;
		break;
	}
	case 4: {
		const uint64_t len = align_down(r.below(3 * PAGE), 4), va = at(len, 4);
		const uint32_t v = static_cast<uint32_t>(r.next());
		std::vector<uint32_t> e(len / 4, v);

		p.name = "fill";
		qw = onenode_pkt_fill(b, va, len, v);
		p.expect = { { va, bytes_of(e.data(), e.size()) } };
		break;
	}
	case 5: {
		const uint64_t va = at(PAGE + 8, 4);

		p.name = "fill-misaligned-size";
		qw = onenode_pkt_fill(b, va, PAGE + r.range(1, 3), 7);
		p.fault = DRM_COMPUTE_FAULT_ALIGNMENT;
		p.check_va = true;
		p.fault_va = va;
		break;
	}
	case 6: {
		const uint64_t len = r.range(1, 2 * PAGE);
		const uint64_t src = at(len, 1), dst = t.data_va + half + r.below(half - len);
		auto d = rand_bytes(r, len);

		p.name = "copy";
		qw = onenode_pkt_copy(b, dst, src, len);
		p.setup = { { src, d } };
		p.expect = { { dst, d } };
		break;
	}
	case 7: {
		const uint64_t len = r.range(1, 64);
		const uint64_t dst = t.ro_va + r.below(t.ro_size - len);

		p.name = "copy-to-readonly";
		qw = onenode_pkt_copy(b, dst, at(len, 1), len);
		p.fault = DRM_COMPUTE_FAULT_WRITE;
		p.check_va = true;
		p.fault_va = dst;
		break;
	}
	case 8: {
		const uint32_t op = static_cast<uint32_t>(r.range(1, 4));
		const bool wide = op == VCOMPUTE_ATOMIC_ADD_U64 || op == VCOMPUTE_ATOMIC_CMPXCHG_U64;
		const uint64_t sz = wide ? 8 : 4, mask = wide ? ~0ULL : 0xffffffffULL;
		const uint64_t va = t.data_va + align_down(r.below(half / 2 - 8), 8);
		const uint64_t ret = t.data_va + half / 2 + align_down(r.below(half / 2 - 8), 8);
		const uint64_t old = r.next() & mask, src = r.next();
		const uint64_t cmp = r.chance(1, 2) ? old : r.next();
		uint64_t now = old;

		p.name = "atomic";
		switch (op) {
		case VCOMPUTE_ATOMIC_ADD_U32:
		case VCOMPUTE_ATOMIC_ADD_U64:
			now = (old + src) & mask;
			break;
		default:
			if ((cmp & mask) == old)
				now = src & mask;
			break;
		}
		qw = onenode_pkt_atomic(b, op, va, src, cmp, ret);
		p.setup = { { va, bytes_of(&old, 1) } };
		p.setup[0].second.resize(sz);
		p.expect = { { va, bytes_of(&now, 1) }, { ret, bytes_of(&old, 1) } };
		p.expect[0].second.resize(sz);
		p.expect[1].second.resize(sz);
		break;
	}
	case 9: {
		static constexpr uint32_t bad[] = { 0, 5, 6, 0xffffffff };

		p.name = "atomic-bad-op";
		qw = onenode_pkt_atomic(b, r.pick(bad), at(8, 8), 1, 0, 0);
		p.fault = DRM_COMPUTE_FAULT_PACKET;
		break;
	}
	case 10: {
		const uint64_t va = at(16, 8) + 4;

		p.name = "atomic-misaligned";
		qw = onenode_pkt_atomic(b, VCOMPUTE_ATOMIC_ADD_U64, va, 1, 0, 0);
		p.fault = DRM_COMPUTE_FAULT_ALIGNMENT;
		p.check_va = true;
		p.fault_va = va;
		break;
	}
	case 11:
	case 12: {
		const bool wide = r.chance(1, 2), hold = r.below(2);
		const uint64_t va = at(8, 8), v = r.next(), mask = r.next() | 1;
		const uint64_t val = (wide ? v : v & 0xffffffff) & mask;

		p.name = hold ? "wait-mem" : "wait-mem-timeout";
		qw = onenode_pkt_wait_mem(b, va, VCOMPUTE_WAIT_EQ, hold ? val : val ^ 1, mask,
					  wide ? VCOMPUTE_WAIT_64BIT : 0,
					  r.range(hold ? 1'000'000 : 1, hold ? WAIT_MAX_NS : 20'000'000));
		p.setup = { { va, bytes_of(&v, 1) } };
		if (!hold) {
			p.fault = DRM_COMPUTE_FAULT_TIMEOUT;
			p.check_va = true;
			p.fault_va = va;
		}
		break;
	}
	case 13:
		p.name = "fence";
		qw = onenode_pkt_fence(b, t.state_va + 8, fence_next);
		p.fence = true;
		p.fence_value = fence_next;
		break;
	case 14: {
		const uint64_t va = t.state_va + 8 + r.range(1, 7);

		p.name = "fence-misaligned";
		qw = onenode_pkt_fence(b, va, 1);
		p.fault = DRM_COMPUTE_FAULT_ALIGNMENT;
		p.check_va = true;
		p.fault_va = va;
		break;
	}
	case 15:
	case 16:
	case 17: {
		static constexpr uint32_t gs[] = { 0, 1, 2, 4, 64, 256, 65536 };
		const uint32_t kernel = r.below(3) == 0 ? VCOMPUTE_KERNEL_SCALE_U32 :
					 r.chance(1, 2) ? VCOMPUTE_KERNEL_VADD_U32 :
							  VCOMPUTE_KERNEL_VADD_F32;
		const uint64_t n = r.range(1, std::min<uint64_t>(1024, half / 16));
		const uint64_t base = at(3 * n * 4, 4);
		const uint64_t a = base, bb = base + n * 4, c = base + 2 * n * 4;
		const uint32_t factor = static_cast<uint32_t>(r.next());
		std::vector<uint32_t> va(n), vb(n), vc(n);

		for (uint64_t i = 0; i < n; i++) {
			va[i] = kernel == VCOMPUTE_KERNEL_VADD_F32 ? f32_pattern(r) :
								     static_cast<uint32_t>(r.next());
			vb[i] = kernel == VCOMPUTE_KERNEL_VADD_F32 ? f32_pattern(r) :
								     static_cast<uint32_t>(r.next());
			vc[i] = kernel == VCOMPUTE_KERNEL_SCALE_U32 ? va[i] * factor :
				kernel == VCOMPUTE_KERNEL_VADD_U32 ? va[i] + vb[i] :
								     f32_add(va[i], vb[i]);
		}
		if (kernel == VCOMPUTE_KERNEL_SCALE_U32) {
			p.name = "dispatch-scale-u32";
			qw = onenode_pkt_dispatch(b, kernel, n, r.pick(gs), a, c, factor);
			p.setup = { { a, bytes_of(va.data(), n) } };
		} else {
			p.name = kernel == VCOMPUTE_KERNEL_VADD_U32 ? "dispatch-vadd-u32" :
								      "dispatch-vadd-f32";
			qw = onenode_pkt_dispatch(b, kernel, n, r.pick(gs), a, bb, c);
			p.setup = { { a, bytes_of(va.data(), n) }, { bb, bytes_of(vb.data(), n) } };
		}
		p.expect = { { c, bytes_of(vc.data(), n) } };
		break;
	}
	case 18: {
		const uint64_t n = r.below(2 * PAGE), src = at(n, 1);
		const uint64_t dst = t.data_va + half + align_down(r.below(half - 8), 4);
		const uint32_t seed = r.chance(1, 2) ? 0 : static_cast<uint32_t>(r.next());
		auto d = rand_bytes(r, n);
		const uint32_t crc = onenode_crc32c(seed, d.data(), n);

		p.name = "dispatch-crc32c";
		qw = onenode_pkt_dispatch(b, VCOMPUTE_KERNEL_CRC32C, n, 0, src, dst, seed);
		p.setup = { { src, d } };
		p.expect = { { dst, bytes_of(&crc, 1) } };
		break;
	}
	case 19: {
		static constexpr uint32_t bad_kernel[] = { 0, VCOMPUTE_KERNEL_LIST_SUM + 1, 0xffffffff };
		static constexpr uint32_t bad_gs[] = { 3, 100, 131072, 0x80000000 };
		const bool k = r.chance(1, 2);

		p.name = k ? "dispatch-bad-kernel" : "dispatch-bad-group";
		qw = onenode_pkt_dispatch(b, k ? r.pick(bad_kernel) : VCOMPUTE_KERNEL_VADD_U32, 4,
					  k ? 0 : r.pick(bad_gs), t.data_va, t.data_va + 64,
					  t.data_va + 128);
		p.fault = DRM_COMPUTE_FAULT_PACKET;
		break;
	}
	case 20:
		header_fault(p, b, qw, r);
		break;
	case 21:
		p.name = "nop";
		qw = onenode_pkt_nop(b, static_cast<uint16_t>(r.range(1, 16)));
		break;
	case 22:
		qw = onenode_pkt_nop(b, 1);
		p.fault = DRM_COMPUTE_FAULT_WPTR;
		switch (r.below(4)) {
		case 3:
			p.name = "wptr-behind";
			p.wptr_extra = -16;	/* 8 bytes behind the read pointer */
			break;
		case 0:
			p.name = "wptr-unaligned";
			p.wptr_extra = -static_cast<int64_t>(r.range(1, 7));
			break;
		case 1:
			p.name = "wptr-past-ring";
			p.wptr_extra = static_cast<int64_t>(t.ring_size);
			break;
		default:
			p.name = "wptr-far";
			p.wptr_extra = static_cast<int64_t>(1ULL << 62);
			break;
		}
		break;
	default: {
		uint32_t d[4] = { 9, 9, 9, 9 };

		p.name = "packet-past-wptr";
		qw = onenode_pkt_write_data(b, at(16, 4), d, 4);
		p.wptr_extra = -8 * static_cast<int64_t>(r.range(1, qw - 1));
		p.fault = DRM_COMPUTE_FAULT_PACKET;
		break;
	}
	}
	p.pkt = words(b, qw);
	return p;
}

} // namespace fuzz
