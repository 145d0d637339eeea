/*
 * tables.c - what a table is made of: the DDL of its relation (and its entity index,
 * entity_index.c) and stamp trigger, its registry row (shared by create_table in
 * table_commands.c and the distribution of tables in distribute.c), and tablestore.table_relation.
 *
 * A table named N is the relation tablestore_data.lower(N) with the layout of table_layout.h;
 * the registry tablestore.tables keeps N as it was created. The DDL runs as the caller (who needs
 * CREATE on tablestore_data, and owns the table); the registry row is written as the extension's
 * owner, so that callers need no write access to the registry. The sql_drop event trigger
 * (tablestore_internal.forget_dropped_tables) removes the row however the table is dropped.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "entity_index.h"
#include "registry.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "tables.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"


void
ts_table_create_relation(const char *key, const char *name, TsTableShape shape)
{
	StringInfoData ddl;
	const char *q = quote_identifier(key);

	initStringInfo(&ddl);
	appendStringInfo(&ddl,
					 "CREATE TABLE " TS_DATA_SCHEMA ".%s ("
					 "partition_key text COLLATE \"C\" NOT NULL, "
					 "row_key text COLLATE \"C\" NOT NULL, "
					 "\"timestamp\" timestamptz NOT NULL, "
					 "etag text NOT NULL, "
					 "properties tablestore.entity NOT NULL%s)%s; "
					 "COMMENT ON TABLE " TS_DATA_SCHEMA ".%s IS %s",
					 q, shape != TS_SHAPE_COORDINATOR ? ", PRIMARY KEY (partition_key, row_key)" : "",
					 shape != TS_SHAPE_TABLE ? " PARTITION BY HASH (partition_key)" : "",
					 q, quote_literal_cstr(psprintf("tablestore table %s", name)));
	if (SPI_execute(ddl.data, false, 0) < 0)
		elog(ERROR, "tablestore: creating the table failed");
	/* the entity index, as the table's registered policy (the default for a new table) asks */
	if (shape != TS_SHAPE_COORDINATOR)
		ts_index_build_new(key);
}

void
ts_table_create_stamp_trigger(const char *key)
{
	if (SPI_execute(psprintf("CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON " TS_DATA_SCHEMA ".%s "
							 "FOR EACH ROW EXECUTE FUNCTION tablestore.stamp()", quote_identifier(key)), false, 0) < 0)
		elog(ERROR, "tablestore: creating the stamp trigger failed");
}

void
ts_table_register(const char *name, const char *key)
{
	const char *args[2] = {name, key};

	ts_registry_write("INSERT INTO tablestore.tables (name, key) VALUES ($1, $2) ON CONFLICT DO NOTHING", 2, args,
					  SPI_OK_INSERT);
}

const char *
ts_table_registered_name(const char *key)
{
	const char *args[2] = {key, key};

	ts_run_sql("SELECT r.name FROM tablestore.tables r WHERE r.key OPERATOR(pg_catalog.=) $2", 2, args, SPI_OK_SELECT);
	return SPI_processed > 0 ? SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1) : key;
}

/* tablestore.table_relation(name text) -> regclass: the relation holding a table's entities */
PG_FUNCTION_INFO_V1(tablestore_table_relation);
Datum
tablestore_table_relation(PG_FUNCTION_ARGS)
{
	TsTable		t;

	ts_require_arg(fcinfo, 0, "name");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	PG_RETURN_OID(t.relid);
}
