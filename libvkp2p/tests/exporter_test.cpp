// SPDX-License-Identifier: MIT
// Copyright 2026 The onenode authors
//
// RenderNodeExporter's reasons without a compute device: a node that does
// not exist and a file that is no DRM node are named with libonenode's
// message. (Allocation on vcompute, with the kernel's placement report, is
// the vm test vkp2p-dmabuf-e2e's NicIngest.RenderNodeDeviceMemory.)
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "../src/exporter.hpp"

namespace {

TEST(RenderNodeExporter, MissingNode)
{
	vkp2p::RenderNodeExporter e("/nonexistent/renderD128");
	vkp2p::ExportedBuffer out;
	std::string why;
	EXPECT_EQ(e.allocate(0, &out, &why), -ENOENT);
	EXPECT_NE(why.find("/nonexistent/renderD128: no such DRM render node"), std::string::npos)
		<< why;
	EXPECT_EQ(out.dmabuf_fd, -1);
}

TEST(RenderNodeExporter, NotDrm)
{
	vkp2p::RenderNodeExporter e("/dev/null");
	vkp2p::ExportedBuffer out;
	std::string why;
	EXPECT_EQ(e.allocate(0, &out, &why), -ENOTTY);
	EXPECT_EQ(why, "/dev/null: not a DRM device");
}

} // namespace
