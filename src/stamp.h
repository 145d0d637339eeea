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

/* What a write stamped: the row's new ETag and Timestamp. */
typedef struct WriteStamp
{
	text	   *etag;
	TimestampTz ts;
} WriteStamp;

/*
 * Apply the policy to a new row version of rel: values/nulls hold the five columns in layout
 * order (table_layout.h) and are changed in place; old_values/old_nulls hold the version it
 * replaces (an UPDATE) or are NULL (an INSERT).
 *   - A PartitionKey or RowKey inside properties moves to its column (they must agree); a NULL
 *     properties becomes {}.
 *   - A missing key, an invalid key, an entity over 1 MiB counting its keys, and an UPDATE that
 *     changes the keys are errors.
 *   - Timestamp: now, never earlier than the replaced version's; ETag: a new one. Values the
 *     client gave for either are ignored.
 * checked: the caller built properties from input already checked with these keys (keys valid,
 * size within the limit, no keys inside), so only the stamps remain to be set.
 */
extern void stamp_row(Relation rel, Datum *values, bool *nulls, const Datum *old_values,
					  const bool *old_nulls, bool checked);

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
