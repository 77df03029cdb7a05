// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * An IGT program with known outcomes, run by igt-tests/harness/check_shim:
 * passing, failing, skipping, dynamic, grouped and forking subtests, and
 * fixtures that skip or fail (selected with --fixture-skip, --fixture-fail
 * and --group-fail, which also exercise igt_main_args).
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include <drm.h>

#include "igt_core.h"
#include "drmtest.h"
#include "ioctl_wrappers.h"

IGT_TEST_DESCRIPTION("Self-test of the IGT-API shim.");

static int fixture_mode;	/* 0 normal, 's' skip, 'f' fail */
static bool group_fail;
static int devnull = -1;

static int opt_handler(int opt, int opt_index, void *data)
{
	(void)opt_index;
	(void)data;
	switch (opt) {
	case 's':
	case 'f':
		fixture_mode = opt;
		return IGT_OPT_HANDLER_SUCCESS;
	case 'g':
		group_fail = true;
		return IGT_OPT_HANDLER_SUCCESS;
	default:
		return IGT_OPT_HANDLER_ERROR;
	}
}

static const struct option long_opts[] = {
	{ "fixture-skip", no_argument, NULL, 's' },
	{ "fixture-fail", no_argument, NULL, 'f' },
	{ "group-fail", no_argument, NULL, 'g' },
	{ NULL, 0, NULL, 0 },
};

igt_main_args("", long_opts, "  --fixture-skip  --fixture-fail  --group-fail", opt_handler, NULL)
{
	igt_fixture {
		printf("fixture: top\n");
		igt_require(fixture_mode != 's');
		igt_assert_f(fixture_mode != 'f', "fixture asked to fail\n");
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		igt_assert_fd(devnull);
	}

	igt_describe("always passes");
	igt_subtest("pass") {
		igt_assert(1);
		igt_assert_eq(2, 2);
		igt_assert_neq(1, 2);
		igt_assert_lt(1, 2);
		igt_assert_lte(2, 2);
		igt_assert_eq_u32(7u, 7u);
		igt_assert_eq_u64(1ull << 40, 1ull << 40);
		igt_info("info line\n");
		igt_debug("debug line\n");
	}

	igt_subtest("fail-assert")
		igt_assert_f(0, "expected failure %d\n", 42);

	igt_subtest("fail-assert-eq")
		igt_assert_eq(1, 2);

	igt_subtest("fail-explicit")
		igt_fail(IGT_EXIT_FAILURE);

	igt_subtest("skip-require")
		igt_require_f(0, "expected skip\n");

	igt_subtest("skip-on") {
		igt_skip_on(1);
		igt_assert(!"not reached");
	}

	igt_subtest("ioctl-wrappers") {
		struct drm_version v;

		memset(&v, 0, sizeof(v));
		/* /dev/null is no DRM device: the ioctl fails with ENOTTY. */
		do_ioctl_err(devnull, DRM_IOCTL_VERSION, &v, ENOTTY);
		igt_assert_eq(errno, 0);
	}

	igt_subtest("ioctl-wrappers-fail") {
		struct drm_version v;

		memset(&v, 0, sizeof(v));
		do_ioctl(devnull, DRM_IOCTL_VERSION, &v);
	}

	for (int i = 0; i < 2; i++)
		igt_subtest_f("formatted-%d", i)
			igt_assert(i < 2);

	igt_subtest_with_dynamic("dynamic-mixed") {
		igt_dynamic("dyn-pass")
			igt_assert(1);
		igt_dynamic("dyn-fail")
			igt_assert(0);
		igt_dynamic("dyn-skip")
			igt_skip("dynamic skip\n");
		for (int i = 0; i < 2; i++)
			igt_dynamic_f("dyn-f%d", i)
				igt_assert(1);
	}

	igt_subtest_with_dynamic("dynamic-pass") {
		igt_dynamic("only")
			igt_assert(1);
	}

	igt_subtest_with_dynamic("dynamic-none") {
		igt_dynamic("skipped")
			igt_require(0);
	}

	igt_subtest("fork-pass") {
		igt_fork(child, 3)
			igt_assert(child < 3);
		igt_waitchildren();
	}

	igt_subtest("fork-fail") {
		igt_fork(child, 3)
			igt_assert_f(child != 1, "child %d fails\n", child);
		igt_waitchildren();
	}

	igt_describe("a group whose fixture skips");
	igt_subtest_group {
		igt_fixture
			igt_require_f(0, "group requirement\n");

		igt_subtest("group-skipped")
			igt_assert(!"not reached");
	}

	igt_subtest_group {
		/*
		 * Fixtures run even when --run-subtest selects none of their
		 * group's subtests (as upstream), so this one only fails on
		 * request, to keep the exit status of filtered runs meaningful.
		 */
		igt_fixture
			igt_assert_f(!group_fail, "group fixture fails\n");

		igt_subtest("group-member")
			igt_assert(!group_fail);
	}

	igt_subtest("after-groups")
		igt_assert(1);

	igt_fixture {
		printf("fixture: bottom\n");
		close(devnull);
	}
}
