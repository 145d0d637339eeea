/*
 * index_worker.c - the background workers that apply tables' registered indexing policies
 * online (index_worker.h), from the durable queue tablestore_internal.index_queue
 * (index_queue.c).
 *
 * Slots. At most tablestore.max_index_builds workers run in a database: a worker holds the
 * advisory lock of its slot (1..max) for its life. A launcher (set_indexing_policy, or a look at
 * a table whose work no worker does) takes a free slot's lock for its transaction, registers the
 * worker, and returns once the worker waits for that lock: nobody else sees the slot free in
 * between, and the worker starts when the change it was launched for has committed. Changes
 * also hold a "pending" lock (shared) until they end; a worker leaves only once it can take that
 * lock alone and then finds nothing queued that no other worker holds, and it frees its slot
 * before the pending lock, so a change either finds a free slot or is seen by a running worker.
 *
 * Work. A worker claims a queued row whose retry time has come and whose table no other worker
 * holds (a session advisory lock per table), counts the attempt, and repeats: read the table's
 * entity indexes against its registered policy, in a transaction of its own, and run the one
 * statement that brings them closer, as a top-level statement in its own transactions, as a
 * client's would run:
 *
 *   1. drop an index left invalid by an interrupted build (DROP INDEX CONCURRENTLY);
 *   2. with mode consistent and no valid index of the policy: build it (CREATE INDEX
 *      CONCURRENTLY, under the name the old index does not have); for a node's hash-partitioned
 *      table, where PostgreSQL 15 builds no index concurrently, the partitioned index is created
 *      ON ONLY the parent (a catalog entry), each partition's index concurrently, and each
 *      attached to it, which makes it valid;
 *   3. drop every other entity index (DROP INDEX CONCURRENTLY; a partitioned one with DROP
 *      INDEX, which holds its locks only for the catalog update).
 *
 * until none is needed; then the row is removed (unless a newer change came meanwhile, which is
 * then applied too). Every statement first takes the relation locks it needs, each waited for
 * at most tablestore.index_lock_timeout, so that a worker queued behind someone's lock never
 * stalls the sessions queued behind it; the waits of a concurrent build or drop for older
 * transactions (which block nobody) are bounded by STATEMENT_WAIT_MS. An error (a lock not
 * available, a deadlock, a cancel) ends the attempt: it is logged and kept in the row, what the
 * failed build left is dropped, and the row is retried after a backoff, up to
 * TS_INDEX_MAX_ATTEMPTS attempts. A worker that dies leaves its row queued (the attempt
 * counted); the next launch, or another worker, takes it over, dropping the invalid index first.
 *
 * It runs as the bootstrap superuser (as autovacuum does); the table's owner set the policy
 * (set_indexing_policy checks it), and the index belongs to the table's owner as any index does.
 */
#include "index_worker.h"

#include "entity_index.h"
#include "index_queue.h"
#include "ts_report.h"
#include "ts_support.h"
#include "ts_table.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/pquery.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/portal.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"

PGDLLEXPORT void tablestore_index_worker_main(Datum arg);

#define MAX_STEPS 4096

/*
 * The protocol's advisory locks: (database, kind, number, LOCK_SPACE). pg_advisory_lock's keys
 * always have 1 or 2 where LOCK_SPACE is, so no SQL caller can take them.
 */
#define LOCK_SPACE 0x5453
#define LOCK_SLOT 1				/* number: the slot, 1..max_index_builds */
#define LOCK_PENDING 2			/* number 0: shared by changes until they end */
#define LOCK_TABLE 3			/* number: the relation a worker applies the policy of */

/* How long a statement waits for older transactions once it holds its locks (they block no one). */
#define STATEMENT_WAIT_MS (10 * 60 * 1000)

/* How long a launcher waits for its worker to queue for its slot. */
#define LAUNCH_WAIT_MS 30000

/* How often a worker with nothing to do looks again for changes being committed. */
#define IDLE_POLL_MS 100

/* How often a worker waiting for a retry looks for changes queued meanwhile. */
#define BUSY_POLL_MS 1000

/* How long the worker waits for each lock a statement needs (tablestore.index_lock_timeout). */
static int	index_lock_timeout = 1000;

void
ts_index_worker_init(void)
{
	DefineCustomIntVariable("tablestore.index_lock_timeout",
							"How long the index worker waits for each lock a statement of a build needs.",
							"Past it the attempt ends and is retried later, so that the worker never stalls the sessions queued behind it.",
							&index_lock_timeout, 1000, 1, 3600 * 1000, PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
}

static void
protocol_lock(LOCKTAG *tag, Oid db, uint32 kind, uint32 number)
{
	SET_LOCKTAG_ADVISORY(*tag, db, kind, number, LOCK_SPACE);
}

/* ---------- launching ---------- */

void
ts_index_worker_note_change(void)
{
	LOCKTAG		tag;

	protocol_lock(&tag, MyDatabaseId, LOCK_PENDING, 0);
	(void) LockAcquire(&tag, ShareLock, false, false);
}

bool
ts_index_worker_launch(int max_builds, bool only_if_idle)
{
	LOCKTAG		tag;
	int			slot = 0,
				nfree = 0;
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;

	for (int i = 1; i <= max_builds; i++)
	{
		LockAcquireResult r;

		protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, i);
		r = LockAcquire(&tag, ExclusiveLock, false, true);
		if (r == LOCKACQUIRE_NOT_AVAIL)
			continue;
		if (r == LOCKACQUIRE_ALREADY_HELD)
		{
			/* this transaction launched a worker already: it takes this change too */
			LockRelease(&tag, ExclusiveLock, false);
			if (slot > 0)
			{
				protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, slot);
				LockRelease(&tag, ExclusiveLock, false);
			}
			return false;
		}
		nfree++;
		if (slot == 0)
			slot = i;
		else
			LockRelease(&tag, ExclusiveLock, false);
	}
	if (slot == 0)
		return false;
	protocol_lock(&tag, MyDatabaseId, LOCK_SLOT, slot);
	if (only_if_idle && nfree < max_builds)
	{
		LockRelease(&tag, ExclusiveLock, false);
		return false;
	}

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "tablestore");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "tablestore_index_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "tablestore index worker %d of database %u", slot, MyDatabaseId);
	snprintf(w.bgw_type, BGW_MAXLEN, "tablestore index worker");
	w.bgw_main_arg = Int32GetDatum(slot);
	memcpy(w.bgw_extra, &MyDatabaseId, sizeof(Oid));
	w.bgw_notify_pid = 0;
	if (!RegisterDynamicBackgroundWorker(&w, &handle))
	{
		LockRelease(&tag, ExclusiveLock, false);
		ereport(LOG,
				(errmsg("tablestore: no background worker slot is free for an index worker; the change stays queued"),
				 errhint("Raise max_worker_processes; the next indexing_progress or wait_for_indexing launches it.")));
		return false;
	}
	/* the slot is the worker's once it waits for it: until then nobody may see it free */
	for (int waited = 0; waited < LAUNCH_WAIT_MS; waited += 5)
	{
		pid_t		pid;

		if (LockHasWaiters(&tag, ExclusiveLock, false) || GetBackgroundWorkerPid(handle, &pid) == BGWH_STOPPED)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 5, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pfree(handle);
	return true;
}

/* ---------- running statements as a client would ---------- */

/* A lock a statement needs, taken before it runs. */
typedef struct StepLock
{
	Oid			relid;
	LOCKMODE	mode;
	bool		partitions;		/* and every partition of it, in the same mode */
} StepLock;

#define MAX_STEP_LOCKS 4

/* The next statement and the locks it takes. */
typedef struct Step
{
	char	   *sql;
	int			nlocks;
	StepLock	locks[MAX_STEP_LOCKS];
} Step;

static void
step_lock(Step *s, Oid relid, LOCKMODE mode, bool partitions)
{
	Assert(s->nlocks < MAX_STEP_LOCKS);
	s->locks[s->nlocks].relid = relid;
	s->locks[s->nlocks].mode = mode;
	s->locks[s->nlocks].partitions = partitions;
	s->nlocks++;
}

static void
set_lock_timeout(int ms)
{
	char		value[32];

	snprintf(value, sizeof(value), "%d", ms);
	SetConfigOption("lock_timeout", value, PGC_SUSET, PGC_S_SESSION);
}

/*
 * The memory of the statement being run: not a transaction's, since CREATE and DROP INDEX
 * CONCURRENTLY commit and start transactions inside (the context current when PortalRun starts
 * is the one it returns to).
 */
static MemoryContext statement_cxt = NULL;

/*
 * One statement at top level, in transactions of its own. Its locks are taken first, each waited
 * for at most index_lock_timeout (an error past it); then the statement's own waits for older
 * transactions are bounded by STATEMENT_WAIT_MS.
 */
static void
run_step(const Step *step)
{
	List	   *parsed;
	RawStmt    *raw;
	List	   *queries,
			   *plans;
	Portal		portal;
	DestReceiver *dest;
	QueryCompletion qc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, step->sql);
	set_lock_timeout(index_lock_timeout);
	for (int i = 0; i < step->nlocks; i++)
	{
		LockRelationOid(step->locks[i].relid, step->locks[i].mode);
		if (step->locks[i].partitions)
			(void) find_all_inheritors(step->locks[i].relid, step->locks[i].mode, NULL);
	}
	set_lock_timeout(STATEMENT_WAIT_MS);
	MemoryContextSwitchTo(statement_cxt);
	parsed = pg_parse_query(step->sql);
	if (list_length(parsed) != 1)
		elog(ERROR, "tablestore index worker: one statement expected");
	raw = linitial_node(RawStmt, parsed);
	queries = pg_analyze_and_rewrite_fixedparams(raw, step->sql, NULL, 0, NULL);
	plans = pg_plan_queries(queries, step->sql, CURSOR_OPT_PARALLEL_OK, NULL);
	portal = CreatePortal("", true, true);
	portal->visible = false;
	PortalDefineQuery(portal, NULL, step->sql, CreateCommandTag(raw->stmt), plans, NULL);
	PortalStart(portal, NULL, 0, InvalidSnapshot);
	dest = CreateDestReceiver(DestNone);
	(void) PortalRun(portal, FETCH_ALL, true, true, dest, dest, &qc);
	dest->rDestroy(dest);
	PortalDrop(portal, false);
	CommitTransactionCommand();
	MemoryContextSwitchTo(TopMemoryContext);
	MemoryContextReset(statement_cxt);
	set_lock_timeout(index_lock_timeout);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* ---------- deciding the next step ---------- */

static char *
qualified(const char *schema, const char *name)
{
	return quote_qualified_identifier(schema, name);
}

/*
 * The drop of an index of the relation heap: concurrent (the locks that a concurrent drop takes
 * first), except a partitioned index's, which PostgreSQL drops only with ACCESS EXCLUSIVE on the
 * table and every partition.
 */
static void
step_drop(Step *s, const TsEntityIndex *x, Oid heap)
{
	if (x->partitioned)
	{
		s->sql = psprintf("DROP INDEX IF EXISTS %s", qualified(x->schema, x->name));
		step_lock(s, heap, AccessExclusiveLock, true);
		step_lock(s, x->oid, AccessExclusiveLock, false);
	}
	else
	{
		s->sql = psprintf("DROP INDEX CONCURRENTLY IF EXISTS %s", qualified(x->schema, x->name));
		step_lock(s, heap, ShareUpdateExclusiveLock, false);
		step_lock(s, x->oid, ShareUpdateExclusiveLock, false);
	}
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
 * what an interrupted build left there, or build that index concurrently. False when every
 * partition has its part.
 */
static bool
partition_step(Oid relid, const TsIndexState *st, const TsEntityIndex *parent, Step *s)
{
	const char *args[2] = {psprintf("%u", parent->oid), psprintf("%u", relid)};
	Oid			part;
	char	   *part_schema,
			   *part_name;
	TsEntityIndex *list;
	int			nlist;

	ts_run_sql("SELECT c.oid::text, n.nspname::text, c.relname::text FROM pg_catalog.pg_inherits i "
			   "JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
			   "WHERE i.inhparent = $2::oid AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits ih "
			   "JOIN pg_catalog.pg_index ci ON ci.indexrelid = ih.inhrelid WHERE ih.inhparent = $1::oid AND ci.indrelid = c.oid) "
			   "ORDER BY c.relname LIMIT 1", 2, args, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;			/* every partition has its part: the index is valid (or about to be) */
	part = (Oid) strtoul(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), NULL, 10);
	part_schema = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	part_name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
	nlist = ts_index_list(part, &st->policy, &list);
	for (int i = 0; i < nlist; i++)
		if (list[i].valid && list[i].matches && !is_attached(list[i].oid))
		{
			/* the locks ALTER INDEX ... ATTACH PARTITION takes */
			s->sql = psprintf("ALTER INDEX %s ATTACH PARTITION %s", qualified(parent->schema, parent->name),
							  qualified(list[i].schema, list[i].name));
			step_lock(s, relid, AccessShareLock, false);
			step_lock(s, part, AccessShareLock, false);
			step_lock(s, parent->oid, ShareUpdateExclusiveLock, false);
			step_lock(s, list[i].oid, AccessExclusiveLock, false);
			return true;
		}
	for (int i = 0; i < nlist; i++)
		if (!list[i].valid)
		{
			step_drop(s, &list[i], part);
			return true;
		}
	{
		StringInfoData sql;
		const char *name = ts_index_name(part_name, has_name(list, nlist, ts_index_name(part_name, false)));

		initStringInfo(&sql);
		appendStringInfo(&sql, "CREATE INDEX CONCURRENTLY %s ON %s", quote_identifier(name), qualified(part_schema, part_name));
		ts_index_append_definition(&sql, &st->policy);
		s->sql = sql.data;
		step_lock(s, part, ShareUpdateExclusiveLock, false);
	}
	return true;
}

/*
 * The statement that brings the table's indexes closer to its policy, and its locks; false when
 * they are where it wants them. In SPI; the step in the current memory context.
 */
static bool
next_step(Oid relid, Step *s)
{
	TsIndexState st;
	const TsEntityIndex *target = NULL;

	memset(s, 0, sizeof(*s));
	ts_index_state_read(relid, &st);
	for (int i = 0; i < st.nindexes; i++)
	{
		const TsEntityIndex *x = &st.indexes[i];

		/* the partitioned index being assembled is invalid until its last partition is attached */
		if (x->matches && (x->valid || (x->partitioned && st.partitioned)) && target == NULL)
			target = x;
	}
	/* 1. what an interrupted build left */
	for (int i = 0; i < st.nindexes; i++)
		if (!st.indexes[i].valid && &st.indexes[i] != target)
		{
			step_drop(s, &st.indexes[i], relid);
			return true;
		}
	/* 2. the index of the policy */
	if (st.policy.consistent)
	{
		if (target == NULL)
		{
			StringInfoData sql;
			const char *name = ts_index_name(st.relname, has_name(st.indexes, st.nindexes, ts_index_name(st.relname, false)));
			bool		only = st.partitioned && has_partitions(relid);

			/* a partitioned table's index is a catalog entry (its parts come next), made at once */
			initStringInfo(&sql);
			appendStringInfo(&sql, "CREATE INDEX %s%s ON %s%s", st.partitioned ? "" : "CONCURRENTLY ",
							 quote_identifier(name), only ? "ONLY " : "", qualified(st.schema, st.relname));
			ts_index_append_definition(&sql, &st.policy);
			s->sql = sql.data;
			step_lock(s, relid, st.partitioned ? ShareLock : ShareUpdateExclusiveLock, false);
			return true;
		}
		if (!target->valid && partition_step(relid, &st, target, s))
			return true;
	}
	/* 3. every other entity index */
	for (int i = 0; i < st.nindexes; i++)
		if (&st.indexes[i] != target)
		{
			step_drop(s, &st.indexes[i], relid);
			return true;
		}
	return false;
}

/* ---------- the worker ---------- */

/* Memory of the worker's current work (reset per claim). */
static MemoryContext work_cxt = NULL;

/* The relation whose table lock this worker holds, if any. */
static Oid	held_table = InvalidOid;

static void
table_lock(LOCKTAG *tag, Oid relid)
{
	protocol_lock(tag, MyDatabaseId, LOCK_TABLE, relid);
}

static void
release_table(void)
{
	LOCKTAG		tag;

	if (!OidIsValid(held_table))
		return;
	table_lock(&tag, held_table);
	LockRelease(&tag, ExclusiveLock, true);
	held_table = InvalidOid;
}

/* The relation of a table key (InvalidOid when it is gone). In a transaction. */
static Oid
table_relid(const char *key)
{
	Oid			nsp = get_namespace_oid(TS_DATA_SCHEMA, true);

	return OidIsValid(nsp) ? get_relname_relid(key, nsp) : InvalidOid;
}

/* In a transaction of its own, with SPI and a snapshot. */
static void
begin_work_transaction(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "tablestore index worker: SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
}

static void
end_work_transaction(void)
{
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(TopMemoryContext);
}

/*
 * The error being handled: into the server log, its transaction aborted, the worker's state
 * back to where it is between two statements (postgres.c's recovery). Its message, in work_cxt.
 */
static char *
recover(void)
{
	ErrorData  *e;
	char	   *msg;

	HOLD_INTERRUPTS();
	MemoryContextSwitchTo(work_cxt);
	e = CopyErrorData();
	EmitErrorReport();
	FlushErrorState();
	AbortOutOfAnyTransaction();
	MemoryContextSwitchTo(TopMemoryContext);
	MemoryContextReset(statement_cxt);
	pgstat_report_activity(STATE_IDLE, NULL);
	RESUME_INTERRUPTS();
	msg = MemoryContextStrdup(work_cxt, psprintf("%s (SQLSTATE %s)", e->message ? e->message : "unknown error",
												 unpack_sql_state(e->sqlerrcode)));
	FreeErrorData(e);
	return msg;
}

/* Claim a queued row that may run now and that no other worker holds; false when none. */
static bool
claim(TsIndexWork *w, Oid *relid)
{
	TsIndexWork *rows;
	int			n;
	bool		found = false;

	begin_work_transaction();
	n = ts_index_queue_runnable(work_cxt, &rows);
	for (int i = 0; i < n && !found; i++)
	{
		Oid			rel = table_relid(rows[i].key);
		LOCKTAG		tag;

		if (!OidIsValid(rel))
		{
			ts_index_queue_forget(rows[i].key); /* the table is gone */
			continue;
		}
		table_lock(&tag, rel);
		if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
			continue;
		held_table = rel;
		ts_index_queue_attempt(&rows[i]);
		*w = rows[i];
		*relid = rel;
		found = true;
	}
	end_work_transaction();
	return found;
}

/*
 * How long to wait before looking at the queue again: the time to the next retry of a row no
 * other worker holds, or -1 when there is none.
 */
static int
wait_for_queue(void)
{
	TsIndexWork *rows;
	int			n;
	int			wait = -1;

	begin_work_transaction();
	n = ts_index_queue_waiting(work_cxt, &rows);
	for (int i = 0; i < n; i++)
	{
		Oid			rel = table_relid(rows[i].key);
		LOCKTAG		tag;

		if (!OidIsValid(rel))
		{
			ts_index_queue_forget(rows[i].key); /* the table is gone */
			continue;
		}
		table_lock(&tag, rel);
		if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
			continue;			/* another worker's */
		LockRelease(&tag, ExclusiveLock, true);
		if (wait < 0 || rows[i].wait_ms < wait)
			wait = rows[i].wait_ms;
	}
	end_work_transaction();
	return wait;
}

/* Apply the registered policy of the table, step by step. */
static void
apply_policy(Oid relid, const char *name)
{
	int			steps = 0;

	for (;;)
	{
		Step		step;
		bool		more;

		CHECK_FOR_INTERRUPTS();
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		{
			CommitTransactionCommand();
			return;				/* the table was dropped */
		}
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		{
			MemoryContext old = MemoryContextSwitchTo(work_cxt);

			more = next_step(relid, &step);
			if (more)
				step.sql = MemoryContextStrdup(work_cxt, step.sql);
			MemoryContextSwitchTo(old);
		}
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		MemoryContextSwitchTo(TopMemoryContext);
		if (!more)
			break;
		if (++steps > MAX_STEPS)
			elog(ERROR, "tablestore index worker: the entity index of %s does not settle", name);
		elog(DEBUG1, "tablestore index worker: %s", step.sql);
		run_step(&step);
	}
	if (steps > 0)
		ereport(LOG, (errmsg("tablestore: the indexing policy of %s is applied (%d steps)", name, steps)));
}

/* After a failed attempt: drop the invalid indexes a concurrent build left (they slow writes down). */
static void
drop_leftovers(Oid relid)
{
	List	   *drops = NIL;
	ListCell   *lc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		TsIndexState st;
		MemoryContext old;

		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		ts_index_state_read(relid, &st);
		/* the steps outlive SPI and this transaction */
		old = MemoryContextSwitchTo(work_cxt);
		for (int i = 0; i < st.nindexes; i++)
			if (!st.indexes[i].valid && !st.indexes[i].partitioned)
			{
				Step	   *s = palloc0(sizeof(Step));

				step_drop(s, &st.indexes[i], relid);
				drops = lappend(drops, s);
			}
		MemoryContextSwitchTo(old);
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	MemoryContextSwitchTo(TopMemoryContext);
	foreach(lc, drops)
		run_step(lfirst(lc));
}

/* For errors of an attempt: which table, which attempt. */
typedef struct AttemptContext
{
	const char *name;
	int			attempt;
} AttemptContext;

static void
attempt_context(void *arg)
{
	AttemptContext *a = arg;

	errcontext("tablestore index worker: applying the indexing policy of table %s (attempt %d of %d)",
			   a->name, a->attempt, TS_INDEX_MAX_ATTEMPTS);
}

/* One claimed row: apply its policy; settle it, or keep its error and drop what the attempt left. */
static void
run_work(const TsIndexWork *w, Oid relid)
{
	AttemptContext actx = {w->key, w->attempts + 1};
	ErrorContextCallback cb = {error_context_stack, attempt_context, &actx};
	char	   *volatile error = NULL;

	error_context_stack = &cb;
	PG_TRY();
	{
		apply_policy(relid, w->key);
		begin_work_transaction();
		ts_index_queue_settle(w);
		end_work_transaction();
	}
	PG_CATCH();
	{
		error_context_stack = cb.previous;
		error = recover();
	}
	PG_END_TRY();
	error_context_stack = cb.previous;
	if (error == NULL)
		return;
	PG_TRY();
	{
		begin_work_transaction();
		ts_index_queue_fail(w, error);
		end_work_transaction();
		if (w->attempts + 1 >= TS_INDEX_MAX_ATTEMPTS)
			ereport(WARNING,
					(errmsg("tablestore: the indexing policy of table %s is not applied after %d attempts", w->key, TS_INDEX_MAX_ATTEMPTS),
					 errdetail("The last error: %s", error),
					 errhint("tablestore.index_builds shows it; set the policy again to retry.")));
		drop_leftovers(relid);
	}
	PG_CATCH();
	{
		(void) recover();
	}
	PG_END_TRY();
}

/*
 * May the worker leave? Only when nothing is queued that no other worker holds, looked at
 * while no change is being made (the pending lock taken alone); then its slot is freed before
 * the pending lock. Otherwise, how long to wait before looking again.
 */
static int
leave_or_wait(int slot)
{
	LOCKTAG		pending,
				slot_tag;
	int			wait = wait_for_queue();

	if (wait >= 0)
		return wait;
	protocol_lock(&pending, MyDatabaseId, LOCK_PENDING, 0);
	if (LockAcquire(&pending, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		return IDLE_POLL_MS;	/* a change is being made: it may need this worker */
	wait = wait_for_queue();
	if (wait < 0)
	{
		protocol_lock(&slot_tag, MyDatabaseId, LOCK_SLOT, slot);
		LockRelease(&slot_tag, ExclusiveLock, true);
	}
	LockRelease(&pending, ExclusiveLock, true);
	return wait;
}

static void
work_off_queue(int slot)
{
	for (;;)
	{
		TsIndexWork w;
		Oid			relid;
		int			wait;

		CHECK_FOR_INTERRUPTS();
		MemoryContextReset(work_cxt);
		if (claim(&w, &relid))
		{
			run_work(&w, relid);
			release_table();
			continue;
		}
		wait = leave_or_wait(slot);
		if (wait < 0)
			return;
		/*
		 * At least a moment (a due row that claim skipped is being written by a caller: SKIP
		 * LOCKED), at most a second (a change queued meanwhile for want of a slot is taken soon).
		 */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(Max(wait, IDLE_POLL_MS), BUSY_POLL_MS), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

void
tablestore_index_worker_main(Datum arg)
{
	int			slot = DatumGetInt32(arg);
	Oid			dbid;
	LOCKTAG		tag;
	bool		installed;

	memcpy(&dbid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	/* InvalidOid: the bootstrap superuser, whatever its login right (as autovacuum connects) */
	BackgroundWorkerInitializeConnectionByOid(dbid, InvalidOid, 0);
	pgstat_report_appname("tablestore index worker");
	/* every name it writes is qualified; nothing of a user's is looked up first */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	/* a build is bounded by its own waits, not by a timeout set for the database's clients */
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("idle_in_transaction_session_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	work_cxt = AllocSetContextCreate(TopMemoryContext, "tablestore index worker", ALLOCSET_DEFAULT_SIZES);
	statement_cxt = AllocSetContextCreate(TopMemoryContext, "tablestore index worker statement", ALLOCSET_DEFAULT_SIZES);

	/* the slot: its launcher holds it until the change it was launched for commits */
	StartTransactionCommand();
	set_lock_timeout(0);
	protocol_lock(&tag, dbid, LOCK_SLOT, slot);
	(void) LockAcquire(&tag, ExclusiveLock, true, false);
	set_lock_timeout(index_lock_timeout);
	installed = ts_index_queue_installed();
	CommitTransactionCommand();
	if (!installed)
		proc_exit(0);			/* the extension was dropped, or is older than its library */

	PG_TRY();
	{
		work_off_queue(slot);
	}
	PG_CATCH();
	{
		/* the queue itself failed (the extension dropped meanwhile?): what is queued stays so */
		(void) recover();
		release_table();
		/* the slot before the pending lock (leave_or_wait may hold it), as when leaving */
		LockRelease(&tag, ExclusiveLock, true);
		LockReleaseAll(USER_LOCKMETHOD, true);
		proc_exit(1);
	}
	PG_END_TRY();
	proc_exit(0);
}
