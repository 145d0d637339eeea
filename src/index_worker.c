/*
 * index_worker.c - the background worker that applies a table's registered indexing policy
 * online (index_worker.h).
 *
 * It connects to the table's database and, in a session-level advisory lock per table (so that
 * two workers of one table take turns), repeats: read the table's entity indexes against its
 * registered policy, in a transaction of their own, and run the one statement that brings them
 * closer, as a top-level statement in its own transactions, as a client's would run:
 *
 *   1. drop an index left invalid by an interrupted build (DROP INDEX CONCURRENTLY);
 *   2. with mode consistent and no valid index of the policy: build it (CREATE INDEX
 *      CONCURRENTLY, under the name the old index does not have); for a node's hash-partitioned
 *      table, where PostgreSQL 15 builds no index concurrently, the partitioned index is created
 *      ON ONLY the parent (a catalog entry), each partition's index concurrently, and each
 *      attached to it, which makes it valid;
 *   3. drop every other entity index (DROP INDEX CONCURRENTLY; a partitioned one with DROP
 *      INDEX, which holds its lock only for the catalog update).
 *
 * until none is needed. Writes go on throughout: concurrent builds and drops wait for
 * transactions instead of blocking them. It runs as the bootstrap superuser (as autovacuum
 * does); the table's owner set the policy (set_indexing_policy checks it), and the index belongs
 * to the table's owner as any index does. An error is logged and the invalid index a failed
 * build left is dropped (a killed worker's, by the next run); set_indexing_policy runs the worker
 * again. How far it is: tablestore.indexing_progress.
 */
#include "index_worker.h"

#include "entity_index.h"
#include "ts_report.h"
#include "ts_support.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "tcop/pquery.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "catalog/namespace.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/portal.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

PGDLLEXPORT void tablestore_index_worker_main(Datum arg);

#define MAX_STEPS 4096

void
ts_index_worker_start(Oid relid)
{
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "tablestore");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "tablestore_index_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "tablestore index worker for relation %u", relid);
	snprintf(w.bgw_type, BGW_MAXLEN, "tablestore index worker");
	w.bgw_main_arg = ObjectIdGetDatum(relid);
	memcpy(w.bgw_extra, &MyDatabaseId, sizeof(Oid));
	w.bgw_notify_pid = 0;
	if (!RegisterDynamicBackgroundWorker(&w, &handle))
		ereport(ERROR,
				(errcode(ts_error_sqlstate_int(TSE_INDEX_WORKER)),
				 errmsg("%s: no background worker slot is free to apply the indexing policy",
						ts_error_service_code(TSE_INDEX_WORKER)),
				 errdetail("The policy is not changed."),
				 errhint("Try again later, or raise max_worker_processes.")));
}

/* ---------- running statements as a client would ---------- */

/* One statement at top level, in transactions of its own (CREATE INDEX CONCURRENTLY commits inside). */
static MemoryContext statement_cxt = NULL;

static void
run_toplevel(const char *sql)
{
	List	   *parsed;
	RawStmt    *raw;
	List	   *queries,
			   *plans;
	Portal		portal;
	DestReceiver *dest;
	QueryCompletion qc;
	MemoryContext old;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, sql);
	if (statement_cxt == NULL)
		statement_cxt = AllocSetContextCreate(TopMemoryContext, "tablestore index worker statement", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(statement_cxt);
	parsed = pg_parse_query(sql);
	if (list_length(parsed) != 1)
		elog(ERROR, "tablestore index worker: one statement expected");
	raw = linitial_node(RawStmt, parsed);
	queries = pg_analyze_and_rewrite_fixedparams(raw, sql, NULL, 0, NULL);
	plans = pg_plan_queries(queries, sql, CURSOR_OPT_PARALLEL_OK, NULL);
	portal = CreatePortal("", true, true);
	portal->visible = false;
	PortalDefineQuery(portal, NULL, sql, CreateCommandTag(raw->stmt), plans, NULL);
	PortalStart(portal, NULL, 0, InvalidSnapshot);
	dest = CreateDestReceiver(DestNone);
	MemoryContextSwitchTo(old);
	(void) PortalRun(portal, FETCH_ALL, true, true, dest, dest, &qc);
	dest->rDestroy(dest);
	PortalDrop(portal, false);
	CommitTransactionCommand();
	MemoryContextReset(statement_cxt);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* ---------- deciding the next step ---------- */

static char *
qualified(const char *schema, const char *name)
{
	return quote_qualified_identifier(schema, name);
}

/* The drop of an index: concurrent, except a partitioned table's (PostgreSQL cannot). */
static char *
drop_sql(const TsEntityIndex *x)
{
	return psprintf(x->partitioned ? "DROP INDEX IF EXISTS %s" : "DROP INDEX CONCURRENTLY IF EXISTS %s",
					qualified(x->schema, x->name));
}

/* Is some index of the list named name? */
static bool
has_name(const TsEntityIndex *list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return true;
	return false;
}

static bool
has_partitions(Oid relid)
{
	const char *args[1] = {psprintf("%u", relid)};

	ts_run_sql("SELECT 1 FROM pg_catalog.pg_inherits WHERE inhparent = $1::oid", 1, args, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/* Is the index a part of a partitioned index? */
static bool
is_attached(Oid index)
{
	const char *args[1] = {psprintf("%u", index)};

	ts_run_sql("SELECT 1 FROM pg_catalog.pg_inherits WHERE inhrelid = $1::oid", 1, args, SPI_OK_SELECT);
	return SPI_processed > 0;
}

/*
 * The next step of a partitioned table whose partitioned index of the policy (parent) is not
 * valid yet: for the first partition without a part of it, attach its index of the policy, drop
 * what an interrupted build left there, or build that index concurrently.
 */
static char *
partition_step(Oid relid, const TsIndexState *st, const TsEntityIndex *parent)
{
	const char *args[2] = {psprintf("%u", parent->oid), psprintf("%u", relid)};
	int			n;
	Oid			part = InvalidOid;
	char	   *part_schema = NULL,
			   *part_name = NULL;
	TsEntityIndex *list;
	int			nlist;

	ts_run_sql("SELECT c.oid::text, n.nspname::text, c.relname::text FROM pg_catalog.pg_inherits i "
			   "JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
			   "WHERE i.inhparent = $2::oid AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits ih "
			   "JOIN pg_catalog.pg_index ci ON ci.indexrelid = ih.inhrelid WHERE ih.inhparent = $1::oid AND ci.indrelid = c.oid) "
			   "ORDER BY c.relname LIMIT 1", 2, args, SPI_OK_SELECT);
	n = (int) SPI_processed;
	if (n == 0)
		return NULL;			/* every partition has its part: the index is valid (or about to be) */
	part = (Oid) strtoul(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), NULL, 10);
	part_schema = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	part_name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	nlist = ts_index_list(part, &st->policy, &list);
	for (int i = 0; i < nlist; i++)
		if (list[i].valid && list[i].matches && !is_attached(list[i].oid))
			return psprintf("ALTER INDEX %s ATTACH PARTITION %s", qualified(parent->schema, parent->name),
							qualified(list[i].schema, list[i].name));
	for (int i = 0; i < nlist; i++)
		if (!list[i].valid)
			return drop_sql(&list[i]);
	{
		StringInfoData s;
		const char *name = ts_index_name(part_name, has_name(list, nlist, ts_index_name(part_name, false)));

		initStringInfo(&s);
		appendStringInfo(&s, "CREATE INDEX CONCURRENTLY %s ON %s", quote_identifier(name), qualified(part_schema, part_name));
		ts_index_append_definition(&s, &st->policy);
		return s.data;
	}
}

/*
 * The statement that brings the table's indexes closer to its policy, or NULL when they are
 * where it wants them. In SPI; the result is in the caller's memory.
 */
static char *
next_step(Oid relid, MemoryContext keep)
{
	TsIndexState st;
	const TsEntityIndex *target = NULL;
	char	   *sql = NULL;

	ts_index_state_read(relid, &st);
	for (int i = 0; i < st.nindexes; i++)
	{
		const TsEntityIndex *x = &st.indexes[i];

		/* the partitioned index being assembled is invalid until its last partition is attached */
		if (x->matches && (x->valid || (x->partitioned && st.partitioned)) && target == NULL)
			target = x;
	}
	/* 1. what an interrupted build left */
	for (int i = 0; i < st.nindexes && sql == NULL; i++)
		if (!st.indexes[i].valid && &st.indexes[i] != target)
			sql = drop_sql(&st.indexes[i]);
	/* 2. the index of the policy */
	if (sql == NULL && st.policy.consistent)
	{
		if (target == NULL)
		{
			StringInfoData s;
			const char *name = ts_index_name(st.relname, has_name(st.indexes, st.nindexes, ts_index_name(st.relname, false)));
			bool		only = st.partitioned && has_partitions(relid);

			/* a partitioned table without partitions: the index is a catalog entry, made at once */
			initStringInfo(&s);
			appendStringInfo(&s, "CREATE INDEX %s%s ON %s%s", st.partitioned ? "" : "CONCURRENTLY ",
							 quote_identifier(name), only ? "ONLY " : "", qualified(st.schema, st.relname));
			ts_index_append_definition(&s, &st.policy);
			sql = s.data;
		}
		else if (!target->valid)
			sql = partition_step(relid, &st, target);
	}
	/* 3. every other entity index */
	for (int i = 0; i < st.nindexes && sql == NULL; i++)
		if (&st.indexes[i] != target)
			sql = drop_sql(&st.indexes[i]);
	return sql ? MemoryContextStrdup(keep, sql) : NULL;
}

/* ---------- the worker ---------- */

/* The relation's name, for messages (in a transaction; the result in keep). */
static char *
describe(Oid relid, MemoryContext keep)
{
	char	   *name = get_rel_name(relid);

	return MemoryContextStrdup(keep, name ? name : psprintf("relation %u", relid));
}

static void
apply_policy(Oid relid, MemoryContext keep)
{
	const char *args[1] = {psprintf("%u", relid)};
	int			steps = 0;
	char	   *name = NULL;

	/* one worker per table at a time; the lock is the session's until the worker exits */
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	ts_run_sql("SELECT pg_catalog.pg_advisory_lock(pg_catalog.hashtext('tablestore.index_worker'), $1::oid::int4)",
			   1, args, SPI_OK_SELECT);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();

	for (;;)
	{
		char	   *sql;

		CHECK_FOR_INTERRUPTS();
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		/* waits for the transaction that set the policy: it holds this lock until it ends */
		LockRelationOid(relid, ShareUpdateExclusiveLock);
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		{
			CommitTransactionCommand();
			return;				/* the table was dropped */
		}
		if (name == NULL)
			name = describe(relid, keep);
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		sql = next_step(relid, keep);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		if (sql == NULL)
			break;
		if (++steps > MAX_STEPS)
			elog(ERROR, "tablestore index worker: the entity index of %s does not settle", name);
		elog(DEBUG1, "tablestore index worker: %s", sql);
		run_toplevel(sql);
		pfree(sql);
	}
	if (steps > 0)
		ereport(LOG, (errmsg("tablestore: the indexing policy of %s is applied (%d steps)", name, steps)));
}

/* After a failed run: drop the invalid indexes a concurrent build left (they slow writes down). */
static void
drop_leftovers(Oid relid, MemoryContext keep)
{
	List	   *drops = NIL;
	ListCell   *lc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		TsIndexState st;

		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		ts_index_state_read(relid, &st);
		for (int i = 0; i < st.nindexes; i++)
			if (!st.indexes[i].valid && !st.indexes[i].partitioned)
				drops = lappend(drops, MemoryContextStrdup(keep, drop_sql(&st.indexes[i])));
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	foreach(lc, drops)
		run_toplevel(lfirst(lc));
}

/* The error being handled: into the server log, and the transaction it happened in aborted. */
static void
log_and_abort(void)
{
	HOLD_INTERRUPTS();
	EmitErrorReport();
	FlushErrorState();
	AbortOutOfAnyTransaction();
	RESUME_INTERRUPTS();
}

void
tablestore_index_worker_main(Datum arg)
{
	Oid			relid = DatumGetObjectId(arg);
	Oid			dbid;
	MemoryContext keep;

	memcpy(&dbid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	/* InvalidOid: the bootstrap superuser, whatever its login right (as autovacuum connects) */
	BackgroundWorkerInitializeConnectionByOid(dbid, InvalidOid, 0);
	pgstat_report_appname("tablestore index worker");
	/* every name it writes is qualified; nothing of a user's is looked up first */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	keep = AllocSetContextCreate(TopMemoryContext, "tablestore index worker", ALLOCSET_DEFAULT_SIZES);
	PG_TRY();
	{
		apply_policy(relid, keep);
	}
	PG_CATCH();
	{
		/* logged, and what the failed step left dropped; set_indexing_policy runs the worker again */
		log_and_abort();
		PG_TRY();
		{
			drop_leftovers(relid, keep);
		}
		PG_CATCH();
		{
			log_and_abort();
		}
		PG_END_TRY();
		proc_exit(1);
	}
	PG_END_TRY();
	proc_exit(0);
}
