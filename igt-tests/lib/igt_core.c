// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The core of the IGT-API shim: subtest control flow, results, exit codes,
 * logging, command line and child processes. Written from IGT's documented
 * behaviour (lib/igt_core.h of igt-gpu-tools), not from its code; see
 * README.md for the subset and the differences.
 *
 * Control flow: every block macro (igt_fixture, igt_subtest, igt_dynamic)
 * is a for loop whose condition sets a sigjmp_buf. Leaving a block early
 * (skip, failure, success at the end) prints the result line and
 * siglongjmp()s back into that condition, which then ends the loop.
 */

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "igt_core.h"

sigjmp_buf igt_subtest_jmpbuf;
sigjmp_buf igt_dynamic_jmpbuf;

/* Defined by IGT_TEST_DESCRIPTION() in the test, if it has one. */
extern const char *__igt_test_description __attribute__((weak));

#define NAME_MAX_LEN 256
#define DESC_MAX_LEN 4096
#define GROUP_DEPTH_MAX 32

static enum { CONT = 0, SKIP, FAIL } skip_subtests_henceforth;

static char subtest_buf[NAME_MAX_LEN], dynamic_buf[NAME_MAX_LEN];
static const char *in_subtest, *in_dynamic_subtest;
static bool in_fixture;
static struct timespec subtest_time, dynamic_time;
/* -1 outside a dynamic container, else how many dynamic subtests counted. */
static int dynamic_tests_executed = -1;
static bool dynamic_failed_one;
static bool succeeded_one, failed_one;
static int igt_exitcode = IGT_EXIT_SUCCESS;

static bool test_child;
static pid_t *test_children;
static int num_test_children, test_children_size;

static bool list_subtests, describe_subtests;
static char *run_single_subtest, *run_single_dynamic_subtest;
static bool run_single_subtest_found;
static enum igt_log_level igt_log_level = IGT_LOG_INFO;
static const char *command_str = "igt";

static char current_description[DESC_MAX_LEN];
static char *group_descriptions[GROUP_DEPTH_MAX];
static int num_group_descriptions;

__attribute__((noreturn, format(printf, 1, 2)))
static void internal_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "igt_core: misuse of the IGT API: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	abort();
}

static double elapsed_since(const struct timespec *then)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - then->tv_sec) + (now.tv_nsec - then->tv_nsec) * 1e-9;
}

/*
 * Glob match in the style of upstream's --run-subtest: a comma-separated
 * list of fnmatch() patterns, where a pattern starting with '!' excludes;
 * the last pattern that matches decides.
 */
static bool name_matches(const char *name, const char *patterns)
{
	char *list = strdup(patterns), *save = NULL, *p;
	bool match = false;

	if (!list)
		internal_error("out of memory\n");
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (p[0] == '!') {
			if (fnmatch(p + 1, name, 0) == 0)
				match = false;
		} else if (fnmatch(p, name, 0) == 0) {
			match = true;
		}
	}
	free(list);
	return match;
}

static bool valid_name(const char *name)
{
	if (!name[0])
		return false;
	for (const char *c = name; *c; c++)
		if (!(*c == '-' || *c == '_' || (*c >= '0' && *c <= '9') ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
			return false;
	return true;
}

/* ---- logging ---- */

void igt_vlog(const char *domain, enum igt_log_level level, const char *format,
	      va_list args)
{
	static const char *const level_str[] = {
		"DEBUG", "INFO", "WARNING", "CRITICAL", "NONE",
	};
	FILE *out = level >= IGT_LOG_WARN ? stderr : stdout;
	char msg[4096];
	int len = 0;

	if (level < igt_log_level || level >= IGT_LOG_NONE)
		return;
	if (igt_only_list_subtests() && level <= IGT_LOG_WARN)
		return;
	if (out == stderr)
		fflush(stdout);
	/* Like upstream: info is printed bare, other levels carry a prefix. */
	if (level != IGT_LOG_INFO)
		len = snprintf(msg, sizeof(msg), "(%s:%d) %s%s%s: ", command_str,
			       (int)getpid(), domain ? domain : "",
			       domain ? "-" : "", level_str[level]);
	if (len < 0 || (size_t)len >= sizeof(msg))
		len = 0;
	vsnprintf(msg + len, sizeof(msg) - len, format, args);
	/* One write per message, so that forked children do not interleave. */
	fputs(msg, out);
	fflush(out);
}

void igt_log(const char *domain, enum igt_log_level level, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	igt_vlog(domain, level, format, args);
	va_end(args);
}

/* ---- descriptions ---- */

void igt_describe_f(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(current_description, sizeof(current_description), fmt, args);
	va_end(args);
}

static void print_indented(const char *text)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		int len = end ? (int)(end - line) : (int)strlen(line);

		printf("  %.*s\n", len, line);
		line += len + (end ? 1 : 0);
	}
}

static void print_description(const char *name, const char *file, int line)
{
	bool documented = false;

	printf("SUB %s %s:%d:\n", name, file, line);
	for (int i = 0; i < num_group_descriptions; i++) {
		print_indented(group_descriptions[i]);
		printf("\n");
		documented = true;
	}
	if (current_description[0]) {
		print_indented(current_description);
		printf("\n");
		documented = true;
	}
	if (!documented)
		printf("  NO DOCUMENTATION!\n\n");
}

/* ---- groups and fixtures ---- */

void __igt_subtest_group_save(int *save, int *desc)
{
	if (current_description[0]) {
		if (num_group_descriptions == GROUP_DEPTH_MAX)
			internal_error("igt_subtest_group nested too deep\n");
		group_descriptions[num_group_descriptions] = strdup(current_description);
		if (!group_descriptions[num_group_descriptions])
			internal_error("out of memory\n");
		num_group_descriptions++;
		current_description[0] = '\0';
		*desc = true;
	}
	*save = skip_subtests_henceforth;
}

void __igt_subtest_group_restore(int save, int desc)
{
	if (desc)
		free(group_descriptions[--num_group_descriptions]);
	skip_subtests_henceforth = save;
}

bool __igt_fixture(void)
{
	if (in_fixture)
		internal_error("igt_fixture cannot be nested\n");
	if (in_subtest)
		internal_error("igt_fixture cannot be inside igt_subtest\n");
	if (igt_only_list_subtests() || skip_subtests_henceforth)
		return false;
	in_fixture = true;
	return true;
}

void __igt_fixture_complete(void)
{
	in_fixture = false;
}

void __igt_fixture_end(void)
{
	in_fixture = false;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

/* ---- subtests ---- */

bool igt_only_list_subtests(void)
{
	return list_subtests;
}

bool igt_can_fail(void)
{
	return in_fixture || in_subtest;
}

const char *igt_subtest_name(void)
{
	return in_subtest;
}

const char *igt_dynamic_subtest_name(void)
{
	return in_dynamic_subtest;
}

static void result_line(bool dynamic, const char *name, const char *result,
			double seconds)
{
	printf("%s %s: %s (%.3fs)\n", dynamic ? "Dynamic subtest" : "Subtest",
	       name, result, seconds);
	fflush(stdout);
}

bool __igt_run_subtest(const char *name, const char *file, int line)
{
	if (in_subtest || in_fixture)
		internal_error("igt_subtest %s inside a subtest or fixture\n", name);
	if (!valid_name(name)) {
		igt_critical("Invalid subtest name \"%s\".\n", name);
		exit(IGT_EXIT_INVALID);
	}

	if (run_single_subtest) {
		if (!name_matches(name, run_single_subtest)) {
			current_description[0] = '\0';
			return false;
		}
		run_single_subtest_found = true;
	}

	if (describe_subtests) {
		print_description(name, file, line);
		current_description[0] = '\0';
		return false;
	}
	if (list_subtests) {
		printf("%s\n", name);
		return false;
	}

	if (skip_subtests_henceforth) {
		result_line(false, name,
			    skip_subtests_henceforth == SKIP ? "SKIP" : "FAIL", 0.0);
		return false;
	}

	snprintf(subtest_buf, sizeof(subtest_buf), "%s", name);
	igt_info("Starting subtest: %s\n", subtest_buf);
	clock_gettime(CLOCK_MONOTONIC, &subtest_time);
	in_subtest = subtest_buf;
	return true;
}

bool __igt_enter_dynamic_container(void)
{
	dynamic_tests_executed = 0;
	dynamic_failed_one = false;
	return true;
}

bool __igt_run_dynamic_subtest(const char *name)
{
	if (!in_subtest || dynamic_tests_executed < 0)
		internal_error("igt_dynamic outside igt_subtest_with_dynamic\n");
	if (in_dynamic_subtest)
		internal_error("igt_dynamic cannot be nested\n");
	if (!valid_name(name)) {
		igt_critical("Invalid dynamic subtest name \"%s\".\n", name);
		exit(IGT_EXIT_INVALID);
	}
	if (run_single_dynamic_subtest &&
	    !name_matches(name, run_single_dynamic_subtest))
		return false;

	snprintf(dynamic_buf, sizeof(dynamic_buf), "%s", name);
	igt_info("Starting dynamic subtest: %s\n", dynamic_buf);
	dynamic_tests_executed++;
	clock_gettime(CLOCK_MONOTONIC, &dynamic_time);
	in_dynamic_subtest = dynamic_buf;
	return true;
}

__attribute__((noreturn))
static void exit_subtest(const char *result)
{
	bool dynamic = in_dynamic_subtest != NULL;

	result_line(dynamic, dynamic ? in_dynamic_subtest : in_subtest, result,
		    elapsed_since(dynamic ? &dynamic_time : &subtest_time));

	/* A subtest that bailed out may have left children behind. */
	igt_kill_children(SIGKILL);

	if (dynamic) {
		in_dynamic_subtest = NULL;
		siglongjmp(igt_dynamic_jmpbuf, 1);
	}
	dynamic_tests_executed = -1;
	in_subtest = NULL;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

void igt_success(void)
{
	if (in_subtest && !in_dynamic_subtest && dynamic_tests_executed >= 0) {
		/* Leaving a dynamic container: its result is its children's. */
		if (dynamic_failed_one)
			igt_fail(IGT_EXIT_FAILURE);
		if (dynamic_tests_executed == 0)
			igt_skip("No dynamic tests executed.\n");
	}
	if (!in_dynamic_subtest)
		succeeded_one = true;
	if (in_subtest)
		exit_subtest("SUCCESS");
}

void igt_fail(int exitcode)
{
	if (exitcode == IGT_EXIT_SUCCESS || exitcode == IGT_EXIT_SKIP)
		internal_error("igt_fail(%d): not a failure status\n", exitcode);

	if (in_dynamic_subtest) {
		dynamic_failed_one = true;
	} else {
		if (in_subtest && dynamic_tests_executed >= 0 && !dynamic_failed_one)
			igt_warn("failure in a dynamic container outside igt_dynamic "
				 "(upstream IGT aborts the test here)\n");
		if (!failed_one)
			igt_exitcode = exitcode;
		failed_one = true;
	}

	/* A child of igt_fork() reports through its exit status. */
	if (test_child) {
		fflush(NULL);
		exit(exitcode);
	}

	if (in_subtest)
		exit_subtest("FAIL");
	if (in_fixture) {
		skip_subtests_henceforth = FAIL;
		__igt_fixture_end();
	}
	internal_error("failure outside igt_fixture and igt_subtest\n");
}

void igt_skip(const char *f, ...)
{
	va_list args;

	if (test_child)
		internal_error("igt_skip in a child of igt_fork()\n");

	if (!igt_only_list_subtests()) {
		va_start(args, f);
		vprintf(f, args);
		va_end(args);
	}

	if (in_subtest) {
		/* A skipped dynamic subtest does not count for the container. */
		if (in_dynamic_subtest)
			dynamic_tests_executed--;
		exit_subtest("SKIP");
	}
	if (in_fixture) {
		skip_subtests_henceforth = SKIP;
		__igt_fixture_end();
	}
	internal_error("skip outside igt_fixture and igt_subtest\n");
}

void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *f, ...)
{
	int err = errno;
	char msg[1024] = "";
	char err_str[256] = "";
	va_list args;

	if (f) {
		va_start(args, f);
		vsnprintf(msg, sizeof(msg), f, args);
		va_end(args);
	}
	if (err)
		snprintf(err_str, sizeof(err_str), "Last errno: %i, %s\n", err,
			 strerror(err));
	igt_skip("Test requirement not met in function %s, file %s:%i:\n"
		 "Test requirement: %s\n%s%s",
		 func, file, line, check, msg, err_str);
}

void __igt_fail_assert(const char *domain, const char *file, int line,
		       const char *func, const char *assertion, const char *f, ...)
{
	int err = errno;
	va_list args;

	igt_log(domain, IGT_LOG_CRITICAL,
		"Test assertion failure function %s, file %s:%i:\n", func, file, line);
	igt_log(domain, IGT_LOG_CRITICAL, "Failed assertion: %s\n", assertion);
	if (err)
		igt_log(domain, IGT_LOG_CRITICAL, "Last errno: %i, %s\n", err,
			strerror(err));
	if (f) {
		va_start(args, f);
		igt_vlog(domain, IGT_LOG_CRITICAL, f, args);
		va_end(args);
	}
	igt_fail(IGT_EXIT_FAILURE);
}

/* ---- child processes ---- */

bool __igt_fork(void)
{
	pid_t pid;

	if (!in_subtest)
		internal_error("igt_fork outside a subtest\n");
	if (test_child)
		internal_error("igt_fork in a child of igt_fork()\n");

	if (num_test_children == test_children_size) {
		int size = test_children_size ? 2 * test_children_size : 4;
		pid_t *grown = realloc(test_children, size * sizeof(*grown));

		igt_assert(grown);
		test_children = grown;
		test_children_size = size;
	}

	fflush(NULL);
	pid = fork();
	igt_assert_f(pid >= 0, "fork failed\n");
	if (pid == 0) {
		test_child = true;
		num_test_children = 0;
		return true;
	}
	test_children[num_test_children++] = pid;
	return false;
}

void igt_kill_children(int signal)
{
	for (int c = 0; c < num_test_children; c++) {
		if (test_children[c] > 0) {
			kill(test_children[c], signal);
			while (waitpid(test_children[c], NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	num_test_children = 0;
}

int __igt_waitchildren(void)
{
	int err = 0, done = 0;

	while (done < num_test_children) {
		int status, c;
		pid_t pid = wait(&status);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			printf("wait(num_children:%d) failed with %m\n",
			       num_test_children - done);
			return IGT_EXIT_FAILURE;
		}
		for (c = 0; c < num_test_children; c++)
			if (test_children[c] == pid)
				break;
		if (c == num_test_children)
			continue;
		test_children[c] = -1;
		done++;

		if (err == 0 && status != 0) {
			if (WIFEXITED(status)) {
				printf("child %i failed with exit status %i\n", c,
				       WEXITSTATUS(status));
				err = WEXITSTATUS(status);
			} else if (WIFSIGNALED(status)) {
				printf("child %i died with signal %i, %s\n", c,
				       WTERMSIG(status), strsignal(WTERMSIG(status)));
				err = 128 + WTERMSIG(status);
			} else {
				err = 256;
			}
			/* One failure decides; do not wait for the rest. */
			for (int k = 0; k < num_test_children; k++)
				if (test_children[k] > 0)
					kill(test_children[k], SIGKILL);
		}
	}
	num_test_children = 0;
	return err;
}

void igt_waitchildren(void)
{
	int err = __igt_waitchildren();

	if (err)
		igt_fail(err == IGT_EXIT_SKIP ? IGT_EXIT_FAILURE : err);
}

/* ---- command line and exit ---- */

enum {
	OPT_LIST_SUBTESTS = 500,
	OPT_RUN_SUBTEST,
	OPT_RUN_DYNAMIC_SUBTEST,
	OPT_DESCRIBE,
	OPT_DEBUG,
	OPT_HELP = 'h',
};

static void print_usage(FILE *f, const char *help_str)
{
	fprintf(f, "Usage: %s [OPTIONS]\n"
		   "  --list-subtests\n"
		   "  --run-subtest <pattern>\n"
		   "  --dynamic-subtest <pattern>\n"
		   "  --describe[=pattern]\n"
		   "  --debug[=log-domain]\n"
		   "  --help|-h\n", command_str);
	if (help_str)
		fprintf(f, "%s\n", help_str);
}

int igt_subtest_init_parse_opts(int *argc, char **argv,
				const char *extra_short_opts,
				const struct option *extra_long_opts,
				const char *help_str,
				igt_opt_handler_t extra_opt_handler,
				void *handler_data)
{
	static const struct option std_opts[] = {
		{ "list-subtests", no_argument, NULL, OPT_LIST_SUBTESTS },
		{ "run-subtest", required_argument, NULL, OPT_RUN_SUBTEST },
		{ "dynamic-subtest", required_argument, NULL, OPT_RUN_DYNAMIC_SUBTEST },
		{ "describe", optional_argument, NULL, OPT_DESCRIBE },
		{ "debug", optional_argument, NULL, OPT_DEBUG },
		{ "help", no_argument, NULL, OPT_HELP },
	};
	const size_t n_std = sizeof(std_opts) / sizeof(std_opts[0]);
	size_t n_extra = 0;
	struct option *opts;
	char short_opts[128];
	const char *env;
	int c, index;

	command_str = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	while (extra_long_opts && extra_long_opts[n_extra].name)
		n_extra++;
	opts = calloc(n_extra + n_std + 1, sizeof(*opts));
	if (!opts)
		internal_error("out of memory\n");
	if (n_extra)
		memcpy(opts, extra_long_opts, n_extra * sizeof(*opts));
	memcpy(opts + n_extra, std_opts, sizeof(std_opts));
	snprintf(short_opts, sizeof(short_opts), "%sh",
		 extra_short_opts ? extra_short_opts : "");

	env = getenv("IGT_LOG_LEVEL");
	if (env && !strcmp(env, "debug"))
		igt_log_level = IGT_LOG_DEBUG;

	while ((c = getopt_long(*argc, argv, short_opts, opts, &index)) != -1) {
		switch (c) {
		case OPT_LIST_SUBTESTS:
			if (!run_single_subtest)
				list_subtests = true;
			break;
		case OPT_RUN_SUBTEST:
			if (!list_subtests)
				run_single_subtest = strdup(optarg);
			break;
		case OPT_RUN_DYNAMIC_SUBTEST:
			if (!list_subtests)
				run_single_dynamic_subtest = strdup(optarg);
			break;
		case OPT_DESCRIBE:
			if (optarg)
				run_single_subtest = strdup(optarg);
			list_subtests = true;
			describe_subtests = true;
			if (&__igt_test_description && __igt_test_description)
				printf("%s\n\n", __igt_test_description);
			break;
		case OPT_DEBUG:
			igt_log_level = IGT_LOG_DEBUG;
			break;
		case OPT_HELP:
			print_usage(stdout, help_str);
			free(opts);
			exit(IGT_EXIT_SUCCESS);
		case '?':
			print_usage(stderr, help_str);
			free(opts);
			exit(IGT_EXIT_INVALID);
		default:
			if (!extra_opt_handler ||
			    extra_opt_handler(c, index, handler_data) != IGT_OPT_HANDLER_SUCCESS) {
				print_usage(stderr, help_str);
				free(opts);
				exit(IGT_EXIT_INVALID);
			}
		}
	}
	free(opts);

	/* Like upstream: say what ran where, except when only listing. */
	if (!igt_only_list_subtests()) {
		struct utsname uts;

		if (uname(&uts) == 0)
			printf("IGT-Version: onenode-shim (%s) (%s: %s %s)\n",
			       uts.machine, uts.sysname, uts.release, uts.machine);
		fflush(stdout);
	}
	return optind;
}

void igt_exit(void)
{
	if (run_single_subtest && !run_single_subtest_found) {
		igt_critical("Unknown subtest: %s\n", run_single_subtest);
		exit(IGT_EXIT_INVALID);
	}
	if (igt_only_list_subtests())
		exit(IGT_EXIT_SUCCESS);

	if (!failed_one)
		igt_exitcode = succeeded_one ? IGT_EXIT_SUCCESS : IGT_EXIT_SKIP;

	igt_kill_children(SIGKILL);
	free(run_single_subtest);
	free(run_single_dynamic_subtest);
	free(test_children);
	igt_debug("Exiting with status code %d\n", igt_exitcode);
	fflush(NULL);
	exit(igt_exitcode);
}
