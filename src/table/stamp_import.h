/*
 * stamp_import.h - Timestamps kept by an import (stamp_import.c): for the rest of a transaction in
 * which the table's owner called tablestore.import_timestamps(tbl), a row inserted into tbl with
 * an ETag in its etag column keeps the Timestamp that ETag carries (the source's), so every ETag the
 * source issued still matches (tablestore-copy --keep-timestamps). The stamp policy (stamp.c)
 * asks here before it takes the clock; nothing else changes a row's stamp.
 */
#ifndef TS_STAMP_IMPORT_H
#define TS_STAMP_IMPORT_H

#include "postgres.h"

#include "utils/relcache.h"

/*
 * Does this insert keep an imported Timestamp? True with *ticks set when the transaction imports
 * into rel (or the table rel is a partition of), the current user owns that table, and the row's
 * etag column is set: it must then be an ETag of the service's form (else InvalidInput, TSB15).
 */
extern bool stamp_import_kept(Relation rel, Datum etag, bool etag_null, int64 *ticks);

#endif							/* TS_STAMP_IMPORT_H */
