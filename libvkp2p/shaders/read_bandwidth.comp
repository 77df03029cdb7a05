// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Reads a buffer once, 16 bytes per load, grid-stride, UNROLL independent
// loads in flight per invocation (a specialization constant: 1 is the plain
// loop, 4 the tuned one). Every invocation adds the words it read; the
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
	if (UNROLL == 4u) {
		for (; i + 3u * stride < params.count; i += 4u * stride) {
			uvec4 a = src.data[i];
			uvec4 b = src.data[i + stride];
			uvec4 c = src.data[i + 2u * stride];
			uvec4 d = src.data[i + 3u * stride];
			acc += (words(a) + words(b)) + (words(c) + words(d));
		}
	}
	for (; i < params.count; i += stride)
		acc += words(src.data[i]);
	atomicAdd(total, acc);
	barrier();
	if (gl_LocalInvocationIndex == 0u)
		dst.sums[gl_WorkGroupID.x] = total;
}
