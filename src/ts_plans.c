/*
 * ts_plans.c - the per-table prepared statements of the single-entity operations.
 */
#include "ts_plans.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "utils/hsearch.h"
#include "utils/syscache.h"

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
	"RETURNING t.etag", 3, "tte"},
	[PLAN_UPDATE_ANY] = {"UPDATE %s AS t SET properties = $3 WHERE " PK_RK_IS " RETURNING t.etag", 3, "tte"},
	[PLAN_UPDATE_IF] = {"UPDATE %s AS t SET properties = $3 WHERE " PK_RK_IS
	" AND t.etag OPERATOR(pg_catalog.=) $4 RETURNING t.etag", 4, "ttet"},
	[PLAN_MERGE_ANY] = {"UPDATE %s AS t SET properties = t.properties OPERATOR(tablestore.||) $3 WHERE "
	PK_RK_IS " RETURNING t.etag", 3, "tte"},
	[PLAN_MERGE_IF] = {"UPDATE %s AS t SET properties = t.properties OPERATOR(tablestore.||) $3 WHERE "
	PK_RK_IS " AND t.etag OPERATOR(pg_catalog.=) $4 RETURNING t.etag", 4, "ttet"},
	[PLAN_UPSERT_REPLACE] = {"INSERT INTO %s AS t (partition_key, row_key, properties) VALUES ($1, $2, $3) "
	"ON CONFLICT (partition_key, row_key) DO UPDATE SET properties = EXCLUDED.properties RETURNING t.etag",
	3, "tte"},
	[PLAN_UPSERT_MERGE] = {"INSERT INTO %s AS t (partition_key, row_key, properties) VALUES ($1, $2, $3) "
	"ON CONFLICT (partition_key, row_key) DO UPDATE SET properties = t.properties OPERATOR(tablestore.||) "
	"EXCLUDED.properties RETURNING t.etag", 3, "tte"},
	[PLAN_DELETE_ANY] = {"DELETE FROM %s AS t WHERE " PK_RK_IS " RETURNING t.etag", 2, "tt"},
	[PLAN_DELETE_IF] = {"DELETE FROM %s AS t WHERE " PK_RK_IS " AND t.etag OPERATOR(pg_catalog.=) $3 "
	"RETURNING t.etag", 3, "ttt"},
	[PLAN_GET] = {"SELECT t.partition_key, t.row_key, t.\"timestamp\", t.etag, t.properties FROM %s AS t "
	"WHERE " PK_RK_IS, 2, "tt"},
	[PLAN_EXISTS] = {"SELECT 1 FROM %s AS t WHERE " PK_RK_IS, 2, "tt"},
	[PLAN_LOCK_KEYS] = {"SELECT t.row_key, t.etag FROM %s AS t WHERE t.partition_key OPERATOR(pg_catalog.=) $1 "
	"AND t.row_key OPERATOR(pg_catalog.=) ANY ($2) ORDER BY t.row_key FOR UPDATE", 2, "ta"},
};

typedef struct PlanEntry
{
	char		key[NAMEDATALEN];	/* the table's relation name */
	Oid			entity_type;	/* the plans were made for this tablestore.entity type */
	SPIPlanPtr	plans[PLAN__COUNT];
} PlanEntry;

static HTAB *plan_table = NULL;

SPIPlanPtr
ts_plan_get(const TsTable *t, TsPlanKind kind)
{
	PlanEntry  *e;
	bool		found;
	Oid			etype = ts_entity_type_oid();

	if (plan_table == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = NAMEDATALEN;
		ctl.entrysize = sizeof(PlanEntry);
		plan_table = hash_create("tablestore plans", 64, &ctl, HASH_ELEM | HASH_STRINGS);
	}
	e = hash_search(plan_table, t->key, HASH_ENTER, &found);
	if (!found || e->entity_type != etype)
	{
		/* new table, or the extension was re-created: forget plans made for the old types */
		for (int k = 0; found && k < PLAN__COUNT; k++)
			if (e->plans[k])
				SPI_freeplan(e->plans[k]);
		memset(e->plans, 0, sizeof(e->plans));
		e->entity_type = etype;
	}
	if (e->plans[kind] == NULL)
	{
		const PlanSpec *spec = &plan_specs[kind];
		Oid			argtypes[4];
		char		sql[1024];
		SPIPlanPtr	p;

		for (int a = 0; a < spec->nargs; a++)
			argtypes[a] = spec->argkinds[a] == 'e' ? etype : spec->argkinds[a] == 'a' ? TEXTARRAYOID : TEXTOID;
		snprintf(sql, sizeof(sql), spec->sql, t->qualified);
		p = SPI_prepare(sql, spec->nargs, argtypes);
		if (p == NULL)
			elog(ERROR, "tablestore: SPI_prepare failed for \"%s\": %s", sql, SPI_result_code_string(SPI_result));
		SPI_keepplan(p);
		e->plans[kind] = p;
	}
	return e->plans[kind];
}
