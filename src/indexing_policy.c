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
 * A build holds that lock for its whole length, so a change during one waits for it at most
 * POLICY_LOCK_WAIT_MS and is then TSI03 (ServerBusy), never a wait as long as the build; and at
 * most tablestore.max_index_builds workers run in a database at once (TSI02 past them), so that
 * no caller takes every background worker slot of the server.
 */
#include "postgres.h"

#include "indexing_policy.h"

#include "access/xact.h"
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
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"

PG_FUNCTION_INFO_V1(tablestore_set_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_rest_set_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_get_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_indexing_progress);

/*
 * The tables whose worker this transaction started: one worker applies every change a
 * transaction makes (it reads the policy as committed).
 */
static List *started = NIL;
static LocalTransactionId started_lxid = InvalidLocalTransactionId;

/* The most index workers of one database running at once (tablestore.max_index_builds). */
static int	max_index_builds = 2;

/* How long a policy change waits for the lock a running build holds. */
#define POLICY_LOCK_WAIT_MS 3000

void
ts_indexing_policy_init(void)
{
	DefineCustomIntVariable("tablestore.max_index_builds",
							"The most index builds (indexing policy changes being applied) that run at once in a database.",
							"Each is a background worker; a change past them is ServerBusy (TSI02).",
							&max_index_builds, 2, 1, 64, PGC_SUSET, 0, NULL, NULL, NULL);
}

/* Refuse a new build when the database runs max_index_builds already (the count is a snapshot). */
static void
check_builds_running(void)
{
	const char *args[1] = {psprintf("%u", MyDatabaseId)};
	char	   *v;
	int			running;

	SPI_connect();
	ts_run_sql("SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity "
			   "WHERE backend_type = 'tablestore index worker' AND datid = $1::oid", 1, args, SPI_OK_SELECT);
	v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	running = v ? atoi(v) : 0;
	SPI_finish();
	if (running >= max_index_builds)
		ereport(ERROR,
				(errcode(ts_error_sqlstate_int(TSE_INDEX_WORKER)),
				 errmsg("%s: %d index builds run in this database already", ts_error_service_code(TSE_INDEX_WORKER), running),
				 errdetail("The policy is not changed; at most tablestore.max_index_builds (%d) run at once.", max_index_builds),
				 errhint("Set the policy again once one of them is applied (tablestore.indexing_progress).")));
}

/*
 * The lock that orders policy changes and that the index worker waits for, waited for at most
 * POLICY_LOCK_WAIT_MS (a user's shorter lock_timeout stands): a build of an earlier change holds
 * it for its whole length. The wait runs in a subtransaction, so that its timeout becomes TSI03;
 * the lock stays the caller's transaction's.
 */
static void
lock_for_policy_change(const TsTable *t)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	if (ConditionalLockRelationOid(t->relid, ShareUpdateExclusiveLock))
		return;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		int			nest = NewGUCNestLevel();

		if (LockTimeout == 0 || LockTimeout > POLICY_LOCK_WAIT_MS)
			(void) set_config_option("lock_timeout", CppAsString2(POLICY_LOCK_WAIT_MS), PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_SAVE, true, 0, false);
		LockRelationOid(t->relid, ShareUpdateExclusiveLock);
		AtEOXact_GUC(false, nest);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (e->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			ReThrowError(e);
		ereport(ERROR,
				(errcode(ts_error_sqlstate_int(TSE_INDEX_BUSY)),
				 errmsg("%s: the index of table \"%s\" is being rebuilt for an earlier indexing policy",
						ts_error_service_code(TSE_INDEX_BUSY), t->key),
				 errdetail("The policy is not changed."),
				 errhint("Set it again once tablestore.indexing_progress is 100 (CALL tablestore.wait_for_indexing).")));
	}
	PG_END_TRY();
}

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
	check_builds_running();
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

/* Set the table's policy from its JSON text; the policy recorded, in its normal form. */
static Datum
set_policy(text *tbl, const char *json, size_t len)
{
	TsTable		t;
	IndexPolicy p;
	List	   *servers;
	bool		start_worker = false;

	ts_table_resolve(tbl, &t);
	if (!pg_class_ownercheck(t.relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, t.key);
	ts_index_policy_parse(json, len, &p);
	/* one change at a time; the index worker waits for this lock, so it starts after the commit */
	lock_for_policy_change(&t);

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
	return policy_jsonb(&p);
}

/* tablestore.set_indexing_policy(tbl text, policy jsonb) -> jsonb: the policy recorded, in its normal form */
Datum
tablestore_set_indexing_policy(PG_FUNCTION_ARGS)
{
	Jsonb	   *jb;
	char	   *json;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "policy");
	jb = PG_GETARG_JSONB_P(1);
	json = JsonbToCString(NULL, &jb->root, VARSIZE(jb));
	PG_RETURN_DATUM(set_policy(PG_GETARG_TEXT_PP(0), json, strlen(json)));
}

/*
 * tablestore.rest_set_indexing_policy(tbl text, policy text) -> jsonb: the same from the policy's
 * JSON text as a request carries it, read strictly (a member given twice is TSI01, where jsonb
 * would keep the last one), as rest_create_table reads it.
 */
Datum
tablestore_rest_set_indexing_policy(PG_FUNCTION_ARGS)
{
	text	   *policy;

	ts_require_arg(fcinfo, 0, "tbl");
	ts_require_arg(fcinfo, 1, "policy");
	policy = PG_GETARG_TEXT_PP(1);
	PG_RETURN_DATUM(set_policy(PG_GETARG_TEXT_PP(0), VARDATA_ANY(policy), VARSIZE_ANY_EXHDR(policy)));
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
