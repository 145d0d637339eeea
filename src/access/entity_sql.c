/*
 * entity_sql.c - the statements of the single-entity operations and batches (entity_sql.h).
 */
#include "entity_sql.h"

#include "catalog/pg_type.h"
#include "plan_cache.h"
#include "ts_support.h"

#define PK_RK_IS \
	"t.partition_key OPERATOR(pg_catalog.=) $1 AND t.row_key OPERATOR(pg_catalog.=) $2"

typedef struct PlanSpec
{
	const char *sql;			/* %s is the qualified table name */
	int			nargs;
	char		argkinds[4];	/* t = text, e = tablestore.entity, a = text[] */
} PlanSpec;

static const PlanSpec plan_specs[PLAN__COUNT] = {
	[PLAN_INSERT] = {"INSERT INTO %s AS t (partition_key, row_key, properties) VALUES ($1, $2, $3) "
	"RETURNING t.etag, t.\"timestamp\"", 3, "tte"},
	[PLAN_UPDATE_ANY] = {"UPDATE %s AS t SET properties = $3 WHERE " PK_RK_IS " RETURNING t.etag, t.\"timestamp\"", 3, "tte"},
	[PLAN_UPDATE_IF] = {"UPDATE %s AS t SET properties = $3 WHERE " PK_RK_IS
	" AND tablestore.etag_matches(t.etag, $4) RETURNING t.etag, t.\"timestamp\"", 4, "ttet"},
	[PLAN_MERGE_ANY] = {"UPDATE %s AS t SET properties = t.properties OPERATOR(tablestore.||) $3 WHERE "
	PK_RK_IS " RETURNING t.etag, t.\"timestamp\"", 3, "tte"},
	[PLAN_MERGE_IF] = {"UPDATE %s AS t SET properties = t.properties OPERATOR(tablestore.||) $3 WHERE "
	PK_RK_IS " AND tablestore.etag_matches(t.etag, $4) RETURNING t.etag, t.\"timestamp\"", 4, "ttet"},
	[PLAN_UPSERT_REPLACE] = {"INSERT INTO %s AS t (partition_key, row_key, properties) VALUES ($1, $2, $3) "
	"ON CONFLICT (partition_key, row_key) DO UPDATE SET properties = EXCLUDED.properties RETURNING t.etag, t.\"timestamp\"",
	3, "tte"},
	[PLAN_UPSERT_MERGE] = {"INSERT INTO %s AS t (partition_key, row_key, properties) VALUES ($1, $2, $3) "
	"ON CONFLICT (partition_key, row_key) DO UPDATE SET properties = t.properties OPERATOR(tablestore.||) "
	"EXCLUDED.properties RETURNING t.etag, t.\"timestamp\"", 3, "tte"},
	[PLAN_DELETE_ANY] = {"DELETE FROM %s AS t WHERE " PK_RK_IS " RETURNING t.etag, t.\"timestamp\"", 2, "tt"},
	[PLAN_DELETE_IF] = {"DELETE FROM %s AS t WHERE " PK_RK_IS " AND tablestore.etag_matches(t.etag, $3) "
	"RETURNING t.etag, t.\"timestamp\"", 3, "ttt"},
	[PLAN_GET] = {"SELECT " TS_ROW_COLUMNS " FROM %s AS t "
	"WHERE " PK_RK_IS, 2, "tt"},
	[PLAN_EXISTS] = {"SELECT 1 FROM %s AS t WHERE " PK_RK_IS, 2, "tt"},
	[PLAN_LOCK_KEYS] = {"SELECT t.row_key, t.etag FROM %s AS t WHERE t.partition_key OPERATOR(pg_catalog.=) $1 "
	"AND t.row_key OPERATOR(pg_catalog.=) ANY ($2) ORDER BY t.row_key FOR UPDATE", 2, "ta"},
};

SPIPlanPtr
ts_plan_get(const TsTable *t, TsPlanKind kind)
{
	const PlanSpec *spec = &plan_specs[kind];
	Oid			argtypes[4];
	char		sql[1024];

	for (int a = 0; a < spec->nargs; a++)
		argtypes[a] = spec->argkinds[a] == 'e' ? ts_type_oid(TS_TYPE_ENTITY) :
			spec->argkinds[a] == 'a' ? TEXTARRAYOID : TEXTOID;
	snprintf(sql, sizeof(sql), spec->sql, t->qualified);
	return ts_plan_cache_get(sql, spec->nargs, argtypes, 0);
}
