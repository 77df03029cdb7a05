// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * test-fuzz-logic: the fuzzer's pure logic, without a device: replayable
 * random streams, the mutator's boundary classes, the kernel's view of a
 * resized argument, the uapi rules, the VM model, the packet generators
 * and the WAIT_MEM safety filter, and the probes' expected values.
 * TAP output.
 */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "fuzz.hpp"
#include "onenode_vcompute.h"
#include "vcompute_drm.h"

using namespace fuzz;

namespace {

int n_tests, n_failed;

void ok(bool cond, const std::string &what)
{
	n_tests++;
	if (!cond)
		n_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n_tests, what.c_str());
}

const uint64_t PAGE = 4096;

std::vector<uint8_t> arg_of(unsigned op)
{
	return std::vector<uint8_t>(layout(op).size, 0);
}

void set_f(std::vector<uint8_t> &a, unsigned op, const char *f, uint64_t v)
{
	set(layout(op), a.data(), f, v);
}

void test_rng()
{
	Rng a(42, 3), b(42, 3), c(42, 4), d(43, 3);
	bool same = true, diff_stream = false, diff_seed = false;

	for (int i = 0; i < 1000; i++) {
		const uint64_t x = a.next();

		same &= x == b.next();
		diff_stream |= x != c.next();
		diff_seed |= x != d.next();
	}
	ok(same, "the same seed and stream replay the same sequence");
	ok(diff_stream && diff_seed, "another stream or seed gives another sequence");

	Rng r(7);
	bool in_range = true;

	for (int i = 0; i < 10000; i++) {
		const uint64_t v = r.range(5, 9);

		in_range &= v >= 5 && v <= 9 && r.below(3) < 3;
	}
	ok(in_range, "below() and range() stay in bounds");
}

void test_layouts()
{
	bool sizes = true, covered = true;

	for (const OpLayout &l : layouts()) {
		size_t sum = 0;

		for (const Field &f : l.fields) {
			sum += f.size;
			sizes &= f.offset + f.size <= l.size;
		}
		covered &= sum == l.size;
	}
	ok(sizes, "every field lies inside its structure");
	ok(covered, "the fields of every structure cover it exactly (no hidden padding)");
	ok(layout(DRM_COMPUTE_OP_USERQ_STATE).size == sizeof(drm_compute_userq_state),
	   "USERQ_STATE layout has the uapi size");
}

void test_mutation_classes()
{
	Rng r(1234);
	IdSource ids;

	ids.other[0] = { 77 };
	ids.destroyed[0] = { 5 };
	ids.other[1] = { 9 };
	ids.destroyed[1] = { 3 };
	std::set<Boundary> seen;
	bool differs = true, width = true, zero_fields = true;

	for (const OpLayout &l : layouts()) {
		for (size_t fi = 0; fi < l.fields.size(); fi++) {
			const Field &f = l.fields[fi];

			for (int i = 0; i < 400; i++) {
				std::vector<uint8_t> a(l.size, 0);

				r.fill(a.data(), a.size());
				if (f.kind == Kind::Zero || f.kind == Kind::Out)
					field_set(a.data(), f, 0);
				const uint64_t before = field_get(a.data(), f);
				const Mutation m = mutate_one(a.data(), l, PAGE, r, &ids,
							      static_cast<int>(fi));

				seen.insert(m.cls);
				differs &= m.after != before && field_get(a.data(), f) == m.after;
				width &= f.size == 8 || m.after <= 0xffffffffULL;
				if (f.kind == Kind::Zero || f.kind == Kind::Out)
					zero_fields &= tier1_field(l.op, a.data()) != nullptr;
			}
		}
	}
	for (int b = 0; b < static_cast<int>(Boundary::Count); b++)
		ok(seen.count(static_cast<Boundary>(b)),
		   std::string("the mutator produces class ") + boundary_name(static_cast<Boundary>(b)));
	ok(differs, "a mutation always changes the field");
	ok(width, "a mutated value fits its field");
	ok(zero_fields, "a mutated padding, reserved or out field is a tier-1 -EINVAL");

	const Field f64{ "x", 0, 8, Kind::Size, 0 };
	ok(boundary_value(Boundary::Pow47, f64, 0, PAGE, r, nullptr) == (1ULL << 47) &&
		   boundary_value(Boundary::Pow63, f64, 0, PAGE, r, nullptr) == (1ULL << 63) &&
		   boundary_value(Boundary::U64Max, f64, 0, PAGE, r, nullptr) == ~0ULL &&
		   boundary_value(Boundary::PageMinus1, f64, 0, PAGE, r, nullptr) == PAGE - 1 &&
		   boundary_value(Boundary::PagePlus1, f64, 0, PAGE, r, nullptr) == PAGE + 1 &&
		   boundary_value(Boundary::U32Max, f64, 0, PAGE, r, nullptr) == 0xffffffffULL,
	   "boundary values are 2^47, 2^63, U64_MAX, page-1, page+1, 2^32-1");
	const Field fl{ "flags", 0, 8, Kind::Flags, 3 };
	bool unknown = true;

	for (int i = 0; i < 200; i++)
		unknown &= (boundary_value(Boundary::UnknownFlag, fl, 1, PAGE, r, nullptr) & ~3ULL) != 0;
	ok(unknown, "an unknown-flag value always sets a bit outside the known ones");
}

void test_replay()
{
	auto run = [](uint64_t seed) {
		Rng r(seed, 1);
		std::string s;
		const auto all = layouts();

		for (int i = 0; i < 200; i++) {
			const OpLayout &l = r.pick(all);
			std::vector<uint8_t> a(l.size, 0);
			const Mutation m = mutate_one(a.data(), l, PAGE, r, nullptr);

			s += std::string(l.name) + ":" + l.fields[m.field].name + ":" +
			     boundary_name(m.cls) + "=" + std::to_string(m.after) + ";";
		}
		return s;
	};

	ok(run(99) == run(99), "a replayed seed gives the same mutations");
	ok(run(99) != run(100), "another seed gives other mutations");
}

void test_kernel_view()
{
	const uint8_t user[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	auto shorter = kernel_view(user, 4, true, 8);
	auto longer = kernel_view(user, 8, true, 6);
	auto none = kernel_view(user, 8, false, 8);

	ok(shorter == std::vector<uint8_t>({ 1, 2, 3, 4, 0, 0, 0, 0 }),
	   "a shorter request: the kernel zero-fills the rest");
	ok(longer == std::vector<uint8_t>({ 1, 2, 3, 4, 5, 6 }),
	   "a longer request: the kernel reads its own size");
	ok(none == std::vector<uint8_t>(8, 0), "no IOC_IN: the kernel sees zeros");
	ok(kernel_view(nullptr, 0, true, 8) == std::vector<uint8_t>(8, 0),
	   "a zero-size request: the kernel sees zeros");
}

void test_rules()
{
	const DevInfo d = vcompute_info();
	const unsigned B = DRM_COMPUTE_OP_VM_BIND, Q = DRM_COMPUTE_OP_QUERY;
	const unsigned BC = DRM_COMPUTE_OP_BO_CREATE, UC = DRM_COMPUTE_OP_USERQ_CREATE;

	auto q = arg_of(Q);
	set_f(q, Q, "query", DRM_COMPUTE_QUERY_DEVICE);
	ok(!static_verdict(Q, q.data(), d, true, nullptr).must_fail, "QUERY DEVICE size 0 passes");
	set_f(q, Q, "pad", 1);
	Verdict v = static_verdict(Q, q.data(), d, false, nullptr);
	ok(v.must_fail && v.errs == std::vector<int>{ EINVAL }, "QUERY with pad: exactly -EINVAL");
	set_f(q, Q, "pad", 0);
	set_f(q, Q, "size", 8);
	ok(static_verdict(Q, q.data(), d, false, nullptr).must_fail, "QUERY size without data fails");
	set_f(q, Q, "size", 0);
	set_f(q, Q, "query", 7);
	ok(static_verdict(Q, q.data(), d, false, nullptr).must_fail, "an unknown query fails");

	auto bc = arg_of(BC);
	set_f(bc, BC, "size", 2 * PAGE);
	set_f(bc, BC, "placement", DRM_COMPUTE_PLACEMENT_VRAM);
	ok(!static_verdict(BC, bc.data(), d, true, nullptr).must_fail, "a valid BO_CREATE passes");
	set_f(bc, BC, "placement", 3);
	ok(static_verdict(BC, bc.data(), d, true, nullptr).must_fail, "two placements fail");
	set_f(bc, BC, "placement", 4);
	ok(static_verdict(BC, bc.data(), d, true, nullptr).must_fail, "an unknown placement fails");
	set_f(bc, BC, "placement", 2);
	set_f(bc, BC, "size", PAGE + 1);
	ok(static_verdict(BC, bc.data(), d, true, nullptr).must_fail, "an unaligned size fails");
	set_f(bc, BC, "size", PAGE);
	set_f(bc, BC, "handle", 1);
	ok(static_verdict(BC, bc.data(), d, true, nullptr).errs == std::vector<int>{ EINVAL },
	   "a non-zero out handle is -EINVAL");

	auto b = arg_of(B);
	set_f(b, B, "vm_id", 1);
	set_f(b, B, "op", DRM_COMPUTE_VM_BIND_OP_MAP);
	set_f(b, B, "handle", 1);
	set_f(b, B, "va", 1 << 20);
	set_f(b, B, "range", PAGE);
	ok(!static_verdict(B, b.data(), d, true, nullptr).must_fail, "a valid MAP passes");
	set_f(b, B, "flags", 4);
	ok(static_verdict(B, b.data(), d, true, nullptr).errs == std::vector<int>{ EINVAL },
	   "an unknown bind flag is exactly -EINVAL");
	set_f(b, B, "flags", 0);
	set_f(b, B, "va", 0);
	ok(static_verdict(B, b.data(), d, true, nullptr).must_fail, "a MAP below va_start fails");
	set_f(b, B, "va", (1ULL << 47) - PAGE);
	set_f(b, B, "range", 2 * PAGE);
	ok(static_verdict(B, b.data(), d, true, nullptr).must_fail, "a MAP past va_end fails");
	set_f(b, B, "range", PAGE);
	ok(!static_verdict(B, b.data(), d, true, nullptr).must_fail, "the last page maps");
	set_f(b, B, "op", DRM_COMPUTE_VM_BIND_OP_UNMAP);
	ok(static_verdict(B, b.data(), d, true, nullptr).must_fail, "UNMAP with a handle fails");
	set_f(b, B, "handle", 0);
	ok(!static_verdict(B, b.data(), d, true, nullptr).must_fail, "a valid UNMAP passes");
	set_f(b, B, "bo_offset", ~0ULL & ~(PAGE - 1));
	set_f(b, B, "op", DRM_COMPUTE_VM_BIND_OP_MAP);
	set_f(b, B, "handle", 1);
	ok(static_verdict(B, b.data(), d, true, nullptr).must_fail, "bo_offset + range overflow fails");

	auto u = arg_of(UC);
	uint32_t mask = 0;
	MaskReader rd = [&](uint64_t, uint32_t *w, size_t n) {
		for (size_t i = 0; i < n; i++)
			w[i] = mask;
		return true;
	};
	set_f(u, UC, "vm_id", 1);
	set_f(u, UC, "format", DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE);
	set_f(u, UC, "priority", 7);
	set_f(u, UC, "ring_va", 1 << 20);
	set_f(u, UC, "ring_size", 1 << 16);
	set_f(u, UC, "rptr_va", 2 << 20);
	set_f(u, UC, "ctx_save_va", 3 << 20);
	set_f(u, UC, "ctx_save_size", PAGE);
	ok(!static_verdict(UC, u.data(), d, true, &rd).must_fail, "a valid USERQ_CREATE passes");
	set_f(u, UC, "ring_va", (1 << 20) + PAGE);
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail, "a ring_va off its size fails");
	set_f(u, UC, "ring_va", 1 << 20);
	set_f(u, UC, "cu_mask_count", 32);
	set_f(u, UC, "cu_mask_ptr", 0x1000);
	mask = 0x100;
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail, "a CU bit past the last CU fails");
	mask = 0;
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail, "a mask with no CU fails");
	mask = 0x81;
	ok(!static_verdict(UC, u.data(), d, true, &rd).must_fail, "CUs 0 and 7 pass");
	set_f(u, UC, "cu_mask_count", 64);
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail, "64 mask bits for 8 CUs fail");
	set_f(u, UC, "cu_mask_count", 0);
	set_f(u, UC, "wptr_va", 8);
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail,
	   "wptr_va on a device without WPTR_MEMORY fails");
	set_f(u, UC, "wptr_va", 0);
#ifdef DRM_COMPUTE_USERQ_CAP_FENCE_MEMORY
	set_f(u, UC, "fence_va", 8);
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail,
	   "fence_va on a device without FENCE_MEMORY fails");
	set_f(u, UC, "fence_va", 0);
#endif
	set_f(u, UC, "ctx_save_size", PAGE - 8);
	ok(static_verdict(UC, u.data(), d, true, &rd).must_fail, "a small ctx save area fails");

	ok(documented(DRM_COMPUTE_OP_VM_DESTROY, EBUSY) && !documented(DRM_COMPUTE_OP_VM_DESTROY, EIO) &&
		   documented(DRM_COMPUTE_OP_USERQ_WAIT, ETIME) && documented(B, ENOMEM),
	   "documented errors per operation");
}

void test_svm_rules()
{
	const unsigned S = DRM_COMPUTE_OP_SVM, VC = DRM_COMPUTE_OP_VM_CREATE;
	DevInfo d = vcompute_info();
	auto s = arg_of(S);
	auto vc = arg_of(VC);

	set_f(s, S, "vm_id", 1);
	set_f(s, S, "op", DRM_COMPUTE_SVM_OP_SET_ATTR);
	set_f(s, S, "start", 1 << 20);
	set_f(s, S, "size", 4 * PAGE);
	set_f(s, S, "attrs", 0x1000);
	set_f(s, S, "nattr", 1);
	/* Without the feature: -EOPNOTSUPP, whatever the argument. */
	Verdict v = static_verdict(S, s.data(), d, true, nullptr);
	ok(v.must_fail && v.errs == std::vector<int>{ EOPNOTSUPP }, "SVM without the feature");
	set_f(s, S, "flags", 1);
	v = static_verdict(S, s.data(), d, true, nullptr);
	ok(v.must_fail && v.errs == std::vector<int>{ EOPNOTSUPP },
	   "SVM without the feature: -EOPNOTSUPP before the flags rule");
	set_f(s, S, "flags", 0);
	set_f(vc, VC, "flags", DRM_COMPUTE_VM_CREATE_SVM);
	v = static_verdict(VC, vc.data(), d, true, nullptr);
	ok(v.must_fail && v.errs == std::vector<int>{ EOPNOTSUPP }, "an SVM VM without the feature");
	set_f(vc, VC, "flags", DRM_COMPUTE_VM_CREATE_SVM | 2);
	v = static_verdict(VC, vc.data(), d, true, nullptr);
	ok(v.must_fail && v.errs == std::vector<int>{ EINVAL }, "an unknown VM flag first");
	ok(documented(VC, EOPNOTSUPP) && documented(S, EPERM) && documented(S, EFAULT) &&
		   !documented(S, EBUSY), "documented SVM errors");

	/* With it: the rules of the argument alone. */
	d.dev.features |= DRM_COMPUTE_FEATURE_SVM;
	set_f(vc, VC, "flags", DRM_COMPUTE_VM_CREATE_SVM);
	ok(!static_verdict(VC, vc.data(), d, true, nullptr).must_fail, "an SVM VM with the feature");
	ok(!static_verdict(S, s.data(), d, true, nullptr).must_fail, "a valid SET_ATTR passes");
	set_f(s, S, "op", DRM_COMPUTE_SVM_OP_GET_ATTR);
	set_f(s, S, "nattr", DRM_COMPUTE_SVM_MAX_ATTRS);
	ok(!static_verdict(S, s.data(), d, true, nullptr).must_fail, "a valid GET_ATTR passes");
	const struct {
		const char *field;
		uint64_t value;
		const char *what;
	} bad[] = {
		{ "op", 0, "op 0" },
		{ "op", 3, "an unknown op" },
		{ "flags", 1, "a flag" },
		{ "nattr", 0, "no attribute" },
		{ "nattr", DRM_COMPUTE_SVM_MAX_ATTRS + 1, "too many attributes" },
		{ "size", 0, "a zero size" },
		{ "size", PAGE + 8, "an unaligned size" },
		{ "start", (1 << 20) + 4, "an unaligned start" },
		{ "start", 0, "below va_start" },
		{ "start", (1ULL << 47) - PAGE, "past va_end" },
		{ "start", ~0ULL & ~(PAGE - 1), "a wrapping range" },
	};

	for (const auto &b : bad) {
		auto x = s;

		set_f(x, S, b.field, b.value);
		v = static_verdict(S, x.data(), d, true, nullptr);
		ok(v.must_fail && v.errs == std::vector<int>{ EINVAL }, std::string("SVM: ") + b.what +
		   " is exactly -EINVAL");
	}
}

void test_vm_model()
{
	Vm vm;

	vm.maps[0x10000] = Mapping{ 0x10000, 0x4000, 0, 0, 1 };
	ok(vm.overlaps(0x13000, 0x1000) && !vm.overlaps(0x14000, 0x1000) &&
		   vm.overlaps(0xf000, 0x2000) && !vm.overlaps(0xf000, 0x1000),
	   "overlap of ranges with a mapping");
	vm.unmap(0x11000, 0x1000);
	ok(vm.maps.size() == 2 && vm.maps.count(0x10000) && vm.maps.at(0x10000).range == 0x1000 &&
		   vm.maps.count(0x12000) && vm.maps.at(0x12000).bo_offset == 0x2000 &&
		   vm.maps.at(0x12000).range == 0x2000,
	   "UNMAP in the middle splits and keeps the outer parts");
	vm.unmap(0, 1ULL << 40);
	ok(vm.maps.empty(), "an UNMAP over everything empties the VM");
}

void test_packets()
{
	Rng r(2026);
	Targets t;
	bool safe = true, fixed_safe = true, headers = true, probes_safe = true;
	std::set<std::string> names;

	t.data_va = 1 << 20;
	t.data_size = 64 << 10;
	t.ro_va = 2 << 20;
	t.ro_size = 8192;
	t.nx_va = 3 << 20;
	t.nx_size = 8192;
	t.hole_va = t.data_va + t.data_size;
	t.ring_va = 4 << 20;
	t.ring_size = 65536;
	t.state_va = 5 << 20;
	for (int i = 0; i < 5000; i++) {
		auto p = gen_packet(r, t);
		vcompute_pkt_header h;

		memcpy(&h, p.data(), 8);
		headers &= h.opcode <= VCOMPUTE_PKT_DISPATCH && !h.pad && !h.reserved &&
			   h.size_qw == p.size();
		safe &= is_safe(p);
		mutate_packet(p, r);
		auto g = gen_garbage(r, 16);

		g.insert(g.begin() + static_cast<long>(r.below(16)), WAIT_HEADER);
		p.insert(p.end(), g.begin(), g.end());
		make_safe(p, r);
		fixed_safe &= is_safe(p);

		const Probe pr = gen_probe(r, t, 5);
		std::vector<uint64_t> copy = pr.pkt;

		names.insert(pr.name);
		probes_safe &= is_safe(pr.pkt) && make_safe(copy, r) == 0 &&
			       pr.pkt.size() <= VCOMPUTE_PKT_MAX_QWORDS;
		for (const auto &[va, bytes] : pr.setup)
			probes_safe &= va >= t.data_va && va + bytes.size() <= t.data_va + t.data_size;
		for (const auto &[va, bytes] : pr.expect)
			probes_safe &= va >= t.data_va && va + bytes.size() <= t.data_va + t.data_size;
	}
	ok(headers, "generated packets have a valid header and their exact size");
	ok(safe, "generated packets wait at most 50 ms");
	ok(fixed_safe, "make_safe() leaves no WAIT_MEM without a short timeout");
	ok(probes_safe, "probes are safe and touch only the data buffer from the CPU");
	ok(names.size() >= 30, "probes cover " + std::to_string(names.size()) + " kinds");

	std::vector<uint64_t> w = { WAIT_HEADER, 0, 0, 0, 0, 0 };
	make_safe(w, r);
	ok(w[5] >= 1 && w[5] <= WAIT_MAX_NS, "a WAIT_MEM with timeout 0 gets a short one");
	std::vector<uint64_t> cut = { 0, WAIT_HEADER, 1 };
	make_safe(cut, r);
	ok(cut[1] != WAIT_HEADER, "a WAIT_MEM whose timeout is out of reach is spoiled");

	const char *digits = "123456789";
	ok(onenode_crc32c(0, reinterpret_cast<const uint8_t *>(digits), 9) == 0xe3069283,
	   "CRC-32C of \"123456789\" is 0xe3069283");
	ok(onenode_crc32c(onenode_crc32c(0, reinterpret_cast<const uint8_t *>(digits), 4),
		  reinterpret_cast<const uint8_t *>(digits) + 4, 5) == 0xe3069283,
	   "CRC-32C continues from a partial CRC");
	ok(f32_add(0x3fc00000, 0x40100000) == 0x40700000, "1.5 + 2.25 = 3.75 in binary32");
	ok(f32_add(0x7f800001, 0x3f800000) == 0x7fc00001, "a signalling NaN comes back quieted");
	ok(f32_add(0xffc00001, 0x7fc00002) == 0xffc00001 &&
		   f32_add(0x7fc00002, 0xff800001) == 0x7fc00002,
	   "two NaNs: addss returns the first, quieted");
	ok(f32_add(0x7f800000, 0xff800000) == 0xffc00000, "inf - inf is x86's default NaN");
	ok(f32_add(0x00000001, 0x00000001) == 0x00000002, "denormals are kept");
	ok(f32_add(0x3f800000, 0xbf800000) == 0x00000000, "1 - 1 is +0");
}

void test_report_key()
{
	ok(mismatch_key("seed 0x1 thread 2 (x) iteration 7: probe fill on queue 3: byte 5 is 0x7f") ==
		   mismatch_key("seed 0x9 thread 0 (y) iteration 99: probe fill on queue 12: byte 51 is 0xe5"),
	   "mismatches that differ in numbers only are grouped");
	ok(mismatch_key("seed 1 thread 2 (x) iteration 7: probe fill failed") !=
		   mismatch_key("seed 1 thread 2 (x) iteration 7: probe copy failed"),
	   "different mismatches stay apart");
}

} // namespace

int main()
{
	test_rng();
	test_layouts();
	test_mutation_classes();
	test_replay();
	test_kernel_view();
	test_rules();
	test_svm_rules();
	test_vm_model();
	test_packets();
	test_report_key();
	printf("1..%d\n", n_tests);
	return n_failed ? 1 : 0;
}
