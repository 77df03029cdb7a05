/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * A few TAP helpers for libonenode's tests: one "ok"/"not ok" line per
 * check, the plan at the end, exit status 1 when any check failed.
 */
#ifndef ONENODE_TAP_H
#define ONENODE_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

#define CHECK(cond, ...) do {						\
	int ok_ = !!(cond);						\
	printf("%s %d - ", ok_ ? "ok" : "not ok", ++tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!ok_) {							\
		tap_failed++;						\
		printf("#   failed: %s (%s:%d)\n", #cond, __FILE__,	\
		       __LINE__);					\
	}								\
	fflush(stdout);							\
} while (0)

/* An int compared with its expected value, both shown on failure. */
#define CHECK_EQ(got, want, ...) do {					\
	long long g_ = (got), w_ = (want);				\
	CHECK(g_ == w_, __VA_ARGS__);					\
	if (g_ != w_)							\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

#define CHECK_STR(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = g_ && w_ ? !strcmp(g_, w_) : g_ == w_;		\
	CHECK(same_, __VA_ARGS__);					\
	if (!same_)							\
		printf("#   got \"%s\", want \"%s\"\n",			\
		       g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* ONENODE_TAP_H */
