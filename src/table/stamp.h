/*
 * stamp.h - the stamp policy: what every write does to a row before it is stored. The stamp
 * trigger applies it to SQL writes (stamp_trigger.c); the direct path applies it itself when the
 * trigger is the table's only one (fast_path.c). One function, so the two cannot drift apart.
 */
#ifndef TS_STAMP_H
#define TS_STAMP_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "nodes/nodes.h"
#include "utils/relcache.h"

/* What a write stamped: the row's new ETag and its Timestamp in ticks (etag_row_stamp's). */
typedef struct WriteStamp
{
	text	   *etag;
	int64		ticks;
} WriteStamp;

/*
 * What an insert's Timestamp depends on: the versions of its key still in the table (deleted, or
 * being written by a transaction in progress). known: learnt beforehand (stamp_probe_keys); else
 * stamp_row looks itself. found, latest: whether there is one and the latest Timestamp among them
 * (in ticks).
 */
typedef struct KeyHistory
{
	bool		known;
	bool		found;
	int64		latest;
} KeyHistory;

/*
 * Apply the policy to a new row version of rel: values/nulls hold the five columns in layout
 * order (table_layout.h) and are changed in place; old_values/old_nulls hold the version it
 * replaces (an UPDATE) or are NULL (an INSERT).
 *   - A PartitionKey or RowKey inside properties moves to its column (they must agree); a NULL
 *     properties becomes {}.
 *   - A missing key, an invalid key, an entity over 1 MiB counting its keys, and an UPDATE that
 *     changes the keys are errors.
 *   - Timestamp: now in 100 ns ticks, strictly later than the replaced version's and than any
 *     deleted version's of the key still in the table (one tick later when the clock has not
 *     moved past it), so every version of an entity has a Timestamp and an ETag of its own; the
 *     ETag is the service's form of that Timestamp (etag.h). Values the client gave for either
 *     are ignored.
 * checked: the caller built properties from input already checked with these keys (keys valid,
 * size within the limit, no keys inside), so only the stamps remain to be set.
 * history: an INSERT's key history from stamp_probe_keys, or NULL (stamp_row then looks itself).
 */
extern void stamp_row(Relation rel, Datum *values, bool *nulls, const Datum *old_values,
					  const bool *old_nulls, bool checked, const KeyHistory *history);

/*
 * The history of n keys of one partition that are about to be inserted, in one scan of the primary
 * key pk_index (open) instead of one lookup per row: rks sorted byte-wise and distinct, out[n]
 * filled. Waits for transactions still writing one of the keys, as stamp_row would. False (and
 * nothing known) when the keys' range holds too many other entities to be worth scanning.
 */
extern bool stamp_probe_keys(Relation rel, Relation pk_index, text *pk, text *const *rks, int n,
							 KeyHistory *out);

/*
 * The WriteStamp of a row just written, from its "timestamp" and etag columns (through
 * etag_row_stamp, so it is what every later read of the row shows); the ETag is a new text in the
 * current memory context.
 */
extern void stamp_written(TimestampTz ts, text *etag, WriteStamp *out);

/*
 * Is the table's only trigger tablestore.stamp, enabled and firing as it does for SQL (origin
 * sessions)? Then a writer that applies stamp_row itself may leave the trigger out. Any other
 * trigger, a disabled stamp trigger or a replica session: no, fire the triggers.
 */
extern bool stamp_trigger_only(Relation rel);

/*
 * Has the table a BEFORE ROW trigger for cmd (CMD_UPDATE or CMD_DELETE) other than
 * tablestore.stamp, that is, one that could cancel such a write by returning NULL?
 */
extern bool stamp_user_row_trigger(Oid relid, CmdType cmd);

#endif							/* TS_STAMP_H */
