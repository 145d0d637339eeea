/*
 * table_commands.c - tablestore.create_table and drop_table: the lifecycle of tables (SQL
 * interface in doc/sql-reference.md). A command layer above tables.c (what a table is made of)
 * and distribute.c (what a distributed table adds), which call neither each other nor this file.
 *
 * A table named N is the relation tablestore_data.lower(N) with the layout of table_layout.h;
 * the registry tablestore.tables keeps N as it was created. The DDL runs as the caller (who needs
 * CREATE on tablestore_data, and owns the table); the registry row is written as the extension's
 * owner, so that callers need no write access to the registry. The sql_drop event trigger
 * (tablestore_internal.forget_dropped_tables) removes the row however the table is dropped.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "distribute.h"
#include "entity_index.h"
#include "index_worker.h"
#include "table_commands.h"
#include "tables.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

/*
 * Create a table; policy: its indexing policy (NULL: the default, every property indexed). The
 * table is empty, so its entity index is built at once.
 */
Oid
ts_create_table(text *name, const IndexPolicy *policy)
{
	char		key[TS_TABLE_NAME_MAX + 1];
	const char *args[2];

	ts_table_key(name, key);
	args[0] = text_to_cstring(name);
	args[1] = key;

	SPI_connect();
	/* one creator per name at a time; names are unique ignoring case */
	ts_run_sql("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('tablestore.create_table'), "
			"pg_catalog.hashtext($2))", 2, args, SPI_OK_SELECT);
	if (OidIsValid(get_relname_relid(key, get_namespace_oid(TS_DATA_SCHEMA, false))))
		ts_raisef(TSE_TABLE_EXISTS, "a table named \"%s\" exists (names are unique ignoring case)",
				  ts_table_registered_name(key));
	ts_table_create_relation(key, args[0], TS_SHAPE_TABLE);
	ts_table_create_stamp_trigger(key);
	ts_table_register(args[0], key);
	if (policy != NULL)
	{
		IndexPolicy def;

		index_policy_default(&def);
		ts_index_policy_write(key, policy);
		if (!index_policy_equal(policy, &def))
			ts_index_build_new(key);
	}
	SPI_finish();

	/* a coordinator that distributes every new table (tablestore.distribute_new_tables) */
	ts_distribute_new_table(args[0]);
	return get_relname_relid(key, get_namespace_oid(TS_DATA_SCHEMA, false));
}

/* tablestore.create_table(name text, indexing_policy jsonb DEFAULT NULL) -> regclass */
PG_FUNCTION_INFO_V1(tablestore_create_table);
Datum
tablestore_create_table(PG_FUNCTION_ARGS)
{
	IndexPolicy policy;
	bool		has_policy = PG_NARGS() > 1 && !PG_ARGISNULL(1);	/* 0.1.0 and 0.2.0 pass the name only */

	ts_require_arg(fcinfo, 0, "name");
	if (has_policy)
	{
		Jsonb	   *jb = PG_GETARG_JSONB_P(1);
		char	   *json = JsonbToCString(NULL, &jb->root, VARSIZE(jb));

		ts_index_policy_parse(json, strlen(json), &policy);
	}
	PG_RETURN_OID(ts_create_table(PG_GETARG_TEXT_PP(0), has_policy ? &policy : NULL));
}

/* tablestore.drop_table(name text): the table and all its entities, one catalog operation */
PG_FUNCTION_INFO_V1(tablestore_drop_table);
Datum
tablestore_drop_table(PG_FUNCTION_ARGS)
{
	char		key[TS_TABLE_NAME_MAX + 1];
	text	   *name;

	ts_require_arg(fcinfo, 0, "name");
	name = PG_GETARG_TEXT_PP(0);
	ts_table_key(name, key);
	/* the table's index build, if one runs, is cancelled: the drop would wait for it (or deadlock) */
	{
		Oid			relid = get_relname_relid(key, get_namespace_oid(TS_DATA_SCHEMA, false));

		if (OidIsValid(relid) && pg_class_ownercheck(relid, GetUserId()))
		{
			SPI_connect();
			ts_index_worker_cancel_build(relid);
			SPI_finish();
		}
	}
	/* locked before it is looked at: a concurrent drop makes this one ResourceNotFound */
	if (!OidIsValid(RangeVarGetRelidExtended(makeRangeVar(TS_DATA_SCHEMA, key, -1), AccessExclusiveLock,
											 RVR_MISSING_OK, NULL, NULL)))
		ts_raisef(TSE_RESOURCE_NOT_FOUND, "the table \"%s\" does not exist", text_to_cstring(name));	/* the service's answer */
	SPI_connect();
	ts_drop_table_shards(key, text_to_cstring(name));	/* a distributed table's parts on its nodes */
	if (SPI_execute(psprintf("DROP TABLE " TS_DATA_SCHEMA ".%s", quote_identifier(key)), false, 0) < 0)
		elog(ERROR, "tablestore: dropping the table failed");
	SPI_finish();
	PG_RETURN_VOID();
}
