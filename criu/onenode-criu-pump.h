/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * The pump: one worker thread that runs one job at a time while its owner
 * does the other half of a double-buffered copy. The dump reads a buffer's
 * next piece from the kernel (and checksums it) on the worker while the
 * owner writes the last piece to the image; the restore writes a piece into
 * the buffer on the worker while the owner reads and checks the next one.
 * With two CPUs the two halves run at once; with one, or when the thread
 * cannot be made, jobs run in onenode_pump_submit() itself and the result
 * is the same.
 *
 * The owner submits a job only after onenode_pump_wait() has returned the
 * previous one's result: one job in flight, so no queue and no lost error.
 * The worker touches nothing but what its job's argument names; the owner
 * leaves that alone until it has waited.
 */
#ifndef ONENODE_CRIU_PUMP_H
#define ONENODE_CRIU_PUMP_H

#include <pthread.h>
#include <stdbool.h>

/**
 * struct onenode_pump - a worker and its one job.
 * @lock: guards every field below it.
 * @cond: signalled when a job is submitted, done, or the pump stops.
 * @fn: the job in flight (with @arg); NULL when none.
 * @ret: the result of the last job done, until the owner waits for it.
 * @stop: the worker is to exit.
 * @threaded: the worker runs; false: jobs run in the owner.
 */
struct onenode_pump {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int (*fn)(void *arg);
	void *arg;
	int ret;
	bool stop;
	bool threaded;
};

/** onenode_pump_start() - start the worker (or run jobs in the owner if it cannot). */
void onenode_pump_start(struct onenode_pump *p);
/** onenode_pump_submit() - run @fn(@arg) on the worker; nothing may be in flight. */
void onenode_pump_submit(struct onenode_pump *p, int (*fn)(void *arg), void *arg);
/**
 * onenode_pump_wait() - wait until the job in flight is done.
 * Return: its result, 0 when none was in flight.
 */
int onenode_pump_wait(struct onenode_pump *p);
/** onenode_pump_stop() - wait for the job in flight, then end the worker. */
void onenode_pump_stop(struct onenode_pump *p);

#endif /* ONENODE_CRIU_PUMP_H */
