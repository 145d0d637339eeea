/*
 * indexing_policy.c - the indexing policy's SQL interface (doc/sql-reference.md, "Indexing"):
 * tablestore.set_indexing_policy, get_indexing_policy and indexing_progress. A command layer
 * above the entity index (entity_index.c, index_worker.c) and the distribution of tables
 * (distribute.c): a distributed table's policy is recorded on the coordinator, which translates
 * filters by it, and set on every node, which holds the index.
 *
 * set_indexing_policy records the policy in the table's registry row and starts the index
 * worker, which applies it online after the caller's transaction commits (CREATE INDEX
 * CONCURRENTLY runs in transactions of its own, which a function cannot start). The caller
 * holds SHARE UPDATE EXCLUSIVE on the table until then: writes go on, and the worker waits.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "distribute.h"
#include "entity_index.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "index_worker.h"
#include "miscadmin.h"
#include "remote_call.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "tables.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(tablestore_set_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_get_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_indexing_progress);

/*
 * The tables whose worker this transaction started: one worker applies every change a
 * transaction makes (it reads the policy as committed).
 */
static List *started = NIL;
static LocalTransactionId started_lxid = InvalidLocalTransactionId;

static void
start_worker_once(Oid relid)
{
	if (started_lxid != MyProc->lxid)
	{
		list_free(started);
		started = NIL;
		started_lxid = MyProc->lxid;
	}
	if (list_member_oid(started, relid))
		return;
	ts_index_worker_start(relid);
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		started = lappend_oid(started, relid);
		MemoryContextSwitchTo(old);
	}
}

static Datum
policy_jsonb(const IndexPolicy *p)
{
	StringInfoData json;

	initStringInfo(&json);
	index_policy_append_json(&json, p);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(json.data));
}

/* tablestore.set_indexing_policy(tbl text, policy jsonb) -> jsonb: the policy recorded, in its normal form */
Datum
tablestore_set_indexing_policy(PG_FUNCTION_ARGS)
{
	TsTable		t;
	Jsonb	   *jb;
	char	   *json;
	IndexPolicy p;
	List	   *servers;
	bool		start_worker = false;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "policy");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	if (!pg_class_ownercheck(t.relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, t.key);
	jb = PG_GETARG_JSONB_P(1);
	json = JsonbToCString(NULL, &jb->root, VARSIZE(jb));
	ts_index_policy_parse(json, strlen(json), &p);
	/* one change at a time; the index worker waits for this lock, so it starts after the commit */
	LockRelationOid(t.relid, ShareUpdateExclusiveLock);

	SPI_connect();
	ts_table_register(ts_table_registered_name(t.key), t.key);
	ts_index_policy_write(t.key, &p);
	servers = ts_table_servers(t.relid);
	if (servers != NIL)
	{
		/* a distributed table: each node applies it to its part (in its remote transaction) */
		StringInfoData normal;
		const char *args[2];
		ListCell   *lc;

		initStringInfo(&normal);
		index_policy_append_json(&normal, &p);
		args[0] = ts_table_registered_name(t.key);
		args[1] = normal.data;
		foreach(lc, servers)
			(void) ts_remote_query(lfirst_oid(lc), "SELECT tablestore.set_indexing_policy($1, $2::jsonb)", 2, args, false);
	}
	else
	{
		TsIndexState st;

		ts_index_state_read(t.relid, &st);
		start_worker = !st.applied;
	}
	SPI_finish();
	/* every session translates its filters by the new policy once this commits */
	CacheInvalidateRelcacheByRelid(t.relid);
	if (start_worker)
		start_worker_once(t.relid);
	PG_RETURN_DATUM(policy_jsonb(&p));
}

/* tablestore.get_indexing_policy(tbl text) -> jsonb */
Datum
tablestore_get_indexing_policy(PG_FUNCTION_ARGS)
{
	TsTable		t;
	IndexPolicy p;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	SPI_connect();
	if (!ts_index_policy_read(t.key, &p))
		p.consistent = false;	/* a table without a registry row has no entity index of its policy */
	SPI_finish();
	PG_RETURN_DATUM(policy_jsonb(&p));
}

/*
 * How far the table's indexes are from its policy, 0 to 100 (Cosmos DB's index transformation
 * progress): 100 when applied; during a concurrent build, by the blocks it has read.
 */
static int
local_progress(const TsTable *t)
{
	TsIndexState st;
	const char *args[1] = {psprintf("%u", t->relid)};
	int			pct = 0;

	ts_index_state_read(t->relid, &st);
	if (st.applied)
		return 100;
	if (st.partitioned)
	{
		/* a node's table: the partitions whose part of the new index is built */
		ts_run_sql("SELECT pg_catalog.count(*) FILTER (WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_index pi "
				   "JOIN pg_catalog.pg_inherits ih ON ih.inhrelid = pi.indexrelid JOIN pg_catalog.pg_index par "
				   "ON par.indexrelid = ih.inhparent AND NOT par.indisvalid WHERE pi.indrelid = i.inhrelid)) * 99 "
				   "/ GREATEST(pg_catalog.count(*), 1) FROM pg_catalog.pg_inherits i WHERE i.inhparent = $1::oid",
				   1, args, SPI_OK_SELECT);
	}
	else
		ts_run_sql("SELECT CASE WHEN p.phase LIKE 'building%' THEN 1 + 49 * p.blocks_done / GREATEST(p.blocks_total, 1) "
				   "ELSE 50 + 49 * p.blocks_done / GREATEST(p.blocks_total, 1) END "
				   "FROM pg_catalog.pg_stat_progress_create_index p WHERE p.relid = $1::oid", 1, args, SPI_OK_SELECT);
	if (SPI_processed > 0)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		pct = v ? Min(Max(atoi(v), 0), 99) : 0;
	}
	return pct;
}

/* tablestore.indexing_progress(tbl text) -> int */
Datum
tablestore_indexing_progress(PG_FUNCTION_ARGS)
{
	TsTable		t;
	List	   *servers;
	int			pct = 100;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_table_resolve(PG_GETARG_TEXT_PP(0), &t);
	SPI_connect();
	servers = ts_table_servers(t.relid);
	if (servers != NIL)
	{
		const char *args[1] = {ts_table_registered_name(t.key)};
		ListCell   *lc;

		/* a distributed table: its least advanced node */
		foreach(lc, servers)
		{
			char	   *v = ts_remote_query(lfirst_oid(lc), "SELECT tablestore.indexing_progress($1)", 1, args, false);

			pct = Min(pct, v ? atoi(v) : 0);
		}
	}
	else
		pct = local_progress(&t);
	SPI_finish();
	PG_RETURN_INT32(pct);
}
