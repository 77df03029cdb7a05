// SPDX-License-Identifier: MIT
/*
 * Copyright 2026 The onenode authors
 *
 * The pump (onenode-criu-pump.h).
 */
#include <signal.h>
#include <string.h>

#include "onenode-criu-pump.h"

static void *worker(void *arg)
{
	struct onenode_pump *p = arg;
	int ret;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->fn && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->fn)
			break;
		pthread_mutex_unlock(&p->lock);
		/* The job runs unlocked: the owner only waits until it is done. */
		ret = p->fn(p->arg);

		pthread_mutex_lock(&p->lock);
		p->ret = ret;
		p->fn = NULL;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void onenode_pump_start(struct onenode_pump *p)
{
	sigset_t all, old;

	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	/* Signals stay criu's main thread's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->threaded = !pthread_create(&p->thread, NULL, worker, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void onenode_pump_submit(struct onenode_pump *p, int (*fn)(void *arg), void *arg)
{
	if (!p->threaded) {
		p->ret = fn(arg);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->arg = arg;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

int onenode_pump_wait(struct onenode_pump *p)
{
	int ret;

	pthread_mutex_lock(&p->lock);
	while (p->fn)
		pthread_cond_wait(&p->cond, &p->lock);
	ret = p->ret;
	p->ret = 0;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void onenode_pump_stop(struct onenode_pump *p)
{
	if (p->threaded) {
		onenode_pump_wait(p);
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		p->threaded = false;
	}
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
}
