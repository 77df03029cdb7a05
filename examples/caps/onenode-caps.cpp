// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * onenode-caps: open a compute render node (vcompute by default) and print
 * its identity and every field of its DRM compute query reports: DEVICE,
 * and USERQ when the device has user queues; readable or as JSON. Exit
 * status: 0 on success, 1 when no device or a query fails, 2 on a usage
 * error.
 */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <format>
#include <string>
#include <string_view>
#include <vector>

#include <sys/sysmacros.h>

#include "onenode.h"

namespace {

constexpr std::string_view usage_text =
	"usage: onenode-caps [--device PATH | --driver NAME] [--json]\n"
	"\n"
	"Print the identity and DRM compute query reports (DEVICE, USERQ) of a render node.\n"
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

/* "a,b" names of the set bits of @v, "bitN" for unnamed ones, "none" for 0. */
template <typename Namer> std::string bit_names(std::uint64_t v, Namer name_of)
{
	std::string out;

	for (int bit = 0; bit < 64; bit++) {
		if (!(v & (1ULL << bit)))
			continue;
		const char *name = name_of(1ULL << bit);
		out += std::format("{}{}", out.empty() ? "" : ",",
				   name ? std::string(name) : std::format("bit{}", bit));
	}
	return out.empty() ? "none" : out;
}

const char *feature_name(std::uint64_t bit)
{
	return onenode_feature_name(bit);
}

const char *placement_name(std::uint64_t bit)
{
	return bit == DRM_COMPUTE_PLACEMENT_VRAM ? "vram" :
	       bit == DRM_COMPUTE_PLACEMENT_SYSTEM ? "system" : nullptr;
}

const char *userq_cap_name(std::uint64_t bit)
{
	return bit == DRM_COMPUTE_USERQ_CAP_NEED_WAKEUP ? "need-wakeup" :
	       bit == DRM_COMPUTE_USERQ_CAP_WPTR_MEMORY ? "wptr-memory" : nullptr;
}

const char *format_name(std::uint64_t bit)
{
	return bit == 1ULL << DRM_COMPUTE_QUEUE_FORMAT_VCOMPUTE ? "vcompute" :
	       bit == 1ULL << DRM_COMPUTE_QUEUE_FORMAT_AMD_AQL ? "amd-aql" :
	       bit == 1ULL << DRM_COMPUTE_QUEUE_FORMAT_AMD_PM4 ? "amd-pm4" : nullptr;
}

/* The bit-set fields: how to name their bits, and the JSON key of the names. */
using namer = const char *(*)(std::uint64_t);
struct bit_set {
	std::string_view field, names_key;
	namer name_of;
};
constexpr bit_set bit_sets[] = {
	{ "features", "feature_names", feature_name },
	{ "placements", "placement_names", placement_name },
	{ "caps", "cap_names", userq_cap_name },
	{ "queue_formats", "format_names", format_name },
};

const bit_set *find_bit_set(std::string_view field)
{
	for (const bit_set &b : bit_sets)
		if (b.field == field)
			return &b;
	return nullptr;
}

/* One report: its name and its fields, as onenode_*_fields() lists them. */
struct report {
	std::string name;
	std::vector<onenode_field> fields;
};

std::string text_value(const onenode_field &f)
{
	std::string_view name = f.name;

	if (const bit_set *b = find_bit_set(name))
		return std::format("{:#x} ({})", f.value, bit_names(f.value, b->name_of));
	if (f.is_bytes)
		return std::format("{} ({})", f.value, human_bytes(f.value));
	if (name == "va_start" || name == "va_end")
		return std::format("{:#x}", f.value);
	return std::format("{}", f.value);
}

void print_text(const onenode_device &dev, const std::vector<report> &reports)
{
	std::string out = std::format("node:    {}\n"
				      "driver:  {} {}.{}.{} ({})\n"
				      "rdev:    {}:{}\n",
				      dev.path, dev.driver, dev.version_major,
				      dev.version_minor, dev.version_patchlevel, dev.desc,
				      major(dev.rdev), minor(dev.rdev));
	for (const report &r : reports) {
		out += r.name + ":\n";
		for (const onenode_field &f : r.fields)
			out += std::format("  {:<20}{}\n", f.name, text_value(f));
	}
	std::fputs(out.c_str(), stdout);
}

/* JSON list of the names of @v's bits. */
std::string json_names(std::uint64_t v, namer n)
{
	std::string out;

	for (int bit = 0; bit < 64; bit++) {
		if (!(v & (1ULL << bit)))
			continue;
		const char *name = n(1ULL << bit);
		out += std::format("{}{}", out.empty() ? "" : ", ",
				   json_string(name ? name : std::format("bit{}", bit)));
	}
	return "[" + out + "]";
}

void print_json(const onenode_device &dev, const std::vector<report> &reports)
{
	std::string out = std::format(
		"{{\n"
		"  \"node\": {},\n"
		"  \"driver\": {},\n"
		"  \"driver_desc\": {},\n"
		"  \"driver_version\": [{}, {}, {}]",
		json_string(dev.path), json_string(dev.driver), json_string(dev.desc),
		dev.version_major, dev.version_minor, dev.version_patchlevel);
	for (const report &r : reports) {
		std::string names;

		out += std::format(",\n  \"{}\": {{\n", r.name);
		for (const onenode_field &f : r.fields) {
			out += std::format("    \"{}\": {},\n", f.name, f.value);
			if (const bit_set *b = find_bit_set(f.name))
				names += std::format(",\n    \"{}\": {}", b->names_key,
						     json_names(f.value, b->name_of));
		}
		/* The names after the values: drop the last value's comma. */
		out.resize(out.size() - 2);
		out += names + "\n  }";
	}
	if (reports.size() < 2)
		out += ",\n  \"userq\": null";
	out += "\n}\n";
	std::fputs(out.c_str(), stdout);
}

/*
 * The DEVICE report and, when the device has user queues, the USERQ
 * report. Returns 0 or the failing query's error, with @what set.
 */
int query_reports(const onenode_device &dev, std::vector<report> &reports, std::string &what)
{
	drm_compute_query_device d;
	drm_compute_query_userq u;
	onenode_field f[ONENODE_DEVICE_NFIELDS + ONENODE_USERQ_NFIELDS];
	int ret, n;

	what = "DEVICE";
	ret = onenode_query_device(&dev, &d);
	if (ret)
		return ret;
	n = onenode_device_fields(&d, f, ONENODE_DEVICE_NFIELDS);
	reports.push_back({ "device", std::vector<onenode_field>(f, f + n) });
	if (!(d.features & DRM_COMPUTE_FEATURE_USERQ))
		return 0;
	what = "USERQ";
	ret = onenode_query_userq(&dev, &u);
	if (ret)
		return ret;
	n = onenode_userq_fields(&u, f, ONENODE_USERQ_NFIELDS);
	reports.push_back({ "userq", std::vector<onenode_field>(f, f + n) });
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	options opt;
	onenode_device dev;
	std::vector<report> reports;
	std::string what;
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

	ret = query_reports(dev, reports, what);
	if (ret) {
		std::fputs(std::format("onenode-caps: {} ({}): {} query failed: {}\n",
				       dev.path, dev.driver, what, onenode_strerror(ret)).c_str(),
			   stderr);
		onenode_close(&dev);
		return 1;
	}
	if (opt.json)
		print_json(dev, reports);
	else
		print_text(dev, reports);
	onenode_close(&dev);
	return std::ferror(stdout) ? 1 : 0;
}
