// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode.hpp without a device: the error type (code and message), check(),
 * and the failures of Device's constructors (not a DRM node, no node with
 * the features asked for). The classes' work with a device is exercised by
 * the examples in the VM.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "onenode.hpp"
#include "tap.h"

namespace {

/* The code of the onenode::error @f throws, 0 when it throws none. */
template <typename F> int thrown(F f, std::string *what = nullptr)
{
	try {
		f();
	} catch (const onenode::error &e) {
		if (what)
			*what = e.what();
		return e.code();
	}
	return 0;
}

void test_error()
{
	onenode::error e(ENOTTY, "open x");
	onenode::error m(-EOPNOTSUPP, "query");

	CHECK_EQ(e.code(), -ENOTTY, "a positive errno is stored negative");
	CHECK_STR(e.what(), "open x: not a DRM device", "context, then onenode_strerror()");
	CHECK_EQ(m.code(), -EOPNOTSUPP, "a negative errno is kept");
	CHECK_EQ(onenode::check(3, "x"), 3, "check() passes a count through");
	CHECK_EQ(thrown([] { onenode::check(-EIO, "x"); }), -EIO, "check() throws a negative");
}

void test_device(const char *tmp)
{
	std::string what;
	std::string dir = std::string(tmp) + "/dri";

	CHECK_EQ(thrown([] { onenode::Device::open_path("/dev/null"); }, &what), -ENOTTY,
		 "open_path(/dev/null) throws -ENOTTY");
	CHECK(what.find("/dev/null") != std::string::npos, "the message names the path: %s",
	      what.c_str());
	CHECK_EQ(thrown([&] { onenode::Device::open_driver("vcompute", dir.c_str()); }), -ENOENT,
		 "open_driver in an empty directory throws -ENOENT");

	/* A regular file and /dev/null as render nodes: neither qualifies. */
	CHECK(close(open((dir + "/renderD128").c_str(), O_CREAT | O_WRONLY, 0644)) == 0,
	      "fake renderD128");
	CHECK(symlink("/dev/null", (dir + "/renderD129").c_str()) == 0, "fake renderD129");
	CHECK_EQ(thrown([&] {
			onenode::Device::open_with_features(DRM_COMPUTE_FEATURE_USERQ, dir.c_str());
		}, &what), -ENOENT, "open_with_features finds nothing among fakes");
	CHECK(what.find("userq") != std::string::npos && what.find(dir) != std::string::npos,
	      "the message names the features and the directory: %s", what.c_str());
	unlink((dir + "/renderD128").c_str());
	unlink((dir + "/renderD129").c_str());
}

} // namespace

int main()
{
	char tmp[] = "/tmp/onenode-hpp-XXXXXX";

	if (!mkdtemp(tmp))
		return EXIT_FAILURE;
	mkdir((std::string(tmp) + "/dri").c_str(), 0755);
	test_error();
	test_device(tmp);
	rmdir((std::string(tmp) + "/dri").c_str());
	rmdir(tmp);
	return tap_done();
}
