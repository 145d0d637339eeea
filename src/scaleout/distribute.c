/*
 * distribute.c - one table over several PostgreSQL nodes by PartitionKey hash (contract §9,
 * doc/scale-out.md), on PostgreSQL's own declarative hash partitioning and postgres_fdw.
 *
 * On the coordinator a distributed table is tablestore_data.<key> partitioned by hash of
 * partition_key; partition i is the foreign table tablestore_shards.<key>_<i> on a node's server.
 * On that node, tablestore_data.<key> is a complete tablestore table partitioned the same way
 * (primary key, stamp trigger) whose partitions are only the shards it holds: a row of another
 * shard has no partition there and is refused. Single-partition calls on the coordinator are
 * forwarded whole to the node (ts_table_route, remote_call.c); queries run on the partitioned
 * table, which PostgreSQL prunes and postgres_fdw ships.
 *
 * distribute_table, undistribute_table and create_shards; route; the settings
 * tablestore.distribute_new_tables and tablestore.shard_count.
 */
#include "distribute.h"
#include "entity_index.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "utils/acl.h"
#include "executor/spi.h"
#include "foreign/foreign.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "node_conn.h"
#include "remote_call.h"
#include "storage/lmgr.h"
#include "tables.h"
#include "ts_report.h"
#include "ts_support.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/varlena.h"

#define TS_SHARDS_MAX 1024

static char *distribute_new_tables = NULL;
static int	default_shard_count = 32;

void
ts_distribute_init(void)
{
	DefineCustomStringVariable("tablestore.distribute_new_tables",
							   "Foreign servers (comma-separated) over which create_table distributes every new table.",
							   "Empty (the default): new tables are ordinary tables of this database.",
							   &distribute_new_tables, "", PGC_USERSET, GUC_LIST_INPUT, NULL, NULL, NULL);
	DefineCustomIntVariable("tablestore.shard_count",
							"The shard count of tables distributed by tablestore.distribute_new_tables.",
							NULL, &default_shard_count, 32, 1, TS_SHARDS_MAX, PGC_USERSET, 0, NULL, NULL, NULL);
}

static void
raise_distribution(const char *msg, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ts_error_sqlstate_int(TSE_DISTRIBUTION)),
			 errmsg("%s: %s", ts_error_service_code(TSE_DISTRIBUTION), msg),
			 detail ? errdetail("%s", detail) : 0,
			 hint ? errhint("%s", hint) : 0));
}

/* tablestore_shards.<key>_<shard>; a long key is cut and told apart by its hash */
static const char *
shard_table_name(const char *key, int shard)
{
	size_t		len = strlen(key);

	if (len <= 52)
		return psprintf("%s_%d", key, shard);
	return psprintf("%.43s%08x_%d", key, (uint32) hash_bytes((const unsigned char *) key, (int) len), shard);
}

static const char *
shard_table_qualified(const char *key, int shard)
{
	return quote_qualified_identifier(TS_SHARD_SCHEMA, shard_table_name(key, shard));
}

static void
spi_exec(const char *sql)
{
	if (SPI_execute(sql, false, 0) < 0)
		elog(ERROR, "tablestore: \"%s\" failed", sql);
}

static const char *
installed_version(void)
{
	const char *v;

	ts_run_sql("SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'tablestore'", 0, NULL, SPI_OK_SELECT);
	v = SPI_processed > 0 ? SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1) : NULL;
	if (v == NULL)
		elog(ERROR, "tablestore: the extension is not installed");
	return v;
}

/* ---------- servers ---------- */

/* A server that can hold shards: postgres_fdw, with tablestore among its shippable extensions. */
static Oid
shard_server(const char *name)
{
	ForeignServer *srv = GetForeignServerByName(name, false);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(srv->fdwid);
	ListCell   *lc;

	if (strcmp(fdw->fdwname, "postgres_fdw") != 0)
		raise_distribution(psprintf("the server \"%s\" is not a postgres_fdw server", name), NULL, NULL);
	foreach(lc, srv->options)
	{
		DefElem    *opt = lfirst(lc);
		List	   *exts;
		ListCell   *e;

		if (strcmp(opt->defname, "extensions") != 0)
			continue;
		if (SplitIdentifierString(pstrdup(defGetString(opt)), ',', &exts))
			foreach(e, exts)
				if (strcmp(lfirst(e), "tablestore") == 0)
					return srv->serverid;
	}
	raise_distribution(psprintf("the server \"%s\" does not ship tablestore's functions", name),
					   "Filters run on the nodes only when postgres_fdw may send tablestore's functions there.",
					   psprintf("ALTER SERVER %s OPTIONS (ADD extensions 'tablestore')", quote_identifier(name)));
	return InvalidOid;			/* not reached */
}

/* The distinct servers of a coordinator's partitioned table, in partition order. */
static List *
servers_of(Oid relid)
{
	Relation	rel = relation_open(relid, NoLock);
	PartitionDesc pd = RelationGetPartitionDesc(rel, false);
	List	   *servers = NIL;

	for (int i = 0; i < pd->nparts; i++)
		if (get_rel_relkind(pd->oids[i]) == RELKIND_FOREIGN_TABLE)
			servers = list_append_unique_oid(servers, GetForeignTable(pd->oids[i])->serverid);
	relation_close(rel, NoLock);
	return servers;
}

List *
ts_table_servers(Oid relid)
{
	return get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE ? servers_of(relid) : NIL;
}

static const char *
server_name(Oid server)
{
	return GetForeignServer(server)->servername;
}

/* The coordinator's partition for a shard: the foreign table of the same name on the node. */
static void
create_foreign_shard(const char *key, int shard, int count, Oid server)
{
	spi_exec(psprintf("CREATE FOREIGN TABLE %s PARTITION OF " TS_DATA_SCHEMA ".%s "
					  "FOR VALUES WITH (MODULUS %d, REMAINDER %d) SERVER %s "
					  "OPTIONS (schema_name %s, table_name %s)",
					  shard_table_qualified(key, shard), quote_identifier(key), count, shard,
					  quote_identifier(server_name(server)), quote_literal_cstr(TS_SHARD_SCHEMA),
					  quote_literal_cstr(shard_table_name(key, shard))));
}

/* The stamp trigger of each shard table on its node (shard i on servers[i % nservers]) on or off. */
static void
set_stamp_triggers(const char *key, const Oid *servers, int nservers, int count, const char *what)
{
	for (int i = 0; i < count; i++)
		(void) ts_remote_query(servers[i % nservers], psprintf("ALTER TABLE %s %s TRIGGER stamp",
															   shard_table_qualified(key, i), what), 0, NULL, false);
}

/* A distributed table's parts on its nodes (each node's tablestore_data.<key>, shards and all). */
static void
drop_node_parts(List *servers, const char *key)
{
	ListCell   *lc;

	foreach(lc, servers)
		(void) ts_remote_query(lfirst_oid(lc), psprintf("DROP TABLE IF EXISTS " TS_DATA_SCHEMA ".%s",
														quote_identifier(key)), 0, NULL, false);
}

/* ---------- moving rows with their stamps ---------- */

static void
copy_grants(const char *from, const char *key)
{
	const char *args[2] = {from, key};
	StringInfoData all;

	ts_run_sql("SELECT pg_catalog.format('GRANT %s ON tablestore_data.%I TO %s%s', a.privilege_type, $2::text, "
			   "CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END, "
			   "CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) "
			   "FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a "
			   "WHERE c.oid = $1::regclass AND a.grantee <> c.relowner", 2, args, SPI_OK_SELECT);
	initStringInfo(&all);
	for (uint64 i = 0; i < SPI_processed; i++)
		appendStringInfo(&all, "%s; ", SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
	if (all.len > 0)
		spi_exec(all.data);
}

/* The new relation is owned by the old one's owner (the caller may be a member of that role). */
static void
keep_owner(Oid old_relid, const char *key)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(old_relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "tablestore: cache lookup failed for relation %u", old_relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	spi_exec(psprintf("ALTER TABLE " TS_DATA_SCHEMA ".%s OWNER TO %s", quote_identifier(key),
					  quote_identifier(GetUserNameFromId(owner, false))));
}

/* Row-level security (scoped access) is not carried over to the nodes: such a table stays here. */
static void
refuse_row_security(Oid relid, const char *key)
{
	const char *args[2] = {psprintf("%u", relid), NULL};

	ts_run_sql("SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = $1::oid AND (c.relrowsecurity OR "
			   "EXISTS (SELECT 1 FROM pg_catalog.pg_policy p WHERE p.polrelid = c.oid))", 1, args, SPI_OK_SELECT);
	if (SPI_processed > 0)
		raise_distribution(psprintf("the table \"%s\" has row-level security", key),
						   "Its policies (grant_scoped_access) would not apply on the nodes.",
						   "Revoke the scoped access and disable row-level security first.");
}

/* Whether a relation has a row. */
static bool
has_rows(const char *qualified)
{
	spi_exec(psprintf("SELECT 1 FROM %s LIMIT 1", qualified));
	return SPI_processed > 0;
}

/* ---------- distribute_table ---------- */

static void
distribute(const char *key, const Oid *servers, int nservers, int count)
{
	Oid			relid = RangeVarGetRelidExtended(makeRangeVar(TS_DATA_SCHEMA, (char *) key, -1), AccessExclusiveLock,
												 RVR_MISSING_OK, NULL, NULL);
	Relation	rel;
	const char *name,
			   *version,
			   *moving,
			   *q = quote_identifier(key);
	bool		partitioned;

	if (!OidIsValid(relid))
		ts_raisef(TSE_TABLE_NOT_FOUND, "the table \"%s\" does not exist", key);
	rel = relation_open(relid, NoLock);
	ts_layout_require(rel);
	partitioned = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE;
	relation_close(rel, NoLock);
	if (partitioned)
		raise_distribution(psprintf("the table \"%s\" is distributed already", key), NULL,
						   "undistribute_table makes it an ordinary table again.");
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, key);
	if (count < nservers)
		raise_distribution(psprintf("%d shards cannot spread over %d servers", count, nservers), NULL,
						   "Give at least as many shards as servers.");

	SPI_connect();
	refuse_row_security(relid, key);
	name = ts_table_registered_name(key);
	version = installed_version();

	/* the nodes: the same tablestore, then each one's parts */
	for (int s = 0; s < nservers; s++)
	{
		char	   *theirs = ts_remote_query(servers[s], "SELECT extversion FROM pg_catalog.pg_extension "
											 "WHERE extname = 'tablestore'", 0, NULL, false);
		StringInfoData shards;
		const char *args[4];

		if (theirs == NULL || strcmp(theirs, version) != 0)
			raise_distribution(psprintf("the node \"%s\" runs tablestore %s; this database runs %s", server_name(servers[s]),
										theirs ? theirs : "(none)", version),
							   "Every node of a distributed table runs the same tablestore version.",
							   "Install the same version on the node (CREATE EXTENSION or ALTER EXTENSION tablestore UPDATE).");
		initStringInfo(&shards);
		for (int i = s; i < count; i += nservers)
			appendStringInfo(&shards, "%s%d", shards.len ? "," : "{", i);
		appendStringInfoChar(&shards, '}');
		args[0] = name;
		args[1] = psprintf("%d", count);
		args[2] = shards.data;
		args[3] = version;
		(void) ts_remote_query(servers[s], "SELECT tablestore.create_shards($1, $2::int, $3::int[], $4)", 4, args, false);
		/* the table's indexing policy applies on every node (entity_index.h) */
		args[1] = ts_index_policy_json(key);
		(void) ts_remote_query(servers[s], "SELECT tablestore.set_indexing_policy($1, $2::jsonb)", 2, args, false);
	}

	/* here: the partitioned table over the nodes' shards, the rows moved into it */
	moving = psprintf("tablestore_moving_%u", relid);
	spi_exec(psprintf("ALTER TABLE " TS_DATA_SCHEMA ".%s RENAME TO %s", q, moving));
	ts_table_create_relation(key, name, TS_SHAPE_COORDINATOR);
	keep_owner(relid, key);
	for (int i = 0; i < count; i++)
		create_foreign_shard(key, i, count, servers[i % nservers]);
	copy_grants(psprintf(TS_DATA_SCHEMA ".%s", moving), key);
	if (has_rows(psprintf(TS_DATA_SCHEMA ".%s", moving)))
	{
		/* the nodes' stamp triggers would give every row a new ETag: off while the rows move */
		set_stamp_triggers(key, servers, nservers, count, "DISABLE");
		spi_exec(psprintf("INSERT INTO " TS_DATA_SCHEMA ".%s SELECT * FROM " TS_DATA_SCHEMA ".%s", q, moving));
		set_stamp_triggers(key, servers, nservers, count, "ENABLE");
	}
	/* plain SQL writing on a second node in a transaction is refused like the functions' writes */
	spi_exec(psprintf("CREATE TRIGGER tablestore_one_writing_node BEFORE INSERT OR UPDATE OR DELETE ON " TS_DATA_SCHEMA ".%s "
					  "FOR EACH ROW EXECUTE FUNCTION tablestore.one_writing_node(); "
					  "CREATE TRIGGER tablestore_one_writing_node_truncate BEFORE TRUNCATE ON " TS_DATA_SCHEMA ".%s "
					  "FOR EACH STATEMENT EXECUTE FUNCTION tablestore.one_writing_node()", q, q));
	spi_exec(psprintf("DROP TABLE " TS_DATA_SCHEMA ".%s", moving));
	SPI_finish();
}

/* A server list argument (name[] or the setting's list) as OIDs; no server twice. */
static Oid *
servers_arg(List *names, int *n)
{
	Oid		   *oids = palloc(sizeof(Oid) * Max(list_length(names), 1));
	ListCell   *lc;

	*n = 0;
	foreach(lc, names)
	{
		Oid			s = shard_server(lfirst(lc));

		for (int k = 0; k < *n; k++)
			if (oids[k] == s)
				raise_distribution(psprintf("the server \"%s\" is named twice", (char *) lfirst(lc)), NULL, NULL);
		oids[(*n)++] = s;
	}
	if (*n == 0)
		raise_distribution("no server to distribute the table over", NULL, NULL);
	return oids;
}

static void
check_count(int count)
{
	if (count < 1 || count > TS_SHARDS_MAX)
		raise_distribution(psprintf("shard_count must be 1 to %d, not %d", TS_SHARDS_MAX, count), NULL, NULL);
}

/* tablestore.distribute_table(name text, servers name[], shard_count int DEFAULT 32) */
PG_FUNCTION_INFO_V1(tablestore_distribute_table);
Datum
tablestore_distribute_table(PG_FUNCTION_ARGS)
{
	char		key[TS_TABLE_NAME_MAX + 1];
	Datum	   *elems;
	bool	   *nulls;
	int			nelems,
				nservers;
	List	   *names = NIL;
	Oid		   *servers;

	ts_require_arg(fcinfo, 0, "name");
	ts_require_arg(fcinfo, 1, "servers");
	ts_require_arg(fcinfo, 2, "shard_count");
	ts_table_key(PG_GETARG_TEXT_PP(0), key);
	check_count(PG_GETARG_INT32(2));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR, &elems, &nulls, &nelems);
	for (int i = 0; i < nelems; i++)
	{
		if (nulls[i])
			raise_distribution("a server name is NULL", NULL, NULL);
		names = lappend(names, NameStr(*DatumGetName(elems[i])));
	}
	servers = servers_arg(names, &nservers);
	distribute(key, servers, nservers, PG_GETARG_INT32(2));
	PG_RETURN_VOID();
}

void
ts_distribute_new_table(const char *name)
{
	List	   *names;
	char		key[TS_TABLE_NAME_MAX + 1];
	int			nservers;
	Oid		   *servers;

	if (distribute_new_tables == NULL || distribute_new_tables[0] == '\0')
		return;
	if (!SplitIdentifierString(pstrdup(distribute_new_tables), ',', &names))
		raise_distribution("tablestore.distribute_new_tables is not a list of server names", NULL, NULL);
	ts_table_key(cstring_to_text(name), key);
	servers = servers_arg(names, &nservers);
	distribute(key, servers, nservers, default_shard_count);
}

/* ---------- undistribute_table, drop ---------- */

void
ts_drop_table_shards(const char *key, const char *name)
{
	Oid			relid = get_relname_relid(key, get_namespace_oid(TS_DATA_SCHEMA, false));

	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return;
	drop_node_parts(servers_of(relid), key);
}

/* tablestore.undistribute_table(name text): the rows back into an ordinary table here */
PG_FUNCTION_INFO_V1(tablestore_undistribute_table);
Datum
tablestore_undistribute_table(PG_FUNCTION_ARGS)
{
	char		key[TS_TABLE_NAME_MAX + 1];
	Oid			relid;
	List	   *servers;
	const char *name,
			   *moving,
			   *q;

	ts_require_arg(fcinfo, 0, "name");
	ts_table_key(PG_GETARG_TEXT_PP(0), key);
	q = quote_identifier(key);
	relid = RangeVarGetRelidExtended(makeRangeVar(TS_DATA_SCHEMA, key, -1), AccessExclusiveLock, RVR_MISSING_OK, NULL, NULL);
	if (!OidIsValid(relid))
		ts_raisef(TSE_TABLE_NOT_FOUND, "the table \"%s\" does not exist", text_to_cstring(PG_GETARG_TEXT_PP(0)));
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE || (servers = servers_of(relid)) == NIL)
		raise_distribution(psprintf("the table \"%s\" is not distributed", key), NULL, NULL);
	if (!pg_class_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, key);

	SPI_connect();
	name = ts_table_registered_name(key);
	moving = psprintf("tablestore_moving_%u", relid);
	spi_exec(psprintf("ALTER TABLE " TS_DATA_SCHEMA ".%s RENAME TO %s", q, moving));
	ts_table_create_relation(key, name, TS_SHAPE_TABLE);
	keep_owner(relid, key);
	copy_grants(psprintf(TS_DATA_SCHEMA ".%s", moving), key);
	spi_exec(psprintf("INSERT INTO " TS_DATA_SCHEMA ".%s SELECT * FROM " TS_DATA_SCHEMA ".%s", q, moving));
	ts_table_create_stamp_trigger(key);	/* after the rows: they keep their stamps */
	spi_exec(psprintf("DROP TABLE " TS_DATA_SCHEMA ".%s", moving));
	drop_node_parts(servers, key);
	SPI_finish();
	PG_RETURN_VOID();
}

/* ---------- the node's side ---------- */

/*
 * tablestore.create_shards(name text, shard_count int, shards int[], version text): on a node,
 * called by distribute_table over postgres_fdw. Creates tablestore_data.<key> partitioned by hash
 * (primary key, stamp trigger, registry row) unless it is there, and the partitions
 * tablestore_shards.<key>_<i> of the shards named that are not there yet.
 */
PG_FUNCTION_INFO_V1(tablestore_create_shards);
Datum
tablestore_create_shards(PG_FUNCTION_ARGS)
{
	char		key[TS_TABLE_NAME_MAX + 1];
	const char *name,
			   *version;
	int			count;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	Oid			relid;
	const char *args[2];

	for (int i = 0; i < 4; i++)
		ts_require_arg(fcinfo, i, i == 0 ? "name" : i == 1 ? "shard_count" : i == 2 ? "shards" : "version");
	ts_table_key(PG_GETARG_TEXT_PP(0), key);
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	count = PG_GETARG_INT32(1);
	check_count(count);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), INT4OID, 4, true, TYPALIGN_INT, &elems, &nulls, &nelems);
	for (int i = 0; i < nelems; i++)
		if (nulls[i] || DatumGetInt32(elems[i]) < 0 || DatumGetInt32(elems[i]) >= count)
			raise_distribution("a shard number is NULL or outside 0 .. shard_count - 1", NULL, NULL);

	SPI_connect();
	version = installed_version();
	if (strcmp(version, text_to_cstring(PG_GETARG_TEXT_PP(3))) != 0)
		raise_distribution(psprintf("this node runs tablestore %s; the coordinator runs %s", version,
									text_to_cstring(PG_GETARG_TEXT_PP(3))),
						   "Every node of a distributed table runs the same tablestore version.", NULL);
	args[0] = name;
	args[1] = key;
	ts_run_sql("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('tablestore.create_table'), "
			   "pg_catalog.hashtext($2))", 2, args, SPI_OK_SELECT);
	relid = get_relname_relid(key, get_namespace_oid(TS_DATA_SCHEMA, false));
	if (!OidIsValid(relid))
	{
		ts_table_create_relation(key, name, TS_SHAPE_NODE);
		ts_table_create_stamp_trigger(key);
		ts_table_register(name, key);
	}
	else
	{
		Relation	rel = relation_open(relid, AccessExclusiveLock);
		PartitionDesc pd;
		bool		fits;

		ts_layout_require(rel);
		fits = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE;
		if (fits && (pd = RelationGetPartitionDesc(rel, false))->boundinfo != NULL)
			fits = get_hash_partition_greatest_modulus(pd->boundinfo) == count;
		relation_close(rel, NoLock);
		if (!fits)
			raise_distribution(psprintf("this node has a table \"%s\" that is not a part of it with %d shards", key, count),
							   NULL, "Drop or rename the node's table first.");
	}
	for (int i = 0; i < nelems; i++)
	{
		int			shard = DatumGetInt32(elems[i]);

		if (OidIsValid(get_relname_relid(shard_table_name(key, shard), get_namespace_oid(TS_SHARD_SCHEMA, false))))
		{
			/* a part left by an earlier, failed distribution must not bring its rows back */
			if (has_rows(shard_table_qualified(key, shard)))
				raise_distribution(psprintf("this node's shard table %s is not empty", shard_table_qualified(key, shard)),
								   NULL, "Drop the node's table first.");
			continue;
		}
		spi_exec(psprintf("CREATE TABLE %s PARTITION OF " TS_DATA_SCHEMA ".%s FOR VALUES WITH (MODULUS %d, REMAINDER %d)",
						  shard_table_qualified(key, shard), quote_identifier(key), count, shard));
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/* ---------- route ---------- */

/* tablestore.route(tbl text, partition_key text, OUT shard int, OUT server name, OUT shard_table text) */
PG_FUNCTION_INFO_V1(tablestore_route);
Datum
tablestore_route(PG_FUNCTION_ARGS)
{
	TsTable		t;
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, true, false};
	Relation	rel;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "partition_key");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "tablestore.route must return a composite type");
	values[0] = Int32GetDatum(0);
	values[2] = CStringGetTextDatum(t.qualified);
	rel = relation_open(t.relid, NoLock);
	if (t.partitioned)
	{
		PartitionDesc pd = RelationGetPartitionDesc(rel, false);
		int			shard = -1,
					index = -1;

		if (pd->boundinfo != NULL)
		{
			shard = ts_shard_of(PG_GETARG_TEXT_PP(1), get_hash_partition_greatest_modulus(pd->boundinfo));
			index = pd->boundinfo->indexes[shard];
		}
		values[0] = Int32GetDatum(shard);
		nulls[2] = index < 0;
		if (index >= 0)
		{
			Oid			leaf = pd->oids[index];

			values[2] = CStringGetTextDatum(quote_qualified_identifier(get_namespace_name(get_rel_namespace(leaf)),
																	   get_rel_name(leaf)));
			if (get_rel_relkind(leaf) == RELKIND_FOREIGN_TABLE)
			{
				values[1] = DirectFunctionCall1(namein, CStringGetDatum(server_name(GetForeignTable(leaf)->serverid)));
				nulls[1] = false;
			}
		}
	}
	relation_close(rel, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/* ---------- moving a shard (tablestore.move_shard, doc/scale-out.md) ---------- */

/* A coordinator's distributed table, locked; its partition for a shard and that shard's server. */
static Oid
shard_partition(text *tbl, int shard, TsTable *t, int *count, LOCKMODE lock)
{
	Relation	rel;
	PartitionDesc pd;
	int			index = -1;
	Oid			leaf;

	ts_table_resolve(tbl, t);
	if (lock != AccessShareLock)
		LockRelationOid(t->relid, lock);
	rel = relation_open(t->relid, NoLock);
	pd = t->partitioned ? RelationGetPartitionDesc(rel, false) : NULL;
	*count = pd && pd->boundinfo ? get_hash_partition_greatest_modulus(pd->boundinfo) : 0;
	if (shard >= 0 && shard < *count)
		index = pd->boundinfo->indexes[shard];
	relation_close(rel, NoLock);
	if (index < 0 || get_rel_relkind(leaf = pd->oids[index]) != RELKIND_FOREIGN_TABLE)
		raise_distribution(psprintf("the table \"%s\" has no shard %d on a node", t->key, shard), NULL, NULL);
	return GetForeignTable(leaf)->serverid;
}

/*
 * tablestore_internal.shard_placement(tbl, shard) -> (name, key, shard_table, server, shard_count):
 * what move_shard needs to know of a shard, read without keeping a lock on the table.
 */
PG_FUNCTION_INFO_V1(tablestore_shard_placement);
Datum
tablestore_shard_placement(PG_FUNCTION_ARGS)
{
	TsTable		t;
	int			count;
	Oid			server = shard_partition(PG_GETARG_TEXT_PP(0), PG_GETARG_INT32(1), &t, &count, AccessShareLock);
	TupleDesc	desc;
	Datum		values[5];
	bool		nulls[5] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "shard_placement must return a composite type");
	SPI_connect();
	values[0] = CStringGetTextDatum(ts_table_registered_name(t.key));
	SPI_finish();
	values[1] = CStringGetTextDatum(t.key);
	values[2] = CStringGetTextDatum(shard_table_qualified(t.key, PG_GETARG_INT32(1)));
	values[3] = DirectFunctionCall1(namein, CStringGetDatum(server_name(server)));
	values[4] = Int32GetDatum(count);
	/*
	 * A look, not a hold: a move commits between its steps, and a lock kept by one that is copying
	 * would queue every other move's switch (and the calls behind it) on the table. The switch
	 * locks the table itself and reads the placement again under its lock.
	 */
	UnlockRelationOid(t.relid, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * tablestore_internal.repoint_shard(tbl, shard, server): the coordinator's partition for the shard
 * becomes the foreign table on that server (the table locked ACCESS EXCLUSIVE until commit).
 */
PG_FUNCTION_INFO_V1(tablestore_repoint_shard);
Datum
tablestore_repoint_shard(PG_FUNCTION_ARGS)
{
	TsTable		t;
	int			count;
	int			shard = PG_GETARG_INT32(1);
	Oid			to = shard_server(NameStr(*PG_GETARG_NAME(2)));
	const char *part;

	(void) shard_partition(PG_GETARG_TEXT_PP(0), shard, &t, &count, AccessExclusiveLock);
	part = shard_table_qualified(t.key, shard);
	SPI_connect();
	spi_exec(psprintf("ALTER TABLE " TS_DATA_SCHEMA ".%s DETACH PARTITION %s", quote_identifier(t.key), part));
	spi_exec(psprintf("DROP FOREIGN TABLE %s", part));
	create_foreign_shard(t.key, shard, count, to);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * tablestore_internal.node_execute(server, sql, in_transaction, timeout_ms DEFAULT 0) -> text: the
 * first value (0.2.0's install script names it without timeout_ms)
 */
PG_FUNCTION_INFO_V1(tablestore_node_execute);
Datum
tablestore_node_execute(PG_FUNCTION_ARGS)
{
	Oid			server = GetForeignServerByName(NameStr(*PG_GETARG_NAME(0)), false)->serverid;
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			timeout_ms = PG_NARGS() > 3 && !PG_ARGISNULL(3) ? PG_GETARG_INT32(3) : 0;
	char	   *out;

	out = PG_GETARG_BOOL(2) ? ts_remote_query(server, sql, 0, NULL, false) : ts_node_command(server, sql, timeout_ms);
	if (out == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(out));
}

/* tablestore_internal.server_conninfo(server) -> text: how a node connects to that server */
PG_FUNCTION_INFO_V1(tablestore_server_conninfo);
Datum
tablestore_server_conninfo(PG_FUNCTION_ARGS)
{
	Oid			server = GetForeignServerByName(NameStr(*PG_GETARG_NAME(0)), false)->serverid;

	PG_RETURN_TEXT_P(cstring_to_text(ts_server_conninfo(server)));
}

/*
 * tablestore.table_shards(tbl) -> setof (shard, server, shard_count): where each shard of a
 * distributed table is (server NULL when here); no rows for an ordinary table. What a gateway or
 * a client that routes reads once per table (then shard_of computes a key's shard).
 */
PG_FUNCTION_INFO_V1(tablestore_table_shards);
Datum
tablestore_table_shards(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TsTable		t;
	Relation	rel;
	PartitionDesc pd;
	int			count;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	InitMaterializedSRF(fcinfo, 0);
	if (!t.partitioned)
		return (Datum) 0;
	rel = relation_open(t.relid, NoLock);
	pd = RelationGetPartitionDesc(rel, false);
	count = pd->boundinfo ? get_hash_partition_greatest_modulus(pd->boundinfo) : 0;
	for (int shard = 0; shard < count; shard++)
	{
		int			index = pd->boundinfo->indexes[shard];
		Datum		values[3];
		bool		nulls[3] = {false, true, false};

		if (index < 0)
			continue;
		values[0] = Int32GetDatum(shard);
		if (get_rel_relkind(pd->oids[index]) == RELKIND_FOREIGN_TABLE)
		{
			values[1] = DirectFunctionCall1(namein, CStringGetDatum(server_name(GetForeignTable(pd->oids[index])->serverid)));
			nulls[1] = false;
		}
		values[2] = Int32GetDatum(count);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(rel, NoLock);
	return (Datum) 0;
}
