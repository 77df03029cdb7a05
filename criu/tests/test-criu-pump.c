// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * Unit test of the pump (onenode-criu-pump.h): a job runs while its owner
 * goes on, its result comes back once, jobs keep their order, and stopping
 * waits for the job in flight.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "onenode-criu-pump.h"

#include "../../lib/tests/tap.h"

struct job {
	atomic_int go;		/* set by the owner after it submitted */
	atomic_int done;
	pthread_t ran_on;
	int ret;
	int *log, *n;		/* the order jobs ran in */
	int id;
};

static void nap(void)
{
	struct timespec ts = { 0, 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Waits up to 5 s for the owner's go: only a job on another thread gets it. */
static int wait_go(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < 5000 && !atomic_load(&j->go); i++)
		nap();
	j->ran_on = pthread_self();
	atomic_store(&j->done, 1);
	return atomic_load(&j->go) ? j->ret : -ETIMEDOUT;
}

static int record(void *arg)
{
	struct job *j = arg;

	nap();
	j->log[(*j->n)++] = j->id;
	atomic_store(&j->done, 1);
	return j->ret;
}

static void test_overlap(void)
{
	struct job j = { .ret = -EIO };
	struct onenode_pump p;

	onenode_pump_start(&p);
	CHECK(p.threaded, "the worker starts");
	onenode_pump_submit(&p, wait_go, &j);
	/* Still here while the job runs: it waits for this. */
	atomic_store(&j.go, 1);
	CHECK_EQ(onenode_pump_wait(&p), -EIO, "the job's result, after it ran beside the owner");
	CHECK(!pthread_equal(j.ran_on, pthread_self()), "on the worker, not the owner");
	CHECK_EQ(onenode_pump_wait(&p), 0, "a result comes back once; nothing in flight: 0");
	onenode_pump_stop(&p);
}

static void test_order_and_stop(void)
{
	int log[8], n = 0;
	struct job jobs[8];
	struct onenode_pump p;
	int bad = 0;

	onenode_pump_start(&p);
	for (int i = 0; i < 8; i++) {
		jobs[i] = (struct job){ .log = log, .n = &n, .id = i, .ret = i == 5 ? -EAGAIN : 0 };
		if (i)
			bad += onenode_pump_wait(&p) != (i - 1 == 5 ? -EAGAIN : 0);
		onenode_pump_submit(&p, record, &jobs[i]);
	}
	/* The eighth still in flight: stop waits for it. */
	onenode_pump_stop(&p);
	CHECK_EQ(bad, 0, "each wait returned its own job's result");
	CHECK(atomic_load(&jobs[7].done), "stop waited for the job in flight");
	CHECK_EQ(n, 8, "every job ran once");
	for (int i = 0; i < n; i++)
		bad += log[i] != i;
	CHECK_EQ(bad, 0, "in the order submitted");
}

int main(void)
{
	test_overlap();
	test_order_and_stop();
	return tap_done();
}
