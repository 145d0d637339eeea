/*
 * stamp.h - the Timestamp and ETag of a write, shared by the stamp trigger and the direct path.
 */
#ifndef TS_STAMP_H
#define TS_STAMP_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "utils/relcache.h"

/* The Timestamp of a write: now, but never earlier than the row's previous one (prev, if any). */
extern TimestampTz stamp_time(const TimestampTz *prev);

/*
 * Is the table's only trigger tablestore.stamp, enabled and firing as it does for SQL (origin
 * sessions)? Then a writer that sets Timestamp and ETag itself and has checked the entity as the
 * trigger would may leave the trigger out. Any other trigger, a disabled stamp trigger or a
 * replica session: no, fire the triggers.
 */
extern bool stamp_trigger_only(Relation rel);

#endif							/* TS_STAMP_H */
