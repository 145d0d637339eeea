/*
 * index_worker.h - applying tables' indexing policies online, in background workers
 * (index_worker.c): CREATE INDEX CONCURRENTLY cannot run inside a transaction block or a
 * function, so set_indexing_policy records the policy, queues the table (index_queue.h) and
 * launches a worker, which builds and swaps the entity index without blocking writes.
 */
#ifndef INDEX_WORKER_H
#define INDEX_WORKER_H

#include "postgres.h"

/*
 * Define tablestore.max_index_builds, max_index_builds_total and index_lock_timeout (from
 * ts_indexing_policy_init).
 */
extern void ts_index_worker_init(void);

/*
 * This transaction changes a policy: no worker of the database finishes before it ends (so the
 * change is never left without one). Call before queueing the change.
 */
extern void ts_index_worker_note_change(void);

/*
 * Launch a worker for the database's queue if one of its slots is free (tablestore.max_index_builds,
 * at most half of the server's tablestore.max_index_builds_total, at least one) and one of the
 * server's (when only_if_idle, only if none runs: the relaunch of work a dead worker left). The worker takes
 * its slot when this transaction ends, so it sees the change this transaction queued. False when
 * none was launched (every slot taken, or no background worker slot free): the work stays
 * queued, and the running workers, or the next launch, take it.
 */
extern bool ts_index_worker_launch(bool only_if_idle);

/* Does a worker of this database run (or did this transaction launch one)? */
extern bool ts_index_worker_running(void);

/*
 * A tablestore call on the table relid: when its caller owns it, at most every 10 s per
 * session, queued index work of the database that no worker does gets one (after a restart, a
 * worker that died, no slot free). Cheap between two looks: a time compared.
 */
extern void ts_index_relaunch_check(Oid relid);

/*
 * Cancel the statement of the worker applying the policy of the relation, if one does (the
 * attempt fails and is retried later): before a drop of the table, which would otherwise wait for
 * the build. In SPI.
 */
extern void ts_index_worker_cancel_build(Oid relid);

#endif							/* INDEX_WORKER_H */
