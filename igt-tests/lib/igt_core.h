/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * igt_core.h - a small, independent implementation of the core test API of
 * igt-gpu-tools (IGT), for building onenode's IGT tests where no IGT
 * development files exist. It follows the names, semantics, exit codes and
 * output lines of upstream's documented API; see README.md beside this file
 * for the subset and for what differs. Tests must only use what upstream
 * also provides, so that they build unchanged against a real IGT
 * (meson -Digt=external).
 */
#ifndef ONENODE_IGT_CORE_H
#define ONENODE_IGT_CORE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef IGT_LOG_DOMAIN
#define IGT_LOG_DOMAIN (NULL)
#endif

/* Exit statuses, as upstream and as meson/piglit read them. */
#define IGT_EXIT_SUCCESS	0
#define IGT_EXIT_SKIP		77
#define IGT_EXIT_INVALID	79
#define IGT_EXIT_FAILURE	98
#define IGT_EXIT_ABORT		112

/** IGT_TEST_DESCRIPTION - one-paragraph description printed by --describe. */
#define IGT_TEST_DESCRIPTION(str) const char *__igt_test_description = str

#define igt_tokencat2(x, y) x ## y
#define igt_tokencat(x, y) igt_tokencat2(x, y)
/** igt_unique - a name unique to the line it is expanded on. */
#define igt_unique(prefix) igt_tokencat(igt_tokencat(__igt_unique__, prefix), __LINE__)

extern sigjmp_buf igt_subtest_jmpbuf;
extern sigjmp_buf igt_dynamic_jmpbuf;

/* Option handling for igt_main_args(). */
struct option;
typedef int (*igt_opt_handler_t)(int opt, int opt_index, void *data);
#define IGT_OPT_HANDLER_SUCCESS 0
#define IGT_OPT_HANDLER_ERROR -2

int igt_subtest_init_parse_opts(int *argc, char **argv,
				const char *extra_short_opts,
				const struct option *extra_long_opts,
				const char *help_str,
				igt_opt_handler_t extra_opt_handler,
				void *handler_data);
#define igt_subtest_init(argc, argv) \
	igt_subtest_init_parse_opts(&(argc), (argv), NULL, NULL, NULL, NULL, NULL)

__attribute__((noreturn)) void igt_exit(void);

/* Internal entry points of the control-flow macros below. */
bool __igt_fixture(void);
void __igt_fixture_complete(void);
__attribute__((noreturn)) void __igt_fixture_end(void);
bool __igt_run_subtest(const char *name, const char *file, int line);
bool __igt_enter_dynamic_container(void);
bool __igt_run_dynamic_subtest(const char *name);
void __igt_subtest_group_save(int *save, int *desc);
void __igt_subtest_group_restore(int save, int desc);

/**
 * igt_main_args - main() of a test with subtests and extra options; the
 * arguments go to igt_subtest_init_parse_opts().
 */
#define igt_main_args(short_opts, long_opts, help_str, opt_handler, handler_data) \
	static void igt_unique(__real_main)(void); \
	int main(int argc, char **argv) \
	{ \
		igt_subtest_init_parse_opts(&argc, argv, short_opts, long_opts, \
					    help_str, opt_handler, handler_data); \
		igt_unique(__real_main)(); \
		igt_exit(); \
	} \
	static void igt_unique(__real_main)(void)

/** igt_main - main() of a test with subtests. */
#define igt_main igt_main_args(NULL, NULL, NULL, NULL, NULL)

/**
 * igt_fixture - setup/teardown code outside subtests. Not run when only
 * listing subtests, nor once a fixture of the enclosing group failed or
 * skipped. A skip or failure inside it leaves the block and marks every
 * following subtest of the group as SKIP or FAIL.
 */
#define igt_fixture \
	for (volatile int igt_unique(__tmpint) = 0; \
	     igt_unique(__tmpint) < 1 && __igt_fixture() && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_unique(__tmpint)++, __igt_fixture_complete())

/**
 * igt_subtest - a named subtest block; igt_skip(), igt_fail() and failed
 * assertions leave the block and report the subtest's result.
 */
#define igt_subtest(name) \
	for (; __igt_run_subtest((name), __FILE__, __LINE__) && \
	       sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())

#define __igt_subtest_f(tmp, format...) \
	for (char tmp[256]; snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_subtest(tmp, __FILE__, __LINE__) && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())
/** igt_subtest_f - igt_subtest() with a printf-formatted name. */
#define igt_subtest_f(f...) __igt_subtest_f(igt_unique(__tmpchar), f)

/**
 * igt_subtest_with_dynamic - a subtest made of igt_dynamic() blocks. It
 * fails if one of them failed and skips if none ran.
 */
#define igt_subtest_with_dynamic(name) \
	for (; __igt_run_subtest((name), __FILE__, __LINE__) && \
	       __igt_enter_dynamic_container() && \
	       sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())

#define __igt_subtest_with_dynamic_f(tmp, format...) \
	for (char tmp[256]; snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_subtest(tmp, __FILE__, __LINE__) && \
	     __igt_enter_dynamic_container() && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())
#define igt_subtest_with_dynamic_f(f...) \
	__igt_subtest_with_dynamic_f(igt_unique(__tmpchar), f)

/** igt_dynamic - a dynamic subtest, only inside igt_subtest_with_dynamic. */
#define igt_dynamic(name) \
	for (; __igt_run_dynamic_subtest((name)) && \
	       sigsetjmp(igt_dynamic_jmpbuf, 1) == 0; \
	     igt_success())

#define __igt_dynamic_f(tmp, format...) \
	for (char tmp[256]; snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_dynamic_subtest(tmp) && \
	     sigsetjmp(igt_dynamic_jmpbuf, 1) == 0; \
	     igt_success())
#define igt_dynamic_f(f...) __igt_dynamic_f(igt_unique(__tmpchar), f)

/**
 * igt_subtest_group - scope for fixtures: a failing or skipping fixture
 * inside only affects the subtests of this group.
 */
#define igt_subtest_group \
	for (int igt_unique(__tmpint) = 0, igt_unique(__save) = 0, \
	     igt_unique(__desc) = 0; \
	     igt_unique(__tmpint) < 1 && \
	     (__igt_subtest_group_save(&igt_unique(__save), \
				       &igt_unique(__desc)), true); \
	     igt_unique(__tmpint)++, \
	     __igt_subtest_group_restore(igt_unique(__save), igt_unique(__desc)))

const char *igt_subtest_name(void);
const char *igt_dynamic_subtest_name(void);
bool igt_only_list_subtests(void);
bool igt_can_fail(void);

/**
 * igt_describe - document the next subtest or subtest group (--describe).
 */
__attribute__((format(printf, 1, 2)))
void igt_describe_f(const char *fmt, ...);
#define igt_describe(dsc) igt_describe_f("%s", dsc)

/* Results. */
void igt_success(void);
__attribute__((noreturn)) void igt_fail(int exitcode);
__attribute__((noreturn, format(printf, 1, 2)))
void igt_skip(const char *f, ...);
__attribute__((noreturn, format(printf, 6, 7)))
void __igt_fail_assert(const char *domain, const char *file, int line,
		       const char *func, const char *assertion,
		       const char *f, ...);
__attribute__((noreturn, format(printf, 5, 6)))
void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *f, ...);
#define igt_skip_check(E, F...) \
	__igt_skip_check(__FILE__, __LINE__, __func__, E, F)

/* Logging. */
enum igt_log_level {
	IGT_LOG_DEBUG,
	IGT_LOG_INFO,
	IGT_LOG_WARN,
	IGT_LOG_CRITICAL,
	IGT_LOG_NONE,
};
__attribute__((format(printf, 3, 4)))
void igt_log(const char *domain, enum igt_log_level level, const char *format, ...);
__attribute__((format(printf, 3, 0)))
void igt_vlog(const char *domain, enum igt_log_level level, const char *format, va_list args);
#define igt_debug(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_DEBUG, f)
#define igt_info(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_INFO, f)
#define igt_warn(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_WARN, f)
#define igt_critical(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_CRITICAL, f)

/* Assertions: fail the current (dynamic) subtest or fixture. */
#define igt_assert(expr) \
	do { if (!(expr)) \
		__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, __func__, \
				  #expr, NULL); \
	} while (0)
#define igt_assert_f(expr, f...) \
	do { if (!(expr)) \
		__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, __func__, \
				  #expr, f); \
	} while (0)
#define igt_fail_on(expr) igt_assert(!(expr))
#define igt_fail_on_f(expr, f...) igt_assert_f(!(expr), f)

#define __igt_assert_cmp(type, fmt, n1, cmp, ncmp, n2) \
	do { \
		type __n1 = (n1), __n2 = (n2); \
		if (__n1 cmp __n2) ; else \
		__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, __func__, \
				  #n1 " " #cmp " " #n2, \
				  "error: " fmt " " #ncmp " " fmt "\n", __n1, __n2); \
	} while (0)
#define igt_assert_cmpint(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(int, "%d", n1, cmp, ncmp, n2)
#define igt_assert_cmpuint(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(uint32_t, "%#x", n1, cmp, ncmp, n2)
#define igt_assert_cmps64(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(long long, "%lld", n1, cmp, ncmp, n2)
#define igt_assert_cmpu64(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(unsigned long long, "%#llx", n1, cmp, ncmp, n2)

#define igt_assert_eq(n1, n2) igt_assert_cmpint(n1, ==, !=, n2)
#define igt_assert_neq(n1, n2) igt_assert_cmpint(n1, !=, ==, n2)
#define igt_assert_lt(n1, n2) igt_assert_cmpint(n1, <, >=, n2)
#define igt_assert_lte(n1, n2) igt_assert_cmpint(n1, <=, >, n2)
#define igt_assert_eq_u32(n1, n2) igt_assert_cmpuint(n1, ==, !=, n2)
#define igt_assert_neq_u32(n1, n2) igt_assert_cmpuint(n1, !=, ==, n2)
#define igt_assert_lt_u32(n1, n2) igt_assert_cmpuint(n1, <, >=, n2)
#define igt_assert_lte_u32(n1, n2) igt_assert_cmpuint(n1, <=, >, n2)
#define igt_assert_eq_s64(n1, n2) igt_assert_cmps64(n1, ==, !=, n2)
#define igt_assert_eq_u64(n1, n2) igt_assert_cmpu64(n1, ==, !=, n2)
#define igt_assert_neq_u64(n1, n2) igt_assert_cmpu64(n1, !=, ==, n2)
#define igt_assert_lt_u64(n1, n2) igt_assert_cmpu64(n1, <, >=, n2)
#define igt_assert_lte_u64(n1, n2) igt_assert_cmpu64(n1, <=, >, n2)

#define igt_assert_fd(fd) \
	igt_assert_f(fd >= 0, "file descriptor " #fd " failed\n")

/* Requirements: skip the current (dynamic) subtest or fixture. */
#define igt_require(expr) do { \
	if (!(expr)) igt_skip_check(#expr, NULL); \
	else igt_debug("Test requirement passed: %s\n", #expr); \
} while (0)
#define igt_require_f(expr, f...) do { \
	if (!(expr)) igt_skip_check(#expr, f); \
	else igt_debug("Test requirement passed: %s\n", #expr); \
} while (0)
#define igt_skip_on(expr) do { \
	if ((expr)) igt_skip_check("!(" #expr ")", NULL); \
	else igt_debug("Test requirement passed: !(%s)\n", #expr); \
} while (0)
#define igt_skip_on_f(expr, f...) do { \
	if ((expr)) igt_skip_check("!(" #expr ")", f); \
	else igt_debug("Test requirement passed: !(%s)\n", #expr); \
} while (0)
#define igt_require_fd(fd) \
	igt_require_f(fd >= 0, "file descriptor " #fd " failed\n")

/*
 * Processes: igt_fork() runs its block in @num_children child processes
 * (numbered by @child); igt_waitchildren() waits for them and fails the
 * subtest with the exit status of the first child that failed.
 */
bool __igt_fork(void);
#define igt_fork(child, num_children) \
	for (int child = 0; child < (num_children); child++) \
		for (; __igt_fork(); exit(0))
int __igt_waitchildren(void);
void igt_waitchildren(void);
void igt_kill_children(int signal);

#endif /* ONENODE_IGT_CORE_H */
