// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Reads a buffer once, 16 bytes per load, grid-stride, UNROLL independent
// loads in flight per invocation (a specialization constant: 1 is the plain
// loop). Every invocation adds the words it read; the
// workgroup's total goes out (one word per group), so the loads cannot be
// dropped and the host can check that every element was read exactly once.
#version 450

layout(local_size_x = 256) in;
layout(constant_id = 0) const uint UNROLL = 1;

layout(std430, binding = 0) readonly buffer Src { uvec4 data[]; } src;
layout(std430, binding = 1) writeonly buffer Dst { uint sums[]; } dst;

layout(push_constant) uniform Params { uint count; } params;

shared uint total;

uint words(uvec4 v)
{
	return v.x + v.y + v.z + v.w;
}

void main()
{
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	uint i = gl_GlobalInvocationID.x;
	uint acc = 0u;

	if (gl_LocalInvocationIndex == 0u)
		total = 0u;
	barrier();
	if (UNROLL > 1u) {
		/* All UNROLL loads are issued before any result is used. */
		for (; i + (UNROLL - 1u) * stride < params.count; i += UNROLL * stride) {
			uvec4 v[UNROLL];

			for (uint k = 0u; k < UNROLL; k++)
				v[k] = src.data[i + k * stride];
			for (uint k = 0u; k < UNROLL; k++)
				acc += words(v[k]);
		}
	}
	for (; i < params.count; i += stride)
		acc += words(src.data[i]);
	atomicAdd(total, acc);
	barrier();
	if (gl_LocalInvocationIndex == 0u)
		dst.sums[gl_WorkGroupID.x] = total;
}
