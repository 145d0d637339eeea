/*
 * worker.h - each account's database work, off the HTTP threads.
 *
 * The HTTP threads (listener.c) never wait on the database: a request that needs it is handed to
 * its account's workers and its connection suspended; a worker runs the operation (blocking libpq
 * calls on the account's own connections, pool.c) and hands the request back (done), which
 * resumes the connection. Each account has pool_size workers - as many as its connections, so a
 * worker never waits for one - and a queue of at most queue_max requests, each waiting at most
 * queue_timeout_ms; past either the request is answered 503 ServerBusy.
 *
 * The fairness rule: accounts share nothing on the way to the database. One account that keeps
 * all its workers busy fills only its own queue; another account's requests go to that
 * account's workers, and a request that needs no database (a refusal, a CORS answer from the
 * cache, an error) is answered by the HTTP thread at once. Within an account, first come first
 * served.
 */
#ifndef GW_WORKER_H
#define GW_WORKER_H

#include <stdbool.h>

struct Req;
typedef struct Workers Workers;

/* What a worker does with a request (the listener's: its admission, router_run, router_finish). */
typedef void (*WorkRun) (struct Req *r);

/* Called by a worker (or the queue's timer) once the request has its answer. */
typedef void (*WorkDone) (struct Req *r);

/* n threads for the account named name (for the log); NULL when they cannot be started. */
extern Workers *workers_create(const char *name, int n, int queue_max, int queue_timeout_ms, WorkRun run,
							   WorkDone done);

/* Queue r for run; false (r untouched) when the queue is full or the workers stop. */
extern bool workers_submit(Workers *w, struct Req *r);

/* Requests queued or running now (for tests and the log). */
extern int	workers_load(Workers *w);

/* Take no more requests, run what is queued, and join the threads. */
extern void workers_stop(Workers *w);

#endif
