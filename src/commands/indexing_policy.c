/*
 * indexing_policy.c - the indexing policy's SQL interface (doc/sql-reference.md, "Indexing"):
 * tablestore.set_indexing_policy, get_indexing_policy and indexing_progress. A command layer
 * above the entity index (entity_index.c, index_worker.c) and the distribution of tables
 * (distribute.c): a distributed table's policy is recorded on the coordinator, which translates
 * filters by it, and set on every node, which holds the index.
 *
 * set_indexing_policy records the policy in the table's registry row, queues the table
 * (index_queue.c, in the caller's transaction) and launches an index worker (index_worker.c),
 * which applies it online once the caller's transaction has committed (CREATE INDEX
 * CONCURRENTLY runs in transactions of its own, which a function cannot start). The caller waits
 * for no build: a change during one is queued and applied after it. At most
 * tablestore.max_index_builds workers run in a database at once, and
 * tablestore.max_index_builds_total in the server (index_worker.c), so that no caller takes every
 * background worker slot of the server; past them the change waits in the queue for a running
 * worker. Queued work that no worker does (its worker died, the server restarted, no slot was
 * free) gets one at the next look: indexing_progress by the table's owner, and any tablestore call
 * on a table by its owner, at most every few seconds per session (ts_index_relaunch_check,
 * index_worker.c). Reading the queue needs no right; queueing and launching need the table's
 * ownership, as set_indexing_policy does.
 */
#include "postgres.h"

#include "indexing_policy.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "commands/progress.h"
#include "catalog/pg_class.h"
#include "distribute.h"
#include "entity_index.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "index_queue.h"
#include "index_worker.h"
#include "miscadmin.h"
#include "remote_call.h"
#include "tables.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"
#include "pgstat.h"
#include "utils/acl.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

PG_FUNCTION_INFO_V1(tablestore_set_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_rest_set_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_get_indexing_policy);
PG_FUNCTION_INFO_V1(tablestore_indexing_progress);

void
ts_indexing_policy_init(void)
{
	ts_index_worker_init();
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
	bool		launch = false;

	ts_table_resolve(tbl, &t);
	if (!pg_class_ownercheck(t.relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, t.key);
	ts_index_policy_parse(json, len, &p);

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
		if (st.applied && ts_index_queue_installed())
		{
			/* nothing to do, and nothing left to say: an earlier change's failure is forgotten */
			ts_index_worker_note_change();
			ts_index_queue_forget(t.key);
		}
		else if (!st.applied)
		{
			if (!ts_index_queue_installed())
				ereport(ERROR,
						(errcode(ts_error_sqlstate_int(TSE_INDEX_WORKER)),
						 errmsg("%s: the index worker needs the extension updated to the version of its library", ts_error_service_code(TSE_INDEX_WORKER)),
						 errdetail("The policy is not changed."),
						 errhint("Run ALTER EXTENSION tablestore UPDATE.")));
			/* queued in this transaction: no worker leaves before it ends, and it sees the row once committed */
			ts_index_worker_note_change();
			ts_index_queue_request(t.key);
			launch = true;
		}
	}
	SPI_finish();
	/* every session translates its filters by the new policy once this commits */
	CacheInvalidateRelcacheByRelid(t.relid);
	if (launch)
		(void) ts_index_worker_launch(false);
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
 * A CREATE INDEX on the relation: how far, 1 to 99 (its table scan is the first half, its
 * validation the second); -1 when none runs. From the backends' status, which every role sees
 * whole here (pg_stat_progress_create_index shows another role's only to the privileged).
 */
static int
build_progress(Oid relid)
{
	int			n = pgstat_fetch_stat_numbackends();

	for (int i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *l = pgstat_fetch_stat_local_beentry(i);
		PgBackendStatus *b = l ? &l->backendStatus : NULL;

		if (b != NULL && b->st_progress_command == PROGRESS_COMMAND_CREATE_INDEX && b->st_progress_command_target == relid)
		{
			int64		total = Max(b->st_progress_param[PROGRESS_SCAN_BLOCKS_TOTAL], 1);
			int64		done = Min(Max(b->st_progress_param[PROGRESS_SCAN_BLOCKS_DONE], 0), total);

			return (b->st_progress_param[PROGRESS_CREATEIDX_PHASE] == PROGRESS_CREATEIDX_PHASE_BUILD ? 1 : 50) +
				(int) (49 * done / total);
		}
	}
	return -1;
}

/*
 * How far the table's indexes are from its policy, 0 to 100 (Cosmos DB's index transformation
 * progress): 100 when applied; during a concurrent build, by the blocks it has read.
 */
static int
local_progress(const TsTable *t)
{
	TsIndexState st;
	int			pct = 0;

	ts_index_state_read(t->relid, &st);
	if (st.applied)
		return 100;
	if (st.partitioned)
	{
		const char *args[1] = {psprintf("%u", t->relid)};

		/* a node's table: the partitions whose part of the new index is built */
		ts_run_sql("SELECT pg_catalog.count(*) FILTER (WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_index pi "
				   "JOIN pg_catalog.pg_inherits ih ON ih.inhrelid = pi.indexrelid JOIN pg_catalog.pg_index par "
				   "ON par.indexrelid = ih.inhparent AND NOT par.indisvalid WHERE pi.indrelid = i.inhrelid)) * 99 "
				   "/ GREATEST(pg_catalog.count(*), 1) FROM pg_catalog.pg_inherits i WHERE i.inhparent = $1::oid",
				   1, args, SPI_OK_SELECT);
		if (SPI_processed > 0)
		{
			char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

			pct = v ? atoi(v) : 0;
		}
	}
	else
		pct = build_progress(t->relid);
	return Min(Max(pct, 0), 99);
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
	{
		pct = local_progress(&t);
		/* applied, but its worker has not removed its row yet: 99 until it has (a moment) */
		if (pct == 100 && ts_index_queue_installed() && ts_index_queue_pending(t.key, false))
			pct = 99;

		/*
		 * Not applied: queued work that no worker does (it died, the server restarted) gets one,
		 * and a table whose policy is not applied and which has no row is queued - by its owner.
		 */
		if (pct < 100 && !RecoveryInProgress() && ts_index_queue_installed() && pg_class_ownercheck(t.relid, GetUserId()))
		{
			if (ts_index_queue_pending(t.key, false))
				(void) ts_index_worker_launch(true);
			else if (!XactReadOnly)
			{
				TsIndexState st;

				/*
				 * No row: looked at again, as a change (no worker leaves before this transaction
				 * ends, so the row is seen), since the worker that applied it may have removed
				 * its row after the look above.
				 */
				ts_index_worker_note_change();
				ts_index_state_read(t.relid, &st);
				if (!st.applied && ts_index_queue_pending(t.key, true))
					(void) ts_index_worker_launch(true);
			}
		}
	}
	SPI_finish();
	PG_RETURN_INT32(pct);
}
