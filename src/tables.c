/*
 * tables.c - tablestore.create_table, drop_table and table_relation: the lifecycle of tables
 * (SQL interface in doc/sql-reference.md).
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
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "distribute.h"
#include "tables.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"


/* Run a statement through SPI with text arguments; raises on failure. */
void
ts_run_sql(const char *sql, int nargs, const char *const *args, int expect)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2];

	for (int i = 0; i < nargs; i++)
		values[i] = CStringGetTextDatum(args[i]);
	if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0) != expect)
		elog(ERROR, "tablestore: \"%s\" failed", sql);
}

/* The owner of the registry tablestore.tables: the extension's owner. */
static Oid
registry_owner(void)
{
	Oid			relid = get_relname_relid("tables", get_namespace_oid("tablestore", false));
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "tablestore: the registry tablestore.tables is missing");
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

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
	Oid			save_user;
	int			save_sec;

	/* the registry row, written as the registry's owner */
	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(registry_owner(), save_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	ts_run_sql("INSERT INTO tablestore.tables (name, key) VALUES ($1, $2) ON CONFLICT DO NOTHING", 2, args,
			SPI_OK_INSERT);
	SetUserIdAndSecContext(save_user, save_sec);
}

const char *
ts_table_registered_name(const char *key)
{
	const char *args[2] = {key, key};

	ts_run_sql("SELECT r.name FROM tablestore.tables r WHERE r.key OPERATOR(pg_catalog.=) $2", 2, args, SPI_OK_SELECT);
	return SPI_processed > 0 ? SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1) : key;
}

/* tablestore.create_table(name text) -> regclass */
PG_FUNCTION_INFO_V1(tablestore_create_table);
Datum
tablestore_create_table(PG_FUNCTION_ARGS)
{
	text	   *name;
	char		key[TS_TABLE_NAME_MAX + 1];
	const char *args[2];
	Oid			relid;

	ts_require_arg(fcinfo, 0, "name");
	name = PG_GETARG_TEXT_PP(0);
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
	SPI_finish();

	/* a coordinator that distributes every new table (tablestore.distribute_new_tables) */
	ts_distribute_new_table(args[0]);
	relid = get_relname_relid(key, get_namespace_oid(TS_DATA_SCHEMA, false));
	PG_RETURN_OID(relid);
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
