/*
 * entity_sql.h - the SQL statements of the single-entity operations and of batches, one per
 * (table, kind), prepared through the plan cache (plan_cache.h). PostgreSQL's plan cache
 * revalidates them when the table changes. Every name in the statements is schema-qualified
 * (operators included), so no search_path can redirect them.
 */
#ifndef ENTITY_SQL_H
#define ENTITY_SQL_H

#include "ts_table.h"

#include "executor/spi.h"

typedef enum TsPlanKind
{
	/* the writes return (etag, "timestamp") of the row written */
	PLAN_INSERT,				/* ($1 pk, $2 rk, $3 props); unique_violation when it exists */
	PLAN_UPDATE_ANY,			/* ($1, $2, $3) -> etag */
	PLAN_UPDATE_IF,				/* ($1, $2, $3, $4 etag) -> etag */
	PLAN_MERGE_ANY,
	PLAN_MERGE_IF,
	PLAN_UPSERT_REPLACE,		/* ($1, $2, $3) -> etag */
	PLAN_UPSERT_MERGE,
	PLAN_DELETE_ANY,			/* ($1, $2) -> etag */
	PLAN_DELETE_IF,				/* ($1, $2, $3 etag) -> etag */
	PLAN_GET,					/* ($1, $2) -> the row */
	PLAN_EXISTS,				/* ($1, $2) -> 1 */
	PLAN_LOCK_KEYS,				/* ($1 pk, $2 text[] row keys) -> (row_key, etag) locked, in key order */
	PLAN__COUNT
} TsPlanKind;

/* The prepared statement for this table and kind; call between ts_spi_begin and ts_spi_end. */
extern SPIPlanPtr ts_plan_get(const TsTable *t, TsPlanKind kind);

#endif							/* ENTITY_SQL_H */
