// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// Reads a buffer once, 16 bytes per load, grid-stride; one word per
// invocation goes out so the loads cannot be dropped.
#version 450

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { uvec4 data[]; } src;
layout(std430, binding = 1) writeonly buffer Dst { uint sums[]; } dst;

layout(push_constant) uniform Params { uint count; } params;

void main()
{
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	uint acc = 0u;
	for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
		uvec4 v = src.data[i];
		acc ^= v.x + v.y + v.z + v.w;
	}
	dst.sums[gl_GlobalInvocationID.x] = acc;
}
