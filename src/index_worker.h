/*
 * index_worker.h - applying a table's indexing policy online, in a background worker of its own
 * (index_worker.c): CREATE INDEX CONCURRENTLY cannot run inside a transaction block or a
 * function, so set_indexing_policy records the policy and starts the worker, which builds and
 * swaps the entity index without blocking writes.
 */
#ifndef INDEX_WORKER_H
#define INDEX_WORKER_H

#include "postgres.h"

/*
 * Start the worker for a table; it first waits for this transaction to end (the caller holds a
 * lock that it needs) and does nothing if the transaction rolled back. Raises TSI02 when no
 * worker slot is free.
 */
extern void ts_index_worker_start(Oid relid);

#endif							/* INDEX_WORKER_H */
