// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-caps: open a compute render node (vcompute by default) and print
 * its identity and every field of its struct drm_compute_caps, readable or
 * as JSON. Exit status: 0 on success, 1 when no device or the query fails,
 * 2 on a usage error.
 */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <format>
#include <string>
#include <string_view>

#include <sys/sysmacros.h>

#include "onenode.h"

namespace {

constexpr std::string_view usage_text =
	"usage: onenode-caps [--device PATH | --driver NAME] [--json]\n"
	"\n"
	"Print the identity and DRM compute capabilities of a render node.\n"
	"  --device PATH  use the DRM node at PATH\n"
	"  --driver NAME  use the first render node of driver NAME (default vcompute)\n"
	"  --json         machine-readable output\n"
	"Render nodes are searched in $" ONENODE_DRI_DIR_ENV " (default " ONENODE_DEFAULT_DRI_DIR ").\n";

struct options {
	std::string device;
	std::string driver = "vcompute";
	bool json = false;
};

/* Returns -1 to exit with success (--help), 1 on a usage error, 0 to run. */
int parse(int argc, char **argv, options &opt)
{
	bool have_device = false, have_driver = false;

	for (int i = 1; i < argc; i++) {
		std::string_view arg = argv[i];
		auto value = [&](std::string &out) {
			if (i + 1 >= argc || !argv[i + 1][0]) {
				std::fputs(std::format("onenode-caps: {} needs a value\n", arg).c_str(),
					   stderr);
				return false;
			}
			out = argv[++i];
			return true;
		};

		if (arg == "--json") {
			opt.json = true;
		} else if (arg == "--device") {
			if (!value(opt.device))
				return 1;
			have_device = true;
		} else if (arg == "--driver") {
			if (!value(opt.driver))
				return 1;
			have_driver = true;
		} else if (arg == "-h" || arg == "--help") {
			std::fputs(usage_text.data(), stdout);
			return -1;
		} else {
			std::fputs(std::format("onenode-caps: unknown argument '{}'\n", arg).c_str(),
				   stderr);
			return 1;
		}
	}
	if (have_device && have_driver) {
		std::fputs("onenode-caps: --device and --driver exclude each other\n", stderr);
		return 1;
	}
	return 0;
}

std::string json_string(std::string_view s)
{
	std::string out = "\"";

	for (unsigned char c : s) {
		if (c == '"' || c == '\\')
			out += std::format("\\{:c}", static_cast<char>(c));
		else if (c < 0x20)
			out += std::format("\\u{:04x}", static_cast<unsigned>(c));
		else
			out += static_cast<char>(c);
	}
	return out + "\"";
}

std::string human_bytes(std::uint64_t v)
{
	static constexpr const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (u + 1 < std::size(units) && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	return std::format("{} {}", v, units[u]);
}

std::string features_text(std::uint64_t features)
{
	char buf[256];

	onenode_features_string(features, buf, sizeof(buf));
	return buf;
}

void print_text(const onenode_device &dev, const drm_compute_caps &caps,
		const onenode_caps_field *fields, int n)
{
	std::string out = std::format("node:    {}\n"
				      "driver:  {} {}.{}.{} ({})\n"
				      "rdev:    {}:{}\n"
				      "caps:\n",
				      dev.path, dev.driver, dev.version_major,
				      dev.version_minor, dev.version_patchlevel, dev.desc,
				      major(dev.rdev), minor(dev.rdev));
	for (int i = 0; i < n; i++) {
		const onenode_caps_field &f = fields[i];
		std::string value;

		if (f.is_bytes)
			value = std::format("{} ({})", f.value, human_bytes(f.value));
		else if (std::string_view(f.name) == "features")
			value = std::format("{:#x} ({})", f.value, features_text(caps.features));
		else if (std::string_view(f.name) == "flags")
			value = std::format("{:#x}", f.value);
		else
			value = std::format("{}", f.value);
		out += std::format("  {:<16}{}\n", f.name, value);
	}
	std::fputs(out.c_str(), stdout);
}

void print_json(const onenode_device &dev, const drm_compute_caps &caps,
		const onenode_caps_field *fields, int n)
{
	std::string names;

	for (int bit = 0; bit < 64; bit++) {
		std::uint64_t m = 1ULL << bit;

		if (!(caps.features & m))
			continue;
		const char *name = onenode_feature_name(m);
		names += std::format("{}{}", names.empty() ? "" : ", ",
				     json_string(name ? name : std::format("bit{}", bit)));
	}

	std::string out = std::format(
		"{{\n"
		"  \"node\": {},\n"
		"  \"driver\": {},\n"
		"  \"driver_desc\": {},\n"
		"  \"driver_version\": [{}, {}, {}],\n"
		"  \"caps\": {{\n",
		json_string(dev.path), json_string(dev.driver), json_string(dev.desc),
		dev.version_major, dev.version_minor, dev.version_patchlevel);
	for (int i = 0; i < n; i++)
		out += std::format("    \"{}\": {},\n", fields[i].name, fields[i].value);
	out += std::format("    \"feature_names\": [{}]\n  }}\n}}\n", names);
	std::fputs(out.c_str(), stdout);
}

} // namespace

int main(int argc, char **argv)
{
	options opt;
	onenode_device dev;
	drm_compute_caps caps;
	onenode_caps_field fields[ONENODE_CAPS_NFIELDS];
	int ret;

	ret = parse(argc, argv, opt);
	if (ret < 0)
		return 0;
	if (ret > 0) {
		std::fputs(usage_text.data(), stderr);
		return 2;
	}

	if (!opt.device.empty()) {
		ret = onenode_open_path(opt.device.c_str(), &dev);
		if (ret) {
			std::fputs(std::format("onenode-caps: cannot open {}: {}\n", opt.device,
					       onenode_strerror(ret)).c_str(), stderr);
			return 1;
		}
	} else {
		ret = onenode_open_driver(opt.driver.c_str(), nullptr, &dev);
		if (ret) {
			std::string why = ret == -ENOENT ?
				std::format("no {} render node in {}", opt.driver, onenode_dri_dir()) :
				std::format("cannot open a {} render node in {}: {}", opt.driver,
					    onenode_dri_dir(), onenode_strerror(ret));
			std::fputs(std::format("onenode-caps: {}\n", why).c_str(), stderr);
			return 1;
		}
	}

	ret = onenode_query_caps(&dev, &caps);
	if (ret) {
		std::fputs(std::format("onenode-caps: {} ({}): cannot query compute caps: {}\n",
				       dev.path, dev.driver, onenode_strerror(ret)).c_str(), stderr);
		onenode_close(&dev);
		return 1;
	}
	int n = onenode_caps_fields(&caps, fields, ONENODE_CAPS_NFIELDS);

	if (opt.json)
		print_json(dev, caps, fields, n);
	else
		print_text(dev, caps, fields, n);
	onenode_close(&dev);
	return std::ferror(stdout) ? 1 : 0;
}
