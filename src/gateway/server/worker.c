/*
 * worker.c - an account's database workers and their bounded queue (see worker.h).
 *
 * The queue is a FIFO list of requests, each with its deadline (now + queue_timeout_ms). The
 * workers take the oldest; a timer thread answers 503 ServerBusy to each request whose deadline
 * passes before a worker takes it, so a request never waits longer than the timeout for a
 * worker, however long the work ahead of it takes.
 */
#include "worker.h"
#include "gateway.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct Job
{
	struct Job *next;
	Req		   *r;
	double		deadline_ms;	/* now_ms() clock */
} Job;

struct Workers
{
	pthread_mutex_t mu;
	pthread_cond_t work;		/* a job was queued, or stopping */
	pthread_cond_t timer;		/* the queue's head changed, or stopping */
	Job		   *head,
			   *tail;
	int			queued;
	int			idle;			/* workers waiting for a job */
	int			running;		/* jobs being run */
	int			queue_max;
	int			queue_timeout_ms;
	bool		stopping;
	WorkRun		run;
	WorkDone	done;
	const char *name;
	int			nthreads;
	pthread_t  *threads;
	pthread_t	timer_thread;
};

static void
abs_deadline(struct timespec *ts, double ms_from_now)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t) (ms_from_now / 1000);
	ts->tv_nsec += (long) ((ms_from_now - (double) (time_t) (ms_from_now / 1000) * 1000) * 1e6);
	if (ts->tv_nsec >= 1000000000L)
	{
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static Job *
pop(Workers *w)
{
	Job		   *j = w->head;

	if (j != NULL)
	{
		w->head = j->next;
		if (w->head == NULL)
			w->tail = NULL;
		w->queued--;
	}
	return j;
}

static void *
worker_main(void *arg)
{
	Workers    *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;)
	{
		Job		   *j;

		while (w->head == NULL && !w->stopping)
		{
			w->idle++;
			pthread_cond_wait(&w->work, &w->mu);
			w->idle--;
		}
		if ((j = pop(w)) == NULL)
			break;				/* stopping, and nothing left */
		w->running++;
		pthread_cond_signal(&w->timer);
		pthread_mutex_unlock(&w->mu);

		w->run(j->r);
		w->done(j->r);
		free(j);

		pthread_mutex_lock(&w->mu);
		w->running--;
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Answer the requests whose deadline passes before a worker takes them. */
static void *
timer_main(void *arg)
{
	Workers    *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->stopping)
	{
		struct timespec ts;

		if (w->head == NULL)
		{
			pthread_cond_wait(&w->timer, &w->mu);
			continue;
		}
		if (w->head->deadline_ms > now_ms())
		{
			abs_deadline(&ts, w->head->deadline_ms - now_ms());
			pthread_cond_timedwait(&w->timer, &w->mu, &ts);
			continue;
		}
		{
			Job		   *j = pop(w);

			pthread_mutex_unlock(&w->mu);
			resp_error(j->r, "ServerBusy", "No database worker of the account became free within %d ms.",
					   w->queue_timeout_ms);
			router_finish(j->r, false);
			w->done(j->r);
			free(j);
			pthread_mutex_lock(&w->mu);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

Workers *
workers_create(const char *name, int n, int queue_max, int queue_timeout_ms, WorkRun run, WorkDone done)
{
	Workers    *w = calloc(1, sizeof(Workers));
	pthread_condattr_t ca;

	if (w == NULL || (w->threads = calloc((size_t) n, sizeof(pthread_t))) == NULL)
	{
		free(w);
		return NULL;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->work, &ca);
	pthread_cond_init(&w->timer, &ca);
	pthread_condattr_destroy(&ca);
	w->queue_max = queue_max;
	w->queue_timeout_ms = queue_timeout_ms;
	w->run = run;
	w->done = done;
	w->name = name;
	for (int i = 0; i < n; i++)
	{
		if (pthread_create(&w->threads[i], NULL, worker_main, w) != 0)
			return NULL;
		w->nthreads++;
	}
	if (pthread_create(&w->timer_thread, NULL, timer_main, w) != 0)
		return NULL;
	return w;
}

bool
workers_submit(Workers *w, Req *r)
{
	Job		   *j = malloc(sizeof(Job));
	bool		ok;

	if (j == NULL)
		return false;
	j->next = NULL;
	j->r = r;
	j->deadline_ms = now_ms() + w->queue_timeout_ms;
	pthread_mutex_lock(&w->mu);
	/* an idle worker takes it at once; otherwise it waits, at most queue_max of them */
	ok = !w->stopping && w->queued < w->idle + w->queue_max;
	if (ok)
	{
		if (w->tail)
			w->tail->next = j;
		else
			w->head = j;
		w->tail = j;
		w->queued++;
		pthread_cond_signal(&w->work);
		pthread_cond_signal(&w->timer);
	}
	pthread_mutex_unlock(&w->mu);
	if (!ok)
		free(j);
	return ok;
}

int
workers_load(Workers *w)
{
	int			n;

	pthread_mutex_lock(&w->mu);
	n = w->queued + w->running;
	pthread_mutex_unlock(&w->mu);
	return n;
}

void
workers_stop(Workers *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	w->stopping = true;
	pthread_cond_broadcast(&w->work);
	pthread_cond_broadcast(&w->timer);
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; i < w->nthreads; i++)
		pthread_join(w->threads[i], NULL);
	pthread_join(w->timer_thread, NULL);
}
