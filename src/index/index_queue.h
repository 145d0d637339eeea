/*
 * index_queue.h - the durable queue of index builds (index_queue.c): a row of
 * tablestore_internal.index_queue per table whose indexing policy is not applied yet, written by
 * set_indexing_policy in the caller's transaction and worked off by the index worker
 * (index_worker.c), which counts its attempts, keeps the last error and removes the row once the
 * policy is applied. tablestore.index_builds shows it.
 */
#ifndef INDEX_QUEUE_H
#define INDEX_QUEUE_H

#include "postgres.h"

/* After this many failed attempts a change is left failed until the next change of the policy. */
#define TS_INDEX_MAX_ATTEMPTS 8

/* The longest wait between two attempts, in seconds (the wait doubles from 1 s up to it). */
#define TS_INDEX_MAX_BACKOFF_S 60

/* Has the installed extension the queue (0.4.0 and later)? */
extern bool ts_index_queue_installed(void);

/*
 * Ask for the table's policy to be applied: its row created, or its request renewed (attempts,
 * error and failure forgotten). In the caller's transaction, as the registry's owner. In SPI.
 */
extern void ts_index_queue_request(const char *key);

/*
 * Is work queued for the table and not failed? When it has no row and heal is set (and the
 * transaction may write), one is made: a change never stays unapplied for want of its row. In SPI.
 */
extern bool ts_index_queue_pending(const char *key, bool heal);

/* Is any work of the database queued and not failed? In SPI. */
extern bool ts_index_queue_any(void);

/* One row the worker may take now. */
typedef struct TsIndexWork
{
	char	   *key;
	int64		request;
	int			attempts;
	int			wait_ms;		/* until its retry time (0: due) */
} TsIndexWork;

/*
 * The rows that may run now (not failed, their retry time reached), oldest first, locked FOR
 * UPDATE (SKIP LOCKED: a row a caller is changing is left for later), in cxt. In SPI.
 */
extern int	ts_index_queue_runnable(MemoryContext cxt, TsIndexWork **out);

/* Count an attempt of the row (its retry time set as if it failed), by this worker. In SPI. */
extern void ts_index_queue_attempt(const TsIndexWork *w);

/* Forget a row whose table is gone. In SPI. */
extern void ts_index_queue_forget(const char *key);

/*
 * The attempt's request is applied: remove the row, unless a newer request came meanwhile (or a
 * caller is writing one now). In SPI.
 */
extern void ts_index_queue_settle(const TsIndexWork *w);

/*
 * The attempt failed: keep its error (bounded) and, past TS_INDEX_MAX_ATTEMPTS, mark the row
 * failed; nothing when a newer request came meanwhile. In SPI.
 */
extern void ts_index_queue_fail(const TsIndexWork *w, const char *error);

/* Every row not failed (whatever its retry time; not locked), in cxt. In SPI. */
extern int	ts_index_queue_waiting(MemoryContext cxt, TsIndexWork **out);

#endif							/* INDEX_QUEUE_H */
