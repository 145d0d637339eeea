/*
 * fast_path.h - direct single-entity reads and writes, without planning or executor start-up.
 *
 * A prepared SQL statement run through SPI costs a second executor start-up per call, about as
 * much as the operation itself. For the common case the operations here go straight to the
 * primary-key index and the table through the same executor routines that logical replication's
 * apply worker uses: row triggers (the stamp trigger included), constraints and index maintenance
 * all run as in SQL. Whenever that cannot be shown to keep SQL's semantics - row-level security,
 * statement triggers or rules, another isolation level than READ COMMITTED for writes, a read-only
 * or parallel context, missing table-level privileges, a table whose columns were altered, or
 * tablestore.fast_path = off - a function returns FAST_NOT_USED and the caller runs its SQL
 * statement instead, which then also reports any permission error.
 */
#ifndef FAST_PATH_H
#define FAST_PATH_H

#include "postgres.h"

#include "entity.h"
#include "stamp.h"
#include "ts_table.h"
#include "utils/acl.h"

typedef enum FastResult
{
	FAST_NOT_USED,				/* the direct path does not apply: run the SQL statement */
	FAST_OK,
	FAST_NOT_FOUND,
	FAST_CONDITION_FAILED,		/* the entity exists but its ETag is not the If-Match value */
	FAST_CANCELLED				/* a BEFORE ROW trigger of the user's returned NULL: nothing written */
} FastResult;

extern bool ts_fast_path_enabled;	/* tablestore.fast_path */

extern void ts_fast_path_init(void);

/* values/nulls receive the five columns, copied into the current memory context. */
extern FastResult fast_get(const TsTable *t, text *pk, text *rk, Datum *values, bool *nulls);

extern FastResult fast_insert(const TsTable *t, text *pk, text *rk, Entity *props, WriteStamp *out);

/* if_match NULL means "*"; merge combines the stored properties with props (stored || props). */
extern FastResult fast_update(const TsTable *t, text *pk, text *rk, Entity *props, bool merge,
							  text *if_match, WriteStamp *out);

extern FastResult fast_delete(const TsTable *t, text *pk, text *rk, text *if_match);

/*
 * A batch's writes on the direct path: one executor state for all of them. fast_batch_begin
 * returns NULL when the direct path does not apply to this table and these operations (needed:
 * the privileges the batch's operation kinds need). Rows must already be locked where they exist.
 */
typedef struct FastBatch FastBatch;

extern FastBatch *fast_batch_begin(const TsTable *t, AclMode needed);
/* false when a trigger of the user's cancelled the insert */
extern bool fast_batch_insert(FastBatch *b, text *pk, text *rk, Entity *props, const KeyHistory *history,
							  WriteStamp *out);

/* Whether the table's only trigger is the stamp trigger (the batch stamps its rows itself). */
extern bool fast_batch_self_stamps(FastBatch *b);
/*
 * Before the inserts of an insert-only batch: the history of their keys (stamp_probe_keys) in one
 * scan; false when it was not learnt (each insert then looks itself). rks: sorted, distinct.
 */
extern bool fast_batch_probe_inserts(FastBatch *b, text *pk, text *const *rks, int n, KeyHistory *out);
extern FastResult fast_batch_update(FastBatch *b, text *pk, text *rk, Entity *props, bool merge, WriteStamp *out);
extern FastResult fast_batch_delete(FastBatch *b, text *pk, text *rk);
extern void fast_batch_end(FastBatch *b);

/*
 * The rows of one partition whose RowKey lies in a range (a bound NULL when open), in key order
 * from the primary key, each passed to fn (values valid only during the call); fn returns false
 * to stop. Returns FAST_OK, or FAST_NOT_USED when the caller must run its SQL instead.
 */
typedef bool (*FastRowFn) (void *arg, Datum *values, bool *nulls);

extern FastResult fast_scan_range(const TsTable *t, text *pk, text *lo, bool lo_incl,
								  text *hi, bool hi_incl, FastRowFn fn, void *arg);

#endif							/* FAST_PATH_H */
